//! The Task state machine: one transition table, pure transitions (spec §4.1.3, §3.1, §3.4;
//! WIRE-NOTES (c), (j)).
//!
//! [`TRANSITIONS`] is the only place that says which state may follow which, and which
//! events a state accepts. Everything else (the server engine, the client's task tracker, the
//! rendered diagram in `docs/task-states.md`) reads it.
//!
//! - Active: submitted, working. Interrupted: input-required, auth-required. Terminal:
//!   completed, failed, canceled, rejected. `TASK_STATE_UNSPECIFIED` is never a valid target.
//! - A terminal task never changes again: no status, artifact or message is accepted.
//! - [`TaskRecord::apply`] checks everything first and only then changes the task, so a
//!   rejected event leaves the task exactly as it was.
//! - Artifacts are assembled by `artifactId`: `append: false` starts the artifact or replaces
//!   it whole; `append: true` appends its parts (and starts it, if the start was never seen);
//!   `lastChunk: true` closes that artifact, after which appends to it are refused (a new
//!   `append: false` chunk may replace it).
//! - The status message (e.g. the agent's question of an input-required state) moves into
//!   `history` when the next message arrives or the status changes, whichever comes first,
//!   so the history reads in conversation order.
//! - A status without a timestamp gets `now`, the time passed in by the caller.

use crate::error::A2aError;
use crate::proto::google::protobuf::{Struct, Timestamp};
use crate::v1::{self, TaskState};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// The class of a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateClass {
    /// Not a real state (`TASK_STATE_UNSPECIFIED`, unknown numbers).
    Unspecified,
    /// Submitted, working.
    Active,
    /// Input-required, auth-required: waiting for the client.
    Interrupted,
    /// Completed, failed, canceled, rejected: final.
    Terminal,
}

/// The class of `state`.
pub fn class(state: TaskState) -> StateClass {
    use TaskState::*;
    match state {
        Unspecified => StateClass::Unspecified,
        Submitted | Working => StateClass::Active,
        InputRequired | AuthRequired => StateClass::Interrupted,
        Completed | Failed | Canceled | Rejected => StateClass::Terminal,
    }
}

/// The class of a raw state number (unknown numbers are `Unspecified`).
pub fn class_of(state: i32) -> StateClass {
    TaskState::try_from(state).map_or(StateClass::Unspecified, class)
}

/// One row of the transition table.
#[derive(Clone, Copy, Debug)]
pub struct Transition {
    /// The current state; `None` for a task being created.
    pub from: Option<TaskState>,
    /// The states it may move to.
    pub to: &'static [TaskState],
    /// Whether artifact updates are accepted in this state.
    pub artifacts: bool,
    /// Whether messages (follow-ups, agent messages) are accepted in this state.
    pub messages: bool,
}

const NON_INITIAL: &[TaskState] = {
    use TaskState::*;
    &[Working, InputRequired, AuthRequired, Completed, Failed, Canceled, Rejected]
};
const ANY_REAL: &[TaskState] = {
    use TaskState::*;
    &[Submitted, Working, InputRequired, AuthRequired, Completed, Failed, Canceled, Rejected]
};

/// THE transition table. `Submitted` is reachable only at creation and from an interrupted
/// state (a follow-up message re-submits); every non-terminal state may move to any terminal
/// one (cancellation, rejection and failure can happen at any time); terminal states accept
/// nothing.
pub const TRANSITIONS: [Transition; 9] = {
    use TaskState::*;
    [
        Transition { from: None, to: ANY_REAL, artifacts: true, messages: true },
        Transition { from: Some(Submitted), to: NON_INITIAL, artifacts: true, messages: true },
        Transition { from: Some(Working), to: NON_INITIAL, artifacts: true, messages: true },
        Transition { from: Some(InputRequired), to: ANY_REAL, artifacts: true, messages: true },
        Transition { from: Some(AuthRequired), to: ANY_REAL, artifacts: true, messages: true },
        Transition { from: Some(Completed), to: &[], artifacts: false, messages: false },
        Transition { from: Some(Failed), to: &[], artifacts: false, messages: false },
        Transition { from: Some(Canceled), to: &[], artifacts: false, messages: false },
        Transition { from: Some(Rejected), to: &[], artifacts: false, messages: false },
    ]
};

/// The row for `from` (`None`: a task being created; an unknown state number has no row).
pub fn transition(from: Option<TaskState>) -> Option<&'static Transition> {
    TRANSITIONS.iter().find(|t| t.from == from)
}

/// Whether `from` may move to `to`.
pub fn can_move(from: Option<TaskState>, to: TaskState) -> bool {
    transition(from).is_some_and(|t| t.to.contains(&to))
}

/// The state diagram (Mermaid) rendered from [`TRANSITIONS`]; `docs/task-states.md` holds it
/// and a test fails when the two differ.
pub fn mermaid_diagram() -> String {
    use core::fmt::Write as _;
    let name = |s: TaskState| s.as_str_name().trim_start_matches("TASK_STATE_");
    let mut out = String::from("stateDiagram-v2\n");
    for t in &TRANSITIONS {
        for to in t.to {
            let from = t.from.map_or("[*]", name);
            // Writing to a String cannot fail.
            let _ = writeln!(out, "    {from} --> {}", name(*to));
        }
        if let Some(from) = t.from {
            if class(from) == StateClass::Terminal {
                let _ = writeln!(out, "    {} --> [*]", name(from));
            }
        }
    }
    out
}

/// Why an event was refused. The task is unchanged.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The task is terminal: it never changes again.
    Terminal {
        /// Its state.
        state: TaskState,
    },
    /// The table does not allow this move.
    IllegalTransition {
        /// Current state (`None` at creation).
        from: Option<TaskState>,
        /// Requested state.
        to: i32,
    },
    /// `TASK_STATE_UNSPECIFIED` or an unknown number as a target.
    UnspecifiedTarget,
    /// The event's `taskId` or `contextId` is not this task's.
    WrongTask {
        /// Which id differs: `taskId` or `contextId`.
        field: &'static str,
    },
    /// An append to an artifact that a `lastChunk` already closed.
    ArtifactClosed {
        /// The artifact.
        artifact_id: String,
    },
    /// An artifact without an `artifactId`.
    MissingArtifactId,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::Terminal { state } => write!(f, "the task is {} and cannot change", state.as_str_name()),
            Rejection::IllegalTransition { from, to } => {
                let to = TaskState::try_from(*to).map_or("an unknown state", |s| s.as_str_name());
                match from {
                    Some(from) => write!(f, "a task cannot move from {} to {to}", from.as_str_name()),
                    None => write!(f, "a task cannot start in {to}"),
                }
            }
            Rejection::UnspecifiedTarget => f.write_str("TASK_STATE_UNSPECIFIED is not a state a task can be in"),
            Rejection::WrongTask { field } => write!(f, "the event's {field} is not this task's"),
            Rejection::ArtifactClosed { artifact_id } => write!(f, "artifact {artifact_id:?} was closed by lastChunk"),
            Rejection::MissingArtifactId => f.write_str("an artifact needs an artifactId"),
        }
    }
}

impl Rejection {
    /// The A2A error a server answers with when a caller's request caused the rejection (a
    /// message to a terminal task is UnsupportedOperation, §3.4; anything else is invalid).
    pub fn to_error(&self, task_id: &str) -> A2aError {
        match self {
            Rejection::Terminal { state } => A2aError::unsupported(alloc::format!(
                "Task is {} and accepts no more messages; send a new message without taskId in the same contextId",
                state.as_str_name()
            ))
            .meta("taskId", task_id),
            other => A2aError::invalid_field("", alloc::format!("{other}")),
        }
    }
}

/// Something that happens to a task.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum TaskEvent {
    /// A new status (the status message, if any, stays in `status.message`).
    Status {
        /// The status; a missing timestamp is filled with `now`.
        status: v1::TaskStatus,
        /// Event metadata (published with the update).
        metadata: Option<Struct>,
    },
    /// An artifact or a chunk of one.
    Artifact {
        /// The artifact (chunk).
        artifact: v1::Artifact,
        /// Append its parts to the artifact with the same id.
        append: bool,
        /// Last chunk of that artifact.
        last_chunk: bool,
        /// Event metadata (published with the update).
        metadata: Option<Struct>,
    },
    /// A message added to the history (a client follow-up, or an agent message).
    Message(v1::Message),
}

/// A task with the state the machine needs beyond the wire `Task`: which artifacts a
/// `lastChunk` closed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskRecord {
    /// The task as the wire shows it.
    pub task: v1::Task,
    /// Ids of artifacts closed by `lastChunk`.
    pub closed_artifacts: Vec<String>,
}

impl TaskRecord {
    /// A record for a task as it is (for instance a snapshot received from a server).
    pub fn new(task: v1::Task) -> Self {
        TaskRecord { task, closed_artifacts: Vec::new() }
    }

    /// The current state (`None` while the task has no status yet).
    pub fn state(&self) -> Option<TaskState> {
        self.task.status.as_ref().and_then(|s| TaskState::try_from(s.state).ok()).filter(|s| *s != TaskState::Unspecified)
    }

    /// Checks `event` against the table without changing anything.
    pub fn check(&self, event: &TaskEvent) -> Result<(), Rejection> {
        let from = self.state();
        let row = transition(from).ok_or(Rejection::IllegalTransition { from, to: 0 })?;
        if let Some(state) = from {
            if class(state) == StateClass::Terminal {
                return Err(Rejection::Terminal { state });
            }
        }
        match event {
            TaskEvent::Status { status, .. } => {
                let to =
                    TaskState::try_from(status.state).ok().filter(|s| *s != TaskState::Unspecified).ok_or(Rejection::UnspecifiedTarget)?;
                if !row.to.contains(&to) {
                    return Err(Rejection::IllegalTransition { from, to: status.state });
                }
                if let Some(m) = &status.message {
                    self.check_ids(&m.task_id, &m.context_id)?;
                }
            }
            TaskEvent::Artifact { artifact, append, .. } => {
                if !row.artifacts {
                    return Err(Rejection::IllegalTransition { from, to: 0 });
                }
                if artifact.artifact_id.is_empty() {
                    return Err(Rejection::MissingArtifactId);
                }
                if *append && self.closed_artifacts.contains(&artifact.artifact_id) {
                    return Err(Rejection::ArtifactClosed { artifact_id: artifact.artifact_id.clone() });
                }
            }
            TaskEvent::Message(m) => {
                if !row.messages {
                    return Err(Rejection::IllegalTransition { from, to: 0 });
                }
                self.check_ids(&m.task_id, &m.context_id)?;
            }
        }
        Ok(())
    }

    fn check_ids(&self, task_id: &str, context_id: &str) -> Result<(), Rejection> {
        if !task_id.is_empty() && task_id != self.task.id {
            return Err(Rejection::WrongTask { field: "taskId" });
        }
        if !context_id.is_empty() && !self.task.context_id.is_empty() && context_id != self.task.context_id {
            return Err(Rejection::WrongTask { field: "contextId" });
        }
        Ok(())
    }

    /// Applies `event` at time `now`: the task changes and the stream events to publish are
    /// returned, or the event is refused and the task is untouched.
    pub fn apply(&mut self, event: TaskEvent, now: Timestamp) -> Result<Vec<v1::StreamResponse>, Rejection> {
        use v1::stream_response::Payload;
        self.check(&event)?;
        let task_id = self.task.id.clone();
        let context_id = self.task.context_id.clone();
        match event {
            TaskEvent::Status { mut status, metadata } => {
                if status.timestamp.is_none() {
                    status.timestamp = Some(now);
                }
                if let Some(m) = status.message.as_mut() {
                    m.task_id.clone_from(&task_id);
                    m.context_id.clone_from(&context_id);
                }
                let same_message = match (&status.message, self.task.status.as_ref().and_then(|s| s.message.as_ref())) {
                    (Some(new), Some(old)) => new.message_id == old.message_id,
                    _ => false,
                };
                if !same_message {
                    self.status_message_to_history();
                }
                self.task.status = Some(status.clone());
                Ok(alloc::vec![v1::StreamResponse {
                    payload: Some(Payload::StatusUpdate(v1::TaskStatusUpdateEvent { task_id, context_id, status: Some(status), metadata })),
                }])
            }
            TaskEvent::Artifact { artifact, append, last_chunk, metadata } => {
                let id = artifact.artifact_id.clone();
                match self.task.artifacts.iter_mut().find(|a| a.artifact_id == id) {
                    Some(existing) if append => {
                        existing.parts.extend(artifact.parts.iter().cloned());
                        if !artifact.name.is_empty() {
                            existing.name.clone_from(&artifact.name);
                        }
                        if !artifact.description.is_empty() {
                            existing.description.clone_from(&artifact.description);
                        }
                        if artifact.metadata.is_some() {
                            existing.metadata.clone_from(&artifact.metadata);
                        }
                        for e in &artifact.extensions {
                            if !existing.extensions.contains(e) {
                                existing.extensions.push(e.clone());
                            }
                        }
                    }
                    Some(existing) => {
                        *existing = artifact.clone();
                        self.closed_artifacts.retain(|c| *c != id);
                    }
                    None => self.task.artifacts.push(artifact.clone()),
                }
                if last_chunk && !self.closed_artifacts.contains(&id) {
                    self.closed_artifacts.push(id);
                }
                Ok(alloc::vec![v1::StreamResponse {
                    payload: Some(Payload::ArtifactUpdate(v1::TaskArtifactUpdateEvent {
                        task_id,
                        context_id,
                        artifact: Some(artifact),
                        append,
                        last_chunk,
                        metadata,
                    })),
                }])
            }
            TaskEvent::Message(mut m) => {
                m.task_id = task_id;
                m.context_id = context_id;
                // The current status message (e.g. the agent's question) came first.
                self.status_message_to_history();
                self.task.history.push(m);
                Ok(Vec::new())
            }
        }
    }

    /// Moves the current status message into the history (once).
    fn status_message_to_history(&mut self) {
        if let Some(prev) = self.task.status.as_ref().and_then(|s| s.message.as_ref()) {
            if !self.task.history.iter().any(|h| h.message_id == prev.message_id) {
                let prev = prev.clone();
                self.task.history.push(prev);
            }
        }
    }

    /// Applies an event received on a stream (client side): a `Task` replaces the snapshot,
    /// status and artifact updates go through [`TaskRecord::apply`], a `Message` is added to
    /// the history.
    pub fn apply_stream_event(&mut self, event: &v1::StreamResponse, now: Timestamp) -> Result<(), Rejection> {
        use v1::stream_response::Payload;
        match &event.payload {
            Some(Payload::Task(t)) => {
                if !self.task.id.is_empty() && t.id != self.task.id {
                    return Err(Rejection::WrongTask { field: "taskId" });
                }
                self.task = t.clone();
                Ok(())
            }
            Some(Payload::StatusUpdate(u)) => {
                self.check_ids(&u.task_id, &u.context_id)?;
                let status = u.status.clone().unwrap_or_default();
                self.apply(TaskEvent::Status { status, metadata: u.metadata.clone() }, now).map(drop)
            }
            Some(Payload::ArtifactUpdate(u)) => {
                self.check_ids(&u.task_id, &u.context_id)?;
                let artifact = u.artifact.clone().unwrap_or_default();
                self.apply(TaskEvent::Artifact { artifact, append: u.append, last_chunk: u.last_chunk, metadata: u.metadata.clone() }, now)
                    .map(drop)
            }
            Some(Payload::Message(m)) => self.apply(TaskEvent::Message(m.clone()), now).map(drop),
            None => Ok(()),
        }
    }
}

/// Applies `historyLength` to a task about to be returned (§3.2.4): `None` keeps the server's
/// default (`default_limit`, `None` = everything); `0` removes the history (the field is
/// then omitted); `N` keeps the N most recent messages; a negative value is a validation
/// error naming `field`.
pub fn trim_history(task: &mut v1::Task, history_length: Option<i32>, default_limit: Option<usize>, field: &str) -> Result<(), A2aError> {
    let limit = match history_length {
        Some(n) if n < 0 => return Err(A2aError::invalid_field(field, "must be 0 or more")),
        Some(n) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
        None => default_limit,
    };
    if let Some(limit) = limit {
        let len = task.history.len();
        if len > limit {
            task.history.drain(..len - limit);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn ts(s: i64) -> Timestamp {
        Timestamp { seconds: s, nanos: 0 }
    }
    fn status(state: TaskState) -> TaskEvent {
        TaskEvent::Status { status: v1::TaskStatus { state: state as i32, ..Default::default() }, metadata: None }
    }
    fn text(t: &str) -> v1::Part {
        v1::Part { content: Some(v1::part::Content::Text(t.into())), ..Default::default() }
    }
    fn chunk(id: &str, t: &str, append: bool, last: bool) -> TaskEvent {
        TaskEvent::Artifact {
            artifact: v1::Artifact { artifact_id: id.into(), parts: vec![text(t)], ..Default::default() },
            append,
            last_chunk: last,
            metadata: None,
        }
    }
    fn record() -> TaskRecord {
        TaskRecord::new(v1::Task { id: "t".into(), context_id: "c".into(), ..Default::default() })
    }

    #[test]
    fn the_table_covers_every_state_once_and_never_targets_unspecified() {
        for s in [None].into_iter().chain(ANY_REAL.iter().copied().map(Some)) {
            assert_eq!(TRANSITIONS.iter().filter(|t| t.from == s).count(), 1, "{s:?}");
        }
        assert!(TRANSITIONS.iter().all(|t| !t.to.contains(&TaskState::Unspecified)));
        assert!(TRANSITIONS
            .iter()
            .filter(|t| t.from.is_some_and(|s| class(s) == StateClass::Terminal))
            .all(|t| t.to.is_empty() && !t.artifacts && !t.messages));
    }

    #[test]
    fn terminal_tasks_never_change() {
        let mut r = record();
        r.apply(status(TaskState::Working), ts(1)).unwrap();
        r.apply(status(TaskState::Completed), ts(2)).unwrap();
        let before = r.clone();
        for e in [status(TaskState::Working), chunk("a", "x", false, false), TaskEvent::Message(v1::Message::default())] {
            assert_eq!(r.apply(e, ts(3)), Err(Rejection::Terminal { state: TaskState::Completed }));
            assert_eq!(r, before);
        }
    }

    #[test]
    fn illegal_moves_are_refused_and_leave_the_task_untouched() {
        let mut r = record();
        r.apply(status(TaskState::Working), ts(1)).unwrap();
        let before = r.clone();
        assert!(matches!(r.apply(status(TaskState::Submitted), ts(2)), Err(Rejection::IllegalTransition { .. })));
        assert_eq!(r.apply(status(TaskState::Unspecified), ts(2)), Err(Rejection::UnspecifiedTarget));
        assert_eq!(r, before);
    }

    #[test]
    fn status_updates_fill_the_timestamp_and_move_the_old_status_message_to_history() {
        let mut r = record();
        let ask =
            v1::Message { message_id: "q".into(), role: v1::Role::Agent as i32, parts: vec![text("which date?")], ..Default::default() };
        let ev = TaskEvent::Status {
            status: v1::TaskStatus { state: TaskState::InputRequired as i32, message: Some(ask), timestamp: None },
            metadata: None,
        };
        let out = r.apply(ev, ts(10)).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(r.task.status.as_ref().unwrap().timestamp, Some(ts(10)));
        assert_eq!(r.task.status.as_ref().unwrap().message.as_ref().unwrap().task_id, "t");
        r.apply(status(TaskState::Working), ts(11)).unwrap();
        assert_eq!(r.task.history.iter().map(|m| m.message_id.as_str()).collect::<Vec<_>>(), ["q"]);
    }

    #[test]
    fn artifact_chunks_assemble_by_id() {
        let mut r = record();
        r.apply(chunk("a", "1", false, false), ts(1)).unwrap();
        r.apply(chunk("b", "x", false, true), ts(1)).unwrap();
        r.apply(chunk("a", "2", true, false), ts(1)).unwrap();
        r.apply(chunk("a", "3", true, true), ts(1)).unwrap();
        let texts = |r: &TaskRecord, id: &str| -> Vec<String> {
            r.task
                .artifacts
                .iter()
                .find(|a| a.artifact_id == id)
                .unwrap()
                .parts
                .iter()
                .map(|p| match &p.content {
                    Some(v1::part::Content::Text(t)) => t.clone(),
                    _ => String::new(),
                })
                .collect()
        };
        assert_eq!(texts(&r, "a"), ["1", "2", "3"]);
        assert_eq!(r.apply(chunk("a", "4", true, false), ts(1)), Err(Rejection::ArtifactClosed { artifact_id: "a".into() }));
        // lastChunk closes only that artifact; a replacement reopens it.
        r.apply(chunk("a", "new", false, false), ts(1)).unwrap();
        assert_eq!(texts(&r, "a"), ["new"]);
        r.apply(chunk("a", "more", true, false), ts(1)).unwrap();
        assert_eq!(texts(&r, "a"), ["new", "more"]);
        assert_eq!(texts(&r, "b"), ["x"]);
    }

    #[test]
    fn history_length_rules() {
        let mut t = v1::Task::default();
        t.history = (0..5).map(|i| v1::Message { message_id: alloc::format!("m{i}"), ..Default::default() }).collect();
        let mut a = t.clone();
        trim_history(&mut a, Some(2), None, "historyLength").unwrap();
        assert_eq!(a.history.iter().map(|m| m.message_id.as_str()).collect::<Vec<_>>(), ["m3", "m4"]);
        let mut b = t.clone();
        trim_history(&mut b, Some(0), None, "historyLength").unwrap();
        assert!(b.history.is_empty());
        let mut c = t.clone();
        trim_history(&mut c, None, Some(3), "historyLength").unwrap();
        assert_eq!(c.history.len(), 3);
        let mut d = t.clone();
        trim_history(&mut d, None, None, "historyLength").unwrap();
        assert_eq!(d.history.len(), 5);
        let e = trim_history(&mut t, Some(-1), None, "configuration.historyLength").unwrap_err();
        assert_eq!(e.violations()[0].field, "configuration.historyLength");
    }
}

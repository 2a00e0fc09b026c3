//! Agent runs: their events, their ends, lost runs after a restart, and who is told what
//! when a task moves.

use super::*;
use crate::proto::google::protobuf::Timestamp;
use crate::task::{TaskEvent, TaskRecord};

impl Engine {
    /// After a restart over a persistent store: every stored task that was `SUBMITTED` or
    /// `WORKING` lost its run with the old process. This starts a new run for each (an
    /// [`Output::Execute`] with `resumed: true`, carrying the task's last user message and
    /// the creator as principal), so the task can finish and subscribers see it move again.
    /// Interrupted tasks (input or auth required) wait for their client and are left alone.
    /// Returns how many runs were started.
    pub fn resume_lost_runs(&mut self) -> usize {
        let ids: Vec<String> = match &self.store {
            Storage::Memory(m) => m.iter().map(|t| t.record.task.id.clone()).collect(),
            Storage::External(_) => Vec::new(),
        };
        self.resume_runs(ids)
    }

    /// Starts a new run for each of these tasks (in memory) that is `SUBMITTED` or
    /// `WORKING` without one (or, when the agent does not resume runs, fails the task).
    pub(super) fn resume_runs(&mut self, ids: Vec<String>) -> usize {
        let lost: Vec<(String, String, String, Option<String>, v1::Message)> = ids
            .iter()
            .filter_map(|id| self.store.get(id))
            .filter(|t| matches!(t.record.state(), Some(TaskState::Submitted | TaskState::Working)))
            .filter(|t| !self.runs.contains_key(&t.record.task.id))
            .map(|t| {
                let task = &t.record.task;
                let message = task.history.iter().rev().find(|m| m.role == v1::Role::User as i32).cloned().unwrap_or_else(|| v1::Message {
                    role: v1::Role::User as i32,
                    task_id: task.id.clone(),
                    context_id: task.context_id.clone(),
                    ..Default::default()
                });
                (task.id.clone(), task.context_id.clone(), t.tenant.clone(), t.owner.clone(), message)
            })
            .collect();
        let mut started = 0;
        for (task_id, context_id, tenant, owner, message) in lost {
            let run = self.new_run_id();
            let entry = Run {
                id: run,
                message: message.clone(),
                tenant: tenant.clone(),
                owner: owner.clone(),
                message_key: String::new(),
                push_config: None,
                version: crate::version::ProtocolVersion::V1_0,
            };
            self.insert_run(&task_id, entry);
            if !self.config.resume_lost_runs {
                let why = "the server running this task stopped before it finished, and this agent does not resume interrupted runs";
                let now = self.now;
                self.handle_run_end(run, RunEnd::Failed(String::from(why)), now);
                continue;
            }
            self.out.push_back(Output::Execute(Execution {
                id: run,
                task_id,
                context_id,
                message,
                follow_up: true,
                context: CallContext { principal: owner, ..CallContext::default() },
                metadata: None,
                tenant,
                configuration: None,
                resumed: true,
            }));
            started += 1;
        }
        started
    }

    /// A client went away: its call (a stream, or a unary call still waiting for its task to
    /// settle) is forgotten. The task is not affected: nothing is canceled or lost.
    pub fn handle_call_closed(&mut self, call: CallId) {
        self.forget_parked(call);
        self.waiters.retain(|_, list| {
            list.retain(|w| w.call != call);
            !list.is_empty()
        });
        if let Some(s) = self.streams.remove(&call) {
            if let Some(list) = self.task_streams.get_mut(&s.task_id) {
                list.retain(|c| *c != call);
                if list.is_empty() {
                    self.task_streams.remove(&s.task_id);
                }
            }
        }
    }

    /// Every current run and its task.
    pub fn current_runs(&self) -> Vec<(RunId, String)> {
        self.runs.iter().map(|(task, r)| (r.id, task.clone())).collect()
    }

    pub(super) fn end_stream(&mut self, call: CallId, error: Option<A2aError>) {
        self.handle_call_closed(call);
        self.out.push_back(Output::StreamEnd { call, error });
    }

    /// The store holds a change to `task_id` (made for `call`, if a call made it): the
    /// store is told, and the calls whose answers show the change wait for the flush.
    pub(super) fn wrote(&mut self, task_id: &str, call: Option<CallId>) {
        self.store.touched(task_id, working::millis(self.now));
        if let Some(c) = call {
            self.unflushed.insert(c);
        }
        if let Some(list) = self.waiters.get(task_id) {
            self.unflushed.extend(list.iter().map(|w| w.call));
        }
        if let Some(list) = self.task_streams.get(task_id) {
            self.unflushed.extend(list.iter().copied());
        }
    }

    // ------------------------------------------------------------------ agent events

    /// An event of agent run `run`. Returns the A2A error that explains a refusal: the run
    /// is not its task's current run (it was superseded by a follow-up, its task was
    /// canceled or finished, or its turn is over), or the event breaks the state machine. A
    /// refused event changes nothing, not even the creation of the task it would have
    /// started.
    pub fn handle_agent(&mut self, run: RunId, event: AgentEvent, now: Timestamp) -> Result<(), A2aError> {
        self.now = now;
        let Some(task_id) = self.run_tasks.get(&run).cloned() else {
            return Err(A2aError::with_message(
                ErrorKind::InvalidAgentResponse,
                format!("run {} is over (its turn ended, or its task was canceled, finished or continued by a newer run)", run.0),
            ));
        };
        let task_id = task_id.as_str();
        let exists = self.store.get(task_id).is_some();
        let refused = |r: task::Rejection| A2aError::with_message(ErrorKind::InvalidAgentResponse, r.to_string());
        match event {
            AgentEvent::Message(m) if !exists => {
                // A direct reply: no task is stored.
                let run = self.remove_run(task_id).ok_or_else(|| A2aError::task_not_found(task_id))?;
                if !run.message_key.is_empty() {
                    self.store.forget_message(&run.message_key);
                }
                let mut m = m;
                m.context_id = run.message.context_id.clone();
                m.task_id.clear();
                for w in self.waiters.remove(task_id).unwrap_or_default() {
                    self.respond(
                        w.call,
                        Ok(Response::SendMessage(v1::SendMessageResponse {
                            payload: Some(v1::send_message_response::Payload::Message(m.clone())),
                        })),
                    );
                }
                for call in self.task_streams.get(task_id).cloned().unwrap_or_default() {
                    self.out.push_back(Output::Stream {
                        call,
                        event: Arc::new(v1::StreamResponse { payload: Some(v1::stream_response::Payload::Message(m.clone())) }),
                        id: None,
                    });
                    self.end_stream(call, None);
                }
                Ok(())
            }
            AgentEvent::Status { status, metadata } if !exists && status.state == TaskState::Submitted as i32 => {
                // The agent announces the task it is creating: that status is its first.
                if let Some(m) = &status.message {
                    if !m.task_id.is_empty() && m.task_id != task_id {
                        return Err(refused(task::Rejection::WrongTask { field: "taskId" }));
                    }
                }
                let mut record = self.new_record(task_id, Some(status), now)?;
                record.task.metadata = metadata;
                self.create_task(task_id, record)
            }
            other => {
                let ev = match other {
                    AgentEvent::Status { status, metadata } => TaskEvent::Status { status, metadata },
                    AgentEvent::Artifact { artifact, append, last_chunk, metadata } => {
                        TaskEvent::Artifact { artifact, append, last_chunk, metadata }
                    }
                    AgentEvent::Message(m) => TaskEvent::Message(m),
                };
                if !exists {
                    // Check the event against the task it would create before creating it.
                    let record = self.new_record(task_id, None, now)?;
                    record.check(&ev).map_err(refused)?;
                    self.create_task(task_id, record)?;
                }
                let message = if let TaskEvent::Message(m) = &ev { Some(m.clone()) } else { None };
                self.apply_event(task_id, ev, now).map_err(refused)?;
                if let Some(mut m) = message {
                    // Agent messages inside a task are stream events too.
                    if let Some(t) = self.store.get(task_id) {
                        m.task_id.clone_from(&t.record.task.id);
                        m.context_id.clone_from(&t.record.task.context_id);
                    }
                    self.publish(task_id, v1::StreamResponse { payload: Some(v1::stream_response::Payload::Message(m)) }, false);
                }
                Ok(())
            }
        }
    }

    /// Agent run `run` returned or failed. Whoever still waits on that run is answered (a run
    /// that ends without settling its task must not leave its caller waiting); a failed run
    /// moves its task to `FAILED` first. The end of a run that is no longer current (its
    /// task settled, was canceled or continued by a newer run) changes nothing.
    pub fn handle_run_end(&mut self, run: RunId, end: RunEnd, now: Timestamp) {
        self.now = now;
        let Some(task_id) = self.run_tasks.get(&run).cloned() else { return };
        if let RunEnd::Failed(text) = &end {
            // A task that already settled (finished, or waiting for its client) keeps its
            // state: the run had handed it over before it failed.
            let settled_already = self.store.get(&task_id).is_some_and(|t| settled(t.record.state()));
            if self.store.get(&task_id).is_some() && !settled_already {
                let reply = v1::Message {
                    message_id: format!("{task_id}-failure-{}", run.0),
                    role: v1::Role::Agent as i32,
                    parts: alloc::vec![v1::Part { content: Some(v1::part::Content::Text(text.clone())), ..Default::default() }],
                    ..Default::default()
                };
                let status = v1::TaskStatus { state: TaskState::Failed as i32, message: Some(reply), timestamp: Some(now) };
                // From a non-terminal state FAILED is always a legal move.
                let _ = self.apply_event(&task_id, TaskEvent::Status { status, metadata: None }, now);
            }
        }
        self.finish_turn(&task_id, run, &end);
    }

    /// The record a pending run's first event creates (SUBMITTED, or the agent's own
    /// submitted status), not yet stored.
    fn new_record(&self, task_id: &str, initial: Option<v1::TaskStatus>, now: Timestamp) -> Result<TaskRecord, A2aError> {
        let run = self.runs.get(task_id).ok_or_else(|| A2aError::task_not_found(task_id))?;
        let mut status = initial.unwrap_or(v1::TaskStatus { state: TaskState::Submitted as i32, message: None, timestamp: None });
        if status.timestamp.is_none() {
            status.timestamp = Some(now);
        }
        if let Some(m) = status.message.as_mut() {
            m.task_id = String::from(task_id);
            m.context_id.clone_from(&run.message.context_id);
        }
        Ok(TaskRecord::new(v1::Task {
            id: String::from(task_id),
            context_id: run.message.context_id.clone(),
            status: Some(status),
            artifacts: Vec::new(),
            history: alloc::vec![run.message.clone()],
            metadata: None,
        }))
    }

    /// Stores the task of a pending run, answers `returnImmediately` calls and starts the
    /// streams waiting for it.
    fn create_task(&mut self, task_id: &str, record: TaskRecord) -> Result<(), A2aError> {
        let run = self.runs.get(task_id).ok_or_else(|| A2aError::task_not_found(task_id))?.clone();
        let mut push_configs = Vec::new();
        if let Some(c) = run.push_config {
            push_configs.push(self.push_config(c, task_id, &run.tenant, run.version));
        }
        self.store.insert(StoredTask { record, tenant: run.tenant, owner: run.owner, push_configs, version: 0, last_event: 0 });
        self.wrote(task_id, None);
        if self.config.streaming {
            self.events.open(task_id);
            self.trim_event_log(task_id);
        }
        // returnImmediately calls are answered now; streams get their first event.
        let waiters = self.waiters.remove(task_id).unwrap_or_default();
        let mut keep = Vec::new();
        for w in waiters {
            if w.immediate {
                let snap = self.store.get(task_id).map(|t| self.snapshot(&t.record.task, w.history_length));
                if let Some(t) = snap {
                    self.respond(w.call, Ok(Response::SendMessage(send_response_task(t))));
                }
            } else {
                keep.push(w);
            }
        }
        if !keep.is_empty() {
            self.waiters.insert(String::from(task_id), keep);
        }
        for call in self.task_streams.get(task_id).cloned().unwrap_or_default() {
            self.start_stream(call);
        }
        Ok(())
    }

    /// Applies an event to a stored task and publishes what it produced.
    pub(super) fn apply_event(&mut self, task_id: &str, event: TaskEvent, now: Timestamp) -> Result<(), task::Rejection> {
        let Some(stored) = self.store.get_mut(task_id) else {
            return Err(task::Rejection::WrongTask { field: "taskId" });
        };
        // Only a status event settles: an artifact or message while the task waits for input
        // (the agent working on a follow-up) does not answer the follow-up's caller.
        let is_status = matches!(event, TaskEvent::Status { .. });
        let published = stored.record.apply(event, now)?;
        let state = stored.record.state();
        self.wrote(task_id, None);
        for ev in published {
            self.publish(task_id, ev, true);
        }
        if settled(state) && is_status {
            self.settle(task_id, is_terminal(state));
        }
        Ok(())
    }

    /// Sends an event to every stream of the task (in subscription order) and, for task
    /// updates, to every webhook of the task.
    /// Each event gets the next id of the task's sequence and is kept in the event log, for
    /// subscribers that resume.
    pub(super) fn publish(&mut self, task_id: &str, event: v1::StreamResponse, webhooks: bool) {
        if self.config.streaming {
            // The stored task numbers the sequence (another server may have moved it on).
            let last = self.store.get(task_id).map_or(0, |t| t.last_event);
            self.events.sync(task_id, last);
            let bytes = prost::Message::encode_to_vec(&event);
            let kept = self.store.is_external().then(|| bytes.clone());
            let id = self.events.record(task_id, bytes);
            if let Some(t) = self.store.get_mut(task_id) {
                t.last_event = id.seq;
            }
            if let (Storage::External(cache), Some(body)) = (&mut self.store, kept) {
                cache.events.push(StoredEvent { task_id: String::from(task_id), seq: id.seq, body });
            }
            self.trim_event_log(task_id);
            // One copy shared by every stream, made only when there is one.
            let mut shared: Option<Arc<v1::StreamResponse>> = None;
            for call in self.task_streams.get(task_id).cloned().unwrap_or_default() {
                if self.streams.get(&call).is_some_and(|s| s.started) {
                    let event = shared.get_or_insert_with(|| Arc::new(event.clone())).clone();
                    self.out.push_back(Output::Stream { call, event, id: Some(id) });
                }
            }
        }
        if webhooks {
            if let Some(stored) = self.store.get(task_id) {
                for p in &stored.push_configs {
                    // v0.3 receivers get the whole Task (what the v0.3 SDKs send).
                    let event = if p.version.is_legacy() {
                        v1::StreamResponse { payload: Some(v1::stream_response::Payload::Task(stored.record.task.clone())) }
                    } else {
                        event.clone()
                    };
                    let o = Output::Webhook { config: p.config.clone(), event, version: p.version };
                    if self.store.is_external() {
                        // Queued at once, so the delivery is written in the batch of its
                        // event: a server that dies between the two loses neither.
                        self.ext.released.push_back(o);
                    } else {
                        self.out.push_back(o);
                    }
                }
            }
        }
    }

    /// Brings the event log back within its bounds after a change to `task_id`'s log: the
    /// least recently updated tasks lose their kept events (a finished task is forgotten).
    pub(super) fn trim_event_log(&mut self, task_id: &str) {
        while let Some(victim) = self.events.over_bound(task_id) {
            let finished = self.store.get(&victim).is_none_or(|t| is_terminal(t.record.state()));
            self.events.evict(&victim, finished);
        }
    }

    /// The task reached a terminal or interrupted state: answer blocking calls, end streams.
    pub(super) fn settle(&mut self, task_id: &str, terminal: bool) {
        let waiters = self.waiters.remove(task_id).unwrap_or_default();
        for w in waiters {
            let snap = self.store.get(task_id).map(|t| self.snapshot(&t.record.task, w.history_length));
            if let Some(t) = snap {
                self.respond(w.call, Ok(Response::SendMessage(send_response_task(t))));
            }
        }
        for call in self.task_streams.get(task_id).cloned().unwrap_or_default() {
            self.end_stream(call, None);
        }
        if terminal {
            self.remove_run(task_id);
        }
    }

    /// The turn of run `run` is over: answer whoever still waits on that run.
    fn finish_turn(&mut self, task_id: &str, run: RunId, end: &RunEnd) {
        let current = self.runs.get(task_id).is_some_and(|r| r.id == run);
        let ended = if current { self.remove_run(task_id) } else { None };
        let waiters = self.waiters.remove(task_id).unwrap_or_default();
        let (done, keep): (Vec<Waiter>, Vec<Waiter>) = waiters.into_iter().partition(|w| w.run == Some(run));
        if !keep.is_empty() {
            self.waiters.insert(String::from(task_id), keep);
        }
        let origin: Vec<CallId> = self
            .task_streams
            .get(task_id)
            .map(|calls| calls.iter().copied().filter(|c| self.streams.get(c).is_some_and(|s| s.origin == Some(run))).collect())
            .unwrap_or_default();
        if self.store.get(task_id).is_some() {
            for w in done {
                let snap = self.store.get(task_id).map(|t| self.snapshot(&t.record.task, w.history_length));
                if let Some(t) = snap {
                    self.respond(w.call, Ok(Response::SendMessage(send_response_task(t))));
                }
            }
            for call in origin {
                self.end_stream(call, None);
            }
        } else if let Some(ended) = ended {
            // The run ended without producing anything.
            if !ended.message_key.is_empty() {
                self.store.forget_message(&ended.message_key);
            }
            let err = match end {
                RunEnd::Failed(text) => A2aError::with_message(ErrorKind::Internal, format!("The agent failed: {text}")),
                _ => A2aError::with_message(ErrorKind::InvalidAgentResponse, "The agent produced neither a message nor a task"),
            };
            for w in done {
                self.respond(w.call, Err(err.clone()));
            }
            for call in origin {
                self.end_stream(call, Some(err.clone()));
            }
        }
    }
}

//! [`TaskTracker`]: one task as a client knows it, from what the server sends.

use crate::proto::google::protobuf::Timestamp;
use crate::task::{self, Rejection, StateClass, TaskRecord};
use crate::v1;

/// What a `SendMessage` answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// A direct reply: there is no task to follow.
    Message(v1::Message),
    /// A task to follow.
    Task(TaskTracker),
}

impl Reply {
    /// Reads a `SendMessageResponse`; `None` when it carries neither member.
    pub fn from_response(r: v1::SendMessageResponse) -> Option<Reply> {
        use v1::send_message_response::Payload;
        match r.payload? {
            Payload::Message(m) => Some(Reply::Message(m)),
            Payload::Task(t) => Some(Reply::Task(TaskTracker::new(t))),
        }
    }
}

/// One task as the client knows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskTracker {
    record: TaskRecord,
}

impl TaskTracker {
    /// Starts from a snapshot.
    pub fn new(task: v1::Task) -> Self {
        TaskTracker { record: TaskRecord::new(task) }
    }

    /// Starts from nothing (the first stream event will be the Task).
    pub fn empty() -> Self {
        Self::default()
    }

    /// The task as known now.
    pub fn task(&self) -> &v1::Task {
        &self.record.task
    }

    /// Its current state, if known.
    pub fn state(&self) -> Option<v1::TaskState> {
        self.record.state()
    }

    /// True when nothing more will happen without the client: a terminal state, or an
    /// interrupted one (input or auth required).
    pub fn is_settled(&self) -> bool {
        matches!(self.state().map(task::class), Some(StateClass::Terminal | StateClass::Interrupted))
    }

    /// True when the task can never change again.
    pub fn is_terminal(&self) -> bool {
        matches!(self.state().map(task::class), Some(StateClass::Terminal))
    }

    /// Applies one stream event (a Task snapshot replaces what is known). Events for another
    /// task, or that break the state machine, are refused and change nothing.
    ///
    /// A tracker that knows no task yet takes its ids from a first status or artifact update:
    /// the v0.3 releases (a2a-sdk 0.3.24, a2a-go v0.3.15) open `tasks/resubscribe` with a
    /// status update, not with the Task, and the Task is then built from the events.
    pub fn on_event(&mut self, event: &v1::StreamResponse, now: Timestamp) -> Result<(), Rejection> {
        use v1::stream_response::Payload;
        if self.record.task.id.is_empty() {
            let ids = match &event.payload {
                Some(Payload::StatusUpdate(u)) => Some((&u.task_id, &u.context_id)),
                Some(Payload::ArtifactUpdate(u)) => Some((&u.task_id, &u.context_id)),
                _ => None,
            };
            if let Some((task_id, context_id)) = ids.filter(|(t, _)| !t.is_empty()) {
                let mut record = TaskRecord::new(v1::Task { id: task_id.clone(), context_id: context_id.clone(), ..Default::default() });
                record.apply_stream_event(event, now)?;
                self.record = record;
                return Ok(());
            }
        }
        self.record.apply_stream_event(event, now)
    }

    /// Replaces what is known with a fresh snapshot (after `GetTask`); keeps which artifacts
    /// were closed.
    pub fn on_snapshot(&mut self, task: v1::Task) -> Result<(), Rejection> {
        if !self.record.task.id.is_empty() && task.id != self.record.task.id {
            return Err(Rejection::WrongTask { field: "taskId" });
        }
        self.record.task = task;
        Ok(())
    }
}

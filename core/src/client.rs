//! Client-side helpers (the full sans-IO client comes with the bindings).
//!
//! [`TaskTracker`] follows one task from what a server sends: a `SendMessage` answer, stream
//! events, `GetTask` snapshots. It uses the same state machine as the server
//! ([`crate::task::TaskRecord`]), so chunks assemble the same way on both sides, and it knows
//! when the task has settled (terminal, or waiting for the client).

use crate::error::Received;
use crate::proto::google::protobuf::Timestamp;
use crate::task::{self, Rejection, StateClass, TaskRecord};
use crate::v1;
use alloc::string::String;

/// Why a call did not give a result.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientError {
    /// The peer answered with an error (an A2A error, or one without A2A meaning such as a
    /// proxy's bare 404).
    Remote(Received),
    /// The peer's answer does not follow the protocol.
    Protocol(String),
    /// The request cannot be expressed on the selected interface (e.g. ListTasks in v0.3).
    Local(String),
}

impl core::fmt::Display for ClientError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ClientError::Remote(Received::A2a(e)) => write!(f, "{e}"),
            ClientError::Remote(Received::NotA2a { status, message }) => write!(f, "not an A2A error: status {status} {message}"),
            ClientError::Protocol(m) => write!(f, "protocol error: {m}"),
            ClientError::Local(m) => write!(f, "cannot send: {m}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ClientError {}

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
    pub fn on_event(&mut self, event: &v1::StreamResponse, now: Timestamp) -> Result<(), Rejection> {
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

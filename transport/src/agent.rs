//! What an application implements: the agent. It receives the call's context and a handle
//! to publish status, artifact and message events; it is told when its task is canceled.

use a2a_wire::engine::{AgentEvent, CallContext, RunEnd, RunId};
use a2a_wire::v1;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The agent an A2A server runs for each incoming message.
pub trait AgentExecutor: Send + Sync + 'static {
    /// Handles one message. Publish through `events`; return when the turn is over (the
    /// server then answers whoever still waits on this turn). Poll `ctx.cancel` to stop early
    /// when the task is canceled.
    fn execute(&self, ctx: RequestContext, events: EventSink) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>>;
}

/// Everything an agent needs to know about one run.
#[derive(Clone, Debug)]
pub struct RequestContext {
    /// The task the message belongs to (allocated by the server even when the agent replies
    /// with a direct message).
    pub task_id: String,
    /// Its context.
    pub context_id: String,
    /// The message, with `taskId` and `contextId` filled in.
    pub message: v1::Message,
    /// True when the message continues an existing task.
    pub follow_up: bool,
    /// True when this run resumes a task whose run was lost in a restart; `message` is the
    /// task's last user message and `task` shows how far the old run got.
    pub resumed: bool,
    /// The task as stored when the run starts (`None` for a new task).
    pub task: Option<v1::Task>,
    /// Who sent it, and the active extensions.
    pub call: CallContext,
    /// Set when the task is canceled.
    pub cancel: CancelToken,
}

impl RequestContext {
    /// The text of the message's text parts, concatenated.
    pub fn text(&self) -> String {
        self.message
            .parts
            .iter()
            .filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.as_str()) } else { None })
            .collect()
    }
}

/// Set when a task is canceled; cheap to clone and poll.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// True once the task was canceled.
    pub fn is_canceled(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
    pub(crate) fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Where an agent publishes its events. Events reach the engine in the order they are sent.
#[derive(Clone, Debug)]
pub struct EventSink {
    pub(crate) task_id: String,
    pub(crate) exec: RunId,
    pub(crate) tx: async_channel::Sender<crate::server::Command>,
}

impl EventSink {
    fn send(&self, event: AgentEvent) {
        // The engine task outlives every run it starts; a closed channel means the server is
        // shutting down, and the event has nowhere to go.
        let _ = self.tx.try_send(crate::server::Command::Agent { run: self.exec, event });
    }

    /// Sets the task's status (with an optional agent message, e.g. a question).
    pub fn status(&self, state: v1::TaskState, message: Option<v1::Message>) {
        self.send(AgentEvent::Status(v1::TaskStatus { state: state as i32, message, timestamp: None }));
    }

    /// Publishes an artifact, or a chunk of one (`append`: add parts to the artifact with the
    /// same id; `last_chunk`: the artifact is complete).
    pub fn artifact(&self, artifact: v1::Artifact, append: bool, last_chunk: bool) {
        self.send(AgentEvent::Artifact { artifact, append, last_chunk });
    }

    /// Replies with a message: as the first event, a direct reply (no task is kept); later, a
    /// message in the task's conversation.
    pub fn message(&self, message: v1::Message) {
        self.send(AgentEvent::Message(message));
    }

    pub(crate) fn done(&self, end: RunEnd) {
        let _ = self.tx.try_send(crate::server::Command::RunEnd { run: self.exec, end });
    }
}

/// A text part.
pub fn text_part(text: &str) -> v1::Part {
    v1::Part { content: Some(v1::part::Content::Text(text.into())), ..Default::default() }
}

/// An agent message with one text part.
pub fn agent_text(message_id: String, text: &str) -> v1::Message {
    v1::Message { message_id, role: v1::Role::Agent as i32, parts: vec![text_part(text)], ..Default::default() }
}

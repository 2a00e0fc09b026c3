//! One agent run as JavaScript sees it (`Run`): what the run is about and where its events
//! go. Two hosts make runs:
//!
//! - the ready server (`server.rs`): the smol transport's host on its own threads; events go
//!   through the transport's thread-safe `EventSink`;
//! - the fetch handler's service (`service.rs`): the sans-IO service in this process; events
//!   go straight into it and a refusal is known at once.
//!
//! The package wraps a `Run` in the agent's `RequestContext` and `Events` (`lib/agent.js`).
//! Messages and artifacts cross as ProtoJSON text and are checked here.

use crate::errors;
use crate::service::ServiceCore;
use a2a::engine::{AgentEvent, RunEnd, RunId};
use a2a::error::{A2aError, ErrorKind};
use a2a::proto::google::protobuf::Struct;
use a2a::v1;
use a2a_wire_smol::agent::{CancelToken, EventSink};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Where a run's events go.
pub(crate) enum Backend {
    /// The transport's host (another thread).
    Ready { events: EventSink, cancel: CancelToken },
    /// The in-process service of a fetch handler.
    Service { core: Arc<ServiceCore>, canceled: Arc<AtomicBool> },
}

/// What a run is about.
pub(crate) struct RunInfo {
    pub id: RunId,
    pub task_id: String,
    pub context_id: String,
    pub message: v1::Message,
    pub follow_up: bool,
    pub resumed: bool,
    pub task: Option<v1::Task>,
    pub principal: Option<String>,
    pub extensions: Vec<String>,
    pub tenant: String,
    pub metadata: Option<Struct>,
    pub configuration: Option<v1::SendMessageConfiguration>,
}

/// An agent run (made by the hosts, never by JavaScript).
#[napi]
pub struct Run {
    info: RunInfo,
    backend: Backend,
    ended: AtomicBool,
}

impl Run {
    pub(crate) fn new(info: RunInfo, backend: Backend) -> Self {
        Run { info, backend, ended: AtomicBool::new(false) }
    }

    fn publish(&self, event: AgentEvent) -> Result<()> {
        if self.ended.load(Ordering::Acquire) {
            let e = A2aError::with_message(ErrorKind::InvalidAgentResponse, "the run already ended");
            return Err(errors::a2a_error(&e));
        }
        let r = match &self.backend {
            Backend::Ready { events, .. } => events.event(event).map_err(|r| r.0),
            Backend::Service { core, .. } => core.agent_event(self.info.id, event),
        };
        r.map_err(|e| errors::a2a_error(&e))
    }

    /// Ends the run once. `wake`: the in-process service's loop must be told (nothing in
    /// JavaScript drains it after this call).
    fn end(&self, end: RunEnd, wake: bool) -> bool {
        if self.ended.swap(true, Ordering::AcqRel) {
            return false;
        }
        match &self.backend {
            Backend::Ready { events, .. } => match end {
                RunEnd::Failed(reason) => events.fail(&reason),
                _ => events.finish(),
            },
            Backend::Service { core, .. } => core.run_end(self.info.id, end, wake),
        }
        true
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        // A run collected without an end is over (the same rule as the transport's sink).
        self.end(RunEnd::Finished, true);
    }
}

pub(crate) fn json<T: a2a::codec::Message>(v: &T) -> Result<String> {
    let out = a2a::codec::json::encode(v).map_err(|e| errors::encode_error(&e.to_string()))?;
    String::from_utf8(out).map_err(|e| errors::encode_error(&e.to_string()))
}

pub(crate) fn decode<T: a2a::codec::Message>(text: &str) -> Result<T> {
    a2a::codec::json::decode(text.as_bytes()).map_err(|e| errors::decode_error(&e))
}

/// [`decode`] of the value of the argument `at`, named in the error's path.
pub(crate) fn decode_in<T: a2a::codec::Message>(text: &str, at: &str) -> Result<T> {
    a2a::codec::json::decode(text.as_bytes()).map_err(|e| errors::decode_error_in(&e, at))
}

#[napi]
impl Run {
    /// The run's number (unique in its host).
    #[napi(getter, catch_unwind)]
    pub fn id(&self) -> i64 {
        self.info.id.0 as i64
    }
    #[napi(getter, catch_unwind)]
    pub fn task_id(&self) -> &str {
        &self.info.task_id
    }
    #[napi(getter, catch_unwind)]
    pub fn context_id(&self) -> &str {
        &self.info.context_id
    }
    /// The user's message (ProtoJSON), with `taskId` and `contextId` filled in.
    #[napi(getter, catch_unwind)]
    pub fn message_json(&self) -> Result<String> {
        json(&self.info.message)
    }
    /// The text of the message's text parts, concatenated.
    #[napi(getter, catch_unwind)]
    pub fn text(&self) -> String {
        a2a_wire_smol::agent::message_text(&self.info.message)
    }
    /// The message's id.
    #[napi(getter, catch_unwind)]
    pub fn message_id(&self) -> &str {
        &self.info.message.message_id
    }
    #[napi(getter, catch_unwind)]
    pub fn follow_up(&self) -> bool {
        self.info.follow_up
    }
    #[napi(getter, catch_unwind)]
    pub fn resumed(&self) -> bool {
        self.info.resumed
    }
    /// The task as stored when the run started (ProtoJSON), or null for a new task.
    #[napi(getter, catch_unwind)]
    pub fn task_json(&self) -> Result<Option<String>> {
        self.info.task.as_ref().map(json).transpose()
    }
    #[napi(getter, catch_unwind)]
    pub fn principal(&self) -> Option<&str> {
        self.info.principal.as_deref()
    }
    #[napi(getter, catch_unwind)]
    pub fn extensions(&self) -> Vec<String> {
        self.info.extensions.clone()
    }
    /// The tenant the request named (`""`: none).
    #[napi(getter, catch_unwind)]
    pub fn tenant(&self) -> &str {
        &self.info.tenant
    }
    /// The request's metadata (a JSON object), or null (none sent, or a resumed run).
    #[napi(getter, catch_unwind)]
    pub fn metadata_json(&self) -> Result<Option<String>> {
        self.info.metadata.as_ref().map(json).transpose()
    }
    /// The request's configuration (ProtoJSON SendMessageConfiguration), or null (none sent,
    /// or a resumed run).
    #[napi(getter, catch_unwind)]
    pub fn configuration_json(&self) -> Result<Option<String>> {
        self.info.configuration.as_ref().map(json).transpose()
    }
    /// True once the run's task was canceled or the host is stopping.
    #[napi(getter, catch_unwind)]
    pub fn cancelled(&self) -> bool {
        match &self.backend {
            Backend::Ready { cancel, .. } => cancel.is_canceled(),
            Backend::Service { canceled, .. } => canceled.load(Ordering::Acquire),
        }
    }
    /// True once the run ended (finish, fail, or the host ended it).
    #[napi(getter, catch_unwind)]
    pub fn ended(&self) -> bool {
        self.ended.load(Ordering::Acquire)
    }

    /// Sets the task's status (`state` a TaskState name or number), with an optional agent
    /// message (ProtoJSON) and the event's metadata (a JSON object).
    #[napi(catch_unwind)]
    pub fn status(&self, state: Either<String, i32>, message: Option<String>, metadata: Option<String>) -> Result<()> {
        let state = match state {
            Either::A(name) => v1::TaskState::from_str_name(&name)
                .ok_or_else(|| errors::range_error(format!("{name:?} is not a TaskState (TASK_STATE_COMPLETED, ...)")))?
                as i32,
            Either::B(n) => n,
        };
        let message = message.as_deref().map(decode::<v1::Message>).transpose()?;
        let metadata = metadata.as_deref().map(|m| decode_in::<Struct>(m, "metadata")).transpose()?;
        self.publish(AgentEvent::Status { status: v1::TaskStatus { state, message, timestamp: None }, metadata })
    }
    /// Publishes an artifact (ProtoJSON) or a chunk of one, with the event's metadata (a JSON
    /// object).
    #[napi(catch_unwind)]
    pub fn artifact(&self, artifact: String, append: bool, last_chunk: bool, metadata: Option<String>) -> Result<()> {
        let artifact = decode::<v1::Artifact>(&artifact)?;
        let metadata = metadata.as_deref().map(|m| decode_in::<Struct>(m, "metadata")).transpose()?;
        self.publish(AgentEvent::Artifact { metadata, artifact, append, last_chunk })
    }
    /// Replies with a message (ProtoJSON): as the first event a direct reply (no task is kept).
    #[napi(catch_unwind)]
    pub fn message_event(&self, message: String) -> Result<()> {
        let message = decode::<v1::Message>(&message)?;
        self.publish(AgentEvent::Message(message))
    }
    /// Resolves once the host applied every event sent so far; rejects with its refusal.
    #[napi]
    pub async fn flush(&self) -> Result<()> {
        match &self.backend {
            Backend::Ready { events, .. } => {
                let events = events.clone();
                smol::unblock(move || events.wait_flushed()).await.map_err(|r| errors::a2a_error(&r.0))
            }
            Backend::Service { .. } => Ok(()),
        }
    }
    /// The run's turn is over. False if it had ended already.
    #[napi(catch_unwind)]
    pub fn finish(&self) -> bool {
        self.end(RunEnd::Finished, false)
    }
    /// The run failed: its task moves to FAILED with `reason` as the agent's message.
    #[napi(catch_unwind)]
    pub fn fail(&self, reason: String) -> bool {
        self.end(RunEnd::Failed(reason), false)
    }
}

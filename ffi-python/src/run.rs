//! One agent run as Python sees it (`_a2a_wire.Run`): what the run is about (task, context,
//! message, caller) and where its events go. Two hosts make runs:
//!
//! - the ready server (`server.rs`): the smol transport's host on its own threads; events go
//!   through the transport's thread-safe `EventSink`;
//! - the ASGI app (`service.rs`): the sans-IO service in the Python process; events go
//!   straight into it and a refusal is known at once.
//!
//! The Python package wraps a `Run` in `RequestContext` (reading) and `Events` (writing).

use crate::errors;
use crate::model::generated::{PyArtifact, PyMessage, PySendMessageConfiguration, PyTask};
use crate::service::ServiceCore;
use a2a::engine::{AgentEvent, RunEnd, RunId};
use a2a::error::{A2aError, ErrorKind};
use a2a::proto::google::protobuf::Struct;
use a2a::v1;
use a2a_wire_smol::agent::{CancelToken, EventSink};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Where a run's events go.
pub(crate) enum Backend {
    /// The transport's host (another thread).
    Ready { events: EventSink, cancel: CancelToken },
    /// The in-process service of an ASGI app.
    Service { core: Arc<ServiceCore>, canceled: Arc<AtomicBool> },
}

/// What a run is about, as the host hands it over.
pub(crate) struct RunInfo {
    pub(crate) id: RunId,
    pub(crate) task_id: String,
    pub(crate) context_id: String,
    pub(crate) message: v1::Message,
    pub(crate) follow_up: bool,
    pub(crate) resumed: bool,
    pub(crate) task: Option<v1::Task>,
    pub(crate) principal: Option<String>,
    pub(crate) extensions: Vec<String>,
    pub(crate) tenant: String,
    pub(crate) metadata: Option<Struct>,
    pub(crate) configuration: Option<v1::SendMessageConfiguration>,
}

/// An agent run.
#[pyclass(module = "a2a_wire._a2a_wire", frozen)]
pub struct Run {
    pub(crate) info: RunInfo,
    backend: Backend,
    ended: AtomicBool,
}

impl Run {
    pub(crate) fn new(info: RunInfo, backend: Backend) -> Self {
        Run { info, backend, ended: AtomicBool::new(false) }
    }

    fn publish(&self, py: Python<'_>, event: AgentEvent) -> PyResult<()> {
        if self.ended.load(Ordering::Acquire) {
            let e = A2aError::with_message(ErrorKind::InvalidAgentResponse, "the run already ended");
            return Err(errors::a2a_error(py, &e, None, None));
        }
        let r = match &self.backend {
            Backend::Ready { events, .. } => events.event(event).map_err(|r| r.0),
            Backend::Service { core, .. } => core.agent_event(self.info.id, event),
        };
        r.map_err(|e| errors::a2a_error(py, &e, None, None))
    }

    fn end(&self, end: RunEnd) -> bool {
        if self.ended.swap(true, Ordering::AcqRel) {
            return false;
        }
        match &self.backend {
            Backend::Ready { events, .. } => match end {
                RunEnd::Failed(reason) => events.fail(&reason),
                _ => events.finish(),
            },
            Backend::Service { core, .. } => core.run_end(self.info.id, end),
        }
        true
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        // A run dropped without an end is over (the same rule as the transport's sink).
        self.end(RunEnd::Finished);
    }
}

#[pymethods]
impl Run {
    /// The run's number (unique in its server).
    #[getter]
    fn id(&self) -> u64 {
        self.info.id.0
    }
    #[getter]
    fn task_id(&self) -> &str {
        &self.info.task_id
    }
    #[getter]
    fn context_id(&self) -> &str {
        &self.info.context_id
    }
    /// The user's message, with `task_id` and `context_id` filled in.
    #[getter]
    fn message(&self) -> PyMessage {
        PyMessage(self.info.message.clone())
    }
    /// The text of the message's text parts, concatenated.
    #[getter]
    fn text(&self) -> String {
        a2a_wire_smol::agent::message_text(&self.info.message)
    }
    #[getter]
    fn follow_up(&self) -> bool {
        self.info.follow_up
    }
    #[getter]
    fn resumed(&self) -> bool {
        self.info.resumed
    }
    #[getter]
    fn task(&self) -> Option<PyTask> {
        self.info.task.clone().map(PyTask)
    }
    #[getter]
    fn principal(&self) -> Option<&str> {
        self.info.principal.as_deref()
    }
    #[getter]
    fn extensions(&self) -> Vec<String> {
        self.info.extensions.clone()
    }
    /// The tenant the request named (`""`: none).
    #[getter]
    fn tenant(&self) -> &str {
        &self.info.tenant
    }
    /// The request's metadata (`SendMessageRequest.metadata`) as a dict (None: none sent, or
    /// a resumed run).
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.info.metadata.as_ref().map(|m| crate::model::struct_to(py, m)).transpose()
    }
    /// The request's configuration as sent (None: none sent, or a resumed run).
    #[getter]
    fn configuration(&self) -> Option<PySendMessageConfiguration> {
        self.info.configuration.clone().map(PySendMessageConfiguration)
    }
    /// True once the run's task was canceled or the server is stopping.
    #[getter]
    fn cancelled(&self) -> bool {
        match &self.backend {
            Backend::Ready { cancel, .. } => cancel.is_canceled(),
            Backend::Service { canceled, .. } => canceled.load(Ordering::Acquire),
        }
    }
    /// True once the run ended (finish, fail, or the host ended it).
    #[getter]
    fn ended(&self) -> bool {
        self.ended.load(Ordering::Acquire)
    }

    /// Sets the task's status, with an optional agent message; `metadata` (a dict) goes on
    /// the status update event.
    #[pyo3(signature = (state, message = None, metadata = None))]
    fn status(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        message: Option<PyRef<'_, PyMessage>>,
        metadata: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let state = crate::model::enum_from(crate::model::TASK_STATE, state)?;
        let status = v1::TaskStatus { state, message: message.map(|m| m.0.clone()), timestamp: None };
        let metadata = event_metadata(metadata)?;
        self.publish(py, AgentEvent::Status { status, metadata })
    }
    /// Publishes an artifact or a chunk of one; an artifact without an id gets a fresh
    /// UUID v4. `metadata` (a dict) goes on the artifact update event.
    #[pyo3(signature = (artifact, append = false, last_chunk = false, metadata = None))]
    fn artifact(
        &self,
        py: Python<'_>,
        artifact: PyRef<'_, PyArtifact>,
        append: bool,
        last_chunk: bool,
        metadata: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let mut artifact = artifact.0.clone();
        if artifact.artifact_id.is_empty() {
            artifact.artifact_id = a2a_wire_smol::agent::new_id();
        }
        let metadata = event_metadata(metadata)?;
        self.publish(py, AgentEvent::Artifact { metadata, artifact, append, last_chunk })
    }
    /// Replies with a message (as the first event: a direct reply, no task is kept).
    fn message_event(&self, py: Python<'_>, message: PyRef<'_, PyMessage>) -> PyResult<()> {
        self.publish(py, AgentEvent::Message(message.0.clone()))
    }
    /// Waits until the host applied every event sent so far; raises the refusal. Blocks the
    /// calling thread (the package runs it in an executor thread for async agents).
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        match &self.backend {
            Backend::Ready { events, .. } => {
                let events = events.clone();
                py.detach(move || events.wait_flushed()).map_err(|r| errors::a2a_error(py, &r.0, None, None))
            }
            Backend::Service { .. } => Ok(()),
        }
    }
    /// The run's turn is over. False if it had ended already.
    fn finish(&self) -> bool {
        self.end(RunEnd::Finished)
    }
    /// The run failed: its task moves to FAILED with `reason` as the agent's message.
    fn fail(&self, reason: &str) -> bool {
        self.end(RunEnd::Failed(reason.to_owned()))
    }
}

/// An event's `metadata` argument: a dict (None: none).
fn event_metadata(v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Struct>> {
    v.filter(|v| !v.is_none()).map(crate::model::struct_from).transpose()
}

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
use crate::model::generated::{PyArtifact, PyMessage, PyTask};
use crate::service::ServiceCore;
use a2a::engine::{AgentEvent, RunEnd, RunId};
use a2a::error::{A2aError, ErrorKind};
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

/// An agent run.
#[pyclass(module = "a2a_wire._a2a_wire", frozen)]
pub struct Run {
    pub(crate) id: RunId,
    task_id: String,
    context_id: String,
    message: v1::Message,
    follow_up: bool,
    resumed: bool,
    task: Option<v1::Task>,
    principal: Option<String>,
    extensions: Vec<String>,
    backend: Backend,
    ended: AtomicBool,
}

impl Run {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        id: RunId,
        task_id: String,
        context_id: String,
        message: v1::Message,
        follow_up: bool,
        resumed: bool,
        task: Option<v1::Task>,
        principal: Option<String>,
        extensions: Vec<String>,
        backend: Backend,
    ) -> Self {
        Run { id, task_id, context_id, message, follow_up, resumed, task, principal, extensions, backend, ended: AtomicBool::new(false) }
    }

    fn publish(&self, py: Python<'_>, event: AgentEvent) -> PyResult<()> {
        if self.ended.load(Ordering::Acquire) {
            let e = A2aError::with_message(ErrorKind::InvalidAgentResponse, "the run already ended");
            return Err(errors::a2a_error(py, &e, None, None));
        }
        let r = match &self.backend {
            Backend::Ready { events, .. } => events.event(event).map_err(|r| r.0),
            Backend::Service { core, .. } => core.agent_event(self.id, event),
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
            Backend::Service { core, .. } => core.run_end(self.id, end),
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
        self.id.0
    }
    #[getter]
    fn task_id(&self) -> &str {
        &self.task_id
    }
    #[getter]
    fn context_id(&self) -> &str {
        &self.context_id
    }
    /// The user's message, with `task_id` and `context_id` filled in.
    #[getter]
    fn message(&self) -> PyMessage {
        PyMessage(self.message.clone())
    }
    /// The text of the message's text parts, concatenated.
    #[getter]
    fn text(&self) -> String {
        a2a_wire_smol::agent::message_text(&self.message)
    }
    #[getter]
    fn follow_up(&self) -> bool {
        self.follow_up
    }
    #[getter]
    fn resumed(&self) -> bool {
        self.resumed
    }
    #[getter]
    fn task(&self) -> Option<PyTask> {
        self.task.clone().map(PyTask)
    }
    #[getter]
    fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }
    #[getter]
    fn extensions(&self) -> Vec<String> {
        self.extensions.clone()
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

    /// Sets the task's status, with an optional agent message.
    #[pyo3(signature = (state, message = None))]
    fn status(&self, py: Python<'_>, state: &Bound<'_, PyAny>, message: Option<PyRef<'_, PyMessage>>) -> PyResult<()> {
        let state = crate::model::enum_from(crate::model::TASK_STATE, state)?;
        let status = v1::TaskStatus { state, message: message.map(|m| m.0.clone()), timestamp: None };
        self.publish(py, AgentEvent::status(status))
    }
    /// Publishes an artifact or a chunk of one.
    #[pyo3(signature = (artifact, append = false, last_chunk = false))]
    fn artifact(&self, py: Python<'_>, artifact: PyRef<'_, PyArtifact>, append: bool, last_chunk: bool) -> PyResult<()> {
        self.publish(py, AgentEvent::Artifact { metadata: None, artifact: artifact.0.clone(), append, last_chunk })
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

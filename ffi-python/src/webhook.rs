//! The receiving end of push notifications for Python (`a2a_wire.webhook`): the core's
//! sans-IO `webhook::receiver::Receiver` behind a lock, and each delivery's verdict with the
//! HTTP answer to send. Every rule (credentials in constant time, either version's body,
//! unknown tasks, redeliveries, `retry_later`) is the core's; this file only moves values.

use crate::errors;
use crate::model::generated::PyStreamResponse;
use crate::model::{type_name, with_bytes};
use crate::signing::py_repr;
use a2a::error::A2aError;
use a2a::http::{HttpRequest, HttpResponse};
use a2a::webhook::receiver::{Delivery, Receiver};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyMapping, PyString, PyTuple};
use std::sync::{Mutex, PoisonError};

/// The receiving end of one webhook: the credentials handed to the agent in the push config,
/// and the tasks whose events are expected.
#[pyclass(module = "a2a_wire.webhook", name = "WebhookReceiver", frozen)]
pub struct PyWebhookReceiver(Mutex<Receiver>);

/// One delivery as the receiver judged it, and the HTTP answer to send back.
#[pyclass(module = "a2a_wire.webhook", name = "Delivery", frozen)]
pub struct PyDelivery {
    verdict: Result<Delivery, A2aError>,
    response: HttpResponse,
}

/// A header name or value: `str`, or `bytes` (as ASGI gives them; not UTF-8 is read lossily,
/// as the transports do).
fn header_text(v: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(s.to_str()?.to_owned());
    }
    if let Ok(b) = v.cast::<PyBytes>() {
        return Ok(String::from_utf8_lossy(b.as_bytes()).into_owned());
    }
    Err(PyTypeError::new_err(format!("{what}: expected str or bytes, got {}", type_name(v))))
}

/// Headers from a mapping or an iterable of `(name, value)` pairs.
fn headers_from(headers: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    let mut out = Vec::new();
    if let Ok(m) = headers.cast::<PyMapping>() {
        for item in m.items()?.iter() {
            let (n, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            out.push((header_text(&n, "headers (a name)")?, header_text(&v, "headers (a value)")?));
        }
        return Ok(out);
    }
    if headers.is_instance_of::<PyString>() || headers.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(format!("headers: expected a mapping or (name, value) pairs, got {}", type_name(headers))));
    }
    let iter = headers
        .try_iter()
        .map_err(|_| PyTypeError::new_err(format!("headers: expected a mapping or (name, value) pairs, got {}", type_name(headers))))?;
    for (i, item) in iter.enumerate() {
        let item = item?;
        // A tuple, or a list as some ASGI servers give them.
        let pair = match item.cast::<PyList>() {
            Ok(l) => Some(l.to_tuple()),
            Err(_) => item.cast::<PyTuple>().ok().cloned(),
        };
        let Some(pair) = pair.filter(|t| t.len() == 2) else {
            return Err(PyTypeError::new_err(format!("headers[{i}]: expected a (name, value) pair, got {}", type_name(&item))));
        };
        out.push((header_text(&pair.get_item(0)?, "headers (a name)")?, header_text(&pair.get_item(1)?, "headers (a value)")?));
    }
    Ok(out)
}

impl PyWebhookReceiver {
    fn lock(&self) -> std::sync::MutexGuard<'_, Receiver> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl PyWebhookReceiver {
    /// A receiver requiring `token` (the push config's `token`, sent in
    /// `A2A-Notification-Token`), `authorization` (a whole `Authorization` value such as
    /// `"Bearer abc"`, as the push config's `authentication` makes it), or both; at least
    /// one (else `ValueError`). `window` recent events per task are remembered to recognize
    /// redeliveries (at least 1).
    #[new]
    #[pyo3(signature = (token = None, *, authorization = None, window = 256))]
    fn new(token: Option<String>, authorization: Option<String>, window: i64) -> PyResult<Self> {
        let window = usize::try_from(window)
            .ok()
            .filter(|w| *w >= 1)
            .ok_or_else(|| PyValueError::new_err(format!("window must be at least 1, got {window}")))?;
        let receiver = Receiver::with_credentials(token.as_deref(), authorization.as_deref()).map_err(PyValueError::new_err)?;
        Ok(PyWebhookReceiver(Mutex::new(receiver.window(window))))
    }

    /// Accepts events for `task_id` from now on.
    fn expect_task(&self, task_id: &str) {
        self.lock().expect_task(task_id);
    }

    /// Stops accepting events for `task_id` (and forgets what was seen of it).
    fn forget_task(&self, task_id: &str) {
        self.lock().forget_task(task_id);
    }

    /// True when events for `task_id` are accepted.
    fn expects(&self, task_id: &str) -> bool {
        self.lock().expects(task_id)
    }

    /// Judges one delivery (`method`, `headers` as a mapping or `(name, value)` pairs of str
    /// or bytes, `body`): a new event (`kind == "event"`: hand it to the application), a
    /// redelivery (`"duplicate"`: answered, not handed over) or a refusal (`"refused"`, with
    /// the A2A error: wrong credentials 401, a task not expected 404, a body that is no event
    /// 400), with the HTTP answer to send in each case.
    fn handle(&self, py: Python<'_>, method: &str, headers: &Bound<'_, PyAny>, body: &Bound<'_, PyAny>) -> PyResult<PyDelivery> {
        let owned = headers_from(headers)?;
        let refs: Vec<(&str, &str)> = owned.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let (verdict, response) = with_bytes(body, "body", |body| {
            py.detach(|| {
                let req = HttpRequest { method, target: "/", headers: &refs, body };
                self.lock().handle(&req)
            })
        })?;
        Ok(PyDelivery { verdict, response })
    }

    /// The application could not take `delivery` (it raised): the event is forgotten, so
    /// that the sender's redelivery is handed over again, and the answer becomes `503` with
    /// `Retry-After` (the sender retries). Returns the same delivery with that answer. A
    /// refused delivery has its answer already (`ValueError`).
    fn retry_later(&self, delivery: PyRef<'_, PyDelivery>) -> PyResult<PyDelivery> {
        let Ok(d) = &delivery.verdict else {
            return Err(PyValueError::new_err("a refused delivery cannot be retried later: send its own answer"));
        };
        let response = self.lock().retry_later(d);
        Ok(PyDelivery { verdict: Ok(d.clone()), response })
    }
}

#[pymethods]
impl PyDelivery {
    /// `"event"` (new: hand it to the application), `"duplicate"` (seen already) or
    /// `"refused"` (see `error`).
    #[getter]
    fn kind(&self) -> &'static str {
        match &self.verdict {
            Ok(Delivery::Event { .. }) => "event",
            Ok(Delivery::Duplicate { .. }) => "duplicate",
            Err(_) => "refused",
        }
    }

    /// The task the event is about (None for a refusal).
    #[getter]
    fn task_id(&self) -> Option<&str> {
        match &self.verdict {
            Ok(Delivery::Event { task_id, .. } | Delivery::Duplicate { task_id }) => Some(task_id),
            Err(_) => None,
        }
    }

    /// The event, in v1.0 form whatever version the sender used (None unless `kind ==
    /// "event"`).
    #[getter]
    fn event(&self) -> Option<PyStreamResponse> {
        match &self.verdict {
            Ok(Delivery::Event { event, .. }) => Some(PyStreamResponse(event.clone())),
            _ => None,
        }
    }

    /// Why the delivery was refused, as the package's `A2AError` subclass
    /// (`UnauthenticatedError`, `TaskNotFoundError`, `InvalidParamsError`, ...); None unless
    /// `kind == "refused"`.
    #[getter]
    fn error<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyAny>> {
        match &self.verdict {
            Err(e) => Some(errors::a2a_error(py, e, None, Some(i64::from(self.response.status))).into_value(py).into_bound(py).into_any()),
            Ok(_) => None,
        }
    }

    /// The HTTP status to answer with (204 for an event or a duplicate, 503 after
    /// `retry_later`, the error's status for a refusal).
    #[getter]
    fn status(&self) -> u16 {
        self.response.status
    }

    /// The HTTP headers to answer with, as `(name, value)` pairs.
    #[getter]
    fn headers(&self) -> Vec<(String, String)> {
        self.response.headers.clone()
    }

    /// The HTTP body to answer with (empty, or the error's JSON body).
    #[getter]
    fn body<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.response.body)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let task = match self.task_id() {
            Some(t) => py_repr(py, t)?,
            None => String::from("None"),
        };
        Ok(format!("Delivery(kind={}, task_id={task}, status={})", py_repr(py, self.kind())?, self.response.status))
    }
}

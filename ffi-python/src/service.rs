//! The sans-IO service in the Python process (`_a2a_wire.Service`), for the ASGI app.
//!
//! The Python side (`a2a_wire/asgi.py`) feeds it requests and drains its outputs; the
//! protocol work (decoding, the engine, encoding, the card) runs here with the GIL released.
//! Runs are Python coroutines on the app's event loop; their events go straight into the
//! service (`Run` with `Backend::Service`), so a refused event raises at once. Webhook
//! attempts are carried out by the transport's delivery code on smol's executor threads;
//! their results go into the service from there and a byte on the wake-up socket tells the
//! loop to drain the outputs that follow.

use crate::model::generated::PyAgentCard;
use crate::run::{Backend, Run, RunInfo};
use crate::signing::PySigningKey;
use crate::wake::{Wake, Watch};
use a2a::engine::{AgentEvent, Cache, CallId, MemoryStore, RunEnd, RunId, Storage};
use a2a::error::A2aError;
use a2a::http::HttpRequest;
use a2a::service::{Output, Service, ServiceConfig};
use a2a::v1;
use a2a_wire_smol::host::now;
use a2a_wire_smol::webhook::{deliver_once, WebhookPolicy};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
use std::collections::BTreeMap;
use std::os::fd::RawFd;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

struct State {
    service: Service,
    /// Cancel flags of the runs in progress.
    runs: BTreeMap<RunId, Arc<AtomicBool>>,
    /// A wake-up byte is on its way.
    signaled: bool,
}

/// The service and what its hosts share (the ASGI loop, the runs, webhook threads).
pub(crate) struct ServiceCore {
    state: Mutex<State>,
    wake: Wake,
    policy: WebhookPolicy,
}

impl ServiceCore {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Tells the loop that outputs wait (one byte per wait, not per output).
    fn signal(&self, s: &mut State) {
        self.wake.ring(&mut s.signaled);
    }

    pub(crate) fn agent_event(&self, run: RunId, event: AgentEvent) -> Result<(), A2aError> {
        let mut s = self.lock();
        let r = s.service.handle_agent_event(run, event, now());
        self.signal(&mut s);
        r
    }

    pub(crate) fn run_end(&self, run: RunId, end: RunEnd) {
        let mut s = self.lock();
        s.runs.remove(&run);
        s.service.handle_run_end(run, end, now());
        self.signal(&mut s);
    }
}

/// The service of one ASGI app.
#[pyclass(module = "a2a_wire._a2a_wire", frozen)]
pub struct ServiceHost {
    core: Arc<ServiceCore>,
    watch: Watch,
}

fn header_str(v: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    if let Ok(b) = v.cast::<PyBytes>() {
        // Header values that are not UTF-8 are passed lossily, as the transports do.
        return Ok(String::from_utf8_lossy(b.as_bytes()).into_owned());
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(s.to_str()?.to_owned());
    }
    Err(PyTypeError::new_err(format!("{what}: expected bytes or str, got {}", crate::model::type_name(v))))
}

#[pymethods]
impl ServiceHost {
    /// A service publishing `card` (its interfaces are what is served). `extended_card` is
    /// what every authenticated caller gets from `GetExtendedAgentCard`, `extended_cards`
    /// (principal to card) what one principal gets instead; with `signing_key` the card and
    /// the extended cards are signed as given (`card_jku` in each header). `max_body` bounds
    /// request bodies. Push notifications go to public addresses only, and to those of
    /// `allow_webhooks` (hosts, addresses, CIDR networks) or everywhere with
    /// `allow_private_webhooks` (tests); `https://` receivers are verified against
    /// `webhook_ca_file` (None: the platform's roots).
    ///
    /// With `external_store` the tasks live in a store the host answers for (`("store",
    /// StoreRequest)` outputs, see `TaskStore`): the service keeps the tasks with live calls,
    /// runs or streams plus a cache of about `cache_bytes` bytes of others (default 64 MiB).
    /// `retain_ms` deletes tasks in a terminal state whose last change is older (None: never).
    #[new]
    #[pyo3(signature = (
        card, *, extended_card = None, extended_cards = None, authenticate = false, max_body = None, allow_private_webhooks = false,
        allow_webhooks = Vec::new(), webhook_ca_file = None, signing_key = None, card_jku = None, external_store = false,
        cache_bytes = None, retain_ms = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        card: PyRef<'_, PyAgentCard>,
        extended_card: Option<PyRef<'_, PyAgentCard>>,
        extended_cards: Option<&Bound<'_, PyAny>>,
        authenticate: bool,
        max_body: Option<usize>,
        allow_private_webhooks: bool,
        allow_webhooks: Vec<String>,
        webhook_ca_file: Option<std::path::PathBuf>,
        signing_key: Option<PyRef<'_, PySigningKey>>,
        card_jku: Option<String>,
        external_store: bool,
        cache_bytes: Option<usize>,
        retain_ms: Option<u64>,
    ) -> PyResult<Self> {
        crate::server::check_jku(card_jku.as_deref(), signing_key.is_some())?;
        let mut config = ServiceConfig::new(card.0.clone());
        config.extended_card = extended_card.map(|c| c.0.clone());
        config.extended_cards = crate::server::extended_cards_from(extended_cards)?;
        config.authenticate = authenticate;
        if let Some(m) = max_body {
            config.limits.max_body = m;
        }
        if let Some(key) = signing_key {
            // Last: a change to a card after it breaks its signature.
            let key = &key.0;
            let jku = card_jku.as_deref();
            let sign = |c: &v1::AgentCard| key.sign_card(c, jku).map_err(|e| PyValueError::new_err(format!("signing_key: {e}")));
            config.card = sign(&config.card)?;
            for x in config.extended_card.iter_mut().chain(config.extended_cards.values_mut()) {
                *x = sign(x)?;
            }
        }
        let policy = crate::server::webhook_policy(py, &allow_webhooks, allow_private_webhooks, webhook_ca_file)?;
        config.webhooks = policy.schedule();
        // Task ids are keyed by OS randomness, as on every other host; without it, refuse.
        let key = a2a_wire_smol::server::os_random_key().map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
        config.engine.retention = retain_ms.filter(|ms| *ms > 0).map(std::time::Duration::from_millis);
        let store = if external_store {
            let bytes = cache_bytes.unwrap_or(64 << 20);
            config.engine.cache_bytes = bytes;
            Storage::External(Cache::new(bytes, key as u64))
        } else {
            Storage::Memory(MemoryStore::new())
        };
        let service =
            Service::new(config, store, key, now()).map_err(|e| PyValueError::new_err(format!("the card cannot be served: {e}")))?;
        let (wake, watch) = crate::wake::pair()?;
        let state = State { service, runs: BTreeMap::new(), signaled: false };
        Ok(ServiceHost { core: Arc::new(ServiceCore { state: Mutex::new(state), wake, policy }), watch })
    }

    /// The file descriptor of the wake-up socket, once (the caller owns it). A byte arrives
    /// when outputs wait that no call of the loop produced (webhook results, run events
    /// published from other threads).
    fn take_watch_fd(&self) -> PyResult<RawFd> {
        self.watch.take()
    }

    /// Feeds one HTTP request: `method`, `target` (path and `?query`), `headers` (pairs of
    /// bytes or str), `body`. Returns the call's id; its answer comes out of `poll()`.
    fn request(&self, py: Python<'_>, method: &str, target: &str, headers: &Bound<'_, PyList>, body: &Bound<'_, PyBytes>) -> PyResult<u64> {
        let owned = owned_headers(headers)?;
        let refs: Vec<(&str, &str)> = owned.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let body = body.as_bytes();
        let core = &self.core;
        let id = py.detach(|| {
            let req = HttpRequest { method, target, headers: &refs, body };
            core.lock().service.handle_request(&req, now())
        });
        Ok(id.0)
    }

    /// Every output waiting, as tuples:
    /// `("answer", call, status, headers, body)`, `("head", call, status, headers)`,
    /// `("frame", call, bytes)`, `("end", call, bytes, trailers)`, `("start", Run)`,
    /// `("cancel", run_id)`, `("store", StoreRequest)` (with `external_store`: answer them
    /// in order). Headers are lists of `(bytes, bytes)`.
    fn poll<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let core = self.core.clone();
        let (outputs, attempts) = py.detach(|| {
            let mut s = core.lock();
            s.signaled = false;
            let mut outputs = Vec::new();
            let mut attempts = Vec::new();
            while let Some(o) = s.service.poll_output() {
                match o {
                    Output::SendWebhook(a) => attempts.push(a),
                    Output::StartRun(r) => {
                        let flag = Arc::new(AtomicBool::new(false));
                        s.runs.insert(r.execution.id, flag.clone());
                        outputs.push((Output::StartRun(r), Some(flag)));
                    }
                    Output::CancelRun { run, task_id } => {
                        if let Some(f) = s.runs.get(&run) {
                            f.store(true, std::sync::atomic::Ordering::Release);
                        }
                        outputs.push((Output::CancelRun { run, task_id }, None));
                    }
                    other => outputs.push((other, None)),
                }
            }
            (outputs, attempts)
        });
        for a in attempts {
            let core = self.core.clone();
            let policy = self.core.policy.clone();
            smol::spawn(async move {
                let outcome = deliver_once(&a.request, &policy).await;
                let mut s = core.lock();
                s.service.handle_webhook_result(a.id, outcome, now());
                core.signal(&mut s);
            })
            .detach();
        }
        let list = PyList::empty(py);
        for (o, flag) in outputs {
            let item: Bound<'py, PyAny> = match o {
                Output::Answer { call, response } => (
                    "answer",
                    call.0,
                    response.status,
                    headers_py(py, &response.headers)?,
                    PyBytes::new(py, &response.body),
                    headers_py(py, &response.trailers)?,
                )
                    .into_pyobject(py)?
                    .into_any(),
                Output::StreamHead { call, head } => {
                    ("head", call.0, head.status, headers_py(py, &head.headers)?).into_pyobject(py)?.into_any()
                }
                Output::StreamFrame { call, bytes } => ("frame", call.0, PyBytes::new(py, &bytes)).into_pyobject(py)?.into_any(),
                Output::StreamEnd { call, bytes, trailers } => {
                    ("end", call.0, PyBytes::new(py, &bytes), headers_py(py, &trailers)?).into_pyobject(py)?.into_any()
                }
                Output::StartRun(r) => {
                    let e = r.execution;
                    let canceled = flag.unwrap_or_default();
                    let backend = Backend::Service { core: self.core.clone(), canceled };
                    let info = RunInfo {
                        id: e.id,
                        task_id: e.task_id,
                        context_id: e.context_id,
                        message: e.message,
                        follow_up: e.follow_up,
                        resumed: e.resumed,
                        task: r.task,
                        principal: e.context.principal,
                        extensions: e.context.extensions,
                        tenant: e.tenant,
                        metadata: e.metadata,
                        configuration: e.configuration,
                    };
                    let run = Run::new(info, backend);
                    ("start", Bound::new(py, run)?).into_pyobject(py)?.into_any()
                }
                Output::CancelRun { run, .. } => ("cancel", run.0).into_pyobject(py)?.into_any(),
                Output::Store(req) => ("store", Bound::new(py, crate::store::PyStoreRequest::new(req))?).into_pyobject(py)?.into_any(),
                Output::Authenticate(a) => {
                    let headers: Vec<(String, String)> = a.headers;
                    (
                        "authenticate",
                        a.call.0,
                        a.method.names().v1,
                        a.binding.as_str().to_string(),
                        a.version.to_string(),
                        a.tenant,
                        headers,
                    )
                        .into_pyobject(py)?
                        .into_any()
                }
                // Webhook attempts were started above; nothing else is produced.
                _ => continue,
            };
            list.append(item)?;
        }
        Ok(list)
    }

    /// Decodes a request the way the service would, without serving it: `("call", method,
    /// request_json, jsonrpc_id_json, version)` for a request the endpoint accepts, or
    /// `("refused", status, headers, body, trailers)` for its refusal.
    fn decode<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        target: &str,
        headers: &Bound<'py, PyList>,
        body: &Bound<'py, PyBytes>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let owned = owned_headers(headers)?;
        let refs: Vec<(&str, &str)> = owned.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let req = HttpRequest { method, target, headers: &refs, body: body.as_bytes() };
        let s = self.core.lock();
        match s.service.endpoint().decode(&req) {
            Ok(call) => {
                let mut json = Vec::new();
                call.operation.to_json(&mut json).map_err(|e| crate::errors::encode_error(py, &e.to_string()))?;
                let id = serde_json::to_vec(&call.jsonrpc_id).map_err(|e| PyValueError::new_err(e.to_string()))?;
                PyTuple::new(
                    py,
                    [
                        "call".into_pyobject(py)?.into_any(),
                        call.method().names().v1.into_pyobject(py)?.into_any(),
                        PyBytes::new(py, &json).into_any(),
                        PyBytes::new(py, &id).into_any(),
                        call.version.to_string().into_pyobject(py)?.into_any(),
                    ],
                )
            }
            Err(r) => PyTuple::new(
                py,
                [
                    "refused".into_pyobject(py)?.into_any(),
                    r.status.into_pyobject(py)?.into_any(),
                    headers_py(py, &r.headers)?.into_any(),
                    PyBytes::new(py, &r.body).into_any(),
                    headers_py(py, &r.trailers)?.into_any(),
                ],
            ),
        }
    }

    /// The verdict on an `("authenticate", call, ...)` output: `principal` (None: anonymous)
    /// or `error`, an `A2AError` (Unauthenticated, PermissionDenied) to answer with.
    #[pyo3(signature = (call, principal = None, error = None))]
    fn authenticated(&self, call: u64, principal: Option<String>, error: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let verdict = match error {
            None => Ok(principal),
            Some(e) => Err(crate::errors::from_py(e)?.ok_or_else(|| PyTypeError::new_err("error: expected an A2AError"))?),
        };
        self.core.lock().service.handle_authenticated(CallId(call), verdict, now());
        Ok(())
    }

    /// Feeds a store's reply (from `TaskStore.answer`); then `poll()`: the calls that waited
    /// for it go on. `ValueError` for a reply fed already.
    fn store_reply(&self, py: Python<'_>, reply: &crate::store::PyStoreReply) -> PyResult<()> {
        let reply = reply.take()?;
        let core = &self.core;
        py.detach(|| core.lock().service.handle_store(reply, now()));
        Ok(())
    }

    /// The caller of `call` went away (the client disconnected).
    fn caller_gone(&self, call: u64) {
        self.core.lock().service.handle_caller_gone(CallId(call));
    }

    /// The client of stream `call` fell behind: the stream ends with an error event.
    fn slow_consumer(&self, call: u64) {
        self.core.lock().service.handle_slow_consumer(CallId(call));
    }

    /// Seconds until `timeout()` is due, or None.
    fn next_timeout(&self) -> Option<f64> {
        let t = self.core.lock().service.poll_timeout()?;
        let n = now();
        let secs = (t.seconds - n.seconds) as f64 + f64::from(t.nanos - n.nanos) / 1e9;
        Some(secs.max(0.0))
    }

    /// Time passed (due webhook retries become attempts).
    fn timeout(&self) {
        self.core.lock().service.handle_timeout(now());
    }

    /// Begins shutting down: streams end, waiting calls get Unavailable, runs are canceled
    /// (their `cancel` outputs come out of `poll()`).
    fn shutdown(&self) {
        self.core.lock().service.shutdown();
    }

    /// True when no call, run output, webhook or store request is in flight.
    fn is_idle(&self) -> bool {
        self.core.lock().service.is_idle()
    }

    /// The card served.
    #[getter]
    fn card(&self) -> PyAgentCard {
        PyAgentCard(self.core.lock().service.endpoint().card().clone())
    }
}

fn owned_headers(headers: &Bound<'_, PyList>) -> PyResult<Vec<(String, String)>> {
    let mut owned: Vec<(String, String)> = Vec::with_capacity(headers.len());
    for h in headers.iter() {
        let pair = h.cast::<PyTuple>().map_err(|_| PyTypeError::new_err("headers: expected (name, value) tuples"))?;
        if pair.len() != 2 {
            return Err(PyTypeError::new_err("headers: expected (name, value) tuples"));
        }
        owned.push((header_str(&pair.get_item(0)?, "header name")?, header_str(&pair.get_item(1)?, "header value")?));
    }
    Ok(owned)
}

fn headers_py<'py>(py: Python<'py>, headers: &[(String, String)]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for (n, v) in headers {
        list.append((PyBytes::new(py, n.as_bytes()), PyBytes::new(py, v.as_bytes())))?;
    }
    Ok(list)
}

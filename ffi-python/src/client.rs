//! The ready client for asyncio (`_a2a_wire.ClientHub`): the smol transport's `Client`
//! (built on the core's step-function client: every retry and error rule is the core's)
//! running on smol's executor threads, its results handed to the asyncio loop.
//!
//! Each operation gets a token from Python. The work runs as a smol task; its result is
//! queued with the token and, when the queue was empty, one byte is written to a socket the
//! loop watches. The loop then takes every finished result (`take()`), converting it to
//! Python objects with the GIL held, and resolves the futures. No smol thread ever takes
//! the GIL.
//!
//! Calls may overlap: the transport's client keeps a pool of idle connections (and one
//! shared HTTP/2 connection), and each call runs on a clone with the call's own options.
//! A stream is pulled one event per request (`stream_next`), so a slow consumer holds the
//! server back through TCP instead of filling memory here; closing it (`stream_close`)
//! drops its connection.

use crate::errors;
use crate::model::generated::*;
use crate::signing::PyCardKeySet;
use crate::wake::{Wake, Watch};
use a2a::op::{Operation, Request, Response};
use a2a::v1;
use a2a_wire_smol::{CallOptions, Client, ClientOptions, Error, EventStream};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::collections::{HashMap, VecDeque};
use std::os::fd::RawFd;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

enum Done {
    Connected(Result<v1::AgentCard, Error>),
    Answer(Result<Response, Error>),
    StreamOpened(Result<u64, Error>),
    Event(Option<Result<v1::StreamResponse, Error>>),
}

struct HubState {
    done: VecDeque<(u64, Done)>,
    signaled: bool,
    /// The connected client (it keeps its own pool of idle connections); each call runs
    /// on a clone with the call's options.
    client: Option<Client>,
    streams: HashMap<u64, async_channel::Sender<u64>>,
    next_stream: u64,
    closed: bool,
}

struct Hub {
    state: Mutex<HubState>,
    wake: Wake,
}

impl Hub {
    fn lock(&self) -> std::sync::MutexGuard<'_, HubState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn finish(&self, token: u64, done: Done) {
        let mut s = self.lock();
        s.done.push_back((token, done));
        let s = &mut *s;
        self.wake.ring(&mut s.signaled);
    }

    /// The client with one call's options (None: not connected, or closed).
    fn client(&self, options: &CallOptions) -> Option<Client> {
        let s = self.lock();
        if s.closed {
            return None;
        }
        s.client.as_ref().map(|c| c.with_call_options(options.clone()))
    }
}

/// One call's options from Python: `timeout` (seconds; None: the client's) and `headers`.
fn call_options(timeout: Option<f64>, headers: Vec<(String, String)>) -> PyResult<CallOptions> {
    for (n, v) in &headers {
        a2a::http::check_header_field(n, v).map_err(|e| PyValueError::new_err(format!("headers: {e}")))?;
    }
    let timeout = timeout.map(seconds).transpose()?;
    Ok(CallOptions { timeout, headers })
}

/// A positive, finite number of seconds.
fn seconds(v: f64) -> PyResult<Duration> {
    if !(v > 0.0 && v.is_finite()) {
        return Err(PyValueError::new_err(format!("timeout must be a positive number of seconds, got {v}")));
    }
    Duration::try_from_secs_f64(v).map_err(|e| PyValueError::new_err(format!("timeout {v}: {e}")))
}

fn not_connected() -> Error {
    Error::Card(String::from("the client is not connected"))
}

/// The transport side of one `a2a_wire.client.Client`.
#[pyclass(module = "a2a_wire._a2a_wire", frozen)]
pub struct ClientHub {
    hub: Arc<Hub>,
    watch: Watch,
}

macro_rules! request {
    ($req:expr, $ty:ty, $what:literal) => {
        $req.cast::<$ty>().map_err(|_| PyTypeError::new_err(concat!("expected ", $what)))?.get().0.clone()
    };
}

/// The operation for `method` with `request` (the model object of its request).
fn operation(method: &str, request: &Bound<'_, PyAny>) -> PyResult<Operation> {
    Ok(Operation::Task(match method {
        "SendMessage" => Request::SendMessage(request!(request, PySendMessageRequest, "SendMessageRequest")),
        "SendStreamingMessage" => Request::SendStreamingMessage(request!(request, PySendMessageRequest, "SendMessageRequest")),
        "GetTask" => Request::GetTask(request!(request, PyGetTaskRequest, "GetTaskRequest")),
        "ListTasks" => Request::ListTasks(request!(request, PyListTasksRequest, "ListTasksRequest")),
        "CancelTask" => Request::CancelTask(request!(request, PyCancelTaskRequest, "CancelTaskRequest")),
        "SubscribeToTask" => Request::SubscribeToTask(request!(request, PySubscribeToTaskRequest, "SubscribeToTaskRequest")),
        "CreateTaskPushNotificationConfig" => {
            Request::CreatePushConfig(request!(request, PyTaskPushNotificationConfig, "TaskPushNotificationConfig"))
        }
        "GetTaskPushNotificationConfig" => {
            Request::GetPushConfig(request!(request, PyGetTaskPushNotificationConfigRequest, "GetTaskPushNotificationConfigRequest"))
        }
        "ListTaskPushNotificationConfigs" => {
            Request::ListPushConfigs(request!(request, PyListTaskPushNotificationConfigsRequest, "ListTaskPushNotificationConfigsRequest"))
        }
        "DeleteTaskPushNotificationConfig" => Request::DeletePushConfig(request!(
            request,
            PyDeleteTaskPushNotificationConfigRequest,
            "DeleteTaskPushNotificationConfigRequest"
        )),
        "GetExtendedAgentCard" => {
            return Ok(Operation::GetExtendedAgentCard(request!(request, PyGetExtendedAgentCardRequest, "GetExtendedAgentCardRequest")))
        }
        other => return Err(PyValueError::new_err(format!("unknown operation {other:?}"))),
    }))
}

fn error_to_py(py: Python<'_>, e: &Error, binding: &str) -> PyErr {
    match e {
        Error::A2a(c) => errors::client_error(py, c, binding),
        Error::Url(m) => PyValueError::new_err(format!("invalid URL: {m}")),
        Error::Card(m) => errors::card_error(py, m),
        Error::Tls(m) => errors::tls_error(py, m),
        Error::Signature(m) => errors::signature_error(py, m),
        Error::Timeout { .. } => errors::timeout_error(py, &e.to_string()),
        other => errors::transport_error(py, &other.to_string()),
    }
}

fn response_to_py<'py>(py: Python<'py>, r: Response) -> PyResult<Bound<'py, PyAny>> {
    Ok(match r {
        Response::SendMessage(x) => Bound::new(py, PySendMessageResponse(x))?.into_any(),
        Response::Task(x) => Bound::new(py, PyTask(x))?.into_any(),
        Response::ListTasks(x) => Bound::new(py, PyListTasksResponse(x))?.into_any(),
        Response::PushConfig(x) => Bound::new(py, PyTaskPushNotificationConfig(x))?.into_any(),
        Response::PushConfigs(x) => Bound::new(py, PyListTaskPushNotificationConfigsResponse(x))?.into_any(),
        Response::AgentCard(x) => Bound::new(py, PyAgentCard(x))?.into_any(),
        _ => py.None().into_bound(py),
    })
}

async fn pump_stream(hub: Arc<Hub>, mut es: EventStream, pull: async_channel::Receiver<u64>) {
    while let Ok(token) = pull.recv().await {
        // Wait for the event, or for the stream to be closed meanwhile (nothing else arrives
        // on `pull` while a request is open: Python asks for one event at a time).
        let event = async { Some(es.next().await) };
        let closed = async {
            let _ = pull.recv().await;
            None
        };
        let Some(ev) = smol::future::or(event, closed).await else { break };
        let over = !matches!(ev, Some(Ok(_)));
        hub.finish(token, Done::Event(ev));
        if over {
            break;
        }
    }
    es.close().await;
}

#[pymethods]
impl ClientHub {
    #[new]
    fn new() -> PyResult<Self> {
        let (wake, watch) = crate::wake::pair()?;
        let state =
            HubState { done: VecDeque::new(), signaled: false, client: None, streams: HashMap::new(), next_stream: 0, closed: false };
        Ok(ClientHub { hub: Arc::new(Hub { state: Mutex::new(state), wake }), watch })
    }

    /// The wake-up socket's descriptor, once (the caller owns it).
    fn take_watch_fd(&self) -> PyResult<RawFd> {
        self.watch.take()
    }

    /// Fetches the card at `url` and selects the interface; the result is the card. With
    /// `card_keys` a signed card must carry a signature they verify, and with
    /// `require_signed_card` an unsigned one is refused (`CardSignatureError`).
    /// `stream_resumes`: how many times in a row a broken stream is resumed (0: never);
    /// `v03_file_bytes` (`"base64"` or `"raw"`): how v0.3 gRPC and HTTP+JSON carry file bytes.
    #[pyo3(signature = (
        token, url, bindings, versions, timeout, headers, extensions, ca_file = None, client_cert = None, card_keys = None,
        require_signed_card = false, stream_resumes = 5, v03_file_bytes = "base64"
    ))]
    #[allow(clippy::too_many_arguments)]
    fn connect(
        &self,
        py: Python<'_>,
        token: u64,
        url: String,
        bindings: Vec<String>,
        versions: Vec<String>,
        timeout: f64,
        headers: Vec<(String, String)>,
        extensions: Vec<String>,
        ca_file: Option<std::path::PathBuf>,
        client_cert: Option<(std::path::PathBuf, std::path::PathBuf)>,
        card_keys: Option<PyRef<'_, PyCardKeySet>>,
        require_signed_card: bool,
        stream_resumes: i64,
        v03_file_bytes: &str,
    ) -> PyResult<()> {
        let v03_file_bytes = crate::server::file_bytes(v03_file_bytes)?;
        let stream_resumes = u32::try_from(stream_resumes)
            .map_err(|_| PyValueError::new_err(format!("stream_resumes must be a count from 0 to {}, got {stream_resumes}", u32::MAX)))?;
        for (n, v) in &headers {
            a2a::http::check_header_field(n, v).map_err(|e| PyValueError::new_err(format!("headers: {e}")))?;
        }
        let tls = crate::server::client_tls(py, ca_file, client_cert)?;
        let support = crate::wire::client_support(&bindings, &versions)?;
        let mut options = ClientOptions::default();
        options.deadline = seconds(timeout)?;
        options.connect_timeout = options.connect_timeout.min(options.deadline);
        options.tls = tls;
        options.stream_resumes = stream_resumes;
        options.card_keys = card_keys.map(|k| k.snapshot());
        options.require_signed_card = require_signed_card;
        options.v03_file_bytes = v03_file_bytes;
        let hub = self.hub.clone();
        smol::spawn(async move {
            let r = Client::connect_with(&url, &support, options).await;
            let done = match r {
                Ok((mut client, card)) => {
                    for (n, v) in &headers {
                        client = client.with_header(n, v);
                    }
                    if !extensions.is_empty() {
                        let uris: Vec<&str> = extensions.iter().map(String::as_str).collect();
                        client = client.with_extensions(&uris);
                    }
                    hub.lock().client = Some(client);
                    Ok(card)
                }
                Err(e) => Err(e),
            };
            hub.finish(token, Done::Connected(done));
        })
        .detach();
        Ok(())
    }

    /// The selected interface: `(url, binding, version, tenant, index)`.
    fn interface(&self) -> Option<(String, String, String, String, usize)> {
        let s = self.hub.lock();
        s.client.as_ref().map(|c| {
            let i = c.interface();
            (i.url.clone(), i.binding.as_str().to_string(), i.version.to_string(), i.tenant.clone(), i.index)
        })
    }

    /// Runs the unary operation `method` with `request`; `timeout` (seconds; None: the
    /// client's) and `headers` are this call's own.
    #[pyo3(signature = (token, method, request, timeout = None, headers = Vec::new()))]
    fn call(
        &self,
        token: u64,
        method: &str,
        request: &Bound<'_, PyAny>,
        timeout: Option<f64>,
        headers: Vec<(String, String)>,
    ) -> PyResult<()> {
        let op = operation(method, request)?;
        let Some(client) = self.hub.client(&call_options(timeout, headers)?) else {
            self.hub.finish(token, Done::Answer(Err(not_connected())));
            return Ok(());
        };
        let hub = self.hub.clone();
        smol::spawn(async move {
            let r = client.call(op).await;
            hub.finish(token, Done::Answer(r));
        })
        .detach();
        Ok(())
    }

    /// Opens the stream of `method` with `request` (`timeout`, `headers`: as for `call`; the
    /// headers go with its resumes too); the result is the stream's id.
    #[pyo3(signature = (token, method, request, timeout = None, headers = Vec::new()))]
    fn open_stream(
        &self,
        token: u64,
        method: &str,
        request: &Bound<'_, PyAny>,
        timeout: Option<f64>,
        headers: Vec<(String, String)>,
    ) -> PyResult<()> {
        let op = operation(method, request)?;
        let Some(client) = self.hub.client(&call_options(timeout, headers)?) else {
            self.hub.finish(token, Done::StreamOpened(Err(not_connected())));
            return Ok(());
        };
        let hub = self.hub.clone();
        smol::spawn(async move {
            let r = client.stream(op).await;
            match r {
                Ok(es) => {
                    let (tx, rx) = async_channel::bounded(1);
                    let id = {
                        let mut s = hub.lock();
                        s.next_stream += 1;
                        let id = s.next_stream;
                        s.streams.insert(id, tx);
                        id
                    };
                    hub.finish(token, Done::StreamOpened(Ok(id)));
                    pump_stream(hub.clone(), es, rx).await;
                    hub.lock().streams.remove(&id);
                }
                Err(e) => hub.finish(token, Done::StreamOpened(Err(e))),
            }
        })
        .detach();
        Ok(())
    }

    /// Asks stream `stream` for its next event (the result: a StreamResponse, or None at
    /// the end). False when the stream is over or closed.
    fn stream_next(&self, token: u64, stream: u64) -> bool {
        let tx = self.hub.lock().streams.get(&stream).cloned();
        tx.is_some_and(|t| t.try_send(token).is_ok())
    }

    /// Closes stream `stream` (its connection is dropped; the task goes on at the server).
    fn stream_close(&self, stream: u64) {
        if let Some(tx) = self.hub.lock().streams.remove(&stream) {
            tx.close();
        }
    }

    /// Every finished result: `(token, ok, value)`; `value` is the result or the exception.
    fn take<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let (done, binding) = {
            let mut s = self.hub.lock();
            s.signaled = false;
            let binding = s.client.as_ref().map_or("HTTP+JSON".to_string(), |c| c.interface().binding.as_str().to_string());
            (std::mem::take(&mut s.done), binding)
        };
        let list = PyList::empty(py);
        for (token, d) in done {
            let r: Result<Bound<'py, PyAny>, PyErr> = match d {
                Done::Connected(r) => match r {
                    Ok(card) => Ok(Bound::new(py, PyAgentCard(card))?.into_any()),
                    // Before an interface is chosen, a status is the card fetch's HTTP status.
                    Err(e) => Err(error_to_py(py, &e, "HTTP+JSON")),
                },
                Done::Answer(r) => match r {
                    Ok(resp) => response_to_py(py, resp),
                    Err(e) => Err(error_to_py(py, &e, &binding)),
                },
                Done::StreamOpened(r) => match r {
                    Ok(id) => Ok(id.into_pyobject(py)?.into_any()),
                    Err(e) => Err(error_to_py(py, &e, &binding)),
                },
                Done::Event(ev) => match ev {
                    None => Ok(py.None().into_bound(py)),
                    Some(Ok(e)) => Ok(Bound::new(py, PyStreamResponse(e))?.into_any()),
                    Some(Err(e)) => Err(error_to_py(py, &e, &binding)),
                },
            };
            match r {
                Ok(v) => list.append((token, true, v))?,
                Err(e) => list.append((token, false, e.into_value(py)))?,
            }
        }
        Ok(list)
    }

    /// Closes every stream and the idle connections.
    fn close(&self) {
        let mut s = self.hub.lock();
        s.closed = true;
        s.client = None;
        for (_, tx) in s.streams.drain() {
            tx.close();
        }
    }
}

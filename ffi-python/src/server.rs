//! The ready server (`_a2a_wire.ReadyServer`): the smol transport (HTTP/1.1 and HTTP/2,
//! JSON-RPC, HTTP+JSON, gRPC, SSE, the card) on threads of its own, with an agent that is a
//! Python coroutine on the asyncio loop.
//!
//! The transport's host calls the agent's `start` / `cancel` on its own thread. Those never
//! take the GIL: they queue the run and, when the queue was empty, write one byte to a
//! socket whose other end the asyncio loop watches (`loop.add_reader`). The loop then takes
//! every queued run at once (`take()`) and starts a task for each. The runs' events go back
//! through the transport's thread-safe sink, also without waiting for any thread.

use crate::errors;
use crate::model::generated::PyAgentCard;
use crate::run::{Backend, Run, RunInfo};
use crate::signing::PySigningKey;
use crate::wake::{Wake, Watch};
use a2a::engine::RunId;
use a2a::error::{A2aError, ErrorKind};
use a2a::v1;
use a2a_wire_smol::agent::{Agent, EventSink, RequestContext};
use a2a_wire_smol::host::{self, AgentKind, AuthHook, AuthVerdict};
use a2a_wire_smol::ready::{ReadyError, ReadyOptions, WhichCard};
use a2a_wire_smol::webhook::WebhookPolicy;
use a2a_wire_smol::RunningServer;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::os::fd::RawFd;
use std::sync::{Arc, Mutex, PoisonError};

enum Item {
    Start(Box<RequestContext>, EventSink),
    Cancel(RunId),
    Auth(Box<host::AuthCall>, async_channel::Sender<AuthVerdict>),
}

/// A call for Python's `authenticate` to judge (`_a2a_wire.AuthCall`): the HTTP request and
/// what the core read in it. `answer` gives the verdict once; dropped unanswered, the call is
/// refused with an internal error.
#[pyclass(module = "a2a_wire._a2a_wire", frozen)]
pub struct AuthCall {
    call: host::AuthCall,
    reply: Mutex<Option<async_channel::Sender<AuthVerdict>>>,
}

#[pymethods]
impl AuthCall {
    /// The HTTP method (gRPC: `POST`).
    #[getter]
    fn method(&self) -> &str {
        &self.call.http_method
    }
    /// The request target: path and query.
    #[getter]
    fn target(&self) -> &str {
        &self.call.target
    }
    /// Every header as received: `(name, value)` pairs.
    #[getter]
    fn headers(&self) -> Vec<(String, String)> {
        self.call.headers.clone()
    }
    /// The peer's `(host, port)`, when known.
    #[getter]
    fn peer(&self) -> Option<(String, u16)> {
        self.call.peer.map(|a| (a.ip().to_string(), a.port()))
    }
    /// The A2A operation (`"SendMessage"`).
    #[getter]
    fn operation(&self) -> &'static str {
        self.call.call.method.names().v1
    }
    /// `"JSONRPC"`, `"HTTP+JSON"` or `"GRPC"`.
    #[getter]
    fn binding(&self) -> &str {
        self.call.call.binding.as_str()
    }
    /// The protocol version the call is served with.
    #[getter]
    fn version(&self) -> String {
        self.call.call.version.to_string()
    }
    /// The tenant the call names (`""`: none).
    #[getter]
    fn tenant(&self) -> &str {
        &self.call.call.tenant
    }
    /// The verdict: `principal` (None: anonymous) or `error`, an `A2AError` to answer with.
    /// False when the call was answered already.
    #[pyo3(signature = (principal = None, error = None))]
    fn answer(&self, principal: Option<String>, error: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        let verdict = match error {
            None => Ok(principal),
            Some(e) => Err(errors::from_py(e)?.ok_or_else(|| PyTypeError::new_err("error: expected an A2AError"))?),
        };
        let reply = self.reply.lock().unwrap_or_else(PoisonError::into_inner).take();
        Ok(reply.is_some_and(|r| r.try_send(verdict).is_ok()))
    }
}

/// The hook of a server whose calls Python judges: each call goes to the loop as an
/// `AuthCall`, and the call waits (on the transport's executor, not a thread) for the answer.
fn python_hook(handoff: Arc<Handoff>) -> AuthHook {
    AuthHook::new_async(move |call| {
        let (tx, rx) = async_channel::bounded(1);
        handoff.push(Item::Auth(Box::new(call), tx));
        async move {
            // No answer (the loop dropped the call, or the server stopped): refuse.
            rx.recv().await.unwrap_or_else(|_| Err(A2aError::with_message(ErrorKind::Internal, "authentication failed")))
        }
    })
}

/// Runs handed from the transport's thread to the asyncio loop.
pub(crate) struct Handoff {
    state: Mutex<HandoffState>,
    wake: Wake,
}

struct HandoffState {
    items: VecDeque<Item>,
    /// A wake-up byte is on its way and the loop has not taken the items yet.
    signaled: bool,
    /// The loop no longer takes runs (the server stopped): new ones end at once.
    closed: bool,
}

impl Handoff {
    fn new() -> PyResult<(Arc<Handoff>, Watch)> {
        let (wake, watch) = crate::wake::pair()?;
        let state = HandoffState { items: VecDeque::new(), signaled: false, closed: false };
        Ok((Arc::new(Handoff { state: Mutex::new(state), wake }), watch))
    }

    fn push(&self, item: Item) {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if s.closed {
            // Dropping the sink ends the run as finished; a cancel needs nothing.
            return;
        }
        s.items.push_back(item);
        let s = &mut *s;
        self.wake.ring(&mut s.signaled);
    }

    fn take(&self) -> VecDeque<Item> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.signaled = false;
        std::mem::take(&mut s.items)
    }

    fn close(&self) -> VecDeque<Item> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.closed = true;
        std::mem::take(&mut s.items)
    }
}

struct PyAgent {
    handoff: Arc<Handoff>,
}

impl Agent for PyAgent {
    fn start(&self, ctx: RequestContext, events: EventSink) {
        self.handoff.push(Item::Start(Box::new(ctx), events));
    }
    fn cancel(&self, run: RunId) {
        self.handoff.push(Item::Cancel(run));
    }
}

/// A running server.
#[pyclass(module = "a2a_wire._a2a_wire", frozen)]
pub struct ReadyServer {
    server: Mutex<Option<RunningServer>>,
    handoff: Arc<Handoff>,
    watch: Watch,
    url: String,
    card: v1::AgentCard,
}

/// `"base64"` or `"raw"`: how v0.3 gRPC and HTTP+JSON carry file bytes (INTEROP.md, "File
/// bytes in v0.3").
pub(crate) fn file_bytes(name: &str) -> PyResult<a2a::server::FileBytes> {
    a2a::server::FileBytes::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("v03_file_bytes must be \"base64\" or \"raw\", got {name:?}")))
}

#[pymethods]
impl ReadyServer {
    /// Binds `host:port` (port 0: a free one) and serves `card` (a card without interfaces:
    /// the standard six). With `bearer_tokens` (token to principal) every call
    /// needs `Authorization: Bearer TOKEN` and each principal sees only its own tasks;
    /// `extended_card` is what every authenticated caller gets from `GetExtendedAgentCard`,
    /// `extended_cards` (principal to card) what one principal gets instead. With
    /// `signing_key` the card and the extended cards are signed (`card_jku` in each header).
    /// Push notifications go to public addresses only, and to those of `allow_webhooks`
    /// (hosts, addresses, CIDR networks) or everywhere with `allow_private_webhooks`;
    /// `https://` receivers are verified against `webhook_ca_file` (None: the platform's
    /// roots). `v03_file_bytes` (`"base64"` or `"raw"`) is how v0.3 gRPC and HTTP+JSON
    /// answers carry file bytes. The settings become the transport's config in
    /// `ReadyOptions`' one order. Returns once the server listens.
    #[new]
    #[pyo3(signature = (
        host, port, card, bearer_tokens = None, tls = None, *, extended_card = None, extended_cards = None,
        signing_key = None, card_jku = None, allow_webhooks = Vec::new(), allow_private_webhooks = false, webhook_ca_file = None,
        v03_file_bytes = "base64", store = None, cache_bytes = None, retain_ms = None, public_url = None, authenticate = false,
        cancel_grace_ms = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        host: &str,
        port: u16,
        card: PyRef<'_, PyAgentCard>,
        bearer_tokens: Option<std::collections::BTreeMap<String, String>>,
        tls: Option<(std::path::PathBuf, std::path::PathBuf)>,
        extended_card: Option<PyRef<'_, PyAgentCard>>,
        extended_cards: Option<&Bound<'_, PyAny>>,
        signing_key: Option<PyRef<'_, PySigningKey>>,
        card_jku: Option<String>,
        allow_webhooks: Vec<String>,
        allow_private_webhooks: bool,
        webhook_ca_file: Option<std::path::PathBuf>,
        v03_file_bytes: &str,
        store: Option<std::path::PathBuf>,
        cache_bytes: Option<usize>,
        retain_ms: Option<u64>,
        public_url: Option<String>,
        authenticate: bool,
        cancel_grace_ms: Option<u64>,
    ) -> PyResult<Self> {
        let (handoff, watch) = Handoff::new()?;
        let public_origin = public_url
            .map(|u| a2a_wire_smol::demo::public_origin(&u).map_err(|e| PyValueError::new_err(format!("public_url: {e}"))))
            .transpose()?;
        let v03_file_bytes = file_bytes(v03_file_bytes)?;
        let tls = match tls {
            Some((cert, key)) => {
                Some(a2a_wire_smol::tls::ServerTls::from_pem_files(&cert, &key).map_err(|e| errors::tls_error(py, &e.to_string()))?)
            }
            None => None,
        };
        let tokens = match bearer_tokens {
            Some(map) if map.is_empty() => return Err(PyValueError::new_err("bearer_tokens is empty: no caller could authenticate")),
            Some(map) => {
                let mut t = a2a::auth::BearerTokens::new();
                for (token, principal) in &map {
                    // The message names the principal, never the token (a secret).
                    t.insert(token, principal)
                        .map_err(|e| PyValueError::new_err(format!("bearer_tokens, the token of {principal:?}: {e}")))?;
                }
                Some(t)
            }
            None => None,
        };
        let signing_key = signing_key.map(|k| k.0.clone());
        check_jku(card_jku.as_deref(), signing_key.is_some())?;
        let options = ReadyOptions {
            bearer_tokens: tokens,
            tls,
            extended_card: extended_card.map(|c| c.0.clone()),
            extended_cards: extended_cards_from(extended_cards)?,
            signing_key,
            card_jku,
            webhooks: webhook_policy(py, &allow_webhooks, allow_private_webhooks, webhook_ca_file)?,
            v03_file_bytes,
            store,
            cache_bytes,
            retention: retain_ms.filter(|ms| *ms > 0).map(std::time::Duration::from_millis),
            public_origin,
            authenticate: authenticate.then(|| python_hook(handoff.clone())),
            cancel_grace: cancel_grace_ms.map(std::time::Duration::from_millis),
        };
        let ip: std::net::IpAddr = host.parse().map_err(|e| PyValueError::new_err(format!("host {host:?} is not an IP address: {e}")))?;
        let wanted = SocketAddr::new(ip, port);
        // The card must name the port before the server binds it.
        let addr = a2a_wire_smol::server::concrete_addr(wanted).map_err(|e| PyOSError::new_err(format!("cannot bind {wanted}: {e}")))?;
        let origin = options.listening_origin(addr);
        let store = options.open_store().map_err(|e| PyOSError::new_err(e.to_string()))?;
        let config = options.server_config(card.0.clone(), addr).map_err(|e| ready_error(py, e))?;
        let card = config.card.clone();
        let kind = AgentKind::Callback(Arc::new(PyAgent { handoff: handoff.clone() }));
        let server = py
            .detach(|| RunningServer::start(addr, config, kind, store))
            .map_err(|e| PyOSError::new_err(format!("cannot serve on {addr}: {e}")))?;
        let url = origin;
        Ok(ReadyServer { server: Mutex::new(Some(server)), handoff, watch, url, card })
    }

    /// `http://HOST:PORT` (the card is at `/.well-known/agent-card.json`).
    #[getter]
    fn url(&self) -> &str {
        &self.url
    }

    /// The card the server publishes.
    #[getter]
    fn card(&self) -> PyAgentCard {
        PyAgentCard(self.card.clone())
    }

    /// The file descriptor of the wake-up socket, once: the caller owns it from then on
    /// (`socket.socket(fileno=fd)`). A byte arrives on it when runs wait in `take()`.
    fn take_watch_fd(&self) -> PyResult<RawFd> {
        self.watch.take()
    }

    /// Every run, cancel and call to judge waiting: a list of `Run` (start it), `int` (the
    /// run with that id is canceled) and `AuthCall` (judge it; with `authenticate`).
    fn take<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        items_to_py(py, self.handoff.take())
    }

    /// Stops the server (open streams end, running runs are canceled) and waits until it
    /// has stopped. Returns what was still waiting (as `take()`), so that the caller can
    /// cancel it.
    fn stop<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let server = self.server.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(s) = server {
            py.detach(move || s.stop());
        }
        items_to_py(py, self.handoff.close())
    }
}

fn items_to_py(py: Python<'_>, items: VecDeque<Item>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for item in items {
        match item {
            Item::Start(ctx, events) => {
                let ctx = *ctx;
                let backend = Backend::Ready { events, cancel: ctx.cancel.clone() };
                let info = RunInfo {
                    id: ctx.run,
                    task_id: ctx.task_id,
                    context_id: ctx.context_id,
                    message: ctx.message,
                    follow_up: ctx.follow_up,
                    resumed: ctx.resumed,
                    task: ctx.task,
                    principal: ctx.call.principal,
                    extensions: ctx.call.extensions,
                    tenant: ctx.tenant,
                    metadata: ctx.metadata,
                    configuration: ctx.configuration,
                };
                let run = Run::new(info, backend);
                list.append(Bound::new(py, run)?)?;
            }
            Item::Cancel(run) => list.append(run.0)?,
            Item::Auth(call, reply) => list.append(Bound::new(py, AuthCall { call: *call, reply: Mutex::new(Some(reply)) })?)?,
        }
    }
    Ok(list)
}

/// A client's TLS settings from its options: `ca_file` (PEM; None: the platform's roots) and
/// `client_cert` (certificate and key files). None when both are absent.
pub(crate) fn client_tls(
    py: Python<'_>,
    ca_file: Option<std::path::PathBuf>,
    client_cert: Option<(std::path::PathBuf, std::path::PathBuf)>,
) -> PyResult<Option<a2a_wire_smol::tls::ClientTls>> {
    let pair = client_cert.as_ref().map(|(c, k)| (c.as_path(), k.as_path()));
    a2a_wire_smol::tls::ClientTls::from_files(ca_file.as_deref(), pair).map_err(|e| errors::tls_error(py, &e.to_string()))
}

/// `card_jku` names where the signing key's public half is published: without a key there
/// is nothing to name.
pub(crate) fn check_jku(jku: Option<&str>, signing: bool) -> PyResult<()> {
    if jku.is_some() && !signing {
        return Err(PyValueError::new_err("card_jku is given without signing_key: no signature would carry it"));
    }
    Ok(())
}

/// `extended_cards`: a mapping of principal to `AgentCard` (None: none).
pub(crate) fn extended_cards_from(v: Option<&Bound<'_, PyAny>>) -> PyResult<BTreeMap<String, v1::AgentCard>> {
    match v {
        None => Ok(BTreeMap::new()),
        Some(v) => crate::model::map_from("extended_cards", v, |c| crate::model::msg_from::<PyAgentCard>(c).map(|c| c.0)),
    }
}

/// How push notifications are delivered: the SSRF guard's allow-list (`allow`, each entry a
/// host name, an address or a CIDR network; a bad one raises `ValueError` naming it), or no
/// guard at all (`allow_private`), and the roots `https://` receivers are verified against
/// (`ca_file`; None: the platform's).
pub(crate) fn webhook_policy(
    py: Python<'_>,
    allow: &[String],
    allow_private: bool,
    ca_file: Option<std::path::PathBuf>,
) -> PyResult<WebhookPolicy> {
    let mut policy = WebhookPolicy { allow_private, tls: client_tls(py, ca_file, None)?, ..WebhookPolicy::default() };
    a2a_wire_smol::ready::allow_webhooks(&mut policy, allow).map_err(|m| PyValueError::new_err(format!("allow_webhooks: {m}")))?;
    Ok(policy)
}

/// Why the ready server's settings cannot be served, as the Python exception: a card that is
/// not a valid Agent Card is the `ValidationError` subclass of the field at fault (its path
/// inside the argument that gave the card), a card the key cannot sign a `ValueError`.
fn ready_error(py: Python<'_>, e: ReadyError) -> PyErr {
    match e {
        ReadyError::Card { card: WhichCard::Public, error } => errors::decode_error(py, &error),
        ReadyError::Card { card: WhichCard::Extended, error } => errors::decode_error_in(py, &error, "extended_card"),
        ReadyError::Card { card: WhichCard::ExtendedOf(p), error } => {
            errors::decode_error_in(py, &error, &format!("extended_cards[{}]", serde_json::Value::from(p)))
        }
        ReadyError::Encode(m) => errors::encode_error(py, &m),
        ReadyError::Signature(m) => PyValueError::new_err(format!("signing_key: {m}")),
        ReadyError::Store(m) => PyOSError::new_err(m),
        ReadyError::Auth => {
            PyValueError::new_err("give bearer_tokens or authenticate, not both: the tokens are an authenticator of their own")
        }
    }
}

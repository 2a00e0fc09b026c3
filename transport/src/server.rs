//! The A2A server on smol: sockets, HTTP/1.1 and HTTP/2 framing, time limits and tasks.
//! Every request goes to the host of the core's service ([`crate::host`]), which decides
//! everything (routes, versions, the card, errors, tasks, streams, webhooks); this module
//! writes back what it is given.
//!
//! Shutdown ([`ShutdownHandle::shutdown`]): the listener stops accepting, kept-alive idle
//! connections close, the service ends every open stream and answers every waiting call
//! (`Unavailable`), agent runs are told to stop, webhook attempts in flight finish (retries
//! not yet due are dropped, and logged), the store is flushed; [`Server::run`] returns when every task the server spawned has ended
//! ([`ShutdownHandle::live_tasks`] counts them).

use crate::agent::{Agent, AgentExecutor};
use crate::host::{AgentKind, AuthHook, CallEvent, CallHandle, HeadVerdict, HostConfig, HostHandle, OwnedRequest, Prejudged};
use crate::http1::{self, Buffer, Limits, ReadError, Refusal, RequestReader};
use crate::io::Stream;
use crate::io::{Rewind, TaskCount};
use crate::store::Store;
use a2a_wire::engine::MemoryStore;
use a2a_wire::log::{Level, SharedLog};
use a2a_wire::service::{Service, ServiceConfig};
use a2a_wire::v1;
use smol::net::{TcpListener, TcpStream};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

pub use crate::io::now;

/// A log that writes each line to stderr (the default), up to the level the environment
/// variable `A2A_WIRE_LOG` names: `error`, `warn`, `info` (the default) or `debug` (which adds
/// a line per request refused for its framing).
pub fn stderr_log() -> SharedLog {
    let max = std::env::var("A2A_WIRE_LOG").ok().and_then(|v| Level::from_name(v.trim())).unwrap_or(Level::Info);
    Arc::new(move |level: Level, message: &str| {
        if level <= max {
            eprintln!("a2a-wire: {}: {message}", level.as_str())
        }
    })
}

/// Server settings.
#[derive(Clone)]
pub struct ServerConfig {
    /// The public Agent Card; its interfaces are what is served.
    pub card: v1::AgentCard,
    /// The extended card, if any (served to authenticated callers only).
    pub extended_card: Option<v1::AgentCard>,
    /// Extended cards per principal (see [`a2a_wire::service::ServiceConfig::extended_cards`]).
    pub extended_cards: std::collections::BTreeMap<String, v1::AgentCard>,
    /// HTTP limits.
    pub limits: Limits,
    /// `Cache-Control: max-age` of the card (seconds).
    pub card_max_age: u32,
    /// How push notifications are delivered.
    pub webhooks: crate::webhook::WebhookPolicy,
    /// Who is calling: given each call and its whole HTTP request, the principal or an A2A
    /// error (see [`AuthHook`]). `None`: every call is anonymous and the extended card is
    /// never served.
    pub authenticate: Option<AuthHook>,
    /// How long an agent future ([`crate::agent::AgentExecutor`]) may go on after its task
    /// was canceled before it is dropped (5 s by default). It sees the cancel at once
    /// ([`crate::agent::RequestContext::cancelled`]); its events are refused from then on.
    pub cancel_grace: std::time::Duration,
    /// Recognise retried messages by `messageId` (off by default, as in the official SDKs).
    pub dedup_message_ids: bool,
    /// With an external store: about how many bytes of idle tasks the working set caches
    /// (`a2a-wire serve --cache-mb`; 64 MiB by default).
    pub cache_bytes: usize,
    /// Delete terminal tasks whose last change is older than this (`--retain`; `None`, the
    /// default: keep every task).
    pub retention: Option<std::time::Duration>,
    /// Over a store several servers share (PostgreSQL): the lease a server holds on each
    /// task it runs (`a2a-wire serve --lease-seconds`; 15 s by default). A server that dies
    /// loses its tasks to another after this; `None`: no leases (runs lost with a server are
    /// resumed only when a server opens the store). Ignored for stores of one server.
    pub lease: Option<std::time::Duration>,
    /// Whether the agent resumes a run lost with its server (after a restart, or taken over
    /// from a server that died): `true` by default (the agent gets a run with
    /// `RequestContext::resumed`); `false` fails such tasks with a status message saying why
    /// (`a2a-wire serve --no-resume`).
    pub resume_lost_runs: bool,
    /// Frames a stream may have waiting for a slow client before it is cut off (the client
    /// then resubscribes and starts again from the current task).
    pub stream_queue: usize,
    /// Where log lines go (stderr by default).
    pub log: SharedLog,
    /// TLS: with it every connection runs TLS (HTTP/1.1 and HTTP/2 by ALPN on the one port)
    /// and the card should list `https://` URLs (see [`crate::demo::card_at`]).
    pub tls: Option<crate::tls::ServerTls>,
    /// How v0.3 gRPC and HTTP+JSON answers carry file bytes: base64 text by default (what
    /// the v0.3 clients of a2a-sdk and a2a-go read), raw for clients on @a2a-js/sdk 0.3; a
    /// client that sent its file bytes raw is answered raw either way.
    pub v03_file_bytes: a2a_wire::server::FileBytes,
}

/// How long a canceled agent future may go on before it is dropped ([`ServerConfig::cancel_grace`]).
pub const DEFAULT_CANCEL_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// The default lease on running work over a shared store ([`ServerConfig::lease`]).
pub const DEFAULT_LEASE: std::time::Duration = std::time::Duration::from_secs(15);

impl ServerConfig {
    /// Settings for `card` with default limits.
    pub fn new(card: v1::AgentCard) -> Self {
        ServerConfig {
            card,
            extended_card: None,
            extended_cards: Default::default(),
            limits: Limits::default(),
            card_max_age: 300,
            webhooks: Default::default(),
            authenticate: None,
            cancel_grace: DEFAULT_CANCEL_GRACE,
            dedup_message_ids: false,
            cache_bytes: 64 << 20,
            retention: None,
            lease: Some(DEFAULT_LEASE),
            resume_lost_runs: true,
            stream_queue: 1024,
            log: stderr_log(),
            tls: None,
            v03_file_bytes: a2a_wire::server::FileBytes::default(),
        }
    }

    /// Requires `Authorization: Bearer TOKEN` on every call, with `tokens` naming each
    /// token's principal (tasks and push configs then belong to the principal that made
    /// them); declares the bearer scheme in the card (and the extended cards). A missing or
    /// unknown token gets the A2A unauthenticated error.
    pub fn with_bearer_tokens(mut self, tokens: a2a_wire::auth::BearerTokens) -> Self {
        tokens.declare(&mut self.card);
        for extended in self.extended_card.iter_mut().chain(self.extended_cards.values_mut()) {
            tokens.declare(extended);
        }
        self.authenticate = Some(AuthHook::new(move |req: &crate::host::AuthCall| tokens.authenticate(&req.call.headers)));
        self
    }

    /// Signs the card (and the extended cards) with `key`, `jku` in the header when given
    /// (spec 8.4). Call it last: a change to a card after it breaks its signature.
    pub fn sign_cards(&mut self, key: &crate::signing::SigningKey, jku: Option<&str>) -> Result<(), a2a_wire::signing::SignatureError> {
        self.card = key.sign_card(&self.card, jku)?;
        for extended in self.extended_card.iter_mut().chain(self.extended_cards.values_mut()) {
            *extended = key.sign_card(extended, jku)?;
        }
        Ok(())
    }
}

struct Shared {
    limits: Limits,
    host: HostHandle,
    connections: AtomicUsize,
    shutting_down: AtomicBool,
    /// Closed at shutdown: every connection waiting for a request sees it.
    stop: async_channel::Receiver<()>,
    tasks: TaskCount,
    log: SharedLog,
    tls: Option<crate::tls::Acceptor>,
}

/// A running server. Dropping it does not stop it; call [`ShutdownHandle::shutdown`].
pub struct Server {
    listener: TcpListener,
    shared: Arc<Shared>,
    host_task: smol::Task<()>,
    stop_tx: async_channel::Sender<()>,
}

/// Stops a server: no new connections, idle ones closed, open streams ended.
#[derive(Clone)]
pub struct ShutdownHandle {
    shared: Arc<Shared>,
    stop_tx: async_channel::Sender<()>,
}

impl ShutdownHandle {
    /// Begins the shutdown; [`Server::run`] returns when it is complete.
    pub fn shutdown(&self) {
        self.shared.shutting_down.store(true, Ordering::Release);
        self.stop_tx.close();
        self.shared.host.shutdown();
    }

    /// Tasks the server spawned that are still alive (connections, the service's host,
    /// agent runs, webhook attempts): 0 once a shutdown is complete.
    pub fn live_tasks(&self) -> usize {
        self.shared.tasks.live()
    }
}

fn invalid(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string())
}

/// 128 bits from the OS's random source, to key the task id generator (the bindings' hosts of
/// `core::service` use it too).
pub fn os_random_key() -> std::io::Result<u128> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| std::io::Error::other(format!("no OS randomness: {e}")))?;
    Ok(u128::from_le_bytes(b))
}

/// `addr` with port 0 replaced by a port that is free now (found by binding it and letting it
/// go): for a card that must name the port before the server binds it. Another process may
/// take the port in between; the server's own bind then fails.
pub fn concrete_addr(addr: SocketAddr) -> std::io::Result<SocketAddr> {
    if addr.port() != 0 {
        return Ok(addr);
    }
    std::net::TcpListener::bind(addr)?.local_addr()
}

impl Server {
    /// Binds `addr` and starts the service with an in-memory store and a future-per-run agent.
    pub async fn bind(addr: SocketAddr, config: ServerConfig, executor: Arc<dyn AgentExecutor>) -> std::io::Result<Server> {
        Self::bind_with_store(addr, config, executor, MemoryStore::new()).await
    }

    /// Binds `addr` and starts the service with `store`.
    pub async fn bind_with_store(
        addr: SocketAddr,
        config: ServerConfig,
        executor: Arc<dyn AgentExecutor>,
        store: impl Into<Store>,
    ) -> std::io::Result<Server> {
        Self::bind_agent(addr, config, AgentKind::Future(executor), store).await
    }

    /// Binds `addr` and starts the service with an agent that is not a future (a callback
    /// that returns at once; see [`Agent`]).
    pub async fn bind_callback(
        addr: SocketAddr,
        config: ServerConfig,
        agent: Arc<dyn Agent>,
        store: impl Into<Store>,
    ) -> std::io::Result<Server> {
        Self::bind_agent(addr, config, AgentKind::Callback(agent), store).await
    }

    /// Binds `addr` and starts the service with `agent` and `store`.
    pub async fn bind_agent(addr: SocketAddr, config: ServerConfig, agent: AgentKind, store: impl Into<Store>) -> std::io::Result<Server> {
        let service = service_for(&config, store.into())?;
        // Bind before anything is spawned: a failed bind leaves nothing running.
        let listener = TcpListener::bind(addr).await?;
        let tasks = TaskCount::default();
        let (host, host_task) = spawn_host(&config, agent, service, tasks.clone())?;
        let (stop_tx, stop) = async_channel::bounded(1);
        let shared = Arc::new(Shared {
            limits: config.limits,
            host,
            connections: AtomicUsize::new(0),
            shutting_down: AtomicBool::new(false),
            stop,
            tasks,
            log: config.log,
            tls: config.tls.as_ref().map(crate::tls::ServerTls::acceptor),
        });
        Ok(Server { listener, shared, host_task, stop_tx })
    }

    /// The bound address.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// A handle that stops the server.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle { shared: self.shared.clone(), stop_tx: self.stop_tx.clone() }
    }

    /// Accepts connections until shut down, then waits until every task the server spawned
    /// has ended.
    pub async fn run(self) {
        use smol::future::FutureExt;
        let Server { listener, shared, host_task, stop_tx: _stop_tx } = self;
        let mut connections = Vec::new();
        loop {
            let accepted = async { Some(listener.accept().await) }
                .or(async {
                    let _ = shared.stop.recv().await;
                    None
                })
                .await;
            let Some(res) = accepted else { break };
            let Ok((stream, peer)) = res else { continue };
            let s = shared.clone();
            let count = s.connections.fetch_add(1, Ordering::AcqRel) + 1;
            connections.retain(|t: &smol::Task<()>| !t.is_finished());
            connections.push(shared.tasks.spawn(async move {
                let mut stream = stream;
                if count > s.limits.max_connections {
                    if s.tls.is_none() {
                        let _ = http1::write_response(&mut stream, 503, &[], b"too many connections", true).await;
                    }
                } else if let Some(stream) = handshake(&s, stream).await {
                    serve_connection(&s, stream, peer).await;
                }
                s.connections.fetch_sub(1, Ordering::AcqRel);
            }));
        }
        drop(listener);
        // Connections finish their answers (the service ended every stream); then the host
        // stops, after the last webhook attempt in flight reported and the store flushed.
        for c in connections {
            c.await;
        }
        host_task.await;
        // Webhook attempts still running (the host stopped waiting for them at its timeout)
        // and agent tasks end on their own; wait a bounded time for them.
        for _ in 0..200 {
            if shared.tasks.live() == 0 {
                break;
            }
            smol::Timer::after(std::time::Duration::from_millis(10)).await;
        }
        if shared.tasks.live() > 0 {
            shared.log.log(Level::Warn, &format!("{} task(s) still running after shutdown", shared.tasks.live()));
        }
    }
}

/// The connection as the server speaks on it: TLS after its handshake (bounded by the head
/// timeout; a failed handshake is logged and closes the connection), or plain.
async fn handshake(shared: &Shared, stream: TcpStream) -> Option<Stream> {
    // Nagle off: answers are written whole, and stream events must not wait.
    let _ = stream.set_nodelay(true);
    let Some(acceptor) = &shared.tls else { return Some(Stream::Plain(stream)) };
    match crate::io::timeout(shared.limits.head_timeout, crate::tls::accept(acceptor, stream)).await {
        Ok(Ok(tls)) => Some(tls),
        Ok(Err(e)) => {
            shared.log.log(Level::Info, &format!("TLS handshake failed: {e}"));
            None
        }
        Err(_) => None,
    }
}

/// Waits for the next request head, or for the shutdown (`None`).
async fn next_head(
    shared: &Shared,
    buf: &mut Buffer,
    reader: &mut RequestReader,
    stream: &mut Stream,
) -> Option<Result<http1::RequestHead, ReadError>> {
    use smol::future::FutureExt;
    async { Some(buf.read_request_head(stream, reader, &shared.limits).await) }
        .or(async {
            let _ = shared.stop.recv().await;
            None
        })
        .await
}

/// How long a refused connection is drained before it closes, and how much of it at most.
const LINGER: std::time::Duration = std::time::Duration::from_secs(1);
const LINGER_BYTES: usize = 256 * 1024;

/// Answers a request the framing refused (a short text body, `Connection: close`), logged
/// at debug level only; then closes the connection the way RFC 9112 §9.6 asks: the sending
/// side first, then what the client still sends is read and dropped for a moment, so that
/// the answer is not lost to a reset from closing on unread bytes.
async fn refuse(shared: &Shared, stream: &mut Stream, refusal: Refusal) {
    shared.log.log(Level::Debug, &format!("refused an HTTP/1.1 request: {refusal}"));
    let headers = [(String::from("content-type"), String::from("text/plain; charset=utf-8"))];
    if http1::write_response(stream, refusal.status, &headers, refusal.reason.as_bytes(), true).await.is_ok() {
        linger(stream).await;
    }
}

async fn linger(stream: &mut Stream) {
    use smol::io::{AsyncReadExt, AsyncWriteExt};
    let _ = stream.close().await;
    let mut sink = vec![0u8; 4096];
    let drain = async {
        let mut total = 0;
        while total < LINGER_BYTES {
            match stream.read(&mut sink).await {
                Ok(0) | Err(_) => break,
                Ok(n) => total += n,
            }
        }
    };
    let _ = crate::io::timeout(LINGER, drain).await;
}

/// The service's word on a head whose client waits for `100 Continue`; `None` when the
/// connection must close (the answer was written, or the server stopped).
async fn answer_expectation(
    shared: &Shared,
    stream: &mut Stream,
    head: &http1::RequestHead,
    peer: SocketAddr,
) -> Option<Option<Prejudged>> {
    let probe = OwnedRequest {
        method: head.method.clone(),
        target: head.target.clone(),
        headers: head.headers.clone(),
        body: Vec::new(),
        peer: Some(peer),
    };
    let declared = match head.body {
        http1::BodyLength::Length(n) => Some(n),
        http1::BodyLength::Chunked => None,
    };
    let head_only = head.method.eq_ignore_ascii_case("HEAD");
    match shared.host.check_head(probe, declared).await {
        Some(HeadVerdict::Continue(prejudged)) => {
            use smol::io::AsyncWriteExt;
            let written = stream.write_all(http1::CONTINUE).await.is_ok() && stream.flush().await.is_ok();
            written.then_some(prejudged)
        }
        Some(HeadVerdict::Answer(resp)) => {
            // The body is never read: the connection closes after the answer (lingering, for
            // a client that stopped waiting and sends its body anyway).
            if http1::write_response_to(stream, resp.status, &resp.headers, &resp.body, true, head_only).await.is_ok() {
                linger(stream).await;
            }
            None
        }
        None => {
            let _ = http1::write_response(stream, 503, &[], b"server stopped", true).await;
            None
        }
    }
}

async fn serve_connection(shared: &Arc<Shared>, mut stream: Stream, peer: SocketAddr) {
    use smol::future::FutureExt;
    let mut buf = Buffer::new();
    // A connection that has not sent its first bytes yet is idle: a shutdown closes it.
    let first = async { Some(buf.starts_with(&mut stream, crate::grpc::PREFACE, &shared.limits).await) }
        .or(async {
            let _ = shared.stop.recv().await;
            None
        })
        .await;
    let Some(first) = first else { return };
    match first {
        Ok(true) => {
            let io = Rewind::new(buf.take(), stream);
            let s = shared.clone();
            // Boxed: an HTTP/2 connection's state is large, and inline it would size every
            // HTTP/1.1 connection's task too.
            Box::pin(crate::grpc::serve(io, shared.limits, shared.tasks.clone(), shared.stop.clone(), move |parts, body, responder| {
                serve_grpc(s.clone(), parts, body, responder, peer)
            }))
            .await;
            return;
        }
        // A TLS handshake record (content type 22, version 3.x) on a port without TLS: a
        // client that dialed https:// here. Closing at once fails its handshake at once,
        // instead of leaving it waiting for a head that cannot come.
        Ok(false) if shared.tls.is_none() && buf.buffered().starts_with(&[0x16, 0x03]) => {
            shared.log.log(Level::Info, "a TLS handshake on a port without TLS; closed");
            return;
        }
        Ok(false) => {}
        Err(ReadError::Timeout) => {
            let _ = http1::write_response(&mut stream, 408, &[], b"request timeout", true).await;
            return;
        }
        Err(_) => return,
    }
    let mut reader = RequestReader::new(shared.limits.framing());
    loop {
        if shared.shutting_down.load(Ordering::Acquire) {
            return;
        }
        let head = match next_head(shared, &mut buf, &mut reader, &mut stream).await {
            None => return,
            Some(Ok(h)) => h,
            Some(Err(ReadError::Refused(refusal))) => return refuse(shared, &mut stream, refusal).await,
            Some(Err(ReadError::Timeout)) => {
                let _ = http1::write_response(&mut stream, 408, &[], b"request timeout", true).await;
                return;
            }
            Some(Err(_)) => return,
        };
        // A client waiting for 100 Continue hears the service's word on the head first
        // (RFC 9110 §10.1.1); one that sent its body already does not wait.
        let mut prejudged = None;
        if head.wants_continue(buf.buffered()) {
            match answer_expectation(shared, &mut stream, &head, peer).await {
                Some(p) => prejudged = p,
                None => return,
            }
        }
        let capacity = match head.body {
            // Grown as the bytes come, beyond what a head alone may make the server reserve.
            http1::BodyLength::Length(n) => n.min(64 * 1024),
            http1::BodyLength::Chunked => 0,
        };
        let mut body = Vec::with_capacity(capacity);
        match buf.read_request_body(&mut stream, &mut reader, &shared.limits, &mut body).await {
            Ok(()) => {}
            Err(ReadError::Refused(refusal)) => return refuse(shared, &mut stream, refusal).await,
            Err(ReadError::Timeout) => {
                let _ = http1::write_response(&mut stream, 408, &[], b"request timeout", true).await;
                return;
            }
            Err(_) => return,
        }
        let close = !head.keep_alive;
        let head_only = head.method.eq_ignore_ascii_case("HEAD");
        let req = OwnedRequest { method: head.method, target: head.target, headers: head.headers, body, peer: Some(peer) };
        let ok = serve_request(shared, &mut stream, &mut buf, req, prejudged, close, head_only).await;
        if !ok || close {
            return;
        }
    }
}

/// Serves one HTTP/1.1 request; false when the connection must close.
async fn serve_request(
    shared: &Arc<Shared>,
    stream: &mut Stream,
    buf: &mut Buffer,
    req: OwnedRequest,
    prejudged: Option<Prejudged>,
    close: bool,
    head_only: bool,
) -> bool {
    use smol::io::AsyncWriteExt;
    let Some(handle) = shared.host.call_prejudged(req, prejudged).await else {
        let _ = http1::write_response(stream, 503, &[], b"server stopped", true).await;
        return false;
    };
    let CallHandle { ref events, .. } = handle;
    let mut out = Vec::new();
    let mut started = false;
    // While the answer is awaited, the socket is watched: a client that goes away is
    // reported at once (its call would otherwise hold a connection slot until the task next
    // moves). Bytes of a pipelined next request end the watch; they stay in the buffer.
    let mut watch = true;
    loop {
        let next = if watch {
            use smol::future::FutureExt;
            async { Some(events.recv().await) }
                .or(async {
                    match buf.watch_peer(stream).await {
                        true => None,
                        false => smol::future::pending().await,
                    }
                })
                .await
        } else {
            Some(events.recv().await)
        };
        let Some(next) = next else {
            if let Some(call) = handle.id() {
                shared.host.gone(call);
            }
            return false;
        };
        watch = watch && buf.is_empty();
        let Ok(first) = next else {
            // The host stopped in the middle of the answer.
            if started {
                return false;
            }
            let _ = http1::write_response(stream, 503, &[], b"server stopped", true).await;
            return false;
        };
        // Every event is written as soon as it is there; events that are already queued
        // (a fast agent, a slow reader) share one write instead of one system call each.
        out.clear();
        let mut item = Some(first);
        let mut ended = false;
        let mut batched = 0;
        while let Some(ev) = item.take() {
            match ev {
                CallEvent::Answer(resp) => {
                    return http1::write_response_to(stream, resp.status, &resp.headers, &resp.body, close, head_only).await.is_ok();
                }
                CallEvent::Head(head) => {
                    http1::stream_head(&mut out, head.status, &head.headers);
                    started = true;
                }
                CallEvent::Frame(bytes) => http1::frame_chunk(&mut out, &bytes),
                CallEvent::End(bytes, _trailers) => {
                    http1::frame_chunk(&mut out, &bytes);
                    out.extend_from_slice(http1::LAST_CHUNK);
                    ended = true;
                    break;
                }
            }
            batched += 1;
            if batched < STREAM_BATCH {
                item = events.try_recv().ok();
            }
        }
        let written = stream.write_all(&out).await.is_ok() && stream.flush().await.is_ok();
        if !written {
            // The client went away: the task goes on.
            if let Some(call) = handle.id().filter(|_| !ended) {
                shared.host.gone(call);
            }
            return false;
        }
        if ended {
            return true;
        }
    }
}

/// Largest number of stream events written with one system call.
const STREAM_BATCH: usize = 64;

/// Serves one gRPC request (already read whole).
async fn serve_grpc(
    shared: Arc<Shared>,
    parts: http::request::Parts,
    body: Vec<u8>,
    mut responder: crate::grpc::Responder,
    peer: SocketAddr,
) {
    let headers: Vec<(String, String)> =
        parts.headers.iter().map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect();
    let target = parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/").to_owned();
    let req = OwnedRequest { method: parts.method.as_str().to_owned(), target, headers, body, peer: Some(peer) };
    let Some(handle) = shared.host.call(req).await else { return };
    loop {
        use smol::future::FutureExt;
        // A stream the client resets while it waits is reported at once.
        let next = async { Some(handle.events.recv().await) }
            .or(async {
                responder.reset().await;
                None
            })
            .await;
        let Some(Ok(ev)) = next else {
            if let Some(call) = handle.id().filter(|_| next.is_none()) {
                shared.host.gone(call);
            }
            return;
        };
        let sent = match ev {
            CallEvent::Answer(resp) => {
                let _ = responder.answer(&resp);
                return;
            }
            CallEvent::Head(head) => responder.head(&head, false),
            CallEvent::Frame(bytes) => responder.data(&bytes),
            CallEvent::End(bytes, trailers) => {
                let _ = responder.data(&bytes).and_then(|()| responder.trailers(&trailers));
                return;
            }
        };
        if sent.is_err() {
            // The client went away (RST_STREAM): the task goes on.
            if let Some(call) = handle.id() {
                shared.host.gone(call);
            }
            return;
        }
    }
}

/// The sans-IO service `config` describes over `store` (and the store's thread side).
pub(crate) fn service_for(config: &ServerConfig, store: Store) -> std::io::Result<(Service, Option<Box<dyn crate::store::ExternalStore>>)> {
    let mut service_config = ServiceConfig::new(config.card.clone());
    service_config.extended_card = config.extended_card.clone();
    service_config.extended_cards = config.extended_cards.clone();
    service_config.card_max_age = config.card_max_age;
    service_config.authenticate = config.authenticate.is_some();
    service_config.engine.dedup_message_ids = config.dedup_message_ids;
    service_config.webhooks = config.webhooks.schedule();
    service_config.log = config.log.clone();
    service_config.limits.max_body = config.limits.max_body;
    service_config.v03_file_bytes = config.v03_file_bytes;
    service_config.engine.cache_bytes = config.cache_bytes;
    service_config.engine.retention = config.retention;
    service_config.engine.resume_lost_runs = config.resume_lost_runs;
    let (storage, external) = store.split();
    service_config.engine.event_epoch = external.as_ref().and_then(|e| e.event_epoch());
    // Leases only over a store that several servers share (one that keeps events).
    service_config.engine.lease = config.lease.filter(|_| service_config.engine.event_epoch.is_some());
    let service = Service::new(service_config, storage, os_random_key()?, now()).map_err(invalid)?;
    Ok((service, external))
}

/// Starts the host of `service` with `config`'s agent settings on smol's executor.
pub(crate) fn spawn_host(
    config: &ServerConfig,
    agent: AgentKind,
    (service, external): (Service, Option<Box<dyn crate::store::ExternalStore>>),
    tasks: TaskCount,
) -> std::io::Result<(HostHandle, smol::Task<()>)> {
    let host_config = HostConfig {
        agent,
        authenticate: config.authenticate.clone(),
        cancel_grace: config.cancel_grace,
        webhooks: config.webhooks.clone(),
        stream_queue: config.stream_queue,
        log: config.log.clone(),
    };
    crate::host::spawn(service, host_config, tasks, external)
}

/// A server on a thread of its own, for hosts that are not async Rust (the C, Python and
/// Node bindings): [`RunningServer::start`] returns once the server listens; the agent is
/// usually an [`AgentKind::Callback`]. Dropping it stops the server and waits for it.
pub struct RunningServer {
    addr: SocketAddr,
    handle: ShutdownHandle,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for RunningServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningServer").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl RunningServer {
    /// Binds `addr` and serves on a new thread with `agent` and `store`.
    pub fn start(
        addr: SocketAddr,
        config: ServerConfig,
        agent: AgentKind,
        store: impl Into<Store> + Send + 'static,
    ) -> std::io::Result<Self> {
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new().name(String::from("a2a-wire-server")).spawn(move || {
            smol::block_on(async move {
                match Server::bind_agent(addr, config, agent, store).await {
                    Ok(server) => {
                        let bound = server.local_addr().map(|a| (a, server.shutdown_handle()));
                        let _ = tx.send(bound);
                        // The server runs as a task on smol's executor, this thread waits (see
                        // the crate docs for why).
                        smol::spawn(server.run()).await;
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            })
        })?;
        match rx.recv() {
            Ok(Ok((addr, handle))) => Ok(RunningServer { addr, handle, thread: Some(thread) }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err(std::io::Error::other("the server thread ended before it listened"))
            }
        }
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// A handle that stops the server.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.handle.clone()
    }

    /// Shuts the server down and waits until it has stopped.
    pub fn stop(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        self.handle.shutdown();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.stop_now();
    }
}

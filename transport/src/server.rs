//! The A2A server on smol: HTTP/1.1 connections (JSON-RPC, HTTP+JSON, SSE), the Agent Card,
//! and one task that owns the sans-IO engine. Every protocol decision is the core's: this
//! module moves bytes, keeps time, spawns agent runs and enforces connection limits.

use crate::agent::{AgentExecutor, CancelToken, EventSink, RequestContext};
use crate::http1::{self, Buffer, Limits, ReadError};
use a2a_wire::binding::Operation;
use a2a_wire::engine::{
    AgentEvent, CallContext, CallId, Engine, EngineConfig, MemoryStore, Output, Request, Response, RunEnd, RunId, TaskStore,
};
use a2a_wire::error::{A2aError, ErrorKind};
use a2a_wire::http::{HttpRequest, HttpResponse};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::server::{Call, Endpoint};
use a2a_wire::v1;
use smol::net::{TcpListener, TcpStream};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// The current time as a protobuf timestamp, to the millisecond (the transport keeps the
/// clock; the core never reads one). Milliseconds are what every A2A SDK's date type keeps.
pub fn now() -> Timestamp {
    let d = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    Timestamp { seconds: i64::try_from(d.as_secs()).unwrap_or(i64::MAX), nanos: i32::try_from(d.subsec_millis() * 1_000_000).unwrap_or(0) }
}

/// Server settings.
#[derive(Clone)]
pub struct ServerConfig {
    /// The public Agent Card; its interfaces are what is served.
    pub card: v1::AgentCard,
    /// The extended card, if any.
    pub extended_card: Option<v1::AgentCard>,
    /// HTTP limits.
    pub limits: Limits,
    /// `Cache-Control: max-age` of the card (seconds).
    pub card_max_age: u32,
    /// How push notifications are delivered.
    pub webhooks: crate::webhook::WebhookPolicy,
}

impl ServerConfig {
    /// Settings for `card` with default limits.
    pub fn new(card: v1::AgentCard) -> Self {
        ServerConfig { card, extended_card: None, limits: Limits::default(), card_max_age: 300, webhooks: Default::default() }
    }
}

/// Messages to the engine task.
#[derive(Debug)]
pub(crate) enum Command {
    Call { call: CallId, ctx: CallContext, request: Request, reply: Reply },
    Agent { run: RunId, event: AgentEvent },
    RunEnd { run: RunId, end: RunEnd },
    Closed { call: CallId },
}

#[derive(Debug)]
pub(crate) enum Reply {
    Unary(async_channel::Sender<Result<Response, A2aError>>),
    Stream(async_channel::Sender<StreamItem>),
}

#[derive(Debug)]
pub(crate) enum StreamItem {
    Event(v1::StreamResponse),
    End(Option<A2aError>),
    Refused(A2aError),
}

struct Shared {
    endpoint: Endpoint,
    card_body: Vec<u8>,
    card_etag: String,
    card_max_age: u32,
    limits: Limits,
    commands: async_channel::Sender<Command>,
    next_call: AtomicU64,
    connections: AtomicUsize,
    shutting_down: AtomicBool,
}

/// A running server. Dropping it does not stop it; call [`Server::shutdown`].
pub struct Server {
    listener: TcpListener,
    shared: Arc<Shared>,
    stop: async_channel::Receiver<()>,
    stop_tx: async_channel::Sender<()>,
}

/// Stops a server: no new connections, idle ones closed, open streams ended.
#[derive(Clone)]
pub struct ShutdownHandle {
    shared: Arc<Shared>,
    stop_tx: async_channel::Sender<()>,
}

impl ShutdownHandle {
    /// Begins the shutdown.
    pub fn shutdown(&self) {
        self.shared.shutting_down.store(true, Ordering::Release);
        self.stop_tx.close();
    }
}

/// 128 bits from the OS's random source, to key the task id generator.
pub(crate) fn os_random_key() -> std::io::Result<u128> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| std::io::Error::other(format!("no OS randomness: {e}")))?;
    Ok(u128::from_le_bytes(b))
}

/// An FNV-1a hash, for the card's ETag.
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3))
}

impl Server {
    /// Binds `addr` and starts the engine task with an in-memory store.
    pub async fn bind(addr: SocketAddr, config: ServerConfig, executor: Arc<dyn AgentExecutor>) -> std::io::Result<Server> {
        Self::bind_with_store(addr, config, executor, MemoryStore::new()).await
    }

    /// Binds `addr` and starts the engine task with `store`.
    pub async fn bind_with_store<S: TaskStore + Send + 'static>(
        addr: SocketAddr,
        config: ServerConfig,
        executor: Arc<dyn AgentExecutor>,
        store: S,
    ) -> std::io::Result<Server> {
        let mut endpoint =
            Endpoint::new(config.card.clone()).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
        if let Some(x) = config.extended_card.clone() {
            endpoint = endpoint.with_extended_card(x);
        }
        let caps = config.card.capabilities.clone().unwrap_or_default();
        let engine_config = EngineConfig {
            streaming: caps.streaming.unwrap_or(false),
            push_notifications: caps.push_notifications.unwrap_or(false),
            ..EngineConfig::default()
        };
        let seed = os_random_key()?;
        let engine = Engine::new(engine_config, store, seed);
        let card_body =
            a2a_wire::card::publish(&config.card).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
        let card_etag = format!("\"{:016x}\"", fnv1a(&card_body));
        let (tx, rx) = async_channel::unbounded();
        smol::spawn(engine_task(engine, rx, tx.clone(), executor, config.webhooks.clone())).detach();
        let listener = TcpListener::bind(addr).await?;
        let (stop_tx, stop) = async_channel::bounded(1);
        let shared = Arc::new(Shared {
            endpoint,
            card_body,
            card_etag,
            card_max_age: config.card_max_age,
            limits: config.limits,
            commands: tx,
            next_call: AtomicU64::new(1),
            connections: AtomicUsize::new(0),
            shutting_down: AtomicBool::new(false),
        });
        Ok(Server { listener, shared, stop, stop_tx })
    }

    /// The bound address.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// A handle that stops the server.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle { shared: self.shared.clone(), stop_tx: self.stop_tx.clone() }
    }

    /// Accepts connections until shut down.
    pub async fn run(self) {
        use smol::future::FutureExt;
        loop {
            let accepted = async { Some(self.listener.accept().await) }.or(async {
                let _ = self.stop.recv().await;
                None
            });
            let Some(res) = accepted.await else { break };
            let Ok((stream, _peer)) = res else { continue };
            let shared = self.shared.clone();
            let count = shared.connections.fetch_add(1, Ordering::AcqRel) + 1;
            smol::spawn(async move {
                let mut stream = stream;
                if count > shared.limits.max_connections {
                    let _ = http1::write_response(&mut stream, 503, &[], b"too many connections", true).await;
                } else {
                    serve_connection(&shared, stream).await;
                }
                shared.connections.fetch_sub(1, Ordering::AcqRel);
            })
            .detach();
        }
    }
}

/// A connection whose first bytes were already read (to tell HTTP/2 from HTTP/1.1): they
/// are read again first.
pub(crate) struct Rewind {
    prefix: Vec<u8>,
    at: usize,
    stream: TcpStream,
}

impl smol::io::AsyncRead for Rewind {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut [u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        if self.at < self.prefix.len() {
            let n = buf.len().min(self.prefix.len() - self.at);
            buf[..n].copy_from_slice(&self.prefix[self.at..self.at + n]);
            self.at += n;
            return std::task::Poll::Ready(Ok(n));
        }
        std::pin::Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl smol::io::AsyncWrite for Rewind {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write(cx, buf)
    }
    fn poll_flush(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(cx)
    }
    fn poll_close(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_close(cx)
    }
}

async fn serve_connection(shared: &Arc<Shared>, mut stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let mut buf = Buffer::new();
    match buf.starts_with(&mut stream, crate::grpc::PREFACE, &shared.limits).await {
        Ok(true) => {
            let io = Rewind { prefix: buf.take(), at: 0, stream };
            let s = shared.clone();
            // Boxed: an HTTP/2 connection's state is large, and inline it would size every
            // HTTP/1.1 connection's task too.
            Box::pin(crate::grpc::serve(io, shared.limits, move |parts, body, responder| serve_grpc(s.clone(), parts, body, responder)))
                .await;
            return;
        }
        Ok(false) => {}
        Err(ReadError::Timeout) => {
            let _ = http1::write_response(&mut stream, 408, &[], b"request timeout", true).await;
            return;
        }
        Err(_) => return,
    }
    loop {
        if shared.shutting_down.load(Ordering::Acquire) {
            return;
        }
        let head = match buf.read_request_head(&mut stream, &shared.limits).await {
            Ok(h) => h,
            Err(ReadError::HeadTooLarge) => {
                let _ = http1::write_response(&mut stream, 431, &[], b"request head too large", true).await;
                return;
            }
            Err(ReadError::Timeout) => {
                let _ = http1::write_response(&mut stream, 408, &[], b"request timeout", true).await;
                return;
            }
            Err(ReadError::Malformed(m)) => {
                let _ = http1::write_response(&mut stream, 400, &[], m.as_bytes(), true).await;
                return;
            }
            Err(_) => return,
        };
        let body = match buf.read_body(&mut stream, &head.headers, &shared.limits, false).await {
            Ok(b) => b,
            Err(ReadError::BodyTooLarge) => {
                let _ = http1::write_response(&mut stream, 413, &[], b"request body too large", true).await;
                return;
            }
            Err(_) => {
                let _ = http1::write_response(&mut stream, 400, &[], b"bad request body", true).await;
                return;
            }
        };
        let close =
            head.headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("connection") && v.eq_ignore_ascii_case("close")) || !head.http11;
        let ok = handle_request(shared, &mut stream, &head, &body, close).await;
        if !ok || close {
            return;
        }
    }
}

/// What a decoded request turned into.
enum Dispatch {
    /// A whole answer.
    Answer(HttpResponse),
    /// A stream: its items arrive on the receiver.
    Stream(Call, CallId, async_channel::Receiver<StreamItem>),
}

/// Decodes a request (the core decides everything) and runs it.
async fn dispatch(shared: &Shared, req: &HttpRequest<'_>) -> Dispatch {
    let call = match shared.endpoint.decode(req) {
        Ok(c) => c,
        Err(resp) => return Dispatch::Answer(resp),
    };
    let id = CallId(shared.next_call.fetch_add(1, Ordering::Relaxed));
    let request = match &call.operation {
        Operation::Task(r) => r.clone(),
        _ => {
            let result = shared
                .endpoint
                .extended_card()
                .cloned()
                .map(Response::AgentCard)
                .ok_or_else(|| A2aError::new(ErrorKind::ExtendedAgentCardNotConfigured));
            return Dispatch::Answer(shared.endpoint.respond(&call, result));
        }
    };
    let ctx = call.engine_context(None);
    if call.is_streaming() {
        let (tx, rx) = async_channel::unbounded();
        if shared.commands.send(Command::Call { call: id, ctx, request, reply: Reply::Stream(tx) }).await.is_err() {
            return Dispatch::Answer(shared.endpoint.respond(&call, Err(A2aError::new(ErrorKind::Unavailable))));
        }
        Dispatch::Stream(call, id, rx)
    } else {
        let (tx, rx) = async_channel::bounded(1);
        let result = if shared.commands.send(Command::Call { call: id, ctx, request, reply: Reply::Unary(tx) }).await.is_err() {
            Err(A2aError::new(ErrorKind::Unavailable))
        } else {
            rx.recv().await.unwrap_or_else(|_| Err(A2aError::new(ErrorKind::Unavailable)))
        };
        Dispatch::Answer(shared.endpoint.respond(&call, result))
    }
}

/// Serves one request; false when the connection must close.
async fn handle_request(shared: &Arc<Shared>, stream: &mut TcpStream, head: &http1::RequestHead, body: &[u8], close: bool) -> bool {
    let path = head.target.split('?').next().unwrap_or("/");
    if path == "/.well-known/agent-card.json" && head.method.eq_ignore_ascii_case("GET") {
        let headers = vec![
            (String::from("content-type"), String::from("application/json")),
            (String::from("etag"), shared.card_etag.clone()),
            (String::from("cache-control"), format!("public, max-age={}", shared.card_max_age)),
        ];
        let not_modified = head
            .headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("if-none-match") && v.split(',').any(|t| t.trim() == shared.card_etag || t.trim() == "*"));
        let r = if not_modified {
            http1::write_response(stream, 304, &headers, b"", close).await
        } else {
            http1::write_response(stream, 200, &headers, &shared.card_body, close).await
        };
        return r.is_ok();
    }
    let headers: Vec<(&str, &str)> = head.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let req = HttpRequest { method: &head.method, target: &head.target, headers: &headers, body };
    match dispatch(shared, &req).await {
        Dispatch::Answer(resp) => http1::write_response(stream, resp.status, &resp.headers, &resp.body, close).await.is_ok(),
        Dispatch::Stream(call, id, rx) => serve_stream(shared, stream, call, id, rx).await,
    }
}

async fn serve_stream(
    shared: &Arc<Shared>,
    stream: &mut TcpStream,
    call: Call,
    id: CallId,
    rx: async_channel::Receiver<StreamItem>,
) -> bool {
    use smol::io::AsyncWriteExt;
    let mut started = false;
    let mut out = Vec::new();
    loop {
        let first = rx.recv().await.unwrap_or(StreamItem::End(Some(A2aError::new(ErrorKind::Unavailable))));
        if let StreamItem::Refused(e) = first {
            let resp = shared.endpoint.respond(&call, Err(e));
            return http1::write_response(stream, resp.status, &resp.headers, &resp.body, false).await.is_ok();
        }
        if !started {
            let head = shared.endpoint.stream_start(&call);
            if http1::write_stream_head(stream, head.status, &head.headers).await.is_err() {
                let _ = shared.commands.send(Command::Closed { call: id }).await;
                return false;
            }
            started = true;
        }
        // Every event is written as soon as it is there; events that are already queued
        // (a fast agent, a slow reader) share one write instead of one system call each.
        out.clear();
        let mut item = Some(first);
        let mut ended = false;
        let mut batched = 0;
        while let Some(it) = item.take() {
            match it {
                StreamItem::Event(ev) => {
                    let mut bytes = Vec::new();
                    shared.endpoint.stream_event(&call, &ev, &mut bytes);
                    http1::frame_chunk(&mut out, &bytes);
                }
                StreamItem::End(error) => {
                    let end = shared.endpoint.stream_end(&call, error.as_ref());
                    http1::frame_chunk(&mut out, &end.body);
                    out.extend_from_slice(http1::LAST_CHUNK);
                    ended = true;
                    break;
                }
                // Refused only comes first, before any event.
                StreamItem::Refused(_) => {}
            }
            batched += 1;
            if batched < STREAM_BATCH {
                item = rx.try_recv().ok();
            }
        }
        let written = stream.write_all(&out).await.is_ok() && stream.flush().await.is_ok();
        if !written {
            // The client went away: the task goes on.
            if !ended {
                let _ = shared.commands.send(Command::Closed { call: id }).await;
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
async fn serve_grpc(shared: Arc<Shared>, parts: http::request::Parts, body: Vec<u8>, mut responder: crate::grpc::Responder) {
    let owned: Vec<(String, String)> =
        parts.headers.iter().map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect();
    let headers: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let target = parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let req = HttpRequest { method: parts.method.as_str(), target, headers: &headers, body: &body };
    match dispatch(&shared, &req).await {
        Dispatch::Answer(resp) => {
            let _ = responder.answer(&resp);
        }
        Dispatch::Stream(call, id, rx) => {
            let mut started = false;
            loop {
                let item = rx.recv().await.unwrap_or(StreamItem::End(Some(A2aError::new(ErrorKind::Unavailable))));
                match item {
                    StreamItem::Refused(e) => {
                        let _ = responder.answer(&shared.endpoint.respond(&call, Err(e)));
                        return;
                    }
                    StreamItem::Event(ev) => {
                        if !started {
                            started = true;
                            if responder.head(&shared.endpoint.stream_start(&call), false).is_err() {
                                let _ = shared.commands.send(Command::Closed { call: id }).await;
                                return;
                            }
                        }
                        let mut bytes = Vec::new();
                        shared.endpoint.stream_event(&call, &ev, &mut bytes);
                        if responder.data(&bytes).is_err() {
                            // The client went away (RST_STREAM): the task goes on.
                            let _ = shared.commands.send(Command::Closed { call: id }).await;
                            return;
                        }
                    }
                    StreamItem::End(error) => {
                        if !started && responder.head(&shared.endpoint.stream_start(&call), false).is_err() {
                            return;
                        }
                        let end = shared.endpoint.stream_end(&call, error.as_ref());
                        let _ = responder.data(&end.body).and_then(|()| responder.trailers(&end.trailers));
                        return;
                    }
                }
            }
        }
    }
}

/// The task that owns the engine: commands in, outputs routed to calls and agent runs.
async fn engine_task<S: TaskStore + Send + 'static>(
    mut engine: Engine<S>,
    rx: async_channel::Receiver<Command>,
    tx: async_channel::Sender<Command>,
    executor: Arc<dyn AgentExecutor>,
    webhooks: crate::webhook::WebhookPolicy,
) {
    let mut state =
        Driver { replies: HashMap::new(), cancels: HashMap::new(), hooks: crate::webhook::Queues::default(), tx, executor, webhooks };
    // Runs lost with a previous process (persistent stores) start again.
    engine.resume_lost_runs();
    let _ = engine.flush_store();
    state.drain(&mut engine);
    while let Ok(cmd) = rx.recv().await {
        state.handle(&mut engine, cmd);
        // Whatever else is already queued joins this turn (bounded, so outputs keep flowing
        // under any load): one store flush then covers all of it, and it happens before any
        // of its outputs is delivered.
        for _ in 1..ENGINE_BATCH {
            match rx.try_recv() {
                Ok(cmd) => state.handle(&mut engine, cmd),
                Err(_) => break,
            }
        }
        if let Err(e) = engine.flush_store() {
            eprintln!("a2a-wire: {e}");
        }
        state.drain(&mut engine);
    }
}

/// Largest number of commands the engine task handles between two store flushes.
const ENGINE_BATCH: usize = 256;

/// Carries out the engine's outputs.
struct Driver {
    replies: HashMap<CallId, Reply>,
    /// The cancel token of each running agent run, by task (removed when the run ends).
    cancels: HashMap<RunId, CancelToken>,
    hooks: crate::webhook::Queues,
    tx: async_channel::Sender<Command>,
    executor: Arc<dyn AgentExecutor>,
    webhooks: crate::webhook::WebhookPolicy,
}

impl Driver {
    fn handle<S: TaskStore>(&mut self, engine: &mut Engine<S>, cmd: Command) {
        match cmd {
            Command::Call { call, ctx, request, reply } => {
                self.replies.insert(call, reply);
                engine.handle_call(call, ctx, request, now());
            }
            Command::Agent { run, event } => {
                // A refused event is the agent's bug; the engine kept the task intact.
                let _ = engine.handle_agent(run, event, now());
            }
            Command::RunEnd { run, end } => {
                // The run is over: its cancel token goes.
                self.cancels.remove(&run);
                engine.handle_run_end(run, end, now());
            }
            Command::Closed { call } => {
                engine.handle_call_closed(call);
                self.replies.remove(&call);
            }
        }
    }

    fn drain<S: TaskStore>(&mut self, engine: &mut Engine<S>) {
        while let Some(out) = engine.poll_output() {
            match out {
                Output::Respond { call, result } => match self.replies.remove(&call) {
                    Some(Reply::Unary(r)) => {
                        let _ = r.try_send(result);
                    }
                    Some(Reply::Stream(s)) => {
                        let item = match result {
                            Err(e) => StreamItem::Refused(e),
                            Ok(_) => StreamItem::End(None),
                        };
                        let _ = s.try_send(item);
                    }
                    None => {}
                },
                Output::Stream { call, event } => {
                    if let Some(Reply::Stream(s)) = self.replies.get(&call) {
                        let _ = s.try_send(StreamItem::Event(event));
                    }
                }
                Output::StreamEnd { call, error } => {
                    if let Some(Reply::Stream(s)) = self.replies.remove(&call) {
                        let _ = s.try_send(StreamItem::End(error));
                    }
                }
                Output::Execute(e) => {
                    let cancel = CancelToken::default();
                    self.cancels.insert(e.id, cancel.clone());
                    let sink = EventSink { task_id: e.task_id.clone(), exec: e.id, tx: self.tx.clone() };
                    let task = engine.store().get(&e.task_id).map(|t| t.record.task.clone());
                    let ctx = RequestContext {
                        task_id: e.task_id,
                        context_id: e.context_id,
                        message: e.message,
                        follow_up: e.follow_up,
                        resumed: e.resumed,
                        task,
                        call: e.context,
                        cancel,
                    };
                    let run = self.executor.execute(ctx, sink.clone());
                    let mut run = Box::pin(async move {
                        // A panicking agent ends its run like a returning one: the engine
                        // then answers whoever waits on it.
                        use smol::future::FutureExt;
                        let end = match std::panic::AssertUnwindSafe(run).catch_unwind().await {
                            Ok(()) => RunEnd::Finished,
                            Err(_) => RunEnd::Failed(String::from("The agent failed while working on this task.")),
                        };
                        sink.done(end);
                    });
                    // The first poll runs here: an agent that answers without waiting (the
                    // common case) finishes with no task spawned and no wake-up; its events
                    // are queued for this engine task's next turns. One that waits goes on as
                    // a task of its own, polled again at once with a real waker.
                    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
                    if std::future::Future::poll(run.as_mut(), &mut cx).is_pending() {
                        smol::spawn(run).detach();
                    }
                }
                Output::CancelExecution { run, .. } => {
                    if let Some(c) = self.cancels.remove(&run) {
                        c.cancel();
                    }
                }
                Output::Webhook { config, event, version } => match a2a_wire::binding::webhook_request(&config, version, &event) {
                    Ok(req) => self.hooks.push(format!("{}\u{0}{}", config.task_id, config.id), req, &self.webhooks),
                    Err(e) => eprintln!("a2a-wire: webhook for task {} not encoded: {e}", config.task_id),
                },
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_runs_leave_no_cancel_token_behind() {
        // A token per run that outlived it grew the map forever (and its rehashes stalled
        // every client for tens of milliseconds at a few hundred thousand tasks).
        let (tx, rx) = async_channel::unbounded();
        let mut engine = Engine::new(EngineConfig::default(), MemoryStore::new(), 1);
        let mut d = Driver {
            replies: HashMap::new(),
            cancels: HashMap::new(),
            hooks: crate::webhook::Queues::default(),
            tx,
            executor: Arc::new(crate::demo::EchoAgent::default()),
            webhooks: Default::default(),
        };
        for i in 0..3 {
            let (reply, answer) = async_channel::bounded(1);
            let message = v1::Message {
                message_id: format!("m{i}"),
                role: v1::Role::User as i32,
                parts: vec![crate::agent::text_part("hello")],
                ..Default::default()
            };
            let request = Request::SendMessage(v1::SendMessageRequest { message: Some(message), ..Default::default() });
            d.handle(&mut engine, Command::Call { call: CallId(i), ctx: CallContext::default(), request, reply: Reply::Unary(reply) });
            d.drain(&mut engine);
            assert_eq!(d.cancels.len(), 1, "a running agent has its token");
            // The echo agent finished in its first poll; its events wait in the queue.
            while let Ok(cmd) = rx.try_recv() {
                d.handle(&mut engine, cmd);
                d.drain(&mut engine);
            }
            assert!(matches!(answer.try_recv(), Ok(Ok(Response::SendMessage(_)))), "call {i} answered");
            assert!(d.cancels.is_empty(), "{} cancel token(s) left after run {i}", d.cancels.len());
        }
    }
}

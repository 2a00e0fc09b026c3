//! The host of a [`Service`]: one task owns it, feeds it what the connections, the agent runs
//! and the webhook attempts report, and carries out its outputs. Nothing here decides
//! protocol; this is the drive loop of `a2a_wire::service` with smol channels and timers:
//!
//! - connections send requests ([`HostHandle::call`]) and get their call's answer, stream
//!   head, frames and end back on a bounded channel of their own;
//! - agent runs publish through their [`EventSink`] (any thread); a refused event closes the
//!   sink with the reason;
//! - runs are started on the agent — a future per run ([`AgentExecutor`], polled once in
//!   place and spawned only if it waits) or a callback that returns at once ([`Agent`]) —
//!   with every panic turned into a failed run;
//! - webhook attempts run as tasks of their own (SSRF guard and time limit in
//!   [`crate::webhook`]) and report back; the retry schedule is the service's, the timer
//!   here only sleeps until [`Service::poll_timeout`];
//! - a stream whose client reads slower than its events come is cut off once
//!   `stream_queue` frames wait (the service's documented policy for slow subscribers).

use crate::agent::{Agent, AgentExecutor, CancelToken, EventSink, RequestContext, RunMessage, RunQueue};
use crate::io::TaskCount;
use a2a_wire::engine::{CallId, RunId};
use a2a_wire::error::{A2aError, ErrorKind};
use a2a_wire::http::{HttpRequest, HttpResponse};
use a2a_wire::log::{Level, SharedLog};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::service::{AuthRequest, HeadCheck, Output, Service};
use a2a_wire::webhook::{DeliveryId, Outcome};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub use crate::io::now;

fn until(t: Timestamp) -> Duration {
    let n = now();
    let ms = (t.seconds - n.seconds).saturating_mul(1000) + i64::from(t.nanos - n.nanos) / 1_000_000;
    Duration::from_millis(u64::try_from(ms.max(0)).unwrap_or(0))
}

/// What the authentication hook judges: the call as the core read it (operation, binding,
/// version, tenant, credentials) and the whole HTTP request it came in.
#[derive(Clone, Debug)]
pub struct AuthCall {
    /// The call: its operation, binding, version, tenant, and the credential headers the
    /// core picked out (`Authorization`, `Cookie`, the card's API-key headers).
    pub call: AuthRequest,
    /// The HTTP method (gRPC: `POST`).
    pub http_method: String,
    /// The request target, path and query (gRPC: the `:path`).
    pub target: String,
    /// Every header of the request (gRPC: every metadata entry), in the order received.
    pub headers: Vec<(String, String)>,
    /// The peer's address, when the host knows it.
    pub peer: Option<std::net::SocketAddr>,
}

impl AuthCall {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The target's path, without the query.
    pub fn path(&self) -> &str {
        self.target.split_once('?').map_or(self.target.as_str(), |(p, _)| p)
    }
}

/// The hook's verdict: the principal (`None`: anonymous), or the A2A error to answer with
/// (`Unauthenticated` gives HTTP 401 / gRPC `UNAUTHENTICATED`, `PermissionDenied` 403 /
/// `PERMISSION_DENIED`).
pub type AuthVerdict = Result<Option<String>, A2aError>;

/// The future an asynchronous hook returns.
pub type AuthFuture = std::pin::Pin<Box<dyn std::future::Future<Output = AuthVerdict> + Send + 'static>>;

/// The application's judgement of each call (see [`AuthCall`], [`AuthVerdict`]). A panic in
/// the hook refuses the call with an internal error; the server goes on.
#[derive(Clone)]
pub enum AuthHook {
    /// Judged at once on the host's task: for a table lookup (the bearer tokens).
    Sync(Arc<dyn Fn(&AuthCall) -> AuthVerdict + Send + Sync>),
    /// A future per call, run as a task of its own (it may ask a database or a token
    /// service); the call waits for it, the server does not.
    Async(Arc<dyn Fn(AuthCall) -> AuthFuture + Send + Sync>),
}

impl AuthHook {
    /// A hook that answers at once.
    pub fn new(f: impl Fn(&AuthCall) -> AuthVerdict + Send + Sync + 'static) -> Self {
        AuthHook::Sync(Arc::new(f))
    }

    /// A hook that returns a future (an `async` block or function).
    pub fn new_async<F, Fut>(f: F) -> Self
    where
        F: Fn(AuthCall) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = AuthVerdict> + Send + 'static,
    {
        AuthHook::Async(Arc::new(move |call| Box::pin(f(call))))
    }
}

impl std::fmt::Debug for AuthHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AuthHook::Sync(_) => "AuthHook::Sync",
            AuthHook::Async(_) => "AuthHook::Async",
        })
    }
}

fn hook_panicked(log: &SharedLog) -> AuthVerdict {
    log.log(Level::Error, "the authentication hook panicked");
    Err(A2aError::with_message(ErrorKind::Internal, "authentication failed"))
}

/// The HTTP side of a call, kept for the hook.
#[derive(Default)]
struct HttpSide {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    peer: Option<std::net::SocketAddr>,
}

impl From<OwnedRequest> for HttpSide {
    fn from(r: OwnedRequest) -> Self {
        HttpSide { method: r.method, target: r.target, headers: r.headers, peer: r.peer }
    }
}

impl HttpSide {
    fn into_call(self, call: AuthRequest) -> AuthCall {
        AuthCall { call, http_method: self.method, target: self.target, headers: self.headers, peer: self.peer }
    }
}

/// The agent a host runs.
#[derive(Clone)]
pub enum AgentKind {
    /// A future per run.
    Future(Arc<dyn AgentExecutor>),
    /// A callback that returns at once.
    Callback(Arc<dyn Agent>),
}

/// A request as a connection read it.
#[derive(Clone, Debug, Default)]
pub struct OwnedRequest {
    /// Method.
    pub method: String,
    /// Target (path and query; gRPC `:path`).
    pub target: String,
    /// Header fields (gRPC metadata).
    pub headers: Vec<(String, String)>,
    /// Body (gRPC: the framed messages).
    pub body: Vec<u8>,
    /// The peer's address, when known (the authentication hook sees it).
    pub peer: Option<std::net::SocketAddr>,
}

/// What a connection receives for its call, in order: one `Answer`, or a `Head`, `Frame`s
/// and an `End`.
#[derive(Debug)]
pub enum CallEvent {
    /// A whole answer; the call is over.
    Answer(HttpResponse),
    /// A stream's head.
    Head(HttpResponse),
    /// A stream frame.
    Frame(Vec<u8>),
    /// The stream's last bytes and trailers; the call is over.
    End(Vec<u8>, Vec<(String, String)>),
}

/// The service's word on a request head whose client waits for `100 Continue`
/// ([`HostHandle::check_head`]).
#[derive(Debug)]
pub enum HeadVerdict {
    /// Read the body (send `100 Continue` first); the credentials' verdict, when the head
    /// was judged, goes with the request ([`HostHandle::call_prejudged`]).
    Continue(Option<Prejudged>),
    /// Send this answer without reading the body, then close.
    Answer(HttpResponse),
}

/// The verdict of the authentication hook on a request's head, kept for the call its body
/// completes, so that the hook judges one request once.
#[derive(Clone, Debug)]
pub struct Prejudged {
    head: a2a_wire::service::HeadAuth,
    principal: Option<String>,
}

pub(crate) enum Command {
    Request(OwnedRequest, async_channel::Sender<CallEvent>, Arc<AtomicU64>, Option<Prejudged>),
    CheckHead(OwnedRequest, Option<usize>, async_channel::Sender<HeadVerdict>),
    Gone(CallId),
    Webhook(DeliveryId, Outcome),
    /// An asynchronous hook's verdict on a call.
    Judged(CallId, AuthVerdict),
    /// An asynchronous hook's verdict on a head waiting for `100 Continue`.
    HeadJudged(Box<a2a_wire::service::HeadAuth>, AuthVerdict, async_channel::Sender<HeadVerdict>),
    Store(a2a_wire::engine::StoreReply),
    Notice(crate::store::Notice),
    Shutdown,
}

/// A call handed to the host: its answer's events, and its id once the service gave it one.
#[derive(Debug)]
pub struct CallHandle {
    /// The answer: one `Answer`, or a `Head`, `Frame`s and an `End`.
    pub events: async_channel::Receiver<CallEvent>,
    id: Arc<AtomicU64>,
}

impl CallHandle {
    /// The call's id, once the host has handed the request to the service.
    pub fn id(&self) -> Option<CallId> {
        Some(self.id.load(Ordering::Acquire)).filter(|n| *n != 0).map(CallId)
    }
}

/// A cloneable handle that connections use to reach the host.
#[derive(Clone, Debug)]
pub struct HostHandle {
    cmds: async_channel::Sender<Command>,
    stream_queue: usize,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Request(r, ..) => write!(f, "Request({} {})", r.method, r.target),
            Command::CheckHead(r, ..) => write!(f, "CheckHead({} {})", r.method, r.target),
            Command::Gone(c) => write!(f, "Gone({c:?})"),
            Command::Webhook(d, o) => write!(f, "Webhook({d:?}, {o:?})"),
            Command::Judged(c, v) => write!(f, "Judged({c:?}, {v:?})"),
            Command::HeadJudged(_, v, _) => write!(f, "HeadJudged({v:?})"),
            Command::Store(r) => write!(f, "Store({:?})", r.id()),
            Command::Notice(n) => write!(f, "Notice({n:?})"),
            Command::Shutdown => f.write_str("Shutdown"),
        }
    }
}

impl HostHandle {
    /// Hands a request to the service; its answer arrives on the returned handle's channel.
    /// `None` when the host has stopped.
    pub async fn call(&self, req: OwnedRequest) -> Option<CallHandle> {
        self.call_prejudged(req, None).await
    }

    /// [`HostHandle::call`] for a request whose head the hook already judged
    /// ([`HeadVerdict::Continue`]): the verdict stands for the call where the core says it
    /// answers the same question ([`a2a_wire::service::HeadAuth::answers`]).
    pub async fn call_prejudged(&self, req: OwnedRequest, prejudged: Option<Prejudged>) -> Option<CallHandle> {
        // The host bounds what waits on this channel itself (it cuts a stream off at
        // `stream_queue` frames), so that the end always fits; an unbounded channel allocates
        // as it fills, where a bounded one would allocate all its slots for every call.
        let (tx, rx) = async_channel::unbounded();
        let id = Arc::new(AtomicU64::new(0));
        self.cmds.send(Command::Request(req, tx, id.clone(), prejudged)).await.ok()?;
        Some(CallHandle { events: rx, id })
    }

    /// Asks the service about a request head before its body is read
    /// ([`a2a_wire::service::Service::check_head`]; `req` has no body, `body_len` is the
    /// declared length, `None` when chunked), the authentication hook judging the
    /// credentials where the head names the operation. `None` when the host has stopped.
    pub async fn check_head(&self, req: OwnedRequest, body_len: Option<usize>) -> Option<HeadVerdict> {
        let (tx, rx) = async_channel::bounded(1);
        self.cmds.send(Command::CheckHead(req, body_len, tx)).await.ok()?;
        rx.recv().await.ok()
    }

    /// The caller of `call` went away.
    pub fn gone(&self, call: CallId) {
        let _ = self.cmds.try_send(Command::Gone(call));
    }

    /// Begins the shutdown (see [`Service::shutdown`]).
    pub fn shutdown(&self) {
        let _ = self.cmds.try_send(Command::Shutdown);
    }

    pub(crate) fn webhook_done(&self, id: DeliveryId, outcome: Outcome) {
        let _ = self.cmds.try_send(Command::Webhook(id, outcome));
    }
}

/// Settings of a host.
#[derive(Clone)]
pub struct HostConfig {
    /// The agent.
    pub agent: AgentKind,
    /// The authentication hook (the service asks only when there is one).
    pub authenticate: Option<AuthHook>,
    /// How long a canceled agent future may go on before it is dropped.
    pub cancel_grace: Duration,
    /// How webhook attempts are made.
    pub webhooks: crate::webhook::WebhookPolicy,
    /// Frames a stream may have waiting for its client before it is cut off.
    pub stream_queue: usize,
    /// Where log lines go.
    pub log: SharedLog,
}

/// Largest number of inputs the host feeds the service between two drains (and store
/// flushes): whatever is queued joins one turn, bounded so outputs keep flowing.
const BATCH: usize = 256;

struct Host {
    service: Service,
    /// The external store's thread (none for memory).
    store: Option<crate::store::StoreThread>,
    config: HostConfig,
    handle: HostHandle,
    replies: HashMap<CallId, async_channel::Sender<CallEvent>>,
    /// Verdicts of the hook on the heads of calls waiting for their [`Output::Authenticate`].
    prejudged: HashMap<CallId, Prejudged>,
    /// With a hook: the HTTP side of each call until its [`Output::Authenticate`] (or its
    /// answer, when it never gets that far).
    requests: HashMap<CallId, HttpSide>,
    cancels: HashMap<RunId, CancelToken>,
    /// Canceled runs whose futures still run, and when their grace ends.
    graces: Vec<(std::time::Instant, RunId)>,
    /// Spawned agent futures (dropped, hence stopped, at shutdown).
    run_tasks: HashMap<RunId, smol::Task<()>>,
    run_queue: RunQueue,
    tasks: TaskCount,
    webhooks_in_flight: usize,
    stopping: bool,
}

/// Starts a host for `service` on smol's executor; returns its handle and the task that
/// ends when the host stopped (after a shutdown: every call answered or ended, every
/// webhook attempt in flight reported, the store flushed).
pub(crate) fn spawn(
    service: Service,
    config: HostConfig,
    tasks: TaskCount,
    external: Option<Box<dyn crate::store::ExternalStore>>,
) -> std::io::Result<(HostHandle, smol::Task<()>)> {
    let (cmd_tx, cmds) = async_channel::unbounded();
    let (run_queue, runs) = async_channel::unbounded();
    let store = match external {
        Some(mut e) => {
            e.listen(crate::store::NoticeSender { to_host: cmd_tx.clone() })?;
            let to_host = cmd_tx.clone();
            Some(crate::store::StoreThread::start(e, move |reply| {
                let _ = to_host.try_send(Command::Store(reply));
            })?)
        }
        None => None,
    };
    let handle = HostHandle { cmds: cmd_tx, stream_queue: config.stream_queue.max(1) };
    let host = Host {
        service,
        store,
        config,
        handle: handle.clone(),
        replies: HashMap::new(),
        prejudged: HashMap::new(),
        requests: HashMap::new(),
        cancels: HashMap::new(),
        graces: Vec::new(),
        run_tasks: HashMap::new(),
        run_queue,
        tasks: tasks.clone(),
        webhooks_in_flight: 0,
        stopping: false,
    };
    let task = tasks.spawn(host.run(cmds, runs));
    Ok((handle, task))
}

enum Input {
    Cmd(Command),
    Run(RunMessage),
    Timer,
    Closed,
}

impl Host {
    async fn run(mut self, cmds: async_channel::Receiver<Command>, runs: async_channel::Receiver<RunMessage>) {
        use smol::future::FutureExt;
        self.drain();
        loop {
            let deadline = self.service.poll_timeout();
            let wake = deadline.map(|t| std::time::Instant::now() + until(t));
            let wake = match (wake, self.graces.iter().map(|(t, _)| *t).min()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let input = async { cmds.recv().await.map_or(Input::Closed, Input::Cmd) }
                .or(async { runs.recv().await.map_or(Input::Closed, Input::Run) })
                .or(async {
                    match wake {
                        Some(t) => smol::Timer::at(t).await,
                        None => smol::future::pending::<std::time::Instant>().await,
                    };
                    Input::Timer
                })
                .await;
            match input {
                Input::Cmd(c) => self.command(c),
                Input::Run(m) => self.run_message(m),
                Input::Timer => {}
                Input::Closed => break,
            }
            // Whatever else is queued joins this turn: one store flush covers it all.
            for _ in 1..BATCH {
                if let Ok(m) = runs.try_recv() {
                    self.run_message(m);
                } else if let Ok(c) = cmds.try_recv() {
                    self.command(c);
                } else {
                    break;
                }
            }
            if deadline.is_some_and(|t| until(t).is_zero()) {
                self.service.handle_timeout(now());
            }
            if !self.graces.is_empty() {
                self.abandon_overdue();
            }
            self.drain();
            if self.stopping && self.service.open_calls() == 0 && self.webhooks_in_flight == 0 && self.service.store_idle() {
                break;
            }
        }
        // Agent futures still running stop here; the service (and its store, which flushes on
        // drop) goes with the host. Webhook deliveries waiting for a retry are not waited for.
        self.run_tasks.clear();
        let dropped = self.service.pending_webhooks();
        if dropped > 0 {
            self.config.log.log(Level::Warn, &format!("{dropped} webhook delivery(ies) waiting for a retry dropped at shutdown"));
        }
        // Closed first, so that a sink flushing from another thread now fails at once
        // (Unavailable) instead of queueing a barrier nobody would answer.
        runs.close();
        while let Ok(m) = runs.try_recv() {
            if let RunMessage::Barrier { done, .. } = m {
                let _ = done.try_send(Err(crate::agent::Refused(A2aError::with_message(ErrorKind::Unavailable, "the server stopped"))));
            }
        }
    }

    fn command(&mut self, c: Command) {
        match c {
            Command::Request(req, reply, id, prejudged) => {
                let call = {
                    let headers: Vec<(&str, &str)> = req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                    let http = HttpRequest { method: &req.method, target: &req.target, headers: &headers, body: &req.body };
                    self.service.handle_request(&http, now())
                };
                id.store(call.0, Ordering::Release);
                if reply.is_closed() {
                    // The connection went away before its request was handed over.
                    self.service.handle_caller_gone(call);
                } else {
                    self.replies.insert(call, reply);
                    if let Some(p) = prejudged {
                        self.prejudged.insert(call, p);
                    }
                    if self.config.authenticate.is_some() {
                        self.requests.insert(call, HttpSide::from(req));
                    }
                }
            }
            Command::CheckHead(req, body_len, reply) => {
                let check = {
                    let headers: Vec<(&str, &str)> = req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                    let http = HttpRequest { method: &req.method, target: &req.target, headers: &headers, body: &[] };
                    self.service.check_head(&http, body_len)
                };
                let verdict = match check {
                    HeadCheck::Continue => HeadVerdict::Continue(None),
                    HeadCheck::Answer(response) => HeadVerdict::Answer(response),
                    HeadCheck::Authenticate(head) => {
                        let call = HttpSide::from(req).into_call(head.request().clone());
                        match self.config.authenticate.clone() {
                            Some(AuthHook::Async(hook)) => {
                                let cmds = self.handle.cmds.clone();
                                let head = Box::new(head);
                                self.run_async_hook(hook, call, move |v| {
                                    let _ = cmds.try_send(Command::HeadJudged(head, v, reply));
                                });
                                return;
                            }
                            hook => self.head_verdict(head, self.judge_now(hook.as_ref(), &call)),
                        }
                    }
                    // A kind of check this host does not know: read the body, as without one.
                    _ => HeadVerdict::Continue(None),
                };
                let _ = reply.try_send(verdict);
            }
            Command::Judged(call, verdict) => self.service.handle_authenticated(call, verdict, now()),
            Command::HeadJudged(head, verdict, reply) => {
                let verdict = self.head_verdict(*head, verdict);
                let _ = reply.try_send(verdict);
            }
            Command::Gone(call) => {
                self.replies.remove(&call);
                self.requests.remove(&call);
                self.service.handle_caller_gone(call);
            }
            Command::Webhook(id, outcome) => {
                self.webhooks_in_flight = self.webhooks_in_flight.saturating_sub(1);
                self.service.handle_webhook_result(id, outcome, now());
            }
            Command::Store(reply) => self.service.handle_store(reply, now()),
            Command::Notice(crate::store::Notice::Changed { task, version }) => self.service.handle_task_changed(&task, version, now()),
            Command::Notice(crate::store::Notice::Resync) => self.service.handle_store_resync(now()),
            Command::Shutdown => {
                self.stopping = true;
                self.service.shutdown();
            }
        }
    }

    fn run_message(&mut self, m: RunMessage) {
        match m {
            RunMessage::Event { run, event, sink } => {
                if let Err(e) = self.service.handle_agent_event(run, event, now()) {
                    sink.close(e);
                }
            }
            RunMessage::Barrier { sink, done } => {
                let _ = done.try_send(sink.refusal().map_or(Ok(()), |e| Err(crate::agent::Refused(e))));
            }
            RunMessage::End { run, end } => {
                self.cancels.remove(&run);
                self.run_tasks.remove(&run).map(smol::Task::detach);
                self.service.handle_run_end(run, end, now());
            }
        }
    }

    /// Carries out every output the service has.
    fn drain(&mut self) {
        while let Some(out) = self.service.poll_output() {
            match out {
                Output::Answer { call, response } => {
                    if !self.prejudged.is_empty() {
                        self.prejudged.remove(&call);
                    }
                    if !self.requests.is_empty() {
                        self.requests.remove(&call);
                    }
                    if let Some(r) = self.replies.remove(&call) {
                        let _ = r.try_send(CallEvent::Answer(response));
                    }
                }
                Output::StreamHead { call, head } => self.to_stream(call, CallEvent::Head(head)),
                Output::StreamFrame { call, bytes } => {
                    let behind = self.replies.get(&call).is_some_and(|r| r.len() >= self.handle.stream_queue + 1);
                    if behind {
                        // The client reads slower than events come: the service ends the
                        // stream (its end follows, and there is room for it).
                        self.service.handle_slow_consumer(call);
                    } else {
                        self.to_stream(call, CallEvent::Frame(bytes));
                    }
                }
                Output::StreamEnd { call, bytes, trailers } => {
                    if let Some(r) = self.replies.remove(&call) {
                        let _ = r.try_send(CallEvent::End(bytes, trailers));
                    }
                }
                Output::Authenticate(req) => {
                    let side = self.requests.remove(&req.call);
                    match self.prejudged.remove(&req.call) {
                        Some(p) if p.head.answers(&req) => self.service.handle_authenticated(req.call, Ok(p.principal), now()),
                        _ => self.authenticate(req, side.unwrap_or_default()),
                    }
                }
                Output::StartRun(start) => self.start_run(start),
                Output::CancelRun { run, .. } => {
                    if let Some(c) = self.cancels.remove(&run) {
                        c.cancel();
                    }
                    let told = match &self.config.agent {
                        AgentKind::Callback(agent) => {
                            let agent = agent.clone();
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| agent.cancel(run)))
                        }
                        AgentKind::Future(exec) => {
                            let exec = exec.clone();
                            if self.run_tasks.contains_key(&run) {
                                // Dropped once its grace is over, if it has not returned by then.
                                self.graces.push((std::time::Instant::now() + self.config.cancel_grace, run));
                            }
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exec.cancel(run)))
                        }
                    };
                    if told.is_err() {
                        self.config.log.log(Level::Error, "the agent's cancel callback panicked");
                    }
                }
                Output::Store(req) => {
                    let id = req.id();
                    if !self.store.as_ref().is_some_and(|s| s.send(req)) {
                        let error = a2a_wire::engine::StoreError(String::from("the store's thread is gone"));
                        self.service.handle_store(a2a_wire::engine::StoreReply::Failed { id, error }, now());
                    }
                }
                Output::SendWebhook(attempt) => {
                    self.webhooks_in_flight += 1;
                    let policy = self.config.webhooks.clone();
                    let handle = self.handle.clone();
                    self.tasks
                        .spawn(async move {
                            let outcome = crate::webhook::deliver_once(&attempt.request, &policy).await;
                            handle.webhook_done(attempt.id, outcome);
                        })
                        .detach();
                }
                other => self.config.log.log(Level::Error, &format!("an output this host cannot carry out: {other:?}")),
            }
        }
    }

    /// Judges a call: at once with a synchronous hook, as a task of its own with an
    /// asynchronous one (its verdict comes back as [`Command::Judged`]).
    fn authenticate(&mut self, req: AuthRequest, side: HttpSide) {
        let id = req.call;
        let call = side.into_call(req);
        match self.config.authenticate.clone() {
            Some(AuthHook::Async(hook)) => {
                let cmds = self.handle.cmds.clone();
                self.run_async_hook(hook, call, move |v| {
                    let _ = cmds.try_send(Command::Judged(id, v));
                });
            }
            hook => {
                let verdict = self.judge_now(hook.as_ref(), &call);
                self.service.handle_authenticated(id, verdict, now());
            }
        }
    }

    /// A synchronous hook's verdict (anonymous without a hook; a panic is a refusal).
    fn judge_now(&self, hook: Option<&AuthHook>, call: &AuthCall) -> AuthVerdict {
        match hook {
            Some(AuthHook::Sync(f)) => {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(call))).unwrap_or_else(|_| hook_panicked(&self.config.log))
            }
            // Asynchronous hooks are run by `run_async_hook`; never here.
            Some(AuthHook::Async(_)) => Err(A2aError::with_message(ErrorKind::Internal, "authentication failed")),
            None => Ok(None),
        }
    }

    /// Runs an asynchronous hook as a task of its own; `done` gets its verdict (a panic,
    /// while making the future or polling it, is a refusal).
    fn run_async_hook(
        &self,
        hook: Arc<dyn Fn(AuthCall) -> AuthFuture + Send + Sync>,
        call: AuthCall,
        done: impl FnOnce(AuthVerdict) + Send + 'static,
    ) {
        let log = self.config.log.clone();
        self.tasks
            .spawn(async move {
                use smol::future::FutureExt;
                let verdict = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hook(call))) {
                    Ok(fut) => std::panic::AssertUnwindSafe(fut).catch_unwind().await.unwrap_or_else(|_| hook_panicked(&log)),
                    Err(_) => hook_panicked(&log),
                };
                done(verdict);
            })
            .detach();
    }

    /// What a head waiting for `100 Continue` is told, given the hook's verdict on it.
    fn head_verdict(&self, head: a2a_wire::service::HeadAuth, verdict: AuthVerdict) -> HeadVerdict {
        match verdict {
            Ok(principal) => HeadVerdict::Continue(Some(Prejudged { head, principal })),
            Err(e) => HeadVerdict::Answer(self.service.refuse_head(&head, e)),
        }
    }

    /// Drops the futures of canceled runs whose grace is over.
    fn abandon_overdue(&mut self) {
        let now = std::time::Instant::now();
        let mut i = 0;
        while i < self.graces.len() {
            if self.graces[i].0 <= now {
                let (_, run) = self.graces.swap_remove(i);
                if let Some(task) = self.run_tasks.remove(&run) {
                    self.config.log.log(Level::Info, &format!("run {} still ran after its cancel grace: dropped", run.0));
                    drop(task);
                }
            } else {
                i += 1;
            }
        }
    }

    fn to_stream(&mut self, call: CallId, ev: CallEvent) {
        let Some(r) = self.replies.get(&call) else { return };
        if r.try_send(ev).is_err() {
            // The connection went away.
            self.replies.remove(&call);
            self.service.handle_caller_gone(call);
        }
    }

    fn start_run(&mut self, start: a2a_wire::service::RunStart) {
        let e = start.execution;
        let cancel = CancelToken::default();
        self.cancels.insert(e.id, cancel.clone());
        let sink = EventSink::new(e.id, self.run_queue.clone());
        let ctx = RequestContext {
            run: e.id,
            task_id: e.task_id,
            context_id: e.context_id,
            message: e.message,
            follow_up: e.follow_up,
            resumed: e.resumed,
            task: start.task,
            call: e.context,
            tenant: e.tenant,
            metadata: e.metadata,
            configuration: e.configuration,
            cancel,
        };
        use a2a_wire::engine::AGENT_FAILED as FAILED;
        match self.config.agent.clone() {
            AgentKind::Callback(agent) => {
                let for_agent = sink.clone();
                if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| agent.start(ctx, for_agent))).is_err() {
                    self.config.log.log(Level::Error, &format!("the agent panicked starting run {}", e.id.0));
                    sink.fail(FAILED);
                }
            }
            AgentKind::Future(exec) => {
                let id = e.id;
                let for_agent = sink.clone();
                let Ok(run) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exec.execute(ctx, for_agent))) else {
                    self.config.log.log(Level::Error, &format!("the agent panicked starting run {}", id.0));
                    sink.fail(FAILED);
                    return;
                };
                let log = self.config.log.clone();
                let mut run = Box::pin(async move {
                    use smol::future::FutureExt;
                    match std::panic::AssertUnwindSafe(run).catch_unwind().await {
                        Ok(()) => sink.finish(),
                        Err(_) => {
                            log.log(Level::Error, &format!("the agent panicked in run {}", id.0));
                            sink.fail(FAILED)
                        }
                    }
                });
                // The first poll runs here: an agent that answers without waiting (the common
                // case) finishes with no task spawned and no wake-up; its events are queued for
                // the host's next turn. One that waits goes on as a task of its own.
                let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
                if std::future::Future::poll(run.as_mut(), &mut cx).is_pending() {
                    self.run_tasks.insert(id, self.tasks.spawn(run));
                }
            }
        }
    }
}

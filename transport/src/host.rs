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

/// The application's judgement of a call's credentials: the principal (`None`: anonymous),
/// or `Unauthenticated` / `PermissionDenied`. Called on the host's task: keep it quick.
pub type AuthHook = Arc<dyn Fn(&AuthRequest) -> Result<Option<String>, A2aError> + Send + Sync>;

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
    cancels: HashMap<RunId, CancelToken>,
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
        cancels: HashMap::new(),
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
            let input = async { cmds.recv().await.map_or(Input::Closed, Input::Cmd) }
                .or(async { runs.recv().await.map_or(Input::Closed, Input::Run) })
                .or(async {
                    match deadline {
                        Some(t) => smol::Timer::after(until(t)).await,
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
                let headers: Vec<(&str, &str)> = req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                let http = HttpRequest { method: &req.method, target: &req.target, headers: &headers, body: &req.body };
                let call = self.service.handle_request(&http, now());
                id.store(call.0, Ordering::Release);
                if reply.is_closed() {
                    // The connection went away before its request was handed over.
                    self.service.handle_caller_gone(call);
                } else {
                    self.replies.insert(call, reply);
                    if let Some(p) = prejudged {
                        self.prejudged.insert(call, p);
                    }
                }
            }
            Command::CheckHead(req, body_len, reply) => {
                let headers: Vec<(&str, &str)> = req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                let http = HttpRequest { method: &req.method, target: &req.target, headers: &headers, body: &[] };
                let verdict = match self.service.check_head(&http, body_len) {
                    HeadCheck::Continue => HeadVerdict::Continue(None),
                    HeadCheck::Answer(response) => HeadVerdict::Answer(response),
                    HeadCheck::Authenticate(head) => match self.judge(head.request()) {
                        Ok(principal) => HeadVerdict::Continue(Some(Prejudged { head, principal })),
                        Err(e) => HeadVerdict::Answer(self.service.refuse_head(&head, e)),
                    },
                    // A kind of check this host does not know: read the body, as without one.
                    _ => HeadVerdict::Continue(None),
                };
                let _ = reply.try_send(verdict);
            }
            Command::Gone(call) => {
                self.replies.remove(&call);
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
                    let verdict = match self.prejudged.remove(&req.call) {
                        Some(p) if p.head.answers(&req) => Ok(p.principal),
                        _ => self.judge(&req),
                    };
                    self.service.handle_authenticated(req.call, verdict, now());
                }
                Output::StartRun(start) => self.start_run(start),
                Output::CancelRun { run, .. } => {
                    if let Some(c) = self.cancels.remove(&run) {
                        c.cancel();
                    }
                    if let AgentKind::Callback(agent) = &self.config.agent {
                        let agent = agent.clone();
                        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| agent.cancel(run))).is_err() {
                            self.config.log.log(Level::Error, "the agent's cancel callback panicked");
                        }
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

    /// The authentication hook's verdict (anonymous without a hook; a panic is a refusal).
    fn judge(&self, req: &AuthRequest) -> Result<Option<String>, A2aError> {
        match &self.config.authenticate {
            Some(hook) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hook(req))).unwrap_or_else(|_| {
                self.config.log.log(Level::Error, "the authentication hook panicked");
                Err(A2aError::with_message(ErrorKind::Internal, "authentication failed"))
            }),
            None => Ok(None),
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

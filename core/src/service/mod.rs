//! The whole A2A server, sans-IO: [`Service`] joins the endpoint (HTTP in, calls out), the
//! task engine, the calls in flight, the Agent Card and the webhook queues. Every host — the
//! smol transport, a C++ service on its own event loop, a Python ASGI app, a Node handler —
//! drives the same type with plain data and carries out what it asks; none of them decides
//! anything about the protocol.
//!
//! ## Driving it
//!
//! ```text
//! let mut service = Service::new(config, store, random_key, now)?;
//! loop {
//!     // 1. Feed what happened, with the time:
//!     //    handle_request(req) -> CallId | handle_authenticated(call, principal)
//!     //    handle_agent_event(run, event) | handle_run_end(run, end)
//!     //    handle_caller_gone(call) | handle_webhook_result(id, outcome) | handle_timeout(now)
//!     // 2. Drain poll_output() until None, carrying out each Output in the order given.
//!     // 3. Wait for the next input, or until poll_timeout().
//! }
//! ```
//!
//! The service never reads a clock, never does IO, never blocks: time comes in with every
//! input (`now`, wall-clock time as a protobuf `Timestamp`; retries are scheduled on it, so a
//! test drives them with a virtual clock), and the next deadline goes out as data.
//!
//! ## What comes out, per call
//! Every request gets one [`CallId`] and then exactly one of:
//! - one [`Output::Answer`]: a whole response (status, headers, body, and for gRPC the
//!   trailers); or
//! - one [`Output::StreamHead`], any number of [`Output::StreamFrame`]s, one
//!   [`Output::StreamEnd`]: a streaming answer, its bytes already in the call's binding's
//!   framing (SSE events for JSON-RPC and HTTP+JSON, length-prefixed messages for gRPC, the
//!   end carrying the trailers).
//!
//! With authentication on, an [`Output::Authenticate`] comes first; the host judges the
//! credentials (the service never sees a secret's meaning) and answers with
//! [`Service::handle_authenticated`].
//!
//! A host that reads HTTP/1.1 itself can ask about a request's head before it reads the body
//! ([`Service::check_head`]): what a client sending `Expect: 100-continue` waits for. Besides calls, outputs ask the host to start or cancel
//! an agent run ([`Output::StartRun`], [`Output::CancelRun`]) and to attempt a webhook
//! delivery ([`Output::SendWebhook`]).
//!
//! ## The store
//! Over a [`engine::MemoryStore`] memory is the store and nothing more is asked. Over
//! [`Storage::external`] the service does no store IO either: it asks with
//! [`Output::Store`] (open, load these tasks, run this list query, write this batch, expire
//! old tasks; see [`engine::external`] for what a store must do) and the host answers each
//! with [`Service::handle_store`], from memory, a database on a thread of its own, or a store
//! written in another language. Answers leave only after the write of the changes they show
//! is durable; the changes of all inputs fed while a write is in flight form the next batch,
//! so a busy host gets one write for many calls. Outputs for a call the host already
//! reported gone may still come out; they are ignored.
//!
//! ## Streams and slow subscribers
//! The host buffers a stream's frames towards its client; a buffer must be bounded. When a
//! subscriber falls behind its bound, the host calls [`Service::handle_slow_consumer`]: the
//! stream ends at once with an `Unavailable` error event (the host must always have room for
//! that last output), the task goes on, and the client resubscribes — a resubscription
//! starts with the current Task, so the client loses no state, only the intermediate events.

mod card;

pub use card::CARD_PATH;

use crate::card::Binding;
use crate::engine::{
    self, AgentEvent, CallId, Engine, EngineConfig, Execution, RunEnd, RunId, Storage, StoreError, StoreReply, StoreRequest,
};
use crate::error::{A2aError, ErrorKind};
use crate::http::{HttpRequest, HttpResponse};
use crate::log::{Level, SharedLog};
use crate::op::{Method, Operation, Response};
use crate::proto::google::protobuf::Timestamp;
use crate::server::{Call, ConfigError, EncodedEvent, Endpoint, EventShape, Limits};
use crate::v1;
use crate::version::ProtocolVersion;
use crate::webhook::{self, Attempt, Deliveries, DeliveryId, Outcome};
use alloc::collections::{BTreeMap, VecDeque};
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

/// Service settings.
#[derive(Clone)]
pub struct ServiceConfig {
    /// The public Agent Card; the interfaces it lists are what is served.
    pub card: v1::AgentCard,
    /// The extended card, served by `GetExtendedAgentCard` to authenticated callers only.
    pub extended_card: Option<v1::AgentCard>,
    /// Extended cards per identity: a principal listed here gets its own card, every other
    /// authenticated caller gets [`ServiceConfig::extended_card`] (or
    /// `ExtendedAgentCardNotConfigured` without one). Anonymous callers get neither.
    pub extended_cards: BTreeMap<String, v1::AgentCard>,
    /// Request size limits applied before parsing.
    pub limits: Limits,
    /// `Cache-Control: max-age` of the card, in seconds.
    pub card_max_age: u32,
    /// Ask the host to authenticate every call ([`Output::Authenticate`]). Off: every call
    /// is anonymous (no principal), and the extended card is never served.
    pub authenticate: bool,
    /// Engine settings. [`ServiceConfig::new`] takes `streaming` and `push_notifications`
    /// from the card's capabilities.
    pub engine: EngineConfig,
    /// How webhooks are retried.
    pub webhooks: webhook::Policy,
    /// Where log lines go.
    pub log: SharedLog,
    /// How v0.3 gRPC and HTTP+JSON answers carry file bytes (see
    /// [`crate::server::Endpoint::with_v03_file_bytes`]).
    pub v03_file_bytes: crate::server::FileBytes,
}

impl core::fmt::Debug for ServiceConfig {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ServiceConfig")
            .field("card", &self.card.name)
            .field("extended_card", &self.extended_card.is_some())
            .field("extended_cards", &self.extended_cards.len())
            .field("limits", &self.limits)
            .field("card_max_age", &self.card_max_age)
            .field("authenticate", &self.authenticate)
            .field("engine", &self.engine)
            .field("webhooks", &self.webhooks)
            .field("v03_file_bytes", &self.v03_file_bytes)
            .finish_non_exhaustive()
    }
}

impl ServiceConfig {
    /// Settings for `card`: default limits, a card cacheable for five minutes, no
    /// authentication, streaming and push notifications as the card declares them.
    pub fn new(card: v1::AgentCard) -> Self {
        let caps = card.capabilities.clone().unwrap_or_default();
        let engine = EngineConfig {
            streaming: caps.streaming.unwrap_or(false),
            push_notifications: caps.push_notifications.unwrap_or(false),
            ..EngineConfig::default()
        };
        ServiceConfig {
            card,
            extended_card: None,
            extended_cards: BTreeMap::new(),
            limits: Limits::default(),
            card_max_age: 300,
            authenticate: false,
            engine,
            webhooks: webhook::Policy::default(),
            log: crate::log::silent(),
            v03_file_bytes: crate::server::FileBytes::default(),
        }
    }
}

/// A call waiting for the host to authenticate it.
#[derive(Clone, Debug, PartialEq)]
pub struct AuthRequest {
    /// The call.
    pub call: CallId,
    /// Its operation.
    pub method: Method,
    /// The binding it came on.
    pub binding: Binding,
    /// The protocol version it is served with.
    pub version: ProtocolVersion,
    /// The tenant it names ("" = none).
    pub tenant: String,
    /// The request's credentials: `Authorization`, `Cookie`, and the headers of the card's
    /// API-key schemes (gRPC metadata keys are lowercase).
    pub headers: Vec<(String, String)>,
}

/// What a request's head alone decides ([`Service::check_head`]).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum HeadCheck {
    /// Read the body (after `HTTP/1.1 100 Continue`, for a client that waits for it).
    Continue,
    /// Send this answer at once, without reading the body, and close the connection.
    Answer(HttpResponse),
    /// The credentials decide: judge [`HeadAuth::request`] as an [`Output::Authenticate`] is
    /// judged; on a refusal send [`Service::refuse_head`] at once and close, otherwise read
    /// the body. (A host may keep the verdict for the call that follows, rather than judge
    /// one request twice, where [`HeadAuth::answers`] says it is the same question.)
    Authenticate(HeadAuth),
}

/// A request head whose credentials decide whether its body is read.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadAuth {
    head: crate::server::HeadCall,
    request: AuthRequest,
}

impl HeadAuth {
    /// What to judge. Its `call` is `CallId(0)`: no call exists before the body is read.
    pub fn request(&self) -> &AuthRequest {
        &self.request
    }

    /// True when `call`, the [`Output::Authenticate`] of the call this head's body completed,
    /// asks what the head asked: the same operation, tenant, binding, version and
    /// credentials. Its verdict on the head then stands for the call.
    pub fn answers(&self, call: &AuthRequest) -> bool {
        let h = &self.request;
        h.method == call.method
            && h.tenant == call.tenant
            && h.binding == call.binding
            && h.version == call.version
            && h.headers == call.headers
    }
}

/// An agent run to start.
#[derive(Clone, Debug, PartialEq)]
pub struct RunStart {
    /// The run: its id, task, context, message and caller.
    pub execution: Execution,
    /// The task as stored when the run starts (`None` for a task the run will create).
    pub task: Option<v1::Task>,
}

/// Something the service asks its host to do. See the module docs for the order.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// Send this whole response; the call is over. To a `HEAD` request send the head only
    /// (the body tells its `Content-Length`).
    Answer {
        /// The call.
        call: CallId,
        /// The response.
        response: HttpResponse,
    },
    /// Start a streaming response with this status and these headers.
    StreamHead {
        /// The call.
        call: CallId,
        /// Status and headers (the body is empty).
        head: HttpResponse,
    },
    /// Send these bytes on the stream (one event, already framed for the binding).
    StreamFrame {
        /// The call.
        call: CallId,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// Send these last bytes (may be empty), then end the stream with these trailers (gRPC
    /// status; empty for SSE); the call is over.
    StreamEnd {
        /// The call.
        call: CallId,
        /// Last bytes (an error event, when the stream ends in error).
        bytes: Vec<u8>,
        /// Trailers.
        trailers: Vec<(String, String)>,
    },
    /// Judge the credentials of this call, then call [`Service::handle_authenticated`].
    Authenticate(AuthRequest),
    /// Run the agent.
    StartRun(RunStart),
    /// Tell this run to stop (its task was canceled, or the service is shutting down).
    CancelRun {
        /// The run.
        run: RunId,
        /// Its task.
        task_id: String,
    },
    /// Attempt this webhook delivery, then call [`Service::handle_webhook_result`]. The host
    /// applies its SSRF guard ([`webhook::is_non_public`] on every resolved address) and a
    /// time limit to the attempt.
    SendWebhook(Attempt),
    /// Carry out this request on the external store (in the order given), then call
    /// [`Service::handle_store`] with its reply.
    Store(StoreRequest),
}

#[derive(Debug)]
enum Pending {
    Authenticating(Call),
    Unary(Call),
    Stream { call: Call, started: bool },
}

/// The whole server, sans-IO. A host drives it like this (the module docs say more):
///
/// ```text
/// loop {
///     feed one input, with the time now:
///         handle_request | handle_authenticated | handle_agent_event | handle_run_end
///         | handle_caller_gone | handle_slow_consumer | handle_webhook_result | handle_timeout
///     while let Some(out) = service.poll_output() {
///         carry it out, in order: write an Answer or a stream's Head / Frames / End;
///         start or cancel a run; attempt a webhook; judge an Authenticate
///     }
///     wait for the next input, or until service.poll_timeout()
/// }
/// ```
pub struct Service {
    endpoint: Endpoint,
    engine: Engine,
    card: card::CardAnswer,
    extended_card: Option<v1::AgentCard>,
    extended_cards: BTreeMap<String, v1::AgentCard>,
    authenticate: bool,
    calls: BTreeMap<CallId, Pending>,
    next_call: u64,
    out: VecDeque<Output>,
    deliveries: Deliveries,
    log: SharedLog,
    shutting_down: bool,
    /// The last stream event, encoded once per shape of the streams it went to.
    encoded: EncodedCache,
}

/// A task's streams get each event one after another, so one event is encoded once per
/// [`EventShape`] (JSON-RPC v1.0, v0.3, ...) and each stream's frame only adds its own ids.
#[derive(Default)]
struct EncodedCache {
    event: Option<Arc<v1::StreamResponse>>,
    shapes: Vec<(EventShape, EncodedEvent)>,
}

impl EncodedCache {
    /// `event` encoded for `call`'s shape, from the cache when it was already.
    fn get(&mut self, endpoint: &Endpoint, call: &Call, event: &Arc<v1::StreamResponse>) -> &EncodedEvent {
        if !self.event.as_ref().is_some_and(|e| Arc::ptr_eq(e, event)) {
            self.event = Some(event.clone());
            self.shapes.clear();
        }
        let shape = endpoint.event_shape(call);
        let at = match self.shapes.iter().position(|(s, _)| *s == shape) {
            Some(at) => at,
            None => {
                self.shapes.push((shape, endpoint.encode_event(call, event)));
                self.shapes.len() - 1
            }
        };
        // `at` is an index the search found or the entry just pushed.
        &self.shapes[at].1
    }
}

impl core::fmt::Debug for Service {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Service")
            .field("calls", &self.calls.len())
            .field("queued_outputs", &self.out.len())
            .field("webhooks_pending", &self.deliveries.pending())
            .field("shutting_down", &self.shutting_down)
            .finish_non_exhaustive()
    }
}

fn unavailable(message: &'static str) -> A2aError {
    A2aError::with_message(ErrorKind::Unavailable, message)
}

impl Service {
    /// A service for `config` over `store` (a [`engine::MemoryStore`], or
    /// [`Storage::external`]). `key` keys the id generator (give 128 random bits from the
    /// OS; tests give a fixed one); `now` dates the card (`Last-Modified`). Runs lost in a
    /// restart (a store holding `SUBMITTED` or `WORKING` tasks) are started again: their
    /// [`Output::StartRun`]s come first, or, with an external store, once it answered the
    /// first output ([`StoreRequest::Open`]), which also gives back the webhook deliveries
    /// it kept.
    pub fn new(config: ServiceConfig, store: impl Into<Storage>, key: u128, now: Timestamp) -> Result<Self, ConfigError> {
        let mut endpoint = Endpoint::new(config.card.clone())?.with_limits(config.limits).with_v03_file_bytes(config.v03_file_bytes);
        // The endpoint checks the card's capability against "some extended card exists".
        if let Some(x) = config.extended_card.clone().or_else(|| config.extended_cards.values().next().cloned()) {
            endpoint = endpoint.with_extended_card(x);
        }
        let card = card::CardAnswer::new(&config.card, config.card_max_age, now.seconds)
            .map_err(|e| ConfigError(format!("the card cannot be published: {e}")))?;
        let mut engine = Engine::new(config.engine, store, key);
        engine.start(now);
        engine.resume_lost_runs();
        let deliveries = Deliveries::new(config.webhooks);
        Ok(Service {
            endpoint,
            engine,
            card,
            extended_card: config.extended_card,
            extended_cards: config.extended_cards,
            authenticate: config.authenticate,
            calls: BTreeMap::new(),
            next_call: 0,
            out: VecDeque::new(),
            encoded: EncodedCache::default(),
            deliveries,
            log: config.log,
            shutting_down: false,
        })
    }

    /// The endpoint (the card's interfaces, the decoder and encoders).
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// True when a request for `path` (no query) with this `Content-Type` is the service's
    /// to answer: the Agent Card, or one of the endpoint's ([`Endpoint::serves`]).
    pub fn serves(&self, path: &str, content_type: Option<&str>) -> bool {
        path == CARD_PATH || self.endpoint.serves(path, content_type)
    }

    /// The engine (tasks, runs), for reading.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The card's `ETag`.
    pub fn card_etag(&self) -> &str {
        self.card.etag()
    }

    /// Calls in flight (waiting for authentication, an answer, or streaming).
    pub fn open_calls(&self) -> usize {
        self.calls.len()
    }

    /// True when no store request is waiting for its reply.
    pub fn store_idle(&self) -> bool {
        self.engine.store_pending().0 == 0
    }

    /// Webhook deliveries in flight or waiting for a retry.
    pub fn pending_webhooks(&self) -> usize {
        self.deliveries.pending()
    }

    /// True when nothing is in flight: no call, no webhook delivery, no output waiting. A
    /// host that shut the service down may stop once it is idle.
    pub fn is_idle(&self) -> bool {
        self.calls.is_empty()
            && self.deliveries.pending() == 0
            && self.out.is_empty()
            && self.engine.pending_outputs() == 0
            && self.engine.store_pending().0 == 0
    }

    fn new_call(&mut self) -> CallId {
        self.next_call += 1;
        CallId(self.next_call)
    }

    /// What the head of a request alone decides, before its body is read (for a client
    /// that sent `Expect: 100-continue`; see [`crate::http1::RequestHead::expect_continue`]).
    /// `req` is the head with an empty body, `body_len` the declared `Content-Length`
    /// (`None` for a chunked body).
    ///
    /// Only what cannot depend on the body is judged ([`Endpoint::check_head`]): the route,
    /// the size, the version, required extensions, the card's capabilities where the route
    /// names the operation, and — with authentication on — the credentials, where the route
    /// names the operation (HTTP+JSON): a JSON-RPC method is in the body, so its credentials
    /// are judged once the body is read, as for every request. Changes nothing.
    pub fn check_head(&self, req: &HttpRequest<'_>, body_len: Option<usize>) -> HeadCheck {
        if req.path() == CARD_PATH {
            return HeadCheck::Continue;
        }
        let head = match self.endpoint.check_head(req, body_len) {
            Ok(Some(head)) => head,
            Ok(None) => return HeadCheck::Continue,
            Err(response) => return HeadCheck::Answer(response),
        };
        if self.shutting_down {
            return HeadCheck::Answer(self.endpoint.respond(head.call(), Err(unavailable("the server is shutting down"))));
        }
        match head.method() {
            Some(method) if self.authenticate => {
                let request = AuthRequest {
                    call: CallId(0),
                    method,
                    binding: head.binding().clone(),
                    version: head.version(),
                    tenant: String::from(head.tenant()),
                    headers: head.auth_headers().to_vec(),
                };
                HeadCheck::Authenticate(HeadAuth { head, request })
            }
            _ => HeadCheck::Continue,
        }
    }

    /// The answer to a head whose credentials the host refused (see [`HeadCheck::Authenticate`]):
    /// `error` (`Unauthenticated`, `PermissionDenied`) in the request's binding and version.
    pub fn refuse_head(&self, head: &HeadAuth, error: A2aError) -> HttpResponse {
        self.endpoint.respond(head.head.call(), Err(error))
    }

    // ------------------------------------------------------------------ inputs

    /// An HTTP request (HTTP/1.1 or HTTP/2; for gRPC the `:path`, metadata and framed body).
    /// Returns the call's id; its answer comes out of [`Service::poll_output`].
    pub fn handle_request(&mut self, req: &HttpRequest<'_>, now: Timestamp) -> CallId {
        let id = self.new_call();
        if req.path() == CARD_PATH {
            self.out.push_back(Output::Answer { call: id, response: self.card.answer(req) });
            return id;
        }
        let call = match self.endpoint.decode(req) {
            Ok(c) => c,
            Err(response) => {
                self.out.push_back(Output::Answer { call: id, response });
                return id;
            }
        };
        if self.shutting_down {
            let response = self.endpoint.respond(&call, Err(unavailable("the server is shutting down")));
            self.out.push_back(Output::Answer { call: id, response });
            return id;
        }
        if self.authenticate {
            self.out.push_back(Output::Authenticate(AuthRequest {
                call: id,
                method: call.method(),
                binding: call.binding.clone(),
                version: call.version,
                tenant: String::from(call.operation.tenant()),
                headers: call.auth_headers.clone(),
            }));
            self.calls.insert(id, Pending::Authenticating(call));
        } else {
            self.dispatch(id, call, None, now);
        }
        id
    }

    /// The host's verdict on an [`Output::Authenticate`]: the principal (`None`: anonymous,
    /// allowed), or the error to answer with (`Unauthenticated`, `PermissionDenied`).
    pub fn handle_authenticated(&mut self, call: CallId, verdict: Result<Option<String>, A2aError>, now: Timestamp) {
        let Some(Pending::Authenticating(c)) = self.calls.remove(&call) else { return };
        match verdict {
            Ok(principal) => self.dispatch(call, c, principal, now),
            Err(e) => {
                let response = self.endpoint.respond(&c, Err(e));
                self.out.push_back(Output::Answer { call, response });
            }
        }
    }

    fn dispatch(&mut self, id: CallId, mut call: Call, principal: Option<String>, now: Timestamp) {
        let streaming = call.is_streaming();
        // The request moves into the engine; the call keeps what its answers need (binding,
        // version, JSON-RPC id, extensions).
        let placeholder = Operation::GetExtendedAgentCard(v1::GetExtendedAgentCardRequest::default());
        match core::mem::replace(&mut call.operation, placeholder) {
            Operation::Task(request) => {
                let ctx = call.engine_context(principal);
                let pending = if streaming { Pending::Stream { call, started: false } } else { Pending::Unary(call) };
                self.calls.insert(id, pending);
                self.engine.handle_call(id, ctx, request, now);
            }
            op => {
                call.operation = op;
                // GetExtendedAgentCard: only to a caller the host authenticated (§3.1.11),
                // never merely because credentials were sent.
                // Each identity gets its own card where one is configured.
                let result = match principal.as_deref() {
                    None => crate::card::require_extended_card(self.endpoint.card(), self.endpoint.extended_card().is_some())
                        .and(Err(A2aError::with_message(ErrorKind::Unauthenticated, "the extended agent card requires authentication"))),
                    Some(p) => match self.extended_cards.get(p).or(self.extended_card.as_ref()) {
                        Some(card) => Ok(Response::AgentCard(card.clone())),
                        None => Err(A2aError::new(ErrorKind::ExtendedAgentCardNotConfigured)),
                    },
                };
                let response = self.endpoint.respond(&call, result);
                self.out.push_back(Output::Answer { call: id, response });
            }
        }
    }

    /// An event of agent run `run`. A refusal (the run is over or superseded, or the event
    /// breaks the task's state machine) is returned, for the agent to learn; it changes
    /// nothing.
    pub fn handle_agent_event(&mut self, run: RunId, event: AgentEvent, now: Timestamp) -> Result<(), A2aError> {
        self.engine.handle_agent(run, event, now)
    }

    /// Agent run `run` returned, or failed (a panic, an exception): whoever waits on it is
    /// answered; a failed run fails its task.
    pub fn handle_run_end(&mut self, run: RunId, end: RunEnd, now: Timestamp) {
        self.engine.handle_run_end(run, end, now);
    }

    /// The caller of `call` went away (connection closed, stream reset). The task is not
    /// affected; outputs still queued for the call are to be ignored.
    pub fn handle_caller_gone(&mut self, call: CallId) {
        if self.calls.remove(&call).is_some() {
            self.engine.handle_call_closed(call);
        }
    }

    /// The subscriber of stream `call` fell behind the host's buffer: the stream ends now
    /// with an `Unavailable` error event (see the module docs).
    pub fn handle_slow_consumer(&mut self, call: CallId) {
        if !matches!(self.calls.get(&call), Some(Pending::Stream { .. })) {
            return;
        }
        let Some(Pending::Stream { call: c, started }) = self.calls.remove(&call) else { return };
        self.engine.handle_call_closed(call);
        let e = unavailable("this subscriber fell behind the stream and was cut off; resubscribe to continue from the current task");
        self.log.log(Level::Warn, &format!("stream {} cut off: its subscriber fell behind", call.0));
        self.end_stream(call, &c, started, Some(&e));
    }

    /// The outcome of a webhook attempt.
    pub fn handle_webhook_result(&mut self, id: DeliveryId, outcome: Outcome, now: Timestamp) {
        self.deliveries.handle_result(id, outcome, now);
        self.sync_webhooks();
    }

    /// Hands the delivery queues' changes to the store (an external one writes them with
    /// the next batch; a delivery's first attempt waits for it).
    fn sync_webhooks(&mut self) {
        while let Some(change) = self.deliveries.poll_change() {
            self.engine.webhook_changed(change);
        }
    }

    /// The external store's reply to an [`Output::Store`]. A failed request is logged; the
    /// calls it concerned are answered with an internal error.
    pub fn handle_store(&mut self, mut reply: StoreReply, now: Timestamp) {
        match &mut reply {
            // Deliveries the store kept from before a restart go out again (with leases, the
            // deliveries of servers that stopped are taken over by claims instead: other
            // servers may be delivering them).
            StoreReply::Opened { webhooks, .. } if self.engine.config().lease.is_none() => {
                self.deliveries.restore(core::mem::take(webhooks));
            }
            StoreReply::Claimed { webhooks, .. } => self.deliveries.restore(core::mem::take(webhooks)),
            _ => {}
        }
        if let Err(e) = self.engine.handle_store(reply, now) {
            self.log_store_error(&e);
        }
    }

    /// The store says another server wrote version `version` of task `task_id` (its change
    /// notices): see [`Engine::handle_task_changed`].
    pub fn handle_task_changed(&mut self, task_id: &str, version: u64, now: Timestamp) {
        self.engine.handle_task_changed(task_id, version, now);
    }

    /// Change notices may have been missed: see [`Engine::handle_store_resync`].
    pub fn handle_store_resync(&mut self, now: Timestamp) {
        self.engine.handle_store_resync(now);
    }

    fn log_store_error(&self, e: &StoreError) {
        self.log.log(Level::Error, &format!("{e}; the calls it concerned are answered with an error"));
    }

    /// Time passed: due webhook retries become attempts; retention deletes expired tasks.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        self.deliveries.handle_timeout(now);
        self.engine.handle_timeout(now);
    }

    /// When [`Service::handle_timeout`] should be called next, if ever.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        match (self.deliveries.poll_timeout(), self.engine.poll_timeout()) {
            (Some(a), Some(b)) => Some(if (a.seconds, a.nanos) <= (b.seconds, b.nanos) { a } else { b }),
            (a, b) => a.or(b),
        }
    }

    /// Begins shutting down: every open stream ends with an `Unavailable` error (clients
    /// resubscribe elsewhere or later), every waiting call is answered `Unavailable`, every
    /// current run is told to stop (its task keeps its state; a persistent store resumes it
    /// on the next start), and new requests are answered `Unavailable`. Webhooks already
    /// queued are still offered.
    pub fn shutdown(&mut self) {
        if self.shutting_down {
            return;
        }
        self.shutting_down = true;
        // What the engine already decided comes out first (a run it started is then known to
        // the host before it is told to stop).
        while let Some(o) = self.engine.poll_output() {
            self.translate(o);
        }
        let e = unavailable("the server is shutting down");
        for (id, pending) in core::mem::take(&mut self.calls) {
            self.engine.handle_call_closed(id);
            match pending {
                Pending::Authenticating(c) | Pending::Unary(c) => {
                    let response = self.endpoint.respond(&c, Err(e.clone()));
                    self.out.push_back(Output::Answer { call: id, response });
                }
                Pending::Stream { call, started } => self.end_stream(id, &call, started, Some(&e)),
            }
        }
        for (run, task_id) in self.engine.current_runs() {
            self.out.push_back(Output::CancelRun { run, task_id });
        }
    }

    // ------------------------------------------------------------------ outputs

    /// The next thing to do, or `None` when there is nothing (then wait for an input or
    /// [`Service::poll_timeout`]).
    pub fn poll_output(&mut self) -> Option<Output> {
        loop {
            if let Some(o) = self.out.pop_front() {
                return Some(o);
            }
            if let Some(o) = self.engine.poll_output() {
                self.translate(o);
                continue;
            }
            if let Some(mut r) = self.engine.poll_store() {
                if let StoreRequest::Claim { webhook_seq_from, .. } = &mut r {
                    *webhook_seq_from = self.deliveries.reserve(engine::CLAIM_WEBHOOKS as u64);
                }
                return Some(Output::Store(r));
            }
            while let Some(g) = self.deliveries.poll_gave_up() {
                self.log.log(Level::Error, &format!("webhook {} not delivered: {}", g.url, g.reason));
            }
            // A delivery's first attempt waits until the store keeps it.
            let engine = &self.engine;
            return self.deliveries.poll_attempt_if(|seq| engine.webhook_durable(seq)).map(Output::SendWebhook);
        }
    }

    fn end_stream(&mut self, id: CallId, call: &Call, started: bool, error: Option<&A2aError>) {
        if !started {
            self.out.push_back(Output::StreamHead { call: id, head: self.endpoint.stream_start(call) });
        }
        let end = self.endpoint.stream_end(call, error);
        self.out.push_back(Output::StreamEnd { call: id, bytes: end.body, trailers: end.trailers });
    }

    fn translate(&mut self, o: engine::Output) {
        match o {
            engine::Output::Respond { call, result } => match self.calls.remove(&call) {
                Some(Pending::Unary(c)) => {
                    let response = self.endpoint.respond(&c, result);
                    self.out.push_back(Output::Answer { call, response });
                }
                Some(Pending::Stream { call: c, started: false }) if result.is_err() => {
                    // Refused before it started: a plain error answer.
                    let response = self.endpoint.respond(&c, result);
                    self.out.push_back(Output::Answer { call, response });
                }
                Some(Pending::Stream { call: c, started }) => {
                    let error = result.err();
                    self.end_stream(call, &c, started, error.as_ref());
                }
                Some(other) => {
                    self.calls.insert(call, other);
                }
                None => {}
            },
            engine::Output::Stream { call, event, id } => {
                let Some(Pending::Stream { call: c, started }) = self.calls.get_mut(&call) else { return };
                if !*started {
                    *started = true;
                    let head = self.endpoint.stream_start_at(c, id);
                    self.out.push_back(Output::StreamHead { call, head });
                }
                let mut bytes = Vec::new();
                self.encoded.get(&self.endpoint, c, &event).frame(&c.jsonrpc_id, id, &mut bytes);
                if !bytes.is_empty() {
                    self.out.push_back(Output::StreamFrame { call, bytes });
                }
            }
            engine::Output::StreamEnd { call, error } => {
                if let Some(Pending::Stream { call: c, started }) = self.calls.remove(&call) {
                    self.end_stream(call, &c, started, error.as_ref());
                }
            }
            engine::Output::Execute(execution) => {
                let task = self.engine.task(&execution.task_id).map(|t| t.record.task.clone());
                self.out.push_back(Output::StartRun(RunStart { execution, task }));
            }
            engine::Output::CancelExecution { run, task_id } => self.out.push_back(Output::CancelRun { run, task_id }),
            engine::Output::Webhook { config, event, version } => match webhook::request(&config, version, &event) {
                Ok(req) => {
                    self.deliveries.push(format!("{}\u{0}{}", config.task_id, config.id), req);
                    self.sync_webhooks();
                }
                Err(e) => self.log.log(Level::Error, &format!("webhook for task {} not encoded: {e}", config.task_id)),
            },
            engine::Output::DropWebhooks(seqs) => {
                for seq in seqs {
                    self.deliveries.discard(seq);
                }
            }
        }
    }
}

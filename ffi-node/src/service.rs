//! The sans-IO service in the Node process (`ServiceHost`), for the fetch handler.
//!
//! The JavaScript side (`lib/service.js`) feeds it requests and drains its outputs; the
//! protocol work (decoding, the engine, encoding, the card) runs here. Runs are JavaScript
//! async functions on the event loop; their events go straight into the service (`Run` with
//! `Backend::Service`), so a refused event throws at once. Webhook attempts are carried out
//! by the transport's delivery code on smol's executor threads; their results go into the
//! service from there, and a weak thread-safe function (it never keeps the process alive)
//! tells the event loop to drain the outputs that follow.

use crate::codec::Bytes;
use crate::errors;
use crate::run::{Backend, Run, RunInfo};
use a2a::engine::{AgentEvent, Cache, CallId, MemoryStore, RunEnd, RunId, Storage, StoreRequest};
use a2a::error::A2aError;
use a2a::http::HttpRequest;
use a2a::service::{Output, Service, ServiceConfig};
use a2a_wire_smol::host::now;
use a2a_wire_smol::webhook::{deliver_once, WebhookPolicy};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

/// The wake-up call into JavaScript: no arguments, no result, never keeps the loop alive.
type Wake = ThreadsafeFunction<(), (), (), Status, false, true>;

struct State {
    service: Service,
    /// Cancel flags of the runs in progress.
    runs: BTreeMap<RunId, Arc<AtomicBool>>,
    /// Runs started and not yet taken by JavaScript.
    starting: BTreeMap<RunId, RunInfo>,
    /// Store requests out and not yet taken by JavaScript, by the number in their output.
    store_requests: BTreeMap<u64, StoreRequest>,
    next_store_request: u64,
    /// A wake-up call is on its way.
    signaled: bool,
}

/// The service and what its hosts share (the event loop, the runs, webhook threads).
pub(crate) struct ServiceCore {
    state: Mutex<State>,
    wake: Wake,
    policy: WebhookPolicy,
}

impl ServiceCore {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Tells the loop that outputs wait (one call per wait, not per output).
    fn signal(&self, s: &mut State) {
        if !s.signaled {
            s.signaled = true;
            self.wake.call((), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }

    /// An event a run published, from JavaScript, whose `Events` drains the service after
    /// every publish (so no wake-up call: it would cost a trip through the event loop).
    pub(crate) fn agent_event(&self, run: RunId, event: AgentEvent) -> std::result::Result<(), A2aError> {
        self.lock().service.handle_agent_event(run, event, now())
    }

    /// The end of a run. `wake`: nobody drains the service after this (a run collected by
    /// the garbage collector); JavaScript's `finish` / `fail` drain it themselves.
    pub(crate) fn run_end(&self, run: RunId, end: RunEnd, wake: bool) {
        let mut s = self.lock();
        s.runs.remove(&run);
        s.starting.remove(&run);
        s.service.handle_run_end(run, end, now());
        if wake {
            self.signal(&mut s);
        }
    }
}

/// What the service asks of the fetch handler, one output. `kind` says which fields are set:
/// `"answer"` (call, status, headers, body), `"head"` (call, status, headers), `"frame"`
/// (call, body), `"end"` (call, body, trailers), `"start"` (run: take it with `takeRun`),
/// `"cancel"` (run), `"authenticate"` (call, method, binding, version, tenant, headers),
/// `"store"` (request: take it with `takeStoreRequest`; answer them in order).
/// Headers are flat `[name, value, name, value, ...]` lists.
#[napi(object, object_from_js = false)]
pub struct ServiceOutput {
    pub kind: String,
    pub call: Option<i64>,
    pub status: Option<u32>,
    pub headers: Option<Vec<String>>,
    #[napi(ts_type = "Buffer")]
    pub body: Option<Bytes>,
    pub trailers: Option<Vec<String>>,
    pub run: Option<i64>,
    pub method: Option<String>,
    pub binding: Option<String>,
    pub version: Option<String>,
    pub tenant: Option<String>,
    pub request: Option<i64>,
}

impl ServiceOutput {
    fn new(kind: &str) -> Self {
        ServiceOutput {
            kind: kind.to_string(),
            call: None,
            status: None,
            headers: None,
            body: None,
            trailers: None,
            run: None,
            method: None,
            binding: None,
            version: None,
            tenant: None,
            request: None,
        }
    }
}

fn flat(headers: &[(String, String)]) -> Vec<String> {
    headers.iter().flat_map(|(n, v)| [n.clone(), v.clone()]).collect()
}

/// A request decoded without serving it (`ServiceHost.decode`).
#[napi(object)]
pub struct DecodedRequest {
    pub kind: String,
    pub method: Option<String>,
    pub request: Option<String>,
    pub jsonrpc_id: Option<String>,
    pub version: Option<String>,
    pub status: Option<u32>,
    pub headers: Option<Vec<String>>,
    pub body: Option<Buffer>,
    pub trailers: Option<Vec<String>>,
}

/// Options of a service.
#[napi(object)]
pub struct ServiceOptions {
    /// The extended card (ProtoJSON), served to authenticated callers.
    pub extended_card: Option<String>,
    /// Every call is judged first (`"authenticate"` outputs).
    pub authenticate: Option<bool>,
    /// The largest request body taken (bytes).
    pub max_body: Option<u32>,
    /// Lets push notifications go to loopback and private addresses (tests).
    pub allow_private_webhooks: Option<bool>,
    /// Extended cards (ProtoJSON) per principal; other authenticated callers get
    /// `extendedCard`.
    pub extended_cards: Option<std::collections::HashMap<String, String>>,
    /// Webhook receivers the SSRF guard lets through although not public (hosts, addresses,
    /// CIDR networks).
    pub allow_webhooks: Option<Vec<String>>,
    /// PEM file of the CAs `https://` webhook receivers are verified against.
    pub webhook_ca_file: Option<String>,
    /// The `jku` put in each card signature's header (with a signing key).
    pub card_jku: Option<String>,
    /// The tasks live in a store JavaScript answers for (`"store"` outputs).
    pub external_store: Option<bool>,
    /// With an external store: MiB of idle tasks cached in memory (default 64).
    pub cache_mb: Option<u32>,
    /// Deletes terminal tasks whose last change is older: a duration like `90s`, `12h`,
    /// `30d` or `1500ms`.
    pub retain: Option<String>,
}

/// The service of one fetch handler.
#[napi]
pub struct ServiceHost {
    core: Arc<ServiceCore>,
}

fn call_id(call: i64) -> Result<CallId> {
    u64::try_from(call).map(CallId).map_err(|_| errors::range_error("call: expected a call id"))
}

#[napi]
impl ServiceHost {
    /// A service publishing `card` (ProtoJSON; its interfaces are what is served). `wake` is
    /// called (from the event loop) when outputs wait that no call of JavaScript produced.
    /// With `signingKey`, the card and the extended cards are served signed.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        card: String,
        options: ServiceOptions,
        wake: Function<(), ()>,
        signing_key: Option<ClassInstance<crate::signing::NativeSigningKey>>,
    ) -> Result<Self> {
        let card: a2a::v1::AgentCard = crate::run::decode(&card)?;
        let mut config = ServiceConfig::new(card);
        config.extended_card = options.extended_card.as_deref().map(crate::run::decode).transpose()?;
        for (principal, text) in options.extended_cards.unwrap_or_default() {
            let card = crate::run::decode_in(&text, &format!("extendedCards[{}]", serde_json::Value::from(principal.as_str())))?;
            config.extended_cards.insert(principal, card);
        }
        config.authenticate = options.authenticate.unwrap_or(false);
        if let Some(m) = options.max_body {
            config.limits.max_body = m as usize;
        }
        let policy = crate::server::webhook_policy(
            options.allow_private_webhooks,
            options.allow_webhooks.as_deref(),
            options.webhook_ca_file.as_deref(),
        )?;
        config.webhooks = policy.schedule();
        // Last: a change to a card after its signature would break it.
        if let Some(key) = signing_key {
            let jku = options.card_jku.as_deref();
            let sign = |c: &a2a::v1::AgentCard| key.key.sign_card(c, jku).map_err(|e| crate::signing::signature_error(&e));
            config.card = sign(&config.card)?;
            for c in config.extended_card.iter_mut().chain(config.extended_cards.values_mut()) {
                *c = sign(c)?;
            }
        }
        // Task ids are keyed by OS randomness, as on every other host; without it, refuse.
        let key = a2a_wire_smol::server::os_random_key().map_err(|e| Error::from_reason(format!("no OS randomness: {e}")))?;
        config.engine.retention = options
            .retain
            .as_deref()
            .map(|r| {
                a2a_wire_smol::ready::parse_duration(r)
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| errors::range_error(format!("retain {r:?}: a duration like 90s, 12h or 30d, or milliseconds")))
            })
            .transpose()?;
        let store = if options.external_store.unwrap_or(false) {
            let bytes = (options.cache_mb.unwrap_or(64) as usize).saturating_mul(1 << 20);
            config.engine.cache_bytes = bytes;
            Storage::External(Cache::new(bytes, key as u64))
        } else {
            Storage::Memory(MemoryStore::new())
        };
        let service =
            Service::new(config, store, key, now()).map_err(|e| errors::range_error(format!("the card cannot be served: {e}")))?;
        let wake: Wake = wake.build_threadsafe_function().callee_handled::<false>().weak::<true>().build()?;
        let state = State {
            service,
            runs: BTreeMap::new(),
            starting: BTreeMap::new(),
            store_requests: BTreeMap::new(),
            next_store_request: 0,
            signaled: false,
        };
        Ok(ServiceHost { core: Arc::new(ServiceCore { state: Mutex::new(state), wake, policy }) })
    }

    /// Feeds one HTTP request: `method`, `target` (path and `?query`), `headers` (flat
    /// `[name, value, ...]`), `body`. Returns the call's id; its answer comes out of `poll()`.
    #[napi(catch_unwind)]
    pub fn request(&self, method: String, target: String, headers: Vec<String>, body: Uint8Array) -> i64 {
        let refs: Vec<(&str, &str)> = headers.chunks_exact(2).map(|p| (p[0].as_str(), p[1].as_str())).collect();
        let req = HttpRequest { method: &method, target: &target, headers: &refs, body: &body };
        self.core.lock().service.handle_request(&req, now()).0 as i64
    }

    /// True when a request for `path` (no query) with this `Content-Type` is the service's
    /// (the card, or at an interface's path); a middleware passes the others on.
    #[napi(catch_unwind)]
    pub fn serves(&self, path: String, content_type: Option<String>) -> bool {
        self.core.lock().service.serves(&path, content_type.as_deref())
    }

    /// Every output waiting.
    #[napi(catch_unwind)]
    pub fn poll(&self) -> Vec<ServiceOutput> {
        let mut s = self.core.lock();
        s.signaled = false;
        let mut out = Vec::new();
        let mut attempts = Vec::new();
        while let Some(o) = s.service.poll_output() {
            let item = match o {
                Output::SendWebhook(a) => {
                    attempts.push(a);
                    continue;
                }
                Output::Answer { call, response } => ServiceOutput {
                    call: Some(call.0 as i64),
                    status: Some(u32::from(response.status)),
                    headers: Some(flat(&response.headers)),
                    body: Some(Bytes(response.body)),
                    trailers: Some(flat(&response.trailers)),
                    ..ServiceOutput::new("answer")
                },
                Output::StreamHead { call, head } => ServiceOutput {
                    call: Some(call.0 as i64),
                    status: Some(u32::from(head.status)),
                    headers: Some(flat(&head.headers)),
                    ..ServiceOutput::new("head")
                },
                Output::StreamFrame { call, bytes } => {
                    ServiceOutput { call: Some(call.0 as i64), body: Some(Bytes(bytes)), ..ServiceOutput::new("frame") }
                }
                Output::StreamEnd { call, bytes, trailers } => ServiceOutput {
                    call: Some(call.0 as i64),
                    body: Some(Bytes(bytes)),
                    trailers: Some(flat(&trailers)),
                    ..ServiceOutput::new("end")
                },
                Output::StartRun(r) => {
                    let e = r.execution;
                    let id = e.id;
                    s.runs.insert(id, Arc::new(AtomicBool::new(false)));
                    let info = RunInfo {
                        id,
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
                    s.starting.insert(id, info);
                    ServiceOutput { run: Some(id.0 as i64), ..ServiceOutput::new("start") }
                }
                Output::CancelRun { run, .. } => {
                    if let Some(f) = s.runs.get(&run) {
                        f.store(true, std::sync::atomic::Ordering::Release);
                    }
                    ServiceOutput { run: Some(run.0 as i64), ..ServiceOutput::new("cancel") }
                }
                Output::Authenticate(a) => ServiceOutput {
                    call: Some(a.call.0 as i64),
                    method: Some(a.method.names().v1.to_string()),
                    binding: Some(a.binding.as_str().to_string()),
                    version: Some(a.version.to_string()),
                    tenant: Some(a.tenant),
                    headers: Some(flat(&a.headers)),
                    ..ServiceOutput::new("authenticate")
                },
                Output::Store(req) => {
                    s.next_store_request += 1;
                    let n = s.next_store_request;
                    s.store_requests.insert(n, req);
                    ServiceOutput { request: Some(n as i64), ..ServiceOutput::new("store") }
                }
                // Nothing else is produced today; a new output must get a decision here.
                _ => continue,
            };
            out.push(item);
        }
        drop(s);
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
        out
    }

    /// Decodes a request the way the service would, without serving it: `kind` `"call"`
    /// (with `method`, `request` the ProtoJSON of its v1.0 request, `jsonrpcId` the JSON of
    /// the JSON-RPC id, `version`) for a request the endpoint accepts, or `"refused"` (with
    /// `status`, `headers`, `body`, `trailers`) for its refusal.
    #[napi(catch_unwind)]
    pub fn decode(&self, method: String, target: String, headers: Vec<String>, body: Uint8Array) -> Result<DecodedRequest> {
        let refs: Vec<(&str, &str)> = headers.chunks_exact(2).map(|p| (p[0].as_str(), p[1].as_str())).collect();
        let req = HttpRequest { method: &method, target: &target, headers: &refs, body: &body };
        let s = self.core.lock();
        Ok(match s.service.endpoint().decode(&req) {
            Ok(call) => {
                let mut json = Vec::new();
                call.operation.to_json(&mut json).map_err(|e| errors::encode_error(&e.to_string()))?;
                DecodedRequest {
                    kind: "call".into(),
                    method: Some(call.method().names().v1.to_string()),
                    request: Some(String::from_utf8_lossy(&json).into_owned()),
                    jsonrpc_id: Some(call.jsonrpc_id.to_string()),
                    version: Some(call.version.to_string()),
                    status: None,
                    headers: None,
                    body: None,
                    trailers: None,
                }
            }
            Err(r) => DecodedRequest {
                kind: "refused".into(),
                method: None,
                request: None,
                jsonrpc_id: None,
                version: None,
                status: Some(u32::from(r.status)),
                headers: Some(flat(&r.headers)),
                body: Some(r.body.into()),
                trailers: Some(flat(&r.trailers)),
            },
        })
    }

    /// The run a `"start"` output named (once).
    #[napi(catch_unwind)]
    pub fn take_run(&self, run: i64) -> Option<Run> {
        let id = RunId(u64::try_from(run).ok()?);
        let mut s = self.core.lock();
        let info = s.starting.remove(&id)?;
        let canceled = s.runs.get(&id).cloned().unwrap_or_default();
        drop(s);
        Some(Run::new(info, Backend::Service { core: self.core.clone(), canceled }))
    }

    /// The request a `"store"` output named (once), for `TaskStore.answer`.
    #[napi(catch_unwind)]
    pub fn take_store_request(&self, request: i64) -> Option<crate::store::StoreRequestHandle> {
        let n = u64::try_from(request).ok()?;
        self.core.lock().store_requests.remove(&n).map(crate::store::StoreRequestHandle::new)
    }

    /// Feeds a store's reply (from `TaskStore.answer`); then `poll()`: the calls that waited
    /// for it go on. Throws for a reply fed already.
    #[napi(catch_unwind)]
    pub fn store_reply(&self, reply: &crate::store::StoreReplyHandle) -> Result<()> {
        let reply = reply.take()?;
        self.core.lock().service.handle_store(reply, now());
        Ok(())
    }

    /// The verdict on an `"authenticate"` output: `principal` (null: anonymous) or `error`,
    /// the JSON of an A2AError (Unauthenticated, PermissionDenied) to answer with.
    #[napi(catch_unwind)]
    pub fn authenticated(&self, call: i64, principal: Option<String>, error: Option<String>) -> Result<()> {
        let verdict = match error {
            None => Ok(principal),
            Some(e) => Err(errors::a2a_from_json(&e)?),
        };
        let call = call_id(call)?;
        self.core.lock().service.handle_authenticated(call, verdict, now());
        Ok(())
    }

    /// The caller of `call` went away (the client disconnected).
    #[napi(catch_unwind)]
    pub fn caller_gone(&self, call: i64) -> Result<()> {
        let call = call_id(call)?;
        self.core.lock().service.handle_caller_gone(call);
        Ok(())
    }

    /// The client of stream `call` fell behind: the stream ends with an error event.
    #[napi(catch_unwind)]
    pub fn slow_consumer(&self, call: i64) -> Result<()> {
        let call = call_id(call)?;
        self.core.lock().service.handle_slow_consumer(call);
        Ok(())
    }

    /// Milliseconds until `timeout()` is due, or null.
    #[napi(catch_unwind)]
    pub fn next_timeout(&self) -> Option<f64> {
        let t = self.core.lock().service.poll_timeout()?;
        let n = now();
        let ms = (t.seconds - n.seconds) as f64 * 1e3 + f64::from(t.nanos - n.nanos) / 1e6;
        Some(ms.max(0.0))
    }

    /// Time passed (due webhook retries become attempts).
    #[napi(catch_unwind)]
    pub fn timeout(&self) {
        self.core.lock().service.handle_timeout(now());
    }

    /// Begins shutting down: streams end, waiting calls get Unavailable, runs are canceled
    /// (their `"cancel"` outputs come out of `poll()`).
    #[napi(catch_unwind)]
    pub fn shutdown(&self) {
        self.core.lock().service.shutdown();
    }

    /// True when no call, run output, webhook or store request is in flight.
    #[napi(catch_unwind)]
    pub fn is_idle(&self) -> bool {
        self.core.lock().service.is_idle()
    }

    /// The card served (ProtoJSON).
    #[napi(getter, catch_unwind)]
    pub fn card(&self) -> Result<String> {
        crate::run::json(self.core.lock().service.endpoint().card())
    }
}

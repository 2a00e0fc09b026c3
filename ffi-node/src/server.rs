//! The ready server (`ReadyServer`): the smol transport (HTTP/1.1 and HTTP/2, JSON-RPC,
//! HTTP+JSON, gRPC, SSE, the card) on threads of its own, with an agent that is a
//! JavaScript async function on the event loop.
//!
//! The transport's host calls the agent's `start` / `cancel` on its own thread. Those never
//! wait for JavaScript: they queue a call of a thread-safe function and return. The run's
//! events go back through the transport's thread-safe sink, also without waiting. The
//! thread-safe functions keep the event loop alive while the server serves (as a listening
//! socket does) and are released when it stops.

use crate::errors;
use crate::run::{Backend, Run, RunInfo};
use a2a::engine::RunId;
use a2a::error::{A2aError, ErrorKind};
use a2a::v1;
use a2a_wire_smol::agent::{Agent, EventSink, RequestContext};
use a2a_wire_smol::host::{self, AgentKind, AuthHook, AuthVerdict};
use a2a_wire_smol::ready::{ReadyError, ReadyOptions, WhichCard};
use a2a_wire_smol::RunningServer;
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

type StartFn = ThreadsafeFunction<Run, (), Run, Status, false>;
type CancelFn = ThreadsafeFunction<i64, (), i64, Status, false>;
type AuthFn = ThreadsafeFunction<AuthCall, (), AuthCall, Status, false>;

/// A call for the JavaScript `authenticate` to judge: the HTTP request and what the core read
/// in it. `answer` gives the verdict once; collected unanswered, the call is refused with an
/// internal error.
#[napi]
pub struct AuthCall {
    call: host::AuthCall,
    reply: Mutex<Option<async_channel::Sender<AuthVerdict>>>,
}

#[napi]
impl AuthCall {
    /// The HTTP method (gRPC: `POST`).
    #[napi(getter, catch_unwind)]
    pub fn method(&self) -> &str {
        &self.call.http_method
    }
    /// The request target: path and query.
    #[napi(getter, catch_unwind)]
    pub fn target(&self) -> &str {
        &self.call.target
    }
    /// Every header as received, flattened: name, value, name, value, ...
    #[napi(getter, catch_unwind)]
    pub fn headers(&self) -> Vec<String> {
        self.call.headers.iter().flat_map(|(n, v)| [n.clone(), v.clone()]).collect()
    }
    /// The peer's address (`host:port`), when known.
    #[napi(getter, catch_unwind)]
    pub fn peer_address(&self) -> Option<String> {
        self.call.peer.map(|a| a.ip().to_string())
    }
    /// The peer's port, when known.
    #[napi(getter, catch_unwind)]
    pub fn peer_port(&self) -> Option<u32> {
        self.call.peer.map(|a| u32::from(a.port()))
    }
    /// The A2A operation (`"SendMessage"`).
    #[napi(getter, catch_unwind)]
    pub fn operation(&self) -> &str {
        self.call.call.method.names().v1
    }
    /// `"JSONRPC"`, `"HTTP+JSON"` or `"GRPC"`.
    #[napi(getter, catch_unwind)]
    pub fn binding(&self) -> &str {
        self.call.call.binding.as_str()
    }
    /// The protocol version the call is served with.
    #[napi(getter, catch_unwind)]
    pub fn version(&self) -> String {
        self.call.call.version.to_string()
    }
    /// The tenant the call names (`""`: none).
    #[napi(getter, catch_unwind)]
    pub fn tenant(&self) -> &str {
        &self.call.call.tenant
    }
    /// The verdict: `principal` (null: anonymous) or `error`, an A2AError's JSON
    /// (`A2AError#toJSON`). False when the call was answered already.
    #[napi(catch_unwind)]
    pub fn answer(&self, principal: Option<String>, error: Option<String>) -> Result<bool> {
        let verdict = match error {
            None => Ok(principal),
            Some(e) => Err(errors::a2a_from_json(&e)?),
        };
        let reply = self.reply.lock().unwrap_or_else(PoisonError::into_inner).take();
        Ok(reply.is_some_and(|r| r.try_send(verdict).is_ok()))
    }
}

/// The hook of a server whose calls JavaScript judges: each call goes to the event loop as
/// an `AuthCall`; the call waits (on the transport's executor, not a thread) for the answer.
fn js_hook(judge: AuthFn) -> AuthHook {
    AuthHook::new_async(move |call| {
        let (tx, rx) = async_channel::bounded(1);
        // A call refused (the environment is closing) drops the sender: the call is refused.
        judge.call(AuthCall { call, reply: Mutex::new(Some(tx)) }, ThreadsafeFunctionCallMode::NonBlocking);
        async move { rx.recv().await.unwrap_or_else(|_| Err(A2aError::with_message(ErrorKind::Internal, "authentication failed"))) }
    })
}

struct JsAgent {
    /// None once the server stopped: new runs end at once.
    fns: Mutex<Option<(StartFn, CancelFn)>>,
}

impl Agent for JsAgent {
    fn start(&self, ctx: RequestContext, events: EventSink) {
        let fns = self.fns.lock().unwrap_or_else(PoisonError::into_inner);
        let Some((start, _)) = fns.as_ref() else {
            // Dropping the sink ends the run as finished.
            return;
        };
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
        // A call refused (the environment is closing) drops the run, which ends it.
        start.call(Run::new(info, Backend::Ready { events, cancel: ctx.cancel }), ThreadsafeFunctionCallMode::NonBlocking);
    }

    fn cancel(&self, run: RunId) {
        let fns = self.fns.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, cancel)) = fns.as_ref() {
            cancel.call(run.0 as i64, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// A running server.
#[napi]
pub struct ReadyServer {
    server: Arc<Mutex<Option<RunningServer>>>,
    agent: Arc<JsAgent>,
    url: String,
    card: v1::AgentCard,
}

/// What `serve` is set up with besides the host, the port, the card and the agent.
#[napi(object)]
pub struct ServeOptions {
    /// Token to principal: every call needs `Authorization: Bearer TOKEN`.
    pub bearer_tokens: Option<HashMap<String, String>>,
    /// Serve HTTPS only with this certificate and key (PEM files).
    pub tls: Option<crate::client::TlsFiles>,
    /// The extended card (ProtoJSON) of every authenticated caller without one of its own.
    pub extended_card: Option<String>,
    /// Extended cards (ProtoJSON) per principal.
    pub extended_cards: Option<HashMap<String, String>>,
    /// The `jku` put in each card signature's header (with a signing key).
    pub card_jku: Option<String>,
    /// Webhook receivers the SSRF guard lets through although not public (hosts, addresses,
    /// CIDR networks).
    pub allow_webhooks: Option<Vec<String>>,
    /// Let push notifications go to loopback and private addresses (tests).
    pub allow_private_webhooks: Option<bool>,
    /// PEM file of the CAs `https://` webhook receivers are verified against (absent: the
    /// platform's roots).
    pub webhook_ca_file: Option<String>,
    /// Keep the tasks in this SQLite file (created if missing), or in the PostgreSQL
    /// database of a `postgres://` URL, instead of in memory.
    pub store: Option<String>,
    /// With a store file: MiB of idle tasks cached in memory (default 64).
    pub cache_mb: Option<u32>,
    /// Delete terminal tasks whose last change is older (`90s`, `12h`, `30d`, `1500ms`).
    pub retain: Option<String>,
    /// The origin the card names instead of the listening address (a load balancer's).
    pub public_url: Option<String>,
}

/// A card given as ProtoJSON, read as given (its interfaces may still be the server's to
/// fill in; the whole card is checked once they are). `at` names the option in errors
/// (None: the card, whose errors keep the card's own paths).
fn card_arg(text: &str, at: Option<&str>) -> Result<v1::AgentCard> {
    a2a::codec::json::decode_unchecked(text.as_bytes()).map_err(|e| match at {
        Some(at) => errors::decode_error_in(&e, at),
        None => errors::decode_error(&e),
    })
}

/// How the option holding the extended card of `principal` is named in errors.
fn extended_at(principal: &str) -> String {
    format!("extendedCards[{}]", serde_json::Value::from(principal))
}

/// The bearer tokens of `serve` (token to principal), checked.
fn bearer_tokens(map: HashMap<String, String>) -> Result<a2a::auth::BearerTokens> {
    if map.is_empty() {
        return Err(errors::range_error("bearerTokens is empty: no caller could authenticate"));
    }
    let mut t = a2a::auth::BearerTokens::new();
    let mut pairs: Vec<_> = map.iter().collect();
    pairs.sort();
    for (token, principal) in pairs {
        // The message names the principal, never the token (a secret).
        t.insert(token, principal).map_err(|e| errors::range_error(format!("bearerTokens, the token of {principal:?}: {e}")))?;
    }
    Ok(t)
}

/// The webhook policy of a server's options: the SSRF guard's allow-list and the roots of
/// `https://` receivers.
pub(crate) fn webhook_policy(
    allow_private: Option<bool>,
    allow: Option<&[String]>,
    ca_file: Option<&str>,
) -> Result<a2a_wire_smol::webhook::WebhookPolicy> {
    let mut policy = a2a_wire_smol::webhook::WebhookPolicy { allow_private: allow_private.unwrap_or(false), ..Default::default() };
    a2a_wire_smol::ready::allow_webhooks(&mut policy, allow.unwrap_or_default())
        .map_err(|m| errors::range_error(format!("allowWebhooks: {m}")))?;
    if let Some(ca) = ca_file {
        policy.tls = a2a_wire_smol::tls::ClientTls::from_files(Some(std::path::Path::new(ca)), None)
            .map_err(|e| errors::throw(serde_json::json!({"class": "TLSError", "message": format!("webhookCaFile: {e}")})))?;
    }
    Ok(policy)
}

#[napi]
impl ReadyServer {
    /// Binds `host:port` (port 0: a free one) and serves `card` (ProtoJSON; a card without
    /// interfaces gets the standard six, one that lists some is served as given), calling
    /// `onStart(run)` for every run, `onCancel(runId)` when one is canceled, and
    /// `onAuthenticate(call)` (when given) for every call to judge. The settings (bearer tokens,
    /// TLS, extended cards, the signing key, the webhook policy) become the server's config
    /// through the transport's `ReadyOptions`, in the order it fixes (interfaces, checks,
    /// the bearer scheme, then the signatures). Returns once it listens.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        host: String,
        port: u16,
        card: String,
        options: ServeOptions,
        signing_key: Option<ClassInstance<crate::signing::NativeSigningKey>>,
        on_start: Function<Run, ()>,
        on_cancel: Function<i64, ()>,
        on_authenticate: Option<Function<AuthCall, ()>>,
    ) -> Result<Self> {
        let mut ready = ReadyOptions {
            bearer_tokens: options.bearer_tokens.map(bearer_tokens).transpose()?,
            webhooks: webhook_policy(
                options.allow_private_webhooks,
                options.allow_webhooks.as_deref(),
                options.webhook_ca_file.as_deref(),
            )?,
            signing_key: signing_key.map(|k| k.key.clone()),
            card_jku: options.card_jku,
            store: options.store.map(std::path::PathBuf::from),
            cache_bytes: options.cache_mb.map(|mb| (mb as usize).saturating_mul(1 << 20)),
            retention: options
                .retain
                .as_deref()
                .map(|r| {
                    a2a_wire_smol::ready::parse_duration(r)
                        .filter(|d| !d.is_zero())
                        .ok_or_else(|| errors::range_error(format!("retain {r:?}: a duration like 90s, 12h or 30d, or milliseconds")))
                })
                .transpose()?,
            public_origin: options
                .public_url
                .as_deref()
                .map(|u| a2a_wire_smol::demo::public_origin(u).map_err(|e| errors::range_error(format!("publicUrl: {e}"))))
                .transpose()?,
            cancel_grace: None,
            authenticate: match on_authenticate {
                Some(f) => Some(js_hook(f.build_threadsafe_function().callee_handled::<false>().build()?)),
                None => None,
            },
            ..ReadyOptions::default()
        };
        if let Some(f) = options.tls {
            let tls = a2a_wire_smol::tls::ServerTls::from_pem_files(&f.cert, &f.key)
                .map_err(|e| errors::throw(serde_json::json!({"class": "TLSError", "message": e.to_string()})))?;
            ready.tls = Some(tls);
        }
        let card = card_arg(&card, None)?;
        ready.extended_card = options.extended_card.as_deref().map(|c| card_arg(c, Some("extendedCard"))).transpose()?;
        for (principal, text) in options.extended_cards.unwrap_or_default() {
            let c = card_arg(&text, Some(&extended_at(&principal)))?;
            ready.extended_cards.insert(principal, c);
        }
        let ip: std::net::IpAddr = host.parse().map_err(|e| errors::range_error(format!("host {host:?} is not an IP address: {e}")))?;
        let wanted = SocketAddr::new(ip, port);
        // The card must name the port before the server binds it.
        let addr = a2a_wire_smol::server::concrete_addr(wanted).map_err(|e| Error::from_reason(format!("cannot bind {wanted}: {e}")))?;
        let origin = ready.listening_origin(addr);
        let store = ready.open_store().map_err(|e| Error::from_reason(e.to_string()))?;
        // A bad card is the ValidationError of the field at fault, its path inside the option.
        let config = ready.server_config(card, addr).map_err(|e| match e {
            ReadyError::Card { card: WhichCard::Public, error } => errors::decode_error(&error),
            ReadyError::Card { card: WhichCard::Extended, error } => errors::decode_error_in(&error, "extendedCard"),
            ReadyError::Card { card: WhichCard::ExtendedOf(p), error } => errors::decode_error_in(&error, &extended_at(&p)),
            ReadyError::Encode(m) => errors::encode_error(&m),
            ReadyError::Signature(m) => errors::throw(serde_json::json!({"class": "CardSignatureError", "message": m})),
            ReadyError::Store(m) => Error::from_reason(m),
            ReadyError::Auth => Error::from_reason(ReadyError::Auth.to_string()),
        })?;
        let start: StartFn = on_start.build_threadsafe_function().callee_handled::<false>().build()?;
        let cancel: CancelFn = on_cancel.build_threadsafe_function().callee_handled::<false>().build()?;
        let agent = Arc::new(JsAgent { fns: Mutex::new(Some((start, cancel))) });
        let card = config.card.clone();
        let kind = AgentKind::Callback(agent.clone());
        let server =
            RunningServer::start(addr, config, kind, store).map_err(|e| Error::from_reason(format!("cannot serve on {addr}: {e}")))?;
        Ok(ReadyServer { server: Arc::new(Mutex::new(Some(server))), agent, url: origin, card })
    }

    /// `http://HOST:PORT` (the card is at `/.well-known/agent-card.json`).
    #[napi(getter, catch_unwind)]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The card the server publishes (ProtoJSON).
    #[napi(getter, catch_unwind)]
    pub fn card(&self) -> Result<String> {
        crate::run::json(&self.card)
    }

    /// Stops the server (open streams end, running runs are canceled) and resolves once it
    /// has stopped. The event loop is no longer held by it.
    #[napi]
    pub async fn stop(&self) -> Result<()> {
        let server = self.server.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(s) = server {
            smol::unblock(move || s.stop()).await;
        }
        // Released after the stop, so that the cancels of the stop still reach the runs.
        self.agent.fns.lock().unwrap_or_else(PoisonError::into_inner).take();
        Ok(())
    }
}

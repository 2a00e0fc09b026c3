//! The whole A2A server, sans-IO (`a2a_wire::service::Service`), for a host on its own
//! event loop: requests and agent events in, answers, stream frames, runs to start or
//! cancel, webhooks to send and the next timer out.
//!
//! A service handle is used by one thread at a time (it may move between threads); outputs
//! and runs are plain data, usable from any thread.

use crate::codec::read_card;
use crate::{
    a2a_error, a2a_header, a2a_result, a2a_str, arg, arg_mut, box_out, bytes_arg, guard, guard_value, invalid, out, str_arg, timestamp,
};
use a2a::codec::json;
use a2a::engine::{AgentEvent, Cache, CallId, MemoryStore, RunEnd, RunId, Storage};
use a2a::error::{A2aError, ErrorKind};
use a2a::http::{HttpRequest, HttpResponse};
use a2a::service::{Output, Service, ServiceConfig};
use a2a::v1;
use a2a::webhook::{DeliveryId, Outcome};
use core::ffi::c_char;

/// What an output asks the host to do (`a2a_output_get_kind`). The values are stable.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_output_kind {
    /// Send this whole response (status, headers, body; gRPC trailers); the call is over.
    /// To a HEAD request send the head only.
    Answer = 1,
    /// Start a streaming response with this status and these headers.
    StreamHead = 2,
    /// Send these bytes on the stream (one event, already framed).
    StreamFrame = 3,
    /// Send these last bytes (may be empty), then end the stream with these trailers.
    StreamEnd = 4,
    /// Judge this call's credentials (headers), then `a2a_service_handle_authenticated`.
    Authenticate = 5,
    /// Start an agent run (`a2a_output_run`).
    StartRun = 6,
    /// Tell a run to stop (`a2a_output_run_id`, `a2a_output_task_id`).
    CancelRun = 7,
    /// Attempt a webhook delivery (POST `a2a_output_url` with the headers and body), then
    /// `a2a_service_handle_webhook_result`. Apply an SSRF guard and a time limit.
    SendWebhook = 8,
    /// Answer this store request (only with `a2a_service_config_set_external_store`): give
    /// the output to `a2a_store_answer` (on a thread of your own: it may block), then the
    /// reply to `a2a_service_handle_store`. Answer store requests in the order they came.
    Store = 9,
}

/// How a webhook attempt went (`a2a_service_handle_webhook_result`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_webhook_outcome {
    /// The receiver answered 2xx.
    Delivered = 1,
    /// The receiver answered with another status (give it).
    Status = 2,
    /// No answer: the name did not resolve, the connection failed or timed out.
    Unreachable = 3,
    /// Not attempted: the URL cannot be delivered to, or the SSRF guard refused it.
    Refused = 4,
}

/// The task states, with the proto's numbers.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_task_state {
    /// Unknown.
    Unspecified = 0,
    /// Received, not started.
    Submitted = 1,
    /// In progress.
    Working = 2,
    /// Done (terminal).
    Completed = 3,
    /// Failed (terminal).
    Failed = 4,
    /// Canceled (terminal).
    Canceled = 5,
    /// Waiting for the user (interrupted).
    InputRequired = 6,
    /// Refused by the agent (terminal).
    Rejected = 7,
    /// Waiting for authentication (interrupted).
    AuthRequired = 8,
}

pub use crate::run::a2a_run;

// ---------------------------------------------------------------- agent events from C

pub(crate) fn state_arg(state: crate::a2a_task_state_param) -> Result<v1::TaskState, a2a_error> {
    i32::try_from(state)
        .ok()
        .and_then(|s| v1::TaskState::try_from(s).ok())
        .filter(|s| *s != v1::TaskState::Unspecified)
        .ok_or_else(|| invalid(format!("{state} is not an a2a_task_state an agent may set")))
}

pub(crate) fn message_arg(p: *const u8, len: usize, name: &str) -> Result<v1::Message, a2a_error> {
    json::decode::<v1::Message>(bytes_arg(p, len, name)?).map_err(|e| a2a_error::decode(&e))
}

pub(crate) fn status_event(state: crate::a2a_task_state_param, message: Option<v1::Message>) -> Result<AgentEvent, a2a_error> {
    Ok(AgentEvent::status(v1::TaskStatus { state: state_arg(state)? as i32, message, timestamp: None }))
}

// ---------------------------------------------------------------- the service

/// The sans-IO server. Create with `a2a_service_new`, free with `a2a_service_free`.
pub struct a2a_service {
    pub(crate) inner: Service,
    /// Random, so that message ids made by the `_text` helpers differ between services.
    message_prefix: u64,
    next_message: u64,
}

/// Flag for `a2a_service_new`: ask the host to authenticate every call
/// (`A2A_OUTPUT_KIND_AUTHENTICATE`).
pub const A2A_SERVICE_AUTHENTICATE: u32 = 1;
/// Flag for `a2a_service_new`: a message whose `messageId` was seen before on its task is
/// answered with the task as it is, not run again.
pub const A2A_SERVICE_DEDUP_MESSAGE_IDS: u32 = 2;

pub(crate) fn random_key() -> Result<u128, a2a_error> {
    a2a_wire_smol::server::os_random_key().map_err(|e| a2a_error::local(a2a_result::Io, e.to_string()))
}

/// Creates a service for the Agent Card `card_json` (v1.0 ProtoJSON; its
/// `supportedInterfaces` are what is served, by URL path) with an optional extended card
/// (length 0: none) and `flags` (`A2A_SERVICE_*`, or 0). `now_ms` is the time (Unix
/// milliseconds) that dates the card. The tasks are kept in memory. `A2A_RESULT_CARD` when
/// the card cannot be served. The handle is used from one thread at a time.
#[no_mangle]
pub extern "C" fn a2a_service_new(
    card_json: *const u8,
    card_json_len: usize,
    extended_card_json: *const u8,
    extended_card_json_len: usize,
    flags: u32,
    now_ms: i64,
    service_out: *mut *mut a2a_service,
) -> a2a_result {
    guard(|| {
        let o = out(service_out, "service_out")?;
        if flags & !(A2A_SERVICE_AUTHENTICATE | A2A_SERVICE_DEDUP_MESSAGE_IDS) != 0 {
            return Err(invalid(format!("unknown flags {flags:#x}")));
        }
        let card = read_card(bytes_arg(card_json, card_json_len, "card_json")?)?;
        let ext = bytes_arg(extended_card_json, extended_card_json_len, "extended_card_json")?;
        let mut config = ServiceConfig::new(card);
        if !ext.is_empty() {
            config.extended_card = Some(read_card(ext)?);
        }
        new_service(config, Storage::Memory(MemoryStore::new()), flags, now_ms, o)
    })
}

/// Service settings beyond the card and flags, for `a2a_service_new_with` (a handle, so
/// that settings can be added without changing the ABI). Make it with
/// `a2a_service_config_new`, free it with `a2a_service_config_free`; the service copies what
/// it needs.
pub struct a2a_service_config {
    card: v1::AgentCard,
    extended_card: Option<v1::AgentCard>,
    extended_cards: std::collections::BTreeMap<String, v1::AgentCard>,
    flags: u32,
    /// With an external store: the cache bound in bytes.
    external_store: Option<usize>,
    retention: Option<std::time::Duration>,
}

/// A config serving the Agent Card `card_json` (v1.0 ProtoJSON, checked now:
/// `A2A_RESULT_CARD` when it cannot be read). Sign the card first (`a2a_card_sign`) to serve
/// it signed. Threads: any.
#[no_mangle]
pub extern "C" fn a2a_service_config_new(
    card_json: *const u8,
    card_json_len: usize,
    config_out: *mut *mut a2a_service_config,
) -> a2a_result {
    guard(|| {
        let o = out(config_out, "config_out")?;
        let card = read_card(bytes_arg(card_json, card_json_len, "card_json")?)?;
        box_out(
            o,
            a2a_service_config {
                card,
                extended_card: None,
                extended_cards: Default::default(),
                flags: 0,
                external_store: None,
                retention: None,
            },
        );
        Ok(())
    })
}

/// Sets the `A2A_SERVICE_*` flags (replacing those set before). Threads: one at a time per
/// config.
#[no_mangle]
pub extern "C" fn a2a_service_config_set_flags(config: *mut a2a_service_config, flags: u32) -> a2a_result {
    guard(|| {
        let c = arg_mut(config, "config")?;
        if flags & !(A2A_SERVICE_AUTHENTICATE | A2A_SERVICE_DEDUP_MESSAGE_IDS) != 0 {
            return Err(invalid(format!("unknown flags {flags:#x}")));
        }
        c.flags = flags;
        Ok(())
    })
}

/// Serves the extended Agent Card `card_json` (v1.0 ProtoJSON, checked now:
/// `A2A_RESULT_CARD`) by GetExtendedAgentCard: to the caller the host authenticated as
/// `principal`, or, with `principal` NULL, to every authenticated caller without a card of
/// its own. Anonymous callers get none. Needs `A2A_SERVICE_AUTHENTICATE`.
/// Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_service_config_set_extended_card(
    config: *mut a2a_service_config,
    principal: *const c_char,
    principal_len: usize,
    card_json: *const u8,
    card_json_len: usize,
) -> a2a_result {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let principal = crate::opt_str_arg(principal, principal_len, "principal")?;
        let card = read_card(bytes_arg(card_json, card_json_len, "card_json")?)?;
        match principal {
            Some(p) => {
                c.extended_cards.insert(p.to_string(), card);
            }
            None => c.extended_card = Some(card),
        }
        Ok(())
    })
}

/// Keeps the tasks in a store the host answers for (`A2A_OUTPUT_KIND_STORE` outputs, the
/// first of them before any other output) instead of in the service's memory, which then
/// holds the tasks with live calls, runs or streams plus a cache of about `cache_bytes`
/// bytes of others (0: none). Answer with an `a2a_store` (`a2a_store_new_memory`,
/// `a2a_store_open_sqlite`) on a thread of your own. Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_service_config_set_external_store(config: *mut a2a_service_config, cache_bytes: usize) -> a2a_result {
    guard(|| {
        arg_mut(config, "config")?.external_store = Some(cache_bytes);
        Ok(())
    })
}

/// Deletes each task in a terminal state (completed, canceled, failed, rejected) whose last
/// change is more than `millis` milliseconds old, with everything kept for it; afterwards it
/// answers as a task that never existed. Tasks not in a terminal state are never deleted.
/// 0 (the default) keeps every task. Needs `a2a_service_handle_timeout` when
/// `a2a_service_poll_timeout` says. Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_service_config_set_retention_ms(config: *mut a2a_service_config, millis: u64) -> a2a_result {
    guard(|| {
        arg_mut(config, "config")?.retention = (millis > 0).then(|| std::time::Duration::from_millis(millis));
        Ok(())
    })
}

/// Frees a config; NULL does nothing. Threads: any, once.
#[no_mangle]
pub extern "C" fn a2a_service_config_free(config: *mut a2a_service_config) {
    guard_value((), || crate::free_box(config))
}

/// `a2a_service_new` with the settings of `config`; the service copies them (`config` may
/// be freed or changed afterwards). The handle is used from one thread at a time.
#[no_mangle]
pub extern "C" fn a2a_service_new_with(config: *const a2a_service_config, now_ms: i64, service_out: *mut *mut a2a_service) -> a2a_result {
    guard(|| {
        let c = arg(config, "config")?;
        let o = out(service_out, "service_out")?;
        let mut sc = ServiceConfig::new(c.card.clone());
        sc.extended_card = c.extended_card.clone();
        sc.extended_cards = c.extended_cards.clone();
        sc.engine.retention = c.retention;
        let store = match c.external_store {
            None => Storage::Memory(MemoryStore::new()),
            Some(bytes) => {
                sc.engine.cache_bytes = bytes;
                Storage::External(Cache::new(bytes, random_key()? as u64))
            }
        };
        new_service(sc, store, c.flags, now_ms, o)
    })
}

fn new_service(mut config: ServiceConfig, store: Storage, flags: u32, now_ms: i64, o: &mut *mut a2a_service) -> Result<(), a2a_error> {
    config.authenticate = flags & A2A_SERVICE_AUTHENTICATE != 0;
    config.engine.dedup_message_ids = flags & A2A_SERVICE_DEDUP_MESSAGE_IDS != 0;
    let service = Service::new(config, store, random_key()?, timestamp(now_ms)).map_err(|e| a2a_error::local(a2a_result::Card, e.0))?;
    let message_prefix = random_key()? as u64;
    box_out(o, a2a_service { inner: service, message_prefix, next_message: 0 });
    Ok(())
}

/// Frees a service; NULL does nothing. Outputs already taken stay valid.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_free(service: *mut a2a_service) {
    guard_value((), || crate::free_box(service))
}

/// An HTTP request (HTTP/1.1 or HTTP/2; for gRPC the `:path` as target, the metadata as
/// headers and the framed messages as body). `*call_out` is the call's id; its answer
/// comes out of `a2a_service_poll_output`: one ANSWER (a streaming method refused before it
/// started answers this way too), or a STREAM_HEAD, STREAM_FRAMEs and a STREAM_END. The
/// Agent Card is answered at `/.well-known/agent-card.json`. Method, target and header
/// names must be UTF-8 (`A2A_RESULT_INVALID_UTF8`); header values that are not are read
/// with U+FFFD in place of the invalid bytes, and the service answers the request as usual.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_handle_request(
    service: *mut a2a_service,
    method: *const c_char,
    method_len: usize,
    target: *const c_char,
    target_len: usize,
    headers: *const a2a_header,
    headers_len: usize,
    body: *const u8,
    body_len: usize,
    now_ms: i64,
    call_out: *mut u64,
) -> a2a_result {
    guard(|| {
        let s = arg_mut(service, "service")?;
        let o = out(call_out, "call_out")?;
        let m = str_arg(method, method_len, "method")?;
        let t = str_arg(target, target_len, "target")?;
        let hs = crate::wire_headers_arg(headers, headers_len, "headers")?;
        let b = bytes_arg(body, body_len, "body")?;
        let pairs: Vec<(&str, &str)> = hs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let req = HttpRequest { method: m, target: t, headers: &pairs, body: b };
        *o = s.inner.handle_request(&req, timestamp(now_ms)).0;
        Ok(())
    })
}

/// Decodes a request the way `a2a_service_handle_request` would, without serving it, and
/// writes what it asks as JSON to `*decoded_out`: `{"method": "SendMessage", "request": {..
/// the v1.0 request message, canonical ProtoJSON ..}, "version": "1.0", "binding":
/// "JSONRPC", "jsonrpc_id": 1}` (`jsonrpc_id` null on the other bindings). For routing and
/// inspection; the card route is not decoded. `A2A_RESULT_DECODE` when the request would be
/// refused (`a2a_service_handle_request` gives the refusal's exact answer).
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_decode(
    service: *const a2a_service,
    method: *const c_char,
    method_len: usize,
    target: *const c_char,
    target_len: usize,
    headers: *const a2a_header,
    headers_len: usize,
    body: *const u8,
    body_len: usize,
    decoded_out: *mut *mut crate::a2a_bytes,
) -> a2a_result {
    guard(|| {
        let s = arg(service, "service")?;
        let o = out(decoded_out, "decoded_out")?;
        let m = str_arg(method, method_len, "method")?;
        let t = str_arg(target, target_len, "target")?;
        let hs = crate::wire_headers_arg(headers, headers_len, "headers")?;
        let b = bytes_arg(body, body_len, "body")?;
        let pairs: Vec<(&str, &str)> = hs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let req = HttpRequest { method: m, target: t, headers: &pairs, body: b };
        let call = s.inner.endpoint().decode(&req).map_err(|r| {
            a2a_error::local(
                a2a_result::Decode,
                format!("the request is refused with status {}: {}", r.status, String::from_utf8_lossy(&r.body)),
            )
        })?;
        let mut op = Vec::new();
        call.operation.to_json(&mut op).map_err(|e| a2a_error::local(a2a_result::Decode, e.to_string()))?;
        let request: serde_json::Value = serde_json::from_slice(&op).map_err(|e| a2a_error::local(a2a_result::Decode, e.to_string()))?;
        let v = serde_json::json!({
            "method": call.method().names().v1,
            "request": request,
            "version": call.version.to_string(),
            "binding": call.binding.as_str(),
            "jsonrpc_id": call.jsonrpc_id,
        });
        crate::bytes_out(o, serde_json::to_vec(&v).map_err(|e| a2a_error::local(a2a_result::Decode, e.to_string()))?);
        Ok(())
    })
}

/// The host's verdict on an `A2A_OUTPUT_KIND_AUTHENTICATE` output for `call`: with
/// `refuse_kind` 0 the call goes on as `principal` (NULL: anonymous); otherwise it is
/// answered with that error kind (`A2A_ERROR_KIND_UNAUTHENTICATED`,
/// `A2A_ERROR_KIND_PERMISSION_DENIED`) and `message` (NULL: the default message).
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_handle_authenticated(
    service: *mut a2a_service,
    call: u64,
    principal: *const c_char,
    principal_len: usize,
    refuse_kind: crate::a2a_error_kind_param,
    message: *const c_char,
    message_len: usize,
    now_ms: i64,
) -> a2a_result {
    guard(|| {
        let s = arg_mut(service, "service")?;
        let p = crate::opt_str_arg(principal, principal_len, "principal")?;
        let m = crate::opt_str_arg(message, message_len, "message")?;
        let verdict = match refuse_kind {
            0 => Ok(p.map(String::from)),
            k => {
                let kind = ErrorKind::from_number(k).ok_or_else(|| invalid(format!("{k} is not an a2a_error_kind")))?;
                Err(match m {
                    Some(m) => A2aError::with_message(kind, String::from(m)),
                    None => A2aError::new(kind),
                })
            }
        };
        s.inner.handle_authenticated(CallId(call), verdict, timestamp(now_ms));
        Ok(())
    })
}

fn agent_event(service: *mut a2a_service, run: u64, now_ms: i64, event: impl FnOnce() -> Result<AgentEvent, a2a_error>) -> a2a_result {
    guard(|| {
        let s = arg_mut(service, "service")?;
        let ev = event()?;
        s.inner.handle_agent_event(RunId(run), ev, timestamp(now_ms)).map_err(a2a_error::a2a)
    })
}

/// Agent run `run` sets its task's status to `state` (an `a2a_task_state`), with an
/// optional agent message (ProtoJSON `lf.a2a.v1.Message`; length 0: none).
/// `A2A_RESULT_A2A_ERROR` when the service refuses the event (the run is over or
/// superseded, or the event breaks the task's state machine); nothing changes then.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_agent_status(
    service: *mut a2a_service,
    run: u64,
    state: crate::a2a_task_state_param,
    message_json: *const u8,
    message_json_len: usize,
    now_ms: i64,
) -> a2a_result {
    agent_event(service, run, now_ms, || {
        let m = if message_json_len == 0 { None } else { Some(message_arg(message_json, message_json_len, "message_json")?) };
        status_event(state, m)
    })
}

/// Agent run `run` publishes an artifact (ProtoJSON `lf.a2a.v1.Artifact`), or a chunk of
/// one (`append`: add its parts to the artifact with the same id; `last_chunk`: complete).
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_agent_artifact(
    service: *mut a2a_service,
    run: u64,
    artifact_json: *const u8,
    artifact_json_len: usize,
    append: bool,
    last_chunk: bool,
    now_ms: i64,
) -> a2a_result {
    agent_event(service, run, now_ms, || {
        let artifact = json::decode::<v1::Artifact>(bytes_arg(artifact_json, artifact_json_len, "artifact_json")?)
            .map_err(|e| a2a_error::decode(&e))?;
        Ok(AgentEvent::Artifact { metadata: None, artifact, append, last_chunk })
    })
}

/// Agent run `run` replies with a message (ProtoJSON `lf.a2a.v1.Message`): as its first
/// event a direct reply (no task is kept), later a message in the task's conversation.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_agent_message(
    service: *mut a2a_service,
    run: u64,
    message_json: *const u8,
    message_json_len: usize,
    now_ms: i64,
) -> a2a_result {
    agent_event(service, run, now_ms, || Ok(AgentEvent::Message(message_arg(message_json, message_json_len, "message_json")?)))
}

fn agent_text(s: &mut a2a_service, text: &str) -> v1::Message {
    s.next_message += 1;
    let message_id = format!("a2a-{:016x}-{}", s.message_prefix, s.next_message);
    v1::Message { message_id, role: v1::Role::Agent as i32, parts: vec![text_part(text)], ..Default::default() }
}

fn text_part(text: &str) -> v1::Part {
    v1::Part { content: Some(v1::part::Content::Text(String::from(text))), ..Default::default() }
}

/// As `a2a_service_agent_status`, with the agent message given as text (one text part, a
/// fresh messageId); NULL text: no message.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_agent_status_text(
    service: *mut a2a_service,
    run: u64,
    state: crate::a2a_task_state_param,
    text: *const c_char,
    text_len: usize,
    now_ms: i64,
) -> a2a_result {
    guard(|| {
        let s = arg_mut(service, "service")?;
        let m = crate::opt_str_arg(text, text_len, "text")?.map(|t| agent_text(s, t));
        let ev = status_event(state, m)?;
        s.inner.handle_agent_event(RunId(run), ev, timestamp(now_ms)).map_err(a2a_error::a2a)
    })
}

/// As `a2a_service_agent_artifact`, with an artifact `artifact_id` of one text part.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_agent_artifact_text(
    service: *mut a2a_service,
    run: u64,
    artifact_id: *const c_char,
    artifact_id_len: usize,
    text: *const c_char,
    text_len: usize,
    append: bool,
    last_chunk: bool,
    now_ms: i64,
) -> a2a_result {
    guard(|| {
        let s = arg_mut(service, "service")?;
        let id = str_arg(artifact_id, artifact_id_len, "artifact_id")?;
        let t = str_arg(text, text_len, "text")?;
        if id.is_empty() {
            return Err(invalid("`artifact_id` is empty"));
        }
        let artifact = v1::Artifact { artifact_id: String::from(id), parts: vec![text_part(t)], ..Default::default() };
        s.inner
            .handle_agent_event(RunId(run), AgentEvent::Artifact { metadata: None, artifact, append, last_chunk }, timestamp(now_ms))
            .map_err(a2a_error::a2a)
    })
}

/// As `a2a_service_agent_message`, with the message given as text (one text part, a fresh
/// messageId).
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_agent_message_text(
    service: *mut a2a_service,
    run: u64,
    text: *const c_char,
    text_len: usize,
    now_ms: i64,
) -> a2a_result {
    guard(|| {
        let s = arg_mut(service, "service")?;
        let t = str_arg(text, text_len, "text")?;
        let m = agent_text(s, t);
        s.inner.handle_agent_event(RunId(run), AgentEvent::Message(m), timestamp(now_ms)).map_err(a2a_error::a2a)
    })
}

/// Agent run `run` ended: finished (`failure` NULL), or failed with `failure` as the reason
/// (its task moves to FAILED).
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_run_end(
    service: *mut a2a_service,
    run: u64,
    failure: *const c_char,
    failure_len: usize,
    now_ms: i64,
) -> a2a_result {
    guard(|| {
        let s = arg_mut(service, "service")?;
        let end = match crate::opt_str_arg(failure, failure_len, "failure")? {
            None => RunEnd::Finished,
            Some(f) => RunEnd::Failed(String::from(f)),
        };
        s.inner.handle_run_end(RunId(run), end, timestamp(now_ms));
        Ok(())
    })
}

/// The caller of `call` went away (connection closed, stream reset). The task goes on.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_caller_gone(service: *mut a2a_service, call: u64) -> a2a_result {
    guard(|| {
        arg_mut(service, "service")?.inner.handle_caller_gone(CallId(call));
        Ok(())
    })
}

/// The subscriber of stream `call` fell behind the host's bounded buffer: the stream ends
/// now with an Unavailable error event (the host must have room for that last output).
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_slow_consumer(service: *mut a2a_service, call: u64) -> a2a_result {
    guard(|| {
        arg_mut(service, "service")?.inner.handle_slow_consumer(CallId(call));
        Ok(())
    })
}

/// The outcome (an `a2a_webhook_outcome`) of webhook attempt `delivery`; `http_status` for
/// `A2A_WEBHOOK_OUTCOME_STATUS`, `detail` (may be NULL) says what went wrong.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_handle_webhook_result(
    service: *mut a2a_service,
    delivery: u64,
    outcome: u32,
    http_status: u16,
    detail: *const c_char,
    detail_len: usize,
    now_ms: i64,
) -> a2a_result {
    guard(|| {
        let s = arg_mut(service, "service")?;
        let d = crate::opt_str_arg(detail, detail_len, "detail")?.unwrap_or("").to_string();
        let o = match outcome {
            1 => Outcome::Delivered,
            2 => Outcome::Status(http_status),
            3 => Outcome::Unreachable(d),
            4 => Outcome::Refused(d),
            x => return Err(invalid(format!("{x} is not an a2a_webhook_outcome"))),
        };
        s.inner.handle_webhook_result(DeliveryId(delivery), o, timestamp(now_ms));
        Ok(())
    })
}

/// Time passed (call it at `a2a_service_poll_timeout`'s time): due webhook retries become
/// outputs.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_handle_timeout(service: *mut a2a_service, now_ms: i64) -> a2a_result {
    guard(|| {
        arg_mut(service, "service")?.inner.handle_timeout(timestamp(now_ms));
        Ok(())
    })
}

/// When `a2a_service_handle_timeout` should be called next (Unix milliseconds) into
/// `*deadline_ms_out`; `A2A_RESULT_NONE` when no timer is set.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_poll_timeout(service: *const a2a_service, deadline_ms_out: *mut i64) -> a2a_result {
    guard(|| {
        let s = arg(service, "service")?;
        let o = out(deadline_ms_out, "deadline_ms_out")?;
        let t = s.inner.poll_timeout().ok_or_else(|| a2a_error::local(a2a_result::None, String::from("no timer")))?;
        *o = crate::millis(&t);
        Ok(())
    })
}

/// The SSRF guard for SEND_WEBHOOK outputs: whether the IP address `ip` (text, `10.0.0.1`,
/// `::ffff:127.0.0.1`) is one a webhook must not reach unless the host allows private
/// receivers — loopback, private, link-local, CGNAT, multicast, documentation and reserved
/// ranges, and IPv6 forms carrying such an IPv4 address (mapped, compatible, NAT64, 6to4).
/// Check every address the receiver's name resolves to, and connect only to one checked.
/// `A2A_RESULT_INVALID_ARGUMENT` when `ip` is not an IP address. Any thread.
#[no_mangle]
pub extern "C" fn a2a_webhook_address_is_non_public(ip: *const c_char, ip_len: usize, non_public_out: *mut bool) -> a2a_result {
    guard(|| {
        let o = out(non_public_out, "non_public_out")?;
        let t = str_arg(ip, ip_len, "ip")?;
        let addr: core::net::IpAddr =
            t.trim_matches(|c| c == '[' || c == ']').parse().map_err(|_| invalid(format!("not an IP address: {t:?}")))?;
        *o = a2a::webhook::is_non_public(addr);
        Ok(())
    })
}

/// Begins shutting down: open streams end with Unavailable, waiting calls are answered
/// Unavailable, current runs are told to stop, new requests are refused. Drain the outputs.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_shutdown(service: *mut a2a_service) -> a2a_result {
    guard(|| {
        arg_mut(service, "service")?.inner.shutdown();
        Ok(())
    })
}

/// True when no call is open, no output waits, no webhook is pending and no store request
/// waits for its reply (false for NULL): a host with a store stops after this is true.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_is_idle(service: *const a2a_service) -> bool {
    guard_value(false, || arg(service, "service").is_ok_and(|s| s.inner.is_idle()))
}

/// The next thing to do into `*output_out` (free it with `a2a_output_free`);
/// `A2A_RESULT_NONE` when nothing waits. Drain until NONE after every input (or after a
/// batch of inputs: inputs may be fed at any time between polls), carrying the outputs out
/// in order. A CANCEL_RUN may come in the same drain right after its START_RUN (the task was
/// canceled meanwhile): a host that starts runs later must remember the cancel.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_poll_output(service: *mut a2a_service, output_out: *mut *mut a2a_output) -> a2a_result {
    guard(|| {
        let s = arg_mut(service, "service")?;
        let o = out(output_out, "output_out")?;
        let next = s.inner.poll_output().ok_or_else(|| a2a_error::local(a2a_result::None, String::from("no output")))?;
        box_out(o, a2a_output::new(next));
        Ok(())
    })
}

// ---------------------------------------------------------------- outputs

/// One output of the service. Free it with `a2a_output_free`; any thread.
pub struct a2a_output {
    pub(crate) inner: Output,
    run: Option<a2a_run>,
    /// A STORE output's request was handed to a store.
    pub(crate) store_taken: bool,
}

impl a2a_output {
    fn new(inner: Output) -> a2a_output {
        let run = match &inner {
            Output::StartRun(r) => {
                let e = &r.execution;
                let extra = crate::run::RunExtra {
                    principal: e.context.principal.as_deref(),
                    extensions: &e.context.extensions,
                    follow_up: e.follow_up,
                    resumed: e.resumed,
                    task: r.task.as_ref(),
                    tenant: &e.tenant,
                    metadata: e.metadata.as_ref(),
                    configuration: e.configuration.as_ref(),
                };
                Some(a2a_run::new(e.id, &e.task_id, &e.context_id, &e.message, extra))
            }
            _ => None,
        };
        a2a_output { inner, run, store_taken: false }
    }

    fn response(&self) -> Option<&HttpResponse> {
        match &self.inner {
            Output::Answer { response, .. } => Some(response),
            Output::StreamHead { head, .. } => Some(head),
            _ => None,
        }
    }

    fn headers(&self) -> &[(String, String)] {
        match &self.inner {
            Output::Answer { response, .. } => &response.headers,
            Output::StreamHead { head, .. } => &head.headers,
            Output::Authenticate(a) => &a.headers,
            Output::SendWebhook(w) => &w.request.headers,
            _ => &[],
        }
    }

    fn trailers(&self) -> &[(String, String)] {
        match &self.inner {
            Output::Answer { response, .. } => &response.trailers,
            Output::StreamEnd { trailers, .. } => trailers,
            _ => &[],
        }
    }
}

/// The output's kind (an `a2a_output_kind`; 0 for NULL).
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_get_kind(output: *const a2a_output) -> u32 {
    guard_value(0, || {
        arg(output, "output").map_or(0, |o| {
            (match &o.inner {
                Output::Answer { .. } => a2a_output_kind::Answer,
                Output::StreamHead { .. } => a2a_output_kind::StreamHead,
                Output::StreamFrame { .. } => a2a_output_kind::StreamFrame,
                Output::StreamEnd { .. } => a2a_output_kind::StreamEnd,
                Output::Authenticate(_) => a2a_output_kind::Authenticate,
                Output::StartRun(_) => a2a_output_kind::StartRun,
                Output::CancelRun { .. } => a2a_output_kind::CancelRun,
                Output::SendWebhook(_) => a2a_output_kind::SendWebhook,
                Output::Store(_) => a2a_output_kind::Store,
                // An output kind added to the core later: 0, which no host handles.
                _ => return 0,
            }) as u32
        })
    })
}

/// The call an output belongs to (answers, stream outputs, authentication); 0 otherwise.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_call(output: *const a2a_output) -> u64 {
    guard_value(0, || {
        arg(output, "output").map_or(0, |o| match &o.inner {
            Output::Answer { call, .. }
            | Output::StreamHead { call, .. }
            | Output::StreamFrame { call, .. }
            | Output::StreamEnd { call, .. } => call.0,
            Output::Authenticate(a) => a.call.0,
            _ => 0,
        })
    })
}

/// The HTTP status of an answer or a stream head; 0 otherwise.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_status(output: *const a2a_output) -> u16 {
    guard_value(0, || arg(output, "output").ok().and_then(|o| o.response()).map_or(0, |r| r.status))
}

/// The number of header fields: of an answer or stream head, of a webhook request, or the
/// credentials of an authentication request.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_header_count(output: *const a2a_output) -> usize {
    guard_value(0, || arg(output, "output").map_or(0, |o| o.headers().len()))
}

fn pair(list: &[(String, String)], index: usize, name_out: *mut a2a_str, value_out: *mut a2a_str) -> Result<(), a2a_error> {
    let n = out(name_out, "name_out")?;
    let v = out(value_out, "value_out")?;
    let (k, x) = list.get(index).ok_or_else(|| a2a_error::local(a2a_result::None, format!("no field {index}")))?;
    *n = a2a_str::of(k.as_bytes());
    *v = a2a_str::of(x.as_bytes());
    Ok(())
}

/// Header field `index` (borrowed from `output`); `A2A_RESULT_NONE` past the end.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_header(
    output: *const a2a_output,
    index: usize,
    name_out: *mut a2a_str,
    value_out: *mut a2a_str,
) -> a2a_result {
    guard(|| pair(arg(output, "output")?.headers(), index, name_out, value_out))
}

/// The number of trailer fields (a gRPC answer's or stream end's status).
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_trailer_count(output: *const a2a_output) -> usize {
    guard_value(0, || arg(output, "output").map_or(0, |o| o.trailers().len()))
}

/// Trailer field `index` (borrowed from `output`); `A2A_RESULT_NONE` past the end.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_trailer(
    output: *const a2a_output,
    index: usize,
    name_out: *mut a2a_str,
    value_out: *mut a2a_str,
) -> a2a_result {
    guard(|| pair(arg(output, "output")?.trailers(), index, name_out, value_out))
}

/// The bytes to send: an answer's body, a stream frame, a stream end's last bytes, a
/// webhook request's body; empty otherwise. Borrowed from `output`.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_body(output: *const a2a_output) -> a2a_str {
    guard_value(a2a_str::of(b""), || {
        a2a_str::of(arg(output, "output").map_or(&b""[..], |o| match &o.inner {
            Output::Answer { response, .. } => response.body.as_slice(),
            Output::StreamFrame { bytes, .. } | Output::StreamEnd { bytes, .. } => bytes.as_slice(),
            Output::SendWebhook(w) => w.request.body.as_slice(),
            _ => &b""[..],
        }))
    })
}

/// The run to start (`A2A_OUTPUT_KIND_START_RUN`), borrowed from `output`; NULL otherwise.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_run(output: *const a2a_output) -> *const a2a_run {
    guard_value(core::ptr::null(), || {
        arg(output, "output").ok().and_then(|o| o.run.as_ref()).map_or(core::ptr::null(), |r| r as *const a2a_run)
    })
}

/// The run of a START_RUN or CANCEL_RUN output; 0 otherwise.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_run_id(output: *const a2a_output) -> u64 {
    guard_value(0, || {
        arg(output, "output").map_or(0, |o| match &o.inner {
            Output::StartRun(r) => r.execution.id.0,
            Output::CancelRun { run, .. } => run.0,
            _ => 0,
        })
    })
}

/// The task of a START_RUN or CANCEL_RUN output, the tenant of an AUTHENTICATE output;
/// empty otherwise. Borrowed from `output`.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_task_id(output: *const a2a_output) -> a2a_str {
    guard_value(a2a_str::of(b""), || {
        a2a_str::of(arg(output, "output").map_or(&b""[..], |o| match &o.inner {
            Output::StartRun(r) => r.execution.task_id.as_bytes(),
            Output::CancelRun { task_id, .. } => task_id.as_bytes(),
            Output::Authenticate(a) => a.tenant.as_bytes(),
            _ => &b""[..],
        }))
    })
}

/// The operation (an `a2a_method`) of an AUTHENTICATE output; 0 otherwise.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_method(output: *const a2a_output) -> u32 {
    guard_value(0, || {
        arg(output, "output").map_or(0, |o| match &o.inner {
            Output::Authenticate(a) => a.method.number(),
            _ => 0,
        })
    })
}

/// The URL of a SEND_WEBHOOK output; empty otherwise. Borrowed from `output`.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_url(output: *const a2a_output) -> a2a_str {
    guard_value(a2a_str::of(b""), || {
        a2a_str::of(arg(output, "output").map_or(&b""[..], |o| match &o.inner {
            Output::SendWebhook(w) => w.request.url.as_bytes(),
            _ => &b""[..],
        }))
    })
}

/// The delivery id of a SEND_WEBHOOK output (give it back with the result); 0 otherwise.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_delivery_id(output: *const a2a_output) -> u64 {
    guard_value(0, || {
        arg(output, "output").map_or(0, |o| match &o.inner {
            Output::SendWebhook(w) => w.id.0,
            _ => 0,
        })
    })
}

/// Frees an output; NULL does nothing.
/// Threads: any (an output is plain data); one at a time for `a2a_output_free`.
#[no_mangle]
pub extern "C" fn a2a_output_free(output: *mut a2a_output) {
    guard_value((), || crate::free_box(output))
}

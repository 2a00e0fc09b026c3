//! The sans-IO client.
//!
//! [`Client`] holds one selected interface; [`Client::start`] turns an operation into an
//! [`Exchange`], a step function that a host drives with what its HTTP stack gives it (the
//! answer's head, body bytes, end and trailers) and that tells it what to do next
//! ([`Step`]): send a request, read more, take an event, or the result. Everything the
//! protocol decides is in here — the request's headers and framing, the HTTP+JSON
//! SubscribeToTask retry with the other verb on a method error, whether an answer is a stream, the stream's
//! framing, error classification, limits on what a server may send, and tracking the task —
//! so a binding on fetch, httpx or libcurl only moves bytes:
//!
//! ```text
//! let mut x = client.start(operation)?;
//! loop {
//!     match x.poll(now) {
//!         Step::Send(req) => { send req; x.handle_head(status, &headers) }
//!         Step::Read => match read body { Some(bytes) => x.handle_body(&bytes), None => x.handle_end(&trailers) },
//!         Step::Event(ev) => show ev,
//!         Step::Done(result) => break result,
//!     }
//! }
//! ```
//!
//! [`TaskTracker`] follows one task from what a server sends: a `SendMessage` answer, stream
//! events, `GetTask` snapshots. It uses the same state machine as the server
//! ([`crate::task::TaskRecord`]), so chunks assemble the same way on both sides, and it knows
//! when the task has settled (terminal, or waiting for the client).

mod exchange;
mod tracker;

pub use crate::error::ClientError;
pub use exchange::{Exchange, Finished, Step};
pub use tracker::{Reply, TaskTracker};

use crate::proto::google::protobuf::Timestamp;
use crate::v1;
use alloc::string::{String, ToString};

// ---------------------------------------------------------------- the sans-IO client

use crate::binding::{grpc, jsonrpc, rest, sse};
use crate::card::{Binding, SelectedInterface};
use crate::engine::EventId;
use crate::error::classify_http;
use crate::http::{HttpResponse, OutgoingRequest};
use crate::op::Response;
use crate::op::{Method, Operation};
pub use crate::v03::pb::FileBytes;
use alloc::vec::Vec;
use serde_json::Value;

/// The longest event id a client keeps to send back as `Last-Event-ID` (a longer one, or
/// one with characters a header cannot carry, is not used).
pub const MAX_RESUME_ID: usize = 256;

/// Whether a stream the server ended with this error is worth resuming ([`Client::resume`]):
/// the server cut it off as `Unavailable` (a subscriber that fell behind, a shutdown or a
/// restart). A dropped connection is the transport's to judge.
pub fn is_resumable_error(e: &ClientError) -> bool {
    matches!(e, ClientError::Remote(crate::error::Received::A2a(e)) if e.kind() == crate::error::ErrorKind::Unavailable)
}

/// The pause before resume attempt `attempt` (1, 2, ...) of a broken stream, in
/// milliseconds: 50, doubling each time, at most 2000.
pub fn resume_pause_ms(attempt: u32) -> u64 {
    (50u64 << attempt.saturating_sub(1).min(6)).min(2_000)
}

/// Largest stream event a client buffers by default (bytes).
pub const MAX_EVENT: usize = 2 * 1024 * 1024;

/// Limits on what a client accepts from a server (a malicious server is a peer too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientLimits {
    /// Largest whole answer body (unary answers, and error answers to streaming calls).
    pub max_body: usize,
    /// Largest single stream event (an SSE event or a gRPC message).
    pub max_event: usize,
}

impl Default for ClientLimits {
    fn default() -> Self {
        ClientLimits { max_body: 8 * 1024 * 1024, max_event: MAX_EVENT }
    }
}

/// A sans-IO A2A client for one selected interface: it builds requests and reads answers;
/// the transport moves the bytes.
///
/// - Every request carries `A2A-Version` (the interface's version), `A2A-Extensions` when
///   extensions are declared, and the interface's `tenant` when the operation names none.
/// - JSON-RPC stream events are unwrapped from their JSON-RPC responses; HTTP+JSON events are
///   bare `StreamResponse`s; gRPC events are length-prefixed messages.
/// - HTTP+JSON `SubscribeToTask` is sent as POST in v1.0 and GET in v0.3 (what the deployed
///   servers of each version route); [`Client::retry`] gives the other verb to send once when
///   the server answers with a method error (405, 501, MethodNotFound).
#[derive(Clone, Debug)]
pub struct Client {
    iface: SelectedInterface,
    extensions: Vec<String>,
    extra_headers: Vec<(String, String)>,
    next_id: u64,
    v03_files: FileBytes,
}

/// A request built by [`Client::prepare`], and what is needed to read its answer.
#[derive(Clone, Debug, PartialEq)]
pub struct PreparedCall {
    /// What to send.
    pub request: OutgoingRequest,
    /// The operation.
    pub method: Method,
    /// JSON-RPC id used.
    pub id: Value,
    binding: Binding,
    version: crate::version::ProtocolVersion,
    /// The tenant the operation names (after the interface's default).
    tenant: String,
    /// The other verb of an HTTP+JSON subscribe, to try once if the first is answered with a
    /// method error.
    method_fallback: Option<OutgoingRequest>,
    /// How v0.3 gRPC and HTTP+JSON file bytes are read from the answer.
    v03_files: FileBytes,
}

impl PreparedCall {
    /// True when the answer is a stream (use [`Client::stream_decoder`]).
    pub fn is_streaming(&self) -> bool {
        self.method.is_streaming()
    }
}

/// An HTTP error answer, read by the interface's version.
fn classify_for(version: crate::version::ProtocolVersion, status: u16, body: &[u8]) -> crate::error::Received {
    if version.is_legacy() {
        crate::error::classify_http_v03(status, body)
    } else {
        classify_http(status, body)
    }
}

fn join(base: &str, path: &str) -> String {
    let base = base.trim_end_matches('/');
    alloc::format!("{base}{path}")
}

impl Client {
    /// A client for `iface`.
    pub fn new(iface: SelectedInterface) -> Self {
        Client { iface, extensions: Vec::new(), extra_headers: Vec::new(), next_id: 1, v03_files: FileBytes::default() }
    }

    /// How file bytes travel on a v0.3 gRPC or HTTP+JSON interface: [`FileBytes::Base64Text`]
    /// by default (what the servers of a2a-sdk 0.3, a2a-go v0.3 and a2a-sdk 1.x's v0.3 layer
    /// read and write), [`FileBytes::Raw`] for a server on @a2a-js/sdk 0.3.
    pub fn with_v03_file_bytes(mut self, files: FileBytes) -> Self {
        self.v03_files = files;
        self
    }

    /// Declares extensions (sent in `A2A-Extensions`).
    pub fn with_extensions(mut self, uris: &[&str]) -> Self {
        self.extensions = uris.iter().map(|u| String::from(*u)).collect();
        self
    }

    /// Sends this header with every request (credentials such as `Authorization`; for gRPC
    /// the name is lowercased, as metadata keys are).
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        let name = if self.iface.binding == Binding::Grpc { name.to_ascii_lowercase() } else { String::from(name) };
        self.extra_headers.push((name, String::from(value)));
        self
    }

    /// The interface in use.
    pub fn interface(&self) -> &SelectedInterface {
        &self.iface
    }

    fn headers(&self, ctype: &str, accept: &str) -> Vec<(String, String)> {
        let grpc = self.iface.binding == Binding::Grpc;
        let mut h = alloc::vec![
            (String::from(if grpc { "content-type" } else { "Content-Type" }), String::from(ctype)),
            (String::from(if grpc { "a2a-version" } else { "A2A-Version" }), alloc::format!("{}", self.iface.version)),
        ];
        if grpc {
            h.push((String::from("te"), String::from("trailers")));
        } else {
            h.push((String::from("Accept"), String::from(accept)));
        }
        if !self.extensions.is_empty() {
            // v0.3 named it X-A2A-Extensions.
            let name = match (grpc, self.iface.version.is_legacy()) {
                (true, false) => "a2a-extensions",
                (true, true) => "x-a2a-extensions",
                (false, false) => "A2A-Extensions",
                (false, true) => "X-A2A-Extensions",
            };
            h.push((String::from(name), self.extensions.join(",")));
        }
        h.extend(self.extra_headers.iter().cloned());
        h
    }

    /// Builds the request for `operation`.
    pub fn prepare(&mut self, mut operation: Operation) -> Result<PreparedCall, ClientError> {
        if operation.tenant().is_empty() && !self.iface.tenant.is_empty() {
            let t = self.iface.tenant.clone();
            operation.set_tenant(&t);
        }
        let method = operation.method();
        let tenant = String::from(operation.tenant());
        let streaming = method.is_streaming();
        let id = Value::from(self.next_id);
        self.next_id += 1;
        let version = self.iface.version;
        let (request, method_fallback) = match self.iface.binding {
            Binding::JsonRpc => {
                let mut body = Vec::new();
                jsonrpc::encode_request(&id, version, &operation, &mut body)?;
                let accept = if streaming { sse::CONTENT_TYPE } else { jsonrpc::CONTENT_TYPE };
                (
                    OutgoingRequest {
                        method: "POST",
                        url: self.iface.url.clone(),
                        headers: self.headers(jsonrpc::CONTENT_TYPE, accept),
                        body,
                    },
                    None,
                )
            }
            Binding::HttpJson => {
                let (verb, path, body) = if version.is_legacy() {
                    rest::encode_request_v03_with(&operation, self.v03_files)
                } else {
                    rest::encode_request(&operation)
                }
                .map_err(|e| ClientError::Local(alloc::format!("{e}")))?;
                // v0.3 HTTP+JSON MUST use application/json (v0.3 §3.2.3); v1.0 names its own type.
                let (ctype, accept) = match (version.is_legacy(), streaming) {
                    (_, true) => (if version.is_legacy() { "application/json" } else { rest::CONTENT_TYPE }, sse::CONTENT_TYPE),
                    (true, false) => ("application/json", "application/json"),
                    (false, false) => (rest::CONTENT_TYPE, "application/a2a+json, application/json"),
                };
                let mut req =
                    OutgoingRequest { method: verb, url: join(&self.iface.url, &path), headers: self.headers(ctype, accept), body };
                let mut fallback = None;
                if method == Method::SubscribeToTask {
                    // The v1.0 proto says GET, its prose POST (§5.3, §11.3.2); the deployed v1.0
                    // servers route POST only (a2a-go v2.3.1 reads a GET as GetTask,
                    // @a2a-js/sdk 1.0.0-beta.0 as an unknown task), so POST goes first and GET
                    // follows a method error. The v0.3 releases route GET only (a2a-sdk
                    // 0.3.24's `/v1/tasks/{id}:subscribe`): GET first, then POST.
                    let post = OutgoingRequest { method: "POST", body: Vec::from(&b"{}"[..]), ..req.clone() };
                    let get = OutgoingRequest { method: "GET", body: Vec::new(), ..req.clone() };
                    let (first, second) = if version.is_legacy() { (get, post) } else { (post, get) };
                    req = first;
                    fallback = Some(second);
                }
                (req, fallback)
            }
            Binding::Grpc => {
                let mut msg = Vec::new();
                let path = if version.is_legacy() {
                    grpc::encode_request_v03_with(&operation, self.v03_files, &mut msg)?;
                    grpc::path_v03(method).ok_or_else(|| ClientError::Local(alloc::format!("{method:?} does not exist in A2A 0.3")))?
                } else {
                    grpc::encode_request(&operation, &mut msg);
                    grpc::path_v1(method)
                };
                let mut body = Vec::new();
                grpc::encode_frame(&msg, &mut body);
                let url = join(&self.iface.url, &path);
                (OutgoingRequest { method: "POST", url, headers: self.headers(grpc::CONTENT_TYPE, ""), body }, None)
            }
            Binding::Custom(ref b) => return Err(ClientError::Local(alloc::format!("binding {b} is not supported"))),
        };
        let v03_files = self.v03_files;
        Ok(PreparedCall { request, method, id, binding: self.iface.binding.clone(), version, tenant, method_fallback, v03_files })
    }

    /// The request to send once more after `answer`, if the binding's rules call for it (an
    /// HTTP+JSON subscribe answered with a method error is retried with the other verb).
    pub fn retry(&self, call: &mut PreparedCall, answer: &HttpResponse) -> Option<OutgoingRequest> {
        retry_request(call, answer)
    }

    /// Reads the answer to a unary call.
    pub fn parse(&self, call: &PreparedCall, answer: &HttpResponse) -> Result<Response, ClientError> {
        parse_answer(call, answer)
    }
    /// A decoder for the events of a streaming call whose response head was `head`; fails
    /// with the server's error when the head is not a stream.
    pub fn stream_decoder(&self, call: &PreparedCall, head: &HttpResponse) -> Result<StreamDecoder, ClientError> {
        stream_decoder(call, head, MAX_EVENT)
    }

    /// Starts `operation` as an [`Exchange`] with `limits`.
    pub fn start_with(&mut self, operation: Operation, limits: ClientLimits) -> Result<Exchange, ClientError> {
        let call = self.prepare(operation)?;
        Ok(Exchange::new(call, limits))
    }

    /// Starts `operation` as an [`Exchange`] with the default limits.
    pub fn start(&mut self, operation: Operation) -> Result<Exchange, ClientError> {
        self.start_with(operation, ClientLimits::default())
    }

    /// The `SubscribeToTask` that continues `previous`, a stream that broke off (its
    /// connection dropped, or the server cut it off as `Unavailable`): it names the id of
    /// the last event `previous` took (`Last-Event-ID`; gRPC metadata `last-event-id`), so
    /// a server that keeps its events (a2a-wire does) sends only what came after; one that
    /// does not starts with the current Task. The new exchange keeps `previous`'s tracker,
    /// so the task it shows goes on from where it was.
    ///
    /// `None` when there is nothing to resume: not a stream, a direct reply, no task seen
    /// yet, or a task that is settled (a stream ends there; nothing more will come until the
    /// client acts).
    pub fn resume(&mut self, previous: &Exchange) -> Result<Option<Exchange>, ClientError> {
        let tracker = &previous.tracker;
        if !previous.is_streaming() || previous.direct.is_some() || tracker.task().id.is_empty() || tracker.is_settled() {
            return Ok(None);
        }
        let request = v1::SubscribeToTaskRequest { tenant: previous.call.tenant.clone(), id: tracker.task().id.clone() };
        let mut call = self.prepare(Operation::Task(crate::op::Request::SubscribeToTask(request)))?;
        if let Some(id) = &previous.last_event_id {
            let name = if call.binding == Binding::Grpc { crate::server::LAST_EVENT_ID_HEADER } else { "Last-Event-ID" };
            call.request.headers.push((String::from(name), id.clone()));
            if let Some(other) = call.method_fallback.as_mut() {
                other.headers.push((String::from(name), id.clone()));
            }
        }
        let mut x = Exchange::new(call, previous.limits);
        x.tracker = tracker.clone();
        x.last_event_id.clone_from(&previous.last_event_id);
        Ok(Some(x))
    }
}

/// A decoder for the events of a streaming call whose response head was `head` (events up to
/// `max_event` bytes); fails with the server's error when the head is not a stream.
fn stream_decoder(call: &PreparedCall, head: &HttpResponse, max_event: usize) -> Result<StreamDecoder, ClientError> {
    let r = stream_decoder_typed(call, head, max_event);
    if call.version.is_legacy() {
        r.map_err(|e| infer_v03(call, e, &head.body))
    } else {
        r
    }
}

fn stream_decoder_typed(call: &PreparedCall, head: &HttpResponse, max_event: usize) -> Result<StreamDecoder, ClientError> {
    {
        if call.binding == Binding::Grpc {
            if head.status != 200 {
                return Err(ClientError::Remote(classify_http(head.status, &head.body)));
            }
            if head.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("grpc-status")) {
                grpc::check_status_for(&head.headers, call.version.is_legacy())?;
            }
            // A v1.0 a2a-wire server numbers the messages from the id in its head.
            let next = head.header(crate::server::EVENT_ID_HEADER).and_then(|v| EventId::parse(v.trim()));
            return Ok(StreamDecoder {
                inner: Inner::Grpc { buf: Vec::new(), legacy: call.version.is_legacy(), next, files: call.v03_files },
                max_event,
                last_id: None,
            });
        }
        let is_sse = head.header("content-type").is_some_and(|c| crate::http::media_type(c) == sse::CONTENT_TYPE);
        if !(200..300).contains(&head.status) || !is_sse {
            // An error answered before the stream started, in the binding's error shape.
            return Err(match call.binding {
                Binding::JsonRpc if head.status == 200 => match jsonrpc::decode_response(&head.body, call.version, Method::GetTask) {
                    Err(e) => e,
                    Ok(_) => ClientError::Protocol(String::from("a stream was expected")),
                },
                _ => ClientError::Remote(classify_for(call.version, head.status, &head.body)),
            });
        }
        Ok(StreamDecoder {
            inner: Inner::Sse {
                decoder: sse::SseDecoder::new(max_event),
                jsonrpc: call.binding == Binding::JsonRpc,
                version: call.version,
                files: call.v03_files,
            },
            max_event,
            last_id: None,
        })
    }
}

#[derive(Clone, Debug)]
enum Inner {
    Sse {
        decoder: sse::SseDecoder,
        jsonrpc: bool,
        version: crate::version::ProtocolVersion,
        files: FileBytes,
    },
    /// `next`: the id of the next message, when the head gave the first.
    Grpc {
        buf: Vec<u8>,
        legacy: bool,
        next: Option<EventId>,
        files: FileBytes,
    },
}

/// Decodes the events of one stream: feed bytes as they arrive, take events as they complete.
#[derive(Clone, Debug)]
pub struct StreamDecoder {
    inner: Inner,
    max_event: usize,
    /// The id of the last event taken (SSE `id:`; for gRPC counted from the head's).
    last_id: Option<String>,
}

impl StreamDecoder {
    /// Feeds received body bytes.
    pub fn feed(&mut self, bytes: &[u8]) {
        match &mut self.inner {
            Inner::Sse { decoder, .. } => decoder.feed(bytes),
            Inner::Grpc { buf, .. } => buf.extend_from_slice(bytes),
        }
    }

    /// The id of the last event [`StreamDecoder::next_event`] returned, if the server gave
    /// ids (the SSE `id:` field, which lasts until the server sends another; for a gRPC
    /// stream, counted from the head's `a2a-event-id`).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The next event; `Ok(None)` when more bytes are needed; an error event or a malformed
    /// stream is an `Err`.
    pub fn next_event(&mut self) -> Result<Option<v1::StreamResponse>, ClientError> {
        let (event, id) = self.decode_next()?;
        // An id goes back in a request header: only one that is short, printable ASCII.
        let usable = |i: &String| i.len() <= MAX_RESUME_ID && i.bytes().all(|b| (0x20..0x7f).contains(&b));
        if event.is_some() {
            if let Some(id) = id.filter(usable) {
                self.last_id = Some(id);
            }
        }
        Ok(event)
    }

    fn decode_next(&mut self) -> Result<(Option<v1::StreamResponse>, Option<String>), ClientError> {
        match &mut self.inner {
            Inner::Sse { decoder, jsonrpc: rpc, version, files } => {
                let Some(ev) = decoder.next_event().map_err(|e| ClientError::Protocol(alloc::format!("{e}")))? else {
                    return Ok((None, None));
                };
                let id = ev.id.clone();
                Self::decode_sse(&ev, *rpc, *version, *files).map(|e| (Some(e), id))
            }
            Inner::Grpc { buf, legacy, next, files } => {
                if buf.len() < 5 {
                    return Ok((None, None));
                }
                if buf[0] != 0 {
                    return Err(ClientError::Protocol(String::from("compressed gRPC message")));
                }
                let len = u32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]) as usize;
                if len > self.max_event {
                    return Err(ClientError::Protocol(alloc::format!("gRPC message of {len} bytes is over the limit")));
                }
                if buf.len() < 5 + len {
                    return Ok((None, None));
                }
                let event = if *legacy {
                    grpc::decode_stream_event_v03_with(&buf[5..5 + len], *files)
                } else {
                    grpc::decode_stream_event(&buf[5..5 + len])
                };
                buf.drain(..5 + len);
                let id = next.map(|n| n.to_string());
                *next = next.map(|n| n.plus(1));
                event.map(|e| (Some(e), id))
            }
        }
    }

    fn decode_sse(
        ev: &sse::SseEvent,
        rpc: bool,
        version: crate::version::ProtocolVersion,
        files: FileBytes,
    ) -> Result<v1::StreamResponse, ClientError> {
        if rpc {
            return jsonrpc::decode_stream_event(ev.data.as_bytes(), version);
        }
        // HTTP+JSON: a bare StreamResponse, or a google.rpc.Status error event.
        let data = ev.data.as_bytes();
        if let Ok(v) = serde_json::from_slice::<Value>(data) {
            if v.get("error").is_some_and(Value::is_object) {
                let status = v["error"]["code"].as_u64().and_then(|c| u16::try_from(c).ok()).unwrap_or(500);
                return Err(ClientError::Remote(classify_for(version, status, data)));
            }
            // v0.3 peers may send a bare JSON-RPC-style error object as the event.
            if version.is_legacy() && v.get("code").is_some_and(Value::is_i64) && v.get("message").is_some() && v.get("kind").is_none() {
                return Err(ClientError::Remote(classify_for(version, 500, data)));
            }
        }
        if version.is_legacy() {
            return rest::decode_stream_event_v03_with(data, files);
        }
        crate::codec::json::decode_unchecked::<v1::StreamResponse>(data)
            .map_err(|e| ClientError::Protocol(alloc::format!("invalid stream event: {e}")))
    }

    /// The end of the stream: for gRPC, its trailers decide success.
    pub fn finish(&self, trailers: &[(String, String)]) -> Result<(), ClientError> {
        match &self.inner {
            Inner::Grpc { buf, .. } if !buf.is_empty() => {
                Err(ClientError::Protocol(alloc::format!("the stream ended inside a gRPC message ({} bytes left)", buf.len())))
            }
            Inner::Grpc { legacy, .. } => grpc::check_status_for(trailers, *legacy),
            Inner::Sse { .. } => Ok(()),
        }
    }
}

/// What an error answer of a v0.3 gRPC or HTTP+JSON server that carries no A2A type means
/// for `method`, read as the v0.3 releases' own clients read their servers' errors:
/// - gRPC (a2a-go v0.3.15 and @a2a-js/sdk 0.3.14 send a bare status): `NOT_FOUND` of a call
///   naming a task is TaskNotFound, `FAILED_PRECONDITION` of CancelTask is TaskNotCancelable;
/// - HTTP+JSON (a2a-sdk 0.3.24 sends `{"message": ...}` with a status from its table): 404 of
///   a call naming a task is TaskNotFound, 409 TaskNotCancelable, 501 UnsupportedOperation
///   (PushNotificationNotSupported for a push config call), 415 ContentTypeNotSupported,
///   422 InvalidParams, 502 InvalidAgentResponse.
///
/// A status alone means nothing more (a proxy's 404 is not TaskNotFound): the HTTP rule
/// needs the body to be exactly that shape, and neither rule applies to v1.0 interfaces.
fn infer_v03(call: &PreparedCall, error: ClientError, body: &[u8]) -> ClientError {
    use crate::error::{ErrorKind as K, Received};
    let ClientError::Remote(Received::NotA2a { status, message }) = &error else { return error };
    let names_task = !matches!(call.method, Method::ListTasks | Method::GetExtendedAgentCard);
    let push = matches!(
        call.method,
        Method::CreateTaskPushNotificationConfig
            | Method::GetTaskPushNotificationConfig
            | Method::ListTaskPushNotificationConfigs
            | Method::DeleteTaskPushNotificationConfig
    );
    let kind = match call.binding {
        Binding::Grpc => match *status {
            5 if names_task => Some(K::TaskNotFound),
            9 if call.method == Method::CancelTask => Some(K::TaskNotCancelable),
            _ => None,
        },
        Binding::HttpJson => {
            let sdk_shape = serde_json::from_slice::<Value>(body)
                .ok()
                .and_then(|v| v.as_object().map(|o| o.len() == 1 && o.get("message").is_some_and(Value::is_string)))
                .unwrap_or(false);
            match *status {
                _ if !sdk_shape => None,
                404 if names_task => Some(K::TaskNotFound),
                409 if call.method == Method::CancelTask => Some(K::TaskNotCancelable),
                501 if push => Some(K::PushNotificationNotSupported),
                501 => Some(K::UnsupportedOperation),
                415 => Some(K::ContentTypeNotSupported),
                422 => Some(K::InvalidParams),
                502 => Some(K::InvalidAgentResponse),
                _ => None,
            }
        }
        _ => None,
    };
    match kind {
        Some(k) => ClientError::Remote(Received::A2a(if message.is_empty() {
            crate::error::A2aError::new(k)
        } else {
            crate::error::A2aError::with_message(k, message.clone())
        })),
        None => error,
    }
}

/// Reads the answer to a unary call.
fn parse_answer(call: &PreparedCall, answer: &HttpResponse) -> Result<Response, ClientError> {
    let r = parse_answer_typed(call, answer);
    if call.version.is_legacy() {
        r.map_err(|e| infer_v03(call, e, &answer.body))
    } else {
        r
    }
}

fn parse_answer_typed(call: &PreparedCall, answer: &HttpResponse) -> Result<Response, ClientError> {
    match call.binding {
        Binding::Grpc => {
            let fields = if answer.trailers.is_empty() { &answer.headers } else { &answer.trailers };
            grpc::check_status_for(fields, call.version.is_legacy())?;
            let frames = grpc::decode_frames(&answer.body, answer.body.len()).map_err(|e| ClientError::Protocol(alloc::format!("{e}")))?;
            let [message] = frames.as_slice() else {
                return Err(ClientError::Protocol(String::from("a unary gRPC answer carries exactly one message")));
            };
            if call.version.is_legacy() {
                grpc::decode_response_v03_with(message, call.method, call.v03_files)
            } else {
                grpc::decode_response(message, call.method)
            }
        }
        Binding::JsonRpc if answer.status == 200 => jsonrpc::decode_response(&answer.body, call.version, call.method),
        // Any 2xx is success (the JS SDK's v0.3 server answers message:send with 201).
        Binding::HttpJson if (200..300).contains(&answer.status) => {
            if call.version.is_legacy() {
                rest::decode_response_v03_with(&answer.body, call.method, call.v03_files)
            } else {
                rest::decode_response(&answer.body, call.method)
            }
        }
        _ => Err(ClientError::Remote(classify_for(call.version, answer.status, &answer.body))),
    }
}

fn retry_request(call: &mut PreparedCall, answer: &HttpResponse) -> Option<OutgoingRequest> {
    call.method_fallback.as_ref()?;
    // A method error: the verb is not routed (405, 501), or the server says the method does
    // not exist (MethodNotFound: JSON-RPC -32601, gRPC UNIMPLEMENTED, reason METHOD_NOT_FOUND).
    let method_error = matches!(answer.status, 405 | 501)
        || (answer.status >= 400
            && matches!(classify_for(call.version, answer.status, &answer.body), crate::error::Received::A2a(e) if e.kind() == crate::error::ErrorKind::MethodNotFound));
    if method_error {
        call.method_fallback.take()
    } else {
        None
    }
}

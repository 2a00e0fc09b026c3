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

pub use crate::error::ClientError;
use crate::proto::google::protobuf::Timestamp;
use crate::task::{self, Rejection, StateClass, TaskRecord};
use crate::v1;
use alloc::string::{String, ToString};

/// What a `SendMessage` answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// A direct reply: there is no task to follow.
    Message(v1::Message),
    /// A task to follow.
    Task(TaskTracker),
}

impl Reply {
    /// Reads a `SendMessageResponse`; `None` when it carries neither member.
    pub fn from_response(r: v1::SendMessageResponse) -> Option<Reply> {
        use v1::send_message_response::Payload;
        match r.payload? {
            Payload::Message(m) => Some(Reply::Message(m)),
            Payload::Task(t) => Some(Reply::Task(TaskTracker::new(t))),
        }
    }
}

/// One task as the client knows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskTracker {
    record: TaskRecord,
}

impl TaskTracker {
    /// Starts from a snapshot.
    pub fn new(task: v1::Task) -> Self {
        TaskTracker { record: TaskRecord::new(task) }
    }

    /// Starts from nothing (the first stream event will be the Task).
    pub fn empty() -> Self {
        Self::default()
    }

    /// The task as known now.
    pub fn task(&self) -> &v1::Task {
        &self.record.task
    }

    /// Its current state, if known.
    pub fn state(&self) -> Option<v1::TaskState> {
        self.record.state()
    }

    /// True when nothing more will happen without the client: a terminal state, or an
    /// interrupted one (input or auth required).
    pub fn is_settled(&self) -> bool {
        matches!(self.state().map(task::class), Some(StateClass::Terminal | StateClass::Interrupted))
    }

    /// True when the task can never change again.
    pub fn is_terminal(&self) -> bool {
        matches!(self.state().map(task::class), Some(StateClass::Terminal))
    }

    /// Applies one stream event (a Task snapshot replaces what is known). Events for another
    /// task, or that break the state machine, are refused and change nothing.
    ///
    /// A tracker that knows no task yet takes its ids from a first status or artifact update:
    /// the v0.3 releases (a2a-sdk 0.3.24, a2a-go v0.3.15) open `tasks/resubscribe` with a
    /// status update, not with the Task, and the Task is then built from the events.
    pub fn on_event(&mut self, event: &v1::StreamResponse, now: Timestamp) -> Result<(), Rejection> {
        use v1::stream_response::Payload;
        if self.record.task.id.is_empty() {
            let ids = match &event.payload {
                Some(Payload::StatusUpdate(u)) => Some((&u.task_id, &u.context_id)),
                Some(Payload::ArtifactUpdate(u)) => Some((&u.task_id, &u.context_id)),
                _ => None,
            };
            if let Some((task_id, context_id)) = ids.filter(|(t, _)| !t.is_empty()) {
                let mut record = TaskRecord::new(v1::Task { id: task_id.clone(), context_id: context_id.clone(), ..Default::default() });
                record.apply_stream_event(event, now)?;
                self.record = record;
                return Ok(());
            }
        }
        self.record.apply_stream_event(event, now)
    }

    /// Replaces what is known with a fresh snapshot (after `GetTask`); keeps which artifacts
    /// were closed.
    pub fn on_snapshot(&mut self, task: v1::Task) -> Result<(), Rejection> {
        if !self.record.task.id.is_empty() && task.id != self.record.task.id {
            return Err(Rejection::WrongTask { field: "taskId" });
        }
        self.record.task = task;
        Ok(())
    }
}

// ---------------------------------------------------------------- the sans-IO client

use crate::binding::{grpc, jsonrpc, rest, sse};
use crate::card::{Binding, SelectedInterface};
use crate::engine::EventId;
use crate::error::classify_http;
use crate::http::{HttpResponse, OutgoingRequest};
use crate::op::Response;
use crate::op::{Method, Operation};
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
        Client { iface, extensions: Vec::new(), extra_headers: Vec::new(), next_id: 1 }
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
                let (verb, path, body) =
                    if version.is_legacy() { rest::encode_request_v03(&operation) } else { rest::encode_request(&operation) }
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
                    grpc::encode_request_v03(&operation, &mut msg)?;
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
        Ok(PreparedCall { request, method, id, binding: self.iface.binding.clone(), version, tenant, method_fallback })
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
                inner: Inner::Grpc { buf: Vec::new(), legacy: call.version.is_legacy(), next },
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
    },
    /// `next`: the id of the next message, when the head gave the first.
    Grpc {
        buf: Vec<u8>,
        legacy: bool,
        next: Option<EventId>,
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
            Inner::Sse { decoder, jsonrpc: rpc, version } => {
                let Some(ev) = decoder.next_event().map_err(|e| ClientError::Protocol(alloc::format!("{e}")))? else {
                    return Ok((None, None));
                };
                let id = ev.id.clone();
                Self::decode_sse(&ev, *rpc, *version).map(|e| (Some(e), id))
            }
            Inner::Grpc { buf, legacy, next } => {
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
                let event =
                    if *legacy { grpc::decode_stream_event_v03(&buf[5..5 + len]) } else { grpc::decode_stream_event(&buf[5..5 + len]) };
                buf.drain(..5 + len);
                let id = next.map(|n| n.to_string());
                *next = next.map(|n| n.plus(1));
                event.map(|e| (Some(e), id))
            }
        }
    }

    fn decode_sse(ev: &sse::SseEvent, rpc: bool, version: crate::version::ProtocolVersion) -> Result<v1::StreamResponse, ClientError> {
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
            return rest::decode_stream_event_v03(data);
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

/// Reads the answer to a unary call.
fn parse_answer(call: &PreparedCall, answer: &HttpResponse) -> Result<Response, ClientError> {
    match call.binding {
        Binding::Grpc => {
            let fields = if answer.trailers.is_empty() { &answer.headers } else { &answer.trailers };
            grpc::check_status_for(fields, call.version.is_legacy())?;
            let frames = grpc::decode_frames(&answer.body, answer.body.len()).map_err(|e| ClientError::Protocol(alloc::format!("{e}")))?;
            let [message] = frames.as_slice() else {
                return Err(ClientError::Protocol(String::from("a unary gRPC answer carries exactly one message")));
            };
            if call.version.is_legacy() {
                grpc::decode_response_v03(message, call.method)
            } else {
                grpc::decode_response(message, call.method)
            }
        }
        Binding::JsonRpc if answer.status == 200 => jsonrpc::decode_response(&answer.body, call.version, call.method),
        // Any 2xx is success (the JS SDK's v0.3 server answers message:send with 201).
        Binding::HttpJson if (200..300).contains(&answer.status) => {
            if call.version.is_legacy() {
                rest::decode_response_v03(&answer.body, call.method)
            } else {
                rest::decode_response(&answer.body, call.method)
            }
        }
        _ => Err(ClientError::Remote(classify_for(call.version, answer.status, &answer.body))),
    }
}

// ---------------------------------------------------------------- the step function

/// What a host does next for an [`Exchange`].
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Send this request (the first one, or a retry the binding's rules call for), then feed
    /// its answer: [`Exchange::handle_head`], [`Exchange::handle_body`],
    /// [`Exchange::handle_end`].
    Send(OutgoingRequest),
    /// Feed more of the answer (body bytes, or its end).
    Read,
    /// A stream event (already applied to [`Exchange::task`]).
    Event(v1::StreamResponse),
    /// The exchange is over: see [`Finished`].
    Done(Finished),
}

/// How an exchange ended.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum Finished {
    /// A unary call's answer.
    Answer(Response),
    /// A stream ended normally (its events came as [`Step::Event`]s).
    StreamEnded,
    /// The call failed: the server's error, a protocol violation, or a limit.
    Failed(ClientError),
}

impl Finished {
    /// The unary answer, or the error (a stream's normal end is a protocol error here).
    pub fn into_result(self) -> Result<Response, ClientError> {
        match self {
            Finished::Answer(r) => Ok(r),
            Finished::Failed(e) => Err(e),
            Finished::StreamEnded => Err(ClientError::Protocol(String::from("a stream where an answer was expected"))),
        }
    }
}

#[derive(Debug)]
enum XState {
    /// The request to send next.
    ToSend(OutgoingRequest),
    /// Sent; waiting for the answer's head.
    AwaitHead,
    /// Reading a whole body (a unary answer, or an error answer to a streaming call).
    Body,
    /// Reading a stream.
    Stream(StreamDecoder),
    /// The stream's body ended (with these trailers); remaining events are being taken.
    Draining(StreamDecoder, Vec<(String, String)>),
    /// Over.
    Over(Option<Finished>),
}

/// One operation in flight: a step function (see the module docs).
#[derive(Debug)]
pub struct Exchange {
    call: PreparedCall,
    limits: ClientLimits,
    state: XState,
    head: HttpResponse,
    tracker: TaskTracker,
    direct: Option<v1::Message>,
    /// The id of the last event taken, if the server gives ids.
    last_event_id: Option<String>,
}

fn over_limit(what: &str, limit: usize) -> ClientError {
    ClientError::Protocol(alloc::format!("{what} over the limit of {limit} bytes"))
}

impl Exchange {
    fn new(call: PreparedCall, limits: ClientLimits) -> Self {
        let req = call.request.clone();
        Exchange {
            call,
            limits,
            state: XState::ToSend(req),
            head: HttpResponse::default(),
            tracker: TaskTracker::empty(),
            direct: None,
            last_event_id: None,
        }
    }

    /// The operation.
    pub fn method(&self) -> Method {
        self.call.method
    }

    /// True when the answer is a stream of events.
    pub fn is_streaming(&self) -> bool {
        self.call.is_streaming()
    }

    /// The prepared call (request, JSON-RPC id).
    pub fn prepared(&self) -> &PreparedCall {
        &self.call
    }

    /// The task as the stream has shown it so far (streams only).
    pub fn task(&self) -> &TaskTracker {
        &self.tracker
    }

    /// The direct reply, when a stream's first event was a Message instead of a task.
    pub fn direct_reply(&self) -> Option<&v1::Message> {
        self.direct.as_ref()
    }

    /// The id of the last stream event taken, when the server gives ids (what
    /// [`Client::resume`] sends as `Last-Event-ID`). It outlives the stream's end.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// True once the answer's head said it is a stream of events: from here on, its bytes
    /// are events (until the end).
    pub fn stream_started(&self) -> bool {
        matches!(self.state, XState::Stream(_) | XState::Draining(..))
    }

    /// True once the exchange is over (its result was returned, or is ready).
    pub fn is_over(&self) -> bool {
        matches!(self.state, XState::Over(_))
    }

    fn finish(&mut self, f: Finished) {
        self.state = XState::Over(Some(f));
    }

    /// The answer's status line and headers (for gRPC: the response headers, which may
    /// already carry the status of a trailers-only answer).
    pub fn handle_head(&mut self, status: u16, headers: &[(String, String)]) {
        if !matches!(self.state, XState::AwaitHead) {
            return;
        }
        self.head = HttpResponse { status, headers: headers.to_vec(), streaming: self.is_streaming(), ..HttpResponse::default() };
        if !self.is_streaming() {
            self.state = XState::Body;
            return;
        }
        let is_grpc = self.call.binding == Binding::Grpc;
        let is_sse = self.head.header("content-type").is_some_and(|c| crate::http::media_type(c) == sse::CONTENT_TYPE);
        if is_grpc || ((200..300).contains(&status) && is_sse) {
            match stream_decoder(&self.call, &self.head, self.limits.max_event) {
                Ok(d) => self.state = XState::Stream(d),
                Err(e) => self.finish(Finished::Failed(e)),
            }
        } else {
            // An error answered before the stream started: read it whole.
            self.state = XState::Body;
        }
    }

    /// Body bytes, as they arrive (de-chunked; for gRPC the DATA frames' bytes).
    pub fn handle_body(&mut self, bytes: &[u8]) {
        match &mut self.state {
            XState::Body => {
                if self.head.body.len().saturating_add(bytes.len()) > self.limits.max_body {
                    self.finish(Finished::Failed(over_limit("the answer is", self.limits.max_body)));
                } else {
                    self.head.body.extend_from_slice(bytes);
                }
            }
            XState::Stream(d) => d.feed(bytes),
            _ => {}
        }
    }

    /// The end of the answer, with its trailers (gRPC status; empty for HTTP/1.1).
    pub fn handle_end(&mut self, trailers: &[(String, String)]) {
        match core::mem::replace(&mut self.state, XState::Over(None)) {
            XState::Body => {
                self.head.trailers = trailers.to_vec();
                if self.is_streaming() {
                    // A subscribe answered with a method error: one retry with the other verb.
                    if let Some(again) = retry_request(&mut self.call, &self.head) {
                        self.head = HttpResponse::default();
                        self.state = XState::ToSend(again);
                        return;
                    }
                    let e = match stream_decoder(&self.call, &self.head, self.limits.max_event) {
                        Err(e) => e,
                        Ok(_) => ClientError::Protocol(String::from("a stream was expected")),
                    };
                    self.finish(Finished::Failed(e));
                } else {
                    let r = parse_answer(&self.call, &self.head);
                    self.finish(match r {
                        Ok(resp) => Finished::Answer(resp),
                        Err(e) => Finished::Failed(e),
                    });
                }
            }
            XState::Stream(d) => {
                // A gRPC answer may carry its status in the head alone (trailers-only).
                let fields = if trailers.is_empty() && self.head.header("grpc-status").is_some() { &self.head.headers } else { trailers };
                self.state = XState::Draining(d, fields.to_vec());
            }
            XState::AwaitHead => self.finish(Finished::Failed(ClientError::Protocol(String::from("the answer ended before its head")))),
            other => self.state = other,
        }
    }

    /// What to do next. `now` dates task changes an event does not date itself.
    pub fn poll(&mut self, now: Timestamp) -> Step {
        loop {
            match &mut self.state {
                XState::ToSend(_) => {
                    let XState::ToSend(req) = core::mem::replace(&mut self.state, XState::AwaitHead) else { continue };
                    return Step::Send(req);
                }
                XState::AwaitHead | XState::Body => return Step::Read,
                XState::Stream(d) | XState::Draining(d, _) => match d.next_event() {
                    Ok(Some(ev)) => {
                        let id = d.last_event_id().filter(|i| self.last_event_id.as_deref() != Some(*i)).map(String::from);
                        match self.track(&ev, now) {
                            Ok(()) => {
                                if id.is_some() {
                                    self.last_event_id = id;
                                }
                                return Step::Event(ev);
                            }
                            Err(e) => self.finish(Finished::Failed(e)),
                        }
                    }
                    Ok(None) => {
                        if let XState::Draining(d, trailers) = &self.state {
                            let end = d.finish(trailers);
                            self.finish(match end {
                                Ok(()) => Finished::StreamEnded,
                                Err(e) => Finished::Failed(e),
                            });
                        } else {
                            return Step::Read;
                        }
                    }
                    Err(e) => self.finish(Finished::Failed(e)),
                },
                XState::Over(f) => {
                    return Step::Done(
                        f.take().unwrap_or_else(|| Finished::Failed(ClientError::Local(String::from("the exchange is over")))),
                    )
                }
            }
        }
    }

    fn track(&mut self, ev: &v1::StreamResponse, now: Timestamp) -> Result<(), ClientError> {
        if ev.payload.is_none() {
            return Err(ClientError::Protocol(String::from(
                "a stream event that carries none of task, message, statusUpdate and artifactUpdate",
            )));
        }
        if let Some(v1::stream_response::Payload::Message(m)) = &ev.payload {
            if self.tracker.task().id.is_empty() {
                self.direct = Some(m.clone());
                return Ok(());
            }
        }
        self.tracker
            .on_event(ev, now)
            .map_err(|r| ClientError::Protocol(alloc::format!("the server sent an event its task cannot take: {r}")))
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

#[cfg(test)]
mod exchange_tests {
    use super::*;
    use crate::card::SelectedInterface;
    use crate::op::Request;
    use crate::version::ProtocolVersion;

    fn grpc_iface() -> SelectedInterface {
        SelectedInterface {
            url: String::from("h:1"),
            binding: Binding::Grpc,
            version: ProtocolVersion::V1_0,
            tenant: String::new(),
            index: 0,
        }
    }

    fn grpc_subscribe() -> Exchange {
        let iface = grpc_iface();
        let op = Operation::Task(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: String::from("t"), ..Default::default() }));
        Client::new(iface).start(op).unwrap()
    }

    fn run(x: &mut Exchange, head: &[(&str, &str)], body: &[u8], trailers: &[(&str, &str)]) -> Finished {
        let h = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (String::from(*a), String::from(*b))).collect::<Vec<_>>();
        let now = Timestamp::default();
        assert!(matches!(x.poll(now), Step::Send(_)));
        x.handle_head(200, &h(head));
        x.handle_body(body);
        x.handle_end(&h(trailers));
        loop {
            match x.poll(now) {
                Step::Done(f) => return f,
                Step::Event(_) => {}
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_grpc_stream_answered_trailers_only_ends_by_the_status_in_its_head() {
        let ok = run(&mut grpc_subscribe(), &[("content-type", "application/grpc"), ("grpc-status", "0")], b"", &[]);
        assert_eq!(ok, Finished::StreamEnded);
        let no_status = run(&mut grpc_subscribe(), &[("content-type", "application/grpc")], b"", &[]);
        assert!(matches!(no_status, Finished::Failed(_)), "{no_status:?}");
    }

    #[test]
    fn a_grpc_stream_cut_inside_a_message_is_an_error() {
        // A frame header announcing 10 bytes, then 3 of them, then the end.
        let f = run(&mut grpc_subscribe(), &[("content-type", "application/grpc")], &[0, 0, 0, 0, 10, 1, 2, 3], &[("grpc-status", "0")]);
        assert!(matches!(&f, Finished::Failed(ClientError::Protocol(m)) if m.contains("inside a gRPC message")), "{f:?}");
    }

    fn rest_stream() -> (Client, Exchange) {
        let iface = SelectedInterface {
            url: String::from("http://h:1/a2a/rest"),
            binding: Binding::HttpJson,
            version: ProtocolVersion::V1_0,
            tenant: String::from("acme"),
            index: 0,
        };
        let mut client = Client::new(iface);
        let op = Operation::Task(Request::SendStreamingMessage(v1::SendMessageRequest::default()));
        let x = client.start(op).unwrap();
        (client, x)
    }

    fn sse(id: Option<&str>, json: &str) -> Vec<u8> {
        let mut out = Vec::new();
        sse::encode_event_with_id(id, json.as_bytes(), &mut out);
        out
    }

    const TASK: &str = r#"{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#;
    const DONE: &str = r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}"#;

    fn take(x: &mut Exchange) -> usize {
        let mut n = 0;
        while let Step::Event(_) = x.poll(Timestamp::default()) {
            n += 1;
        }
        n
    }

    #[test]
    fn a_broken_stream_resumes_as_a_subscribe_naming_the_last_event_id_and_keeps_its_tracker() {
        let (mut client, mut x) = rest_stream();
        assert!(matches!(x.poll(Timestamp::default()), Step::Send(_)));
        x.handle_head(200, &[(String::from("content-type"), String::from("text/event-stream"))]);
        // The id outlives events without one (SSE's last event id), an overlong or
        // unprintable one is not kept.
        let mut body = sse(Some("00000001-0"), TASK);
        body.extend(sse(None, TASK));
        body.extend(sse(Some(&"7".repeat(MAX_RESUME_ID + 1)), TASK));
        body.extend(sse(Some("bad\u{7}"), TASK));
        x.handle_body(&body);
        assert_eq!(take(&mut x), 4);
        assert_eq!(x.last_event_id(), Some("00000001-0"));
        x.handle_body(&sse(Some("00000001-1"), TASK));
        assert_eq!(take(&mut x), 1);
        // The connection drops here; the exchange is what the host had.
        let mut again = client.resume(&x).unwrap().expect("a working task resumes");
        let Step::Send(req) = again.poll(Timestamp::default()) else { panic!("a request first") };
        assert_eq!((req.method, req.url.as_str()), ("POST", "http://h:1/a2a/rest/acme/tasks/t1:subscribe"));
        assert!(req.headers.iter().any(|(k, v)| k == "Last-Event-ID" && v == "00000001-1"), "{:?}", req.headers);
        assert_eq!(again.task().task().id, "t1", "the tracker goes on");
        assert_eq!(again.last_event_id(), Some("00000001-1"));
        // The POST's GET fallback names it too.
        let fallback = again.call.method_fallback.clone().expect("a GET fallback");
        assert_eq!(fallback.method, "GET");
        assert!(fallback.headers.iter().any(|(k, _)| k == "Last-Event-ID"));
        // A settled task has nothing to resume.
        again.handle_head(200, &[(String::from("content-type"), String::from("text/event-stream"))]);
        again.handle_body(&sse(Some("00000001-2"), DONE));
        assert_eq!(take(&mut again), 1);
        assert!(client.resume(&again).unwrap().is_none());
    }

    #[test]
    fn resume_pauses_double_to_two_seconds_and_only_unavailable_is_resumed() {
        let pauses: Vec<u64> = (1..=8).map(resume_pause_ms).collect();
        assert_eq!(pauses, [50, 100, 200, 400, 800, 1600, 2000, 2000]);
        let remote = |kind| ClientError::Remote(crate::error::Received::A2a(crate::error::A2aError::new(kind)));
        assert!(is_resumable_error(&remote(crate::error::ErrorKind::Unavailable)));
        assert!(!is_resumable_error(&remote(crate::error::ErrorKind::TaskNotFound)));
        assert!(!is_resumable_error(&ClientError::Protocol(String::from("x"))));
    }

    #[test]
    fn a_stream_without_a_task_or_a_unary_call_has_nothing_to_resume() {
        let (mut client, x) = rest_stream();
        assert!(client.resume(&x).unwrap().is_none(), "no task seen yet");
        let unary = client.start(Operation::Task(Request::GetTask(v1::GetTaskRequest::default()))).unwrap();
        assert!(client.resume(&unary).unwrap().is_none());
    }

    #[test]
    fn grpc_messages_are_numbered_from_the_heads_event_id() {
        let mut x = grpc_subscribe();
        assert!(matches!(x.poll(Timestamp::default()), Step::Send(_)));
        x.handle_head(
            200,
            &[(String::from("content-type"), String::from("application/grpc")), (String::from("a2a-event-id"), String::from("0000000a-5"))],
        );
        let task = v1::StreamResponse {
            payload: Some(v1::stream_response::Payload::Task(v1::Task { id: String::from("t"), ..Default::default() })),
        };
        let mut msg = Vec::new();
        crate::codec::protobuf::encode_into(&task, &mut msg);
        let mut body = Vec::new();
        for _ in 0..3 {
            grpc::encode_frame(&msg, &mut body);
        }
        x.handle_body(&body);
        assert_eq!(take(&mut x), 3);
        assert_eq!(x.last_event_id(), Some("0000000a-7"));
        let Some(mut again) = Client::new(grpc_iface()).resume(&x).unwrap() else { panic!("resumable") };
        let Step::Send(req) = again.poll(Timestamp::default()) else { panic!("a request first") };
        assert!(req.headers.iter().any(|(k, v)| k == "last-event-id" && v == "0000000a-7"), "{:?}", req.headers);
    }

    fn rest_subscribe(version: ProtocolVersion) -> Exchange {
        let iface = SelectedInterface {
            url: String::from("http://h:1/a2a/rest"),
            binding: Binding::HttpJson,
            version,
            tenant: String::new(),
            index: 0,
        };
        let op = Operation::Task(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: String::from("t1"), ..Default::default() }));
        Client::new(iface).start(op).unwrap()
    }

    fn sent(x: &mut Exchange) -> (&'static str, String) {
        let Step::Send(req) = x.poll(Timestamp::default()) else { panic!("a request") };
        (req.method, req.url)
    }

    #[test]
    fn an_http_json_subscribe_tries_the_verb_its_version_routes_then_the_other_on_a_method_error() {
        // v1.0: POST first (a2a-go v2.3.1 and @a2a-js/sdk 1.0.0-beta.0 route POST only).
        let mut x = rest_subscribe(ProtocolVersion::V1_0);
        assert_eq!(sent(&mut x), ("POST", String::from("http://h:1/a2a/rest/tasks/t1:subscribe")));
        x.handle_head(405, &[]);
        x.handle_end(&[]);
        assert_eq!(sent(&mut x).0, "GET", "a 405 brings the other verb");
        x.handle_head(405, &[]);
        x.handle_end(&[]);
        assert!(matches!(x.poll(Timestamp::default()), Step::Done(Finished::Failed(_))), "once only");
        // A method error in the body counts too; an A2A error of the task does not.
        let mut x = rest_subscribe(ProtocolVersion::V1_0);
        sent(&mut x);
        let unimplemented = br#"{"error":{"code":404,"status":"NOT_FOUND","message":"no","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"METHOD_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
        x.handle_head(404, &[(String::from("content-type"), String::from("application/json"))]);
        x.handle_body(unimplemented);
        x.handle_end(&[]);
        assert_eq!(sent(&mut x).0, "GET");
        let mut x = rest_subscribe(ProtocolVersion::V1_0);
        sent(&mut x);
        let not_found = br#"{"error":{"code":404,"status":"NOT_FOUND","message":"no","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
        x.handle_head(404, &[(String::from("content-type"), String::from("application/json"))]);
        x.handle_body(not_found);
        x.handle_end(&[]);
        let Step::Done(Finished::Failed(e)) = x.poll(Timestamp::default()) else { panic!("TaskNotFound is the answer") };
        assert!(
            matches!(e, ClientError::Remote(crate::error::Received::A2a(ref a)) if a.kind() == crate::error::ErrorKind::TaskNotFound),
            "{e:?}"
        );
        // v0.3: GET first (a2a-sdk 0.3.24 routes GET only), POST after a 405.
        let mut x = rest_subscribe(ProtocolVersion::V0_3);
        assert_eq!(sent(&mut x), ("GET", String::from("http://h:1/a2a/rest/v1/tasks/t1:subscribe")));
        x.handle_head(405, &[]);
        x.handle_end(&[]);
        assert_eq!(sent(&mut x).0, "POST");
    }

    #[test]
    fn a_subscription_that_opens_with_a_status_update_builds_its_task_from_the_events() {
        let mut t = TaskTracker::empty();
        let ev = |json: &str| crate::codec::json::decode::<v1::StreamResponse>(json.as_bytes()).unwrap();
        t.on_event(
            &ev(r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#),
            Timestamp::default(),
        )
        .unwrap();
        assert_eq!((t.task().id.as_str(), t.task().context_id.as_str(), t.state()), ("t1", "c1", Some(v1::TaskState::Working)));
        t.on_event(&ev(r#"{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"lastChunk":true}}"#), Timestamp::default())
            .unwrap();
        t.on_event(&ev(DONE), Timestamp::default()).unwrap();
        assert!(t.is_terminal() && t.task().artifacts.len() == 1);
        // Another task's events are still refused, before and after.
        let before = t.clone();
        assert!(t
            .on_event(
                &ev(r#"{"statusUpdate":{"taskId":"t2","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#),
                Timestamp::default()
            )
            .is_err());
        assert_eq!(t, before);
        let mut empty = TaskTracker::empty();
        let unspecified = v1::StreamResponse {
            payload: Some(v1::stream_response::Payload::StatusUpdate(v1::TaskStatusUpdateEvent {
                task_id: "t1".into(),
                status: Some(v1::TaskStatus::default()),
                ..Default::default()
            })),
        };
        assert!(empty.on_event(&unspecified, Timestamp::default()).is_err());
        assert_eq!(empty, TaskTracker::empty(), "a refused first event changes nothing");
    }
}

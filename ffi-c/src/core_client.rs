//! The client as a step function (`a2a_wire::client`), for a host with its own HTTP stack
//! (libcurl, an HTTP/2 library): an operation in, requests to send out, the answer's head,
//! body and end in, events and the result out. Retries the protocol defines (a 405 on a
//! GET subscription) are steps too.
//!
//! A client core and its exchanges are used by one thread at a time each.

use crate::codec::a2a_interface;
use crate::{a2a_error, a2a_header, a2a_result, a2a_str, arg, arg_mut, box_out, bytes_arg, guard, guard_value, invalid, out, timestamp};
use a2a::client::{Client, Exchange, Finished, Step};
use a2a::http::OutgoingRequest;
use a2a::op::{Method, Operation};
use core::ffi::c_char;

/// The eleven operations, with stable numbers (`a2a_wire::op::Method`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_method {
    /// SendMessage (params: `lf.a2a.v1.SendMessageRequest`).
    SendMessage = 1,
    /// SendStreamingMessage (a stream).
    SendStreamingMessage = 2,
    /// GetTask.
    GetTask = 3,
    /// ListTasks (v1.0 only).
    ListTasks = 4,
    /// CancelTask.
    CancelTask = 5,
    /// SubscribeToTask (a stream).
    SubscribeToTask = 6,
    /// CreateTaskPushNotificationConfig.
    CreateTaskPushNotificationConfig = 7,
    /// GetTaskPushNotificationConfig.
    GetTaskPushNotificationConfig = 8,
    /// ListTaskPushNotificationConfigs.
    ListTaskPushNotificationConfigs = 9,
    /// DeleteTaskPushNotificationConfig.
    DeleteTaskPushNotificationConfig = 10,
    /// GetExtendedAgentCard.
    GetExtendedAgentCard = 11,
}

/// An operation from C: the method number and its params as ProtoJSON (NULL/0: the
/// request message's defaults).
pub(crate) fn operation(method: crate::a2a_method_param, params: *const u8, params_len: usize) -> Result<Operation, a2a_error> {
    let m = Method::from_number(method).ok_or_else(|| invalid(format!("{method} is not an a2a_method")))?;
    // NULL or length 0: the request message with every field at its default (`{}`), so that
    // a missing REQUIRED field is named like any other.
    let p = bytes_arg(params, params_len, "params_json")?;
    Operation::from_json(m, Some(if p.is_empty() { b"{}" } else { p })).map_err(a2a_error::a2a)
}

/// The name of an operation (`"SendMessage"`), NUL-terminated and static; `""` for a
/// value that is not an `a2a_method`.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_method_name(method: crate::a2a_method_param) -> *const c_char {
    guard_value(c"".as_ptr(), || {
        const N: [&core::ffi::CStr; 11] = [
            c"SendMessage",
            c"SendStreamingMessage",
            c"GetTask",
            c"ListTasks",
            c"CancelTask",
            c"SubscribeToTask",
            c"CreateTaskPushNotificationConfig",
            c"GetTaskPushNotificationConfig",
            c"ListTaskPushNotificationConfigs",
            c"DeleteTaskPushNotificationConfig",
            c"GetExtendedAgentCard",
        ];
        Method::from_number(method).and_then(|m| N.get(m.number() as usize - 1)).map_or(c"".as_ptr(), |n| n.as_ptr())
    })
}

/// A client for one interface of an agent, sans-IO. Free with `a2a_client_core_free`.
pub struct a2a_client_core {
    inner: Client,
    iface: a2a_interface,
}

/// Creates a client core for the interface it selects from `card_json` (as
/// `a2a_select_interface`: `bindings` and `versions` comma-separated, NULL for all).
/// Threads: one at a time per client core.
#[no_mangle]
pub extern "C" fn a2a_client_core_new(
    card_json: *const u8,
    card_json_len: usize,
    bindings: *const c_char,
    bindings_len: usize,
    versions: *const c_char,
    versions_len: usize,
    client_out: *mut *mut a2a_client_core,
) -> a2a_result {
    guard(|| {
        let o = out(client_out, "client_out")?;
        let sel = crate::codec::select(card_json, card_json_len, bindings, bindings_len, versions, versions_len)?;
        box_out(o, a2a_client_core { inner: Client::new(sel.clone()), iface: a2a_interface::new(sel) });
        Ok(())
    })
}

/// The interface the client core uses, borrowed from it.
/// Threads: one at a time per client core.
#[no_mangle]
pub extern "C" fn a2a_client_core_interface(client: *const a2a_client_core) -> *const a2a_interface {
    guard_value(core::ptr::null(), || arg(client, "client").map_or(core::ptr::null(), |c| &c.iface as *const a2a_interface))
}

/// Adds a header to every request the client core makes (credentials, for example).
/// `A2A_RESULT_INVALID_ARGUMENT` for a name that is not an HTTP token or a value with a line
/// break or NUL. Threads: one at a time per client core.
#[no_mangle]
pub extern "C" fn a2a_client_core_add_header(
    client: *mut a2a_client_core,
    name: *const c_char,
    name_len: usize,
    value: *const c_char,
    value_len: usize,
) -> a2a_result {
    guard(|| {
        let c = arg_mut(client, "client")?;
        let n = crate::str_arg(name, name_len, "name")?;
        let v = crate::str_arg(value, value_len, "value")?;
        a2a::http::check_header_field(n, v).map_err(crate::invalid)?;
        let inner = core::mem::replace(&mut c.inner, Client::new(c.iface.inner.clone()));
        c.inner = inner.with_header(n, v);
        Ok(())
    })
}

/// Frees a client core; NULL does nothing. Its exchanges stay usable.
/// Threads: one at a time per client core.
#[no_mangle]
pub extern "C" fn a2a_client_core_free(client: *mut a2a_client_core) {
    guard_value((), || crate::free_box(client))
}

/// One operation in flight. Drive it: `a2a_exchange_poll` until a DONE step, sending what
/// SEND steps say and feeding the answer with `a2a_exchange_handle_head`, `_body`, `_end`.
pub struct a2a_exchange {
    inner: Exchange,
    binding: a2a::card::Binding,
    /// A SEND step was handed out and its answer's head not fed yet.
    awaiting_head: bool,
    /// The head of the current answer was fed.
    head_seen: bool,
    /// The end of the current answer was fed.
    ended: bool,
    /// A DONE step was handed out: the exchange is over.
    done: bool,
    /// The task a unary answer carried (GetTask, CancelTask, a SendMessage task).
    answered: Option<a2a::v1::Task>,
}

/// Starts `method` (an `a2a_method`) with `params_json` (its v1.0 request message as
/// ProtoJSON; NULL/0 for the defaults). `A2A_RESULT_A2A_ERROR` (InvalidParams, naming the
/// field) when the params are invalid; `A2A_RESULT_LOCAL` when the operation cannot be
/// expressed on the interface.
/// Threads: one at a time per client core.
#[no_mangle]
pub extern "C" fn a2a_client_core_start(
    client: *mut a2a_client_core,
    method: crate::a2a_method_param,
    params_json: *const u8,
    params_json_len: usize,
    exchange_out: *mut *mut a2a_exchange,
) -> a2a_result {
    guard(|| {
        let c = arg_mut(client, "client")?;
        let o = out(exchange_out, "exchange_out")?;
        let op = operation(method, params_json, params_json_len)?;
        let binding = c.iface.inner.binding.clone();
        let x = c.inner.start(op).map_err(|e| a2a_error::client(e, &binding))?;
        box_out(o, a2a_exchange { inner: x, binding, awaiting_head: false, head_seen: false, ended: false, done: false, answered: None });
        Ok(())
    })
}

/// What to do next for an exchange (`a2a_step_get_kind`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_step_kind {
    /// Send this request (method, URL, headers, body), then feed its answer.
    Send = 1,
    /// Feed more of the answer (body bytes, or its end).
    Read = 2,
    /// A stream event (`a2a_step_json`: ProtoJSON `lf.a2a.v1.StreamResponse`).
    Event = 3,
    /// A unary call's answer (`a2a_step_json`: the response message; `{}` for a deletion).
    Answer = 4,
    /// The stream ended normally.
    StreamEnded = 5,
    /// The call failed (`a2a_step_error`).
    Failed = 6,
}

/// One step of an exchange. Free it with `a2a_step_free`.
pub struct a2a_step {
    kind: a2a_step_kind,
    request: Option<OutgoingRequest>,
    json: Vec<u8>,
    error: Option<a2a_error>,
    event: Option<a2a::v1::StreamResponse>,
    answer: Option<a2a::op::Response>,
}

impl a2a_step {
    fn new(kind: a2a_step_kind) -> a2a_step {
        a2a_step { kind, request: None, json: Vec::new(), error: None, event: None, answer: None }
    }
}

/// Feeds the answer's status and headers (for gRPC the response headers), once per SEND
/// step. `A2A_RESULT_WRONG_STATE` when no SEND step is waiting for its head.
/// Threads: one at a time per exchange.
#[no_mangle]
pub extern "C" fn a2a_exchange_handle_head(
    exchange: *mut a2a_exchange,
    status: u16,
    headers: *const a2a_header,
    headers_len: usize,
) -> a2a_result {
    guard(|| {
        let x = arg_mut(exchange, "exchange")?;
        let hs = crate::wire_headers_arg(headers, headers_len, "headers")?;
        if !x.awaiting_head || x.done {
            return Err(a2a_error::local(
                a2a_result::WrongState,
                String::from("no request is waiting for its answer's head (poll for a SEND step first, and feed one head per request)"),
            ));
        }
        x.awaiting_head = false;
        x.head_seen = true;
        x.ended = false;
        x.inner.handle_head(status, &hs);
        Ok(())
    })
}

/// Feeds body bytes as they arrive (de-chunked; for gRPC the DATA frames' bytes).
/// Threads: one at a time per exchange.
#[no_mangle]
pub extern "C" fn a2a_exchange_handle_body(exchange: *mut a2a_exchange, body: *const u8, body_len: usize) -> a2a_result {
    guard(|| {
        let x = arg_mut(exchange, "exchange")?;
        let b = bytes_arg(body, body_len, "body")?;
        if !x.head_seen || x.ended || x.done {
            return Err(a2a_error::local(a2a_result::WrongState, String::from("body bytes before the head or after the end")));
        }
        x.inner.handle_body(b);
        Ok(())
    })
}

/// Feeds the end of the answer with its trailers (gRPC status; none for HTTP/1.1).
/// Threads: one at a time per exchange.
#[no_mangle]
pub extern "C" fn a2a_exchange_handle_end(exchange: *mut a2a_exchange, trailers: *const a2a_header, trailers_len: usize) -> a2a_result {
    guard(|| {
        let x = arg_mut(exchange, "exchange")?;
        let ts = crate::wire_headers_arg(trailers, trailers_len, "trailers")?;
        if !x.head_seen || x.ended || x.done {
            return Err(a2a_error::local(a2a_result::WrongState, String::from("the end before the head, or twice")));
        }
        x.ended = true;
        x.head_seen = false;
        x.inner.handle_end(&ts);
        Ok(())
    })
}

/// The next step into `*step_out` (free it with `a2a_step_free`). `now_ms` dates task
/// changes an event does not date. After a DONE step (ANSWER, STREAM_ENDED, FAILED) the
/// exchange is over: further polls give `A2A_RESULT_WRONG_STATE`.
/// Threads: one at a time per exchange.
#[no_mangle]
pub extern "C" fn a2a_exchange_poll(exchange: *mut a2a_exchange, now_ms: i64, step_out: *mut *mut a2a_step) -> a2a_result {
    guard(|| {
        let x = arg_mut(exchange, "exchange")?;
        let o = out(step_out, "step_out")?;
        if x.done {
            return Err(a2a_error::local(a2a_result::WrongState, String::from("the exchange is over")));
        }
        let step = x.inner.poll(timestamp(now_ms));
        x.done = matches!(step, Step::Done(_));
        // What the peer sent but ProtoJSON cannot hold (its protobuf allowed it): the call fails.
        let unreadable = |e: a2a::codec::EncodeError| {
            a2a_error::local(a2a_result::Protocol, format!("the peer's answer cannot be read as ProtoJSON: {e}"))
        };
        let failed = |e: a2a_error| a2a_step { error: Some(e), ..a2a_step::new(a2a_step_kind::Failed) };
        let s = match step {
            Step::Send(req) => {
                x.awaiting_head = true;
                x.head_seen = false;
                a2a_step { request: Some(req), ..a2a_step::new(a2a_step_kind::Send) }
            }
            Step::Read => a2a_step::new(a2a_step_kind::Read),
            Step::Event(ev) => match a2a::codec::json::encode(&ev) {
                Ok(json) => a2a_step { json, event: Some(ev), ..a2a_step::new(a2a_step_kind::Event) },
                Err(e) => {
                    x.done = true;
                    failed(unreadable(e))
                }
            },
            Step::Done(Finished::Answer(r)) => {
                let mut json = Vec::new();
                match r.to_json(&mut json) {
                    Ok(()) => {
                        x.answered = match &r {
                            a2a::op::Response::Task(t) => Some(t.clone()),
                            a2a::op::Response::SendMessage(a2a::v1::SendMessageResponse {
                                payload: Some(a2a::v1::send_message_response::Payload::Task(t)),
                            }) => Some(t.clone()),
                            _ => None,
                        };
                        a2a_step { json, answer: Some(r), ..a2a_step::new(a2a_step_kind::Answer) }
                    }
                    Err(e) => failed(unreadable(e)),
                }
            }
            Step::Done(Finished::StreamEnded) => a2a_step::new(a2a_step_kind::StreamEnded),
            Step::Done(Finished::Failed(e)) => failed(a2a_error::client(e, &x.binding)),
            Step::Done(_) | _ => return Err(a2a_error::local(a2a_result::WrongState, String::from("the exchange is over"))),
        };
        box_out(o, s);
        Ok(())
    })
}

/// The task as the exchange's stream events left it, or as a unary answer (GetTask,
/// CancelTask, a SendMessage task) gave it (ProtoJSON `lf.a2a.v1.Task`) into
/// `*task_out` (free with `a2a_bytes_free`); `A2A_RESULT_NONE` before any task was seen.
/// Threads: one at a time per exchange.
#[no_mangle]
pub extern "C" fn a2a_exchange_task_json(exchange: *const a2a_exchange, task_out: *mut *mut crate::a2a_bytes) -> a2a_result {
    guard(|| {
        let x = arg(exchange, "exchange")?;
        let o = out(task_out, "task_out")?;
        let t = match &x.answered {
            Some(t) => t,
            None => x.inner.task().task(),
        };
        if t.id.is_empty() {
            return Err(a2a_error::local(a2a_result::None, String::from("no task seen yet")));
        }
        crate::bytes_out(o, a2a::codec::json::encode(t).map_err(|e| a2a_error::local(a2a_result::Protocol, e.to_string()))?);
        Ok(())
    })
}

/// Frees an exchange; NULL does nothing.
/// Threads: one at a time per exchange.
#[no_mangle]
pub extern "C" fn a2a_exchange_free(exchange: *mut a2a_exchange) {
    guard_value((), || crate::free_box(exchange))
}

/// The step's kind (an `a2a_step_kind`; 0 for NULL).
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_get_kind(step: *const a2a_step) -> u32 {
    guard_value(0, || arg(step, "step").map_or(0, |s| s.kind as u32))
}

/// A SEND step's HTTP method (`POST`, `GET`, `DELETE`); empty otherwise.
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_method(step: *const a2a_step) -> a2a_str {
    guard_value(a2a_str::of(b""), || {
        a2a_str::of(arg(step, "step").ok().and_then(|s| s.request.as_ref()).map_or(&b""[..], |r| r.method.as_bytes()))
    })
}

/// A SEND step's URL (for gRPC `http://host:port/Service/Method`). Borrowed from `step`.
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_url(step: *const a2a_step) -> a2a_str {
    guard_value(a2a_str::of(b""), || {
        a2a_str::of(arg(step, "step").ok().and_then(|s| s.request.as_ref()).map_or(&b""[..], |r| r.url.as_bytes()))
    })
}

/// The number of header fields of a SEND step's request.
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_header_count(step: *const a2a_step) -> usize {
    guard_value(0, || arg(step, "step").ok().and_then(|s| s.request.as_ref()).map_or(0, |r| r.headers.len()))
}

/// Header field `index` of a SEND step's request; `A2A_RESULT_NONE` past the end.
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_header(step: *const a2a_step, index: usize, name_out: *mut a2a_str, value_out: *mut a2a_str) -> a2a_result {
    guard(|| {
        let s = arg(step, "step")?;
        let n = out(name_out, "name_out")?;
        let v = out(value_out, "value_out")?;
        let (k, x) = s
            .request
            .as_ref()
            .and_then(|r| r.headers.get(index))
            .ok_or_else(|| a2a_error::local(a2a_result::None, format!("no header {index}")))?;
        *n = a2a_str::of(k.as_bytes());
        *v = a2a_str::of(x.as_bytes());
        Ok(())
    })
}

/// A SEND step's request body (for gRPC the framed message). Borrowed from `step`.
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_body(step: *const a2a_step) -> a2a_str {
    guard_value(a2a_str::of(b""), || {
        a2a_str::of(arg(step, "step").ok().and_then(|s| s.request.as_ref()).map_or(&b""[..], |r| r.body.as_slice()))
    })
}

/// An EVENT or ANSWER step's JSON. Borrowed from `step`.
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_json(step: *const a2a_step) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(step, "step").map_or(&b""[..], |s| s.json.as_slice())))
}

/// An EVENT step's event, typed (borrowed from `step`); NULL otherwise.
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_event(step: *const a2a_step) -> *const crate::typed::a2a_event {
    guard_value(core::ptr::null(), || {
        arg(step, "step").ok().and_then(|s| s.event.as_ref()).map_or(core::ptr::null(), crate::typed::a2a_event::of)
    })
}

/// The answer of a SendMessage call (an ANSWER step), typed (borrowed from `step`); NULL
/// otherwise.
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_reply(step: *const a2a_step) -> *const crate::typed::a2a_reply {
    guard_value(core::ptr::null(), || match arg(step, "step").ok().and_then(|s| s.answer.as_ref()) {
        Some(a2a::op::Response::SendMessage(r)) => crate::typed::a2a_reply::of(r),
        _ => core::ptr::null(),
    })
}

/// The task answered by GetTask or CancelTask (an ANSWER step), typed (borrowed from
/// `step`); NULL otherwise.
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_task(step: *const a2a_step) -> *const crate::typed::a2a_task {
    guard_value(core::ptr::null(), || match arg(step, "step").ok().and_then(|s| s.answer.as_ref()) {
        Some(a2a::op::Response::Task(t)) => crate::typed::a2a_task::of(t),
        _ => core::ptr::null(),
    })
}

/// A FAILED step's error (read it with the `a2a_error_*` accessors), borrowed from `step`;
/// NULL otherwise.
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_error(step: *const a2a_step) -> *const a2a_error {
    guard_value(core::ptr::null(), || {
        arg(step, "step").ok().and_then(|s| s.error.as_ref()).map_or(core::ptr::null(), |e| e as *const a2a_error)
    })
}

/// Frees a step; NULL does nothing.
/// Threads: any (a step is plain data).
#[no_mangle]
pub extern "C" fn a2a_step_free(step: *mut a2a_step) {
    guard_value((), || crate::free_box(step))
}

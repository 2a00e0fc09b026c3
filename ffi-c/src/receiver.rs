//! The receiving end of push notifications for a C or C++ program that hosts a webhook, on
//! its own HTTP server: `a2a_receiver` (the core's `webhook::receiver::Receiver`) judges each
//! delivery — credentials compared in constant time, only the tasks it expects, v1.0 and
//! v0.3 bodies, a redelivery recognized and not handed over twice — and gives the HTTP
//! answer to send back. The program's loop:
//!
//! ```text
//! a2a_receiver_handle(receiver, method, headers, body, &delivery);
//! if (a2a_delivery_get_kind(delivery) == A2A_DELIVERY_KIND_EVENT && !application_takes(delivery))
//!     a2a_receiver_retry_later(receiver, delivery);   /* 503: the sender delivers it again */
//! answer with a2a_delivery_status / _header / _body; a2a_delivery_free(delivery);
//! ```

use crate::error::a2a_error;
use crate::typed::a2a_event;
use crate::{a2a_header, a2a_result, a2a_str, arg, arg_mut, box_out, bytes_arg, guard, guard_value, invalid, out, str_arg};
use a2a::http::{HttpRequest, HttpResponse};
use a2a::webhook::receiver::{Delivery, Receiver};
use core::ffi::c_char;

/// What a delivery was (`a2a_delivery_get_kind`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_delivery_kind {
    /// A new event for an expected task: hand it to the application (`a2a_delivery_event`).
    Event = 1,
    /// An event already handed over, delivered again: answered, not to be handed over.
    Duplicate = 2,
    /// Refused (wrong credentials, a task not expected, a body that is no event, not a POST):
    /// `a2a_delivery_error` says why; answer it as it is.
    Refused = 3,
}

/// The receiving end of one webhook. Make it with `a2a_receiver_new`, free it with
/// `a2a_receiver_free`. Threads: one at a time per receiver (it may move between threads;
/// a server calling it from several threads holds a lock around each call).
pub struct a2a_receiver {
    inner: Receiver,
}

/// One judged delivery and the HTTP answer to send back. Free it with `a2a_delivery_free`.
/// Plain data: any thread, one at a time for a free.
pub struct a2a_delivery {
    outcome: Result<Delivery, a2a_error>,
    response: HttpResponse,
}

/// A receiver expecting the push config's `token` in the token header
/// (`A2A-Notification-Token` or `X-A2A-Notification-Token`), the whole `Authorization`
/// value `authorization` (`Bearer abc...`), or both (NULL: not required; at least one must
/// be given, and none empty, else `A2A_RESULT_INVALID_ARGUMENT`). It expects no task yet:
/// call `a2a_receiver_expect_task` for each task whose push config names this webhook.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_receiver_new(
    token: *const c_char,
    token_len: usize,
    authorization: *const c_char,
    authorization_len: usize,
    receiver_out: *mut *mut a2a_receiver,
) -> a2a_result {
    guard(|| {
        let o = out(receiver_out, "receiver_out")?;
        let token = crate::opt_str_arg(token, token_len, "token")?;
        let authorization = crate::opt_str_arg(authorization, authorization_len, "authorization")?;
        let inner = Receiver::with_credentials(token, authorization).map_err(invalid)?;
        box_out(o, a2a_receiver { inner });
        Ok(())
    })
}

/// How many recent events per task are remembered to recognize redeliveries (default 256;
/// at least 1). Threads: one at a time per receiver.
#[no_mangle]
pub extern "C" fn a2a_receiver_set_window(receiver: *mut a2a_receiver, events: usize) -> a2a_result {
    guard(|| {
        let r = arg_mut(receiver, "receiver")?;
        r.inner = r.inner.clone().window(events);
        Ok(())
    })
}

/// Accept events for task `task_id` from now on. Threads: one at a time per receiver.
#[no_mangle]
pub extern "C" fn a2a_receiver_expect_task(receiver: *mut a2a_receiver, task_id: *const c_char, task_id_len: usize) -> a2a_result {
    guard(|| {
        let r = arg_mut(receiver, "receiver")?;
        r.inner.expect_task(str_arg(task_id, task_id_len, "task_id")?);
        Ok(())
    })
}

/// Stop accepting events for task `task_id` (and forget what was seen of it).
/// Threads: one at a time per receiver.
#[no_mangle]
pub extern "C" fn a2a_receiver_forget_task(receiver: *mut a2a_receiver, task_id: *const c_char, task_id_len: usize) -> a2a_result {
    guard(|| {
        let r = arg_mut(receiver, "receiver")?;
        r.inner.forget_task(str_arg(task_id, task_id_len, "task_id")?);
        Ok(())
    })
}

/// True when events for `task_id` are accepted (false for NULL or a string that is not
/// UTF-8). Threads: one at a time per receiver.
#[no_mangle]
pub extern "C" fn a2a_receiver_expects(receiver: *const a2a_receiver, task_id: *const c_char, task_id_len: usize) -> bool {
    guard_value(false, || {
        let (Ok(r), Ok(t)) = (arg(receiver, "receiver"), str_arg(task_id, task_id_len, "task_id")) else { return false };
        r.inner.expects(t)
    })
}

/// Judges one delivery: the HTTP request's method, header fields and body as received.
/// `*delivery_out` says what it was (`a2a_delivery_get_kind`) and holds the answer to send
/// back, whatever it was: 204 for an event or a duplicate, the A2A error's status and body
/// for a refusal (401 for credentials, 404 for a task not expected, 400 for a body that is
/// no event). `A2A_RESULT_OK` in all three cases; other results only for bad arguments.
/// Header values that are not UTF-8 are read with U+FFFD (they then match no credential).
/// Threads: one at a time per receiver.
#[no_mangle]
pub extern "C" fn a2a_receiver_handle(
    receiver: *mut a2a_receiver,
    method: *const c_char,
    method_len: usize,
    headers: *const a2a_header,
    headers_len: usize,
    body: *const u8,
    body_len: usize,
    delivery_out: *mut *mut a2a_delivery,
) -> a2a_result {
    guard(|| {
        let r = arg_mut(receiver, "receiver")?;
        let o = out(delivery_out, "delivery_out")?;
        let method = str_arg(method, method_len, "method")?;
        let owned = crate::wire_headers_arg(headers, headers_len, "headers")?;
        let headers: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let body = bytes_arg(body, body_len, "body")?;
        let req = HttpRequest { method, target: "/", headers: &headers, body };
        let (outcome, response) = r.inner.handle(&req);
        box_out(o, a2a_delivery { outcome: outcome.map_err(a2a_error::a2a), response });
        Ok(())
    })
}

/// The application could not take the event of `delivery` (its store was down, say): the
/// receiver forgets the event, so that the sender's redelivery is handed over again, and
/// the delivery's answer becomes `503` with `Retry-After` (the sender retries it). A
/// duplicate or a refusal is left as it is. Threads: one at a time per receiver.
#[no_mangle]
pub extern "C" fn a2a_receiver_retry_later(receiver: *mut a2a_receiver, delivery: *mut a2a_delivery) -> a2a_result {
    guard(|| {
        let r = arg_mut(receiver, "receiver")?;
        let d = arg_mut(delivery, "delivery")?;
        if let Ok(x @ Delivery::Event { .. }) = &d.outcome {
            d.response = r.inner.retry_later(x);
        }
        Ok(())
    })
}

/// Frees a receiver; NULL does nothing. Threads: any, once.
#[no_mangle]
pub extern "C" fn a2a_receiver_free(receiver: *mut a2a_receiver) {
    guard_value((), || crate::free_box(receiver))
}

/// What the delivery was (an `a2a_delivery_kind`; 0 for NULL). Threads: any.
#[no_mangle]
pub extern "C" fn a2a_delivery_get_kind(delivery: *const a2a_delivery) -> u32 {
    guard_value(0, || {
        arg(delivery, "delivery").map_or(0, |d| match &d.outcome {
            Ok(Delivery::Event { .. }) => a2a_delivery_kind::Event as u32,
            Ok(Delivery::Duplicate { .. }) => a2a_delivery_kind::Duplicate as u32,
            Err(_) => a2a_delivery_kind::Refused as u32,
        })
    })
}

/// The task the event is about (empty for a refusal), borrowed from `delivery`.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_delivery_task_id(delivery: *const a2a_delivery) -> a2a_str {
    guard_value(a2a_str::of(b""), || {
        a2a_str::of(arg(delivery, "delivery").map_or(&b""[..], |d| match &d.outcome {
            Ok(Delivery::Event { task_id, .. } | Delivery::Duplicate { task_id }) => task_id.as_bytes(),
            Err(_) => b"",
        }))
    })
}

/// The event (v1.0, whichever version the sender wrote), a view borrowed from `delivery`
/// (read it with the `a2a_event_*` accessors); NULL unless the kind is EVENT.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_delivery_event(delivery: *const a2a_delivery) -> *const a2a_event {
    guard_value(core::ptr::null(), || match arg(delivery, "delivery").map(|d| &d.outcome) {
        Ok(Ok(Delivery::Event { event, .. })) => a2a_event::of(event),
        _ => core::ptr::null(),
    })
}

/// Why the delivery was refused, borrowed from `delivery` (read it with the `a2a_error_*`
/// accessors: kind, HTTP status, message); NULL unless the kind is REFUSED.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_delivery_error(delivery: *const a2a_delivery) -> *const a2a_error {
    guard_value(core::ptr::null(), || match arg(delivery, "delivery").map(|d| &d.outcome) {
        Ok(Err(e)) => e as *const a2a_error,
        _ => core::ptr::null(),
    })
}

/// The HTTP status to answer with (0 for NULL). Threads: any.
#[no_mangle]
pub extern "C" fn a2a_delivery_status(delivery: *const a2a_delivery) -> u16 {
    guard_value(0, || arg(delivery, "delivery").map_or(0, |d| d.response.status))
}

/// The number of header fields to answer with (0 for NULL). Threads: any.
#[no_mangle]
pub extern "C" fn a2a_delivery_header_count(delivery: *const a2a_delivery) -> usize {
    guard_value(0, || arg(delivery, "delivery").map_or(0, |d| d.response.headers.len()))
}

/// Header field `index` of the answer (borrowed from `delivery`); `A2A_RESULT_NONE` past the
/// end. Threads: any.
#[no_mangle]
pub extern "C" fn a2a_delivery_header(
    delivery: *const a2a_delivery,
    index: usize,
    name_out: *mut a2a_str,
    value_out: *mut a2a_str,
) -> a2a_result {
    guard(|| {
        let d = arg(delivery, "delivery")?;
        let n = out(name_out, "name_out")?;
        let v = out(value_out, "value_out")?;
        let (k, x) = d.response.headers.get(index).ok_or_else(|| a2a_error::local(a2a_result::None, format!("no field {index}")))?;
        *n = a2a_str::of(k.as_bytes());
        *v = a2a_str::of(x.as_bytes());
        Ok(())
    })
}

/// The body to answer with (empty for 204 and 503), borrowed from `delivery`.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_delivery_body(delivery: *const a2a_delivery) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(delivery, "delivery").map_or(&b""[..], |d| d.response.body.as_slice())))
}

/// Frees a delivery (and the views read from it); NULL does nothing. Threads: any, once.
#[no_mangle]
pub extern "C" fn a2a_delivery_free(delivery: *mut a2a_delivery) {
    guard_value((), || crate::free_box(delivery))
}

//! Errors: the thread's last error, its accessors, and the classification of errors a peer
//! sent (`a2a_classify_*`).

use crate::{a2a_result, a2a_str, arg, box_out, bytes_arg, guard, guard_value, out, str_arg};
use a2a::error::{A2aError, ClientError, ErrorKind, Received};
use core::cell::RefCell;
use core::ffi::c_char;
use std::collections::BTreeMap;

/// The A2A error kinds; the values are `a2a_wire::error::ErrorKind`'s numbers, stable and
/// never reused. `NONE` (0): the failure is not an A2A error.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_error_kind {
    /// Not an A2A error (a local failure, or a peer's error without A2A meaning).
    None = 0,
    /// The task does not exist or the caller may not see it.
    TaskNotFound = 1,
    /// The task is in a terminal state and cannot be canceled.
    TaskNotCancelable = 2,
    /// The agent does not support push notifications.
    PushNotificationNotSupported = 3,
    /// The operation, or an aspect of it, is not supported.
    UnsupportedOperation = 4,
    /// A media type in the request is not supported.
    ContentTypeNotSupported = 5,
    /// An agent produced a response that does not conform to the spec.
    InvalidAgentResponse = 6,
    /// The card declares an extended card, but none is configured.
    ExtendedAgentCardNotConfigured = 7,
    /// The client did not declare an extension the agent requires.
    ExtensionSupportRequired = 8,
    /// The requested protocol version is not served by this interface.
    VersionNotSupported = 9,
    /// The body is not JSON (JSON-RPC -32700).
    JsonParse = 10,
    /// Not a valid request envelope (JSON-RPC -32600).
    InvalidRequest = 11,
    /// No such method (JSON-RPC -32601).
    MethodNotFound = 12,
    /// Invalid parameters (JSON-RPC -32602).
    InvalidParams = 13,
    /// An internal failure (JSON-RPC -32603).
    Internal = 14,
    /// Missing or invalid credentials.
    Unauthenticated = 15,
    /// The caller lacks a permission.
    PermissionDenied = 16,
    /// Temporarily unavailable; retry later.
    Unavailable = 17,
}

/// Which problem a decode failure reports (`a2a_error_decode_kind`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_decode_kind {
    /// Not a decode failure.
    None = 0,
    /// The bytes are not JSON.
    Syntax = 1,
    /// A value does not fit its field.
    InvalidValue = 2,
    /// A REQUIRED field is missing, or a oneof has no member.
    MissingRequired = 3,
    /// Not a valid protobuf encoding.
    Protobuf = 4,
    /// A v0.3 ⇄ v1.0 translation was refused.
    Conversion = 5,
}

/// Where the status of an error without A2A meaning came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Nowhere (a local failure).
    None,
    /// An HTTP status.
    Http,
    /// A gRPC status code.
    Grpc,
    /// A JSON-RPC error code.
    JsonRpc,
}

impl Origin {
    /// What a status received on `binding` is: JSON-RPC codes are negative, gRPC codes are
    /// 0 to 16, anything else is the HTTP status of the answer.
    pub(crate) fn on(binding: &a2a::card::Binding, status: i32) -> Origin {
        use a2a::card::Binding as B;
        match binding {
            B::JsonRpc if status < 0 => Origin::JsonRpc,
            B::Grpc if (0..=16).contains(&status) => Origin::Grpc,
            _ => Origin::Http,
        }
    }
}

pub(crate) fn kind_of(k: ErrorKind) -> a2a_error_kind {
    use a2a_error_kind as K;
    match k {
        ErrorKind::TaskNotFound => K::TaskNotFound,
        ErrorKind::TaskNotCancelable => K::TaskNotCancelable,
        ErrorKind::PushNotificationNotSupported => K::PushNotificationNotSupported,
        ErrorKind::UnsupportedOperation => K::UnsupportedOperation,
        ErrorKind::ContentTypeNotSupported => K::ContentTypeNotSupported,
        ErrorKind::InvalidAgentResponse => K::InvalidAgentResponse,
        ErrorKind::ExtendedAgentCardNotConfigured => K::ExtendedAgentCardNotConfigured,
        ErrorKind::ExtensionSupportRequired => K::ExtensionSupportRequired,
        ErrorKind::VersionNotSupported => K::VersionNotSupported,
        ErrorKind::JsonParse => K::JsonParse,
        ErrorKind::InvalidRequest => K::InvalidRequest,
        ErrorKind::MethodNotFound => K::MethodNotFound,
        ErrorKind::InvalidParams => K::InvalidParams,
        ErrorKind::Internal => K::Internal,
        ErrorKind::Unauthenticated => K::Unauthenticated,
        ErrorKind::PermissionDenied => K::PermissionDenied,
        ErrorKind::Unavailable => K::Unavailable,
        // A kind added to the core later reads as "not one this header knows".
        _ => K::None,
    }
}

/// A failure: the result code, and for an A2A error the error itself. Read it with the
/// `a2a_error_*` accessors; an error the library hands out (`a2a_classify_*`,
/// `a2a_error_last_copy`) is freed with `a2a_error_free`.
#[derive(Clone, Debug)]
pub struct a2a_error {
    pub(crate) result: a2a_result,
    pub(crate) a2a: Option<A2aError>,
    /// For an error without A2A meaning: the HTTP status, gRPC code or JSON-RPC code the
    /// peer sent (`origin` says which).
    pub(crate) status: i32,
    pub(crate) origin: Origin,
    pub(crate) message: String,
    pub(crate) path: String,
    pub(crate) decode: a2a_decode_kind,
    metadata_json: Vec<u8>,
}

impl a2a_error {
    pub(crate) fn local(result: a2a_result, message: String) -> a2a_error {
        a2a_error {
            result,
            a2a: None,
            status: 0,
            origin: Origin::None,
            message,
            path: String::new(),
            decode: a2a_decode_kind::None,
            metadata_json: b"{}".to_vec(),
        }
    }

    pub(crate) fn a2a(e: A2aError) -> a2a_error {
        let metadata: BTreeMap<&str, &str> = e.metadata().iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let metadata_json = serde_json::to_vec(&metadata).unwrap_or_else(|_| b"{}".to_vec());
        a2a_error {
            result: a2a_result::A2aError,
            message: String::from(e.message()),
            a2a: Some(e),
            status: 0,
            origin: Origin::None,
            path: String::new(),
            decode: a2a_decode_kind::None,
            metadata_json,
        }
    }

    /// A classified error a peer sent; `origin` tells what a status without A2A meaning is.
    pub(crate) fn received(r: Received, origin: impl Fn(i32) -> Origin) -> a2a_error {
        match r {
            Received::A2a(e) => a2a_error::a2a(e),
            Received::NotA2a { status, message } => {
                let mut e = a2a_error::local(a2a_result::NotA2a, message);
                e.status = status;
                e.origin = origin(status);
                e
            }
            other => a2a_error::local(a2a_result::Protocol, format!("{other:?}")),
        }
    }

    /// A client's error, on an interface of `binding`.
    pub(crate) fn client(e: ClientError, binding: &a2a::card::Binding) -> a2a_error {
        match e {
            ClientError::Remote(r) => a2a_error::received(r, |s| Origin::on(binding, s)),
            ClientError::Protocol(m) => a2a_error::local(a2a_result::Protocol, m),
            ClientError::Local(m) => a2a_error::local(a2a_result::Local, m),
            other => a2a_error::local(a2a_result::Protocol, other.to_string()),
        }
    }

    pub(crate) fn decode(e: &a2a::codec::DecodeError) -> a2a_error {
        use a2a::codec::DecodeErrorKind as D;
        let mut x = a2a_error::local(a2a_result::Decode, e.to_string());
        x.path = String::from(e.field());
        x.decode = match e.kind() {
            D::Syntax => a2a_decode_kind::Syntax,
            D::InvalidValue => a2a_decode_kind::InvalidValue,
            D::MissingRequired => a2a_decode_kind::MissingRequired,
            D::Protobuf => a2a_decode_kind::Protobuf,
            _ => a2a_decode_kind::InvalidValue,
        };
        x
    }

    /// The ready client's error, on an interface of `binding`.
    pub(crate) fn transport(e: a2a_wire_smol::Error, binding: &a2a::card::Binding) -> a2a_error {
        use a2a_wire_smol::Error as E;
        match e {
            E::A2a(c) => a2a_error::client(c, binding),
            E::Timeout { .. } => a2a_error::local(a2a_result::Timeout, e.to_string()),
            E::Card(m) => a2a_error::local(a2a_result::Card, m),
            E::Url(m) => a2a_error::local(a2a_result::InvalidArgument, format!("invalid URL: {m}")),
            E::Tls(m) => a2a_error::local(a2a_result::Tls, format!("TLS: {m}")),
            E::Signature(m) => a2a_error::local(a2a_result::Signature, format!("agent card signature: {m}")),
            other => a2a_error::local(a2a_result::Transport, other.to_string()),
        }
    }
}

thread_local! {
    static LAST: RefCell<Option<a2a_error>> = const { RefCell::new(None) };
}

pub(crate) fn set_last(e: a2a_error) {
    // `try_with` fails only while the thread is being torn down; the error is then dropped.
    let _ = LAST.try_with(|l| {
        if let Ok(mut l) = l.try_borrow_mut() {
            *l = Some(e);
        }
    });
}

/// The last failure on the calling thread, or NULL if no call on this thread has failed.
/// Borrowed: valid until the next failing a2a call on this thread (`A2A_RESULT_NONE` is not
/// a failure and leaves it alone) and never after the thread ends; copy it with
/// `a2a_error_last_copy` to keep it or to hand it to another thread. Never freed by the
/// caller.
#[no_mangle]
pub extern "C" fn a2a_error_last() -> *const a2a_error {
    guard_value(core::ptr::null(), || {
        LAST.try_with(|l| l.try_borrow().ok().and_then(|l| l.as_ref().map(|e| e as *const a2a_error)))
            .ok()
            .flatten()
            .unwrap_or(core::ptr::null())
    })
}

/// Copies the calling thread's last failure into `*error_out` (free it with
/// `a2a_error_free`; any thread). `A2A_RESULT_NONE` when no call on this thread failed.
#[no_mangle]
pub extern "C" fn a2a_error_last_copy(error_out: *mut *mut a2a_error) -> a2a_result {
    guard(|| {
        let o = out(error_out, "error_out")?;
        match LAST.try_with(|l| l.try_borrow().ok().and_then(|l| l.clone())).ok().flatten() {
            Some(e) => {
                box_out(o, e);
                Ok(())
            }
            // Reporting this would replace the very error asked for; NONE says it all.
            None => Err(a2a_error::local(a2a_result::None, String::from("no call on this thread has failed"))),
        }
    })
}

/// Frees an error the library handed out; NULL does nothing. Never pass `a2a_error_last()`.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_free(error: *mut a2a_error) {
    guard_value((), || crate::free_box(error))
}

/// The result code the failure was reported with (`A2A_RESULT_A2A_ERROR` for an A2A error).
/// `A2A_RESULT_NULL_PARAMETER` for NULL.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_result(error: *const a2a_error) -> a2a_result {
    guard_value(a2a_result::Panic, || arg(error, "error").map_or(a2a_result::NullParameter, |e| e.result))
}

/// The A2A error kind; `A2A_ERROR_KIND_NONE` when the failure is not an A2A error (or for NULL).
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_get_kind(error: *const a2a_error) -> a2a_error_kind {
    guard_value(a2a_error_kind::None, || {
        arg(error, "error").ok().and_then(|e| e.a2a.as_ref()).map_or(a2a_error_kind::None, |e| kind_of(e.kind()))
    })
}

/// The JSON-RPC `error.code` of an A2A error; for an error without A2A meaning received as
/// a JSON-RPC error, the code the peer sent; 0 otherwise.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_jsonrpc_code(error: *const a2a_error) -> i32 {
    guard_value(0, || match arg(error, "error") {
        Ok(e) => match &e.a2a {
            Some(x) => x.jsonrpc_code(),
            None if e.origin == Origin::JsonRpc => e.status,
            None => 0,
        },
        Err(_) => 0,
    })
}

/// The HTTP status of an A2A error on the HTTP+JSON binding; for an error without A2A
/// meaning received over HTTP, the status the peer sent; 0 otherwise.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_http_status(error: *const a2a_error) -> u16 {
    guard_value(0, || match arg(error, "error") {
        Ok(e) => match &e.a2a {
            Some(x) => x.http_status(),
            None if e.origin == Origin::Http => u16::try_from(e.status).unwrap_or(0),
            None => 0,
        },
        Err(_) => 0,
    })
}

/// The gRPC status code of an A2A error; for an error without A2A meaning received over
/// gRPC, the code the peer sent; -1 otherwise.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_grpc_status(error: *const a2a_error) -> i32 {
    guard_value(-1, || match arg(error, "error") {
        Ok(e) => match &e.a2a {
            Some(x) => x.grpc_code() as i32,
            None if e.origin == Origin::Grpc => e.status,
            None => -1,
        },
        Err(_) => -1,
    })
}

/// The `ErrorInfo.reason` of an A2A error (`TASK_NOT_FOUND`, ...); empty when it has none.
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_reason(error: *const a2a_error) -> a2a_str {
    guard_value(a2a_str::of(b""), || {
        a2a_str::of(arg(error, "error").ok().and_then(|e| e.a2a.as_ref()).and_then(|e| e.reason()).unwrap_or("").as_bytes())
    })
}

/// The message: the A2A error's message, or a description of the local failure. Borrowed
/// from `error`.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_message(error: *const a2a_error) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(error, "error").map_or(&[][..], |e| e.message.as_bytes())))
}

/// The A2A error's metadata as a JSON object of strings (`{"taskId":"t-1"}`; `{}` when
/// none). Borrowed from `error`.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_metadata_json(error: *const a2a_error) -> a2a_str {
    guard_value(a2a_str::of(b"{}"), || a2a_str::of(arg(error, "error").map_or(&b"{}"[..], |e| e.metadata_json.as_slice())))
}

/// One metadata value of an A2A error, by key: writes it to `*value_out` (borrowed from
/// `error`). `A2A_RESULT_NONE` when the key is absent.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_metadata_get(
    error: *const a2a_error,
    key: *const c_char,
    key_len: usize,
    value_out: *mut a2a_str,
) -> a2a_result {
    guard(|| {
        let e = arg(error, "error")?;
        let o = out(value_out, "value_out")?;
        let k = str_arg(key, key_len, "key")?;
        match e.a2a.as_ref().and_then(|x| x.metadata().get(k)) {
            Some(v) => {
                *o = a2a_str::of(v.as_bytes());
                Ok(())
            }
            None => Err(a2a_error::local(a2a_result::None, format!("no metadata {k:?}"))),
        }
    })
}

/// For a decode failure, the JSON path of the offending field (`message.parts[2]`; empty
/// for the message itself or for other failures). Borrowed from `error`.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_path(error: *const a2a_error) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(error, "error").map_or(&[][..], |e| e.path.as_bytes())))
}

/// For a decode or translation failure, which problem it is; `A2A_DECODE_KIND_NONE` otherwise.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_decode_kind(error: *const a2a_error) -> a2a_decode_kind {
    guard_value(a2a_decode_kind::None, || arg(error, "error").map_or(a2a_decode_kind::None, |e| e.decode))
}

/// The name of an error kind (`"TaskNotFound"`), NUL-terminated and static; `"None"` for 0
/// and for values this library does not define.
/// Threads: any (an error is plain data).
#[no_mangle]
pub extern "C" fn a2a_error_kind_name(kind: crate::a2a_error_kind_param) -> *const c_char {
    guard_value(c"None".as_ptr(), || {
        let index = ErrorKind::from_number(kind).map(|k| k.number() as usize - 1);
        index.and_then(|i| NAMES.get(i)).map_or(c"None".as_ptr(), |n| n.as_ptr())
    })
}

const NAMES: [&core::ffi::CStr; 17] = [
    c"TaskNotFound",
    c"TaskNotCancelable",
    c"PushNotificationNotSupported",
    c"UnsupportedOperation",
    c"ContentTypeNotSupported",
    c"InvalidAgentResponse",
    c"ExtendedAgentCardNotConfigured",
    c"ExtensionSupportRequired",
    c"VersionNotSupported",
    c"JsonParse",
    c"InvalidRequest",
    c"MethodNotFound",
    c"InvalidParams",
    c"Internal",
    c"Unauthenticated",
    c"PermissionDenied",
    c"Unavailable",
];

// ---------------------------------------------------------------- classification

fn classified(r: Received, origin: Origin, error_out: *mut *mut a2a_error) -> Result<(), a2a_error> {
    let o = out(error_out, "error_out")?;
    box_out(o, a2a_error::received(r, |_| origin));
    Ok(())
}

fn is_v03(version: *const c_char, len: usize) -> Result<bool, a2a_error> {
    let v = str_arg(version, len, "version")?;
    match a2a::version::ProtocolVersion::parse(v) {
        Some(p) => Ok(p.is_legacy()),
        None => Err(crate::invalid(format!("not a protocol version: {v:?}"))),
    }
}

/// Classifies an HTTP+JSON error answer (status and body) received from a peer speaking
/// protocol `version` (`"1.0"`, `"0.3"`). Writes a new error to `*error_out` (free it with
/// `a2a_error_free`): an A2A error (`a2a_error_get_kind` > 0), or one without A2A meaning
/// (`a2a_error_result` is `A2A_RESULT_NOT_A2A`: a proxy's bare 404 is never TaskNotFound).
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_classify_http(
    version: *const c_char,
    version_len: usize,
    status: u16,
    body: *const u8,
    body_len: usize,
    error_out: *mut *mut a2a_error,
) -> a2a_result {
    guard(|| {
        let legacy = is_v03(version, version_len)?;
        let b = bytes_arg(body, body_len, "body")?;
        let r = if legacy { a2a::error::classify_http_v03(status, b) } else { a2a::error::classify_http(status, b) };
        classified(r, Origin::Http, error_out)
    })
}

/// Classifies a gRPC error status (code, message, and the `grpc-status-details-bin` value
/// as bytes — a serialized `google.rpc.Status`; length 0 when absent) received from a peer
/// speaking `version`. Output as `a2a_classify_http`.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_classify_grpc(
    version: *const c_char,
    version_len: usize,
    code: i32,
    message: *const c_char,
    message_len: usize,
    details: *const u8,
    details_len: usize,
    error_out: *mut *mut a2a_error,
) -> a2a_result {
    guard(|| {
        let legacy = is_v03(version, version_len)?;
        let m = str_arg(message, message_len, "message")?;
        let d = bytes_arg(details, details_len, "details")?;
        let status =
            if d.is_empty() && details.is_null() {
                None
            } else {
                Some(<a2a::proto::google::rpc::Status as prost::Message>::decode(d).map_err(|e| {
                    a2a_error::local(a2a_result::Decode, format!("grpc-status-details-bin is not a google.rpc.Status: {e}"))
                })?)
            };
        let r = if legacy {
            a2a::error::classify_grpc_v03(code, m, status.as_ref())
        } else {
            a2a::error::classify_grpc(code, m, status.as_ref())
        };
        classified(r, Origin::Grpc, error_out)
    })
}

/// Classifies a JSON-RPC `error` object (its JSON bytes) received from a peer. Output as
/// `a2a_classify_http`.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_classify_jsonrpc(error_json: *const u8, error_json_len: usize, error_out: *mut *mut a2a_error) -> a2a_result {
    guard(|| {
        let b = bytes_arg(error_json, error_json_len, "error_json")?;
        let v: serde_json::Value =
            serde_json::from_slice(b).map_err(|e| a2a_error::local(a2a_result::Decode, format!("the JSON-RPC error is not JSON: {e}")))?;
        classified(a2a::error::classify_jsonrpc(&v), Origin::JsonRpc, error_out)
    })
}

//! Between the core's errors and the JavaScript error classes of `lib/errors.js`.
//!
//! The classes are plain JavaScript (so that they subclass `Error` like any other, with
//! `instanceof` across the package); native code describes an error as a small JSON object
//! (`{"class": ..., "message": ..., ...}`), thrown as the message of a napi error behind a
//! marker, and the package's wrappers throw the class it names. The wire forms (codes,
//! statuses, bodies) are the core's: `renderError` asks it, and `errorTable` hands its
//! table to the classes at load.

use a2a::codec::by_name::ByNameError;
use a2a::codec::{DecodeError, DecodeErrorKind};
use a2a::error::{A2aError, ClientError, ErrorKind, Received, ERROR_TABLE};
use a2a::proto::validate::Violation;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use prost::Message as _;
use serde_json::{json, Map, Value};
use std::borrow::Cow;

/// What starts the message of a napi error that carries a described error
/// (`lib/errors.js` looks for it).
pub(crate) const MARKER: &str = "\u{1}a2a-wire:";

/// A napi error carrying `desc` for the package's wrappers.
pub(crate) fn throw(desc: Value) -> Error {
    Error::new(Status::GenericFailure, format!("{MARKER}{desc}"))
}

/// A `TypeError` of the caller's making (wrong argument).
pub(crate) fn type_error(message: impl Into<String>) -> Error {
    throw(json!({"class": "TypeError", "message": message.into()}))
}

/// A `RangeError` (an argument of the right type with a value out of its range).
pub(crate) fn range_error(message: impl Into<String>) -> Error {
    throw(json!({"class": "RangeError", "message": message.into()}))
}

fn violations_json(v: &[Violation]) -> Value {
    Value::Array(v.iter().map(|x| json!({"field": x.field, "description": x.description})).collect())
}

fn validation(class: &str, field: &str, description: &str, violations: &[Violation], position: Option<(usize, usize)>) -> Value {
    let mut d = json!({"class": class, "message": description, "path": field, "violations": violations_json(violations)});
    if let (Some((line, column)), Some(o)) = (position, d.as_object_mut()) {
        o.insert("line".into(), json!(line));
        o.insert("column".into(), json!(column));
    }
    d
}

/// A decode error as the `ValidationError` subclass of its kind.
pub(crate) fn decode_desc(e: &DecodeError) -> Value {
    let class = match e.kind() {
        DecodeErrorKind::Syntax => "JsonSyntaxError",
        DecodeErrorKind::MissingRequired => "MissingFieldError",
        DecodeErrorKind::Protobuf => "ProtobufError",
        _ => "InvalidValueError",
    };
    validation(class, e.field(), e.description(), e.violations(), e.position())
}

pub(crate) fn decode_error(e: &DecodeError) -> Error {
    throw(decode_desc(e))
}

/// `field` (a JSON path inside a value) as a path inside the argument `at`.
fn path_in(at: &str, field: &str) -> String {
    match field {
        "" => at.to_string(),
        f if f.starts_with('[') => format!("{at}{f}"),
        f => format!("{at}.{f}"),
    }
}

/// A decode error of the value of the argument `at` (`extendedCards["bob"]`): its path
/// and its violations' fields start there.
pub(crate) fn decode_error_in(e: &DecodeError, at: &str) -> Error {
    let mut d = decode_desc(e);
    if let Some(o) = d.as_object_mut() {
        o.insert("path".into(), Value::String(path_in(at, e.field())));
        let fields = e.violations().iter().map(|x| json!({"field": path_in(at, &x.field), "description": x.description}));
        o.insert("violations".into(), Value::Array(fields.collect()));
    }
    throw(d)
}

pub(crate) fn conversion_error(field: &str, description: &str) -> Error {
    throw(validation("ConversionError", field, description, &[], None))
}

pub(crate) fn encode_error(message: &str) -> Error {
    throw(json!({"class": "EncodeError", "message": message}))
}

pub(crate) fn by_name_error(e: ByNameError) -> Error {
    match e {
        ByNameError::UnknownType(n) => type_error(format!("unknown message type {n:?}")),
        ByNameError::Decode(d) => decode_error(&d),
        ByNameError::Encode(e) => encode_error(&e.to_string()),
        other => encode_error(&other.to_string()),
    }
}

pub(crate) fn kind_name(kind: ErrorKind) -> String {
    format!("{kind:?}")
}

/// An A2A error; `binding` and `wire_status` say how it was received (None: made here).
pub(crate) fn a2a_desc(e: &A2aError, binding: Option<&str>, wire_status: Option<i64>) -> Value {
    let meta: Map<String, Value> = e.metadata().iter().map(|(k, v)| (k.to_string(), Value::String(v.to_string()))).collect();
    json!({
        "class": "A2AError",
        "kind": kind_name(e.kind()),
        "message": e.message(),
        "metadata": meta,
        "violations": violations_json(e.violations()),
        "binding": binding,
        "wireStatus": wire_status,
    })
}

pub(crate) fn a2a_error(e: &A2aError) -> Error {
    throw(a2a_desc(e, None, None))
}

/// A classified received error; `wire_status` is the status seen on `binding` (HTTP status,
/// gRPC code, JSON-RPC code) when known.
pub(crate) fn received_desc(r: &Received, binding: &str, wire_status: Option<i64>) -> Value {
    match r {
        Received::A2a(e) => a2a_desc(e, Some(binding), wire_status),
        Received::NotA2a { status, message } => {
            json!({"class": "NotA2AError", "status": status, "message": message, "binding": binding})
        }
        other => json!({"class": "ProtocolError", "message": format!("{other:?}")}),
    }
}

/// What the client core reports, as the error a JavaScript caller expects.
pub(crate) fn client_desc(e: &ClientError, binding: &str) -> Value {
    match e {
        ClientError::Remote(r) => received_desc(r, binding, None),
        ClientError::Protocol(m) => json!({"class": "ProtocolError", "message": m}),
        ClientError::Local(m) => json!({"class": "CannotSendError", "message": m}),
        other => json!({"class": "ProtocolError", "message": other.to_string()}),
    }
}

/// An A2A error described by the package (`A2AError#toJSON`): `{number, message, metadata,
/// violations}`.
pub(crate) fn a2a_from_json(text: &str) -> Result<A2aError> {
    let v: Value = serde_json::from_str(text).map_err(|e| type_error(format!("not an A2AError description: {e}")))?;
    let number = v.get("number").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok());
    let kind = number.and_then(ErrorKind::from_number).ok_or_else(|| type_error("expected an A2AError (unknown kind number)"))?;
    let message = v.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut e = A2aError::with_message(kind, Cow::Owned(message));
    if let Some(meta) = v.get("metadata").and_then(Value::as_object) {
        for (k, val) in meta {
            let s = match val {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            e = e.meta(k, s);
        }
    }
    let mut violations = Vec::new();
    for item in v.get("violations").and_then(Value::as_array).into_iter().flatten() {
        let field = item.get("field").and_then(Value::as_str).unwrap_or_default().to_owned();
        let description = item.get("description").and_then(Value::as_str).unwrap_or_default().to_owned();
        violations.push(Violation { field, description: Cow::Owned(description) });
    }
    if !violations.is_empty() {
        e = e.with_violations(violations);
    }
    Ok(e)
}

/// The core's error table as JSON: one object per kind with its number, name, JSON-RPC code,
/// gRPC code, HTTP status, ErrorInfo reason and default message.
#[napi(catch_unwind)]
pub fn error_table() -> String {
    let rows: Vec<Value> = ERROR_TABLE
        .iter()
        .map(|row| {
            json!({
                "number": row.kind.number(),
                "kind": kind_name(row.kind),
                "jsonrpc": row.jsonrpc,
                "grpc": row.grpc as i32,
                "http": row.http,
                "reason": row.reason.unwrap_or(""),
                "message": row.message,
            })
        })
        .collect();
    Value::Array(rows).to_string()
}

/// One wire form of an A2A error (`error`: the JSON of `A2AError#toJSON`): `"jsonrpc"` (the
/// error object), `"http"` / `"http-0.3"` (`{status, body}`), `"grpc"` (`{code, message}`;
/// `renderGrpcDetails` gives the `grpc-status-details-bin` trailer).
#[napi(catch_unwind)]
pub fn render_error(error: String, form: String) -> Result<String> {
    let e = a2a_from_json(&error)?;
    let v = match form.as_str() {
        "jsonrpc" => e.to_jsonrpc_error(),
        "http" => json!({"status": e.http_status(), "body": e.to_http_body()}),
        "http-0.3" => json!({"status": e.http_status(), "body": e.to_http_body_v03()}),
        "grpc" => {
            let status = e.to_grpc_status();
            json!({"code": status.code, "message": status.message})
        }
        other => return Err(range_error(format!("unknown error form {other:?} (jsonrpc, http, http-0.3, grpc)"))),
    };
    Ok(v.to_string())
}

/// The `grpc-status-details-bin` trailer of an A2A error (a `google.rpc.Status` with its
/// `ErrorInfo` and `BadRequest` details).
#[napi(catch_unwind)]
pub fn render_grpc_details(error: String) -> Result<Buffer> {
    Ok(a2a_from_json(&error)?.to_grpc_status().encode_to_vec().into())
}

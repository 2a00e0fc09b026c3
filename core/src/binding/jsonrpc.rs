//! The JSON-RPC 2.0 binding, v1.0 and v0.3 (spec §9; v0.3 spec §7; WIRE-NOTES (a), (c), (g), (k)).
//!
//! - Envelope: `jsonrpc` must be `"2.0"`; `id` a string, a number or null; `method` a string;
//!   `params` an object (or absent, for `GetExtendedAgentCard` only). Anything else is
//!   -32600 (with the request's id when it could be read, else null); a body that is not JSON
//!   is -32700.
//! - Methods are chosen by the negotiated version before decoding: v1.0 PascalCase names
//!   (`SendMessage`) or v0.3 names (`message/send`); the other version's names are -32601.
//! - Batch requests (a JSON array) are refused with -32600: A2A defines no batch semantics,
//!   and a streaming method cannot be part of a batch. A request without `id` (a
//!   notification) is refused the same way, since every A2A method has an answer; but an
//!   unknown method (-32601) or invalid params (-32602) are reported first, as the official
//!   SDKs report them.
//! - Results: v1.0 as its proto messages in ProtoJSON (`SendMessage` wrapped as
//!   `{"task":…}` / `{"message":…}`, `GetTask` a bare Task, `DeleteTaskPushNotificationConfig`
//!   `{}`); v0.3 as the v0.3 schema (`kind`-tagged bare Task or Message, a bare array of push
//!   configs, `null` for delete).
//! - Stream events: one full JSON-RPC response per SSE event, the event in `result` (v1.0: a
//!   `StreamResponse`; v0.3: a `kind`-tagged object with `final`).
//! - Errors: `error.data` is an array of typed details (`ErrorInfo`, `BadRequest`).

use crate::codec::json;
use crate::error::ClientError;
use crate::error::{classify_jsonrpc, A2aError, ErrorKind};
use crate::op::{Method, Operation};
use crate::op::{Request, Response};
use crate::v03::{self, ToV03, ToV1};
use crate::v1;
use crate::version::ProtocolVersion;
use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// `Content-Type` of JSON-RPC requests and responses.
pub const CONTENT_TYPE: &str = "application/json";

#[derive(Deserialize)]
struct Envelope<'a> {
    // Cow: a string with escapes (`"tasks\/get"`) cannot be borrowed.
    #[serde(default, borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

/// Deserializes a field that is present (JSON null included) as `Some`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

fn raw_present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// A decoded JSON-RPC request.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// The request id, echoed in every answer.
    pub id: Value,
    /// The operation.
    pub operation: Operation,
}

fn invalid_request(msg: &'static str) -> A2aError {
    A2aError::with_message(ErrorKind::InvalidRequest, msg)
}

/// Reads the id of a request body, best effort (for error answers before decoding).
pub fn peek_id(body: &[u8]) -> Value {
    serde_json::from_slice::<Envelope<'_>>(body)
        .ok()
        .and_then(|e| e.id)
        .filter(|id| id.is_string() || id.is_number())
        .unwrap_or(Value::Null)
}

/// Decodes a request body for the negotiated `version`. On failure, the id to answer with
/// (null when unreadable) and the error.
pub fn decode_request(body: &[u8], version: ProtocolVersion) -> Result<Decoded, (Value, A2aError)> {
    let text =
        core::str::from_utf8(body).map_err(|_| (Value::Null, A2aError::with_message(ErrorKind::JsonParse, "the body is not UTF-8")))?;
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        // Check it is JSON first: a broken array is a parse error, not a batch.
        if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
            return Err((Value::Null, A2aError::with_message(ErrorKind::JsonParse, "the body is not valid JSON")));
        }
        return Err((Value::Null, invalid_request("batch requests are not supported")));
    }
    let env: Envelope<'_> = match serde_json::from_str(text) {
        Ok(e) => e,
        Err(e) => {
            let kind = match e.classify() {
                serde_json::error::Category::Data => ErrorKind::InvalidRequest,
                _ => ErrorKind::JsonParse,
            };
            let msg = if kind == ErrorKind::JsonParse { "the body is not valid JSON" } else { "not a JSON-RPC request object" };
            // A valid JSON value that is not a request object.
            return Err((Value::Null, A2aError::with_message(kind, msg)));
        }
    };
    // A missing id is judged last: an unknown method (-32601) or invalid params (-32602) are
    // answered as such first, as the official SDKs answer them.
    let missing_id = env.id.is_none();
    let id = match env.id {
        Some(v @ (Value::String(_) | Value::Number(_) | Value::Null)) => v,
        Some(_) => return Err((Value::Null, invalid_request("id must be a string, a number or null"))),
        None => Value::Null,
    };
    if env.jsonrpc.as_deref() != Some("2.0") {
        return Err((id, invalid_request("jsonrpc must be \"2.0\"")));
    }
    let Some(method_name) = env.method.as_deref() else {
        return Err((id, invalid_request("method is missing")));
    };
    let method = if version.is_legacy() { Method::from_v03_jsonrpc(method_name) } else { Method::from_v1(method_name) };
    let Some(method) = method else {
        let e = A2aError::with_message(ErrorKind::MethodNotFound, alloc::format!("Method not found: {method_name} (A2A {version})"));
        return Err((id, e));
    };
    let params = env.params.map(|p| p.get().as_bytes());
    if let Some(p) = params {
        if !p.trim_ascii_start().starts_with(b"{") {
            return Err((id, A2aError::invalid_field("params", "must be an object")));
        }
    }
    let op = if version.is_legacy() { decode_params_v03(method, params) } else { decode_params_v1(method, params) };
    match op {
        Err(e) => Err((id, e)),
        Ok(_) if missing_id => {
            Err((Value::Null, invalid_request("a request without id (a notification) has no answer; every A2A method does")))
        }
        Ok(operation) => Ok(Decoded { id, operation }),
    }
}

fn need(params: Option<&[u8]>) -> Result<&[u8], A2aError> {
    params.ok_or_else(|| A2aError::invalid_field("params", "required for this method"))
}

fn decode_params_v1(method: Method, params: Option<&[u8]>) -> Result<Operation, A2aError> {
    Operation::from_json(method, params)
}

fn v03_params<T: serde::de::DeserializeOwned + ToV1>(params: Option<&[u8]>) -> Result<T::V1, A2aError>
where
    T::V1: crate::proto::validate::Validate,
{
    let p: T = v03::decode(need(params)?).map_err(A2aError::from)?;
    let c = p.to_v1().map_err(|e| A2aError::invalid_field(e.path(), alloc::format!("{e}")))?;
    // The translation meets the same REQUIRED rules as a v1.0 request.
    crate::proto::validate::Validate::validate(&c.value).map_err(|v| A2aError::invalid_params(v.into_vec()))?;
    Ok(c.value)
}

fn decode_params_v03(method: Method, params: Option<&[u8]>) -> Result<Operation, A2aError> {
    Ok(match method {
        Method::SendMessage => Operation::Task(Request::SendMessage(v03_params::<v03::MessageSendParams>(params)?)),
        Method::SendStreamingMessage => Operation::Task(Request::SendStreamingMessage(v03_params::<v03::MessageSendParams>(params)?)),
        Method::GetTask => Operation::Task(Request::GetTask(v03_params::<v03::TaskQueryParams>(params)?)),
        Method::CancelTask => Operation::Task(Request::CancelTask(v03_params::<v03::TaskIdParams>(params)?)),
        Method::SubscribeToTask => {
            let p: v03::TaskIdParams = v03::decode(need(params)?).map_err(A2aError::from)?;
            Operation::Task(Request::SubscribeToTask(p.to_v1_subscribe().value))
        }
        Method::CreateTaskPushNotificationConfig => {
            Operation::Task(Request::CreatePushConfig(v03_params::<v03::TaskPushNotificationConfig>(params)?))
        }
        Method::GetTaskPushNotificationConfig => {
            Operation::Task(Request::GetPushConfig(v03_params::<v03::GetTaskPushNotificationConfigParams>(params)?))
        }
        Method::ListTaskPushNotificationConfigs => {
            Operation::Task(Request::ListPushConfigs(v03_params::<v03::ListTaskPushNotificationConfigParams>(params)?))
        }
        Method::DeleteTaskPushNotificationConfig => {
            Operation::Task(Request::DeletePushConfig(v03_params::<v03::DeleteTaskPushNotificationConfigParams>(params)?))
        }
        Method::GetExtendedAgentCard => Operation::GetExtendedAgentCard(v1::GetExtendedAgentCardRequest::default()),
        // No v0.3 JSON-RPC method maps to ListTasks (Method::from_v03_jsonrpc never returns it).
        Method::ListTasks => return Err(A2aError::new(ErrorKind::MethodNotFound)),
    })
}

// ---------------------------------------------------------------- server: answers

fn open(id: &Value, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    // Serializing a string/number/null Value into a Vec cannot fail.
    let _ = json::write_serde(id, out);
}

/// Writes the JSON of a result (v1.0 ProtoJSON, or the v0.3 shape) into `out`.
pub fn encode_result_value(version: ProtocolVersion, response: &Response, out: &mut Vec<u8>) -> Result<(), A2aError> {
    let enc = |e: crate::codec::EncodeError| A2aError::with_message(ErrorKind::Internal, alloc::format!("{e}"));
    let conv = |e: v03::ConvertError| A2aError::with_message(ErrorKind::Internal, alloc::format!("cannot answer in v0.3: {e}"));
    if !version.is_legacy() {
        return super::encode_response_json(response, out);
    }
    let bytes = match response {
        Response::SendMessage(r) => v03::encode(&r.to_v03().map_err(conv)?.value),
        Response::Task(t) => v03::encode(&t.to_v03().map_err(conv)?.value),
        Response::ListTasks(_) => return Err(A2aError::new(ErrorKind::MethodNotFound)),
        Response::PushConfig(c) => v03::encode(&c.to_v03().map_err(conv)?.value),
        Response::PushConfigs(r) => v03::encode(&r.to_v03().map_err(conv)?.value),
        Response::Deleted => Ok(alloc::vec::Vec::from(&b"null"[..])),
        Response::AgentCard(c) => v03::encode(&c.to_v03().map_err(conv)?.value),
    }
    .map_err(enc)?;
    out.extend_from_slice(&bytes);
    Ok(())
}

/// A success answer: `{"jsonrpc":"2.0","id":…,"result":…}`. If the result cannot be
/// encoded, the answer is an internal error instead.
pub fn encode_response(id: &Value, version: ProtocolVersion, response: &Response, out: &mut Vec<u8>) {
    let start = out.len();
    open(id, out);
    out.extend_from_slice(br#","result":"#);
    match encode_result_value(version, response, out) {
        Ok(()) => out.push(b'}'),
        Err(e) => {
            out.truncate(start);
            encode_error_for(id, version, &e, out);
        }
    }
}

/// An error answer: `{"jsonrpc":"2.0","id":…,"error":{"code","message","data":[…]}}`.
pub fn encode_error(id: &Value, error: &A2aError, out: &mut Vec<u8>) {
    encode_error_for(id, crate::version::ProtocolVersion::V1_0, error, out);
}

/// JSON-RPC codes that exist in v0.3.
const V03_CODES: [i64; 12] = [-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006, -32007];

/// An error answer in `version`'s codes. v0.3's `data` is free-form and its releases read it
/// in shapes that exclude each other (a2a-go v0.3.15 decodes it into an object and fails on
/// an array, a2a-go v2.3.1's v0.3 client into an array of typed details and fails on an
/// object; a2a-sdk 0.3.24 and @a2a-js/sdk 0.3.14 send none), so a v0.3 peer gets no `data`
/// when the v0.3 code names the error. An error v0.3 has no code for (-32008, -32009, the
/// generic categories) goes as -32603 (internal) with the message and the typed details in
/// `data`, so that an aware client still finds the `ErrorInfo` reason.
pub fn encode_error_for(id: &Value, version: ProtocolVersion, error: &A2aError, out: &mut Vec<u8>) {
    open(id, out);
    out.extend_from_slice(br#","error":"#);
    let mut body = error.to_jsonrpc_error();
    if version.is_legacy() {
        if V03_CODES.contains(&i64::from(error.jsonrpc_code())) {
            if let Some(o) = body.as_object_mut() {
                o.remove("data");
            }
        } else {
            body["code"] = Value::from(-32603);
        }
    }
    let _ = json::write_serde(&body, out);
    out.push(b'}');
}

/// Writes the `result` of a stream event's JSON-RPC response (the part every subscriber of
/// the same version shares; [`frame_stream_result`] puts each one's id around it, and a
/// failure is answered with [`encode_error_for`] in its place).
pub fn encode_stream_result(version: ProtocolVersion, event: &v1::StreamResponse, out: &mut Vec<u8>) -> Result<(), A2aError> {
    let start = out.len();
    let r = if version.is_legacy() {
        event
            .to_v03()
            .map_err(|e| A2aError::with_message(ErrorKind::Internal, alloc::format!("cannot stream in v0.3: {e}")))
            .and_then(|c| v03::encode(&c.value).map_err(|e| A2aError::with_message(ErrorKind::Internal, alloc::format!("{e}"))))
            .map(|b| out.extend_from_slice(&b))
    } else {
        json::encode_into(event, out).map_err(|e| A2aError::with_message(ErrorKind::Internal, alloc::format!("{e}")))
    };
    if r.is_err() {
        out.truncate(start);
    }
    r
}

/// Writes the response `{"jsonrpc":"2.0","id":ID,"result":RESULT}` around a result made by
/// [`encode_stream_result`].
pub fn frame_stream_result(id: &Value, result: &[u8], out: &mut Vec<u8>) {
    out.reserve(result.len() + 40);
    open(id, out);
    out.extend_from_slice(br#","result":"#);
    out.extend_from_slice(result);
    out.push(b'}');
}

// ---------------------------------------------------------------- client

/// Writes a request for `operation` in `version`'s names and shapes. Fails for operations
/// v0.3 does not have (ListTasks) or values it cannot carry.
pub fn encode_request(id: &Value, version: ProtocolVersion, operation: &Operation, out: &mut Vec<u8>) -> Result<(), ClientError> {
    let names = operation.method().names();
    let method = if version.is_legacy() {
        names.v03_jsonrpc.ok_or_else(|| ClientError::Local(alloc::format!("{} does not exist in A2A {version}", names.v1)))?
    } else {
        names.v1
    };
    let mut params = Vec::new();
    if version.is_legacy() {
        encode_params_v03(operation, &mut params)?;
    } else {
        encode_params_v1(operation, &mut params)?;
    }
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    let _ = json::write_serde(id, out);
    out.extend_from_slice(br#","method":""#);
    out.extend_from_slice(method.as_bytes());
    out.extend_from_slice(br#"","params":"#);
    out.extend_from_slice(&params);
    out.push(b'}');
    Ok(())
}

fn local(e: impl core::fmt::Display) -> ClientError {
    ClientError::Local(alloc::format!("{e}"))
}

fn encode_params_v1(operation: &Operation, out: &mut Vec<u8>) -> Result<(), ClientError> {
    operation.to_json(out).map_err(local)
}

fn encode_params_v03(operation: &Operation, out: &mut Vec<u8>) -> Result<(), ClientError> {
    let bytes = match operation {
        Operation::GetExtendedAgentCard(_) => Ok(alloc::vec::Vec::from(&b"{}"[..])),
        Operation::Task(r) => match r {
            Request::SendMessage(x) | Request::SendStreamingMessage(x) => v03::encode(&x.to_v03().map_err(local)?.value),
            Request::GetTask(x) => v03::encode(&x.to_v03().map_err(local)?.value),
            Request::ListTasks(_) => return Err(ClientError::Local(String::from("ListTasks does not exist in A2A 0.3"))),
            Request::CancelTask(x) => v03::encode(&x.to_v03().map_err(local)?.value),
            Request::SubscribeToTask(x) => v03::encode(&x.to_v03().map_err(local)?.value),
            Request::CreatePushConfig(x) => v03::encode(&x.to_v03().map_err(local)?.value),
            Request::GetPushConfig(x) => v03::encode(&x.to_v03().map_err(local)?.value),
            Request::ListPushConfigs(x) => v03::encode(&x.to_v03().map_err(local)?.value),
            Request::DeletePushConfig(x) => v03::encode(&x.to_v03().map_err(local)?.value),
        },
    }
    .map_err(local)?;
    out.extend_from_slice(&bytes);
    Ok(())
}

#[derive(Deserialize)]
struct ResponseEnvelope<'a> {
    // `result: null` (v0.3's answer to a delete) is a result, not an absent one.
    #[serde(default, borrow, deserialize_with = "raw_present")]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<Value>,
}

fn protocol(what: &str, e: impl core::fmt::Display) -> ClientError {
    ClientError::Protocol(alloc::format!("{what}: {e}"))
}

/// Reads the body of an answer to `method` in `version`: the result as a v1.0 response, or
/// the peer's error (classified by `ErrorInfo.reason` first, then by code).
pub fn decode_response(body: &[u8], version: ProtocolVersion, method: Method) -> Result<Response, ClientError> {
    let env: ResponseEnvelope<'_> = serde_json::from_slice(body).map_err(|e| protocol("not a JSON-RPC response", e))?;
    if let Some(err) = env.error {
        return Err(ClientError::Remote(classify_jsonrpc(&err)));
    }
    let result = env.result.ok_or_else(|| ClientError::Protocol(String::from("a JSON-RPC response without result or error")))?;
    decode_result(result.get().as_bytes(), version, method)
}

fn v1_result<T: crate::codec::Message>(b: &[u8]) -> Result<T, ClientError> {
    json::decode_unchecked::<T>(b).map_err(|e| protocol("invalid result", e))
}

fn v03_result<T: serde::de::DeserializeOwned + ToV1>(b: &[u8]) -> Result<T::V1, ClientError> {
    let v: T = v03::decode(b).map_err(|e| protocol("invalid v0.3 result", e))?;
    v.to_v1().map(|c| c.value).map_err(|e| protocol("untranslatable v0.3 result", e))
}

/// Reads a `result` value (v1.0 ProtoJSON or the v0.3 shape) as a v1.0 response.
pub fn decode_result(b: &[u8], version: ProtocolVersion, method: Method) -> Result<Response, ClientError> {
    if version.is_legacy() {
        return Ok(match method {
            Method::SendMessage => Response::SendMessage(v03_result::<v03::SendMessageResult>(b)?),
            Method::GetTask | Method::CancelTask => Response::Task(v03_result::<v03::Task>(b)?),
            Method::CreateTaskPushNotificationConfig | Method::GetTaskPushNotificationConfig => {
                Response::PushConfig(v03_result::<v03::TaskPushNotificationConfig>(b)?)
            }
            Method::ListTaskPushNotificationConfigs => Response::PushConfigs(v03_result::<Vec<v03::TaskPushNotificationConfig>>(b)?),
            Method::DeleteTaskPushNotificationConfig => Response::Deleted,
            Method::GetExtendedAgentCard => Response::AgentCard(v03_result::<v03::AgentCard>(b)?),
            Method::SendStreamingMessage | Method::SubscribeToTask | Method::ListTasks => {
                return Err(ClientError::Protocol(alloc::format!("{method:?} has no single v0.3 result")))
            }
        });
    }
    match Response::from_json(method, b) {
        Some(r) => r.map_err(|e| protocol("invalid result", e)),
        None => Err(ClientError::Protocol(alloc::format!("{method:?} answers with a stream"))),
    }
}

/// Reads one SSE `data` of a JSON-RPC stream: a full JSON-RPC response whose `result` is the
/// event (v1.0 `StreamResponse`, or v0.3 `kind`-tagged), or an error ending the stream.
pub fn decode_stream_event(data: &[u8], version: ProtocolVersion) -> Result<v1::StreamResponse, ClientError> {
    let env: ResponseEnvelope<'_> = serde_json::from_slice(data).map_err(|e| protocol("not a JSON-RPC stream event", e))?;
    if let Some(err) = env.error {
        return Err(ClientError::Remote(classify_jsonrpc(&err)));
    }
    let result = env.result.ok_or_else(|| ClientError::Protocol(String::from("a stream event without result")))?;
    let b = result.get().as_bytes();
    if version.is_legacy() {
        v03_result::<v03::StreamEvent>(b)
    } else {
        v1_result::<v1::StreamResponse>(b)
    }
}

//! Protocol helpers that are not codecs: v0.3 translation, version negotiation, interface
//! selection, reading a card of either version, and the classification of errors received
//! from peers. Each is one call into the core; results cross as JSON text.

use crate::codec::{bytes, Data};
use crate::errors;
use a2a::card::{self, Binding, ClientSupport};
use a2a::v03::by_name::{translate_to_v03, translate_to_v1, V03Error};
use a2a::version::{self, ProtocolVersion};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{json, Value};

fn v03_error(e: V03Error) -> Error {
    match e {
        V03Error::UnknownType(n) => errors::type_error(format!("no v0.3 translation for the type {n:?}")),
        V03Error::Decode(d) => errors::decode_error(&d),
        V03Error::Convert(c) => errors::conversion_error(c.path(), &c.to_string()),
        V03Error::Encode(e) => errors::encode_error(&e.to_string()),
        other => errors::encode_error(&other.to_string()),
    }
}

fn losses(l: &[String]) -> Value {
    Value::Array(
        l.iter()
            .map(|x| {
                let (kind, path) = x.split_once('@').unwrap_or((x.as_str(), ""));
                json!({"kind": kind, "path": path})
            })
            .collect(),
    )
}

fn utf8(v: Vec<u8>) -> Result<String> {
    String::from_utf8(v).map_err(|e| errors::encode_error(&e.to_string()))
}

/// Decodes a v0.3 object of `typeName` and translates it to v1.0: the JSON of `{v03, type,
/// v1, losses}` (`v03`: the canonical v0.3 object; `type`: the v1.0 message name).
#[napi(catch_unwind)]
pub fn v03_to_v1(type_name: String, data: Data) -> Result<String> {
    let t = translate_to_v1(&type_name, bytes(&data)).map_err(v03_error)?;
    let (v03, v1) = (utf8(t.v03_json)?, utf8(t.v1_json)?);
    Ok(format!(r#"{{"v03":{v03},"type":{},"v1":{v1},"losses":{}}}"#, json!(t.v1_type), losses(&t.losses)))
}

/// Translates a v1.0 message (`typeName` a full name; `data` its ProtoJSON) to v0.3: the
/// JSON of `{type, v03, losses}`.
#[napi(catch_unwind)]
pub fn v03_from_v1(type_name: String, data: Data) -> Result<String> {
    let t = translate_to_v03(&type_name, bytes(&data)).map_err(v03_error)?;
    if t.v03_type == "-" {
        return Err(errors::conversion_error("", &format!("{type_name} has no v0.3 form")));
    }
    let v03 = utf8(t.v03_json)?;
    Ok(format!(r#"{{"type":{},"v03":{v03},"losses":{}}}"#, json!(t.v03_type), losses(&t.losses)))
}

/// The canonical v0.3 JSON of a v0.3 object (decoded and checked; no translation).
#[napi(catch_unwind)]
pub fn v03_canonical(type_name: String, data: Data) -> Result<String> {
    utf8(a2a::v03::by_name::canonical_v03(&type_name, bytes(&data)).map_err(v03_error)?)
}

/// The v0.3 type names the translation knows.
#[napi(catch_unwind)]
pub fn v03_type_names() -> Vec<&'static str> {
    a2a::v03::by_name::TYPE_NAMES.to_vec()
}

pub(crate) fn parse_version(v: &str) -> Result<ProtocolVersion> {
    ProtocolVersion::parse(v).ok_or_else(|| errors::range_error(format!("{v:?} is not a protocol version (Major.Minor)")))
}

/// The version a request is served with: the requested one (`A2A-Version`; null or blank
/// means 0.3) if `supported` has it, else a `VersionNotSupportedError`.
#[napi(catch_unwind)]
pub fn negotiate(requested: Option<String>, supported: Vec<String>) -> Result<String> {
    let supported: Vec<ProtocolVersion> = supported.iter().map(|s| parse_version(s)).collect::<Result<_>>()?;
    version::negotiate(version::requested(requested.as_deref()), &supported).map(|v| v.to_string()).map_err(|e| errors::a2a_error(&e))
}

/// What a client speaks, from binding and version names (in preference order).
pub(crate) fn client_support(bindings: &[String], versions: &[String]) -> Result<ClientSupport> {
    let mut client = ClientSupport { bindings: Vec::new(), versions: Vec::new() };
    for b in bindings {
        match Binding::parse(b) {
            Binding::Custom(_) => return Err(errors::range_error(format!("unknown binding {b:?} (JSONRPC, HTTP+JSON, GRPC)"))),
            known => client.bindings.push(known),
        }
    }
    for v in versions {
        client.versions.push(parse_version(v)?);
    }
    Ok(client)
}

/// The interface of `card` (its ProtoJSON) a client with these bindings and versions uses:
/// the JSON of `{url, binding, version, tenant, index}`.
#[napi(catch_unwind)]
pub fn select_interface(card: Data, bindings: Vec<String>, versions: Vec<String>) -> Result<String> {
    let card: a2a::v1::AgentCard = a2a::codec::json::decode(bytes(&card)).map_err(|e| errors::decode_error(&e))?;
    let client = client_support(&bindings, &versions)?;
    let s =
        card::select_interface(&card, &client).map_err(|e| errors::throw(json!({"class": "CannotSendError", "message": e.to_string()})))?;
    Ok(json!({"url": s.url, "binding": s.binding.as_str(), "version": s.version.to_string(), "tenant": s.tenant, "index": s.index})
        .to_string())
}

/// An Agent Card document of either version (v0.3 fields become `supportedInterfaces`): the
/// JSON of `{card, shape}`, `shape` one of `"1.0"`, `"0.3"`, `"both"`.
#[napi(catch_unwind)]
pub fn read_card(data: Data) -> Result<String> {
    let view = card::read_card(bytes(&data)).map_err(|e| errors::throw(json!({"class": "CardError", "message": e.to_string()})))?;
    let shape = match view.shape {
        card::CardShape::V1 => "1.0",
        card::CardShape::V03 => "0.3",
        _ => "both",
    };
    let card = utf8(a2a::codec::json::encode(&view.card).map_err(|e| errors::encode_error(&e.to_string()))?)?;
    Ok(format!(r#"{{"card":{card},"shape":"{shape}"}}"#))
}

fn is_v03(version: &str) -> Result<bool> {
    Ok(parse_version(version)?.is_legacy())
}

/// The error an HTTP+JSON error response means, described (an A2A error, or `NotA2AError`
/// for a status without A2A meaning).
#[napi(catch_unwind)]
pub fn classify_http(status: u16, body: Data, version: String) -> Result<String> {
    let b = bytes(&body);
    let r = if is_v03(&version)? { a2a::error::classify_http_v03(status, b) } else { a2a::error::classify_http(status, b) };
    Ok(errors::received_desc(&r, "HTTP+JSON", Some(i64::from(status))).to_string())
}

/// The error a gRPC status means, described; `details` is the `grpc-status-details-bin`
/// trailer (a `google.rpc.Status`).
#[napi(catch_unwind)]
pub fn classify_grpc(code: i32, message: String, details: Option<Uint8Array>, version: String) -> Result<String> {
    let status = match &details {
        None => None,
        Some(d) => Some(
            <a2a::proto::google::rpc::Status as prost::Message>::decode(&d[..])
                .map_err(|e| errors::range_error(format!("details is not a google.rpc.Status: {e}")))?,
        ),
    };
    let r = if is_v03(&version)? {
        a2a::error::classify_grpc_v03(code, &message, status.as_ref())
    } else {
        a2a::error::classify_grpc(code, &message, status.as_ref())
    };
    Ok(errors::received_desc(&r, "GRPC", Some(i64::from(code))).to_string())
}

/// The error a JSON-RPC `error` object (its JSON) means, described.
#[napi(catch_unwind)]
pub fn classify_jsonrpc(error: String) -> Result<String> {
    let v: Value = serde_json::from_str(&error).map_err(|e| errors::type_error(format!("error is not JSON: {e}")))?;
    let r = a2a::error::classify_jsonrpc(&v);
    let code = v.get("code").and_then(Value::as_i64);
    Ok(errors::received_desc(&r, "JSONRPC", code).to_string())
}

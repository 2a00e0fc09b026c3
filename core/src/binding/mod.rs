//! The three protocol bindings, both versions: how each operation travels.
//!
//! [`METHODS`] is the one table of the eleven operations and their names on every binding
//! and version. The binding modules turn bytes into [`Operation`]s and results into bytes;
//! [`crate::server`] and [`crate::client`] put them together.

pub mod grpc;
pub mod jsonrpc;
pub mod rest;
pub mod sse;

pub use crate::op::{Method, MethodNames, Operation, METHODS};
use crate::v1;

/// Writes the v1.0 ProtoJSON of a response (`{}` for a delete), as JSON-RPC results and
/// HTTP+JSON bodies carry it ([`crate::op::Response::to_json`], with an internal error when
/// it cannot be encoded).
pub fn encode_response_json(response: &crate::op::Response, out: &mut alloc::vec::Vec<u8>) -> Result<(), crate::error::A2aError> {
    response.to_json(out).map_err(|e| crate::error::A2aError::with_message(crate::error::ErrorKind::Internal, alloc::format!("{e}")))
}

/// The body of a webhook delivery (§4.3.3): the ProtoJSON `StreamResponse` for configs
/// created in v1.0 (`Content-Type: application/a2a+json`), and for v0.3 configs the v0.3
/// JSON of the Task (`kind: "task"`, lowercase states), which is what v0.3 receivers read.
pub fn webhook_body(
    version: crate::version::ProtocolVersion,
    event: &v1::StreamResponse,
) -> Result<alloc::vec::Vec<u8>, crate::error::A2aError> {
    use crate::error::{A2aError, ErrorKind};
    let internal = |e: &dyn core::fmt::Display| A2aError::with_message(ErrorKind::Internal, alloc::format!("{e}"));
    if !version.is_legacy() {
        return crate::codec::json::encode(event).map_err(|e| internal(&e));
    }
    use crate::v03::ToV03;
    match &event.payload {
        Some(v1::stream_response::Payload::Task(t)) => {
            let t = t.to_v03().map_err(|e| internal(&e))?.value;
            crate::v03::encode(&t).map_err(|e| internal(&e))
        }
        _ => {
            let e = event.to_v03().map_err(|e| internal(&e))?.value;
            crate::v03::encode(&e).map_err(|e| internal(&e))
        }
    }
}

/// The whole webhook delivery for `config`: `POST` to its URL with the body of
/// [`webhook_body`], `Content-Type: application/a2a+json` (v1.0) or `application/json`
/// (v0.3), `Authorization: {scheme} {credentials}` when the config carries
/// `authentication`, and `X-A2A-Notification-Token` when it carries a `token` (v1.0.1 names
/// no header for it; v0.3 receivers read this one, and v1.0 receivers ignore it).
pub fn webhook_request(
    config: &v1::TaskPushNotificationConfig,
    version: crate::version::ProtocolVersion,
    event: &v1::StreamResponse,
) -> Result<crate::http::OutgoingRequest, crate::error::A2aError> {
    use alloc::string::String;
    let body = webhook_body(version, event)?;
    let ctype = if version.is_legacy() { "application/json" } else { rest::CONTENT_TYPE };
    let mut headers = alloc::vec![(String::from("Content-Type"), String::from(ctype))];
    if let Some(auth) = config.authentication.as_ref().filter(|a| !a.scheme.is_empty()) {
        let value = if auth.credentials.is_empty() { auth.scheme.clone() } else { alloc::format!("{} {}", auth.scheme, auth.credentials) };
        headers.push((String::from("Authorization"), value));
    }
    if !config.token.is_empty() {
        headers.push((String::from("X-A2A-Notification-Token"), config.token.clone()));
    }
    Ok(crate::http::OutgoingRequest { method: "POST", url: config.url.clone(), headers, body })
}

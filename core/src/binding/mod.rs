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

/// Writes the v1.0 ProtoJSON of a response (`{}` for a delete), as JSON-RPC results and
/// HTTP+JSON bodies carry it ([`crate::op::Response::to_json`], with an internal error when
/// it cannot be encoded).
pub fn encode_response_json(response: &crate::op::Response, out: &mut alloc::vec::Vec<u8>) -> Result<(), crate::error::A2aError> {
    response.to_json(out).map_err(|e| crate::error::A2aError::with_message(crate::error::ErrorKind::Internal, alloc::format!("{e}")))
}

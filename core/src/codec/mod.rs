//! Codecs of the v1.0 messages: [`json`] (ProtoJSON, for JSON-RPC, HTTP+JSON and webhooks)
//! and [`protobuf`] (for gRPC). Both decode into the same [`crate::v1`] types and both run
//! the same REQUIRED-field validation, so a message is accepted or refused for the same
//! reason whatever its wire format.
//!
//! [`by_name`] does the same for a message type chosen at run time by its proto name; the
//! golden-vector tests and the language bindings use it.

pub mod by_name;
pub mod json;
pub mod protobuf;
mod writer;

use a2a_wire_proto::validate::{Validate, Violation, Violations};
use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// A v1.0 message type: protobuf (prost), ProtoJSON (serde) and validation.
pub trait Message: prost::Message + prost::Name + Default + serde::Serialize + serde::de::DeserializeOwned + Validate {}
impl<T> Message for T where T: prost::Message + prost::Name + Default + serde::Serialize + serde::de::DeserializeOwned + Validate {}

/// What kind of problem a [`DecodeError`] reports.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// The bytes are not JSON (or end early, or have trailing data). JSON-RPC: -32700.
    Syntax,
    /// Valid JSON whose value does not fit the field: wrong type, unknown enum name, bad
    /// base64 or timestamp, a field given twice, two members of one oneof. JSON-RPC: -32602.
    InvalidValue,
    /// A REQUIRED field is missing or empty, or a oneof has no member. JSON-RPC: -32602.
    MissingRequired,
    /// The bytes are not a valid protobuf encoding of the message.
    Protobuf,
}

/// Why bytes could not be decoded into a message. Its `Display` names the JSON path of the
/// offending field: `message.parts[2]: exactly one of text, raw, url, data must be set`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    kind: DecodeErrorKind,
    violations: Vec<Violation>,
    position: Option<(usize, usize)>,
}

impl DecodeError {
    pub(crate) fn new(kind: DecodeErrorKind, field: String, message: impl Into<Cow<'static, str>>) -> Self {
        DecodeError { kind, violations: alloc::vec![Violation { field, description: message.into() }], position: None }
    }

    pub(crate) fn with_position(mut self, line: usize, column: usize) -> Self {
        if line > 0 {
            self.position = Some((line, column));
        }
        self
    }

    pub(crate) fn missing(v: Violations) -> Self {
        let mut list = v.into_vec();
        if list.is_empty() {
            // `Violations` reported an error, so it holds at least one entry; keep the error
            // well-formed even if that ever changed.
            list.push(Violation { field: String::new(), description: Cow::Borrowed("invalid message") });
        }
        DecodeError { kind: DecodeErrorKind::MissingRequired, violations: list, position: None }
    }

    /// The kind of problem.
    pub fn kind(&self) -> DecodeErrorKind {
        self.kind
    }
    /// JSON path of the first offending field (`""` for the message itself or for syntax errors).
    pub fn field(&self) -> &str {
        self.violations.first().map_or("", |v| v.field.as_str())
    }
    /// What is wrong with the first offending field, without its path.
    pub fn description(&self) -> &str {
        self.violations.first().map_or("", |v| &v.description)
    }
    /// Every offending field found (REQUIRED checks report them all, up to a bound; other
    /// kinds report one). Maps to `google.rpc.BadRequest.fieldViolations`.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }
    /// Line and column (1-based) in the JSON text, when known.
    pub fn position(&self) -> Option<(usize, usize)> {
        self.position
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.violations.first() {
            Some(v) => write!(f, "{v}")?,
            None => f.write_str("invalid message")?,
        }
        if self.kind == DecodeErrorKind::Syntax {
            if let Some((line, column)) = self.position {
                write!(f, " at line {line} column {column}")?;
            }
        }
        Ok(())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for DecodeError {}

/// Why a message could not be encoded: it holds a value its wire format cannot carry (a
/// timestamp outside years 1–9999, a NaN number in a `Value`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError {
    message: String,
}

impl EncodeError {
    /// An error with this message.
    pub fn new(message: String) -> Self {
        EncodeError { message }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot encode message: {}", self.message)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for EncodeError {}

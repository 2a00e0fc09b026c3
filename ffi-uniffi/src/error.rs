//! `A2aError`: every failure of the binding as one type — in Kotlin the sealed exception
//! `A2aException` (uniffi turns the `Error` suffix into `Exception`; Kotlin capitalises an
//! acronym of three letters as a word), in Swift the `Error` enum `A2aError`. The A2A errors
//! are one variant each, named as the spec names them (`A2aException.TaskNotFound`), each carrying its JSON-RPC `code`, HTTP `status`,
//! `ErrorInfo` `reason`, `metadata` and field `violations`, all from the core's one error
//! table; decoding failures name the JSON path (`field`); transport failures say what broke.

use a2a::codec::{DecodeError, DecodeErrorKind, EncodeError};
use a2a::error::A2aError as CoreError;
use a2a::version::ProtocolVersion;
use std::collections::HashMap;
use std::fmt;

/// One broken rule of a request or a message: its JSON path and what is wrong
/// (`google.rpc.BadRequest.FieldViolation`).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct FieldViolation {
    /// The JSON path (`message.parts[2]`; empty for the message itself).
    pub field: String,
    /// What is wrong with it.
    pub description: String,
}

/// The A2A error kinds, with the stable numbers of the core's `ErrorKind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum ErrorKind {
    TaskNotFound = 1,
    TaskNotCancelable = 2,
    PushNotificationNotSupported = 3,
    UnsupportedOperation = 4,
    ContentTypeNotSupported = 5,
    InvalidAgentResponse = 6,
    ExtendedAgentCardNotConfigured = 7,
    ExtensionSupportRequired = 8,
    VersionNotSupported = 9,
    JsonParse = 10,
    InvalidRequest = 11,
    MethodNotFound = 12,
    InvalidParams = 13,
    Internal = 14,
    Unauthenticated = 15,
    PermissionDenied = 16,
    Unavailable = 17,
}

macro_rules! a2a_exception {
    ($($(#[$doc:meta])* $kind:ident),* $(,)?) => {
        /// Every failure of the binding: the A2A errors (a peer's or ours), decoding and
        /// encoding failures, and transport failures.
        #[derive(Debug, Clone, PartialEq, uniffi::Error)]
        #[allow(clippy::large_enum_variant)]
        pub enum A2aError {
            $(
                $(#[$doc])*
                $kind {
                    /// What went wrong, in words.
                    description: String,
                    /// The JSON-RPC error code (`-32001`, ...).
                    code: i32,
                    /// The HTTP status of the v1.0 HTTP+JSON binding.
                    status: u16,
                    /// The `google.rpc.ErrorInfo` reason (`TASK_NOT_FOUND`; empty for the
                    /// JSON-RPC standard errors, which carry none).
                    reason: String,
                    /// The `ErrorInfo` metadata.
                    metadata: HashMap<String, String>,
                    /// The field violations (`google.rpc.BadRequest`).
                    violations: Vec<FieldViolation>,
                },
            )*
            /// The bytes are not JSON (or end early, or have trailing data).
            Syntax { description: String, field: String, line: u32, column: u32 },
            /// Valid JSON whose value does not fit the field (wrong type, unknown enum name,
            /// bad base64 or timestamp, two members of one oneof).
            InvalidValue { description: String, field: String, violations: Vec<FieldViolation> },
            /// A REQUIRED field is missing or empty, or a oneof has no member.
            MissingRequired { description: String, field: String, violations: Vec<FieldViolation> },
            /// The bytes are not a valid protobuf encoding of the message.
            Protobuf { description: String, field: String },
            /// A value its wire format cannot carry (a time outside years 1-9999, a NaN).
            Encode { description: String, field: String },
            /// The peer answered with an error that has no A2A meaning (a proxy's bare 404):
            /// `status` is the HTTP status or gRPC code.
            NotA2a { description: String, status: i32 },
            /// The peer's answer does not follow the protocol.
            Protocol { description: String },
            /// The request cannot be expressed on the interface in use (ListTasks in v0.3).
            Local { description: String },
            /// The connection could not be opened or broke, or carried malformed HTTP.
            Transport { description: String },
            /// A time limit passed: connecting, the whole call, or between two stream events.
            Timeout { description: String },
            /// TLS failed (an untrusted certificate, a broken handshake, unusable settings).
            Tls { description: String },
            /// The Agent Card is invalid or offers nothing this client speaks.
            Card { description: String },
            /// The Agent Card's signature does not verify, or a required one is missing.
            Signature { description: String },
        }

        impl A2aError {
            fn from_a2a(kind: ErrorKind, description: String, code: i32, status: u16, reason: String, metadata: HashMap<String, String>, violations: Vec<FieldViolation>) -> Self {
                match kind {
                    $(ErrorKind::$kind => A2aError::$kind { description, code, status, reason, metadata, violations },)*
                }
            }

            /// The description, whatever the variant.
            pub fn description(&self) -> &str {
                match self {
                    $(A2aError::$kind { description, .. })|*
                    | A2aError::Syntax { description, .. }
                    | A2aError::InvalidValue { description, .. }
                    | A2aError::MissingRequired { description, .. }
                    | A2aError::Protobuf { description, .. }
                    | A2aError::Encode { description, .. }
                    | A2aError::NotA2a { description, .. }
                    | A2aError::Protocol { description }
                    | A2aError::Local { description }
                    | A2aError::Transport { description }
                    | A2aError::Timeout { description }
                    | A2aError::Tls { description }
                    | A2aError::Card { description }
                    | A2aError::Signature { description } => description,
                }
            }
        }
    };
}

a2a_exception! {
    /// The task does not exist or the caller may not see it.
    TaskNotFound,
    /// The task is in a terminal state and cannot be canceled.
    TaskNotCancelable,
    /// The agent does not support push notifications.
    PushNotificationNotSupported,
    /// The operation, or an aspect of it, is not supported.
    UnsupportedOperation,
    /// A media type in the request is not supported.
    ContentTypeNotSupported,
    /// An agent produced a response that does not conform to the spec.
    InvalidAgentResponse,
    /// The card declares an extended card, but none is configured.
    ExtendedAgentCardNotConfigured,
    /// The client did not declare an extension the agent requires.
    ExtensionSupportRequired,
    /// The requested protocol version is not served by this interface.
    VersionNotSupported,
    /// The body is not JSON (JSON-RPC -32700).
    JsonParse,
    /// Not a valid request envelope (JSON-RPC -32600).
    InvalidRequest,
    /// No such method (JSON-RPC -32601).
    MethodNotFound,
    /// Invalid parameters, with the field violations (JSON-RPC -32602).
    InvalidParams,
    /// An internal failure (JSON-RPC -32603).
    Internal,
    /// Missing or invalid credentials.
    Unauthenticated,
    /// The caller lacks a permission.
    PermissionDenied,
    /// Temporarily unavailable; retry later.
    Unavailable,
}

fn violations_of(v: &[a2a_wire_proto::validate::Violation]) -> Vec<FieldViolation> {
    v.iter().map(|v| FieldViolation { field: v.field.clone(), description: v.description.to_string() }).collect()
}

impl ErrorKind {
    fn of(k: a2a::error::ErrorKind) -> Self {
        use a2a::error::ErrorKind as K;
        match k {
            K::TaskNotFound => ErrorKind::TaskNotFound,
            K::TaskNotCancelable => ErrorKind::TaskNotCancelable,
            K::PushNotificationNotSupported => ErrorKind::PushNotificationNotSupported,
            K::UnsupportedOperation => ErrorKind::UnsupportedOperation,
            K::ContentTypeNotSupported => ErrorKind::ContentTypeNotSupported,
            K::InvalidAgentResponse => ErrorKind::InvalidAgentResponse,
            K::ExtendedAgentCardNotConfigured => ErrorKind::ExtendedAgentCardNotConfigured,
            K::ExtensionSupportRequired => ErrorKind::ExtensionSupportRequired,
            K::VersionNotSupported => ErrorKind::VersionNotSupported,
            K::JsonParse => ErrorKind::JsonParse,
            K::InvalidRequest => ErrorKind::InvalidRequest,
            K::MethodNotFound => ErrorKind::MethodNotFound,
            K::InvalidParams => ErrorKind::InvalidParams,
            K::Internal => ErrorKind::Internal,
            K::Unauthenticated => ErrorKind::Unauthenticated,
            K::PermissionDenied => ErrorKind::PermissionDenied,
            K::Unavailable => ErrorKind::Unavailable,
            // The core's table is `#[non_exhaustive]`: a kind added there and not here yet
            // reads as internal rather than failing to build every binding at once.
            _ => ErrorKind::Internal,
        }
    }
}

impl From<&CoreError> for A2aError {
    fn from(e: &CoreError) -> Self {
        A2aError::from_a2a(
            ErrorKind::of(e.kind()),
            e.message().to_string(),
            e.jsonrpc_code(),
            e.http_status(),
            e.reason().unwrap_or("").to_string(),
            e.metadata().iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            violations_of(e.violations()),
        )
    }
}

impl From<&a2a_wire_smol::Error> for A2aError {
    fn from(e: &a2a_wire_smol::Error) -> Self {
        use a2a::error::{ClientError, Received};
        use a2a_wire_smol::Error as E;
        let description = e.to_string();
        match e {
            E::A2a(ClientError::Remote(Received::A2a(err))) => A2aError::from(err),
            E::A2a(ClientError::Remote(Received::NotA2a { status, .. })) => A2aError::NotA2a { description, status: *status },
            E::A2a(ClientError::Local(_)) => A2aError::Local { description },
            E::A2a(_) => A2aError::Protocol { description },
            E::Timeout { .. } => A2aError::Timeout { description },
            E::Url(_) => A2aError::invalid_value("url".into(), &description),
            E::Card(_) => A2aError::Card { description },
            E::Tls(_) => A2aError::Tls { description },
            E::Signature(_) => A2aError::Signature { description },
            _ => A2aError::Transport { description },
        }
    }
}

impl From<DecodeError> for A2aError {
    fn from(e: DecodeError) -> Self {
        let description = e.to_string();
        let field = e.field().to_string();
        match e.kind() {
            DecodeErrorKind::Syntax => {
                let (line, column) = e.position().unwrap_or((0, 0));
                A2aError::Syntax {
                    description,
                    field,
                    line: line.try_into().unwrap_or(u32::MAX),
                    column: column.try_into().unwrap_or(u32::MAX),
                }
            }
            DecodeErrorKind::MissingRequired => A2aError::MissingRequired { description, field, violations: violations_of(e.violations()) },
            DecodeErrorKind::Protobuf => A2aError::Protobuf { description, field },
            _ => A2aError::InvalidValue { description, field, violations: violations_of(e.violations()) },
        }
    }
}

impl From<EncodeError> for A2aError {
    fn from(e: EncodeError) -> Self {
        A2aError::Encode { description: e.to_string(), field: String::new() }
    }
}

impl A2aError {
    /// A value of the model that cannot go back to the core: a bad JSON text or time.
    pub(crate) fn invalid_value(field: String, what: &str) -> Self {
        let description = if field.is_empty() { what.to_string() } else { format!("{field}: {what}") };
        A2aError::InvalidValue {
            description,
            field: field.clone(),
            violations: vec![FieldViolation { field, description: what.to_string() }],
        }
    }
}

impl fmt::Display for A2aError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

impl std::error::Error for A2aError {}

/// What a Kotlin or Swift agent threw that is not an `A2aException`: an internal error with
/// the exception's text (the run's task fails with it).
impl From<uniffi::UnexpectedUniFFICallbackError> for A2aError {
    fn from(e: uniffi::UnexpectedUniFFICallbackError) -> Self {
        A2aError::from(&CoreError::with_message(a2a::error::ErrorKind::Internal, e.reason))
    }
}

/// The exception a received answer means, by the core's rules (what the client does with a
/// peer's error): an A2A error's own variant, or `NotA2a` for a status without A2A meaning.
fn from_received(r: &a2a::error::Received) -> A2aError {
    match r {
        a2a::error::Received::A2a(e) => A2aError::from(e),
        a2a::error::Received::NotA2a { status, message } => {
            A2aError::NotA2a { description: format!("not an A2A error (status {status}): {message}"), status: *status }
        }
        other => A2aError::Protocol { description: format!("{other:?}") },
    }
}

/// A protocol version the bindings speak (1.0 or 0.3, a patch allowed), read by the core's
/// parser; anything else is an `InvalidValue` at `field`.
pub(crate) fn known_version(version: &str, field: &str) -> Result<ProtocolVersion, A2aError> {
    match ProtocolVersion::parse(version) {
        Some(p) if p == ProtocolVersion::V1_0 || p == ProtocolVersion::V0_3 => Ok(p),
        _ => Err(A2aError::invalid_value(field.into(), &format!("unknown protocol version {version:?} (1.0 or 0.3)"))),
    }
}

/// The classify functions' version argument: empty means 1.0.
fn is_v03(version: &str) -> Result<bool, A2aError> {
    if version.trim().is_empty() {
        return Ok(false);
    }
    Ok(known_version(version, "version")?.is_legacy())
}

/// What an HTTP+JSON error answer (its status and body) means, as the client reads it.
#[uniffi::export]
pub fn classify_http(status: u16, body: Vec<u8>, version: String) -> Result<A2aError, A2aError> {
    let r = if is_v03(&version)? { a2a::error::classify_http_v03(status, &body) } else { a2a::error::classify_http(status, &body) };
    Ok(from_received(&r))
}

/// What a gRPC status means; `details` is its `grpc-status-details-bin` trailer (a
/// `google.rpc.Status`).
#[uniffi::export]
pub fn classify_grpc(code: i32, message: String, details: Option<Vec<u8>>, version: String) -> Result<A2aError, A2aError> {
    let status = match &details {
        Some(d) => Some(
            <a2a::proto::google::rpc::Status as prost::Message>::decode(&d[..])
                .map_err(|e| A2aError::invalid_value("details".into(), &format!("not a google.rpc.Status: {e}")))?,
        ),
        None => None,
    };
    let r = if is_v03(&version)? {
        a2a::error::classify_grpc_v03(code, &message, status.as_ref())
    } else {
        a2a::error::classify_grpc(code, &message, status.as_ref())
    };
    Ok(from_received(&r))
}

/// What a JSON-RPC `error` object (its JSON text) means.
#[uniffi::export]
pub fn classify_jsonrpc(error: String) -> Result<A2aError, A2aError> {
    let v: serde_json::Value = serde_json::from_str(&error).map_err(|e| A2aError::Syntax {
        description: format!("error is not JSON: {e}"),
        field: String::new(),
        line: u32::try_from(e.line()).unwrap_or(u32::MAX),
        column: u32::try_from(e.column()).unwrap_or(u32::MAX),
    })?;
    Ok(from_received(&a2a::error::classify_jsonrpc(&v)))
}

//! The A2A error model: one [`A2aError`] for every error an A2A peer can send or receive, and
//! how each looks on every binding (spec §3.3.2, §5.4, §9.5, §10.6, §11.6; WIRE-NOTES (a)).
//!
//! Every [`ErrorKind`] has one row in [`ErrorKind::spec`]: JSON-RPC code, gRPC status, HTTP
//! status and `ErrorInfo.reason` (domain `a2a-protocol.org`). The statuses are those of
//! v1.0.1; peers built on v1.0.0 send 409 / 415 / 502 / `UNIMPLEMENTED` for some errors, which
//! is why received errors are classified by `reason` first ([`classify_http`],
//! [`classify_grpc`], [`classify_jsonrpc`]).
//!
//! A received HTTP 404 or gRPC `NOT_FOUND` without an `a2a-protocol.org` `ErrorInfo` is
//! [`Received::NotA2a`]: a proxy's or router's answer, never a `TaskNotFound`.
//!
//! Choices where the spec leaves room, all in the table:
//! - The spec's generic categories "authentication" and "authorization" use "a custom
//!   JSON-RPC error"; a2a-wire uses -31401 and -31403 (and -31503 for "unavailable"), outside
//!   the -32768..-32000 range that JSON-RPC reserves, mirroring the HTTP statuses.
//! - `ErrorInfo` is sent for the nine A2A errors (the spec requires it) and, with the reasons
//!   the official Python SDK uses, for invalid params, invalid request, method not found and
//!   internal errors. Parse errors (`JSON_PARSE`, from the spec's `JSONParseError`) carry it
//!   too, and so do the generic categories (`UNAUTHENTICATED`, `PERMISSION_DENIED`,
//!   `UNAVAILABLE`, their `google.rpc.Code` names): a v0.3 JSON-RPC peer, which has no code
//!   for them, gets -32603 and the reason still tells an aware client what happened.
//! - Validation errors also carry a `google.rpc.BadRequest` with one field violation per
//!   offending field.

use crate::codec::DecodeError;
use crate::proto::google::protobuf::Any;
use crate::proto::google::rpc::{bad_request::FieldViolation, BadRequest, ErrorInfo, Status};
use crate::proto::validate::Violation;
use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use prost::Message as _;
use serde_json::{json, Value};

/// `ErrorInfo.domain` of every A2A error.
pub const DOMAIN: &str = "a2a-protocol.org";
/// `@type` of `google.rpc.ErrorInfo` in error details.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";
/// `@type` of `google.rpc.BadRequest` in error details.
pub const BAD_REQUEST_TYPE: &str = "type.googleapis.com/google.rpc.BadRequest";

/// gRPC status codes (`google.rpc.Code`).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum GrpcCode {
    Ok = 0,
    Cancelled = 1,
    Unknown = 2,
    InvalidArgument = 3,
    DeadlineExceeded = 4,
    NotFound = 5,
    AlreadyExists = 6,
    PermissionDenied = 7,
    ResourceExhausted = 8,
    FailedPrecondition = 9,
    Aborted = 10,
    OutOfRange = 11,
    Unimplemented = 12,
    Internal = 13,
    Unavailable = 14,
    DataLoss = 15,
    Unauthenticated = 16,
}

impl GrpcCode {
    const ALL: [GrpcCode; 17] = [
        GrpcCode::Ok,
        GrpcCode::Cancelled,
        GrpcCode::Unknown,
        GrpcCode::InvalidArgument,
        GrpcCode::DeadlineExceeded,
        GrpcCode::NotFound,
        GrpcCode::AlreadyExists,
        GrpcCode::PermissionDenied,
        GrpcCode::ResourceExhausted,
        GrpcCode::FailedPrecondition,
        GrpcCode::Aborted,
        GrpcCode::OutOfRange,
        GrpcCode::Unimplemented,
        GrpcCode::Internal,
        GrpcCode::Unavailable,
        GrpcCode::DataLoss,
        GrpcCode::Unauthenticated,
    ];

    /// The code for a number; unknown numbers are `Unknown`, as gRPC specifies.
    pub fn from_i32(n: i32) -> GrpcCode {
        usize::try_from(n).ok().and_then(|i| Self::ALL.get(i)).copied().unwrap_or(GrpcCode::Unknown)
    }

    /// The `google.rpc.Code` name, as written in `error.status` of HTTP+JSON error bodies.
    pub fn name(self) -> &'static str {
        match self {
            GrpcCode::Ok => "OK",
            GrpcCode::Cancelled => "CANCELLED",
            GrpcCode::Unknown => "UNKNOWN",
            GrpcCode::InvalidArgument => "INVALID_ARGUMENT",
            GrpcCode::DeadlineExceeded => "DEADLINE_EXCEEDED",
            GrpcCode::NotFound => "NOT_FOUND",
            GrpcCode::AlreadyExists => "ALREADY_EXISTS",
            GrpcCode::PermissionDenied => "PERMISSION_DENIED",
            GrpcCode::ResourceExhausted => "RESOURCE_EXHAUSTED",
            GrpcCode::FailedPrecondition => "FAILED_PRECONDITION",
            GrpcCode::Aborted => "ABORTED",
            GrpcCode::OutOfRange => "OUT_OF_RANGE",
            GrpcCode::Unimplemented => "UNIMPLEMENTED",
            GrpcCode::Internal => "INTERNAL",
            GrpcCode::Unavailable => "UNAVAILABLE",
            GrpcCode::DataLoss => "DATA_LOSS",
            GrpcCode::Unauthenticated => "UNAUTHENTICATED",
        }
    }
}

/// What went wrong, independent of the binding.
///
/// The numbers are stable: they cross the C, Python and Node boundaries, and a number is
/// never reused for another kind (a test pins them). 0 is never a kind.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u32)]
pub enum ErrorKind {
    /// The task does not exist or the caller may not see it.
    TaskNotFound = 1,
    /// The task is in a terminal state and cannot be canceled.
    TaskNotCancelable = 2,
    /// The agent does not support push notifications.
    PushNotificationNotSupported = 3,
    /// The operation, or an aspect of it, is not supported (including a message to a terminal
    /// task, a subscription to one, and streaming or the extended card when the card does not
    /// declare them).
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
    /// Validation: invalid parameters, with the field violations (JSON-RPC -32602).
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

/// How one [`ErrorKind`] looks on each binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorSpec {
    /// The kind.
    pub kind: ErrorKind,
    /// JSON-RPC `error.code`.
    pub jsonrpc: i32,
    /// gRPC status.
    pub grpc: GrpcCode,
    /// HTTP status.
    pub http: u16,
    /// `ErrorInfo.reason`, when the error carries an `ErrorInfo`.
    pub reason: Option<&'static str>,
    /// Default message.
    pub message: &'static str,
}

const fn row(kind: ErrorKind, jsonrpc: i32, grpc: GrpcCode, http: u16, reason: Option<&'static str>, message: &'static str) -> ErrorSpec {
    ErrorSpec { kind, jsonrpc, grpc, http, reason, message }
}

/// THE table: every error kind and its wire forms (v1.0.1 statuses).
pub const ERROR_TABLE: [ErrorSpec; 17] = {
    use ErrorKind::*;
    use GrpcCode as G;
    [
        row(TaskNotFound, -32001, G::NotFound, 404, Some("TASK_NOT_FOUND"), "Task not found"),
        row(TaskNotCancelable, -32002, G::FailedPrecondition, 400, Some("TASK_NOT_CANCELABLE"), "Task cannot be canceled"),
        row(
            PushNotificationNotSupported,
            -32003,
            G::FailedPrecondition,
            400,
            Some("PUSH_NOTIFICATION_NOT_SUPPORTED"),
            "Push notifications are not supported",
        ),
        row(UnsupportedOperation, -32004, G::FailedPrecondition, 400, Some("UNSUPPORTED_OPERATION"), "This operation is not supported"),
        row(ContentTypeNotSupported, -32005, G::InvalidArgument, 400, Some("CONTENT_TYPE_NOT_SUPPORTED"), "Incompatible content types"),
        row(InvalidAgentResponse, -32006, G::Internal, 500, Some("INVALID_AGENT_RESPONSE"), "Invalid agent response"),
        row(
            ExtendedAgentCardNotConfigured,
            -32007,
            G::FailedPrecondition,
            400,
            Some("EXTENDED_AGENT_CARD_NOT_CONFIGURED"),
            "Extended agent card is not configured",
        ),
        row(ExtensionSupportRequired, -32008, G::FailedPrecondition, 400, Some("EXTENSION_SUPPORT_REQUIRED"), "Extension support required"),
        row(VersionNotSupported, -32009, G::FailedPrecondition, 400, Some("VERSION_NOT_SUPPORTED"), "Protocol version not supported"),
        row(JsonParse, -32700, G::InvalidArgument, 400, Some("JSON_PARSE"), "Invalid JSON payload"),
        row(InvalidRequest, -32600, G::InvalidArgument, 400, Some("INVALID_REQUEST"), "Request payload validation error"),
        row(MethodNotFound, -32601, G::Unimplemented, 404, Some("METHOD_NOT_FOUND"), "Method not found"),
        row(InvalidParams, -32602, G::InvalidArgument, 400, Some("INVALID_PARAMS"), "Invalid parameters"),
        row(Internal, -32603, G::Internal, 500, Some("INTERNAL_ERROR"), "Internal error"),
        row(Unauthenticated, -31401, G::Unauthenticated, 401, Some("UNAUTHENTICATED"), "Authentication required"),
        row(PermissionDenied, -31403, G::PermissionDenied, 403, Some("PERMISSION_DENIED"), "Permission denied"),
        row(Unavailable, -31503, G::Unavailable, 503, Some("UNAVAILABLE"), "Service unavailable"),
    ]
};

impl ErrorKind {
    /// This kind's row of [`ERROR_TABLE`].
    pub fn spec(self) -> &'static ErrorSpec {
        // ERROR_TABLE has one row per kind, in declaration order (checked by a unit test), so
        // the index is in bounds; fall back to a linear search to stay panic-free regardless.
        match ERROR_TABLE.get((self as usize).wrapping_sub(1)) {
            Some(s) if s.kind == self => s,
            _ => ERROR_TABLE.iter().find(|s| s.kind == self).unwrap_or(&ERROR_TABLE[13]),
        }
    }
    /// True for the nine A2A-specific errors.
    pub fn is_a2a_specific(self) -> bool {
        (self as u32) <= 9
    }
    /// The stable number of this kind (see the type's docs).
    pub fn number(self) -> u32 {
        self as u32
    }
    /// The kind with this stable number.
    pub fn from_number(n: u32) -> Option<ErrorKind> {
        ERROR_TABLE.iter().map(|s| s.kind).find(|k| k.number() == n)
    }
    /// The kind for an `ErrorInfo.reason`, with the v1.0 names and the v0.3 SDKs' alias
    /// `AUTHENTICATED_EXTENDED_CARD_NOT_CONFIGURED`.
    pub fn from_reason(reason: &str) -> Option<ErrorKind> {
        if reason == "AUTHENTICATED_EXTENDED_CARD_NOT_CONFIGURED" {
            return Some(ErrorKind::ExtendedAgentCardNotConfigured);
        }
        ERROR_TABLE.iter().find(|s| s.reason == Some(reason)).map(|s| s.kind)
    }
    /// The kind for a JSON-RPC error code.
    pub fn from_jsonrpc_code(code: i64) -> Option<ErrorKind> {
        ERROR_TABLE.iter().find(|s| i64::from(s.jsonrpc) == code).map(|s| s.kind)
    }
    /// The error's type name in the v0.3 JSON schema (`TaskNotFoundError`, ...); `None` for
    /// kinds v0.3 does not define. v0.3 defines no error body for HTTP+JSON or gRPC; the
    /// official SDKs' v0.3 layers carry this name (a `type` field, a `Name: message` gRPC
    /// message), so a2a-wire writes it and reads it.
    pub fn v03_name(self) -> Option<&'static str> {
        Some(match self {
            ErrorKind::TaskNotFound => "TaskNotFoundError",
            ErrorKind::TaskNotCancelable => "TaskNotCancelableError",
            ErrorKind::PushNotificationNotSupported => "PushNotificationNotSupportedError",
            ErrorKind::UnsupportedOperation => "UnsupportedOperationError",
            ErrorKind::ContentTypeNotSupported => "ContentTypeNotSupportedError",
            ErrorKind::InvalidAgentResponse => "InvalidAgentResponseError",
            ErrorKind::ExtendedAgentCardNotConfigured => "AuthenticatedExtendedCardNotConfiguredError",
            ErrorKind::JsonParse => "JSONParseError",
            ErrorKind::InvalidRequest => "InvalidRequestError",
            ErrorKind::MethodNotFound => "MethodNotFoundError",
            ErrorKind::InvalidParams => "InvalidParamsError",
            ErrorKind::Internal => "InternalError",
            _ => return None,
        })
    }
    /// The kind for a v0.3 type name (also the v1.0 SDKs' `ExtendedAgentCardNotConfiguredError`).
    pub fn from_v03_name(name: &str) -> Option<ErrorKind> {
        if name == "ExtendedAgentCardNotConfiguredError" {
            return Some(ErrorKind::ExtendedAgentCardNotConfigured);
        }
        ERROR_TABLE.iter().find(|s| s.kind.v03_name() == Some(name)).map(|s| s.kind)
    }
}

/// An A2A error: a kind, a message, `ErrorInfo` metadata and, for validation errors, the
/// field violations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct A2aError {
    kind: ErrorKind,
    message: Cow<'static, str>,
    metadata: BTreeMap<String, String>,
    violations: Vec<Violation>,
}

impl A2aError {
    /// An error of `kind` with its default message.
    pub fn new(kind: ErrorKind) -> Self {
        A2aError { kind, message: Cow::Borrowed(kind.spec().message), metadata: BTreeMap::new(), violations: Vec::new() }
    }
    /// An error of `kind` with a message.
    pub fn with_message(kind: ErrorKind, message: impl Into<Cow<'static, str>>) -> Self {
        A2aError { message: message.into(), ..A2aError::new(kind) }
    }
    /// Adds an `ErrorInfo.metadata` entry.
    pub fn meta(mut self, key: &str, value: impl Into<String>) -> Self {
        self.metadata.insert(String::from(key), value.into());
        self
    }

    /// TaskNotFound, with `taskId` in the metadata.
    pub fn task_not_found(task_id: &str) -> Self {
        A2aError::new(ErrorKind::TaskNotFound).meta("taskId", task_id)
    }
    /// TaskNotCancelable, with `taskId` and the task's `state`.
    pub fn task_not_cancelable(task_id: &str, state: &str) -> Self {
        A2aError::with_message(ErrorKind::TaskNotCancelable, alloc::format!("Task is {state} and cannot be canceled"))
            .meta("taskId", task_id)
            .meta("state", state)
    }
    /// UnsupportedOperation with a message saying what is not supported.
    pub fn unsupported(message: impl Into<Cow<'static, str>>) -> Self {
        A2aError::with_message(ErrorKind::UnsupportedOperation, message)
    }
    /// VersionNotSupported, with `requestedVersion` and `supportedVersions` (comma-separated)
    /// so that a client knows whether to upgrade or switch interface.
    pub fn version_not_supported<V: fmt::Display>(requested: &str, supported: &[V]) -> Self {
        let list: Vec<String> = supported.iter().map(ToString::to_string).collect();
        let list = list.join(",");
        A2aError::with_message(
            ErrorKind::VersionNotSupported,
            alloc::format!("A2A protocol version {requested:?} is not supported here; supported: {list}"),
        )
        .meta("requestedVersion", requested)
        .meta("supportedVersions", list)
    }
    /// ExtensionSupportRequired, with the missing extension URIs (comma-separated) under
    /// `extensions`.
    pub fn extension_support_required(missing: &[&str]) -> Self {
        let list = missing.join(",");
        A2aError::with_message(ErrorKind::ExtensionSupportRequired, alloc::format!("The agent requires these extensions: {list}"))
            .meta("extensions", list)
    }
    /// A validation error listing the offending fields.
    pub fn invalid_params(violations: Vec<Violation>) -> Self {
        let message = match violations.first() {
            Some(v) => Cow::Owned(v.to_string()),
            None => Cow::Borrowed(ErrorKind::InvalidParams.spec().message),
        };
        A2aError { violations, ..A2aError::with_message(ErrorKind::InvalidParams, message) }
    }
    /// Replaces the field violations (any kind may carry them; they travel as a
    /// `google.rpc.BadRequest` detail). Used by bindings that rebuild an error a user raised.
    pub fn with_violations(mut self, violations: Vec<Violation>) -> Self {
        self.violations = violations;
        self
    }
    /// A validation error for one field.
    pub fn invalid_field(field: &str, description: impl Into<Cow<'static, str>>) -> Self {
        A2aError::invalid_params(alloc::vec![Violation { field: String::from(field), description: description.into() }])
    }

    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// `ErrorInfo.metadata`.
    pub fn metadata(&self) -> &BTreeMap<String, String> {
        &self.metadata
    }
    /// Field violations of a validation error.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }
    /// JSON-RPC `error.code`.
    pub fn jsonrpc_code(&self) -> i32 {
        self.kind.spec().jsonrpc
    }
    /// gRPC status.
    pub fn grpc_code(&self) -> GrpcCode {
        self.kind.spec().grpc
    }
    /// HTTP status.
    pub fn http_status(&self) -> u16 {
        self.kind.spec().http
    }
    /// The HTTP status of this error on a v0.3 HTTP+JSON interface. v0.3 names no table
    /// ("appropriate HTTP status codes", §3.2.3); the v0.3 releases (a2a-sdk 0.3.24's
    /// `error_handlers`, whose clients read the status alone) answer the A2A errors with
    /// the statuses v1.0.0 later wrote down: 409 for a task that cannot be canceled, 501 for
    /// an unsupported operation or push notifications, 415 for a content type, 502 for an
    /// invalid agent response. The other errors keep their v1.0 status.
    pub fn http_status_v03(&self) -> u16 {
        match self.kind {
            ErrorKind::TaskNotCancelable => 409,
            ErrorKind::PushNotificationNotSupported | ErrorKind::UnsupportedOperation => 501,
            ErrorKind::ContentTypeNotSupported => 415,
            ErrorKind::InvalidAgentResponse => 502,
            _ => self.http_status(),
        }
    }
    /// `ErrorInfo.reason`, if this error carries an ErrorInfo.
    pub fn reason(&self) -> Option<&'static str> {
        self.kind.spec().reason
    }

    fn error_info(&self) -> Option<ErrorInfo> {
        self.reason().map(|reason| ErrorInfo {
            reason: String::from(reason),
            domain: String::from(DOMAIN),
            metadata: self.metadata.clone(),
        })
    }
    fn bad_request(&self) -> Option<BadRequest> {
        (!self.violations.is_empty()).then(|| BadRequest {
            field_violations: self
                .violations
                .iter()
                .map(|v| FieldViolation { field: v.field.clone(), description: v.description.to_string(), reason: String::new() })
                .collect(),
        })
    }

    /// The error details as ProtoJSON `Any` objects (`@type` + fields).
    pub fn details_json(&self) -> Vec<Value> {
        let mut out = Vec::new();
        if let Some(info) = self.error_info() {
            out.push(json!({"@type": ERROR_INFO_TYPE, "reason": info.reason, "domain": info.domain, "metadata": info.metadata}));
        }
        if let Some(br) = self.bad_request() {
            let fv: Vec<Value> = br.field_violations.iter().map(|v| json!({"field": v.field, "description": v.description})).collect();
            out.push(json!({"@type": BAD_REQUEST_TYPE, "fieldViolations": fv}));
        }
        out
    }

    /// The JSON-RPC `error` object: `{"code","message","data":[ErrorInfo, BadRequest]}` (§9.5).
    pub fn to_jsonrpc_error(&self) -> Value {
        let details = self.details_json();
        if details.is_empty() {
            json!({"code": self.jsonrpc_code(), "message": self.message()})
        } else {
            json!({"code": self.jsonrpc_code(), "message": self.message(), "data": details})
        }
    }

    /// The HTTP+JSON error body: ProtoJSON `google.rpc.Status` wrapped as in AIP-193 (§11.6).
    pub fn to_http_body(&self) -> Value {
        json!({"error": {
            "code": self.http_status(),
            "status": self.grpc_code().name(),
            "message": self.message(),
            "details": self.details_json(),
        }})
    }

    /// The HTTP+JSON error body of a v0.3 interface. v0.3 defines none ("a JSONRPCError or
    /// equivalent", §7.1), and peers read different shapes, so the body carries each of them:
    /// the JSON-RPC error's `code` and `message` (what the JS SDK's v0.3 client reads), the
    /// v0.3 type name as `type` (the Python SDK's v0.3 client), and the v1.0
    /// `google.rpc.Status` as `error` with its `ErrorInfo` (a2a-wire and v1.0-style readers).
    pub fn to_http_body_v03(&self) -> Value {
        let mut body = json!({ "code": self.jsonrpc_code(), "message": self.message() });
        if let Some(name) = self.kind.v03_name() {
            body["type"] = Value::from(name);
        }
        body["error"] = self.to_http_body()["error"].take();
        body["error"]["code"] = Value::from(self.http_status_v03());
        body
    }

    /// The gRPC status message of a v0.3 interface: `TypeName: message`, the convention the
    /// official SDKs' v0.3 gRPC layers read (the `grpc-status-details-bin` trailer is sent
    /// as well).
    pub fn grpc_message_v03(&self) -> String {
        match self.kind.v03_name() {
            Some(name) => alloc::format!("{name}: {}", self.message()),
            None => self.message().to_string(),
        }
    }

    /// The `google.rpc.Status` for gRPC's `grpc-status-details-bin` trailer (§10.6).
    pub fn to_grpc_status(&self) -> Status {
        let mut details = Vec::new();
        if let Some(info) = self.error_info() {
            details.push(Any { type_url: String::from(ERROR_INFO_TYPE), value: info.encode_to_vec() });
        }
        if let Some(br) = self.bad_request() {
            details.push(Any { type_url: String::from(BAD_REQUEST_TYPE), value: br.encode_to_vec() });
        }
        Status { code: self.grpc_code() as i32, message: self.message().to_string(), details }
    }
}

impl fmt::Display for A2aError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for A2aError {}

impl From<DecodeError> for A2aError {
    /// Syntax errors become `JsonParse` (-32700); everything else is a validation error with
    /// the offending fields.
    fn from(e: DecodeError) -> Self {
        use crate::codec::DecodeErrorKind;
        match e.kind() {
            DecodeErrorKind::Syntax => A2aError::with_message(ErrorKind::JsonParse, e.to_string()),
            _ => A2aError::invalid_params(e.violations().to_vec()),
        }
    }
}

// ---------------------------------------------------------------- classification

/// A received error, classified.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Received {
    /// An A2A error (or a generic A2A category such as unauthenticated).
    A2a(A2aError),
    /// Not an A2A error: a status without A2A meaning, e.g. a proxy's bare 404. Callers must
    /// not read it as TaskNotFound.
    NotA2a {
        /// HTTP status, or gRPC code number.
        status: i32,
        /// Whatever message came with it.
        message: String,
    },
}

fn from_details(details: &[Value], fallback_message: &str) -> Option<A2aError> {
    let mut found: Option<A2aError> = None;
    let mut violations = Vec::new();
    for d in details {
        match d.get("@type").and_then(Value::as_str) {
            Some(ERROR_INFO_TYPE) if found.is_none() => {
                if d.get("domain").and_then(Value::as_str) != Some(DOMAIN) {
                    continue;
                }
                let Some(kind) = d.get("reason").and_then(Value::as_str).and_then(ErrorKind::from_reason) else { continue };
                let mut e = A2aError::with_message(kind, String::from(fallback_message));
                if let Some(Value::Object(m)) = d.get("metadata") {
                    for (k, v) in m {
                        if let Some(s) = v.as_str() {
                            e.metadata.insert(k.clone(), String::from(s));
                        }
                    }
                }
                found = Some(e);
            }
            Some(BAD_REQUEST_TYPE) => {
                for v in d.get("fieldViolations").and_then(Value::as_array).into_iter().flatten() {
                    violations.push(Violation {
                        field: String::from(v.get("field").and_then(Value::as_str).unwrap_or("")),
                        description: Cow::Owned(String::from(v.get("description").and_then(Value::as_str).unwrap_or(""))),
                    });
                }
            }
            _ => {}
        }
    }
    found.map(|mut e| {
        e.violations = violations;
        e
    })
}

/// Classifies an HTTP error response of the HTTP+JSON binding (status and body). The
/// `ErrorInfo` reason decides when present; otherwise only the generic statuses 400, 401, 403,
/// 500 and 503 with a `google.rpc.Status` body are A2A categories, and anything else
/// (notably 404) is [`Received::NotA2a`].
pub fn classify_http(status: u16, body: &[u8]) -> Received {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error")).filter(|e| e.is_object());
    let message = error.and_then(|e| e.get("message")).and_then(Value::as_str).unwrap_or("");
    if let Some(details) = error.and_then(|e| e.get("details")).and_then(Value::as_array) {
        if let Some(e) = from_details(details, message) {
            return Received::A2a(e);
        }
    }
    let generic = match status {
        400 => Some(ErrorKind::InvalidParams),
        401 => Some(ErrorKind::Unauthenticated),
        403 => Some(ErrorKind::PermissionDenied),
        500 => Some(ErrorKind::Internal),
        503 => Some(ErrorKind::Unavailable),
        _ => None,
    };
    match (generic, error) {
        // 401, 403 and 503 mean the same from any server; 400 and 500 only count with an
        // A2A-shaped body.
        (Some(k @ (ErrorKind::Unauthenticated | ErrorKind::PermissionDenied | ErrorKind::Unavailable)), _) | (Some(k), Some(_)) => {
            Received::A2a(if message.is_empty() { A2aError::new(k) } else { A2aError::with_message(k, String::from(message)) })
        }
        _ => Received::NotA2a { status: i32::from(status), message: String::from(message) },
    }
}

/// Classifies an HTTP error response of a v0.3 HTTP+JSON interface: a `google.rpc.Status`
/// with `ErrorInfo` first, then a JSON-RPC-style `code` (with `message`) at the top level, then
/// a v0.3 `type` name; otherwise as [`classify_http`].
pub fn classify_http_v03(status: u16, body: &[u8]) -> Received {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error")).filter(|e| e.is_object());
    let error_message = error.and_then(|e| e.get("message")).and_then(Value::as_str).unwrap_or("");
    if let Some(e) = error.and_then(|e| e.get("details")).and_then(Value::as_array).and_then(|d| from_details(d, error_message)) {
        return Received::A2a(e);
    }
    let message = parsed.as_ref().and_then(|v| v.get("message")).and_then(Value::as_str).unwrap_or("");
    let by_code = parsed.as_ref().and_then(|v| v.get("code")).and_then(Value::as_i64).and_then(ErrorKind::from_jsonrpc_code);
    let by_type = parsed.as_ref().and_then(|v| v.get("type")).and_then(Value::as_str).and_then(ErrorKind::from_v03_name);
    match by_code.or(by_type) {
        Some(kind) => Received::A2a(A2aError::with_message(kind, String::from(message))),
        None => classify_http(status, body),
    }
}

/// Classifies a gRPC error of a v0.3 interface: the `ErrorInfo` in the details first, then a
/// `TypeName: message` status message (the v0.3 SDKs' convention); otherwise as
/// [`classify_grpc`].
pub fn classify_grpc_v03(code: i32, message: &str, details: Option<&Status>) -> Received {
    // `TypeName: message`: the name is the convention's, the rest is the message.
    let named = message.split_once(": ").and_then(|(name, rest)| Some((ErrorKind::from_v03_name(name.trim())?, rest)));
    let text = named.map_or(message, |(_, rest)| rest);
    if let Some(e) = details.and_then(|d| from_status(text, d)) {
        return Received::A2a(e);
    }
    match named {
        Some((kind, rest)) => Received::A2a(A2aError::with_message(kind, String::from(rest))),
        None => classify_grpc(code, message, details),
    }
}

/// Classifies a gRPC error: its status code, message and, when present, the decoded
/// `grpc-status-details-bin` (`google.rpc.Status`). The `ErrorInfo` reason decides when
/// present; otherwise the generic codes map to their categories, and `NOT_FOUND` (like any
/// other code) is [`Received::NotA2a`].
pub fn classify_grpc(code: i32, message: &str, details: Option<&Status>) -> Received {
    if let Some(e) = details.and_then(|d| from_status(message, d)) {
        return Received::A2a(e);
    }
    let kind = match GrpcCode::from_i32(code) {
        GrpcCode::InvalidArgument => Some(ErrorKind::InvalidParams),
        GrpcCode::Unauthenticated => Some(ErrorKind::Unauthenticated),
        GrpcCode::PermissionDenied => Some(ErrorKind::PermissionDenied),
        GrpcCode::Internal => Some(ErrorKind::Internal),
        GrpcCode::Unavailable => Some(ErrorKind::Unavailable),
        _ => None,
    };
    match kind {
        Some(k) => Received::A2a(A2aError::with_message(k, String::from(message))),
        None => Received::NotA2a { status: code, message: String::from(message) },
    }
}

/// The error a `google.rpc.Status` names with an a2a-protocol.org `ErrorInfo`, with its
/// metadata and `BadRequest` violations.
fn from_status(message: &str, status: &Status) -> Option<A2aError> {
    let mut info_kind = None;
    let mut violations = Vec::new();
    let mut metadata = BTreeMap::new();
    for any in &status.details {
        if any.type_url == ERROR_INFO_TYPE && info_kind.is_none() {
            if let Ok(info) = ErrorInfo::decode(any.value.as_slice()) {
                if info.domain == DOMAIN {
                    if let Some(k) = ErrorKind::from_reason(&info.reason) {
                        info_kind = Some(k);
                        metadata = info.metadata;
                    }
                }
            }
        } else if any.type_url == BAD_REQUEST_TYPE {
            if let Ok(br) = BadRequest::decode(any.value.as_slice()) {
                violations
                    .extend(br.field_violations.into_iter().map(|v| Violation { field: v.field, description: Cow::Owned(v.description) }));
            }
        }
    }
    let mut e = A2aError::with_message(info_kind?, String::from(message));
    e.metadata = metadata;
    e.violations = violations;
    Some(e)
}

/// Classifies a JSON-RPC `error` object (v1.0 `data` array with `ErrorInfo`, or v0.3's
/// free-form `data`). The `ErrorInfo` reason decides when present, else the code.
pub fn classify_jsonrpc(error: &Value) -> Received {
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    if let Some(details) = error.get("data").and_then(Value::as_array) {
        if let Some(e) = from_details(details, message) {
            return Received::A2a(e);
        }
    }
    let code = error.get("code").and_then(Value::as_i64);
    match code.and_then(ErrorKind::from_jsonrpc_code) {
        Some(kind) => Received::A2a(A2aError::with_message(kind, String::from(message))),
        None => Received::NotA2a { status: code.and_then(|c| i32::try_from(c).ok()).unwrap_or(0), message: String::from(message) },
    }
}

/// Why a client call did not give a result (the sans-IO client and the bindings' decoders
/// return it; re-exported as `client::ClientError`).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum ClientError {
    /// The peer answered with an error (an A2A error, or one without A2A meaning such as a
    /// proxy's bare 404).
    Remote(Received),
    /// The peer's answer does not follow the protocol.
    Protocol(String),
    /// The request cannot be expressed on the selected interface (e.g. ListTasks in v0.3).
    Local(String),
}

impl core::fmt::Display for ClientError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ClientError::Remote(Received::A2a(e)) => write!(f, "{e}"),
            ClientError::Remote(Received::NotA2a { status, message }) => write!(f, "not an A2A error: status {status} {message}"),
            ClientError::Protocol(m) => write!(f, "protocol error: {m}"),
            ClientError::Local(m) => write!(f, "cannot send: {m}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Remote(Received::A2a(e)) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v03_errors_are_read_from_error_info_json_rpc_codes_type_names_and_grpc_messages() {
        let e = A2aError::new(ErrorKind::TaskNotFound).meta("taskId", "t");
        let body = serde_json::to_vec(&e.to_http_body_v03()).unwrap();
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!((v["code"].as_i64(), v["type"].as_str()), (Some(-32001), Some("TaskNotFoundError")));
        assert_eq!(v["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
        match classify_http_v03(404, &body) {
            Received::A2a(got) => {
                assert_eq!((got.kind(), got.metadata().get("taskId").map(String::as_str)), (ErrorKind::TaskNotFound, Some("t")))
            }
            other => panic!("{other:?}"),
        }
        // The JS SDK's v0.3 body: a bare JSON-RPC error object.
        let js = br#"{"code":-32002,"message":"Task not cancelable: t"}"#;
        assert!(
            matches!(classify_http_v03(400, js), Received::A2a(e) if e.kind() == ErrorKind::TaskNotCancelable && e.message() == "Task not cancelable: t")
        );
        // A type name alone.
        let py = br#"{"type":"UnsupportedOperationError","message":"no"}"#;
        assert!(matches!(classify_http_v03(400, py), Received::A2a(e) if e.kind() == ErrorKind::UnsupportedOperation));
        // A proxy's 404 stays without A2A meaning on v0.3 too.
        assert!(matches!(classify_http_v03(404, b"<html>Not Found</html>"), Received::NotA2a { status: 404, .. }));
        // gRPC: `Name: message`, with or without the details trailer.
        assert_eq!(e.grpc_message_v03(), "TaskNotFoundError: Task not found");
        assert!(
            matches!(classify_grpc_v03(5, "TaskNotFoundError: Task not found", None), Received::A2a(x) if x.kind() == ErrorKind::TaskNotFound && x.message() == "Task not found")
        );
        let status = e.to_grpc_status();
        match classify_grpc_v03(5, &e.grpc_message_v03(), Some(&status)) {
            Received::A2a(got) => {
                assert_eq!((got.kind(), got.message()), (ErrorKind::TaskNotFound, "Task not found"));
                assert_eq!(got.metadata().get("taskId").map(String::as_str), Some("t"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(classify_grpc_v03(5, "not found", None), Received::NotA2a { status: 5, .. }));
        // Every kind v0.3 names reads back from its name.
        for row in ERROR_TABLE {
            if let Some(n) = row.kind.v03_name() {
                assert_eq!(ErrorKind::from_v03_name(n), Some(row.kind));
            }
        }
    }

    #[test]
    fn the_table_has_one_row_per_kind_in_order() {
        for (i, row) in ERROR_TABLE.iter().enumerate() {
            assert_eq!(row.kind as usize, i + 1, "{:?}", row.kind);
            assert_eq!(row.kind.spec(), row);
            assert_eq!(ErrorKind::from_number(row.kind.number()), Some(row.kind));
        }
        let codes: alloc::collections::BTreeSet<i32> = ERROR_TABLE.iter().map(|r| r.jsonrpc).collect();
        assert_eq!(codes.len(), ERROR_TABLE.len(), "JSON-RPC codes are unique");
        let reasons: Vec<&str> = ERROR_TABLE.iter().filter_map(|r| r.reason).collect();
        let unique: alloc::collections::BTreeSet<&str> = reasons.iter().copied().collect();
        assert_eq!(unique.len(), reasons.len(), "reasons are unique");
    }

    #[test]
    fn error_kind_numbers_are_pinned() {
        // These numbers cross the C, Python and Node boundaries: never change or reuse one.
        use ErrorKind::*;
        let pinned = [
            (TaskNotFound, 1),
            (TaskNotCancelable, 2),
            (PushNotificationNotSupported, 3),
            (UnsupportedOperation, 4),
            (ContentTypeNotSupported, 5),
            (InvalidAgentResponse, 6),
            (ExtendedAgentCardNotConfigured, 7),
            (ExtensionSupportRequired, 8),
            (VersionNotSupported, 9),
            (JsonParse, 10),
            (InvalidRequest, 11),
            (MethodNotFound, 12),
            (InvalidParams, 13),
            (Internal, 14),
            (Unauthenticated, 15),
            (PermissionDenied, 16),
            (Unavailable, 17),
        ];
        assert_eq!(pinned.len(), ERROR_TABLE.len());
        for (k, n) in pinned {
            assert_eq!(k.number(), n, "{k:?}");
        }
        assert_eq!(ErrorKind::from_number(0), None);
        assert_eq!(ErrorKind::from_number(18), None);
        let nine: Vec<ErrorKind> = ERROR_TABLE.iter().map(|r| r.kind).filter(|k| k.is_a2a_specific()).collect();
        assert_eq!(nine.len(), 9);
    }

    #[test]
    fn a2a_reasons_follow_the_naming_rule() {
        // "The A2A error type in UPPER_SNAKE_CASE without the Error suffix" (§10.6).
        let names = [
            "TaskNotFound",
            "TaskNotCancelable",
            "PushNotificationNotSupported",
            "UnsupportedOperation",
            "ContentTypeNotSupported",
            "InvalidAgentResponse",
            "ExtendedAgentCardNotConfigured",
            "ExtensionSupportRequired",
            "VersionNotSupported",
        ];
        for (row, name) in ERROR_TABLE.iter().zip(names) {
            let mut snake = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    snake.push('_');
                }
                snake.push(c.to_ascii_uppercase());
            }
            assert_eq!(row.reason, Some(snake.as_str()));
            assert!(row.kind.is_a2a_specific());
        }
    }

    #[test]
    fn grpc_codes_round_trip() {
        for (i, c) in GrpcCode::ALL.iter().enumerate() {
            assert_eq!(GrpcCode::from_i32(i as i32), *c);
        }
        assert_eq!(GrpcCode::from_i32(99), GrpcCode::Unknown);
        assert_eq!(GrpcCode::from_i32(-1), GrpcCode::Unknown);
    }
}

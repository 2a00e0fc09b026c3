//! Translation between the v0.3 and v1.0 models.
//!
//! Every translation returns the value together with the list of [`Loss`]es: each place
//! where information could not be carried over exactly, with its JSON path in the source
//! object. Nothing is dropped silently; a caller that must not lose anything checks that the
//! list is empty. A value that cannot be translated at all gives a [`ConvertError`].
//!
//! Exact mappings (no loss): parts (`text` ⇄ `text`; `file.bytes` ⇄ `raw` with
//! `mimeType`/`name` ⇄ `mediaType`/`filename`; `file.uri` ⇄ `url`; `data` object ⇄ `data`),
//! states and roles (`input-required` ⇄ `TASK_STATE_INPUT_REQUIRED`, `canceled` ⇄
//! `TASK_STATE_CANCELED`, ...), `blocking` ⇄ `!returnImmediately` (absent `blocking` means
//! blocking), v0.3 `historyLength: 0` ("no limit") ⇄ v1.0 unset, the nested v0.3 push config
//! ⇄ the flattened v1.0 one, `security` ⇄ `securityRequirements`, `apiKey.in` ⇄ `location`,
//! `supportsAuthenticatedExtendedCard` ⇄ `capabilities.extendedAgentCard`, card
//! `url`/`preferredTransport`/`additionalInterfaces`/`protocolVersion` ⇄
//! `supportedInterfaces`. The lossy cases are the [`LossKind`]s.

use super::*;
use crate::proto::google::protobuf::{self as pb, value::Kind as ValueKind};
use crate::proto::json::timestamp;
use crate::v1;
use alloc::borrow::ToOwned;
use alloc::format;
use core::fmt;

/// A translated value and what it lost.
#[derive(Clone, Debug, PartialEq)]
pub struct Converted<T> {
    /// The translation.
    pub value: T,
    /// Every place where information was not carried over exactly, in document order.
    pub losses: Vec<Loss>,
}

/// One place where a translation lost information.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loss {
    /// What was lost.
    pub kind: LossKind,
    /// JSON path in the source object (`metadata`, `parts[1].mediaType`).
    pub path: String,
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.kind.as_str(), self.path)
    }
}

/// The kinds of information loss between v0.3 and v1.0.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LossKind {
    /// The field has no counterpart in the target version and was left out: `metadata` of
    /// v0.3 `tasks/get`, `tasks/resubscribe` and push-config get/list/delete params; v1.0
    /// `tenant`; `capabilities.stateTransitionHistory`; `mediaType`/`filename` of text and data
    /// parts in v0.3; paging fields of the push-config list; the v1.0-only `deviceCode` OAuth
    /// flow and `pkceRequired`; interfaces of another protocol version in a v0.3 card.
    Dropped,
    /// v0.3 state `unknown` became `TASK_STATE_UNSPECIFIED`.
    UnknownState,
    /// v1.0 `historyLength: 0` ("no history") cannot be said in v0.3, where 0 means "no
    /// limit"; the field was left out, so the server applies its default.
    HistoryLengthZero,
    /// v0.3 listed several authentication schemes; v1.0 has one: the first was kept.
    ExtraAuthSchemes,
    /// v0.3 authentication with an empty `schemes` list was left out (v1.0 requires a scheme).
    AuthWithoutScheme,
    /// A v0.3 push-config get without `pushNotificationConfigId`: the task id was used as the
    /// config id, which is the id the v0.3 SDKs give a config created without one.
    DefaultedConfigId,
    /// A v1.0 `Part.data` that is not a JSON object was wrapped as `{"value": <data>}`
    /// (v0.3 `DataPart.data` must be an object).
    DataWrapped,
    /// A v0.3 `flows` object held several flows; v1.0 allows one. The first of
    /// `authorizationCode`, `clientCredentials`, `implicit`, `password` was kept.
    ExtraOAuthFlows,
    /// A v0.3 timestamp without a UTC offset was read as UTC.
    TimestampAssumedUtc,
    /// A timestamp that is not RFC 3339 (or outside years 1–9999) was left out.
    TimestampUnparseable,
    /// A v0.3 `final` flag that disagrees with its state (v1.0 ends a stream by state:
    /// terminal, input-required or auth-required).
    FinalMismatch,
}

impl LossKind {
    /// The snake_case name used in the golden vectors.
    pub fn as_str(self) -> &'static str {
        match self {
            LossKind::Dropped => "dropped",
            LossKind::UnknownState => "unknown_state",
            LossKind::HistoryLengthZero => "history_length_zero",
            LossKind::ExtraAuthSchemes => "extra_auth_schemes",
            LossKind::AuthWithoutScheme => "auth_without_scheme",
            LossKind::DefaultedConfigId => "defaulted_config_id",
            LossKind::DataWrapped => "data_wrapped",
            LossKind::ExtraOAuthFlows => "extra_oauth_flows",
            LossKind::TimestampAssumedUtc => "timestamp_assumed_utc",
            LossKind::TimestampUnparseable => "timestamp_unparseable",
            LossKind::FinalMismatch => "final_mismatch",
        }
    }
}

/// Why a value could not be translated at all.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConvertError {
    /// v0.3 `file.bytes` is not base64.
    InvalidBase64 {
        /// JSON path of the field.
        path: String,
    },
    /// A v1.0 message role is `ROLE_UNSPECIFIED` or unknown; v0.3 has only `user` and `agent`.
    UnspecifiedRole {
        /// JSON path of the field.
        path: String,
    },
    /// A v1.0 value lacks something v0.3 requires (a task status, a part's content, a
    /// security scheme's member).
    Missing {
        /// JSON path of the field.
        path: String,
    },
    /// The operation has no v0.3 form (ListTasks).
    NoEquivalent {
        /// What has no equivalent.
        what: &'static str,
    },
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConvertError::InvalidBase64 { path } => write!(f, "{path}: file bytes are not valid base64"),
            ConvertError::UnspecifiedRole { path } => write!(f, "{path}: v0.3 needs role user or agent"),
            ConvertError::Missing { path } => write!(f, "{path}: required by v0.3 but missing"),
            ConvertError::NoEquivalent { what } => write!(f, "{what} has no v0.3 equivalent"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ConvertError {}

impl ConvertError {
    /// JSON path of the offending field (empty for [`ConvertError::NoEquivalent`]).
    pub fn path(&self) -> &str {
        match self {
            ConvertError::InvalidBase64 { path } | ConvertError::UnspecifiedRole { path } | ConvertError::Missing { path } => path,
            ConvertError::NoEquivalent { .. } => "",
        }
    }
}

/// Translation of a v0.3 value to v1.0.
pub trait ToV1 {
    /// The v1.0 type.
    type V1;
    /// Translates, reporting every loss.
    fn to_v1(&self) -> Result<Converted<Self::V1>, ConvertError> {
        let mut cx = Cx::default();
        let value = self.v1(&mut cx)?;
        Ok(Converted { value, losses: cx.losses })
    }
    #[doc(hidden)]
    fn v1(&self, cx: &mut Cx) -> Result<Self::V1, ConvertError>;
}

/// Translation of a v1.0 value to v0.3.
pub trait ToV03 {
    /// The v0.3 type.
    type V03;
    /// Translates, reporting every loss.
    fn to_v03(&self) -> Result<Converted<Self::V03>, ConvertError> {
        let mut cx = Cx::default();
        let value = self.v03(&mut cx)?;
        Ok(Converted { value, losses: cx.losses })
    }
    #[doc(hidden)]
    fn v03(&self, cx: &mut Cx) -> Result<Self::V03, ConvertError>;
}

/// Translation context: the current JSON path and the losses found so far.
#[doc(hidden)]
#[derive(Default)]
pub struct Cx {
    path: String,
    losses: Vec<Loss>,
    /// How file bytes travel in the v0.3 proto (read and written by [`super::pb`]).
    pub(super) files: super::pb::FileBytes,
    /// A file's `file_with_bytes` was read that is not base64 text: the peer writes raw bytes.
    pub(super) raw_seen: bool,
}

impl Cx {
    pub(super) fn take_losses(&mut self) -> Vec<Loss> {
        core::mem::take(&mut self.losses)
    }
    pub(super) fn at<R>(&mut self, seg: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        let len = self.path.len();
        if !self.path.is_empty() {
            self.path.push('.');
        }
        self.path.push_str(seg);
        let r = f(self);
        self.path.truncate(len);
        r
    }
    pub(super) fn idx<R>(&mut self, i: usize, f: impl FnOnce(&mut Self) -> R) -> R {
        let len = self.path.len();
        self.path.push_str(&format!("[{i}]"));
        let r = f(self);
        self.path.truncate(len);
        r
    }
    pub(super) fn field_path(&self, field: &str) -> String {
        if self.path.is_empty() {
            field.to_owned()
        } else if field.is_empty() {
            self.path.clone()
        } else {
            format!("{}.{field}", self.path)
        }
    }
    pub(super) fn loss(&mut self, kind: LossKind, field: &str) {
        let path = self.field_path(field);
        self.losses.push(Loss { kind, path });
    }
    pub(super) fn missing(&self, field: &str) -> ConvertError {
        ConvertError::Missing { path: self.field_path(field) }
    }
    pub(super) fn list<A, B>(
        &mut self,
        name: &str,
        items: &[A],
        mut f: impl FnMut(&mut Self, &A) -> Result<B, ConvertError>,
    ) -> Result<Vec<B>, ConvertError> {
        self.at(name, |cx| items.iter().enumerate().map(|(i, x)| cx.idx(i, |cx| f(cx, x))).collect())
    }
}

// ---------------------------------------------------------------- shared helpers

pub(super) fn opt(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}
pub(super) fn opt_list(v: &[String]) -> Option<Vec<String>> {
    (!v.is_empty()).then(|| v.to_vec())
}

/// A JSON value as a `google.protobuf.Value`.
pub(crate) fn json_to_value(v: &serde_json::Value) -> pb::Value {
    let kind = match v {
        serde_json::Value::Null => ValueKind::NullValue(pb::NullValue::NullValue as i32),
        serde_json::Value::Bool(b) => ValueKind::BoolValue(*b),
        // as_f64 is Some for every number serde_json produces without arbitrary_precision.
        serde_json::Value::Number(n) => ValueKind::NumberValue(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => ValueKind::StringValue(s.clone()),
        serde_json::Value::Array(a) => ValueKind::ListValue(pb::ListValue { values: a.iter().map(json_to_value).collect() }),
        serde_json::Value::Object(o) => ValueKind::StructValue(object_to_struct(o)),
    };
    pb::Value { kind: Some(kind) }
}

/// A JSON object as a `google.protobuf.Struct`.
pub(crate) fn object_to_struct(o: &JsonObject) -> pb::Struct {
    pb::Struct { fields: o.iter().map(|(k, v)| (k.clone(), json_to_value(v))).collect() }
}

/// A `google.protobuf.Value` as JSON (integral numbers as integers, like ProtoJSON; NaN and
/// infinities, which JSON cannot hold, as null).
pub(crate) fn value_to_json(v: &pb::Value) -> serde_json::Value {
    match &v.kind {
        None | Some(ValueKind::NullValue(_)) => serde_json::Value::Null,
        Some(ValueKind::BoolValue(b)) => serde_json::Value::Bool(*b),
        Some(ValueKind::NumberValue(n)) => {
            if n.abs() < 9_007_199_254_740_992.0 && (*n as i64) as f64 == *n && !(*n == 0.0 && n.is_sign_negative()) {
                serde_json::Value::from(*n as i64)
            } else {
                serde_json::Number::from_f64(*n).map_or(serde_json::Value::Null, serde_json::Value::Number)
            }
        }
        Some(ValueKind::StringValue(s)) => serde_json::Value::String(s.clone()),
        Some(ValueKind::ListValue(l)) => serde_json::Value::Array(l.values.iter().map(value_to_json).collect()),
        Some(ValueKind::StructValue(s)) => serde_json::Value::Object(struct_to_object(s)),
    }
}

/// A `google.protobuf.Struct` as a JSON object.
pub(crate) fn struct_to_object(s: &pb::Struct) -> JsonObject {
    s.fields.iter().map(|(k, v)| (k.clone(), value_to_json(v))).collect()
}

pub(super) fn meta_v1(m: &Option<JsonObject>) -> Option<pb::Struct> {
    m.as_ref().map(object_to_struct)
}
pub(super) fn meta_v03(m: &Option<pb::Struct>) -> Option<JsonObject> {
    m.as_ref().map(struct_to_object)
}

pub(super) fn timestamp_v1(cx: &mut Cx, t: &Option<String>) -> Option<pb::Timestamp> {
    let t = t.as_deref()?;
    if let Ok((seconds, nanos)) = timestamp::parse(t) {
        return Some(pb::Timestamp { seconds, nanos });
    }
    // ISO 8601 without an offset (e.g. Python's naive `isoformat()`): read as UTC.
    if let Ok((seconds, nanos)) = timestamp::parse(&format!("{t}Z")) {
        cx.loss(LossKind::TimestampAssumedUtc, "timestamp");
        return Some(pb::Timestamp { seconds, nanos });
    }
    cx.loss(LossKind::TimestampUnparseable, "timestamp");
    None
}

pub(super) fn timestamp_v03(cx: &mut Cx, t: &Option<pb::Timestamp>) -> Option<String> {
    let t = t.as_ref()?;
    match timestamp::format(t.seconds, t.nanos) {
        Ok(s) => Some(s.as_str().to_owned()),
        Err(_) => {
            cx.loss(LossKind::TimestampUnparseable, "timestamp");
            None
        }
    }
}

fn state_v1(cx: &mut Cx, s: TaskState) -> v1::TaskState {
    match s {
        TaskState::Submitted => v1::TaskState::Submitted,
        TaskState::Working => v1::TaskState::Working,
        TaskState::InputRequired => v1::TaskState::InputRequired,
        TaskState::Completed => v1::TaskState::Completed,
        TaskState::Canceled => v1::TaskState::Canceled,
        TaskState::Failed => v1::TaskState::Failed,
        TaskState::Rejected => v1::TaskState::Rejected,
        TaskState::AuthRequired => v1::TaskState::AuthRequired,
        TaskState::Unknown => {
            cx.loss(LossKind::UnknownState, "state");
            v1::TaskState::Unspecified
        }
    }
}

fn state_v03(s: i32) -> TaskState {
    match v1::TaskState::try_from(s) {
        Ok(v1::TaskState::Submitted) => TaskState::Submitted,
        Ok(v1::TaskState::Working) => TaskState::Working,
        Ok(v1::TaskState::InputRequired) => TaskState::InputRequired,
        Ok(v1::TaskState::Completed) => TaskState::Completed,
        Ok(v1::TaskState::Canceled) => TaskState::Canceled,
        Ok(v1::TaskState::Failed) => TaskState::Failed,
        Ok(v1::TaskState::Rejected) => TaskState::Rejected,
        Ok(v1::TaskState::AuthRequired) => TaskState::AuthRequired,
        Ok(v1::TaskState::Unspecified) | Err(_) => TaskState::Unknown,
    }
}

/// True for the states after which a v0.3 stream is `final`: terminal, input-required and
/// auth-required.
pub(super) fn ends_stream(s: TaskState) -> bool {
    matches!(
        s,
        TaskState::Completed
            | TaskState::Canceled
            | TaskState::Failed
            | TaskState::Rejected
            | TaskState::InputRequired
            | TaskState::AuthRequired
    )
}

/// `0.3.0` → `0.3`: interface versions are Major.Minor.
fn major_minor(v: &str) -> String {
    let mut it = v.trim().splitn(3, '.');
    match (it.next(), it.next()) {
        (Some(a), Some(b)) => format!("{a}.{b}"),
        _ => v.trim().to_owned(),
    }
}

mod card;
mod messages;
mod requests;

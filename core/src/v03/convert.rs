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

// ---------------------------------------------------------------- messages and tasks

impl ToV1 for Part {
    type V1 = v1::Part;
    fn v1(&self, cx: &mut Cx) -> Result<v1::Part, ConvertError> {
        use v1::part::Content;
        Ok(match self {
            Part::Text(p) => {
                v1::Part { content: Some(Content::Text(p.text.clone())), metadata: meta_v1(&p.metadata), ..Default::default() }
            }
            Part::Data(p) => v1::Part {
                content: Some(Content::Data(pb::Value { kind: Some(ValueKind::StructValue(object_to_struct(&p.data))) })),
                metadata: meta_v1(&p.metadata),
                ..Default::default()
            },
            Part::File(p) => {
                let (content, mime, name) = match &p.file {
                    FileContent::Bytes { bytes, mime_type, name } => {
                        let raw = crate::proto::json::base64::decode(bytes)
                            .map_err(|_| ConvertError::InvalidBase64 { path: cx.field_path("file.bytes") })?;
                        (Content::Raw(raw), mime_type, name)
                    }
                    FileContent::Uri { uri, mime_type, name } => (Content::Url(uri.clone()), mime_type, name),
                };
                v1::Part {
                    content: Some(content),
                    metadata: meta_v1(&p.metadata),
                    filename: name.clone().unwrap_or_default(),
                    media_type: mime.clone().unwrap_or_default(),
                }
            }
        })
    }
}

impl ToV03 for v1::Part {
    type V03 = Part;
    fn v03(&self, cx: &mut Cx) -> Result<Part, ConvertError> {
        use v1::part::Content;
        let metadata = meta_v03(&self.metadata);
        let drop_file_fields = |cx: &mut Cx| {
            if !self.filename.is_empty() {
                cx.loss(LossKind::Dropped, "filename");
            }
            if !self.media_type.is_empty() {
                cx.loss(LossKind::Dropped, "mediaType");
            }
        };
        Ok(match &self.content {
            None => return Err(cx.missing("")),
            Some(Content::Text(text)) => {
                drop_file_fields(cx);
                Part::Text(TextPart { text: text.clone(), metadata, kind: tag::Text })
            }
            Some(Content::Data(value)) => {
                let data = match value_to_json(value) {
                    serde_json::Value::Object(o) => o,
                    other => {
                        cx.loss(LossKind::DataWrapped, "data");
                        let mut o = JsonObject::new();
                        o.insert(String::from("value"), other);
                        o
                    }
                };
                drop_file_fields(cx);
                Part::Data(DataPart { data, metadata, kind: tag::Data })
            }
            Some(Content::Raw(raw)) => Part::File(FilePart {
                file: FileContent::Bytes {
                    bytes: crate::proto::json::base64::encode(raw),
                    mime_type: opt(&self.media_type),
                    name: opt(&self.filename),
                },
                metadata,
                kind: tag::File,
            }),
            Some(Content::Url(url)) => Part::File(FilePart {
                file: FileContent::Uri { uri: url.clone(), mime_type: opt(&self.media_type), name: opt(&self.filename) },
                metadata,
                kind: tag::File,
            }),
        })
    }
}

impl ToV1 for Message {
    type V1 = v1::Message;
    fn v1(&self, cx: &mut Cx) -> Result<v1::Message, ConvertError> {
        Ok(v1::Message {
            message_id: self.message_id.clone(),
            context_id: self.context_id.clone().unwrap_or_default(),
            task_id: self.task_id.clone().unwrap_or_default(),
            role: match self.role {
                Role::User => v1::Role::User,
                Role::Agent => v1::Role::Agent,
            } as i32,
            parts: cx.list("parts", &self.parts, |cx, p| p.v1(cx))?,
            metadata: meta_v1(&self.metadata),
            extensions: self.extensions.clone().unwrap_or_default(),
            reference_task_ids: self.reference_task_ids.clone().unwrap_or_default(),
        })
    }
}

impl ToV03 for v1::Message {
    type V03 = Message;
    fn v03(&self, cx: &mut Cx) -> Result<Message, ConvertError> {
        let role = match v1::Role::try_from(self.role) {
            Ok(v1::Role::User) => Role::User,
            Ok(v1::Role::Agent) => Role::Agent,
            _ => return Err(ConvertError::UnspecifiedRole { path: cx.field_path("role") }),
        };
        Ok(Message {
            message_id: self.message_id.clone(),
            role,
            parts: cx.list("parts", &self.parts, |cx, p| p.v03(cx))?,
            context_id: opt(&self.context_id),
            task_id: opt(&self.task_id),
            metadata: meta_v03(&self.metadata),
            extensions: opt_list(&self.extensions),
            reference_task_ids: opt_list(&self.reference_task_ids),
            kind: tag::Message,
        })
    }
}

impl ToV1 for TaskStatus {
    type V1 = v1::TaskStatus;
    fn v1(&self, cx: &mut Cx) -> Result<v1::TaskStatus, ConvertError> {
        let state = state_v1(cx, self.state) as i32;
        let message = match &self.message {
            Some(m) => Some(cx.at("message", |cx| m.v1(cx))?),
            None => None,
        };
        Ok(v1::TaskStatus { state, message, timestamp: timestamp_v1(cx, &self.timestamp) })
    }
}

impl ToV03 for v1::TaskStatus {
    type V03 = TaskStatus;
    fn v03(&self, cx: &mut Cx) -> Result<TaskStatus, ConvertError> {
        let message = match &self.message {
            Some(m) => Some(cx.at("message", |cx| m.v03(cx))?),
            None => None,
        };
        Ok(TaskStatus { state: state_v03(self.state), message, timestamp: timestamp_v03(cx, &self.timestamp) })
    }
}

impl ToV1 for Artifact {
    type V1 = v1::Artifact;
    fn v1(&self, cx: &mut Cx) -> Result<v1::Artifact, ConvertError> {
        Ok(v1::Artifact {
            artifact_id: self.artifact_id.clone(),
            name: self.name.clone().unwrap_or_default(),
            description: self.description.clone().unwrap_or_default(),
            parts: cx.list("parts", &self.parts, |cx, p| p.v1(cx))?,
            metadata: meta_v1(&self.metadata),
            extensions: self.extensions.clone().unwrap_or_default(),
        })
    }
}

impl ToV03 for v1::Artifact {
    type V03 = Artifact;
    fn v03(&self, cx: &mut Cx) -> Result<Artifact, ConvertError> {
        Ok(Artifact {
            artifact_id: self.artifact_id.clone(),
            name: opt(&self.name),
            description: opt(&self.description),
            parts: cx.list("parts", &self.parts, |cx, p| p.v03(cx))?,
            metadata: meta_v03(&self.metadata),
            extensions: opt_list(&self.extensions),
        })
    }
}

impl ToV1 for Task {
    type V1 = v1::Task;
    fn v1(&self, cx: &mut Cx) -> Result<v1::Task, ConvertError> {
        Ok(v1::Task {
            id: self.id.clone(),
            context_id: self.context_id.clone(),
            status: Some(cx.at("status", |cx| self.status.v1(cx))?),
            artifacts: cx.list("artifacts", self.artifacts.as_deref().unwrap_or_default(), |cx, a| a.v1(cx))?,
            history: cx.list("history", self.history.as_deref().unwrap_or_default(), |cx, m| m.v1(cx))?,
            metadata: meta_v1(&self.metadata),
        })
    }
}

impl ToV03 for v1::Task {
    type V03 = Task;
    fn v03(&self, cx: &mut Cx) -> Result<Task, ConvertError> {
        let status = self.status.as_ref().ok_or_else(|| cx.missing("status"))?;
        let status = cx.at("status", |cx| status.v03(cx))?;
        let artifacts = cx.list("artifacts", &self.artifacts, |cx, a| a.v03(cx))?;
        let history = cx.list("history", &self.history, |cx, m| m.v03(cx))?;
        Ok(Task {
            id: self.id.clone(),
            context_id: self.context_id.clone(),
            status,
            artifacts: (!artifacts.is_empty()).then_some(artifacts),
            history: (!history.is_empty()).then_some(history),
            metadata: meta_v03(&self.metadata),
            kind: tag::Task,
        })
    }
}

impl ToV1 for TaskStatusUpdateEvent {
    type V1 = v1::TaskStatusUpdateEvent;
    fn v1(&self, cx: &mut Cx) -> Result<v1::TaskStatusUpdateEvent, ConvertError> {
        let status = cx.at("status", |cx| self.status.v1(cx))?;
        if self.r#final != ends_stream(self.status.state) {
            cx.loss(LossKind::FinalMismatch, "final");
        }
        Ok(v1::TaskStatusUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            status: Some(status),
            metadata: meta_v1(&self.metadata),
        })
    }
}

impl ToV03 for v1::TaskStatusUpdateEvent {
    type V03 = TaskStatusUpdateEvent;
    fn v03(&self, cx: &mut Cx) -> Result<TaskStatusUpdateEvent, ConvertError> {
        let status = self.status.as_ref().ok_or_else(|| cx.missing("status"))?;
        let status = cx.at("status", |cx| status.v03(cx))?;
        Ok(TaskStatusUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            r#final: ends_stream(status.state),
            status,
            metadata: meta_v03(&self.metadata),
            kind: tag::StatusUpdate,
        })
    }
}

impl ToV1 for TaskArtifactUpdateEvent {
    type V1 = v1::TaskArtifactUpdateEvent;
    fn v1(&self, cx: &mut Cx) -> Result<v1::TaskArtifactUpdateEvent, ConvertError> {
        Ok(v1::TaskArtifactUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            artifact: Some(cx.at("artifact", |cx| self.artifact.v1(cx))?),
            append: self.append.unwrap_or(false),
            last_chunk: self.last_chunk.unwrap_or(false),
            metadata: meta_v1(&self.metadata),
        })
    }
}

impl ToV03 for v1::TaskArtifactUpdateEvent {
    type V03 = TaskArtifactUpdateEvent;
    fn v03(&self, cx: &mut Cx) -> Result<TaskArtifactUpdateEvent, ConvertError> {
        let artifact = self.artifact.as_ref().ok_or_else(|| cx.missing("artifact"))?;
        Ok(TaskArtifactUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            artifact: cx.at("artifact", |cx| artifact.v03(cx))?,
            append: self.append.then_some(true),
            last_chunk: self.last_chunk.then_some(true),
            metadata: meta_v03(&self.metadata),
            kind: tag::ArtifactUpdate,
        })
    }
}

impl ToV1 for StreamEvent {
    type V1 = v1::StreamResponse;
    fn v1(&self, cx: &mut Cx) -> Result<v1::StreamResponse, ConvertError> {
        use v1::stream_response::Payload;
        let payload = match self {
            StreamEvent::Task(t) => Payload::Task(t.v1(cx)?),
            StreamEvent::Message(m) => Payload::Message(m.v1(cx)?),
            StreamEvent::StatusUpdate(e) => Payload::StatusUpdate(e.v1(cx)?),
            StreamEvent::ArtifactUpdate(e) => Payload::ArtifactUpdate(e.v1(cx)?),
        };
        Ok(v1::StreamResponse { payload: Some(payload) })
    }
}

impl ToV03 for v1::StreamResponse {
    type V03 = StreamEvent;
    fn v03(&self, cx: &mut Cx) -> Result<StreamEvent, ConvertError> {
        use v1::stream_response::Payload;
        Ok(match &self.payload {
            Some(Payload::Task(t)) => StreamEvent::Task(cx.at("task", |cx| t.v03(cx))?),
            Some(Payload::Message(m)) => StreamEvent::Message(cx.at("message", |cx| m.v03(cx))?),
            Some(Payload::StatusUpdate(e)) => StreamEvent::StatusUpdate(cx.at("statusUpdate", |cx| e.v03(cx))?),
            Some(Payload::ArtifactUpdate(e)) => StreamEvent::ArtifactUpdate(cx.at("artifactUpdate", |cx| e.v03(cx))?),
            None => return Err(cx.missing("")),
        })
    }
}

impl ToV1 for SendMessageResult {
    type V1 = v1::SendMessageResponse;
    fn v1(&self, cx: &mut Cx) -> Result<v1::SendMessageResponse, ConvertError> {
        use v1::send_message_response::Payload;
        let payload = match self {
            SendMessageResult::Task(t) => Payload::Task(t.v1(cx)?),
            SendMessageResult::Message(m) => Payload::Message(m.v1(cx)?),
        };
        Ok(v1::SendMessageResponse { payload: Some(payload) })
    }
}

impl ToV03 for v1::SendMessageResponse {
    type V03 = SendMessageResult;
    fn v03(&self, cx: &mut Cx) -> Result<SendMessageResult, ConvertError> {
        use v1::send_message_response::Payload;
        Ok(match &self.payload {
            Some(Payload::Task(t)) => SendMessageResult::Task(cx.at("task", |cx| t.v03(cx))?),
            Some(Payload::Message(m)) => SendMessageResult::Message(cx.at("message", |cx| m.v03(cx))?),
            None => return Err(cx.missing("")),
        })
    }
}

// ---------------------------------------------------------------- requests

impl ToV1 for MessageSendParams {
    type V1 = v1::SendMessageRequest;
    fn v1(&self, cx: &mut Cx) -> Result<v1::SendMessageRequest, ConvertError> {
        let configuration = match &self.configuration {
            None => None,
            Some(c) => Some(cx.at("configuration", |cx| -> Result<_, ConvertError> {
                let push = match &c.push_notification_config {
                    Some(p) => Some(cx.at("pushNotificationConfig", |cx| p.v1(cx))?),
                    None => None,
                };
                Ok(v1::SendMessageConfiguration {
                    accepted_output_modes: c.accepted_output_modes.clone().unwrap_or_default(),
                    task_push_notification_config: push,
                    // v0.3: 0 means "no limit", which is v1.0's "unset".
                    history_length: c.history_length.filter(|n| *n != 0),
                    return_immediately: c.blocking == Some(false),
                })
            })?),
        };
        Ok(v1::SendMessageRequest {
            tenant: String::new(),
            message: Some(cx.at("message", |cx| self.message.v1(cx))?),
            configuration,
            metadata: meta_v1(&self.metadata),
        })
    }
}

fn history_length_v03(cx: &mut Cx, h: Option<i32>) -> Option<i32> {
    match h {
        Some(0) => {
            cx.loss(LossKind::HistoryLengthZero, "historyLength");
            None
        }
        other => other,
    }
}

fn tenant_dropped(cx: &mut Cx, tenant: &str) {
    if !tenant.is_empty() {
        cx.loss(LossKind::Dropped, "tenant");
    }
}

impl ToV03 for v1::SendMessageRequest {
    type V03 = MessageSendParams;
    fn v03(&self, cx: &mut Cx) -> Result<MessageSendParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        let message = self.message.as_ref().ok_or_else(|| cx.missing("message"))?;
        let message = cx.at("message", |cx| message.v03(cx))?;
        let configuration = match &self.configuration {
            None => None,
            Some(c) => Some(cx.at("configuration", |cx| -> Result<_, ConvertError> {
                let push = match &c.task_push_notification_config {
                    Some(p) => Some(cx.at("taskPushNotificationConfig", |cx| -> Result<_, ConvertError> {
                        let c = p.v03(cx)?;
                        // v0.3's send configuration carries the bare config: no task id.
                        if !p.task_id.is_empty() {
                            cx.loss(LossKind::Dropped, "taskId");
                        }
                        Ok(c.push_notification_config)
                    })?),
                    None => None,
                };
                Ok(MessageSendConfiguration {
                    accepted_output_modes: opt_list(&c.accepted_output_modes),
                    blocking: Some(!c.return_immediately),
                    history_length: history_length_v03(cx, c.history_length),
                    push_notification_config: push,
                })
            })?),
        };
        Ok(MessageSendParams { message, configuration, metadata: meta_v03(&self.metadata) })
    }
}

impl ToV1 for TaskQueryParams {
    type V1 = v1::GetTaskRequest;
    fn v1(&self, cx: &mut Cx) -> Result<v1::GetTaskRequest, ConvertError> {
        if self.metadata.is_some() {
            cx.loss(LossKind::Dropped, "metadata");
        }
        Ok(v1::GetTaskRequest { tenant: String::new(), id: self.id.clone(), history_length: self.history_length.filter(|n| *n != 0) })
    }
}

impl ToV03 for v1::GetTaskRequest {
    type V03 = TaskQueryParams;
    fn v03(&self, cx: &mut Cx) -> Result<TaskQueryParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(TaskQueryParams { id: self.id.clone(), history_length: history_length_v03(cx, self.history_length), metadata: None })
    }
}

impl ToV1 for TaskIdParams {
    type V1 = v1::CancelTaskRequest;
    fn v1(&self, _cx: &mut Cx) -> Result<v1::CancelTaskRequest, ConvertError> {
        Ok(v1::CancelTaskRequest { tenant: String::new(), id: self.id.clone(), metadata: meta_v1(&self.metadata) })
    }
}

impl TaskIdParams {
    /// Translates `tasks/resubscribe` params to v1.0 `SubscribeToTaskRequest` (which has no
    /// `metadata`: it is reported as dropped).
    pub fn to_v1_subscribe(&self) -> Converted<v1::SubscribeToTaskRequest> {
        let mut losses = Vec::new();
        if self.metadata.is_some() {
            losses.push(Loss { kind: LossKind::Dropped, path: String::from("metadata") });
        }
        Converted { value: v1::SubscribeToTaskRequest { tenant: String::new(), id: self.id.clone() }, losses }
    }
}

impl ToV03 for v1::CancelTaskRequest {
    type V03 = TaskIdParams;
    fn v03(&self, cx: &mut Cx) -> Result<TaskIdParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(TaskIdParams { id: self.id.clone(), metadata: meta_v03(&self.metadata) })
    }
}

impl ToV03 for v1::SubscribeToTaskRequest {
    type V03 = TaskIdParams;
    fn v03(&self, cx: &mut Cx) -> Result<TaskIdParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(TaskIdParams { id: self.id.clone(), metadata: None })
    }
}

// ---------------------------------------------------------------- push configs

impl ToV1 for PushNotificationConfig {
    type V1 = v1::TaskPushNotificationConfig;
    fn v1(&self, cx: &mut Cx) -> Result<v1::TaskPushNotificationConfig, ConvertError> {
        let authentication = match &self.authentication {
            None => None,
            Some(a) => match a.schemes.split_first() {
                None => {
                    cx.loss(LossKind::AuthWithoutScheme, "authentication");
                    None
                }
                Some((first, rest)) => {
                    if !rest.is_empty() {
                        cx.loss(LossKind::ExtraAuthSchemes, "authentication.schemes");
                    }
                    Some(v1::AuthenticationInfo { scheme: first.clone(), credentials: a.credentials.clone().unwrap_or_default() })
                }
            },
        };
        Ok(v1::TaskPushNotificationConfig {
            tenant: String::new(),
            id: self.id.clone().unwrap_or_default(),
            task_id: String::new(),
            url: self.url.clone(),
            token: self.token.clone().unwrap_or_default(),
            authentication,
        })
    }
}

impl ToV1 for TaskPushNotificationConfig {
    type V1 = v1::TaskPushNotificationConfig;
    fn v1(&self, cx: &mut Cx) -> Result<v1::TaskPushNotificationConfig, ConvertError> {
        let mut c = cx.at("pushNotificationConfig", |cx| self.push_notification_config.v1(cx))?;
        c.task_id = self.task_id.clone();
        Ok(c)
    }
}

impl ToV03 for v1::TaskPushNotificationConfig {
    type V03 = TaskPushNotificationConfig;
    fn v03(&self, cx: &mut Cx) -> Result<TaskPushNotificationConfig, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(TaskPushNotificationConfig {
            task_id: self.task_id.clone(),
            push_notification_config: PushNotificationConfig {
                id: opt(&self.id),
                url: self.url.clone(),
                token: opt(&self.token),
                authentication: self.authentication.as_ref().map(|a| PushNotificationAuthenticationInfo {
                    schemes: alloc::vec![a.scheme.clone()],
                    credentials: opt(&a.credentials),
                }),
            },
        })
    }
}

impl ToV1 for GetTaskPushNotificationConfigParams {
    type V1 = v1::GetTaskPushNotificationConfigRequest;
    fn v1(&self, cx: &mut Cx) -> Result<v1::GetTaskPushNotificationConfigRequest, ConvertError> {
        let id = match &self.push_notification_config_id {
            Some(id) => id.clone(),
            None => {
                cx.loss(LossKind::DefaultedConfigId, "pushNotificationConfigId");
                self.id.clone()
            }
        };
        if self.metadata.is_some() {
            cx.loss(LossKind::Dropped, "metadata");
        }
        Ok(v1::GetTaskPushNotificationConfigRequest { tenant: String::new(), task_id: self.id.clone(), id })
    }
}

impl ToV03 for v1::GetTaskPushNotificationConfigRequest {
    type V03 = GetTaskPushNotificationConfigParams;
    fn v03(&self, cx: &mut Cx) -> Result<GetTaskPushNotificationConfigParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(GetTaskPushNotificationConfigParams { id: self.task_id.clone(), push_notification_config_id: opt(&self.id), metadata: None })
    }
}

impl ToV1 for ListTaskPushNotificationConfigParams {
    type V1 = v1::ListTaskPushNotificationConfigsRequest;
    fn v1(&self, cx: &mut Cx) -> Result<v1::ListTaskPushNotificationConfigsRequest, ConvertError> {
        if self.metadata.is_some() {
            cx.loss(LossKind::Dropped, "metadata");
        }
        Ok(v1::ListTaskPushNotificationConfigsRequest { task_id: self.id.clone(), ..Default::default() })
    }
}

impl ToV03 for v1::ListTaskPushNotificationConfigsRequest {
    type V03 = ListTaskPushNotificationConfigParams;
    fn v03(&self, cx: &mut Cx) -> Result<ListTaskPushNotificationConfigParams, ConvertError> {
        if self.page_size != 0 {
            cx.loss(LossKind::Dropped, "pageSize");
        }
        if !self.page_token.is_empty() {
            cx.loss(LossKind::Dropped, "pageToken");
        }
        tenant_dropped(cx, &self.tenant);
        Ok(ListTaskPushNotificationConfigParams { id: self.task_id.clone(), metadata: None })
    }
}

impl ToV1 for DeleteTaskPushNotificationConfigParams {
    type V1 = v1::DeleteTaskPushNotificationConfigRequest;
    fn v1(&self, cx: &mut Cx) -> Result<v1::DeleteTaskPushNotificationConfigRequest, ConvertError> {
        if self.metadata.is_some() {
            cx.loss(LossKind::Dropped, "metadata");
        }
        Ok(v1::DeleteTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: self.id.clone(),
            id: self.push_notification_config_id.clone(),
        })
    }
}

impl ToV03 for v1::DeleteTaskPushNotificationConfigRequest {
    type V03 = DeleteTaskPushNotificationConfigParams;
    fn v03(&self, cx: &mut Cx) -> Result<DeleteTaskPushNotificationConfigParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(DeleteTaskPushNotificationConfigParams {
            id: self.task_id.clone(),
            push_notification_config_id: self.id.clone(),
            metadata: None,
        })
    }
}

/// The result of `tasks/pushNotificationConfig/list` (a bare array in v0.3).
impl ToV1 for Vec<TaskPushNotificationConfig> {
    type V1 = v1::ListTaskPushNotificationConfigsResponse;
    fn v1(&self, cx: &mut Cx) -> Result<v1::ListTaskPushNotificationConfigsResponse, ConvertError> {
        let configs = self.iter().enumerate().map(|(i, c)| cx.idx(i, |cx| c.v1(cx))).collect::<Result<_, _>>()?;
        Ok(v1::ListTaskPushNotificationConfigsResponse { configs, next_page_token: String::new() })
    }
}

impl ToV03 for v1::ListTaskPushNotificationConfigsResponse {
    type V03 = Vec<TaskPushNotificationConfig>;
    fn v03(&self, cx: &mut Cx) -> Result<Vec<TaskPushNotificationConfig>, ConvertError> {
        let configs = cx.list("configs", &self.configs, |cx, c| c.v03(cx))?;
        if !self.next_page_token.is_empty() {
            cx.loss(LossKind::Dropped, "nextPageToken");
        }
        Ok(configs)
    }
}

// ---------------------------------------------------------------- agent card

fn requirements_v1(reqs: &Option<Vec<BTreeMap<String, Vec<String>>>>) -> Vec<v1::SecurityRequirement> {
    reqs.iter()
        .flatten()
        .map(|r| v1::SecurityRequirement { schemes: r.iter().map(|(k, v)| (k.clone(), v1::StringList { list: v.clone() })).collect() })
        .collect()
}

fn requirements_v03(reqs: &[v1::SecurityRequirement]) -> Option<Vec<BTreeMap<String, Vec<String>>>> {
    (!reqs.is_empty()).then(|| reqs.iter().map(|r| r.schemes.iter().map(|(k, v)| (k.clone(), v.list.clone())).collect()).collect())
}

impl ToV1 for SecurityScheme {
    type V1 = v1::SecurityScheme;
    fn v1(&self, cx: &mut Cx) -> Result<v1::SecurityScheme, ConvertError> {
        use v1::security_scheme::Scheme;
        let d = |x: &Option<String>| x.clone().unwrap_or_default();
        let scheme = match self {
            SecurityScheme::ApiKey { r#in, name, description } => Scheme::ApiKeySecurityScheme(v1::ApiKeySecurityScheme {
                description: d(description),
                location: r#in.clone(),
                name: name.clone(),
            }),
            SecurityScheme::Http { scheme, bearer_format, description } => Scheme::HttpAuthSecurityScheme(v1::HttpAuthSecurityScheme {
                description: d(description),
                scheme: scheme.clone(),
                bearer_format: d(bearer_format),
            }),
            SecurityScheme::OAuth2 { flows, oauth2_metadata_url, description } => {
                use v1::o_auth_flows::Flow;
                let mut chosen = None;
                let candidates: [(&str, &Option<OAuthFlow>); 4] = [
                    ("authorizationCode", &flows.authorization_code),
                    ("clientCredentials", &flows.client_credentials),
                    ("implicit", &flows.implicit),
                    ("password", &flows.password),
                ];
                for (name, flow) in candidates {
                    let Some(f) = flow else { continue };
                    if chosen.is_some() {
                        cx.loss(LossKind::ExtraOAuthFlows, &format!("flows.{name}"));
                        continue;
                    }
                    let u = |x: &Option<String>| x.clone().unwrap_or_default();
                    #[allow(deprecated)]
                    let flow = match name {
                        "authorizationCode" => Flow::AuthorizationCode(v1::AuthorizationCodeOAuthFlow {
                            authorization_url: u(&f.authorization_url),
                            token_url: u(&f.token_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                            pkce_required: false,
                        }),
                        "clientCredentials" => Flow::ClientCredentials(v1::ClientCredentialsOAuthFlow {
                            token_url: u(&f.token_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                        }),
                        "implicit" => Flow::Implicit(v1::ImplicitOAuthFlow {
                            authorization_url: u(&f.authorization_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                        }),
                        _ => Flow::Password(v1::PasswordOAuthFlow {
                            token_url: u(&f.token_url),
                            refresh_url: u(&f.refresh_url),
                            scopes: f.scopes.clone(),
                        }),
                    };
                    chosen = Some(flow);
                }
                Scheme::Oauth2SecurityScheme(v1::OAuth2SecurityScheme {
                    description: d(description),
                    flows: Some(v1::OAuthFlows { flow: chosen }),
                    oauth2_metadata_url: d(oauth2_metadata_url),
                })
            }
            SecurityScheme::OpenIdConnect { open_id_connect_url, description } => {
                Scheme::OpenIdConnectSecurityScheme(v1::OpenIdConnectSecurityScheme {
                    description: d(description),
                    open_id_connect_url: open_id_connect_url.clone(),
                })
            }
            SecurityScheme::MutualTls { description } => {
                Scheme::MtlsSecurityScheme(v1::MutualTlsSecurityScheme { description: d(description) })
            }
        };
        Ok(v1::SecurityScheme { scheme: Some(scheme) })
    }
}

impl ToV03 for v1::SecurityScheme {
    type V03 = SecurityScheme;
    fn v03(&self, cx: &mut Cx) -> Result<SecurityScheme, ConvertError> {
        use v1::security_scheme::Scheme;
        Ok(match &self.scheme {
            None => return Err(cx.missing("")),
            Some(Scheme::ApiKeySecurityScheme(s)) => {
                SecurityScheme::ApiKey { r#in: s.location.clone(), name: s.name.clone(), description: opt(&s.description) }
            }
            Some(Scheme::HttpAuthSecurityScheme(s)) => {
                SecurityScheme::Http { scheme: s.scheme.clone(), bearer_format: opt(&s.bearer_format), description: opt(&s.description) }
            }
            Some(Scheme::OpenIdConnectSecurityScheme(s)) => {
                SecurityScheme::OpenIdConnect { open_id_connect_url: s.open_id_connect_url.clone(), description: opt(&s.description) }
            }
            Some(Scheme::MtlsSecurityScheme(s)) => SecurityScheme::MutualTls { description: opt(&s.description) },
            Some(Scheme::Oauth2SecurityScheme(s)) => {
                use v1::o_auth_flows::Flow;
                let mut flows = OAuthFlows::default();
                cx.at("oauth2SecurityScheme.flows", |cx| {
                    #[allow(deprecated)]
                    match s.flows.as_ref().and_then(|f| f.flow.as_ref()) {
                        None => {}
                        Some(Flow::AuthorizationCode(f)) => {
                            if f.pkce_required {
                                cx.loss(LossKind::Dropped, "authorizationCode.pkceRequired");
                            }
                            flows.authorization_code = Some(OAuthFlow {
                                authorization_url: Some(f.authorization_url.clone()),
                                token_url: Some(f.token_url.clone()),
                                refresh_url: opt(&f.refresh_url),
                                scopes: f.scopes.clone(),
                            });
                        }
                        Some(Flow::ClientCredentials(f)) => {
                            flows.client_credentials = Some(OAuthFlow {
                                authorization_url: None,
                                token_url: Some(f.token_url.clone()),
                                refresh_url: opt(&f.refresh_url),
                                scopes: f.scopes.clone(),
                            });
                        }
                        Some(Flow::Implicit(f)) => {
                            flows.implicit = Some(OAuthFlow {
                                authorization_url: Some(f.authorization_url.clone()),
                                token_url: None,
                                refresh_url: opt(&f.refresh_url),
                                scopes: f.scopes.clone(),
                            });
                        }
                        Some(Flow::Password(f)) => {
                            flows.password = Some(OAuthFlow {
                                authorization_url: None,
                                token_url: Some(f.token_url.clone()),
                                refresh_url: opt(&f.refresh_url),
                                scopes: f.scopes.clone(),
                            });
                        }
                        Some(Flow::DeviceCode(_)) => cx.loss(LossKind::Dropped, "deviceCode"),
                    }
                });
                SecurityScheme::OAuth2 { flows, oauth2_metadata_url: opt(&s.oauth2_metadata_url), description: opt(&s.description) }
            }
        })
    }
}

impl ToV1 for AgentCard {
    type V1 = v1::AgentCard;
    fn v1(&self, cx: &mut Cx) -> Result<v1::AgentCard, ConvertError> {
        let version = major_minor(&self.protocol_version);
        let main = v1::AgentInterface {
            url: self.url.clone(),
            protocol_binding: self.preferred_transport.clone(),
            tenant: String::new(),
            protocol_version: version.clone(),
        };
        let mut interfaces = alloc::vec![main];
        for extra in self.additional_interfaces.iter().flatten() {
            // v0.3 recommends listing the main interface here too; keep each entry once.
            if !interfaces.iter().any(|i| i.url == extra.url && i.protocol_binding == extra.transport) {
                interfaces.push(v1::AgentInterface {
                    url: extra.url.clone(),
                    protocol_binding: extra.transport.clone(),
                    tenant: String::new(),
                    protocol_version: version.clone(),
                });
            }
        }
        if self.capabilities.state_transition_history.is_some() {
            cx.loss(LossKind::Dropped, "capabilities.stateTransitionHistory");
        }
        let mut schemes = BTreeMap::new();
        for (name, s) in self.security_schemes.iter().flatten() {
            let v = cx.at("securitySchemes", |cx| cx.at(name, |cx| s.v1(cx)))?;
            schemes.insert(name.clone(), v);
        }
        Ok(v1::AgentCard {
            name: self.name.clone(),
            description: self.description.clone(),
            supported_interfaces: interfaces,
            provider: self.provider.as_ref().map(|p| v1::AgentProvider { url: p.url.clone(), organization: p.organization.clone() }),
            version: self.version.clone(),
            documentation_url: self.documentation_url.clone(),
            capabilities: Some(v1::AgentCapabilities {
                streaming: self.capabilities.streaming,
                push_notifications: self.capabilities.push_notifications,
                extensions: self
                    .capabilities
                    .extensions
                    .iter()
                    .flatten()
                    .map(|e| v1::AgentExtension {
                        uri: e.uri.clone(),
                        description: e.description.clone().unwrap_or_default(),
                        required: e.required.unwrap_or(false),
                        params: meta_v1(&e.params),
                    })
                    .collect(),
                extended_agent_card: self.supports_authenticated_extended_card,
            }),
            security_schemes: schemes,
            security_requirements: requirements_v1(&self.security),
            default_input_modes: self.default_input_modes.clone(),
            default_output_modes: self.default_output_modes.clone(),
            skills: self
                .skills
                .iter()
                .map(|s| v1::AgentSkill {
                    id: s.id.clone(),
                    name: s.name.clone(),
                    description: s.description.clone(),
                    tags: s.tags.clone(),
                    examples: s.examples.clone().unwrap_or_default(),
                    input_modes: s.input_modes.clone().unwrap_or_default(),
                    output_modes: s.output_modes.clone().unwrap_or_default(),
                    security_requirements: requirements_v1(&s.security),
                })
                .collect(),
            signatures: self
                .signatures
                .iter()
                .flatten()
                .map(|s| v1::AgentCardSignature {
                    protected: s.protected.clone(),
                    signature: s.signature.clone(),
                    header: meta_v1(&s.header),
                })
                .collect(),
            icon_url: self.icon_url.clone(),
        })
    }
}

impl ToV03 for v1::AgentCard {
    type V03 = AgentCard;
    fn v03(&self, cx: &mut Cx) -> Result<AgentCard, ConvertError> {
        // A v0.3 card speaks one protocol version: that of its main interface, the first 0.x
        // interface if there is one (a v0.3 reader can use it), else the first. Interfaces of
        // other versions cannot be listed without being misread as that version.
        let main = self.supported_interfaces.iter().position(|i| i.protocol_version.starts_with("0.")).unwrap_or(0);
        let first = self.supported_interfaces.get(main).ok_or_else(|| cx.missing("supportedInterfaces"))?;
        let version = first.protocol_version.clone();
        let mut additional = Vec::new();
        cx.at("supportedInterfaces", |cx| {
            for (i, iface) in self.supported_interfaces.iter().enumerate() {
                cx.idx(i, |cx| {
                    if iface.protocol_version != version {
                        cx.loss(LossKind::Dropped, "");
                        return;
                    }
                    if !iface.tenant.is_empty() {
                        cx.loss(LossKind::Dropped, "tenant");
                    }
                    additional.push(AgentInterface { url: iface.url.clone(), transport: iface.protocol_binding.clone() });
                });
            }
        });
        let mut schemes = BTreeMap::new();
        for (name, s) in &self.security_schemes {
            let v = cx.at("securitySchemes", |cx| cx.at(name, |cx| s.v03(cx)))?;
            schemes.insert(name.clone(), v);
        }
        let caps = self.capabilities.clone().unwrap_or_default();
        Ok(AgentCard {
            protocol_version: if version.matches('.').count() == 1 { format!("{version}.0") } else { version.clone() },
            name: self.name.clone(),
            description: self.description.clone(),
            url: first.url.clone(),
            preferred_transport: first.protocol_binding.clone(),
            additional_interfaces: Some(additional),
            icon_url: self.icon_url.clone(),
            provider: self.provider.as_ref().map(|p| AgentProvider { organization: p.organization.clone(), url: p.url.clone() }),
            version: self.version.clone(),
            documentation_url: self.documentation_url.clone(),
            capabilities: AgentCapabilities {
                streaming: caps.streaming,
                push_notifications: caps.push_notifications,
                state_transition_history: None,
                extensions: (!caps.extensions.is_empty()).then(|| {
                    caps.extensions
                        .iter()
                        .map(|e| AgentExtension {
                            uri: e.uri.clone(),
                            description: opt(&e.description),
                            required: e.required.then_some(true),
                            params: meta_v03(&e.params),
                        })
                        .collect()
                }),
            },
            security_schemes: (!schemes.is_empty()).then_some(schemes),
            security: requirements_v03(&self.security_requirements),
            default_input_modes: self.default_input_modes.clone(),
            default_output_modes: self.default_output_modes.clone(),
            skills: self
                .skills
                .iter()
                .map(|s| AgentSkill {
                    id: s.id.clone(),
                    name: s.name.clone(),
                    description: s.description.clone(),
                    tags: s.tags.clone(),
                    examples: opt_list(&s.examples),
                    input_modes: opt_list(&s.input_modes),
                    output_modes: opt_list(&s.output_modes),
                    security: requirements_v03(&s.security_requirements),
                })
                .collect(),
            supports_authenticated_extended_card: caps.extended_agent_card,
            signatures: (!self.signatures.is_empty()).then(|| {
                self.signatures
                    .iter()
                    .map(|s| AgentCardSignature {
                        protected: s.protected.clone(),
                        signature: s.signature.clone(),
                        header: meta_v03(&s.header),
                    })
                    .collect()
            }),
        })
    }
}

/// ListTasks has no v0.3 JSON-RPC method.
impl ToV03 for v1::ListTasksRequest {
    type V03 = ();
    fn v03(&self, _cx: &mut Cx) -> Result<(), ConvertError> {
        Err(ConvertError::NoEquivalent { what: "ListTasks" })
    }
}

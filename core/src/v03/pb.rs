//! Translation between the v0.3 proto (`a2a.v1`, what v0.3 gRPC and HTTP+JSON peers send)
//! and the v0.3 JSON-RPC model of this module, so that both reach v1.0 through one set of
//! v0.3 rules ([`super::ToV1`] / [`super::ToV03`]).
//!
//! Both sides are v0.3, so most fields map one to one. The differences:
//! - resource names: `tasks/{id}` and `tasks/{id}/pushNotificationConfigs/{config}` carry the
//!   ids (`task/{id}`, the typo of the proto's create rule, is accepted as a parent);
//! - `Message.content` is `parts`; `TaskStatus.update` is `message`;
//!   `TASK_STATE_CANCELLED` is `canceled`;
//! - the proto has no file `name` and no `referenceTaskIds`: writing them to the proto
//!   reports [`LossKind::Dropped`];
//! - proto3 booleans have no "absent": a `SendMessageConfiguration` present with `blocking`
//!   false asks for a non-blocking send; no configuration at all is read as the blocking
//!   default, and a configuration is always written (with `blocking` true unless asked
//!   otherwise), since a2a-sdk 0.3.24 and 1.0.3 read a missing one as non-blocking.

use super::convert::{meta_v03, meta_v1, object_to_struct, opt, opt_list, timestamp_v03, Cx};
use super::*;
use crate::proto::google::protobuf::Timestamp;
use crate::proto::json::{base64, timestamp};
use crate::proto::v03 as pb;
use alloc::format;

/// A v0.3 model type read from its proto form.
pub trait FromPb: Sized {
    /// The proto type.
    type Pb;
    #[doc(hidden)]
    fn from_pb(pb: &Self::Pb, cx: &mut Cx) -> Result<Self, ConvertError>;
}

/// A v0.3 model type written in its proto form.
pub trait IntoPb {
    /// The proto type.
    type Pb;
    #[doc(hidden)]
    fn into_pb(&self, cx: &mut Cx) -> Result<Self::Pb, ConvertError>;
}

/// How the bytes of a file part travel in the v0.3 proto's `FilePart.file_with_bytes` (v0.3
/// gRPC, and v0.3 HTTP+JSON, which is that proto's JSON). The field is `bytes`, but the v0.3
/// releases that most agents run (a2a-sdk 0.3.x, a2a-go v0.3.x, and the v0.3 layer of a2a-sdk
/// 1.x) put the base64 *text* of the file in it, so on HTTP+JSON the file is base64-encoded
/// twice; @a2a-js/sdk 0.3.x puts the bytes themselves. INTEROP.md, "File bytes in v0.3",
/// gives the evidence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FileBytes {
    /// Written as the standard padded base64 text of the bytes (what a2a-sdk and a2a-go
    /// write and read). Read: a field whose content is canonical base64 text (standard
    /// alphabet, padded, what an encoder writes) is its decoded bytes; any other content is
    /// the bytes themselves, as a raw writer sent them. So both forms arrive as the bytes
    /// their sender meant, except raw bytes that happen to be canonical base64 text (for
    /// example the four-byte file `abcd`), which need [`FileBytes::Raw`].
    #[default]
    Base64Text,
    /// Written and read as the bytes themselves, as the proto's type says and @a2a-js/sdk
    /// 0.3 does.
    Raw,
}

impl FileBytes {
    /// The form named `base64` or `raw` (the CLI's and the bindings' option values).
    pub fn from_name(name: &str) -> Option<FileBytes> {
        match name {
            "base64" => Some(FileBytes::Base64Text),
            "raw" => Some(FileBytes::Raw),
            _ => None,
        }
    }
    /// `base64` or `raw`.
    pub fn name(self) -> &'static str {
        match self {
            FileBytes::Base64Text => "base64",
            FileBytes::Raw => "raw",
        }
    }
}

/// `field` as base64 text if it is canonical standard padded base64 (what an encoder
/// writes): the text itself, already the model's form.
fn canonical_base64(field: &[u8]) -> Option<&str> {
    let text = core::str::from_utf8(field).ok()?;
    if text.len() % 4 != 0 {
        return None;
    }
    let raw = base64::decode(text).ok()?;
    (base64::encode(&raw) == text).then_some(text)
}

/// What reading a proto message found about its file bytes.
#[derive(Clone, Debug)]
pub struct Read<T> {
    /// The value and its losses.
    pub converted: Converted<T>,
    /// The form the sender's file bytes came in: [`FileBytes::Raw`] when some file's bytes
    /// were not base64 text (a raw writer), else the form read with. A server answers such a
    /// client in its form.
    pub files_seen: FileBytes,
}

/// Reads a proto message as the v0.3 model (file bytes read as [`FileBytes::Base64Text`]
/// reads them).
pub fn from_pb<T: FromPb>(pb: &T::Pb) -> Result<Converted<T>, ConvertError> {
    from_pb_with(pb, FileBytes::default()).map(|r| r.converted)
}

/// Reads a proto message as the v0.3 model, file bytes as `files` says.
pub fn from_pb_with<T: FromPb>(pb: &T::Pb, files: FileBytes) -> Result<Read<T>, ConvertError> {
    let mut cx = Cx::default();
    cx.files = files;
    let value = T::from_pb(pb, &mut cx)?;
    let files_seen = if cx.raw_seen { FileBytes::Raw } else { files };
    Ok(Read { converted: Converted { value, losses: cx.take_losses() }, files_seen })
}

/// Writes a v0.3 model value as its proto message (file bytes as base64 text).
pub fn to_pb<T: IntoPb>(v: &T) -> Result<Converted<T::Pb>, ConvertError> {
    to_pb_with(v, FileBytes::default())
}

/// Writes a v0.3 model value as its proto message, file bytes in the form `files`.
pub fn to_pb_with<T: IntoPb>(v: &T, files: FileBytes) -> Result<Converted<T::Pb>, ConvertError> {
    let mut cx = Cx::default();
    cx.files = files;
    let value = v.into_pb(&mut cx)?;
    Ok(Converted { value, losses: cx.take_losses() })
}

// ---------------------------------------------------------------- resource names

/// The task id of `tasks/{id}` (or `task/{id}`).
pub fn task_from_name(name: &str) -> Option<&str> {
    let id = name.strip_prefix("tasks/").or_else(|| name.strip_prefix("task/"))?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

/// The task and config ids of `tasks/{id}/pushNotificationConfigs/{config}`.
pub fn config_from_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("tasks/").or_else(|| name.strip_prefix("task/"))?;
    let (task, rest) = rest.split_once('/')?;
    let config = rest.strip_prefix("pushNotificationConfigs/")?;
    (!task.is_empty() && !config.is_empty() && !config.contains('/')).then_some((task, config))
}

fn bad_name(cx: &Cx, field: &str) -> ConvertError {
    ConvertError::Missing { path: cx.field_path(field) }
}

// ---------------------------------------------------------------- tasks and messages

fn state_from_pb(s: i32) -> TaskState {
    match pb::TaskState::try_from(s) {
        Ok(pb::TaskState::Submitted) => TaskState::Submitted,
        Ok(pb::TaskState::Working) => TaskState::Working,
        Ok(pb::TaskState::Completed) => TaskState::Completed,
        Ok(pb::TaskState::Failed) => TaskState::Failed,
        Ok(pb::TaskState::Cancelled) => TaskState::Canceled,
        Ok(pb::TaskState::InputRequired) => TaskState::InputRequired,
        Ok(pb::TaskState::Rejected) => TaskState::Rejected,
        Ok(pb::TaskState::AuthRequired) => TaskState::AuthRequired,
        Ok(pb::TaskState::Unspecified) | Err(_) => TaskState::Unknown,
    }
}

fn state_to_pb(s: TaskState) -> pb::TaskState {
    match s {
        TaskState::Submitted => pb::TaskState::Submitted,
        TaskState::Working => pb::TaskState::Working,
        TaskState::Completed => pb::TaskState::Completed,
        TaskState::Failed => pb::TaskState::Failed,
        TaskState::Canceled => pb::TaskState::Cancelled,
        TaskState::InputRequired => pb::TaskState::InputRequired,
        TaskState::Rejected => pb::TaskState::Rejected,
        TaskState::AuthRequired => pb::TaskState::AuthRequired,
        TaskState::Unknown => pb::TaskState::Unspecified,
    }
}

fn ts_from_pb(cx: &mut Cx, t: &Option<Timestamp>) -> Option<String> {
    timestamp_v03(cx, t)
}

fn ts_to_pb(cx: &mut Cx, t: &Option<String>) -> Option<Timestamp> {
    let text = t.as_deref()?;
    match timestamp::parse(text).or_else(|_| timestamp::parse(&format!("{text}Z"))) {
        Ok((seconds, nanos)) => Some(Timestamp { seconds, nanos }),
        Err(_) => {
            cx.loss(LossKind::TimestampUnparseable, "timestamp");
            None
        }
    }
}

impl FromPb for Part {
    type Pb = pb::Part;
    fn from_pb(p: &pb::Part, cx: &mut Cx) -> Result<Part, ConvertError> {
        use pb::file_part::File;
        use pb::part::Part as P;
        Ok(match &p.part {
            Some(P::Text(t)) => Part::Text(TextPart { text: t.clone(), metadata: None, kind: tag::Text }),
            Some(P::Data(d)) => Part::Data(DataPart { data: meta_v03(&d.data).unwrap_or_default(), metadata: None, kind: tag::Data }),
            Some(P::File(f)) => {
                let mime_type = opt(&f.mime_type);
                let file = match &f.file {
                    Some(File::FileWithUri(uri)) => FileContent::Uri { uri: uri.clone(), mime_type, name: None },
                    Some(File::FileWithBytes(b)) => {
                        let text = match (cx.files, canonical_base64(b)) {
                            (FileBytes::Base64Text, Some(text)) => String::from(text),
                            (FileBytes::Base64Text, None) => {
                                cx.raw_seen = true;
                                base64::encode(b)
                            }
                            (FileBytes::Raw, _) => base64::encode(b),
                        };
                        FileContent::Bytes { bytes: text, mime_type, name: None }
                    }
                    None => return Err(cx.missing("file")),
                };
                Part::File(FilePart { file, metadata: None, kind: tag::File })
            }
            None => return Err(cx.missing("")),
        })
    }
}

impl IntoPb for Part {
    type Pb = pb::Part;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::Part, ConvertError> {
        use pb::file_part::File;
        use pb::part::Part as P;
        let (part, metadata) = match self {
            Part::Text(t) => (P::Text(t.text.clone()), &t.metadata),
            Part::Data(d) => (P::Data(pb::DataPart { data: Some(object_to_struct(&d.data)) }), &d.metadata),
            Part::File(f) => {
                let (file, mime, name) = match &f.file {
                    FileContent::Uri { uri, mime_type, name } => (File::FileWithUri(uri.clone()), mime_type, name),
                    FileContent::Bytes { bytes, mime_type, name } => {
                        let raw = base64::decode(bytes).map_err(|_| ConvertError::InvalidBase64 { path: cx.field_path("file.bytes") })?;
                        let field = match cx.files {
                            FileBytes::Base64Text => base64::encode(&raw).into_bytes(),
                            FileBytes::Raw => raw,
                        };
                        (File::FileWithBytes(field), mime_type, name)
                    }
                };
                if name.is_some() {
                    cx.loss(LossKind::Dropped, "file.name");
                }
                (P::File(pb::FilePart { file: Some(file), mime_type: mime.clone().unwrap_or_default() }), &f.metadata)
            }
        };
        if metadata.is_some() {
            cx.loss(LossKind::Dropped, "metadata");
        }
        Ok(pb::Part { part: Some(part) })
    }
}

impl FromPb for Message {
    type Pb = pb::Message;
    fn from_pb(m: &pb::Message, cx: &mut Cx) -> Result<Message, ConvertError> {
        let role = match pb::Role::try_from(m.role) {
            Ok(pb::Role::User) => Role::User,
            Ok(pb::Role::Agent) => Role::Agent,
            _ => return Err(ConvertError::UnspecifiedRole { path: cx.field_path("role") }),
        };
        Ok(Message {
            message_id: m.message_id.clone(),
            role,
            parts: cx.list("content", &m.content, |cx, p| Part::from_pb(p, cx))?,
            context_id: opt(&m.context_id),
            task_id: opt(&m.task_id),
            metadata: meta_v03(&m.metadata),
            extensions: opt_list(&m.extensions),
            reference_task_ids: None,
            kind: tag::Message,
        })
    }
}

impl IntoPb for Message {
    type Pb = pb::Message;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::Message, ConvertError> {
        if self.reference_task_ids.as_ref().is_some_and(|r| !r.is_empty()) {
            cx.loss(LossKind::Dropped, "referenceTaskIds");
        }
        Ok(pb::Message {
            message_id: self.message_id.clone(),
            context_id: self.context_id.clone().unwrap_or_default(),
            task_id: self.task_id.clone().unwrap_or_default(),
            role: match self.role {
                Role::User => pb::Role::User,
                Role::Agent => pb::Role::Agent,
            } as i32,
            content: cx.list("parts", &self.parts, |cx, p| p.into_pb(cx))?,
            metadata: meta_v1(&self.metadata),
            extensions: self.extensions.clone().unwrap_or_default(),
        })
    }
}

impl FromPb for TaskStatus {
    type Pb = pb::TaskStatus;
    fn from_pb(s: &pb::TaskStatus, cx: &mut Cx) -> Result<TaskStatus, ConvertError> {
        let message = match &s.update {
            Some(m) => Some(cx.at("message", |cx| Message::from_pb(m, cx))?),
            None => None,
        };
        Ok(TaskStatus { state: state_from_pb(s.state), message, timestamp: ts_from_pb(cx, &s.timestamp) })
    }
}

impl IntoPb for TaskStatus {
    type Pb = pb::TaskStatus;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::TaskStatus, ConvertError> {
        let update = match &self.message {
            Some(m) => Some(cx.at("message", |cx| m.into_pb(cx))?),
            None => None,
        };
        Ok(pb::TaskStatus { state: state_to_pb(self.state) as i32, update, timestamp: ts_to_pb(cx, &self.timestamp) })
    }
}

impl FromPb for Artifact {
    type Pb = pb::Artifact;
    fn from_pb(a: &pb::Artifact, cx: &mut Cx) -> Result<Artifact, ConvertError> {
        Ok(Artifact {
            artifact_id: a.artifact_id.clone(),
            name: opt(&a.name),
            description: opt(&a.description),
            parts: cx.list("parts", &a.parts, |cx, p| Part::from_pb(p, cx))?,
            metadata: meta_v03(&a.metadata),
            extensions: opt_list(&a.extensions),
        })
    }
}

impl IntoPb for Artifact {
    type Pb = pb::Artifact;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::Artifact, ConvertError> {
        Ok(pb::Artifact {
            artifact_id: self.artifact_id.clone(),
            name: self.name.clone().unwrap_or_default(),
            description: self.description.clone().unwrap_or_default(),
            parts: cx.list("parts", &self.parts, |cx, p| p.into_pb(cx))?,
            metadata: meta_v1(&self.metadata),
            extensions: self.extensions.clone().unwrap_or_default(),
        })
    }
}

impl FromPb for Task {
    type Pb = pb::Task;
    fn from_pb(t: &pb::Task, cx: &mut Cx) -> Result<Task, ConvertError> {
        let status = match &t.status {
            Some(s) => cx.at("status", |cx| TaskStatus::from_pb(s, cx))?,
            None => return Err(cx.missing("status")),
        };
        let artifacts = cx.list("artifacts", &t.artifacts, |cx, a| Artifact::from_pb(a, cx))?;
        let history = cx.list("history", &t.history, |cx, m| Message::from_pb(m, cx))?;
        Ok(Task {
            id: t.id.clone(),
            context_id: t.context_id.clone(),
            status,
            artifacts: (!artifacts.is_empty()).then_some(artifacts),
            history: (!history.is_empty()).then_some(history),
            metadata: meta_v03(&t.metadata),
            kind: tag::Task,
        })
    }
}

impl IntoPb for Task {
    type Pb = pb::Task;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::Task, ConvertError> {
        Ok(pb::Task {
            id: self.id.clone(),
            context_id: self.context_id.clone(),
            status: Some(cx.at("status", |cx| self.status.into_pb(cx))?),
            artifacts: cx.list("artifacts", self.artifacts.as_deref().unwrap_or_default(), |cx, a| a.into_pb(cx))?,
            history: cx.list("history", self.history.as_deref().unwrap_or_default(), |cx, m| m.into_pb(cx))?,
            metadata: meta_v1(&self.metadata),
        })
    }
}

impl FromPb for TaskStatusUpdateEvent {
    type Pb = pb::TaskStatusUpdateEvent;
    fn from_pb(e: &pb::TaskStatusUpdateEvent, cx: &mut Cx) -> Result<Self, ConvertError> {
        let status = match &e.status {
            Some(s) => cx.at("status", |cx| TaskStatus::from_pb(s, cx))?,
            None => return Err(cx.missing("status")),
        };
        Ok(TaskStatusUpdateEvent {
            task_id: e.task_id.clone(),
            context_id: e.context_id.clone(),
            status,
            r#final: e.r#final,
            metadata: meta_v03(&e.metadata),
            kind: tag::StatusUpdate,
        })
    }
}

impl IntoPb for TaskStatusUpdateEvent {
    type Pb = pb::TaskStatusUpdateEvent;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::TaskStatusUpdateEvent, ConvertError> {
        Ok(pb::TaskStatusUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            status: Some(cx.at("status", |cx| self.status.into_pb(cx))?),
            r#final: self.r#final,
            metadata: meta_v1(&self.metadata),
        })
    }
}

impl FromPb for TaskArtifactUpdateEvent {
    type Pb = pb::TaskArtifactUpdateEvent;
    fn from_pb(e: &pb::TaskArtifactUpdateEvent, cx: &mut Cx) -> Result<Self, ConvertError> {
        let artifact = match &e.artifact {
            Some(a) => cx.at("artifact", |cx| Artifact::from_pb(a, cx))?,
            None => return Err(cx.missing("artifact")),
        };
        Ok(TaskArtifactUpdateEvent {
            task_id: e.task_id.clone(),
            context_id: e.context_id.clone(),
            artifact,
            append: e.append.then_some(true),
            last_chunk: e.last_chunk.then_some(true),
            metadata: meta_v03(&e.metadata),
            kind: tag::ArtifactUpdate,
        })
    }
}

impl IntoPb for TaskArtifactUpdateEvent {
    type Pb = pb::TaskArtifactUpdateEvent;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::TaskArtifactUpdateEvent, ConvertError> {
        Ok(pb::TaskArtifactUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            artifact: Some(cx.at("artifact", |cx| self.artifact.into_pb(cx))?),
            append: self.append.unwrap_or(false),
            last_chunk: self.last_chunk.unwrap_or(false),
            metadata: meta_v1(&self.metadata),
        })
    }
}

impl FromPb for StreamEvent {
    type Pb = pb::StreamResponse;
    fn from_pb(r: &pb::StreamResponse, cx: &mut Cx) -> Result<StreamEvent, ConvertError> {
        use pb::stream_response::Payload as P;
        Ok(match &r.payload {
            Some(P::Task(t)) => StreamEvent::Task(cx.at("task", |cx| Task::from_pb(t, cx))?),
            Some(P::Msg(m)) => StreamEvent::Message(cx.at("message", |cx| Message::from_pb(m, cx))?),
            Some(P::StatusUpdate(e)) => StreamEvent::StatusUpdate(cx.at("statusUpdate", |cx| TaskStatusUpdateEvent::from_pb(e, cx))?),
            Some(P::ArtifactUpdate(e)) => {
                StreamEvent::ArtifactUpdate(cx.at("artifactUpdate", |cx| TaskArtifactUpdateEvent::from_pb(e, cx))?)
            }
            None => return Err(cx.missing("")),
        })
    }
}

impl IntoPb for StreamEvent {
    type Pb = pb::StreamResponse;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::StreamResponse, ConvertError> {
        use pb::stream_response::Payload as P;
        let payload = match self {
            StreamEvent::Task(t) => P::Task(t.into_pb(cx)?),
            StreamEvent::Message(m) => P::Msg(m.into_pb(cx)?),
            StreamEvent::StatusUpdate(e) => P::StatusUpdate(e.into_pb(cx)?),
            StreamEvent::ArtifactUpdate(e) => P::ArtifactUpdate(e.into_pb(cx)?),
        };
        Ok(pb::StreamResponse { payload: Some(payload) })
    }
}

impl FromPb for SendMessageResult {
    type Pb = pb::SendMessageResponse;
    fn from_pb(r: &pb::SendMessageResponse, cx: &mut Cx) -> Result<SendMessageResult, ConvertError> {
        use pb::send_message_response::Payload as P;
        Ok(match &r.payload {
            Some(P::Task(t)) => SendMessageResult::Task(cx.at("task", |cx| Task::from_pb(t, cx))?),
            Some(P::Msg(m)) => SendMessageResult::Message(cx.at("message", |cx| Message::from_pb(m, cx))?),
            None => return Err(cx.missing("")),
        })
    }
}

impl IntoPb for SendMessageResult {
    type Pb = pb::SendMessageResponse;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::SendMessageResponse, ConvertError> {
        use pb::send_message_response::Payload as P;
        let payload = match self {
            SendMessageResult::Task(t) => P::Task(t.into_pb(cx)?),
            SendMessageResult::Message(m) => P::Msg(m.into_pb(cx)?),
        };
        Ok(pb::SendMessageResponse { payload: Some(payload) })
    }
}

// ---------------------------------------------------------------- requests

fn push_from_pb(p: &pb::PushNotificationConfig) -> PushNotificationConfig {
    PushNotificationConfig {
        id: opt(&p.id),
        url: p.url.clone(),
        token: opt(&p.token),
        authentication: p
            .authentication
            .as_ref()
            .map(|a| PushNotificationAuthenticationInfo { schemes: a.schemes.clone(), credentials: opt(&a.credentials) }),
    }
}

fn push_to_pb(p: &PushNotificationConfig) -> pb::PushNotificationConfig {
    pb::PushNotificationConfig {
        id: p.id.clone().unwrap_or_default(),
        url: p.url.clone(),
        token: p.token.clone().unwrap_or_default(),
        authentication: p
            .authentication
            .as_ref()
            .map(|a| pb::AuthenticationInfo { schemes: a.schemes.clone(), credentials: a.credentials.clone().unwrap_or_default() }),
    }
}

impl FromPb for MessageSendParams {
    type Pb = pb::SendMessageRequest;
    fn from_pb(r: &pb::SendMessageRequest, cx: &mut Cx) -> Result<MessageSendParams, ConvertError> {
        let message = match &r.request {
            Some(m) => cx.at("message", |cx| Message::from_pb(m, cx))?,
            None => return Err(cx.missing("message")),
        };
        let configuration = r.configuration.as_ref().map(|c| MessageSendConfiguration {
            accepted_output_modes: opt_list(&c.accepted_output_modes),
            blocking: Some(c.blocking),
            history_length: (c.history_length != 0).then_some(c.history_length),
            push_notification_config: c.push_notification.as_ref().map(push_from_pb),
        });
        Ok(MessageSendParams { message, configuration, metadata: meta_v03(&r.metadata) })
    }
}

impl IntoPb for MessageSendParams {
    type Pb = pb::SendMessageRequest;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::SendMessageRequest, ConvertError> {
        Ok(pb::SendMessageRequest {
            request: Some(cx.at("message", |cx| self.message.into_pb(cx))?),
            // Always a configuration: a2a-sdk 0.3.24 and 1.0.3 read a request without one
            // as non-blocking (proto3's `blocking` default), where the spec's default and
            // every other server block.
            configuration: Some(match self.configuration.as_ref() {
                Some(c) => pb::SendMessageConfiguration {
                    accepted_output_modes: c.accepted_output_modes.clone().unwrap_or_default(),
                    push_notification: c.push_notification_config.as_ref().map(push_to_pb),
                    history_length: c.history_length.unwrap_or(0),
                    blocking: c.blocking.unwrap_or(true),
                },
                None => pb::SendMessageConfiguration { blocking: true, ..Default::default() },
            }),
            metadata: meta_v1(&self.metadata),
        })
    }
}

impl FromPb for TaskQueryParams {
    type Pb = pb::GetTaskRequest;
    fn from_pb(r: &pb::GetTaskRequest, cx: &mut Cx) -> Result<TaskQueryParams, ConvertError> {
        let id = task_from_name(&r.name).ok_or_else(|| bad_name(cx, "name"))?;
        Ok(TaskQueryParams { id: String::from(id), history_length: (r.history_length != 0).then_some(r.history_length), metadata: None })
    }
}

impl IntoPb for TaskQueryParams {
    type Pb = pb::GetTaskRequest;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::GetTaskRequest, ConvertError> {
        if self.metadata.is_some() {
            cx.loss(LossKind::Dropped, "metadata");
        }
        Ok(pb::GetTaskRequest { name: format!("tasks/{}", self.id), history_length: self.history_length.unwrap_or(0) })
    }
}

impl FromPb for TaskIdParams {
    type Pb = pb::CancelTaskRequest;
    fn from_pb(r: &pb::CancelTaskRequest, cx: &mut Cx) -> Result<TaskIdParams, ConvertError> {
        let id = task_from_name(&r.name).ok_or_else(|| bad_name(cx, "name"))?;
        Ok(TaskIdParams { id: String::from(id), metadata: None })
    }
}

impl IntoPb for TaskIdParams {
    type Pb = pb::CancelTaskRequest;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::CancelTaskRequest, ConvertError> {
        if self.metadata.is_some() {
            cx.loss(LossKind::Dropped, "metadata");
        }
        Ok(pb::CancelTaskRequest { name: format!("tasks/{}", self.id) })
    }
}

/// `TaskSubscription` request: the task name.
pub fn subscription_from_pb(r: &pb::TaskSubscriptionRequest) -> Result<TaskIdParams, ConvertError> {
    let id = task_from_name(&r.name).ok_or_else(|| ConvertError::Missing { path: String::from("name") })?;
    Ok(TaskIdParams { id: String::from(id), metadata: None })
}

impl FromPb for TaskPushNotificationConfig {
    type Pb = pb::TaskPushNotificationConfig;
    fn from_pb(c: &pb::TaskPushNotificationConfig, cx: &mut Cx) -> Result<TaskPushNotificationConfig, ConvertError> {
        let (task, config) = config_from_name(&c.name).ok_or_else(|| bad_name(cx, "name"))?;
        let mut push = c.push_notification_config.as_ref().map(push_from_pb).ok_or_else(|| cx.missing("pushNotificationConfig"))?;
        if push.id.is_none() {
            push.id = Some(String::from(config));
        }
        Ok(TaskPushNotificationConfig { task_id: String::from(task), push_notification_config: push })
    }
}

impl IntoPb for TaskPushNotificationConfig {
    type Pb = pb::TaskPushNotificationConfig;
    fn into_pb(&self, _cx: &mut Cx) -> Result<pb::TaskPushNotificationConfig, ConvertError> {
        let id = self.push_notification_config.id.clone().unwrap_or_default();
        Ok(pb::TaskPushNotificationConfig {
            name: format!("tasks/{}/pushNotificationConfigs/{id}", self.task_id),
            push_notification_config: Some(push_to_pb(&self.push_notification_config)),
        })
    }
}

/// The create request: `parent` names the task, `config_id` (or the config's own id) the
/// config.
pub fn create_config_from_pb(r: &pb::CreateTaskPushNotificationConfigRequest) -> Result<TaskPushNotificationConfig, ConvertError> {
    let task = task_from_name(&r.parent).ok_or_else(|| ConvertError::Missing { path: String::from("parent") })?;
    let c = r.config.as_ref().ok_or_else(|| ConvertError::Missing { path: String::from("config") })?;
    let mut push = c
        .push_notification_config
        .as_ref()
        .map(push_from_pb)
        .ok_or_else(|| ConvertError::Missing { path: String::from("config.pushNotificationConfig") })?;
    if !r.config_id.is_empty() {
        push.id = Some(r.config_id.clone());
    }
    Ok(TaskPushNotificationConfig { task_id: String::from(task), push_notification_config: push })
}

/// The create request for a config.
pub fn create_config_to_pb(c: &TaskPushNotificationConfig) -> pb::CreateTaskPushNotificationConfigRequest {
    let id = c.push_notification_config.id.clone().unwrap_or_default();
    pb::CreateTaskPushNotificationConfigRequest {
        parent: format!("tasks/{}", c.task_id),
        config_id: id.clone(),
        config: Some(pb::TaskPushNotificationConfig {
            name: format!("tasks/{}/pushNotificationConfigs/{id}", c.task_id),
            push_notification_config: Some(push_to_pb(&c.push_notification_config)),
        }),
    }
}

/// Get: `name` names the task and the config.
pub fn get_config_from_pb(name: &str) -> Result<GetTaskPushNotificationConfigParams, ConvertError> {
    let (task, config) = config_from_name(name).ok_or_else(|| ConvertError::Missing { path: String::from("name") })?;
    Ok(GetTaskPushNotificationConfigParams {
        id: String::from(task),
        push_notification_config_id: Some(String::from(config)),
        metadata: None,
    })
}

/// Delete: `name` names the task and the config.
pub fn delete_config_from_pb(name: &str) -> Result<DeleteTaskPushNotificationConfigParams, ConvertError> {
    let (task, config) = config_from_name(name).ok_or_else(|| ConvertError::Missing { path: String::from("name") })?;
    Ok(DeleteTaskPushNotificationConfigParams { id: String::from(task), push_notification_config_id: String::from(config), metadata: None })
}

/// List: `parent` names the task.
pub fn list_configs_from_pb(parent: &str) -> Result<ListTaskPushNotificationConfigParams, ConvertError> {
    let task = task_from_name(parent).ok_or_else(|| ConvertError::Missing { path: String::from("parent") })?;
    Ok(ListTaskPushNotificationConfigParams { id: String::from(task), metadata: None })
}

impl FromPb for Vec<TaskPushNotificationConfig> {
    type Pb = pb::ListTaskPushNotificationConfigResponse;
    fn from_pb(r: &pb::ListTaskPushNotificationConfigResponse, cx: &mut Cx) -> Result<Self, ConvertError> {
        cx.list("configs", &r.configs, |cx, c| TaskPushNotificationConfig::from_pb(c, cx))
    }
}

impl IntoPb for Vec<TaskPushNotificationConfig> {
    type Pb = pb::ListTaskPushNotificationConfigResponse;
    fn into_pb(&self, cx: &mut Cx) -> Result<pb::ListTaskPushNotificationConfigResponse, ConvertError> {
        Ok(pb::ListTaskPushNotificationConfigResponse {
            configs: cx.list("configs", self, |cx, c| c.into_pb(cx))?,
            next_page_token: String::new(),
        })
    }
}

// The agent card and its security schemes: card.rs.
mod card;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_names() {
        assert_eq!(task_from_name("tasks/t1"), Some("t1"));
        assert_eq!(task_from_name("task/t1"), Some("t1"));
        assert_eq!(task_from_name("tasks/"), None);
        assert_eq!(task_from_name("tasks/a/b"), None);
        assert_eq!(config_from_name("tasks/t1/pushNotificationConfigs/c1"), Some(("t1", "c1")));
        assert_eq!(config_from_name("tasks/t1/pushNotificationConfigs/"), None);
        assert_eq!(config_from_name("tasks/t1"), None);
    }

    #[test]
    fn a_task_round_trips_through_the_proto() {
        let t: Task = decode(
            br#"{"kind":"task","id":"t","contextId":"c","status":{"state":"canceled","timestamp":"2025-01-01T00:00:00.000Z",
                "message":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"bye"}]}},
                "artifacts":[{"artifactId":"a","parts":[{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain"}},{"kind":"data","data":{"k":1}}]}]}"#,
        )
        .unwrap();
        let p = to_pb(&t).unwrap();
        assert!(p.losses.is_empty());
        assert_eq!(p.value.status.as_ref().unwrap().state, pb::TaskState::Cancelled as i32);
        let back = from_pb::<Task>(&p.value).unwrap().value;
        assert_eq!(back, t);
    }
}

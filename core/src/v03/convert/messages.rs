//! Messages, parts, tasks, their statuses, artifacts and stream events.

use super::*;

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

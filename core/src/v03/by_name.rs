//! v0.3 decoding and translation for a type chosen at run time by name (the golden-vector
//! tests of every language and the bindings use it).

use super::*;
use crate::codec::{json, DecodeError};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// The result of decoding a v0.3 object and translating it to v1.0.
#[derive(Clone, Debug, PartialEq)]
pub struct Translation {
    /// The v0.3 object re-encoded (canonical form of the input).
    pub v03_json: Vec<u8>,
    /// Full proto name of the v1.0 type.
    pub v1_type: &'static str,
    /// The v1.0 translation as canonical ProtoJSON.
    pub v1_json: Vec<u8>,
    /// The losses, as `kind@path`.
    pub losses: Vec<String>,
}

/// Why a by-name v0.3 operation failed.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum V03Error {
    /// No v0.3 type of that name (or no v0.3 translation for that v1.0 type).
    UnknownType(String),
    /// The input did not decode.
    Decode(DecodeError),
    /// The translation was refused.
    Convert(ConvertError),
    /// The translation could not be encoded.
    Encode(crate::codec::EncodeError),
}

impl fmt::Display for V03Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            V03Error::UnknownType(n) => write!(f, "unknown type {n:?}"),
            V03Error::Decode(e) => write!(f, "{e}"),
            V03Error::Convert(e) => write!(f, "{e}"),
            V03Error::Encode(e) => write!(f, "{e}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for V03Error {}

fn losses(l: &[Loss]) -> Vec<String> {
    l.iter().map(|l| alloc::format!("{l}")).collect()
}

fn to_v1<T>(input: &[u8], v1_type: &'static str, translate: bool) -> Result<Translation, V03Error>
where
    T: serde::de::DeserializeOwned + Serialize + ToV1,
    T::V1: crate::codec::Message,
{
    let v: T = decode(input).map_err(V03Error::Decode)?;
    let v03_json = encode(&v).map_err(V03Error::Encode)?;
    if !translate {
        return Ok(Translation { v03_json, v1_type, v1_json: Vec::new(), losses: Vec::new() });
    }
    let c = v.to_v1().map_err(V03Error::Convert)?;
    let v1_json = json::encode(&c.value).map_err(V03Error::Encode)?;
    Ok(Translation { v03_json, v1_type, v1_json, losses: losses(&c.losses) })
}

/// The v0.3 type names [`translate_to_v1`] knows.
pub const TYPE_NAMES: &[&str] = &[
    "Task",
    "Message",
    "Part",
    "Artifact",
    "TaskStatus",
    "TaskStatusUpdateEvent",
    "TaskArtifactUpdateEvent",
    "StreamEvent",
    "SendMessageResult",
    "MessageSendParams",
    "TaskQueryParams",
    "TaskIdParams",
    "PushNotificationConfig",
    "TaskPushNotificationConfig",
    "GetTaskPushNotificationConfigParams",
    "ListTaskPushNotificationConfigParams",
    "DeleteTaskPushNotificationConfigParams",
    "TaskPushNotificationConfigList",
    "AgentCard",
];

/// Decodes `input` as the v0.3 type `type_name` (see `tests/vectors/README.md` for the
/// names) and translates it to v1.0.
pub fn translate_to_v1(type_name: &str, input: &[u8]) -> Result<Translation, V03Error> {
    dispatch_to_v1(type_name, input, true)
}

/// Decodes `input` as the v0.3 type `type_name` and returns its canonical v0.3 JSON, without
/// translating it (a valid v0.3 object need not have a v1.0 form).
pub fn canonical_v03(type_name: &str, input: &[u8]) -> Result<Vec<u8>, V03Error> {
    dispatch_to_v1(type_name, input, false).map(|t| t.v03_json)
}

fn dispatch_to_v1(type_name: &str, input: &[u8], translate: bool) -> Result<Translation, V03Error> {
    match type_name {
        "Task" => to_v1::<Task>(input, "lf.a2a.v1.Task", translate),
        "Message" => to_v1::<Message>(input, "lf.a2a.v1.Message", translate),
        "Part" => to_v1::<Part>(input, "lf.a2a.v1.Part", translate),
        "Artifact" => to_v1::<Artifact>(input, "lf.a2a.v1.Artifact", translate),
        "TaskStatus" => to_v1::<TaskStatus>(input, "lf.a2a.v1.TaskStatus", translate),
        "TaskStatusUpdateEvent" => to_v1::<TaskStatusUpdateEvent>(input, "lf.a2a.v1.TaskStatusUpdateEvent", translate),
        "TaskArtifactUpdateEvent" => to_v1::<TaskArtifactUpdateEvent>(input, "lf.a2a.v1.TaskArtifactUpdateEvent", translate),
        "StreamEvent" => to_v1::<StreamEvent>(input, "lf.a2a.v1.StreamResponse", translate),
        "SendMessageResult" => to_v1::<SendMessageResult>(input, "lf.a2a.v1.SendMessageResponse", translate),
        "MessageSendParams" => to_v1::<MessageSendParams>(input, "lf.a2a.v1.SendMessageRequest", translate),
        "TaskQueryParams" => to_v1::<TaskQueryParams>(input, "lf.a2a.v1.GetTaskRequest", translate),
        "TaskIdParams" => to_v1::<TaskIdParams>(input, "lf.a2a.v1.CancelTaskRequest", translate),
        "PushNotificationConfig" => to_v1::<PushNotificationConfig>(input, "lf.a2a.v1.TaskPushNotificationConfig", translate),
        "TaskPushNotificationConfig" => to_v1::<TaskPushNotificationConfig>(input, "lf.a2a.v1.TaskPushNotificationConfig", translate),
        "GetTaskPushNotificationConfigParams" => {
            to_v1::<GetTaskPushNotificationConfigParams>(input, "lf.a2a.v1.GetTaskPushNotificationConfigRequest", translate)
        }
        "ListTaskPushNotificationConfigParams" => {
            to_v1::<ListTaskPushNotificationConfigParams>(input, "lf.a2a.v1.ListTaskPushNotificationConfigsRequest", translate)
        }
        "DeleteTaskPushNotificationConfigParams" => {
            to_v1::<DeleteTaskPushNotificationConfigParams>(input, "lf.a2a.v1.DeleteTaskPushNotificationConfigRequest", translate)
        }
        "TaskPushNotificationConfigList" => {
            to_v1::<Vec<TaskPushNotificationConfig>>(input, "lf.a2a.v1.ListTaskPushNotificationConfigsResponse", translate)
        }
        "AgentCard" => to_v1::<AgentCard>(input, "lf.a2a.v1.AgentCard", translate),
        _ => Err(V03Error::UnknownType(String::from(type_name))),
    }
}

/// A v1.0 message translated to v0.3.
#[derive(Clone, Debug, PartialEq)]
pub struct BackTranslation {
    /// The v0.3 type name.
    pub v03_type: &'static str,
    /// The v0.3 JSON.
    pub v03_json: Vec<u8>,
    /// The losses, as `kind@path`.
    pub losses: Vec<String>,
}

fn to_v03<T>(input: &[u8], v03_type: &'static str) -> Result<BackTranslation, V03Error>
where
    T: crate::codec::Message + ToV03,
    T::V03: Serialize,
{
    let v: T = json::decode(input).map_err(V03Error::Decode)?;
    let c = v.to_v03().map_err(V03Error::Convert)?;
    let v03_json = encode(&c.value).map_err(V03Error::Encode)?;
    Ok(BackTranslation { v03_type, v03_json, losses: losses(&c.losses) })
}

/// Decodes `input` as the v1.0 message `type_name` (full proto name) and translates it to v0.3.
pub fn translate_to_v03(type_name: &str, input: &[u8]) -> Result<BackTranslation, V03Error> {
    use crate::v1;
    match type_name {
        "lf.a2a.v1.Task" => to_v03::<v1::Task>(input, "Task"),
        "lf.a2a.v1.Message" => to_v03::<v1::Message>(input, "Message"),
        "lf.a2a.v1.Part" => to_v03::<v1::Part>(input, "Part"),
        "lf.a2a.v1.Artifact" => to_v03::<v1::Artifact>(input, "Artifact"),
        "lf.a2a.v1.TaskStatus" => to_v03::<v1::TaskStatus>(input, "TaskStatus"),
        "lf.a2a.v1.TaskStatusUpdateEvent" => to_v03::<v1::TaskStatusUpdateEvent>(input, "TaskStatusUpdateEvent"),
        "lf.a2a.v1.TaskArtifactUpdateEvent" => to_v03::<v1::TaskArtifactUpdateEvent>(input, "TaskArtifactUpdateEvent"),
        "lf.a2a.v1.StreamResponse" => to_v03::<v1::StreamResponse>(input, "StreamEvent"),
        "lf.a2a.v1.SendMessageResponse" => to_v03::<v1::SendMessageResponse>(input, "SendMessageResult"),
        "lf.a2a.v1.SendMessageRequest" => to_v03::<v1::SendMessageRequest>(input, "MessageSendParams"),
        "lf.a2a.v1.GetTaskRequest" => to_v03::<v1::GetTaskRequest>(input, "TaskQueryParams"),
        "lf.a2a.v1.CancelTaskRequest" => to_v03::<v1::CancelTaskRequest>(input, "TaskIdParams"),
        "lf.a2a.v1.SubscribeToTaskRequest" => to_v03::<v1::SubscribeToTaskRequest>(input, "TaskIdParams"),
        "lf.a2a.v1.TaskPushNotificationConfig" => to_v03::<v1::TaskPushNotificationConfig>(input, "TaskPushNotificationConfig"),
        "lf.a2a.v1.GetTaskPushNotificationConfigRequest" => {
            to_v03::<v1::GetTaskPushNotificationConfigRequest>(input, "GetTaskPushNotificationConfigParams")
        }
        "lf.a2a.v1.ListTaskPushNotificationConfigsRequest" => {
            to_v03::<v1::ListTaskPushNotificationConfigsRequest>(input, "ListTaskPushNotificationConfigParams")
        }
        "lf.a2a.v1.DeleteTaskPushNotificationConfigRequest" => {
            to_v03::<v1::DeleteTaskPushNotificationConfigRequest>(input, "DeleteTaskPushNotificationConfigParams")
        }
        "lf.a2a.v1.ListTaskPushNotificationConfigsResponse" => {
            to_v03::<v1::ListTaskPushNotificationConfigsResponse>(input, "TaskPushNotificationConfigList")
        }
        "lf.a2a.v1.AgentCard" => to_v03::<v1::AgentCard>(input, "AgentCard"),
        "lf.a2a.v1.ListTasksRequest" => to_v03::<v1::ListTasksRequest>(input, "-"),
        _ => Err(V03Error::UnknownType(String::from(type_name))),
    }
}

//! The A2A v0.3 wire model (JSON-RPC shapes, from the v0.3.0 JSON schema) and its
//! translation to and from v1.0.
//!
//! These are separate types from [`crate::v1`] on purpose: the two versions never share a
//! deserializer, and a v0.3 peer gets v0.3 shapes only. What differs from v1.0
//! (WIRE-NOTES (k)):
//!
//! | | v0.3 | v1.0 |
//! |---|---|---|
//! | object tags | `"kind":"task"`, `"message"`, `"status-update"`, `"artifact-update"` | none (oneof member names) |
//! | parts | `{"kind":"text","text"}`, `{"kind":"file","file":{"bytes"\|"uri","mimeType","name"}}`, `{"kind":"data","data":{…}}` | `text`/`raw`/`url`/`data` + `mediaType`, `filename` |
//! | enums | `"input-required"`, `"user"` | `"TASK_STATE_INPUT_REQUIRED"`, `"ROLE_USER"` |
//! | status events | `final` flag | no flag; the stream ends on a terminal state |
//! | push config | nested `pushNotificationConfig`, `authentication.schemes[]` | flattened, one `scheme` |
//! | card | `url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion` | `supportedInterfaces[]` each with its version |
//!
//! The JSON is plain JSON (not ProtoJSON): camelCase names only, unknown fields ignored,
//! `null` for an optional field means absent. A missing `kind` is accepted where the type is
//! known from context (the result of `tasks/get` is a Task); a wrong `kind` is an error.
//! Where the type is not known (stream events, `message/send` results, parts), `kind`
//! decides.
//!
//! Translation: [`ToV1`] and [`ToV03`]; [`LossKind`] lists every lossy case.

pub mod by_name;
mod convert;
pub mod pb;

pub use convert::{ConvertError, Converted, Loss, LossKind, ToV03, ToV1};

use crate::codec::{json::decode_serde, DecodeError, EncodeError};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// A JSON object (`metadata`, `DataPart.data`, extension `params`).
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// Decodes a v0.3 object from JSON. Errors name the JSON path of the offending field.
pub fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, DecodeError> {
    decode_serde(bytes)
}

/// Encodes a v0.3 object as compact JSON.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, EncodeError> {
    serde_json::to_vec(value).map_err(|e| EncodeError::new(alloc::format!("{e}")))
}

/// The `kind` discriminators: zero-sized values that write their constant and read only it.
pub mod tag {
    use core::fmt;
    use serde::de::{self, Deserializer, Visitor};
    use serde::{Deserialize, Serialize, Serializer};

    macro_rules! kind_tag {
        ($(#[$doc:meta])* $name:ident = $lit:literal) => {
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $name;

            impl $name {
                /// The tag text.
                pub const VALUE: &'static str = $lit;
            }

            impl Serialize for $name {
                fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    s.serialize_str($lit)
                }
            }

            impl<'de> Deserialize<'de> for $name {
                fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    struct V;
                    impl Visitor<'_> for V {
                        type Value = $name;
                        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                            f.write_str(concat!("\"", $lit, "\""))
                        }
                        fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                            if s == $lit {
                                Ok($name)
                            } else {
                                Err(E::invalid_value(de::Unexpected::Str(s), &self))
                            }
                        }
                    }
                    d.deserialize_str(V)
                }
            }
        };
    }

    kind_tag!(/// `"kind":"task"`
        Task = "task");
    kind_tag!(/// `"kind":"message"`
        Message = "message");
    kind_tag!(/// `"kind":"status-update"`
        StatusUpdate = "status-update");
    kind_tag!(/// `"kind":"artifact-update"`
        ArtifactUpdate = "artifact-update");
    kind_tag!(/// `"kind":"text"`
        Text = "text");
    kind_tag!(/// `"kind":"file"`
        File = "file");
    kind_tag!(/// `"kind":"data"`
        Data = "data");
}

/// v0.3 task states: lowercase, kebab-case, with `unknown`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub enum TaskState {
    Submitted,
    Working,
    InputRequired,
    Completed,
    Canceled,
    Failed,
    Rejected,
    AuthRequired,
    Unknown,
}

/// v0.3 message roles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum Role {
    User,
    Agent,
}

/// A task (`"kind":"task"`). `contextId` is required in v0.3.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct Task {
    pub id: String,
    pub context_id: String,
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Vec<Artifact>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<Message>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default)]
    pub kind: tag::Task,
}

/// Status of a task. `timestamp` is any ISO 8601 text in v0.3.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TaskStatus {
    pub state: TaskState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// A message (`"kind":"message"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct Message {
    pub message_id: String,
    pub role: Role,
    pub parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_task_ids: Option<Vec<String>>,
    #[serde(default)]
    pub kind: tag::Message,
}

/// A part, discriminated by `kind`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind")]
#[allow(missing_docs)]
pub enum Part {
    #[serde(rename = "text")]
    Text(TextPart),
    #[serde(rename = "file")]
    File(FilePart),
    #[serde(rename = "data")]
    Data(DataPart),
}

impl Serialize for Part {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Each part writes its own `kind`.
        match self {
            Part::Text(p) => p.serialize(s),
            Part::File(p) => p.serialize(s),
            Part::Data(p) => p.serialize(s),
        }
    }
}

/// `{"kind":"text","text":…}`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TextPart {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default)]
    pub kind: tag::Text,
}

/// `{"kind":"file","file":{…}}`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct FilePart {
    pub file: FileContent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default)]
    pub kind: tag::File,
}

/// `{"kind":"data","data":{…}}`: v0.3 data is always a JSON object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct DataPart {
    pub data: JsonObject,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default)]
    pub kind: tag::Data,
}

/// The file of a file part: inline base64 `bytes` or a `uri`, never both.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged, try_from = "RawFile")]
#[allow(missing_docs)]
pub enum FileContent {
    Bytes {
        /// Base64 text, kept as sent; decoded when translated to v1.0.
        bytes: String,
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    Uri {
        uri: String,
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawFile {
    #[serde(default)]
    bytes: Option<String>,
    #[serde(default)]
    uri: Option<String>,
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

impl TryFrom<RawFile> for FileContent {
    type Error = &'static str;
    fn try_from(r: RawFile) -> Result<Self, Self::Error> {
        match (r.bytes, r.uri) {
            (Some(bytes), None) => Ok(FileContent::Bytes { bytes, mime_type: r.mime_type, name: r.name }),
            (None, Some(uri)) => Ok(FileContent::Uri { uri, mime_type: r.mime_type, name: r.name }),
            (Some(_), Some(_)) => Err("a file has both `bytes` and `uri`; exactly one is allowed"),
            (None, None) => Err("a file needs `bytes` or `uri`"),
        }
    }
}

/// An output of a task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct Artifact {
    pub artifact_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
}

/// `"kind":"status-update"`, with the v0.3 `final` flag.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TaskStatusUpdateEvent {
    pub task_id: String,
    pub context_id: String,
    pub status: TaskStatus,
    /// True on the last event of the stream.
    pub r#final: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default)]
    pub kind: tag::StatusUpdate,
}

/// `"kind":"artifact-update"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TaskArtifactUpdateEvent {
    pub task_id: String,
    pub context_id: String,
    pub artifact: Artifact,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_chunk: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default)]
    pub kind: tag::ArtifactUpdate,
}

macro_rules! kind_union {
    ($(#[$doc:meta])* $name:ident { $($variant:ident($ty:ty) = $lit:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Deserialize)]
        #[serde(tag = "kind")]
        #[allow(missing_docs)]
        pub enum $name {
            $(#[serde(rename = $lit)] $variant($ty),)*
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $($name::$variant(v) => v.serialize(s),)*
                }
            }
        }
    };
}

kind_union!(
    /// The `result` of `message/send`: a task or a direct message.
    SendMessageResult { Task(Task) = "task", Message(Message) = "message" }
);

kind_union!(
    /// One `result` of `message/stream` / `tasks/resubscribe`.
    StreamEvent {
        Task(Task) = "task",
        Message(Message) = "message",
        StatusUpdate(TaskStatusUpdateEvent) = "status-update",
        ArtifactUpdate(TaskArtifactUpdateEvent) = "artifact-update",
    }
);

/// `params` of `message/send` and `message/stream`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct MessageSendParams {
    pub message: Message,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<MessageSendConfiguration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

/// v0.3 send configuration: `blocking` (absent = blocking, as the v0.3 SDKs treat it) and
/// `historyLength` (0 = no limit, the opposite of v1.0).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct MessageSendConfiguration {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_output_modes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config: Option<PushNotificationConfig>,
}

/// `params` of `tasks/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TaskQueryParams {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

/// `params` of `tasks/cancel` and `tasks/resubscribe`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TaskIdParams {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

/// A webhook configuration (nested in v0.3; flattened into `TaskPushNotificationConfig` in v1.0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct PushNotificationConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<PushNotificationAuthenticationInfo>,
}

/// v0.3 webhook credentials: a list of schemes (v1.0 has one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct PushNotificationAuthenticationInfo {
    pub schemes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}

/// `params` of `tasks/pushNotificationConfig/set`, and its result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TaskPushNotificationConfig {
    pub task_id: String,
    pub push_notification_config: PushNotificationConfig,
}

/// `params` of `tasks/pushNotificationConfig/get`: `id` is the TASK id; the config id is
/// `pushNotificationConfigId` (optional in v0.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct GetTaskPushNotificationConfigParams {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

/// `params` of `tasks/pushNotificationConfig/list` (`id` is the task id).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct ListTaskPushNotificationConfigParams {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

/// `params` of `tasks/pushNotificationConfig/delete` (`id` is the task id).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct DeleteTaskPushNotificationConfigParams {
    pub id: String,
    pub push_notification_config_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

// ---------------------------------------------------------------- agent card

fn default_protocol_version() -> String {
    String::from("0.3.0")
}
fn default_transport() -> String {
    String::from("JSONRPC")
}

/// A v0.3 Agent Card: one main `url` with its `preferredTransport` (read as `JSONRPC` when
/// absent, always written), `additionalInterfaces`, and one card-level `protocolVersion`
/// (read as `0.3.0` when absent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct AgentCard {
    #[serde(default = "default_protocol_version")]
    pub protocol_version: String,
    pub name: String,
    pub description: String,
    pub url: String,
    #[serde(default = "default_transport")]
    pub preferred_transport: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_interfaces: Option<Vec<AgentInterface>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<AgentProvider>,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
    pub capabilities: AgentCapabilities,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_schemes: Option<BTreeMap<String, SecurityScheme>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<Vec<BTreeMap<String, Vec<String>>>>,
    pub default_input_modes: Vec<String>,
    pub default_output_modes: Vec<String>,
    pub skills: Vec<AgentSkill>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_authenticated_extended_card: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signatures: Option<Vec<AgentCardSignature>>,
}

/// `{url, transport}`; `transport` is an open string (`JSONRPC`, `GRPC`, `HTTP+JSON`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct AgentInterface {
    pub url: String,
    pub transport: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct AgentProvider {
    pub organization: String,
    pub url: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct AgentCapabilities {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notifications: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_transition_history: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<AgentExtension>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct AgentExtension {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<JsonObject>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct AgentSkill {
    pub id: String,
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub examples: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_modes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_modes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<Vec<BTreeMap<String, Vec<String>>>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct AgentCardSignature {
    pub protected: String,
    pub signature: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<JsonObject>,
}

/// v0.3 security schemes: OpenAPI-style objects with a `type` discriminator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all_fields = "camelCase")]
#[allow(missing_docs)]
pub enum SecurityScheme {
    #[serde(rename = "apiKey")]
    ApiKey {
        /// `cookie`, `header` or `query` (v1.0 calls it `location`).
        r#in: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    #[serde(rename = "http")]
    Http {
        scheme: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bearer_format: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    #[serde(rename = "oauth2")]
    OAuth2 {
        flows: OAuthFlows,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        oauth2_metadata_url: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    #[serde(rename = "openIdConnect")]
    OpenIdConnect {
        open_id_connect_url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    #[serde(rename = "mutualTLS")]
    MutualTls {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
}

/// v0.3 OAuth flows: several may be present at once (v1.0 allows one).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct OAuthFlows {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_code: Option<OAuthFlow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_credentials: Option<OAuthFlow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implicit: Option<OAuthFlow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<OAuthFlow>,
}

/// One v0.3 OAuth flow. Which URLs are required depends on the flow (`authorizationCode`:
/// both; `clientCredentials` and `password`: `tokenUrl`; `implicit`: `authorizationUrl`);
/// the translation to v1.0 reports a missing one as a REQUIRED field of the v1.0 message.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct OAuthFlow {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_url: Option<String>,
    pub scopes: BTreeMap<String, String>,
}

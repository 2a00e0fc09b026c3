//! The row encoding the database stores share ([`crate::sqlite`], [`crate::postgres`]): a
//! task is the protobuf encoding of the v1.0 model, its closed artifact ids a JSON array,
//! its push configs one protobuf list plus the protocol version each was set in.

use a2a_wire::engine::{PushConfig, StoreError, StoredTask};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::task::TaskRecord;
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use prost::Message as _;

/// The columns of a task row, in the order [`TaskRow`] holds them.
pub(crate) const TASK_COLUMNS: &str = "id, tenant, owner, task, closed_artifacts, push, push_versions, version, last_event";

/// A timestamp as milliseconds since the epoch (saturating).
pub(crate) fn ms(t: Timestamp) -> i64 {
    t.seconds.saturating_mul(1000).saturating_add(i64::from(t.nanos / 1_000_000))
}

/// The push configs of a task, as one protobuf message plus the versions.
pub(crate) fn encode_push(configs: &[PushConfig]) -> (Vec<u8>, String) {
    let list =
        v1::ListTaskPushNotificationConfigsResponse { configs: configs.iter().map(|p| p.config.clone()).collect(), ..Default::default() };
    let versions = configs.iter().map(|p| p.version.to_string()).collect::<Vec<_>>().join(",");
    (list.encode_to_vec(), versions)
}

fn decode_push(bytes: &[u8], versions: &str) -> Result<Vec<PushConfig>, String> {
    let list = v1::ListTaskPushNotificationConfigsResponse::decode(bytes).map_err(|e| e.to_string())?;
    let versions: Vec<&str> = if versions.is_empty() { Vec::new() } else { versions.split(',').collect() };
    if versions.len() != list.configs.len() {
        return Err(String::from("push config versions do not match the configs"));
    }
    list.configs
        .into_iter()
        .zip(versions)
        .map(|(config, v)| Ok(PushConfig { config, version: ProtocolVersion::parse(v).ok_or_else(|| format!("invalid version {v}"))? }))
        .collect()
}

/// The closed artifact ids of a task as a JSON array.
pub(crate) fn encode_ids(ids: &[String]) -> String {
    // A list of strings always serializes.
    serde_json::to_string(ids).unwrap_or_else(|_| String::from("[]"))
}

fn decode_ids(text: &str) -> Result<Vec<String>, String> {
    serde_json::from_str(text).map_err(|e| format!("closed artifact ids: {e}"))
}

/// A task row as read, in [`TASK_COLUMNS`] order.
pub(crate) struct TaskRow {
    pub id: String,
    pub tenant: String,
    pub owner: Option<String>,
    pub task: Vec<u8>,
    pub closed_artifacts: String,
    pub push: Vec<u8>,
    pub push_versions: String,
    pub version: i64,
    pub last_event: i64,
}

impl TaskRow {
    /// The stored task of a row; a row that does not decode names the task and the column.
    pub(crate) fn decode(self) -> Result<StoredTask, StoreError> {
        let id = self.id;
        let task = v1::Task::decode(self.task.as_slice()).map_err(|e| StoreError(format!("task {id}: {e}")))?;
        let closed_artifacts = decode_ids(&self.closed_artifacts).map_err(|e| StoreError(format!("task {id}: {e}")))?;
        let push_configs = decode_push(&self.push, &self.push_versions).map_err(|e| StoreError(format!("task {id}: {e}")))?;
        Ok(StoredTask {
            record: TaskRecord { task, closed_artifacts },
            tenant: self.tenant,
            owner: self.owner,
            push_configs,
            version: u64::try_from(self.version).unwrap_or(0),
            last_event: u64::try_from(self.last_event).unwrap_or(0),
        })
    }
}

//! A persistent task store on SQLite (rusqlite with its bundled library): tasks with their
//! history, artifacts and push configs, and the message-id index, survive a restart.
//!
//! Reads are served from memory. Changes are collected and written in one transaction by
//! [`TaskStore::flush`], which the server calls before it answers anyone (and dropping the
//! store flushes too); with SQLite in WAL mode a killed process loses nothing it had
//! answered. One transaction per batch of calls instead of one per change is what makes the
//! store fast under load (BENCHMARKS.md). A write that fails (disk full, file removed) is
//! counted and reported by [`SqliteStore::write_errors`]; the in-memory state stays right,
//! answers still go out (durability is lost only while the disk refuses writes), and the
//! collected changes are written again at most once per [`RETRY_AFTER_FAILURE`], so a disk
//! that stays full does not turn every engine turn into a rewrite of the backlog.
//!
//! Rows hold the protobuf encoding of the v1.0 model (compact, and the same bytes the gRPC
//! binding uses). The schema carries a version; a file from a newer schema is refused.
//! Several server instances need a networked store (PostgreSQL) implementing the same trait
//! over a shared database with row versions; this one is for a single process.

use a2a_wire::engine::{MemoryStore, PushConfig, StoredTask, TaskStore};
use a2a_wire::task::TaskRecord;
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use prost::Message as _;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;

const SCHEMA_VERSION: i64 = 1;

/// How long a store whose write failed waits before it writes its changes again.
pub const RETRY_AFTER_FAILURE: std::time::Duration = std::time::Duration::from_secs(1);

/// Why a store could not be opened.
#[derive(Debug)]
pub struct StoreError(String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "task store: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError(e.to_string())
    }
}

/// Tasks in a SQLite file, served from memory.
pub struct SqliteStore {
    db: Connection,
    mem: MemoryStore,
    write_errors: u64,
    /// Tasks changed since the last flush.
    dirty: std::collections::BTreeSet<String>,
    /// Message-index changes since the last flush: the task, or `None` to forget the key.
    messages: std::collections::BTreeMap<String, Option<String>>,
    /// When the last write failed (the next try waits for [`RETRY_AFTER_FAILURE`]).
    failed_at: Option<std::time::Instant>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("tasks", &self.mem.len()).field("write_errors", &self.write_errors).finish()
    }
}

/// The push configs of a task, as one protobuf message plus the versions.
fn encode_push(configs: &[PushConfig]) -> (Vec<u8>, String) {
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

impl SqliteStore {
    /// Opens (or creates) the store in `path` and loads its tasks.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let db = Connection::open(path)?;
        Self::with_connection(db)
    }

    /// A store in memory only (for tests of the SQL path).
    pub fn open_in_memory() -> Result<SqliteStore, StoreError> {
        Self::with_connection(Connection::open_in_memory()?)
    }

    fn with_connection(db: Connection) -> Result<SqliteStore, StoreError> {
        // WAL: readers never block the writer; NORMAL: a commit survives a killed process
        // (an OS crash may lose the last commits, never corrupt the file).
        db.pragma_update(None, "journal_mode", "WAL")?;
        db.pragma_update(None, "synchronous", "NORMAL")?;
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
             CREATE TABLE IF NOT EXISTS tasks (
                 id TEXT PRIMARY KEY,
                 tenant TEXT NOT NULL,
                 owner TEXT,
                 task BLOB NOT NULL,
                 closed_artifacts TEXT NOT NULL,
                 push BLOB NOT NULL,
                 push_versions TEXT NOT NULL
             );
             CREATE TABLE IF NOT EXISTS messages (key TEXT PRIMARY KEY, task_id TEXT NOT NULL);",
        )?;
        let version: Option<i64> = db.query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| r.get(0)).optional()?;
        match version {
            None => {
                db.execute("INSERT INTO meta (key, value) VALUES ('schema', ?1)", params![SCHEMA_VERSION])?;
            }
            Some(v) if v == SCHEMA_VERSION => {}
            Some(v) => return Err(StoreError(format!("the file has schema version {v}; this build reads version {SCHEMA_VERSION}"))),
        }
        let mut mem = MemoryStore::new();
        {
            let mut stmt = db.prepare("SELECT id, tenant, owner, task, closed_artifacts, push, push_versions FROM tasks")?;
            let rows = stmt.query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, Vec<u8>>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Vec<u8>>(5)?,
                    r.get::<_, String>(6)?,
                ))
            })?;
            for row in rows {
                let (id, tenant, owner, task, closed, push, push_versions) = row?;
                let task = v1::Task::decode(task.as_slice()).map_err(|e| StoreError(format!("task {id}: {e}")))?;
                let closed_artifacts = if closed.is_empty() { Vec::new() } else { closed.split('\n').map(String::from).collect() };
                let push_configs = decode_push(&push, &push_versions).map_err(|e| StoreError(format!("task {id}: {e}")))?;
                mem.insert(StoredTask { record: TaskRecord { task, closed_artifacts }, tenant, owner, push_configs });
            }
            let mut stmt = db.prepare("SELECT key, task_id FROM messages")?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
            for row in rows {
                let (key, task_id) = row?;
                mem.remember_message(key, task_id);
            }
        }
        Ok(SqliteStore { db, mem, write_errors: 0, dirty: Default::default(), messages: Default::default(), failed_at: None })
    }

    /// How many writes failed since the store was opened.
    pub fn write_errors(&self) -> u64 {
        self.write_errors
    }

    /// Writes the collected changes in one transaction.
    fn write_pending(&mut self) -> rusqlite::Result<()> {
        let tx = self.db.transaction()?;
        {
            let mut put = tx.prepare_cached(
                "INSERT INTO tasks (id, tenant, owner, task, closed_artifacts, push, push_versions) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT(id) DO UPDATE SET tenant = ?2, owner = ?3, task = ?4, closed_artifacts = ?5, push = ?6, push_versions = ?7",
            )?;
            for id in &self.dirty {
                let Some(t) = self.mem.get(id) else { continue };
                let (push, push_versions) = encode_push(&t.push_configs);
                put.execute(params![
                    id,
                    t.tenant,
                    t.owner,
                    t.record.task.encode_to_vec(),
                    t.record.closed_artifacts.join("\n"),
                    push,
                    push_versions
                ])?;
            }
            let mut remember = tx.prepare_cached("INSERT OR REPLACE INTO messages (key, task_id) VALUES (?1, ?2)")?;
            let mut forget = tx.prepare_cached("DELETE FROM messages WHERE key = ?1")?;
            for (key, task) in &self.messages {
                match task {
                    Some(task_id) => remember.execute(params![key, task_id])?,
                    None => forget.execute(params![key])?,
                };
            }
        }
        tx.commit()
    }

    fn count<T>(&mut self, r: rusqlite::Result<T>) {
        if let Err(e) = r {
            self.write_errors += 1;
            if self.write_errors == 1 || self.write_errors.is_power_of_two() {
                eprintln!("a2a-wire: task store write failed ({} so far): {e}", self.write_errors);
            }
        }
    }
}

impl TaskStore for SqliteStore {
    fn get(&self, id: &str) -> Option<&StoredTask> {
        self.mem.get(id)
    }
    fn get_mut(&mut self, id: &str) -> Option<&mut StoredTask> {
        self.mem.get_mut(id)
    }
    fn insert(&mut self, task: StoredTask) {
        self.dirty.insert(task.record.task.id.clone());
        self.mem.insert(task);
    }
    fn touched(&mut self, id: &str) {
        if !self.dirty.contains(id) {
            self.dirty.insert(String::from(id));
        }
    }
    fn iter(&self) -> Box<dyn Iterator<Item = &StoredTask> + '_> {
        self.mem.iter()
    }
    fn message_task(&self, key: &str) -> Option<&str> {
        self.mem.message_task(key)
    }
    fn remember_message(&mut self, key: String, task_id: String) {
        self.messages.insert(key.clone(), Some(task_id.clone()));
        self.mem.remember_message(key, task_id);
    }
    fn forget_message(&mut self, key: &str) {
        self.messages.insert(String::from(key), None);
        self.mem.forget_message(key);
    }
    fn len(&self) -> usize {
        self.mem.len()
    }
    fn flush(&mut self) {
        if self.failed_at.is_some_and(|t| t.elapsed() < RETRY_AFTER_FAILURE) {
            return;
        }
        self.write_now();
    }
}

impl SqliteStore {
    /// Writes the collected changes now. On failure they stay collected, to be written again.
    fn write_now(&mut self) {
        if self.dirty.is_empty() && self.messages.is_empty() {
            return;
        }
        let r = self.write_pending();
        if r.is_ok() {
            self.dirty.clear();
            self.messages.clear();
            self.failed_at = None;
        } else {
            self.failed_at = Some(std::time::Instant::now());
        }
        self.count(r);
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.write_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(id: &str) -> StoredTask {
        let task = v1::Task {
            id: id.into(),
            context_id: "c".into(),
            status: Some(v1::TaskStatus { state: v1::TaskState::Working as i32, ..Default::default() }),
            artifacts: vec![v1::Artifact { artifact_id: "a".into(), ..Default::default() }],
            ..Default::default()
        };
        let mut push = v1::TaskPushNotificationConfig {
            id: "p".into(),
            task_id: id.into(),
            url: "http://127.0.0.1:1/hook".into(),
            ..Default::default()
        };
        push.token = "tok".into();
        StoredTask {
            record: TaskRecord { task, closed_artifacts: vec!["a".into(), "b".into()] },
            tenant: "t".into(),
            owner: Some("alice".into()),
            push_configs: vec![PushConfig { config: push, version: ProtocolVersion::V0_3 }],
        }
    }

    #[test]
    fn tasks_configs_and_message_ids_come_back_after_reopening() {
        let dir = std::env::temp_dir().join(format!("a2a-wire-store-{}-{}", std::process::id(), line!()));
        let _ = std::fs::remove_file(&dir);
        {
            let mut s = SqliteStore::open(&dir).unwrap();
            s.insert(stored("t1"));
            s.remember_message("k1".into(), "t1".into());
            s.remember_message("k2".into(), "t1".into());
            s.forget_message("k2");
            let t = s.get_mut("t1").unwrap();
            t.record.task.status = Some(v1::TaskStatus { state: v1::TaskState::Completed as i32, ..Default::default() });
            s.touched("t1");
            s.flush();
            assert_eq!(s.write_errors(), 0);
        }
        let s = SqliteStore::open(&dir).unwrap();
        let mut want = stored("t1");
        want.record.task.status = Some(v1::TaskStatus { state: v1::TaskState::Completed as i32, ..Default::default() });
        assert_eq!(s.get("t1"), Some(&want));
        assert_eq!((s.message_task("k1"), s.message_task("k2"), s.len()), (Some("t1"), None, 1));
        drop(s);
        let _ = std::fs::remove_file(&dir);
    }

    #[test]
    fn a_failed_write_is_retried_after_a_pause_and_then_lands() {
        let dir = std::env::temp_dir().join(format!("a2a-wire-store-{}-{}", std::process::id(), line!()));
        let _ = std::fs::remove_file(&dir);
        {
            let mut s = SqliteStore::open(&dir).unwrap();
            s.db.pragma_update(None, "query_only", "ON").unwrap();
            s.insert(stored("t1"));
            s.flush();
            assert_eq!(s.write_errors(), 1);
            // Within the pause the store does not try again.
            s.touched("t1");
            s.flush();
            assert_eq!(s.write_errors(), 1);
            // After it, the collected change is written.
            s.db.pragma_update(None, "query_only", "OFF").unwrap();
            s.failed_at = std::time::Instant::now().checked_sub(RETRY_AFTER_FAILURE);
            s.flush();
            assert_eq!((s.write_errors(), s.dirty.len()), (1, 0));
        }
        let s = SqliteStore::open(&dir).unwrap();
        assert_eq!(s.get("t1"), Some(&stored("t1")));
        drop(s);
        let _ = std::fs::remove_file(&dir);
    }

    #[test]
    fn a_file_from_a_newer_schema_is_refused() {
        let dir = std::env::temp_dir().join(format!("a2a-wire-store-{}-{}", std::process::id(), line!()));
        let _ = std::fs::remove_file(&dir);
        drop(SqliteStore::open(&dir).unwrap());
        Connection::open(&dir).unwrap().execute("UPDATE meta SET value = 99 WHERE key = 'schema'", []).unwrap();
        let e = SqliteStore::open(&dir).unwrap_err();
        assert!(e.to_string().contains("schema version 99"), "{e}");
        let _ = std::fs::remove_file(&dir);
    }
}

//! A persistent task store on SQLite (rusqlite with its bundled library): tasks with their
//! history, artifacts and push configs, and the message-id index, survive a restart.
//!
//! [`SqliteStore`] is the core's [`Persisted`] store (reads from memory, changes collected and
//! written in one batch per flush) over [`SqliteBackend`], which writes each batch in one
//! transaction. The server flushes before it answers anyone (and dropping the store flushes
//! too); with SQLite in WAL mode a killed process loses nothing it had answered. One
//! transaction per batch of calls instead of one per change is what makes the store fast
//! under load (BENCHMARKS.md). A write that fails (disk full, file removed) is reported to the
//! engine, which answers the calls of that batch with an internal error; the changes stay
//! collected and are written again at most once per [`RETRY_AFTER_FAILURE`], so a disk that
//! stays full does not turn every engine turn into a rewrite of the backlog.
//!
//! Commits never wait for the disk (WAL with `synchronous = NORMAL`: a commit appends to the
//! WAL; only a checkpoint, which copies the WAL back into the database, syncs). SQLite's
//! automatic checkpoint runs inside the commit that crosses its threshold, and so on the
//! server's only executor thread: every connection waited for its `fsync` (the 40 ms tail of
//! concurrent SendMessage in BENCHMARKS.md). Here automatic checkpoints are off and a thread
//! of the store's own runs passive checkpoints on a connection of its own, which never block
//! the writer.
//!
//! Rows hold the protobuf encoding of the v1.0 model (compact, and the same bytes the gRPC
//! binding uses); the ids of closed artifacts are a JSON array, so any id survives. The
//! schema carries a version: a version-1 file (artifact ids joined by newlines) is migrated
//! on open, a file from a newer schema is refused. Several server instances need a networked
//! store implementing [`Backend`] over a shared database with row versions; this one is for
//! a single process.

use a2a_wire::engine::{Backend, Batch, Loaded, MessageRecord, Persisted, PushConfig, StoreError, StoredTask, TaskStore};
use a2a_wire::task::TaskRecord;
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire::webhook::{Change, Queued};
use prost::Message as _;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::time::{Duration, Instant};

const SCHEMA_VERSION: i64 = 2;

/// How long a store whose write failed waits before it writes its changes again.
pub const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(1);

fn db_error(e: rusqlite::Error) -> StoreError {
    StoreError(e.to_string())
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

fn encode_ids(ids: &[String]) -> String {
    // A list of strings always serializes.
    serde_json::to_string(ids).unwrap_or_else(|_| String::from("[]"))
}

fn decode_ids(text: &str) -> Result<Vec<String>, String> {
    serde_json::from_str(text).map_err(|e| format!("closed artifact ids: {e}"))
}

/// How often the checkpointer thread copies the WAL back into the database.
pub const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// The thread that checkpoints the WAL off the writer's thread; stopped and joined on drop.
struct Checkpointer {
    stop: std::sync::mpsc::Sender<()>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    fn start(path: &Path) -> Result<Checkpointer, StoreError> {
        let db = Connection::open(path).map_err(db_error)?;
        // A passive checkpoint never waits for the writer; the timeout only covers the brief
        // locks SQLite takes on the WAL index.
        db.busy_timeout(Duration::from_millis(100)).map_err(db_error)?;
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(String::from("a2a-wire-checkpoint"))
            .spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_EVERY) {
                    // A failure (busy, disk) is tried again at the next tick; commits go on.
                    let _ = db.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                }
                let _ = db.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
            })
            .map_err(|e| StoreError(format!("cannot start the checkpoint thread: {e}")))?;
        Ok(Checkpointer { stop, thread: Some(thread) })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        let _ = self.stop.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The SQLite file behind a [`SqliteStore`].
pub struct SqliteBackend {
    db: Connection,
    /// When the last write failed (the next try waits for [`RETRY_AFTER_FAILURE`]).
    failed_at: Option<Instant>,
    /// Checkpoints off this thread (files only; an in-memory database has no WAL).
    checkpointer: Option<Checkpointer>,
}

impl std::fmt::Debug for SqliteBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteBackend")
            .field("path", &self.db.path())
            .field("failed_at", &self.failed_at)
            .field("background_checkpoints", &self.checkpointer.is_some())
            .finish()
    }
}

impl SqliteBackend {
    /// Opens (or creates) the file, creating or migrating the schema.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteBackend, StoreError> {
        let mut backend = Self::with_connection(Connection::open(path.as_ref()).map_err(db_error)?)?;
        backend.db.pragma_update(None, "wal_autocheckpoint", 0).map_err(db_error)?;
        backend.checkpointer = Some(Checkpointer::start(path.as_ref())?);
        Ok(backend)
    }

    /// A database in memory only (for tests of the SQL path).
    pub fn open_in_memory() -> Result<SqliteBackend, StoreError> {
        Self::with_connection(Connection::open_in_memory().map_err(db_error)?)
    }

    fn with_connection(mut db: Connection) -> Result<SqliteBackend, StoreError> {
        // WAL: readers never block the writer; NORMAL: a commit survives a killed process
        // (an OS crash may lose the last commits, never corrupt the file).
        db.pragma_update(None, "journal_mode", "WAL").map_err(db_error)?;
        db.pragma_update(None, "synchronous", "NORMAL").map_err(db_error)?;
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
             CREATE TABLE IF NOT EXISTS webhooks (
                 seq INTEGER PRIMARY KEY,
                 queue TEXT NOT NULL,
                 url TEXT NOT NULL,
                 headers TEXT NOT NULL,
                 body BLOB NOT NULL
             );",
        )
        .map_err(db_error)?;
        let version: Option<i64> =
            db.query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| r.get(0)).optional().map_err(db_error)?;
        match version {
            None => {
                db.execute_batch(
                    "CREATE TABLE messages (key TEXT PRIMARY KEY, task_id TEXT NOT NULL,
                         sent_task_id TEXT NOT NULL DEFAULT '', sent_context_id TEXT NOT NULL DEFAULT '');",
                )
                .map_err(db_error)?;
                db.execute("INSERT INTO meta (key, value) VALUES ('schema', ?1)", params![SCHEMA_VERSION]).map_err(db_error)?;
            }
            Some(1) => migrate_from_1(&mut db)?,
            Some(v) if v == SCHEMA_VERSION => {}
            Some(v) => {
                return Err(StoreError(format!("the file has schema version {v}; this build reads version {SCHEMA_VERSION}")));
            }
        }
        Ok(SqliteBackend { db, failed_at: None, checkpointer: None })
    }

    fn write_batch(&mut self, batch: &Batch<'_>) -> rusqlite::Result<()> {
        let tx = self.db.transaction()?;
        {
            let mut put = tx.prepare_cached(
                "INSERT INTO tasks (id, tenant, owner, task, closed_artifacts, push, push_versions) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT(id) DO UPDATE SET tenant = ?2, owner = ?3, task = ?4, closed_artifacts = ?5, push = ?6, push_versions = ?7",
            )?;
            for t in &batch.tasks {
                let (push, push_versions) = encode_push(&t.push_configs);
                put.execute(params![
                    t.record.task.id,
                    t.tenant,
                    t.owner,
                    t.record.task.encode_to_vec(),
                    encode_ids(&t.record.closed_artifacts),
                    push,
                    push_versions
                ])?;
            }
            let mut remember =
                tx.prepare_cached("INSERT OR REPLACE INTO messages (key, task_id, sent_task_id, sent_context_id) VALUES (?1, ?2, ?3, ?4)")?;
            let mut forget = tx.prepare_cached("DELETE FROM messages WHERE key = ?1")?;
            for (key, record) in &batch.messages {
                match record {
                    Some(r) => remember.execute(params![key, r.task_id, r.sent_task_id, r.sent_context_id])?,
                    None => forget.execute(params![key])?,
                };
            }
            let mut queue =
                tx.prepare_cached("INSERT OR REPLACE INTO webhooks (seq, queue, url, headers, body) VALUES (?1, ?2, ?3, ?4, ?5)")?;
            for q in &batch.webhooks_queued {
                // Numbers beyond SQLite's signed range cannot be made by one store's life; a
                // list of string pairs always serializes.
                let seq = i64::try_from(q.seq).unwrap_or(i64::MAX);
                queue.execute(params![seq, q.queue, q.url, serde_json::to_string(&q.headers).unwrap_or_default(), q.body])?;
            }
            let mut done = tx.prepare_cached("DELETE FROM webhooks WHERE seq = ?1")?;
            for n in &batch.webhooks_done {
                done.execute(params![i64::try_from(*n).unwrap_or(i64::MAX)])?;
            }
        }
        tx.commit()
    }
}

/// Schema 1 joined closed artifact ids with newlines (an id containing one broke the task on
/// reload) and kept no sent ids for messages.
fn migrate_from_1(db: &mut Connection) -> Result<(), StoreError> {
    let tx = db.transaction().map_err(db_error)?;
    {
        let rows: Vec<(String, String)> = {
            let mut stmt = tx.prepare("SELECT id, closed_artifacts FROM tasks").map_err(db_error)?;
            let it = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))).map_err(db_error)?;
            it.collect::<Result<_, _>>().map_err(db_error)?
        };
        let mut update = tx.prepare("UPDATE tasks SET closed_artifacts = ?2 WHERE id = ?1").map_err(db_error)?;
        for (id, joined) in rows {
            let ids: Vec<String> = if joined.is_empty() { Vec::new() } else { joined.split('\n').map(String::from).collect() };
            update.execute(params![id, encode_ids(&ids)]).map_err(db_error)?;
        }
        tx.execute_batch(
            "CREATE TABLE IF NOT EXISTS messages (key TEXT PRIMARY KEY, task_id TEXT NOT NULL);
             ALTER TABLE messages ADD COLUMN sent_task_id TEXT NOT NULL DEFAULT '';
             ALTER TABLE messages ADD COLUMN sent_context_id TEXT NOT NULL DEFAULT '';
             UPDATE meta SET value = 2 WHERE key = 'schema';",
        )
        .map_err(db_error)?;
    }
    tx.commit().map_err(db_error)
}

impl Backend for SqliteBackend {
    fn load(&mut self) -> Result<Loaded, StoreError> {
        let mut loaded = Loaded::default();
        let mut stmt =
            self.db.prepare("SELECT id, tenant, owner, task, closed_artifacts, push, push_versions FROM tasks").map_err(db_error)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, Vec<u8>>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Vec<u8>>(5)?,
                    r.get::<_, String>(6)?,
                ))
            })
            .map_err(db_error)?;
        for row in rows {
            let (id, tenant, owner, task, closed, push, push_versions) = row.map_err(db_error)?;
            let task = v1::Task::decode(task.as_slice()).map_err(|e| StoreError(format!("task {id}: {e}")))?;
            let closed_artifacts = decode_ids(&closed).map_err(|e| StoreError(format!("task {id}: {e}")))?;
            let push_configs = decode_push(&push, &push_versions).map_err(|e| StoreError(format!("task {id}: {e}")))?;
            loaded.tasks.push(StoredTask { record: TaskRecord { task, closed_artifacts }, tenant, owner, push_configs });
        }
        let mut stmt = self.db.prepare("SELECT key, task_id, sent_task_id, sent_context_id FROM messages").map_err(db_error)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, MessageRecord { task_id: r.get(1)?, sent_task_id: r.get(2)?, sent_context_id: r.get(3)? }))
            })
            .map_err(db_error)?;
        for row in rows {
            loaded.messages.push(row.map_err(db_error)?);
        }
        let mut stmt = self.db.prepare("SELECT seq, queue, url, headers, body FROM webhooks ORDER BY seq").map_err(db_error)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?, r.get::<_, Vec<u8>>(4)?))
            })
            .map_err(db_error)?;
        for row in rows {
            let (seq, queue, url, headers, body) = row.map_err(db_error)?;
            let headers: Vec<(String, String)> =
                serde_json::from_str(&headers).map_err(|e| StoreError(format!("webhook delivery {seq}: headers: {e}")))?;
            let seq = u64::try_from(seq).map_err(|_| StoreError(format!("webhook delivery {seq}: a negative number")))?;
            loaded.webhooks.push(Queued { seq, queue, url, headers, body });
        }
        Ok(loaded)
    }

    fn write(&mut self, batch: &Batch<'_>) -> Result<(), StoreError> {
        if let Some(t) = self.failed_at {
            if t.elapsed() < RETRY_AFTER_FAILURE {
                return Err(StoreError(String::from("the last write failed; waiting before the next try")));
            }
        }
        match self.write_batch(batch) {
            Ok(()) => {
                self.failed_at = None;
                Ok(())
            }
            Err(e) => {
                self.failed_at = Some(Instant::now());
                Err(db_error(e))
            }
        }
    }
}

/// Tasks in a SQLite file, served from memory.
pub struct SqliteStore {
    inner: Persisted<SqliteBackend>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("tasks", &self.inner.len()).field("write_errors", &self.inner.write_errors()).finish()
    }
}

impl SqliteStore {
    /// Opens (or creates) the store in `path` and loads its tasks.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        Ok(SqliteStore { inner: Persisted::open(SqliteBackend::open(path)?)? })
    }

    /// A store in memory only (for tests of the SQL path).
    pub fn open_in_memory() -> Result<SqliteStore, StoreError> {
        Ok(SqliteStore { inner: Persisted::open(SqliteBackend::open_in_memory()?)? })
    }

    /// How many flushes failed since the store was opened.
    pub fn write_errors(&self) -> u64 {
        self.inner.write_errors()
    }
}

impl TaskStore for SqliteStore {
    fn get(&self, id: &str) -> Option<&StoredTask> {
        self.inner.get(id)
    }
    fn get_mut(&mut self, id: &str) -> Option<&mut StoredTask> {
        self.inner.get_mut(id)
    }
    fn insert(&mut self, task: StoredTask) {
        self.inner.insert(task)
    }
    fn touched(&mut self, id: &str) {
        self.inner.touched(id)
    }
    fn iter(&self) -> Box<dyn Iterator<Item = &StoredTask> + '_> {
        self.inner.iter()
    }
    fn message(&self, key: &str) -> Option<&MessageRecord> {
        self.inner.message(key)
    }
    fn remember_message(&mut self, key: String, record: MessageRecord) {
        self.inner.remember_message(key, record)
    }
    fn forget_message(&mut self, key: &str) {
        self.inner.forget_message(key)
    }
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn take_webhooks(&mut self) -> Vec<Queued> {
        self.inner.take_webhooks()
    }
    fn webhook_changed(&mut self, change: Change) {
        self.inner.webhook_changed(change);
    }
    fn flush(&mut self) -> Result<(), StoreError> {
        self.inner.flush()
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        // The last chance to write what is collected; a failure here has no one to tell.
        self.inner.backend_mut().failed_at = None;
        let _ = self.inner.flush();
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
            // Artifact ids may hold any character, newlines and commas included.
            record: TaskRecord { task, closed_artifacts: vec!["a".into(), "b\nwith a newline".into(), "c,d".into(), String::new()] },
            tenant: "t".into(),
            owner: Some("alice".into()),
            push_configs: vec![PushConfig { config: push, version: ProtocolVersion::V0_3 }],
        }
    }

    fn temp(line: u32) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("a2a-wire-store-{}-{line}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        p
    }

    #[test]
    fn webhook_deliveries_not_yet_over_come_back_after_reopening() {
        let path = temp(line!());
        let queued = |seq: u64| Queued {
            seq,
            queue: "t1\u{0}p".into(),
            url: "https://r.example/hook".into(),
            headers: vec![("A2A-Notification-Token".into(), format!("tok\"{seq}"))],
            body: format!("{{\"n\":{seq}}}").into_bytes(),
        };
        {
            let mut s = SqliteStore::open(&path).unwrap();
            for n in 1..=3 {
                s.webhook_changed(Change::Queued(queued(n)));
            }
            s.flush().unwrap();
            s.webhook_changed(Change::Done(2));
            s.flush().unwrap();
        }
        let mut s = SqliteStore::open(&path).unwrap();
        assert_eq!(s.take_webhooks(), vec![queued(1), queued(3)]);
        assert!(s.take_webhooks().is_empty());
    }

    #[test]
    fn tasks_configs_and_message_ids_come_back_after_reopening() {
        let path = temp(line!());
        {
            let mut s = SqliteStore::open(&path).unwrap();
            s.insert(stored("t1"));
            let record = MessageRecord { task_id: "t1".into(), sent_task_id: "".into(), sent_context_id: "ctx\nx".into() };
            s.remember_message("k1".into(), record);
            s.remember_message("k2".into(), MessageRecord { task_id: "t1".into(), ..Default::default() });
            s.forget_message("k2");
            let t = s.get_mut("t1").unwrap();
            t.record.task.status = Some(v1::TaskStatus { state: v1::TaskState::Completed as i32, ..Default::default() });
            s.touched("t1");
            s.flush().unwrap();
            assert_eq!(s.write_errors(), 0);
        }
        let s = SqliteStore::open(&path).unwrap();
        let mut want = stored("t1");
        want.record.task.status = Some(v1::TaskStatus { state: v1::TaskState::Completed as i32, ..Default::default() });
        assert_eq!(s.get("t1"), Some(&want), "every artifact id survives, newline and all");
        assert_eq!(s.message("k1").map(|r| r.sent_context_id.as_str()), Some("ctx\nx"));
        assert_eq!((s.message("k2"), s.len()), (None, 1));
        drop(s);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_failed_write_is_reported_retried_after_a_pause_and_then_lands() {
        let path = temp(line!());
        {
            let mut s = SqliteStore::open(&path).unwrap();
            s.inner.backend_mut().db.pragma_update(None, "query_only", "ON").unwrap();
            s.insert(stored("t1"));
            assert!(s.flush().is_err(), "the engine is told");
            assert_eq!(s.write_errors(), 1);
            // Within the pause the store does not touch the file, and says so.
            s.inner.backend_mut().db.pragma_update(None, "query_only", "OFF").unwrap();
            s.touched("t1");
            assert!(s.flush().is_err());
            // After it, the collected change is written.
            s.inner.backend_mut().failed_at = Instant::now().checked_sub(RETRY_AFTER_FAILURE);
            s.flush().unwrap();
            assert!(!s.inner.has_pending());
        }
        let s = SqliteStore::open(&path).unwrap();
        assert_eq!(s.get("t1"), Some(&stored("t1")));
        drop(s);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn the_wal_is_checkpointed_off_the_writers_thread() {
        let path = temp(line!());
        let mut s = SqliteStore::open(&path).unwrap();
        let auto: i64 = s.inner.backend().db.query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0)).unwrap();
        assert_eq!(auto, 0, "no checkpoint inside a commit");
        for i in 0..200 {
            s.insert(stored(&format!("t{i}")));
            s.flush().unwrap();
        }
        // With automatic checkpoints off, the rows reach the database file itself only
        // through the checkpointer thread: the file grows past its empty size.
        let empty = std::fs::metadata(&path).unwrap().len();
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::fs::metadata(&path).unwrap().len() <= empty {
            assert!(Instant::now() < deadline, "the WAL was never checkpointed into the file");
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(s);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_file_from_a_newer_schema_is_refused() {
        let path = temp(line!());
        drop(SqliteStore::open(&path).unwrap());
        Connection::open(&path).unwrap().execute("UPDATE meta SET value = 99 WHERE key = 'schema'", []).unwrap();
        let e = SqliteStore::open(&path).unwrap_err();
        assert!(e.to_string().contains("schema version 99"), "{e}");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_schema_1_file_is_migrated() {
        let path = temp(line!());
        {
            let db = Connection::open(&path).unwrap();
            db.execute_batch(
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
                 INSERT INTO meta VALUES ('schema', 1);
                 CREATE TABLE tasks (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, owner TEXT, task BLOB NOT NULL,
                     closed_artifacts TEXT NOT NULL, push BLOB NOT NULL, push_versions TEXT NOT NULL);
                 CREATE TABLE messages (key TEXT PRIMARY KEY, task_id TEXT NOT NULL);
                 INSERT INTO messages VALUES ('k', 't1');",
            )
            .unwrap();
            let task = v1::Task { id: "t1".into(), ..Default::default() };
            db.execute(
                "INSERT INTO tasks VALUES ('t1', '', NULL, ?1, ?2, ?3, '')",
                params![task.encode_to_vec(), "a\nb", v1::ListTaskPushNotificationConfigsResponse::default().encode_to_vec()],
            )
            .unwrap();
        }
        let s = SqliteStore::open(&path).unwrap();
        assert_eq!(s.get("t1").unwrap().record.closed_artifacts, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(s.message("k").map(|r| r.task_id.as_str()), Some("t1"));
        drop(s);
        let v: i64 = Connection::open(&path).unwrap().query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| r.get(0)).unwrap();
        assert_eq!(v, 2);
        let _ = std::fs::remove_file(&path);
    }
}

//! A persistent task store on SQLite (rusqlite with its bundled library): tasks with their
//! history, artifacts and push configs, the message-id index and the webhook deliveries
//! survive a restart.
//!
//! [`SqliteStore`] answers the service's store requests ([`a2a_wire::engine::external`]) on
//! the store's own thread ([`crate::store`]): the serving thread never waits for the disk.
//! Opening reads nothing but the schema version, so a store of any size opens in the same
//! time; tasks are loaded when a call names them, lists are queries on indexes, and
//! retention deletes in bounded batches.
//!
//! Each write batch is one transaction (one transaction per batch of calls instead of one per
//! change is what makes the store fast under load, BENCHMARKS.md), checked against each
//! task's version: a row whose version is not the one the batch was based on refuses the
//! batch ([`StoreReply::Conflict`]). Commits never wait for the disk (WAL with
//! `synchronous = NORMAL`: a killed process loses nothing it had answered; an OS crash may
//! lose the last commits, never corrupt the file). The WAL stays bounded without stalling
//! commits: a checkpointer thread with its own connection copies committed pages into the
//! database ([`CHECKPOINT_EVERY`] after a commit, a passive checkpoint that never blocks the
//! writer), so the writer starts the WAL over when it finds everything copied. Under writes
//! that never pause the writer may never find that; then its own automatic checkpoint at
//! [`CHECKPOINT_PAGES`] pages finishes the few pages left (the store's thread is the only
//! writer, so it completes) and the WAL starts over. A journal size limit of
//! [`WAL_LIMIT_BYTES`] truncates the file when it starts over.
//!
//! Rows hold the protobuf encoding of the v1.0 model (compact, and the same bytes the gRPC
//! binding uses) plus the columns queries need; the ids of closed artifacts are a JSON array,
//! so any id survives. The schema carries a version and is migrated on open (1, 2 and 3 to 4); a
//! file from a newer schema is refused.

use crate::rows::{encode_ids, encode_push, ms, TaskRow, TASK_COLUMNS};
use a2a_wire::engine::{ListQuery, MessageRecord, StoreError, StoreReply, StoreRequest, StoredTask, WriteBatch};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::v1;
use a2a_wire::webhook::Queued;
use prost::Message as _;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::time::{Duration, Instant};

const SCHEMA_VERSION: i64 = 4;

/// WAL pages after which a commit checkpoints on the writer itself (4 KiB pages: about
/// 16 MiB), when the checkpointer thread has not let the WAL start over before.
pub const CHECKPOINT_PAGES: i64 = 4096;

/// How long after a commit the checkpointer thread copies the WAL into the database (commits
/// in between share one checkpoint).
pub const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);

/// What the WAL file is cut back to after a checkpoint.
pub const WAL_LIMIT_BYTES: i64 = 32 << 20;

/// How long a store whose write failed waits before it writes again.
pub const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(1);

fn db_error(e: rusqlite::Error) -> StoreError {
    StoreError(e.to_string())
}

type RowTuple = (String, String, Option<String>, Vec<u8>, String, Vec<u8>, String, i64, i64);

fn row_task(r: &rusqlite::Row<'_>) -> rusqlite::Result<RowTuple> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?))
}

fn decode_row(row: RowTuple) -> Result<StoredTask, StoreError> {
    let (id, tenant, owner, task, closed_artifacts, push, push_versions, version, last_event) = row;
    TaskRow { id, tenant, owner, task, closed_artifacts, push, push_versions, version, last_event }.decode()
}

/// The list columns of a task: context, state, status timestamp.
fn list_columns(t: &v1::Task) -> (String, i32, Option<i64>, i32) {
    let status = t.status.as_ref();
    let ts = status.and_then(|s| s.timestamp);
    (t.context_id.clone(), status.map_or(0, |s| s.state), ts.map(|t| t.seconds), ts.map_or(0, |t| t.nanos))
}

/// Tasks, message ids and webhook deliveries in a SQLite file.
pub struct SqliteStore {
    db: Connection,
    /// When the last write failed (the next try waits for [`RETRY_AFTER_FAILURE`]).
    failed_at: Option<Instant>,
    writes_failed: u64,
    /// The last list count: its filter, its arguments and the count (cleared by every write).
    count_memo: Option<(String, Vec<rusqlite::types::Value>, i64)>,
    /// Wakes the checkpointer thread after a commit (None: a database in memory). Dropping it
    /// ends the thread; dropping the store waits for that.
    checkpointer: Option<Checkpointer>,
}

/// The checkpointer thread and what wakes it.
struct Checkpointer {
    wake: std::sync::mpsc::SyncSender<()>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        // Closing the channel ends the thread at once (it never sleeps past a close), and
        // the store leaves no thread of its own behind.
        let (tx, _) = std::sync::mpsc::sync_channel(1);
        drop(std::mem::replace(&mut self.wake, tx));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The checkpointer thread: after each wake-up (a commit), waits [`CHECKPOINT_EVERY`] and
/// runs a passive checkpoint on its own connection; ends when the store is dropped. A
/// checkpoint that fails is left to the next one and to the writer's own.
fn spawn_checkpointer(path: &Path) -> Result<Checkpointer, StoreError> {
    use std::sync::mpsc::RecvTimeoutError;
    let db = Connection::open(path).map_err(db_error)?;
    let (tx, rx) = std::sync::mpsc::sync_channel::<()>(1);
    let thread = std::thread::Builder::new()
        .name(String::from("a2a-sqlite-checkpoint"))
        .spawn(move || {
            while rx.recv().is_ok() {
                // Wait CHECKPOINT_EVERY (later commits fold into this round), or until the
                // store is dropped.
                let deadline = Instant::now() + CHECKPOINT_EVERY;
                let mut closed = false;
                loop {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    match rx.recv_timeout(left) {
                        Ok(()) => {}
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => {
                            closed = true;
                            break;
                        }
                    }
                }
                let _ = db.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                if closed {
                    break;
                }
            }
        })
        .map_err(|e| StoreError(format!("the checkpointer thread: {e}")))?;
    Ok(Checkpointer { wake: tx, thread: Some(thread) })
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.db.path()).field("writes_failed", &self.writes_failed).finish()
    }
}

/// A list query as SQL: the filter (for the count) and the page (filter, cursor, order,
/// limit), each with its arguments. The order is that of the indexes: newest status first,
/// then id.
struct ListSql {
    filter: String,
    filter_args: Vec<rusqlite::types::Value>,
    page: String,
    page_args: Vec<rusqlite::types::Value>,
}

impl ListSql {
    fn of(q: &ListQuery) -> ListSql {
        let mut filter = String::from("tenant = ?1");
        let mut args: Vec<rusqlite::types::Value> = vec![q.tenant.clone().into()];
        match &q.scope {
            a2a_wire::engine::OwnerScope::All => {}
            a2a_wire::engine::OwnerScope::UnownedOr(None) => filter.push_str(" AND owner IS NULL"),
            a2a_wire::engine::OwnerScope::UnownedOr(Some(p)) => {
                args.push(p.clone().into());
                filter.push_str(&format!(" AND (owner IS NULL OR owner = ?{})", args.len()));
            }
        }
        if !q.context_id.is_empty() {
            args.push(q.context_id.clone().into());
            filter.push_str(&format!(" AND context_id = ?{}", args.len()));
        }
        if let Some(s) = q.state {
            args.push(i64::from(s as i32).into());
            filter.push_str(&format!(" AND state = ?{}", args.len()));
        }
        if let Some((s, n)) = q.status_after {
            args.push(s.into());
            let a = args.len();
            args.push(i64::from(n).into());
            filter.push_str(&format!(" AND (ts_s > ?{a} OR (ts_s = ?{a} AND ts_n >= ?{}))", args.len()));
        }
        let filter_args = args.clone();
        let mut page_filter = filter.clone();
        if let Some(c) = &q.after {
            // A task without a status timestamp sorts as the oldest (ts_s NULL -> i64::MIN).
            args.push(c.seconds.into());
            let a = args.len();
            args.push(i64::from(c.nanos).into());
            let b = args.len();
            args.push(c.id.clone().into());
            let i = args.len();
            // The first term is a range on the index's first ordered column, so a page starts
            // at the cursor instead of scanning the pages before it.
            page_filter.push_str(&format!(
                " AND IFNULL(ts_s, -9223372036854775808) <= ?{a} AND (IFNULL(ts_s, -9223372036854775808) < ?{a} \
                 OR ts_n < ?{b} OR (ts_n = ?{b} AND id > ?{i}))"
            ));
        }
        args.push(i64::try_from(q.limit).unwrap_or(i64::MAX).into());
        let page = format!(
            "SELECT {TASK_COLUMNS} FROM tasks WHERE {page_filter} \
             ORDER BY IFNULL(ts_s, -9223372036854775808) DESC, ts_n DESC, id ASC LIMIT ?{}",
            args.len()
        );
        ListSql { filter, filter_args, page, page_args: args }
    }
}

impl SqliteStore {
    /// Opens (or creates) the file, creating or migrating the schema. Reads no task.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let mut store = Self::with_connection(Connection::open(path.as_ref()).map_err(db_error)?)?;
        store.checkpointer = Some(spawn_checkpointer(path.as_ref())?);
        store.db.pragma_update(None, "wal_autocheckpoint", CHECKPOINT_PAGES).map_err(db_error)?;
        store.db.pragma_update(None, "journal_size_limit", WAL_LIMIT_BYTES).map_err(db_error)?;
        Ok(store)
    }

    /// A database in memory only (for tests of the SQL path).
    pub fn open_in_memory() -> Result<SqliteStore, StoreError> {
        Self::with_connection(Connection::open_in_memory().map_err(db_error)?)
    }

    /// How many writes failed since the store was opened.
    pub fn write_errors(&self) -> u64 {
        self.writes_failed
    }

    /// How many tasks the file holds.
    pub fn count(&self) -> Result<u64, StoreError> {
        let n: i64 = self.db.query_row("SELECT COUNT(*) FROM tasks", [], |r| r.get(0)).map_err(db_error)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    fn with_connection(mut db: Connection) -> Result<SqliteStore, StoreError> {
        // WAL: readers never block the writer; NORMAL: a commit survives a killed process
        // (an OS crash may lose the last commits, never corrupt the file).
        db.pragma_update(None, "journal_mode", "WAL").map_err(db_error)?;
        db.pragma_update(None, "synchronous", "NORMAL").map_err(db_error)?;
        db.execute_batch("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);").map_err(db_error)?;
        let version: Option<i64> =
            db.query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| r.get(0)).optional().map_err(db_error)?;
        match version {
            None => {
                let tx = db.transaction().map_err(db_error)?;
                tx.execute_batch(SCHEMA_2).map_err(db_error)?;
                migrate_from_2(&tx)?;
                migrate_from_3(&tx)?;
                tx.commit().map_err(db_error)?;
            }
            Some(1) => {
                migrate_from_1(&mut db)?;
                let tx = db.transaction().map_err(db_error)?;
                tx.execute_batch(SCHEMA_2).map_err(db_error)?;
                migrate_from_2(&tx)?;
                migrate_from_3(&tx)?;
                tx.commit().map_err(db_error)?;
            }
            Some(2) => {
                let tx = db.transaction().map_err(db_error)?;
                tx.execute_batch(SCHEMA_2).map_err(db_error)?;
                migrate_from_2(&tx)?;
                migrate_from_3(&tx)?;
                tx.commit().map_err(db_error)?;
            }
            Some(3) => {
                let tx = db.transaction().map_err(db_error)?;
                migrate_from_3(&tx)?;
                tx.commit().map_err(db_error)?;
            }
            Some(v) if v == SCHEMA_VERSION => {}
            Some(v) => {
                return Err(StoreError(format!("the file has schema version {v}; this build reads version {SCHEMA_VERSION}")));
            }
        }
        Ok(SqliteStore { db, failed_at: None, writes_failed: 0, count_memo: None, checkpointer: None })
    }

    fn load(&mut self, ids: &[String], keys: &[String]) -> Result<(Vec<StoredTask>, Vec<(String, MessageRecord)>), StoreError> {
        let mut tasks = Vec::new();
        let mut get = self.db.prepare_cached(&format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = ?1")).map_err(db_error)?;
        for id in ids {
            if let Some(row) = get.query_row(params![id], row_task).optional().map_err(db_error)? {
                tasks.push(decode_row(row)?);
            }
        }
        let mut messages = Vec::new();
        let mut get =
            self.db.prepare_cached("SELECT task_id, sent_task_id, sent_context_id FROM messages WHERE key = ?1").map_err(db_error)?;
        for k in keys {
            let found = get
                .query_row(params![k], |r| Ok(MessageRecord { task_id: r.get(0)?, sent_task_id: r.get(1)?, sent_context_id: r.get(2)? }))
                .optional()
                .map_err(db_error)?;
            if let Some(r) = found {
                messages.push((k.clone(), r));
            }
        }
        Ok((tasks, messages))
    }

    fn list(&mut self, q: &ListQuery) -> Result<(Vec<StoredTask>, usize), StoreError> {
        let sql = ListSql::of(q);
        // Counted once per filter until the next write: paging through a large store must
        // not count it again for every page.
        let total = match &self.count_memo {
            Some((f, a, n)) if *f == sql.filter && *a == sql.filter_args => *n,
            _ => {
                let n: i64 = self
                    .db
                    .prepare_cached(&format!("SELECT COUNT(*) FROM tasks WHERE {}", sql.filter))
                    .and_then(|mut st| st.query_row(rusqlite::params_from_iter(sql.filter_args.iter()), |r| r.get(0)))
                    .map_err(db_error)?;
                self.count_memo = Some((sql.filter.clone(), sql.filter_args.clone(), n));
                n
            }
        };
        let mut st = self.db.prepare_cached(&sql.page).map_err(db_error)?;
        let rows = st.query_map(rusqlite::params_from_iter(sql.page_args.iter()), row_task).map_err(db_error)?;
        let mut tasks = Vec::new();
        for row in rows {
            tasks.push(decode_row(row.map_err(db_error)?)?);
        }
        Ok((tasks, usize::try_from(total).unwrap_or(0)))
    }

    /// Wakes the checkpointer after a commit.
    fn committed(&self) {
        if let Some(c) = &self.checkpointer {
            // Full: a wake-up is already pending, which covers this commit too.
            let _ = c.wake.try_send(());
        }
    }

    /// Writes the batch in one transaction; `Ok(Err(ids))` when versions do not match.
    fn write(&mut self, batch: &WriteBatch) -> Result<Result<(), Vec<String>>, StoreError> {
        if let Some(t) = self.failed_at {
            if t.elapsed() < RETRY_AFTER_FAILURE {
                return Err(StoreError(String::from("the last write failed; waiting before the next try")));
            }
        }
        match self.write_batch(batch) {
            Ok(r) => {
                self.failed_at = None;
                Ok(r)
            }
            Err(e) => {
                self.failed_at = Some(Instant::now());
                self.writes_failed += 1;
                Err(db_error(e))
            }
        }
    }

    fn write_batch(&mut self, batch: &WriteBatch) -> rusqlite::Result<Result<(), Vec<String>>> {
        self.count_memo = None;
        let tx = self.db.transaction()?;
        let updated = ms(batch.at);
        {
            let mut version = tx.prepare_cached("SELECT version FROM tasks WHERE id = ?1")?;
            let mut stale = Vec::new();
            for w in &batch.tasks {
                let stored: Option<i64> = version.query_row(params![w.task.record.task.id], |r| r.get(0)).optional()?;
                let stored = stored.map_or(0, |v| u64::try_from(v).unwrap_or(u64::MAX));
                if stored != w.base {
                    stale.push(w.task.record.task.id.clone());
                }
            }
            if !stale.is_empty() {
                return Ok(Err(stale));
            }
            let mut put = tx.prepare_cached(
                "INSERT INTO tasks (id, tenant, owner, task, closed_artifacts, push, push_versions, version,
                                    context_id, state, ts_s, ts_n, updated_ms, terminal, last_event)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
                 ON CONFLICT(id) DO UPDATE SET tenant = ?2, owner = ?3, task = ?4, closed_artifacts = ?5, push = ?6,
                     push_versions = ?7, version = ?8, context_id = ?9, state = ?10, ts_s = ?11, ts_n = ?12,
                     updated_ms = ?13, terminal = ?14, last_event = ?15",
            )?;
            for w in &batch.tasks {
                let t = &w.task;
                let (push, push_versions) = encode_push(&t.push_configs);
                let (context_id, state, ts_s, ts_n) = list_columns(&t.record.task);
                put.execute(params![
                    t.record.task.id,
                    t.tenant,
                    t.owner,
                    t.record.task.encode_to_vec(),
                    encode_ids(&t.record.closed_artifacts),
                    push,
                    push_versions,
                    i64::try_from(t.version).unwrap_or(i64::MAX),
                    context_id,
                    state,
                    ts_s,
                    ts_n,
                    updated,
                    w.terminal,
                    i64::try_from(t.last_event).unwrap_or(i64::MAX)
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
        tx.commit()?;
        self.committed();
        Ok(Ok(()))
    }

    fn expire(&mut self, before: Timestamp, limit: usize) -> Result<Vec<String>, StoreError> {
        self.count_memo = None;
        let tx = self.db.transaction().map_err(db_error)?;
        let ids: Vec<String> = {
            let mut st = tx
                .prepare_cached("SELECT id FROM tasks WHERE terminal = 1 AND updated_ms < ?1 ORDER BY updated_ms LIMIT ?2")
                .map_err(db_error)?;
            let rows = st.query_map(params![ms(before), i64::try_from(limit).unwrap_or(i64::MAX)], |r| r.get(0)).map_err(db_error)?;
            rows.collect::<Result<_, _>>().map_err(db_error)?
        };
        {
            let mut del = tx.prepare_cached("DELETE FROM tasks WHERE id = ?1").map_err(db_error)?;
            let mut del_messages = tx.prepare_cached("DELETE FROM messages WHERE task_id = ?1").map_err(db_error)?;
            let mut del_webhooks = tx.prepare_cached("DELETE FROM webhooks WHERE queue >= ?1 AND queue < ?2").map_err(db_error)?;
            for id in &ids {
                del.execute(params![id]).map_err(db_error)?;
                del_messages.execute(params![id]).map_err(db_error)?;
                // Webhook queues are named "task\0config".
                del_webhooks.execute(params![format!("{id}\u{0}"), format!("{id}\u{1}")]).map_err(db_error)?;
            }
        }
        tx.commit().map_err(db_error)?;
        self.committed();
        Ok(ids)
    }

    fn open_store(&mut self) -> Result<(Vec<StoredTask>, Vec<Queued>), StoreError> {
        let mut unfinished = Vec::new();
        {
            let mut st = self.db.prepare(&format!("SELECT {TASK_COLUMNS} FROM tasks WHERE state IN (?1, ?2)")).map_err(db_error)?;
            let rows = st.query_map(params![v1::TaskState::Submitted as i32, v1::TaskState::Working as i32], row_task).map_err(db_error)?;
            for row in rows {
                unfinished.push(decode_row(row.map_err(db_error)?)?);
            }
        }
        let mut webhooks = Vec::new();
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
            webhooks.push(Queued { seq, queue, url, headers, body });
        }
        Ok((unfinished, webhooks))
    }
}

impl crate::store::ExternalStore for SqliteStore {
    fn answer(&mut self, request: StoreRequest) -> StoreReply {
        let id = request.id();
        let result = match request {
            StoreRequest::Open { id } => self.open_store().map(|(unfinished, webhooks)| StoreReply::Opened { id, unfinished, webhooks }),
            StoreRequest::Load { id, tasks, messages } => {
                self.load(&tasks, &messages).map(|(tasks, messages)| StoreReply::Loaded { id, tasks, messages })
            }
            StoreRequest::List { id, query } => self.list(&query).map(|(tasks, total)| StoreReply::Listed { id, tasks, total }),
            StoreRequest::Write { id, batch } => self.write(&batch).map(|r| match r {
                Ok(()) => StoreReply::Written { id },
                Err(tasks) => StoreReply::Conflict { id, tasks },
            }),
            StoreRequest::Expire { id, before, limit } => self.expire(before, limit).map(|tasks| StoreReply::Expired { id, tasks }),
            // This store keeps no events (one server: its log holds them): the task alone.
            StoreRequest::Events { id, task, .. } => {
                self.load(&[task], &[]).map(|(mut tasks, _)| StoreReply::Events { id, task: tasks.pop(), events: Vec::new() })
            }
            _ => Err(StoreError(String::from("a request this store does not know"))),
        };
        result.unwrap_or_else(|error| StoreReply::Failed { id, error })
    }
}

/// Schema 2, as it was (a new file is made by migrating it).
const SCHEMA_2: &str = "CREATE TABLE IF NOT EXISTS tasks (
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
     );
     CREATE TABLE IF NOT EXISTS messages (key TEXT PRIMARY KEY, task_id TEXT NOT NULL,
         sent_task_id TEXT NOT NULL DEFAULT '', sent_context_id TEXT NOT NULL DEFAULT '');
     INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', 2);";

/// Schema 3 adds a version per task and the columns lists and retention query (context,
/// state, status timestamp, last write, terminal), with their indexes; existing rows get
/// version 1 and their columns from their task.
fn migrate_from_2(tx: &rusqlite::Transaction<'_>) -> Result<(), StoreError> {
    tx.execute_batch(
        "ALTER TABLE tasks ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
         ALTER TABLE tasks ADD COLUMN context_id TEXT NOT NULL DEFAULT '';
         ALTER TABLE tasks ADD COLUMN state INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE tasks ADD COLUMN ts_s INTEGER;
         ALTER TABLE tasks ADD COLUMN ts_n INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE tasks ADD COLUMN updated_ms INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE tasks ADD COLUMN terminal INTEGER NOT NULL DEFAULT 0;",
    )
    .map_err(db_error)?;
    let rows: Vec<(String, Vec<u8>)> = {
        let mut st = tx.prepare("SELECT id, task FROM tasks").map_err(db_error)?;
        let it = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(db_error)?;
        it.collect::<Result<_, _>>().map_err(db_error)?
    };
    {
        let mut update = tx
            .prepare("UPDATE tasks SET context_id = ?2, state = ?3, ts_s = ?4, ts_n = ?5, updated_ms = ?6, terminal = ?7 WHERE id = ?1")
            .map_err(db_error)?;
        for (id, bytes) in rows {
            let task = v1::Task::decode(bytes.as_slice()).map_err(|e| StoreError(format!("task {id}: {e}")))?;
            let (context_id, state, ts_s, ts_n) = list_columns(&task);
            let terminal =
                v1::TaskState::try_from(state).is_ok_and(|s| matches!(a2a_wire::task::class(s), a2a_wire::task::StateClass::Terminal));
            // The last write of an old row is unknown: its status time, else now.
            let updated = ts_s.map_or_else(|| ms(now()), |s| s.saturating_mul(1000));
            update.execute(params![id, context_id, state, ts_s, ts_n, updated, terminal]).map_err(db_error)?;
        }
    }
    tx.execute_batch(
        "CREATE INDEX IF NOT EXISTS tasks_list ON tasks (tenant, IFNULL(ts_s, -9223372036854775808) DESC, ts_n DESC, id);
         CREATE INDEX IF NOT EXISTS tasks_context ON tasks (tenant, context_id, IFNULL(ts_s, -9223372036854775808) DESC, ts_n DESC, id);
         CREATE INDEX IF NOT EXISTS tasks_expiry ON tasks (terminal, updated_ms);
         CREATE INDEX IF NOT EXISTS tasks_state ON tasks (state, tenant, IFNULL(ts_s, -9223372036854775808) DESC, ts_n DESC, id);
         CREATE INDEX IF NOT EXISTS messages_task ON messages (task_id);
         UPDATE meta SET value = 3 WHERE key = 'schema';",
    )
    .map_err(db_error)
}

/// Schema 4 keeps the number of each task's last event (existing rows: 0).
fn migrate_from_3(tx: &rusqlite::Transaction<'_>) -> Result<(), StoreError> {
    tx.execute_batch(
        "ALTER TABLE tasks ADD COLUMN last_event INTEGER NOT NULL DEFAULT 0;
         UPDATE meta SET value = 4 WHERE key = 'schema';",
    )
    .map_err(db_error)
}

fn now() -> Timestamp {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    Timestamp { seconds: i64::try_from(d.as_secs()).unwrap_or(i64::MAX), nanos: i32::try_from(d.subsec_nanos()).unwrap_or(0) }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ExternalStore as _;
    use a2a_wire::engine::{ListCursor, OwnerScope, PushConfig, StoreRequestId, TaskWrite};
    use a2a_wire::task::TaskRecord;
    use a2a_wire::version::ProtocolVersion;

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
            version: 1,
            last_event: 0,
        }
    }

    fn temp(line: u32) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("a2a-wire-store-{}-{line}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        p
    }

    fn at(seconds: i64) -> Timestamp {
        Timestamp { seconds, nanos: 0 }
    }

    fn write(s: &mut SqliteStore, batch: WriteBatch) -> StoreReply {
        s.answer(StoreRequest::Write { id: StoreRequestId(1), batch })
    }

    fn put(task: StoredTask, base: u64) -> WriteBatch {
        let terminal = matches!(task.record.state(), Some(v1::TaskState::Completed));
        WriteBatch { at: at(1000), tasks: vec![TaskWrite { task, base, terminal, leased: false }], ..Default::default() }
    }

    fn load(s: &mut SqliteStore, ids: &[&str], keys: &[&str]) -> (Vec<StoredTask>, Vec<(String, MessageRecord)>) {
        let req = StoreRequest::Load {
            id: StoreRequestId(2),
            tasks: ids.iter().map(|i| i.to_string()).collect(),
            messages: keys.iter().map(|i| i.to_string()).collect(),
        };
        match s.answer(req) {
            StoreReply::Loaded { tasks, messages, .. } => (tasks, messages),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn tasks_configs_and_message_ids_come_back_after_reopening() {
        let path = temp(line!());
        {
            let mut s = SqliteStore::open(&path).unwrap();
            let mut batch = put(stored("t1"), 0);
            let record = MessageRecord { task_id: "t1".into(), sent_task_id: "".into(), sent_context_id: "ctx\nx".into() };
            batch.messages = vec![("k1".into(), Some(record)), ("k2".into(), None)];
            assert!(matches!(write(&mut s, batch), StoreReply::Written { .. }));
        }
        let mut s = SqliteStore::open(&path).unwrap();
        let (tasks, messages) = load(&mut s, &["t1", "nope"], &["k1", "k2"]);
        assert_eq!(tasks, vec![stored("t1")], "every artifact id survives, newline and all");
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].1.sent_context_id, "ctx\nx");
        assert_eq!(s.count().unwrap(), 1);
        drop(s);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_write_based_on_another_version_is_refused_whole() {
        let mut s = SqliteStore::open_in_memory().unwrap();
        assert!(matches!(write(&mut s, put(stored("t1"), 0)), StoreReply::Written { .. }));
        // A second creation of the same id, and a change based on version 5: both refused,
        // with a valid change next to them.
        let mut batch = put(stored("t1"), 0);
        let mut t2 = stored("t2");
        t2.version = 1;
        batch.tasks.push(TaskWrite { task: t2, base: 0, terminal: false, leased: false });
        match write(&mut s, batch) {
            StoreReply::Conflict { tasks, .. } => assert_eq!(tasks, vec!["t1".to_string()]),
            other => panic!("{other:?}"),
        }
        assert!(load(&mut s, &["t2"], &[]).0.is_empty(), "nothing of a refused batch is written");
        let mut next = stored("t1");
        next.version = 2;
        assert!(matches!(write(&mut s, put(next, 1)), StoreReply::Written { .. }));
        assert_eq!(load(&mut s, &["t1"], &[]).0[0].version, 2);
    }

    #[test]
    fn lists_are_answered_by_the_query_with_filters_order_and_cursor() {
        let mut s = SqliteStore::open_in_memory().unwrap();
        for i in 0..30i64 {
            let mut t = stored(&format!("t{i:02}"));
            t.owner = if i % 3 == 0 { None } else { Some("alice".into()) };
            t.record.task.context_id = if i % 2 == 0 { "even".into() } else { "odd".into() };
            t.record.task.status = Some(v1::TaskStatus {
                state: v1::TaskState::Working as i32,
                // Pairs share a timestamp: the id breaks the tie.
                timestamp: Some(at(100 + i / 2)),
                ..Default::default()
            });
            assert!(matches!(write(&mut s, put(t, 0)), StoreReply::Written { .. }));
        }
        let query = |after: Option<ListCursor>| ListQuery {
            tenant: "t".into(),
            scope: OwnerScope::UnownedOr(Some("alice".into())),
            context_id: "even".into(),
            state: Some(v1::TaskState::Working),
            status_after: Some((103, 0)),
            after,
            limit: 4,
        };
        let mut seen = Vec::new();
        let mut after = None;
        loop {
            let StoreReply::Listed { tasks, total, .. } = s.answer(StoreRequest::List { id: StoreRequestId(3), query: query(after) })
            else {
                panic!()
            };
            assert_eq!(total, 12, "even contexts from t06 up");
            seen.extend(tasks.iter().map(|t| t.record.task.id.clone()));
            match tasks.last() {
                Some(last) if tasks.len() == 4 => {
                    let ts = last.record.task.status.as_ref().unwrap().timestamp.unwrap();
                    after = Some(ListCursor { seconds: ts.seconds, nanos: ts.nanos, id: last.record.task.id.clone() });
                }
                _ => break,
            }
        }
        let want: Vec<String> = (6..30).rev().filter(|i| i % 2 == 0).map(|i| format!("t{i:02}")).collect();
        assert_eq!(seen, want);
        // Another principal sees only the tasks created without one.
        let mut q = query(None);
        q.scope = OwnerScope::UnownedOr(Some("bob".into()));
        q.limit = 100;
        let StoreReply::Listed { tasks, .. } = s.answer(StoreRequest::List { id: StoreRequestId(4), query: q }) else { panic!() };
        assert!(tasks.iter().all(|t| t.owner.is_none()) && !tasks.is_empty());
    }

    #[test]
    fn list_pages_walk_an_index_in_order_from_the_cursor() {
        let s = SqliteStore::open_in_memory().unwrap();
        let cursor = Some(ListCursor { seconds: 100, nanos: 5, id: "t".into() });
        let base = ListQuery {
            tenant: String::new(),
            scope: OwnerScope::All,
            context_id: String::new(),
            state: None,
            status_after: None,
            after: cursor,
            limit: 101,
        };
        let by_state = ListQuery { state: Some(v1::TaskState::Completed), ..base.clone() };
        let by_context = ListQuery { context_id: "c".into(), ..base.clone() };
        for (what, q, index) in
            [("no filter", base, "tasks_list"), ("state", by_state, "tasks_state"), ("context", by_context, "tasks_context")]
        {
            let sql = ListSql::of(&q);
            let mut st = s.db.prepare(&format!("EXPLAIN QUERY PLAN {}", sql.page)).unwrap();
            let plan: Vec<String> = st
                .query_map(rusqlite::params_from_iter(sql.page_args.iter()), |r| r.get::<_, String>(3))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            let plan = plan.join("; ");
            assert!(plan.contains(&format!("USING INDEX {index}")), "{what}: {plan}");
            assert!(!plan.contains("TEMP B-TREE"), "{what}: no sort of the matches for each page: {plan}");
            assert!(plan.contains('<'), "{what}: the page starts at the cursor (a range on the index): {plan}");
        }
    }

    #[test]
    fn expire_deletes_old_terminal_tasks_in_bounded_batches_and_nothing_else() {
        let mut s = SqliteStore::open_in_memory().unwrap();
        for i in 0..5 {
            let mut t = stored(&format!("done{i}"));
            t.record.task.status = Some(v1::TaskStatus { state: v1::TaskState::Completed as i32, ..Default::default() });
            let mut b = put(t, 0);
            b.messages = vec![(format!("k{i}"), Some(MessageRecord { task_id: format!("done{i}"), ..Default::default() }))];
            write(&mut s, b);
        }
        write(&mut s, put(stored("working"), 0));
        let expire =
            |s: &mut SqliteStore, before: i64| match s.answer(StoreRequest::Expire { id: StoreRequestId(5), before: at(before), limit: 3 })
            {
                StoreReply::Expired { tasks, .. } => tasks.len(),
                other => panic!("{other:?}"),
            };
        assert_eq!(expire(&mut s, 999), 0, "nothing older than its last write");
        assert_eq!(expire(&mut s, 2000), 3, "a bounded batch");
        assert_eq!(expire(&mut s, 2000), 2);
        assert_eq!(expire(&mut s, 2000), 0);
        assert_eq!(s.count().unwrap(), 1, "the working task stays");
        assert!(load(&mut s, &[], &["k0", "k4"]).1.is_empty(), "their message ids go with them");
    }

    #[test]
    fn webhook_deliveries_not_yet_over_and_unfinished_tasks_come_back_on_open() {
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
            let mut b = put(stored("t1"), 0);
            b.webhooks_queued = (1..=3).map(queued).collect();
            write(&mut s, b);
            write(&mut s, WriteBatch { webhooks_done: vec![2], ..Default::default() });
        }
        let mut s = SqliteStore::open(&path).unwrap();
        match s.answer(StoreRequest::Open { id: StoreRequestId(6) }) {
            StoreReply::Opened { unfinished, webhooks, .. } => {
                assert_eq!(webhooks, vec![queued(1), queued(3)]);
                assert_eq!(unfinished.iter().map(|t| t.record.task.id.as_str()).collect::<Vec<_>>(), ["t1"]);
            }
            other => panic!("{other:?}"),
        }
        drop(s);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_failed_write_is_reported_and_retried_after_a_pause() {
        let mut s = SqliteStore::open_in_memory().unwrap();
        s.db.pragma_update(None, "query_only", "ON").unwrap();
        assert!(matches!(write(&mut s, put(stored("t1"), 0)), StoreReply::Failed { .. }));
        assert_eq!(s.write_errors(), 1);
        s.db.pragma_update(None, "query_only", "OFF").unwrap();
        // Within the pause the store does not touch the file, and says so.
        assert!(matches!(write(&mut s, put(stored("t1"), 0)), StoreReply::Failed { .. }));
        s.failed_at = Instant::now().checked_sub(RETRY_AFTER_FAILURE);
        assert!(matches!(write(&mut s, put(stored("t1"), 0)), StoreReply::Written { .. }));
    }

    /// Frames in the WAL (from another connection, whose passive checkpoint reports them).
    fn wal_frames(path: &Path) -> i64 {
        let db = Connection::open(path).unwrap();
        db.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1)).unwrap()
    }

    /// Frames in the WAL after 300 writes, a pause and one more write.
    fn frames_after_a_pause(with_checkpointer: bool) -> i64 {
        let path = temp(line!() + u32::from(with_checkpointer));
        let mut s = SqliteStore::open(&path).unwrap();
        if !with_checkpointer {
            s.checkpointer = None;
        }
        for i in 0..300 {
            assert!(matches!(write(&mut s, put(stored(&format!("t{i}")), 0)), StoreReply::Written { .. }));
        }
        std::thread::sleep(CHECKPOINT_EVERY * 4);
        assert!(matches!(write(&mut s, put(stored("last"), 0)), StoreReply::Written { .. }));
        let frames = wal_frames(&path);
        drop(s);
        let _ = std::fs::remove_file(&path);
        frames
    }

    #[test]
    fn the_checkpointer_thread_lets_the_wal_start_over_without_the_writer_checkpointing() {
        // Far fewer frames than the writer's own checkpoint waits for.
        let without = frames_after_a_pause(false);
        assert!(without > 300 && without < CHECKPOINT_PAGES, "{without} frames");
        let with = frames_after_a_pause(true);
        assert!(with < 50, "the WAL started over: {with} frames (without the thread: {without})");
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
            let task = v1::Task {
                id: "t1".into(),
                context_id: "c1".into(),
                status: Some(v1::TaskStatus { state: v1::TaskState::Completed as i32, timestamp: Some(at(50)), ..Default::default() }),
                ..Default::default()
            };
            db.execute(
                "INSERT INTO tasks VALUES ('t1', '', NULL, ?1, ?2, ?3, '')",
                params![task.encode_to_vec(), "a\nb", v1::ListTaskPushNotificationConfigsResponse::default().encode_to_vec()],
            )
            .unwrap();
        }
        let mut s = SqliteStore::open(&path).unwrap();
        let (tasks, messages) = load(&mut s, &["t1"], &["k"]);
        assert_eq!(tasks[0].record.closed_artifacts, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(tasks[0].version, 1, "an old row is version 1");
        assert_eq!(messages[0].1.task_id, "t1");
        // Its list columns come from the task.
        let q = ListQuery {
            tenant: String::new(),
            scope: OwnerScope::All,
            context_id: "c1".into(),
            state: Some(v1::TaskState::Completed),
            status_after: None,
            after: None,
            limit: 10,
        };
        assert!(matches!(s.answer(StoreRequest::List { id: StoreRequestId(7), query: q }), StoreReply::Listed { total: 1, .. }));
        drop(s);
        let v: i64 = Connection::open(&path).unwrap().query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| r.get(0)).unwrap();
        assert_eq!(v, 4);
        assert_eq!(tasks[0].last_event, 0, "an old row has numbered no event");
        let _ = std::fs::remove_file(&path);
    }
}

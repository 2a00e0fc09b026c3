//! The task store in PostgreSQL (`a2a-wire serve --store postgres://USER[:PASS]@HOST:PORT/DB`).
//!
//! The same store as [`crate::sqlite`], on a database server: it answers the engine's store
//! requests ([`StoreRequest`]) on the store's thread, each with the pool's connections
//! (sqlx on smol: no tokio runtime). The tables are created and migrated at open under a
//! transaction-scoped advisory lock, so several servers may start on one database at once.
//!
//! Versioned writes: a batch is one transaction; a task written with base version 0 is
//! inserted only if no row of that id exists, any other is updated only where the row still
//! has the base version. A row that is not as the batch expected refuses the whole batch
//! ([`StoreReply::Conflict`], the transaction rolled back), so a write based on a stale copy
//! is never applied, even when another server changed the task meanwhile: the engine then
//! answers the calls of that batch with an error and drops its copy of the task, which it
//! loads again on the next call that names it.
//!
//! Strings from peers (ids, tenants, context ids, principals, message keys, webhook queue
//! names) are stored as `BYTEA`: PostgreSQL's `TEXT` cannot hold U+0000 and compares by
//! collation, where the engine compares bytes.
//!
//! Events between servers: every event is written with its number in its task's sequence
//! (`a2a_events`, the last [`a2a_wire::engine::WriteBatch::keep_events`] of each task) in the
//! transaction that writes the task, and the transaction sends `NOTIFY a2a_tasks` with the
//! task's new version. Each server LISTENs on a connection of its own
//! ([`crate::store::ExternalStore::listen`]) and hands the notices to its engine, which reads
//! the new events back from the table for the subscribers it serves. Event ids carry the
//! database's epoch (drawn once, kept in `a2a_meta`), so an id means the same on every server
//! and after restarts. A lost notice connection is re-established with backoff and followed
//! by a resync (every copy treated as changed).
//!
//! Leases for running work (with [`a2a_wire::engine::EngineConfig::lease`], which the server
//! sets for this store): the server running a task holds its lease (`lease_owner`,
//! `lease_until`), taken with the write that records the run and renewed by the engine; a
//! task whose lease ran out (its server died or stalled) is claimed by another server with
//! `FOR UPDATE SKIP LOCKED` (each by one server), its version raised so the old server's
//! writes are refused, and its run resumed there. Lease times are the servers' clocks: keep
//! them in step (NTP), and make the lease far longer than their skew.

use crate::rows::{encode_ids, encode_push, ms, TaskRow, TASK_COLUMNS};
use a2a_wire::engine::{ListQuery, MessageRecord, OwnerScope, StoreError, StoreReply, StoreRequest, StoredTask, WriteBatch};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::v1;
use a2a_wire::webhook::Queued;
use prost::Message as _;
use sqlx::postgres::{PgArguments, PgPool, PgPoolOptions, PgRow};
use sqlx::query::Query;
use sqlx::{AssertSqlSafe, Postgres, Row};
use std::time::{Duration, Instant};

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 2;

/// Connections of the pool (the store's thread uses one at a time; more let a dropped one
/// be replaced while others serve).
pub const POOL_SIZE: u32 = 4;

/// How long a request waits for a connection (the database unreachable: the request fails
/// after this, and the calls that needed it with it).
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// While the database is unreachable: how often a request tries it (the others fail at
/// once), and how long that try waits.
pub const PROBE_EVERY: Duration = Duration::from_millis(500);
/// See [`PROBE_EVERY`].
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

/// How long a store whose write failed waits before it writes again.
pub const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(1);

/// The advisory lock key the schema is created under (any fixed number; "a2aw").
const SCHEMA_LOCK: i64 = 0x6132_6177;

/// The channel of change notices; a payload is `{version}:{task id in hex}`.
pub const NOTICE_CHANNEL: &str = "a2a_tasks";

/// The longest wait between tries to reconnect the notice connection.
const NOTICE_BACKOFF_MAX: Duration = Duration::from_secs(5);

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A notice payload: the version and the task id.
fn parse_notice(payload: &str) -> Option<(u64, String)> {
    let (version, id) = payload.split_once(':')?;
    if id.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..id.len()).step_by(2).map(|i| u8::from_str_radix(id.get(i..i + 2)?, 16).ok()).collect();
    Some((version.parse().ok()?, String::from_utf8(bytes?).ok()?))
}

/// True for a store setting that names a PostgreSQL database.
pub fn is_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

fn db_error(e: sqlx::Error) -> StoreError {
    if unreachable(&e) {
        return StoreError::unreachable(format!("postgres: {e}"));
    }
    StoreError(format!("postgres: {e}"))
}

/// Whether `e` says the database could not be reached: the connection failed, timed out or
/// was closed, or the server is shutting down or starting (SQLSTATE class 08, 57P01..57P03).
fn unreachable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Tls(_) => true,
        sqlx::Error::Database(d) => d.code().is_some_and(|c| c.starts_with("08") || matches!(&*c, "57P01" | "57P02" | "57P03")),
        _ => false,
    }
}

/// The sort key of a task in lists (newest status first; none sorts as the oldest).
fn list_key(t: &v1::Task) -> (i64, i32) {
    t.status.as_ref().and_then(|s| s.timestamp).map_or((i64::MIN, 0), |ts| (ts.seconds, ts.nanos))
}

fn text(bytes: Vec<u8>, what: &str) -> Result<String, StoreError> {
    String::from_utf8(bytes).map_err(|_| StoreError(format!("postgres: {what} is not UTF-8")))
}

fn decode_row(r: &PgRow) -> Result<StoredTask, StoreError> {
    let owner: Option<Vec<u8>> = r.try_get(2).map_err(db_error)?;
    let last_event: i64 = r.try_get(8).map_err(db_error)?;
    TaskRow {
        id: text(r.try_get(0).map_err(db_error)?, "a task id")?,
        tenant: text(r.try_get(1).map_err(db_error)?, "a tenant")?,
        owner: owner.map(|o| text(o, "an owner")).transpose()?,
        task: r.try_get(3).map_err(db_error)?,
        closed_artifacts: r.try_get(4).map_err(db_error)?,
        push: r.try_get(5).map_err(db_error)?,
        push_versions: r.try_get(6).map_err(db_error)?,
        version: r.try_get(7).map_err(db_error)?,
        last_event,
    }
    .decode()
}

/// One bound argument of a dynamic query.
enum Arg {
    Bytes(Vec<u8>),
    Int(i64),
}

fn bind_all<'q>(mut q: Query<'q, Postgres, PgArguments>, args: &[Arg]) -> Query<'q, Postgres, PgArguments> {
    for a in args {
        q = match a {
            Arg::Bytes(b) => q.bind(b.clone()),
            Arg::Int(i) => q.bind(*i),
        };
    }
    q
}

/// A list query as SQL: the filter (for the count) and the page, each with its arguments.
struct ListSql {
    filter: String,
    filter_args: Vec<Arg>,
    page: String,
    page_args: Vec<Arg>,
}

impl ListSql {
    fn of(q: &ListQuery) -> ListSql {
        let mut filter = String::from("tenant = $1");
        let mut args = vec![Arg::Bytes(q.tenant.as_bytes().to_vec())];
        match &q.scope {
            OwnerScope::All => {}
            OwnerScope::UnownedOr(None) => filter.push_str(" AND owner IS NULL"),
            OwnerScope::UnownedOr(Some(p)) => {
                args.push(Arg::Bytes(p.as_bytes().to_vec()));
                filter.push_str(&format!(" AND (owner IS NULL OR owner = ${})", args.len()));
            }
        }
        if !q.context_id.is_empty() {
            args.push(Arg::Bytes(q.context_id.as_bytes().to_vec()));
            filter.push_str(&format!(" AND context_id = ${}", args.len()));
        }
        if let Some(s) = q.state {
            args.push(Arg::Int(i64::from(s as i32)));
            filter.push_str(&format!(" AND state = ${}", args.len()));
        }
        if let Some((s, n)) = q.status_after {
            args.push(Arg::Int(s));
            let a = args.len();
            args.push(Arg::Int(i64::from(n)));
            filter.push_str(&format!(" AND (ts_key > ${a} OR (ts_key = ${a} AND ts_n >= ${}))", args.len()));
        }
        let filter_args: Vec<Arg> = args
            .iter()
            .map(|a| match a {
                Arg::Bytes(b) => Arg::Bytes(b.clone()),
                Arg::Int(i) => Arg::Int(*i),
            })
            .collect();
        let mut page_filter = filter.clone();
        if let Some(c) = &q.after {
            args.push(Arg::Int(c.seconds));
            let a = args.len();
            args.push(Arg::Int(i64::from(c.nanos)));
            let b = args.len();
            args.push(Arg::Bytes(c.id.as_bytes().to_vec()));
            let i = args.len();
            page_filter.push_str(&format!(" AND ts_key <= ${a} AND (ts_key < ${a} OR ts_n < ${b} OR (ts_n = ${b} AND id > ${i}))"));
        }
        args.push(Arg::Int(i64::try_from(q.limit).unwrap_or(i64::MAX)));
        let page = format!(
            "SELECT {TASK_COLUMNS} FROM a2a_tasks WHERE {page_filter} ORDER BY ts_key DESC, ts_n DESC, id ASC LIMIT ${}",
            args.len()
        );
        ListSql { filter, filter_args, page, page_args: args }
    }
}

/// Tasks, message ids and webhook deliveries in a PostgreSQL database.
pub struct PgStore {
    pool: PgPool,
    /// For the notice connection.
    url: String,
    epoch: u32,
    /// Where it is, without the password (for messages).
    shown: String,
    /// Since when the database is unreachable, and when it was last tried since.
    down_since: Option<Instant>,
    last_probe: Option<Instant>,
    /// When the last write failed, and whether the database was unreachable then.
    failed_at: Option<(Instant, bool)>,
    writes_failed: u64,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore").field("database", &self.shown).field("writes_failed", &self.writes_failed).finish()
    }
}

/// `url` without its password.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return String::from("postgres") };
    let (auth, host) = match rest.rsplit_once('@') {
        Some((auth, host)) => (Some(auth), host),
        None => (None, rest),
    };
    match auth.map(|a| a.split_once(':').map_or(a, |(user, _)| user)) {
        Some(user) => format!("{scheme}://{user}@{host}"),
        None => format!("{scheme}://{host}"),
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS a2a_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS a2a_tasks (
    id BYTEA PRIMARY KEY,
    tenant BYTEA NOT NULL,
    owner BYTEA,
    task BYTEA NOT NULL,
    closed_artifacts TEXT NOT NULL,
    push BYTEA NOT NULL,
    push_versions TEXT NOT NULL,
    version BIGINT NOT NULL,
    context_id BYTEA NOT NULL,
    state INTEGER NOT NULL,
    ts_key BIGINT NOT NULL,
    ts_n INTEGER NOT NULL,
    updated_ms BIGINT NOT NULL,
    terminal BOOLEAN NOT NULL
);
ALTER TABLE a2a_tasks ADD COLUMN IF NOT EXISTS last_event BIGINT NOT NULL DEFAULT 0;
ALTER TABLE a2a_tasks ADD COLUMN IF NOT EXISTS lease_owner BYTEA;
ALTER TABLE a2a_tasks ADD COLUMN IF NOT EXISTS lease_until BIGINT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS a2a_tasks_leases ON a2a_tasks (lease_until) WHERE lease_owner IS NOT NULL AND state IN (1, 2);
CREATE TABLE IF NOT EXISTS a2a_events (
    task_id BYTEA NOT NULL,
    seq BIGINT NOT NULL,
    body BYTEA NOT NULL,
    PRIMARY KEY (task_id, seq)
);
CREATE INDEX IF NOT EXISTS a2a_tasks_list ON a2a_tasks (tenant, ts_key DESC, ts_n DESC, id);
CREATE INDEX IF NOT EXISTS a2a_tasks_context ON a2a_tasks (tenant, context_id, ts_key DESC, ts_n DESC, id);
CREATE INDEX IF NOT EXISTS a2a_tasks_state ON a2a_tasks (state, tenant, ts_key DESC, ts_n DESC, id);
CREATE INDEX IF NOT EXISTS a2a_tasks_expiry ON a2a_tasks (updated_ms) WHERE terminal;
CREATE INDEX IF NOT EXISTS a2a_tasks_unfinished ON a2a_tasks (state) WHERE state IN (1, 2);
CREATE TABLE IF NOT EXISTS a2a_messages (
    key BYTEA PRIMARY KEY,
    task_id BYTEA NOT NULL,
    sent_task_id BYTEA NOT NULL,
    sent_context_id BYTEA NOT NULL
);
CREATE INDEX IF NOT EXISTS a2a_messages_task ON a2a_messages (task_id);
CREATE TABLE IF NOT EXISTS a2a_webhooks (
    owner BYTEA NOT NULL DEFAULT ''::bytea,
    seq BIGINT NOT NULL,
    queue BYTEA NOT NULL,
    url TEXT NOT NULL,
    headers TEXT NOT NULL,
    body BYTEA NOT NULL,
    PRIMARY KEY (owner, seq)
);
CREATE TABLE IF NOT EXISTS a2a_owners (owner BYTEA PRIMARY KEY, until BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS a2a_webhooks_queue ON a2a_webhooks (queue);
";

impl PgStore {
    /// Connects to the database `url` names (`postgres://USER[:PASS]@HOST:PORT/DB`, or
    /// `postgresql://`) and creates or migrates the tables; reads no task. Fails when the
    /// database cannot be reached within [`ACQUIRE_TIMEOUT`] or holds a newer schema.
    pub fn open(url: &str) -> Result<PgStore, StoreError> {
        let shown = without_password(url);
        if !is_url(url) {
            return Err(StoreError(format!("{shown}: not a postgres:// URL")));
        }
        smol::block_on(async {
            let pool = PgPoolOptions::new()
                .max_connections(POOL_SIZE)
                .acquire_timeout(ACQUIRE_TIMEOUT)
                .connect(url)
                .await
                .map_err(|e| StoreError(format!("{shown}: {e}")))?;
            let mut tx = pool.begin().await.map_err(db_error)?;
            // Held until the commit: several servers starting at once create the tables once.
            sqlx::query("SELECT pg_advisory_xact_lock($1)").bind(SCHEMA_LOCK).execute(&mut *tx).await.map_err(db_error)?;
            sqlx::raw_sql(SCHEMA).execute(&mut *tx).await.map_err(db_error)?;
            let version: Option<i64> =
                sqlx::query_scalar("SELECT value FROM a2a_meta WHERE key = 'schema'").fetch_optional(&mut *tx).await.map_err(db_error)?;
            match version {
                None => {
                    sqlx::query("INSERT INTO a2a_meta (key, value) VALUES ('schema', $1)")
                        .bind(SCHEMA_VERSION)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?;
                }
                Some(v) if v == SCHEMA_VERSION => {}
                // Version 1 lacked the event table and the columns the schema above added, and
                // numbered webhook deliveries for one server only.
                Some(1) => {
                    sqlx::raw_sql(
                        "ALTER TABLE a2a_webhooks ADD COLUMN IF NOT EXISTS owner BYTEA NOT NULL DEFAULT ''::bytea;
                         ALTER TABLE a2a_webhooks DROP CONSTRAINT IF EXISTS a2a_webhooks_pkey;
                         ALTER TABLE a2a_webhooks ADD PRIMARY KEY (owner, seq);
                         INSERT INTO a2a_owners (owner, until) VALUES (''::bytea, 0) ON CONFLICT (owner) DO NOTHING;",
                    )
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    sqlx::query("UPDATE a2a_meta SET value = $1 WHERE key = 'schema'")
                        .bind(SCHEMA_VERSION)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?;
                }
                Some(v) => {
                    return Err(StoreError(format!(
                        "{shown}: the database has schema version {v}; this build reads version {SCHEMA_VERSION}"
                    )));
                }
            }
            let mut b = [0u8; 4];
            getrandom::fill(&mut b).map_err(|e| StoreError(format!("no OS randomness: {e}")))?;
            sqlx::query("INSERT INTO a2a_meta (key, value) VALUES ('event_epoch', $1) ON CONFLICT (key) DO NOTHING")
                .bind(i64::from(u32::from_le_bytes(b)))
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            let epoch: i64 =
                sqlx::query_scalar("SELECT value FROM a2a_meta WHERE key = 'event_epoch'").fetch_one(&mut *tx).await.map_err(db_error)?;
            tx.commit().await.map_err(db_error)?;
            let epoch = u32::try_from(epoch).map_err(|_| StoreError(format!("{shown}: the event epoch {epoch} is out of range")))?;
            Ok(PgStore {
                pool,
                url: String::from(url),
                epoch,
                shown,
                down_since: None,
                last_probe: None,
                failed_at: None,
                writes_failed: 0,
            })
        })
    }

    /// The database, as its URL without the password.
    pub fn database(&self) -> &str {
        &self.shown
    }

    /// How many writes failed since the store was opened.
    pub fn write_errors(&self) -> u64 {
        self.writes_failed
    }

    /// How many tasks the database holds.
    pub fn count(&self) -> Result<u64, StoreError> {
        let n: i64 = smol::block_on(sqlx::query_scalar("SELECT COUNT(*) FROM a2a_tasks").fetch_one(&self.pool)).map_err(db_error)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    async fn load(&self, ids: &[String], keys: &[String]) -> Result<(Vec<StoredTask>, Vec<(String, MessageRecord)>), StoreError> {
        let mut tasks = Vec::new();
        if !ids.is_empty() {
            let ids: Vec<Vec<u8>> = ids.iter().map(|i| i.as_bytes().to_vec()).collect();
            let rows = sqlx::query(AssertSqlSafe(format!("SELECT {TASK_COLUMNS} FROM a2a_tasks WHERE id = ANY($1)")))
                .bind(ids)
                .fetch_all(&self.pool)
                .await
                .map_err(db_error)?;
            for r in &rows {
                tasks.push(decode_row(r)?);
            }
        }
        let mut messages = Vec::new();
        if !keys.is_empty() {
            let bytes: Vec<Vec<u8>> = keys.iter().map(|k| k.as_bytes().to_vec()).collect();
            let rows = sqlx::query("SELECT key, task_id, sent_task_id, sent_context_id FROM a2a_messages WHERE key = ANY($1)")
                .bind(bytes)
                .fetch_all(&self.pool)
                .await
                .map_err(db_error)?;
            for r in &rows {
                let key = text(r.try_get(0).map_err(db_error)?, "a message key")?;
                let record = MessageRecord {
                    task_id: text(r.try_get(1).map_err(db_error)?, "a task id")?,
                    sent_task_id: text(r.try_get(2).map_err(db_error)?, "a task id")?,
                    sent_context_id: text(r.try_get(3).map_err(db_error)?, "a context id")?,
                };
                messages.push((key, record));
            }
        }
        Ok((tasks, messages))
    }

    async fn list(&self, q: &ListQuery) -> Result<(Vec<StoredTask>, usize), StoreError> {
        let sql = ListSql::of(q);
        let count = bind_all(sqlx::query(AssertSqlSafe(format!("SELECT COUNT(*) FROM a2a_tasks WHERE {}", sql.filter))), &sql.filter_args);
        let total: i64 = count.fetch_one(&self.pool).await.map_err(db_error)?.try_get(0).map_err(db_error)?;
        let rows = bind_all(sqlx::query(AssertSqlSafe(sql.page)), &sql.page_args).fetch_all(&self.pool).await.map_err(db_error)?;
        let mut tasks = Vec::with_capacity(rows.len());
        for r in &rows {
            tasks.push(decode_row(r)?);
        }
        Ok((tasks, usize::try_from(total).unwrap_or(0)))
    }

    async fn write(&mut self, batch: &WriteBatch) -> Result<Result<(), Vec<String>>, StoreError> {
        if let Some((t, down)) = self.failed_at {
            if t.elapsed() < RETRY_AFTER_FAILURE {
                let e = "the last write failed; waiting before the next try";
                return Err(if down { StoreError::unreachable(e) } else { StoreError(String::from(e)) });
            }
        }
        match self.write_batch(batch).await {
            Ok(r) => {
                self.failed_at = None;
                Ok(r)
            }
            Err(e) => {
                self.failed_at = Some((Instant::now(), unreachable(&e)));
                self.writes_failed += 1;
                Err(db_error(e))
            }
        }
    }

    async fn write_batch(&self, batch: &WriteBatch) -> Result<Result<(), Vec<String>>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let updated = ms(batch.at);
        let mut stale = Vec::new();
        for w in &batch.tasks {
            let t = &w.task;
            let (push, push_versions) = encode_push(&t.push_configs);
            let (ts_key, ts_n) = list_key(&t.record.task);
            let state = t.record.task.status.as_ref().map_or(0, |s| s.state);
            let closed = encode_ids(&t.record.closed_artifacts);
            let version = i64::try_from(t.version).unwrap_or(i64::MAX);
            let q = if w.base == 0 {
                sqlx::query(
                    "INSERT INTO a2a_tasks (id, tenant, owner, task, closed_artifacts, push, push_versions, version,
                                            context_id, state, ts_key, ts_n, updated_ms, terminal, last_event,
                                            lease_owner, lease_until)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
                             CASE WHEN $16 THEN $17::bytea END, CASE WHEN $16 THEN $18::bigint ELSE 0 END)
                     ON CONFLICT (id) DO NOTHING",
                )
            } else {
                sqlx::query(
                    "UPDATE a2a_tasks SET tenant = $2, owner = $3, task = $4, closed_artifacts = $5, push = $6,
                         push_versions = $7, version = $8, context_id = $9, state = $10, ts_key = $11, ts_n = $12,
                         updated_ms = $13, terminal = $14, last_event = $15,
                         lease_owner = CASE WHEN $17 THEN $18::bytea WHEN lease_owner = $18::bytea THEN NULL ELSE lease_owner END,
                         lease_until = CASE WHEN $17 THEN $19::bigint ELSE lease_until END
                     WHERE id = $1 AND version = $16",
                )
            };
            let q = q
                .bind(t.record.task.id.as_bytes())
                .bind(t.tenant.as_bytes())
                .bind(t.owner.as_deref().map(str::as_bytes))
                .bind(t.record.task.encode_to_vec())
                .bind(closed)
                .bind(push)
                .bind(push_versions)
                .bind(version)
                .bind(t.record.task.context_id.as_bytes())
                .bind(state)
                .bind(ts_key)
                .bind(ts_n)
                .bind(updated)
                .bind(w.terminal)
                .bind(i64::try_from(t.last_event).unwrap_or(i64::MAX));
            let q = if w.base == 0 { q } else { q.bind(i64::try_from(w.base).unwrap_or(i64::MAX)) };
            // This server's lease: taken on the tasks that run here, given up on the others
            // (another server's lease stays).
            let q = q
                .bind(w.leased && batch.lease.is_some())
                .bind(batch.lease.as_ref().map(|l| l.owner.as_bytes()))
                .bind(batch.lease.as_ref().map_or(0, |l| ms(l.until)));
            if q.execute(&mut *tx).await?.rows_affected() != 1 {
                stale.push(t.record.task.id.clone());
            }
        }
        if !stale.is_empty() {
            tx.rollback().await?;
            return Ok(Err(stale));
        }
        if !batch.events.is_empty() {
            let ids: Vec<&[u8]> = batch.events.iter().map(|e| e.task_id.as_bytes()).collect();
            let seqs: Vec<i64> = batch.events.iter().map(|e| i64::try_from(e.seq).unwrap_or(i64::MAX)).collect();
            let bodies: Vec<&[u8]> = batch.events.iter().map(|e| e.body.as_slice()).collect();
            sqlx::query(
                "INSERT INTO a2a_events (task_id, seq, body) SELECT * FROM UNNEST($1::bytea[], $2::bigint[], $3::bytea[])
                 ON CONFLICT (task_id, seq) DO UPDATE SET body = EXCLUDED.body",
            )
            .bind(ids)
            .bind(seqs)
            .bind(bodies)
            .execute(&mut *tx)
            .await?;
            // Each task keeps its latest `keep_events`.
            let keep = i64::try_from(batch.keep_events.max(1)).unwrap_or(i64::MAX);
            let mut last: std::collections::BTreeMap<&[u8], i64> = std::collections::BTreeMap::new();
            for e in &batch.events {
                last.insert(e.task_id.as_bytes(), i64::try_from(e.seq).unwrap_or(i64::MAX));
            }
            let (ids, below): (Vec<&[u8]>, Vec<i64>) = last.into_iter().map(|(id, n)| (id, n.saturating_sub(keep))).unzip();
            // Not a prepared statement: PostgreSQL's generic plan for a join on UNNEST of a
            // parameter guesses its row count and scans the whole table (every write then
            // cost more as the table grew); planned with the values, it uses the key.
            sqlx::query(
                "DELETE FROM a2a_events e USING UNNEST($1::bytea[], $2::bigint[]) AS c(task_id, below)
                 WHERE e.task_id = c.task_id AND e.seq <= c.below",
            )
            .persistent(false)
            .bind(ids)
            .bind(below)
            .execute(&mut *tx)
            .await?;
        }
        if !batch.tasks.is_empty() {
            // Delivered at commit, to every server listening (this one too; its engine knows
            // the version it wrote).
            let payloads: Vec<String> =
                batch.tasks.iter().map(|w| format!("{}:{}", w.task.version, hex(w.task.record.task.id.as_bytes()))).collect();
            sqlx::query("SELECT pg_notify($1, p) FROM UNNEST($2::text[]) AS p")
                .bind(NOTICE_CHANNEL)
                .bind(payloads)
                .execute(&mut *tx)
                .await?;
        }
        for (key, record) in &batch.messages {
            match record {
                Some(r) => {
                    sqlx::query(
                        "INSERT INTO a2a_messages (key, task_id, sent_task_id, sent_context_id) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (key) DO UPDATE SET task_id = $2, sent_task_id = $3, sent_context_id = $4",
                    )
                    .bind(key.as_bytes())
                    .bind(r.task_id.as_bytes())
                    .bind(r.sent_task_id.as_bytes())
                    .bind(r.sent_context_id.as_bytes())
                    .execute(&mut *tx)
                    .await?
                }
                None => sqlx::query("DELETE FROM a2a_messages WHERE key = $1").bind(key.as_bytes()).execute(&mut *tx).await?,
            };
        }
        // Deliveries belong to the server that queued them (its lease's owner).
        let owner: &[u8] = batch.lease.as_ref().map_or(b"", |l| l.owner.as_bytes());
        for q in &batch.webhooks_queued {
            // A list of string pairs always serializes.
            sqlx::query(
                "INSERT INTO a2a_webhooks (owner, seq, queue, url, headers, body) VALUES ($6, $1, $2, $3, $4, $5)
                 ON CONFLICT (owner, seq) DO UPDATE SET queue = $2, url = $3, headers = $4, body = $5",
            )
            .bind(i64::try_from(q.seq).unwrap_or(i64::MAX))
            .bind(q.queue.as_bytes())
            .bind(&q.url)
            .bind(serde_json::to_string(&q.headers).unwrap_or_default())
            .bind(&q.body)
            .bind(owner)
            .execute(&mut *tx)
            .await?;
        }
        if !batch.webhooks_done.is_empty() {
            let done: Vec<i64> = batch.webhooks_done.iter().map(|n| i64::try_from(*n).unwrap_or(i64::MAX)).collect();
            sqlx::query("DELETE FROM a2a_webhooks WHERE owner = $2 AND seq = ANY($1)").bind(done).bind(owner).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(Ok(()))
    }

    async fn expire(&self, before: Timestamp, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_error)?;
        // SKIP LOCKED: a task another writer holds is left to the next round.
        let rows = sqlx::query(
            "DELETE FROM a2a_tasks WHERE id IN (
                 SELECT id FROM a2a_tasks WHERE terminal AND updated_ms < $1 ORDER BY updated_ms LIMIT $2 FOR UPDATE SKIP LOCKED)
             RETURNING id",
        )
        .bind(ms(before))
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&mut *tx)
        .await
        .map_err(db_error)?;
        let ids: Vec<Vec<u8>> = rows.iter().map(|r| r.try_get(0)).collect::<Result<_, _>>().map_err(db_error)?;
        if !ids.is_empty() {
            sqlx::query("DELETE FROM a2a_messages WHERE task_id = ANY($1)").bind(&ids).execute(&mut *tx).await.map_err(db_error)?;
            sqlx::query("DELETE FROM a2a_events WHERE task_id = ANY($1)").bind(&ids).execute(&mut *tx).await.map_err(db_error)?;
            for id in &ids {
                // Webhook queues are named "task\0config": the range [task\0, task\1).
                let mut low = id.clone();
                low.push(0);
                let mut high = id.clone();
                high.push(1);
                sqlx::query("DELETE FROM a2a_webhooks WHERE queue >= $1 AND queue < $2")
                    .bind(low)
                    .bind(high)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
            }
        }
        tx.commit().await.map_err(db_error)?;
        ids.into_iter().map(|i| text(i, "a task id")).collect()
    }

    /// Extends `owner`'s leases of `tasks`; returns those it no longer holds.
    async fn renew(&self, owner: &str, tasks: Vec<String>, until: Timestamp) -> Result<Vec<String>, StoreError> {
        let ids: Vec<&[u8]> = tasks.iter().map(|t| t.as_bytes()).collect();
        let rows = sqlx::query("UPDATE a2a_tasks SET lease_until = $2 WHERE lease_owner = $1 AND id = ANY($3) RETURNING id")
            .bind(owner.as_bytes())
            .bind(ms(until))
            .bind(ids)
            .fetch_all(&self.pool)
            .await
            .map_err(db_error)?;
        let held: Vec<Vec<u8>> = rows.iter().map(|r| r.try_get(0)).collect::<Result<_, _>>().map_err(db_error)?;
        Ok(tasks.into_iter().filter(|t| !held.iter().any(|h| h.as_slice() == t.as_bytes())).collect())
    }

    /// Takes the lease of at most `limit` unfinished tasks whose lease ran out before `now`
    /// (rows another server is claiming or writing are skipped), raising their versions, and
    /// tells the other servers.
    async fn claim(
        &self,
        lease: &a2a_wire::engine::Lease,
        now: Timestamp,
        limit: usize,
        seq_from: u64,
    ) -> Result<(Vec<StoredTask>, Vec<Queued>), StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_error)?;
        // This server's heartbeat.
        sqlx::query("INSERT INTO a2a_owners (owner, until) VALUES ($1, $2) ON CONFLICT (owner) DO UPDATE SET until = $2")
            .bind(lease.owner.as_bytes())
            .bind(ms(lease.until))
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
        // The deliveries of servers not heard of since their lease ran out (rows another
        // server is taking are skipped), renumbered in their order as this server's.
        let rows = sqlx::query(
            "SELECT owner, seq, queue, url, headers, body FROM a2a_webhooks
             WHERE owner IN (SELECT owner FROM a2a_owners WHERE until < $1)
             ORDER BY owner, seq LIMIT $2 FOR UPDATE SKIP LOCKED",
        )
        .bind(ms(now))
        .bind(i64::try_from(a2a_wire::engine::CLAIM_WEBHOOKS).unwrap_or(i64::MAX))
        .fetch_all(&mut *tx)
        .await
        .map_err(db_error)?;
        let mut webhooks = Vec::with_capacity(rows.len());
        let (mut old_owner, mut old_seq, mut new_seq) = (Vec::new(), Vec::new(), Vec::new());
        for (n, r) in rows.iter().enumerate() {
            let seq = seq_from.saturating_add(n as u64);
            let headers: String = r.try_get(4).map_err(db_error)?;
            let headers: Vec<(String, String)> =
                serde_json::from_str(&headers).map_err(|e| StoreError(format!("a webhook delivery's headers: {e}")))?;
            old_owner.push(r.try_get::<Vec<u8>, _>(0).map_err(db_error)?);
            old_seq.push(r.try_get::<i64, _>(1).map_err(db_error)?);
            new_seq.push(i64::try_from(seq).unwrap_or(i64::MAX));
            webhooks.push(Queued {
                seq,
                queue: text(r.try_get(2).map_err(db_error)?, "a webhook queue")?,
                url: r.try_get(3).map_err(db_error)?,
                headers,
                body: r.try_get(5).map_err(db_error)?,
            });
        }
        if !webhooks.is_empty() {
            sqlx::query(
                "UPDATE a2a_webhooks w SET owner = $1, seq = c.new_seq
                 FROM UNNEST($2::bytea[], $3::bigint[], $4::bigint[]) AS c(old_owner, old_seq, new_seq)
                 WHERE w.owner = c.old_owner AND w.seq = c.old_seq",
            )
            .persistent(false) // planned with the values (see the events' trim above)
            .bind(lease.owner.as_bytes())
            .bind(old_owner)
            .bind(old_seq)
            .bind(new_seq)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
        }
        let rows = sqlx::query(AssertSqlSafe(format!(
            "UPDATE a2a_tasks SET lease_owner = $1, lease_until = $2, version = version + 1
             WHERE id IN (SELECT id FROM a2a_tasks WHERE state IN ($5, $6) AND lease_owner IS NOT NULL AND lease_until < $3
                          ORDER BY lease_until LIMIT $4 FOR UPDATE SKIP LOCKED)
             RETURNING {TASK_COLUMNS}"
        )))
        .bind(lease.owner.as_bytes())
        .bind(ms(lease.until))
        .bind(ms(now))
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .bind(v1::TaskState::Submitted as i32)
        .bind(v1::TaskState::Working as i32)
        .fetch_all(&mut *tx)
        .await
        .map_err(db_error)?;
        let mut tasks = Vec::with_capacity(rows.len());
        for r in &rows {
            tasks.push(decode_row(r)?);
        }
        if !tasks.is_empty() {
            let payloads: Vec<String> = tasks.iter().map(|t| format!("{}:{}", t.version, hex(t.record.task.id.as_bytes()))).collect();
            sqlx::query("SELECT pg_notify($1, p) FROM UNNEST($2::text[]) AS p")
                .bind(NOTICE_CHANNEL)
                .bind(payloads)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
        }
        tx.commit().await.map_err(db_error)?;
        Ok((tasks, webhooks))
    }

    /// Task `id` as stored and its kept events after `after` that it already counts.
    async fn events(&self, id: &str, after: u64) -> Result<(Option<StoredTask>, Vec<(u64, Vec<u8>)>), StoreError> {
        let (tasks, _) = self.load(&[String::from(id)], &[]).await?;
        let Some(task) = tasks.into_iter().next() else { return Ok((None, Vec::new())) };
        let rows = sqlx::query("SELECT seq, body FROM a2a_events WHERE task_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq")
            .bind(id.as_bytes())
            .bind(i64::try_from(after).unwrap_or(i64::MAX))
            .bind(i64::try_from(task.last_event).unwrap_or(i64::MAX))
            .fetch_all(&self.pool)
            .await
            .map_err(db_error)?;
        let mut events = Vec::with_capacity(rows.len());
        for r in &rows {
            let seq: i64 = r.try_get(0).map_err(db_error)?;
            events.push((u64::try_from(seq).unwrap_or(0), r.try_get(1).map_err(db_error)?));
        }
        Ok((Some(task), events))
    }

    async fn open_store(&self) -> Result<(Vec<StoredTask>, Vec<Queued>), StoreError> {
        let rows = sqlx::query(AssertSqlSafe(format!("SELECT {TASK_COLUMNS} FROM a2a_tasks WHERE state IN ($1, $2)")))
            .bind(v1::TaskState::Submitted as i32)
            .bind(v1::TaskState::Working as i32)
            .fetch_all(&self.pool)
            .await
            .map_err(db_error)?;
        let mut unfinished = Vec::with_capacity(rows.len());
        for r in &rows {
            unfinished.push(decode_row(r)?);
        }
        let rows = sqlx::query("SELECT seq, queue, url, headers, body FROM a2a_webhooks ORDER BY seq")
            .fetch_all(&self.pool)
            .await
            .map_err(db_error)?;
        let mut webhooks = Vec::with_capacity(rows.len());
        for r in &rows {
            let seq: i64 = r.try_get(0).map_err(db_error)?;
            let queue = text(r.try_get(1).map_err(db_error)?, "a webhook queue")?;
            let url: String = r.try_get(2).map_err(db_error)?;
            let headers: String = r.try_get(3).map_err(db_error)?;
            let body: Vec<u8> = r.try_get(4).map_err(db_error)?;
            let headers: Vec<(String, String)> =
                serde_json::from_str(&headers).map_err(|e| StoreError(format!("webhook delivery {seq}: headers: {e}")))?;
            let seq = u64::try_from(seq).map_err(|_| StoreError(format!("webhook delivery {seq}: a negative number")))?;
            webhooks.push(Queued { seq, queue, url, headers, body });
        }
        Ok((unfinished, webhooks))
    }
}

impl crate::store::ExternalStore for PgStore {
    fn answer(&mut self, request: StoreRequest) -> StoreReply {
        let id = request.id();
        // While the database is unreachable, requests fail at once but for one try per
        // PROBE_EVERY, which gives up after PROBE_TIMEOUT: callers learn of the outage in
        // well under a second, and the first try that gets through ends it.
        if let Some(since) = self.down_since {
            if self.last_probe.is_some_and(|t| t.elapsed() < PROBE_EVERY) {
                let error = StoreError::unreachable(format!("{} has been unreachable for {} s", self.shown, since.elapsed().as_secs()));
                return StoreReply::Failed { id, error };
            }
            self.last_probe = Some(Instant::now());
        }
        let probing = self.down_since.is_some();
        let result = smol::block_on(async {
            let work = self.carry_out(request);
            if !probing {
                return work.await;
            }
            smol::future::or(work, async {
                smol::Timer::after(PROBE_TIMEOUT).await;
                Err(StoreError::unreachable("postgres: no connection within the probe's time"))
            })
            .await
        });
        match &result {
            Err(e) if e.is_unreachable() => {
                if self.down_since.is_none() {
                    self.down_since = Some(Instant::now());
                    self.last_probe = Some(Instant::now());
                }
            }
            _ => {
                self.down_since = None;
                self.last_probe = None;
            }
        }
        result.unwrap_or_else(|error| StoreReply::Failed { id, error })
    }

    fn event_epoch(&self) -> Option<u32> {
        Some(self.epoch)
    }

    fn listen(&mut self, notices: crate::store::NoticeSender) -> std::io::Result<()> {
        let url = self.url.clone();
        std::thread::Builder::new().name(String::from("a2a-wire-pg-notices")).spawn(move || smol::block_on(listen(url, notices)))?;
        Ok(())
    }
}

impl PgStore {
    async fn carry_out(&mut self, request: StoreRequest) -> Result<StoreReply, StoreError> {
        {
            match request {
                StoreRequest::Open { id } => {
                    self.open_store().await.map(|(unfinished, webhooks)| StoreReply::Opened { id, unfinished, webhooks })
                }
                StoreRequest::Load { id, tasks, messages } => {
                    self.load(&tasks, &messages).await.map(|(tasks, messages)| StoreReply::Loaded { id, tasks, messages })
                }
                StoreRequest::List { id, query } => self.list(&query).await.map(|(tasks, total)| StoreReply::Listed { id, tasks, total }),
                StoreRequest::Write { id, batch } => self.write(&batch).await.map(|r| match r {
                    Ok(()) => StoreReply::Written { id },
                    Err(tasks) => StoreReply::Conflict { id, tasks },
                }),
                StoreRequest::Expire { id, before, limit } => {
                    self.expire(before, limit).await.map(|tasks| StoreReply::Expired { id, tasks })
                }
                StoreRequest::Events { id, task, after } => {
                    self.events(&task, after).await.map(|(task, events)| StoreReply::Events { id, task, events })
                }
                StoreRequest::Renew { id, owner, tasks, until } => {
                    self.renew(&owner, tasks, until).await.map(|lost| StoreReply::Renewed { id, lost })
                }
                StoreRequest::Claim { id, lease, now, limit, webhook_seq_from } => self
                    .claim(&lease, now, limit, webhook_seq_from)
                    .await
                    .map(|(tasks, webhooks)| StoreReply::Claimed { id, tasks, webhooks }),
                _ => Err(StoreError(String::from("a request this store does not know"))),
            }
        }
    }
}

/// The notice connection: LISTEN, hand each notice on, reconnect with backoff when the
/// connection is lost (and then resync: notices may have been missed). Ends at the first
/// notice after the server is gone.
async fn listen(url: String, notices: crate::store::NoticeSender) {
    use crate::store::Notice;
    let mut backoff = Duration::from_millis(100);
    while !notices.is_closed() {
        let connected = async {
            let mut l = sqlx::postgres::PgListener::connect(&url).await?;
            l.listen(NOTICE_CHANNEL).await?;
            Ok::<_, sqlx::Error>(l)
        }
        .await;
        let mut l = match connected {
            Ok(l) => l,
            Err(_) => {
                smol::Timer::after(backoff).await;
                backoff = (backoff * 2).min(NOTICE_BACKOFF_MAX);
                continue;
            }
        };
        backoff = Duration::from_millis(100);
        // Whatever changed before this connection listened was not heard.
        if !notices.send(Notice::Resync) {
            return;
        }
        // (No timer races the receive, which is not known to be cancel-safe: a thread whose
        // server is gone ends at the next notice.)
        loop {
            match l.try_recv().await {
                Ok(Some(n)) => {
                    if let Some((version, task)) = parse_notice(n.payload()) {
                        if !notices.send(Notice::Changed { task, version }) {
                            return;
                        }
                    }
                }
                // The connection was lost and is back (eager reconnect): resync.
                Ok(None) => {
                    if !notices.send(Notice::Resync) {
                        return;
                    }
                }
                Err(_) => break,
            }
        }
    }
}

impl From<PgStore> for crate::store::Store {
    fn from(s: PgStore) -> Self {
        crate::store::Store::External(Box::new(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_told_apart_and_shown_without_their_password() {
        assert!(is_url("postgres://u@h:5432/d") && is_url("postgresql://h/d"));
        assert!(!is_url("tasks.db") && !is_url("memory") && !is_url("postgres:/x"));
        assert_eq!(without_password("postgres://alice:s3cret@db:5432/a2a"), "postgres://alice@db:5432/a2a");
        assert_eq!(without_password("postgresql://alice@db/a2a"), "postgresql://alice@db/a2a");
        assert_eq!(without_password("postgres://db/a2a"), "postgres://db/a2a");
        assert_eq!(without_password("postgres://a:b:c@d@db/x"), "postgres://a@db/x");
    }

    #[test]
    fn notice_payloads_round_trip() {
        let id = "3f1c\u{0}:é";
        assert_eq!(parse_notice(&format!("7:{}", hex(id.as_bytes()))), Some((7, String::from(id))));
        assert_eq!(parse_notice("7:abc"), None);
        assert_eq!(parse_notice("x:00"), None);
        assert_eq!(parse_notice("7"), None);
        assert_eq!(parse_notice("7:zz"), None);
    }

    #[test]
    fn a_bad_url_is_refused_without_connecting() {
        let e = PgStore::open("mysql://x@y/z").unwrap_err();
        assert!(e.0.contains("not a postgres:// URL"), "{}", e.0);
    }
}

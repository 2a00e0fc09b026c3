//! A store that lives outside the engine, spoken to with plain data.
//!
//! With [`super::Storage::External`] the engine does no store IO of its own, not even through
//! a trait: what it needs from the store goes out as a [`StoreRequest`] (from
//! [`super::Engine::poll_store`], and from [`crate::service::Service::poll_output`] as
//! [`crate::service::Output::Store`]), and the host answers each with one [`StoreReply`]
//! ([`super::Engine::handle_store`]) when it has the result. A call that waits for a load is
//! parked, never blocked; its answer comes out once the reply arrives.
//!
//! ## What a store must do
//! - Take requests in the order given and carry them out in that order (a `List` after a
//!   `Write` sees the write). Replies may come back later, but in the same order.
//! - `Load`: return the tasks and message-index entries it holds among those named; one not
//!   returned does not exist.
//! - `List`: the matching tasks of one tenant in the order newest status timestamp first,
//!   then task id ascending (a task without a status timestamp is oldest), starting after the
//!   cursor, at most `limit` of them, and how many match in all (ignoring the cursor).
//! - `Write`: all of the batch or none of it. Each task write names the version its copy was
//!   based on (`base`; 0 for a new task): when the stored row's version is another one (or a
//!   new task's id exists), refuse the whole batch with [`StoreReply::Conflict`] naming those
//!   tasks. Otherwise store each task with its new `version`, the message-index changes and
//!   the webhook changes.
//! - `Expire`: delete at most `limit` tasks in a terminal state whose last write is older
//!   than `before`, each with its message-index entries, and say which.
//! - `Open` (once, first): the tasks that are `SUBMITTED` or `WORKING` (their runs were lost
//!   with the process that wrote them) and the webhook deliveries kept.
//! - Events: a batch carries the events published since the last one, each with its number
//!   in its task's sequence ([`StoredEvent`]); a store that keeps events keeps them with the
//!   batch (the last [`WriteBatch::keep_events`] of each task at least) and deletes them with
//!   their task. `Events` returns the task as stored and its kept events after a number, in
//!   order; a store that keeps no events returns none (a subscriber that resumes there starts
//!   over from the Task).
//!
//! - Leases (only with [`super::EngineConfig::lease`]): a batch with a [`Lease`] takes it on
//!   each task written with `leased` (the task runs on this server) and gives up this
//!   owner's lease on each other task it writes (another owner's stays). `Renew` extends
//!   this owner's leases of the tasks named and says which it no longer holds. `Claim` takes
//!   the lease of at most `limit` tasks that are `SUBMITTED` or `WORKING` and whose lease
//!   (of any owner) ran out before `now`, raising each one's version (so a write based on the
//!   old owner's copy is refused), and returns them. Webhook deliveries belong to the owner
//!   of the batch that queued them (its lease's owner; "" without leases): a `Claim` is also
//!   the owner's heartbeat, and takes over the deliveries of owners whose last heartbeat is
//!   older than its lease, numbering them from `webhook_seq_from` on (in their order), so
//!   none is lost when a server dies and each is attempted by one server at a time.
//!
//! ## Several servers over one store
//! Each server holds copies of the tasks it serves. When another server changes a task, the
//! host tells the engine ([`super::Engine::handle_task_changed`], from the store's change
//! notices) and the engine drops an idle copy, or, for a task with subscribers, waiters or a
//! run here, reads the task and its new events (`Events`) and carries them on: subscribers
//! here get the other server's events with the same numbers, once and in order; a task
//! canceled elsewhere stops its run here. When notices may have been missed (the notice
//! connection dropped), [`super::Engine::handle_store_resync`] treats every copy so.
//!
//! ## What the engine does with a refusal
//! A `Conflict` means another writer changed those tasks since this engine read them: the
//! engine's copy is stale. It drops its copies (and their unwritten changes, which were based
//! on the stale copy), tries a cancel or push-config change again on the task as stored (a few
//! times), answers every other call whose answer depended on the refused batch with an
//! `Internal` error that says so (never with success), lets the streams that were already
//! shown events of those tasks go on from the store's events (others end with an
//! `Unavailable` error: the client resubscribes and gets the stored task), stops their runs,
//! and writes the batch's other changes again. The next call on such a task loads it afresh.
//! A `Failed` write keeps every change and writes it again with the next batch; the calls
//! that depended on it are answered with an error (`Unavailable` when the store could not be
//! reached, else `Internal`).

use super::store::{MessageRecord, StoreError, StoredTask};
use crate::proto::google::protobuf::Timestamp;
use crate::v1::TaskState;
use crate::webhook::Queued;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;
use core::mem::size_of;

/// How many webhook deliveries one [`StoreRequest::Claim`] takes over at most.
pub const CLAIM_WEBHOOKS: usize = 1000;

/// Identifies one store request; its reply names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StoreRequestId(pub u64);

/// Whose tasks a list shows (from [`super::Visibility::list_scope`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnerScope {
    /// Every task of the tenant.
    All,
    /// Tasks created without authentication, and those created by this principal (`None`:
    /// only the former).
    UnownedOr(Option<String>),
}

impl OwnerScope {
    /// Whether a task owned by `owner` is in scope.
    pub fn admits(&self, owner: Option<&str>) -> bool {
        match self {
            OwnerScope::All => true,
            OwnerScope::UnownedOr(p) => owner.is_none() || owner == p.as_deref(),
        }
    }
}

/// Where a list page starts: after the task with this status timestamp and id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListCursor {
    /// The status timestamp's seconds (`i64::MIN` for a task without one).
    pub seconds: i64,
    /// Its nanoseconds.
    pub nanos: i32,
    /// The task id.
    pub id: String,
}

/// A ListTasks query for the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListQuery {
    /// The tenant ("" = none).
    pub tenant: String,
    /// Whose tasks.
    pub scope: OwnerScope,
    /// Only this context ("" = any).
    pub context_id: String,
    /// Only this state.
    pub state: Option<TaskState>,
    /// Only tasks whose status timestamp is at or after this (seconds, nanos).
    pub status_after: Option<(i64, i32)>,
    /// Start after this task (`None`: from the newest).
    pub after: Option<ListCursor>,
    /// At most this many tasks.
    pub limit: usize,
}

/// The sort key of a task in lists: its status timestamp.
pub fn list_key(t: &StoredTask) -> (i64, i32) {
    t.record.task.status.as_ref().and_then(|s| s.timestamp).map_or((i64::MIN, 0), |ts| (ts.seconds, ts.nanos))
}

impl ListQuery {
    /// Whether `t` matches the filters (not the cursor).
    pub fn matches(&self, t: &StoredTask) -> bool {
        t.tenant == self.tenant
            && self.scope.admits(t.owner.as_deref())
            && (self.context_id.is_empty() || t.record.task.context_id == self.context_id)
            && self.state.is_none_or(|s| t.record.task.status.as_ref().is_some_and(|st| st.state == s as i32))
            && self.status_after.is_none_or(|after| list_key(t) >= after)
    }

    /// Whether `t` comes after the cursor in list order.
    pub fn after_cursor(&self, t: &StoredTask) -> bool {
        match &self.after {
            None => true,
            Some(c) => {
                let k = list_key(t);
                k < (c.seconds, c.nanos) || (k == (c.seconds, c.nanos) && t.record.task.id.as_str() > c.id.as_str())
            }
        }
    }
}

/// One task to write.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskWrite {
    /// The task as it is now; `task.version` is its new version.
    pub task: StoredTask,
    /// The version this copy was based on (0: a new task).
    pub base: u64,
    /// Whether the task is in a terminal state (retention deletes only those).
    pub terminal: bool,
    /// Whether the task runs on this server (with [`WriteBatch::lease`]: its lease is taken).
    pub leased: bool,
}

/// A lease a batch takes on the tasks that run on its server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The server that holds it.
    pub owner: String,
    /// Until when (another server may claim the task after it).
    pub until: Timestamp,
}

/// The changes of one write.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteBatch {
    /// When the batch was made (the store keeps it as the tasks' last write, for retention).
    pub at: Timestamp,
    /// Tasks created or changed, whole.
    pub tasks: Vec<TaskWrite>,
    /// Message-index changes: the record to keep, or `None` to delete the key.
    pub messages: Vec<(String, Option<MessageRecord>)>,
    /// Webhook deliveries to keep (an insert by `seq`).
    pub webhooks_queued: Vec<Queued>,
    /// Webhook deliveries that are over (to delete; a number never written is no error).
    pub webhooks_done: Vec<u64>,
    /// Events published since the last batch, in order (each task's numbers rise by one).
    pub events: Vec<StoredEvent>,
    /// How many of a task's latest events a store that keeps events should keep at least.
    pub keep_events: usize,
    /// With leases on: the lease the `leased` tasks take.
    pub lease: Option<Lease>,
}

/// One event of a task, as a store keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredEvent {
    /// The task.
    pub task_id: String,
    /// Its number in the task's sequence (1, 2, …).
    pub seq: u64,
    /// The `StreamResponse`, protobuf-encoded.
    pub body: Vec<u8>,
}

impl WriteBatch {
    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
            && self.messages.is_empty()
            && self.webhooks_queued.is_empty()
            && self.webhooks_done.is_empty()
            && self.events.is_empty()
    }
}

/// Something the engine needs from its store.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum StoreRequest {
    /// Once, first: the unfinished tasks and the kept webhook deliveries.
    Open {
        /// This request.
        id: StoreRequestId,
    },
    /// Read these tasks and message-index entries.
    Load {
        /// This request.
        id: StoreRequestId,
        /// Task ids.
        tasks: Vec<String>,
        /// Message-index keys.
        messages: Vec<String>,
    },
    /// Answer a list query.
    List {
        /// This request.
        id: StoreRequestId,
        /// The query.
        query: ListQuery,
    },
    /// Write this batch atomically, checking versions.
    Write {
        /// This request.
        id: StoreRequestId,
        /// The changes.
        batch: WriteBatch,
    },
    /// Delete at most `limit` terminal tasks last written before `before`.
    Expire {
        /// This request.
        id: StoreRequestId,
        /// The cut-off.
        before: Timestamp,
        /// The batch bound.
        limit: usize,
    },
    /// Extend `owner`'s leases of these tasks to `until`.
    Renew {
        /// This request.
        id: StoreRequestId,
        /// The server.
        owner: String,
        /// Its running tasks.
        tasks: Vec<String>,
        /// The new end of their leases.
        until: Timestamp,
    },
    /// Take the lease of at most `limit` unfinished tasks whose lease ran out before `now`,
    /// and the webhook deliveries of owners not heard of since their lease ran out.
    Claim {
        /// This request.
        id: StoreRequestId,
        /// The lease to take (its `until` is also the owner's heartbeat).
        lease: Lease,
        /// The time.
        now: Timestamp,
        /// The batch bound.
        limit: usize,
        /// The number the first delivery taken over gets (the service reserves
        /// [`CLAIM_WEBHOOKS`] of them); at most that many are taken over at once.
        webhook_seq_from: u64,
    },
    /// Read this task as stored and its kept events numbered after `after`.
    Events {
        /// This request.
        id: StoreRequestId,
        /// The task id.
        task: String,
        /// Events up to this number are known.
        after: u64,
    },
}

impl StoreRequest {
    /// The request's id.
    pub fn id(&self) -> StoreRequestId {
        match self {
            StoreRequest::Open { id }
            | StoreRequest::Load { id, .. }
            | StoreRequest::List { id, .. }
            | StoreRequest::Write { id, .. }
            | StoreRequest::Expire { id, .. }
            | StoreRequest::Renew { id, .. }
            | StoreRequest::Claim { id, .. }
            | StoreRequest::Events { id, .. } => *id,
        }
    }
}

/// A store's answer to one [`StoreRequest`].
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum StoreReply {
    /// To `Open`.
    Opened {
        /// The request.
        id: StoreRequestId,
        /// Tasks that are `SUBMITTED` or `WORKING`.
        unfinished: Vec<StoredTask>,
        /// Webhook deliveries not yet over.
        webhooks: Vec<Queued>,
    },
    /// To `Load`: what exists of what was asked.
    Loaded {
        /// The request.
        id: StoreRequestId,
        /// The tasks found.
        tasks: Vec<StoredTask>,
        /// The message-index entries found.
        messages: Vec<(String, MessageRecord)>,
    },
    /// To `List`.
    Listed {
        /// The request.
        id: StoreRequestId,
        /// The page, in list order.
        tasks: Vec<StoredTask>,
        /// How many tasks match in all.
        total: usize,
    },
    /// To `Write`: the batch is durable.
    Written {
        /// The request.
        id: StoreRequestId,
    },
    /// To `Write`: refused, nothing written; these tasks' stored versions are not the ones
    /// the batch was based on.
    Conflict {
        /// The request.
        id: StoreRequestId,
        /// The stale tasks.
        tasks: Vec<String>,
    },
    /// To `Expire`: these tasks are deleted.
    Expired {
        /// The request.
        id: StoreRequestId,
        /// Their ids.
        tasks: Vec<String>,
    },
    /// To `Renew`: the named tasks whose lease this owner no longer holds (another server
    /// claimed them, or they are gone).
    Renewed {
        /// The request.
        id: StoreRequestId,
        /// Those tasks.
        lost: Vec<String>,
    },
    /// To `Claim`: the tasks whose lease this server took, as stored now, and the webhook
    /// deliveries it took over (numbered anew, in their order).
    Claimed {
        /// The request.
        id: StoreRequestId,
        /// The tasks.
        tasks: Vec<StoredTask>,
        /// The deliveries.
        webhooks: Vec<Queued>,
    },
    /// To `Events`.
    Events {
        /// The request.
        id: StoreRequestId,
        /// The task as stored (`None`: it does not exist).
        task: Option<StoredTask>,
        /// Its kept events numbered after the request's `after`, in order: (number, the
        /// protobuf-encoded `StreamResponse`).
        events: Vec<(u64, Vec<u8>)>,
    },
    /// Any request failed (nothing of it was done).
    Failed {
        /// The request.
        id: StoreRequestId,
        /// Why.
        error: StoreError,
    },
}

impl StoreReply {
    /// The id of the request this answers.
    pub fn id(&self) -> StoreRequestId {
        match self {
            StoreReply::Opened { id, .. }
            | StoreReply::Loaded { id, .. }
            | StoreReply::Listed { id, .. }
            | StoreReply::Written { id }
            | StoreReply::Conflict { id, .. }
            | StoreReply::Expired { id, .. }
            | StoreReply::Events { id, .. }
            | StoreReply::Renewed { id, .. }
            | StoreReply::Claimed { id, .. }
            | StoreReply::Failed { id, .. } => *id,
        }
    }
}

/// The bounded working set in front of an external store: tasks with live calls, runs or
/// streams, plus a cache of others bounded in bytes, and the changes not yet written.
#[derive(Debug)]
pub struct Cache {
    pub(crate) tasks: super::store::IdMap<Entry>,
    pub(crate) messages: BTreeMap<String, MessageRecord>,
    /// Least recently used first: tick -> task id.
    order: BTreeMap<u64, String>,
    tick: u64,
    bytes: usize,
    /// What the cached message records cost ([`message_cost`]).
    message_bytes: usize,
    limit: usize,
    /// Ids the store said it does not hold, while calls that asked are parked.
    pub(crate) absent: BTreeSet<String>,
    pub(crate) absent_messages: BTreeSet<String>,
    /// Tasks changed since the last write was made.
    pub(crate) dirty: BTreeSet<String>,
    /// Message-index changes since then.
    pub(crate) dirty_messages: BTreeMap<String, Option<MessageRecord>>,
    pub(crate) webhooks: BTreeMap<u64, Option<Queued>>,
    /// Events published since then, for the next batch.
    pub(crate) events: Vec<StoredEvent>,
}

#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) task: StoredTask,
    bytes: usize,
    tick: u64,
}

/// What a cached task costs in memory: the heap its task, record and configs hold
/// ([`super::heap`]), the values themselves, and the bookkeeping around it (its entry in the
/// id map, its place in the eviction order and the two copies of its id they keep).
fn cost(t: &StoredTask) -> usize {
    use super::heap;
    let id = heap::string(&t.record.task.id);
    size_of::<Entry>()
        + heap::task(&t.record.task)
        + heap::block(t.record.closed_artifacts.capacity() * size_of::<String>())
        + t.record.closed_artifacts.iter().map(heap::string).sum::<usize>()
        + heap::string(&t.tenant)
        + t.owner.as_ref().map_or(0, heap::string)
        + heap::block(t.push_configs.capacity() * size_of::<super::PushConfig>())
        + t.push_configs.iter().map(|p| heap::push_config(&p.config)).sum::<usize>()
        // The id map's slot (a key and a value, at most 7/8 full) and the order's entry.
        + (size_of::<String>() + size_of::<Entry>()) / 7
        + size_of::<String>()
        + heap::map_entry::<u64, String>()
        + 2 * id
}

/// What a cached message-index record costs in memory (its map entry, key and strings).
fn message_cost(key: &str, r: &MessageRecord) -> usize {
    use super::heap::{block, string};
    super::heap::map_entry::<String, MessageRecord>()
        + block(key.len())
        + string(&r.task_id)
        + string(&r.sent_task_id)
        + string(&r.sent_context_id)
}

impl Cache {
    /// What `task` counts against the cache's bound: an estimate of the memory it takes in
    /// the cache (its heap blocks with the allocator's rounding, and the cache's bookkeeping).
    pub fn task_cost(task: &StoredTask) -> usize {
        cost(task)
    }

    /// An empty working set whose cache of idle tasks holds about `limit` bytes.
    pub fn new(limit: usize, seed: u64) -> Self {
        Cache {
            tasks: super::store::IdMap::new(seed),
            messages: BTreeMap::new(),
            order: BTreeMap::new(),
            tick: 0,
            bytes: 0,
            message_bytes: 0,
            limit,
            absent: BTreeSet::new(),
            absent_messages: BTreeSet::new(),
            dirty: BTreeSet::new(),
            dirty_messages: BTreeMap::new(),
            webhooks: BTreeMap::new(),
            events: Vec::new(),
        }
    }

    pub(crate) fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
    }

    /// Bytes the cached tasks take (an estimate).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Tasks in memory.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// True when no task is in memory.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn get(&self, id: &str) -> Option<&StoredTask> {
        self.tasks.get(id).map(|e| &e.task)
    }

    pub(crate) fn get_mut(&mut self, id: &str) -> Option<&mut StoredTask> {
        self.tasks.get_mut(id).map(|e| &mut e.task)
    }

    /// Known: in memory, or known not to exist.
    pub(crate) fn knows(&self, id: &str) -> bool {
        self.tasks.get(id).is_some() || self.absent.contains(id)
    }

    pub(crate) fn knows_message(&self, key: &str) -> bool {
        self.messages.contains_key(key) || self.absent_messages.contains(key) || self.dirty_messages.contains_key(key)
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// Adds a task (a new one, or one loaded). A task already in memory is kept: it may hold
    /// changes newer than the store's copy.
    pub(crate) fn insert(&mut self, task: StoredTask) {
        if self.tasks.get(&task.record.task.id).is_some() {
            return;
        }
        let id = task.record.task.id.clone();
        self.absent.remove(&id);
        let bytes = cost(&task);
        let tick = self.next_tick();
        self.bytes += bytes;
        self.order.insert(tick, id.clone());
        self.tasks.insert(id, Entry { task, bytes, tick });
    }

    /// The task is used now (it moves to the end of the eviction order), and it changed when
    /// `changed` (its size is counted again, and it is written with the next batch).
    pub(crate) fn touch(&mut self, id: &str, changed: bool) {
        let tick = self.next_tick();
        let Some(e) = self.tasks.get_mut(id) else { return };
        self.order.remove(&e.tick);
        e.tick = tick;
        if changed {
            let bytes = cost(&e.task);
            self.bytes = self.bytes - e.bytes + bytes;
            e.bytes = bytes;
        }
        self.order.insert(tick, String::from(id));
        if changed && !self.dirty.contains(id) {
            self.dirty.insert(String::from(id));
        }
    }

    /// Puts the store's copy of a task in place of the one in memory.
    pub(crate) fn replace(&mut self, task: StoredTask) {
        let id = task.record.task.id.clone();
        self.remove(&id);
        self.insert(task);
    }

    /// The ids of the tasks in memory.
    pub(crate) fn ids(&self) -> Vec<String> {
        self.tasks.slots().map(|s| s.key.clone()).collect()
    }

    pub(crate) fn remove(&mut self, id: &str) {
        if let Some(e) = self.tasks.get(id) {
            let (tick, bytes) = (e.tick, e.bytes);
            self.order.remove(&tick);
            self.bytes -= bytes;
            self.tasks.remove(id);
        }
        self.dirty.remove(id);
    }

    pub(crate) fn message(&self, key: &str) -> Option<&MessageRecord> {
        match self.dirty_messages.get(key) {
            Some(change) => change.as_ref(),
            None => self.messages.get(key),
        }
    }

    pub(crate) fn remember_message(&mut self, key: String, record: MessageRecord) {
        self.absent_messages.remove(&key);
        self.dirty_messages.insert(key, Some(record));
    }

    pub(crate) fn forget_message(&mut self, key: &str) {
        self.uncache_message(key);
        self.dirty_messages.insert(String::from(key), None);
    }

    /// Keeps a message record known to be stored (counted against the bound).
    pub(crate) fn cache_message(&mut self, key: String, record: MessageRecord) {
        let cost = message_cost(&key, &record);
        if let Some(old) = self.messages.insert(key.clone(), record) {
            self.message_bytes -= message_cost(&key, &old);
        }
        self.message_bytes += cost;
    }

    fn uncache_message(&mut self, key: &str) {
        if let Some((k, r)) = self.messages.remove_entry(key) {
            self.message_bytes -= message_cost(&k, &r);
        }
    }

    /// Evicts the least recently used tasks for which `keep` is false and that have no
    /// unwritten change, until the cache is within its bound (or only kept tasks are left).
    /// Message records take at most a quarter of the bound, tasks the rest.
    pub(crate) fn evict(&mut self, keep: impl Fn(&str) -> bool, writing: &BTreeSet<String>) {
        let message_limit = self.limit / 4;
        while self.message_bytes > message_limit {
            let Some((k, r)) = self.messages.pop_first() else { break };
            self.message_bytes -= message_cost(&k, &r);
        }
        let task_limit = self.limit - self.message_bytes;
        let mut passes = self.order.len();
        while self.bytes > task_limit && passes > 0 {
            passes -= 1;
            let Some((_, id)) = self.order.pop_first() else { break };
            if keep(&id) || self.dirty.contains(&id) || writing.contains(&id) {
                let tick = self.next_tick();
                if let Some(e) = self.tasks.get_mut(&id) {
                    e.tick = tick;
                }
                self.order.insert(tick, id);
                continue;
            }
            if let Some(e) = self.tasks.get(&id) {
                self.bytes -= e.bytes;
            }
            self.tasks.remove(&id);
        }
    }

    /// Takes the changes since the last batch (the task copies as they are now).
    pub(crate) fn take_batch(&mut self, at: Timestamp) -> (WriteBatch, Vec<(String, u64)>) {
        let mut batch = WriteBatch { at, ..Default::default() };
        let mut bases = Vec::new();
        for id in core::mem::take(&mut self.dirty) {
            let Some(t) = self.get(&id) else { continue };
            let mut task = t.clone();
            let base = task.version;
            task.version = base + 1;
            let terminal = matches!(task.record.state().map(crate::task::class), Some(crate::task::StateClass::Terminal));
            bases.push((id, base));
            batch.tasks.push(TaskWrite { task, base, terminal, leased: false });
        }
        for (k, change) in core::mem::take(&mut self.dirty_messages) {
            if let Some(r) = &change {
                self.cache_message(k.clone(), r.clone());
            }
            batch.messages.push((k, change));
        }
        for (seq, q) in core::mem::take(&mut self.webhooks) {
            match q {
                Some(q) => batch.webhooks_queued.push(q),
                None => batch.webhooks_done.push(seq),
            }
        }
        batch.events = core::mem::take(&mut self.events);
        (batch, bases)
    }

    /// A batch is durable: the tasks' copies now have the versions written.
    pub(crate) fn written(&mut self, bases: &[(String, u64)]) {
        for (id, base) in bases {
            if let Some(e) = self.tasks.get_mut(id) {
                if e.task.version == *base {
                    e.task.version = base + 1;
                }
            }
        }
    }

    /// A batch was not written: its changes are written again with the next one (but those
    /// of the `except` tasks).
    pub(crate) fn unwritten(
        &mut self,
        tasks: Vec<String>,
        messages: Vec<(String, Option<MessageRecord>)>,
        queued: Vec<Queued>,
        done: Vec<u64>,
        events: Vec<StoredEvent>,
        except: &BTreeSet<String>,
    ) {
        // The refused batch's events come before those published since.
        let later = core::mem::take(&mut self.events);
        self.events = events.into_iter().filter(|e| !except.contains(&e.task_id)).chain(later).collect();
        for id in tasks {
            if !except.contains(&id) && self.tasks.get(&id).is_some() {
                self.dirty.insert(id);
            }
        }
        for (k, change) in messages {
            self.dirty_messages.entry(k).or_insert(change);
        }
        for q in queued {
            self.webhooks.entry(q.seq).or_insert(Some(q));
        }
        for seq in done {
            self.webhooks.entry(seq).or_insert(None);
        }
    }

    pub(crate) fn webhook_changed(&mut self, change: crate::webhook::Change) {
        match change {
            crate::webhook::Change::Queued(q) => {
                self.webhooks.insert(q.seq, Some(q));
            }
            crate::webhook::Change::Done(seq) => {
                if let Some(Some(_)) = self.webhooks.get(&seq) {
                    self.webhooks.remove(&seq);
                } else {
                    self.webhooks.insert(seq, None);
                }
            }
        }
    }
}

/// An external store in memory that answers every request as the rules above say: the
/// reference the other stores are tested against, and a store for tests and examples of
/// hosts that answer store requests themselves.
#[derive(Debug, Default)]
pub struct StoreInMemory {
    tasks: BTreeMap<String, (StoredTask, i64, bool)>,
    messages: BTreeMap<String, MessageRecord>,
    /// Deliveries by (owner, number).
    webhooks: BTreeMap<(String, u64), Queued>,
    /// Each owner's last heartbeat (the `until` of its last claim), in ms.
    owners: BTreeMap<String, i64>,
    events: BTreeMap<String, alloc::collections::VecDeque<(u64, Vec<u8>)>>,
    /// Each task's lease: (owner, until in ms).
    leases: BTreeMap<String, (String, i64)>,
    /// Every task write, in order, as (task id, new version): what a store's change notices
    /// would tell the other servers ([`super::Engine::handle_task_changed`]).
    pub changes: Vec<(String, u64)>,
    /// When set, every request fails with this error.
    pub fail: Option<String>,
}

fn timestamp_ms(t: Timestamp) -> i64 {
    t.seconds.saturating_mul(1000).saturating_add(i64::from(t.nanos / 1_000_000))
}

impl StoreInMemory {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many tasks it holds.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// True when it holds no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The stored task `id`.
    pub fn get(&self, id: &str) -> Option<&StoredTask> {
        self.tasks.get(id).map(|(t, _, _)| t)
    }

    /// Carries out one request.
    pub fn answer(&mut self, request: StoreRequest) -> StoreReply {
        let id = request.id();
        if let Some(e) = &self.fail {
            return StoreReply::Failed { id, error: StoreError(e.clone()) };
        }
        match request {
            StoreRequest::Open { id } => StoreReply::Opened {
                id,
                unfinished: self
                    .tasks
                    .values()
                    .filter(|(t, _, _)| matches!(t.record.state(), Some(TaskState::Submitted | TaskState::Working)))
                    .map(|(t, _, _)| t.clone())
                    .collect(),
                webhooks: self.webhooks.iter().filter(|((o, _), _)| o.is_empty()).map(|(_, q)| q.clone()).collect(),
            },
            StoreRequest::Load { id, tasks, messages } => StoreReply::Loaded {
                id,
                tasks: tasks.iter().filter_map(|t| self.get(t).cloned()).collect(),
                messages: messages.iter().filter_map(|k| self.messages.get(k).map(|r| (k.clone(), r.clone()))).collect(),
            },
            StoreRequest::List { id, query } => {
                let mut matches: Vec<&StoredTask> = self.tasks.values().map(|(t, _, _)| t).filter(|t| query.matches(t)).collect();
                matches.sort_by(|a, b| list_key(b).cmp(&list_key(a)).then_with(|| a.record.task.id.cmp(&b.record.task.id)));
                let total = matches.len();
                let tasks = matches.into_iter().filter(|t| query.after_cursor(t)).take(query.limit).cloned().collect();
                StoreReply::Listed { id, tasks, total }
            }
            StoreRequest::Write { id, batch } => {
                let stale: Vec<String> = batch
                    .tasks
                    .iter()
                    .filter(|w| self.get(&w.task.record.task.id).map_or(0, |t| t.version) != w.base)
                    .map(|w| w.task.record.task.id.clone())
                    .collect();
                if !stale.is_empty() {
                    return StoreReply::Conflict { id, tasks: stale };
                }
                let at = timestamp_ms(batch.at);
                for w in batch.tasks {
                    let tid = w.task.record.task.id.clone();
                    if let Some(lease) = &batch.lease {
                        if w.leased {
                            self.leases.insert(tid.clone(), (lease.owner.clone(), timestamp_ms(lease.until)));
                        } else if self.leases.get(&tid).is_some_and(|(o, _)| *o == lease.owner) {
                            self.leases.remove(&tid);
                        }
                    }
                    self.changes.push((w.task.record.task.id.clone(), w.task.version));
                    self.tasks.insert(w.task.record.task.id.clone(), (w.task, at, w.terminal));
                }
                let keep = batch.keep_events.max(1);
                for e in batch.events {
                    let log = self.events.entry(e.task_id).or_default();
                    log.push_back((e.seq, e.body));
                    while log.len() > keep {
                        log.pop_front();
                    }
                }
                for (k, r) in batch.messages {
                    match r {
                        Some(r) => self.messages.insert(k, r),
                        None => self.messages.remove(&k),
                    };
                }
                let owner = batch.lease.as_ref().map(|l| l.owner.clone()).unwrap_or_default();
                for q in batch.webhooks_queued {
                    self.webhooks.insert((owner.clone(), q.seq), q);
                }
                for n in batch.webhooks_done {
                    self.webhooks.remove(&(owner.clone(), n));
                }
                StoreReply::Written { id }
            }
            StoreRequest::Expire { id, before, limit } => {
                let before = timestamp_ms(before);
                let mut old: Vec<(i64, String)> = self
                    .tasks
                    .iter()
                    .filter(|(_, (_, at, terminal))| *terminal && *at < before)
                    .map(|(k, (_, at, _))| (*at, k.clone()))
                    .collect();
                old.sort();
                old.truncate(limit);
                let gone: Vec<String> = old.into_iter().map(|(_, k)| k).collect();
                for k in &gone {
                    self.tasks.remove(k);
                    self.events.remove(k);
                    self.leases.remove(k);
                    self.messages.retain(|_, r| &r.task_id != k);
                    let prefix = alloc::format!("{k}\u{0}");
                    self.webhooks.retain(|_, q| !q.queue.starts_with(&prefix));
                }
                StoreReply::Expired { id, tasks: gone }
            }
            StoreRequest::Renew { id, owner, tasks, until } => {
                let until = timestamp_ms(until);
                let mut lost = Vec::new();
                for t in tasks {
                    match self.leases.get_mut(&t) {
                        Some((o, u)) if *o == owner && self.tasks.contains_key(&t) => *u = until,
                        _ => lost.push(t),
                    }
                }
                StoreReply::Renewed { id, lost }
            }
            StoreRequest::Claim { id, lease, now, limit, webhook_seq_from } => {
                let now = timestamp_ms(now);
                self.owners.insert(lease.owner.clone(), timestamp_ms(lease.until));
                let dead: BTreeSet<String> = self.owners.iter().filter(|(_, until)| **until < now).map(|(o, _)| o.clone()).collect();
                let taken: Vec<(String, u64)> =
                    self.webhooks.keys().filter(|(o, _)| dead.contains(o)).take(CLAIM_WEBHOOKS).cloned().collect();
                let mut webhooks = Vec::new();
                for (n, key) in taken.into_iter().enumerate() {
                    if let Some(mut q) = self.webhooks.remove(&key) {
                        q.seq = webhook_seq_from + n as u64;
                        self.webhooks.insert((lease.owner.clone(), q.seq), q.clone());
                        webhooks.push(q);
                    }
                }
                let mut expired: Vec<(i64, String)> = self
                    .leases
                    .iter()
                    .filter(|(t, (_, until))| {
                        *until < now
                            && self.get(t).is_some_and(|t| matches!(t.record.state(), Some(TaskState::Submitted | TaskState::Working)))
                    })
                    .map(|(t, (_, until))| (*until, t.clone()))
                    .collect();
                expired.sort();
                expired.truncate(limit);
                let mut claimed = Vec::new();
                for (_, t) in expired {
                    self.leases.insert(t.clone(), (lease.owner.clone(), timestamp_ms(lease.until)));
                    if let Some((task, _, _)) = self.tasks.get_mut(&t) {
                        task.version += 1;
                        self.changes.push((t.clone(), task.version));
                        claimed.push(task.clone());
                    }
                }
                StoreReply::Claimed { id, tasks: claimed, webhooks }
            }
            StoreRequest::Events { id, task, after } => StoreReply::Events {
                id,
                task: self.get(&task).cloned(),
                events: self.events.get(&task).map(|l| l.iter().filter(|(n, _)| *n > after).cloned().collect()).unwrap_or_default(),
            },
        }
    }
}

//! Where the engine keeps tasks: [`Storage::Memory`], where memory is the store (every task
//! in a [`MemoryStore`], nothing to write), or [`Storage::External`], a bounded working set
//! ([`super::Cache`]) in front of a store the host speaks to (see [`super::external`]).

use crate::task::TaskRecord;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use hashbrown::HashTable;

/// A task as stored: the record plus who may see it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StoredTask {
    /// The task and its machine state.
    pub record: TaskRecord,
    /// The tenant it was created under ("" = none).
    pub tenant: String,
    /// The principal that created it (`None`: created without authentication).
    pub owner: Option<String>,
    /// Push configs of the task, in creation order.
    pub push_configs: Vec<super::PushConfig>,
    /// The version of the stored row this copy is (0: never written). An external store
    /// refuses a write based on another version than the one it holds.
    pub version: u64,
    /// The number of the task's last event in its event sequence (0 before any; see
    /// [`super::EventId`]). Kept with the task, so that every server over one store, and a
    /// server after a restart, numbers the task's next event alike.
    pub last_event: u64,
}

/// What the message-id index remembers of a message (only when the engine de-duplicates
/// message ids, [`super::EngineConfig::dedup_message_ids`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MessageRecord {
    /// The task the message went to.
    pub task_id: String,
    /// The `taskId` the client sent with it ("" for a new task).
    pub sent_task_id: String,
    /// The `contextId` the client sent with it ("" when none).
    pub sent_context_id: String,
}

/// A store request that failed. A message made by [`StoreError::unreachable`] says the
/// store could not be reached (a database down or cut off): the calls it concerned get
/// `Unavailable` (try again later) rather than `Internal`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

/// How the message of an unreachable store's error starts.
const UNREACHABLE: &str = "unreachable: ";

impl StoreError {
    /// The store could not be reached (its connection failed or timed out).
    pub fn unreachable(detail: impl core::fmt::Display) -> StoreError {
        StoreError(alloc::format!("{UNREACHABLE}{detail}"))
    }

    /// Whether the store could not be reached ([`StoreError::unreachable`]).
    pub fn is_unreachable(&self) -> bool {
        self.0.starts_with(UNREACHABLE)
    }
}

impl core::fmt::Display for StoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "task store: {}", self.0)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for StoreError {}

/// A hash map from string ids, for the in-memory store, split in [`SHARDS`] tables that grow
/// one at a time. Growing a table allocates, faults in and fills a new one; for one table of
/// half a million tasks that is a stall of tens of milliseconds every client would see in its
/// tail latency, for a shard it is a sixty-fourth of that. Each slot keeps its key's hash, so
/// a shard grows without reading any key again. Keys are hashed with foldhash keyed by a
/// per-store seed, because message keys are chosen by peers.
#[derive(Clone)]
pub(crate) struct IdMap<V> {
    shards: Vec<HashTable<Slot<V>>>,
    seed: foldhash::fast::FixedState,
}

/// Number of tables of an [`IdMap`].
const SHARDS: usize = 64;

#[derive(Clone)]
pub(crate) struct Slot<V> {
    hash: u64,
    pub(crate) key: String,
    pub(crate) value: V,
}

impl<V> IdMap<V> {
    pub(crate) fn new(seed: u64) -> Self {
        IdMap { shards: (0..SHARDS).map(|_| HashTable::new()).collect(), seed: foldhash::fast::FixedState::with_seed(seed) }
    }
    /// The key's hash and its shard. The shard comes from bits 32..38, which the tables use
    /// for neither the bucket index (low bits) nor the tag (top 7 bits).
    fn locate(&self, key: &str) -> (u64, usize) {
        let hash = core::hash::BuildHasher::hash_one(&self.seed, key);
        (hash, (hash >> 32) as usize % SHARDS)
    }
    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        let (hash, shard) = self.locate(key);
        self.shards.get(shard)?.find(hash, |s| s.key == key).map(|s| &s.value)
    }
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        let (hash, shard) = self.locate(key);
        self.shards.get_mut(shard)?.find_mut(hash, |s| s.key == key).map(|s| &mut s.value)
    }
    pub(crate) fn insert(&mut self, key: String, value: V) {
        let (hash, shard) = self.locate(&key);
        let Some(table) = self.shards.get_mut(shard) else { return };
        match table.entry(hash, |s| s.key == key, |s| s.hash) {
            hashbrown::hash_table::Entry::Occupied(mut e) => e.get_mut().value = value,
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(Slot { hash, key, value });
            }
        }
    }
    pub(crate) fn remove(&mut self, key: &str) {
        let (hash, shard) = self.locate(key);
        if let Some(table) = self.shards.get_mut(shard) {
            if let Ok(e) = table.find_entry(hash, |s| s.key == key) {
                e.remove();
            }
        }
    }
    pub(crate) fn slots(&self) -> impl Iterator<Item = &Slot<V>> {
        self.shards.iter().flat_map(|t| t.iter())
    }
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.slots().map(|s| &s.value)
    }
    pub(crate) fn len(&self) -> usize {
        self.shards.iter().map(HashTable::len).sum()
    }
}

impl<V: core::fmt::Debug> core::fmt::Debug for IdMap<V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map().entries(self.slots().map(|s| (&s.key, &s.value))).finish()
    }
}

/// Tasks in memory: hash maps by id (see `IdMap`; a B-tree of string keys costs a pointer
/// chase to a key's bytes at every comparison, which dominated the request path at a few
/// hundred thousand tasks). Tasks are boxed so that growing the map moves pointers, not
/// task records.
#[derive(Clone, Debug)]
pub struct MemoryStore {
    tasks: IdMap<Box<StoredTask>>,
    messages: IdMap<MessageRecord>,
    /// Terminal tasks by when they last changed (ms, then order of arrival), for
    /// retention; keyed by numbers alone, so that keeping it in order compares no ids.
    finished: alloc::collections::BTreeMap<(i64, u64), String>,
    /// Each terminal task's key in `finished`.
    finished_at: IdMap<(i64, u64)>,
    /// The arrival number of the last entry of `finished`.
    finished_count: u64,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryStore {
    /// An empty store. With the `std` feature its hash seed is random per store; without it
    /// the seed is fixed, and a server facing untrusted peers should use
    /// [`MemoryStore::with_seed`] with a random seed instead.
    pub fn new() -> Self {
        Self::with_seed(default_seed())
    }

    /// An empty store whose hash maps are keyed by `seed`.
    pub fn with_seed(seed: u64) -> Self {
        MemoryStore {
            tasks: IdMap::new(seed),
            messages: IdMap::new(seed.rotate_left(32) ^ 0x9e37_79b9_7f4a_7c15),
            finished: alloc::collections::BTreeMap::new(),
            finished_at: IdMap::new(seed.rotate_left(16) ^ 0x6a09_e667_f3bc_c909),
            finished_count: 0,
        }
    }
}

#[cfg(feature = "std")]
pub(crate) fn default_seed() -> u64 {
    use core::hash::{BuildHasher, Hasher as _};
    // The standard library's per-process random keys.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0x5eed);
    h.finish()
}

#[cfg(not(feature = "std"))]
pub(crate) fn default_seed() -> u64 {
    0x243f_6a88_85a3_08d3
}

impl MemoryStore {
    /// The task with this id.
    pub fn get(&self, id: &str) -> Option<&StoredTask> {
        self.tasks.get(id).map(|t| &**t)
    }
    pub(crate) fn get_mut(&mut self, id: &str) -> Option<&mut StoredTask> {
        self.tasks.get_mut(id).map(|t| &mut **t)
    }
    /// Adds a task (replacing one with its id).
    pub fn insert(&mut self, task: StoredTask) {
        self.tasks.insert(task.record.task.id.clone(), Box::new(task));
    }
    /// The task changed at `now_ms`: a terminal one is dated for retention.
    pub(crate) fn touched(&mut self, id: &str, now_ms: i64) {
        let terminal =
            self.get(id).is_some_and(|t| matches!(t.record.state().map(crate::task::class), Some(crate::task::StateClass::Terminal)));
        if let Some(old) = self.finished_at.get(id).copied() {
            self.finished.remove(&old);
            self.finished_at.remove(id);
        }
        if terminal {
            self.finished_count += 1;
            let key = (now_ms, self.finished_count);
            self.finished.insert(key, String::from(id));
            self.finished_at.insert(String::from(id), key);
        }
    }
    /// Every task, in any order.
    pub fn iter(&self) -> impl Iterator<Item = &StoredTask> + '_ {
        self.tasks.values().map(|t| &**t)
    }
    /// What the message-id index holds for `key`.
    pub fn message(&self, key: &str) -> Option<&MessageRecord> {
        self.messages.get(key)
    }
    /// Records where the message `key` went.
    pub fn remember_message(&mut self, key: String, record: MessageRecord) {
        self.messages.insert(key, record);
    }
    /// Forgets a message key.
    pub fn forget_message(&mut self, key: &str) {
        self.messages.remove(key);
    }
    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }
    /// True when there is no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Deletes at most `limit` terminal tasks whose last change is before `before_ms`, with
    /// the message-index entries that point to them; returns their ids.
    pub(crate) fn expire(&mut self, before_ms: i64, limit: usize) -> Vec<String> {
        let mut gone = Vec::new();
        while gone.len() < limit {
            let Some(((at, _), _)) = self.finished.first_key_value() else { break };
            if *at >= before_ms {
                break;
            }
            let Some((_, id)) = self.finished.pop_first() else { break };
            self.finished_at.remove(&id);
            self.tasks.remove(&id);
            gone.push(id);
        }
        if !gone.is_empty() && self.messages.len() > 0 {
            let dead: alloc::collections::BTreeSet<&str> = gone.iter().map(String::as_str).collect();
            let keys: Vec<String> =
                self.messages.slots().filter(|s| dead.contains(s.value.task_id.as_str())).map(|s| s.key.clone()).collect();
            for k in keys {
                self.messages.remove(&k);
            }
        }
        gone
    }
}

/// Where an engine keeps its tasks.
#[derive(Debug)]
pub enum Storage {
    /// Memory is the store: every task in memory, nothing written anywhere.
    Memory(MemoryStore),
    /// A store the host speaks to, with a bounded working set in memory.
    External(super::Cache),
}

impl From<MemoryStore> for Storage {
    fn from(m: MemoryStore) -> Self {
        Storage::Memory(m)
    }
}

impl From<super::Cache> for Storage {
    fn from(c: super::Cache) -> Self {
        Storage::External(c)
    }
}

impl Storage {
    /// An external store with a working-set cache of about `cache_bytes` for idle tasks.
    pub fn external(cache_bytes: usize) -> Self {
        Storage::External(super::Cache::new(cache_bytes, default_seed()))
    }

    /// True for [`Storage::External`].
    pub fn is_external(&self) -> bool {
        matches!(self, Storage::External(_))
    }

    /// The task with this id, if it is in memory.
    pub fn get(&self, id: &str) -> Option<&StoredTask> {
        match self {
            Storage::Memory(m) => m.get(id),
            Storage::External(c) => c.get(id),
        }
    }

    pub(crate) fn get_mut(&mut self, id: &str) -> Option<&mut StoredTask> {
        match self {
            Storage::Memory(m) => m.get_mut(id),
            Storage::External(c) => c.get_mut(id),
        }
    }

    pub(crate) fn insert(&mut self, task: StoredTask) {
        match self {
            Storage::Memory(m) => m.insert(task),
            Storage::External(c) => {
                let id = task.record.task.id.clone();
                c.insert(task);
                c.touch(&id, true);
            }
        }
    }

    pub(crate) fn touched(&mut self, id: &str, now_ms: i64) {
        match self {
            Storage::Memory(m) => m.touched(id, now_ms),
            Storage::External(c) => c.touch(id, true),
        }
    }

    pub(crate) fn message(&self, key: &str) -> Option<&MessageRecord> {
        match self {
            Storage::Memory(m) => m.message(key),
            Storage::External(c) => c.message(key),
        }
    }

    pub(crate) fn remember_message(&mut self, key: String, record: MessageRecord) {
        match self {
            Storage::Memory(m) => m.remember_message(key, record),
            Storage::External(c) => c.remember_message(key, record),
        }
    }

    pub(crate) fn forget_message(&mut self, key: &str) {
        match self {
            Storage::Memory(m) => m.forget_message(key),
            Storage::External(c) => c.forget_message(key),
        }
    }

    /// Tasks in memory (for [`Storage::Memory`], every task).
    pub fn len(&self) -> usize {
        match self {
            Storage::Memory(m) => m.len(),
            Storage::External(c) => c.len(),
        }
    }

    /// True when no task is in memory.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    #[test]
    fn the_id_map_keeps_every_key_through_growth_replacement_and_removal() {
        let mut m: IdMap<u32> = IdMap::new(7);
        // Enough keys for every shard to grow several times.
        for i in 0..20_000u32 {
            m.insert(format!("task-{i}"), i);
        }
        assert_eq!(m.len(), 20_000);
        for i in (0..20_000u32).step_by(997) {
            assert_eq!(m.get(&format!("task-{i}")), Some(&i));
        }
        m.insert(String::from("task-5"), 100_005);
        *m.get_mut("task-6").unwrap() = 100_006;
        m.remove("task-7");
        m.remove("no-such-key");
        assert_eq!((m.get("task-5"), m.get("task-6"), m.get("task-7"), m.len()), (Some(&100_005), Some(&100_006), None, 19_999));
        let mut all: Vec<u32> = m.values().copied().collect();
        all.sort_unstable();
        assert_eq!(all.len(), 19_999);
        assert_eq!(all.iter().filter(|v| **v > 20_000).count(), 2);
        // Keys are spread over the shards, not piled into a few.
        let used = m.shards.iter().filter(|t| !t.is_empty()).count();
        assert_eq!(used, SHARDS);
    }

    #[test]
    fn stores_with_different_seeds_hold_the_same_tasks() {
        let mut a = MemoryStore::with_seed(1);
        let mut b = MemoryStore::with_seed(2);
        for i in 0..100 {
            let mut t = StoredTask::default();
            t.record.task.id = format!("t{i}");
            a.insert(t.clone());
            b.insert(t);
            let r = MessageRecord { task_id: format!("t{i}"), ..Default::default() };
            a.remember_message(format!("m{i}"), r.clone());
            b.remember_message(format!("m{i}"), r);
        }
        a.forget_message("m3");
        b.forget_message("m3");
        for i in 0..100 {
            let id = format!("t{i}");
            assert_eq!(a.get(&id).map(|t| &t.record.task.id), Some(&id));
            assert_eq!(a.get(&id), b.get(&id));
            assert_eq!(a.message(&format!("m{i}")), b.message(&format!("m{i}")));
        }
        let task_of = |k: &str| a.message(k).map(|r| r.task_id.as_str());
        assert_eq!((a.len(), task_of("m3"), task_of("m4")), (100, None, Some("t4")));
        assert_eq!(a.iter().count(), 100);
    }
}

//! Task storage behind a trait, with the in-memory implementation.
//!
//! The trait borrows: the engine reads and changes tasks in place, and tells the store when a
//! task changed ([`TaskStore::touched`]), so a persistent store can write behind while
//! serving reads from memory. [`TaskStore::flush`] makes the changes durable and reports a
//! failed write; the engine then answers the calls whose changes were lost with an internal
//! error (see [`super::Engine::flush_store`]).
//!
//! A store that lives elsewhere (a database, or a store written in another language behind
//! the C, Python or Node bindings) does not implement this trait: it implements
//! [`super::Backend`], which only takes and returns owned values, and
//! [`super::Persisted`] keeps the working set in memory in front of it.

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

/// A store write that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

impl core::fmt::Display for StoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "task store: {}", self.0)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for StoreError {}

/// Where the engine keeps tasks.
pub trait TaskStore {
    /// The task with this id.
    fn get(&self, id: &str) -> Option<&StoredTask>;
    /// The task with this id, to change it; call [`TaskStore::touched`] afterwards.
    fn get_mut(&mut self, id: &str) -> Option<&mut StoredTask>;
    /// Adds a new task.
    fn insert(&mut self, task: StoredTask);
    /// The task `id` changed (persistent stores write it at the next [`TaskStore::flush`]).
    fn touched(&mut self, id: &str);
    /// Every task, in any order (for listing).
    fn iter(&self) -> Box<dyn Iterator<Item = &StoredTask> + '_>;
    /// What the message-id index holds for `key` (scoped by the engine: tenant, principal,
    /// message id).
    fn message(&self, key: &str) -> Option<&MessageRecord>;
    /// Records where the message `key` went.
    fn remember_message(&mut self, key: String, record: MessageRecord);
    /// Forgets a message key (a message answered without a task may be sent again).
    fn forget_message(&mut self, key: &str);
    /// Number of tasks.
    fn len(&self) -> usize;
    /// True when there is no task.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Makes every change so far durable. A persistent store collects the changes of
    /// [`TaskStore::insert`], [`TaskStore::touched`] and the message index and writes them
    /// here in one transaction; a driver calls it (through [`super::Engine::flush_store`])
    /// before it delivers any output, so that what a peer was told survives a crash. On
    /// failure the store keeps the changes and writes them again at a later flush; the error
    /// tells the engine which answers must not claim success. Memory stores have nothing to
    /// do.
    fn flush(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
    /// Webhook deliveries this store kept from before a restart, handed over once (to the
    /// service that opens it; see [`crate::webhook::Deliveries::restore`]). Memory stores
    /// keep none.
    fn take_webhooks(&mut self) -> Vec<crate::webhook::Queued> {
        Vec::new()
    }
    /// A webhook delivery was queued or is over: a persistent store keeps the queued ones
    /// (written at the next [`TaskStore::flush`], with the task changes that made them).
    fn webhook_changed(&mut self, change: crate::webhook::Change) {
        let _ = change;
    }
}

/// A hash map from string ids, for the in-memory store, split in [`SHARDS`] tables that grow
/// one at a time. Growing a table allocates, faults in and fills a new one; for one table of
/// half a million tasks that is a stall of tens of milliseconds every client would see in its
/// tail latency, for a shard it is a sixty-fourth of that. Each slot keeps its key's hash, so
/// a shard grows without reading any key again. Keys are hashed with foldhash keyed by a
/// per-store seed, because message keys are chosen by peers.
#[derive(Clone)]
struct IdMap<V> {
    shards: Vec<HashTable<Slot<V>>>,
    seed: foldhash::fast::FixedState,
}

/// Number of tables of an [`IdMap`].
const SHARDS: usize = 64;

#[derive(Clone)]
struct Slot<V> {
    hash: u64,
    key: String,
    value: V,
}

impl<V> IdMap<V> {
    fn new(seed: u64) -> Self {
        IdMap { shards: (0..SHARDS).map(|_| HashTable::new()).collect(), seed: foldhash::fast::FixedState::with_seed(seed) }
    }
    /// The key's hash and its shard. The shard comes from bits 32..38, which the tables use
    /// for neither the bucket index (low bits) nor the tag (top 7 bits).
    fn locate(&self, key: &str) -> (u64, usize) {
        let hash = core::hash::BuildHasher::hash_one(&self.seed, key);
        (hash, (hash >> 32) as usize % SHARDS)
    }
    fn get(&self, key: &str) -> Option<&V> {
        let (hash, shard) = self.locate(key);
        self.shards.get(shard)?.find(hash, |s| s.key == key).map(|s| &s.value)
    }
    fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        let (hash, shard) = self.locate(key);
        self.shards.get_mut(shard)?.find_mut(hash, |s| s.key == key).map(|s| &mut s.value)
    }
    fn insert(&mut self, key: String, value: V) {
        let (hash, shard) = self.locate(&key);
        let Some(table) = self.shards.get_mut(shard) else { return };
        match table.entry(hash, |s| s.key == key, |s| s.hash) {
            hashbrown::hash_table::Entry::Occupied(mut e) => e.get_mut().value = value,
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(Slot { hash, key, value });
            }
        }
    }
    fn remove(&mut self, key: &str) {
        let (hash, shard) = self.locate(key);
        if let Some(table) = self.shards.get_mut(shard) {
            if let Ok(e) = table.find_entry(hash, |s| s.key == key) {
                e.remove();
            }
        }
    }
    fn slots(&self) -> impl Iterator<Item = &Slot<V>> {
        self.shards.iter().flat_map(|t| t.iter())
    }
    fn values(&self) -> impl Iterator<Item = &V> {
        self.slots().map(|s| &s.value)
    }
    fn len(&self) -> usize {
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
        MemoryStore { tasks: IdMap::new(seed), messages: IdMap::new(seed.rotate_left(32) ^ 0x9e37_79b9_7f4a_7c15) }
    }
}

#[cfg(feature = "std")]
fn default_seed() -> u64 {
    use core::hash::{BuildHasher, Hasher as _};
    // The standard library's per-process random keys.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0x5eed);
    h.finish()
}

#[cfg(not(feature = "std"))]
fn default_seed() -> u64 {
    0x243f_6a88_85a3_08d3
}

impl TaskStore for MemoryStore {
    fn get(&self, id: &str) -> Option<&StoredTask> {
        self.tasks.get(id).map(|t| &**t)
    }
    fn get_mut(&mut self, id: &str) -> Option<&mut StoredTask> {
        self.tasks.get_mut(id).map(|t| &mut **t)
    }
    fn insert(&mut self, task: StoredTask) {
        self.tasks.insert(task.record.task.id.clone(), Box::new(task));
    }
    fn touched(&mut self, _id: &str) {}
    fn iter(&self) -> Box<dyn Iterator<Item = &StoredTask> + '_> {
        Box::new(self.tasks.values().map(|t| &**t))
    }
    fn message(&self, key: &str) -> Option<&MessageRecord> {
        self.messages.get(key)
    }
    fn remember_message(&mut self, key: String, record: MessageRecord) {
        self.messages.insert(key, record);
    }
    fn forget_message(&mut self, key: &str) {
        self.messages.remove(key);
    }
    fn len(&self) -> usize {
        self.tasks.len()
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

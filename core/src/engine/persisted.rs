//! A persistent store as a [`Backend`] behind an in-memory working set.
//!
//! [`Persisted`] serves every read from memory ([`MemoryStore`]), collects what changed, and
//! hands it to the backend as one [`Batch`] at each [`TaskStore::flush`]. A backend only
//! takes borrowed values for the length of a call and returns owned ones, so it can be a
//! database client in Rust, or a store written in C, Python or JavaScript behind a binding:
//!
//! - [`Backend::load`] once, when the store opens: every task and message record;
//! - [`Backend::write`] per flush: the tasks that changed (whole), the message-index entries
//!   and the webhook deliveries that changed, to be written atomically. An error leaves the batch collected; it
//!   is offered again, with whatever changed since, at the next flush.

use super::store::{MemoryStore, MessageRecord, StoreError, StoredTask, TaskStore};
use crate::webhook::{Change, Queued};
use alloc::boxed::Box;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

/// Everything a backend holds, as read when the store opens.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    /// Every task.
    pub tasks: Vec<StoredTask>,
    /// Every message-index entry.
    pub messages: Vec<(String, MessageRecord)>,
    /// Every webhook delivery not yet over.
    pub webhooks: Vec<Queued>,
}

/// The changes of one flush.
#[derive(Debug)]
pub struct Batch<'a> {
    /// Tasks created or changed since the last successful write, each in full (an upsert by
    /// `record.task.id`).
    pub tasks: Vec<&'a StoredTask>,
    /// Message-index changes: the record to keep, or `None` to delete the key.
    pub messages: Vec<(&'a str, Option<&'a MessageRecord>)>,
    /// Webhook deliveries to keep (an insert by `seq`), and the numbers of those that are
    /// over (to delete; a number never written is not an error).
    pub webhooks_queued: Vec<&'a Queued>,
    /// See [`Batch::webhooks_queued`].
    pub webhooks_done: Vec<u64>,
}

/// Durable storage for [`Persisted`].
pub trait Backend {
    /// Reads everything stored.
    fn load(&mut self) -> Result<Loaded, StoreError>;
    /// Writes one batch atomically (all of it or none of it).
    fn write(&mut self, batch: &Batch<'_>) -> Result<(), StoreError>;
}

/// A [`TaskStore`] over a [`Backend`]: reads from memory, writes behind in batches.
pub struct Persisted<B: Backend> {
    backend: B,
    mem: MemoryStore,
    dirty: BTreeSet<String>,
    messages: BTreeMap<String, bool>,
    /// Webhook changes since the last write: a delivery to keep, or `None` for one over.
    webhooks: BTreeMap<u64, Option<Queued>>,
    /// What the backend held when the store opened, until [`TaskStore::take_webhooks`].
    restored: Vec<Queued>,
    write_errors: u64,
}

impl<B: Backend + core::fmt::Debug> core::fmt::Debug for Persisted<B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Persisted")
            .field("backend", &self.backend)
            .field("tasks", &self.mem.len())
            .field("pending", &(self.dirty.len() + self.messages.len()))
            .finish()
    }
}

impl<B: Backend> Persisted<B> {
    /// Opens the store: loads everything the backend holds.
    pub fn open(mut backend: B) -> Result<Self, StoreError> {
        let loaded = backend.load()?;
        let mut mem = MemoryStore::new();
        for t in loaded.tasks {
            mem.insert(t);
        }
        for (k, r) in loaded.messages {
            mem.remember_message(k, r);
        }
        Ok(Persisted {
            backend,
            mem,
            dirty: BTreeSet::new(),
            messages: BTreeMap::new(),
            webhooks: BTreeMap::new(),
            restored: loaded.webhooks,
            write_errors: 0,
        })
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The backend, to change its settings.
    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// How many flushes failed since the store was opened.
    pub fn write_errors(&self) -> u64 {
        self.write_errors
    }

    /// True when changes wait to be written.
    pub fn has_pending(&self) -> bool {
        !self.dirty.is_empty() || !self.messages.is_empty() || !self.webhooks.is_empty()
    }
}

impl<B: Backend> TaskStore for Persisted<B> {
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
    fn message(&self, key: &str) -> Option<&MessageRecord> {
        self.mem.message(key)
    }
    fn remember_message(&mut self, key: String, record: MessageRecord) {
        self.messages.insert(key.clone(), true);
        self.mem.remember_message(key, record);
    }
    fn forget_message(&mut self, key: &str) {
        self.messages.insert(String::from(key), false);
        self.mem.forget_message(key);
    }
    fn len(&self) -> usize {
        self.mem.len()
    }
    fn take_webhooks(&mut self) -> Vec<Queued> {
        core::mem::take(&mut self.restored)
    }
    fn webhook_changed(&mut self, change: Change) {
        match change {
            Change::Queued(q) => {
                self.webhooks.insert(q.seq, Some(q));
            }
            Change::Done(seq) => {
                // Queued and over before any write: nothing to write at all.
                if let Some(Some(_)) = self.webhooks.get(&seq) {
                    self.webhooks.remove(&seq);
                } else {
                    self.webhooks.insert(seq, None);
                }
            }
        }
    }
    fn flush(&mut self) -> Result<(), StoreError> {
        if !self.has_pending() {
            return Ok(());
        }
        let batch = Batch {
            tasks: self.dirty.iter().filter_map(|id| self.mem.get(id)).collect(),
            messages: self.messages.iter().map(|(k, keep)| (k.as_str(), if *keep { self.mem.message(k) } else { None })).collect(),
            webhooks_queued: self.webhooks.values().flatten().collect(),
            webhooks_done: self.webhooks.iter().filter(|(_, q)| q.is_none()).map(|(n, _)| *n).collect(),
        };
        match self.backend.write(&batch) {
            Ok(()) => {
                self.dirty.clear();
                self.messages.clear();
                self.webhooks.clear();
                Ok(())
            }
            Err(e) => {
                self.write_errors += 1;
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A backend that keeps what it was given, and fails when told to.
    #[derive(Debug, Default)]
    struct Log {
        tasks: BTreeMap<String, StoredTask>,
        messages: BTreeMap<String, MessageRecord>,
        webhooks: BTreeMap<u64, Queued>,
        fail: bool,
        writes: usize,
    }

    impl Backend for Log {
        fn load(&mut self) -> Result<Loaded, StoreError> {
            Ok(Loaded {
                tasks: self.tasks.values().cloned().collect(),
                messages: self.messages.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                webhooks: self.webhooks.values().cloned().collect(),
            })
        }
        fn write(&mut self, batch: &Batch<'_>) -> Result<(), StoreError> {
            if self.fail {
                return Err(StoreError(String::from("disk full")));
            }
            self.writes += 1;
            for t in &batch.tasks {
                self.tasks.insert(t.record.task.id.clone(), (*t).clone());
            }
            for (k, r) in &batch.messages {
                match r {
                    Some(r) => self.messages.insert(String::from(*k), (*r).clone()),
                    None => self.messages.remove(*k),
                };
            }
            for q in &batch.webhooks_queued {
                self.webhooks.insert(q.seq, (*q).clone());
            }
            for n in &batch.webhooks_done {
                self.webhooks.remove(n);
            }
            Ok(())
        }
    }

    fn task(id: &str) -> StoredTask {
        let mut t = StoredTask::default();
        t.record.task.id = String::from(id);
        t
    }

    #[test]
    fn changes_are_written_in_one_batch_and_kept_after_a_failure() {
        let mut s = Persisted::open(Log::default()).unwrap();
        s.insert(task("a"));
        s.touched("a");
        s.remember_message(String::from("k"), MessageRecord { task_id: String::from("a"), ..Default::default() });
        s.backend_mut().fail = true;
        assert!(s.flush().is_err());
        assert_eq!((s.write_errors(), s.has_pending()), (1, true), "a failed batch stays collected");
        s.insert(task("b"));
        s.forget_message("k");
        s.backend_mut().fail = false;
        s.flush().unwrap();
        assert!(!s.has_pending());
        assert_eq!(s.backend().writes, 1, "one write for everything collected");
        let reopened = Persisted::open(core::mem::take(s.backend_mut())).unwrap();
        assert_eq!((reopened.len(), reopened.get("a").is_some(), reopened.message("k")), (2, true, None));
        s.flush().unwrap();
        assert_eq!(s.backend().writes, 0, "nothing pending: no write");
    }

    fn queued(seq: u64) -> Queued {
        Queued {
            seq,
            queue: String::from("t\u{0}c"),
            url: String::from("https://r/hook"),
            headers: Vec::new(),
            body: Vec::from(&b"{}"[..]),
        }
    }

    #[test]
    fn webhook_deliveries_are_written_with_the_batch_and_come_back_after_reopening() {
        let mut s = Persisted::open(Log::default()).unwrap();
        s.webhook_changed(Change::Queued(queued(1)));
        s.webhook_changed(Change::Queued(queued(2)));
        s.webhook_changed(Change::Queued(queued(3)));
        // Over before any write: never written.
        s.webhook_changed(Change::Done(3));
        s.flush().unwrap();
        assert_eq!(s.backend().webhooks.keys().copied().collect::<Vec<_>>(), [1, 2]);
        s.webhook_changed(Change::Done(1));
        s.backend_mut().fail = true;
        assert!(s.flush().is_err());
        assert!(s.has_pending(), "a failed write keeps the webhook change");
        s.backend_mut().fail = false;
        s.flush().unwrap();
        let mut reopened = Persisted::open(core::mem::take(s.backend_mut())).unwrap();
        assert_eq!(reopened.take_webhooks(), [queued(2)]);
        assert!(reopened.take_webhooks().is_empty(), "handed over once");
    }
}

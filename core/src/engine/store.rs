//! Task storage behind a trait, with the in-memory implementation.
//!
//! The trait borrows: the engine reads and changes tasks in place, and tells the store when a
//! task changed ([`TaskStore::touched`]), so a persistent store can write through (or behind)
//! while serving reads from memory. A networked store shared by several server instances
//! implements the same methods over its own cache and invalidation.

use crate::task::TaskRecord;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

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

/// Where the engine keeps tasks.
pub trait TaskStore {
    /// The task with this id.
    fn get(&self, id: &str) -> Option<&StoredTask>;
    /// The task with this id, to change it; call [`TaskStore::touched`] afterwards.
    fn get_mut(&mut self, id: &str) -> Option<&mut StoredTask>;
    /// Adds a new task.
    fn insert(&mut self, task: StoredTask);
    /// The task `id` changed (persistent stores write it).
    fn touched(&mut self, id: &str);
    /// Every task, in any order (for listing).
    fn iter(&self) -> Box<dyn Iterator<Item = &StoredTask> + '_>;
    /// The task a message id (scoped by `key`, see the engine) was sent to.
    fn message_task(&self, key: &str) -> Option<&str>;
    /// Records that the message `key` went to task `task_id`.
    fn remember_message(&mut self, key: String, task_id: String);
    /// Forgets a message key (a message answered without a task may be sent again).
    fn forget_message(&mut self, key: &str);
    /// Number of tasks.
    fn len(&self) -> usize;
    /// True when there is no task.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Tasks in memory (a B-tree by id).
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    tasks: BTreeMap<String, StoredTask>,
    messages: BTreeMap<String, String>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TaskStore for MemoryStore {
    fn get(&self, id: &str) -> Option<&StoredTask> {
        self.tasks.get(id)
    }
    fn get_mut(&mut self, id: &str) -> Option<&mut StoredTask> {
        self.tasks.get_mut(id)
    }
    fn insert(&mut self, task: StoredTask) {
        self.tasks.insert(task.record.task.id.clone(), task);
    }
    fn touched(&mut self, _id: &str) {}
    fn iter(&self) -> Box<dyn Iterator<Item = &StoredTask> + '_> {
        Box::new(self.tasks.values())
    }
    fn message_task(&self, key: &str) -> Option<&str> {
        self.messages.get(key).map(String::as_str)
    }
    fn remember_message(&mut self, key: String, task_id: String) {
        self.messages.insert(key, task_id);
    }
    fn forget_message(&mut self, key: &str) {
        self.messages.remove(key);
    }
    fn len(&self) -> usize {
        self.tasks.len()
    }
}

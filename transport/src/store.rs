//! Task stores for the server: memory, or an external store that answers the service's
//! store requests ([`a2a_wire::engine::StoreRequest`]) on a thread of its own, so no store IO
//! ever runs on the thread that serves connections.

use a2a_wire::engine::{Cache, MemoryStore, Storage, StoreReply, StoreRequest};

/// A store that answers the service's requests (see [`a2a_wire::engine::external`] for what
/// each must do). It runs on a thread of its own and may block.
pub trait ExternalStore: Send {
    /// Carries out one request and says how it went.
    fn answer(&mut self, request: StoreRequest) -> StoreReply;

    /// The epoch of event ids for a store that keeps events and is shared by several
    /// servers ([`a2a_wire::engine::EngineConfig::event_epoch`]); `None` (the default): each
    /// server draws its own.
    fn event_epoch(&self) -> Option<u32> {
        None
    }

    /// Starts telling `notice` what other servers change in the store (a store shared by
    /// several servers); called once, before the first request. The default tells nothing.
    fn listen(&mut self, notices: NoticeSender) -> std::io::Result<()> {
        let _ = notices;
        Ok(())
    }
}

/// Where a shared store's [`Notice`]s go: the server that listens (cloneable, for a thread).
#[derive(Clone, Debug)]
pub struct NoticeSender {
    pub(crate) to_host: async_channel::Sender<crate::host::Command>,
}

impl NoticeSender {
    /// Hands a notice to the server; false when the server is gone (stop listening).
    pub fn send(&self, notice: Notice) -> bool {
        self.to_host.try_send(crate::host::Command::Notice(notice)).is_ok()
    }

    /// True when the server is gone.
    pub fn is_closed(&self) -> bool {
        self.to_host.is_closed()
    }
}

/// What a shared store tells a server about changes made by others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Task `task` was written with version `version`.
    Changed {
        /// The task id.
        task: String,
        /// Its new version.
        version: u64,
    },
    /// Notices may have been missed (the notice connection was lost and is back): every
    /// copy of a task may be stale.
    Resync,
}

/// `store`'s answer to `request`, a [`StoreReply::Failed`] if the store panicked (a store
/// written by a host may); what a host calls on its own store thread.
pub fn answer_guarded(store: &mut dyn ExternalStore, request: StoreRequest) -> StoreReply {
    let id = request.id();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| store.answer(request)))
        .unwrap_or_else(|_| StoreReply::Failed { id, error: a2a_wire::engine::StoreError(String::from("the store panicked")) })
}

/// Where a server keeps its tasks.
pub enum Store {
    /// Every task in memory, nothing written anywhere (the default).
    Memory(MemoryStore),
    /// A store on its own thread (SQLite, or your own), with a working set in memory
    /// bounded by [`a2a_wire::engine::EngineConfig::cache_bytes`].
    External(Box<dyn ExternalStore>),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Store::Memory(m) => f.debug_tuple("Memory").field(&m.len()).finish(),
            Store::External(_) => f.write_str("External"),
        }
    }
}

impl From<MemoryStore> for Store {
    fn from(m: MemoryStore) -> Self {
        Store::Memory(m)
    }
}

#[cfg(feature = "sqlite")]
impl From<crate::sqlite::SqliteStore> for Store {
    fn from(s: crate::sqlite::SqliteStore) -> Self {
        Store::External(Box::new(s))
    }
}

impl Store {
    /// Splits the store into what the service holds and what runs on the store thread.
    pub(crate) fn split(self) -> (Storage, Option<Box<dyn ExternalStore>>) {
        match self {
            Store::Memory(m) => (Storage::Memory(m), None),
            // The service sets the cache's bound from its engine settings.
            Store::External(e) => (Storage::External(Cache::new(0, 0)), Some(e)),
        }
    }
}

/// The store's thread: requests in, replies to `reply` (in order); it ends when the request
/// channel closes and every request taken was answered.
pub(crate) struct StoreThread {
    requests: Option<std::sync::mpsc::Sender<StoreRequest>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StoreThread {
    pub(crate) fn start(mut store: Box<dyn ExternalStore>, reply: impl Fn(StoreReply) + Send + 'static) -> std::io::Result<StoreThread> {
        let (tx, rx) = std::sync::mpsc::channel::<StoreRequest>();
        let thread = std::thread::Builder::new().name(String::from("a2a-wire-store")).spawn(move || {
            while let Ok(req) = rx.recv() {
                reply(answer_guarded(store.as_mut(), req));
            }
        })?;
        Ok(StoreThread { requests: Some(tx), thread: Some(thread) })
    }

    /// Hands a request to the thread (false: the thread is gone).
    pub(crate) fn send(&self, req: StoreRequest) -> bool {
        self.requests.as_ref().is_some_and(|r| r.send(req).is_ok())
    }
}

impl Drop for StoreThread {
    fn drop(&mut self) {
        // Closing the channel lets the thread finish the requests it has, then end.
        self.requests.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl ExternalStore for a2a_wire::engine::StoreInMemory {
    fn answer(&mut self, request: StoreRequest) -> StoreReply {
        a2a_wire::engine::StoreInMemory::answer(self, request)
    }
}

impl From<a2a_wire::engine::StoreInMemory> for Store {
    fn from(s: a2a_wire::engine::StoreInMemory) -> Self {
        Store::External(Box::new(s))
    }
}

//! Task stores a sans-IO host answers for itself (`TaskStore`): a service made with
//! `externalStore: true` asks with `"store"` outputs; JavaScript takes each request
//! (`ServiceHost.takeStoreRequest`), gives it to `TaskStore.answer`, which carries it out on
//! the store's own thread (store IO blocks; the event loop does not wait) and resolves to a
//! `StoreReply` for `ServiceHost.storeReply`. Requests are carried out in the order given.

use crate::errors;
use a2a::engine::{StoreInMemory, StoreReply, StoreRequest};
use a2a_wire_smol::store::{answer_guarded, ExternalStore};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::{mpsc, Mutex, PoisonError};

/// One request of the service to its store (from `ServiceHost.takeStoreRequest`), answered
/// once.
#[napi]
pub struct StoreRequestHandle {
    inner: Mutex<Option<StoreRequest>>,
}

impl StoreRequestHandle {
    pub(crate) fn new(r: StoreRequest) -> Self {
        StoreRequestHandle { inner: Mutex::new(Some(r)) }
    }
}

#[napi]
impl StoreRequestHandle {
    /// What is asked: "open", "load", "list", "write", "expire", "events" ("answered" once taken).
    #[napi(getter, catch_unwind)]
    pub fn kind(&self) -> &'static str {
        match &*self.inner.lock().unwrap_or_else(PoisonError::into_inner) {
            None => "answered",
            Some(StoreRequest::Open { .. }) => "open",
            Some(StoreRequest::Load { .. }) => "load",
            Some(StoreRequest::List { .. }) => "list",
            Some(StoreRequest::Write { .. }) => "write",
            Some(StoreRequest::Expire { .. }) => "expire",
            Some(StoreRequest::Events { .. }) => "events",
            // A request kind added to the core later.
            Some(_) => "other",
        }
    }
}

/// A store's reply, for `ServiceHost.storeReply` (which takes it).
#[napi]
pub struct StoreReplyHandle {
    inner: Mutex<Option<StoreReply>>,
}

impl StoreReplyHandle {
    pub(crate) fn take(&self) -> Result<StoreReply> {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or_else(|| errors::type_error("this StoreReply was fed to the service already"))
    }
}

type Job = (StoreRequest, async_channel::Sender<StoreReply>);

/// A task store on a thread of its own: in memory (`TaskStore.memory()`) or a SQLite file
/// (`TaskStore.openSqlite(path)`, the file `serve({store})` uses).
#[napi]
pub struct TaskStore {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl TaskStore {
    fn start(mut store: Box<dyn ExternalStore>) -> Result<Self> {
        let (tx, rx) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name(String::from("a2a-wire-store"))
            .spawn(move || {
                while let Ok((req, reply)) = rx.recv() {
                    // The caller may have gone (its promise dropped): nothing to tell then.
                    let _ = reply.try_send(answer_guarded(store.as_mut(), req));
                }
            })
            .map_err(|e| Error::from_reason(format!("cannot start the store's thread: {e}")))?;
        Ok(TaskStore { jobs: Mutex::new(Some(tx)), thread: Mutex::new(Some(thread)) })
    }
}

#[napi]
impl TaskStore {
    /// A store in memory: the service's working set stays bounded, the tasks stay here.
    #[napi(factory, catch_unwind)]
    pub fn memory() -> Result<Self> {
        TaskStore::start(Box::new(StoreInMemory::new()))
    }

    /// Opens (or creates) the SQLite store at `path`; a file of an older release is migrated.
    #[napi(factory, catch_unwind)]
    pub fn open_sqlite(path: String) -> Result<Self> {
        let store = a2a_wire_smol::sqlite::SqliteStore::open(&path).map_err(|e| Error::from_reason(format!("the store {path}: {e}")))?;
        TaskStore::start(Box::new(store))
    }

    /// Carries out `request` on the store's thread and resolves to the reply; requests are
    /// carried out in the order of the calls. A store that fails (a disk error) still
    /// replies; the service then fails the calls that depended on it.
    #[napi(catch_unwind, ts_return_type = "Promise<StoreReplyHandle>")]
    pub fn answer<'env>(&self, env: &'env Env, request: &StoreRequestHandle) -> Result<PromiseRaw<'env, StoreReplyHandle>> {
        let req = request
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or_else(|| errors::type_error("this StoreRequest was answered already"))?;
        let (tx, rx) = async_channel::bounded(1);
        let sent = self.jobs.lock().unwrap_or_else(PoisonError::into_inner).as_ref().is_some_and(|j| j.send((req, tx)).is_ok());
        if !sent {
            return Err(errors::type_error("this TaskStore is closed"));
        }
        env.spawn_future(async move {
            let reply = rx.recv().await.map_err(|_| Error::from_reason("the store's thread is gone"))?;
            Ok(StoreReplyHandle { inner: Mutex::new(Some(reply)) })
        })
    }

    /// Closes the store once the requests given are answered (a SQLite file is closed;
    /// later answers throw). Idempotent.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(t) = self.thread.lock().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = t.join();
        }
    }
}

impl Drop for TaskStore {
    fn drop(&mut self) {
        // Collected without close(): the thread ends once the channel is gone.
        self.jobs.get_mut().unwrap_or_else(PoisonError::into_inner).take();
    }
}

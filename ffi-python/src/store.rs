//! Task stores a sans-IO host answers for itself (`_a2a_wire.TaskStore`): a service made
//! with `external_store=True` asks with `("store", StoreRequest)` outputs; the host gives
//! each to `TaskStore.answer` on a thread of its own (store IO blocks; the GIL is released
//! meanwhile) and the `StoreReply` to `ServiceHost.store_reply`.

use a2a::engine::{StoreInMemory, StoreReply, StoreRequest};
use a2a_wire_smol::store::{answer_guarded, ExternalStore};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use std::sync::{Mutex, PoisonError};

/// One request of the service to its store. Answered once.
#[pyclass(module = "a2a_wire._a2a_wire", name = "StoreRequest", frozen)]
pub struct PyStoreRequest(Mutex<Option<StoreRequest>>);

impl PyStoreRequest {
    pub(crate) fn new(r: StoreRequest) -> Self {
        PyStoreRequest(Mutex::new(Some(r)))
    }
}

#[pymethods]
impl PyStoreRequest {
    /// What is asked: "open", "load", "list", "write", "expire", "events" (or "answered" once
    /// taken).
    #[getter]
    fn kind(&self) -> &'static str {
        match &*self.0.lock().unwrap_or_else(PoisonError::into_inner) {
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

    fn __repr__(&self) -> String {
        format!("<StoreRequest {}>", self.kind())
    }
}

/// A store's reply, for `ServiceHost.store_reply` (which takes it).
#[pyclass(module = "a2a_wire._a2a_wire", name = "StoreReply", frozen)]
pub struct PyStoreReply(Mutex<Option<StoreReply>>);

impl PyStoreReply {
    pub(crate) fn take(&self) -> PyResult<StoreReply> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or_else(|| PyValueError::new_err("this StoreReply was fed to the service already"))
    }
}

/// A task store: every task in this process's memory (`TaskStore.memory()`), or a SQLite
/// file (`TaskStore.open_sqlite(path)`, the file the ready servers' `store=` uses). One
/// request at a time (calls from several threads wait for each other).
#[pyclass(module = "a2a_wire._a2a_wire", name = "TaskStore", frozen)]
pub struct PyTaskStore {
    inner: Mutex<Option<Box<dyn ExternalStore>>>,
    what: String,
}

#[pymethods]
impl PyTaskStore {
    /// A store in memory: the service's working set stays bounded, the tasks stay here.
    #[staticmethod]
    fn memory() -> Self {
        PyTaskStore { inner: Mutex::new(Some(Box::new(StoreInMemory::new()))), what: String::from("memory") }
    }

    /// Opens (or creates) the SQLite store at `path`; a file of an older release is migrated.
    /// `OSError` when it cannot be opened.
    #[staticmethod]
    fn open_sqlite(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Self> {
        let shown = path.display().to_string();
        let store = py
            .detach(|| a2a_wire_smol::sqlite::SqliteStore::open(&path))
            .map_err(|e| PyOSError::new_err(format!("the store {shown}: {e}")))?;
        Ok(PyTaskStore { inner: Mutex::new(Some(Box::new(store))), what: shown })
    }

    /// Carries out `request` (blocking, without the GIL) and returns the reply. A store that
    /// fails (a disk error) still replies; the service then fails the calls that depended
    /// on it. `ValueError` for a request answered already or a closed store.
    fn answer(&self, py: Python<'_>, request: &PyStoreRequest) -> PyResult<PyStoreReply> {
        let req = request
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or_else(|| PyValueError::new_err("this StoreRequest was answered already"))?;
        let reply = py.detach(|| {
            let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
            guard.as_mut().map(|s| answer_guarded(s.as_mut(), req))
        });
        let reply = reply.ok_or_else(|| PyValueError::new_err("this TaskStore is closed"))?;
        Ok(PyStoreReply(Mutex::new(Some(reply))))
    }

    /// Closes the store (a SQLite file is closed; later answers raise). Idempotent.
    fn close(&self, py: Python<'_>) {
        let store = self.inner.lock().unwrap_or_else(PoisonError::into_inner).take();
        py.detach(|| drop(store));
    }

    fn __repr__(&self) -> String {
        format!("<TaskStore {}>", self.what)
    }
}

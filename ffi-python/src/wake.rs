//! The wake-up socket every host of the binding uses to hand work to the asyncio loop
//! without taking the GIL on a Rust thread: the Rust side queues the work under its own lock
//! and, when the queue was empty (`signaled` false), writes one byte; the loop watches the
//! other end (`loop.add_reader`), reads the bytes and takes everything queued.

use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use std::io::Write;
use std::os::fd::{IntoRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::{Mutex, PoisonError};

/// The writing end.
pub(crate) struct Wake {
    tx: UnixStream,
}

impl Wake {
    /// Writes the wake-up byte unless one is on its way (`signaled`, kept under the caller's
    /// lock with the queue it guards; the loop clears it when it takes the queue).
    pub(crate) fn ring(&self, signaled: &mut bool) {
        if !*signaled {
            *signaled = true;
            // Non-blocking: a full socket buffer means bytes are already waiting to be read.
            let _ = (&self.tx).write(&[1]);
        }
    }
}

/// The watched end, until the Python side takes it.
pub(crate) struct Watch(Mutex<Option<OwnedFd>>);

impl Watch {
    /// The descriptor, once: the caller owns it from then on (`socket.socket(fileno=fd)`).
    pub(crate) fn take(&self) -> PyResult<RawFd> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .map(IntoRawFd::into_raw_fd)
            .ok_or_else(|| PyRuntimeError::new_err("the wake-up socket was taken already"))
    }
}

/// A new pair, both ends non-blocking.
pub(crate) fn pair() -> PyResult<(Wake, Watch)> {
    let os = |e: std::io::Error| PyOSError::new_err(format!("cannot make the wake-up socket: {e}"));
    let (tx, rx) = UnixStream::pair().map_err(os)?;
    tx.set_nonblocking(true).map_err(os)?;
    rx.set_nonblocking(true).map_err(os)?;
    Ok((Wake { tx }, Watch(Mutex::new(Some(rx.into())))))
}

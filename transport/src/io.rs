//! Small IO pieces the server and client share: a deadline on a future, a connection whose
//! first bytes were already read, and a count of the tasks a server spawned (so shutdown can
//! prove it left none behind).

use a2a_wire::proto::google::protobuf::Timestamp;
use smol::net::TcpStream;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The current time as a protobuf timestamp, to the millisecond (the transport keeps the
/// clock; the core never reads one). Milliseconds are what every A2A SDK's date type keeps.
pub fn now() -> Timestamp {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    Timestamp { seconds: i64::try_from(d.as_secs()).unwrap_or(i64::MAX), nanos: i32::try_from(d.subsec_millis() * 1_000_000).unwrap_or(0) }
}

/// A deadline passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedOut;

/// Runs `f` with a deadline.
pub async fn timeout<T>(d: Duration, f: impl Future<Output = T>) -> Result<T, TimedOut> {
    use smol::future::FutureExt;
    async { Ok(f.await) }
        .or(async {
            smol::Timer::after(d).await;
            Err(TimedOut)
        })
        .await
}

/// Counts live tasks: each spawned task holds a [`TaskGuard`] until it ends.
#[derive(Clone, Debug, Default)]
pub struct TaskCount(Arc<AtomicUsize>);

/// Held by a counted task; dropping it (the task ended, or was dropped) counts it out.
#[derive(Debug)]
pub struct TaskGuard(Arc<AtomicUsize>);

impl Drop for TaskGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl TaskCount {
    /// Tasks alive now.
    pub fn live(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }

    /// A guard for a task about to start.
    pub fn guard(&self) -> TaskGuard {
        self.0.fetch_add(1, Ordering::AcqRel);
        TaskGuard(self.0.clone())
    }

    /// Spawns `f` on smol's executor, counted.
    pub fn spawn<F: Future<Output = ()> + Send + 'static>(&self, f: F) -> smol::Task<()> {
        let guard = self.guard();
        smol::spawn(async move {
            let _guard = guard;
            f.await
        })
    }
}

/// A connection whose first bytes were already read (to tell HTTP/2 from HTTP/1.1): they
/// are read again first.
pub(crate) struct Rewind {
    prefix: Vec<u8>,
    at: usize,
    stream: TcpStream,
}

impl Rewind {
    pub(crate) fn new(prefix: Vec<u8>, stream: TcpStream) -> Self {
        Rewind { prefix, at: 0, stream }
    }
}

impl smol::io::AsyncRead for Rewind {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut [u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        if self.at < self.prefix.len() {
            let n = buf.len().min(self.prefix.len() - self.at);
            let from = self.at;
            buf[..n].copy_from_slice(&self.prefix[from..from + n]);
            self.at += n;
            return std::task::Poll::Ready(Ok(n));
        }
        std::pin::Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl smol::io::AsyncWrite for Rewind {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write(cx, buf)
    }
    fn poll_flush(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(cx)
    }
    fn poll_close(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_close(cx)
    }
}

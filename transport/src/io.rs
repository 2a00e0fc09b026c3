//! Small IO pieces the server and client share: a deadline on a future, a connection whose
//! first bytes were already read, and a count of the tasks a server spawned (so shutdown can
//! prove it left none behind).

use a2a_wire::proto::google::protobuf::Timestamp;
use smol::net::TcpStream;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
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

/// A connection: plain TCP, or TLS over TCP (as a client or as a server).
pub(crate) enum Stream {
    Plain(TcpStream),
    #[cfg(feature = "tls")]
    Client(Box<futures_rustls::client::TlsStream<TcpStream>>),
    #[cfg(feature = "tls")]
    Server(Box<futures_rustls::server::TlsStream<TcpStream>>),
}

macro_rules! each_stream {
    ($self:ident, $s:ident => $e:expr) => {
        match $self.get_mut() {
            Stream::Plain($s) => $e,
            #[cfg(feature = "tls")]
            Stream::Client($s) => $e,
            #[cfg(feature = "tls")]
            Stream::Server($s) => $e,
        }
    };
}

impl smol::io::AsyncRead for Stream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<std::io::Result<usize>> {
        each_stream!(self, s => Pin::new(s).poll_read(cx, buf))
    }
}

impl smol::io::AsyncWrite for Stream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        each_stream!(self, s => Pin::new(s).poll_write(cx, buf))
    }
    fn poll_write_vectored(self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[std::io::IoSlice<'_>]) -> Poll<std::io::Result<usize>> {
        each_stream!(self, s => Pin::new(s).poll_write_vectored(cx, bufs))
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        each_stream!(self, s => Pin::new(s).poll_flush(cx))
    }
    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        each_stream!(self, s => Pin::new(s).poll_close(cx))
    }
}

/// A connection whose first bytes were already read (to tell HTTP/2 from HTTP/1.1): they
/// are read again first.
pub(crate) struct Rewind {
    prefix: Vec<u8>,
    at: usize,
    stream: Stream,
}

impl Rewind {
    pub(crate) fn new(prefix: Vec<u8>, stream: Stream) -> Self {
        Rewind { prefix, at: 0, stream }
    }
}

impl smol::io::AsyncRead for Rewind {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<std::io::Result<usize>> {
        if self.at < self.prefix.len() {
            let n = buf.len().min(self.prefix.len() - self.at);
            let from = self.at;
            buf[..n].copy_from_slice(&self.prefix[from..from + n]);
            self.at += n;
            return Poll::Ready(Ok(n));
        }
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl smol::io::AsyncWrite for Rewind {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }
    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_close(cx)
    }
}

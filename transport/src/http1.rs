//! HTTP/1.1 on async streams: the connection side of the core's sans-IO framing
//! ([`a2a_wire::http1`]: the request reader with every RFC 9112 rule, the chunked decoder,
//! response heads and their framing), with the time limits, the reads and the writes. No
//! framing rule and no protocol decision is made here: the A2A meaning of a message is
//! decided by the core's service, and where a message ends by the core's reader.

use smol::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use std::time::{Duration, Instant};

pub use a2a_wire::http1::{
    response_framing, BodyLength, ChunkedDecoder, Event, Framing, FramingError, Refusal, RequestHead, RequestReader, ResponseHead, CONTINUE,
};

/// Limits of the HTTP/1.1 layer.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest request or response head (bytes).
    pub max_head: usize,
    /// Largest number of header fields.
    pub max_headers: usize,
    /// Largest body (bytes).
    pub max_body: usize,
    /// Time allowed for a whole request head to arrive once it started (slowloris guard).
    pub head_timeout: Duration,
    /// Time a kept-alive connection may stay idle between requests.
    pub idle_timeout: Duration,
    /// Time allowed for a request body to arrive.
    pub body_timeout: Duration,
    /// Largest number of open connections; further ones are refused with 503.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        let framing = a2a_wire::http1::Limits::default();
        Limits {
            max_head: framing.max_head,
            max_headers: framing.max_headers,
            max_body: framing.max_body,
            head_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(30),
            max_connections: 1024,
        }
    }
}

impl Limits {
    /// The limits of the core's framing layer.
    pub fn framing(&self) -> a2a_wire::http1::Limits {
        a2a_wire::http1::Limits { max_head: self.max_head, max_headers: self.max_headers, max_body: self.max_body }
    }
}

/// Why a message could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The peer closed the connection before a message started.
    Closed,
    /// IO failure.
    Io(std::io::Error),
    /// The head is not HTTP/1.x or is malformed.
    Malformed(&'static str),
    /// The head is larger than the limit.
    HeadTooLarge,
    /// The body is larger than the limit.
    BodyTooLarge,
    /// A deadline passed.
    Timeout,
    /// The request breaks a framing rule: answer with the refusal, then close.
    Refused(Refusal),
}

impl From<FramingError> for ReadError {
    fn from(e: FramingError) -> Self {
        match e {
            FramingError::TooLarge => ReadError::BodyTooLarge,
            FramingError::Malformed(m) => ReadError::Malformed(m),
            // The enum is non-exhaustive; a new kind still fails the message.
            _ => ReadError::Malformed("invalid framing"),
        }
    }
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// Bytes read past the end of a message stay here for the next one.
#[derive(Debug, Default)]
pub struct Buffer {
    data: Vec<u8>,
}

impl Buffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Buffer { data: Vec::with_capacity(4096) }
    }

    /// Reads once from `r`, appending to the buffer. The bytes are read straight into the
    /// buffer's own storage (no copy, and no large array living in the future); growth and
    /// trimming happen within one poll, so a read cancelled by a timeout leaves no trace.
    async fn fill<R: AsyncRead + Unpin>(&mut self, r: &mut R) -> std::io::Result<usize> {
        const READ: usize = 4096;
        let data = &mut self.data;
        std::future::poll_fn(|cx| {
            let old = data.len();
            data.resize(old + READ, 0);
            let polled = std::pin::Pin::new(&mut *r).poll_read(cx, &mut data[old..]);
            let n = match &polled {
                std::task::Poll::Ready(Ok(n)) => *n,
                _ => 0,
            };
            data.truncate(old + n);
            polled
        })
        .await
    }

    /// True when nothing is buffered.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The bytes read and not consumed yet.
    pub fn buffered(&self) -> &[u8] {
        &self.data
    }

    /// Waits for the peer while an answer is being prepared: true when it closed the
    /// connection (or it failed), false when it sent bytes (a pipelined request, kept in the
    /// buffer). Cancel-safe.
    pub async fn watch_peer<R: AsyncRead + Unpin>(&mut self, r: &mut R) -> bool {
        !matches!(self.fill(r).await, Ok(n) if n > 0)
    }

    /// For an idle kept-alive connection: true when the peer closed it, or sent bytes no
    /// request asked for (either way it cannot carry the next request). Never waits.
    pub fn peer_closed<R: AsyncRead + Unpin>(&mut self, r: &mut R) -> bool {
        if !self.data.is_empty() {
            return true;
        }
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let mut read = std::pin::pin!(self.fill(r));
        match std::future::Future::poll(read.as_mut(), &mut cx) {
            std::task::Poll::Pending => false,
            std::task::Poll::Ready(_) => true,
        }
    }

    /// Reads the next request head through `reader` (at a request boundary: the previous
    /// request's body was read). The idle timeout applies until the first byte, then the head
    /// timeout to the whole head. The end of the stream between requests is
    /// [`ReadError::Closed`]; a head the reader refuses is [`ReadError::Refused`].
    pub async fn read_request_head<R: AsyncRead + Unpin>(
        &mut self,
        r: &mut R,
        reader: &mut RequestReader,
        limits: &Limits,
    ) -> Result<RequestHead, ReadError> {
        let mut deadline: Option<Instant> = None;
        loop {
            let (used, event) = reader.read(&self.data);
            match event {
                Event::Head(head) => {
                    self.data.drain(..used);
                    return Ok(head);
                }
                Event::NeedData => {
                    self.data.drain(..used);
                }
                Event::Refused(refusal) => return Err(ReadError::Refused(refusal)),
                Event::Closed => return Err(ReadError::Closed),
                Event::Data(_) | Event::End => return Err(ReadError::Malformed("a request head was awaited inside a body")),
            }
            let wait = if reader.is_idle() && self.data.is_empty() {
                limits.idle_timeout
            } else {
                // Most requests arrive whole in one read: no head timer is armed for them.
                let at = *deadline.get_or_insert_with(|| Instant::now() + limits.head_timeout);
                at.saturating_duration_since(Instant::now())
            };
            if timeout(wait, self.fill(r)).await?? == 0 {
                return match reader.read_eof(&self.data) {
                    Event::Refused(refusal) => Err(ReadError::Refused(refusal)),
                    _ => Err(ReadError::Closed),
                };
            }
        }
    }

    /// Reads the body of the request whose head `reader` gave last, appending it to `body`,
    /// within the body timeout. A body the reader refuses (a chunk over the limit, broken
    /// chunked framing, the connection closed inside it) is [`ReadError::Refused`].
    pub async fn read_request_body<R: AsyncRead + Unpin>(
        &mut self,
        r: &mut R,
        reader: &mut RequestReader,
        limits: &Limits,
        body: &mut Vec<u8>,
    ) -> Result<(), ReadError> {
        timeout(limits.body_timeout, async {
            loop {
                let (used, event) = reader.read(&self.data);
                match event {
                    Event::Data(data) => body.extend_from_slice(data),
                    Event::End => {
                        self.data.drain(..used);
                        return Ok(());
                    }
                    Event::NeedData => {
                        self.data.drain(..used);
                        if self.fill(r).await? == 0 {
                            return match reader.read_eof(&self.data) {
                                Event::End => Ok(()),
                                Event::Refused(refusal) => Err(ReadError::Refused(refusal)),
                                _ => Err(ReadError::Malformed("connection closed inside a request body")),
                            };
                        }
                        continue;
                    }
                    Event::Refused(refusal) => return Err(ReadError::Refused(refusal)),
                    Event::Head(_) | Event::Closed => return Err(ReadError::Malformed("a request body was awaited after its end")),
                }
                self.data.drain(..used);
            }
        })
        .await?
    }

    /// Reads a response head (client side), past any interim (1xx) response (RFC 9110
    /// §15.2: a client reads them even when it did not ask for one). No time limit of its
    /// own: the caller's deadline bounds it.
    pub async fn read_response_head<R: AsyncRead + Unpin>(&mut self, r: &mut R, limits: &Limits) -> Result<ResponseHead, ReadError> {
        loop {
            if let Some((head, len)) =
                a2a_wire::http1::parse_response_head(&self.data, limits.max_head, limits.max_headers).map_err(|e| match e {
                    FramingError::TooLarge => ReadError::HeadTooLarge,
                    e => ReadError::from(e),
                })?
            {
                self.data.drain(..len);
                if head.is_interim() {
                    continue;
                }
                return Ok(head);
            }
            let n = self.fill(r).await?;
            if n == 0 {
                return Err(if self.data.is_empty() { ReadError::Closed } else { ReadError::Malformed("connection closed inside a head") });
            }
        }
    }

    /// Reads a whole response body framed as `framing`, up to `max` bytes.
    pub async fn read_response_body<R: AsyncRead + Unpin>(
        &mut self,
        r: &mut R,
        framing: Framing,
        max: usize,
    ) -> Result<Vec<u8>, ReadError> {
        match framing {
            Framing::Chunked => {
                let mut body = Vec::new();
                let mut chunks = ChunkedDecoder::with_limit(max);
                loop {
                    if chunks.decode(&mut self.data, &mut body)? {
                        return Ok(body);
                    }
                    if self.fill(r).await? == 0 {
                        return Err(ReadError::Malformed("connection closed inside a chunked body"));
                    }
                }
            }
            Framing::Length(len) => {
                if len > max {
                    return Err(ReadError::BodyTooLarge);
                }
                while self.data.len() < len {
                    if self.fill(r).await? == 0 {
                        return Err(ReadError::Malformed("connection closed before the body's Content-Length"));
                    }
                }
                Ok(self.data.drain(..len).collect())
            }
            Framing::UntilClose => loop {
                if self.data.len() > max {
                    return Err(ReadError::BodyTooLarge);
                }
                if self.fill(r).await? == 0 {
                    return Ok(std::mem::take(&mut self.data));
                }
            },
        }
    }

    /// Reads the first bytes of a connection (idle timeout) until they either are the
    /// HTTP/2 preface `preface` or cannot be; true when they are.
    pub async fn starts_with<R: AsyncRead + Unpin>(&mut self, r: &mut R, preface: &[u8], limits: &Limits) -> Result<bool, ReadError> {
        loop {
            let n = self.data.len().min(preface.len());
            if self.data[..n] != preface[..n] {
                return Ok(false);
            }
            if n == preface.len() {
                return Ok(true);
            }
            let wait = if self.data.is_empty() { limits.idle_timeout } else { limits.head_timeout };
            if timeout(wait, self.fill(r)).await?? == 0 {
                return Err(ReadError::Closed);
            }
        }
    }

    /// Takes the buffered bytes out.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.data)
    }

    /// Reads whatever arrives next (streaming bodies): up to one read's worth of bytes, or an
    /// empty vector at the end of the stream.
    pub async fn read_some<R: AsyncRead + Unpin>(&mut self, r: &mut R) -> std::io::Result<Vec<u8>> {
        if self.data.is_empty() {
            self.fill(r).await?;
        }
        Ok(std::mem::take(&mut self.data))
    }
}

/// Runs `f` with a deadline.
pub async fn timeout<T>(d: Duration, f: impl std::future::Future<Output = T>) -> Result<T, ReadError> {
    crate::io::timeout(d, f).await.map_err(|_| ReadError::Timeout)
}

/// The reason phrase of a status.
pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        417 => "Expectation Failed",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Status",
    }
}

/// The status line and header fields of a response.
fn status_line_and_headers(out: &mut Vec<u8>, status: u16, headers: &[(String, String)]) {
    use std::io::Write as _;
    // Writing to a vector cannot fail.
    let _ = write!(out, "HTTP/1.1 {status} {}\r\n", reason(status));
    for (k, v) in headers {
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
}

/// Writes a complete response.
pub async fn write_response<W: AsyncWrite + Unpin>(
    w: &mut W,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
    close: bool,
) -> std::io::Result<()> {
    write_response_to(w, status, headers, body, close, false).await
}

/// Writes a complete response; to a `HEAD` request (`head_only`) the head alone, with the
/// `Content-Length` the body would have (RFC 9110 §9.3.2). A 304 or 204 has no body and no
/// `Content-Length` (RFC 9110 §8.6, §15.3.5).
pub async fn write_response_to<W: AsyncWrite + Unpin>(
    w: &mut W,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
    close: bool,
    head_only: bool,
) -> std::io::Result<()> {
    use std::io::Write as _;
    let no_body = status == 304 || status == 204 || (100..200).contains(&status);
    let mut out = Vec::with_capacity(256 + body.len());
    status_line_and_headers(&mut out, status, headers);
    if !no_body {
        // Writing to a vector cannot fail.
        let _ = write!(out, "content-length: {}\r\n", body.len());
    }
    if close {
        out.extend_from_slice(b"connection: close\r\n");
    }
    out.extend_from_slice(b"\r\n");
    if !no_body && !head_only {
        out.extend_from_slice(body);
    }
    w.write_all(&out).await?;
    w.flush().await
}

/// Appends the head of a chunked (streaming) response to `out`.
pub fn stream_head(out: &mut Vec<u8>, status: u16, headers: &[(String, String)]) {
    status_line_and_headers(out, status, headers);
    out.extend_from_slice(b"transfer-encoding: chunked\r\n\r\n");
}

/// Appends `data` as one chunk of a chunked body (nothing for empty data: an empty chunk
/// would end the body).
pub fn frame_chunk(out: &mut Vec<u8>, data: &[u8]) {
    use std::io::Write as _;
    if data.is_empty() {
        return;
    }
    // Writing to a vector cannot fail.
    let _ = write!(out, "{:x}\r\n", data.len());
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
}

/// The last chunk of a chunked body (no trailers).
pub const LAST_CHUNK: &[u8] = b"0\r\n\r\n";

/// Writes a request (client side).
pub async fn write_request<W: AsyncWrite + Unpin>(
    w: &mut W,
    method: &str,
    target: &str,
    host: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(256 + body.len());
    out.extend_from_slice(format!("{method} {target} HTTP/1.1\r\nhost: {host}\r\n").as_bytes());
    for (k, v) in headers {
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body);
    w.write_all(&out).await?;
    w.flush().await
}

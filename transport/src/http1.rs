//! HTTP/1.1 message framing on async streams: request and response heads (httparse),
//! `Content-Length` and chunked bodies, with explicit limits. No protocol decisions: the
//! A2A meaning of a message is decided by the core.

use smol::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use std::time::Duration;

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
        Limits {
            max_head: 16 * 1024,
            max_headers: 64,
            max_body: 8 * 1024 * 1024,
            head_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(30),
            max_connections: 1024,
        }
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
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// A parsed request head.
#[derive(Clone, Debug)]
pub struct RequestHead {
    /// Method.
    pub method: String,
    /// Target.
    pub target: String,
    /// HTTP/1.1 (true) or 1.0.
    pub http11: bool,
    /// Header fields.
    pub headers: Vec<(String, String)>,
}

/// A parsed response head.
#[derive(Clone, Debug)]
pub struct ResponseHead {
    /// Status code.
    pub status: u16,
    /// Header fields.
    pub headers: Vec<(String, String)>,
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
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

    /// The length of the complete head at the start of the buffer, if one is there.
    fn complete_head(&self, from: usize) -> Option<usize> {
        let from = from.saturating_sub(3);
        self.data[from..].windows(4).position(|w| w == b"\r\n\r\n").map(|p| from + p + 4)
    }

    /// Reads until a complete head is buffered; returns its length.
    async fn head_len<R: AsyncRead + Unpin>(&mut self, r: &mut R, limits: &Limits) -> Result<usize, ReadError> {
        let mut searched: usize = 0;
        loop {
            if let Some(len) = self.complete_head(searched) {
                return Ok(len);
            }
            searched = self.data.len();
            if self.data.len() > limits.max_head {
                return Err(ReadError::HeadTooLarge);
            }
            let n = self.fill(r).await?;
            if n == 0 {
                return Err(if self.data.is_empty() { ReadError::Closed } else { ReadError::Malformed("connection closed inside a head") });
            }
        }
    }

    /// Reads a request head. The idle timeout applies until the first byte, then the head
    /// timeout to the whole head.
    pub async fn read_request_head<R: AsyncRead + Unpin>(&mut self, r: &mut R, limits: &Limits) -> Result<RequestHead, ReadError> {
        if self.data.is_empty() {
            let n = timeout(limits.idle_timeout, self.fill(r)).await??;
            if n == 0 {
                return Err(ReadError::Closed);
            }
        }
        // Most requests arrive whole in one read: no head timer is armed for them.
        let len = match self.complete_head(0) {
            Some(len) => len,
            None => timeout(limits.head_timeout, self.head_len(r, limits)).await??,
        };
        if len > limits.max_head {
            return Err(ReadError::HeadTooLarge);
        }
        let head = parse_request_head(&self.data[..len], limits.max_headers)?;
        self.data.drain(..len);
        Ok(head)
    }

    /// Reads a response head (client side). No time limit of its own: the caller's
    /// deadline bounds it.
    pub async fn read_response_head<R: AsyncRead + Unpin>(&mut self, r: &mut R, limits: &Limits) -> Result<ResponseHead, ReadError> {
        loop {
            if let Some((head, len)) = parse_response_head(&self.data, limits)? {
                self.data.drain(..len);
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

    /// Reads a whole body framed by `headers` (`Content-Length` or chunked; `None` for a
    /// request without either means no body; for a response it means "until close").
    pub async fn read_body<R: AsyncRead + Unpin>(
        &mut self,
        r: &mut R,
        headers: &[(String, String)],
        limits: &Limits,
        until_close: bool,
    ) -> Result<Vec<u8>, ReadError> {
        timeout(limits.body_timeout, self.read_body_inner(r, headers, limits, until_close)).await?
    }

    async fn read_body_inner<R: AsyncRead + Unpin>(
        &mut self,
        r: &mut R,
        headers: &[(String, String)],
        limits: &Limits,
        until_close: bool,
    ) -> Result<Vec<u8>, ReadError> {
        if header(headers, "transfer-encoding").is_some_and(|te| te.to_ascii_lowercase().contains("chunked")) {
            let mut body = Vec::new();
            let mut chunks = ChunkedDecoder::with_limit(limits.max_body);
            loop {
                match chunks.decode(&mut self.data, &mut body)? {
                    true => return Ok(body),
                    false => {
                        if body.len() > limits.max_body {
                            return Err(ReadError::BodyTooLarge);
                        }
                        if self.fill(r).await? == 0 {
                            return Err(ReadError::Malformed("connection closed inside a chunked body"));
                        }
                    }
                }
            }
        }
        let len = match header(headers, "content-length") {
            Some(v) => v.trim().parse::<usize>().map_err(|_| ReadError::Malformed("invalid Content-Length"))?,
            None if until_close => usize::MAX,
            None => 0,
        };
        if len != usize::MAX && len > limits.max_body {
            return Err(ReadError::BodyTooLarge);
        }
        while self.data.len() < len {
            if self.data.len() > limits.max_body {
                return Err(ReadError::BodyTooLarge);
            }
            if self.fill(r).await? == 0 {
                if len == usize::MAX {
                    break;
                }
                return Err(ReadError::Malformed("connection closed inside a body"));
            }
        }
        let take = len.min(self.data.len());
        Ok(self.data.drain(..take).collect())
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

/// Header slots kept on the stack while parsing; heads allowed more fields use the heap.
const STACK_HEADERS: usize = 64;

/// Parses a complete request head (`head` ends with the empty line).
fn parse_request_head(head: &[u8], max_headers: usize) -> Result<RequestHead, ReadError> {
    let mut stack = [httparse::EMPTY_HEADER; STACK_HEADERS];
    let mut heap;
    let fields: &mut [httparse::Header<'_>] = if max_headers <= STACK_HEADERS {
        &mut stack[..max_headers]
    } else {
        heap = vec![httparse::EMPTY_HEADER; max_headers];
        &mut heap
    };
    let mut req = httparse::Request::new(fields);
    match req.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(ReadError::Malformed("incomplete head")),
        Err(httparse::Error::TooManyHeaders) => return Err(ReadError::HeadTooLarge),
        Err(_) => return Err(ReadError::Malformed("not an HTTP/1.x request")),
    }
    Ok(RequestHead {
        method: String::from(req.method.unwrap_or("")),
        target: String::from(req.path.unwrap_or("/")),
        http11: req.version == Some(1),
        headers: req.headers.iter().map(|h| (String::from(h.name), String::from_utf8_lossy(h.value).into_owned())).collect(),
    })
}

/// Incremental decoder of a chunked body (RFC 9112 §7.1). Chunk data is passed on as it
/// arrives, so memory is bounded by what the caller keeps, whatever size a chunk claims; a
/// chunk size that does not fit a `usize`, or that takes the body over the limit, is an
/// error as soon as its size line arrives.
#[derive(Debug, Default)]
pub struct ChunkedDecoder {
    state: ChunkState,
    /// Largest total of chunk data accepted (0 = no limit).
    limit: usize,
    total: usize,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum ChunkState {
    /// Before a chunk-size line.
    #[default]
    Size,
    /// Inside chunk data: this many bytes to go.
    Data(usize),
    /// After chunk data: its CRLF.
    DataEnd,
    /// After the last chunk: trailer lines until an empty one.
    Trailers,
    /// The body is complete.
    Done,
}

/// Longest chunk-size or trailer line accepted.
const MAX_LINE: usize = 4096;

impl ChunkedDecoder {
    /// A decoder that refuses (with [`ReadError::BodyTooLarge`]) a chunk that would take the
    /// body over `max` bytes, as soon as the chunk's size line arrives.
    pub fn with_limit(max: usize) -> Self {
        ChunkedDecoder { limit: max, ..Default::default() }
    }

    /// True once the last chunk and the trailers were read.
    pub fn is_done(&self) -> bool {
        self.state == ChunkState::Done
    }

    /// Moves decoded chunk data from the front of `input` into `out` (consumed bytes are
    /// removed from `input`); true when the body is complete. Bytes after the body stay in
    /// `input`.
    pub fn decode(&mut self, input: &mut Vec<u8>, out: &mut Vec<u8>) -> Result<bool, ReadError> {
        let mut at = 0;
        let r = self.decode_from(input, &mut at, out);
        input.drain(..at);
        r
    }

    fn decode_from(&mut self, input: &[u8], at: &mut usize, out: &mut Vec<u8>) -> Result<bool, ReadError> {
        loop {
            let rest = &input[*at..];
            match self.state {
                ChunkState::Done => return Ok(true),
                ChunkState::Size | ChunkState::Trailers => {
                    let Some(p) = rest.windows(2).position(|w| w == b"\r\n") else {
                        if rest.len() > MAX_LINE {
                            return Err(ReadError::Malformed("chunk size or trailer line too long"));
                        }
                        return Ok(false);
                    };
                    let line = &rest[..p];
                    *at += p + 2;
                    if self.state == ChunkState::Trailers {
                        if line.is_empty() {
                            self.state = ChunkState::Done;
                        }
                        continue;
                    }
                    let line = std::str::from_utf8(line).map_err(|_| ReadError::Malformed("chunk size is not text"))?;
                    let size_text = line.split(';').next().unwrap_or("").trim();
                    if size_text.is_empty() || !size_text.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return Err(ReadError::Malformed("invalid chunk size"));
                    }
                    let size = usize::from_str_radix(size_text, 16).map_err(|_| ReadError::Malformed("chunk size out of range"))?;
                    self.total = self.total.checked_add(size).ok_or(ReadError::Malformed("chunk size out of range"))?;
                    if self.limit != 0 && self.total > self.limit {
                        return Err(ReadError::BodyTooLarge);
                    }
                    self.state = if size == 0 { ChunkState::Trailers } else { ChunkState::Data(size) };
                }
                ChunkState::Data(n) => {
                    if rest.is_empty() {
                        return Ok(false);
                    }
                    let take = n.min(rest.len());
                    out.extend_from_slice(&rest[..take]);
                    *at += take;
                    self.state = if take == n { ChunkState::DataEnd } else { ChunkState::Data(n - take) };
                }
                ChunkState::DataEnd => {
                    if rest.len() < 2 {
                        return Ok(false);
                    }
                    if &rest[..2] != b"\r\n" {
                        return Err(ReadError::Malformed("chunk data not followed by CRLF"));
                    }
                    *at += 2;
                    self.state = ChunkState::Size;
                }
            }
        }
    }
}

/// Parses a response head at the start of `buf` (client side): `Ok(None)` until the blank
/// line that ends it has arrived; the head and its length in bytes once it has. Sans-IO
/// (the fuzz target drives it with arbitrary bytes).
pub fn parse_response_head(buf: &[u8], limits: &Limits) -> Result<Option<(ResponseHead, usize)>, ReadError> {
    let Some(len) = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4) else {
        if buf.len() > limits.max_head {
            return Err(ReadError::HeadTooLarge);
        }
        return Ok(None);
    };
    if len > limits.max_head {
        return Err(ReadError::HeadTooLarge);
    }
    let mut fields = vec![httparse::EMPTY_HEADER; limits.max_headers.min(1024)];
    let mut resp = httparse::Response::new(&mut fields);
    match resp.parse(&buf[..len]) {
        Ok(httparse::Status::Complete(_)) => {}
        Err(httparse::Error::TooManyHeaders) => return Err(ReadError::HeadTooLarge),
        _ => return Err(ReadError::Malformed("not an HTTP/1.x response")),
    }
    let head = ResponseHead {
        status: resp.code.unwrap_or(0),
        headers: resp.headers.iter().map(|h| (String::from(h.name), String::from_utf8_lossy(h.value).into_owned())).collect(),
    };
    Ok(Some((head, len)))
}

/// How a response body is framed (RFC 9112 §6.3), from its status and headers; `Err` for
/// framing a client must not trust (several different `Content-Length`s, or one that is
/// not a number).
pub fn response_framing(status: u16, headers: &[(String, String)], head_request: bool) -> Result<Framing, ReadError> {
    if head_request || status == 204 || status == 304 || (100..200).contains(&status) {
        return Ok(Framing::Length(0));
    }
    if header(headers, "transfer-encoding").is_some_and(|te| te.to_ascii_lowercase().contains("chunked")) {
        return Ok(Framing::Chunked);
    }
    let mut length = None;
    for (_, v) in headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("content-length")) {
        for part in v.split(',') {
            let n = part.trim().parse::<u64>().map_err(|_| ReadError::Malformed("invalid Content-Length"))?;
            if length.is_some_and(|l| l != n) {
                return Err(ReadError::Malformed("conflicting Content-Length values"));
            }
            length = Some(n);
        }
    }
    Ok(match length {
        Some(n) => Framing::Length(usize::try_from(n).map_err(|_| ReadError::BodyTooLarge)?),
        None => Framing::UntilClose,
    })
}

/// How a body is delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// Exactly this many bytes.
    Length(usize),
    /// Chunked transfer coding.
    Chunked,
    /// Until the connection closes.
    UntilClose,
}

/// Runs `f` with a deadline.
pub async fn timeout<T>(d: Duration, f: impl std::future::Future<Output = T>) -> Result<T, ReadError> {
    crate::io::timeout(d, f).await.map_err(|_| ReadError::Timeout)
}

/// The reason phrase of a status.
pub fn reason(status: u16) -> &'static str {
    match status {
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
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_bodies_decode_across_splits() {
        let wire = b"5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nx-trailer: y\r\n\r\n";
        for split in 0..wire.len() {
            let mut d = ChunkedDecoder::default();
            let mut input = wire[..split].to_vec();
            let mut out = Vec::new();
            let mut done = d.decode(&mut input, &mut out).unwrap();
            input.extend_from_slice(&wire[split..]);
            if !done {
                done = d.decode(&mut input, &mut out).unwrap();
            }
            assert!(done, "split {split}");
            assert_eq!(out, b"hello, world");
        }
        let mut d = ChunkedDecoder::default();
        assert!(d.decode(&mut b"zz\r\n".to_vec(), &mut Vec::new()).is_err());
        // A chunk size that does not fit a usize, or a negative one, is refused, not a panic.
        for bad in [&b"ffffffffffffffff0\r\n"[..], b"ffffffffffffffff\r\nxx", b"-5\r\n", b"+5\r\n", b"\r\n"] {
            let mut d = ChunkedDecoder::default();
            let mut input = bad.to_vec();
            let r = d.decode(&mut input, &mut Vec::new());
            assert!(matches!(r, Err(_) | Ok(false)), "{bad:?}: {r:?}");
            assert!(!d.is_done());
        }
        let mut d = ChunkedDecoder::default();
        let mut input = b"ffffffffffffffff\r\nabc".to_vec();
        let mut out = Vec::new();
        assert_eq!(d.decode(&mut input, &mut out).unwrap(), false, "a huge chunk passes data through as it comes");
        assert_eq!(out, b"abc");
        // Bytes after the body stay for the next message.
        let mut d = ChunkedDecoder::default();
        let mut input = b"1\r\na\r\n0\r\n\r\nHTTP/1.1".to_vec();
        assert!(d.decode(&mut input, &mut Vec::new()).unwrap());
        assert_eq!(input, b"HTTP/1.1");
        // A chunk announcing more than the limit is refused before its data arrives.
        let mut d = ChunkedDecoder::with_limit(10);
        assert!(!d.decode(&mut b"5\r\nhello\r\n".to_vec(), &mut Vec::new()).unwrap());
        assert!(matches!(d.decode(&mut b"6\r\n".to_vec(), &mut Vec::new()), Err(ReadError::BodyTooLarge)));
    }

    #[test]
    fn response_framing_refuses_what_a_client_must_not_trust() {
        let h = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
        assert_eq!(response_framing(200, &h(&[("content-length", "5")]), false).unwrap(), Framing::Length(5));
        assert_eq!(response_framing(200, &h(&[("content-length", "5, 5")]), false).unwrap(), Framing::Length(5));
        assert_eq!(response_framing(304, &h(&[("content-length", "5")]), false).unwrap(), Framing::Length(0));
        assert_eq!(response_framing(200, &h(&[("content-length", "5")]), true).unwrap(), Framing::Length(0));
        assert_eq!(response_framing(200, &h(&[]), false).unwrap(), Framing::UntilClose);
        assert_eq!(response_framing(200, &h(&[("transfer-encoding", "chunked")]), false).unwrap(), Framing::Chunked);
        for bad in [&[("content-length", "-1")][..], &[("content-length", "5"), ("content-length", "6")], &[("content-length", "x")]] {
            assert!(response_framing(200, &h(bad), false).is_err(), "{bad:?}");
        }
        let lim = Limits { max_head: 64, ..Limits::default() };
        assert!(matches!(parse_response_head(&[b'a'; 100], &lim), Err(ReadError::HeadTooLarge)));
        assert!(parse_response_head(b"HTTP/1.1 200 OK\r\n", &lim).unwrap().is_none());
        let (head, len) = parse_response_head(b"HTTP/1.1 200 OK\r\nx: y\r\n\r\nbody", &lim).unwrap().unwrap();
        assert_eq!((head.status, len), (200, 25));
    }
}

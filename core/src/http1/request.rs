//! The request side: [`RequestReader`] and what it gives, the rules of a request's head and
//! framing (see the parent module's docs).

use super::{
    content_length, has_token, header, transfer_codings, trim_ows, BodyLength, Chunk, ChunkedDecoder, FramingError, Limits, Refusal,
    TransferCodings,
};
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// A request head that passed every framing rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestHead {
    /// The method, as sent.
    pub method: String,
    /// The request target, as sent.
    pub target: String,
    /// HTTP/1.1 (true) or HTTP/1.0.
    pub http11: bool,
    /// The header fields in order, names as sent; values that are not UTF-8 are converted
    /// lossily.
    pub headers: Vec<(String, String)>,
    /// The body's framing.
    pub body: BodyLength,
    /// False when the connection closes after the answer: `close` among the `Connection`
    /// options (RFC 9112 §9.6), or HTTP/1.0.
    pub keep_alive: bool,
    /// The client waits for `100 Continue` before it sends the body (`Expect: 100-continue`
    /// in an HTTP/1.1 request with a body; RFC 9110 §10.1.1). Answer the head first: with
    /// `HTTP/1.1 100 Continue` when it is acceptable, or with the final answer (then close)
    /// when it is not.
    pub expect_continue: bool,
}

impl RequestHead {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// True when a body follows the head.
    pub fn has_body(&self) -> bool {
        self.body != BodyLength::Length(0)
    }

    /// True when the server should answer the head (`100 Continue`, or the final answer at
    /// once) before reading the body: the client expects it, and sent none of the body yet
    /// (`buffered`: the bytes received after the head). RFC 9110 §10.1.1 lets a server omit
    /// the `100` once some of the content has arrived.
    pub fn wants_continue(&self, buffered: &[u8]) -> bool {
        self.expect_continue && buffered.is_empty()
    }
}

/// What [`RequestReader::read`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// Nothing more can be read until more bytes arrive.
    NeedData,
    /// A request head.
    Head(RequestHead),
    /// Body bytes (a part of the input; never more than the head declared).
    Data(&'a [u8]),
    /// The request (head and body) is complete; the next one may follow.
    End,
    /// The request is refused; nothing more is read from this connection.
    Refused(Refusal),
    /// No further request comes on this connection: the last one asked to close it, or the
    /// peer closed it between requests.
    Closed,
}

/// A `Host` value (RFC 9110 §7.2: `uri-host [ ":" port ]`, RFC 3986 §3.2.2); empty is
/// allowed (a target without an authority).
fn valid_host(v: &str) -> bool {
    let reg_name = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~%!$&'()*+,;=".contains(&b));
    let port = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if let Some(rest) = v.strip_prefix('[') {
        let Some((literal, after)) = rest.split_once(']') else { return false };
        let literal_ok = !literal.is_empty() && literal.bytes().all(|b| b.is_ascii_hexdigit() || b":.vV-._~!$&'()*+,;=".contains(&b));
        return literal_ok && (after.is_empty() || after.strip_prefix(':').is_some_and(port));
    }
    match v.rsplit_once(':') {
        Some((host, p)) => reg_name(host) && port(p),
        None => reg_name(v),
    }
}

// ---------------------------------------------------------------------------- the reader

/// Most empty lines accepted before a request line (RFC 9112 §2.2: a server SHOULD ignore at
/// least one, which clients sent after a POST body).
const MAX_LEADING_EMPTY_LINES: u8 = 4;

/// Header slots kept on the stack while parsing; heads allowed more fields use the heap.
const STACK_HEADERS: usize = 64;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct HeadScan {
    /// Where the line being scanned starts.
    line_start: usize,
    /// Bytes of the head searched so far (the input is the same bytes again, and more).
    scanned: usize,
    /// A request line was seen (empty lines before it are skipped).
    seen_line: bool,
    /// Empty lines skipped before the request line.
    leading: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    Head(HeadScan),
    Length(usize),
    Chunked(ChunkedDecoder),
    Closed,
    Refused(Refusal),
}

/// The request side of HTTP/1.1, sans-IO: bytes in, [`Event`]s out (see the module docs).
///
/// The contract of [`RequestReader::read`]: `input` is every byte received and not yet
/// consumed, in order, and the host removes the first `used` bytes after each call. After
/// [`Event::NeedData`], call it again when more bytes arrived; at the end of the stream call
/// [`RequestReader::read_eof`] instead. After [`Event::Refused`] or [`Event::Closed`] every
/// call gives the same event again.
///
/// The rules, each refused with `Connection: close`:
/// - the head: `\r\n` line ends only — a bare LF or CR is 400 (RFC 9112 §2.2); no
///   whitespace before a field's colon, no folded lines, a field value without NUL (§5.1,
///   §5.2: httparse); over [`Limits::max_head`] bytes or [`Limits::max_headers`] fields, 431;
///   a version other than HTTP/1.0 and 1.1, 505 (§2.3);
/// - `Host`: exactly one in an HTTP/1.1 request, never two, and a valid value, else 400
///   (§3.2);
/// - `Transfer-Encoding`: a list of codings across every field line, compared as tokens and
///   case-insensitively; `chunked` must be last and only once (else 400, §6.3) and is the
///   only coding decoded (another is 501, §6.1); in an HTTP/1.0 request it is faulty framing
///   (400, §6.1); together with `Content-Length` it is refused (400): §6.1 allows reading
///   such a request as chunked and then closing, but refusing is simpler and what a server
///   behind a proxy should do;
/// - `Content-Length`: `1*DIGIT`; several lines or a list only when every value is the same
///   (else 400, §6.3); over [`Limits::max_body`], 413 at once, before any body byte;
/// - `Expect` (HTTP/1.1 only; HTTP/1.0 ignores it, RFC 9110 §10.1.1): `100-continue` sets
///   [`RequestHead::expect_continue`] when a body follows; any other expectation is 417;
/// - `Connection`: a list of options; `close` anywhere closes after the answer (§9.6);
///   HTTP/1.0 always closes;
/// - a chunked body: sizes `1*HEXDIG` and within the limit, extensions after `;`, CRLF after
///   each chunk's data, trailer fields as field lines (§7.1).
#[derive(Clone, Debug)]
pub struct RequestReader {
    limits: Limits,
    state: State,
    keep_alive: bool,
}

impl RequestReader {
    /// A reader for a new connection.
    pub fn new(limits: Limits) -> Self {
        RequestReader { limits, state: State::Head(HeadScan::default()), keep_alive: true }
    }

    /// The limits this reader applies.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// True while no byte of a next request was seen (the connection is idle between two
    /// requests, or new).
    pub fn is_idle(&self) -> bool {
        matches!(&self.state, State::Head(scan) if *scan == HeadScan::default())
    }

    /// Reads from `input`; returns how many bytes of it were consumed, and what was found.
    pub fn read<'a>(&mut self, input: &'a [u8]) -> (usize, Event<'a>) {
        match &mut self.state {
            State::Refused(r) => (0, Event::Refused(*r)),
            State::Closed => (0, Event::Closed),
            State::Head(_) => self.read_head(input),
            State::Length(0) => {
                self.end();
                (0, Event::End)
            }
            State::Length(remaining) => {
                if input.is_empty() {
                    return (0, Event::NeedData);
                }
                let take = input.len().min(*remaining);
                *remaining -= take;
                (take, Event::Data(&input[..take]))
            }
            State::Chunked(decoder) => match decoder.step(input) {
                Ok((used, Chunk::NeedData)) => (used, Event::NeedData),
                Ok((used, Chunk::Data(data))) => (used, Event::Data(data)),
                Ok((used, Chunk::End)) => {
                    self.end();
                    (used, Event::End)
                }
                Err(e) => self.refuse(e.into()),
            },
        }
    }

    /// The peer closed its side of the connection; `rest` are the bytes it sent that were
    /// not consumed. Between two requests that is [`Event::Closed`]; inside a head or a body
    /// it is a refusal (400): the request is incomplete.
    pub fn read_eof(&mut self, rest: &[u8]) -> Event<'static> {
        match &self.state {
            State::Refused(r) => Event::Refused(*r),
            State::Closed => Event::Closed,
            State::Head(scan) if scan.scanned == 0 && rest.iter().all(|b| *b == b'\r' || *b == b'\n') => {
                self.state = State::Closed;
                Event::Closed
            }
            State::Head(_) => self.refuse(Refusal::new(400, "connection closed inside a request head")).1,
            State::Length(0) => {
                // The body is complete: the request ends, and no other follows.
                self.state = State::Closed;
                Event::End
            }
            State::Length(_) | State::Chunked(_) => self.refuse(Refusal::new(400, "connection closed inside a request body")).1,
        }
    }

    fn refuse(&mut self, r: Refusal) -> (usize, Event<'static>) {
        self.state = State::Refused(r);
        (0, Event::Refused(r))
    }

    fn end(&mut self) {
        self.state = if self.keep_alive { State::Head(HeadScan::default()) } else { State::Closed };
    }

    fn read_head<'a>(&mut self, input: &'a [u8]) -> (usize, Event<'a>) {
        let State::Head(scan) = &mut self.state else { return (0, Event::NeedData) };
        // Empty lines before a request line are consumed here, so that an idle connection
        // holds no bytes (and counts as idle); they do not count towards the head.
        let mut skip = 0;
        if scan.scanned == 0 {
            while input[skip..].starts_with(b"\r\n") {
                skip += 2;
                scan.leading += 1;
                if scan.leading > MAX_LEADING_EMPTY_LINES {
                    return self.refuse(Refusal::new(400, "too many empty lines before the request line"));
                }
            }
            if input[skip..].first() == Some(&b'\n') {
                return self.refuse(Refusal::new(400, "bare LF in the request head"));
            }
        }
        let head = &input[skip..];
        // Only the first max_head bytes can hold a head.
        let window = &head[..head.len().min(self.limits.max_head)];
        // The input only grows between calls (the contract); should a host pass less, the
        // scan starts over rather than index past the end.
        if scan.scanned > window.len() || scan.line_start > scan.scanned {
            *scan = HeadScan { leading: scan.leading, ..HeadScan::default() };
        }
        let mut end = None;
        while let Some(p) = window[scan.scanned..].iter().position(|b| *b == b'\n') {
            let lf = scan.scanned + p;
            scan.scanned = lf + 1;
            // Every line ends with CRLF (RFC 9112 §2.2): a bare LF is refused, as a server
            // behind a proxy that reads it differently must.
            if lf == 0 || window[lf - 1] != b'\r' {
                return self.refuse(Refusal::new(400, "bare LF in the request head"));
            }
            if lf - 1 == scan.line_start {
                // An empty line ends the head (the ones before the request line were
                // consumed above, so a line was seen).
                end = Some(lf + 1);
                break;
            }
            scan.line_start = lf + 1;
            scan.seen_line = true;
        }
        let Some(end) = end else {
            // Searched up to here; a CR at the very end waits for its LF (it may end an
            // empty line before the request line, which is skipped only at the start).
            scan.scanned = window.len() - usize::from(window.last() == Some(&b'\r'));
            if head.len() > self.limits.max_head {
                return self.refuse(Refusal::new(431, "request head too large"));
            }
            return (skip, Event::NeedData);
        };
        match self.parse_head(&head[..end]) {
            Ok(h) => {
                self.keep_alive = h.keep_alive;
                self.state = match h.body {
                    BodyLength::Length(n) => State::Length(n),
                    BodyLength::Chunked => State::Chunked(ChunkedDecoder::with_limit(self.limits.max_body)),
                };
                (skip + end, Event::Head(h))
            }
            Err(r) => self.refuse(r),
        }
    }

    /// Parses a complete head (it ends with the empty line) and applies the framing rules.
    fn parse_head(&self, bytes: &[u8]) -> Result<RequestHead, Refusal> {
        let max_headers = self.limits.max_headers;
        let mut stack = [httparse::EMPTY_HEADER; STACK_HEADERS];
        let mut heap;
        let fields: &mut [httparse::Header<'_>] = if max_headers <= STACK_HEADERS {
            &mut stack[..max_headers]
        } else {
            heap = vec![httparse::EMPTY_HEADER; max_headers];
            &mut heap
        };
        let mut req = httparse::Request::new(fields);
        match req.parse(bytes) {
            Ok(httparse::Status::Complete(_)) => {}
            Ok(httparse::Status::Partial) => return Err(Refusal::new(400, "incomplete request head")),
            Err(httparse::Error::TooManyHeaders) => return Err(Refusal::new(431, "too many header fields")),
            Err(httparse::Error::Version) if other_http_version(bytes) => return Err(Refusal::new(505, "HTTP version not supported")),
            Err(_) => return Err(Refusal::new(400, "malformed request head")),
        }
        let http11 = req.version == Some(1);
        let headers: Vec<(String, String)> =
            req.headers.iter().map(|h| (String::from(h.name), String::from_utf8_lossy(h.value).into_owned())).collect();
        let (mut hosts, mut host_ok) = (0usize, true);
        let (mut expect_continue, mut other_expectation) = (false, false);
        for (name, value) in &headers {
            if name.eq_ignore_ascii_case("host") {
                hosts += 1;
                host_ok &= valid_host(trim_ows(value));
            } else if http11 && name.eq_ignore_ascii_case("expect") {
                for e in value.split(',').map(trim_ows).filter(|e| !e.is_empty()) {
                    if e.eq_ignore_ascii_case("100-continue") {
                        expect_continue = true;
                    } else {
                        other_expectation = true;
                    }
                }
            }
        }
        // RFC 9112 §3.2: exactly one Host in HTTP/1.1, never two, and a valid one.
        if hosts > 1 || (http11 && hosts == 0) {
            return Err(Refusal::new(400, "a request needs exactly one Host field"));
        }
        if !host_ok {
            return Err(Refusal::new(400, "invalid Host"));
        }
        let codings = transfer_codings(&headers);
        let length = content_length(&headers).map_err(|e| match e {
            FramingError::TooLarge => Refusal::new(413, "request body too large"),
            e => Refusal::from(e),
        });
        let body = match codings {
            TransferCodings::Absent => match length? {
                None => BodyLength::Length(0),
                Some(n) => match usize::try_from(n) {
                    Ok(n) if n <= self.limits.max_body => BodyLength::Length(n),
                    _ => return Err(Refusal::new(413, "request body too large")),
                },
            },
            // RFC 9112 §6.1: HTTP/1.0 has no Transfer-Encoding; treat the framing as faulty.
            _ if !http11 => return Err(Refusal::new(400, "Transfer-Encoding in an HTTP/1.0 request")),
            // RFC 9112 §6.1, §11.2: the request smuggling shape.
            _ if !matches!(length, Ok(None)) => return Err(Refusal::new(400, "both Transfer-Encoding and Content-Length")),
            TransferCodings::Chunked => BodyLength::Chunked,
            TransferCodings::Invalid => return Err(Refusal::new(400, "invalid Transfer-Encoding")),
            TransferCodings::ChunkedNotLast => return Err(Refusal::new(400, "chunked is not the last transfer coding")),
            TransferCodings::ChunkedTwice => return Err(Refusal::new(400, "chunked applied more than once")),
            TransferCodings::Unsupported => return Err(Refusal::new(501, "transfer coding not implemented")),
        };
        if other_expectation {
            return Err(Refusal::new(417, "only the 100-continue expectation is supported"));
        }
        let keep_alive = http11 && !has_token(&headers, "connection", "close");
        Ok(RequestHead {
            method: String::from(req.method.unwrap_or("")),
            target: String::from(req.path.unwrap_or("/")),
            http11,
            headers,
            expect_continue: expect_continue && body != BodyLength::Length(0),
            body,
            keep_alive,
        })
    }
}

/// True when the request line is well formed but names an HTTP version other than 1.0 and
/// 1.1 (`HTTP/2.0`, `HTTP/1.2`): 505 rather than 400.
fn other_http_version(head: &[u8]) -> bool {
    let line = head.split(|b| *b == b'\n').find(|l| !l.is_empty() && *l != b"\r").unwrap_or(b"");
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut parts = line.split(|b| *b == b' ');
    let (Some(_), Some(_), Some(v), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else { return false };
    matches!(v, [b'H', b'T', b'T', b'P', b'/', major, b'.', minor] if major.is_ascii_digit() && minor.is_ascii_digit())
}

/// The interim response that tells a client waiting on `Expect: 100-continue` to send the
/// body (RFC 9110 §15.2.1).
pub const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::borrow::ToOwned;
    use alloc::format;

    /// Every event of `wire` fed in pieces of `split` bytes (0: all at once), with adjacent
    /// data joined, then the end of the stream.
    fn events(wire: &[u8], split: usize, limits: Limits) -> Vec<String> {
        let mut r = RequestReader::new(limits);
        let mut buf = Vec::new();
        let mut out: Vec<String> = Vec::new();
        let mut fed = 0;
        loop {
            let (used, ev) = r.read(&buf);
            let text = match ev {
                Event::NeedData => {
                    buf.drain(..used);
                    if fed == wire.len() {
                        let ev = r.read_eof(&buf);
                        out.push(format!("{ev:?}"));
                        return out;
                    }
                    let n = if split == 0 { wire.len() } else { split.min(wire.len() - fed) };
                    buf.extend_from_slice(&wire[fed..fed + n]);
                    fed += n;
                    continue;
                }
                Event::Data(d) => {
                    let d = String::from_utf8_lossy(d).into_owned();
                    match out.last_mut() {
                        Some(last) if last.starts_with("data:") => {
                            last.push_str(&d);
                            buf.drain(..used);
                            continue;
                        }
                        _ => format!("data:{d}"),
                    }
                }
                Event::Head(h) => {
                    format!("head:{} {} {:?} keep_alive={} expect={}", h.method, h.target, h.body, h.keep_alive, h.expect_continue)
                }
                Event::End => "end".to_owned(),
                ev @ (Event::Refused(_) | Event::Closed) => {
                    out.push(format!("{ev:?}"));
                    return out;
                }
            };
            buf.drain(..used);
            out.push(text);
        }
    }

    fn check(wire: &[u8], expected: &[&str]) {
        let whole = events(wire, 0, Limits::default());
        assert_eq!(whole, expected, "{}", String::from_utf8_lossy(wire));
        for split in 1..8 {
            assert_eq!(events(wire, split, Limits::default()), whole, "split {split}: {}", String::from_utf8_lossy(wire));
        }
    }

    fn refused(status: u16) -> String {
        format!("Refused(Refusal {{ status: {status}, reason: ")
    }

    /// `wire` is refused with `status`, after its head when `in_body`, else before any.
    fn check_refused(wire: &[u8], status: u16, in_body: bool) {
        let ev = events(wire, 0, Limits::default());
        assert!(ev.last().is_some_and(|e| e.starts_with(&refused(status))), "{}: {ev:?}", String::from_utf8_lossy(wire));
        let heads = ev.iter().filter(|e| e.starts_with("head:")).count();
        assert_eq!(heads, usize::from(in_body), "{}: {ev:?}", String::from_utf8_lossy(wire));
        for split in 1..4 {
            assert_eq!(events(wire, split, Limits::default()), ev);
        }
    }

    #[test]
    fn controls_are_read_as_before() {
        check(
            b"POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\nHost: h\r\n\r\n",
            &[
                "head:POST /a Length(5) keep_alive=true expect=false",
                "data:hello",
                "end",
                "head:GET /b Length(0) keep_alive=true expect=false",
                "end",
                "Closed",
            ],
        );
        check(
            b"POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n5;x=y\r\nhello\r\n3 ; z\r\n, w\r\n0\r\nT: v\r\n\r\n",
            &["head:POST /a Chunked keep_alive=true expect=false", "data:hello, w", "end", "Closed"],
        );
        check(
            b"\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\nConnection: Keep-Alive\r\n\r\n",
            &["head:GET / Length(0) keep_alive=true expect=false", "end", "Closed"],
        );
        check(b"GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\n\r\n", &["head:GET / Length(0) keep_alive=false expect=false", "end", "Closed"]);
        check(
            b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\ncontent-length: 02\r\n\r\nab",
            &["head:POST / Length(2) keep_alive=true expect=false", "data:ab", "end", "Closed"],
        );
        check(
            b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nExpect: 100-Continue\r\nConnection: keep-alive, close\r\n\r\nab",
            &["head:POST / Length(2) keep_alive=false expect=true", "data:ab", "end", "Closed"],
        );
        // HTTP/1.0 ignores Expect; a body-less request waits for nothing.
        check(
            b"POST / HTTP/1.0\r\nContent-Length: 1\r\nExpect: 100-continue\r\n\r\na",
            &["head:POST / Length(1) keep_alive=false expect=false", "data:a", "end", "Closed"],
        );
        check(
            b"GET / HTTP/1.1\r\nHost: [::1]:80\r\nExpect: 100-continue\r\n\r\n",
            &["head:GET / Length(0) keep_alive=true expect=false", "end", "Closed"],
        );
    }

    #[test]
    fn every_framing_rule_refuses_what_it_must() {
        let cases: &[(&[u8], u16)] = &[
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n", 501),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked;q=1\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \"chunked\"\r\n\r\n", 400),
            (b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 6\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x5\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5 5\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999\r\n\r\n", 413),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 999999999999999999999999\r\n\r\n", 413),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999\r\nExpect: 100-continue\r\n\r\n", 413),
            (b"GET / HTTP/1.1\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
            (b"GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nExpect: 101-dance\r\n\r\n", 417),
            (b"GET / HTTP/1.1\nHost: h\n\n", 400),
            (b"GET / HTTP/1.1\r\nHost: h\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n folded\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400),
            (b"GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
            (b"GET / HTTP/1.1 x\r\nHost: h\r\n\r\n", 400),
            (b"\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
            (b"\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ];
        for (wire, status) in cases {
            check_refused(wire, *status, false);
        }
        let in_body: &[(&[u8], u16)] = &[
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n", 400),
            (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n900000\r\n", 413),
        ];
        for (wire, status) in in_body {
            check_refused(wire, *status, true);
        }
    }

    #[test]
    fn limits_and_the_end_of_the_stream() {
        let small = Limits { max_head: 64, max_headers: 2, max_body: 4 };
        let ev = events(b"GET / HTTP/1.1\r\nHost: h\r\nX-Long: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n", 1, small);
        assert!(ev[0].starts_with(&refused(431)), "{ev:?}");
        let ev = events(b"GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n", 0, small);
        assert!(ev[0].starts_with(&refused(431)), "{ev:?}");
        // A head of exactly max_head bytes passes.
        let exact = format!("GET / HTTP/1.1\r\nHost: h\r\nX: {}\r\n\r\n", "a".repeat(32));
        assert_eq!(exact.len(), 64);
        assert_eq!(events(exact.as_bytes(), 0, small)[0], "head:GET / Length(0) keep_alive=true expect=false");
        let over = format!("GET / HTTP/1.1\r\nHost: h\r\nX: {}\r\n\r\n", "a".repeat(33));
        assert!(events(over.as_bytes(), 0, small)[0].starts_with(&refused(431)));
        let ev = events(b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello", 0, small);
        assert!(ev[0].starts_with(&refused(413)), "{ev:?}");
        // The end of the stream: between requests, inside a head, inside a body.
        assert_eq!(events(b"", 0, small), ["Closed"]);
        assert_eq!(events(b"\r\n", 0, small), ["Closed"]);
        assert!(events(b"GET / HT", 0, small)[0].starts_with(&refused(400)));
        let ev = events(b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nab", 0, small);
        assert_eq!(ev[1], "data:ab");
        assert!(ev[2].starts_with(&refused(400)), "{ev:?}");
        // The reader stays refused.
        let mut r = RequestReader::new(small);
        let bad = b"GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n";
        assert!(matches!(r.read(bad).1, Event::Refused(_)));
        assert!(matches!(r.read(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n").1, Event::Refused(_)));
        assert!(matches!(r.read_eof(b""), Event::Refused(_)));
        assert!(RequestReader::new(small).is_idle());
        // A host that breaks the contract (less input than before) gets no panic.
        let mut r = RequestReader::new(small);
        assert_eq!(r.read(b"GET / HTTP/1.1\r\nHost: h\r\nX").1, Event::NeedData);
        assert_eq!(r.read(b"GE").1, Event::NeedData);
        assert!(matches!(r.read(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n").1, Event::Head(_)));
    }
}

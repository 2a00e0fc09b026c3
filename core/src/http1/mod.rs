//! HTTP/1.1 message framing (RFC 9112), sans-IO: where a message begins and ends, and which
//! requests a server must refuse before it reads any further.
//!
//! Framing is where two HTTP implementations that disagree let a third party in: a proxy that
//! counts a body by `Content-Length` while the server behind it reads it as chunked serves
//! the attacker's bytes as a second request (request smuggling, RFC 9112 §11.2). So the
//! reader here takes the strict reading of every rule, and refuses what it cannot frame
//! without doubt rather than guessing.
//!
//! [`RequestReader`] is the server's side, in the manner of h11: the host hands it the bytes
//! it has received and not consumed yet, and gets back how many it took and one [`Event`]:
//! a request's [`RequestHead`], body [`Event::Data`], the request's [`Event::End`], a
//! [`Refusal`] (answer it with its status and close the connection), [`Event::Closed`] (no
//! further request comes on this connection) or [`Event::NeedData`]. Nothing is buffered or
//! copied inside, and nothing is read past the end of a request, so pipelined requests come
//! out one after the other.
//!
//! ```
//! use a2a_wire::http1::{BodyLength, Event, Limits, RequestReader};
//!
//! let mut reader = RequestReader::new(Limits::default());
//! let mut buf: Vec<u8> = b"POST /rpc HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}".to_vec();
//! let mut body = Vec::new();
//! loop {
//!     let (used, event) = reader.read(&buf);
//!     let done = match event {
//!         Event::Head(head) => {
//!             assert_eq!((head.method.as_str(), head.body), ("POST", BodyLength::Length(2)));
//!             false
//!         }
//!         Event::Data(data) => {
//!             body.extend_from_slice(data);
//!             false
//!         }
//!         Event::End => true,
//!         // A host reads more bytes here; a refusal is answered, then the connection closed.
//!         other => panic!("{other:?}"),
//!     };
//!     buf.drain(..used);
//!     if done {
//!         break;
//!     }
//! }
//! assert_eq!(body, b"{}");
//!
//! // Both framings at once: the classic smuggling request is refused, not guessed at.
//! let mut reader = RequestReader::new(Limits::default());
//! let smuggled = b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\nGET /x HTTP/1.1\r\n\r\n";
//! let Event::Refused(refusal) = reader.read(smuggled).1 else { panic!() };
//! assert_eq!(refusal.status, 400);
//! assert!(matches!(reader.read(smuggled).1, Event::Refused(_)), "nothing more is read after a refusal");
//! ```
//!
//! The client's side: [`parse_response_head`], [`response_framing`] (RFC 9112 §6.3) and the
//! [`ChunkedDecoder`] both sides share.

use alloc::string::String;
use core::fmt;

mod chunked;
mod request;
mod response;

pub use chunked::{Chunk, ChunkedDecoder};
pub use request::{Event, RequestHead, RequestReader, CONTINUE};
pub use response::{parse_response_head, response_framing, Framing, ResponseHead};

/// Limits of the framing layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest message head, request or status line and every field line (bytes).
    pub max_head: usize,
    /// Largest number of header fields.
    pub max_headers: usize,
    /// Largest request body (bytes): a larger `Content-Length`, or chunks adding up to more,
    /// are refused with 413 as soon as the size is known.
    pub max_body: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_head: 16 * 1024, max_headers: 64, max_body: 8 * 1024 * 1024 }
    }
}

/// A request the server refuses: answer it with `status` (a short body saying `reason`, and
/// `Connection: close`), then close the connection. Nothing after a refused request is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The status to answer with: 400, 413, 417, 431, 501 or 505.
    pub status: u16,
    /// What is wrong, in a few words (the answer's body).
    pub reason: &'static str,
}

impl Refusal {
    const fn new(status: u16, reason: &'static str) -> Self {
        Refusal { status, reason }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.status, self.reason)
    }
}

/// How long a body is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyLength {
    /// Exactly this many bytes (0: no body).
    Length(usize),
    /// Chunked (RFC 9112 §7.1): its length is known at its end.
    Chunked,
}

/// Why a message cannot be framed (both sides; the reader turns it into a [`Refusal`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FramingError {
    /// The bytes break the framing rules.
    Malformed(&'static str),
    /// A body is larger than the limit.
    TooLarge,
}

impl fmt::Display for FramingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FramingError::Malformed(m) => f.write_str(m),
            FramingError::TooLarge => f.write_str("body over the limit"),
        }
    }
}

impl From<FramingError> for Refusal {
    fn from(e: FramingError) -> Self {
        match e {
            FramingError::Malformed(m) => Refusal::new(400, m),
            FramingError::TooLarge => Refusal::new(413, "request body too large"),
        }
    }
}

// ---------------------------------------------------------------------------- field values

/// `tchar` (RFC 9110 §5.6.2).
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A `token` (RFC 9110 §5.6.2): one or more `tchar`.
pub fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_tchar)
}

fn trim_ows(s: &str) -> &str {
    s.trim_matches(|c| c == ' ' || c == '\t')
}

/// The first value of header `name` (case-insensitive).
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// The elements of list field `name` (RFC 9110 §5.6.1) across all its field lines, in order:
/// several lines are one list; whitespace around an element is trimmed and empty elements
/// are skipped.
pub fn list_elements<'a>(headers: &'a [(String, String)], name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    headers
        .iter()
        .filter(move |(k, _)| k.eq_ignore_ascii_case(name))
        .flat_map(|(_, v)| v.split(','))
        .map(trim_ows)
        .filter(|e| !e.is_empty())
}

/// True when list field `name` holds `token` (compared case-insensitively): `close` among
/// the `Connection` options, say (RFC 9112 §9.6).
pub fn has_token(headers: &[(String, String)], name: &str, token: &str) -> bool {
    list_elements(headers, name).any(|e| e.eq_ignore_ascii_case(token))
}

/// What a message's `Transfer-Encoding` says (RFC 9112 §6.1, §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TransferCodings {
    /// No `Transfer-Encoding` field.
    Absent,
    /// `chunked`, alone.
    Chunked,
    /// An element that is not a transfer coding, or no coding at all.
    Invalid,
    /// `chunked` is there but not the last coding: the length cannot be told.
    ChunkedNotLast,
    /// `chunked` more than once (a sender must not, RFC 9112 §6.1).
    ChunkedTwice,
    /// A coding other than `chunked`, which is the only one this side decodes.
    Unsupported,
}

fn transfer_codings(headers: &[(String, String)]) -> TransferCodings {
    let mut present = false;
    let (mut codings, mut chunked, mut last_chunked, mut other) = (0usize, 0usize, false, false);
    for (name, value) in headers {
        if !name.eq_ignore_ascii_case("transfer-encoding") {
            continue;
        }
        present = true;
        for element in value.split(',').map(trim_ows).filter(|e| !e.is_empty()) {
            // transfer-coding = token *( OWS ";" OWS transfer-parameter ); chunked has no
            // parameters.
            let (coding, params) = element.split_once(';').map_or((element, None), |(c, p)| (trim_ows(c), Some(p)));
            if !is_token(coding) {
                return TransferCodings::Invalid;
            }
            codings += 1;
            if coding.eq_ignore_ascii_case("chunked") {
                if params.is_some() {
                    return TransferCodings::Invalid;
                }
                chunked += 1;
                last_chunked = true;
            } else {
                other = true;
                last_chunked = false;
            }
        }
    }
    if !present {
        TransferCodings::Absent
    } else if codings == 0 {
        TransferCodings::Invalid
    } else if chunked > 0 && !last_chunked {
        TransferCodings::ChunkedNotLast
    } else if chunked > 1 {
        TransferCodings::ChunkedTwice
    } else if other {
        TransferCodings::Unsupported
    } else {
        TransferCodings::Chunked
    }
}

/// The `Content-Length` of a message (RFC 9110 §8.6, RFC 9112 §6.3): `Ok(None)` without one;
/// several field lines or a list are one value only when every element is the same number.
/// A value too large for a `u64` is [`FramingError::TooLarge`].
fn content_length(headers: &[(String, String)]) -> Result<Option<u64>, FramingError> {
    let mut length: Option<u64> = None;
    let mut present = false;
    for (name, value) in headers {
        if !name.eq_ignore_ascii_case("content-length") {
            continue;
        }
        present = true;
        for element in value.split(',').map(trim_ows).filter(|e| !e.is_empty()) {
            // Content-Length = 1*DIGIT: no sign, no space inside, no hex.
            if !element.bytes().all(|b| b.is_ascii_digit()) {
                return Err(FramingError::Malformed("invalid Content-Length"));
            }
            let n = element
                .bytes()
                .try_fold(0u64, |n, d| n.checked_mul(10).and_then(|n| n.checked_add(u64::from(d - b'0'))))
                .ok_or(FramingError::TooLarge)?;
            if length.is_some_and(|l| l != n) {
                return Err(FramingError::Malformed("conflicting Content-Length values"));
            }
            length = Some(n);
        }
    }
    match (present, length) {
        (true, None) => Err(FramingError::Malformed("invalid Content-Length")),
        (_, length) => Ok(length),
    }
}

//! The HTTP messages the sans-IO server endpoint and client exchange with a transport.
//!
//! Requests are borrowed (the transport owns the buffers); responses are owned. gRPC rides on
//! the same shapes: `:path` as the target, the 5-byte framed body, trailers on the response.

use alloc::string::String;
use alloc::vec::Vec;

/// An HTTP request as received (server side).
#[derive(Clone, Copy, Debug)]
pub struct HttpRequest<'a> {
    /// `GET`, `POST`, ... (any case is accepted).
    pub method: &'a str,
    /// The request target: path and optional `?query`, as on the request line or in `:path`.
    pub target: &'a str,
    /// Header fields, names in any case. Transports pass values that are not UTF-8 lossily.
    pub headers: &'a [(&'a str, &'a str)],
    /// The body (for gRPC: the length-prefixed frames).
    pub body: &'a [u8],
}

impl<'a> HttpRequest<'a> {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&'a str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
    }
    /// Every value of header `name` (case-insensitive), in order.
    pub fn headers_named(&self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers.iter().filter(move |(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
    }
    /// The path part of the target.
    pub fn path(&self) -> &'a str {
        self.target.split_once('?').map_or(self.target, |(p, _)| p)
    }
    /// The query part of the target (after `?`), if any.
    pub fn query(&self) -> Option<&'a str> {
        self.target.split_once('?').map(|(_, q)| q)
    }
}

/// An HTTP response to send (server side) or an owned request to send (client side).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Header fields.
    pub headers: Vec<(String, String)>,
    /// The body. For a streaming answer this is empty and the events follow.
    pub body: Vec<u8>,
    /// Trailer fields (gRPC status).
    pub trailers: Vec<(String, String)>,
    /// True when events follow (SSE or gRPC server streaming).
    pub streaming: bool,
}

impl HttpResponse {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    /// The first value of trailer `name` (case-insensitive).
    pub fn trailer(&self, name: &str) -> Option<&str> {
        self.trailers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// An HTTP request to send (client side).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutgoingRequest {
    /// Method.
    pub method: &'static str,
    /// Absolute URL (or `host:port` + path for gRPC).
    pub url: String,
    /// Header fields.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
}

/// The media type of a `Content-Type` value, lowercased, without parameters.
pub fn media_type(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// Percent-decodes a path segment or query component (`+` is a space in queries only).
/// `None` for malformed escapes or a result that is not UTF-8.
pub fn percent_decode(s: &str, plus_is_space: bool) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = |c: u8| -> Option<u8> {
                    match c {
                        b'0'..=b'9' => Some(c - b'0'),
                        b'a'..=b'f' => Some(c - b'a' + 10),
                        b'A'..=b'F' => Some(c - b'A' + 10),
                        _ => None,
                    }
                };
                let hi = hex(*b.get(i + 1)?)?;
                let lo = hex(*b.get(i + 2)?)?;
                out.push(hi << 4 | lo);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Percent-encodes a path segment (RFC 3986 unreserved characters stay).
pub fn percent_encode(s: &str) -> String {
    percent_encode_keeping(s, |b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// Percent-encodes every byte of `s` for which `keep` is false.
pub fn percent_encode_keeping(s: &str, keep: impl Fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if keep(b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b >> 4)]));
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b & 15)]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_coding_round_trips() {
        for s in ["plain", "a b/c?d#e%f", "ünïcödé", ""] {
            assert_eq!(percent_decode(&percent_encode(s), false).as_deref(), Some(s));
        }
        assert_eq!(percent_decode("a+b", true).as_deref(), Some("a b"));
        assert_eq!(percent_decode("a+b", false).as_deref(), Some("a+b"));
        assert_eq!(percent_decode("%zz", false), None);
        assert_eq!(percent_decode("%4", false), None);
        assert_eq!(percent_decode("%ff", false), None);
    }

    #[test]
    fn media_types_ignore_case_and_parameters() {
        assert_eq!(media_type("Application/JSON; charset=utf-8"), "application/json");
    }
}

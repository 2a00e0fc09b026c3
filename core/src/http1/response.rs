//! The response side (a client's): response heads and their framing (RFC 9112 §6.3).

use super::{content_length, has_token, header, transfer_codings, FramingError, TransferCodings};
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

// ---------------------------------------------------------------------------- responses

/// A parsed response head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResponseHead {
    /// Status code.
    pub status: u16,
    /// HTTP/1.1 (true) or HTTP/1.0.
    pub http11: bool,
    /// Header fields.
    pub headers: Vec<(String, String)>,
}

impl ResponseHead {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// An interim response (1xx other than 101): the final one follows, and a client reads
    /// past it even when it did not ask for one (RFC 9110 §15.2).
    pub fn is_interim(&self) -> bool {
        (100..200).contains(&self.status) && self.status != 101
    }

    /// True when the connection may carry another request after this response: HTTP/1.1
    /// without `close` among the `Connection` options, or HTTP/1.0 with `keep-alive` among
    /// them (RFC 9112 §9.3).
    pub fn keep_alive(&self) -> bool {
        if self.http11 {
            !has_token(&self.headers, "connection", "close")
        } else {
            has_token(&self.headers, "connection", "keep-alive")
        }
    }
}

/// Parses a response head at the start of `buf` (client side): `Ok(None)` until the blank
/// line that ends it has arrived; the head and its length in bytes once it has. A head over
/// `max_head` bytes or `max_headers` fields is [`FramingError::TooLarge`].
pub fn parse_response_head(buf: &[u8], max_head: usize, max_headers: usize) -> Result<Option<(ResponseHead, usize)>, FramingError> {
    let window = &buf[..buf.len().min(max_head.saturating_add(1))];
    let Some(len) = window.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4) else {
        if buf.len() > max_head {
            return Err(FramingError::TooLarge);
        }
        return Ok(None);
    };
    if len > max_head {
        return Err(FramingError::TooLarge);
    }
    let mut fields = vec![httparse::EMPTY_HEADER; max_headers.min(1024)];
    let mut resp = httparse::Response::new(&mut fields);
    match resp.parse(&buf[..len]) {
        Ok(httparse::Status::Complete(_)) => {}
        Err(httparse::Error::TooManyHeaders) => return Err(FramingError::TooLarge),
        _ => return Err(FramingError::Malformed("not an HTTP/1.x response")),
    }
    let head = ResponseHead {
        status: resp.code.unwrap_or(0),
        http11: resp.version == Some(1),
        headers: resp.headers.iter().map(|h| (String::from(h.name), String::from_utf8_lossy(h.value).into_owned())).collect(),
    };
    Ok(Some((head, len)))
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

/// How a response body is framed (RFC 9112 §6.3), from its head and whether the request was
/// `HEAD`; `Err` for framing a client must not trust:
/// - to `HEAD`, and 1xx, 204 and 304: no body;
/// - `Transfer-Encoding` and `Content-Length` together: an error (§6.3 item 3: "ought to be
///   handled as an error", the smuggling and response-splitting shape);
/// - `Transfer-Encoding`: `chunked` alone (compared as tokens); another coding is an error
///   (this client asks for none, and could not decode it), as is one in an HTTP/1.0
///   response (§6.1);
/// - `Content-Length`: `1*DIGIT`, several only when all are the same (§6.3 item 5);
/// - otherwise until the connection closes.
pub fn response_framing(head: &ResponseHead, head_request: bool) -> Result<Framing, FramingError> {
    let status = head.status;
    if head_request || status == 204 || status == 304 || (100..200).contains(&status) {
        return Ok(Framing::Length(0));
    }
    let codings = transfer_codings(&head.headers);
    let length = content_length(&head.headers)?;
    match codings {
        TransferCodings::Absent => {}
        _ if length.is_some() => return Err(FramingError::Malformed("both Transfer-Encoding and Content-Length")),
        _ if !head.http11 => return Err(FramingError::Malformed("Transfer-Encoding in an HTTP/1.0 response")),
        TransferCodings::Chunked => return Ok(Framing::Chunked),
        TransferCodings::Unsupported => return Err(FramingError::Malformed("unsupported transfer coding")),
        _ => return Err(FramingError::Malformed("invalid Transfer-Encoding")),
    }
    Ok(match length {
        Some(n) => Framing::Length(usize::try_from(n).map_err(|_| FramingError::TooLarge)?),
        None => Framing::UntilClose,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_framing_refuses_what_a_client_must_not_trust() {
        let h = |status: u16, v: &[(&str, &str)]| ResponseHead {
            status,
            http11: true,
            headers: v.iter().map(|(a, b)| (String::from(*a), String::from(*b))).collect(),
        };
        let f = |head: ResponseHead| response_framing(&head, false);
        assert_eq!(f(h(200, &[("content-length", "5")])), Ok(Framing::Length(5)));
        assert_eq!(f(h(200, &[("content-length", "5, 5")])), Ok(Framing::Length(5)));
        assert_eq!(f(h(304, &[("content-length", "5")])), Ok(Framing::Length(0)));
        assert_eq!(response_framing(&h(200, &[("content-length", "5")]), true), Ok(Framing::Length(0)));
        assert_eq!(f(h(200, &[])), Ok(Framing::UntilClose));
        assert_eq!(f(h(200, &[("transfer-encoding", "Chunked")])), Ok(Framing::Chunked));
        for bad in [
            &[("content-length", "-1")][..],
            &[("content-length", "+1")],
            &[("content-length", "5"), ("content-length", "6")],
            &[("content-length", "x")],
            &[("transfer-encoding", "chunked"), ("content-length", "5")],
            &[("transfer-encoding", "xchunked")],
            &[("transfer-encoding", "chunked, gzip")],
            &[("transfer-encoding", "gzip, chunked")],
        ] {
            assert!(f(h(200, bad)).is_err(), "{bad:?}");
        }
        let mut old = h(200, &[("transfer-encoding", "chunked")]);
        old.http11 = false;
        assert!(f(old.clone()).is_err(), "Transfer-Encoding in HTTP/1.0 is faulty framing");
        assert!(!old.keep_alive());
        assert!(!h(200, &[("connection", "keep-alive, Close")]).keep_alive());
        assert!(h(200, &[("connection", "keep-alive")]).keep_alive());
        assert!(h(100, &[]).is_interim() && !h(101, &[]).is_interim() && !h(200, &[]).is_interim());

        assert_eq!(parse_response_head(&[b'a'; 100], 64, 16), Err(FramingError::TooLarge));
        assert_eq!(parse_response_head(b"HTTP/1.1 200 OK\r\n", 64, 16), Ok(None));
        let (head, len) = parse_response_head(b"HTTP/1.0 200 OK\r\nx: y\r\n\r\nbody", 64, 16).unwrap().unwrap();
        assert_eq!((head.status, head.http11, len), (200, false, 25));
    }
}

//! Server-Sent Events framing for the streaming operations of the JSON-RPC and HTTP+JSON
//! bindings (spec §9.4.2, §11.7; WIRE-NOTES (g)).
//!
//! A2A events are one JSON document each, sent as `data:` lines and a blank line. The
//! encoder writes one `data:` line (JSON from the codecs never contains a line break; any
//! that does is split over several `data:` lines, as SSE requires). The decoder follows the
//! SSE parsing rules (WHATWG HTML §9.2.6): LF, CRLF or CR line ends, chunks split anywhere
//! (even inside a CRLF), comments (`:`), multi-line `data:` joined with `\n`, a leading BOM,
//! `event:`/`id:`/`retry:` kept; and it refuses to buffer more than its limit.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// `Content-Type` of an event stream.
pub const CONTENT_TYPE: &str = "text/event-stream";

/// Appends one event carrying `data` to `out`.
pub fn encode_event(data: &[u8], out: &mut Vec<u8>) {
    encode_event_with_id(None, data, out);
}

/// Appends one event carrying `data`, with an `id:` line when `id` is given (a line break
/// in it would end the field early, so the id is cut at the first one).
pub fn encode_event_with_id(id: Option<&str>, data: &[u8], out: &mut Vec<u8>) {
    if let Some(id) = id {
        let id = id.split(['\r', '\n']).next().unwrap_or_default();
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    for line in data.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out.push(b'\n');
}

/// One decoded event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (empty when absent).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last `id:` seen.
    pub id: Option<String>,
    /// A `retry:` value in milliseconds.
    pub retry: Option<u64>,
}

/// Why an event stream could not be decoded.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SseError {
    /// An event or a line grew beyond the decoder's limit (bytes).
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// A line is not UTF-8.
    NotUtf8,
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SseError::TooLarge { limit } => write!(f, "event stream: an event is larger than {limit} bytes"),
            SseError::NotUtf8 => f.write_str("event stream: a line is not UTF-8"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SseError {}

/// Incremental event-stream decoder: feed bytes as they arrive, take events as they complete.
#[derive(Clone, Debug)]
pub struct SseDecoder {
    limit: usize,
    /// Bytes not yet split into lines.
    pending: Vec<u8>,
    /// A CR ended the last line: skip an LF that starts the next chunk.
    after_cr: bool,
    /// At the very start (a BOM may follow).
    at_start: bool,
    data: String,
    has_data: bool,
    event: String,
    id: Option<String>,
    retry: Option<u64>,
    ready: alloc::collections::VecDeque<SseEvent>,
    failed: Option<SseError>,
}

impl SseDecoder {
    /// A decoder that refuses events (and lines) larger than `limit` bytes.
    pub fn new(limit: usize) -> Self {
        SseDecoder {
            limit,
            pending: Vec::new(),
            after_cr: false,
            at_start: true,
            data: String::new(),
            has_data: false,
            event: String::new(),
            id: None,
            retry: None,
            ready: alloc::collections::VecDeque::new(),
            failed: None,
        }
    }

    /// Feeds received bytes. After an error, further input is ignored.
    pub fn feed(&mut self, mut chunk: &[u8]) {
        if self.failed.is_some() {
            return;
        }
        if self.after_cr && !chunk.is_empty() {
            // The last chunk ended in CR: an LF that starts this one belongs to that line end.
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
            }
            self.after_cr = false;
        }
        let mut start = 0;
        let mut i = 0;
        while i < chunk.len() {
            let b = chunk[i];
            if b == b'\n' || b == b'\r' {
                let line_end = i;
                if b == b'\r' {
                    if i + 1 < chunk.len() {
                        if chunk[i + 1] == b'\n' {
                            i += 1;
                        }
                    } else {
                        self.after_cr = true;
                    }
                }
                if self.pending.is_empty() {
                    self.line(&chunk[start..line_end]);
                } else {
                    let mut l = core::mem::take(&mut self.pending);
                    l.extend_from_slice(&chunk[start..line_end]);
                    self.line(&l);
                }
                if self.failed.is_some() {
                    return;
                }
                start = i + 1;
            }
            i += 1;
        }
        if start < chunk.len() {
            if self.pending.len() + (chunk.len() - start) > self.limit {
                self.fail();
                return;
            }
            self.pending.extend_from_slice(&chunk[start..]);
        }
    }

    fn fail(&mut self) {
        self.failed = Some(SseError::TooLarge { limit: self.limit });
        self.pending.clear();
        self.data.clear();
    }

    fn line(&mut self, mut line: &[u8]) {
        if line.len() > self.limit {
            self.fail();
            return;
        }
        if self.at_start {
            self.at_start = false;
            if let Some(rest) = line.strip_prefix("\u{feff}".as_bytes()) {
                line = rest;
            }
        }
        if line.is_empty() {
            self.dispatch();
            return;
        }
        if line[0] == b':' {
            return; // a comment
        }
        let Ok(text) = core::str::from_utf8(line) else {
            self.failed = Some(SseError::NotUtf8);
            return;
        };
        let (field, value) = match text.find(':') {
            Some(p) => {
                let v = &text[p + 1..];
                (&text[..p], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (text, ""),
        };
        match field {
            "data" => {
                if self.data.len() + value.len() + 1 > self.limit {
                    self.fail();
                    return;
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = String::from(value),
            "id" if !value.contains('\0') => self.id = Some(String::from(value)),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => self.retry = value.parse().ok(),
            _ => {}
        }
    }

    fn dispatch(&mut self) {
        if !self.has_data {
            self.event.clear();
            return;
        }
        self.ready.push_back(SseEvent {
            event: core::mem::take(&mut self.event),
            data: core::mem::take(&mut self.data),
            id: self.id.clone(),
            retry: self.retry,
        });
        self.has_data = false;
    }

    /// The next complete event, `Ok(None)` when more input is needed, or the error that
    /// stopped decoding.
    pub fn next_event(&mut self) -> Result<Option<SseEvent>, SseError> {
        if let Some(e) = self.ready.pop_front() {
            return Ok(Some(e));
        }
        match &self.failed {
            Some(e) => Err(e.clone()),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn encode_then_decode_in_every_split() {
        let mut wire = Vec::new();
        encode_event(br#"{"a":1}"#, &mut wire);
        encode_event_with_id(Some("e-2"), b"two\nlines", &mut wire);
        encode_event_with_id(Some("bad\nid"), b"3", &mut wire);
        assert_eq!(wire, b"data: {\"a\":1}\n\nid: e-2\ndata: two\ndata: lines\n\nid: bad\ndata: 3\n\n");
        for split in 0..wire.len() {
            let mut d = SseDecoder::new(1024);
            d.feed(&wire[..split]);
            d.feed(&wire[split..]);
            let mut ids = Vec::new();
            let mut data = Vec::new();
            while let Some(e) = d.next_event().unwrap() {
                ids.push(e.id);
                data.push(e.data);
            }
            assert_eq!(data, vec![String::from(r#"{"a":1}"#), String::from("two\nlines"), String::from("3")], "split at {split}");
            assert_eq!(ids, vec![None, Some(String::from("e-2")), Some(String::from("bad"))], "split at {split}");
        }
    }

    #[test]
    fn crlf_cr_comments_and_fields() {
        let wire = b"\xef\xbb\xbf: keep-alive\r\nevent: update\r\nid: 7\r\nretry: 1500\r\ndata:x\r\ndata: y\r\r\ndata: z\r\n\r\n";
        for split in 0..wire.len() {
            let mut d = SseDecoder::new(1024);
            d.feed(&wire[..split]);
            d.feed(&wire[split..]);
            let e = d.next_event().unwrap().expect("first event");
            assert_eq!(
                (e.event.as_str(), e.data.as_str(), e.id.as_deref(), e.retry),
                ("update", "x\ny", Some("7"), Some(1500)),
                "split {split}"
            );
            assert_eq!(d.next_event().unwrap().expect("second").data, "z");
            assert_eq!(d.next_event().unwrap(), None);
        }
    }

    #[test]
    fn a_blank_line_without_data_dispatches_nothing() {
        let mut d = SseDecoder::new(64);
        d.feed(b"event: ping\n\n: comment\n\n");
        assert_eq!(d.next_event().unwrap(), None);
    }

    #[test]
    fn oversized_events_and_lines_are_refused() {
        let mut d = SseDecoder::new(16);
        d.feed(b"data: 0123456789abcdef0123");
        assert_eq!(d.next_event(), Err(SseError::TooLarge { limit: 16 }));
        let mut d = SseDecoder::new(16);
        d.feed(b"data: 0123456789\ndata: 0123456789\n\n");
        assert_eq!(d.next_event(), Err(SseError::TooLarge { limit: 16 }));
    }
}

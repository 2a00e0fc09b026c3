//! Chunked bodies (RFC 9112 §7.1), for both sides.

use super::{is_tchar, FramingError};
use alloc::vec::Vec;

// ---------------------------------------------------------------------------- chunked bodies

/// What [`ChunkedDecoder::step`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Chunk<'a> {
    /// More bytes are needed.
    NeedData,
    /// Chunk data (a part of the input).
    Data(&'a [u8]),
    /// The last chunk and the trailer section were read: the body is complete.
    End,
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
/// Largest trailer section accepted.
const MAX_TRAILERS: usize = 16 * 1024;

/// Incremental decoder of a chunked body (RFC 9112 §7.1). Chunk data is passed on as it
/// arrives, so memory is bounded by what the caller keeps, whatever size a chunk claims; a
/// chunk size that does not fit a `usize`, or that takes the body over the limit, is an
/// error as soon as its size line arrives. Lines end with CRLF; trailer fields are checked
/// as field lines and dropped.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ChunkedDecoder {
    state: ChunkState,
    /// Largest total of chunk data accepted (`None`: no limit).
    limit: Option<usize>,
    total: usize,
    trailers: usize,
}

impl ChunkedDecoder {
    /// A decoder that refuses (with [`FramingError::TooLarge`]) a chunk that would take the
    /// body over `max` bytes, as soon as the chunk's size line arrives.
    pub fn with_limit(max: usize) -> Self {
        ChunkedDecoder { limit: Some(max), ..Default::default() }
    }

    /// True once the last chunk and the trailers were read.
    pub fn is_done(&self) -> bool {
        self.state == ChunkState::Done
    }

    /// Moves decoded chunk data from the front of `input` into `out` (consumed bytes are
    /// removed from `input`); true when the body is complete. Bytes after the body stay in
    /// `input`.
    pub fn decode(&mut self, input: &mut Vec<u8>, out: &mut Vec<u8>) -> Result<bool, FramingError> {
        let mut at = 0;
        let r = loop {
            match self.step(&input[at..]) {
                Ok((used, Chunk::Data(data))) => {
                    out.extend_from_slice(data);
                    at += used;
                }
                Ok((used, Chunk::NeedData)) => {
                    at += used;
                    break Ok(false);
                }
                Ok((used, Chunk::End)) => {
                    at += used;
                    break Ok(true);
                }
                Err(e) => break Err(e),
            }
        };
        input.drain(..at);
        r
    }

    /// Reads from `input` (the bytes not consumed yet, as for [`super::RequestReader::read`]);
    /// returns how many were consumed and what was found. Never reads past the body's end.
    pub fn step<'a>(&mut self, input: &'a [u8]) -> Result<(usize, Chunk<'a>), FramingError> {
        let mut at = 0;
        loop {
            let rest = &input[at..];
            match self.state {
                ChunkState::Done => return Ok((at, Chunk::End)),
                ChunkState::Data(n) => {
                    if rest.is_empty() {
                        return Ok((at, Chunk::NeedData));
                    }
                    let take = n.min(rest.len());
                    self.state = if take == n { ChunkState::DataEnd } else { ChunkState::Data(n - take) };
                    return Ok((at + take, Chunk::Data(&rest[..take])));
                }
                ChunkState::DataEnd => {
                    if rest.len() < 2 {
                        return Ok((at, Chunk::NeedData));
                    }
                    if &rest[..2] != b"\r\n" {
                        return Err(FramingError::Malformed("chunk data not followed by CRLF"));
                    }
                    at += 2;
                    self.state = ChunkState::Size;
                }
                ChunkState::Size | ChunkState::Trailers => {
                    let Some(line) = line(rest)? else { return Ok((at, Chunk::NeedData)) };
                    at += line.len() + 2;
                    if self.state == ChunkState::Trailers {
                        self.trailer(line)?;
                        continue;
                    }
                    let size = chunk_size(line)?;
                    self.total = self.total.checked_add(size).ok_or(FramingError::Malformed("chunk size out of range"))?;
                    if self.limit.is_some_and(|l| self.total > l) {
                        return Err(FramingError::TooLarge);
                    }
                    self.state = if size == 0 { ChunkState::Trailers } else { ChunkState::Data(size) };
                }
            }
        }
    }

    fn trailer(&mut self, line: &[u8]) -> Result<(), FramingError> {
        if line.is_empty() {
            self.state = ChunkState::Done;
            return Ok(());
        }
        self.trailers += line.len() + 2;
        if self.trailers > MAX_TRAILERS {
            return Err(FramingError::Malformed("trailer section too large"));
        }
        // field-line = field-name ":" OWS field-value OWS (RFC 9112 §5).
        let colon = line.iter().position(|b| *b == b':').ok_or(FramingError::Malformed("invalid trailer field"))?;
        let (name, value) = (&line[..colon], &line[colon + 1..]);
        if name.is_empty() || !name.iter().all(|b| is_tchar(*b)) || value.iter().any(|b| is_ctl(*b)) {
            return Err(FramingError::Malformed("invalid trailer field"));
        }
        Ok(())
    }
}

/// A control character other than HTAB (not allowed in field values or chunk extensions).
fn is_ctl(b: u8) -> bool {
    (b < 0x20 && b != b'\t') || b == 0x7f
}

/// The line at the start of `rest` without its CRLF; `None` until its end arrived. A bare
/// LF or CR, or a line longer than [`MAX_LINE`], is refused.
fn line(rest: &[u8]) -> Result<Option<&[u8]>, FramingError> {
    let window = &rest[..rest.len().min(MAX_LINE + 2)];
    let Some(lf) = window.iter().position(|b| *b == b'\n') else {
        if rest.len() > MAX_LINE + 1 {
            return Err(FramingError::Malformed("chunk size or trailer line too long"));
        }
        return Ok(None);
    };
    if lf == 0 || window[lf - 1] != b'\r' {
        return Err(FramingError::Malformed("bare LF in a chunked body"));
    }
    let line = &window[..lf - 1];
    if line.contains(&b'\r') {
        return Err(FramingError::Malformed("bare CR in a chunked body"));
    }
    Ok(Some(line))
}

/// `chunk-size [ chunk-ext ]` (RFC 9112 §7.1, §7.1.1): hex digits, then nothing or
/// `BWS ";" ...`.
fn chunk_size(line: &[u8]) -> Result<usize, FramingError> {
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if digits == 0 {
        return Err(FramingError::Malformed("invalid chunk size"));
    }
    let mut size: usize = 0;
    for b in &line[..digits] {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => b - b'A' + 10,
        };
        size =
            size.checked_mul(16).and_then(|s| s.checked_add(usize::from(d))).ok_or(FramingError::Malformed("chunk size out of range"))?;
    }
    let ext = &line[digits..];
    if !ext.is_empty() {
        let after_ws = ext.iter().position(|b| *b != b' ' && *b != b'\t').map_or(&ext[ext.len()..], |p| &ext[p..]);
        if after_ws.first() != Some(&b';') || ext.iter().any(|b| is_ctl(*b)) {
            return Err(FramingError::Malformed("invalid chunk size"));
        }
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

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
        for bad in [&b"ffffffffffffffff0\r\n"[..], b"-5\r\n", b"+5\r\n", b"\r\n", b"5\n"] {
            let mut d = ChunkedDecoder::default();
            let r = d.decode(&mut bad.to_vec(), &mut Vec::new());
            assert!(r.is_err(), "{bad:?}: {r:?}");
            assert!(!d.is_done());
        }
        let mut d = ChunkedDecoder::default();
        let mut input = b"ffffffffffffffff\r\nabc".to_vec();
        let mut out = Vec::new();
        assert!(!d.decode(&mut input, &mut out).unwrap(), "a huge chunk passes data through as it comes");
        assert_eq!(out, b"abc");
        // Bytes after the body stay for the next message.
        let mut d = ChunkedDecoder::default();
        let mut input = b"1\r\na\r\n0\r\n\r\nHTTP/1.1".to_vec();
        assert!(d.decode(&mut input, &mut Vec::new()).unwrap());
        assert_eq!(input, b"HTTP/1.1");
        // A chunk announcing more than the limit is refused before its data arrives.
        let mut d = ChunkedDecoder::with_limit(10);
        assert!(!d.decode(&mut b"5\r\nhello\r\n".to_vec(), &mut Vec::new()).unwrap());
        assert_eq!(d.decode(&mut b"6\r\n".to_vec(), &mut Vec::new()), Err(FramingError::TooLarge));
        // A size line that never ends is refused once it is longer than a line may be.
        let mut d = ChunkedDecoder::default();
        assert!(d.decode(&mut [b'0'; MAX_LINE + 2].to_vec(), &mut Vec::new()).is_err());
    }
}

//! ProtoJSON decode and encode of v1.0 messages (spec §5.5; the rules are listed in
//! [`a2a_wire_proto::json`]).
//!
//! Decoding checks the JSON, maps it onto the message type (unknown fields ignored) and then
//! validates the REQUIRED fields. Valid input pays nothing for error reporting: only when a
//! value is refused is the input decoded a second time with path tracking, so that the error
//! names the field (`message.parts[0].raw: invalid base64 ...`).

use super::{DecodeError, DecodeErrorKind, EncodeError, Message};
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write as _;

/// Decodes and validates a message from ProtoJSON bytes.
pub fn decode<T: Message>(bytes: &[u8]) -> Result<T, DecodeError> {
    let msg = decode_unchecked::<T>(bytes)?;
    msg.validate().map_err(DecodeError::missing)?;
    Ok(msg)
}

/// Decodes a message from ProtoJSON bytes without checking its REQUIRED fields (for peers'
/// responses that a caller wants to read leniently). The JSON must still be well-formed and
/// every value must fit its field.
pub fn decode_unchecked<T: Message>(bytes: &[u8]) -> Result<T, DecodeError> {
    decode_serde(bytes)
}

/// Decodes any serde type from JSON with the error reporting of [`decode`].
pub(crate) fn decode_serde<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, DecodeError> {
    // JSON text is UTF-8 (RFC 8259 §8.1). Checking the whole input once is faster than
    // serde_json's check of every string from a byte slice.
    let text = match core::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.valid_up_to();
            let line = 1 + bytes[..at].iter().filter(|b| **b == b'\n').count();
            let column = 1 + at - bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
            return Err(DecodeError::new(DecodeErrorKind::Syntax, String::new(), "input is not valid UTF-8").with_position(line, column));
        }
    };
    match serde_json::from_str::<T>(text) {
        Ok(msg) => Ok(msg),
        Err(e) => Err(error_with_path::<T>(text, e)),
    }
}

/// Encodes a message as ProtoJSON (compact, fields in field-number order).
pub fn encode<T: Message>(msg: &T) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(256);
    encode_into(msg, &mut out)?;
    Ok(out)
}

/// Appends the ProtoJSON of `msg` to `out`. On error `out` is left as it was.
pub fn encode_into<T: Message>(msg: &T, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let start = out.len();
    super::writer::write(msg, out).map_err(|e| {
        out.truncate(start);
        EncodeError::new(e.0)
    })
}

/// Appends the compact JSON of any serde value to `out` (on error `out` may hold a prefix;
/// callers that care truncate it).
pub(crate) fn write_serde<T: serde::Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    #[cfg(feature = "std")]
    let r = serde_json::to_writer(&mut *out, value);
    #[cfg(not(feature = "std"))]
    let r = serde_json::to_vec(value).map(|v| out.extend_from_slice(&v));
    r
}

/// serde_json appends " at line L column C" to messages; the position is reported
/// separately, so remove it from the text.
fn strip_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if e.line() == 0 {
        return text;
    }
    let mut suffix = String::new();
    // Writing to a String cannot fail.
    let _ = write!(suffix, " at line {} column {}", e.line(), e.column());
    match text.strip_suffix(suffix.as_str()) {
        Some(s) => s.to_string(),
        None => text,
    }
}

#[cold]
fn error_with_path<T: serde::de::DeserializeOwned>(text: &str, e: serde_json::Error) -> DecodeError {
    use serde_json::error::Category;
    let kind = match e.classify() {
        Category::Data => DecodeErrorKind::InvalidValue,
        Category::Syntax | Category::Eof | Category::Io => DecodeErrorKind::Syntax,
    };
    let (line, column) = (e.line(), e.column());
    if kind == DecodeErrorKind::Syntax {
        return DecodeError::new(kind, String::new(), strip_position(&e)).with_position(line, column);
    }
    // A value was refused before the parser reached a syntax error further on: the input is
    // not JSON at all, and that is what must be reported (JSON-RPC -32700, not -32602).
    if let Err(syntax) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        return DecodeError::new(DecodeErrorKind::Syntax, String::new(), strip_position(&syntax))
            .with_position(syntax.line(), syntax.column());
    }
    // Decode again, tracking the path; decoding is deterministic, so it fails at the same place.
    let mut de = serde_json::Deserializer::from_str(text);
    let field = match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(_) => String::new(),
        Err(pe) => render_path(pe.path()),
    };
    DecodeError::new(kind, field, strip_position(&e)).with_position(line, column)
}

fn render_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => {
                let _ = write!(out, "[{index}]");
            }
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Unknown => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push('?');
            }
        }
    }
    out
}

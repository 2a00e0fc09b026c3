//! The runtime of the generated model (`codegen/model.rs`): the codec calls, and the
//! conversions of the shapes a record holds differently from prost (JSON texts for `Struct`
//! and `Value`, `SystemTime` for `Timestamp`).

use crate::error::A2aError;
use a2a::codec;
use a2a_wire_proto::google::protobuf::{Struct, Timestamp, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use a2a_wire_proto::validate::Path;

/// The error of a type name `decode_json` / `decode_protobuf` do not know.
pub fn unknown_type(name: &str) -> A2aError {
    A2aError::invalid_value(String::new(), &format!("unknown message type {name:?} (expected a full name such as \"lf.a2a.v1.Task\")"))
}

/// ProtoJSON bytes to a message, validated.
pub fn decode_json<T: codec::Message>(bytes: &[u8]) -> Result<T, A2aError> {
    Ok(codec::json::decode::<T>(bytes)?)
}

/// A message to ProtoJSON text.
pub fn encode_json<T: codec::Message>(m: &T) -> Result<String, A2aError> {
    let bytes = codec::json::encode(m)?;
    // The ProtoJSON encoder writes UTF-8 only (serde_json's output); a failure here would be
    // a bug in it, reported as an encode error rather than a panic.
    String::from_utf8(bytes)
        .map_err(|_| A2aError::Encode { description: "the JSON encoder wrote invalid UTF-8".into(), field: String::new() })
}

/// Protobuf bytes to a message, validated.
pub fn decode_protobuf<T: codec::Message>(bytes: &[u8]) -> Result<T, A2aError> {
    Ok(codec::protobuf::decode::<T>(bytes)?)
}

/// A message to protobuf bytes.
pub fn encode_protobuf<T: codec::Message>(m: &T) -> Result<Vec<u8>, A2aError> {
    Ok(codec::protobuf::encode(m))
}

/// A `Struct` or `Value` as JSON text. A value JSON cannot carry (a NaN number, which only
/// protobuf bytes can hold) reads as `null`.
pub fn json_text<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".to_string())
}

/// JSON text (an object) to a `Struct`.
pub fn parse_struct(text: &str, at: &Path<'_>) -> Result<Struct, A2aError> {
    serde_json::from_str::<Struct>(text).map_err(|e| A2aError::invalid_value(at.to_string(), &format!("not a JSON object: {e}")))
}

/// JSON text (any value) to a `Value`.
pub fn parse_value(text: &str, at: &Path<'_>) -> Result<Value, A2aError> {
    serde_json::from_str::<Value>(text).map_err(|e| A2aError::invalid_value(at.to_string(), &format!("not a JSON value: {e}")))
}

/// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range ProtoJSON timestamps carry.
const MIN_SECONDS: i64 = -62_135_596_800;
const MAX_SECONDS: i64 = 253_402_300_799;

/// A protobuf `Timestamp` as a `SystemTime` (nanos clamped into their range; a time the
/// platform cannot hold saturates at the epoch's side it lies on).
pub fn system_time(t: &Timestamp) -> SystemTime {
    let nanos = t.nanos.clamp(0, 999_999_999) as u32;
    if t.seconds >= 0 {
        UNIX_EPOCH.checked_add(Duration::new(t.seconds as u64, nanos)).unwrap_or(UNIX_EPOCH)
    } else {
        UNIX_EPOCH
            .checked_sub(Duration::from_secs(t.seconds.unsigned_abs()))
            .and_then(|s| s.checked_add(Duration::from_nanos(u64::from(nanos))))
            .unwrap_or(UNIX_EPOCH)
    }
}

/// A `SystemTime` as a protobuf `Timestamp`, within years 1-9999.
pub fn timestamp(t: &SystemTime, at: &Path<'_>) -> Result<Timestamp, A2aError> {
    let (seconds, nanos) = match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (i64::try_from(d.as_secs()).unwrap_or(i64::MAX), d.subsec_nanos() as i32),
        Err(e) => {
            let d = e.duration();
            let secs = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
            match d.subsec_nanos() {
                0 => (-secs, 0),
                n => (-secs - 1, (1_000_000_000 - n) as i32),
            }
        }
    };
    if !(MIN_SECONDS..=MAX_SECONDS).contains(&seconds) {
        return Err(A2aError::invalid_value(at.to_string(), "a time outside years 1-9999"));
    }
    Ok(Timestamp { seconds, nanos })
}

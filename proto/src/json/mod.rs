//! ProtoJSON: the JSON form of the v1.0 messages (spec §5.5, ADR-001, WIRE-NOTES (b)).
//!
//! Every message type implements `serde::Serialize` and `serde::Deserialize` with the
//! ProtoJSON rules; the impls are generated from `a2a.proto`. This module holds the pieces
//! they share and the well-known types, which are written by hand:
//!
//! | proto type | JSON written | JSON accepted |
//! |---|---|---|
//! | field names | lowerCamelCase | lowerCamelCase or the proto's snake_case |
//! | enum | value name (`"TASK_STATE_WORKING"`) | name or integer |
//! | `int32` | number | number (integral) or numeric string |
//! | `bytes` | standard base64 with padding | standard or URL-safe, padded or not |
//! | `Timestamp` | RFC 3339 UTC, `Z`, milliseconds (`.123Z`; 6 or 9 digits only when the value has sub-millisecond precision) | RFC 3339 with 0–9 fractional digits and `Z` or an offset, normalised to UTC |
//! | `Struct` / `Value` | plain JSON object / value | plain JSON |
//! | `Empty` | `{}` | any object |
//! | `null` | never written | "unset", except for a `Value`, where it is JSON null |
//! | unknown fields | — | ignored |
//!
//! Implicit-presence fields at their default are omitted; `optional` fields and message
//! fields are written when set; a oneof member that is set is written even at its default.
//! `ListTasksResponse` always carries `tasks`, `nextPageToken`, `pageSize` and `totalSize`.

pub mod base64;
#[doc(hidden)]
pub mod rt;
pub mod timestamp;
mod wkt;

/// A proto enum with its ProtoJSON names (implemented for every generated enum).
pub trait JsonEnum {
    /// Full proto name, e.g. `lf.a2a.v1.TaskState`.
    const FULL_NAME: &'static str;
    /// The value name for a known number.
    fn json_name(value: i32) -> Option<&'static str>;
    /// The number for a value name (exact, case-sensitive match).
    fn from_json_name(name: &str) -> Option<i32>;
}

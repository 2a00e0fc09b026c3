//! A line protocol over stdin/stdout that exposes the core's codecs to test programs in other
//! languages (the protobuf oracle test in `tests/python/`), before the bindings exist.
//!
//! Each input line is a JSON object `{"op", "type", "data"}`:
//! - `json_to_pb`: `data` is ProtoJSON text; answers `{"ok": <base64 protobuf>}`;
//! - `pb_to_json`: `data` is base64 protobuf; answers `{"ok": <canonical ProtoJSON text>}`;
//! - `json_to_json`: `data` is ProtoJSON text; answers `{"ok": <canonical ProtoJSON text>}`.
//!
//! Failures answer `{"err": {"kind", "field", "message"}}`. One output line per input line.

use a2a_wire::codec::by_name::{transcode, ByNameError, Format};
use a2a_wire::codec::DecodeErrorKind;
use a2a_wire::proto::json::base64;
use serde_json::{json, Value};
use std::io::{BufRead, Write};

fn kind(k: DecodeErrorKind) -> &'static str {
    match k {
        DecodeErrorKind::Syntax => "syntax",
        DecodeErrorKind::InvalidValue => "invalid_value",
        DecodeErrorKind::MissingRequired => "missing_required",
        DecodeErrorKind::Protobuf => "protobuf",
        _ => "other",
    }
}

fn answer(req: &Value) -> Value {
    let (Some(op), Some(ty), Some(data)) = (req["op"].as_str(), req["type"].as_str(), req["data"].as_str()) else {
        return json!({"err": {"kind": "request", "field": "", "message": "need op, type and data strings"}});
    };
    let result = match op {
        "json_to_pb" => transcode(ty, data.as_bytes(), Format::Json, Format::Protobuf).map(|b| base64::encode(&b)),
        "json_to_json" => transcode(ty, data.as_bytes(), Format::Json, Format::Json).map(|b| String::from_utf8_lossy(&b).into_owned()),
        "pb_to_json" => match base64::decode(data) {
            Ok(bytes) => transcode(ty, &bytes, Format::Protobuf, Format::Json).map(|b| String::from_utf8_lossy(&b).into_owned()),
            Err(e) => return json!({"err": {"kind": "request", "field": "", "message": e.to_string()}}),
        },
        _ => return json!({"err": {"kind": "request", "field": "", "message": format!("unknown op {op:?}")}}),
    };
    match result {
        Ok(s) => json!({"ok": s}),
        Err(ByNameError::Decode(e)) => json!({"err": {"kind": kind(e.kind()), "field": e.field(), "message": e.to_string()}}),
        Err(e) => json!({"err": {"kind": "other", "field": "", "message": e.to_string()}}),
    }
}

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let reply = match serde_json::from_str::<Value>(&line) {
            Ok(req) => answer(&req),
            Err(e) => json!({"err": {"kind": "request", "field": "", "message": e.to_string()}}),
        };
        if writeln!(out, "{reply}").and_then(|_| out.flush()).is_err() {
            break;
        }
    }
}

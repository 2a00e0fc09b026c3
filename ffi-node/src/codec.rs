//! The codecs by message name: ProtoJSON and protobuf in, canonical ProtoJSON or protobuf
//! out, each one call into `a2a::codec::by_name` (decode, REQUIRED-field validation, encode).
//!
//! Plain objects never cross this boundary: the package turns the canonical text into
//! objects with V8's own `JSON.parse` and objects into text with `JSON.stringify`, the
//! fastest ways there are to do either (one napi call per property is far slower).

use crate::errors;
use a2a::codec::by_name::{self, Format};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Text or bytes from JavaScript (a `string`, a `Buffer` or any `Uint8Array`).
pub(crate) type Data = Either<String, Uint8Array>;

pub(crate) fn bytes(data: &Data) -> &[u8] {
    match data {
        Either::A(s) => s.as_bytes(),
        Either::B(b) => b,
    }
}

fn format(name: &str) -> Result<Format> {
    match name {
        "json" => Ok(Format::Json),
        "protobuf" => Ok(Format::Protobuf),
        other => Err(errors::range_error(format!("unknown wire format {other:?} (json, protobuf)"))),
    }
}

fn transcode(type_name: &str, data: &Data, from: &str, to: Format, validate: bool) -> Result<Vec<u8>> {
    let from = format(from)?;
    let input = bytes(data);
    let r =
        if validate { by_name::transcode(type_name, input, from, to) } else { by_name::transcode_unchecked(type_name, input, from, to) };
    r.map_err(errors::by_name_error)
}

/// The canonical ProtoJSON text of `data` (ProtoJSON text, or protobuf bytes with `from =
/// "protobuf"`) as the message `typeName` (a full proto name). With `validate`, REQUIRED
/// fields are checked.
#[napi]
pub fn to_json(type_name: String, data: Data, from: String, validate: bool) -> Result<String> {
    let out = transcode(&type_name, &data, &from, Format::Json, validate)?;
    // The encoder writes JSON, which is UTF-8; the check is cheap next to the encode.
    String::from_utf8(out).map_err(|e| errors::encode_error(&e.to_string()))
}

/// The protobuf encoding of `data` (as `toJson`).
#[napi]
pub fn to_protobuf(type_name: String, data: Data, from: String, validate: bool) -> Result<Buffer> {
    Ok(transcode(&type_name, &data, &from, Format::Protobuf, validate)?.into())
}

/// The fast text path: ProtoJSON text in, validated, canonical ProtoJSON text out, with no
/// JavaScript object built on the way.
#[napi]
pub fn canonicalize(type_name: String, data: Data) -> Result<String> {
    to_json(type_name, data, String::from("json"), true)
}

/// The message names the codecs know (the model, the well-known types, `google.rpc`).
#[napi]
pub fn type_names() -> Vec<&'static str> {
    by_name::TYPE_NAMES.to_vec()
}

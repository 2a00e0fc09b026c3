//! The codecs by message name: ProtoJSON and protobuf in, canonical ProtoJSON or protobuf
//! out, each one call into `a2a::codec::by_name` (decode, REQUIRED-field validation, encode).
//!
//! Plain objects never cross this boundary: the package turns the canonical text into
//! objects with V8's own `JSON.parse` and objects into text with `JSON.stringify`, the
//! fastest ways there are to do either (one napi call per property is far slower).

use crate::errors;
use a2a::codec::by_name::{self, Format};
use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;

/// Text or bytes from JavaScript (a `string`, a `Buffer` or any `Uint8Array`).
pub(crate) type Data = Either<String, Uint8Array>;

pub(crate) fn bytes(data: &Data) -> &[u8] {
    match data {
        Either::A(s) => s.as_bytes(),
        Either::B(b) => b,
    }
}

/// JSON text made here, for JavaScript: a string made by V8 from one-byte characters when the
/// text is ASCII (a copy, no UTF-8 decoding: the common case of ProtoJSON), from UTF-8
/// otherwise.
pub(crate) struct Text(pub(crate) Vec<u8>);

impl Text {
    pub(crate) fn new(bytes: Vec<u8>) -> Result<Text> {
        // The encoders write JSON, which is UTF-8; the check is cheap next to the encode.
        std::str::from_utf8(&bytes).map_err(|e| errors::encode_error(&e.to_string()))?;
        Ok(Text(bytes))
    }
}

impl ToNapiValue for Text {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let mut out = std::ptr::null_mut();
        let len = val.0.len() as isize;
        let ptr = val.0.as_ptr().cast();
        // SAFETY: `ptr` and `len` describe `val.0`, alive for the call; ASCII is valid
        // Latin-1, and anything else was checked to be UTF-8 when the Text was made.
        let status = unsafe {
            if val.0.is_ascii() {
                sys::napi_create_string_latin1(env, ptr, len, &mut out)
            } else {
                sys::napi_create_string_utf8(env, ptr, len, &mut out)
            }
        };
        check_status!(status, "cannot make a JavaScript string of the JSON text")?;
        Ok(out)
    }
}

/// Bytes made here, for JavaScript: a `Buffer` holding a copy. For the short bodies the
/// service answers with, one copy costs less than an external buffer's finalizer and
/// bookkeeping.
pub struct Bytes(pub(crate) Vec<u8>);

impl ToNapiValue for Bytes {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let mut out = std::ptr::null_mut();
        let mut data = std::ptr::null_mut();
        // SAFETY: the source describes `val.0`, alive for the call; napi copies it into the
        // new buffer and writes the buffer's address to `data` (unused here).
        let status = unsafe { sys::napi_create_buffer_copy(env, val.0.len(), val.0.as_ptr().cast(), &mut data, &mut out) };
        check_status!(status, "cannot make a Buffer of {} bytes", val.0.len())?;
        Ok(out)
    }
}

impl TypeName for Bytes {
    fn type_name() -> &'static str {
        "Buffer"
    }
    fn value_type() -> ValueType {
        ValueType::Object
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
#[napi(catch_unwind, ts_return_type = "string")]
pub fn to_json(type_name: String, data: Data, from: String, validate: bool) -> Result<Text> {
    Text::new(transcode(&type_name, &data, &from, Format::Json, validate)?)
}

/// The protobuf encoding of `data` (as `toJson`).
#[napi(catch_unwind)]
pub fn to_protobuf(type_name: String, data: Data, from: String, validate: bool) -> Result<Buffer> {
    Ok(transcode(&type_name, &data, &from, Format::Protobuf, validate)?.into())
}

/// The fast text path: ProtoJSON text in, validated, canonical ProtoJSON text out, with no
/// JavaScript object built on the way.
#[napi(catch_unwind, ts_return_type = "string")]
pub fn canonicalize(type_name: String, data: Data) -> Result<Text> {
    to_json(type_name, data, String::from("json"), true)
}

/// The message names the codecs know (the model, the well-known types, `google.rpc`).
#[napi(catch_unwind)]
pub fn type_names() -> Vec<&'static str> {
    by_name::TYPE_NAMES.to_vec()
}

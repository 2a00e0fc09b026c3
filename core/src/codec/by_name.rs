//! Codecs for a message type chosen at run time by its full proto name
//! (`lf.a2a.v1.Task`, `google.protobuf.Struct`, ...). Used by the golden-vector tests of
//! every language and by the bindings.

use super::{json, protobuf, DecodeError, DecodeErrorKind, EncodeError, Message};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Why a by-name operation failed.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ByNameError {
    /// No message of that name has a codec.
    UnknownType(String),
    /// The input did not decode.
    Decode(DecodeError),
    /// The decoded message could not be encoded in the target format.
    Encode(EncodeError),
}

impl fmt::Display for ByNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ByNameError::UnknownType(n) => write!(f, "unknown message type {n:?}"),
            ByNameError::Decode(e) => write!(f, "{e}"),
            ByNameError::Encode(e) => write!(f, "{e}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ByNameError {}

/// Input and output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// ProtoJSON.
    Json,
    /// Protobuf binary.
    Protobuf,
}

fn convert<T: Message>(input: &[u8], from: Format, to: Format, validate: bool) -> Result<Vec<u8>, ByNameError> {
    let mut out = Vec::new();
    convert_into::<T>(input, from, to, validate, &mut out)?;
    Ok(out)
}

fn convert_into<T: Message>(input: &[u8], from: Format, to: Format, validate: bool, out: &mut Vec<u8>) -> Result<(), ByNameError> {
    let msg: T = match (from, validate) {
        (Format::Json, true) => json::decode(input),
        (Format::Json, false) => json::decode_unchecked(input),
        (Format::Protobuf, true) => protobuf::decode(input),
        (Format::Protobuf, false) => protobuf::decode_unchecked(input),
    }
    .map_err(ByNameError::Decode)?;
    match to {
        Format::Json => json::encode_into(&msg, out).map_err(ByNameError::Encode),
        Format::Protobuf => {
            protobuf::encode_into(&msg, out);
            Ok(())
        }
    }
}

macro_rules! dispatch {
    ($($name:literal => $ty:path,)*) => {
        /// Decodes `input` (in `from` format) as the message called `type_name`, validates it
        /// and encodes it in `to` format. JSON output is the canonical ProtoJSON form.
        pub fn transcode(type_name: &str, input: &[u8], from: Format, to: Format) -> Result<Vec<u8>, ByNameError> {
            match type_name {
                $($name => convert::<$ty>(input, from, to, true),)*
                _ => Err(ByNameError::UnknownType(String::from(type_name))),
            }
        }

        /// As [`transcode`], without REQUIRED-field validation.
        pub fn transcode_unchecked(type_name: &str, input: &[u8], from: Format, to: Format) -> Result<Vec<u8>, ByNameError> {
            match type_name {
                $($name => convert::<$ty>(input, from, to, false),)*
                _ => Err(ByNameError::UnknownType(String::from(type_name))),
            }
        }

        /// As [`transcode`], appending the output to `out` (whose capacity a caller can keep
        /// from call to call). On an error `out` holds what it held, or more.
        pub fn transcode_into(type_name: &str, input: &[u8], from: Format, to: Format, out: &mut Vec<u8>) -> Result<(), ByNameError> {
            match type_name {
                $($name => convert_into::<$ty>(input, from, to, true, out),)*
                _ => Err(ByNameError::UnknownType(String::from(type_name))),
            }
        }

        /// The full proto names of every message with a codec.
        pub const TYPE_NAMES: &[&str] = &[$($name,)*];
    };
}

a2a_wire_proto::for_each_message!(dispatch);

/// Decodes ProtoJSON as the message called `type_name` and returns its canonical ProtoJSON.
pub fn canonical_json(type_name: &str, input: &[u8]) -> Result<Vec<u8>, ByNameError> {
    transcode(type_name, input, Format::Json, Format::Json)
}

impl ByNameError {
    /// The decode error kind, if this is a decode error.
    pub fn decode_kind(&self) -> Option<DecodeErrorKind> {
        match self {
            ByNameError::Decode(e) => Some(e.kind()),
            _ => None,
        }
    }
}

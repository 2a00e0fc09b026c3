//! Protobuf binary decode and encode of v1.0 messages (prost), with the same REQUIRED-field
//! validation as [`super::json`].

use super::{DecodeError, DecodeErrorKind, Message};
use alloc::string::String;
use alloc::vec::Vec;

/// Decodes and validates a message from protobuf bytes.
pub fn decode<T: Message>(bytes: &[u8]) -> Result<T, DecodeError> {
    let msg = decode_unchecked::<T>(bytes)?;
    msg.validate().map_err(DecodeError::missing)?;
    Ok(msg)
}

/// Decodes a message from protobuf bytes without checking its REQUIRED fields.
pub fn decode_unchecked<T: Message>(bytes: &[u8]) -> Result<T, DecodeError> {
    T::decode(bytes).map_err(|e| DecodeError::new(DecodeErrorKind::Protobuf, String::new(), alloc::format!("{e}")))
}

/// Encodes a message as protobuf (fields in field-number order, maps sorted by key).
pub fn encode<T: Message>(msg: &T) -> Vec<u8> {
    msg.encode_to_vec()
}

/// Appends the protobuf encoding of `msg` to `out`.
pub fn encode_into<T: Message>(msg: &T, out: &mut Vec<u8>) {
    out.reserve(msg.encoded_len());
    // `reserve` above makes the buffer large enough, and Vec<u8> grows anyway, so
    // `encode` (which only fails for lack of capacity) cannot fail here.
    let _ = msg.encode(out);
}

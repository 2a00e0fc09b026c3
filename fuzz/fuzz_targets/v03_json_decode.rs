//! v0.3 JSON decoder and v0.3 -> v1.0 translation. Input: `<v0.3 type name>\0<json>`.
//! Besides "no panic", checks that the re-encoded v0.3 JSON decodes to the same encoding and
//! that the translation's v1.0 JSON is a valid ProtoJSON message of its type.
#![no_main]

use a2a_wire::codec::by_name::{transcode_unchecked, Format};
use a2a_wire::v03::by_name::{translate_to_v1, TYPE_NAMES};
use libfuzzer_sys::fuzz_target;

fn pick(name: &[u8]) -> &'static str {
    let name = core::str::from_utf8(name).unwrap_or("");
    TYPE_NAMES.iter().copied().find(|n| *n == name).unwrap_or_else(|| {
        let h = name.bytes().fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
        TYPE_NAMES[h % TYPE_NAMES.len()]
    })
}

fuzz_target!(|data: &[u8]| {
    let (name, json) = match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&b""[..], data),
    };
    let ty = pick(name);
    let Ok(t) = translate_to_v1(ty, json) else { return };
    let again = translate_to_v1(ty, &t.v03_json).expect("re-encoded v0.3 JSON must decode");
    assert_eq!(again.v03_json, t.v03_json, "v0.3 encoding is not a fixed point for {ty}");
    // The translation may legitimately miss REQUIRED v1.0 fields (v0.3 allows empty parts);
    // it must still be well-formed ProtoJSON of its type.
    transcode_unchecked(t.v1_type, &t.v1_json, Format::Json, Format::Json).expect("translation must be valid ProtoJSON");
});

//! v1.0 ProtoJSON decoder. Input: `<type name>\0<json>` (an unknown name picks a type by
//! hash, so mutated names still reach a decoder). Besides "no panic", checks two
//! properties on every input that decodes: the canonical JSON decodes to itself, and
//! JSON -> protobuf -> JSON is the identity.
#![no_main]

use a2a_wire::codec::by_name::{transcode, Format, TYPE_NAMES};
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
    let Ok(canonical) = transcode(ty, json, Format::Json, Format::Json) else { return };
    let again = transcode(ty, &canonical, Format::Json, Format::Json).expect("canonical JSON must decode");
    assert_eq!(again, canonical, "canonical JSON is not a fixed point for {ty}");
    let pb = transcode(ty, &canonical, Format::Json, Format::Protobuf).expect("canonical JSON must encode to protobuf");
    let back = transcode(ty, &pb, Format::Protobuf, Format::Json).expect("our protobuf must decode");
    assert_eq!(back, canonical, "JSON -> protobuf -> JSON changed a {ty}");
});

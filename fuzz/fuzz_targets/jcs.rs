//! The RFC 8785 canonicalizer under arbitrary bytes. Checks: no panic; what it accepts comes
//! out as JSON that canonicalizes to itself (a fixed point) and holds the same value.
#![no_main]

use a2a_wire::jcs::canonicalize_text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(canonical) = canonicalize_text(data) else { return };
    let again = canonicalize_text(&canonical).expect("canonical text is I-JSON");
    assert_eq!(again, canonical, "canonical text is a fixed point");
    let before: serde_json::Value = serde_json::from_slice(data).expect("accepted input is JSON");
    let after: serde_json::Value = serde_json::from_slice(&canonical).expect("canonical text is JSON");
    // Numbers may change spelling (1E2 -> 100) but not value; compare everything else exactly.
    fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
        use serde_json::Value::*;
        match (a, b) {
            (Number(x), Number(y)) => x.as_f64() == y.as_f64(),
            (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
            (Object(x), Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
            _ => a == b,
        }
    }
    assert!(same(&before, &after), "the canonical form holds the same value");
});

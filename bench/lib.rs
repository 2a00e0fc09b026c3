//! Benchmark inputs shared by the criterion benches.

use std::path::Path;

/// The compact wire bytes of a golden vector (`tests/vectors/<rel>`).
pub fn vector_wire(rel: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors").join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).expect("vector is JSON");
    serde_json::to_vec(&v["wire"]).expect("wire re-encodes")
}

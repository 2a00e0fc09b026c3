//! Build script of the Node binding: napi's link setup, and the model's TypeScript types and
//! enum objects generated from the proto crate's descriptors (`codegen/types.rs`).

#[path = "../proto/codegen/protojson.rs"]
#[allow(dead_code)]
mod protojson;
#[path = "codegen/types.rs"]
mod types;

use std::path::PathBuf;

fn main() {
    napi_build::setup();
    // The release module is stripped at its link only (`napi build --strip` would set
    // RUSTFLAGS, and every dependency the C and Python builds share would build again).
    if std::env::var("PROFILE").as_deref() == Ok("release") {
        println!("cargo:rustc-cdylib-link-arg=-s");
    }
    println!("cargo:rerun-if-changed=codegen/types.rs");
    println!("cargo:rerun-if-changed=../proto/codegen/protojson.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let pool = prost_reflect::DescriptorPool::decode(a2a_wire_proto::FILE_DESCRIPTOR_SET)
        .unwrap_or_else(|e| panic!("a2a-wire-proto's descriptor set does not decode: {e}"));
    let generated = types::generate(&pool);
    std::fs::write(out.join("model.d.ts"), generated.dts).expect("OUT_DIR is writable");
    std::fs::write(out.join("model.js"), generated.js).expect("OUT_DIR is writable");
}

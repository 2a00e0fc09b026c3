//! Build script of the uniffi binding: generates the model records, enums and codec
//! functions from the proto crate's descriptors (`codegen/model.rs`).

#[path = "codegen/model.rs"]
mod model;

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=codegen/model.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let pool = prost_reflect::DescriptorPool::decode(a2a_wire_proto::FILE_DESCRIPTOR_SET)
        .unwrap_or_else(|e| panic!("a2a-wire-proto's descriptor set does not decode: {e}"));
    std::fs::write(out.join("model.rs"), model::generate(&pool)).expect("OUT_DIR is writable");
}

//! Build script of `a2a-wire-proto`.
//!
//! 1. Compiles `a2a.proto` and the project's own `google/rpc` protos with `protox` (no
//!    system `protoc`).
//! 2. Generates the prost message types (no_std: `btree_map` for maps, well-known types
//!    compiled as local types so that the crate can give them their ProtoJSON impls).
//! 3. Generates, from the same descriptors, the ProtoJSON serde impls and the
//!    REQUIRED-field validators (`codegen/protojson.rs`).

#[path = "codegen/protojson.rs"]
mod protojson;

use std::path::PathBuf;

/// The proto files whose messages get Rust types.
const ROOTS: &[&str] = &["a2a.proto", "a2a_v03.proto", "google/rpc/status.proto", "google/rpc/error_details.proto"];

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for f in ROOTS.iter().chain(
        ["google/api/annotations.proto", "google/api/http.proto", "google/api/client.proto", "google/api/field_behavior.proto"].iter(),
    ) {
        println!("cargo:rerun-if-changed={}", dir.join(f).display());
    }
    println!("cargo:rerun-if-changed=codegen/protojson.rs");

    let mut compiler = protox::Compiler::new([&dir]).expect("include path is a directory");
    compiler.include_imports(true);
    compiler.open_files(ROOTS).unwrap_or_else(|e| panic!("proto compile error: {e}"));

    // Only generate Rust types for the A2A messages, google.rpc and the well-known types
    // they use; the google.api annotation protos only matter to the generators below.
    let mut fds = compiler.file_descriptor_set();
    fds.file.retain(|f| {
        let name = f.name();
        !name.starts_with("google/api/") && name != "google/protobuf/descriptor.proto"
    });

    prost_build::Config::new()
        .btree_map(["."])
        .compile_well_known_types()
        .enable_type_names()
        .out_dir(&out)
        .compile_fds(fds)
        .unwrap_or_else(|e| panic!("prost-build failed: {e}"));

    let pool = compiler.descriptor_pool();
    // The whole pool (with the google.api annotations) for generators in other crates'
    // build scripts: `a2a_wire_proto::FILE_DESCRIPTOR_SET`.
    std::fs::write(out.join("a2a.fds"), pool.encode_to_vec()).expect("OUT_DIR is writable");
    let code = protojson::generate(&pool);
    std::fs::write(out.join("protojson.rs"), code).expect("OUT_DIR is writable");
}

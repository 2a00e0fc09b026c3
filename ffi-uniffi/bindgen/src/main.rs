//! `uniffi-bindgen` of the workspace, pinned with the library's uniffi so the generated
//! sources match its scaffolding: `cargo run -p a2a-wire-uniffi-bindgen -- generate --library
//! target/release/liba2a_wire_uniffi.so --language kotlin --out-dir ...` (`ffi-uniffi/gen.sh`).

fn main() {
    uniffi::uniffi_bindgen_main()
}

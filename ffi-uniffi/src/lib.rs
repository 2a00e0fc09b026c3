//! The Kotlin and Swift binding of a2a-wire, through uniffi (proc-macros, library mode).
//!
//! Every protocol decision stays in the core (`a2a-wire`) and the transport
//! (`a2a-wire-smol`); this crate maps types, ownership and async style:
//! - [`model`]: the v1.0 model as records and enums generated from the proto
//!   (`codegen/model.rs`), with `decode…Json` / `encode…Json` / `…Protobuf` per message;
//! - [`error`]: one exception type, `A2aError`, whose variants are the A2A errors (code,
//!   reason, metadata) and the decode, encode and transport failures;
//! - [`client`]: `A2aClient` over the transport's client, streams as `TaskStream`;
//! - [`server`]: `AgentServer`, a foreign `AgentExecutor` on the transport's ready server.
//!
//! The Kotlin package is `org.a2awire` and the Swift module `A2AWire` (`uniffi.toml`);
//! `ffi-uniffi/gen.sh` regenerates the committed sources in `ffi-uniffi/kotlin/` and
//! `ffi-uniffi/swift/` from the built library.

uniffi::setup_scaffolding!("a2a_wire");

pub mod client;
pub mod error;
pub mod model;
mod rt;
pub mod server;

pub use error::{A2aError, ErrorKind, FieldViolation};

/// The version of this library (the workspace's).
#[uniffi::export]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

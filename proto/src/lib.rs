//! # a2a-wire-proto
//!
//! The A2A v1.0 data model, generated from this crate's own `a2a.proto` (package
//! `lf.a2a.v1`) and `a2a_v03.proto` (package `a2a.v1`): prost message types for the protobuf wire (gRPC), serde impls that follow
//! ProtoJSON exactly for the JSON bindings (JSON-RPC, HTTP+JSON, webhooks), and validators
//! for the proto's REQUIRED fields.
//!
//! `no_std` + `alloc`. The JSON *format* (serde_json) and the decode/encode entry points with
//! their error type live in the `a2a-wire` core crate; this crate only says what the JSON
//! looks like.
//!
//! ```text
//! lf::a2a::v1          the A2A messages and enums (re-exported as `v1`)
//! a2a::v1              the v0.3 proto (re-exported as `v03`): v0.3 gRPC and HTTP+JSON
//! google::protobuf     Timestamp, Struct, Value, ListValue, Empty, Any (local types)
//! google::rpc          Status, ErrorInfo, BadRequest (error bodies)
//! json                 ProtoJSON helpers: JsonEnum, timestamps, base64
//! validate             Validate, Path, Violation
//! ```
#![no_std]
#![deny(unsafe_code)]
#![warn(clippy::std_instead_of_core, clippy::std_instead_of_alloc, clippy::alloc_instead_of_core)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

/// Generated prost types, one module per proto package.
#[allow(clippy::all, missing_docs, rustdoc::all, deprecated)]
pub mod lf {
    pub mod a2a {
        pub mod v1 {
            include!(concat!(env!("OUT_DIR"), "/lf.a2a.v1.rs"));
        }
    }
}

/// The v0.3 proto (package `a2a.v1`): the messages of v0.3's gRPC and HTTP+JSON bindings.
#[allow(clippy::all, missing_docs, rustdoc::all, deprecated)]
pub mod a2a {
    pub mod v1 {
        include!(concat!(env!("OUT_DIR"), "/a2a.v1.rs"));
    }
}

/// Well-known types and the Google error model, compiled as local types.
#[allow(clippy::all, missing_docs, rustdoc::all)]
pub mod google {
    pub mod protobuf {
        include!(concat!(env!("OUT_DIR"), "/google.protobuf.rs"));
    }
    pub mod rpc {
        include!(concat!(env!("OUT_DIR"), "/google.rpc.rs"));
    }
}

/// The v0.3 proto model (`a2a.v1`), for v0.3 gRPC and HTTP+JSON peers.
pub use a2a::v1 as v03;
pub use lf::a2a::v1;

pub mod json;
pub mod validate;

/// The encoded `google.protobuf.FileDescriptorSet` of this crate's protos and everything they
/// import (the `google.api` annotations included), for code generators in other crates'
/// build scripts (the Python binding generates its model classes from it). A `const` that
/// nobody reads costs no space in a binary.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/a2a.fds"));

#[allow(clippy::all, deprecated)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/protojson.rs"));
}

/// The schema of the card-signing canonical form (spec 8.4.1), generated from the protos'
/// `google.api.field_behavior`: which fields are REQUIRED (kept even at their default) and
/// which message each field holds.
pub mod signing_schema {
    pub use crate::generated::{signing_fields, SigningField};
}

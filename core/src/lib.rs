//! # a2a-wire
//!
//! A sans-IO implementation of the A2A (Agent2Agent) protocol, v1.0 and v0.3: every wire
//! rule in one place, with no IO, no clock and no threads, `no_std` + `alloc`.
//!
//! What is here so far:
//! - [`codec`]: the exact ProtoJSON and protobuf codecs of every v1.0 message, with
//!   REQUIRED-field validation and errors that name the JSON path;
//! - [`v03`]: the v0.3 wire model (JSON-RPC schema shapes: `kind` tags, lowercase enums,
//!   `file` parts, `final`) and its conversion to and from v1.0, where every lossy case is
//!   reported, never silently dropped;
//! - [`v1`]: the v1.0 message types (re-exported from `a2a-wire-proto`).
//!
//! ```
//! use a2a_wire::{codec, v1};
//!
//! let task: v1::Task = codec::json::decode(br#"{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}"#)?;
//! assert_eq!(task.status.as_ref().map(|s| s.state()), Some(v1::TaskState::Working));
//! assert_eq!(codec::json::encode(&task)?, br#"{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}"#);
//!
//! let err = codec::json::decode::<v1::Message>(br#"{"messageId":"m","role":"ROLE_USER","parts":[{}]}"#).unwrap_err();
//! assert_eq!(err.to_string(), "parts[0]: exactly one of text, raw, url, data must be set");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![no_std]
#![deny(unsafe_code)]
#![warn(missing_docs, clippy::std_instead_of_core, clippy::std_instead_of_alloc, clippy::alloc_instead_of_core)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// The no_std proof's self-test (`make nostd`) builds the core once with this cfg and expects
// the build to FAIL: it shows that a `std` use in the core would be caught.
#[cfg(a2a_wire_std_canary)]
extern crate std as _std_canary;

pub use a2a_wire_proto as proto;
pub use a2a_wire_proto::v1;

pub mod auth;
pub mod binding;
pub mod card;
pub mod client;
pub mod codec;
pub mod engine;
pub mod error;
pub mod http;
pub mod http1;
pub mod jcs;
pub mod log;
pub mod op;
pub mod server;
pub mod service;
pub mod signing;
pub mod task;
pub mod v03;
pub mod version;
pub mod webhook;

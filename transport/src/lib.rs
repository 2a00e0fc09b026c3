//! # a2a-wire-smol
//!
//! Thin transports for [`a2a_wire`] on the [smol](https://docs.rs/smol) runtime: an A2A
//! server and client speaking JSON-RPC and HTTP+JSON over HTTP/1.1 (streams over SSE) and
//! gRPC over HTTP/2, all on one port. Every protocol decision (routes, versions, codecs,
//! errors, the task state machine) is made by the sans-IO core; this crate moves bytes,
//! keeps time and runs the application's agent.
//!
//! - [`server::Server`] listens and moves bytes for the core's [`a2a_wire::service::Service`],
//!   which serves the Agent Card and the interfaces it lists; [`host`] is the drive loop
//!   that owns the service and runs the agent — an [`agent::AgentExecutor`] (a future per
//!   run) or an [`agent::Agent`] (a callback that returns at once, the shape C, Python and
//!   JS agents take), with [`server::RunningServer`] to run it all on threads of its own.
//! - [`client::Client`] fetches a card, selects an interface and runs the eleven operations
//!   on the core's step-function client; streams are [`client::EventStream`]s.
//! - [`http1`] drives the core's HTTP/1.1 framing ([`a2a_wire::http1::RequestReader`], by
//!   RFC 9112: no request smuggling, `Expect: 100-continue`) on the socket;
//!   [`http1::Limits`] bounds head and body sizes, read times, idle time and connections;
//!   [`client::ClientOptions`] bounds what a client accepts and how long it waits.
//! - [`tls`]: TLS with rustls for the server (`ServerConfig::tls`; HTTP/1.1 and HTTP/2 by
//!   ALPN on one port, the certificate replaceable while serving), the client
//!   (`ClientOptions::tls`, `https://` URLs) and webhook deliveries (`WebhookPolicy::tls`).
//!
//! Features (all but `postgres` and `tower` on by default): `server` (the server, the host,
//! agents, webhooks), `client` (the client), `grpc` (the gRPC binding, `h2`), `tls` (rustls),
//! `sqlite` (the SQLite store), `postgres` (the PostgreSQL store), `tower` ([`tower`]: the
//! server as a `tower_service::Service` for axum and hyper). A client-only build
//! (`default-features = false, features = ["client"]`) compiles no SQLite, h2 or rustls;
//! without `grpc` a client selects no gRPC interface, without `tls` an `https://` URL fails
//! with [`Error::Tls`] saying why.
//!
//! Tasks are spawned on smol's global executor. For the best latency, run the server as a
//! task there too and only wait on the calling thread, as the `a2a-wire` command does:
//! `smol::future::block_on(smol::spawn(server.run()))`. One thread then runs every task and
//! drives the reactor between them; `smol::block_on(server.run())` instead makes the calling
//! thread the I/O thread, and every ready socket is handed to the executor thread (see
//! BENCHMARKS.md for the cost).
//!
//! ```no_run
//! use a2a_wire_smol::agent::{agent_text, AgentExecutor, EventSink, RequestContext};
//! use std::{future::Future, pin::Pin, sync::Arc};
//!
//! struct Echo;
//! impl AgentExecutor for Echo {
//!     fn execute(&self, ctx: RequestContext, events: EventSink) -> Pin<Box<dyn Future<Output = ()> + Send>> {
//!         Box::pin(async move {
//!             // Err only when the server refused an earlier event of this run.
//!             let _ = events.message(agent_text(format!("{}-reply", ctx.task_id), &ctx.text()));
//!         })
//!     }
//! }
//! ```
//!
//! An agent that is not a future — the shape a C callback, a Python coroutine or a JS
//! function takes — starts each run and returns at once; the run publishes from any thread,
//! and the server runs on a thread of its own:
//!
//! ```no_run
//! use a2a_wire::engine::MemoryStore;
//! use a2a_wire::v1::TaskState;
//! use a2a_wire_smol::agent::{text_part, Agent, EventSink, RequestContext};
//! use a2a_wire_smol::{demo, host::AgentKind, RunningServer, ServerConfig};
//! use std::sync::Arc;
//!
//! struct Echo;
//! impl Agent for Echo {
//!     fn start(&self, ctx: RequestContext, events: EventSink) {
//!         std::thread::spawn(move || {
//!             let artifact = a2a_wire::v1::Artifact { artifact_id: "echo".into(), parts: vec![text_part(&ctx.text())], ..Default::default() };
//!             let _ = events.artifact(artifact, false, true);
//!             let _ = events.status(TaskState::Completed, None);
//!             events.finish();
//!         });
//!     }
//! }
//!
//! let addr = "127.0.0.1:7420".parse().unwrap();
//! let server = RunningServer::start(addr, ServerConfig::new(demo::card(addr)), AgentKind::Callback(Arc::new(Echo)), MemoryStore::new())?;
//! // ... serve until it is time to stop:
//! server.stop();
//! # Ok::<(), std::io::Error>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]
// A build with some features off leaves pieces the others share unused.
#![cfg_attr(not(all(feature = "server", feature = "client", feature = "grpc", feature = "tls")), allow(dead_code, unused_imports))]

#[cfg(feature = "server")]
pub mod agent;
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "server")]
pub mod demo;
pub mod error;
#[cfg(feature = "grpc")]
pub mod grpc;
#[cfg(not(feature = "grpc"))]
#[path = "grpc_off.rs"]
pub mod grpc;
#[cfg(feature = "server")]
pub mod host;
pub mod http1;
pub mod io;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "server")]
pub mod ready;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod rows;
#[cfg(feature = "server")]
pub mod server;
pub mod signing;
#[cfg(feature = "sqlite")]
pub mod sqlite;
#[cfg(feature = "server")]
pub mod store;
#[cfg(feature = "tls")]
pub mod tls;
#[cfg(not(feature = "tls"))]
#[path = "tls_off.rs"]
pub mod tls;
#[cfg(feature = "tower")]
pub mod tower;
pub mod url;
#[cfg(feature = "server")]
pub mod webhook;

#[cfg(feature = "client")]
pub use client::{CallOptions, Client, ClientOptions, EventStream};
pub use error::Error;
#[cfg(feature = "server")]
pub use server::{RunningServer, Server, ServerConfig, ShutdownHandle};

//! The Node binding of a2a-wire (npm package `a2a-wire`).
//!
//! This crate is the native half: it moves bytes and names between JavaScript and the Rust
//! core and transport; every protocol decision is theirs. The JavaScript half (`lib/`) turns
//! the JSON text this crate returns into plain objects, throws the error classes, and adapts
//! the sans-IO service to `Request` / `Response`, Express and `node:http`.
//!
//! - `codec`: the codecs by message name (ProtoJSON and protobuf, validated);
//! - `wire`: v0.3 translation, negotiation, interface selection, cards, received errors;
//! - `errors`: the core's error table and wire forms, and how errors cross to JavaScript;
//! - `service`: the sans-IO service driven from the JavaScript thread (the fetch handler);
//! - `run`: one agent run, for either host;
//! - `server`: the ready server (the smol transport on threads of its own);
//! - `client`: the ready client (the transport's client on smol);
//! - `signing`: Agent Card signatures (signing keys, trusted key sets);
//! - `webhook`: the receiving end of push notifications.
//!
//! Async work runs on a smol executor registered as napi's async runtime (no tokio).

mod client;
mod codec;
mod errors;
mod run;
mod server;
mod service;
mod signing;
mod store;
mod webhook;
mod wire;

/// Every Rust allocation of the addon (decoded messages, encoded text, server state) goes to
/// mimalloc; memory Node owns is Node's. Strings and buffers handed to JavaScript are copies
/// or external buffers whose finalizer drops them here, with the same allocator.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use napi::bindgen_prelude::*;
use napi_derive::{module_init, napi};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

struct Inner {
    ex: Arc<smol::Executor<'static>>,
    stop: smol::channel::Sender<()>,
    threads: Vec<JoinHandle<()>>,
}

/// napi's async runtime: a smol executor on threads of its own, started when the module
/// loads and joined when the Node environment shuts down.
#[derive(Default)]
struct SmolRuntime(Mutex<Option<Inner>>);

/// Threads of the executor that runs the package's `async` native functions.
const RUNTIME_THREADS: usize = 2;

// SAFETY: `shutdown` joins every thread it started before it returns, as the trait requires.
unsafe impl AsyncRuntime for SmolRuntime {
    fn start(&self) -> Result<()> {
        let mut g = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if g.is_some() {
            return Ok(());
        }
        let ex = Arc::new(smol::Executor::new());
        let (stop, rx) = smol::channel::unbounded::<()>();
        let mut threads = Vec::with_capacity(RUNTIME_THREADS);
        for i in 0..RUNTIME_THREADS {
            let (ex2, rx2) = (ex.clone(), rx.clone());
            let t = std::thread::Builder::new()
                .name(format!("a2a-wire-node-{i}"))
                .spawn(move || {
                    let _ = smol::block_on(ex2.run(rx2.recv()));
                })
                .map_err(|e| Error::from_reason(format!("cannot start the a2a-wire runtime: {e}")))?;
            threads.push(t);
        }
        *g = Some(Inner { ex, stop, threads });
        Ok(())
    }

    fn spawn(&self, task: AsyncRuntimeTask) -> std::result::Result<(), AsyncRuntimeRejection<AsyncRuntimeTask>> {
        match &*self.0.lock().unwrap_or_else(PoisonError::into_inner) {
            Some(i) => {
                i.ex.spawn(task).detach();
                Ok(())
            }
            None => Err(AsyncRuntimeRejection::new(task, Error::from_reason("the a2a-wire runtime is stopped"))),
        }
    }

    fn block_on(&self, f: Pin<&mut dyn Future<Output = ()>>) -> Result<()> {
        smol::block_on(f);
        Ok(())
    }

    fn shutdown(&self) -> Result<()> {
        let taken = self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(Inner { ex, stop, threads }) = taken {
            drop(stop);
            for t in threads {
                let _ = t.join();
            }
            drop(ex);
        }
        Ok(())
    }
}

#[module_init]
fn init() {
    register_async_runtime(SmolRuntime::default());
}

/// Constants of the core, as JSON: the crate version, the card path, the status text of a
/// task whose agent failed, and the protocol versions served.
#[napi(catch_unwind)]
pub fn constants() -> String {
    serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "cardPath": a2a::service::CARD_PATH,
        "agentFailed": a2a::engine::AGENT_FAILED,
        "errorMarker": errors::MARKER,
    })
    .to_string()
}

/// The model's TypeScript types (`model.d.ts`) as generated at build time.
#[napi(catch_unwind)]
pub fn model_types() -> &'static str {
    include_str!(concat!(env!("OUT_DIR"), "/model.d.ts"))
}

/// The model's enum objects (`model.js`) as generated at build time.
#[napi(catch_unwind)]
pub fn model_js() -> &'static str {
    include_str!(concat!(env!("OUT_DIR"), "/model.js"))
}

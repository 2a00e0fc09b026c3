//! The ready server (`ReadyServer`): the smol transport (HTTP/1.1 and HTTP/2, JSON-RPC,
//! HTTP+JSON, gRPC, SSE, the card) on threads of its own, with an agent that is a
//! JavaScript async function on the event loop.
//!
//! The transport's host calls the agent's `start` / `cancel` on its own thread. Those never
//! wait for JavaScript: they queue a call of a thread-safe function and return. The run's
//! events go back through the transport's thread-safe sink, also without waiting. The
//! thread-safe functions keep the event loop alive while the server serves (as a listening
//! socket does) and are released when it stops.

use crate::errors;
use crate::run::{Backend, Run, RunInfo};
use a2a::engine::{MemoryStore, RunId};
use a2a::v1;
use a2a_wire_smol::agent::{Agent, EventSink, RequestContext};
use a2a_wire_smol::host::AgentKind;
use a2a_wire_smol::{RunningServer, ServerConfig};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

type StartFn = ThreadsafeFunction<Run, (), Run, Status, false>;
type CancelFn = ThreadsafeFunction<i64, (), i64, Status, false>;

struct JsAgent {
    /// None once the server stopped: new runs end at once.
    fns: Mutex<Option<(StartFn, CancelFn)>>,
}

impl Agent for JsAgent {
    fn start(&self, ctx: RequestContext, events: EventSink) {
        let fns = self.fns.lock().unwrap_or_else(PoisonError::into_inner);
        let Some((start, _)) = fns.as_ref() else {
            // Dropping the sink ends the run as finished.
            return;
        };
        let info = RunInfo {
            id: ctx.run,
            task_id: ctx.task_id,
            context_id: ctx.context_id,
            message: ctx.message,
            follow_up: ctx.follow_up,
            resumed: ctx.resumed,
            task: ctx.task,
            principal: ctx.call.principal,
            extensions: ctx.call.extensions,
        };
        // A call refused (the environment is closing) drops the run, which ends it.
        start.call(Run::new(info, Backend::Ready { events, cancel: ctx.cancel }), ThreadsafeFunctionCallMode::NonBlocking);
    }

    fn cancel(&self, run: RunId) {
        let fns = self.fns.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, cancel)) = fns.as_ref() {
            cancel.call(run.0 as i64, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// A running server.
#[napi]
pub struct ReadyServer {
    server: Arc<Mutex<Option<RunningServer>>>,
    agent: Arc<JsAgent>,
    url: String,
    card: v1::AgentCard,
}

#[napi]
impl ReadyServer {
    /// Binds `host:port` (port 0: a free one) and serves `card` (ProtoJSON; null or a card
    /// without interfaces: the standard six of the demo agent's shape), calling `onStart(run)`
    /// for every run and `onCancel(runId)` when one is canceled. With `bearerTokens` (token to
    /// principal) every call needs `Authorization: Bearer TOKEN` and each principal sees only
    /// its own tasks. With `tls` (certificate and key PEM files) it speaks HTTPS only and its
    /// card lists `https://` URLs. Returns once it listens.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        host: String,
        port: u16,
        card: Option<String>,
        bearer_tokens: Option<std::collections::HashMap<String, String>>,
        tls: Option<crate::client::TlsFiles>,
        on_start: Function<Run, ()>,
        on_cancel: Function<i64, ()>,
    ) -> Result<Self> {
        let tokens = match bearer_tokens {
            Some(map) if map.is_empty() => return Err(errors::range_error("bearerTokens is empty: no caller could authenticate")),
            Some(map) => {
                let mut t = a2a::auth::BearerTokens::new();
                let mut pairs: Vec<_> = map.iter().collect();
                pairs.sort();
                for (token, principal) in pairs {
                    // The message names the principal, never the token (a secret).
                    t.insert(token, principal)
                        .map_err(|e| errors::range_error(format!("bearerTokens, the token of {principal:?}: {e}")))?;
                }
                Some(t)
            }
            None => None,
        };
        let tls = match tls {
            Some(f) => Some(
                a2a_wire_smol::tls::ServerTls::from_pem_files(&f.cert, &f.key)
                    .map_err(|e| errors::throw(serde_json::json!({"class": "TLSError", "message": e.to_string()})))?,
            ),
            None => None,
        };
        let ip: std::net::IpAddr = host.parse().map_err(|e| errors::range_error(format!("host {host:?} is not an IP address: {e}")))?;
        let wanted = SocketAddr::new(ip, port);
        // The card must name the port before the server binds it.
        let addr = a2a_wire_smol::server::concrete_addr(wanted).map_err(|e| Error::from_reason(format!("cannot bind {wanted}: {e}")))?;
        let origin = a2a_wire_smol::demo::origin(addr, tls.is_some());
        let card = match card {
            // Its interfaces are the server's to fill in: read it without the REQUIRED check,
            // which the whole card passes below.
            Some(c) => {
                let c = a2a::codec::json::decode_unchecked(c.as_bytes()).map_err(|e| errors::decode_error(&e))?;
                a2a_wire_smol::demo::with_standard_interfaces_at(c, &origin)
            }
            None => a2a_wire_smol::demo::card_at(&origin),
        };
        // The whole card is checked as the service will read it.
        crate::run::decode::<v1::AgentCard>(&crate::run::json(&card)?)?;
        let start: StartFn = on_start.build_threadsafe_function().callee_handled::<false>().build()?;
        let cancel: CancelFn = on_cancel.build_threadsafe_function().callee_handled::<false>().build()?;
        let agent = Arc::new(JsAgent { fns: Mutex::new(Some((start, cancel))) });
        let mut config = ServerConfig::new(card);
        if let Some(t) = tokens {
            config = config.with_bearer_tokens(t);
        }
        config.log = a2a::log::silent();
        config.tls = tls;
        let card = config.card.clone();
        let kind = AgentKind::Callback(agent.clone());
        let server = RunningServer::start(addr, config, kind, MemoryStore::new())
            .map_err(|e| Error::from_reason(format!("cannot serve on {addr}: {e}")))?;
        let url = origin;
        Ok(ReadyServer { server: Arc::new(Mutex::new(Some(server))), agent, url, card })
    }

    /// `http://HOST:PORT` (the card is at `/.well-known/agent-card.json`).
    #[napi(getter, catch_unwind)]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The card the server publishes (ProtoJSON).
    #[napi(getter, catch_unwind)]
    pub fn card(&self) -> Result<String> {
        crate::run::json(&self.card)
    }

    /// Stops the server (open streams end, running runs are canceled) and resolves once it
    /// has stopped. The event loop is no longer held by it.
    #[napi]
    pub async fn stop(&self) -> Result<()> {
        let server = self.server.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(s) = server {
            smol::unblock(move || s.stop()).await;
        }
        // Released after the stop, so that the cancels of the stop still reach the runs.
        self.agent.fns.lock().unwrap_or_else(PoisonError::into_inner).take();
        Ok(())
    }
}

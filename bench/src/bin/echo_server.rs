//! The demo echo agent on `RunningServer` (the host the C, Python and Node bindings use),
//! with a choice of agent shape, for comparing hosts in bench/c/run.py:
//!
//!     echo-server 127.0.0.1:PORT [future|callback] [silent|stderr]

use a2a_wire_smol::agent::{Agent, AgentExecutor, EventSink, RequestContext};
use a2a_wire_smol::demo::EchoAgent;
use a2a_wire_smol::host::AgentKind;
use a2a_wire_smol::{RunningServer, ServerConfig};
use std::sync::Arc;

/// The echo agent's plain echo as a callback that answers at once.
struct CallbackEcho;

impl Agent for CallbackEcho {
    fn start(&self, ctx: RequestContext, events: EventSink) {
        let text = ctx.text();
        let artifact = a2a_wire::v1::Artifact {
            artifact_id: "echo".into(),
            name: "echo".into(),
            parts: vec![a2a_wire_smol::agent::text_part(&text)],
            ..Default::default()
        };
        let _ = events.artifact(artifact, false, true);
        let _ = events.status(a2a_wire::v1::TaskState::Completed, None);
        events.finish();
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr: std::net::SocketAddr = args.first().ok_or("usage: echo-server ADDR [future|callback] [silent|stderr]")?.parse()?;
    let kind = match args.get(1).map(String::as_str).unwrap_or("future") {
        "callback" => AgentKind::Callback(Arc::new(CallbackEcho)),
        _ => AgentKind::Future(Arc::new(EchoAgent::default()) as Arc<dyn AgentExecutor>),
    };
    let mut config = ServerConfig::new(a2a_wire_smol::demo::card(addr));
    if args.get(2).map(String::as_str) != Some("stderr") {
        config.log = a2a_wire::log::silent();
    }
    let server = RunningServer::start(addr, config, kind, a2a_wire::engine::MemoryStore::new())?;
    eprintln!("serving http://{}", server.local_addr());
    loop {
        std::thread::park();
    }
}

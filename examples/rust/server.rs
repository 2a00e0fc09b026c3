//! An A2A agent on a2a-wire: six interfaces (JSON-RPC, HTTP+JSON and gRPC, each in v1.0 and
//! v0.3) on one port, an authentication hook, and an agent written as an async closure that
//! streams its answer and stops when the task is canceled.
//!
//! ```text
//! cargo run -p a2a-wire-examples --bin example-server -- 127.0.0.1:7420
//! ```
//!
//! Callers send `Authorization: Bearer demo-token` (`EXAMPLE_TOKEN` changes it).

use a2a_wire::error::{A2aError, ErrorKind};
use a2a_wire::v1;
use a2a_wire_smol::agent::{agent_fn, text_part, EventSink, RequestContext};
use a2a_wire_smol::host::{AuthCall, AuthHook};
use a2a_wire_smol::{demo, Server, ServerConfig};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

fn card(origin: &str) -> v1::AgentCard {
    let card = v1::AgentCard {
        name: "Shouter".into(),
        description: "Repeats your text in capitals, one word at a time.".into(),
        version: "1.0.0".into(),
        capabilities: Some(v1::AgentCapabilities { streaming: Some(true), ..Default::default() }),
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![v1::AgentSkill {
            id: "shout".into(),
            name: "Shout".into(),
            description: "Upper-cases text.".into(),
            tags: vec!["text".into()],
            ..Default::default()
        }],
        ..Default::default()
    };
    // The six standard interfaces at this origin (a card that lists its own keeps them).
    demo::with_standard_interfaces_at(card, origin)
}

/// The agent: one artifact, a chunk per word, then COMPLETED; a cancel stops it between words.
async fn shout(ctx: RequestContext, events: EventSink) {
    let words: Vec<String> = ctx.text().split_whitespace().map(str::to_uppercase).collect();
    if events.status(v1::TaskState::Working, None).is_err() {
        return;
    }
    let artifact_id = a2a_wire_smol::agent::new_id();
    for (i, w) in words.iter().enumerate() {
        use smol::future::FutureExt;
        // Wait a little between words, unless the task is canceled first.
        let canceled = async {
            ctx.cancelled().await;
            true
        }
        .or(async {
            smol::Timer::after(Duration::from_millis(50)).await;
            false
        })
        .await;
        if canceled {
            return;
        }
        let chunk = v1::Artifact { artifact_id: artifact_id.clone(), parts: vec![text_part(&format!("{w} "))], ..Default::default() };
        if events.artifact(chunk, i > 0, i + 1 == words.len()).is_err() {
            return;
        }
    }
    let _ = events.status(v1::TaskState::Completed, None);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr: SocketAddr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:7420".into()).parse()?;
    let addr = a2a_wire_smol::server::concrete_addr(addr)?;
    let token = std::env::var("EXAMPLE_TOKEN").unwrap_or_else(|_| "demo-token".into());
    let mut config = ServerConfig::new(card(&demo::origin(addr, false)));
    // Any check fits here: a JWT, a session store (the hook may be async).
    config.authenticate = Some(AuthHook::new_async(move |call: AuthCall| {
        let ok = call.header("authorization") == Some(&format!("Bearer {token}"));
        async move {
            if ok {
                Ok(Some(String::from("demo-user")))
            } else {
                Err(A2aError::with_message(ErrorKind::Unauthenticated, "send Authorization: Bearer <token>"))
            }
        }
    }));
    smol::block_on(async {
        let server = Server::bind(addr, config, Arc::new(agent_fn(shout))).await?;
        println!("listening on http://{}", server.local_addr()?);
        // Serve on smol's executor; this thread only waits (see the crate docs).
        smol::spawn(server.run()).await;
        Ok(())
    })
}

//! Streams that lose nothing: a stream cut mid-task (every connection dropped by a relay
//! between client and server) is resumed by the client on its own, with `SubscribeToTask`
//! and the id of the last event it took; the events go on where they stopped, each once, in
//! order, on every interface of the demo server. Real sockets on 127.0.0.1.

use a2a_wire::card::{Binding, SelectedInterface};
use a2a_wire::v1::{self, stream_response::Payload};
use a2a_wire::version::ProtocolVersion;
use a2a_wire_smol::agent::text_part;
use a2a_wire_smol::host::AgentKind;
use a2a_wire_smol::server::{concrete_addr, RunningServer};
use a2a_wire_smol::{Client, ClientOptions, Error, ServerConfig};
use a2a_wire_tests::cutter::Cutter;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The test's own setup cannot fail: `what` says why.
fn sure<T, E: std::fmt::Debug>(r: Result<T, E>, what: &str) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{what}: {e:?}"),
    }
}

const TICKS: usize = 30;

fn demo() -> (RunningServer, SocketAddr, v1::AgentCard) {
    let addr = sure(concrete_addr(sure("127.0.0.1:0".parse(), "a literal address")), "a free port");
    let card = a2a_wire_smol::demo::card(addr);
    let mut config = ServerConfig::new(card.clone());
    config.log = Arc::new(|_, _: &str| {});
    let agent = AgentKind::Future(Arc::new(a2a_wire_smol::demo::EchoAgent::default()));
    let server = sure(RunningServer::start(addr, config, agent, a2a_wire::engine::MemoryStore::new()), "the server starts");
    (server, addr, card)
}

/// Every interface of `card`, reached through the relay at `via` instead of `server`.
fn interfaces_via(card: &v1::AgentCard, server: SocketAddr, via: SocketAddr) -> Vec<SelectedInterface> {
    let mut out: Vec<SelectedInterface> = Vec::new();
    for i in &card.supported_interfaces {
        let binding = Binding::parse(&i.protocol_binding);
        let Some(version) = ProtocolVersion::parse(&i.protocol_version) else { continue };
        if out.iter().any(|o| o.binding == binding && o.version == version) {
            continue;
        }
        let url = i.url.replace(&server.to_string(), &via.to_string());
        out.push(SelectedInterface { url, binding, version, tenant: i.tenant.clone(), index: 0 });
    }
    out
}

fn ticks() -> v1::SendMessageRequest {
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: format!("resume-{:?}", std::time::Instant::now()),
            role: v1::Role::User as i32,
            parts: vec![text_part(&format!("ticks {TICKS} 15"))],
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn chunk_text(a: &v1::Artifact) -> String {
    a.parts.iter().filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.as_str()) } else { None }).collect()
}

/// What one stream showed, cut twice on its way.
struct Run {
    events: Vec<v1::StreamResponse>,
    resumed: u32,
    tracker: v1::Task,
}

async fn cut_twice(iface: SelectedInterface, cutter: &Cutter) -> Run {
    let client = Client::new(iface);
    let mut stream = sure(client.send_streaming_message(ticks()).await, "the stream starts");
    let mut events = Vec::new();
    loop {
        let next = smol::future::or(async { Some(stream.next().await) }, async {
            smol::Timer::after(Duration::from_secs(20)).await;
            None
        });
        let Some(item) = next.await else { panic!("no event for 20 s after {} events", events.len()) };
        let Some(ev) = item else { break };
        events.push(sure(ev, "the stream goes on through the cuts"));
        if events.len() == 6 || events.len() == 18 {
            assert!(cutter.cut() >= 1, "the stream's connection went through the relay");
        }
    }
    Run { events, resumed: stream.resumed(), tracker: stream.task().task().clone() }
}

fn state(ev: &v1::StreamResponse) -> Option<i32> {
    match &ev.payload {
        Some(Payload::StatusUpdate(u)) => u.status.as_ref().map(|s| s.state),
        Some(Payload::Task(t)) => t.status.as_ref().map(|s| s.state),
        _ => None,
    }
}

#[test]
fn a_stream_cut_mid_task_resumes_with_every_event_once_in_order_on_every_interface() {
    smol::block_on(async {
        let (_server, addr, card) = demo();
        let cutter = sure(Cutter::start(addr).await, "the relay starts");
        let ifaces = interfaces_via(&card, addr, cutter.addr());
        assert!(ifaces.len() >= 5, "{ifaces:?}");
        let want: Vec<String> = (1..=TICKS).map(|i| format!("tick {i}")).collect();
        // The cut is real: with resuming off, the stream ends in a transport error.
        let off = ClientOptions { stream_resumes: 0, ..ClientOptions::default() };
        let client = Client::new(ifaces[0].clone()).with_options(off);
        let mut stream = sure(client.send_streaming_message(ticks()).await, "the stream starts");
        sure(sure(stream.next().await.ok_or("ended"), "a first event"), "a first event");
        cutter.cut();
        let rest = smol::future::or(
            async {
                // Events already buffered before the cut may still come; then the error.
                loop {
                    match stream.next().await {
                        Some(Ok(_)) => continue,
                        other => return Some(other),
                    }
                }
            },
            async {
                smol::Timer::after(Duration::from_secs(20)).await;
                None
            },
        );
        let end = rest.await;
        assert!(matches!(end, Some(Some(Err(Error::Transport(_))))), "a cut stream without resuming fails: {end:?}");
        for iface in ifaces {
            let name = format!("{:?} {}", iface.binding, iface.version);
            // v0.3 gRPC messages carry no id (v0.3 has no header for it): its resume starts
            // from the current Task, so it loses intermediate events but no state.
            let numbered = !(iface.binding == Binding::Grpc && iface.version.is_legacy());
            let run = cut_twice(iface, &cutter).await;
            assert!(run.resumed >= 2, "{name}: resumed {} times", run.resumed);
            let last = run.events.last().and_then(state);
            assert_eq!(last, Some(v1::TaskState::Completed as i32), "{name}: the last event completes the task");
            // The tracker followed through the cuts: the whole artifact, the final state.
            let ticks = run.tracker.artifacts.iter().find(|a| a.artifact_id == "ticks").map(chunk_text);
            assert_eq!(ticks, Some(want.concat()), "{name}");
            assert_eq!(run.tracker.status.as_ref().map(|s| s.state), Some(v1::TaskState::Completed as i32), "{name}");
            if numbered {
                let chunks: Vec<String> = run
                    .events
                    .iter()
                    .filter_map(
                        |e| if let Some(Payload::ArtifactUpdate(u)) = &e.payload { u.artifact.as_ref().map(chunk_text) } else { None },
                    )
                    .collect();
                assert_eq!(chunks, want, "{name}: every chunk once, in order");
                let snapshots = run.events.iter().filter(|e| matches!(e.payload, Some(Payload::Task(_)))).count();
                assert_eq!(snapshots, 1, "{name}: the resumed streams replay events, they do not start over");
            }
        }
    });
}

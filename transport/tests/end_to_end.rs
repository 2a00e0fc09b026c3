//! Our client against our server over real sockets on 127.0.0.1: every interface of the demo
//! card (JSON-RPC, HTTP+JSON and gRPC, v1.0 and v0.3), the card's HTTP caching, streaming
//! with appended chunks, the input-required follow-up, errors, and the HTTP limits.

use a2a_wire::card::{select_interface, Binding, ClientSupport};
use a2a_wire::client::{ClientError, Reply, TaskTracker};
use a2a_wire::error::{ErrorKind, Received};
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire_smol::agent::text_part;
use a2a_wire_smol::demo::{self, EchoAgent};
use a2a_wire_smol::http1::Limits;
use a2a_wire_smol::{Client, Error, Server, ServerConfig};
use smol::io::{AsyncReadExt, AsyncWriteExt};
use smol::net::TcpStream;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Starts the demo agent on an ephemeral port with `limits`.
fn start(limits: Limits) -> SocketAddr {
    smol::block_on(async {
        // Bind first to learn the port, then publish a card with it.
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = probe.local_addr().unwrap();
        drop(probe);
        let mut config = ServerConfig::new(demo::card(addr));
        config.limits = limits;
        let agent = Arc::new(EchoAgent { chunk_delay: Duration::from_millis(60) });
        let server = Server::bind(addr, config, agent).await.unwrap();
        smol::spawn(server.run()).detach();
        addr
    })
}

fn message(text: &str, task_id: Option<&str>) -> v1::SendMessageRequest {
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: format!("m-{}-{}", text, rand_suffix()),
            role: v1::Role::User as i32,
            parts: vec![text_part(text)],
            task_id: task_id.unwrap_or_default().into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn rand_suffix() -> u128 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    u128::from(N.fetch_add(1, Ordering::Relaxed)) ^ std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
}

fn artifact_text(task: &v1::Task) -> String {
    task.artifacts
        .iter()
        .flat_map(|a| a.parts.iter())
        .filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.as_str()) } else { None })
        .collect()
}

fn kind_of(e: &Error) -> Option<ErrorKind> {
    match e {
        Error::A2a(ClientError::Remote(Received::A2a(a))) => Some(a.kind()),
        _ => None,
    }
}

fn clients(addr: SocketAddr) -> Vec<(Binding, ProtocolVersion, Client)> {
    let card = demo::card(addr);
    let mut out = Vec::new();
    for binding in [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc] {
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            let support = ClientSupport { bindings: vec![binding.clone()], versions: vec![version] };
            let iface = select_interface(&card, &support).unwrap();
            assert_eq!((&iface.binding, iface.version), (&binding, version));
            out.push((binding.clone(), version, Client::new(iface)));
        }
    }
    out
}

#[test]
fn every_interface_sends_gets_cancels_and_reports_errors() {
    let addr = start(Limits::default());
    smol::block_on(async {
        for (binding, version, client) in clients(addr) {
            let what = format!("{binding:?} {version}");
            let Reply::Task(t) = client.send_message(message("hello", None)).await.unwrap() else { panic!("{what}: expected a task") };
            let task = t.task().clone();
            assert_eq!(task.status.as_ref().map(|s| s.state), Some(v1::TaskState::Completed as i32), "{what}");
            assert_eq!(artifact_text(&task), "hello", "{what}");

            let got = client.get_task(v1::GetTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap();
            assert_eq!((got.id.as_str(), artifact_text(&got).as_str()), (task.id.as_str(), "hello"), "{what}");

            let e = client.cancel_task(v1::CancelTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap_err();
            assert_eq!(kind_of(&e), Some(ErrorKind::TaskNotCancelable), "{what}: {e}");

            let e = client.get_task(v1::GetTaskRequest { id: "no-such-task".into(), ..Default::default() }).await.unwrap_err();
            assert_eq!(kind_of(&e), Some(ErrorKind::TaskNotFound), "{what}: {e}");

            match client.send_message(message("message-only", None)).await.unwrap() {
                Reply::Message(m) => assert_eq!(m.role, v1::Role::Agent as i32, "{what}"),
                Reply::Task(_) => panic!("{what}: expected a direct message"),
            }

            if version == ProtocolVersion::V1_0 {
                let list =
                    client.list_tasks(v1::ListTasksRequest { context_id: task.context_id.clone(), ..Default::default() }).await.unwrap();
                assert_eq!(list.tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), vec![task.id.as_str()], "{what}");
            } else {
                // ListTasks does not exist in v0.3: the client refuses before sending.
                let e = client.list_tasks(v1::ListTasksRequest::default()).await.unwrap_err();
                assert!(matches!(e, Error::A2a(ClientError::Local(_))), "{what}: {e}");
            }
        }
    });
}

#[test]
fn streams_assemble_appended_chunks_and_follow_ups_complete_input_required_tasks() {
    let addr = start(Limits::default());
    smol::block_on(async {
        for (binding, version, client) in clients(addr) {
            let what = format!("{binding:?} {version}");
            let mut stream = client.send_streaming_message(message("slow", None)).await.unwrap();
            let mut tracker = TaskTracker::empty();
            let mut artifact_events = 0;
            while let Some(ev) = stream.next().await {
                let ev = ev.unwrap_or_else(|e| panic!("{what}: {e}"));
                if matches!(ev.payload, Some(v1::stream_response::Payload::ArtifactUpdate(_))) {
                    artifact_events += 1;
                }
                tracker.on_event(&ev, a2a_wire_smol::server::now()).unwrap();
            }
            assert_eq!(artifact_events, 3, "{what}");
            assert_eq!(tracker.state(), Some(v1::TaskState::Completed), "{what}");
            assert_eq!(artifact_text(tracker.task()), "one two three", "{what}");
            assert_eq!(tracker.task().artifacts.len(), 1, "{what}: chunks appended to one artifact");

            let Reply::Task(t) = client.send_message(message("need-input", None)).await.unwrap() else { panic!("{what}") };
            assert_eq!(t.state(), Some(v1::TaskState::InputRequired), "{what}");
            let id = t.task().id.clone();
            let Reply::Task(done) = client.send_message(message("the answer", Some(&id))).await.unwrap() else { panic!("{what}") };
            assert_eq!((done.task().id.as_str(), done.state()), (id.as_str(), Some(v1::TaskState::Completed)), "{what}");
            assert_eq!(artifact_text(done.task()), "the answer", "{what}");
        }
    });
}

#[test]
fn a_client_leaving_a_stream_does_not_cancel_the_task_and_can_resubscribe() {
    let addr = start(Limits::default());
    smol::block_on(async {
        for (binding, version, client) in clients(addr) {
            let what = format!("{binding:?} {version}");
            let mut stream = client.send_streaming_message(message("slow", None)).await.unwrap();
            let first = stream.next().await.unwrap().unwrap();
            let Some(v1::stream_response::Payload::Task(task)) = first.payload else { panic!("{what}: the first event is the task") };
            stream.close().await;
            // Resubscribe: the current task first, then the rest of the run.
            let mut again =
                client.subscribe_to_task(v1::SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap();
            let mut tracker = TaskTracker::empty();
            while let Some(ev) = again.next().await {
                tracker.on_event(&ev.unwrap_or_else(|e| panic!("{what}: {e}")), a2a_wire_smol::server::now()).unwrap();
            }
            assert_eq!(tracker.state(), Some(v1::TaskState::Completed), "{what}");
            let got = client.get_task(v1::GetTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap();
            assert_eq!(artifact_text(&got), "one two three", "{what}");
        }
    });
}

async fn raw(addr: SocketAddr, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(request).await.unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out).await;
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn the_card_is_served_with_etag_cache_control_and_conditional_get() {
    let addr = start(Limits::default());
    smol::block_on(async {
        let first = raw(addr, b"GET /.well-known/agent-card.json HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").await;
        assert!(first.starts_with("HTTP/1.1 200"), "{first}");
        assert!(first.contains("cache-control: public, max-age=300"), "{first}");
        let etag = first.lines().find_map(|l| l.strip_prefix("etag: ")).unwrap().trim().to_string();
        let again = raw(
            addr,
            format!("GET /.well-known/agent-card.json HTTP/1.1\r\nhost: x\r\nif-none-match: {etag}\r\nconnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await;
        assert!(again.starts_with("HTTP/1.1 304"), "{again}");
        let other =
            raw(addr, b"GET /.well-known/agent-card.json HTTP/1.1\r\nhost: x\r\nif-none-match: \"other\"\r\nconnection: close\r\n\r\n")
                .await;
        assert!(other.starts_with("HTTP/1.1 200"), "{other}");

        let view = a2a_wire_smol::client::fetch_card(&format!("http://{addr}")).await.unwrap();
        assert_eq!(view.card.supported_interfaces.len(), 6);
        assert_eq!(view.shape, a2a_wire::card::CardShape::Both, "v0.3 clients find their url in the same document");
        let (client, card) =
            Client::connect(&format!("http://{addr}/.well-known/agent-card.json"), &ClientSupport::default()).await.unwrap();
        assert_eq!(card.name, "a2a-wire echo");
        assert_eq!((client.interface().binding.clone(), client.interface().version), (Binding::JsonRpc, ProtocolVersion::V1_0));
    });
}

#[test]
fn a_bare_404_from_elsewhere_is_not_task_not_found() {
    let addr = start(Limits::default());
    smol::block_on(async {
        let iface = a2a_wire::card::SelectedInterface {
            url: format!("http://{addr}/not/an/interface"),
            binding: Binding::HttpJson,
            version: ProtocolVersion::V1_0,
            tenant: String::new(),
            index: 0,
        };
        let e = Client::new(iface).get_task(v1::GetTaskRequest { id: "t".into(), ..Default::default() }).await.unwrap_err();
        assert!(matches!(e, Error::A2a(ClientError::Remote(Received::NotA2a { status: 404, .. }))), "{e}");
    });
}

fn small_limits() -> Limits {
    Limits {
        max_body: 64 * 1024,
        head_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_millis(800),
        max_connections: 16,
        ..Limits::default()
    }
}

#[test]
fn an_oversize_body_is_refused_and_the_server_keeps_serving() {
    let addr = start(small_limits());
    smol::block_on(async {
        let body = vec![b'x'; 100 * 1024];
        let mut req =
            format!("POST /a2a/jsonrpc HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n", body.len())
                .into_bytes();
        req.extend_from_slice(&body);
        let answer = raw(addr, &req).await;
        assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
        let chunked = b"POST /a2a/jsonrpc HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n10000\r\n";
        let mut req = chunked.to_vec();
        req.extend_from_slice(&vec![b'x'; 0x10000]);
        req.extend_from_slice(b"\r\n10000\r\n");
        req.extend_from_slice(&vec![b'x'; 0x10000]);
        let answer = raw(addr, &req).await;
        assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
        let (_, _, client) = clients(addr).remove(0);
        assert!(matches!(client.send_message(message("hello", None)).await.unwrap(), Reply::Task(_)));
    });
}

#[test]
fn a_slow_header_is_timed_out_while_other_clients_are_served() {
    let addr = start(small_limits());
    smol::block_on(async {
        let mut slow = TcpStream::connect(addr).await.unwrap();
        slow.write_all(b"GET /.well-known/agent-card.json HTTP/1.1\r\n").await.unwrap();
        let started = Instant::now();
        // Meanwhile, another client is served at once.
        let (_, _, client) = clients(addr).remove(0);
        assert!(matches!(client.send_message(message("hello", None)).await.unwrap(), Reply::Task(_)));
        // The slow client dribbles one header byte at a time; the head deadline still holds.
        let mut out = Vec::new();
        for _ in 0..20 {
            if slow.write_all(b"x").await.is_err() {
                break;
            }
            smol::Timer::after(Duration::from_millis(50)).await;
        }
        let _ = slow.read_to_end(&mut out).await;
        let answer = String::from_utf8_lossy(&out);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(started.elapsed() < Duration::from_secs(3), "timed out after {:?}", started.elapsed());
    });
}

#[test]
fn a_flood_of_idle_connections_is_refused_then_timed_out() {
    let addr = start(small_limits());
    smol::block_on(async {
        let mut idle = Vec::new();
        for _ in 0..16 {
            idle.push(TcpStream::connect(addr).await.unwrap());
        }
        smol::Timer::after(Duration::from_millis(100)).await;
        // Over the limit: refused with 503 at once.
        let refused = raw(addr, b"GET /.well-known/agent-card.json HTTP/1.1\r\nhost: x\r\n\r\n").await;
        assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
        // The idle ones are closed after the idle timeout; then clients are served again.
        for s in &mut idle {
            let mut b = [0u8; 64];
            let n = smol::future::or(async { s.read(&mut b).await.unwrap_or(0) }, async {
                smol::Timer::after(Duration::from_secs(5)).await;
                usize::MAX
            })
            .await;
            assert_ne!(n, usize::MAX, "an idle connection was not closed");
        }
        smol::Timer::after(Duration::from_millis(100)).await;
        let (_, _, client) = clients(addr).remove(0);
        assert!(matches!(client.send_message(message("hello", None)).await.unwrap(), Reply::Task(_)));
    });
}

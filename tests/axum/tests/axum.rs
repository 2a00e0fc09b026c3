//! `a2a_wire_smol::tower::A2aService` mounted in an axum router on tokio, beside a route of
//! the application's own; our client (on smol, in threads of its own) runs the card, unary
//! calls and streams on JSON-RPC, HTTP+JSON and gRPC (HTTP/2 without TLS) through it, and an
//! authentication hook sees the request axum handed over.

use a2a_wire::card::{select_interface, Binding, ClientSupport};
use a2a_wire::client::Reply;
use a2a_wire::error::ErrorKind;
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire_smol::agent::{agent_fn, agent_text, new_id, text_part, EventSink, RequestContext};
use a2a_wire_smol::host::{AgentKind, AuthCall, AuthHook};
use a2a_wire_smol::tower::A2aService;
use a2a_wire_smol::{demo, Client, ServerConfig};
use std::sync::Arc;

fn send(text: &str) -> v1::SendMessageRequest {
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: new_id(),
            role: v1::Role::User as i32,
            parts: vec![text_part(text)],
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_serves_every_binding_inside_axum() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = ServerConfig::new(demo::card(addr));
    config.log = a2a_wire::log::silent();
    config.authenticate = Some(AuthHook::new(|call: &AuthCall| match call.header("authorization") {
        Some(v) => Ok(v.strip_prefix("Bearer ").map(String::from)),
        None => Ok(None),
    }));
    let agent = agent_fn(|ctx: RequestContext, events: EventSink| async move {
        let who = ctx.principal().unwrap_or("anonymous").to_owned();
        if ctx.text() == "stream" {
            let _ = events.status(v1::TaskState::Working, None);
            for i in 0..3 {
                let _ = events.artifact(
                    v1::Artifact { artifact_id: "a".into(), parts: vec![text_part(&i.to_string())], ..Default::default() },
                    i > 0,
                    i == 2,
                );
            }
            let _ = events.status(v1::TaskState::Completed, None);
        } else {
            let _ = events.message(agent_text(new_id(), &format!("{who}: {}", ctx.text())));
        }
    });
    let (service, stop) = A2aService::start(config, AgentKind::Future(Arc::new(agent)), a2a_wire::engine::MemoryStore::new()).unwrap();
    let app = axum::Router::new().route("/healthz", axum::routing::get(|| async { "ok" })).fallback_service(service);
    let server = tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    // Our client runs on smol, off tokio's threads.
    let checked = tokio::task::spawn_blocking(move || {
        smol::block_on(async {
            let (_, card) = Client::connect(&format!("http://{addr}"), &ClientSupport::default()).await.unwrap();
            assert_eq!(card.supported_interfaces.len(), 6, "the card, served through axum");
            let mut checked = Vec::new();
            for binding in [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc] {
                for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
                    let support = ClientSupport { bindings: vec![binding.clone()], versions: vec![version] };
                    let c = Client::new(select_interface(&card, &support).unwrap()).with_header("Authorization", "Bearer alice");
                    let r = c.send_message(send("hi")).await.unwrap_or_else(|e| panic!("{binding:?} {version}: {e}"));
                    let Reply::Message(m) = r else { panic!("{binding:?} {version}: a message") };
                    assert_eq!(a2a_wire_smol::agent::message_text(&m), "alice: hi", "{binding:?} {version}");
                    let mut s = c.send_streaming_message(send("stream")).await.unwrap();
                    let mut n = 0;
                    while let Some(ev) = s.next().await {
                        ev.unwrap_or_else(|e| panic!("{binding:?} {version}: {e}"));
                        n += 1;
                    }
                    let t = s.task().task().clone();
                    assert_eq!(t.status.map(|s| s.state), Some(v1::TaskState::Completed as i32), "{binding:?} {version}");
                    assert!(n >= 5, "{binding:?} {version}: {n} events");
                    assert_eq!(
                        a2a_wire_smol::agent::message_text(&v1::Message { parts: t.artifacts[0].parts.clone(), ..Default::default() }),
                        "012"
                    );
                    let e = c.get_task(v1::GetTaskRequest { id: "nope".into(), ..Default::default() }).await.unwrap_err();
                    assert_eq!(e.a2a().map(|a| a.kind()), Some(ErrorKind::TaskNotFound), "{binding:?} {version}: {e}");
                    checked.push(format!("{binding:?} {version}"));
                }
            }
            checked
        })
    })
    .await
    .unwrap();
    assert_eq!(checked.len(), 6);
    // The application's own route still answers beside the service.
    let body = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    })
    .await
    .unwrap();
    assert!(body.starts_with("HTTP/1.1 200") && body.ends_with("ok"), "{body}");
    stop.stop().await;
    server.abort();
}

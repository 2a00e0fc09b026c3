//! The Rust API an SDK user switches to (issue 31): an asynchronous authentication hook that
//! sees the whole request, the request's tenant, metadata and configuration on the agent's
//! context and metadata on its events, fresh artifact ids, cancellation by the async idiom
//! (a future to await, the executor's `cancel`, the future dropped after the grace), agents
//! from closures, and one client value serving concurrent calls with a header provider and
//! per-call options.

use a2a_wire::card::{select_interface, Binding, ClientSupport};
use a2a_wire::client::Reply;
use a2a_wire::engine::RunId;
use a2a_wire::error::{A2aError, ErrorKind};
use a2a_wire::proto::google::protobuf::{value::Kind, Struct, Value};
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire_smol::agent::{agent_fn, agent_text, new_id, text_part, AgentExecutor, EventSink, RequestContext};
use a2a_wire_smol::client::CallOptions;
use a2a_wire_smol::host::{AuthCall, AuthHook};
use a2a_wire_smol::{demo, Client, Error, Server, ServerConfig};
use std::future::Future;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn start(config: impl FnOnce(ServerConfig) -> ServerConfig, agent: Arc<dyn AgentExecutor>) -> SocketAddr {
    smol::block_on(async {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = probe.local_addr().unwrap();
        drop(probe);
        let mut c = ServerConfig::new(demo::card(addr));
        c.log = a2a_wire::log::silent();
        let server = Server::bind(addr, config(c), agent).await.unwrap();
        smol::spawn(server.run()).detach();
        addr
    })
}

fn client(addr: SocketAddr, binding: Binding) -> Client {
    let support = ClientSupport { bindings: vec![binding], versions: vec![ProtocolVersion::V1_0] };
    Client::new(select_interface(&demo::card(addr), &support).unwrap())
}

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

fn meta(key: &str, value: &str) -> Struct {
    let mut s = Struct::default();
    s.fields.insert(key.into(), Value { kind: Some(Kind::StringValue(value.into())) });
    s
}

fn meta_str<'a>(s: Option<&'a Struct>, key: &str) -> Option<&'a str> {
    match s?.fields.get(key)?.kind.as_ref()? {
        Kind::StringValue(v) => Some(v),
        _ => None,
    }
}

fn reply_text(r: &Reply) -> String {
    match r {
        Reply::Message(m) => a2a_wire_smol::agent::message_text(m),
        Reply::Task(t) => {
            t.task().status.as_ref().and_then(|s| s.message.as_ref()).map(a2a_wire_smol::agent::message_text).unwrap_or_default()
        }
    }
}

/// One blocking HTTP/1.1 request; the status and the head's lines.
fn raw(addr: SocketAddr, head: &str, body: &str) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "{head}Host: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, out)
}

/// Who the agent says sent the message.
fn whoami() -> Arc<dyn AgentExecutor> {
    Arc::new(agent_fn(|ctx: RequestContext, events: EventSink| async move {
        let who = format!("{}@{}", ctx.principal().unwrap_or("anonymous"), ctx.tenant);
        let _ = events.message(agent_text(new_id(), &who));
    }))
}

#[test]
fn an_async_auth_hook_sees_every_header_the_path_and_the_peer_and_refuses_with_401_or_403() {
    let seen: Arc<Mutex<Vec<AuthCall>>> = Arc::default();
    let log = seen.clone();
    let hook = AuthHook::new_async(move |call: AuthCall| {
        let log = log.clone();
        async move {
            // A real hook may wait (a token service, a database): the server does not.
            smol::Timer::after(Duration::from_millis(5)).await;
            let verdict = match call.header("x-session") {
                Some("alice-session") => Ok(Some(String::from("alice"))),
                Some("banned") => Err(A2aError::with_message(ErrorKind::PermissionDenied, "banned")),
                _ => Err(A2aError::with_message(ErrorKind::Unauthenticated, "no session")),
            };
            log.lock().unwrap().push(call);
            verdict
        }
    });
    let addr = start(
        |mut c| {
            c.authenticate = Some(hook);
            c
        },
        whoami(),
    );
    smol::block_on(async {
        for binding in [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc] {
            let c = client(addr, binding.clone()).with_header("X-Session", "alice-session").with_header("X-Trace", "abc-123");
            let mut req = send("hi");
            req.tenant = "acme".into();
            let r = c.send_message(req).await.unwrap_or_else(|e| panic!("{binding:?}: {e}"));
            assert_eq!(reply_text(&r), "alice@acme", "{binding:?}: the principal and the tenant reach the agent");
            let call = seen.lock().unwrap().pop().expect("the hook was called");
            assert_eq!(call.header("x-trace"), Some("abc-123"), "{binding:?}: a header the core does not read reaches the hook");
            assert_eq!(call.header("X-TRACE"), Some("abc-123"), "header names in any case");
            assert!(call.headers.len() >= 4, "{binding:?}: every header: {:?}", call.headers);
            assert_eq!(call.http_method, "POST");
            assert!(call.peer.is_some_and(|p| p.ip().is_loopback()), "{binding:?}: the peer {:?}", call.peer);
            assert_eq!(call.call.tenant, "acme");
            match binding {
                Binding::HttpJson => assert_eq!(call.path(), "/a2a/rest/acme/message:send"),
                Binding::JsonRpc => assert_eq!(call.path(), "/a2a/jsonrpc"),
                _ => assert_eq!(call.path(), "/lf.a2a.v1.A2AService/SendMessage"),
            }
        }
    });
    let rest = "POST /a2a/rest/message:send HTTP/1.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n";
    let body = r#"{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}"#;
    let (status, out) = raw(addr, rest, body);
    assert_eq!(status, 401, "{out}");
    assert!(out.to_ascii_lowercase().contains("\r\nwww-authenticate: bearer"), "a 401 says how to authenticate: {out}");
    let (status, out) = raw(addr, &format!("{rest}X-Session: banned\r\n"), body);
    assert_eq!(status, 403, "{out}");
    assert!(out.contains("PERMISSION_DENIED") && out.contains("banned"), "{out}");
    // With the hook's principal the agent answers; the JSON-RPC binding refuses with its code.
    let rpc = "POST /a2a/jsonrpc HTTP/1.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n";
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"hi"}]}}}"#;
    let (_, out) = raw(addr, rpc, body);
    assert!(out.contains("-31401"), "{out}");
}

#[test]
fn a_panicking_or_sync_hook_is_a_refusal_or_a_verdict_and_the_server_goes_on() {
    let addr = start(
        |mut c| {
            c.authenticate = Some(AuthHook::new(|call: &AuthCall| match call.header("authorization") {
                Some("Bearer good") => Ok(Some("bob".into())),
                Some("Bearer panic") => panic!("the hook panics"),
                _ => Ok(None),
            }));
            c
        },
        whoami(),
    );
    smol::block_on(async {
        let anonymous = client(addr, Binding::JsonRpc).send_message(send("x")).await.unwrap();
        assert_eq!(reply_text(&anonymous), "anonymous@", "Ok(None) lets an anonymous caller in");
        let e = client(addr, Binding::JsonRpc).with_header("Authorization", "Bearer panic").send_message(send("x")).await.unwrap_err();
        assert_eq!(e.a2a().map(A2aError::kind), Some(ErrorKind::Internal), "{e}");
        let bob = client(addr, Binding::HttpJson).with_header("Authorization", "Bearer good").send_message(send("x")).await.unwrap();
        assert_eq!(reply_text(&bob), "bob@");
    });
}

#[test]
fn metadata_tenant_and_configuration_reach_the_agent_and_metadata_comes_back_on_events() {
    let agent = agent_fn(|ctx: RequestContext, events: EventSink| async move {
        let said = meta_str(ctx.metadata.as_ref(), "trace").unwrap_or("none").to_owned();
        let cfg = ctx.configuration.clone().unwrap_or_default();
        let seen = format!("{}|{}|{:?}|{}", ctx.tenant, ctx.accepted_output_modes().join(","), cfg.history_length, cfg.return_immediately);
        let _ = events.status_with_metadata(v1::TaskState::Working, None, Some(meta("status-of", &said)));
        let art = v1::Artifact { parts: vec![text_part(&seen)], ..Default::default() };
        let _ = events.artifact_with_metadata(art, false, true, Some(meta("artifact-of", &said)));
        let _ = events.status(v1::TaskState::Completed, None);
    });
    let addr = start(|c| c, Arc::new(agent));
    smol::block_on(async {
        for binding in [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc] {
            let mut req = send("hi");
            req.tenant = "t1".into();
            req.metadata = Some(meta("trace", "abc"));
            req.configuration = Some(v1::SendMessageConfiguration {
                accepted_output_modes: vec!["text/plain".into()],
                history_length: Some(3),
                ..Default::default()
            });
            let mut s = client(addr, binding.clone()).send_streaming_message(req).await.unwrap();
            let (mut status_meta, mut artifact_meta, mut artifact_text) = (None, None, String::new());
            while let Some(ev) = s.next().await {
                match ev.unwrap().payload {
                    Some(v1::stream_response::Payload::StatusUpdate(u)) if u.metadata.is_some() => status_meta = u.metadata,
                    Some(v1::stream_response::Payload::ArtifactUpdate(u)) => {
                        artifact_meta = u.metadata;
                        artifact_text = u
                            .artifact
                            .map(|a| a2a_wire_smol::agent::message_text(&v1::Message { parts: a.parts, ..Default::default() }))
                            .unwrap_or_default();
                    }
                    _ => {}
                }
            }
            assert_eq!(meta_str(status_meta.as_ref(), "status-of"), Some("abc"), "{binding:?}");
            assert_eq!(meta_str(artifact_meta.as_ref(), "artifact-of"), Some("abc"), "{binding:?}");
            assert_eq!(artifact_text, "t1|text/plain|Some(3)|false", "{binding:?}");
        }
    });
}

#[test]
fn two_artifacts_without_ids_stay_two() {
    let agent = agent_fn(|_ctx: RequestContext, events: EventSink| async move {
        for t in ["first", "second"] {
            let _ = events.artifact(v1::Artifact { parts: vec![text_part(t)], ..Default::default() }, false, true);
        }
        let _ = events.status(v1::TaskState::Completed, None);
    });
    let addr = start(|c| c, Arc::new(agent));
    let r = smol::block_on(client(addr, Binding::JsonRpc).send_message(send("x"))).unwrap();
    let Reply::Task(t) = r else { panic!("a task") };
    let t = t.task();
    assert_eq!(t.artifacts.len(), 2, "{:?}", t.artifacts);
    let ids: Vec<&str> = t.artifacts.iter().map(|a| a.artifact_id.as_str()).collect();
    assert_ne!(ids[0], ids[1]);
    for id in ids {
        let b = id.as_bytes();
        assert!(id.len() == 36 && b[14] == b'4' && matches!(b[19], b'8' | b'9' | b'a' | b'b'), "a UUID v4: {id}");
    }
}

/// Records what a run saw of its cancel.
#[derive(Default)]
struct Canceling {
    log: Arc<Mutex<Vec<String>>>,
}

struct Guard(Arc<Mutex<Vec<String>>>, &'static str);

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.lock().unwrap().push(format!("{} dropped", self.1));
    }
}

impl AgentExecutor for Canceling {
    fn execute(&self, ctx: RequestContext, events: EventSink) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let log = self.log.clone();
        Box::pin(async move {
            let _ = events.status(v1::TaskState::Working, None);
            if ctx.text() == "polite" {
                let _guard = Guard(log.clone(), "polite");
                use smol::future::FutureExt;
                let work = async {
                    smol::Timer::after(Duration::from_secs(30)).await;
                    "finished"
                };
                let how = work.or(async {
                    ctx.cancelled().await;
                    "woke"
                });
                let how = how.await;
                log.lock().unwrap().push(format!("polite {how}"));
            } else {
                let _guard = Guard(log.clone(), "stubborn");
                // Never looks at the cancel.
                smol::Timer::after(Duration::from_secs(30)).await;
                log.lock().unwrap().push("stubborn finished".into());
            }
        })
    }

    fn cancel(&self, run: RunId) {
        self.log.lock().unwrap().push(format!("cancel {}", run.0));
    }
}

fn wait_for(log: &Mutex<Vec<String>>, what: &str, within: Duration) -> Duration {
    let t0 = Instant::now();
    while !log.lock().unwrap().iter().any(|l| l == what) {
        assert!(t0.elapsed() < within, "{what:?} within {within:?}: {:?}", log.lock().unwrap());
        std::thread::sleep(Duration::from_millis(5));
    }
    t0.elapsed()
}

#[test]
fn cancel_wakes_the_agent_calls_its_cancel_and_drops_a_future_that_ignores_it_after_the_grace() {
    let agent = Canceling::default();
    let log = agent.log.clone();
    let addr = start(
        |mut c| {
            c.cancel_grace = Duration::from_millis(300);
            c
        },
        Arc::new(agent),
    );
    let c = client(addr, Binding::JsonRpc);
    for text in ["polite", "stubborn"] {
        let mut req = send(text);
        req.configuration = Some(v1::SendMessageConfiguration { return_immediately: true, ..Default::default() });
        let t = match smol::block_on(c.send_message(req)).unwrap() {
            Reply::Task(t) => t.task().clone(),
            other => panic!("{other:?}"),
        };
        let canceled = smol::block_on(c.cancel_task(v1::CancelTaskRequest { id: t.id.clone(), ..Default::default() })).unwrap();
        assert_eq!(canceled.status.unwrap().state, v1::TaskState::Canceled as i32);
        if text == "polite" {
            let woke = wait_for(&log, "polite woke", Duration::from_secs(5));
            assert!(woke < Duration::from_millis(250), "woken at once, not after the grace: {woke:?}");
            wait_for(&log, "polite dropped", Duration::from_secs(5));
        } else {
            let t0 = Instant::now();
            wait_for(&log, "stubborn dropped", Duration::from_secs(5));
            assert!(t0.elapsed() >= Duration::from_millis(150), "dropped after the grace, not before: {:?}", t0.elapsed());
        }
    }
    let log = log.lock().unwrap();
    assert_eq!(log.iter().filter(|l| l.starts_with("cancel ")).count(), 2, "the executor's cancel runs for each: {log:?}");
    assert!(!log.iter().any(|l| l == "stubborn finished"), "{log:?}");
}

#[test]
fn one_client_serves_concurrent_calls_asks_its_header_provider_per_call_and_takes_per_call_options() {
    let tokens: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = tokens.clone();
    let agent = agent_fn(|ctx: RequestContext, events: EventSink| async move {
        if ctx.text() == "slow" {
            smol::Timer::after(Duration::from_millis(800)).await;
        }
        let _ = events.message(agent_text(new_id(), ctx.principal().unwrap_or("")));
    });
    let addr = start(
        move |mut c| {
            c.authenticate = Some(AuthHook::new(move |call: &AuthCall| {
                let auth = call.header("authorization").unwrap_or("").to_owned();
                let extra = call.header("x-call").unwrap_or("").to_owned();
                seen.lock().unwrap().push(format!("{auth}{extra}"));
                Ok(Some(auth))
            }));
            c
        },
        Arc::new(agent),
    );
    for binding in [Binding::JsonRpc, Binding::Grpc] {
        tokens.lock().unwrap().clear();
        let counter = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let n = counter.clone();
        let c = client(addr, binding.clone()).with_header_provider(move || {
            let k = n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async move { Ok(vec![(String::from("Authorization"), format!("Bearer t{k}"))]) }
        });
        let answers: Vec<String> = smol::block_on(async {
            let calls: Vec<_> = (0..8)
                .map(|_| {
                    let c = c.clone();
                    smol::spawn(async move { c.send_message(send("x")).await.map(|r| reply_text(&r)) })
                })
                .collect();
            let mut out = Vec::new();
            for t in calls {
                out.push(t.await.unwrap());
            }
            out
        });
        assert_eq!(counter.load(std::sync::atomic::Ordering::SeqCst), 8, "{binding:?}: the provider runs before each call");
        let mut distinct = answers.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 8, "{binding:?}: each call carried its own token: {answers:?}");
        // Per-call headers and deadline, on the same connections.
        let with = c.with_call_options(CallOptions::default().header("X-Call", "+extra"));
        smol::block_on(with.send_message(send("x"))).unwrap();
        assert!(tokens.lock().unwrap().last().unwrap().ends_with("+extra"), "{binding:?}: {:?}", tokens.lock().unwrap());
        let t0 = Instant::now();
        let e =
            smol::block_on(c.with_call_options(CallOptions::timeout(Duration::from_millis(100))).send_message(send("slow"))).unwrap_err();
        assert!(e.is_timeout() && t0.elapsed() < Duration::from_millis(600), "{binding:?}: {e} after {:?}", t0.elapsed());
        // A provider that fails stops the call before anything is sent.
        let failing = client(addr, binding.clone()).with_header_provider(|| async { Err("token service down".into()) });
        let before = tokens.lock().unwrap().len();
        let e = smol::block_on(failing.send_message(send("x"))).unwrap_err();
        assert!(
            matches!(e, Error::Headers(_)) && std::error::Error::source(&e).is_some_and(|s| s.to_string() == "token service down"),
            "{e:?}"
        );
        assert_eq!(tokens.lock().unwrap().len(), before, "nothing reached the server");
    }
}

#[test]
fn errors_are_typed_with_their_source() {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = probe.local_addr().unwrap();
    drop(probe);
    let e =
        smol::block_on(client(addr, Binding::JsonRpc).get_task(v1::GetTaskRequest { id: "t".into(), ..Default::default() })).unwrap_err();
    let Error::Io(io) = &e else { panic!("a refused connection is Error::Io: {e:?}") };
    assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
    assert!(std::error::Error::source(&e).is_some());
    let addr = start(|c| c, whoami());
    let e = smol::block_on(client(addr, Binding::HttpJson).get_task(v1::GetTaskRequest { id: "nope".into(), ..Default::default() }))
        .unwrap_err();
    assert_eq!(e.a2a().map(A2aError::kind), Some(ErrorKind::TaskNotFound), "{e}");
    let source = std::error::Error::source(&e).and_then(|s| s.source()).expect("the A2A error under the client error");
    assert!(source.downcast_ref::<A2aError>().is_some_and(|a| a.kind() == ErrorKind::TaskNotFound));
}

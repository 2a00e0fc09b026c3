//! The host's reusable piece for the language bindings: a server on its own thread
//! ([`RunningServer`]) whose agent is not a Rust future — a synchronous `start` that hands the
//! run to another thread, which publishes through the sink. Also: refused events reach the
//! agent, a panicking agent fails its task and the server keeps serving, and a shutdown ends
//! streams and leaves no task behind.

use a2a_wire::card::{select_interface, Binding, ClientSupport};
use a2a_wire::client::{ClientError, Reply, TaskTracker};
use a2a_wire::engine::{MemoryStore, RunId};
use a2a_wire::error::{ErrorKind, Received};
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire_smol::agent::{agent_text, text_part, Agent, EventSink, Refused, RequestContext};
use a2a_wire_smol::demo::{self, EchoAgent};
use a2a_wire_smol::host::AgentKind;
use a2a_wire_smol::{Client, Error, RunningServer, Server, ServerConfig};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn free_addr() -> SocketAddr {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    probe.local_addr().unwrap()
}

fn artifact(id: &str, text: &str) -> v1::Artifact {
    v1::Artifact { artifact_id: id.into(), name: "echo".into(), parts: vec![text_part(text)], ..Default::default() }
}

/// What the agent learnt when it published after its task ended ("late").
type Late = Arc<Mutex<Vec<Result<(), Refused>>>>;

/// The demo agent's behaviours, run on a thread of their own per run.
#[derive(Default)]
struct ThreadAgent {
    late: Late,
    canceled: Mutex<Vec<RunId>>,
}

impl Agent for ThreadAgent {
    fn start(&self, ctx: RequestContext, events: EventSink) {
        let text = ctx.text();
        if text == "panic-now" {
            panic!("the agent's start callback panics");
        }
        let late = self.late.clone();
        std::thread::spawn(move || {
            let reply = |n: &str, t: &str| agent_text(format!("{}-{n}", ctx.message.message_id), t);
            let r: Result<(), Refused> = (|| {
                if ctx.follow_up {
                    events.artifact(artifact("echo", &text), false, true)?;
                    return events.status(v1::TaskState::Completed, None);
                }
                match text.as_str() {
                    "need-input" => events.status(v1::TaskState::InputRequired, Some(reply("question", "What should I echo?")))?,
                    "slow" => {
                        events.status(v1::TaskState::Working, None)?;
                        for (i, piece) in ["one ", "two ", "three"].iter().enumerate() {
                            std::thread::sleep(Duration::from_millis(60));
                            if ctx.cancel.is_canceled() {
                                return Ok(());
                            }
                            events.artifact(artifact("slow", piece), i > 0, i == 2)?;
                        }
                        events.status(v1::TaskState::Completed, None)?;
                    }
                    "message-only" => events.message(reply("reply", &text))?,
                    "late" => {
                        events.status(v1::TaskState::Completed, None)?;
                        // Published after the task ended: refused, and the agent learns it.
                        let _ = events.artifact(artifact("late", "too late"), false, true);
                        let first = events.wait_flushed();
                        let again = events.artifact(artifact("late", "again"), false, true);
                        late.lock().unwrap().extend([first, again]);
                    }
                    "panic-later" => {
                        events.status(v1::TaskState::Working, None)?;
                        events.fail("the agent's thread gave up");
                    }
                    _ => {
                        events.artifact(artifact("echo", &text), false, true)?;
                        events.status(v1::TaskState::Completed, None)?;
                    }
                }
                Ok(())
            })();
            let _ = r;
            events.finish();
        });
    }

    fn cancel(&self, run: RunId) {
        self.canceled.lock().unwrap().push(run);
    }
}

fn start_thread_agent() -> (RunningServer, Late) {
    let addr = free_addr();
    let agent = ThreadAgent::default();
    let late = agent.late.clone();
    let server =
        RunningServer::start(addr, ServerConfig::new(demo::card(addr)), AgentKind::Callback(Arc::new(agent)), MemoryStore::new()).unwrap();
    (server, late)
}

fn message(text: &str, task_id: Option<&str>) -> v1::SendMessageRequest {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: format!("h-{text}-{n}"),
            role: v1::Role::User as i32,
            parts: vec![text_part(text)],
            task_id: task_id.unwrap_or_default().into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn artifact_text(task: &v1::Task) -> String {
    task.artifacts
        .iter()
        .flat_map(|a| a.parts.iter())
        .filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.as_str()) } else { None })
        .collect()
}

fn clients(addr: SocketAddr) -> Vec<(String, Client)> {
    let card = demo::card(addr);
    let mut out = Vec::new();
    for binding in [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc] {
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            let support = ClientSupport { bindings: vec![binding.clone()], versions: vec![version] };
            out.push((format!("{binding:?} {version}"), Client::new(select_interface(&card, &support).unwrap())));
        }
    }
    out
}

#[test]
fn an_agent_that_is_not_a_future_serves_the_demo_behaviours_on_every_interface() {
    let (server, _agent) = start_thread_agent();
    let addr = server.local_addr();
    smol::block_on(async {
        for (what, client) in clients(addr) {
            let Reply::Task(t) = client.send_message(message("hello", None)).await.unwrap() else { panic!("{what}") };
            assert_eq!((t.state(), artifact_text(t.task()).as_str()), (Some(v1::TaskState::Completed), "hello"), "{what}");

            let Reply::Task(asked) = client.send_message(message("need-input", None)).await.unwrap() else { panic!("{what}") };
            assert_eq!(asked.state(), Some(v1::TaskState::InputRequired), "{what}");
            let id = asked.task().id.clone();
            let Reply::Task(done) = client.send_message(message("the answer", Some(&id))).await.unwrap() else { panic!("{what}") };
            assert_eq!((done.task().id.as_str(), done.state()), (id.as_str(), Some(v1::TaskState::Completed)), "{what}");

            let mut stream = client.send_streaming_message(message("slow", None)).await.unwrap();
            let mut tracker = TaskTracker::empty();
            while let Some(ev) = stream.next().await {
                tracker.on_event(&ev.unwrap_or_else(|e| panic!("{what}: {e}")), a2a_wire_smol::server::now()).unwrap();
            }
            assert_eq!(
                (tracker.state(), artifact_text(tracker.task()).as_str()),
                (Some(v1::TaskState::Completed), "one two three"),
                "{what}"
            );

            match client.send_message(message("message-only", None)).await.unwrap() {
                Reply::Message(m) => assert_eq!(m.role, v1::Role::Agent as i32, "{what}"),
                Reply::Task(_) => panic!("{what}: expected a direct message"),
            }
        }
    });
    server.stop();
}

#[test]
fn an_agent_that_publishes_after_its_task_ended_learns_it() {
    let (server, late) = start_thread_agent();
    let addr = server.local_addr();
    smol::block_on(async {
        let (_, client) = clients(addr).remove(0);
        let Reply::Task(t) = client.send_message(message("late", None)).await.unwrap() else { panic!() };
        assert_eq!(t.state(), Some(v1::TaskState::Completed));
        let deadline = Instant::now() + Duration::from_secs(5);
        while late.lock().unwrap().len() < 2 {
            assert!(Instant::now() < deadline, "the agent never heard back");
            smol::Timer::after(Duration::from_millis(10)).await;
        }
        let late = late.lock().unwrap().clone();
        for r in &late {
            let Err(Refused(e)) = r else { panic!("{late:?}") };
            assert_eq!(e.kind(), ErrorKind::InvalidAgentResponse, "{e}");
        }
        let got = client.get_task(v1::GetTaskRequest { id: t.task().id.clone(), ..Default::default() }).await.unwrap();
        assert!(got.artifacts.is_empty(), "the late artifact was not applied");
    });
    server.stop();
}

#[test]
fn a_panicking_agent_fails_its_task_and_the_server_keeps_serving() {
    let (server, _agent) = start_thread_agent();
    let addr = server.local_addr();
    smol::block_on(async {
        let (_, client) = clients(addr).remove(0);
        // A panic inside start(): the run fails before it created a task.
        let e = client.send_message(message("panic-now", None)).await.unwrap_err();
        assert!(matches!(&e, Error::A2a(ClientError::Remote(Received::A2a(a))) if a.kind() == ErrorKind::Internal), "{e}");
        // A run that fails after it started its task: the task is FAILED.
        let Reply::Task(t) = client.send_message(message("panic-later", None)).await.unwrap() else { panic!() };
        assert_eq!(t.state(), Some(v1::TaskState::Failed));
        // The server still serves.
        let Reply::Task(ok) = client.send_message(message("hello", None)).await.unwrap() else { panic!() };
        assert_eq!(ok.state(), Some(v1::TaskState::Completed));
    });
    server.stop();
}

/// A future agent that panics in its future.
struct Panics;

impl a2a_wire_smol::agent::AgentExecutor for Panics {
    fn execute(&self, ctx: RequestContext, events: EventSink) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(async move {
            let _ = events.status(v1::TaskState::Working, None);
            smol::Timer::after(Duration::from_millis(10)).await;
            if ctx.text() == "boom" {
                panic!("the agent's future panics");
            }
            let _ = events.status(v1::TaskState::Completed, None);
        })
    }
}

#[test]
fn a_panicking_future_agent_fails_its_task_too() {
    let addr = free_addr();
    let server =
        RunningServer::start(addr, ServerConfig::new(demo::card(addr)), AgentKind::Future(Arc::new(Panics)), MemoryStore::new()).unwrap();
    smol::block_on(async {
        let (_, client) = clients(addr).remove(0);
        let Reply::Task(t) = client.send_message(message("boom", None)).await.unwrap() else { panic!() };
        assert_eq!(t.state(), Some(v1::TaskState::Failed));
        let Reply::Task(t) = client.send_message(message("fine", None)).await.unwrap() else { panic!() };
        assert_eq!(t.state(), Some(v1::TaskState::Completed));
    });
    server.stop();
}

#[test]
fn shutdown_ends_open_streams_closes_idle_connections_and_leaves_no_task_running() {
    let addr = free_addr();
    smol::block_on(async {
        let mut config = ServerConfig::new(demo::card(addr));
        config.webhooks.allow_private = true;
        let agent = Arc::new(EchoAgent { chunk_delay: Duration::from_millis(300) });
        let server = Server::bind(addr, config, agent).await.unwrap();
        let handle = server.shutdown_handle();
        let running = smol::spawn(server.run());
        let mut clients = clients(addr);
        // One stream of each kind open, a kept-alive idle connection, a task left working.
        let mut streams = Vec::new();
        for (what, c) in clients.iter_mut().filter(|(w, _)| w.ends_with("1.0")) {
            let mut s = c.send_streaming_message(message("slow", None)).await.unwrap();
            assert!(s.next().await.unwrap().is_ok(), "{what}");
            streams.push((what.clone(), s));
        }
        let (_, idle) = &mut clients[0];
        assert!(matches!(idle.send_message(message("hello", None)).await.unwrap(), Reply::Task(_)));
        assert!(handle.live_tasks() > 0);
        let started = Instant::now();
        handle.shutdown();
        for (what, mut s) in streams {
            let mut last = None;
            while let Some(ev) = s.next().await {
                last = Some(ev);
            }
            // The stream ends with an Unavailable error (the client resubscribes elsewhere).
            match last {
                Some(Err(Error::A2a(ClientError::Remote(Received::A2a(e))))) => assert_eq!(e.kind(), ErrorKind::Unavailable, "{what}"),
                other => panic!("{what}: {other:?}"),
            }
        }
        smol::future::or(running, async {
            smol::Timer::after(Duration::from_secs(10)).await;
            panic!("the server did not stop");
        })
        .await;
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        assert_eq!(handle.live_tasks(), 0, "every task the server spawned has ended");
        // New connections are refused.
        assert!(smol::net::TcpStream::connect(addr).await.is_err());
    });
}

#[test]
fn a_client_that_leaves_while_it_waits_frees_its_connection_at_once() {
    let addr = free_addr();
    smol::block_on(async {
        let server = Server::bind(addr, ServerConfig::new(demo::card(addr)), Arc::new(EchoAgent::default())).await.unwrap();
        let handle = server.shutdown_handle();
        let running = smol::spawn(server.run());
        let (_, client) = clients(addr).remove(0);
        // A task waiting for input: a subscription to it gets its first event, then nothing.
        let Reply::Task(asked) = client.send_message(message("need-input", None)).await.unwrap() else { panic!() };
        let idle = handle.live_tasks();
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{{"id":"{}"}}}}"#, asked.task().id);
        let request = format!(
            "POST /a2a/jsonrpc HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\na2a-version: 1.0\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut conns = Vec::new();
        for _ in 0..20 {
            use smol::io::{AsyncReadExt, AsyncWriteExt};
            let mut s = smol::net::TcpStream::connect(addr).await.unwrap();
            s.write_all(request.as_bytes()).await.unwrap();
            let mut first = [0u8; 64];
            let n = s.read(&mut first).await.unwrap();
            assert!(String::from_utf8_lossy(&first[..n]).starts_with("HTTP/1.1 200"));
            conns.push(s);
        }
        assert!(handle.live_tasks() >= idle + 20, "{} live, {idle} before", handle.live_tasks());
        drop(conns);
        let deadline = Instant::now() + Duration::from_secs(3);
        while handle.live_tasks() > idle {
            assert!(Instant::now() < deadline, "{} tasks still live, {idle} before", handle.live_tasks());
            smol::Timer::after(Duration::from_millis(20)).await;
        }
        handle.shutdown();
        running.await;
    });
}

/// A future agent that panics before it even returns its future.
struct PanicsAtOnce;

impl a2a_wire_smol::agent::AgentExecutor for PanicsAtOnce {
    fn execute(&self, _ctx: RequestContext, _events: EventSink) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        panic!("the agent panics building its future")
    }
}

#[test]
fn an_agent_that_panics_building_its_future_fails_the_run_not_the_server() {
    let addr = free_addr();
    let server =
        RunningServer::start(addr, ServerConfig::new(demo::card(addr)), AgentKind::Future(Arc::new(PanicsAtOnce)), MemoryStore::new())
            .unwrap();
    smol::block_on(async {
        let (_, client) = clients(addr).remove(0);
        for _ in 0..2 {
            let e = client.send_message(message("hello", None)).await.unwrap_err();
            assert!(matches!(&e, Error::A2a(ClientError::Remote(Received::A2a(a))) if a.kind() == ErrorKind::Internal), "{e}");
        }
    });
    server.stop();
}

//! The store behind the server, over real sockets on 127.0.0.1: SQLite on its own thread with
//! a working set far smaller than what is stored (every read of an old task is a load), a
//! restart that reads nothing at open, lists answered by the store's query, retention on
//! every binding, and the external-store protocol through the reference store in memory.

use a2a_wire::card::{select_interface, Binding, ClientSupport};
use a2a_wire::client::{ClientError, Reply};
use a2a_wire::error::{ErrorKind, Received};
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire_smol::agent::text_part;
use a2a_wire_smol::demo;
use a2a_wire_smol::host::AgentKind;
use a2a_wire_smol::server::{concrete_addr, RunningServer};
use a2a_wire_smol::sqlite::SqliteStore;
use a2a_wire_smol::store::Store;
use a2a_wire_smol::{Client, Error, ServerConfig};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn start(store: impl Into<Store> + Send + 'static, tune: impl FnOnce(&mut ServerConfig)) -> (RunningServer, SocketAddr) {
    let addr = concrete_addr("127.0.0.1:0".parse().unwrap()).unwrap();
    let mut config = ServerConfig::new(demo::card(addr));
    config.log = Arc::new(|_, _: &str| {});
    tune(&mut config);
    let agent = AgentKind::Future(Arc::new(demo::EchoAgent::default()));
    (RunningServer::start(addr, config, agent, store).unwrap(), addr)
}

fn clients(addr: SocketAddr) -> Vec<(String, Client)> {
    let card = demo::card(addr);
    let mut out = Vec::new();
    for binding in [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc] {
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            let support = ClientSupport { bindings: vec![binding.clone()], versions: vec![version] };
            let iface = select_interface(&card, &support).unwrap();
            out.push((format!("{binding:?} {version}"), Client::new(iface)));
        }
    }
    out
}

fn message(text: &str, task_id: &str, n: usize) -> v1::SendMessageRequest {
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: format!("m-{text}-{n}-{:?}", Instant::now()),
            role: v1::Role::User as i32,
            parts: vec![text_part(text)],
            task_id: task_id.into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn send(client: &mut Client, text: &str, task_id: &str, n: usize) -> v1::Task {
    match client.send_message(message(text, task_id, n)).await.unwrap() {
        Reply::Task(t) => t.task().clone(),
        Reply::Message(m) => panic!("a direct reply: {m:?}"),
    }
}

fn state(t: &v1::Task) -> i32 {
    t.status.as_ref().map_or(0, |s| s.state)
}

fn kind_of(e: &Error) -> Option<ErrorKind> {
    match e {
        Error::A2a(ClientError::Remote(Received::A2a(a))) => Some(a.kind()),
        _ => None,
    }
}

fn temp(name: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("a2a-wire-store-test-{}-{name}", std::process::id()));
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", p.display()));
    }
    p
}

async fn list_all(client: &mut Client, filter: v1::ListTasksRequest) -> (Vec<String>, i32) {
    let mut ids = Vec::new();
    let mut req = filter;
    req.page_size = Some(7);
    loop {
        let page = client.list_tasks(req.clone()).await.unwrap();
        ids.extend(page.tasks.iter().map(|t| t.id.clone()));
        if page.next_page_token.is_empty() {
            return (ids, page.total_size);
        }
        req.page_token = page.next_page_token;
    }
}

#[test]
fn sqlite_with_a_tiny_working_set_serves_every_binding_and_a_restart_reads_nothing_at_open() {
    let path = temp("restart");
    let mut made: Vec<(String, i32)> = Vec::new();
    let input_task;
    {
        // A cache of no bytes: every task not in use is evicted, so each read is a load.
        let (server, addr) = start(SqliteStore::open(&path).unwrap(), |c| c.cache_bytes = 0);
        smol::block_on(async {
            for (what, mut client) in clients(addr) {
                for n in 0..4 {
                    let t = send(&mut client, "hello", "", n).await;
                    assert_eq!(state(&t), v1::TaskState::Completed as i32, "{what}");
                    made.push((t.id.clone(), state(&t)));
                    let got = client.get_task(v1::GetTaskRequest { id: t.id.clone(), ..Default::default() }).await.unwrap();
                    assert_eq!(got.id, t.id, "{what}: read back through the store");
                }
            }
        });
        let mut client = clients(addr).remove(0).1;
        input_task = smol::block_on(send(&mut client, "need-input", "", 99));
        assert_eq!(state(&input_task), v1::TaskState::InputRequired as i32);
        server.stop();
    }
    // The restart: the first answer comes at once, old tasks are read on demand.
    let started = Instant::now();
    let (server, addr) = start(SqliteStore::open(&path).unwrap(), |c| c.cache_bytes = 0);
    smol::block_on(async {
        let card = a2a_wire_smol::client::fetch_card(&format!("http://{addr}/.well-known/agent-card.json")).await.unwrap();
        assert!(!card.card.supported_interfaces.is_empty());
        assert!(started.elapsed() < Duration::from_secs(1), "the card answered {:?} after the start", started.elapsed());
        for (what, mut client) in clients(addr) {
            let (id, st) = &made[3];
            let got = client.get_task(v1::GetTaskRequest { id: id.clone(), ..Default::default() }).await.unwrap();
            assert_eq!((&got.id, state(&got)), (id, *st), "{what}: an old task is readable");
            // Lists page through everything the store holds, newest first, with filters
            // (ListTasks is a v1.0 operation).
            if what.ends_with("0.3") {
                continue;
            }
            let (all, total) = list_all(&mut client, v1::ListTasksRequest::default()).await;
            assert_eq!((all.len(), total), (made.len() + 1, i32::try_from(made.len() + 1).unwrap()), "{what}");
            let mut distinct = all.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), all.len(), "{what}: no task twice across pages");
            let filter = v1::ListTasksRequest { status: v1::TaskState::InputRequired as i32, ..Default::default() };
            let (waiting, total) = list_all(&mut client, filter).await;
            assert_eq!((waiting, total), (vec![input_task.id.clone()], 1), "{what}");
        }
        // A follow-up on the task from before the restart completes it.
        let mut client = clients(addr).remove(0).1;
        let done = send(&mut client, "go on", &input_task.id, 100).await;
        assert_eq!((done.id.as_str(), state(&done)), (input_task.id.as_str(), v1::TaskState::Completed as i32));
    });
    server.stop();
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
}

fn retention_on_every_binding(store: Store) {
    let (server, addr) = start(store, |c| c.retention = Some(Duration::from_secs(2)));
    smol::block_on(async {
        let mut done = Vec::new();
        let mut waiting = Vec::new();
        for (what, mut client) in clients(addr) {
            done.push((what.clone(), send(&mut client, "hello", "", 0).await.id));
            waiting.push((what, send(&mut client, "need-input", "", 1).await.id));
        }
        // Within a few seconds the completed tasks are gone; the input-required ones, of the
        // same age, stay.
        let deadline = Instant::now() + Duration::from_secs(10);
        for ((what, mut client), (_, id)) in clients(addr).into_iter().zip(&done) {
            loop {
                match client.get_task(v1::GetTaskRequest { id: id.clone(), ..Default::default() }).await {
                    Ok(_) => {
                        assert!(Instant::now() < deadline, "{what}: a completed task outlived its retention");
                        smol::Timer::after(Duration::from_millis(200)).await;
                    }
                    Err(e) => {
                        assert_eq!(kind_of(&e), Some(ErrorKind::TaskNotFound), "{what}: {e}");
                        break;
                    }
                }
            }
        }
        for ((what, mut client), (_, id)) in clients(addr).into_iter().zip(&waiting) {
            let t = client.get_task(v1::GetTaskRequest { id: id.clone(), ..Default::default() }).await.unwrap();
            assert_eq!(state(&t), v1::TaskState::InputRequired as i32, "{what}: never deleted by retention");
            // A deleted task answers as one that never existed, for every operation.
            let (_, gone) = &done[0];
            let e = client.cancel_task(v1::CancelTaskRequest { id: gone.clone(), ..Default::default() }).await.unwrap_err();
            assert_eq!(kind_of(&e), Some(ErrorKind::TaskNotFound), "{what}: {e}");
        }
        let mut client = clients(addr).remove(0).1;
        let (listed, _) = list_all(&mut client, v1::ListTasksRequest::default()).await;
        assert!(done.iter().all(|(_, id)| !listed.contains(id)), "lists no deleted task");
    });
    server.stop();
}

#[test]
fn retention_deletes_finished_tasks_and_keeps_waiting_ones_in_sqlite() {
    let path = temp("retain");
    retention_on_every_binding(SqliteStore::open(&path).unwrap().into());
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
}

#[test]
fn retention_deletes_finished_tasks_and_keeps_waiting_ones_in_memory() {
    retention_on_every_binding(a2a_wire::engine::MemoryStore::new().into());
}

#[test]
fn the_reference_external_store_serves_every_binding() {
    let (server, addr) = start(a2a_wire::engine::StoreInMemory::new(), |c| c.cache_bytes = 0);
    smol::block_on(async {
        for (what, mut client) in clients(addr) {
            let t = send(&mut client, "need-input", "", 0).await;
            let done = send(&mut client, "more", &t.id, 1).await;
            assert_eq!(state(&done), v1::TaskState::Completed as i32, "{what}");
            let e = client.get_task(v1::GetTaskRequest { id: "no-such-task".into(), ..Default::default() }).await.unwrap_err();
            assert_eq!(kind_of(&e), Some(ErrorKind::TaskNotFound), "{what}: {e}");
        }
    });
    server.stop();
}

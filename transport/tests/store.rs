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
    restart_keeps_everything(|| SqliteStore::open(&path).unwrap().into());
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
}

/// Tasks made on every binding through a store with no cache, the server restarted on
/// `open()` again: the card at once, old tasks readable, lists paging through everything
/// with a filter, a follow-up on a task from before the restart.
fn restart_keeps_everything(open: impl Fn() -> Store) {
    let mut made: Vec<(String, i32)> = Vec::new();
    let input_task;
    {
        // A cache of no bytes: every task not in use is evicted, so each read is a load.
        let (server, addr) = start(open(), |c| c.cache_bytes = 0);
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
    let (server, addr) = start(open(), |c| c.cache_bytes = 0);
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
        for ((what, client), (_, id)) in clients(addr).into_iter().zip(&done) {
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
        for ((what, client), (_, id)) in clients(addr).into_iter().zip(&waiting) {
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

// ---- PostgreSQL (`make pg-test` starts a throwaway cluster and sets A2A_PG_URL) ----------

/// A fresh database on the cluster A2A_PG_URL names, as a URL; None (the test is skipped,
/// and says so) when no cluster is given, unless A2A_PG_REQUIRED is set.
#[cfg(feature = "postgres")]
fn pg_database(name: &str) -> Option<String> {
    use sqlx::Connection as _;
    let Ok(admin) = std::env::var("A2A_PG_URL") else {
        assert!(std::env::var_os("A2A_PG_REQUIRED").is_none(), "A2A_PG_REQUIRED is set but A2A_PG_URL is not");
        eprintln!("skipped: no PostgreSQL (set A2A_PG_URL, or run `make pg-test`)");
        return None;
    };
    let db = format!("a2a_test_{}_{name}", std::process::id());
    smol::block_on(async {
        let mut c = sqlx::PgConnection::connect(&admin).await.unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {db}"))).execute(&mut c).await.unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {db}"))).execute(&mut c).await.unwrap();
    });
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
    Some(format!("{base}/{db}"))
}

#[cfg(feature = "postgres")]
mod pg {
    use super::*;
    use a2a_wire::engine::{MessageRecord, StoreReply, StoreRequest, StoreRequestId, StoredTask, TaskWrite, WriteBatch};
    use a2a_wire::proto::google::protobuf::Timestamp;
    use a2a_wire::task::TaskRecord;
    use a2a_wire_smol::postgres::PgStore;
    use a2a_wire_smol::store::ExternalStore;

    fn task(id: &str, context: &str, state: v1::TaskState) -> StoredTask {
        let t = v1::Task {
            id: id.into(),
            context_id: context.into(),
            status: Some(v1::TaskStatus {
                state: state as i32,
                timestamp: Some(Timestamp { seconds: 100, nanos: 0 }),
                ..Default::default()
            }),
            ..Default::default()
        };
        StoredTask {
            record: TaskRecord { task: t, closed_artifacts: vec!["a\nb".into()] },
            tenant: "t\u{0}é".into(),
            owner: None,
            push_configs: vec![],
            version: 1,
            last_event: 0,
        }
    }

    fn write(s: &mut PgStore, tasks: Vec<(StoredTask, u64)>, messages: Vec<(String, Option<MessageRecord>)>, at: i64) -> StoreReply {
        let tasks = tasks
            .into_iter()
            .map(|(task, base)| {
                let terminal = matches!(task.record.state(), Some(v1::TaskState::Completed));
                TaskWrite { task, base, terminal, leased: false }
            })
            .collect();
        let batch = WriteBatch { at: Timestamp { seconds: at, nanos: 0 }, tasks, messages, ..Default::default() };
        s.answer(StoreRequest::Write { id: StoreRequestId(1), batch })
    }

    fn load(s: &mut PgStore, ids: &[&str], keys: &[&str]) -> (Vec<StoredTask>, Vec<(String, MessageRecord)>) {
        let req = StoreRequest::Load {
            id: StoreRequestId(2),
            tasks: ids.iter().map(|i| i.to_string()).collect(),
            messages: keys.iter().map(|i| i.to_string()).collect(),
        };
        match s.answer(req) {
            StoreReply::Loaded { tasks, messages, .. } => (tasks, messages),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn postgres_two_servers_changing_one_task_never_lose_an_update() {
        let Some(url) = pg_database("versions") else { return };
        let (mut a, mut b) = (PgStore::open(&url).unwrap(), PgStore::open(&url).unwrap());
        let record = MessageRecord { task_id: "t1".into(), sent_task_id: "t1".into(), sent_context_id: "c\u{0}".into() };
        let r = write(&mut a, vec![(task("t1", "c\u{0}", v1::TaskState::Working), 0)], vec![("k\u{0}1".into(), Some(record.clone()))], 10);
        assert!(matches!(r, StoreReply::Written { .. }), "{r:?}");
        // The same new id from the other server: refused, and nothing of its batch written.
        let r = write(&mut b, vec![(task("t1", "other", v1::TaskState::Working), 0)], vec![("k2".into(), Some(record.clone()))], 10);
        assert!(matches!(&r, StoreReply::Conflict { tasks, .. } if tasks == &["t1".to_string()]), "{r:?}");
        // Both based on version 1: the first write wins, the second is refused.
        let mut first = task("t1", "c\u{0}", v1::TaskState::Completed);
        first.version = 2;
        let mut second = task("t1", "c\u{0}", v1::TaskState::Failed);
        second.version = 2;
        assert!(matches!(write(&mut a, vec![(first, 1)], vec![], 11), StoreReply::Written { .. }));
        assert!(matches!(write(&mut b, vec![(second, 1)], vec![], 11), StoreReply::Conflict { .. }));
        let (tasks, messages) = load(&mut b, &["t1", "nope"], &["k\u{0}1", "k2"]);
        assert_eq!(tasks.len(), 1);
        assert_eq!((tasks[0].version, tasks[0].record.state()), (2, Some(v1::TaskState::Completed)));
        assert_eq!(tasks[0].tenant, "t\u{0}é", "a tenant with U+0000 and non-ASCII comes back as it was");
        assert_eq!(tasks[0].record.closed_artifacts, vec!["a\nb".to_string()]);
        assert_eq!(messages, vec![("k\u{0}1".to_string(), record)], "the refused batch's message id was not kept");
    }

    #[test]
    fn postgres_servers_starting_at_once_create_the_schema_once_and_a_newer_one_is_refused() {
        let Some(url) = pg_database("schema") else { return };
        let opened: Vec<_> = (0..4)
            .map(|_| {
                let url = url.clone();
                std::thread::spawn(move || PgStore::open(&url).map(|_| ()))
            })
            .collect();
        for t in opened {
            t.join().unwrap().unwrap();
        }
        smol::block_on(async {
            use sqlx::Connection as _;
            let mut c = sqlx::PgConnection::connect(&url).await.unwrap();
            sqlx::query("UPDATE a2a_meta SET value = 99 WHERE key = 'schema'").execute(&mut c).await.unwrap();
        });
        let e = PgStore::open(&url).unwrap_err();
        assert!(e.0.contains("schema version 99"), "{}", e.0);
        // An unreachable database is an error at open, not a hang.
        let started = Instant::now();
        let e = PgStore::open("postgres://postgres:secret@127.0.0.1:1/none").unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
        assert!(!e.0.contains("secret"), "the password is not shown: {}", e.0);
    }

    #[test]
    fn postgres_expiry_deletes_terminal_tasks_with_their_message_ids_and_open_returns_unfinished_ones() {
        let Some(url) = pg_database("expiry") else { return };
        let mut s = PgStore::open(&url).unwrap();
        let m =
            |t: &str| (format!("m-{t}"), Some(MessageRecord { task_id: t.into(), sent_task_id: t.into(), sent_context_id: "c".into() }));
        let r = write(
            &mut s,
            vec![
                (task("old", "c", v1::TaskState::Completed), 0),
                (task("wait", "c", v1::TaskState::InputRequired), 0),
                (task("run", "c", v1::TaskState::Working), 0),
            ],
            vec![m("old"), m("wait")],
            10,
        );
        assert!(matches!(r, StoreReply::Written { .. }), "{r:?}");
        let r = s.answer(StoreRequest::Expire { id: StoreRequestId(3), before: Timestamp { seconds: 20, nanos: 0 }, limit: 10 });
        assert!(matches!(&r, StoreReply::Expired { tasks, .. } if tasks == &["old".to_string()]), "{r:?}");
        let (tasks, messages) = load(&mut s, &["old", "wait", "run"], &["m-old", "m-wait"]);
        assert_eq!(tasks.iter().map(|t| t.record.task.id.as_str()).collect::<Vec<_>>().len(), 2);
        assert_eq!(messages.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["m-wait"]);
        drop(s);
        let mut s = PgStore::open(&url).unwrap();
        let StoreReply::Opened { unfinished, .. } = s.answer(StoreRequest::Open { id: StoreRequestId(4) }) else { panic!() };
        assert_eq!(unfinished.iter().map(|t| t.record.task.id.as_str()).collect::<Vec<_>>(), ["run"]);
        assert_eq!(s.count().unwrap(), 2);
    }

    #[test]
    fn postgres_with_a_tiny_working_set_serves_every_binding_and_a_restart_reads_nothing_at_open() {
        let Some(url) = pg_database("restart") else { return };
        restart_keeps_everything(|| PgStore::open(&url).unwrap().into());
    }

    /// Takes a stream to its end: each event with the id it came with.
    async fn drain(s: &mut a2a_wire_smol::EventStream) -> Vec<(Option<String>, v1::StreamResponse)> {
        let mut out = Vec::new();
        while let Some(ev) = s.next().await {
            out.push((s.last_event_id().map(String::from), ev.unwrap()));
        }
        out
    }

    fn final_state(events: &[(Option<String>, v1::StreamResponse)]) -> Option<i32> {
        events.iter().rev().find_map(|(_, e)| match &e.payload {
            Some(v1::stream_response::Payload::StatusUpdate(u)) => u.status.as_ref().map(|s| s.state),
            _ => None,
        })
    }

    /// A SubscribeToTask with `Last-Event-ID` over plain HTTP (JSON-RPC, SSE): the ids of the
    /// events the server sends before it closes.
    fn resume_raw(addr: SocketAddr, task: &str, last: &str) -> Vec<String> {
        use std::io::{Read, Write};
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{{"id":"{task}"}}}}"#);
        let mut c = std::net::TcpStream::connect(addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        write!(
            c,
            "POST {} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n\
             A2A-Version: 1.0\r\nLast-Event-ID: {last}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            demo::paths::JSONRPC,
            body.len()
        )
        .unwrap();
        let mut text = String::new();
        c.read_to_string(&mut text).unwrap();
        text.lines().filter_map(|l| l.strip_prefix("id:")).map(|id| id.trim().to_string()).collect()
    }

    #[test]
    fn postgres_events_reach_a_subscriber_on_another_server_and_resume_there_with_the_same_ids() {
        let Some(url) = pg_database("events") else { return };
        let (_a, addr_a) = start(PgStore::open(&url).unwrap(), |_| {});
        let (_b, addr_b) = start(PgStore::open(&url).unwrap(), |_| {});
        smol::block_on(async {
            let (ca, cb) = (clients(addr_a).remove(0).1, clients(addr_b).remove(0).1);
            let mut sa = ca.send_streaming_message(message("ticks 8 100", "", 0)).await.unwrap();
            let first = sa.next().await.unwrap().unwrap();
            let Some(v1::stream_response::Payload::Task(t)) = first.payload else { panic!("{first:?}") };
            let mut sb = cb.subscribe_to_task(v1::SubscribeToTaskRequest { id: t.id.clone(), ..Default::default() }).await.unwrap();
            let (on_a, on_b) = smol::future::zip(drain(&mut sa), drain(&mut sb)).await;
            assert_eq!(final_state(&on_a), Some(v1::TaskState::Completed as i32));
            assert_eq!(final_state(&on_b), Some(v1::TaskState::Completed as i32), "B's subscriber sees the end: {on_b:?}");
            // B's subscriber started later (its Task first), then took the same events with
            // the same ids as A's, once each, in order.
            let updates = |s: &[(Option<String>, v1::StreamResponse)]| {
                s.iter().filter(|(_, e)| !matches!(e.payload, Some(v1::stream_response::Payload::Task(_)))).cloned().collect::<Vec<_>>()
            };
            let (ua, ub) = (updates(&on_a), updates(&on_b));
            assert!(!ub.is_empty() && ua.ends_with(&ub), "B: {ub:?}\nA: {ua:?}");
            // A client that saw A's third update comes back to B with its id: B replays
            // exactly the updates after it, from the database.
            let third = ua[2].0.clone().expect("ids");
            let replayed = smol::unblock({
                let id = t.id.clone();
                move || resume_raw(addr_b, &id, &third)
            })
            .await;
            let expected: Vec<String> = ua[3..].iter().map(|(id, _)| id.clone().unwrap()).collect();
            assert_eq!(replayed, expected);
        });
    }

    #[test]
    fn postgres_a_cancel_on_one_server_stops_the_run_on_another() {
        let Some(url) = pg_database("cancel") else { return };
        let (_a, addr_a) = start(PgStore::open(&url).unwrap(), |_| {});
        let (_b, addr_b) = start(PgStore::open(&url).unwrap(), |_| {});
        smol::block_on(async {
            let (ca, cb) = (clients(addr_a).remove(0).1, clients(addr_b).remove(0).1);
            let mut sa = ca.send_streaming_message(message("ticks 200 50", "", 0)).await.unwrap();
            let first = sa.next().await.unwrap().unwrap();
            let Some(v1::stream_response::Payload::Task(t)) = first.payload else { panic!("{first:?}") };
            smol::Timer::after(Duration::from_millis(300)).await;
            let started = Instant::now();
            let canceled = cb.cancel_task(v1::CancelTaskRequest { id: t.id.clone(), ..Default::default() }).await.unwrap();
            assert_eq!(state(&canceled), v1::TaskState::Canceled as i32);
            let rest = drain(&mut sa).await;
            assert_eq!(final_state(&rest), Some(v1::TaskState::Canceled as i32), "A's stream ends with the cancel: {rest:?}");
            assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
            // The run stopped: the task stays canceled, its artifact no longer grows.
            let ticks = |t: &v1::Task| t.artifacts.iter().map(|a| a.parts.len()).sum::<usize>();
            let then = ca.get_task(v1::GetTaskRequest { id: t.id.clone(), ..Default::default() }).await.unwrap();
            smol::Timer::after(Duration::from_millis(300)).await;
            let now = cb.get_task(v1::GetTaskRequest { id: t.id.clone(), ..Default::default() }).await.unwrap();
            assert_eq!(state(&now), v1::TaskState::Canceled as i32);
            assert_eq!(ticks(&now), ticks(&then));
        });
    }

    #[test]
    fn postgres_retention_deletes_finished_tasks_and_keeps_waiting_ones() {
        let Some(url) = pg_database("retain") else { return };
        retention_on_every_binding(PgStore::open(&url).unwrap().into());
    }
}

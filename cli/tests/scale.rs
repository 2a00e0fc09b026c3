//! State that outgrows memory, on `a2a-wire serve --store FILE` as a separate process (so
//! that its resident memory is its own): a store of 300,000 tasks written through the store
//! API opens at once, memory stays under the cache plus a base, old tasks and every page of
//! every filter are answered by the store; under a bounded load of new tasks memory levels
//! off and the WAL stays bounded.
//!
//! The base is [`BASE_MIB`]: what the server process holds besides the task cache (code,
//! the allocator's arenas, SQLite's page cache of 2 MiB, connection buffers). The figures
//! each run measured are printed (`cargo test -p a2a-wire-cli --test scale -- --nocapture`).

use a2a_wire::card::{select_interface, Binding, ClientSupport};
use a2a_wire::client::Reply;
use a2a_wire::engine::{StoreReply, StoreRequest, StoreRequestId, StoredTask, TaskWrite, WriteBatch};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::task::TaskRecord;
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire_smol::agent::text_part;
use a2a_wire_smol::store::ExternalStore;
use a2a_wire_smol::{demo, Client};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

mod common;
use common::{free_addr, Served, BIN};

/// What `a2a-wire serve` holds besides its task cache, in MiB (see the module docs).
const BASE_MIB: u64 = 48;
const STORED: usize = 300_000;
const CONTEXTS: usize = 1_000;

/// The two tests measure memory and time: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn temp_store(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("a2a-wire-scale-{}-{name}.db", std::process::id()));
    remove_store(&p);
    p
}

fn remove_store(p: &Path) {
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", p.display()));
    }
}

fn file_size(p: impl AsRef<Path>) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

fn wal_size(p: &Path) -> u64 {
    file_size(format!("{}-wal", p.display()))
}

/// The resident memory of process `pid`, in bytes (VmRSS).
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}

fn client(addr: SocketAddr, binding: Binding) -> Client {
    let support = ClientSupport { bindings: vec![binding], versions: vec![ProtocolVersion::V1_0] };
    Client::new(select_interface(&demo::card(addr), &support).unwrap())
}

fn spawn_serve(addr: SocketAddr, store: &Path, cache_mb: u64) -> Served {
    let child = Command::new(BIN)
        .args(["serve", "--addr", &addr.to_string(), "--cache-mb", &cache_mb.to_string(), "--store"])
        .arg(store)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Served(child)
}

const T0: i64 = 1_700_000_000;

fn state_of(i: usize) -> v1::TaskState {
    match i % 10 {
        0 => v1::TaskState::InputRequired,
        1 => v1::TaskState::Canceled,
        _ => v1::TaskState::Completed,
    }
}

/// Task `i` of the big store, as the echo agent would have left it: a second apart, in
/// [`CONTEXTS`] contexts, one in ten waiting for input.
fn stored_task(i: usize) -> StoredTask {
    let id = format!("task-{i:06}");
    let context_id = format!("ctx-{}", i % CONTEXTS);
    let message = |role: v1::Role, text: String| v1::Message {
        message_id: format!("{id}-{}", role as i32),
        role: role as i32,
        parts: vec![text_part(&text)],
        task_id: id.clone(),
        context_id: context_id.clone(),
        ..Default::default()
    };
    let task = v1::Task {
        id: id.clone(),
        context_id: context_id.clone(),
        status: Some(v1::TaskStatus {
            state: state_of(i) as i32,
            timestamp: Some(Timestamp { seconds: T0 + i as i64, nanos: 0 }),
            ..Default::default()
        }),
        history: vec![message(v1::Role::User, format!("hello number {i}")), message(v1::Role::Agent, format!("echo: hello number {i}"))],
        artifacts: vec![v1::Artifact {
            artifact_id: format!("{id}-echo"),
            name: "echo".into(),
            parts: vec![text_part(&format!("hello number {i}"))],
            ..Default::default()
        }],
        ..Default::default()
    };
    StoredTask { record: TaskRecord::new(task), tenant: String::new(), owner: None, push_configs: Vec::new(), version: 1, last_event: 0 }
}

/// Writes [`STORED`] tasks into the SQLite file through the store API, in batches.
fn fill(path: &Path) {
    let mut store = a2a_wire_smol::sqlite::SqliteStore::open(path).unwrap();
    let at = Timestamp { seconds: T0 + STORED as i64, nanos: 0 };
    for (n, start) in (0..STORED).step_by(10_000).enumerate() {
        let tasks = (start..(start + 10_000).min(STORED))
            .map(|i| {
                let terminal = state_of(i) != v1::TaskState::InputRequired;
                TaskWrite { task: stored_task(i), base: 0, terminal, leased: false }
            })
            .collect();
        let batch = WriteBatch { at, tasks, ..Default::default() };
        let reply = ExternalStore::answer(&mut store, StoreRequest::Write { id: StoreRequestId(n as u64), batch });
        assert!(matches!(reply, StoreReply::Written { .. }), "{reply:?}");
    }
    assert_eq!(store.count().unwrap(), STORED as u64);
}

/// Pages through ListTasks with `filter` (100 a page): the ids in order and the total the
/// pages gave.
async fn list_all(client: &mut Client, filter: v1::ListTasksRequest) -> (Vec<String>, i32) {
    let mut req = filter;
    req.page_size = Some(100);
    let mut ids = Vec::new();
    let mut total = None;
    loop {
        let page = client.list_tasks(req.clone()).await.unwrap();
        assert!(page.tasks.len() <= 100);
        ids.extend(page.tasks.iter().map(|t| t.id.clone()));
        assert_eq!(*total.get_or_insert(page.total_size), page.total_size, "every page gives the same total");
        if page.next_page_token.is_empty() {
            return (ids, page.total_size);
        }
        req.page_token = page.next_page_token;
    }
}

/// The ids of the stored tasks `pick` selects, newest first (the order of ListTasks).
fn expected(pick: impl Fn(usize) -> bool) -> Vec<String> {
    (0..STORED).rev().filter(|i| pick(*i)).map(|i| format!("task-{i:06}")).collect()
}

#[test]
fn a_store_of_300k_tasks_opens_at_once_in_bounded_memory_and_lists_every_page() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let path = temp_store("300k");
    let filled = Instant::now();
    fill(&path);
    println!("scale: {STORED} tasks written through the store API in {:?}; file {:.1} MiB", filled.elapsed(), mib(file_size(&path)));

    let cache_mb = 16;
    let addr = free_addr();
    let started = Instant::now();
    let server = spawn_serve(addr, &path, cache_mb);
    let pid = server.0.id();
    smol::block_on(async {
        // The first request: the oldest task, read from the store.
        let mut c = client(addr, Binding::JsonRpc);
        let oldest = loop {
            match c.get_task(v1::GetTaskRequest { id: "task-000000".into(), ..Default::default() }).await {
                Ok(t) => break t,
                Err(_) if started.elapsed() < Duration::from_secs(20) => smol::Timer::after(Duration::from_millis(5)).await,
                Err(e) => panic!("the server did not answer: {e}"),
            };
        };
        let first = started.elapsed();
        println!("scale: first answer {first:?} after the start; resident memory then {:.1} MiB", mib(rss(pid)));
        assert!(first < Duration::from_secs(1), "the first request was answered {first:?} after the start");
        assert_eq!(oldest.status.as_ref().map(|s| s.state), Some(v1::TaskState::InputRequired as i32));
        assert_eq!(oldest.history.len(), 2, "the old task with its history");
        assert_eq!(oldest.artifacts.len(), 1, "and its artifact");

        // Every page of every filter, from the store's indexes.
        let paging = Instant::now();
        let (all, total) = list_all(&mut c, v1::ListTasksRequest::default()).await;
        assert_eq!(total, STORED as i32);
        assert!(all == expected(|_| true), "every task once, newest first");
        let waiting = v1::ListTasksRequest { status: v1::TaskState::InputRequired as i32, ..Default::default() };
        let (ids, total) = list_all(&mut c, waiting).await;
        assert_eq!((ids.len(), total), (STORED / 10, (STORED / 10) as i32));
        assert!(ids == expected(|i| state_of(i) == v1::TaskState::InputRequired));
        let context = v1::ListTasksRequest { context_id: "ctx-7".into(), status: v1::TaskState::Completed as i32, ..Default::default() };
        let (ids, total) = list_all(&mut c, context).await;
        assert_eq!(ids, expected(|i| i % CONTEXTS == 7 && state_of(i) == v1::TaskState::Completed));
        assert_eq!(total as usize, ids.len());
        let recent = v1::ListTasksRequest {
            status_timestamp_after: Some(Timestamp { seconds: T0 + (STORED - 250) as i64, nanos: 0 }),
            ..Default::default()
        };
        let (ids, _) = list_all(&mut c, recent).await;
        assert_eq!(ids, expected(|i| i >= STORED - 250));
        println!("scale: every page of four filters in {:?}", paging.elapsed());

        // Old tasks all over the store, read on every binding: each a load, the cache full.
        for binding in [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc] {
            let c = client(addr, binding.clone());
            for i in (0..STORED).step_by(STORED / 2_000) {
                let t = c.get_task(v1::GetTaskRequest { id: format!("task-{i:06}"), ..Default::default() }).await.unwrap();
                assert_eq!((t.id, t.context_id), (format!("task-{i:06}"), format!("ctx-{}", i % CONTEXTS)), "{binding:?}");
            }
        }
    });
    let resident = rss(pid);
    let bound = (cache_mb + BASE_MIB) << 20;
    println!("scale: resident memory after paging and 6,000 reads: {:.1} MiB (bound {} MiB)", mib(resident), cache_mb + BASE_MIB);
    assert!(resident < bound, "resident memory {:.1} MiB over --cache-mb {cache_mb} plus the base {BASE_MIB}", mib(resident));
    drop(server);
    remove_store(&path);
}

#[test]
fn under_a_bounded_load_of_new_tasks_memory_levels_off_and_the_wal_stays_bounded() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let path = temp_store("load");
    let addr = free_addr();
    let cache_mb = 4;
    let server = spawn_serve(addr, &path, cache_mb);
    let pid = server.0.id();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "the server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    // 8 connections, each sending its share of new tasks; memory and the WAL sampled after
    // each round.
    const CONNECTIONS: usize = 8;
    const ROUNDS: usize = 8;
    const PER_ROUND: usize = 600; // per connection: 8 x 8 x 600 = 38,400 tasks
    let mut samples = Vec::new();
    let mut wal_max = 0;
    let began = Instant::now();
    for round in 0..ROUNDS {
        let threads: Vec<_> = (0..CONNECTIONS)
            .map(|conn| {
                std::thread::spawn(move || {
                    smol::block_on(async {
                        let c = client(addr, Binding::JsonRpc);
                        for n in 0..PER_ROUND {
                            let req = v1::SendMessageRequest {
                                message: Some(v1::Message {
                                    message_id: format!("load-{round}-{conn}-{n}"),
                                    role: v1::Role::User as i32,
                                    parts: vec![text_part("hello")],
                                    ..Default::default()
                                }),
                                ..Default::default()
                            };
                            match c.send_message(req).await.unwrap() {
                                Reply::Task(t) => {
                                    assert_eq!(t.task().status.as_ref().map(|s| s.state), Some(v1::TaskState::Completed as i32))
                                }
                                Reply::Message(m) => panic!("a direct reply: {m:?}"),
                            }
                        }
                    })
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        wal_max = wal_max.max(wal_size(&path));
        samples.push(rss(pid));
    }
    let sent = CONNECTIONS * ROUNDS * PER_ROUND;
    let figures: Vec<String> = samples.iter().map(|r| format!("{:.1}", mib(*r))).collect();
    println!(
        "load: {sent} new tasks in {:?} on {CONNECTIONS} connections; resident MiB after each round: {}; WAL at most {:.1} MiB, database {:.1} MiB",
        began.elapsed(),
        figures.join(" "),
        mib(wal_max),
        mib(file_size(&path)),
    );
    // Levelled off: the second half of the load adds (almost) nothing, and the whole stays
    // under the cache plus the base.
    let half = samples[ROUNDS / 2 - 1];
    let last = *samples.last().unwrap();
    assert!(last <= half + (4 << 20), "resident memory grew from {:.1} MiB to {:.1} MiB in the second half", mib(half), mib(last));
    assert!(last < (cache_mb + BASE_MIB) << 20, "resident memory {:.1} MiB", mib(last));
    assert!(wal_max < 64 << 20, "the WAL reached {:.1} MiB", mib(wal_max));
    // Everything sent is stored.
    drop(server);
    let store = a2a_wire_smol::sqlite::SqliteStore::open(&path).unwrap();
    assert_eq!(store.count().unwrap(), sent as u64);
    drop(store);
    assert!(wal_size(&path) < 64 << 20, "after the restart the WAL is {:.1} MiB", mib(wal_size(&path)));
    remove_store(&path);
}

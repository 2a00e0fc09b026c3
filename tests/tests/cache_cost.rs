//! The working set's bound is in bytes of memory: what `Cache::task_cost` counts for a task
//! is checked against the heap the task really takes, measured by a counting allocator (each
//! block rounded as the system allocator rounds it).

use a2a_wire::engine::{Cache, StoredTask};
use a2a_wire::proto::google::protobuf::{value::Kind, Struct, Timestamp, Value};
use a2a_wire::task::TaskRecord;
use a2a_wire::v1;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

fn block(n: usize) -> isize {
    (((n + 15) & !15) + 16) as isize
}

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(block(l.size()), Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(block(l.size()), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        LIVE.fetch_add(block(n) - block(l.size()), Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn text(s: &str) -> v1::Part {
    v1::Part { content: Some(v1::part::Content::Text(s.into())), ..Default::default() }
}

fn message(i: usize, role: v1::Role, words: &str) -> v1::Message {
    v1::Message {
        message_id: format!("9b2f6a4e-1c0d-4e8b-a1f3-{i:012}"),
        context_id: format!("c0ffee00-1c0d-4e8b-a1f3-{i:012}"),
        task_id: format!("7a5e1d3c-1c0d-4e8b-a1f3-{i:012}"),
        role: role as i32,
        parts: vec![text(words)],
        ..Default::default()
    }
}

/// A task as an echo agent leaves it (the benchmark's), with a little metadata.
fn task(i: usize) -> StoredTask {
    let mut fields = std::collections::BTreeMap::new();
    fields.insert("source".to_string(), Value { kind: Some(Kind::StringValue("bench".into())) });
    fields.insert("n".to_string(), Value { kind: Some(Kind::NumberValue(i as f64)) });
    let task = v1::Task {
        id: format!("7a5e1d3c-1c0d-4e8b-a1f3-{i:012}"),
        context_id: format!("c0ffee00-1c0d-4e8b-a1f3-{i:012}"),
        status: Some(v1::TaskStatus {
            state: v1::TaskState::Completed as i32,
            message: None,
            timestamp: Some(Timestamp { seconds: 1_800_000_000, nanos: 5 }),
        }),
        artifacts: vec![v1::Artifact { artifact_id: format!("artifact-{i}"), parts: vec![text("echo: hello")], ..Default::default() }],
        history: vec![message(i, v1::Role::User, "hello"), message(i + 1, v1::Role::Agent, "working on it")],
        metadata: Some(Struct { fields }),
    };
    StoredTask {
        record: TaskRecord { task, closed_artifacts: vec![] },
        tenant: String::new(),
        owner: Some("alice".into()),
        push_configs: vec![],
        version: 1,
        last_event: 0,
    }
}

#[test]
fn the_cost_of_a_task_is_close_to_the_memory_it_takes() {
    const N: usize = 2000;
    let before = LIVE.load(Ordering::Relaxed);
    let mut held = Vec::with_capacity(N);
    for i in 0..N {
        held.push(task(i));
    }
    let measured = LIVE.load(Ordering::Relaxed) - before;
    let counted: usize = held.iter().map(Cache::task_cost).sum();
    let measured = usize::try_from(measured).unwrap();
    // The count covers the task's heap and the value itself (both measured here) plus the
    // cache's bookkeeping (not measured here): at least what was measured, and not twice it.
    eprintln!("{N} tasks: counted {counted} bytes, measured {measured}");
    assert!(counted >= measured, "counted {counted} bytes < measured {measured}");
    assert!(counted < measured * 2, "counted {counted} bytes, measured {measured}");
    // The protobuf size, what the bound counted before, is several times short of it.
    use prost::Message as _;
    let encoded: usize = held.iter().map(|t| t.record.task.encoded_len()).sum();
    assert!(encoded * 2 < measured, "encoded {encoded}, measured {measured}");
}

//! Task engine throughput in memory (no IO): SendMessage -> the agent completes the task ->
//! GetTask, the whole cycle per iteration, outputs drained as a server would.

use a2a_wire::engine::{AgentEvent, CallContext, CallId, Engine, EngineConfig, MemoryStore, Output, Request};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::v1;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Engines are replaced every this many cycles, so the store stays at a realistic size.
const CYCLES_PER_ENGINE: u64 = 10_000;

fn cycle(engine: &mut Engine<MemoryStore>, n: u64) {
    let now = Timestamp { seconds: 1_800_000_000 + n as i64, nanos: 0 };
    let message = v1::Message {
        message_id: format!("m-{n}"),
        role: v1::Role::User as i32,
        parts: vec![v1::Part { content: Some(v1::part::Content::Text(format!("hello bench {n}"))), ..Default::default() }],
        ..Default::default()
    };
    engine.handle_call(
        CallId(2 * n),
        CallContext::default(),
        Request::SendMessage(v1::SendMessageRequest { message: Some(message), ..Default::default() }),
        now,
    );
    let mut task_id = String::new();
    let mut run = None;
    while let Some(o) = engine.poll_output() {
        if let Output::Execute(e) = o {
            task_id = e.task_id;
            run = Some(e.id);
        }
    }
    let run = run.expect("the message started a run");
    let reply = v1::Message {
        message_id: format!("r-{n}"),
        role: v1::Role::Agent as i32,
        parts: vec![v1::Part { content: Some(v1::part::Content::Text(format!("echo: hello bench {n}"))), ..Default::default() }],
        ..Default::default()
    };
    let artifact = v1::Artifact { artifact_id: "echo".into(), parts: reply.parts.clone(), ..Default::default() };
    engine.handle_agent(run, AgentEvent::Artifact { artifact, append: false, last_chunk: true }, now).unwrap();
    engine
        .handle_agent(
            run,
            AgentEvent::Status(v1::TaskStatus { state: v1::TaskState::Completed as i32, message: Some(reply), timestamp: None }),
            now,
        )
        .unwrap();
    while let Some(o) = engine.poll_output() {
        black_box(o);
    }
    engine.handle_call(
        CallId(2 * n + 1),
        CallContext::default(),
        Request::GetTask(v1::GetTaskRequest { id: task_id, ..Default::default() }),
        now,
    );
    while let Some(o) = engine.poll_output() {
        black_box(o);
    }
}

fn engine_cycles(c: &mut Criterion) {
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(1));
    g.bench_function("send_complete_get_cycle", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut done = 0;
            while done < iters {
                let batch = (iters - done).min(CYCLES_PER_ENGINE);
                let mut engine = Engine::new(EngineConfig::default(), MemoryStore::new(), 1);
                let start = Instant::now();
                for n in 0..batch {
                    cycle(&mut engine, n);
                }
                total += start.elapsed();
                drop(engine);
                done += batch;
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, engine_cycles);
criterion_main!(benches);

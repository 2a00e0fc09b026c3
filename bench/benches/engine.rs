//! Task engine throughput in memory (no IO): SendMessage -> the agent completes the task ->
//! GetTask, the whole cycle per iteration, outputs drained as a server would.

use a2a_wire::engine::{Engine, EngineConfig, MemoryStore};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::time::{Duration, Instant};

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Engines are replaced every this many cycles, so the store stays at a realistic size.
const CYCLES_PER_ENGINE: u64 = 10_000;

/// The cycle with `config`: engines replaced every [`CYCLES_PER_ENGINE`] cycles.
fn bench_cycles(c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, name: &str, config: fn() -> EngineConfig) {
    c.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut done = 0;
            while done < iters {
                let batch = (iters - done).min(CYCLES_PER_ENGINE);
                let mut engine = Engine::new(config(), MemoryStore::new(), 1);
                let start = Instant::now();
                for n in 0..batch {
                    a2a_wire_bench::engine_cycle(&mut engine, n);
                }
                total += start.elapsed();
                drop(engine);
                done += batch;
            }
            total
        })
    });
}

fn engine_cycles(c: &mut Criterion) {
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(1));
    bench_cycles(&mut g, "send_complete_get_cycle", EngineConfig::default);
    // The same keeping no events for `Last-Event-ID` resumes (ids are still numbered): what
    // copying every published event into the log costs.
    bench_cycles(&mut g, "send_complete_get_cycle/event_log_off", a2a_wire_bench::engine_without_event_log);
    g.finish();
}

criterion_group!(benches, engine_cycles);
criterion_main!(benches);

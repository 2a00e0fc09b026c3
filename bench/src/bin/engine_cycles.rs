//! `engine-cycles N [--no-event-log]`: N engine cycles (SendMessage, the agent's artifact and
//! completion, GetTask) on fresh engines of 10,000 tasks each, for instruction counts under
//! `valgrind --tool=callgrind` (repeatable on a busy machine, unlike times). BENCHMARKS.md
//! compares the default engine with one that keeps no events for `Last-Event-ID` resumes.

use a2a_wire::engine::{Engine, EngineConfig, MemoryStore};

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (n, off) = match args.as_slice() {
        [n] => (n.parse::<u64>()?, false),
        [n, flag] if flag == "--no-event-log" => (n.parse::<u64>()?, true),
        _ => return Err("usage: engine-cycles N [--no-event-log]".into()),
    };
    let config = || if off { a2a_wire_bench::engine_without_event_log() } else { EngineConfig::default() };
    let mut engine = Engine::new(config(), MemoryStore::new(), 1);
    for i in 0..n {
        if i > 0 && i % 10_000 == 0 {
            engine = Engine::new(config(), MemoryStore::new(), 1);
        }
        a2a_wire_bench::engine_cycle(&mut engine, i % 10_000);
    }
    Ok(())
}

//! Decode + validate + encode of one message in a loop, timed: the Rust side of the C
//! boundary benchmark (bench/c/run.py runs it interleaved with bench/c/codec_loop.c).
//!
//!     codec-loop --write-wire VECTOR.json OUT     # the vector's wire bytes, compact, to OUT
//!     codec-loop WIRE_FILE ITERATIONS             # prints {"ns_per_op": ...}

use a2a_wire::codec::json;
use a2a_wire::v1;
use std::hint::black_box;
use std::time::Instant;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() == 3 && args[0] == "--write-wire" {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&args[1])?)?;
        std::fs::write(&args[2], serde_json::to_vec(&v["wire"])?)?;
        return Ok(());
    }
    let [wire_path, n] = args.as_slice() else {
        return Err("usage: codec-loop WIRE_FILE ITERATIONS | --write-wire VECTOR OUT".into());
    };
    let wire = std::fs::read(wire_path)?;
    let n: u64 = n.parse()?;
    let mut out = Vec::with_capacity(wire.len() * 2);
    let start = Instant::now();
    for _ in 0..n {
        let task: v1::Task = json::decode(black_box(&wire))?;
        out.clear();
        json::encode_into(&task, &mut out)?;
        black_box(&out);
    }
    let ns = start.elapsed().as_nanos() as f64 / n as f64;
    println!("{{\"impl\":\"rust\",\"ns_per_op\":{ns:.1},\"bytes_out\":{}}}", out.len());
    Ok(())
}

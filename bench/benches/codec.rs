//! Codec throughput on the representative 8 KB v1.0 Task (`tests/vectors/bench/sample_task.json`):
//! typed ProtoJSON decode + re-encode and protobuf decode + re-encode, next to the floor, a
//! serde_json scan of the same bytes into `IgnoredAny` (parses and validates the JSON,
//! builds nothing).

use a2a_wire::{codec, v1};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn sample_task(c: &mut Criterion) {
    let json = a2a_wire_bench::vector_wire("bench/sample_task.json");
    let task: v1::Task = codec::json::decode(&json).expect("sample task decodes");
    let pb = codec::protobuf::encode(&task);

    let mut g = c.benchmark_group("sample_task");
    g.throughput(Throughput::Elements(1));

    g.bench_function("floor_serde_json_ignored_any", |b| {
        b.iter(|| serde_json::from_slice::<serde::de::IgnoredAny>(black_box(&json)).unwrap())
    });
    // A second reference: serde_json's own DOM round trip (owned, allocating, untyped).
    let mut dom_out = Vec::with_capacity(json.len() * 2);
    g.bench_function("reference_serde_json_value_roundtrip", |b| {
        b.iter(|| {
            let v: serde_json::Value = serde_json::from_slice(black_box(&json)).unwrap();
            dom_out.clear();
            serde_json::to_writer(&mut dom_out, &v).unwrap();
            black_box(dom_out.len())
        })
    });
    let mut out = Vec::with_capacity(json.len() * 2);
    g.bench_function("protojson_decode_encode", |b| {
        b.iter(|| {
            let t: v1::Task = codec::json::decode(black_box(&json)).unwrap();
            out.clear();
            codec::json::encode_into(&t, &mut out).unwrap();
            black_box(out.len())
        })
    });
    g.bench_function("protojson_decode", |b| b.iter(|| codec::json::decode::<v1::Task>(black_box(&json)).unwrap()));
    g.bench_function("protojson_encode", |b| {
        b.iter(|| {
            out.clear();
            codec::json::encode_into(black_box(&task), &mut out).unwrap();
            black_box(out.len())
        })
    });
    let mut pb_out = Vec::with_capacity(pb.len() * 2);
    g.bench_function("protobuf_decode_encode", |b| {
        b.iter(|| {
            let t: v1::Task = codec::protobuf::decode(black_box(&pb)).unwrap();
            pb_out.clear();
            codec::protobuf::encode_into(&t, &mut pb_out);
            black_box(pb_out.len())
        })
    });
    g.bench_function("protobuf_decode", |b| b.iter(|| codec::protobuf::decode::<v1::Task>(black_box(&pb)).unwrap()));
    g.bench_function("protobuf_encode", |b| {
        b.iter(|| {
            pb_out.clear();
            codec::protobuf::encode_into(black_box(&task), &mut pb_out);
            black_box(pb_out.len())
        })
    });
    g.bench_function("drop_task", |b| b.iter_batched(|| task.clone(), drop, BatchSize::SmallInput));
    g.finish();
}

criterion_group!(benches, sample_task);
criterion_main!(benches);

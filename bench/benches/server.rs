//! The sans-IO server path in memory (no sockets): HTTP request bytes -> endpoint decode ->
//! engine -> endpoint encode -> response bytes, for a JSON-RPC SendMessage (the same body as
//! `../shared/bench/sendmessage.lua`, answered by an echo agent that completes the task) and
//! an HTTP+JSON GetTask.

use a2a_wire::binding::Operation;
use a2a_wire::engine::{AgentEvent, CallId, Engine, EngineConfig, MemoryStore, Output};
use a2a_wire::http::{HttpRequest, HttpResponse};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::server::Endpoint;
use a2a_wire::v1;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn card() -> v1::AgentCard {
    let iface = |url: &str, b: &str| v1::AgentInterface {
        url: url.into(),
        protocol_binding: b.into(),
        protocol_version: "1.0".into(),
        tenant: String::new(),
    };
    v1::AgentCard {
        name: "bench".into(),
        supported_interfaces: vec![iface("http://127.0.0.1:1/a2a/jsonrpc", "JSONRPC"), iface("http://127.0.0.1:1/a2a/rest", "HTTP+JSON")],
        capabilities: Some(v1::AgentCapabilities { streaming: Some(true), ..Default::default() }),
        ..Default::default()
    }
}

/// Serves one request to completion; returns the response.
fn serve(endpoint: &Endpoint, engine: &mut Engine, id: u64, req: &HttpRequest<'_>, now: Timestamp) -> HttpResponse {
    let call = match endpoint.decode(req) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let Operation::Task(request) = call.operation.clone() else {
        return endpoint.respond(&call, Err(a2a_wire::error::A2aError::new(a2a_wire::error::ErrorKind::MethodNotFound)));
    };
    engine.handle_call(CallId(id), call.engine_context(None), request, now);
    let mut answer = None;
    while let Some(o) = engine.poll_output() {
        match o {
            Output::Execute(e) => {
                let reply = v1::Message { message_id: format!("r-{id}"), role: 2, parts: e.message.parts.clone(), ..Default::default() };
                let artifact = v1::Artifact { artifact_id: "echo".into(), parts: e.message.parts, ..Default::default() };
                engine.handle_agent(e.id, AgentEvent::Artifact { metadata: None, artifact, append: false, last_chunk: true }, now).unwrap();
                engine
                    .handle_agent(e.id, AgentEvent::status(v1::TaskStatus { state: 3, message: Some(reply), timestamp: None }), now)
                    .unwrap();
                engine.handle_run_end(e.id, a2a_wire::engine::RunEnd::Finished, now);
            }
            Output::Respond { result, .. } => answer = Some(endpoint.respond(&call, result)),
            _ => {}
        }
    }
    answer.expect("answered")
}

const PER_ENGINE: u64 = 10_000;

fn server_paths(c: &mut Criterion) {
    let endpoint = Endpoint::new(card()).unwrap();
    let rpc_headers = [("Content-Type", "application/json"), ("A2A-Version", "1.0")];
    let mut g = c.benchmark_group("server");
    g.throughput(Throughput::Elements(1));
    g.bench_function("jsonrpc_send_message", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut done = 0;
            while done < iters {
                let batch = (iters - done).min(PER_ENGINE);
                let mut engine = Engine::new(EngineConfig::default(), MemoryStore::new(), 1);
                let bodies: Vec<String> = (0..batch)
                    .map(|n| format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"SendMessage","params":{{"message":{{"messageId":"wrk-1-{n}","role":"ROLE_USER","parts":[{{"text":"hello bench {n}"}}]}}}}}}"#))
                    .collect();
                let start = Instant::now();
                for (n, body) in bodies.iter().enumerate() {
                    let req = HttpRequest { method: "POST", target: "/a2a/jsonrpc", headers: &rpc_headers, body: body.as_bytes() };
                    let r = serve(&endpoint, &mut engine, n as u64, &req, Timestamp { seconds: 1_800_000_000 + n as i64, nanos: 0 });
                    black_box(r.body.len());
                }
                total += start.elapsed();
                done += batch;
            }
            total
        })
    });
    // GetTask over HTTP+JSON on a store of 1,000 completed tasks.
    let mut engine = Engine::new(EngineConfig::default(), MemoryStore::new(), 1);
    let mut ids = Vec::new();
    for n in 0..1000u64 {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{n},"method":"SendMessage","params":{{"message":{{"messageId":"m{n}","role":"ROLE_USER","parts":[{{"text":"hello {n}"}}]}}}}}}"#
        );
        let r = serve(
            &endpoint,
            &mut engine,
            n,
            &HttpRequest { method: "POST", target: "/a2a/jsonrpc", headers: &rpc_headers, body: body.as_bytes() },
            Timestamp::default(),
        );
        let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        ids.push(format!("/a2a/rest/tasks/{}", v["result"]["task"]["id"].as_str().unwrap()));
    }
    let rest_headers = [("A2A-Version", "1.0"), ("Accept", "application/a2a+json")];
    let mut n = 0u64;
    g.bench_function("rest_get_task", |b| {
        b.iter(|| {
            n += 1;
            let target = &ids[(n % 1000) as usize];
            let r = serve(
                &endpoint,
                &mut engine,
                1_000_000 + n,
                &HttpRequest { method: "GET", target, headers: &rest_headers, body: b"" },
                Timestamp::default(),
            );
            black_box(r.body.len())
        })
    });
    g.finish();
}

criterion_group!(benches, server_paths);
criterion_main!(benches);

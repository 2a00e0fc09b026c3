//! Benchmark inputs shared by the criterion benches.

use a2a_wire::engine::{AgentEvent, CallContext, CallId, Engine, EngineConfig, EventLogLimits, Output, Request};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::v1;
use std::hint::black_box;
use std::path::Path;

/// The compact wire bytes of a golden vector (`tests/vectors/<rel>`).
pub fn vector_wire(rel: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors").join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).expect("vector is JSON");
    serde_json::to_vec(&v["wire"]).expect("wire re-encodes")
}

/// One engine cycle, as a server does it: SendMessage, the agent's artifact and completed
/// status, GetTask, every output drained (the `engine` bench and `engine-cycles` run it).
pub fn engine_cycle(engine: &mut Engine, n: u64) {
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
    let Some(run) = run else { panic!("the message started no run") };
    let reply = v1::Message {
        message_id: format!("r-{n}"),
        role: v1::Role::Agent as i32,
        parts: vec![v1::Part { content: Some(v1::part::Content::Text(format!("echo: hello bench {n}"))), ..Default::default() }],
        ..Default::default()
    };
    let artifact = v1::Artifact { artifact_id: "echo".into(), parts: reply.parts.clone(), ..Default::default() };
    engine
        .handle_agent(run, AgentEvent::Artifact { metadata: None, artifact, append: false, last_chunk: true }, now)
        .expect("the artifact is taken");
    engine
        .handle_agent(
            run,
            AgentEvent::status(v1::TaskStatus { state: v1::TaskState::Completed as i32, message: Some(reply), timestamp: None }),
            now,
        )
        .expect("the completion is taken");
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

/// Engine settings that keep no events for `Last-Event-ID` resumes (ids are still
/// numbered): the cycle with them shows what copying events into the log costs.
pub fn engine_without_event_log() -> EngineConfig {
    EngineConfig { event_log: EventLogLimits { per_task: 0, ..EventLogLimits::default() }, ..EngineConfig::default() }
}

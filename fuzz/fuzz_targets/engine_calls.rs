//! The task engine driven by arbitrary sequences of calls and agent events. Checks: no
//! panic; every unary call is answered exactly once; nothing is sent on a stream after it
//! ended; a terminal task never changes again; the event ids of one stream count up by one;
//! a subscriber resuming with any id (one seen, or garbage) is served like the others.
#![no_main]

use a2a_wire::engine::{AgentEvent, CallContext, CallId, Engine, EngineConfig, EventId, MemoryStore, Output, Request, RunEnd, RunId};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::task::{class_of, StateClass};
use a2a_wire::v1;
use libfuzzer_sys::fuzz_target;
use std::collections::{BTreeMap, BTreeSet};

fn text(t: &str) -> v1::Part {
    v1::Part { content: Some(v1::part::Content::Text(t.into())), ..Default::default() }
}

fuzz_target!(|data: &[u8]| {
    let dedup = data.first().is_some_and(|b| b & 0x80 != 0);
    let mut engine = Engine::new(EngineConfig { dedup_message_ids: dedup, ..EngineConfig::default() }, MemoryStore::new(), 3);
    let mut tasks: Vec<String> = Vec::new();
    // Every run ever started, current or not: events of old runs must be refused harmlessly.
    let mut runs: Vec<RunId> = Vec::new();
    let mut unary: BTreeMap<u64, usize> = BTreeMap::new(); // call -> answers
    let mut streams: BTreeSet<u64> = BTreeSet::new();
    let mut ended: BTreeSet<u64> = BTreeSet::new();
    let mut terminal: BTreeMap<String, v1::Task> = BTreeMap::new();
    // Ids seen on streams, for resuming subscribers; the last id of each stream.
    let mut seen_ids: Vec<String> = Vec::new();
    let mut last_id: BTreeMap<u64, EventId> = BTreeMap::new();
    let mut call = 0u64;
    let mut bytes = data.iter().copied();
    let mut now = 0i64;
    while let (Some(op), Some(arg)) = (bytes.next(), bytes.next()) {
        now += i64::from(arg % 3);
        let ts = Timestamp { seconds: now, nanos: 0 };
        let pick = |n: u8| -> String { if tasks.is_empty() { format!("t{n}") } else { tasks[n as usize % tasks.len()].clone() } };
        let run = |n: u8| -> RunId { if runs.is_empty() { RunId(u64::from(n)) } else { runs[n as usize % runs.len()] } };
        let principal = if arg & 0x80 != 0 { Some("p".to_string()) } else { None };
        let ctx = CallContext { principal, ..Default::default() };
        call += 1;
        let msg = |task: String| v1::Message { message_id: format!("m{}", arg % 16), task_id: task, role: 1, parts: vec![text("x")], ..Default::default() };
        match op % 12 {
            0 | 1 => {
                let task = if op % 2 == 0 { String::new() } else { pick(arg) };
                let req = v1::SendMessageRequest {
                    message: Some(msg(task)),
                    configuration: Some(v1::SendMessageConfiguration { return_immediately: arg & 1 == 1, history_length: Some(i32::from(arg % 4) - 1), ..Default::default() }),
                    ..Default::default()
                };
                unary.insert(call, 0);
                engine.handle_call(CallId(call), ctx, Request::SendMessage(req), ts);
            }
            2 => {
                streams.insert(call);
                engine.handle_call(CallId(call), ctx, Request::SendStreamingMessage(v1::SendMessageRequest { message: Some(msg(String::new())), ..Default::default() }), ts);
            }
            3 => {
                streams.insert(call);
                let last_event_id = match arg % 4 {
                    0 | 1 => None,
                    2 => seen_ids.get(usize::from(arg) % seen_ids.len().max(1)).cloned(),
                    _ => Some(format!("{:08x}-{}", arg, arg % 7)),
                };
                let ctx = CallContext { last_event_id, ..ctx };
                engine.handle_call(CallId(call), ctx, Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: pick(arg), ..Default::default() }), ts);
            }
            4 => {
                unary.insert(call, 0);
                engine.handle_call(CallId(call), ctx, Request::CancelTask(v1::CancelTaskRequest { id: pick(arg), ..Default::default() }), ts);
            }
            5 => {
                unary.insert(call, 0);
                engine.handle_call(CallId(call), ctx, Request::GetTask(v1::GetTaskRequest { id: pick(arg), history_length: Some(i32::from(arg % 5) - 1), ..Default::default() }), ts);
            }
            6 => {
                unary.insert(call, 0);
                let req = v1::ListTasksRequest { page_size: Some(i32::from(arg % 8)), status: i32::from(arg % 10), page_token: if arg > 200 { "x".into() } else { String::new() }, ..Default::default() };
                engine.handle_call(CallId(call), ctx, Request::ListTasks(req), ts);
            }
            7 => {
                unary.insert(call, 0);
                let cfg = v1::TaskPushNotificationConfig { task_id: pick(arg), url: "https://h".into(), id: if arg & 1 == 1 { "c".into() } else { String::new() }, ..Default::default() };
                engine.handle_call(CallId(call), ctx, Request::CreatePushConfig(cfg), ts);
            }
            8 => {
                let state = i32::from(arg % 10);
                let _ = engine.handle_agent(run(arg), AgentEvent::status(v1::TaskStatus { state, ..Default::default() }), ts);
            }
            9 => {
                let art = v1::Artifact { artifact_id: format!("a{}", arg % 3), parts: vec![text("c")], ..Default::default() };
                let _ = engine.handle_agent(run(arg), AgentEvent::Artifact { metadata: None, artifact: art, append: arg & 1 == 1, last_chunk: arg & 2 == 2 }, ts);
            }
            10 => {
                if arg & 1 == 1 {
                    let end = if arg & 2 == 2 { RunEnd::Failed("boom".into()) } else { RunEnd::Finished };
                    engine.handle_run_end(run(arg >> 2), end, ts);
                } else {
                    let ev = AgentEvent::Message(v1::Message { message_id: format!("r{arg}"), role: 2, parts: vec![text("r")], ..Default::default() });
                    let _ = engine.handle_agent(run(arg >> 1), ev, ts);
                }
            }
            _ => {
                if let Some(s) = streams.iter().nth(usize::from(arg) % streams.len().max(1)).copied() {
                    engine.handle_call_closed(CallId(s));
                    ended.insert(s);
                }
            }
        }
        while let Some(out) = engine.poll_output() {
            match out {
                Output::Respond { call, .. } => {
                    if let Some(n) = unary.get_mut(&call.0) {
                        *n += 1;
                        assert_eq!(*n, 1, "call {} answered twice", call.0);
                    } else {
                        // A streaming call refused before it started.
                        assert!(streams.contains(&call.0));
                        assert!(ended.insert(call.0), "refused stream {} ended twice", call.0);
                    }
                }
                Output::Stream { call, id, .. } => {
                    assert!(!ended.contains(&call.0), "event after the end of stream {}", call.0);
                    if let Some(id) = id {
                        if let Some(prev) = last_id.insert(call.0, id) {
                            assert_eq!(id, prev.plus(1), "stream {} skipped or repeated an event id", call.0);
                        }
                        if seen_ids.len() < 64 {
                            seen_ids.push(id.to_string());
                        }
                    }
                }
                Output::StreamEnd { call, .. } => assert!(ended.insert(call.0), "stream {} ended twice", call.0),
                Output::Execute(e) => {
                    runs.push(e.id);
                    if !tasks.contains(&e.task_id) {
                        tasks.push(e.task_id);
                    }
                }
                _ => {}
            }
        }
        for id in &tasks {
            if let Some(t) = engine.store().get(id) {
                let task = &t.record.task;
                match terminal.get(id) {
                    Some(frozen) => assert_eq!(frozen, task, "terminal task {id} changed"),
                    None => {
                        if task.status.as_ref().is_some_and(|s| class_of(s.state) == StateClass::Terminal) {
                            terminal.insert(id.clone(), task.clone());
                        }
                    }
                }
            }
        }
    }
});

//! Property tests of the state machine and the engine.

use a2a_wire::engine::{AgentEvent, CallContext, CallId, Engine, EngineConfig, MemoryStore, Output, Request, Response};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::task::{class_of, StateClass, TaskEvent, TaskRecord};
use a2a_wire::v1;
use proptest::prelude::*;

fn text(t: &str) -> v1::Part {
    v1::Part { content: Some(v1::part::Content::Text(t.into())), ..Default::default() }
}

fn event() -> impl Strategy<Value = TaskEvent> {
    prop_oneof![
        (-1i32..11).prop_map(|s| TaskEvent::Status { status: v1::TaskStatus { state: s, ..Default::default() }, metadata: None }),
        (0u8..3, any::<bool>(), any::<bool>(), "[a-z]{1,3}").prop_map(|(id, append, last, t)| TaskEvent::Artifact {
            artifact: v1::Artifact { artifact_id: format!("a{id}"), parts: vec![text(&t)], ..Default::default() },
            append,
            last_chunk: last,
            metadata: None,
        }),
        "[a-z]{1,3}".prop_map(|id| TaskEvent::Message(v1::Message { message_id: id, ..Default::default() })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever happens, a terminal task never changes again, and a refused event changes nothing.
    #[test]
    fn no_event_sequence_moves_a_terminal_task(events in prop::collection::vec(event(), 0..40)) {
        let mut r = TaskRecord::new(v1::Task { id: "t".into(), context_id: "c".into(), ..Default::default() });
        let mut terminal: Option<TaskRecord> = None;
        for (i, e) in events.into_iter().enumerate() {
            let before = r.clone();
            let result = r.apply(e, Timestamp { seconds: i as i64, nanos: 0 });
            if result.is_err() {
                prop_assert_eq!(&r, &before);
            }
            if let Some(t) = &terminal {
                prop_assert!(result.is_err());
                prop_assert_eq!(&r, t);
            } else if r.task.status.as_ref().is_some_and(|s| class_of(s.state) == StateClass::Terminal) {
                terminal = Some(r.clone());
            }
        }
    }

    /// Chunks of several artifacts, interleaved, assemble to the concatenation of each one's parts.
    #[test]
    fn chunk_assembly_equals_concatenation(
        lens in prop::collection::vec(1usize..6, 1..4),
        seed in any::<u64>(),
    ) {
        // The chunk sequence of each artifact, then a random interleaving that keeps each one's order.
        let mut queues: Vec<Vec<(usize, usize)>> = lens.iter().enumerate().map(|(a, n)| (0..*n).map(|k| (a, k)).collect()).collect();
        let mut order = Vec::new();
        let mut s = seed;
        while queues.iter().any(|q| !q.is_empty()) {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let live: Vec<usize> = (0..queues.len()).filter(|i| !queues[*i].is_empty()).collect();
            let pick = live[(s >> 33) as usize % live.len()];
            order.push(queues[pick].remove(0));
        }
        let mut r = TaskRecord::new(v1::Task { id: "t".into(), ..Default::default() });
        for (a, k) in order {
            let ev = TaskEvent::Artifact {
                artifact: v1::Artifact { artifact_id: format!("art{a}"), parts: vec![text(&format!("{a}-{k}"))], ..Default::default() },
                append: k > 0,
                last_chunk: k + 1 == lens[a],
                metadata: None,
            };
            prop_assert!(r.apply(ev, Timestamp::default()).is_ok());
        }
        for (a, n) in lens.iter().enumerate() {
            let art = r.task.artifacts.iter().find(|x| x.artifact_id == format!("art{a}")).expect("assembled");
            let got: Vec<String> = art.parts.iter().map(|p| match &p.content { Some(v1::part::Content::Text(t)) => t.clone(), _ => String::new() }).collect();
            let want: Vec<String> = (0..*n).map(|k| format!("{a}-{k}")).collect();
            prop_assert_eq!(got, want);
        }
    }

    /// Following nextPageToken visits every matching task exactly once, newest first, whatever
    /// the page size and however many tasks share a timestamp.
    #[test]
    fn pagination_visits_every_task_exactly_once(times in prop::collection::vec(0i64..8, 0..60), page in 1i32..12) {
        let mut engine = Engine::new(EngineConfig::default(), MemoryStore::new(), 1);
        let mut call = 0u64;
        let mut ids = Vec::new();
        for (i, t) in times.iter().enumerate() {
            call += 1;
            let m = v1::Message { message_id: format!("m{i}"), role: 1, parts: vec![text("x")], ..Default::default() };
            let now = Timestamp { seconds: *t, nanos: 0 };
            engine.handle_call(CallId(call), CallContext::default(), Request::SendMessage(v1::SendMessageRequest { message: Some(m), ..Default::default() }), now);
            let exec = std::iter::from_fn(|| engine.poll_output()).find_map(|o| match o { Output::Execute(e) => Some(e), _ => None }).unwrap();
            engine.handle_agent(exec.id, AgentEvent::status(v1::TaskStatus { state: 3, ..Default::default() }), now).unwrap();
            while engine.poll_output().is_some() {}
            ids.push(exec.task_id);
        }
        let mut seen = Vec::new();
        let mut token = String::new();
        let mut last_ts = i64::MAX;
        for _ in 0..100 {
            call += 1;
            let req = v1::ListTasksRequest { page_size: Some(page), page_token: token.clone(), ..Default::default() };
            engine.handle_call(CallId(call), CallContext::default(), Request::ListTasks(req), Timestamp::default());
            let Some(Output::Respond { result: Ok(Response::ListTasks(r)), .. }) = engine.poll_output() else { panic!("list answered") };
            prop_assert_eq!(r.total_size as usize, times.len());
            prop_assert!(r.tasks.len() <= page as usize);
            for t in &r.tasks {
                let ts = t.status.as_ref().unwrap().timestamp.unwrap().seconds;
                prop_assert!(ts <= last_ts, "newest first");
                last_ts = ts;
                seen.push(t.id.clone());
            }
            if r.next_page_token.is_empty() { break; }
            token = r.next_page_token;
        }
        let mut a = seen.clone();
        a.sort();
        a.dedup();
        prop_assert_eq!(a.len(), seen.len(), "no task twice");
        let mut b = ids.clone();
        b.sort();
        prop_assert_eq!(a, b, "every task once");
    }
}

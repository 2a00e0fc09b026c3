//! Two-peer contract tests: a client (interface selection, version header, task tracker)
//! against a server (version check before dispatch, the engine, an agent script), in memory,
//! with a virtual clock.

use a2a_wire::card::{select_interface, Binding, ClientSupport};
use a2a_wire::client::{Reply, TaskTracker};
use a2a_wire::engine::{AgentEvent, CallContext, CallId, Engine, EngineConfig, MemoryStore, Output, Request, Response};
use a2a_wire::error::{A2aError, ErrorKind};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::v1::{self, TaskState};
use a2a_wire::version::{self, ProtocolVersion};

/// The server: one interface's served versions, then the engine.
struct Server {
    served: Vec<ProtocolVersion>,
    engine: Engine,
}

struct Pair {
    server: Server,
    clock: i64,
    next: u64,
}

fn text(t: &str) -> v1::Part {
    v1::Part { content: Some(v1::part::Content::Text(t.into())), ..Default::default() }
}

impl Pair {
    fn new(served: Vec<ProtocolVersion>) -> Self {
        Pair { server: Server { served, engine: Engine::new(EngineConfig::default(), MemoryStore::new(), 9) }, clock: 0, next: 0 }
    }
    fn now(&mut self) -> Timestamp {
        self.clock += 1;
        Timestamp { seconds: 1_800_000_000 + self.clock, nanos: 0 }
    }
    /// Sends a request with an `A2A-Version` header value; the server checks the version
    /// before dispatching anything.
    fn call(&mut self, version_header: Option<&str>, req: Request) -> (CallId, Result<Vec<Output>, A2aError>) {
        self.next += 1;
        let call = CallId(self.next);
        let requested = version::requested(version::find_raw(version_header.map(|v| ("A2A-Version", v)), None));
        if let Err(e) = version::negotiate(requested, &self.server.served) {
            return (call, Err(e));
        }
        let now = self.now();
        self.server.engine.handle_call(call, CallContext::default(), req, now);
        (call, Ok(std::iter::from_fn(|| self.server.engine.poll_output()).collect()))
    }
    fn agent(&mut self, task: &str, ev: AgentEvent) -> Vec<Output> {
        let now = self.now();
        let run = self.server.engine.current_run(task).unwrap();
        self.server.engine.handle_agent(run, ev, now).unwrap();
        std::iter::from_fn(|| self.server.engine.poll_output()).collect()
    }
}

fn answer(out: &[Output], call: CallId) -> Option<Result<Response, A2aError>> {
    out.iter().find_map(|o| match o {
        Output::Respond { call: c, result } if *c == call => Some(result.clone()),
        _ => None,
    })
}

fn exec(out: &[Output]) -> a2a_wire::engine::Execution {
    out.iter().find_map(|o| if let Output::Execute(e) = o { Some(e.clone()) } else { None }).unwrap()
}

fn events(out: &[Output], call: CallId) -> Vec<v1::StreamResponse> {
    out.iter()
        .filter_map(|o| match o {
            Output::Stream { call: c, event, .. } if *c == call => Some((**event).clone()),
            _ => None,
        })
        .collect()
}

fn send(m: v1::Message) -> v1::SendMessageRequest {
    v1::SendMessageRequest { message: Some(m), ..Default::default() }
}

fn msg(id: &str, task: &str, t: &str) -> v1::Message {
    v1::Message { message_id: id.into(), task_id: task.into(), role: v1::Role::User as i32, parts: vec![text(t)], ..Default::default() }
}

fn reply(r: Response) -> Reply {
    match r {
        Response::SendMessage(s) => Reply::from_response(s).unwrap(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_client_picks_its_interface_from_a_card_with_several_bindings() {
    let card = v1::AgentCard {
        supported_interfaces: vec![
            v1::AgentInterface {
                url: "grpc.example:443".into(),
                protocol_binding: "GRPC".into(),
                protocol_version: "1.0".into(),
                tenant: String::new(),
            },
            v1::AgentInterface {
                url: "https://x/v03".into(),
                protocol_binding: "JSONRPC".into(),
                protocol_version: "0.3".into(),
                tenant: String::new(),
            },
            v1::AgentInterface {
                url: "https://x/v1".into(),
                protocol_binding: "JSONRPC".into(),
                protocol_version: "1.0".into(),
                tenant: "acme".into(),
            },
        ],
        ..Default::default()
    };
    let client = ClientSupport { bindings: vec![Binding::JsonRpc], versions: vec![ProtocolVersion::V1_0, ProtocolVersion::V0_3] };
    let sel = select_interface(&card, &client).unwrap();
    assert_eq!((sel.url.as_str(), sel.version, sel.tenant.as_str()), ("https://x/v1", ProtocolVersion::V1_0, "acme"));
    // The tenant goes into every request, and the server scopes the task to it.
    let mut pair = Pair::new(vec![ProtocolVersion::V1_0]);
    let mut req = send(msg("m1", "", "hi"));
    req.tenant = sel.tenant.clone();
    let (_, out) = pair.call(Some(&sel.version.to_string()), Request::SendMessage(req));
    let e = exec(&out.unwrap());
    pair.agent(&e.task_id, AgentEvent::status(v1::TaskStatus { state: 3, ..Default::default() }));
    let (c, out) =
        pair.call(Some("1.0"), Request::GetTask(v1::GetTaskRequest { id: e.task_id.clone(), tenant: "acme".into(), ..Default::default() }));
    assert!(answer(&out.unwrap(), c).unwrap().is_ok());
    let (c, out) = pair.call(Some("1.0"), Request::GetTask(v1::GetTaskRequest { id: e.task_id.clone(), ..Default::default() }));
    assert_eq!(answer(&out.unwrap(), c).unwrap().unwrap_err().kind(), ErrorKind::TaskNotFound);
}

#[test]
fn message_replies_and_task_replies_are_told_apart() {
    let mut pair = Pair::new(vec![ProtocolVersion::V1_0]);
    let (c, out) = pair.call(Some("1.0"), Request::SendMessage(send(msg("m1", "", "quick question"))));
    let e = exec(&out.unwrap());
    let out = pair.agent(
        &e.task_id,
        AgentEvent::Message(v1::Message { message_id: "r".into(), role: 2, parts: vec![text("answer")], ..Default::default() }),
    );
    assert!(matches!(reply(answer(&out, c).unwrap().unwrap()), Reply::Message(_)));

    let (c, out) = pair.call(Some("1.0"), Request::SendMessage(send(msg("m2", "", "real work"))));
    let e = exec(&out.unwrap());
    let out = pair.agent(&e.task_id, AgentEvent::status(v1::TaskStatus { state: TaskState::Completed as i32, ..Default::default() }));
    let Reply::Task(t) = reply(answer(&out, c).unwrap().unwrap()) else { panic!("a task") };
    assert!(t.is_terminal());
}

#[test]
fn input_required_then_a_follow_up_on_the_same_task() {
    let mut pair = Pair::new(vec![ProtocolVersion::V1_0]);
    let (c, out) = pair.call(Some("1.0"), Request::SendMessage(send(msg("m1", "", "book a flight"))));
    let e = exec(&out.unwrap());
    let ask = v1::Message { message_id: "q".into(), role: 2, parts: vec![text("to where?")], ..Default::default() };
    let out = pair.agent(
        &e.task_id,
        AgentEvent::status(v1::TaskStatus { state: TaskState::InputRequired as i32, message: Some(ask), timestamp: None }),
    );
    let Reply::Task(t) = reply(answer(&out, c).unwrap().unwrap()) else { panic!() };
    assert!(t.is_settled() && !t.is_terminal());
    assert_eq!(t.state(), Some(TaskState::InputRequired));

    let (c, out) = pair.call(Some("1.0"), Request::SendMessage(send(msg("m2", &t.task().id, "Lisbon"))));
    let e2 = exec(&out.unwrap());
    assert_eq!((e2.task_id.as_str(), e2.follow_up), (t.task().id.as_str(), true));
    pair.agent(&e2.task_id, AgentEvent::status(v1::TaskStatus { state: TaskState::Working as i32, ..Default::default() }));
    let out = pair.agent(&e2.task_id, AgentEvent::status(v1::TaskStatus { state: TaskState::Completed as i32, ..Default::default() }));
    let Reply::Task(done) = reply(answer(&out, c).unwrap().unwrap()) else { panic!() };
    assert_eq!(done.task().id, t.task().id);
    assert_eq!(done.task().history.iter().map(|m| m.message_id.as_str()).collect::<Vec<_>>(), ["m1", "q", "m2"]);
}

#[test]
fn mismatched_ids_are_rejected() {
    let mut pair = Pair::new(vec![ProtocolVersion::V1_0]);
    let (_, out) = pair.call(Some("1.0"), Request::SendMessage(send(msg("m1", "", "a"))));
    let e = exec(&out.unwrap());
    pair.agent(&e.task_id, AgentEvent::status(v1::TaskStatus { state: TaskState::InputRequired as i32, ..Default::default() }));
    let mut m = msg("m2", &e.task_id, "b");
    m.context_id = "not-its-context".into();
    let (c, out) = pair.call(Some("1.0"), Request::SendMessage(send(m)));
    let err = answer(&out.unwrap(), c).unwrap().unwrap_err();
    assert_eq!((err.kind(), err.jsonrpc_code(), err.http_status()), (ErrorKind::InvalidParams, -32602, 400));
    // The client's tracker refuses an event that belongs to another task.
    let mut tracker = TaskTracker::new(v1::Task { id: e.task_id.clone(), context_id: e.context_id.clone(), ..Default::default() });
    let foreign = v1::StreamResponse {
        payload: Some(v1::stream_response::Payload::StatusUpdate(v1::TaskStatusUpdateEvent {
            task_id: "someone-else".into(),
            context_id: e.context_id.clone(),
            status: Some(v1::TaskStatus { state: 3, ..Default::default() }),
            metadata: None,
        })),
    };
    assert!(tracker.on_event(&foreign, Timestamp::default()).is_err());
    assert_eq!(tracker.state(), None);
}

#[test]
fn a_stream_dropped_mid_artifact_is_recovered_with_get_task_then_subscribe() {
    let mut pair = Pair::new(vec![ProtocolVersion::V1_0]);
    let (s, out) = pair.call(Some("1.0"), Request::SendStreamingMessage(send(msg("m1", "", "write a report"))));
    let e = exec(&out.unwrap());
    let mut tracker = TaskTracker::empty();
    let chunk = |k: usize, last: bool| AgentEvent::Artifact {
        metadata: None,
        artifact: v1::Artifact { artifact_id: "report".into(), parts: vec![text(&format!("part {k}"))], ..Default::default() },
        append: k > 0,
        last_chunk: last,
    };
    for k in 0..2 {
        let out = pair.agent(&e.task_id, chunk(k, false));
        for ev in events(&out, s) {
            let now = pair.now();
            tracker.on_event(&ev, now).unwrap();
        }
    }
    assert_eq!(tracker.task().artifacts[0].parts.len(), 2);
    // The connection drops; the agent goes on.
    pair.server.engine.handle_call_closed(s);
    pair.agent(&e.task_id, chunk(2, false));
    pair.agent(&e.task_id, chunk(3, false));
    // Recover: GetTask for everything so far, then Subscribe for the rest.
    let (c, out) = pair.call(Some("1.0"), Request::GetTask(v1::GetTaskRequest { id: e.task_id.clone(), ..Default::default() }));
    let Response::Task(snapshot) = answer(&out.unwrap(), c).unwrap().unwrap() else { panic!() };
    tracker.on_snapshot(snapshot).unwrap();
    assert_eq!(tracker.task().artifacts[0].parts.len(), 4);
    let (sub, out) =
        pair.call(Some("1.0"), Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: e.task_id.clone(), ..Default::default() }));
    let mut all = out.unwrap();
    all.extend(pair.agent(&e.task_id, chunk(4, true)));
    all.extend(pair.agent(&e.task_id, AgentEvent::status(v1::TaskStatus { state: TaskState::Completed as i32, ..Default::default() })));
    let evs = events(&all, sub);
    assert!(matches!(evs[0].payload, Some(v1::stream_response::Payload::Task(_))), "a subscription starts with the Task");
    for ev in &evs {
        let now = pair.now();
        tracker.on_event(ev, now).unwrap();
    }
    assert!(tracker.is_terminal());
    let parts: Vec<String> = tracker.task().artifacts[0]
        .parts
        .iter()
        .map(|p| match &p.content {
            Some(v1::part::Content::Text(t)) => t.clone(),
            _ => String::new(),
        })
        .collect();
    assert_eq!(parts, (0..5).map(|k| format!("part {k}")).collect::<Vec<_>>());
    let (c, out) = pair.call(Some("1.0"), Request::GetTask(v1::GetTaskRequest { id: e.task_id.clone(), ..Default::default() }));
    let Response::Task(server_view) = answer(&out.unwrap(), c).unwrap().unwrap() else { panic!() };
    assert_eq!(server_view.artifacts, tracker.task().artifacts, "client and server agree");
}

#[test]
fn an_unsupported_version_is_rejected_before_dispatch_not_misread() {
    let mut pair = Pair::new(vec![ProtocolVersion::V1_0]);
    // No header means 0.3: a 1.0-only interface refuses it with the supported list, and the
    // engine never sees the call.
    for header in [None, Some(""), Some("0.3"), Some("2.0"), Some("garbage")] {
        let (_, r) = pair.call(header, Request::SendMessage(send(msg("m", "", "x"))));
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::VersionNotSupported, "{header:?}");
        assert_eq!(e.metadata().get("supportedVersions").map(String::as_str), Some("1.0"));
        assert_eq!((e.jsonrpc_code(), e.http_status(), e.reason()), (-32009, 400, Some("VERSION_NOT_SUPPORTED")));
    }
    assert!(pair.server.engine.poll_output().is_none());
    assert_eq!(pair.server.engine.store().len(), 0);
    // With the patch part, 1.0.1 is 1.0.
    let (_, r) = pair.call(Some("1.0.1"), Request::SendMessage(send(msg("m", "", "x"))));
    assert!(r.is_ok());
}

#[test]
fn a_v03_request_gets_v03_spellings_only_and_a_v10_request_v10_spellings_only() {
    use a2a_wire::v03::{self, ToV03, ToV1};
    let mut pair = Pair::new(vec![ProtocolVersion::V1_0, ProtocolVersion::V0_3]);
    // A v0.3 client (no A2A-Version header) sends a v0.3 message/send.
    let params: v03::MessageSendParams =
        v03::decode(br#"{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}"#).unwrap();
    let req = params.to_v1().unwrap().value;
    let (c, out) = pair.call(None, Request::SendMessage(req));
    let e = exec(&out.unwrap());
    let out = pair.agent(&e.task_id, AgentEvent::status(v1::TaskStatus { state: TaskState::Completed as i32, ..Default::default() }));
    let Response::SendMessage(resp) = answer(&out, c).unwrap().unwrap() else { panic!() };
    let v03_json = String::from_utf8(v03::encode(&resp.to_v03().unwrap().value).unwrap()).unwrap();
    assert!(v03_json.contains(r#""state":"completed""#) && v03_json.contains(r#""role":"user""#), "{v03_json}");
    assert!(!v03_json.contains("TASK_STATE_") && !v03_json.contains("ROLE_"), "{v03_json}");
    // The same task answered to a v1.0 client.
    let (c, out) = pair.call(Some("1.0"), Request::GetTask(v1::GetTaskRequest { id: e.task_id.clone(), ..Default::default() }));
    let Response::Task(t) = answer(&out.unwrap(), c).unwrap().unwrap() else { panic!() };
    let v1_json = String::from_utf8(a2a_wire::codec::json::encode(&t).unwrap()).unwrap();
    assert!(v1_json.contains("TASK_STATE_COMPLETED") && v1_json.contains("ROLE_USER"), "{v1_json}");
    assert!(!v1_json.contains(r#""completed""#) && !v1_json.contains(r#""kind""#), "{v1_json}");
}

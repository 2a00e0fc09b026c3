//! Client -> endpoint -> engine -> endpoint -> client, in memory, on every binding and
//! version: every operation round-trips, the same operation decodes to the same call on all
//! bindings, and errors look right on each.

use a2a_wire::binding::{Method, Operation};
use a2a_wire::card::{select_interface, Binding, ClientSupport};
use a2a_wire::client::{Client, ClientError, PreparedCall};
use a2a_wire::engine::{AgentEvent, CallId, Engine, EngineConfig, MemoryStore, Output, Request, Response};
use a2a_wire::error::{ErrorKind, Received};
use a2a_wire::http::{HttpRequest, HttpResponse, OutgoingRequest};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::server::{Call, Endpoint};
use a2a_wire::v1::{self, TaskState};
use a2a_wire::version::ProtocolVersion;
use std::collections::BTreeMap;

fn iface(url: &str, binding: &str, version: &str) -> v1::AgentInterface {
    v1::AgentInterface { url: url.into(), protocol_binding: binding.into(), protocol_version: version.into(), tenant: String::new() }
}

fn card() -> v1::AgentCard {
    v1::AgentCard {
        name: "echo".into(),
        description: "echoes".into(),
        version: "1".into(),
        supported_interfaces: vec![
            iface("http://127.0.0.1:9/rpc", "JSONRPC", "1.0"),
            iface("http://127.0.0.1:9/rest", "HTTP+JSON", "1.0"),
            iface("127.0.0.1:10", "GRPC", "1.0"),
            iface("http://127.0.0.1:9/rpc", "JSONRPC", "0.3"),
            iface("127.0.0.1:10", "GRPC", "0.3"),
            iface("http://127.0.0.1:9/rest", "HTTP+JSON", "0.3"),
        ],
        capabilities: Some(v1::AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extended_agent_card: Some(true),
            ..Default::default()
        }),
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into()],
        ..Default::default()
    }
}

enum Answer {
    Pending,
    Unary(HttpResponse),
    Stream { head: HttpResponse, body: Vec<u8>, trailers: Vec<(String, String)>, ended: bool },
}

/// The server side: endpoint + engine + an echo agent, moving bytes in memory.
struct Net {
    endpoint: Endpoint,
    engine: Engine,
    calls: BTreeMap<u64, (Call, Answer)>,
    next: u64,
    clock: i64,
}

fn text_of(m: &v1::Message) -> String {
    m.parts.iter().filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.clone()) } else { None }).collect()
}

impl Net {
    fn new() -> Net {
        let c = card();
        let endpoint = Endpoint::new(c.clone()).unwrap().with_extended_card(v1::AgentCard { name: "echo (extended)".into(), ..c });
        Net { endpoint, engine: Engine::new(EngineConfig::default(), MemoryStore::new(), 5), calls: BTreeMap::new(), next: 0, clock: 0 }
    }
    fn now(&mut self) -> Timestamp {
        self.clock += 1;
        Timestamp { seconds: 1_800_000_000 + self.clock, nanos: 0 }
    }
    /// Delivers a request; returns the call number to read the answer with.
    fn send(&mut self, req: &OutgoingRequest) -> u64 {
        self.next += 1;
        let id = self.next;
        let after_scheme = req.url.split_once("://").map_or(req.url.as_str(), |(_, r)| r);
        let target = after_scheme.find('/').map_or("/", |i| &after_scheme[i..]).to_string();
        let headers: Vec<(&str, &str)> = req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let http = HttpRequest { method: req.method, target: &target, headers: &headers, body: &req.body };
        match self.endpoint.decode(&http) {
            Err(resp) => {
                self.calls.insert(id, (dummy_call(), Answer::Unary(resp)));
            }
            Ok(call) => {
                let op = call.operation.clone();
                self.calls.insert(id, (call, Answer::Pending));
                match op {
                    Operation::GetExtendedAgentCard(_) => {
                        let card = self.endpoint.extended_card().cloned().unwrap();
                        let (call, _) = &self.calls[&id];
                        let resp = self.endpoint.respond(call, Ok(Response::AgentCard(card)));
                        self.calls.get_mut(&id).unwrap().1 = Answer::Unary(resp);
                    }
                    Operation::Task(r) => {
                        let now = self.now();
                        let ctx = self.calls[&id].0.engine_context(None);
                        self.engine.handle_call(CallId(id), ctx, r, now);
                        self.pump();
                    }
                    other => panic!("an operation this test does not know: {other:?}"),
                }
            }
        }
        id
    }
    fn pump(&mut self) {
        while let Some(out) = self.engine.poll_output() {
            match out {
                Output::Execute(e) => {
                    let text = text_of(&e.message);
                    let exec = e.id;
                    let events: Vec<AgentEvent> = if text == "reply" {
                        vec![AgentEvent::Message(v1::Message {
                            message_id: "r".into(),
                            role: 2,
                            parts: e.message.parts.clone(),
                            ..Default::default()
                        })]
                    } else if text == "ask" {
                        vec![AgentEvent::status(v1::TaskStatus { state: TaskState::InputRequired as i32, ..Default::default() })]
                    } else {
                        vec![
                            AgentEvent::status(v1::TaskStatus { state: TaskState::Working as i32, ..Default::default() }),
                            AgentEvent::Artifact {
                                metadata: None,
                                artifact: v1::Artifact { artifact_id: "echo".into(), parts: e.message.parts.clone(), ..Default::default() },
                                append: false,
                                last_chunk: true,
                            },
                            AgentEvent::status(v1::TaskStatus { state: TaskState::Completed as i32, ..Default::default() }),
                        ]
                    };
                    for ev in events {
                        let now = self.now();
                        self.engine.handle_agent(exec, ev, now).unwrap();
                    }
                    let now = self.now();
                    self.engine.handle_run_end(exec, a2a_wire::engine::RunEnd::Finished, now);
                }
                Output::Respond { call, result } => {
                    let entry = self.calls.get_mut(&call.0).unwrap();
                    entry.1 = Answer::Unary(self.endpoint.respond(&entry.0, result));
                }
                Output::Stream { call, event, .. } => {
                    let entry = self.calls.get_mut(&call.0).unwrap();
                    if let Answer::Pending = entry.1 {
                        entry.1 =
                            Answer::Stream { head: self.endpoint.stream_start(&entry.0), body: vec![], trailers: vec![], ended: false };
                    }
                    if let Answer::Stream { body, .. } = &mut entry.1 {
                        self.endpoint.stream_event(&entry.0, &event, None, body);
                    }
                }
                Output::StreamEnd { call, error } => {
                    let entry = self.calls.get_mut(&call.0).unwrap();
                    if let Answer::Pending = entry.1 {
                        entry.1 =
                            Answer::Stream { head: self.endpoint.stream_start(&entry.0), body: vec![], trailers: vec![], ended: false };
                    }
                    let end = self.endpoint.stream_end(&entry.0, error.as_ref());
                    if let Answer::Stream { body, trailers, ended, .. } = &mut entry.1 {
                        body.extend_from_slice(&end.body);
                        *trailers = end.trailers;
                        *ended = true;
                    }
                }
                _ => {}
            }
        }
    }
}

fn dummy_call() -> Call {
    // Any decodable call works as a placeholder for answers given before decoding.
    let e = Endpoint::new(card()).unwrap();
    let body = br#"{"jsonrpc":"2.0","id":0,"method":"GetTask","params":{"id":"x"}}"#;
    let headers = [("content-type", "application/json"), ("a2a-version", "1.0")];
    e.decode(&HttpRequest { method: "POST", target: "/rpc", headers: &headers, body }).unwrap()
}

/// A client for `binding` and `version`, chosen from the card as a real client would.
fn client(binding: Binding, version: ProtocolVersion) -> Client {
    let sel = select_interface(&card(), &ClientSupport { bindings: vec![binding], versions: vec![version] }).unwrap();
    Client::new(sel).with_header("Authorization", "Bearer test")
}

/// Runs a unary call end to end.
fn unary(net: &mut Net, c: &mut Client, op: Operation) -> Result<Response, ClientError> {
    let mut prepared = c.prepare(op)?;
    let id = net.send(&prepared.request);
    let answer = match &net.calls[&id].1 {
        Answer::Unary(r) => r.clone(),
        _ => panic!("no unary answer"),
    };
    if let Some(retry) = c.retry(&mut prepared, &answer) {
        let id = net.send(&retry);
        let Answer::Unary(r) = &net.calls[&id].1 else { panic!() };
        return c.parse(&prepared, r);
    }
    c.parse(&prepared, &answer)
}

/// Runs a streaming call end to end and returns its events (and the error that ended it).
fn stream(net: &mut Net, c: &mut Client, op: Operation) -> (PreparedCall, u64) {
    let prepared = c.prepare(op).unwrap();
    let id = net.send(&prepared.request);
    (prepared, id)
}

fn events_of(net: &Net, c: &Client, prepared: &PreparedCall, id: u64) -> Result<Vec<v1::StreamResponse>, ClientError> {
    let (head, body, trailers) = match &net.calls[&id].1 {
        Answer::Stream { head, body, trailers, .. } => (head.clone(), body.clone(), trailers.clone()),
        Answer::Unary(r) => (r.clone(), r.body.clone(), r.trailers.clone()),
        Answer::Pending => panic!("nothing answered yet"),
    };
    let mut d = c.stream_decoder(prepared, &head)?;
    // Feed in small pieces, as a network would.
    for chunk in body.chunks(7) {
        d.feed(chunk);
    }
    let mut out = vec![];
    while let Some(e) = d.next_event()? {
        out.push(e);
    }
    d.finish(&trailers)?;
    Ok(out)
}

fn msg(id: &str, text: &str, task: &str) -> v1::Message {
    v1::Message {
        message_id: id.into(),
        task_id: task.into(),
        role: v1::Role::User as i32,
        parts: vec![v1::Part { content: Some(v1::part::Content::Text(text.into())), ..Default::default() }],
        ..Default::default()
    }
}

fn send(m: v1::Message) -> Operation {
    Operation::Task(Request::SendMessage(v1::SendMessageRequest { message: Some(m), ..Default::default() }))
}

fn task_of(r: Response) -> v1::Task {
    match r {
        Response::SendMessage(v1::SendMessageResponse { payload: Some(v1::send_message_response::Payload::Task(t)) })
        | Response::Task(t) => t,
        other => panic!("not a task: {other:?}"),
    }
}

fn all_clients() -> Vec<(String, Client)> {
    vec![
        ("JSONRPC 1.0".into(), client(Binding::JsonRpc, ProtocolVersion::V1_0)),
        ("HTTP+JSON 1.0".into(), client(Binding::HttpJson, ProtocolVersion::V1_0)),
        ("GRPC 1.0".into(), client(Binding::Grpc, ProtocolVersion::V1_0)),
        ("JSONRPC 0.3".into(), client(Binding::JsonRpc, ProtocolVersion::V0_3)),
        ("GRPC 0.3".into(), client(Binding::Grpc, ProtocolVersion::V0_3)),
        ("HTTP+JSON 0.3".into(), client(Binding::HttpJson, ProtocolVersion::V0_3)),
    ]
}

#[test]
fn every_operation_round_trips_on_every_binding_and_version() {
    for (name, mut c) in all_clients() {
        let legacy = name.ends_with("0.3");
        let mut net = Net::new();
        // SendMessage -> completed task with the echo artifact.
        let t = task_of(unary(&mut net, &mut c, send(msg("m1", "hello", ""))).unwrap_or_else(|e| panic!("{name}: {e}")));
        assert_eq!(t.status.as_ref().unwrap().state, TaskState::Completed as i32, "{name}");
        assert_eq!(t.artifacts.len(), 1, "{name}");
        // A direct reply.
        match unary(&mut net, &mut c, send(msg("m2", "reply", ""))).unwrap() {
            Response::SendMessage(v1::SendMessageResponse { payload: Some(v1::send_message_response::Payload::Message(m)) }) => {
                assert_eq!(text_of(&m), "reply", "{name}")
            }
            other => panic!("{name}: {other:?}"),
        }
        // GetTask with historyLength.
        let got = task_of(
            unary(
                &mut net,
                &mut c,
                Operation::Task(Request::GetTask(v1::GetTaskRequest { id: t.id.clone(), history_length: Some(1), ..Default::default() })),
            )
            .unwrap(),
        );
        assert_eq!((got.id.as_str(), got.history.len()), (t.id.as_str(), 1), "{name}");
        // ListTasks (v1.0 only).
        if !legacy {
            match unary(&mut net, &mut c, Operation::Task(Request::ListTasks(v1::ListTasksRequest::default()))).unwrap() {
                Response::ListTasks(r) => assert_eq!(r.total_size, 1, "{name}"),
                other => panic!("{name}: {other:?}"),
            }
        } else {
            assert!(matches!(c.prepare(Operation::Task(Request::ListTasks(v1::ListTasksRequest::default()))), Err(ClientError::Local(_))));
        }
        // Cancel of the completed task: TaskNotCancelable.
        match unary(
            &mut net,
            &mut c,
            Operation::Task(Request::CancelTask(v1::CancelTaskRequest { id: t.id.clone(), ..Default::default() })),
        ) {
            Err(ClientError::Remote(Received::A2a(e))) => assert_eq!(e.kind(), ErrorKind::TaskNotCancelable, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
        // An input-required task, subscribed to, then continued; a cancel of another one.
        let asked = task_of(unary(&mut net, &mut c, send(msg("m3", "ask", ""))).unwrap());
        assert_eq!(asked.status.as_ref().unwrap().state, TaskState::InputRequired as i32, "{name}");
        let (sub, sub_id) = stream(
            &mut net,
            &mut c,
            Operation::Task(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: asked.id.clone(), ..Default::default() })),
        );
        let done = task_of(unary(&mut net, &mut c, send(msg("m4", "go on", &asked.id))).unwrap());
        assert_eq!(done.status.as_ref().unwrap().state, TaskState::Completed as i32, "{name}");
        let evs = events_of(&net, &c, &sub, sub_id).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(matches!(evs[0].payload, Some(v1::stream_response::Payload::Task(_))), "{name}: a subscription starts with the Task");
        assert!(matches!(evs.last().unwrap().payload, Some(v1::stream_response::Payload::StatusUpdate(_))), "{name}");
        let asked2 = task_of(unary(&mut net, &mut c, send(msg("m5", "ask", ""))).unwrap());
        let canceled = task_of(
            unary(
                &mut net,
                &mut c,
                Operation::Task(Request::CancelTask(v1::CancelTaskRequest { id: asked2.id.clone(), ..Default::default() })),
            )
            .unwrap(),
        );
        assert_eq!(canceled.status.as_ref().unwrap().state, TaskState::Canceled as i32, "{name}");
        // A streaming send: Task first, then updates, then the end.
        let (p, id) = stream(
            &mut net,
            &mut c,
            Operation::Task(Request::SendStreamingMessage(v1::SendMessageRequest {
                message: Some(msg("m6", "stream me", "")),
                ..Default::default()
            })),
        );
        let evs = events_of(&net, &c, &p, id).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(matches!(evs[0].payload, Some(v1::stream_response::Payload::Task(_))), "{name}");
        assert_eq!(evs.len(), 4, "{name}: task, working, artifact, completed");
        // Push configs: create, get, list, delete.
        let cfg = v1::TaskPushNotificationConfig {
            task_id: t.id.clone(),
            url: "https://client.example/hook".into(),
            token: "tok".into(),
            ..Default::default()
        };
        let Response::PushConfig(created) =
            unary(&mut net, &mut c, Operation::Task(Request::CreatePushConfig(cfg))).unwrap_or_else(|e| panic!("{name}: {e}"))
        else {
            panic!()
        };
        assert!(!created.id.is_empty(), "{name}");
        let Response::PushConfig(got) = unary(
            &mut net,
            &mut c,
            Operation::Task(Request::GetPushConfig(v1::GetTaskPushNotificationConfigRequest {
                task_id: t.id.clone(),
                id: created.id.clone(),
                ..Default::default()
            })),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!((got.url.as_str(), got.token.as_str()), ("https://client.example/hook", "tok"), "{name}");
        let Response::PushConfigs(list) = unary(
            &mut net,
            &mut c,
            Operation::Task(Request::ListPushConfigs(v1::ListTaskPushNotificationConfigsRequest {
                task_id: t.id.clone(),
                ..Default::default()
            })),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(list.configs.len(), 1, "{name}");
        let del = Operation::Task(Request::DeletePushConfig(v1::DeleteTaskPushNotificationConfigRequest {
            task_id: t.id.clone(),
            id: created.id.clone(),
            ..Default::default()
        }));
        assert_eq!(unary(&mut net, &mut c, del).unwrap(), Response::Deleted, "{name}");
        // The extended card.
        let Response::AgentCard(card) = unary(&mut net, &mut c, Operation::GetExtendedAgentCard(Default::default())).unwrap() else {
            panic!()
        };
        assert_eq!(card.name, "echo (extended)", "{name}");
    }
}

#[test]
fn an_unknown_task_is_task_not_found_on_every_binding() {
    for (name, mut c) in all_clients() {
        let mut net = Net::new();
        let prepared =
            c.prepare(Operation::Task(Request::GetTask(v1::GetTaskRequest { id: "nope".into(), ..Default::default() }))).unwrap();
        let id = net.send(&prepared.request);
        let Answer::Unary(raw) = &net.calls[&id].1 else { panic!() };
        match c.interface().binding {
            Binding::JsonRpc => {
                let v: serde_json::Value = serde_json::from_slice(&raw.body).unwrap();
                assert_eq!(v["error"]["code"], -32001, "{name}");
                if c.interface().version.is_legacy() {
                    // The v0.3 code names the error; no `data` (a2a-go v0.3.15 and v2.3.1 read
                    // it in shapes that exclude each other).
                    assert!(v["error"].get("data").is_none(), "{name}: {v}");
                } else {
                    assert_eq!(v["error"]["data"][0]["reason"], "TASK_NOT_FOUND", "{name}");
                }
            }
            Binding::HttpJson => {
                assert_eq!(raw.status, 404, "{name}");
                let v: serde_json::Value = serde_json::from_slice(&raw.body).unwrap();
                assert_eq!(v["error"]["details"][0]["reason"], "TASK_NOT_FOUND", "{name}");
            }
            Binding::Grpc => assert_eq!(raw.trailer("grpc-status"), Some("5"), "{name}"),
            Binding::Custom(_) => unreachable!(),
        }
        match c.parse(&prepared, raw) {
            Err(ClientError::Remote(Received::A2a(e))) => {
                assert_eq!((e.kind(), e.reason()), (ErrorKind::TaskNotFound, Some("TASK_NOT_FOUND")), "{name}")
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn the_same_operation_decodes_to_the_same_call_on_every_v1_binding() {
    let endpoint = Endpoint::new(card()).unwrap().with_extended_card(card());
    let ops = vec![
        send(msg("m1", "hi", "")),
        Operation::Task(Request::GetTask(v1::GetTaskRequest { id: "t/1:x".into(), history_length: Some(0), tenant: "acme".into() })),
        Operation::Task(Request::ListTasks(v1::ListTasksRequest {
            context_id: "c".into(),
            status: TaskState::Working as i32,
            page_size: Some(10),
            page_token: "tok".into(),
            history_length: Some(2),
            status_timestamp_after: Some(Timestamp { seconds: 1_767_225_600, nanos: 5_000_000 }),
            include_artifacts: Some(false),
            tenant: String::new(),
        })),
        Operation::Task(Request::CancelTask(v1::CancelTaskRequest { id: "t1".into(), ..Default::default() })),
        Operation::Task(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: "t1".into(), tenant: "x".into() })),
        Operation::Task(Request::CreatePushConfig(v1::TaskPushNotificationConfig {
            task_id: "t1".into(),
            url: "https://h/".into(),
            id: "c1".into(),
            ..Default::default()
        })),
        Operation::Task(Request::ListPushConfigs(v1::ListTaskPushNotificationConfigsRequest {
            task_id: "t1".into(),
            page_size: 5,
            ..Default::default()
        })),
        Operation::GetExtendedAgentCard(v1::GetExtendedAgentCardRequest { tenant: "acme".into() }),
    ];
    for op in ops {
        let mut seen: Vec<(String, Operation)> = vec![];
        for (name, mut c) in all_clients().into_iter().filter(|(n, _)| n.ends_with("1.0")) {
            let prepared = c.prepare(op.clone()).unwrap();
            let after_scheme = prepared.request.url.split_once("://").map_or(prepared.request.url.as_str(), |(_, r)| r);
            let target = after_scheme.find('/').map_or("/", |i| &after_scheme[i..]).to_string();
            let headers: Vec<(&str, &str)> = prepared.request.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let http = HttpRequest { method: prepared.request.method, target: &target, headers: &headers, body: &prepared.request.body };
            let call = endpoint.decode(&http).unwrap_or_else(|r| panic!("{name}: {:?} {}", op.method(), String::from_utf8_lossy(&r.body)));
            seen.push((name, call.operation));
        }
        for (name, got) in &seen {
            assert_eq!(got, &op, "{name} decodes {:?} differently", op.method());
        }
    }
}

#[test]
fn a_v03_client_gets_v03_shapes_only() {
    let mut net = Net::new();
    let mut c = client(Binding::JsonRpc, ProtocolVersion::V0_3);
    let prepared = c.prepare(send(msg("m1", "hello", ""))).unwrap();
    assert!(!prepared.request.body.windows(8).any(|w| w == b"ROLE_USE"), "the request is v0.3-shaped");
    let id = net.send(&prepared.request);
    let Answer::Unary(raw) = &net.calls[&id].1 else { panic!() };
    let body = String::from_utf8(raw.body.clone()).unwrap();
    assert!(body.contains(r#""state":"completed""#) && body.contains(r#""kind":"task""#), "{body}");
    assert!(!body.contains("TASK_STATE_") && !body.contains("ROLE_"), "{body}");
    // A v1.0 method name on the v0.3 interface is unknown there.
    let bad = OutgoingRequest {
        method: "POST",
        url: "http://127.0.0.1:9/rpc".into(),
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: br#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}"#.to_vec(),
    };
    let id = net.send(&bad);
    let Answer::Unary(raw) = &net.calls[&id].1 else { panic!() };
    let v: serde_json::Value = serde_json::from_slice(&raw.body).unwrap();
    assert_eq!(v["error"]["code"], -32601);
}

#[test]
fn endpoint_checks_come_in_order_and_use_the_binding_shapes() {
    let endpoint = Endpoint::new(card()).unwrap();
    let decode =
        |method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]| endpoint.decode(&HttpRequest { method, target, headers, body });
    // No route: a plain 404 without ErrorInfo (never TaskNotFound).
    let r = decode("GET", "/nowhere", &[], b"").unwrap_err();
    assert_eq!(r.status, 404);
    assert!(!String::from_utf8_lossy(&r.body).contains("ErrorInfo"));
    // Wrong verb on a known route: 405 with Allow.
    let r = decode("PUT", "/rest/tasks/t1", &[("a2a-version", "1.0")], b"").unwrap_err();
    assert_eq!((r.status, r.header("allow")), (405, Some("GET")));
    // Content type before version: a non-JSON body on JSON-RPC is ContentTypeNotSupported.
    let r = decode("POST", "/rpc", &[("content-type", "text/plain")], b"hi").unwrap_err();
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["error"]["code"], -32005);
    // Version before parsing: an unsupported version is refused with the supported list,
    // even when the body is garbage.
    let r = decode("POST", "/rpc", &[("content-type", "application/json"), ("a2a-version", "2.0")], b"{not json").unwrap_err();
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["error"]["code"], -32009);
    assert_eq!(v["error"]["data"][0]["metadata"]["supportedVersions"], "1.0,0.3");
    let r = decode("GET", "/rest/tasks/t1", &[], b"").unwrap_err();
    assert_eq!(r.status, 404, "no A2A-Version means 0.3, whose routes live under /v1: a plain 404");
    let r = decode("GET", "/rest/tasks/t1", &[("a2a-version", "0.9")], b"").unwrap_err();
    assert_eq!(r.status, 400, "a route of some version with an unsupported version header is VersionNotSupported");
    // Parse errors and validation errors.
    let r = decode("POST", "/rpc", &[("content-type", "application/json"), ("a2a-version", "1.0")], b"{not json").unwrap_err();
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&r.body).unwrap()["error"]["code"], -32700);
    let body =
        br#"{"jsonrpc":"2.0","id":"x","method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{}]}}}"#;
    let r = decode("POST", "/rpc", &[("content-type", "application/json"), ("a2a-version", "1.0")], body).unwrap_err();
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!((v["id"].as_str(), v["error"]["code"].as_i64()), (Some("x"), Some(-32602)));
    assert_eq!(v["error"]["data"][1]["fieldViolations"][0]["field"], "message.parts[0]");
    // gRPC: an unknown method is UNIMPLEMENTED; a truncated frame is INVALID_ARGUMENT.
    let g = [("content-type", "application/grpc"), ("a2a-version", "1.0")];
    let r = decode("POST", "/lf.a2a.v1.A2AService/Nope", &g, b"").unwrap_err();
    assert_eq!(r.trailer("grpc-status"), Some("12"));
    let r = decode("POST", "/lf.a2a.v1.A2AService/GetTask", &g, &[0, 0, 0, 9, 1]).unwrap_err();
    assert_eq!(r.trailer("grpc-status"), Some("3"));
}

#[test]
fn any_2xx_answer_is_success_on_http_json() {
    let bodies = [
        (ProtocolVersion::V1_0, r#"{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}"#),
        // v0.3 HTTP+JSON speaks the ProtoJSON of the v0.3 proto.
        (ProtocolVersion::V0_3, r#"{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}"#),
    ];
    for (version, body) in bodies {
        let mut c = client(Binding::HttpJson, version);
        let p = c.prepare(Operation::Task(Request::GetTask(v1::GetTaskRequest { id: "t".into(), ..Default::default() }))).unwrap();
        for status in [200, 201] {
            let answer = HttpResponse { status, body: body.as_bytes().to_vec(), ..Default::default() };
            match c.parse(&p, &answer) {
                Ok(a2a_wire::engine::Response::Task(t)) => assert_eq!(t.status.unwrap().state, v1::TaskState::Completed as i32),
                other => panic!("{version} {status}: {other:?}"),
            }
        }
        // A 3xx is not.
        let answer = HttpResponse { status: 302, body: body.as_bytes().to_vec(), ..Default::default() };
        assert!(c.parse(&p, &answer).is_err());
    }
}

#[test]
fn http_json_subscribe_tries_the_other_verb_after_a_method_error() {
    // v1.0 sends POST (what the deployed v1.0 servers route), v0.3 GET; each retries once with
    // the other verb after a 405.
    for (version, first, second) in [(ProtocolVersion::V1_0, "POST", "GET"), (ProtocolVersion::V0_3, "GET", "POST")] {
        let mut c = client(Binding::HttpJson, version);
        let mut p = c
            .prepare(Operation::Task(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: "t1".into(), ..Default::default() })))
            .unwrap();
        assert_eq!(p.request.method, first, "{version:?}");
        let not_allowed = HttpResponse { status: 405, ..Default::default() };
        let retry = c.retry(&mut p, &not_allowed).expect("a retry with the other verb");
        assert_eq!(retry.method, second, "{version:?}");
        assert!(c.retry(&mut p, &not_allowed).is_none(), "only once");
        assert_eq!(p.method, Method::SubscribeToTask);
    }
}

#[test]
fn every_a2a_error_is_produced_and_recognised_on_every_binding() {
    use a2a_wire::error::{A2aError, ERROR_TABLE};
    let net = Net::new();
    for (name, mut c) in all_clients() {
        let prepared = c.prepare(Operation::Task(Request::GetTask(v1::GetTaskRequest { id: "t".into(), ..Default::default() }))).unwrap();
        // The call as the server decoded it.
        let after_scheme = prepared.request.url.split_once("://").map_or(prepared.request.url.as_str(), |(_, r)| r);
        let target = after_scheme.find('/').map_or("/", |i| &after_scheme[i..]).to_string();
        let headers: Vec<(&str, &str)> = prepared.request.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let call = net
            .endpoint
            .decode(&HttpRequest { method: prepared.request.method, target: &target, headers: &headers, body: &prepared.request.body })
            .unwrap();
        for row in ERROR_TABLE {
            let sent = A2aError::new(row.kind).meta("taskId", "t");
            let answer = net.endpoint.respond(&call, Err(sent.clone()));
            match c.parse(&prepared, &answer) {
                Err(ClientError::Remote(Received::A2a(got))) => {
                    assert_eq!(got.kind(), row.kind, "{name}: {:?}", row.kind);
                    // v0.3 JSON-RPC sends no `data` when its code names the error (the two
                    // a2a-go lines read `data` in shapes that exclude each other), so the
                    // metadata stays behind there.
                    let v03_coded = c.interface().binding == Binding::JsonRpc
                        && c.interface().version.is_legacy()
                        && ((-32007..=-32001).contains(&row.jsonrpc) || (-32603..=-32600).contains(&row.jsonrpc) || row.jsonrpc == -32700);
                    if row.reason.is_some() && !v03_coded {
                        assert_eq!(
                            got.metadata().get("taskId").map(String::as_str),
                            Some("t"),
                            "{name}: {:?} keeps its metadata",
                            row.kind
                        );
                    }
                }
                other => panic!("{name}: {:?} came back as {other:?}", row.kind),
            }
        }
    }
}

#[test]
fn review_fixes_escaped_method_names_body_tenants_and_v03_extension_headers() {
    let endpoint = Endpoint::new(card()).unwrap();
    // A JSON string with escapes is still the method name.
    let body = br#"{"jsonrpc":"2.0","id":7,"method":"tasks\/get","params":{"id":"t"}}"#;
    let call =
        endpoint.decode(&HttpRequest { method: "POST", target: "/rpc", headers: &[("content-type", "application/json")], body }).unwrap();
    assert_eq!((call.method(), call.jsonrpc_id.clone()), (Method::GetTask, serde_json::json!(7)));
    // On a route without a tenant prefix, the body's tenant stays.
    let body = br#"{"tenant":"acme","message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}"#;
    let call = endpoint
        .decode(&HttpRequest {
            method: "POST",
            target: "/rest/message:send",
            headers: &[("content-type", "application/json"), ("a2a-version", "1.0")],
            body,
        })
        .unwrap();
    assert_eq!(call.operation.tenant(), "acme");
    // v0.3 clients send X-A2A-Extensions.
    let c = client(Binding::JsonRpc, ProtocolVersion::V0_3).with_extensions(&["urn:x"]);
    let mut c = c;
    let p = c.prepare(send(msg("m", "x", ""))).unwrap();
    assert!(p.request.headers.iter().any(|(k, v)| k == "X-A2A-Extensions" && v == "urn:x"));
    let mut c1 = client(Binding::JsonRpc, ProtocolVersion::V1_0).with_extensions(&["urn:x"]);
    let p = c1.prepare(send(msg("m", "x", ""))).unwrap();
    assert!(p.request.headers.iter().any(|(k, _)| k == "A2A-Extensions"));
}

/// The call `req` decodes to at `endpoint`.
fn decode_call(endpoint: &Endpoint, req: &OutgoingRequest) -> Call {
    let after_scheme = req.url.split_once("://").map_or(req.url.as_str(), |(_, r)| r);
    let target = after_scheme.find('/').map_or("/", |i| &after_scheme[i..]).to_string();
    let headers: Vec<(&str, &str)> = req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    endpoint.decode(&HttpRequest { method: req.method, target: &target, headers: &headers, body: &req.body }).unwrap()
}

#[test]
fn an_event_encoded_once_frames_each_stream_of_its_shape_as_a_fresh_encode_would() {
    let endpoint = Endpoint::new(card()).unwrap();
    let subscribe = || Operation::Task(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: "t1".into(), ..Default::default() }));
    // Two subscribers on every binding and version; the second of each made its call after
    // another one, so JSON-RPC ids differ between the two.
    let mut calls = Vec::new();
    for round in 0..2 {
        for (what, mut c) in all_clients() {
            if round == 1 {
                c.prepare(subscribe()).unwrap();
            }
            let call = decode_call(&endpoint, &c.prepare(subscribe()).unwrap().request);
            calls.push((format!("{what} #{round}"), call));
        }
    }
    let jsonrpc: Vec<&Call> = calls.iter().map(|(_, c)| c).filter(|c| c.binding == Binding::JsonRpc).collect();
    assert!(jsonrpc.iter().any(|a| jsonrpc.iter().any(|b| a.version == b.version && a.jsonrpc_id != b.jsonrpc_id)), "the ids differ");

    let update = v1::TaskArtifactUpdateEvent {
        task_id: "t1".into(),
        context_id: "c1".into(),
        artifact: Some(v1::Artifact {
            artifact_id: "a".into(),
            parts: vec![v1::Part { content: Some(v1::part::Content::Text("line one\nline two".into())), ..Default::default() }],
            ..Default::default()
        }),
        append: true,
        ..Default::default()
    };
    let events = [
        v1::StreamResponse { payload: Some(v1::stream_response::Payload::ArtifactUpdate(update)) },
        // No payload: the v0.3 shapes cannot carry it (an error event, or a skipped gRPC message).
        v1::StreamResponse { payload: None },
    ];
    let id = Some(a2a_wire::engine::EventId { epoch: 3, seq: 7 });
    for event in &events {
        for (wa, a) in &calls {
            let shared = endpoint.encode_event(a, event);
            for (wb, b) in &calls {
                let same = endpoint.event_shape(a) == endpoint.event_shape(b);
                assert_eq!(same, a.binding == b.binding && a.version == b.version, "{wa} / {wb}: the shape is the binding and version");
                if !same {
                    continue;
                }
                let mut framed = Vec::new();
                shared.frame(&b.jsonrpc_id, id, &mut framed);
                let mut fresh = Vec::new();
                endpoint.stream_event(b, event, id, &mut fresh);
                assert_eq!(String::from_utf8_lossy(&framed), String::from_utf8_lossy(&fresh), "{wa} encoded, framed for {wb}");
                if b.binding == Binding::JsonRpc {
                    let text = String::from_utf8(framed).unwrap();
                    let data = text.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
                    let v: serde_json::Value = serde_json::from_str(data).unwrap();
                    assert_eq!(v["id"], b.jsonrpc_id, "{wb}: its own JSON-RPC id");
                    assert!(text.starts_with("id: "), "{wb}: the SSE id");
                }
            }
        }
    }
}

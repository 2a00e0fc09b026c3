//! `core::service` driven by a plain synchronous loop: no runtime, no sockets, no threads, a
//! virtual clock. The client side is the core's step-function client ([`Exchange`]); the
//! agent is a synchronous script of the demo agent's behaviours (`transport/src/demo.rs`)
//! scheduled on the virtual clock; a webhook receiver that fails first is retried on that
//! clock. These are the scenarios the smol end-to-end tests run over sockets.

use a2a_wire::card::{select_interface, Binding, ClientSupport};
use a2a_wire::client::{Client, ClientError, Exchange, Finished, Step};
use a2a_wire::engine::{AgentEvent, CallId, MemoryStore, RunEnd, RunId, Storage, StoreInMemory, StoreRequest, WriteBatch};
use a2a_wire::error::{A2aError, ErrorKind, Received};
use a2a_wire::http::{HttpRequest, OutgoingRequest};
use a2a_wire::op::{Operation, Request, Response};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::service::{Output, Service, ServiceConfig};
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire::webhook::{self, Outcome};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

const ADDR: &str = "127.0.0.1:7420";
/// Pause between the chunks of `slow`, in virtual milliseconds.
const CHUNK_MS: u64 = 60;

fn card() -> v1::AgentCard {
    a2a_wire_smol::demo::card(ADDR.parse().unwrap())
}

fn text_part(t: &str) -> v1::Part {
    v1::Part { content: Some(v1::part::Content::Text(t.into())), ..Default::default() }
}

fn texts(parts: &[v1::Part]) -> String {
    parts.iter().filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.as_str()) } else { None }).collect()
}

fn artifact_text(t: &v1::Task) -> String {
    t.artifacts.iter().map(|a| texts(&a.parts)).collect()
}

fn status(state: v1::TaskState, message: Option<v1::Message>) -> AgentEvent {
    AgentEvent::status(v1::TaskStatus { state: state as i32, message, timestamp: None })
}

fn artifact(id: &str, text: &str, append: bool, last: bool) -> AgentEvent {
    AgentEvent::Artifact {
        metadata: None,
        artifact: v1::Artifact { artifact_id: id.into(), name: "echo".into(), parts: vec![text_part(text)], ..Default::default() },
        append,
        last_chunk: last,
    }
}

/// What the agent does at a time.
enum Action {
    Event(AgentEvent),
    End,
}

/// The answer to one call, as the service produced it, and how much of it the client has.
#[derive(Default)]
struct Answer {
    head: Option<(u16, Vec<(String, String)>)>,
    head_given: bool,
    chunks: VecDeque<Vec<u8>>,
    end: Option<Vec<(String, String)>>,
}

impl Answer {
    fn has_news(&self) -> bool {
        (self.head.is_some() && !self.head_given) || (self.head_given && (!self.chunks.is_empty() || self.end.is_some()))
    }
}

struct Delivery {
    at_ms: u64,
    request: OutgoingRequest,
}

struct World {
    service: Service,
    now_ms: u64,
    agenda: Vec<(u64, RunId, Action)>,
    canceled: BTreeSet<RunId>,
    answers: BTreeMap<CallId, Answer>,
    /// Attempts the receiver fails (503) before it accepts.
    receiver_fails: usize,
    attempts: Vec<u64>,
    deliveries: Vec<Delivery>,
    /// Credentials to principals, when the service authenticates.
    tokens: BTreeMap<String, String>,
    refused_events: Vec<A2aError>,
    /// The external store, when the service has one, and every batch written to it.
    store: Option<StoreInMemory>,
    batches: Vec<WriteBatch>,
}

fn ts(ms: u64) -> Timestamp {
    Timestamp { seconds: 1_800_000_000 + (ms / 1000) as i64, nanos: ((ms % 1000) * 1_000_000) as i32 }
}

fn ms_of(t: &Timestamp) -> u64 {
    ((t.seconds - 1_800_000_000) as u64) * 1000 + (t.nanos as u64) / 1_000_000
}

impl World {
    fn new() -> Self {
        Self::with(ServiceConfig::new(card()))
    }

    fn with(config: ServiceConfig) -> Self {
        Self::over(config, MemoryStore::new().into(), None)
    }

    /// A world whose service writes to an external store (answered here, in memory).
    fn with_external_store(config: ServiceConfig) -> Self {
        Self::over(config, Storage::external(1 << 20), Some(StoreInMemory::new()))
    }

    fn over(config: ServiceConfig, storage: Storage, store: Option<StoreInMemory>) -> Self {
        World {
            service: Service::new(config, storage, 7, ts(0)).unwrap(),
            now_ms: 0,
            agenda: Vec::new(),
            canceled: BTreeSet::new(),
            answers: BTreeMap::new(),
            receiver_fails: 0,
            attempts: Vec::new(),
            deliveries: Vec::new(),
            tokens: BTreeMap::new(),
            refused_events: Vec::new(),
            store,
            batches: Vec::new(),
        }
    }

    fn now(&self) -> Timestamp {
        ts(self.now_ms)
    }

    fn schedule(&mut self, after_ms: u64, run: RunId, action: Action) {
        self.agenda.push((self.now_ms + after_ms, run, action));
    }

    /// The demo agent's behaviours, as a script on the virtual clock.
    fn start_run(&mut self, e: a2a_wire::engine::Execution) {
        let run = e.id;
        let text = texts(&e.message.parts);
        let reply = |n: &str| v1::Message {
            message_id: format!("{}-{n}", e.message.message_id),
            role: v1::Role::Agent as i32,
            parts: vec![text_part(if n == "question" { "What should I echo?" } else { &text })],
            ..Default::default()
        };
        if e.follow_up {
            self.schedule(0, run, Action::Event(artifact("echo", &text, false, true)));
            self.schedule(0, run, Action::Event(status(v1::TaskState::Completed, None)));
        } else {
            match text.as_str() {
                "need-input" => self.schedule(0, run, Action::Event(status(v1::TaskState::InputRequired, Some(reply("question"))))),
                "slow" => {
                    self.schedule(0, run, Action::Event(status(v1::TaskState::Working, None)));
                    for (i, piece) in ["one ", "two ", "three"].iter().enumerate() {
                        let k = i as u64 + 1;
                        self.schedule(CHUNK_MS * k, run, Action::Event(artifact("slow", piece, i > 0, i == 2)));
                    }
                    self.schedule(CHUNK_MS * 3, run, Action::Event(status(v1::TaskState::Completed, None)));
                }
                "message-only" => self.schedule(0, run, Action::Event(AgentEvent::Message(reply("reply")))),
                "late" => {
                    // Completes, then (wrongly) publishes once more: the event must be refused.
                    self.schedule(0, run, Action::Event(status(v1::TaskState::Completed, None)));
                    self.schedule(1, run, Action::Event(artifact("late", "too late", false, true)));
                }
                "crash" => {
                    self.schedule(0, run, Action::Event(status(v1::TaskState::Working, None)));
                    self.agenda.push((self.now_ms + 1, run, Action::End));
                    return;
                }
                _ => {
                    self.schedule(0, run, Action::Event(artifact("echo", &text, false, true)));
                    self.schedule(0, run, Action::Event(status(v1::TaskState::Completed, None)));
                }
            }
        }
        let last = self.agenda.iter().filter(|(_, r, _)| *r == run).map(|(t, _, _)| *t).max().unwrap_or(self.now_ms);
        self.agenda.push((last, run, Action::End));
    }

    /// Carries out every output the service has.
    fn drain(&mut self) {
        while let Some(out) = self.service.poll_output() {
            if std::env::var("SERVICE_TRACE").is_ok() {
                eprintln!("{} ms: {out:?}", self.now_ms);
            }
            match out {
                Output::Answer { call, response } => {
                    let a = self.answers.entry(call).or_default();
                    a.head = Some((response.status, response.headers));
                    if !response.body.is_empty() {
                        a.chunks.push_back(response.body);
                    }
                    a.end = Some(response.trailers);
                }
                Output::StreamHead { call, head } => self.answers.entry(call).or_default().head = Some((head.status, head.headers)),
                Output::StreamFrame { call, bytes } => self.answers.entry(call).or_default().chunks.push_back(bytes),
                Output::StreamEnd { call, bytes, trailers } => {
                    let a = self.answers.entry(call).or_default();
                    if !bytes.is_empty() {
                        a.chunks.push_back(bytes);
                    }
                    a.end = Some(trailers);
                }
                Output::Authenticate(req) => {
                    let token = req.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("authorization")).map(|(_, v)| v.clone());
                    let verdict = match token {
                        None => Ok(None),
                        Some(t) => match self.tokens.get(t.trim_start_matches("Bearer ")) {
                            Some(p) => Ok(Some(p.clone())),
                            None => Err(A2aError::with_message(ErrorKind::Unauthenticated, "unknown token")),
                        },
                    };
                    let now = self.now();
                    self.service.handle_authenticated(req.call, verdict, now);
                }
                Output::StartRun(start) => self.start_run(start.execution),
                Output::CancelRun { run, .. } => {
                    self.canceled.insert(run);
                }
                Output::SendWebhook(attempt) => {
                    self.attempts.push(self.now_ms);
                    let outcome = if self.receiver_fails > 0 {
                        self.receiver_fails -= 1;
                        Outcome::Status(503)
                    } else {
                        self.deliveries.push(Delivery { at_ms: self.now_ms, request: attempt.request });
                        Outcome::Delivered
                    };
                    let now = self.now();
                    self.service.handle_webhook_result(attempt.id, outcome, now);
                }
                Output::Store(request) => {
                    if let StoreRequest::Write { batch, .. } = &request {
                        self.batches.push(batch.clone());
                    }
                    let store = self.store.as_mut().expect("a store request comes only from an external store");
                    let reply = store.answer(request);
                    let now = self.now();
                    self.service.handle_store(reply, now);
                }
                other => panic!("an output this test does not know: {other:?}"),
            }
        }
    }

    /// Moves the clock to the next thing that happens and does it; false when nothing will.
    fn advance(&mut self) -> bool {
        let next_agent = self.agenda.iter().map(|(t, _, _)| *t).min();
        let next_timer = self.service.poll_timeout().map(|t| ms_of(&t));
        let Some(next) = [next_agent, next_timer].into_iter().flatten().min() else { return false };
        self.now_ms = self.now_ms.max(next);
        let now = self.now();
        // Agent actions due now, in the order they were scheduled.
        let mut due = Vec::new();
        let mut i = 0;
        while i < self.agenda.len() {
            if self.agenda[i].0 <= self.now_ms {
                due.push(self.agenda.remove(i));
            } else {
                i += 1;
            }
        }
        for (_, run, action) in due {
            if self.canceled.contains(&run) {
                continue;
            }
            match action {
                Action::Event(ev) => {
                    if std::env::var("SERVICE_TRACE").is_ok() {
                        eprintln!("{} ms: agent {run:?} {ev:?}", self.now_ms);
                    }
                    if let Err(e) = self.service.handle_agent_event(run, ev, now) {
                        self.refused_events.push(e);
                    }
                }
                Action::End => {
                    // "crash" runs fail instead of returning.
                    let crashed = self
                        .service
                        .engine()
                        .run_task(run)
                        .and_then(|t| self.service.engine().task(t))
                        .is_some_and(|t| t.record.task.history.first().is_some_and(|m| texts(&m.parts) == "crash"));
                    let end = if crashed { RunEnd::Failed("the agent crashed".into()) } else { RunEnd::Finished };
                    self.service.handle_run_end(run, end, now);
                }
            }
        }
        self.service.handle_timeout(now);
        true
    }

    /// Runs the world until the answer of `call` has something new for the client.
    fn progress(&mut self, call: CallId) {
        for _ in 0..10_000 {
            self.drain();
            if self.answers.get(&call).is_some_and(Answer::has_news) {
                return;
            }
            assert!(
                self.advance(),
                "call {call:?} is stuck: nothing more will happen ({} outputs seen)",
                self.answers.get(&call).map_or(0, |a| a.chunks.len())
            );
        }
        panic!("call {call:?} did not progress");
    }

    /// Hands `req` to the service as an HTTP request.
    fn send(&mut self, req: &OutgoingRequest) -> CallId {
        let rest = req.url.split_once("://").map_or(req.url.as_str(), |(_, r)| r);
        let target = rest.find('/').map_or("/", |i| &rest[i..]);
        let headers: Vec<(&str, &str)> = req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let http = HttpRequest { method: req.method, target, headers: &headers, body: &req.body };
        let now = self.now();
        let call = self.service.handle_request(&http, now);
        self.answers.insert(call, Answer::default());
        call
    }

    /// Runs one operation to its end; a stream is left after `leave_after` events.
    fn run(&mut self, client: &mut Client, op: Operation, leave_after: Option<usize>) -> (Finished, Vec<v1::StreamResponse>, Exchange) {
        let mut x = match client.start(op) {
            Ok(x) => x,
            Err(e) => {
                return (
                    Finished::Failed(e),
                    Vec::new(),
                    Client::new(client.interface().clone()).start(Operation::GetExtendedAgentCard(Default::default())).unwrap(),
                )
            }
        };
        let mut call = None;
        let mut events = Vec::new();
        loop {
            let now = self.now();
            match x.poll(now) {
                Step::Send(req) => call = Some(self.send(&req)),
                Step::Read => {
                    let c = call.expect("a request was sent");
                    self.progress(c);
                    let a = self.answers.get_mut(&c).unwrap();
                    if !a.head_given {
                        a.head_given = true;
                        let (status, headers) = a.head.clone().unwrap();
                        x.handle_head(status, &headers);
                    } else if let Some(chunk) = a.chunks.pop_front() {
                        x.handle_body(&chunk);
                    } else if let Some(trailers) = a.end.take() {
                        x.handle_end(&trailers);
                    }
                }
                Step::Event(ev) => {
                    events.push(ev);
                    if leave_after == Some(events.len()) {
                        self.service.handle_caller_gone(call.unwrap());
                        return (Finished::StreamEnded, events, x);
                    }
                }
                Step::Done(f) => return (f, events, x),
                other => panic!("{other:?}"),
            }
        }
    }

    fn call(&mut self, client: &mut Client, request: Request) -> Result<Response, ClientError> {
        self.run(client, Operation::Task(request), None).0.into_result()
    }
}

fn message(text: &str, task_id: &str) -> v1::SendMessageRequest {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: format!("m-{n}"),
            role: v1::Role::User as i32,
            parts: vec![text_part(text)],
            task_id: task_id.into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn clients() -> Vec<(String, Client)> {
    let card = card();
    let mut out = Vec::new();
    for binding in [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc] {
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            let support = ClientSupport { bindings: vec![binding.clone()], versions: vec![version] };
            let iface = select_interface(&card, &support).unwrap();
            assert_eq!((&iface.binding, iface.version), (&binding, version));
            out.push((format!("{binding:?} {version}"), Client::new(iface)));
        }
    }
    out
}

fn task_of(r: Response) -> v1::Task {
    match r {
        Response::SendMessage(v1::SendMessageResponse { payload: Some(v1::send_message_response::Payload::Task(t)) }) => t,
        Response::Task(t) => t,
        other => panic!("expected a task: {other:?}"),
    }
}

fn kind_of(e: &ClientError) -> Option<ErrorKind> {
    match e {
        ClientError::Remote(Received::A2a(a)) => Some(a.kind()),
        _ => None,
    }
}

fn state(t: &v1::Task) -> Option<v1::TaskState> {
    t.status.as_ref().and_then(|s| v1::TaskState::try_from(s.state).ok())
}

#[test]
fn every_interface_sends_gets_lists_cancels_and_reports_errors() {
    let mut w = World::new();
    for (what, mut client) in clients() {
        let legacy = what.ends_with("0.3");
        let task = task_of(w.call(&mut client, Request::SendMessage(message("hello", ""))).unwrap());
        assert_eq!((state(&task), artifact_text(&task).as_str()), (Some(v1::TaskState::Completed), "hello"), "{what}");

        let got = task_of(w.call(&mut client, Request::GetTask(v1::GetTaskRequest { id: task.id.clone(), ..Default::default() })).unwrap());
        assert_eq!((got.id.as_str(), artifact_text(&got).as_str()), (task.id.as_str(), "hello"), "{what}");

        let e = w.call(&mut client, Request::CancelTask(v1::CancelTaskRequest { id: task.id.clone(), ..Default::default() })).unwrap_err();
        assert_eq!(kind_of(&e), Some(ErrorKind::TaskNotCancelable), "{what}: {e}");
        let e = w.call(&mut client, Request::GetTask(v1::GetTaskRequest { id: "no-such-task".into(), ..Default::default() })).unwrap_err();
        assert_eq!(kind_of(&e), Some(ErrorKind::TaskNotFound), "{what}: {e}");

        match w.call(&mut client, Request::SendMessage(message("message-only", ""))).unwrap() {
            Response::SendMessage(v1::SendMessageResponse { payload: Some(v1::send_message_response::Payload::Message(m)) }) => {
                assert_eq!((m.role, texts(&m.parts).as_str()), (v1::Role::Agent as i32, "message-only"), "{what}")
            }
            other => panic!("{what}: expected a direct message, got {other:?}"),
        }

        let list =
            w.call(&mut client, Request::ListTasks(v1::ListTasksRequest { context_id: task.context_id.clone(), ..Default::default() }));
        if legacy {
            assert!(matches!(list, Err(ClientError::Local(_))), "{what}: ListTasks does not exist in v0.3");
        } else {
            let Response::ListTasks(list) = list.unwrap() else { panic!("{what}") };
            assert_eq!(list.tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), vec![task.id.as_str()], "{what}");
        }

        // Cancel a task that is still working: CANCELED, and the run is told to stop.
        let mut req = message("slow", "");
        req.configuration = Some(v1::SendMessageConfiguration { return_immediately: true, ..Default::default() });
        let working = task_of(w.call(&mut client, Request::SendMessage(req)).unwrap());
        let stopped_before = w.canceled.len();
        let canceled = task_of(
            w.call(&mut client, Request::CancelTask(v1::CancelTaskRequest { id: working.id.clone(), ..Default::default() })).unwrap(),
        );
        assert_eq!(state(&canceled), Some(v1::TaskState::Canceled), "{what}");
        assert_eq!(w.canceled.len(), stopped_before + 1, "{what}: the run was told to stop");
    }
}

#[test]
fn streams_assemble_appended_chunks_and_follow_ups_complete_input_required_tasks() {
    let mut w = World::new();
    for (what, mut client) in clients() {
        let (end, events, x) = w.run(&mut client, Operation::Task(Request::SendStreamingMessage(message("slow", ""))), None);
        assert_eq!(end, Finished::StreamEnded, "{what}");
        let artifacts = events.iter().filter(|e| matches!(e.payload, Some(v1::stream_response::Payload::ArtifactUpdate(_)))).count();
        assert_eq!(artifacts, 3, "{what}");
        assert_eq!(x.task().state(), Some(v1::TaskState::Completed), "{what}");
        assert_eq!(artifact_text(x.task().task()), "one two three", "{what}");
        assert_eq!(x.task().task().artifacts.len(), 1, "{what}: chunks appended to one artifact");

        let asked = task_of(w.call(&mut client, Request::SendMessage(message("need-input", ""))).unwrap());
        assert_eq!(state(&asked), Some(v1::TaskState::InputRequired), "{what}");
        let done = task_of(w.call(&mut client, Request::SendMessage(message("the answer", &asked.id))).unwrap());
        assert_eq!((done.id.as_str(), state(&done)), (asked.id.as_str(), Some(v1::TaskState::Completed)), "{what}");
        assert_eq!(artifact_text(&done), "the answer", "{what}");

        // A streamed direct reply.
        let (end, _, x) = w.run(&mut client, Operation::Task(Request::SendStreamingMessage(message("message-only", ""))), None);
        assert_eq!(end, Finished::StreamEnded, "{what}");
        assert!(x.direct_reply().is_some(), "{what}");
    }
}

#[test]
fn a_client_leaving_a_stream_does_not_cancel_the_task_and_can_resubscribe() {
    let mut w = World::new();
    for (what, mut client) in clients() {
        let (_, events, _) = w.run(&mut client, Operation::Task(Request::SendStreamingMessage(message("slow", ""))), Some(1));
        let Some(v1::stream_response::Payload::Task(task)) = &events[0].payload else { panic!("{what}: the first event is the task") };
        let sub = Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() });
        let (end, events, x) = w.run(&mut client, Operation::Task(sub), None);
        assert_eq!(end, Finished::StreamEnded, "{what}");
        assert!(matches!(events[0].payload, Some(v1::stream_response::Payload::Task(_))), "{what}: the current task first");
        assert_eq!(x.task().state(), Some(v1::TaskState::Completed), "{what}");
        let got = task_of(w.call(&mut client, Request::GetTask(v1::GetTaskRequest { id: task.id.clone(), ..Default::default() })).unwrap());
        assert_eq!(artifact_text(&got), "one two three", "{what}");
        // Subscribing to a finished task is refused before any stream starts.
        let sub = Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() });
        let (end, _, _) = w.run(&mut client, Operation::Task(sub), None);
        assert!(matches!(&end, Finished::Failed(e) if kind_of(e) == Some(ErrorKind::UnsupportedOperation)), "{what}: {end:?}");
    }
}

#[test]
fn push_configs_on_every_interface_and_a_failing_receiver_retried_on_the_virtual_clock() {
    let mut config = ServiceConfig::new(card());
    config.webhooks = webhook::Policy { attempts: 4, backoff_ms: 500, max_backoff_ms: 60_000, jitter_percent: 0, max_queued: 16 };
    let mut w = World::with(config);
    for (what, mut client) in clients() {
        let legacy = what.ends_with("0.3");
        let asked = task_of(w.call(&mut client, Request::SendMessage(message("need-input", ""))).unwrap());
        let cfg = v1::TaskPushNotificationConfig {
            task_id: asked.id.clone(),
            url: "http://receiver.test/hook".into(),
            token: "secret".into(),
            ..Default::default()
        };
        let Response::PushConfig(created) = w.call(&mut client, Request::CreatePushConfig(cfg)).unwrap() else { panic!("{what}") };
        assert!(!created.id.is_empty(), "{what}: the server names the config");
        let get = v1::GetTaskPushNotificationConfigRequest { task_id: asked.id.clone(), id: created.id.clone(), ..Default::default() };
        let Response::PushConfig(got) = w.call(&mut client, Request::GetPushConfig(get)).unwrap() else { panic!("{what}") };
        assert_eq!(got.url, "http://receiver.test/hook", "{what}");
        let list = v1::ListTaskPushNotificationConfigsRequest { task_id: asked.id.clone(), ..Default::default() };
        let Response::PushConfigs(all) = w.call(&mut client, Request::ListPushConfigs(list.clone())).unwrap() else { panic!("{what}") };
        assert_eq!(all.configs.len(), 1, "{what}");

        // The receiver is down for the first two attempts of the first delivery.
        w.receiver_fails = 2;
        w.attempts.clear();
        w.deliveries.clear();
        let start = w.now_ms;
        let done = task_of(w.call(&mut client, Request::SendMessage(message("now echo", &asked.id))).unwrap());
        assert_eq!(state(&done), Some(v1::TaskState::Completed), "{what}");
        while w.service.poll_timeout().is_some() || w.attempts.len() < 3 {
            w.drain();
            if !w.advance() {
                break;
            }
        }
        w.drain();
        // Attempts at +0, +500, +1500 (backoff doubling), then the queue drains in order.
        let offsets: Vec<u64> = w.attempts.iter().map(|t| t - start).collect();
        assert_eq!(&offsets[..3], &[0, 500, 1500], "{what}: {offsets:?}");
        assert!(!w.deliveries.is_empty(), "{what}: delivered in the end");
        for d in &w.deliveries {
            assert!(d.request.headers.iter().any(|(k, v)| k == "X-A2A-Notification-Token" && v == "secret"), "{what}");
            assert!(d.request.headers.iter().any(|(k, v)| k == "A2A-Notification-Token" && v == "secret"), "{what}: both spellings");
            let ctype = d.request.headers.iter().find(|(k, _)| k == "Content-Type").map(|(_, v)| v.as_str());
            assert_eq!(ctype, Some(if legacy { "application/json" } else { "application/a2a+json" }), "{what}");
        }
        let last = String::from_utf8(w.deliveries.last().unwrap().request.body.clone()).unwrap();
        assert!(last.contains(if legacy { r#""state":"completed""# } else { "TASK_STATE_COMPLETED" }), "{what}: {last}");
        assert!(w.deliveries.windows(2).all(|p| p[0].at_ms <= p[1].at_ms));

        let del = v1::DeleteTaskPushNotificationConfigRequest { task_id: asked.id.clone(), id: created.id.clone(), ..Default::default() };
        assert_eq!(w.call(&mut client, Request::DeletePushConfig(del)).unwrap(), Response::Deleted, "{what}");
        let Response::PushConfigs(all) = w.call(&mut client, Request::ListPushConfigs(list)).unwrap() else { panic!("{what}") };
        assert!(all.configs.is_empty(), "{what}");
    }
}

#[test]
fn with_an_external_store_each_delivery_is_written_in_the_batch_of_its_event() {
    // A server that dies after a batch is written must not lose the deliveries of the
    // events in it: each delivery is queued in the same write as its event.
    let mut w = World::with_external_store(ServiceConfig::new(card()));
    let (_, mut client) = clients().into_iter().next().unwrap();
    let mut req = message("slow", "");
    req.configuration = Some(v1::SendMessageConfiguration {
        task_push_notification_config: Some(v1::TaskPushNotificationConfig {
            url: "http://receiver.test/hook".into(),
            ..Default::default()
        }),
        ..Default::default()
    });
    let asked = task_of(w.call(&mut client, Request::SendMessage(req)).unwrap());
    assert_eq!(state(&asked), Some(v1::TaskState::Completed));
    for _ in 0..1000 {
        w.drain();
        if !w.advance() {
            break;
        }
    }
    let events: usize = w.batches.iter().map(|b| b.events.iter().filter(|e| e.task_id == asked.id).count()).sum();
    assert!(events >= 4, "the run's events were written ({events})");
    for (n, b) in w.batches.iter().enumerate() {
        let with_events = b.events.iter().filter(|e| e.task_id == asked.id).count();
        let queued = b.webhooks_queued.iter().filter(|q| q.queue.starts_with(&format!("{}\u{0}", asked.id))).count();
        assert_eq!(queued, with_events, "batch {n}: {with_events} events of the task but {queued} deliveries");
    }
    assert_eq!(w.deliveries.len(), events, "every event delivered once");
    let last = String::from_utf8(w.deliveries.last().unwrap().request.body.clone()).unwrap();
    assert!(last.contains("TASK_STATE_COMPLETED"), "{last}");
}

fn card_request(w: &mut World, method: &str, headers: &[(&str, &str)]) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let http = HttpRequest { method, target: "/.well-known/agent-card.json", headers, body: b"" };
    let now = w.now();
    let call = w.service.handle_request(&http, now);
    match w.service.poll_output() {
        Some(Output::Answer { call: c, response }) if c == call => (response.status, response.headers, response.body),
        other => panic!("{other:?}"),
    }
}

fn header<'a>(h: &'a [(String, String)], name: &str) -> &'a str {
    h.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str()).unwrap_or_default()
}

#[test]
fn the_card_is_answered_with_etag_last_modified_cache_control_and_conditional_requests() {
    let mut w = World::new();
    let (status, h, body) = card_request(&mut w, "GET", &[]);
    assert_eq!(status, 200);
    assert_eq!(header(&h, "cache-control"), "public, max-age=300");
    assert_eq!(header(&h, "last-modified"), "Fri, 15 Jan 2027 08:00:00 GMT");
    let etag = header(&h, "etag").to_string();
    assert!(a2a_wire::card::read_card(&body).unwrap().card.supported_interfaces.len() == 6);
    // HEAD answers like GET (the host sends the head only).
    let (status, hh, hbody) = card_request(&mut w, "HEAD", &[]);
    assert_eq!((status, header(&hh, "etag"), hbody.len()), (200, etag.as_str(), body.len()));
    assert_eq!(card_request(&mut w, "GET", &[("If-None-Match", &etag)]).0, 304);
    assert_eq!(card_request(&mut w, "GET", &[("If-None-Match", &format!("W/{etag}"))]).0, 304, "weak comparison");
    assert_eq!(card_request(&mut w, "GET", &[("If-None-Match", "\"other\"")]).0, 200);
    assert_eq!(card_request(&mut w, "GET", &[("If-Modified-Since", "Fri, 15 Jan 2027 08:00:00 GMT")]).0, 304);
    assert_eq!(card_request(&mut w, "GET", &[("If-Modified-Since", "Thu, 14 Jan 2027 08:00:00 GMT")]).0, 200);
    // If-None-Match decides alone when both are sent.
    let both = [("If-None-Match", "\"other\""), ("If-Modified-Since", "Fri, 15 Jan 2027 08:00:00 GMT")];
    assert_eq!(card_request(&mut w, "GET", &both).0, 200);
    let (status, h, body) = card_request(&mut w, "GET", &[("If-None-Match", &etag)]);
    assert!(body.is_empty() && header(&h, "content-length").is_empty() && status == 304);
    assert_eq!(card_request(&mut w, "POST", &[]).0, 405);
}

#[test]
fn the_extended_card_goes_only_to_callers_the_host_authenticated_each_its_own() {
    let mut c = card();
    c.capabilities.as_mut().unwrap().extended_agent_card = Some(true);
    let mut config = ServiceConfig::new(c.clone());
    config.authenticate = true;
    let mut extended = c;
    extended.name = "the extended card".into();
    config.extended_card = Some(extended.clone());
    // Bob's identity has a card of its own; every other authenticated caller gets the default.
    config.extended_cards.insert("bob".into(), v1::AgentCard { name: "bob's extended card".into(), ..extended });
    let mut w = World::with(config);
    w.tokens.insert("good".into(), "alice".into());
    w.tokens.insert("bobs".into(), "bob".into());
    for (what, client) in clients() {
        let iface = client.interface().clone();
        let mut anonymous = Client::new(iface.clone());
        let (end, _, _) = w.run(&mut anonymous, Operation::GetExtendedAgentCard(Default::default()), None);
        assert!(matches!(&end, Finished::Failed(e) if kind_of(e) == Some(ErrorKind::Unauthenticated)), "{what}: {end:?}");
        // An Authorization header the host rejects is not enough.
        let mut forged = Client::new(iface.clone()).with_header("Authorization", "Bearer forged");
        let (end, _, _) = w.run(&mut forged, Operation::GetExtendedAgentCard(Default::default()), None);
        assert!(matches!(&end, Finished::Failed(e) if kind_of(e) == Some(ErrorKind::Unauthenticated)), "{what}: {end:?}");
        let mut alice = Client::new(iface.clone()).with_header("Authorization", "Bearer good");
        let (end, _, _) = w.run(&mut alice, Operation::GetExtendedAgentCard(Default::default()), None);
        let Finished::Answer(Response::AgentCard(got)) = end else { panic!("{what}: {end:?}") };
        assert_eq!(got.name, "the extended card", "{what}");
        let mut bob = Client::new(iface.clone()).with_header("Authorization", "Bearer bobs");
        let (end, _, _) = w.run(&mut bob, Operation::GetExtendedAgentCard(Default::default()), None);
        let Finished::Answer(Response::AgentCard(got)) = end else { panic!("{what}: {end:?}") };
        assert_eq!(got.name, "bob's extended card", "{what}: each identity gets its own");
        // The principal reaches the engine: alice's task is hers.
        let t = task_of(w.call(&mut alice, Request::SendMessage(message("hello", ""))).unwrap());
        assert_eq!(w.service.engine().task(&t.id).unwrap().owner.as_deref(), Some("alice"), "{what}");
    }
}

#[test]
fn late_events_are_refused_a_crashed_run_fails_its_task_and_a_lagging_stream_is_cut_off() {
    let mut w = World::new();
    let (_, mut client) = clients().remove(0);
    let t = task_of(w.call(&mut client, Request::SendMessage(message("late", ""))).unwrap());
    w.drain();
    while w.advance() {
        w.drain();
    }
    assert_eq!(w.refused_events.len(), 1, "the event after completion was refused");
    assert_eq!(w.refused_events[0].kind(), ErrorKind::InvalidAgentResponse);
    let got = task_of(w.call(&mut client, Request::GetTask(v1::GetTaskRequest { id: t.id, ..Default::default() })).unwrap());
    assert!(got.artifacts.is_empty(), "nothing changed");

    let crashed = task_of(w.call(&mut client, Request::SendMessage(message("crash", ""))).unwrap());
    assert_eq!(state(&crashed), Some(v1::TaskState::Failed));

    // A stream whose subscriber falls behind ends with Unavailable; the task goes on.
    let mut x = client.start(Operation::Task(Request::SendStreamingMessage(message("slow", "")))).unwrap();
    let Step::Send(req) = x.poll(w.now()) else { panic!() };
    let call = w.send(&req);
    w.progress(call);
    w.service.handle_slow_consumer(call);
    w.drain();
    let a = w.answers.get_mut(&call).unwrap();
    let (status, headers) = a.head.clone().unwrap();
    x.handle_head(status, &headers);
    while let Some(chunk) = a.chunks.pop_front() {
        x.handle_body(&chunk);
    }
    x.handle_end(&a.end.take().unwrap());
    let mut end = None;
    while end.is_none() {
        match x.poll(w.now()) {
            Step::Done(f) => end = Some(f),
            Step::Event(_) => {}
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(&end, Some(Finished::Failed(e)) if kind_of(e) == Some(ErrorKind::Unavailable)), "{end:?}");
    let tid = x.task().task().id.clone();
    while w.advance() {
        w.drain();
    }
    let got = task_of(w.call(&mut client, Request::GetTask(v1::GetTaskRequest { id: tid, ..Default::default() })).unwrap());
    assert_eq!(state(&got), Some(v1::TaskState::Completed), "the task went on without its subscriber");
}

#[test]
fn shutdown_ends_open_streams_and_refuses_new_calls() {
    let mut w = World::new();
    let (_, mut client) = clients().remove(0);
    let mut x = client.start(Operation::Task(Request::SendStreamingMessage(message("slow", "")))).unwrap();
    let Step::Send(req) = x.poll(w.now()) else { panic!() };
    let call = w.send(&req);
    w.progress(call);
    w.service.shutdown();
    w.drain();
    let a = &w.answers[&call];
    assert!(a.end.is_some(), "the stream ended");
    let last = String::from_utf8(a.chunks.back().cloned().unwrap()).unwrap();
    assert!(last.contains("UNAVAILABLE"), "{last}");
    assert!(!w.canceled.is_empty(), "the run was told to stop");
    let e = w.call(&mut client, Request::GetTask(v1::GetTaskRequest { id: "x".into(), ..Default::default() })).unwrap_err();
    assert_eq!(kind_of(&e), Some(ErrorKind::Unavailable));
    assert_eq!(w.service.open_calls(), 0);
}

#[test]
fn a_run_started_just_before_shutdown_is_known_to_the_host_before_it_is_stopped() {
    let mut w = World::new();
    let (_, client) = clients().remove(0);
    let mut client = client;
    let mut x = client.start(Operation::Task(Request::SendMessage(message("slow", "")))).unwrap();
    let Step::Send(req) = x.poll(w.now()) else { panic!() };
    let call = w.send(&req);
    // Nothing drained between the request and the shutdown.
    w.service.shutdown();
    let outs: Vec<Output> = std::iter::from_fn(|| w.service.poll_output()).collect();
    let start = outs.iter().position(|o| matches!(o, Output::StartRun(_))).expect("the run is started");
    let stop = outs.iter().position(|o| matches!(o, Output::CancelRun { .. })).expect("and stopped");
    assert!(start < stop, "{outs:?}");
    assert!(outs.iter().any(|o| matches!(o, Output::Answer { call: c, .. } if *c == call)), "the caller is answered");
    // A slow-consumer report about a call that is not a stream changes nothing.
    w.service.handle_slow_consumer(CallId(call.0 + 1000));
    assert!(w.service.poll_output().is_none());
}

/// A request head without its body, as a host that waits to send `100 Continue` has it.
fn head<'a>(method: &'a str, target: &'a str, headers: &'a [(&'a str, &'a str)]) -> HttpRequest<'a> {
    HttpRequest { method, target, headers, body: b"" }
}

#[test]
fn a_head_alone_is_refused_only_for_what_its_body_cannot_change() {
    use a2a_wire::service::HeadCheck;
    let mut c = card();
    c.capabilities.as_mut().unwrap().streaming = Some(false);
    let mut config = ServiceConfig::new(c);
    config.authenticate = true;
    config.limits.max_body = 1000;
    let w = World::with(config);
    let json = [("A2A-Version", "1.0"), ("Content-Type", "application/json")];
    let status = |check: HeadCheck| match check {
        HeadCheck::Answer(r) => r.status,
        other => panic!("{other:?}"),
    };
    // No such route, or no such verb: the endpoint's own answers.
    assert_eq!(status(w.service.check_head(&head("POST", "/nowhere", &json), Some(10))), 404);
    assert_eq!(status(w.service.check_head(&head("GET", "/a2a/jsonrpc", &json), Some(10))), 405);
    assert_eq!(status(w.service.check_head(&head("PUT", "/a2a/rest/message:send", &json), Some(10))), 405);
    // A body over the limit, a version the interface does not serve: in the binding's shape.
    let HeadCheck::Answer(r) = w.service.check_head(&head("POST", "/a2a/jsonrpc", &json), Some(1001)) else { panic!() };
    assert!(String::from_utf8_lossy(&r.body).contains("exceeds the limit"), "{r:?}");
    let old = [("A2A-Version", "9.9")];
    let HeadCheck::Answer(r) = w.service.check_head(&head("POST", "/a2a/jsonrpc", &old), Some(10)) else { panic!() };
    assert!(String::from_utf8_lossy(&r.body).contains("-32009"), "VersionNotSupported as a JSON-RPC error: {r:?}");
    assert_eq!(status(w.service.check_head(&head("POST", "/a2a/rest/message:send", &old), Some(10))), 400);
    // HTTP+JSON names the operation in its route: a capability the card lacks is known now.
    let HeadCheck::Answer(r) = w.service.check_head(&head("POST", "/a2a/rest/message:stream", &json), Some(10)) else { panic!() };
    assert!(String::from_utf8_lossy(&r.body).contains("UNSUPPORTED_OPERATION"), "{r:?}");
    // ... and so are the credentials to judge, with the operation and tenant they are for.
    let auth = [("A2A-Version", "1.0"), ("Authorization", "Bearer x")];
    let HeadCheck::Authenticate(h) = w.service.check_head(&head("POST", "/a2a/rest/acme/message:send", &auth), Some(10)) else { panic!() };
    let req = h.request();
    assert_eq!((req.method, req.tenant.as_str(), req.call), (a2a_wire::op::Method::SendMessage, "acme", CallId(0)));
    assert_eq!(req.headers, vec![(String::from("Authorization"), String::from("Bearer x"))]);
    let refusal = w.service.refuse_head(&h, A2aError::new(ErrorKind::Unauthenticated));
    assert_eq!(refusal.status, 401);
    assert!(String::from_utf8_lossy(&refusal.body).contains("UNAUTHENTICATED"));
    // JSON-RPC names its method in the body: nothing more to judge from the head; nor from
    // the card's path, or a chunked body whose size is not known yet.
    assert_eq!(w.service.check_head(&head("POST", "/a2a/jsonrpc", &json), Some(10)), HeadCheck::Continue);
    assert_eq!(w.service.check_head(&head("GET", "/.well-known/agent-card.json", &[]), None), HeadCheck::Continue);
    assert!(matches!(w.service.check_head(&head("POST", "/a2a/rest/message:send", &auth), None), HeadCheck::Authenticate(_)));
    // Without authentication the same head is let through.
    let w = World::new();
    assert_eq!(w.service.check_head(&head("POST", "/a2a/rest/message:send", &auth), Some(10)), HeadCheck::Continue);
}

//! Several engines over one external store, as several servers over one database: the
//! events one engine publishes reach the subscribers of another through the store (written
//! with their numbers, read back on a change notice), once, in order, with the same ids; a
//! subscriber resumes on any engine; a cancel on one stops the run on another.

use a2a_wire::engine::{
    AgentEvent, CallContext, CallId, Engine, EngineConfig, EventId, Output, Request, Storage, StoreInMemory, StoreReply, StoreRequest,
    WriteBatch,
};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::v1::{self, TaskState};
use a2a_wire::webhook::{Change, Queued};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

/// The store's epoch, as a database would hand it to every server.
const EPOCH: u32 = 0x00c0_ffee;

/// One server: an engine, the store it shares, and how many of the store's change notices it
/// has been told.
struct Replica {
    engine: Engine,
    store: Rc<RefCell<StoreInMemory>>,
    heard: usize,
    next_call: u64,
    /// Milliseconds, shared by every replica of a test (one wall clock).
    clock: Rc<Cell<i64>>,
}

impl Replica {
    fn new(store: &Rc<RefCell<StoreInMemory>>, key: u128) -> Replica {
        Self::with(store, key, None, &Rc::new(Cell::new(1_700_000_000_000)))
    }

    fn with(store: &Rc<RefCell<StoreInMemory>>, key: u128, lease: Option<Duration>, clock: &Rc<Cell<i64>>) -> Replica {
        Self::configured(store, key, EngineConfig { event_epoch: Some(EPOCH), lease, ..EngineConfig::default() }, clock)
    }

    fn configured(store: &Rc<RefCell<StoreInMemory>>, key: u128, config: EngineConfig, clock: &Rc<Cell<i64>>) -> Replica {
        let mut engine = Engine::new(config, Storage::external(1 << 20), key);
        let mut r = Replica {
            engine: Engine::new(EngineConfig::default(), Storage::external(0), 0),
            store: store.clone(),
            heard: 0,
            next_call: key as u64 * 1000,
            clock: clock.clone(),
        };
        let now = r.tick();
        engine.start(now);
        r.engine = engine;
        r.pump();
        r
    }

    fn tick(&mut self) -> Timestamp {
        self.clock.set(self.clock.get() + 1);
        let ms = self.clock.get();
        Timestamp { seconds: ms / 1000, nanos: (ms % 1000) as i32 * 1_000_000 }
    }

    /// Time passed: whatever timers are due fire.
    fn timers(&mut self) -> Vec<Output> {
        let now = self.tick();
        if self.engine.poll_timeout().is_some_and(|t| (t.seconds, t.nanos) <= (now.seconds, now.nanos)) {
            self.engine.handle_timeout(now);
        }
        self.pump()
    }

    /// Carries out the engine's store requests until it has nothing left to do.
    fn pump(&mut self) -> Vec<Output> {
        let now = self.tick();
        let mut out = Vec::new();
        loop {
            if let Some(o) = self.engine.poll_output() {
                out.push(o);
            } else if let Some(r) = self.engine.poll_store() {
                let reply = self.store.borrow_mut().answer(r);
                let _ = self.engine.handle_store(reply, now);
            } else {
                return out;
            }
        }
    }

    /// Hears the change notices written since the last time (its own among them, as a
    /// database's NOTIFY reaches every listener), then drains.
    fn hear(&mut self) -> Vec<Output> {
        let changes: Vec<(String, u64)> = self.store.borrow().changes[self.heard..].to_vec();
        self.heard += changes.len();
        let now = self.tick();
        for (task, version) in changes {
            self.engine.handle_task_changed(&task, version, now);
        }
        self.pump()
    }

    fn call_with(&mut self, ctx: CallContext, req: Request) -> (CallId, Vec<Output>) {
        self.next_call += 1;
        let id = CallId(self.next_call);
        let now = self.tick();
        self.engine.handle_call(id, ctx, req, now);
        (id, self.pump())
    }

    fn call(&mut self, req: Request) -> (CallId, Vec<Output>) {
        self.call_with(CallContext::default(), req)
    }

    fn agent(&mut self, task: &str, ev: AgentEvent) -> Vec<Output> {
        let now = self.tick();
        let run = self.engine.current_run(task).expect("the task runs here");
        self.engine.handle_agent(run, ev, now).expect("the event is accepted");
        self.pump()
    }
}

fn text(t: &str) -> v1::Part {
    v1::Part { content: Some(v1::part::Content::Text(t.into())), ..Default::default() }
}

fn send(id: &str) -> v1::SendMessageRequest {
    let m = v1::Message { message_id: id.into(), role: v1::Role::User as i32, parts: vec![text("go")], ..Default::default() };
    v1::SendMessageRequest { message: Some(m), ..Default::default() }
}

fn status(state: TaskState) -> AgentEvent {
    AgentEvent::status(v1::TaskStatus { state: state as i32, ..Default::default() })
}

fn artifact(n: u32) -> AgentEvent {
    AgentEvent::Artifact {
        metadata: None,
        artifact: v1::Artifact { artifact_id: format!("a{n}"), parts: vec![text(&n.to_string())], ..Default::default() },
        append: false,
        last_chunk: true,
    }
}

fn stream(out: &[Output], call: CallId) -> Vec<(EventId, v1::StreamResponse)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Stream { call: c, event, id } if *c == call => Some((id.expect("a task event has an id"), (**event).clone())),
            _ => None,
        })
        .collect()
}

fn ended(out: &[Output], call: CallId) -> Option<Option<a2a_wire::error::A2aError>> {
    out.iter().find_map(|o| match o {
        Output::StreamEnd { call: c, error } if *c == call => Some(error.clone()),
        _ => None,
    })
}

fn execution(out: &[Output]) -> a2a_wire::engine::Execution {
    out.iter()
        .find_map(|o| match o {
            Output::Execute(e) => Some(e.clone()),
            _ => None,
        })
        .expect("the agent is asked to run")
}

fn subscribe(id: &str) -> Request {
    Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: id.into(), ..Default::default() })
}

fn shared() -> Rc<RefCell<StoreInMemory>> {
    Rc::new(RefCell::new(StoreInMemory::new()))
}

#[test]
fn a_subscriber_on_another_engine_gets_every_event_once_in_order_with_the_same_ids() {
    let store = shared();
    let (mut a, mut b) = (Replica::new(&store, 1), Replica::new(&store, 2));
    let (sa, out) = a.call(Request::SendStreamingMessage(send("m1")));
    let task = execution(&out).task_id;
    let mut on_a = stream(&out, sa);
    on_a.extend(stream(&a.agent(&task, status(TaskState::Working)), sa));
    // B subscribes: it reads the task from the store, the snapshot carrying event 1.
    let (sb, out) = b.call(subscribe(&task));
    let mut on_b = stream(&out, sb);
    assert_eq!(on_b.len(), 1, "{out:?}");
    assert_eq!(on_b[0].0, EventId { epoch: EPOCH, seq: 1 }, "the snapshot holds A's first event");
    // A publishes on; B hears of it and reads the new events back.
    for n in 1..=3 {
        on_a.extend(stream(&a.agent(&task, artifact(n)), sa));
    }
    a.hear();
    on_b.extend(stream(&b.hear(), sb));
    let out = a.agent(&task, status(TaskState::Completed));
    on_a.extend(stream(&out, sa));
    assert_eq!(ended(&out, sa), Some(None));
    let out = b.hear();
    on_b.extend(stream(&out, sb));
    assert_eq!(ended(&out, sb), Some(None), "B's subscriber ends at the terminal state too");
    // A's stream: the Task (0), then 1..=5. B's: the Task (1), then 2..=5, the same events.
    let ids = |s: &[(EventId, v1::StreamResponse)]| s.iter().map(|(id, _)| id.seq).collect::<Vec<_>>();
    assert_eq!(ids(&on_a), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(ids(&on_b), vec![1, 2, 3, 4, 5]);
    assert!(on_a.iter().chain(&on_b).all(|(id, _)| id.epoch == EPOCH), "one epoch: ids mean the same on both");
    assert_eq!(on_a[2..], on_b[1..], "the same events with the same ids");
}

#[test]
fn a_subscriber_resumes_on_another_engine_from_the_events_in_the_store() {
    let store = shared();
    let (mut a, mut b) = (Replica::new(&store, 1), Replica::new(&store, 2));
    let (sa, out) = a.call(Request::SendStreamingMessage(send("m1")));
    let task = execution(&out).task_id;
    let first = stream(&a.agent(&task, status(TaskState::Working)), sa);
    let last_seen = first.last().expect("the Task and the Working update").0;
    assert_eq!(last_seen.seq, 1);
    // The client's connection to A drops; A goes on.
    a.engine.handle_call_closed(sa);
    for n in 1..=3 {
        a.agent(&task, artifact(n));
    }
    // It comes back through the balancer to B, with the id of the last event it saw.
    let ctx = CallContext { last_event_id: Some(last_seen.to_string()), ..Default::default() };
    let (sb, out) = b.call_with(ctx, subscribe(&task));
    let replay = stream(&out, sb);
    assert_eq!(replay.iter().map(|(id, _)| id.seq).collect::<Vec<_>>(), vec![2, 3, 4], "exactly what it missed, no Task: {out:?}");
    assert!(replay.iter().all(|(_, e)| matches!(e.payload, Some(v1::stream_response::Payload::ArtifactUpdate(_)))));
    assert!(ended(&out, sb).is_none());
    // Then live, from A through the store.
    a.agent(&task, status(TaskState::Completed));
    let out = b.hear();
    assert_eq!(stream(&out, sb).iter().map(|(id, _)| id.seq).collect::<Vec<_>>(), vec![5]);
    assert_eq!(ended(&out, sb), Some(None));
}

#[test]
fn a_cancel_on_another_engine_stops_the_run_and_ends_the_streams_where_it_runs() {
    let store = shared();
    let (mut a, mut b) = (Replica::new(&store, 1), Replica::new(&store, 2));
    let (sa, out) = a.call(Request::SendStreamingMessage(send("m1")));
    let exec = execution(&out);
    a.agent(&exec.task_id, status(TaskState::Working));
    let (cancel, out) = b.call(Request::CancelTask(v1::CancelTaskRequest { id: exec.task_id.clone(), ..Default::default() }));
    assert!(out.iter().any(|o| matches!(o, Output::Respond { call, result: Ok(_) } if *call == cancel)), "{out:?}");
    let out = a.hear();
    assert!(
        out.iter().any(|o| matches!(o, Output::CancelExecution { run, .. } if *run == exec.id)),
        "the run on A is told to stop: {out:?}"
    );
    let events = stream(&out, sa);
    let last = events.last().expect("A's stream gets the cancel");
    let Some(v1::stream_response::Payload::StatusUpdate(u)) = &last.1.payload else { panic!("{events:?}") };
    assert_eq!(u.status.as_ref().map(|s| s.state), Some(TaskState::Canceled as i32));
    assert_eq!(last.0.seq, 2, "numbered after A's own event");
    assert_eq!(ended(&out, sa), Some(None));
    assert!(a.engine.current_run(&exec.task_id).is_none());
    // The run's late events change nothing.
    assert!(a.engine.handle_agent(exec.id, artifact(9), Timestamp::default()).is_err());
}

#[test]
fn an_idle_copy_another_engine_changed_is_read_again() {
    let store = shared();
    let (mut a, mut b) = (Replica::new(&store, 1), Replica::new(&store, 2));
    let (_, out) = a.call(Request::SendMessage(send("m1")));
    let exec = execution(&out);
    a.agent(&exec.task_id, status(TaskState::InputRequired));
    let get = || Request::GetTask(v1::GetTaskRequest { id: exec.task_id.clone(), ..Default::default() });
    let state = |out: &[Output]| {
        out.iter()
            .find_map(|o| match o {
                Output::Respond { result: Ok(a2a_wire::engine::Response::Task(t)), .. } => t.status.as_ref().map(|s| s.state),
                _ => None,
            })
            .expect("a task")
    };
    b.call(Request::CancelTask(v1::CancelTaskRequest { id: exec.task_id.clone(), ..Default::default() }));
    a.hear();
    let (_, out) = a.call(get());
    assert_eq!(state(&out), TaskState::Canceled as i32, "A dropped its stale copy on the notice");
}

#[test]
fn a_store_read_request_names_the_task_and_the_last_event_known() {
    let mut s = StoreInMemory::new();
    let r = s.answer(StoreRequest::Events { id: a2a_wire::engine::StoreRequestId(1), task: "nope".into(), after: 0 });
    assert_eq!(r, StoreReply::Events { id: a2a_wire::engine::StoreRequestId(1), task: None, events: Vec::new() });
}

#[test]
fn a_task_whose_server_died_is_claimed_after_its_lease_and_resumed_on_another() {
    let store = shared();
    let clock = Rc::new(Cell::new(1_700_000_000_000));
    let lease = Some(Duration::from_secs(6));
    let mut a = Replica::with(&store, 1, lease, &clock);
    let mut b = Replica::with(&store, 2, lease, &clock);
    let (_, out) = a.call(Request::SendStreamingMessage(send("m1")));
    let exec = execution(&out);
    a.agent(&exec.task_id, status(TaskState::Working));
    // While A lives it renews its lease: for a minute, B claims nothing.
    for _ in 0..600 {
        clock.set(clock.get() + 100);
        a.timers();
        let out = b.timers();
        assert!(!out.iter().any(|o| matches!(o, Output::Execute(_))), "B took a task A still runs: {out:?}");
    }
    // A dies. After its lease runs out, B claims the task and resumes its run.
    drop(a);
    let died = clock.get();
    let mut resumed = None;
    for _ in 0..200 {
        clock.set(clock.get() + 100);
        if let Some(e) = b.timers().into_iter().find_map(|o| match o {
            Output::Execute(e) => Some(e),
            _ => None,
        }) {
            resumed = Some(e);
            break;
        }
    }
    let e = resumed.expect("B resumes the run");
    assert!(e.resumed && e.task_id == exec.task_id, "{e:?}");
    let waited = clock.get() - died;
    assert!((4_000..=8_100).contains(&waited), "claimed {waited} ms after the last renewal could have been");
    b.agent(&exec.task_id, status(TaskState::Completed));
    assert_eq!(store.borrow().get(&exec.task_id).and_then(|t| t.record.state()), Some(TaskState::Completed));
}

#[test]
fn a_server_whose_lease_was_claimed_stops_its_run() {
    let store = shared();
    let clock = Rc::new(Cell::new(1_700_000_000_000));
    let lease = Some(Duration::from_secs(6));
    let mut a = Replica::with(&store, 1, lease, &clock);
    let mut b = Replica::with(&store, 2, lease, &clock);
    let (_, out) = a.call(Request::SendStreamingMessage(send("m1")));
    let exec = execution(&out);
    a.agent(&exec.task_id, status(TaskState::Working));
    // A stalls (no timers: no renewals) past its lease; B claims the task.
    clock.set(clock.get() + 7_000);
    assert!(b.timers().iter().any(|o| matches!(o, Output::Execute(e) if e.resumed)));
    // A wakes up: its renewal finds the lease gone, and its run stops.
    let out = a.timers();
    assert!(out.iter().any(|o| matches!(o, Output::CancelExecution { run, .. } if *run == exec.id)), "{out:?}");
    assert!(a.engine.current_run(&exec.task_id).is_none());
}

#[test]
fn a_stream_whose_write_met_another_engines_cancel_gets_the_cancel_not_an_error() {
    let store = shared();
    let (mut a, mut b) = (Replica::new(&store, 1), Replica::new(&store, 2));
    let (sa, out) = a.call(Request::SendStreamingMessage(send("m1")));
    let exec = execution(&out);
    let shown = stream(&a.agent(&exec.task_id, status(TaskState::Working)), sa);
    assert_eq!(shown.last().map(|(id, _)| id.seq), Some(1));
    b.call(Request::CancelTask(v1::CancelTaskRequest { id: exec.task_id.clone(), ..Default::default() }));
    // A's run publishes before A hears of the cancel: its write is refused.
    let now = a.tick();
    a.engine.handle_agent(exec.id, artifact(1), now).expect("accepted (A does not know yet)");
    let out = a.pump();
    let events = stream(&out, sa);
    assert_eq!(events.len(), 1, "the refused artifact is never shown, the cancel is: {out:?}");
    let (id, ev) = &events[0];
    let Some(v1::stream_response::Payload::StatusUpdate(u)) = &ev.payload else { panic!("{ev:?}") };
    assert_eq!(u.status.as_ref().map(|s| s.state), Some(TaskState::Canceled as i32));
    assert_eq!(id.seq, 2, "the other engine's number");
    assert_eq!(ended(&out, sa), Some(None), "ended by the terminal state, not by an error");
    assert!(out.iter().any(|o| matches!(o, Output::CancelExecution { run, .. } if *run == exec.id)));
}

#[test]
fn the_deliveries_of_events_whose_write_met_another_engines_change_are_dropped() {
    let store = shared();
    let clock = Rc::new(Cell::new(1_700_000_000_000));
    let config = EngineConfig { event_epoch: Some(EPOCH), push_notifications: true, ..EngineConfig::default() };
    let mut a = Replica::configured(&store, 1, config.clone(), &clock);
    let mut b = Replica::configured(&store, 2, config, &clock);
    let mut req = send("m1");
    req.configuration = Some(v1::SendMessageConfiguration {
        task_push_notification_config: Some(v1::TaskPushNotificationConfig {
            url: "http://receiver.test/hook".into(),
            ..Default::default()
        }),
        return_immediately: true,
        ..Default::default()
    });
    let (_, out) = a.call(Request::SendMessage(req));
    let exec = execution(&out);
    a.agent(&exec.task_id, status(TaskState::Working));
    b.call(Request::CancelTask(v1::CancelTaskRequest { id: exec.task_id.clone(), ..Default::default() }));
    // A's run publishes before A hears of the cancel. Its delivery is queued at once (as the
    // service does with the engine's webhook output), then the write with both is refused;
    // a second event published meanwhile loses its webhook output too.
    let now = a.tick();
    a.engine.handle_agent(exec.id, artifact(1), now).expect("accepted (A does not know yet)");
    let (mut out, mut batches, mut seq) = (Vec::new(), Vec::<WriteBatch>::new(), 100);
    // (The Working status's webhook output went by unqueued in a.agent: only the artifact counts.)
    loop {
        if let Some(o) = a.engine.poll_output() {
            if let Output::Webhook { config, .. } = &o {
                seq += 1;
                let queue = format!("{}\u{0}{}", config.task_id, config.id);
                let q = Queued { seq, queue, url: config.url.clone(), headers: Vec::new(), body: Vec::new() };
                a.engine.webhook_changed(Change::Queued(q));
            }
            out.push(o);
        } else if let Some(r) = a.engine.poll_store() {
            if let StoreRequest::Write { batch, .. } = &r {
                batches.push(batch.clone());
                if batches.len() == 1 {
                    // While that write is out, the run publishes again; the refusal comes
                    // before the service took this event's webhook output.
                    a.engine.handle_agent(exec.id, artifact(2), now).expect("accepted (A does not know yet)");
                }
            }
            let reply = store.borrow_mut().answer(r);
            let _ = a.engine.handle_store(reply, now);
        } else {
            break;
        }
    }
    assert_eq!(seq, 101, "one delivery queued, for the first artifact; the second's output was dropped: {out:?}");
    assert!(batches.first().is_some_and(|b| b.webhooks_queued.iter().any(|q| q.seq == 101)), "written with its event");
    assert!(out.iter().any(|o| matches!(o, Output::DropWebhooks(s) if s == &[101])), "dropped with the refused event: {out:?}");
    assert!(batches[1..].iter().all(|b| b.webhooks_queued.iter().all(|q| q.seq != 101)), "never written again");
    assert!(a.engine.webhook_durable(101), "nothing waits for it");
}

#[test]
fn a_task_claimed_for_an_agent_that_does_not_resume_runs_fails_with_the_reason() {
    let store = shared();
    let clock = Rc::new(Cell::new(1_700_000_000_000));
    let lease = Some(Duration::from_secs(6));
    let config = EngineConfig { event_epoch: Some(EPOCH), lease, resume_lost_runs: false, ..EngineConfig::default() };
    let mut a = Replica::configured(&store, 1, config.clone(), &clock);
    let mut b = Replica::configured(&store, 2, config, &clock);
    let (_, out) = a.call(Request::SendStreamingMessage(send("m1")));
    let exec = execution(&out);
    a.agent(&exec.task_id, status(TaskState::Working));
    drop(a);
    // After A's lease runs out B claims the task: no run starts, the task fails, saying why.
    let mut seen = Vec::new();
    for _ in 0..200 {
        clock.set(clock.get() + 100);
        seen.extend(b.timers());
        if store.borrow().get(&exec.task_id).and_then(|t| t.record.state()) == Some(TaskState::Failed) {
            break;
        }
    }
    assert!(!seen.iter().any(|o| matches!(o, Output::Execute(_))), "no run resumed: {seen:?}");
    let stored = store.borrow().get(&exec.task_id).cloned().expect("the task is stored");
    assert_eq!(stored.record.state(), Some(TaskState::Failed), "the claimed task failed");
    let said: String = stored
        .record
        .task
        .status
        .and_then(|s| s.message)
        .map(|m| {
            m.parts.iter().filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.clone()) } else { None }).collect()
        })
        .unwrap_or_default();
    assert!(said.contains("does not resume"), "the status message says why: {said:?}");
}

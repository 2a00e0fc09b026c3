//! The task engine's rules, driven in memory with a virtual clock.

use a2a_wire::engine::{
    AgentEvent, CallContext, CallId, Engine, EngineConfig, EventId, EventLogLimits, MemoryStore, Output, Request, Response, RunEnd, RunId,
};
use a2a_wire::error::ErrorKind;
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::v1::{self, TaskState};

struct Harness {
    engine: Engine,
    now: i64,
    next_call: u64,
}

fn text(t: &str) -> v1::Part {
    v1::Part { content: Some(v1::part::Content::Text(t.into())), ..Default::default() }
}

fn user(id: &str, t: &str) -> v1::Message {
    v1::Message { message_id: id.into(), role: v1::Role::User as i32, parts: vec![text(t)], ..Default::default() }
}

fn agent_msg(id: &str, t: &str) -> v1::Message {
    v1::Message { message_id: id.into(), role: v1::Role::Agent as i32, parts: vec![text(t)], ..Default::default() }
}

fn status(state: TaskState) -> AgentEvent {
    AgentEvent::status(v1::TaskStatus { state: state as i32, ..Default::default() })
}

fn send(m: v1::Message) -> v1::SendMessageRequest {
    v1::SendMessageRequest { message: Some(m), ..Default::default() }
}

impl Harness {
    fn new() -> Self {
        Self::with(EngineConfig::default())
    }
    fn with(config: EngineConfig) -> Self {
        Harness { engine: Engine::new(config, MemoryStore::new(), 42), now: 1_700_000_000, next_call: 1 }
    }
    fn tick(&mut self) -> Timestamp {
        self.now += 1;
        Timestamp { seconds: self.now, nanos: 0 }
    }
    fn drain(&mut self) -> Vec<Output> {
        std::iter::from_fn(|| self.engine.poll_output()).collect()
    }
    fn call_as(&mut self, principal: Option<&str>, req: Request) -> (CallId, Vec<Output>) {
        let id = CallId(self.next_call);
        self.next_call += 1;
        let now = self.tick();
        let ctx = CallContext { principal: principal.map(String::from), ..Default::default() };
        self.engine.handle_call(id, ctx, req, now);
        (id, self.drain())
    }
    fn call(&mut self, req: Request) -> (CallId, Vec<Output>) {
        self.call_as(None, req)
    }
    /// An event of the task's current run.
    fn agent(&mut self, task: &str, ev: AgentEvent) -> Vec<Output> {
        let now = self.tick();
        let run = self.engine.current_run(task).expect("the task has a current run");
        self.engine.handle_agent(run, ev, now).expect("agent event accepted");
        self.drain()
    }
    /// Run `run` returns.
    fn done(&mut self, run: RunId) -> Vec<Output> {
        let now = self.tick();
        self.engine.handle_run_end(run, RunEnd::Finished, now);
        self.drain()
    }
    /// One unary answer.
    fn answer(out: &[Output], call: CallId) -> Result<Response, a2a_wire::error::A2aError> {
        let mut found = out.iter().filter_map(|o| match o {
            Output::Respond { call: c, result } if *c == call => Some(result.clone()),
            _ => None,
        });
        let r = found.next().expect("the call was answered");
        assert!(found.next().is_none(), "answered twice");
        r
    }
    fn execution(out: &[Output]) -> a2a_wire::engine::Execution {
        out.iter()
            .find_map(|o| match o {
                Output::Execute(e) => Some(e.clone()),
                _ => None,
            })
            .expect("the agent is asked to run")
    }
    fn stream_events(out: &[Output], call: CallId) -> Vec<v1::StreamResponse> {
        out.iter()
            .filter_map(|o| match o {
                Output::Stream { call: c, event, .. } if *c == call => Some((**event).clone()),
                _ => None,
            })
            .collect()
    }
    fn ended(out: &[Output], call: CallId) -> bool {
        out.iter().any(|o| matches!(o, Output::StreamEnd { call: c, .. } if *c == call))
    }
    fn get(&mut self, id: &str) -> Result<v1::Task, a2a_wire::error::A2aError> {
        let (c, out) = self.call(Request::GetTask(v1::GetTaskRequest { id: id.into(), ..Default::default() }));
        Self::answer(&out, c).map(|r| match r {
            Response::Task(t) => t,
            other => panic!("not a task: {other:?}"),
        })
    }
}

fn task_of(r: Response) -> v1::Task {
    match r {
        Response::SendMessage(v1::SendMessageResponse { payload: Some(v1::send_message_response::Payload::Task(t)) }) => t,
        other => panic!("expected a task, got {other:?}"),
    }
}

fn state_of(t: &v1::Task) -> TaskState {
    TaskState::try_from(t.status.as_ref().unwrap().state).unwrap()
}

#[test]
fn blocking_send_answers_at_a_terminal_state_with_server_ids() {
    let mut h = Harness::new();
    let (call, out) = h.call(Request::SendMessage(send(user("m1", "hi"))));
    assert!(out.iter().all(|o| !matches!(o, Output::Respond { .. })), "blocking: no answer before the agent settles");
    let exec = Harness::execution(&out);
    assert_eq!(exec.task_id.len(), 36);
    assert!(!exec.context_id.is_empty(), "the server generates a contextId");
    let out = h.agent(&exec.task_id, status(TaskState::Working));
    assert!(out.iter().all(|o| !matches!(o, Output::Respond { .. })));
    let art = v1::Artifact { artifact_id: "a".into(), parts: vec![text("out")], ..Default::default() };
    h.agent(&exec.task_id, AgentEvent::Artifact { metadata: None, artifact: art, append: false, last_chunk: true });
    let out = h.agent(&exec.task_id, status(TaskState::Completed));
    let t = task_of(Harness::answer(&out, call).unwrap());
    assert_eq!(state_of(&t), TaskState::Completed);
    assert_eq!((t.id.as_str(), t.context_id.as_str()), (exec.task_id.as_str(), exec.context_id.as_str()));
    assert_eq!(t.artifacts.len(), 1);
    assert_eq!(t.history[0].message_id, "m1");
}

#[test]
fn blocking_send_also_answers_at_an_interrupted_state_and_return_immediately_at_once() {
    let mut h = Harness::new();
    let (call, out) = h.call(Request::SendMessage(send(user("m1", "book"))));
    let exec = Harness::execution(&out);
    let out = h.agent(&exec.task_id, status(TaskState::InputRequired));
    assert_eq!(state_of(&task_of(Harness::answer(&out, call).unwrap())), TaskState::InputRequired);

    let mut req = send(user("m2", "book"));
    req.configuration = Some(v1::SendMessageConfiguration { return_immediately: true, ..Default::default() });
    let (call, out) = h.call(Request::SendMessage(req));
    let exec = Harness::execution(&out);
    let out = h.agent(&exec.task_id, status(TaskState::Working));
    let t = task_of(Harness::answer(&out, call).unwrap());
    assert_eq!(state_of(&t), TaskState::Submitted, "answered as soon as the task exists");
}

#[test]
fn a_direct_reply_is_a_message_and_stores_no_task() {
    let mut h = Harness::new();
    let (call, out) = h.call(Request::SendMessage(send(user("m1", "hello"))));
    let exec = Harness::execution(&out);
    let out = h.agent(&exec.task_id, AgentEvent::Message(agent_msg("r1", "hi there")));
    match Harness::answer(&out, call).unwrap() {
        Response::SendMessage(v1::SendMessageResponse { payload: Some(v1::send_message_response::Payload::Message(m)) }) => {
            assert_eq!(m.context_id, exec.context_id, "server messages carry the contextId");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(h.get(&exec.task_id).unwrap_err().kind(), ErrorKind::TaskNotFound);
}

#[test]
fn follow_ups_continue_the_task_and_take_its_context() {
    let mut h = Harness::new();
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "book"))));
    let exec = Harness::execution(&out);
    h.agent(
        &exec.task_id,
        AgentEvent::status(v1::TaskStatus {
            state: TaskState::InputRequired as i32,
            message: Some(agent_msg("q1", "which date?")),
            timestamp: None,
        }),
    );
    let mut follow = user("m2", "tomorrow");
    follow.task_id = exec.task_id.clone();
    let (call, out) = h.call(Request::SendMessage(send(follow)));
    let exec2 = Harness::execution(&out);
    assert!(exec2.follow_up);
    assert_eq!(exec2.context_id, exec.context_id);
    assert_eq!(exec2.message.context_id, exec.context_id);
    h.agent(&exec.task_id, status(TaskState::Working));
    let out = h.agent(&exec.task_id, status(TaskState::Completed));
    let t = task_of(Harness::answer(&out, call).unwrap());
    let ids: Vec<&str> = t.history.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, ["m1", "q1", "m2"], "the question moved into history before the answer");
}

#[test]
fn an_artifact_published_while_input_is_required_does_not_answer_the_follow_up() {
    let mut h = Harness::new();
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "need-input"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::InputRequired));
    let mut follow = user("m2", "the answer");
    follow.task_id = exec.task_id.clone();
    let (call, _) = h.call(Request::SendMessage(send(follow)));
    // The agent answers the follow-up with an artifact first, still in INPUT_REQUIRED.
    let artifact = v1::Artifact { artifact_id: "a".into(), parts: vec![text("the answer")], ..Default::default() };
    let out = h.agent(&exec.task_id, AgentEvent::Artifact { metadata: None, artifact, append: false, last_chunk: true });
    assert!(!out.iter().any(|o| matches!(o, Output::Respond { call: c, .. } if *c == call)), "answered before the agent settled: {out:?}");
    let out = h.agent(&exec.task_id, status(TaskState::Completed));
    let t = task_of(Harness::answer(&out, call).unwrap());
    assert_eq!((t.status.unwrap().state, t.artifacts.len()), (TaskState::Completed as i32, 1));
}

#[test]
fn after_a_restart_lost_runs_resume_and_waiting_tasks_stay_waiting() {
    let mut h = Harness::new();
    let (_, out) = h.call(Request::SendMessage(v1::SendMessageRequest {
        message: Some(user("m1", "slow")),
        configuration: Some(v1::SendMessageConfiguration { return_immediately: true, ..Default::default() }),
        ..Default::default()
    }));
    let working = Harness::execution(&out);
    h.agent(&working.task_id, status(TaskState::Working));
    let (_, out) = h.call(Request::SendMessage(send(user("m2", "need-input"))));
    let waiting = Harness::execution(&out);
    h.agent(&waiting.task_id, status(TaskState::InputRequired));
    let (_, out) = h.call(Request::SendMessage(send(user("m3", "done"))));
    let done = Harness::execution(&out);
    h.agent(&done.task_id, status(TaskState::Completed));

    // The process dies; a new engine opens the same store.
    let store = std::mem::replace(&mut h.engine, Engine::new(EngineConfig::default(), MemoryStore::new(), 1)).into_store();
    h.engine = Engine::new(EngineConfig::default(), store, 7);
    assert_eq!(h.engine.resume_lost_runs(), 1);
    let out = h.drain();
    let resumed = Harness::execution(&out);
    assert!(resumed.resumed && resumed.follow_up);
    assert_eq!((resumed.task_id.as_str(), resumed.message.message_id.as_str()), (working.task_id.as_str(), "m1"));
    // A subscriber sees the task move again, to its end.
    let (sub, out) = h.call(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: working.task_id.clone(), ..Default::default() }));
    assert!(out.iter().any(|o| matches!(o, Output::Stream { call, .. } if *call == sub)));
    let out = h.agent(&working.task_id, status(TaskState::Completed));
    assert!(out.iter().any(|o| matches!(o, Output::StreamEnd { call, error: None } if *call == sub)), "{out:?}");
    // Nothing else is resumed twice.
    assert_eq!(h.engine.resume_lost_runs(), 0);
}

#[test]
fn id_rules_unknown_task_mismatched_context_and_terminal_tasks() {
    let mut h = Harness::new();
    let mut m = user("m1", "x");
    m.task_id = "no-such-task".into();
    let (c, out) = h.call(Request::SendMessage(send(m)));
    assert_eq!(Harness::answer(&out, c).unwrap_err().kind(), ErrorKind::TaskNotFound);

    let (_, out) = h.call(Request::SendMessage(send(user("m2", "x"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::Completed));
    let mut wrong_ctx = user("m3", "x");
    wrong_ctx.task_id = exec.task_id.clone();
    wrong_ctx.context_id = "another-context".into();
    let (c, out) = h.call(Request::SendMessage(send(wrong_ctx)));
    let e = Harness::answer(&out, c).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidParams);
    assert_eq!(e.violations()[0].field, "message.contextId");

    let mut to_done = user("m4", "again");
    to_done.task_id = exec.task_id.clone();
    let (c, out) = h.call(Request::SendMessage(send(to_done)));
    assert_eq!(Harness::answer(&out, c).unwrap_err().kind(), ErrorKind::UnsupportedOperation);

    // A follow-up in the same context is a new task that keeps its references.
    let mut next = user("m5", "and also");
    next.context_id = exec.context_id.clone();
    next.reference_task_ids = vec![exec.task_id.clone()];
    let (_, out) = h.call(Request::SendMessage(send(next)));
    let exec2 = Harness::execution(&out);
    assert_ne!(exec2.task_id, exec.task_id);
    assert_eq!(exec2.context_id, exec.context_id);
    assert_eq!(exec2.message.reference_task_ids, [exec.task_id.clone()]);
}

#[test]
fn streams_start_with_the_task_end_at_settled_states_and_fan_out_in_order() {
    let mut h = Harness::new();
    let (s1, out) = h.call(Request::SendStreamingMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    let out = h.agent(&exec.task_id, status(TaskState::Working));
    let ev = Harness::stream_events(&out, s1);
    assert!(matches!(ev[0].payload, Some(v1::stream_response::Payload::Task(_))), "the first event is the Task");
    assert!(matches!(ev[1].payload, Some(v1::stream_response::Payload::StatusUpdate(_))));
    // A second subscriber joins mid-way: current Task first, then the same later events.
    let (s2, out) = h.call(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: exec.task_id.clone(), ..Default::default() }));
    let first = Harness::stream_events(&out, s2);
    assert_eq!(first.len(), 1);
    assert!(matches!(first[0].payload, Some(v1::stream_response::Payload::Task(_))));
    let chunk = v1::Artifact { artifact_id: "a".into(), parts: vec![text("1")], ..Default::default() };
    let out = h.agent(&exec.task_id, AgentEvent::Artifact { metadata: None, artifact: chunk, append: false, last_chunk: false });
    let out2 = h.agent(&exec.task_id, status(TaskState::Completed));
    let all: Vec<Output> = out.into_iter().chain(out2).collect();
    assert_eq!(Harness::stream_events(&all, s1), Harness::stream_events(&all, s2), "same events, same order");
    assert!(Harness::ended(&all, s1) && Harness::ended(&all, s2));
    // Subscribing to a terminal task is refused.
    let (c, out) = h.call(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: exec.task_id.clone(), ..Default::default() }));
    assert_eq!(Harness::answer(&out, c).unwrap_err().kind(), ErrorKind::UnsupportedOperation);
}

#[test]
fn a_dropped_stream_never_cancels_the_task() {
    let mut h = Harness::new();
    let (s1, out) = h.call(Request::SendStreamingMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::Working));
    h.engine.handle_call_closed(s1);
    assert!(h.drain().is_empty());
    let out = h.agent(&exec.task_id, status(TaskState::Completed));
    assert!(Harness::stream_events(&out, s1).is_empty());
    assert_eq!(state_of(&h.get(&exec.task_id).unwrap()), TaskState::Completed);
}

#[test]
fn cancel_rules() {
    let mut h = Harness::new();
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::Working));
    let cancel = || Request::CancelTask(v1::CancelTaskRequest { id: exec.task_id.clone(), ..Default::default() });
    let (c, out) = h.call(cancel());
    assert_eq!(
        state_of(&match Harness::answer(&out, c).unwrap() {
            Response::Task(t) => t,
            o => panic!("{o:?}"),
        }),
        TaskState::Canceled
    );
    assert!(out.iter().any(|o| matches!(o, Output::CancelExecution { run, task_id } if *task_id == exec.task_id && *run == exec.id)));
    // Again: TaskNotCancelable, and nothing else happens.
    let (c, out) = h.call(cancel());
    assert_eq!(Harness::answer(&out, c).unwrap_err().kind(), ErrorKind::TaskNotCancelable);
    assert_eq!(out.len(), 1);
    // The agent's late events are refused and change nothing.
    let now = h.tick();
    assert_eq!(h.engine.handle_agent(exec.id, status(TaskState::Completed), now).unwrap_err().kind(), ErrorKind::InvalidAgentResponse);
    assert_eq!(state_of(&h.get(&exec.task_id).unwrap()), TaskState::Canceled);
    let (c, out) = h.call(Request::CancelTask(v1::CancelTaskRequest { id: "nope".into(), ..Default::default() }));
    assert_eq!(Harness::answer(&out, c).unwrap_err().kind(), ErrorKind::TaskNotFound);
}

#[test]
fn a_repeated_message_id_is_not_executed_twice_when_de_duplication_is_on() {
    let mut h = Harness::with(EngineConfig { dedup_message_ids: true, ..EngineConfig::default() });
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::Completed));
    let (c, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    assert!(!out.iter().any(|o| matches!(o, Output::Execute(_))), "no second execution");
    assert_eq!(task_of(Harness::answer(&out, c).unwrap()).id, exec.task_id);
    // Another principal's identical messageId is a different message.
    let (_, out) = h.call_as(Some("bob"), Request::SendMessage(send(user("m1", "go"))));
    assert!(out.iter().any(|o| matches!(o, Output::Execute(_))));
}

#[test]
fn history_length_and_list_validation() {
    let mut h = Harness::new();
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::Completed));
    let (c, out) = h.call(Request::GetTask(v1::GetTaskRequest { id: exec.task_id.clone(), history_length: Some(0), ..Default::default() }));
    match Harness::answer(&out, c).unwrap() {
        Response::Task(t) => assert!(t.history.is_empty()),
        o => panic!("{o:?}"),
    }
    let (c, out) =
        h.call(Request::GetTask(v1::GetTaskRequest { id: exec.task_id.clone(), history_length: Some(-1), ..Default::default() }));
    assert_eq!(Harness::answer(&out, c).unwrap_err().violations()[0].field, "historyLength");
    for bad in [0, 101, -5] {
        let (c, out) = h.call(Request::ListTasks(v1::ListTasksRequest { page_size: Some(bad), ..Default::default() }));
        let e = Harness::answer(&out, c).unwrap_err();
        assert_eq!((e.kind(), e.violations()[0].field.as_str()), (ErrorKind::InvalidParams, "pageSize"));
    }
    let (c, out) = h.call(Request::ListTasks(v1::ListTasksRequest { page_token: "garbage!".into(), ..Default::default() }));
    assert_eq!(Harness::answer(&out, c).unwrap_err().violations()[0].field, "pageToken");
}

#[test]
fn list_filters_orders_newest_first_and_omits_artifacts_by_default() {
    let mut h = Harness::new();
    let mut ids = Vec::new();
    for i in 0..5 {
        let mut m = user(&format!("m{i}"), "x");
        if i % 2 == 0 {
            m.context_id = "even".into();
        }
        let (_, out) = h.call(Request::SendMessage(send(m)));
        let exec = Harness::execution(&out);
        let art = v1::Artifact { artifact_id: "a".into(), parts: vec![text("x")], ..Default::default() };
        h.agent(&exec.task_id, AgentEvent::Artifact { metadata: None, artifact: art, append: false, last_chunk: true });
        h.agent(&exec.task_id, status(if i == 4 { TaskState::Failed } else { TaskState::Completed }));
        ids.push(exec.task_id);
    }
    let (c, out) = h.call(Request::ListTasks(v1::ListTasksRequest::default()));
    let Response::ListTasks(r) = Harness::answer(&out, c).unwrap() else { panic!() };
    let got: Vec<&str> = r.tasks.iter().map(|t| t.id.as_str()).collect();
    let want: Vec<&str> = ids.iter().rev().map(String::as_str).collect();
    assert_eq!(got, want, "newest status first");
    assert!(r.tasks.iter().all(|t| t.artifacts.is_empty()));
    assert_eq!((r.total_size, r.page_size, r.next_page_token.as_str()), (5, 50, ""));

    let (c, out) =
        h.call(Request::ListTasks(v1::ListTasksRequest { context_id: "even".into(), include_artifacts: Some(true), ..Default::default() }));
    let Response::ListTasks(r) = Harness::answer(&out, c).unwrap() else { panic!() };
    assert_eq!(r.total_size, 3);
    assert!(r.tasks.iter().all(|t| t.artifacts.len() == 1));

    let (c, out) = h.call(Request::ListTasks(v1::ListTasksRequest { status: TaskState::Failed as i32, ..Default::default() }));
    let Response::ListTasks(r) = Harness::answer(&out, c).unwrap() else { panic!() };
    assert_eq!(r.tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), [ids[4].as_str()]);
}

#[test]
fn invisible_tasks_behave_like_missing_ones() {
    let mut h = Harness::new();
    let (_, out) = h.call_as(Some("alice"), Request::SendMessage(send(user("m1", "secret"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::Working));
    let (c, out) = h.call_as(Some("mallory"), Request::GetTask(v1::GetTaskRequest { id: exec.task_id.clone(), ..Default::default() }));
    let e = Harness::answer(&out, c).unwrap_err();
    let (c2, out2) = h.call_as(Some("mallory"), Request::GetTask(v1::GetTaskRequest { id: "does-not-exist".into(), ..Default::default() }));
    let e2 = Harness::answer(&out2, c2).unwrap_err();
    assert_eq!((e.kind(), e.message()), (e2.kind(), e2.message()), "same answer as for a missing task");
    let (c, out) = h.call_as(Some("mallory"), Request::ListTasks(v1::ListTasksRequest::default()));
    let Response::ListTasks(r) = Harness::answer(&out, c).unwrap() else { panic!() };
    assert_eq!(r.total_size, 0);
    let (c, out) =
        h.call_as(Some("mallory"), Request::CancelTask(v1::CancelTaskRequest { id: exec.task_id.clone(), ..Default::default() }));
    assert_eq!(Harness::answer(&out, c).unwrap_err().kind(), ErrorKind::TaskNotFound);
    // Another tenant does not see it either.
    let (c, out) = h.call_as(
        Some("alice"),
        Request::GetTask(v1::GetTaskRequest { id: exec.task_id.clone(), tenant: "other".into(), ..Default::default() }),
    );
    assert_eq!(Harness::answer(&out, c).unwrap_err().kind(), ErrorKind::TaskNotFound);
}

#[test]
fn push_configs_get_server_ids_deliver_webhooks_and_delete_idempotently() {
    let mut h = Harness::new();
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::Working));
    let (c, out) = h.call(Request::CreatePushConfig(v1::TaskPushNotificationConfig {
        task_id: exec.task_id.clone(),
        url: "https://client.example/hook".into(),
        ..Default::default()
    }));
    let Response::PushConfig(cfg) = Harness::answer(&out, c).unwrap() else { panic!() };
    assert!(!cfg.id.is_empty());
    let out = h.agent(&exec.task_id, status(TaskState::Completed));
    let hooks: Vec<_> = out.iter().filter(|o| matches!(o, Output::Webhook { .. })).collect();
    assert_eq!(hooks.len(), 1);
    let get = |id: &str| {
        Request::GetPushConfig(v1::GetTaskPushNotificationConfigRequest {
            task_id: exec.task_id.clone(),
            id: id.into(),
            ..Default::default()
        })
    };
    let (c, out) = h.call(get(&cfg.id));
    assert!(Harness::answer(&out, c).is_ok());
    let del = || {
        Request::DeletePushConfig(v1::DeleteTaskPushNotificationConfigRequest {
            task_id: exec.task_id.clone(),
            id: cfg.id.clone(),
            ..Default::default()
        })
    };
    let (c, out) = h.call(del());
    assert_eq!(Harness::answer(&out, c).unwrap(), Response::Deleted);
    let (c, out) = h.call(del());
    assert_eq!(Harness::answer(&out, c).unwrap(), Response::Deleted, "delete is idempotent");
    let (c, out) = h.call(get(&cfg.id));
    assert_eq!(Harness::answer(&out, c).unwrap_err().kind(), ErrorKind::TaskNotFound);

    let mut off = Harness::with(EngineConfig { push_notifications: false, ..EngineConfig::default() });
    let (c, out) =
        off.call(Request::ListPushConfigs(v1::ListTaskPushNotificationConfigsRequest { task_id: "x".into(), ..Default::default() }));
    assert_eq!(Harness::answer(&out, c).unwrap_err().kind(), ErrorKind::PushNotificationNotSupported);
}

#[test]
fn an_agent_that_ends_its_turn_without_output_is_an_invalid_agent_response() {
    let mut h = Harness::new();
    let (c, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    let out = h.done(exec.id);
    assert_eq!(Harness::answer(&out, c).unwrap_err().kind(), ErrorKind::InvalidAgentResponse);
}

#[test]
fn an_agent_may_announce_the_task_as_submitted_first() {
    let mut h = Harness::new();
    let (s, out) = h.call(Request::SendStreamingMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    let out = h.agent(&exec.task_id, status(TaskState::Submitted));
    let ev = Harness::stream_events(&out, s);
    assert_eq!(ev.len(), 1, "only the Task: the submitted status is its first status");
    let out = h.agent(&exec.task_id, status(TaskState::Working));
    assert_eq!(Harness::stream_events(&out, s).len(), 1);
}

#[test]
fn a_blocking_caller_that_goes_away_is_forgotten_and_the_task_goes_on() {
    let mut h = Harness::new();
    let (c, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::Working));
    h.engine.handle_call_closed(c);
    let out = h.agent(&exec.task_id, status(TaskState::Completed));
    assert!(!out.iter().any(|o| matches!(o, Output::Respond { call, .. } if *call == c)), "no answer to a caller that left");
    assert_eq!(state_of(&h.get(&exec.task_id).unwrap()), TaskState::Completed);
}

#[test]
fn a_push_config_sent_with_a_follow_up_is_registered() {
    let mut h = Harness::new();
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::InputRequired));
    let mut follow = user("m2", "more");
    follow.task_id = exec.task_id.clone();
    let mut req = send(follow);
    req.configuration = Some(v1::SendMessageConfiguration {
        task_push_notification_config: Some(v1::TaskPushNotificationConfig { url: "https://h/hook".into(), ..Default::default() }),
        ..Default::default()
    });
    h.call(Request::SendMessage(req));
    let out = h.agent(&exec.task_id, status(TaskState::Completed));
    assert_eq!(out.iter().filter(|o| matches!(o, Output::Webhook { .. })).count(), 1);
}

#[test]
fn v03_push_configs_default_to_the_task_id_and_get_v03_task_bodies() {
    use a2a_wire::version::ProtocolVersion;
    let mut h = Harness::new();
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::Working));
    let ctx = CallContext { version: ProtocolVersion::V0_3, ..Default::default() };
    let now = h.tick();
    h.engine.handle_call(
        CallId(900),
        ctx.clone(),
        Request::CreatePushConfig(v1::TaskPushNotificationConfig {
            task_id: exec.task_id.clone(),
            url: "https://h".into(),
            ..Default::default()
        }),
        now,
    );
    let out = h.drain();
    let Some(Output::Respond { result: Ok(Response::PushConfig(c)), .. }) = out.first() else { panic!("{out:?}") };
    assert_eq!(c.id, exec.task_id, "a v0.3 config without id gets the task id");
    let out = h.agent(&exec.task_id, status(TaskState::Completed));
    let hook = out
        .iter()
        .find_map(|o| if let Output::Webhook { event, version, .. } = o { Some((event.clone(), *version)) } else { None })
        .unwrap();
    assert_eq!(hook.1, ProtocolVersion::V0_3);
    let body = String::from_utf8(a2a_wire::webhook::body(hook.1, &hook.0).unwrap()).unwrap();
    assert!(body.contains(r#""kind":"task""#) && body.contains(r#""state":"completed""#), "{body}");
}

#[test]
fn webhook_requests_carry_the_versions_content_type_and_the_configs_credentials() {
    use a2a_wire::version::ProtocolVersion;
    let event = v1::StreamResponse {
        payload: Some(v1::stream_response::Payload::Task(v1::Task {
            id: "t".into(),
            context_id: "c".into(),
            status: Some(v1::TaskStatus { state: TaskState::Completed as i32, ..Default::default() }),
            ..Default::default()
        })),
    };
    let mut config = v1::TaskPushNotificationConfig { url: "https://hooks.example/a2a".into(), token: "tok".into(), ..Default::default() };
    config.authentication = Some(v1::AuthenticationInfo { scheme: "Bearer".into(), credentials: "secret".into() });
    let r = a2a_wire::webhook::request(&config, ProtocolVersion::V1_0, &event).unwrap();
    let header = |n: &str| r.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(n)).map(|(_, v)| v.as_str());
    assert_eq!((r.method, r.url.as_str()), ("POST", "https://hooks.example/a2a"));
    assert_eq!(header("content-type"), Some("application/a2a+json"));
    assert_eq!(header("authorization"), Some("Bearer secret"));
    assert_eq!(header("x-a2a-notification-token"), Some("tok"));
    assert!(String::from_utf8(r.body).unwrap().contains("TASK_STATE_COMPLETED"));
    let old = a2a_wire::webhook::request(
        &v1::TaskPushNotificationConfig { url: "http://h".into(), ..Default::default() },
        ProtocolVersion::V0_3,
        &event,
    )
    .unwrap();
    assert_eq!(old.headers, vec![("Content-Type".to_string(), "application/json".to_string())]);
    assert!(String::from_utf8(old.body).unwrap().contains(r#""state":"completed""#));
}

#[test]
fn an_older_runs_done_does_not_answer_a_newer_follow_up() {
    let mut h = Harness::new();
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let first = Harness::execution(&out);
    h.agent(&first.task_id, status(TaskState::Working));
    let mut follow = user("m2", "also");
    follow.task_id = first.task_id.clone();
    let (c2, out) = h.call(Request::SendMessage(send(follow)));
    let second = Harness::execution(&out);
    assert_ne!(first.id, second.id);
    let out = h.done(first.id);
    assert!(!out.iter().any(|o| matches!(o, Output::Respond { call, .. } if *call == c2)), "the follow-up waits for its own run");
    let out = h.agent(&first.task_id, status(TaskState::Completed));
    assert_eq!(state_of(&task_of(Harness::answer(&out, c2).unwrap())), TaskState::Completed);
}

#[test]
fn a_refused_first_event_creates_no_task() {
    let mut h = Harness::new();
    let (c, out) = h.call(Request::SendMessage(v1::SendMessageRequest {
        message: Some(user("m1", "go")),
        configuration: Some(v1::SendMessageConfiguration { return_immediately: true, ..Default::default() }),
        ..Default::default()
    }));
    let exec = Harness::execution(&out);
    let now = h.tick();
    let bad = AgentEvent::Artifact { metadata: None, artifact: v1::Artifact::default(), append: false, last_chunk: false };
    assert_eq!(h.engine.handle_agent(exec.id, bad, now).unwrap_err().kind(), ErrorKind::InvalidAgentResponse);
    assert!(h.drain().is_empty(), "nothing was answered or published");
    assert_eq!(h.get(&exec.task_id).unwrap_err().kind(), ErrorKind::TaskNotFound);
    // A good first event still works afterwards.
    let out = h.agent(&exec.task_id, status(TaskState::Working));
    assert!(Harness::answer(&out, c).is_ok());
}

#[test]
fn message_ids_are_not_de_duplicated_by_default() {
    // The official SDKs do not de-duplicate, and clients (conformance suites) reuse ids.
    let mut h = Harness::new();
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let first = Harness::execution(&out);
    h.agent(&first.task_id, status(TaskState::Completed));
    let (c, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let second = Harness::execution(&out);
    assert_ne!(first.task_id, second.task_id, "the same id twice is two new tasks");
    let out = h.agent(&second.task_id, status(TaskState::Completed));
    assert_eq!(task_of(Harness::answer(&out, c).unwrap()).id, second.task_id);
}

#[test]
fn with_de_duplication_a_reused_id_never_returns_another_task() {
    let mut h = Harness::with(EngineConfig { dedup_message_ids: true, ..EngineConfig::default() });
    // Task A, then task B (both waiting for input).
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "a"))));
    let a = Harness::execution(&out);
    h.agent(&a.task_id, status(TaskState::InputRequired));
    let (_, out) = h.call(Request::SendMessage(send(user("m2", "b"))));
    let b = Harness::execution(&out);
    h.agent(&b.task_id, status(TaskState::InputRequired));
    // A follow-up to B with the id first used for A: executed on B, answered with B.
    let mut follow = user("m1", "for b");
    follow.task_id = b.task_id.clone();
    let (c, out) = h.call(Request::SendMessage(send(follow)));
    let run = Harness::execution(&out);
    assert_eq!(run.task_id, b.task_id, "the follow-up runs on the task it names");
    let out = h.agent(&b.task_id, status(TaskState::Completed));
    assert_eq!(task_of(Harness::answer(&out, c).unwrap()).id, b.task_id);
    // The same id for a new task in another context: a new task, not A.
    let mut other = user("m1", "new");
    other.context_id = "elsewhere".into();
    let (_, out) = h.call(Request::SendMessage(send(other)));
    let fresh = Harness::execution(&out);
    assert!(fresh.task_id != a.task_id && fresh.task_id != b.task_id);
    // A true retry (same id, same taskId and contextId as the first send) is recognised.
    let (c, out) = h.call(Request::SendMessage(send(user("m2", "b"))));
    assert!(!out.iter().any(|o| matches!(o, Output::Execute(_))), "a retry is not executed again");
    assert_eq!(task_of(Harness::answer(&out, c).unwrap()).id, b.task_id);
}

#[test]
fn events_of_a_superseded_run_are_refused_and_change_nothing() {
    let mut h = Harness::new();
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let first = Harness::execution(&out);
    h.agent(&first.task_id, status(TaskState::InputRequired));
    let mut follow = user("m2", "next");
    follow.task_id = first.task_id.clone();
    let (_, out) = h.call(Request::SendMessage(send(follow)));
    let second = Harness::execution(&out);
    let now = h.tick();
    let late = AgentEvent::Artifact {
        metadata: None,
        artifact: v1::Artifact { artifact_id: "late".into(), parts: vec![text("stale")], ..Default::default() },
        append: false,
        last_chunk: true,
    };
    let e = h.engine.handle_agent(first.id, late, now).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidAgentResponse);
    assert!(h.drain().is_empty(), "nothing published for a stale event");
    assert!(h.get(&first.task_id).unwrap().artifacts.is_empty(), "the stale artifact did not reach the task");
    // The current run still may.
    h.agent(&second.task_id, status(TaskState::Completed));
    assert_eq!(state_of(&h.get(&first.task_id).unwrap()), TaskState::Completed);
}

#[test]
fn a_failed_run_fails_its_task_and_answers_its_caller() {
    let mut h = Harness::new();
    let (c, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    h.agent(&exec.task_id, status(TaskState::Working));
    let now = h.tick();
    h.engine.handle_run_end(exec.id, RunEnd::Failed("the agent panicked".into()), now);
    let out = h.drain();
    let t = task_of(Harness::answer(&out, c).unwrap());
    assert_eq!(state_of(&t), TaskState::Failed);
    let why = t.status.unwrap().message.unwrap();
    assert!(matches!(&why.parts[0].content, Some(v1::part::Content::Text(s)) if s == "the agent panicked"));
    // A run that fails before creating its task: the caller gets an internal error.
    let (c, out) = h.call(Request::SendMessage(send(user("m2", "go"))));
    let exec = Harness::execution(&out);
    let now = h.tick();
    h.engine.handle_run_end(exec.id, RunEnd::Failed("boom".into()), now);
    let out = h.drain();
    assert_eq!(Harness::answer(&out, c).unwrap_err().kind(), ErrorKind::Internal);
    assert_eq!(h.get(&exec.task_id).unwrap_err().kind(), ErrorKind::TaskNotFound);
}

/// Drains an engine over an external store, answering its store requests from `store`.
fn pump(engine: &mut Engine, store: &mut a2a_wire::engine::StoreInMemory, now: Timestamp) -> Vec<Output> {
    let mut out = Vec::new();
    loop {
        if let Some(o) = engine.poll_output() {
            out.push(o);
        } else if let Some(r) = engine.poll_store() {
            let _ = engine.handle_store(store.answer(r), now);
        } else {
            return out;
        }
    }
}

#[test]
fn a_failed_store_write_answers_the_calls_it_carried_with_an_internal_error() {
    let mut store = a2a_wire::engine::StoreInMemory::new();
    let mut engine = Engine::new(EngineConfig::default(), a2a_wire::engine::Storage::external(1 << 20), 3);
    let now = Timestamp { seconds: 1_700_000_000, nanos: 0 };
    engine.start(now);
    // A task that completes while the store works.
    engine.handle_call(CallId(1), CallContext::default(), Request::SendMessage(send(user("m1", "go"))), now);
    let exec = Harness::execution(&pump(&mut engine, &mut store, now));
    engine.handle_agent(exec.id, status(TaskState::Completed), now).unwrap();
    assert!(matches!(pump(&mut engine, &mut store, now).as_slice(), [Output::Respond { result: Ok(_), .. }]));
    assert_eq!(store.get(&exec.task_id).map(|t| t.version), Some(1), "written once, as version 1");
    // The disk fills: a new message, and a read of the old task, in one batch.
    store.fail = Some("disk full".into());
    engine.handle_call(CallId(2), CallContext::default(), Request::SendMessage(send(user("m2", "go"))), now);
    let exec2 = Harness::execution(&pump(&mut engine, &mut store, now));
    engine.handle_agent(exec2.id, status(TaskState::Completed), now).unwrap();
    let get = Request::GetTask(v1::GetTaskRequest { id: exec.task_id.clone(), ..Default::default() });
    engine.handle_call(CallId(3), CallContext::default(), get, now);
    let out = pump(&mut engine, &mut store, now);
    assert_eq!(Harness::answer(&out, CallId(2)).unwrap_err().kind(), ErrorKind::Internal, "not told the task was kept");
    assert!(Harness::answer(&out, CallId(3)).is_ok(), "a read is not affected");
    assert!(engine.task(&exec2.task_id).is_some(), "the change stays in memory, to be written again");
    // The disk has room again: the next batch writes the change.
    store.fail = None;
    let get = Request::GetTask(v1::GetTaskRequest { id: exec2.task_id.clone(), ..Default::default() });
    engine.handle_call(CallId(4), CallContext::default(), get, now);
    let out = pump(&mut engine, &mut store, now);
    assert!(Harness::answer(&out, CallId(4)).is_ok());
    assert_eq!(store.get(&exec2.task_id).map(|t| t.version), Some(1));
}

/// Another writer changes the task behind `engine`'s back (as another server would): its
/// artifact list gains one, and its version moves on.
fn change_behind_its_back(store: &mut a2a_wire::engine::StoreInMemory, task_id: &str, now: Timestamp) {
    let mut other = store.get(task_id).unwrap().clone();
    let base = other.version;
    other.version += 1;
    other.record.task.artifacts.push(v1::Artifact { artifact_id: "theirs".into(), ..Default::default() });
    let w = a2a_wire::engine::TaskWrite { task: other, base, terminal: false, leased: false };
    let batch = a2a_wire::engine::WriteBatch { at: now, tasks: vec![w], ..Default::default() };
    let r = store.answer(a2a_wire::engine::StoreRequest::Write { id: a2a_wire::engine::StoreRequestId(999), batch });
    assert!(matches!(r, a2a_wire::engine::StoreReply::Written { .. }));
}

#[test]
fn a_write_refused_for_a_stale_version_is_never_reported_as_success() {
    let mut store = a2a_wire::engine::StoreInMemory::new();
    let mut engine = Engine::new(EngineConfig::default(), a2a_wire::engine::Storage::external(1 << 20), 3);
    let now = Timestamp { seconds: 1_700_000_000, nanos: 0 };
    engine.start(now);
    engine.handle_call(CallId(1), CallContext::default(), Request::SendMessage(send(user("m1", "go"))), now);
    let exec = Harness::execution(&pump(&mut engine, &mut store, now));
    engine.handle_agent(exec.id, status(TaskState::InputRequired), now).unwrap();
    assert!(Harness::answer(&pump(&mut engine, &mut store, now), CallId(1)).is_ok());
    change_behind_its_back(&mut store, &exec.task_id, now);
    // This engine's follow-up is based on the stale copy: refused, and the caller told so.
    let mut follow_up = user("m2", "more");
    follow_up.task_id = exec.task_id.clone();
    engine.handle_call(CallId(2), CallContext::default(), Request::SendMessage(send(follow_up)), now);
    let out = pump(&mut engine, &mut store, now);
    assert_eq!(Harness::answer(&out, CallId(2)).unwrap_err().kind(), ErrorKind::Internal, "{out:?}");
    let stored = store.get(&exec.task_id).unwrap();
    assert_eq!(stored.record.state(), Some(TaskState::InputRequired), "the other write stands");
    assert_eq!(stored.record.task.history.len(), 1, "the refused follow-up is not stored");
    // The next call reads the task afresh.
    let get = Request::GetTask(v1::GetTaskRequest { id: exec.task_id.clone(), ..Default::default() });
    engine.handle_call(CallId(3), CallContext::default(), get, now);
    let out = pump(&mut engine, &mut store, now);
    let Ok(Response::Task(t)) = Harness::answer(&out, CallId(3)) else { panic!("{out:?}") };
    assert_eq!(t.artifacts.len(), 1, "the other writer's artifact is seen");
}

#[test]
fn a_cancel_that_meets_another_writers_change_is_tried_again_on_the_stored_task() {
    let mut store = a2a_wire::engine::StoreInMemory::new();
    let mut engine = Engine::new(EngineConfig::default(), a2a_wire::engine::Storage::external(1 << 20), 3);
    let now = Timestamp { seconds: 1_700_000_000, nanos: 0 };
    engine.start(now);
    engine.handle_call(CallId(1), CallContext::default(), Request::SendMessage(send(user("m1", "go"))), now);
    let exec = Harness::execution(&pump(&mut engine, &mut store, now));
    engine.handle_agent(exec.id, status(TaskState::InputRequired), now).unwrap();
    assert!(Harness::answer(&pump(&mut engine, &mut store, now), CallId(1)).is_ok());
    change_behind_its_back(&mut store, &exec.task_id, now);
    let cancel = Request::CancelTask(v1::CancelTaskRequest { id: exec.task_id.clone(), ..Default::default() });
    engine.handle_call(CallId(2), CallContext::default(), cancel, now);
    let out = pump(&mut engine, &mut store, now);
    let Ok(Response::Task(t)) = Harness::answer(&out, CallId(2)) else { panic!("{out:?}") };
    assert_eq!(state_of(&t), TaskState::Canceled);
    let stored = store.get(&exec.task_id).unwrap();
    assert_eq!((stored.version, stored.record.state()), (3, Some(TaskState::Canceled)), "written once more, on the stored version");
    assert_eq!(stored.record.task.artifacts.len(), 1, "the other writer's change is kept too");
}

#[test]
fn a_follow_up_that_supersedes_a_run_leaves_no_caller_of_the_old_run_waiting() {
    let mut h = Harness::new();
    let (c1, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let first = Harness::execution(&out);
    h.agent(&first.task_id, status(TaskState::Working));
    let mut follow = user("m2", "more");
    follow.task_id = first.task_id.clone();
    let (c2, out) = h.call(Request::SendMessage(send(follow)));
    let second = Harness::execution(&out);
    assert!(
        out.iter().any(|o| matches!(o, Output::CancelExecution { run, .. } if *run == first.id)),
        "the superseded run is told to stop: {out:?}"
    );
    // The new run ends its turn without settling the task: both callers are answered.
    let out = h.done(second.id);
    for c in [c1, c2] {
        assert_eq!(state_of(&task_of(Harness::answer(&out, c).unwrap())), TaskState::Working, "call {c:?}");
    }
}

#[test]
fn a_retried_message_whose_first_send_never_made_a_task_runs_after_a_restart() {
    // With de-duplication on, the first send of m1 is remembered, then the server restarts
    // before the agent's first event: the retry must run, not be refused as a used id.
    let config = || EngineConfig { dedup_message_ids: true, ..EngineConfig::default() };
    let mut h = Harness::with(config());
    let (_, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let _lost = Harness::execution(&out);
    let store = std::mem::replace(&mut h.engine, Engine::new(config(), MemoryStore::new(), 1)).into_store();
    h.engine = Engine::new(config(), store, 2);
    let (c, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let again = Harness::execution(&out);
    let out = h.agent(&again.task_id, status(TaskState::Completed));
    assert_eq!(state_of(&task_of(Harness::answer(&out, c).unwrap())), TaskState::Completed);
}

#[test]
fn a_run_that_fails_after_handing_its_task_back_leaves_it_waiting_for_input() {
    let mut h = Harness::new();
    let (c, out) = h.call(Request::SendMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    let out = h.agent(&exec.task_id, status(TaskState::InputRequired));
    assert_eq!(state_of(&task_of(Harness::answer(&out, c).unwrap())), TaskState::InputRequired);
    let now = h.tick();
    h.engine.handle_run_end(exec.id, RunEnd::Failed("crashed afterwards".into()), now);
    h.drain();
    assert_eq!(state_of(&h.get(&exec.task_id).unwrap()), TaskState::InputRequired, "the follow-up can still come");
}

/// The events of `call` in `out`, with their ids.
fn stream_ids(out: &[Output], call: CallId) -> Vec<(Option<EventId>, v1::StreamResponse)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Stream { call: c, event, id } if *c == call => Some((*id, (**event).clone())),
            _ => None,
        })
        .collect()
}

fn resume(h: &mut Harness, task: &str, last: &str) -> (CallId, Vec<Output>) {
    let id = CallId(h.next_call);
    h.next_call += 1;
    let now = h.tick();
    let ctx = CallContext { last_event_id: Some(last.into()), ..Default::default() };
    h.engine.handle_call(id, ctx, Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: task.into(), ..Default::default() }), now);
    (id, h.drain())
}

fn artifact(n: u32) -> AgentEvent {
    AgentEvent::Artifact {
        metadata: None,
        artifact: v1::Artifact { artifact_id: format!("a{n}"), parts: vec![text(&n.to_string())], ..Default::default() },
        append: false,
        last_chunk: true,
    }
}

#[test]
fn stream_events_are_numbered_per_task_the_snapshot_carrying_the_last_it_holds() {
    let mut h = Harness::new();
    let (s1, out) = h.call(Request::SendStreamingMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    let mut seen = stream_ids(&h.agent(&exec.task_id, status(TaskState::Working)), s1);
    seen.extend(stream_ids(&h.agent(&exec.task_id, artifact(1)), s1));
    let ids: Vec<u64> = seen.iter().map(|(id, _)| id.expect("every task event has an id").seq).collect();
    assert_eq!(ids, vec![0, 1, 2], "the Task (holding no event yet), then one number per event");
    let epoch = seen[0].0.unwrap().epoch;
    assert!(seen.iter().all(|(id, _)| id.unwrap().epoch == epoch));
    // A new subscriber's snapshot holds events 1 and 2: it carries 2, and goes on with 3.
    let (s2, out) = h.call(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: exec.task_id.clone(), ..Default::default() }));
    assert_eq!(stream_ids(&out, s2)[0].0.unwrap().seq, 2);
    let out = h.agent(&exec.task_id, status(TaskState::Completed));
    assert_eq!(stream_ids(&out, s1)[0].0.unwrap().seq, 3);
    assert_eq!(stream_ids(&out, s2), stream_ids(&out, s1));
    // A direct reply has no task and no id.
    let (s3, out) = h.call(Request::SendStreamingMessage(send(user("m2", "hi"))));
    let direct = Harness::execution(&out);
    let out = h.agent(&direct.task_id, AgentEvent::Message(agent_msg("r", "hello")));
    assert_eq!(stream_ids(&out, s3).iter().map(|(id, _)| *id).collect::<Vec<_>>(), vec![None]);
}

#[test]
fn a_resumed_subscription_gets_exactly_the_missed_events_then_live_ones() {
    let mut h = Harness::new();
    let (s1, out) = h.call(Request::SendStreamingMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    let task = exec.task_id.clone();
    let mut original = stream_ids(&h.agent(&task, status(TaskState::Working)), s1);
    // The connection drops after the client took the Working update (event 1).
    let last_seen = original[1].0.unwrap();
    h.engine.handle_call_closed(s1);
    let mut missed = Vec::new();
    for n in 1..=3 {
        missed.extend(stream_ids(&h.agent(&task, artifact(n)), s1));
    }
    assert!(missed.is_empty(), "the closed stream gets nothing");
    let (s2, out) = resume(&mut h, &task, &last_seen.to_string());
    let replay = stream_ids(&out, s2);
    assert_eq!(replay.iter().map(|(id, _)| id.unwrap().seq).collect::<Vec<_>>(), vec![2, 3, 4], "no Task first: only what it missed");
    assert!(replay.iter().all(|(_, e)| matches!(e.payload, Some(v1::stream_response::Payload::ArtifactUpdate(_)))));
    assert!(!Harness::ended(&out, s2));
    // Then live, numbered on.
    let out = h.agent(&task, status(TaskState::Completed));
    let live = stream_ids(&out, s2);
    assert_eq!(live.iter().map(|(id, _)| id.unwrap().seq).collect::<Vec<_>>(), vec![5]);
    assert!(Harness::ended(&out, s2));
    original.extend(replay);
    original.extend(live);
    let seqs: Vec<u64> = original.iter().map(|(id, _)| id.unwrap().seq).collect();
    assert_eq!(seqs, vec![0, 1, 2, 3, 4, 5], "every event once, in order");
}

#[test]
fn resuming_a_task_that_finished_meanwhile_replays_the_end_and_closes() {
    let mut h = Harness::new();
    let (s1, out) = h.call(Request::SendStreamingMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    let first = stream_ids(&h.agent(&exec.task_id, status(TaskState::Working)), s1);
    h.engine.handle_call_closed(s1);
    h.agent(&exec.task_id, artifact(1));
    h.agent(&exec.task_id, status(TaskState::Completed));
    let (s2, out) = resume(&mut h, &exec.task_id, &first[1].0.unwrap().to_string());
    let replay = stream_ids(&out, s2);
    assert_eq!(replay.len(), 2);
    assert!(matches!(&replay[1].1.payload, Some(v1::stream_response::Payload::StatusUpdate(u))
        if u.status.as_ref().unwrap().state == TaskState::Completed as i32));
    assert!(Harness::ended(&out, s2), "a terminal task: the stream closes after the replay");
    // Resuming after its last event: nothing more, closed at once.
    let (s3, out) = resume(&mut h, &exec.task_id, &replay[1].0.unwrap().to_string());
    assert!(stream_ids(&out, s3).is_empty() && Harness::ended(&out, s3));
}

#[test]
fn an_id_the_log_cannot_continue_from_starts_over_with_the_task() {
    let config = EngineConfig { event_log: EventLogLimits { per_task: 2, ..EventLogLimits::default() }, ..EngineConfig::default() };
    let mut h = Harness::with(config);
    let (s1, out) = h.call(Request::SendStreamingMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    let first = stream_ids(&h.agent(&exec.task_id, status(TaskState::Working)), s1);
    let epoch = first[0].0.unwrap().epoch;
    for n in 1..=3 {
        h.agent(&exec.task_id, artifact(n));
    }
    // Event 2 is no longer kept, another epoch (a restarted server), garbage, the future:
    // the subscriber gets the current Task, numbered, as a new one would.
    for last in [
        EventId { epoch, seq: 1 }.to_string(),
        EventId { epoch: epoch ^ 1, seq: 3 }.to_string(),
        "x".into(),
        EventId { epoch, seq: 99 }.to_string(),
    ] {
        let (s, out) = resume(&mut h, &exec.task_id, &last);
        let got = stream_ids(&out, s);
        assert_eq!(got.len(), 1, "{last}");
        assert!(matches!(got[0].1.payload, Some(v1::stream_response::Payload::Task(_))), "{last}");
        assert_eq!(got[0].0, Some(EventId { epoch, seq: 4 }), "{last}");
    }
    // Within what is kept, it resumes.
    let (s, out) = resume(&mut h, &exec.task_id, &EventId { epoch, seq: 2 }.to_string());
    assert_eq!(stream_ids(&out, s).iter().map(|(id, _)| id.unwrap().seq).collect::<Vec<_>>(), vec![3, 4]);
    // A finished task that cannot be resumed gets its final Task and the end, not an error.
    h.agent(&exec.task_id, status(TaskState::Completed));
    let (s, out) = resume(&mut h, &exec.task_id, "x");
    assert_eq!(stream_ids(&out, s).len(), 1);
    assert!(Harness::ended(&out, s));
}

#[test]
fn resuming_is_checked_like_any_subscription_another_principals_task_is_not_found() {
    let mut h = Harness::new();
    let (s1, out) = h.call_as(Some("alice"), Request::SendStreamingMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    let first = stream_ids(&h.agent(&exec.task_id, status(TaskState::Working)), s1);
    let id = CallId(900);
    let now = h.tick();
    let ctx = CallContext { principal: Some("mallory".into()), last_event_id: Some(first[0].0.unwrap().to_string()), ..Default::default() };
    h.engine.handle_call(
        id,
        ctx,
        Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: exec.task_id.clone(), ..Default::default() }),
        now,
    );
    let out = h.drain();
    assert_eq!(Harness::answer(&out, id).unwrap_err().kind(), ErrorKind::TaskNotFound);
}

#[test]
fn after_a_restart_old_ids_start_over_and_the_new_sequence_resumes() {
    let mut h = Harness::new();
    let (s1, out) = h.call(Request::SendStreamingMessage(send(user("m1", "go"))));
    let exec = Harness::execution(&out);
    let before = stream_ids(&h.agent(&exec.task_id, status(TaskState::Working)), s1);
    let store = std::mem::replace(&mut h.engine, Engine::new(EngineConfig::default(), MemoryStore::new(), 1)).into_store();
    h.engine = Engine::new(EngineConfig::default(), store, 7);
    h.engine.resume_lost_runs();
    h.drain();
    let (s2, out) = resume(&mut h, &exec.task_id, &before[1].0.unwrap().to_string());
    let got = stream_ids(&out, s2);
    assert!(matches!(got[0].1.payload, Some(v1::stream_response::Payload::Task(_))), "an id of the old process starts over");
    let snap = got[0].0.unwrap();
    assert_ne!(snap.epoch, before[0].0.unwrap().epoch);
    h.engine.handle_call_closed(s2);
    h.agent(&exec.task_id, artifact(1));
    let (s3, out) = resume(&mut h, &exec.task_id, &snap.to_string());
    assert_eq!(stream_ids(&out, s3).iter().map(|(id, _)| id.unwrap().seq).collect::<Vec<_>>(), vec![snap.seq + 1]);
}

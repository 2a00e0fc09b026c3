//! `a2a-wire-isolation --url URL --token-a TOKEN --token-b TOKEN`: two principals against one
//! A2A server that requires `Authorization: Bearer TOKEN`, over every interface its card lists
//! (each binding, each version). Principal A makes tasks and push configs; principal B tries
//! every operation on them. B must observe nothing of A's:
//!
//! - GetTask, CancelTask, SubscribeToTask, a SendMessage (and a streaming one) continuing A's
//!   task, and the four push-config calls on A's task each fail exactly as they fail on a task
//!   that does not exist: the same error, the same message and details once the ids are set
//!   aside, and no timing difference beyond noise (medians of interleaved calls within 3×; a
//!   lookup that touched A's task would still be far inside it, a store round trip would not);
//! - ListTasks (v1.0) lists none of A's tasks, not even filtered by A's context, and its
//!   `totalSize` counts B's own tasks only;
//! - B's message with the `messageId` of one of A's messages makes a new task of B's;
//! - after B's attempts, A's tasks and push config are as A left them.
//!
//! Calls without a token, or with an unknown one, get the A2A unauthenticated error.
//!
//! Prints one JSON object per check (`{"binding","version","check","ok","detail"}`) and exits
//! 1 when a check fails, 2 on bad arguments, 3 when the card cannot be read. Bounded: each
//! check has 20 s.

use a2a_wire::card::{Binding, SelectedInterface};
use a2a_wire::client::{ClientError, Reply};
use a2a_wire::error::{ErrorKind, Received};
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire_smol::agent::text_part;
use a2a_wire_smol::{Client, Error};
use a2a_wire_tests::{bounded, Check};
use std::time::{Duration, Instant};

fn message(text: &str, message_id: &str, task_id: &str) -> v1::SendMessageRequest {
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: message_id.into(),
            role: v1::Role::User as i32,
            parts: vec![text_part(text)],
            task_id: task_id.into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A fresh id: time, process and a counter.
fn fresh(prefix: &str) -> String {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let t = a2a_wire_smol::server::now();
    format!("{prefix}-{:x}{:08x}-{:x}-{n}", t.seconds, t.nanos, std::process::id())
}

fn kind(e: &Error) -> Option<ErrorKind> {
    match e {
        Error::A2a(ClientError::Remote(Received::A2a(a))) => Some(a.kind()),
        _ => None,
    }
}

/// The error as the client received it, with `ids` replaced by `<id>`: what must be equal
/// between a foreign task and a task that does not exist.
fn shape(e: &Error, ids: &[&str]) -> String {
    let mut s = match e {
        Error::A2a(ClientError::Remote(r)) => format!("{r:?}"),
        other => format!("not a remote error: {other}"),
    };
    for id in ids.iter().filter(|i| !i.is_empty()) {
        s = s.replace(id, "<id>");
    }
    s
}

async fn send_task(c: &mut Client, text: &str, message_id: &str, task_id: &str) -> Result<v1::Task, String> {
    match c.send_message(message(text, message_id, task_id)).await.map_err(|e| format!("SendMessage failed: {e}"))? {
        Reply::Task(t) => Ok(t.task().clone()),
        Reply::Message(_) => Err(String::from("expected a task, got a message")),
    }
}

/// The first event of a stream, or the error that opened or ended it.
async fn first_event(opened: Result<a2a_wire_smol::EventStream, Error>) -> Result<v1::StreamResponse, Error> {
    let mut s = opened?;
    let first = s.next().await;
    s.close().await;
    match first {
        Some(r) => r,
        None => Err(Error::Transport(String::from("the stream ended without an event"))),
    }
}

/// One of B's operations, aimed at a task id (and a config id for the push-config calls).
#[derive(Clone, Copy, Debug)]
enum Probe {
    Get,
    Cancel,
    Subscribe,
    FollowUp,
    StreamingFollowUp,
    CreatePush,
    GetPush,
    ListPush,
    DeletePush,
}

const PROBES: [Probe; 9] = [
    Probe::Get,
    Probe::Cancel,
    Probe::Subscribe,
    Probe::FollowUp,
    Probe::StreamingFollowUp,
    Probe::CreatePush,
    Probe::GetPush,
    Probe::ListPush,
    Probe::DeletePush,
];

impl Probe {
    fn name(self) -> &'static str {
        match self {
            Probe::Get => "get",
            Probe::Cancel => "cancel",
            Probe::Subscribe => "subscribe",
            Probe::FollowUp => "follow_up",
            Probe::StreamingFollowUp => "streaming_follow_up",
            Probe::CreatePush => "create_push_config",
            Probe::GetPush => "get_push_config",
            Probe::ListPush => "list_push_configs",
            Probe::DeletePush => "delete_push_config",
        }
    }

    fn is_push(self) -> bool {
        matches!(self, Probe::CreatePush | Probe::GetPush | Probe::ListPush | Probe::DeletePush)
    }

    /// Runs the call; `Ok` is a description of what it wrongly returned.
    async fn run(self, c: &mut Client, task_id: &str, config_id: &str) -> Result<String, Error> {
        let id = String::from(task_id);
        match self {
            Probe::Get => c.get_task(v1::GetTaskRequest { id, ..Default::default() }).await.map(|t| format!("task {}", t.id)),
            Probe::Cancel => c.cancel_task(v1::CancelTaskRequest { id, ..Default::default() }).await.map(|t| format!("task {}", t.id)),
            Probe::Subscribe => first_event(c.subscribe_to_task(v1::SubscribeToTaskRequest { id, ..Default::default() }).await)
                .await
                .map(|e| format!("{e:?}")),
            Probe::FollowUp => c.send_message(message("x", &fresh("b-msg"), task_id)).await.map(|r| match r {
                Reply::Task(t) => format!("task {}", t.task().id),
                Reply::Message(m) => format!("message {}", m.message_id),
            }),
            Probe::StreamingFollowUp => {
                first_event(c.send_streaming_message(message("x", &fresh("b-msg"), task_id)).await).await.map(|e| format!("{e:?}"))
            }
            Probe::CreatePush => c
                .create_push_config(v1::TaskPushNotificationConfig {
                    task_id: id,
                    url: String::from("https://receiver.invalid/hook"),
                    token: String::from("b-token"),
                    ..Default::default()
                })
                .await
                .map(|p| format!("config {}", p.id)),
            Probe::GetPush => c
                .get_push_config(v1::GetTaskPushNotificationConfigRequest { task_id: id, id: config_id.into(), ..Default::default() })
                .await
                .map(|p| format!("config {} {}", p.id, p.url)),
            Probe::ListPush => c
                .list_push_configs(v1::ListTaskPushNotificationConfigsRequest { task_id: id, ..Default::default() })
                .await
                .map(|l| format!("{} config(s)", l.configs.len())),
            Probe::DeletePush => c
                .delete_push_config(v1::DeleteTaskPushNotificationConfigRequest { task_id: id, id: config_id.into(), ..Default::default() })
                .await
                .map(|()| String::from("deleted")),
        }
    }
}

/// An id of the same length as `like` that no server has made.
fn absent_like(like: &str) -> String {
    let base = fresh("absent");
    base.chars().cycle().take(like.chars().count().max(base.len())).collect()
}

struct Matrix {
    iface: SelectedInterface,
    a: Client,
    b: Client,
    push: bool,
    legacy: bool,
    /// A's task left waiting for input (or whatever state the agent left it in).
    waiting: v1::Task,
    /// A's finished task and the message id that made it.
    done: (v1::Task, String),
    /// A's push config on `waiting`.
    config: Option<v1::TaskPushNotificationConfig>,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

impl Matrix {
    fn client(iface: &SelectedInterface, token: Option<&str>) -> Client {
        let c = Client::new(iface.clone());
        match token {
            Some(t) => c.with_header("Authorization", &format!("Bearer {t}")),
            None => c,
        }
    }

    /// A makes what B will aim at.
    async fn setup(iface: SelectedInterface, token_a: &str, token_b: &str, push: bool) -> Result<Matrix, String> {
        let legacy = iface.version.is_legacy();
        let mut a = Matrix::client(&iface, Some(token_a));
        let b = Matrix::client(&iface, Some(token_b));
        let waiting = send_task(&mut a, "need-input", &fresh("a-msg"), "").await?;
        let done_id = fresh("a-msg");
        let done = send_task(&mut a, "hello", &done_id, "").await?;
        let config = if push {
            let cfg = v1::TaskPushNotificationConfig {
                task_id: waiting.id.clone(),
                url: String::from("https://receiver.invalid/a"),
                token: String::from("a-token"),
                ..Default::default()
            };
            Some(a.create_push_config(cfg).await.map_err(|e| format!("A's CreateTaskPushNotificationConfig failed: {e}"))?)
        } else {
            None
        };
        Ok(Matrix { iface, a, b, push, legacy, waiting, done: (done, done_id), config })
    }

    /// B's call on A's task fails as it does on a task that does not exist.
    async fn probe(&mut self, p: Probe) -> Check {
        if p.is_push() && !self.push {
            return Ok(String::from("n/a: the card declares no push notifications"));
        }
        let config_id = self.config.as_ref().map(|c| c.id.clone()).unwrap_or_default();
        for target in [self.waiting.id.clone(), self.done.0.id.clone()] {
            let absent = absent_like(&target);
            let foreign = p.run(&mut self.b, &target, &config_id).await;
            let missing = p.run(&mut self.b, &absent, &config_id).await;
            match (&foreign, &missing) {
                (Ok(got), _) => return Err(format!("B reached A's task {target}: {got}")),
                (Err(f), Err(m)) => {
                    let (fs, ms) = (shape(f, &[&target, &self.waiting.context_id]), shape(m, &[&absent]));
                    if fs != ms {
                        return Err(format!("A's task tells: {fs} against {ms}"));
                    }
                    if kind(f) != Some(ErrorKind::TaskNotFound) && !matches!(p, Probe::FollowUp | Probe::StreamingFollowUp) {
                        return Err(format!("expected TaskNotFound, got {fs}"));
                    }
                }
                (Err(f), Ok(got)) => return Err(format!("a missing task answered {got} where A's refused: {}", shape(f, &[&target]))),
            }
        }
        let e = p.run(&mut self.b, &self.waiting.id.clone(), &config_id).await.err();
        Ok(format!("as on a missing task: {:?}", e.as_ref().and_then(kind)))
    }

    /// The timing of B's GetTask on A's task against one on a missing task.
    async fn timing(&mut self) -> Check {
        let (target, absent) = (self.waiting.id.clone(), absent_like(&self.waiting.id));
        let (mut f, mut m) = (Vec::new(), Vec::new());
        for i in 0..60 {
            for (id, into) in if i % 2 == 0 { [(&target, &mut f), (&absent, &mut m)] } else { [(&absent, &mut m), (&target, &mut f)] } {
                let t0 = Instant::now();
                let _ = Probe::Get.run(&mut self.b, id, "").await;
                into.push(t0.elapsed());
            }
        }
        let (mf, mm) = (median(f), median(m));
        let ratio = mf.as_secs_f64() / mm.as_secs_f64().max(1e-9);
        let detail = format!("median {mf:?} on A's task, {mm:?} on a missing one (ratio {ratio:.2})");
        if (1.0 / 3.0..=3.0).contains(&ratio) {
            Ok(detail)
        } else {
            Err(detail)
        }
    }

    async fn list(&mut self) -> Check {
        if self.legacy {
            return Ok(String::from("n/a: v0.3 has no ListTasks"));
        }
        let own = send_task(&mut self.b, "hello", &fresh("b-msg"), "").await?;
        let list = |ctx: &str| v1::ListTasksRequest { context_id: ctx.into(), ..Default::default() };
        let all = self.b.list_tasks(list("")).await.map_err(|e| format!("B's ListTasks failed: {e}"))?;
        let a_ids = [&self.waiting.id, &self.done.0.id];
        if let Some(t) = all.tasks.iter().find(|t| a_ids.contains(&&t.id)) {
            return Err(format!("B's list shows A's task {}", t.id));
        }
        if !all.tasks.iter().any(|t| t.id == own.id) {
            return Err(format!("B's list misses B's own task {}", own.id));
        }
        if usize::try_from(all.total_size).ok() != Some(all.tasks.len()) && all.next_page_token.is_empty() {
            return Err(format!("totalSize {} for {} task(s) of B's", all.total_size, all.tasks.len()));
        }
        let by_ctx = self.b.list_tasks(list(&self.waiting.context_id)).await.map_err(|e| format!("B's ListTasks failed: {e}"))?;
        if !by_ctx.tasks.is_empty() || by_ctx.total_size != 0 {
            return Err(format!("B's list of A's context has {} task(s), totalSize {}", by_ctx.tasks.len(), by_ctx.total_size));
        }
        let a_all = self.a.list_tasks(list("")).await.map_err(|e| format!("A's ListTasks failed: {e}"))?;
        if a_all.tasks.iter().any(|t| t.id == own.id) {
            return Err(format!("A's list shows B's task {}", own.id));
        }
        if !a_ids.iter().all(|id| a_all.tasks.iter().any(|t| &&t.id == id)) {
            return Err(String::from("A's list misses A's own tasks"));
        }
        Ok(format!("B sees {} task(s), A {}", all.tasks.len(), a_all.tasks.len()))
    }

    async fn message_ids(&mut self) -> Check {
        let (a_task, a_msg) = self.done.clone();
        let t = send_task(&mut self.b, "hello", &a_msg, "").await?;
        if t.id == a_task.id {
            return Err(format!("B's message with A's messageId answered A's task {}", t.id));
        }
        let mine = self.b.get_task(v1::GetTaskRequest { id: t.id.clone(), ..Default::default() }).await;
        match mine {
            Ok(_) => Ok(format!("a new task {} of B's", t.id)),
            Err(e) => Err(format!("B cannot read the task its message made: {e}")),
        }
    }

    /// A's tasks and config are as A left them, and A can still act on them.
    async fn intact(&mut self) -> Check {
        let w = self.a.get_task(v1::GetTaskRequest { id: self.waiting.id.clone(), ..Default::default() }).await;
        let w = w.map_err(|e| format!("A cannot read A's task: {e}"))?;
        if w.status.as_ref().map(|s| s.state) != self.waiting.status.as_ref().map(|s| s.state)
            || w.history.len() != self.waiting.history.len()
        {
            return Err(format!("A's task changed: state {:?}, {} history message(s)", w.status.map(|s| s.state), w.history.len()));
        }
        if let Some(cfg) = self.config.clone() {
            let req = v1::GetTaskPushNotificationConfigRequest { task_id: cfg.task_id.clone(), id: cfg.id.clone(), ..Default::default() };
            let got = self.a.get_push_config(req).await.map_err(|e| format!("A's push config is gone: {e}"))?;
            if got.url != cfg.url {
                return Err(format!("A's push config changed: {}", got.url));
            }
            let list = v1::ListTaskPushNotificationConfigsRequest { task_id: cfg.task_id.clone(), ..Default::default() };
            let n = self.a.list_push_configs(list).await.map_err(|e| format!("A cannot list A's configs: {e}"))?.configs.len();
            if n != 1 {
                return Err(format!("A's task has {n} push configs, A made 1"));
            }
        }
        let waiting = w.status.as_ref().is_some_and(|s| s.state == v1::TaskState::InputRequired as i32);
        if waiting {
            first_event(self.a.subscribe_to_task(v1::SubscribeToTaskRequest { id: w.id.clone(), ..Default::default() }).await)
                .await
                .map_err(|e| format!("A cannot subscribe to A's task: {e}"))?;
            let c = self.a.cancel_task(v1::CancelTaskRequest { id: w.id.clone(), ..Default::default() }).await;
            let c = c.map_err(|e| format!("A cannot cancel A's task: {e}"))?;
            if c.status.as_ref().map(|s| s.state) != Some(v1::TaskState::Canceled as i32) {
                return Err(format!("A's cancel left state {:?}", c.status.map(|s| s.state)));
            }
        }
        Ok(format!("A's tasks intact{}", if waiting { "; A subscribed and canceled" } else { "" }))
    }

    /// No token, or one the server does not know: unauthenticated on every operation tried.
    async fn unauthenticated(&mut self) -> Check {
        for token in [None, Some("no-such-token")] {
            let c = Matrix::client(&self.iface, token);
            let r = c.send_message(message("hello", &fresh("anon"), "")).await.err();
            if r.as_ref().and_then(kind) != Some(ErrorKind::Unauthenticated) {
                return Err(format!("SendMessage with token {token:?}: {r:?}"));
            }
            let r = c.get_task(v1::GetTaskRequest { id: self.done.0.id.clone(), ..Default::default() }).await.err();
            if r.as_ref().and_then(kind) != Some(ErrorKind::Unauthenticated) {
                return Err(format!("GetTask with token {token:?}: {r:?}"));
            }
        }
        Ok(String::from("Unauthenticated without a token and with an unknown one"))
    }
}

fn emit(iface: &SelectedInterface, check: &str, r: &Check) -> bool {
    let (ok, detail) = match r {
        Ok(d) => (true, d.as_str()),
        Err(d) => (false, d.as_str()),
    };
    let v = serde_json::json!({
        "binding": iface.binding.as_str(), "version": iface.version.to_string(), "url": iface.url, "check": check, "ok": ok, "detail": detail,
    });
    println!("{v}");
    ok
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let (Some(url), Some(token_a), Some(token_b)) = (arg("--url"), arg("--token-a"), arg("--token-b")) else {
        eprintln!("usage: a2a-wire-isolation --url URL --token-a TOKEN --token-b TOKEN");
        return std::process::ExitCode::from(2);
    };
    smol::block_on(async {
        let view = match a2a_wire_smol::client::fetch_card(&url).await {
            Ok(v) => v,
            Err(e) => {
                eprintln!("a2a-wire-isolation: {e}");
                return std::process::ExitCode::from(3);
            }
        };
        let push = view.card.capabilities.as_ref().and_then(|c| c.push_notifications).unwrap_or(false);
        let (mut all_ok, mut rows) = (true, 0);
        let mut seen = Vec::new();
        for i in &view.card.supported_interfaces {
            let binding = Binding::parse(&i.protocol_binding);
            let Some(version) = ProtocolVersion::parse(&i.protocol_version) else { continue };
            if matches!(binding, Binding::Custom(_)) || seen.contains(&(binding.clone(), version)) {
                continue;
            }
            seen.push((binding.clone(), version));
            let iface = SelectedInterface { url: i.url.clone(), binding, version, tenant: i.tenant.clone(), index: 0 };
            let mut m = match Matrix::setup(iface.clone(), &token_a, &token_b, push).await {
                Ok(m) => m,
                Err(e) => {
                    all_ok &= emit(&iface, "setup", &Err(e));
                    continue;
                }
            };
            for p in PROBES {
                all_ok &= emit(&iface, p.name(), &bounded(m.probe(p)).await);
            }
            all_ok &= emit(&iface, "timing", &bounded(m.timing()).await);
            all_ok &= emit(&iface, "list", &bounded(m.list()).await);
            all_ok &= emit(&iface, "message_ids", &bounded(m.message_ids()).await);
            all_ok &= emit(&iface, "intact", &bounded(m.intact()).await);
            all_ok &= emit(&iface, "unauthenticated", &bounded(m.unauthenticated()).await);
            rows += 1;
        }
        if rows == 0 {
            eprintln!("a2a-wire-isolation: the card lists no interface this client speaks");
            all_ok = false;
        }
        if all_ok {
            std::process::ExitCode::SUCCESS
        } else {
            std::process::ExitCode::from(1)
        }
    })
}

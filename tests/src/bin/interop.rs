//! `a2a-wire-interop --url URL --server NAME [--ca-file PEM]`: a2a-wire's client against an A2A server
//! running the demo agent's behaviour (the official SDKs' servers in
//! `tests/interop/*/their_server.*`). For every interface the card lists, runs the interop
//! checks and prints one JSON object per check (the orchestrator `tests/interop/run.py`
//! judges them). Exit status 0 unless the card cannot be read.

use a2a_wire::card::{select_interface, Binding, ClientSupport, SelectedInterface};
use a2a_wire::client::{ClientError, Reply, TaskTracker};
use a2a_wire::error::Received;
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire_smol::agent::text_part;
use a2a_wire_smol::{Client, Error};
use a2a_wire_tests::{bounded, Check};

fn message(text: &str, task_id: &str, context_id: &str) -> v1::SendMessageRequest {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let t = a2a_wire_smol::server::now();
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: format!("interop-{}-{}-{n}", t.seconds, t.nanos),
            role: v1::Role::User as i32,
            parts: vec![text_part(text)],
            task_id: task_id.into(),
            context_id: context_id.into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn texts(parts: &[v1::Part]) -> String {
    parts.iter().filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.as_str()) } else { None }).collect()
}

fn artifact_text(t: &v1::Task) -> String {
    t.artifacts.iter().map(|a| texts(&a.parts)).collect()
}

fn state(t: &v1::Task) -> Option<v1::TaskState> {
    t.status.as_ref().and_then(|s| v1::TaskState::try_from(s.state).ok())
}

fn error_kind(e: &Error) -> String {
    match e {
        Error::A2a(ClientError::Remote(Received::A2a(a))) => format!("{:?}", a.kind()),
        other => other.to_string(),
    }
}

async fn send_task(c: &mut Client, text: &str, task_id: &str, context_id: &str) -> Result<v1::Task, String> {
    match c.send_message(message(text, task_id, context_id)).await.map_err(|e| format!("SendMessage failed: {e}"))? {
        Reply::Task(t) => Ok(t.task().clone()),
        Reply::Message(m) => Err(format!("expected a task, got a message: {}", texts(&m.parts))),
    }
}

struct Checks {
    client: Client,
    completed: Option<v1::Task>,
}

impl Checks {
    async fn send(&mut self) -> Check {
        let t = send_task(&mut self.client, "hello", "", "").await?;
        let ok = state(&t) == Some(v1::TaskState::Completed) && artifact_text(&t) == "hello";
        let detail = format!("state {:?}, artifact {:?}", state(&t), artifact_text(&t));
        self.completed = Some(t);
        if ok {
            Ok(detail)
        } else {
            Err(detail)
        }
    }

    async fn get(&mut self) -> Check {
        let Some(done) = self.completed.clone() else { return Err(String::from("no task from send")) };
        let t = self
            .client
            .get_task(v1::GetTaskRequest { id: done.id.clone(), ..Default::default() })
            .await
            .map_err(|e| format!("GetTask failed: {e}"))?;
        if t.id == done.id && state(&t) == Some(v1::TaskState::Completed) && artifact_text(&t) == "hello" {
            Ok(format!("task {}", t.id))
        } else {
            Err(format!("got {t:?}"))
        }
    }

    async fn stream(&mut self) -> Check {
        let mut s =
            self.client.send_streaming_message(message("slow", "", "")).await.map_err(|e| format!("SendStreamingMessage failed: {e}"))?;
        let mut tracker = TaskTracker::empty();
        let mut appends = Vec::new();
        while let Some(ev) = s.next().await {
            let ev = ev.map_err(|e| format!("stream error: {e}"))?;
            if let Some(v1::stream_response::Payload::ArtifactUpdate(u)) = &ev.payload {
                appends.push(u.append);
            }
            tracker.on_event(&ev, a2a_wire_smol::server::now()).map_err(|r| format!("event refused by the state machine: {r:?}"))?;
        }
        let detail = format!("appends {appends:?}, state {:?}, text {:?}", tracker.state(), artifact_text(tracker.task()));
        if appends == [false, true, true]
            && tracker.state() == Some(v1::TaskState::Completed)
            && artifact_text(tracker.task()) == "one two three"
        {
            Ok(detail)
        } else {
            Err(detail)
        }
    }

    async fn input_required(&mut self) -> Check {
        let t = send_task(&mut self.client, "need-input", "", "").await?;
        if state(&t) != Some(v1::TaskState::InputRequired) {
            return Err(format!("first answer in state {:?}", state(&t)));
        }
        let done = send_task(&mut self.client, "x", &t.id, &t.context_id).await?;
        if done.id == t.id && state(&done) == Some(v1::TaskState::Completed) {
            Ok(format!("task {} completed after the follow-up", t.id))
        } else {
            Err(format!("after the follow-up: task {} state {:?}", done.id, state(&done)))
        }
    }

    async fn cancel_completed(&mut self) -> Check {
        let Some(done) = self.completed.clone() else { return Err(String::from("no task from send")) };
        match self.client.cancel_task(v1::CancelTaskRequest { id: done.id, ..Default::default() }).await {
            Ok(t) => Err(format!("cancel succeeded: state {:?}", state(&t))),
            Err(e) if error_kind(&e) == "TaskNotCancelable" => Ok(String::from("TaskNotCancelable")),
            Err(e) => Err(format!("expected TaskNotCancelable, got {e}")),
        }
    }

    async fn get_unknown(&mut self) -> Check {
        match self.client.get_task(v1::GetTaskRequest { id: "no-such-task".into(), ..Default::default() }).await {
            Ok(t) => Err(format!("got a task {}", t.id)),
            Err(e) if error_kind(&e) == "TaskNotFound" => Ok(String::from("TaskNotFound")),
            Err(e) => Err(format!("expected TaskNotFound, got {e}")),
        }
    }

    async fn list(&mut self) -> Check {
        let Some(done) = self.completed.clone() else { return Err(String::from("no task from send")) };
        let l = self
            .client
            .list_tasks(v1::ListTasksRequest { context_id: done.context_id.clone(), ..Default::default() })
            .await
            .map_err(|e| format!("ListTasks failed: {e}"))?;
        if l.tasks.iter().any(|t| t.id == done.id) {
            Ok(format!("{} task(s), totalSize {}", l.tasks.len(), l.total_size))
        } else {
            Err(format!("task {} not listed: {:?}", done.id, l.tasks.iter().map(|t| &t.id).collect::<Vec<_>>()))
        }
    }

    async fn message_only(&mut self) -> Check {
        match self.client.send_message(message("message-only", "", "")).await.map_err(|e| format!("SendMessage failed: {e}"))? {
            Reply::Message(m) if m.role == v1::Role::Agent as i32 => Ok(format!("message {:?}", texts(&m.parts))),
            Reply::Message(m) => Err(format!("message with role {}", m.role)),
            Reply::Task(t) => Err(format!("expected a message, got task in state {:?}", t.state())),
        }
    }
}

fn emit(server: &str, binding: &str, version: &str, check: &str, r: &Check) {
    let (ok, detail) = match r {
        Ok(d) => (true, d.as_str()),
        Err(d) => (false, d.as_str()),
    };
    let v = serde_json::json!({
        "sdk": server, "client": "a2a-wire", "server": server, "binding": binding, "version": version,
        "check": check, "ok": ok, "detail": detail,
    });
    println!("{v}");
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let (Some(url), Some(server)) = (arg("--url"), arg("--server")) else {
        eprintln!("usage: a2a-wire-interop --url URL --server NAME [--ca-file PEM]");
        return std::process::ExitCode::from(2);
    };
    // --ca-file: https:// agents are verified against this CA only (the TLS rows).
    let mut options = a2a_wire_smol::ClientOptions::default();
    if let Some(f) = arg("--ca-file") {
        match a2a_wire_smol::tls::ClientTls::from_ca_file(&f) {
            Ok(t) => options.tls = Some(t),
            Err(e) => {
                eprintln!("a2a-wire-interop: --ca-file {f}: {e}");
                return std::process::ExitCode::from(2);
            }
        }
    }
    smol::block_on(async {
        let view = match a2a_wire_smol::client::fetch_card_with(&url, &options).await {
            Ok(v) => v,
            Err(e) => {
                eprintln!("a2a-wire-interop: {e}");
                return std::process::ExitCode::from(3);
            }
        };
        let mut seen = Vec::new();
        for iface in &view.card.supported_interfaces {
            let binding = Binding::parse(&iface.protocol_binding);
            let Some(version) = ProtocolVersion::parse(&iface.protocol_version) else { continue };
            if matches!(binding, Binding::Custom(_)) || seen.contains(&(binding.clone(), version)) {
                continue;
            }
            seen.push((binding.clone(), version));
            let (b, v) = (iface.protocol_binding.as_str(), iface.protocol_version.as_str());
            // Interface selection: asking for exactly this binding and version finds it.
            let support = ClientSupport { bindings: vec![binding.clone()], versions: vec![version] };
            let selected = select_interface(&view.card, &support);
            let card_check = match &selected {
                Ok(s) if s.url == iface.url => Ok(format!("selected {} {}", s.url, s.version)),
                Ok(s) => Err(format!("selected {} instead of {}", s.url, iface.url)),
                Err(e) => Err(e.to_string()),
            };
            emit(&server, b, v, "card", &card_check);
            let iface = SelectedInterface { url: iface.url.clone(), binding, version, tenant: iface.tenant.clone(), index: 0 };
            let mut checks = Checks { client: Client::new(iface).with_options(options.clone()), completed: None };
            emit(&server, b, v, "send", &bounded(checks.send()).await);
            emit(&server, b, v, "get", &bounded(checks.get()).await);
            emit(&server, b, v, "stream", &bounded(checks.stream()).await);
            emit(&server, b, v, "input_required", &bounded(checks.input_required()).await);
            emit(&server, b, v, "cancel_completed", &bounded(checks.cancel_completed()).await);
            emit(&server, b, v, "get_unknown", &bounded(checks.get_unknown()).await);
            if !version.is_legacy() {
                emit(&server, b, v, "list", &bounded(checks.list()).await);
            }
            emit(&server, b, v, "message_only", &bounded(checks.message_only()).await);
        }
        std::process::ExitCode::SUCCESS
    })
}

//! What the command prints: readable text for people (states in colour on a terminal, a live
//! progress line while streaming), or ProtoJSON for scripts (`--json`, one JSON document per
//! line).

use a2a_wire::client::ClientError;
use a2a_wire::error::Received;
use a2a_wire::v1;
use a2a_wire_smol::Error;
use std::cell::Cell;
use std::io::{IsTerminal, Write};

pub struct Out {
    json: bool,
    color: bool,
    live: bool,
    /// A progress line is on screen (stderr) and must be cleared before other output.
    progress_shown: Cell<bool>,
    /// Last state printed as a line (when not on a terminal).
    last_state: Cell<i32>,
}

fn to_json<T: a2a_wire::codec::Message>(v: &T) -> String {
    match a2a_wire::codec::json::encode(v) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => format!("{{\"error\":{}}}", serde_json::Value::String(e.to_string())),
    }
}

fn texts(parts: &[v1::Part]) -> String {
    parts
        .iter()
        .map(|p| match &p.content {
            Some(v1::part::Content::Text(t)) => t.clone(),
            Some(v1::part::Content::Data(d)) => format!("{d:?}"),
            Some(v1::part::Content::Url(u)) => format!("<{u}>"),
            Some(v1::part::Content::Raw(r)) => format!("<{} bytes>", r.len()),
            None => String::new(),
        })
        .collect::<Vec<_>>()
        .join("")
}

fn state_name(state: i32) -> &'static str {
    match v1::TaskState::try_from(state).unwrap_or(v1::TaskState::Unspecified) {
        v1::TaskState::Unspecified => "UNSPECIFIED",
        v1::TaskState::Submitted => "SUBMITTED",
        v1::TaskState::Working => "WORKING",
        v1::TaskState::Completed => "COMPLETED",
        v1::TaskState::Failed => "FAILED",
        v1::TaskState::Canceled => "CANCELED",
        v1::TaskState::InputRequired => "INPUT_REQUIRED",
        v1::TaskState::Rejected => "REJECTED",
        v1::TaskState::AuthRequired => "AUTH_REQUIRED",
    }
}

impl Out {
    pub fn new(json: bool) -> Out {
        let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Out { json, color, live: std::io::stderr().is_terminal(), progress_shown: Cell::new(false), last_state: Cell::new(-1) }
    }

    fn state(&self, state: i32) -> String {
        let name = state_name(state);
        if !self.color {
            return String::from(name);
        }
        let code = match v1::TaskState::try_from(state).unwrap_or(v1::TaskState::Unspecified) {
            v1::TaskState::Completed => "32",
            v1::TaskState::Failed | v1::TaskState::Rejected => "31",
            v1::TaskState::Canceled => "90",
            v1::TaskState::InputRequired | v1::TaskState::AuthRequired => "33",
            _ => "36",
        };
        format!("\x1b[{code}m{name}\x1b[0m")
    }

    fn clear_progress(&self) {
        if self.progress_shown.replace(false) {
            eprint!("\r\x1b[2K");
        }
    }

    pub fn card(&self, card: &v1::AgentCard) {
        if self.json {
            println!("{}", to_json(card));
            return;
        }
        println!("{} {}  —  {}", card.name, card.version, card.description);
        println!("interfaces (in order of preference):");
        for i in &card.supported_interfaces {
            let tenant = if i.tenant.is_empty() { String::new() } else { format!("  tenant {}", i.tenant) };
            println!("  {:<9} {:<4} {}{tenant}", i.protocol_binding, i.protocol_version, i.url);
        }
        let caps = card.capabilities.clone().unwrap_or_default();
        println!(
            "capabilities: streaming {}, push notifications {}, extended card {}",
            caps.streaming.unwrap_or(false),
            caps.push_notifications.unwrap_or(false),
            caps.extended_agent_card.unwrap_or(false)
        );
        for s in &card.skills {
            println!("skill {}: {}  —  {}", s.id, s.name, s.description);
        }
    }

    pub fn task(&self, task: &v1::Task) {
        self.clear_progress();
        if self.json {
            println!("{}", to_json(task));
            return;
        }
        let status = task.status.clone().unwrap_or_default();
        println!("task {}  {}  (context {})", task.id, self.state(status.state), task.context_id);
        if let Some(m) = &status.message {
            println!("  agent: {}", texts(&m.parts));
        }
        for a in &task.artifacts {
            let name = if a.name.is_empty() { a.artifact_id.as_str() } else { a.name.as_str() };
            println!("  artifact {name}: {}", texts(&a.parts));
        }
    }

    pub fn message(&self, m: &v1::Message) {
        self.clear_progress();
        if self.json {
            println!("{}", to_json(m));
            return;
        }
        let role = if m.role == v1::Role::Agent as i32 { "agent" } else { "user" };
        println!("message from {role}: {}", texts(&m.parts));
    }

    pub fn list(&self, list: &v1::ListTasksResponse) {
        if self.json {
            println!("{}", to_json(list));
            return;
        }
        for t in &list.tasks {
            let state = t.status.as_ref().map(|s| s.state).unwrap_or(0);
            println!("{}  {}  context {}", t.id, self.state(state), t.context_id);
        }
        println!("{} of {} task(s)", list.tasks.len(), list.total_size);
        if !list.next_page_token.is_empty() {
            println!("next page: --page-token {}", list.next_page_token);
        }
    }

    /// A stream event (only printed in `--json` mode; people see [`Out::progress`]).
    pub fn event(&self, ev: &v1::StreamResponse) {
        if self.json {
            println!("{}", to_json(ev));
        }
    }

    /// The live progress line (on a terminal) or one line per state change.
    pub fn progress(&self, task: &v1::Task) {
        if self.json {
            return;
        }
        let state = task.status.as_ref().map(|s| s.state).unwrap_or(0);
        let chunks: usize = task.artifacts.iter().map(|a| a.parts.len()).sum();
        if self.live {
            eprint!("\r\x1b[2K… task {}  {}  {} artifact part(s)", task.id, state_name(state), chunks);
            let _ = std::io::stderr().flush();
            self.progress_shown.set(true);
        } else if self.last_state.replace(state) != state {
            eprintln!("… task {}  {}", task.id, state_name(state));
        }
    }

    pub fn finish_stream(&self, task: &v1::Task) {
        if self.json {
            return;
        }
        self.task(task);
    }

    pub fn error(&self, e: &Error) {
        self.clear_progress();
        let (headline, detail) = match e {
            Error::A2a(ClientError::Remote(Received::A2a(a))) => (
                format!("{:?} — {}", a.kind(), a.message()),
                format!(
                    "JSON-RPC {}, HTTP {}, gRPC {}{}",
                    a.jsonrpc_code(),
                    a.http_status(),
                    a.grpc_code().name(),
                    a.reason().map(|r| format!(", reason {r}")).unwrap_or_default()
                ),
            ),
            Error::A2a(ClientError::Remote(Received::NotA2a { status, message })) => (
                format!(
                    "an error without A2A meaning (status {status}){}",
                    if message.is_empty() { String::new() } else { format!(": {message}") }
                ),
                String::from("no A2A error was named: a proxy or a wrong URL may have answered, not the agent"),
            ),
            other => (other.to_string(), String::new()),
        };
        if self.json {
            let v = serde_json::json!({ "error": { "message": headline, "detail": detail } });
            println!("{v}");
        } else if detail.is_empty() {
            eprintln!("error: {headline}");
        } else {
            eprintln!("error: {headline}\n       ({detail})");
        }
    }
}

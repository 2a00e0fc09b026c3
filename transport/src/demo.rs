//! The demo echo agent that `a2a-wire serve` runs, and the card that lists every interface it
//! serves. Tests, benchmarks and the language bindings use the same agent.
//!
//! | text            | what the agent does                                                    |
//! |-----------------|------------------------------------------------------------------------|
//! | `need-input`    | `TASK_STATE_INPUT_REQUIRED` with a question; a follow-up on that task completes it, echoing the follow-up |
//! | `slow`          | `TASK_STATE_WORKING`, three appended chunks of one artifact about 0.7 s apart, then completed |
//! | `message-only`  | a direct Message (no task)                                             |
//! | a file part with bytes | a completed Task whose artifact `file` holds `received N bytes sha256 HEX` and the file back (the interop `file` check, tests/interop/CHECKS.md) |
//! | `ticks N [MS [WAIT]]` | after `WAIT` ms, `N` appended chunks (`tick 1`, `tick 2`, ...) `MS` ms apart, then completed (a resumed run goes on after the last stored tick; for stream benchmarks; N ≤ 1,000,000, MS ≤ 10,000, WAIT ≤ 60,000) |
//! | anything else   | a completed Task with one artifact echoing the text                    |

use crate::agent::{agent_text, text_part, AgentExecutor, EventSink, RequestContext};
use a2a_wire::v1;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::time::Duration;

/// The demo echo agent.
#[derive(Clone, Debug)]
pub struct EchoAgent {
    /// Pause between the chunks of `slow` (0.7 s by default).
    pub chunk_delay: Duration,
}

impl Default for EchoAgent {
    fn default() -> Self {
        EchoAgent { chunk_delay: Duration::from_millis(700) }
    }
}

fn artifact(id: &str, text: &str) -> v1::Artifact {
    v1::Artifact { artifact_id: id.into(), name: "echo".into(), parts: vec![text_part(text)], ..Default::default() }
}

impl AgentExecutor for EchoAgent {
    fn execute(&self, ctx: RequestContext, events: EventSink) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>> {
        let delay = self.chunk_delay;
        Box::pin(async move {
            let text = ctx.text();
            let reply_id = |n: &str| format!("{}-{n}", ctx.message.message_id);
            if ctx.resumed {
                // The server restarted while this task ran: continue where the old run got.
                if text == "slow" {
                    let sent: String = ctx
                        .task
                        .iter()
                        .flat_map(|t| t.artifacts.iter().filter(|a| a.artifact_id == "slow"))
                        .flat_map(|a| a.parts.iter())
                        .filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.as_str()) } else { None })
                        .collect();
                    let done = (0..=SLOW.len()).rev().find(|k| SLOW[..*k].concat() == sent).unwrap_or(0);
                    slow(&ctx, &events, delay, done).await;
                } else if let Some((n, ms, _)) = text.strip_prefix("ticks ").and_then(|_| parse_ticks(&text)) {
                    // The ticks the old run got out are in the stored artifact: go on after them.
                    let done = ctx
                        .task
                        .iter()
                        .flat_map(|t| t.artifacts.iter().filter(|a| a.artifact_id == "ticks"))
                        .map(|a| a.parts.len())
                        .sum::<usize>();
                    ticks(&ctx, &events, n, ms, u32::try_from(done).unwrap_or(u32::MAX)).await;
                } else {
                    let _ = events.artifact(artifact("echo", &text), false, true);
                    let _ = events.status(v1::TaskState::Completed, None);
                }
                return;
            }
            if ctx.follow_up {
                let _ = events.artifact(artifact("echo", &text), false, true);
                let _ = events.status(v1::TaskState::Completed, None);
                return;
            }
            if let Some(file) = ctx.message.parts.iter().find(|p| matches!(p.content, Some(v1::part::Content::Raw(_)))) {
                let _ = events.artifact(file_echo(file), false, true);
                let _ = events.status(v1::TaskState::Completed, None);
                return;
            }
            match text.as_str() {
                "need-input" => {
                    let _ = events.status(v1::TaskState::InputRequired, Some(agent_text(reply_id("question"), "What should I echo?")));
                }
                "slow" => {
                    let _ = events.status(v1::TaskState::Working, None);
                    slow(&ctx, &events, delay, 0).await;
                }
                "message-only" => {
                    let _ = events.message(agent_text(reply_id("reply"), &text));
                }
                t if t.starts_with("ticks ") => match parse_ticks(t) {
                    Some((n, ms, wait)) => {
                        let _ = events.status(v1::TaskState::Working, None);
                        smol::Timer::after(Duration::from_millis(wait)).await;
                        ticks(&ctx, &events, n, ms, 0).await;
                    }
                    None => {
                        let question =
                            agent_text(reply_id("usage"), "usage: ticks N [MS [WAIT]] (N 1..=1000000, MS 0..=10000, WAIT 0..=60000)");
                        let _ = events.status(v1::TaskState::Rejected, Some(question));
                    }
                },
                _ => {
                    let _ = events.artifact(artifact("echo", &text), false, true);
                    let _ = events.status(v1::TaskState::Completed, None);
                }
            }
        })
    }
}

/// The artifact `file` for a file part with bytes: what arrived (size and SHA-256), then the
/// file itself.
fn file_echo(file: &v1::Part) -> v1::Artifact {
    let bytes = match &file.content {
        Some(v1::part::Content::Raw(b)) => b.as_slice(),
        _ => &[],
    };
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    let said = text_part(&format!("received {} bytes sha256 {hex}", bytes.len()));
    v1::Artifact { artifact_id: "file".into(), name: "file".into(), parts: vec![said, file.clone()], ..Default::default() }
}

/// `ticks N [MS [WAIT]]` → (N, MS, WAIT), within bounds.
fn parse_ticks(text: &str) -> Option<(u32, u64, u64)> {
    let mut it = text.split_whitespace().skip(1);
    let n: u32 = it.next()?.parse().ok().filter(|n| (1..=1_000_000).contains(n))?;
    let ms: u64 = it.next().unwrap_or("0").parse().ok().filter(|ms| *ms <= 10_000)?;
    let wait: u64 = it.next().unwrap_or("0").parse().ok().filter(|w| *w <= 60_000)?;
    it.next().is_none().then_some((n, ms, wait))
}

/// Ticks `from + 1` to `n` of `ticks N MS`, `ms` apart, then completes the task.
async fn ticks(ctx: &RequestContext, events: &EventSink, n: u32, ms: u64, from: u32) {
    for i in from..n {
        if ms > 0 {
            smol::Timer::after(Duration::from_millis(ms)).await;
        } else if i % 64 == 0 {
            // Let the engine and the connections run between bursts.
            smol::future::yield_now().await;
        }
        if ctx.cancel.is_canceled() {
            return;
        }
        // A refused event (the task was canceled meanwhile) ends the run.
        if events.artifact(artifact("ticks", &format!("tick {}", i + 1)), i > 0, i + 1 == n).is_err() {
            return;
        }
    }
    let _ = events.status(v1::TaskState::Completed, None);
}

/// The chunks of `slow`.
const SLOW: [&str; 3] = ["one ", "two ", "three"];

/// Sends the chunks of `slow` from chunk `from` on, then completes the task.
async fn slow(ctx: &RequestContext, events: &EventSink, delay: Duration, from: usize) {
    for (i, piece) in SLOW.iter().enumerate().skip(from) {
        smol::Timer::after(delay).await;
        if ctx.cancel.is_canceled() {
            return;
        }
        let _ = events.artifact(artifact("slow", piece), i > 0, i == SLOW.len() - 1);
    }
    let _ = events.status(v1::TaskState::Completed, None);
}

/// Paths of the interfaces the demo card lists (gRPC has none: it is served on the same
/// port, told apart by the HTTP/2 preface).
pub mod paths {
    /// JSON-RPC, v1.0.
    pub const JSONRPC: &str = "/a2a/jsonrpc";
    /// HTTP+JSON, v1.0.
    pub const REST: &str = "/a2a/rest";
    /// JSON-RPC, v0.3.
    pub const JSONRPC_V03: &str = "/a2a/v03/jsonrpc";
    /// HTTP+JSON, v0.3.
    pub const REST_V03: &str = "/a2a/v03/rest";
}

/// `card` as given, or, when it lists no interfaces, with the six of [`card`] for `addr`
/// (what the bindings' ready servers publish for a card without `supportedInterfaces`).
pub fn with_standard_interfaces(card: v1::AgentCard, addr: SocketAddr) -> v1::AgentCard {
    with_standard_interfaces_at(card, &origin(addr, false))
}

/// [`with_standard_interfaces`] for a server at `origin` (`http://HOST:PORT` or
/// `https://HOST:PORT`, see [`card_at`]).
pub fn with_standard_interfaces_at(card: v1::AgentCard, origin: &str) -> v1::AgentCard {
    if !card.supported_interfaces.is_empty() {
        return card;
    }
    v1::AgentCard { supported_interfaces: standard_interfaces(origin), ..card }
}

/// The origin a server at `addr` publishes: `https://ADDR` with TLS, `http://ADDR` without.
pub fn origin(addr: SocketAddr, tls: bool) -> String {
    format!("{}://{addr}", if tls { "https" } else { "http" })
}

/// The origin a card names when the server is reached through something else (a load
/// balancer, a proxy): `URL` is `http://HOST[:PORT]` or `https://HOST[:PORT]` (a trailing
/// `/` is dropped); a path, query, fragment or user name is refused, since every interface
/// URL is the origin plus the server's own paths.
pub fn public_origin(url: &str) -> Result<String, String> {
    let u = url.trim_end_matches('/');
    let rest = u
        .strip_prefix("http://")
        .or_else(|| u.strip_prefix("https://"))
        .ok_or_else(|| format!("{url}: expected http://HOST[:PORT] or https://HOST[:PORT]"))?;
    if rest.is_empty() {
        return Err(format!("{url}: no host"));
    }
    if let Some(c) = rest.chars().find(|c| matches!(c, '/' | '?' | '#' | '@' | ' ') || c.is_control()) {
        return Err(format!("{url}: the origin only (scheme, host and port), found {c:?}"));
    }
    // An IPv6 literal is bracketed: `[::1]:8443`.
    let (host, port) = match rest.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((h, "")) => (h, None),
            Some((h, p)) => (h, Some(p.strip_prefix(':').unwrap_or("x"))),
            None => ("", None),
        },
        None => match rest.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (rest, None),
        },
    };
    if host.is_empty() || port.is_some_and(|p| p.parse::<u16>().map_or(true, |n| n == 0)) {
        return Err(format!("{url}: a host and, optionally, a port from 1 to 65535"));
    }
    Ok(u.to_string())
}

/// The six interfaces of a server at `origin` (`http://HOST:PORT` or `https://HOST:PORT`):
/// JSON-RPC, HTTP+JSON and gRPC in v1.0, then in v0.3. gRPC is at the bare `HOST:PORT` in
/// cleartext (how v1.0 cards publish it), and at `https://HOST:PORT` over TLS.
pub fn standard_interfaces(origin: &str) -> Vec<v1::AgentInterface> {
    let origin = origin.trim_end_matches('/');
    let http = |path: &str| format!("{origin}{path}");
    let grpc = origin.strip_prefix("http://").map_or_else(|| String::from(origin), String::from);
    let iface = |url: String, binding: &str, version: &str| v1::AgentInterface {
        url,
        protocol_binding: binding.into(),
        protocol_version: version.into(),
        ..Default::default()
    };
    let all = vec![
        iface(http(paths::JSONRPC), "JSONRPC", "1.0"),
        iface(http(paths::REST), "HTTP+JSON", "1.0"),
        iface(grpc.clone(), "GRPC", "1.0"),
        iface(http(paths::JSONRPC_V03), "JSONRPC", "0.3"),
        iface(http(paths::REST_V03), "HTTP+JSON", "0.3"),
        iface(grpc, "GRPC", "0.3"),
    ];
    // A build without gRPC serves the four HTTP/1.1 interfaces only.
    #[cfg(not(feature = "grpc"))]
    let all = all.into_iter().filter(|i| i.protocol_binding != "GRPC").collect();
    all
}

/// The demo card for a server reachable at `addr` over cleartext: JSON-RPC, HTTP+JSON and
/// gRPC, each in v1.0 and v0.3, in that order of preference; streaming on, push
/// notifications on.
pub fn card(addr: SocketAddr) -> v1::AgentCard {
    card_at(&origin(addr, false))
}

/// The demo card for a server at `origin`: `http://HOST:PORT`, or `https://HOST:PORT` for a
/// server with TLS (HOST as its certificate names it).
pub fn card_at(origin: &str) -> v1::AgentCard {
    v1::AgentCard {
        name: "a2a-wire echo".into(),
        description: "Echoes text back: need-input asks a question, slow streams three chunks, message-only replies with a message.".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        supported_interfaces: standard_interfaces(origin),
        capabilities: Some(v1::AgentCapabilities { streaming: Some(true), push_notifications: Some(true), ..Default::default() }),
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![v1::AgentSkill {
            id: "echo".into(),
            name: "Echo".into(),
            description: "Echoes the text of a message as an artifact.".into(),
            tags: vec!["echo".into(), "demo".into()],
            examples: vec!["hello".into(), "need-input".into(), "slow".into(), "message-only".into()],
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::{card_at, parse_ticks, public_origin};

    #[test]
    fn a_public_origin_is_scheme_host_and_port_only() {
        assert_eq!(public_origin("https://agents.example/").unwrap(), "https://agents.example");
        assert_eq!(public_origin("http://10.0.0.5:8080").unwrap(), "http://10.0.0.5:8080");
        assert_eq!(public_origin("https://[2001:db8::1]:8443").unwrap(), "https://[2001:db8::1]:8443");
        for bad in [
            "agents.example",
            "ftp://x",
            "https://",
            "https://x/a2a",
            "https://x?y",
            "https://u@x",
            "https://x:0",
            "https://x:99999",
            "https://x:1:2",
            "https://[::1",
            "https://[::1]x",
            "http://a b",
        ] {
            assert!(public_origin(bad).is_err(), "{bad}");
        }
        let card = card_at(&public_origin("https://agents.example").unwrap());
        assert!(card.supported_interfaces.iter().all(|i| i.url.starts_with("https://agents.example")), "{card:?}");
    }

    #[test]
    fn ticks_take_a_bounded_count_and_delay() {
        assert_eq!(parse_ticks("ticks 5"), Some((5, 0, 0)));
        assert_eq!(parse_ticks("ticks 1000000 10000 60000"), Some((1_000_000, 10_000, 60_000)));
        for bad in ["ticks", "ticks 0", "ticks 1000001", "ticks 5 10001", "ticks 5 0 60001", "ticks x", "ticks 5 1 2 extra", "ticks -1"] {
            assert_eq!(parse_ticks(bad), None, "{bad}");
        }
    }
}

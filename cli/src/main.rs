//! `a2a-wire`: serve the demo echo agent, or talk to any A2A agent.
//!
//! ```text
//! a2a-wire serve [--addr 127.0.0.1:7420] [--public-url URL] [--store FILE|memory|postgres://USER[:PASS]@HOST:PORT/DB] [--cache-mb N] [--retain DURATION] [--lease-seconds N] [--no-resume] [--allow-private-webhooks] [--allow-webhook HOST|NET]... [--bearer-tokens FILE] [--tls-cert FILE --tls-key FILE] [--ca-file FILE]
//! a2a-wire card URL [--json]
//! a2a-wire send URL TEXT [--stream] [--task ID] [--context ID] [--binding B] [--version V] [--timeout S] [--json]
//! a2a-wire get URL TASK_ID [--history N] [--json]
//! a2a-wire list URL [--context ID] [--state STATE] [--page-size N] [--json]
//! a2a-wire cancel URL TASK_ID [--json]
//! a2a-wire subscribe URL TASK_ID [--json]
//! a2a-wire sign-card --card-key FILE [--card-kid KID] [--card-jku URL] CARD.json
//! a2a-wire verify-card --card-keys JWKS [--spec-form-only] CARD.json
//! a2a-wire card-key --card-key FILE [--card-kid KID]
//! ```
//!
//! Exit status: 0 success, 1 the peer answered with an error (an A2A error, or an HTTP/gRPC
//! error without A2A meaning), 2 usage error, 3 the agent could not be reached or broke the
//! protocol.

mod output;

use a2a_wire::card::{Binding, ClientSupport};
use a2a_wire::client::{ClientError, Reply, TaskTracker};
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire_smol::agent::text_part;
use a2a_wire_smol::{Client, Error};
use output::Out;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage:
  a2a-wire serve [--addr 127.0.0.1:7420] [--public-url URL] [--store FILE|memory|postgres://USER[:PASS]@HOST:PORT/DB] [--cache-mb N] [--retain DURATION] [--lease-seconds N] [--no-resume] [--allow-private-webhooks] [--allow-webhook HOST|NET]... [--bearer-tokens FILE] [--tls-cert FILE --tls-key FILE] [--ca-file FILE] [--v03-file-bytes base64|raw]
  a2a-wire card URL [--json]
  a2a-wire send URL TEXT [--stream] [--task ID] [--context ID] [--binding jsonrpc|rest|grpc] [--version 1.0|0.3] [--header NAME:VALUE] [--timeout SECONDS] [--json]
  a2a-wire get URL TASK_ID [--history N] [...]
  a2a-wire list URL [--context ID] [--state STATE] [--page-size N] [...]
  a2a-wire cancel URL TASK_ID [...]
  a2a-wire subscribe URL TASK_ID [...]
  a2a-wire sign-card --card-key FILE [--card-kid KID] [--card-jku URL] CARD.json
  a2a-wire verify-card --card-keys JWKS [--spec-form-only] CARD.json
  a2a-wire card-key --card-key FILE [--card-kid KID]

URL is the agent's base URL or the URL of its Agent Card. The client picks the first
interface of the card it speaks; --binding and --version narrow the choice. --timeout
bounds each call (default 30 s; for a stream, until it starts). Push notifications go only
to public addresses unless --allow-webhook names a host or network (127.0.0.1, localhost,
10.0.0.0/8) or --allow-private-webhooks lets every address through. --bearer-tokens FILE
(one TOKEN PRINCIPAL pair a line) makes the server require Authorization: Bearer TOKEN on
every call; each principal sees only its own tasks. Clients send it with --header.
--tls-cert FILE --tls-key FILE (PEM) serve HTTPS: HTTP/1.1 and HTTP/2 (gRPC) by ALPN on the
one port, the card listing https:// URLs; changed files are read again. Clients verify
https:// agents against the platform's roots, or only against --ca-file FILE (PEM); serve's
--ca-file is what webhook receivers are verified against.
serve --public-url https://HOST[:PORT] makes the card name that origin (a load balancer's)
instead of --addr. serve --store FILE (default a2a-wire-tasks.db; memory: no file) keeps tasks in SQLite, and
--store postgres://USER[:PASS]@HOST:PORT/DB in PostgreSQL (tables created at start): memory
holds the tasks in use plus a cache of --cache-mb MiB (default 64). --retain DURATION (90s,
12h, 30d) deletes finished tasks (completed, canceled, failed, rejected) whose last change is
older; by default every task is kept. Several servers may share one PostgreSQL database
behind a load balancer (--public-url naming it): any of them answers any call, and events
reach subscribers on every one; the server running a task holds a lease on it
(--lease-seconds, default 15) and when it dies another takes the task over after the lease
and resumes its run. --no-resume fails a task whose run was lost (a restart, a dead
server) instead of resuming it, with a status message saying why.
Agent Card signatures (ES256, EdDSA): serve --card-key FILE (a private JWK, or a PKCS#8
PEM key with --card-kid) signs the card it serves; clients given --card-keys JWKS check
the card's signature, and --require-signed-card refuses an unsigned one. sign-card and
verify-card do the same to a card file; card-key prints a key's public JWKS.
--v03-file-bytes (serve and the client commands): how file bytes travel on v0.3 gRPC and
HTTP+JSON. base64 (the default) writes their base64 text, as a2a-sdk and a2a-go v0.3 do;
raw writes the bytes, as @a2a-js/sdk 0.3 does. Both forms are read (INTEROP.md).";

/// Parsed options: positional arguments and `--name value` / `--flag` options.
struct Args {
    positional: Vec<String>,
    options: Vec<(String, Option<String>)>,
}

const FLAGS: &[&str] =
    &["--json", "--stream", "--allow-private-webhooks", "--no-resume", "--help", "--require-signed-card", "--spec-form-only"];

impl Args {
    fn parse(raw: impl Iterator<Item = String>) -> Result<Args, String> {
        let mut positional = Vec::new();
        let mut options = Vec::new();
        let mut raw = raw.peekable();
        while let Some(a) = raw.next() {
            if a == "-h" {
                options.push((String::from("--help"), None));
            } else if let Some((name, value)) = a.split_once('=').filter(|_| a.starts_with("--")) {
                options.push((name.to_string(), Some(value.to_string())));
            } else if a.starts_with("--") {
                if FLAGS.contains(&a.as_str()) {
                    options.push((a, None));
                } else {
                    let v = raw.next().ok_or_else(|| format!("{a} needs a value"))?;
                    options.push((a, Some(v)));
                }
            } else {
                positional.push(a);
            }
        }
        Ok(Args { positional, options })
    }
    fn flag(&self, name: &str) -> bool {
        self.options.iter().any(|(n, _)| n == name)
    }
    fn value(&self, name: &str) -> Option<&str> {
        self.options.iter().rev().find(|(n, _)| n == name).and_then(|(_, v)| v.as_deref())
    }
    fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.options.iter().filter(move |(n, _)| n == name).filter_map(|(_, v)| v.as_deref())
    }
    fn check(&self, allowed: &[&str]) -> Result<(), String> {
        for (n, _) in &self.options {
            if !allowed.contains(&n.as_str()) && n != "--help" {
                return Err(format!("unknown option {n}"));
            }
        }
        Ok(())
    }
}

/// What went wrong, and the exit status it gives.
enum Failure {
    Usage(String),
    Agent(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Agent(e)
    }
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => return usage(&e),
    };
    if args.positional.is_empty() || args.flag("--help") {
        println!("{USAGE}");
        return if args.flag("--help") { ExitCode::SUCCESS } else { ExitCode::from(2) };
    }
    let out = Out::new(args.flag("--json"));
    let result = if args.positional[0] == "serve" {
        if let Err(m) = args.check(SERVE_OPTIONS) {
            return usage(&m);
        }
        // The server runs as a task on smol's executor thread, which also drives the reactor
        // between tasks; this thread only waits. One thread then does everything, with no
        // hand-off of every ready socket from an I/O thread to an executor thread (BENCHMARKS.md
        // has the context switches it saves).
        smol::future::block_on(smol::spawn(async move { serve(&args).await }))
    } else {
        smol::block_on(run(&args, &out))
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(m)) => usage(&m),
        Err(Failure::Agent(e)) => {
            out.error(&e);
            match e {
                Error::A2a(ClientError::Remote(_)) => ExitCode::from(1),
                _ => ExitCode::from(3),
            }
        }
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("a2a-wire: {message}\n\n{USAGE}");
    ExitCode::from(2)
}

const SERVE_OPTIONS: &[&str] = &[
    "--addr",
    "--public-url",
    "--store",
    "--cache-mb",
    "--retain",
    "--lease-seconds",
    "--no-resume",
    "--allow-private-webhooks",
    "--allow-webhook",
    "--bearer-tokens",
    "--tls-cert",
    "--tls-key",
    "--ca-file",
    "--card-key",
    "--card-kid",
    "--card-jku",
    "--v03-file-bytes",
];
const CLIENT_OPTIONS: &[&str] =
    &["--json", "--binding", "--version", "--header", "--timeout", "--ca-file", "--card-keys", "--require-signed-card", "--v03-file-bytes"];

/// `--v03-file-bytes base64|raw`.
fn v03_file_bytes(args: &Args) -> Result<a2a_wire::server::FileBytes, Failure> {
    match args.value("--v03-file-bytes") {
        None => Ok(a2a_wire::server::FileBytes::default()),
        Some(v) => a2a_wire::server::FileBytes::from_name(v).ok_or_else(|| Failure::Usage(format!("--v03-file-bytes {v}: base64 or raw"))),
    }
}

/// `--card-key FILE [--card-kid KID]`: the key that signs cards.
fn card_key(args: &Args) -> Result<Option<a2a_wire_smol::signing::SigningKey>, Failure> {
    let Some(file) = args.value("--card-key") else { return Ok(None) };
    a2a_wire_smol::signing::SigningKey::from_file(file, args.value("--card-kid"))
        .map(Some)
        .map_err(|e| Failure::Usage(format!("--card-key {file}: {e}")))
}

/// `--card-keys JWKS`: the keys card signatures are checked against.
fn card_keys(args: &Args) -> Result<Option<a2a_wire_smol::signing::CardKeySet>, Failure> {
    let Some(file) = args.value("--card-keys") else { return Ok(None) };
    a2a_wire_smol::signing::CardKeySet::from_jwks_file(file).map(Some).map_err(|e| Failure::Usage(format!("--card-keys {file}: {e}")))
}

fn read_card_file(path: &str) -> Result<v1::AgentCard, Failure> {
    let text = std::fs::read(path).map_err(|e| Failure::Usage(format!("{path}: {e}")))?;
    a2a_wire::codec::json::decode_unchecked(&text).map_err(|e| Failure::Usage(format!("{path}: not a v1.0 Agent Card: {e}")))
}

fn signature_failure(e: a2a_wire::signing::SignatureError) -> Failure {
    Failure::Agent(Error::Card(e.to_string()))
}

/// `--ca-file FILE`: trust exactly the certificate authorities of FILE (PEM) for https://
/// instead of the platform's.
fn ca_file(args: &Args) -> Result<Option<a2a_wire_smol::tls::ClientTls>, Failure> {
    match args.value("--ca-file") {
        Some(f) => a2a_wire_smol::tls::ClientTls::from_ca_file(f).map(Some).map_err(|e| Failure::Usage(format!("--ca-file {f}: {e}"))),
        None => Ok(None),
    }
}

/// The client's limits, with `--timeout SECONDS` as the call deadline.
fn client_options(args: &Args) -> Result<a2a_wire_smol::ClientOptions, Failure> {
    let mut options = a2a_wire_smol::ClientOptions::default();
    if let Some(t) = args.value("--timeout") {
        let secs: f64 = t
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
            .ok_or_else(|| Failure::Usage(format!("--timeout {t}: a number of seconds, more than 0 and at most 86400")))?;
        options.deadline = std::time::Duration::from_secs_f64(secs);
    }
    options.tls = ca_file(args)?;
    options.card_keys = card_keys(args)?.map(Arc::new);
    options.require_signed_card = args.flag("--require-signed-card");
    options.v03_file_bytes = v03_file_bytes(args)?;
    Ok(options)
}

async fn run(args: &Args, out: &Out) -> Result<(), Failure> {
    let pos = |i: usize, what: &str| args.positional.get(i).cloned().ok_or_else(|| Failure::Usage(format!("missing {what}")));
    let allow = |extra: &[&str]| args.check(&[CLIENT_OPTIONS, extra].concat()).map_err(Failure::Usage);
    match args.positional[0].as_str() {
        "serve" => {
            args.check(SERVE_OPTIONS).map_err(Failure::Usage)?;
            serve(args).await
        }
        "card" => {
            allow(&[])?;
            let (view, verified) = a2a_wire_smol::client::fetch_card_checked(&pos(1, "URL")?, &client_options(args)?).await?;
            if let Some(v) = verified {
                eprintln!("a2a-wire: the card's signature {} verifies ({}, key {})", v.index, v.alg, v.kid);
            }
            out.card(&view.card);
            Ok(())
        }
        "sign-card" => {
            args.check(&["--card-key", "--card-kid", "--card-jku"]).map_err(Failure::Usage)?;
            let key = card_key(args)?.ok_or_else(|| Failure::Usage(String::from("sign-card needs --card-key FILE")))?;
            let card = read_card_file(&pos(1, "CARD.json")?)?;
            let signed = key.sign_card(&card, args.value("--card-jku")).map_err(signature_failure)?;
            let json = a2a_wire::codec::json::encode(&signed).map_err(|e| Failure::Agent(Error::Card(e.to_string())))?;
            println!("{}", String::from_utf8_lossy(&json));
            Ok(())
        }
        "verify-card" => {
            args.check(&["--card-keys", "--spec-form-only"]).map_err(Failure::Usage)?;
            let keys = card_keys(args)?.ok_or_else(|| Failure::Usage(String::from("verify-card needs --card-keys JWKS")))?;
            let card = read_card_file(&pos(1, "CARD.json")?)?;
            let how = a2a_wire::signing::Verification { accept_sdk_form: !args.flag("--spec-form-only") };
            let v = keys.verify_card(&card, how).map_err(signature_failure)?;
            println!("verified: signature {} ({}, key {}, payload {:?})", v.index, v.alg, v.kid, v.form);
            Ok(())
        }
        "card-key" => {
            args.check(&["--card-key", "--card-kid"]).map_err(Failure::Usage)?;
            let key = card_key(args)?.ok_or_else(|| Failure::Usage(String::from("card-key needs --card-key FILE")))?;
            println!("{}", serde_json::json!({ "keys": [key.public_jwk()] }));
            Ok(())
        }
        "send" => {
            allow(&["--stream", "--task", "--context"])?;
            let client = connect(args, &pos(1, "URL")?).await?;
            let text = args.positional[2..].join(" ");
            if text.is_empty() {
                return Err(Failure::Usage(String::from("missing TEXT")));
            }
            let message = v1::Message {
                message_id: new_id(),
                role: v1::Role::User as i32,
                parts: vec![text_part(&text)],
                task_id: args.value("--task").unwrap_or_default().into(),
                context_id: args.value("--context").unwrap_or_default().into(),
                ..Default::default()
            };
            let request = v1::SendMessageRequest { message: Some(message), ..Default::default() };
            if args.flag("--stream") {
                let stream = client.send_streaming_message(request).await?;
                follow(stream, out).await
            } else {
                match client.send_message(request).await? {
                    Reply::Message(m) => out.message(&m),
                    Reply::Task(t) => out.task(t.task()),
                }
                Ok(())
            }
        }
        "get" => {
            allow(&["--history"])?;
            let client = connect(args, &pos(1, "URL")?).await?;
            let history_length = match args.value("--history") {
                Some(n) => Some(n.parse::<i32>().map_err(|_| Failure::Usage(format!("--history {n}: not a number")))?),
                None => None,
            };
            let task = client.get_task(v1::GetTaskRequest { id: pos(2, "TASK_ID")?, history_length, ..Default::default() }).await?;
            out.task(&task);
            Ok(())
        }
        "list" => {
            allow(&["--context", "--state", "--page-size", "--page-token"])?;
            let client = connect(args, &pos(1, "URL")?).await?;
            let status = match args.value("--state") {
                Some(s) => parse_state(s).ok_or_else(|| Failure::Usage(format!("--state {s}: not a task state")))? as i32,
                None => 0,
            };
            let page_size = match args.value("--page-size") {
                Some(n) => Some(n.parse::<i32>().map_err(|_| Failure::Usage(format!("--page-size {n}: not a number")))?),
                None => None,
            };
            let list = client
                .list_tasks(v1::ListTasksRequest {
                    context_id: args.value("--context").unwrap_or_default().into(),
                    status,
                    page_size,
                    page_token: args.value("--page-token").unwrap_or_default().into(),
                    ..Default::default()
                })
                .await?;
            out.list(&list);
            Ok(())
        }
        "cancel" => {
            allow(&[])?;
            let client = connect(args, &pos(1, "URL")?).await?;
            let task = client.cancel_task(v1::CancelTaskRequest { id: pos(2, "TASK_ID")?, ..Default::default() }).await?;
            out.task(&task);
            Ok(())
        }
        "subscribe" => {
            allow(&[])?;
            let client = connect(args, &pos(1, "URL")?).await?;
            let stream = client.subscribe_to_task(v1::SubscribeToTaskRequest { id: pos(2, "TASK_ID")?, ..Default::default() }).await?;
            follow(stream, out).await
        }
        other => Err(Failure::Usage(format!("unknown command {other}"))),
    }
}

/// Reads a stream to its end, showing progress.
async fn follow(mut stream: a2a_wire_smol::EventStream, out: &Out) -> Result<(), Failure> {
    let mut tracker = TaskTracker::empty();
    let mut direct = None;
    while let Some(ev) = stream.next().await {
        let ev = ev?;
        out.event(&ev);
        if let Some(v1::stream_response::Payload::Message(m)) = &ev.payload {
            if tracker.task().id.is_empty() {
                direct = Some(m.clone());
                continue;
            }
        }
        if let Err(r) = tracker.on_event(&ev, a2a_wire_smol::server::now()) {
            return Err(Failure::Agent(Error::A2a(ClientError::Protocol(format!("the agent sent an event the task cannot take: {r:?}")))));
        }
        out.progress(tracker.task());
    }
    match direct {
        Some(m) => out.message(&m),
        None => out.finish_stream(tracker.task()),
    }
    Ok(())
}

fn parse_state(s: &str) -> Option<v1::TaskState> {
    let name = s.trim().to_ascii_uppercase().replace('-', "_");
    let name = if name.starts_with("TASK_STATE_") { name } else { format!("TASK_STATE_{name}") };
    v1::TaskState::from_str_name(&name)
}

async fn connect(args: &Args, url: &str) -> Result<Client, Failure> {
    let mut support = ClientSupport::default();
    if let Some(b) = args.value("--binding") {
        let binding = match b.to_ascii_lowercase().as_str() {
            "jsonrpc" | "json-rpc" => Binding::JsonRpc,
            "rest" | "http+json" | "http" => Binding::HttpJson,
            "grpc" => Binding::Grpc,
            _ => return Err(Failure::Usage(format!("--binding {b}: one of jsonrpc, rest, grpc"))),
        };
        support.bindings = vec![binding];
    }
    if let Some(v) = args.value("--version") {
        let version = ProtocolVersion::parse(v).ok_or_else(|| Failure::Usage(format!("--version {v}: expected 1.0 or 0.3")))?;
        support.versions = vec![version];
    }
    let (mut client, _card) = Client::connect_with(url, &support, client_options(args)?).await?;
    for h in args.values("--header") {
        let (name, value) = h.split_once(':').ok_or_else(|| Failure::Usage(format!("--header {h}: expected NAME:VALUE")))?;
        a2a_wire::http::check_header_field(name.trim(), value.trim()).map_err(|e| Failure::Usage(format!("--header: {e}")))?;
        client = client.with_header(name.trim(), value.trim());
    }
    Ok(client)
}

/// A message id unique enough for a command line: time and process id.
fn new_id() -> String {
    let t = a2a_wire_smol::server::now();
    format!("cli-{:x}-{:x}-{:x}", t.seconds, t.nanos, std::process::id())
}

/// Reads the certificate and key again whenever either file's modification time changes
/// (checked every 5 s); a pair that does not load is reported and the current one kept.
async fn reload_when_changed(tls: a2a_wire_smol::tls::ServerTls, cert: String, key: String) {
    let stamp = || [&cert, &key].map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok());
    let mut seen = stamp();
    loop {
        smol::Timer::after(std::time::Duration::from_secs(5)).await;
        let now = stamp();
        if now != seen {
            seen = now;
            match tls.reload_pem_files(&cert, &key) {
                Ok(()) => eprintln!("a2a-wire: TLS certificate reloaded from {cert}"),
                Err(e) => eprintln!("a2a-wire: TLS certificate not reloaded (the current one stays): {e}"),
            }
        }
    }
}

async fn serve(args: &Args) -> Result<(), Failure> {
    let addr: SocketAddr = args.value("--addr").unwrap_or("127.0.0.1:7420").parse().map_err(|e| Failure::Usage(format!("--addr: {e}")))?;
    // TLS: the card lists https:// URLs, and the certificate files are read again when they
    // change (a renewed certificate is used without a restart).
    let tls = match (args.value("--tls-cert"), args.value("--tls-key")) {
        (Some(cert), Some(key)) => {
            let t = a2a_wire_smol::tls::ServerTls::from_pem_files(cert, key)
                .map_err(|e| Failure::Usage(format!("--tls-cert/--tls-key: {e}")))?;
            Some((t, cert.to_string(), key.to_string()))
        }
        (None, None) => None,
        _ => return Err(Failure::Usage(String::from("--tls-cert and --tls-key go together"))),
    };
    // Behind a load balancer the card names the balancer, not this server.
    let origin = match args.value("--public-url") {
        Some(u) => a2a_wire_smol::demo::public_origin(u).map_err(|e| Failure::Usage(format!("--public-url {e}")))?,
        None => a2a_wire_smol::demo::origin(addr, tls.is_some()),
    };
    let mut config = a2a_wire_smol::ServerConfig::new(a2a_wire_smol::demo::card_at(&origin));
    config.tls = tls.as_ref().map(|(t, _, _)| t.clone());
    config.webhooks.tls = ca_file(args)?;
    config.webhooks.allow_private = args.flag("--allow-private-webhooks");
    config.resume_lost_runs = !args.flag("--no-resume");
    config.v03_file_bytes = v03_file_bytes(args)?;
    // Receivers the SSRF guard lets through although not public (local development), one
    // host, address or CIDR network per option; the guard stays on for everything else.
    for a in args.values("--allow-webhook") {
        config.webhooks.allow.push(a.parse().map_err(|e| Failure::Usage(format!("--allow-webhook {a}: {e}")))?);
    }
    // Every call must carry `Authorization: Bearer TOKEN` for a token of the file (one
    // `TOKEN PRINCIPAL` pair a line); each principal sees only its own tasks.
    if let Some(file) = args.value("--bearer-tokens") {
        let text = std::fs::read_to_string(file).map_err(|e| Failure::Usage(format!("--bearer-tokens {file}: {e}")))?;
        let tokens = a2a_wire::auth::BearerTokens::parse(&text).map_err(|e| Failure::Usage(format!("--bearer-tokens {file}: {e}")))?;
        if tokens.is_empty() {
            return Err(Failure::Usage(format!("--bearer-tokens {file}: no TOKEN PRINCIPAL line")));
        }
        eprintln!("a2a-wire: {} bearer token(s) from {file}; calls without one are refused", tokens.len());
        config = config.with_bearer_tokens(tokens);
    }
    // The served card signed (last: every change to the card comes before).
    if let Some(key) = card_key(args)? {
        config.sign_cards(&key, args.value("--card-jku")).map_err(signature_failure)?;
        eprintln!(
            "a2a-wire: the card is signed ({}, key {})",
            a2a_wire::signing::CardSigner::alg(&key),
            a2a_wire::signing::CardSigner::kid(&key)
        );
    }
    if let Some(v) = args.value("--cache-mb") {
        let mb: usize = v.parse().map_err(|_| Failure::Usage(format!("--cache-mb {v}: a whole number of MiB")))?;
        config.cache_bytes = mb.saturating_mul(1 << 20);
    }
    if let Some(v) = args.value("--retain") {
        config.retention = Some(
            a2a_wire_smol::ready::parse_duration(v)
                .ok_or_else(|| Failure::Usage(format!("--retain {v}: a duration like 90s, 12h or 30d")))?,
        );
    }
    if let Some(v) = args.value("--lease-seconds") {
        let secs: u64 = v
            .parse()
            .ok()
            .filter(|s| (1..=86_400).contains(s))
            .ok_or_else(|| Failure::Usage(format!("--lease-seconds {v}: a whole number of seconds, 1 to 86400")))?;
        config.lease = Some(std::time::Duration::from_secs(secs));
    }
    let card = config.card.clone();
    let agent = Arc::new(a2a_wire_smol::demo::EchoAgent::default());
    let store = args.value("--store").unwrap_or("a2a-wire-tasks.db");
    let server = if store == "memory" {
        a2a_wire_smol::Server::bind(addr, config, agent).await
    } else if a2a_wire_smol::postgres::is_url(store) {
        let s = a2a_wire_smol::postgres::PgStore::open(store).map_err(|e| Failure::Agent(Error::Transport(e.0)))?;
        eprintln!("a2a-wire: tasks in {}", s.database());
        a2a_wire_smol::Server::bind_with_store(addr, config, agent, s).await
    } else {
        let s = a2a_wire_smol::sqlite::SqliteStore::open(store).map_err(|e| Failure::Agent(Error::Transport(e.to_string())))?;
        eprintln!("a2a-wire: tasks in {store}");
        a2a_wire_smol::Server::bind_with_store(addr, config, agent, s).await
    }
    .map_err(|e| Failure::Agent(Error::Transport(format!("cannot listen on {addr}: {e}"))))?;
    eprintln!("a2a-wire: echo agent on {origin}  (card: {origin}/.well-known/agent-card.json)");
    if args.value("--public-url").is_some() {
        eprintln!("a2a-wire: listening on {addr}; the card names {origin}");
    }
    for i in &card.supported_interfaces {
        eprintln!("  {:<9} {:<4} {}", i.protocol_binding, i.protocol_version, i.url);
    }
    eprintln!("try: a2a-wire send {origin} hello");
    if let Some((t, cert, key)) = tls {
        smol::spawn(reload_when_changed(t, cert, key)).detach();
    }
    server.run().await;
    Ok(())
}

//! The ready server: the smol transport (HTTP/1.1 and HTTP/2, JSON-RPC, HTTP+JSON, gRPC,
//! SSE, the card) on a thread of its own, with an agent written in C — a start callback
//! that receives the run and a sink, and a cancel callback.

use crate::service::{a2a_run, message_arg, status_event};
use crate::{a2a_error, a2a_result, arg, box_out, bytes_arg, guard, guard_value, invalid, out, str_arg};
use a2a::engine::{AgentEvent, RunId};
use a2a::v1;
use a2a_wire_smol::agent::{text_part, Agent, EventSink, RequestContext};
use a2a_wire_smol::host::AgentKind;
use a2a_wire_smol::RunningServer;
use core::ffi::{c_char, c_void};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

/// Called when a run starts: `run` describes it (borrowed from `sink`, valid until
/// `a2a_sink_free(sink)`), `sink` is the run's, owned by the agent from now on. By default
/// callbacks are never called twice at once; they come from the thread that runs the
/// server's tasks (smol's process-wide executor: one thread unless `SMOL_THREADS` says more,
/// shared by every server of the process) and must return at once (do the work on another
/// thread, or publish and end right away). With `a2a_server_config_set_workers(config, n)`
/// they run on `n` threads of the server's own instead: several at once (for different
/// runs; a cancel may come while its run's start still runs), and they may block (sleep,
/// wait for a model, `a2a_sink_flush`) without holding up any other task's stream. Either
/// way they must return normally: no C++ exception and no `longjmp` may leave a callback.
/// The run ends with `a2a_sink_finish` / `a2a_sink_fail`, or when the sink is freed without
/// either (finished).
pub type a2a_start_callback = Option<unsafe extern "C" fn(userdata: *mut c_void, run: *const a2a_run, sink: *mut a2a_sink)>;

/// Called (as the start callback is) when run `run_id`'s task was canceled or the server is
/// stopping: stop publishing (events sent afterwards are refused). May be NULL.
pub type a2a_cancel_callback = Option<unsafe extern "C" fn(userdata: *mut c_void, run_id: u64)>;

/// An agent written in C. `userdata` is passed to both callbacks (see `a2a_start_callback`
/// for the threads they come from); it must stay valid until `a2a_server_free` returns.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct a2a_agent {
    /// Starts a run (required).
    pub start: a2a_start_callback,
    /// Stops a run (may be NULL).
    pub cancel: a2a_cancel_callback,
    /// The agent's own pointer.
    pub userdata: *mut c_void,
}

struct CAgent {
    agent: a2a_agent,
    /// The server's worker threads (`a2a_server_config_set_workers`), or None: callbacks on
    /// the host's thread.
    workers: Option<Arc<crate::workers::Workers>>,
}

/// A callback to run on a worker: the agent and its arguments.
struct Job(a2a_agent, *mut a2a_sink);

// SAFETY: with workers, the header's contract makes the callbacks and `userdata` usable from
// the server's worker threads, several at once; the sink is usable from any thread.
unsafe impl Send for Job {}

impl Job {
    /// Calls the start callback with the sink (which it owns from here).
    fn start(self) {
        let Job(agent, sink) = self;
        if let Some(start) = agent.start {
            // SAFETY: the sink is live and handed over once; the callback's contract with
            // workers allows this thread. `run` lives inside the sink.
            unsafe { start(agent.userdata, &(*sink).run, sink) };
        }
    }

    /// Calls the cancel callback for run `run`.
    fn cancel(self, run: RunId) {
        if let Some(cancel) = self.0.cancel {
            // SAFETY: the agent's callback, on a worker (its contract with workers).
            unsafe { cancel(self.0.userdata, run.0) };
        }
    }
}

// SAFETY: the header's contract: the callbacks and `userdata` are usable from the threads
// that run the server's tasks, which call them one at a time (the host is one task).
unsafe impl Send for CAgent {}
// SAFETY: as above; the host task never calls two callbacks at once.
unsafe impl Sync for CAgent {}

thread_local! {
    /// Set while a C callback runs on this thread: a flush there would block the very
    /// thread that must answer it.
    static IN_CALLBACK: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Runs `f` with IN_CALLBACK set (and restored, even if `f` unwinds).
fn in_callback(f: impl FnOnce()) {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = IN_CALLBACK.try_with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(IN_CALLBACK.try_with(|c| c.replace(true)).unwrap_or(false));
    f();
}

impl Agent for CAgent {
    fn start(&self, ctx: RequestContext, events: EventSink) {
        let extra = crate::run::RunExtra {
            principal: ctx.call.principal.as_deref(),
            extensions: &ctx.call.extensions,
            follow_up: ctx.follow_up,
            resumed: ctx.resumed,
            task: ctx.task.as_ref(),
            tenant: &ctx.tenant,
            metadata: ctx.metadata.as_ref(),
            configuration: ctx.configuration.as_ref(),
        };
        let run = a2a_run::new(ctx.run, &ctx.task_id, &ctx.context_id, &ctx.message, extra);
        // `a2a_server_start` refuses an agent without a start callback; without one the run
        // would end at once (`events` dropped).
        let Some(start) = self.agent.start else { return };
        let sink = Box::into_raw(Box::new(a2a_sink {
            events,
            run,
            cancel: ctx.cancel.clone(),
            ended: AtomicBool::new(false),
            next_message: AtomicU32::new(1),
        }));
        if let Some(w) = &self.workers {
            let job = Job(self.agent, sink);
            let queued = w.run(move || job.start());
            if !queued {
                // The server stopped: the run ends (finished) with its sink.
                // SAFETY: the sink was made above and handed to no one.
                drop(unsafe { Box::from_raw(sink) });
            }
            return;
        }
        // SAFETY: `sink` was just made and is live; the callback owns it from here (the
        // header says so). `run` lives inside the sink.
        in_callback(|| unsafe {
            let run: *const a2a_run = &(*sink).run;
            start(self.agent.userdata, run, sink);
        });
    }

    fn cancel(&self, run: RunId) {
        if let Some(cancel) = self.agent.cancel {
            if let Some(w) = &self.workers {
                let job = Job(self.agent, core::ptr::null_mut());
                w.run(move || job.cancel(run));
                return;
            }
            // SAFETY: the agent's callback, called as its contract says.
            in_callback(|| unsafe { cancel(self.agent.userdata, run.0) });
        }
    }
}

/// Where a run publishes its events. Owned by the agent (free it with `a2a_sink_free`);
/// usable from any thread, by several threads at once (only `a2a_sink_free` must come
/// last, once). Events reach the server in the order they are sent.
pub struct a2a_sink {
    events: EventSink,
    run: a2a_run,
    cancel: a2a_wire_smol::agent::CancelToken,
    ended: AtomicBool,
    next_message: AtomicU32,
}

impl a2a_sink {
    fn message_id(&self) -> String {
        let n = self.next_message.fetch_add(1, Ordering::Relaxed);
        format!("{}-r{}-{n}", self.run.task_id, self.run.id)
    }

    fn agent_text(&self, text: &str) -> v1::Message {
        v1::Message { message_id: self.message_id(), role: v1::Role::Agent as i32, parts: vec![text_part(text)], ..Default::default() }
    }

    fn publish(&self, event: AgentEvent) -> Result<(), a2a_error> {
        if self.ended.load(Ordering::Acquire) {
            return Err(a2a_error::local(a2a_result::AlreadyEnded, String::from("the run already ended")));
        }
        self.events.event(event).map_err(|r| a2a_error::a2a(r.0))
    }
}

fn sink_arg<'a>(sink: *const a2a_sink) -> Result<&'a a2a_sink, a2a_error> {
    arg(sink, "sink")
}

/// The run this sink belongs to, borrowed from the sink (NULL for NULL).
/// Threads: any, several at once (`a2a_sink_free` last, once).
#[no_mangle]
pub extern "C" fn a2a_sink_run(sink: *const a2a_sink) -> *const a2a_run {
    guard_value(core::ptr::null(), || sink_arg(sink).map_or(core::ptr::null(), |s| &s.run as *const a2a_run))
}

/// Sets the task's status to `state` (an `a2a_task_state`), with an agent message of one
/// text part when `text` is not NULL (a question for INPUT_REQUIRED, say).
/// `A2A_RESULT_A2A_ERROR` when the server refused an event of this run (the run is over or
/// superseded, the task was canceled, the event breaks the state machine; the error says
/// which) or stopped; `A2A_RESULT_ALREADY_ENDED` after `a2a_sink_finish` / `_fail`.
/// Threads: any, several at once (`a2a_sink_free` last, once).
#[no_mangle]
pub extern "C" fn a2a_sink_status(
    sink: *const a2a_sink,
    state: crate::a2a_task_state_param,
    text: *const c_char,
    text_len: usize,
) -> a2a_result {
    guard(|| {
        let s = sink_arg(sink)?;
        let message = crate::opt_str_arg(text, text_len, "text")?.map(|t| s.agent_text(t));
        s.publish(status_event(state, message)?)
    })
}

/// As `a2a_sink_status`, with the agent message as ProtoJSON (`lf.a2a.v1.Message`; length
/// 0: none).
/// Threads: any, several at once (`a2a_sink_free` last, once).
#[no_mangle]
pub extern "C" fn a2a_sink_status_json(
    sink: *const a2a_sink,
    state: crate::a2a_task_state_param,
    message_json: *const u8,
    message_json_len: usize,
) -> a2a_result {
    guard(|| {
        let s = sink_arg(sink)?;
        let m = if message_json_len == 0 { None } else { Some(message_arg(message_json, message_json_len, "message_json")?) };
        s.publish(status_event(state, m)?)
    })
}

/// Publishes an artifact `artifact_id` with one text part, or (with `append`) adds the
/// part to that artifact; `last_chunk` says the artifact is complete.
/// Threads: any, several at once (`a2a_sink_free` last, once).
#[no_mangle]
pub extern "C" fn a2a_sink_artifact_text(
    sink: *const a2a_sink,
    artifact_id: *const c_char,
    artifact_id_len: usize,
    text: *const c_char,
    text_len: usize,
    append: bool,
    last_chunk: bool,
) -> a2a_result {
    guard(|| {
        let s = sink_arg(sink)?;
        let id = str_arg(artifact_id, artifact_id_len, "artifact_id")?;
        let t = str_arg(text, text_len, "text")?;
        if id.is_empty() {
            return Err(invalid("`artifact_id` is empty"));
        }
        let artifact = v1::Artifact { artifact_id: id.into(), parts: vec![text_part(t)], ..Default::default() };
        s.publish(AgentEvent::Artifact { metadata: None, artifact, append, last_chunk })
    })
}

/// Publishes an artifact given as ProtoJSON (`lf.a2a.v1.Artifact`).
/// Threads: any, several at once (`a2a_sink_free` last, once).
#[no_mangle]
pub extern "C" fn a2a_sink_artifact_json(
    sink: *const a2a_sink,
    artifact_json: *const u8,
    artifact_json_len: usize,
    append: bool,
    last_chunk: bool,
) -> a2a_result {
    guard(|| {
        let s = sink_arg(sink)?;
        let artifact = a2a::codec::json::decode::<v1::Artifact>(bytes_arg(artifact_json, artifact_json_len, "artifact_json")?)
            .map_err(|e| a2a_error::decode(&e))?;
        s.publish(AgentEvent::Artifact { metadata: None, artifact, append, last_chunk })
    })
}

/// Replies with an agent message of one text part: as the run's first event a direct
/// reply (no task is kept), later a message in the task's conversation.
/// Threads: any, several at once (`a2a_sink_free` last, once).
#[no_mangle]
pub extern "C" fn a2a_sink_message_text(sink: *const a2a_sink, text: *const c_char, text_len: usize) -> a2a_result {
    guard(|| {
        let s = sink_arg(sink)?;
        let t = str_arg(text, text_len, "text")?;
        s.publish(AgentEvent::Message(s.agent_text(t)))
    })
}

/// As `a2a_sink_message_text`, with the message as ProtoJSON (`lf.a2a.v1.Message`).
/// Threads: any, several at once (`a2a_sink_free` last, once).
#[no_mangle]
pub extern "C" fn a2a_sink_message_json(sink: *const a2a_sink, message_json: *const u8, message_json_len: usize) -> a2a_result {
    guard(|| {
        let s = sink_arg(sink)?;
        s.publish(AgentEvent::Message(message_arg(message_json, message_json_len, "message_json")?))
    })
}

/// Waits until the server applied every event sent so far: `A2A_RESULT_OK`, or the
/// refusal (`A2A_RESULT_A2A_ERROR`). Blocks: never call it from a callback (it would wait
/// for the thread it blocks, so it returns `A2A_RESULT_WRONG_STATE` there).
#[no_mangle]
pub extern "C" fn a2a_sink_flush(sink: *const a2a_sink) -> a2a_result {
    guard(|| {
        let s = sink_arg(sink)?;
        if IN_CALLBACK.try_with(|c| c.get()).unwrap_or(false) {
            return Err(a2a_error::local(a2a_result::WrongState, String::from("a2a_sink_flush in a callback would never return")));
        }
        s.events.wait_flushed().map_err(|r| a2a_error::a2a(r.0))
    })
}

/// True once the run's task was canceled (or the server is stopping).
/// Threads: any, several at once (`a2a_sink_free` last, once).
#[no_mangle]
pub extern "C" fn a2a_sink_is_canceled(sink: *const a2a_sink) -> bool {
    guard_value(false, || sink_arg(sink).is_ok_and(|s| s.cancel.is_canceled()))
}

fn end(sink: *const a2a_sink, f: impl FnOnce(&EventSink)) -> Result<(), a2a_error> {
    let s = sink_arg(sink)?;
    if s.ended.swap(true, Ordering::AcqRel) {
        return Err(a2a_error::local(a2a_result::AlreadyEnded, String::from("the run already ended")));
    }
    f(&s.events);
    Ok(())
}

/// The run's turn is over (the server answers whoever still waits on it). Free the sink
/// afterwards. `A2A_RESULT_ALREADY_ENDED` when the run was ended before.
/// Threads: any, several at once (`a2a_sink_free` last, once).
#[no_mangle]
pub extern "C" fn a2a_sink_finish(sink: *const a2a_sink) -> a2a_result {
    guard(|| end(sink, EventSink::finish))
}

/// The run failed: its task moves to FAILED with `reason` as the agent's message.
/// Threads: any, several at once (`a2a_sink_free` last, once).
#[no_mangle]
pub extern "C" fn a2a_sink_fail(sink: *const a2a_sink, reason: *const c_char, reason_len: usize) -> a2a_result {
    guard(|| {
        let r = str_arg(reason, reason_len, "reason")?;
        end(sink, |e| e.fail(r))
    })
}

/// Frees the sink (a run not ended yet ends as finished); NULL does nothing. Once, last.
/// Threads: any, several at once (`a2a_sink_free` last, once).
#[no_mangle]
pub extern "C" fn a2a_sink_free(sink: *mut a2a_sink) {
    guard_value((), || crate::free_box(sink))
}

// ---------------------------------------------------------------- the server

/// A running server. Stop it with `a2a_server_free`.
pub struct a2a_server {
    inner: Option<RunningServer>,
    url: String,
    workers: Option<Arc<crate::workers::Workers>>,
}

/// Server settings beyond the card and the agent, for `a2a_server_start_with` (a handle, so
/// that settings can be added without changing the ABI). Make it with
/// `a2a_server_config_new`, free it with `a2a_server_config_free` (the server keeps what it
/// needs: the config may be freed once the server started).
#[derive(Default)]
pub struct a2a_server_config {
    ready: a2a_wire_smol::ready::ReadyOptions,
    workers: usize,
    authenticate: Option<crate::auth::Authenticate>,
}

/// Runs the agent's callbacks on `workers` threads of the server's own (1 to 1024) instead
/// of the thread that serves every connection: a callback may then block without stalling
/// any other task (see `a2a_start_callback`). 0 (the default): callbacks on that thread,
/// which must return at once.
/// Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_workers(config: *mut a2a_server_config, workers: usize) -> a2a_result {
    guard(|| {
        let c = crate::arg_mut(config, "config")?;
        if workers > 1024 {
            return Err(invalid(format!("`workers` {workers}: at most 1024")));
        }
        c.workers = workers;
        Ok(())
    })
}

/// Judges every call with `callback` (see `a2a_authenticate_callback`: it reads the whole
/// request, every header and the peer, and answers with an `a2a_auth_verdict`), `userdata`
/// passed to it; it must stay valid until `a2a_server_free` returns. A refusal is answered
/// 401 with `WWW-Authenticate` (the card's schemes) or 403; each principal sees only the
/// tasks and push configs it made. Give this or bearer tokens: `a2a_server_start_with`
/// refuses both (`A2A_RESULT_INVALID_ARGUMENT`). NULL `callback` removes it.
/// Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_authenticate(
    config: *mut a2a_server_config,
    callback: crate::auth::a2a_authenticate_callback,
    userdata: *mut c_void,
) -> a2a_result {
    guard(|| {
        let c = crate::arg_mut(config, "config")?;
        c.authenticate = match callback {
            None => None,
            Some(_) => Some(crate::auth::Authenticate::new(callback, userdata)?),
        };
        Ok(())
    })
}

/// A config with the defaults (no authentication: every call is anonymous).
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_server_config_new(config_out: *mut *mut a2a_server_config) -> a2a_result {
    guard(|| {
        box_out(out(config_out, "config_out")?, a2a_server_config::default());
        Ok(())
    })
}

/// Requires `Authorization: Bearer TOKEN` on every call, for the tokens of `tokens`: one
/// `TOKEN PRINCIPAL` pair a line (the format of `a2a-wire serve --bearer-tokens FILE`; blank
/// lines and `#` comments skipped). Tasks and push configs then belong to the principal that
/// made them (another principal's calls on them are answered as on a task that does not
/// exist), the card declares the bearer scheme, and a call without a known token gets the A2A
/// unauthenticated error. `A2A_RESULT_INVALID_ARGUMENT` names the bad line (never a token)
/// and leaves the config as it was; a text without a pair is refused too.
/// Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_bearer_tokens(
    config: *mut a2a_server_config,
    tokens: *const c_char,
    tokens_len: usize,
) -> a2a_result {
    guard(|| {
        let c = crate::arg_mut(config, "config")?;
        let text = str_arg(tokens, tokens_len, "tokens")?;
        let table = a2a::auth::BearerTokens::parse(text).map_err(|e| invalid(format!("bearer tokens, {e}")))?;
        if table.is_empty() {
            return Err(invalid("bearer tokens: no TOKEN PRINCIPAL line, so no caller could authenticate"));
        }
        c.ready.bearer_tokens = Some(table);
        Ok(())
    })
}

/// Serves HTTPS only, with the PEM certificate chain (leaf first) and private key in the
/// files `cert_path` and `key_path`: HTTP/1.1 and HTTP/2 (gRPC) by ALPN on the one port, the
/// card and `a2a_server_url` listing `https://` URLs. `A2A_RESULT_TLS` when a file cannot be
/// read or the key does not belong to the certificate (the config is then unchanged).
/// Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_tls_files(
    config: *mut a2a_server_config,
    cert_path: *const c_char,
    cert_path_len: usize,
    key_path: *const c_char,
    key_path_len: usize,
) -> a2a_result {
    guard(|| {
        let c = crate::arg_mut(config, "config")?;
        let cert = str_arg(cert_path, cert_path_len, "cert_path")?;
        let key = str_arg(key_path, key_path_len, "key_path")?;
        let tls = a2a_wire_smol::tls::ServerTls::from_pem_files(cert, key).map_err(|e| a2a_error::local(a2a_result::Tls, e.to_string()))?;
        c.ready.tls = Some(tls);
        Ok(())
    })
}

/// Signs the card and the extended cards the server publishes with `key` (spec 8.4), `jku`
/// (NULL: none) in each signature's header. The config keeps its own reference to the key
/// (free yours when you like). Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_signing_key(
    config: *mut a2a_server_config,
    key: *const crate::signing::a2a_signing_key,
    jku: *const c_char,
    jku_len: usize,
) -> a2a_result {
    guard(|| {
        let c = crate::arg_mut(config, "config")?;
        let k = arg(key, "key")?;
        let jku = crate::opt_str_arg(jku, jku_len, "jku")?;
        c.ready.signing_key = Some(k.inner.clone());
        c.ready.card_jku = jku.map(String::from);
        Ok(())
    })
}

/// Serves the extended Agent Card `card_json` (v1.0 ProtoJSON; without
/// `supportedInterfaces` it gets the server's) by GetExtendedAgentCard: to the caller whose
/// principal is `principal`, or, with `principal` NULL, to every authenticated caller without
/// a card of its own. Anonymous callers get none (ExtendedAgentCardNotConfigured); clients
/// never cache it. Needs authentication (`a2a_server_config_set_bearer_tokens`). A card that
/// does not decode is `A2A_RESULT_DECODE` now; one the service cannot serve is
/// `A2A_RESULT_CARD` at start. Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_extended_card(
    config: *mut a2a_server_config,
    principal: *const c_char,
    principal_len: usize,
    card_json: *const u8,
    card_json_len: usize,
) -> a2a_result {
    guard(|| {
        let c = crate::arg_mut(config, "config")?;
        let principal = crate::opt_str_arg(principal, principal_len, "principal")?;
        let card: v1::AgentCard =
            a2a::codec::json::decode_unchecked(bytes_arg(card_json, card_json_len, "card_json")?).map_err(|e| a2a_error::decode(&e))?;
        match principal {
            Some(p) => {
                c.ready.extended_cards.insert(p.to_string(), card);
            }
            None => c.ready.extended_card = Some(card),
        }
        Ok(())
    })
}

/// Lets push notifications reach `entry` although it is not public — a host name
/// (`localhost`), an address (`127.0.0.1`, `[::1]`) or a network (`10.0.0.0/8`) — for local
/// development; the SSRF guard stays on for every other receiver. Call once per entry.
/// `A2A_RESULT_INVALID_ARGUMENT` for an entry that is none of these.
/// Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_allow_webhook(config: *mut a2a_server_config, entry: *const c_char, entry_len: usize) -> a2a_result {
    guard(|| {
        let c = crate::arg_mut(config, "config")?;
        let e = str_arg(entry, entry_len, "entry")?;
        a2a_wire_smol::ready::allow_webhooks(&mut c.ready.webhooks, &[e]).map_err(invalid)?;
        Ok(())
    })
}

/// Turns the SSRF guard off (`allow` true): push notifications may go to loopback, private
/// and link-local addresses. For tests and single-host setups only; prefer
/// `a2a_server_config_allow_webhook`. Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_allow_private_webhooks(config: *mut a2a_server_config, allow: bool) -> a2a_result {
    guard(|| {
        crate::arg_mut(config, "config")?.ready.webhooks.allow_private = allow;
        Ok(())
    })
}

/// Verifies `https://` webhook receivers against the certificate authorities of the PEM file
/// at `path` only, instead of the platform's roots. `A2A_RESULT_TLS` when the file cannot be
/// read or holds no certificate. Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_webhook_ca_file(
    config: *mut a2a_server_config,
    path: *const c_char,
    path_len: usize,
) -> a2a_result {
    guard(|| {
        let c = crate::arg_mut(config, "config")?;
        let p = str_arg(path, path_len, "path")?;
        let tls = a2a_wire_smol::tls::ClientTls::from_ca_file(p).map_err(|e| a2a_error::local(a2a_result::Tls, e.to_string()))?;
        c.ready.webhooks.tls = Some(tls);
        Ok(())
    })
}

/// Keeps the tasks in the SQLite file at `path` (created if missing; a store written by an
/// older release is migrated when opened) instead of in memory, so that they outlive the
/// process; memory then holds the tasks in use plus a cache bounded by
/// `a2a_server_config_set_cache_bytes`. `path` may instead be a PostgreSQL URL,
/// `postgres://USER[:PASS]@HOST:PORT/DB` (or `postgresql://`): the tasks then live in that
/// database (tables created at start). The store is opened by `a2a_server_start_with`
/// (`A2A_RESULT_IO` there when it cannot be). Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_store_file(config: *mut a2a_server_config, path: *const c_char, path_len: usize) -> a2a_result {
    guard(|| {
        let c = crate::arg_mut(config, "config")?;
        let p = str_arg(path, path_len, "path")?;
        if p.is_empty() {
            return Err(invalid("`path` is empty"));
        }
        c.ready.store = Some(std::path::PathBuf::from(p));
        Ok(())
    })
}

/// Makes the card's interfaces use `url`, `http://HOST[:PORT]` or `https://HOST[:PORT]`
/// (a load balancer's origin), instead of the listening address. A path, query or user name
/// is `A2A_RESULT_INVALID_ARGUMENT`. Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_public_url(config: *mut a2a_server_config, url: *const c_char, url_len: usize) -> a2a_result {
    guard(|| {
        let c = crate::arg_mut(config, "config")?;
        let u = str_arg(url, url_len, "url")?;
        c.ready.public_origin = Some(a2a_wire_smol::demo::public_origin(u).map_err(invalid)?);
        Ok(())
    })
}

/// With a store file: about how many bytes of idle tasks stay cached in memory (64 MiB
/// unless set; tasks with live calls, runs or streams are held whatever the size).
/// Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_cache_bytes(config: *mut a2a_server_config, bytes: usize) -> a2a_result {
    guard(|| {
        crate::arg_mut(config, "config")?.ready.cache_bytes = Some(bytes);
        Ok(())
    })
}

/// Deletes each task in a terminal state (completed, canceled, failed, rejected) whose last
/// change is more than `millis` milliseconds old, with everything kept for it; afterwards it
/// answers as a task that never existed. Tasks not in a terminal state are never deleted.
/// 0 (the default) keeps every task. Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_server_config_set_retention_ms(config: *mut a2a_server_config, millis: u64) -> a2a_result {
    guard(|| {
        crate::arg_mut(config, "config")?.ready.retention = (millis > 0).then(|| std::time::Duration::from_millis(millis));
        Ok(())
    })
}

/// Frees a config; NULL does nothing. Threads: any, once.
#[no_mangle]
pub extern "C" fn a2a_server_config_free(config: *mut a2a_server_config) {
    guard_value((), || crate::free_box(config))
}

/// Starts the server on `addr` (`127.0.0.1:PORT`; port 0 picks a free one) on threads of
/// its own, with the Agent Card `card_json` (v1.0 ProtoJSON) and `agent`. A card that lists
/// no `supportedInterfaces` gets six: JSON-RPC at `/a2a/jsonrpc`, HTTP+JSON at `/a2a/rest`
/// and gRPC at the address, in v1.0, and the same in v0.3 at `/a2a/v03/jsonrpc`,
/// `/a2a/v03/rest` and the address. Tasks are kept in memory (see
/// `a2a_server_config_set_store_file` for a file). Returns once the server
/// listens (port 0: a free port is found by binding it, then the server binds it again, so
/// another process may take it in between and the start fails with `A2A_RESULT_IO`).
/// Callbacks: see `a2a_start_callback`. Call from any thread.
#[no_mangle]
pub extern "C" fn a2a_server_start(
    addr: *const c_char,
    addr_len: usize,
    card_json: *const u8,
    card_json_len: usize,
    agent: *const a2a_agent,
    server_out: *mut *mut a2a_server,
) -> a2a_result {
    guard(|| start_server(addr, addr_len, card_json, card_json_len, agent, core::ptr::null(), server_out))
}

/// `a2a_server_start` with the settings of `config` (NULL: the defaults). The server copies
/// what it needs: `config` may be freed or changed afterwards.
/// Callbacks: see `a2a_start_callback`. Call from any thread.
#[no_mangle]
pub extern "C" fn a2a_server_start_with(
    addr: *const c_char,
    addr_len: usize,
    card_json: *const u8,
    card_json_len: usize,
    agent: *const a2a_agent,
    config: *const a2a_server_config,
    server_out: *mut *mut a2a_server,
) -> a2a_result {
    guard(|| start_server(addr, addr_len, card_json, card_json_len, agent, config, server_out))
}

fn start_server(
    addr: *const c_char,
    addr_len: usize,
    card_json: *const u8,
    card_json_len: usize,
    agent: *const a2a_agent,
    config: *const a2a_server_config,
    server_out: *mut *mut a2a_server,
) -> Result<(), a2a_error> {
    // SAFETY: NULL or a live config (the header's contract).
    let settings = unsafe { config.as_ref() };
    let o = out(server_out, "server_out")?;
    let agent = *arg(agent, "agent")?;
    if agent.start.is_none() {
        return Err(crate::null("agent->start"));
    }
    let a = str_arg(addr, addr_len, "addr")?;
    let mut sa: SocketAddr = a.parse().map_err(|e| invalid(format!("`addr` {a:?} is not IP:PORT: {e}")))?;
    let raw = bytes_arg(card_json, card_json_len, "card_json")?;
    let card = match crate::codec::read_card(raw) {
        Ok(c) => c,
        // A card without interfaces gets the standard ones (then it is checked whole).
        Err(e) => match a2a::codec::json::decode_unchecked::<v1::AgentCard>(raw) {
            Ok(c) if c.supported_interfaces.is_empty() => c,
            _ => return Err(e),
        },
    };
    // The card must name the port before the server binds it.
    sa = a2a_wire_smol::server::concrete_addr(sa).map_err(|e| a2a_error::local(a2a_result::Io, format!("cannot bind {sa}: {e}")))?;
    let mut ready = settings.map(|s| s.ready.clone()).unwrap_or_default();
    ready.authenticate = settings.and_then(|s| s.authenticate).map(crate::auth::Authenticate::hook);
    let origin = ready.listening_origin(sa);
    let store = ready.open_store().map_err(|e| a2a_error::local(a2a_result::Io, e.to_string()))?;
    let config = ready.server_config(card, sa).map_err(|e| match e {
        a2a_wire_smol::ready::ReadyError::Signature(m) => a2a_error::local(a2a_result::Signature, m),
        a2a_wire_smol::ready::ReadyError::Auth => invalid("bearer tokens and an authenticate callback were both set: give one"),
        other => a2a_error::local(a2a_result::Card, other.to_string()),
    })?;
    let workers = match settings.map_or(0, |s| s.workers) {
        0 => None,
        n => Some(crate::workers::Workers::new(n).map_err(|e| a2a_error::local(a2a_result::Io, format!("cannot start {n} workers: {e}")))?),
    };
    let kind = AgentKind::Callback(Arc::new(CAgent { agent, workers: workers.clone() }));
    let server = RunningServer::start(sa, config, kind, store).map_err(|e| {
        if let Some(w) = &workers {
            w.stop();
        }
        // The service refuses a card it cannot serve (two bindings on one path, say) this way.
        let r = if e.kind() == std::io::ErrorKind::InvalidInput { a2a_result::Card } else { a2a_result::Io };
        a2a_error::local(r, format!("cannot serve on {sa}: {e}"))
    })?;
    box_out(o, a2a_server { inner: Some(server), url: origin, workers });
    Ok(())
}

/// The server's base URL (`http://127.0.0.1:PORT`; the card is at
/// `/.well-known/agent-card.json`). Borrowed from `server`.
/// Threads: any, never from one of the agent's callbacks.
#[no_mangle]
pub extern "C" fn a2a_server_url(server: *const a2a_server) -> crate::a2a_str {
    guard_value(crate::a2a_str::of(b""), || crate::a2a_str::of(arg(server, "server").map_or(&b""[..], |s| s.url.as_bytes())))
}

/// The port the server listens on (0 for NULL).
/// Threads: any, never from one of the agent's callbacks.
#[no_mangle]
pub extern "C" fn a2a_server_port(server: *const a2a_server) -> u16 {
    guard_value(0, || arg(server, "server").ok().and_then(|s| s.inner.as_ref()).map_or(0, |s| s.local_addr().port()))
}

/// Stops the server (open streams end with Unavailable, current runs get their cancel
/// callback), waits until it has stopped (and its workers with the callbacks they had), and
/// frees it; NULL does nothing. Sinks the agent
/// still holds stay valid: their events are refused (Unavailable). Never call it from a
/// callback.
/// Threads: any, never from one of the agent's callbacks.
#[no_mangle]
pub extern "C" fn a2a_server_free(server: *mut a2a_server) {
    guard_value((), || {
        if !server.is_null() {
            // SAFETY: `server` came from `a2a_server_start` and is freed once (documented).
            let mut s = unsafe { Box::from_raw(server) };
            if let Some(r) = s.inner.take() {
                r.stop();
            }
            // The callbacks already queued (the stop's cancels among them) still run; then
            // the workers end, before `userdata` may go.
            if let Some(w) = s.workers.take() {
                w.stop();
            }
        }
    })
}

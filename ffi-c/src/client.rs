//! The ready client: blocking calls over the smol transport (HTTP/1.1, HTTP/2 for gRPC)
//! for the eleven operations, with stream events through an iterator handle or a callback.
//! A client is used by one thread at a time (it may move between threads); each call
//! blocks that thread until the answer (or a time limit).

use crate::codec::{a2a_interface, support};
use crate::core_client::operation;
use crate::{a2a_bytes, a2a_error, a2a_result, a2a_str, arg, arg_mut, box_out, bytes_out, guard, guard_value, out, str_arg};
use a2a::codec::json;
use a2a::v1;
use a2a_wire_smol::{Client, ClientOptions, EventStream};
use core::ffi::{c_char, c_void};
use std::time::Duration;

/// A connected client. Free it with `a2a_client_free`.
pub struct a2a_client {
    inner: Client,
    iface: a2a_interface,
    card_json: Vec<u8>,
}

/// Client settings beyond the URL, preferences and timeout, for `a2a_client_connect_with` (a
/// handle, so that settings can be added without changing the ABI). Make it with
/// `a2a_client_config_new`, free it with `a2a_client_config_free`; a client copies what it
/// needs when it connects.
pub struct a2a_client_config {
    ca_file: Option<String>,
    client_cert: Option<(String, String)>,
    headers: Vec<(String, String)>,
    card_keys: Option<std::sync::Arc<a2a_wire_smol::signing::CardKeySet>>,
    require_signed_card: bool,
    stream_resumes: u32,
}

impl Default for a2a_client_config {
    fn default() -> Self {
        a2a_client_config {
            ca_file: None,
            client_cert: None,
            headers: Vec::new(),
            card_keys: None,
            require_signed_card: false,
            stream_resumes: ClientOptions::default().stream_resumes,
        }
    }
}

/// A config with the defaults (`https://` agents verified against the platform's roots).
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_client_config_new(config_out: *mut *mut a2a_client_config) -> a2a_result {
    guard(|| {
        box_out(out(config_out, "config_out")?, a2a_client_config::default());
        Ok(())
    })
}

/// Verifies `https://` agents against the certificate authorities of the PEM file at `path`
/// only, instead of the platform's roots. `A2A_RESULT_TLS` when the file cannot be read or
/// holds no certificate (the config is then unchanged).
/// Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_client_config_set_ca_file(config: *mut a2a_client_config, path: *const c_char, path_len: usize) -> a2a_result {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let p = str_arg(path, path_len, "path")?;
        // Read and checked now, so that a bad file fails here and not at the first connect.
        a2a_wire_smol::tls::ClientTls::from_ca_file(p).map_err(|e| a2a_error::local(a2a_result::Tls, e.to_string()))?;
        c.ca_file = Some(p.to_string());
        Ok(())
    })
}

/// Presents the PEM certificate chain and key of these files when an agent asks for a client
/// certificate (mutual TLS). The files are read and checked now: `A2A_RESULT_TLS` when they
/// cannot be read or the key does not belong to the certificate.
/// Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_client_config_set_client_cert_files(
    config: *mut a2a_client_config,
    cert_path: *const c_char,
    cert_path_len: usize,
    key_path: *const c_char,
    key_path_len: usize,
) -> a2a_result {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let cert = str_arg(cert_path, cert_path_len, "cert_path")?;
        let key = str_arg(key_path, key_path_len, "key_path")?;
        // Checked whole now, so that a bad pair fails here and not at the first call.
        a2a_wire_smol::tls::check_pem_files(cert, key).map_err(|e| a2a_error::local(a2a_result::Tls, e.to_string()))?;
        c.client_cert = Some((cert.to_string(), key.to_string()));
        Ok(())
    })
}

/// Sends the header field `name: value` with every request of the client (after the card
/// is fetched): `Authorization: Bearer ...` for an agent that wants it, say. Call once per
/// field. `A2A_RESULT_INVALID_ARGUMENT` for a name that is not an HTTP token or a value with
/// a line break. Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_client_config_add_header(
    config: *mut a2a_client_config,
    name: *const c_char,
    name_len: usize,
    value: *const c_char,
    value_len: usize,
) -> a2a_result {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let n = str_arg(name, name_len, "name")?;
        let v = str_arg(value, value_len, "value")?;
        a2a::http::check_header_field(n, v).map_err(crate::invalid)?;
        c.headers.push((n.to_string(), v.to_string()));
        Ok(())
    })
}

/// Checks the signature of the Agent Card the client fetches against `keys` (spec 8.4; the
/// config keeps its own copy, NULL removes them): a card that carries signatures must have
/// one they verify, else connecting fails with `A2A_RESULT_SIGNATURE`. An unsigned card is
/// accepted unless `a2a_client_config_set_require_signed_card`. Threads: one at a time per
/// config.
#[no_mangle]
pub extern "C" fn a2a_client_config_set_card_keys(
    config: *mut a2a_client_config,
    keys: *const crate::signing::a2a_card_keys,
) -> a2a_result {
    guard(|| {
        let c = arg_mut(config, "config")?;
        // SAFETY: NULL or a live key set (the header's contract).
        c.card_keys = unsafe { keys.as_ref() }.map(|k| std::sync::Arc::new(k.inner.clone()));
        Ok(())
    })
}

/// With `require` true, connecting fails with `A2A_RESULT_SIGNATURE` unless the card is
/// signed by a key of `a2a_client_config_set_card_keys` (without keys, every card is
/// refused). Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_client_config_set_require_signed_card(config: *mut a2a_client_config, require: bool) -> a2a_result {
    guard(|| {
        arg_mut(config, "config")?.require_signed_card = require;
        Ok(())
    })
}

/// How many times in a row a stream that broke off (dropped connection, idle timeout,
/// Unavailable from the server) is resumed with SubscribeToTask and `Last-Event-ID` before
/// `a2a_stream_next` reports the error (default 5; 0: never). The count starts again after
/// each event; the resumed stream goes on without repeating or losing an event.
/// Threads: one at a time per config.
#[no_mangle]
pub extern "C" fn a2a_client_config_set_stream_resumes(config: *mut a2a_client_config, resumes: u32) -> a2a_result {
    guard(|| {
        arg_mut(config, "config")?.stream_resumes = resumes;
        Ok(())
    })
}

/// Frees a config; NULL does nothing. Threads: any, once.
#[no_mangle]
pub extern "C" fn a2a_client_config_free(config: *mut a2a_client_config) {
    guard_value((), || crate::free_box(config))
}

/// Fetches the Agent Card from `url` (the agent's base URL or its card URL) and selects the
/// interface to use (`bindings`, `versions`: comma-separated preferences as in
/// `a2a_select_interface`; NULL for all). `timeout_ms` bounds each call (0: 30 s).
/// `A2A_RESULT_TRANSPORT`, `_TIMEOUT` or `_CARD` when that fails, `_TLS` when an `https://`
/// agent's certificate does not verify, `_INVALID_ARGUMENT` for a URL that is neither
/// `http://` nor `https://`, `_NOT_A2A` or `_A2A_ERROR` for an error answer.
/// Threads: one at a time per client; blocks the calling thread until done.
#[no_mangle]
pub extern "C" fn a2a_client_connect(
    url: *const c_char,
    url_len: usize,
    bindings: *const c_char,
    bindings_len: usize,
    versions: *const c_char,
    versions_len: usize,
    timeout_ms: u32,
    client_out: *mut *mut a2a_client,
) -> a2a_result {
    guard(|| connect(url, url_len, bindings, bindings_len, versions, versions_len, timeout_ms, core::ptr::null(), client_out))
}

/// `a2a_client_connect` with the settings of `config` (NULL: the defaults).
/// Threads: one at a time per client; blocks the calling thread until done.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_client_connect_with(
    url: *const c_char,
    url_len: usize,
    bindings: *const c_char,
    bindings_len: usize,
    versions: *const c_char,
    versions_len: usize,
    timeout_ms: u32,
    config: *const a2a_client_config,
    client_out: *mut *mut a2a_client,
) -> a2a_result {
    guard(|| connect(url, url_len, bindings, bindings_len, versions, versions_len, timeout_ms, config, client_out))
}

#[allow(clippy::too_many_arguments)]
fn connect(
    url: *const c_char,
    url_len: usize,
    bindings: *const c_char,
    bindings_len: usize,
    versions: *const c_char,
    versions_len: usize,
    timeout_ms: u32,
    config: *const a2a_client_config,
    client_out: *mut *mut a2a_client,
) -> Result<(), a2a_error> {
    let o = out(client_out, "client_out")?;
    let u = str_arg(url, url_len, "url")?;
    let s = support(crate::opt_str_arg(bindings, bindings_len, "bindings")?, crate::opt_str_arg(versions, versions_len, "versions")?)?;
    // SAFETY: NULL or a live config (the header's contract).
    let settings = unsafe { config.as_ref() };
    let mut options = ClientOptions::default();
    if timeout_ms > 0 {
        options.deadline = Duration::from_millis(u64::from(timeout_ms));
        options.connect_timeout = options.connect_timeout.min(options.deadline);
    }
    if let Some(st) = settings {
        use std::path::Path;
        let pair = st.client_cert.as_ref().map(|(c, k)| (Path::new(c.as_str()), Path::new(k.as_str())));
        options.tls = a2a_wire_smol::tls::ClientTls::from_files(st.ca_file.as_deref().map(Path::new), pair)
            .map_err(|e| a2a_error::local(a2a_result::Tls, e.to_string()))?;
        options.card_keys = st.card_keys.clone();
        options.require_signed_card = st.require_signed_card;
        options.stream_resumes = st.stream_resumes;
    }
    // Before an interface is chosen, a status without A2A meaning is the card fetch's HTTP status.
    let (mut client, card) =
        smol::block_on(Client::connect_with(u, &s, options)).map_err(|e| a2a_error::transport(e, &a2a::card::Binding::HttpJson))?;
    for (n, v) in settings.map_or(&[][..], |st| st.headers.as_slice()) {
        client = client.with_header(n, v);
    }
    let card_json = json::encode(&card).unwrap_or_default();
    let iface = a2a_interface::new(client.interface().clone());
    box_out(o, a2a_client { inner: client, iface, card_json });
    Ok(())
}

/// The interface the client uses, borrowed from it.
/// Threads: one at a time per client; blocks the calling thread until done.
#[no_mangle]
pub extern "C" fn a2a_client_interface(client: *const a2a_client) -> *const a2a_interface {
    guard_value(core::ptr::null(), || arg(client, "client").map_or(core::ptr::null(), |c| &c.iface as *const a2a_interface))
}

/// The agent's card as fetched (v1.0 ProtoJSON), borrowed from the client.
/// Threads: one at a time per client; blocks the calling thread until done.
#[no_mangle]
pub extern "C" fn a2a_client_card_json(client: *const a2a_client) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(client, "client").map_or(&b""[..], |c| c.card_json.as_slice())))
}

/// Calls a unary operation (`method`: an `a2a_method`; `params_json`: its v1.0 request as
/// ProtoJSON, NULL/0 for defaults) and writes the answer's ProtoJSON to `*response_out`
/// (`SendMessageResponse`, `Task`, `ListTasksResponse`, a push config or list, `{}` for a
/// deletion, the `AgentCard`). The server's error is `A2A_RESULT_A2A_ERROR` (or
/// `A2A_RESULT_NOT_A2A`) with `a2a_error_last()`.
/// Threads: one at a time per client; blocks the calling thread until done.
#[no_mangle]
pub extern "C" fn a2a_client_call(
    client: *mut a2a_client,
    method: crate::a2a_method_param,
    params_json: *const u8,
    params_json_len: usize,
    response_out: *mut *mut a2a_bytes,
) -> a2a_result {
    guard(|| {
        let c = arg_mut(client, "client")?;
        let o = out(response_out, "response_out")?;
        if a2a::op::Method::from_number(method).is_some_and(a2a::op::Method::is_streaming) {
            return Err(crate::invalid("a streaming method: use a2a_client_stream"));
        }
        let op = operation(method, params_json, params_json_len)?;
        bytes_out(o, call_json(c, op)?);
        Ok(())
    })
}

/// Runs a unary operation and gives its answer as ProtoJSON.
fn call_json(c: &mut a2a_client, op: a2a::op::Operation) -> Result<Vec<u8>, a2a_error> {
    let binding = c.iface.inner.binding.clone();
    let r = smol::block_on(c.inner.call(op)).map_err(|e| a2a_error::transport(e, &binding))?;
    let mut bytes = Vec::new();
    // A value ProtoJSON cannot hold came from the peer: its answer breaks the protocol.
    r.to_json(&mut bytes).map_err(|e| a2a_error::local(a2a_result::Protocol, e.to_string()))?;
    Ok(bytes)
}

fn message_id() -> String {
    let mut b = [0u8; 16];
    // Without OS randomness the id is still unique enough for one process: the time.
    if getrandom::fill(&mut b).is_err() {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        b = t.as_nanos().to_le_bytes();
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Sends a user message with one text part (SendMessage) and writes the answer's ProtoJSON
/// (`lf.a2a.v1.SendMessageResponse`: a `task` or a `message`) to `*response_out`.
/// Threads: one at a time per client; blocks the calling thread until done.
#[no_mangle]
pub extern "C" fn a2a_client_send_text(
    client: *mut a2a_client,
    text: *const c_char,
    text_len: usize,
    response_out: *mut *mut a2a_bytes,
) -> a2a_result {
    guard(|| {
        let c = arg_mut(client, "client")?;
        let o = out(response_out, "response_out")?;
        let t = str_arg(text, text_len, "text")?;
        let message = v1::Message {
            message_id: message_id(),
            role: v1::Role::User as i32,
            parts: vec![a2a_wire_smol::agent::text_part(t)],
            ..Default::default()
        };
        let req = v1::SendMessageRequest { message: Some(message), ..Default::default() };
        let op = a2a::op::Operation::Task(a2a::op::Request::SendMessage(req));
        bytes_out(o, call_json(c, op)?);
        Ok(())
    })
}

/// The events of one stream. Free it with `a2a_stream_free` (closing the connection if the
/// stream is not over).
pub struct a2a_stream {
    inner: std::sync::Mutex<Option<EventStream>>,
    binding: a2a::card::Binding,
    /// Closed by `a2a_stream_cancel` (from any thread): a waiting `a2a_stream_next` returns.
    cancel: async_channel::Sender<()>,
    canceled: async_channel::Receiver<()>,
}

impl a2a_stream {
    fn new(es: EventStream, binding: a2a::card::Binding) -> a2a_stream {
        let (cancel, canceled) = async_channel::bounded(1);
        a2a_stream { inner: std::sync::Mutex::new(Some(es)), binding, cancel, canceled }
    }
}

fn open(
    c: &mut a2a_client,
    method: crate::a2a_method_param,
    params_json: *const u8,
    params_json_len: usize,
) -> Result<EventStream, a2a_error> {
    if a2a::op::Method::from_number(method).is_some_and(|m| !m.is_streaming()) {
        return Err(crate::invalid("not a streaming method: use a2a_client_call"));
    }
    let op = operation(method, params_json, params_json_len)?;
    let binding = c.iface.inner.binding.clone();
    smol::block_on(c.inner.stream(op)).map_err(|e| a2a_error::transport(e, &binding))
}

/// Opens a stream (`SendStreamingMessage`, `SubscribeToTask`); read it with
/// `a2a_stream_next`. The stream owns its connection: the client may make other calls
/// meanwhile.
/// Threads: one at a time per client; blocks the calling thread until done.
#[no_mangle]
pub extern "C" fn a2a_client_stream(
    client: *mut a2a_client,
    method: crate::a2a_method_param,
    params_json: *const u8,
    params_json_len: usize,
    stream_out: *mut *mut a2a_stream,
) -> a2a_result {
    guard(|| {
        let c = arg_mut(client, "client")?;
        let o = out(stream_out, "stream_out")?;
        let s = open(c, method, params_json, params_json_len)?;
        box_out(o, a2a_stream::new(s, c.iface.inner.binding.clone()));
        Ok(())
    })
}

/// Waits for the next event and writes its ProtoJSON (`lf.a2a.v1.StreamResponse`) to
/// `*event_out`; `A2A_RESULT_NONE` when the stream ended normally; an error when it failed
/// (after which it gives `A2A_RESULT_NONE`); `A2A_RESULT_CANCELED` once `a2a_stream_cancel`
/// was called (the wait returns at once, and the connection is dropped).
/// Threads: one at a time per stream (`a2a_stream_cancel` from any other); it blocks.
#[no_mangle]
pub extern "C" fn a2a_stream_next(stream: *mut a2a_stream, event_out: *mut *mut a2a_bytes) -> a2a_result {
    guard(|| {
        let s = arg(stream.cast_const(), "stream")?;
        let o = out(event_out, "event_out")?;
        let ended = || a2a_error::local(a2a_result::None, String::from("the stream is over"));
        let canceled = || a2a_error::local(a2a_result::Canceled, String::from("the stream was canceled"));
        if s.cancel.is_closed() {
            s.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            return Err(canceled());
        }
        let mut inner = s.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let es = inner.as_mut().ok_or_else(ended)?;
        let next = async { Some(es.next().await) };
        let cancel = async {
            // Nothing is ever sent: `recv` returns (an error) when the channel is closed.
            let _ = s.canceled.recv().await;
            None
        };
        match smol::block_on(smol::future::or(next, cancel)) {
            None => {
                *inner = None;
                Err(canceled())
            }
            Some(Some(Ok(ev))) => match json::encode(&ev) {
                Ok(b) => {
                    bytes_out(o, b);
                    Ok(())
                }
                // A value ProtoJSON cannot hold (the peer's protobuf allowed it): the stream fails.
                Err(e) => {
                    *inner = None;
                    Err(a2a_error::local(a2a_result::Protocol, format!("the peer sent an event that cannot be read as ProtoJSON: {e}")))
                }
            },
            Some(Some(Err(e))) => {
                *inner = None;
                Err(a2a_error::transport(e, &s.binding))
            }
            Some(None) => {
                *inner = None;
                Err(ended())
            }
        }
    })
}

/// Cancels the stream: an `a2a_stream_next` waiting on another thread returns
/// `A2A_RESULT_CANCELED` at once, as does every later one; the connection is dropped (the
/// task goes on at the server). NULL does nothing.
/// Threads: any, while the stream lives (before `a2a_stream_free`).
#[no_mangle]
pub extern "C" fn a2a_stream_cancel(stream: *const a2a_stream) {
    guard_value((), || {
        if let Ok(s) = arg(stream, "stream") {
            s.cancel.close();
        }
    })
}

/// Frees a stream; NULL does nothing.
/// Threads: one at a time per stream; `a2a_stream_next` blocks.
#[no_mangle]
pub extern "C" fn a2a_stream_free(stream: *mut a2a_stream) {
    guard_value((), || crate::free_box(stream))
}

/// Receives one stream event: its ProtoJSON (`lf.a2a.v1.StreamResponse`), borrowed for the
/// call. Return true to go on, false to stop reading. It must return normally: no C++
/// exception and no `longjmp` may leave it (that would be undefined behaviour).
pub type a2a_event_callback = Option<unsafe extern "C" fn(userdata: *mut c_void, event_json: *const u8, event_json_len: usize) -> bool>;

/// Opens a stream and calls `callback` for each event, on this thread, until the stream
/// ends (`A2A_RESULT_OK`), fails (its error), or the callback returns false
/// (`A2A_RESULT_OK`).
#[no_mangle]
pub extern "C" fn a2a_client_stream_each(
    client: *mut a2a_client,
    method: crate::a2a_method_param,
    params_json: *const u8,
    params_json_len: usize,
    callback: a2a_event_callback,
    userdata: *mut c_void,
) -> a2a_result {
    guard(|| {
        let c = arg_mut(client, "client")?;
        let cb = callback.ok_or_else(|| crate::null("callback"))?;
        let mut s = open(c, method, params_json, params_json_len)?;
        let binding = c.iface.inner.binding.clone();
        smol::block_on(async {
            while let Some(ev) = s.next().await {
                let ev = ev.map_err(|e| a2a_error::transport(e, &binding))?;
                let bytes = json::encode(&ev).map_err(|e| a2a_error::local(a2a_result::Protocol, e.to_string()))?;
                // SAFETY: the caller's callback, with a buffer valid for the call.
                if !unsafe { cb(userdata, bytes.as_ptr(), bytes.len()) } {
                    break;
                }
            }
            Ok(())
        })
    })
}

/// Frees a client (closing its connections); NULL does nothing.
/// Threads: one at a time per client; blocks the calling thread until done.
#[no_mangle]
pub extern "C" fn a2a_client_free(client: *mut a2a_client) {
    guard_value((), || crate::free_box(client))
}

//! The ready client (`NativeClient`): the smol transport's `Client` (built on the core's
//! step-function client: every retry and error rule is the core's), its operations as
//! `async` native functions on the registered smol runtime, so the event loop never waits.
//!
//! Calls may overlap: each takes an idle connection from a small pool (or opens one). A
//! stream (`NativeStream`) is pulled one event per `next()`, so a slow consumer holds the
//! server back through TCP instead of filling memory here; `close()` drops its connection.

use crate::errors;
use crate::run::decode;
use a2a::card::SelectedInterface;
use a2a::op::{Operation, Request, Response};
use a2a_wire_smol::{Client, ClientOptions, Error as TError, EventStream};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Idle connections kept per client.
const POOL: usize = 16;

struct Settings {
    iface: SelectedInterface,
    options: ClientOptions,
    headers: Vec<(String, String)>,
    extensions: Vec<String>,
}

struct Pool {
    settings: Settings,
    idle: Mutex<Vec<Client>>,
    closed: std::sync::atomic::AtomicBool,
}

impl Pool {
    fn client(&self) -> Client {
        if let Some(c) = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop() {
            return c;
        }
        let st = &self.settings;
        let mut c = Client::new(st.iface.clone()).with_options(st.options.clone());
        for (n, v) in &st.headers {
            c = c.with_header(n, v);
        }
        if !st.extensions.is_empty() {
            let uris: Vec<&str> = st.extensions.iter().map(String::as_str).collect();
            c = c.with_extensions(&uris);
        }
        c
    }

    fn give_back(&self, c: Client) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if !self.closed.load(std::sync::atomic::Ordering::Acquire) && idle.len() < POOL {
            idle.push(c);
        }
    }
}

fn error(e: &TError, binding: &str) -> Error {
    errors::throw(match e {
        TError::A2a(c) => errors::client_desc(c, binding),
        TError::Url(m) => json!({"class": "TypeError", "message": format!("invalid URL: {m}")}),
        TError::Card(m) => json!({"class": "CardError", "message": m}),
        TError::Tls(m) => json!({"class": "TLSError", "message": m}),
        TError::Signature(m) => json!({"class": "CardSignatureError", "message": m}),
        other => json!({"class": "TransportError", "message": other.to_string()}),
    })
}

/// The operation `method` (its v1.0 name) with `request` (ProtoJSON of its request message),
/// checked here so that a bad request fails with the path of the offending field.
fn operation(method: &str, request: &str) -> Result<Operation> {
    Ok(Operation::Task(match method {
        "SendMessage" => Request::SendMessage(decode(request)?),
        "SendStreamingMessage" => Request::SendStreamingMessage(decode(request)?),
        "GetTask" => Request::GetTask(decode(request)?),
        "ListTasks" => Request::ListTasks(decode(request)?),
        "CancelTask" => Request::CancelTask(decode(request)?),
        "SubscribeToTask" => Request::SubscribeToTask(decode(request)?),
        "CreateTaskPushNotificationConfig" => Request::CreatePushConfig(decode(request)?),
        "GetTaskPushNotificationConfig" => Request::GetPushConfig(decode(request)?),
        "ListTaskPushNotificationConfigs" => Request::ListPushConfigs(decode(request)?),
        "DeleteTaskPushNotificationConfig" => Request::DeletePushConfig(decode(request)?),
        "GetExtendedAgentCard" => return Ok(Operation::GetExtendedAgentCard(decode(request)?)),
        other => return Err(errors::range_error(format!("unknown operation {other:?}"))),
    }))
}

fn response_json(r: &Response) -> Result<String> {
    let mut out = Vec::new();
    r.to_json(&mut out).map_err(|e| errors::encode_error(&e.to_string()))?;
    String::from_utf8(out).map_err(|e| errors::encode_error(&e.to_string()))
}

/// Options of `connect`.
#[napi(object)]
pub struct ConnectOptions {
    /// Bindings in preference order (JSONRPC, HTTP+JSON, GRPC).
    pub bindings: Vec<String>,
    /// Protocol versions in preference order ("1.0", "0.3").
    pub versions: Vec<String>,
    /// The deadline of each call, in milliseconds.
    pub timeout_ms: f64,
    /// Headers sent with every request (flat `[name, value, ...]`).
    pub headers: Vec<String>,
    /// Extensions to activate (URIs).
    pub extensions: Vec<String>,
    /// PEM file of the certificate authorities `https://` agents are verified against
    /// (absent: the platform's roots).
    pub ca_file: Option<String>,
    /// A client certificate and key (PEM files), presented when the agent asks for one.
    pub client_cert: Option<TlsFiles>,
    /// Refuse a card that no key of the card keys signed (without keys: every card).
    pub require_signed_card: Option<bool>,
    /// How many times in a row a broken stream is resumed with `Last-Event-ID` (default 5;
    /// 0: never). A whole number.
    pub stream_resumes: Option<f64>,
}

/// A certificate chain and its private key, as PEM files.
#[napi(object)]
pub struct TlsFiles {
    /// The certificate chain (the leaf first).
    pub cert: String,
    /// Its private key.
    pub key: String,
}

/// The client's TLS settings from its options (None when both are absent).
fn client_tls(ca_file: Option<&str>, client_cert: Option<&TlsFiles>) -> Result<Option<a2a_wire_smol::tls::ClientTls>> {
    use std::path::Path;
    let pair = client_cert.map(|c| (Path::new(&c.cert), Path::new(&c.key)));
    a2a_wire_smol::tls::ClientTls::from_files(ca_file.map(Path::new), pair).map_err(|e| error(&e, "HTTP+JSON"))
}

/// A connected client: the card fetched and the interface selected.
#[napi]
pub struct NativeClient {
    pool: Arc<Pool>,
    card: String,
}

/// Fetches the Agent Card at `url` (its signature checked against `cardKeys` when given:
/// a copy of the set as it is now), selects the interface and resolves to the client.
#[napi(catch_unwind, ts_return_type = "Promise<NativeClient>")]
pub fn connect<'env>(
    env: &'env Env,
    url: String,
    options: ConnectOptions,
    card_keys: Option<ClassInstance<'env, crate::signing::NativeCardKeySet>>,
) -> Result<PromiseRaw<'env, NativeClient>> {
    let support = crate::wire::client_support(&options.bindings, &options.versions)?;
    if !(options.timeout_ms > 0.0 && options.timeout_ms.is_finite()) {
        return Err(errors::range_error("timeout must be a positive number of milliseconds"));
    }
    let mut copts = ClientOptions::default();
    copts.deadline = Duration::from_secs_f64(options.timeout_ms / 1e3);
    copts.connect_timeout = copts.connect_timeout.min(copts.deadline);
    copts.tls = client_tls(options.ca_file.as_deref(), options.client_cert.as_ref())?;
    if let Some(n) = options.stream_resumes {
        if !(n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX)) {
            return Err(errors::range_error(format!("streamResumes must be a whole number of resumes, 0 or more (got {n})")));
        }
        // In range and whole: the conversion is exact.
        copts.stream_resumes = n as u32;
    }
    copts.card_keys = card_keys.map(|k| Arc::new(k.keys.clone()));
    copts.require_signed_card = options.require_signed_card.unwrap_or(false);
    let headers: Vec<(String, String)> = options.headers.chunks_exact(2).map(|p| (p[0].clone(), p[1].clone())).collect();
    for (n, v) in &headers {
        a2a::http::check_header_field(n, v).map_err(|e| errors::type_error(format!("headers: {e}")))?;
    }
    let extensions = options.extensions;
    env.spawn_future(async move {
        // Before an interface is chosen, a status is the card fetch's HTTP status.
        let (client, card) = Client::connect_with(&url, &support, copts.clone()).await.map_err(|e| error(&e, "HTTP+JSON"))?;
        let settings = Settings { iface: client.interface().clone(), options: copts, headers, extensions };
        let card = crate::run::json(&card)?;
        let pool = Pool { settings, idle: Mutex::new(vec![]), closed: std::sync::atomic::AtomicBool::new(false) };
        Ok(NativeClient { pool: Arc::new(pool), card })
    })
}

#[napi]
impl NativeClient {
    /// The card fetched at connect (ProtoJSON).
    #[napi(getter, catch_unwind)]
    pub fn card(&self) -> &str {
        &self.card
    }

    /// The selected interface: the JSON of `{url, binding, version, tenant, index}`.
    #[napi(getter, catch_unwind)]
    pub fn interface(&self) -> String {
        let i = &self.pool.settings.iface;
        let v: Value =
            json!({"url": i.url, "binding": i.binding.as_str(), "version": i.version.to_string(), "tenant": i.tenant, "index": i.index});
        v.to_string()
    }

    fn binding(&self) -> &str {
        self.pool.settings.iface.binding.as_str()
    }

    /// Runs the unary operation `method` with `request` (ProtoJSON); resolves to the answer's
    /// ProtoJSON (`{}` for a delete).
    #[napi]
    pub async fn call(&self, method: String, request: String) -> Result<String> {
        let op = operation(&method, &request)?;
        let pool = self.pool.clone();
        let mut client = pool.client();
        let r = client.call(op).await;
        // A connection that failed is not reused.
        if !matches!(r, Err(TError::Transport(_) | TError::Io(_) | TError::Timeout { .. })) {
            pool.give_back(client);
        }
        match r {
            Ok(resp) => response_json(&resp),
            Err(e) => Err(error(&e, self.binding())),
        }
    }

    /// Opens the stream of `method` with `request` (ProtoJSON).
    #[napi]
    pub async fn open_stream(&self, method: String, request: String) -> Result<NativeStream> {
        let op = operation(&method, &request)?;
        let mut client = self.pool.client();
        let r = client.stream(op).await;
        self.pool.give_back(client);
        let es = r.map_err(|e| error(&e, self.binding()))?;
        let (close, closed) = async_channel::bounded(1);
        Ok(NativeStream { stream: smol::lock::Mutex::new(Some(es)), close, closed, binding: self.binding().to_string() })
    }

    /// Drops the idle connections; calls in flight finish on theirs.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.pool.closed.store(true, std::sync::atomic::Ordering::Release);
        self.pool.idle.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }
}

/// An open stream of `StreamResponse`s.
#[napi]
pub struct NativeStream {
    stream: smol::lock::Mutex<Option<EventStream>>,
    close: async_channel::Sender<()>,
    closed: async_channel::Receiver<()>,
    binding: String,
}

#[napi]
impl NativeStream {
    /// The next event (ProtoJSON of a StreamResponse), or null at the end of the stream or
    /// once it is closed.
    #[napi]
    pub async fn next(&self) -> Result<Option<String>> {
        let mut guard = self.stream.lock().await;
        let Some(es) = guard.as_mut() else { return Ok(None) };
        let event = async { Some(es.next().await) };
        let closed = async {
            let _ = self.closed.recv().await;
            None
        };
        let r = smol::future::or(event, closed).await;
        match r {
            Some(Some(Ok(ev))) => crate::run::json(&ev).map(Some),
            Some(Some(Err(e))) => {
                *guard = None;
                Err(error(&e, &self.binding))
            }
            Some(None) | None => {
                if let Some(es) = guard.take() {
                    es.close().await;
                }
                Ok(None)
            }
        }
    }

    /// Closes the stream: its connection is dropped (the task goes on at the server). A
    /// `next()` waiting resolves to null.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.close.close();
    }
}

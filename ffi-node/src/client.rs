//! The ready client (`NativeClient`): the smol transport's `Client` (built on the core's
//! step-function client: every retry and error rule is the core's), its operations as
//! `async` native functions on the registered smol runtime, so the event loop never waits.
//!
//! Calls may overlap: the transport's client keeps a pool of idle connections (and one
//! shared HTTP/2 connection), and each call runs on a clone with its own options (deadline,
//! headers). A call given an abort id stops when `abort(id)` is called: its future, and with
//! it its connection, is dropped. A stream (`NativeStream`) is pulled one event per
//! `next()`, so a slow consumer holds the server back through TCP instead of filling memory
//! here; `close()` drops its connection.

use crate::errors;
use crate::run::decode;
use a2a::op::{Operation, Request, Response};
use a2a_wire_smol::{CallOptions, Client, ClientOptions, Error as TError, EventStream};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

fn error(e: &TError, binding: &str) -> Error {
    errors::throw(match e {
        TError::A2a(c) => errors::client_desc(c, binding),
        TError::Url(m) => json!({"class": "TypeError", "message": format!("invalid URL: {m}")}),
        TError::Card(m) => json!({"class": "CardError", "message": m}),
        TError::Tls(m) => json!({"class": "TLSError", "message": m}),
        TError::Signature(m) => json!({"class": "CardSignatureError", "message": m}),
        TError::Timeout { .. } => json!({"class": "CallTimeoutError", "message": e.to_string()}),
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

/// One call's own options.
#[napi(object)]
pub struct CallSettings {
    /// The call's deadline in milliseconds, instead of the client's.
    pub timeout_ms: Option<f64>,
    /// Headers sent with this call only, after the client's (flat `[name, value, ...]`).
    pub headers: Option<Vec<String>>,
    /// An id of the caller's choosing: `abort(id)` stops the call.
    pub abort_id: Option<u32>,
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
    /// None once closed.
    client: Mutex<Option<Client>>,
    binding: String,
    interface: String,
    card: String,
    aborts: Arc<Mutex<HashMap<u32, async_channel::Sender<()>>>>,
}

/// A positive, finite number of milliseconds as a duration.
fn millis(ms: f64, what: &str) -> Result<Duration> {
    if !(ms > 0.0 && ms.is_finite()) {
        return Err(errors::range_error(format!("{what} must be a positive number of milliseconds, got {ms}")));
    }
    Duration::try_from_secs_f64(ms / 1e3).map_err(|e| errors::range_error(format!("{what} {ms}: {e}")))
}

/// Flat `[name, value, ...]` headers as pairs, each checked.
fn header_pairs(flat: Vec<String>) -> Result<Vec<(String, String)>> {
    let headers: Vec<(String, String)> = flat.chunks_exact(2).map(|p| (p[0].clone(), p[1].clone())).collect();
    for (n, v) in &headers {
        a2a::http::check_header_field(n, v).map_err(|e| errors::type_error(format!("headers: {e}")))?;
    }
    Ok(headers)
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
    let mut copts = ClientOptions::default();
    copts.deadline = millis(options.timeout_ms, "timeoutMs")?;
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
    let headers = header_pairs(options.headers)?;
    let extensions = options.extensions;
    env.spawn_future(async move {
        // Before an interface is chosen, a status is the card fetch's HTTP status.
        let (mut client, card) = Client::connect_with(&url, &support, copts).await.map_err(|e| error(&e, "HTTP+JSON"))?;
        for (n, v) in &headers {
            client = client.with_header(n, v);
        }
        if !extensions.is_empty() {
            let uris: Vec<&str> = extensions.iter().map(String::as_str).collect();
            client = client.with_extensions(&uris);
        }
        let i = client.interface();
        let interface =
            json!({"url": i.url, "binding": i.binding.as_str(), "version": i.version.to_string(), "tenant": i.tenant, "index": i.index})
                .to_string();
        let binding = i.binding.as_str().to_string();
        let card = crate::run::json(&card)?;
        Ok(NativeClient { client: Mutex::new(Some(client)), binding, interface, card, aborts: Arc::default() })
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
        self.interface.clone()
    }

    /// The client for one call with `options`, and the call's abort signal (with an abort id).
    fn prepare(&self, options: Option<CallSettings>) -> Result<(Client, Option<async_channel::Receiver<()>>)> {
        let options = options.unwrap_or(CallSettings { timeout_ms: None, headers: None, abort_id: None });
        let call = CallOptions {
            timeout: options.timeout_ms.map(|ms| millis(ms, "timeoutMs")).transpose()?,
            headers: header_pairs(options.headers.unwrap_or_default())?,
        };
        let client = self.client.lock().unwrap_or_else(PoisonError::into_inner).as_ref().map(|c| c.with_call_options(call));
        let client = client.ok_or_else(|| errors::throw(json!({"class": "ClientClosedError", "message": "the client is closed"})))?;
        let abort = options.abort_id.map(|id| {
            let (tx, rx) = async_channel::bounded(1);
            self.aborts.lock().unwrap_or_else(PoisonError::into_inner).insert(id, tx);
            rx
        });
        Ok((client, abort))
    }

    /// `fut`, or an error as soon as the call is aborted (its future, and its connection,
    /// dropped).
    async fn abortable<T>(
        &self,
        id: Option<u32>,
        abort: Option<async_channel::Receiver<()>>,
        fut: impl std::future::Future<Output = std::result::Result<T, TError>>,
    ) -> std::result::Result<T, TError> {
        let r = match abort {
            Some(rx) => {
                let aborted = async {
                    let _ = rx.recv().await;
                    Err(TError::Transport(String::from("the call was aborted")))
                };
                smol::future::or(fut, aborted).await
            }
            None => fut.await,
        };
        if let Some(id) = id {
            self.aborts.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
        }
        r
    }

    /// Runs the unary operation `method` with `request` (ProtoJSON) and this call's
    /// `options`; resolves to the answer's ProtoJSON (`{}` for a delete).
    #[napi]
    pub async fn call(&self, method: String, request: String, options: Option<CallSettings>) -> Result<String> {
        let op = operation(&method, &request)?;
        let id = options.as_ref().and_then(|o| o.abort_id);
        let (client, abort) = self.prepare(options)?;
        match self.abortable(id, abort, client.call(op)).await {
            Ok(resp) => response_json(&resp),
            Err(e) => Err(error(&e, &self.binding)),
        }
    }

    /// Opens the stream of `method` with `request` (ProtoJSON) and this call's `options`
    /// (the abort id stops the opening; an open stream is closed with its `close()`).
    #[napi]
    pub async fn open_stream(&self, method: String, request: String, options: Option<CallSettings>) -> Result<NativeStream> {
        let op = operation(&method, &request)?;
        let id = options.as_ref().and_then(|o| o.abort_id);
        let (client, abort) = self.prepare(options)?;
        let es = self.abortable(id, abort, client.stream(op)).await.map_err(|e| error(&e, &self.binding))?;
        let (close, closed) = async_channel::bounded(1);
        Ok(NativeStream { stream: smol::lock::Mutex::new(Some(es)), close, closed, binding: self.binding.clone() })
    }

    /// Stops the call (or the stream's opening) given abort id `id`; nothing if it is over.
    #[napi(catch_unwind)]
    pub fn abort(&self, id: u32) {
        if let Some(tx) = self.aborts.lock().unwrap_or_else(PoisonError::into_inner).remove(&id) {
            tx.close();
        }
    }

    /// Closes the client: later calls reject with `ClientClosedError`; calls in flight
    /// finish on their connections.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.client.lock().unwrap_or_else(PoisonError::into_inner).take();
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

//! The client: `A2aClient.connect(url, options)` and the eleven operations as `suspend fun`s
//! (Kotlin) / `async` methods (Swift), over the transport's client (one value serves many
//! calls at once); streams as `TaskStream` objects, which `Flows.kt` turns into `Flow`s.
//!
//! The futures are polled by the foreign side's executor; their IO runs on smol's reactor.
//! Cancelling the Kotlin coroutine drops the Rust future, which closes the call (a stream's
//! connection included); `TaskStream.cancel()` ends a stream from any thread.

use crate::error::A2aError;
use crate::model::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse,
    SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use crate::rt::Path;
use a2a::card::{Binding, ClientSupport};
use a2a_wire_smol as transport;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// How a client connects and calls. Every field has a default.
#[derive(Clone, Debug, uniffi::Record)]
pub struct ClientConfig {
    /// Headers sent with every request (`Authorization`, ...).
    #[uniffi(default)]
    pub headers: HashMap<String, String>,
    /// Time allowed for a whole unary call (retries included), or for a stream to start
    /// (`null`: 30 s).
    #[uniffi(default)]
    pub timeout: Option<Duration>,
    /// Time allowed to open a connection (`null`: 10 s).
    #[uniffi(default)]
    pub connect_timeout: Option<Duration>,
    /// Longest wait between two events of a stream (`null`: 300 s).
    #[uniffi(default)]
    pub stream_idle_timeout: Option<Duration>,
    /// How many times in a row a broken stream is resumed (`SubscribeToTask` with
    /// `Last-Event-ID`) before its error is thrown; `null`: the default, 5.
    #[uniffi(default)]
    pub stream_resumes: Option<u32>,
    /// PEM file of the CAs `https://` agents are verified against (`null`: the platform's roots).
    #[uniffi(default)]
    pub ca_file: Option<String>,
    /// Bindings the client may pick, in the card's order (`"JSONRPC"`, `"HTTP+JSON"`,
    /// `"GRPC"`; empty: all three).
    #[uniffi(default)]
    pub bindings: Vec<String>,
    /// Protocol versions the client speaks, most preferred first (`"1.0"`, `"0.3"`; empty:
    /// both, 1.0 first).
    #[uniffi(default)]
    pub versions: Vec<String>,
    /// Extension URIs declared with every request (`A2A-Extensions`).
    #[uniffi(default)]
    pub extensions: Vec<String>,
    /// The keys the card's signature is checked against, as a JWKS (JSON text, as
    /// `a2a-wire card-key` prints it); a card signed by none of them is refused. `null`: the
    /// signature is not checked.
    #[uniffi(default)]
    pub card_jwks: Option<String>,
    /// Refuse a card without a signature (needs `cardJwks`).
    #[uniffi(default)]
    pub require_signed_card: bool,
}

/// Headers computed before each request of a client (a stream's resumes too): the place to
/// refresh a token. A thrown exception fails the call before anything is sent.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait HeaderProvider: Send + Sync {
    /// The headers to send now (after the client's own).
    async fn headers(&self) -> Result<HashMap<String, String>, A2aError>;
}

/// The bindings and versions the config allows, read by the core's own parsers; a name the
/// core does not speak is refused rather than matched against nothing.
fn support_of(config: &ClientConfig) -> Result<ClientSupport, A2aError> {
    let mut support = ClientSupport::default();
    if !config.bindings.is_empty() {
        support.bindings = config
            .bindings
            .iter()
            .map(|b| match Binding::parse(b) {
                Binding::Custom(_) => {
                    Err(A2aError::invalid_value("bindings".into(), &format!("unknown binding {b:?} (JSONRPC, HTTP+JSON or GRPC)")))
                }
                known => Ok(known),
            })
            .collect::<Result<_, _>>()?;
    }
    if !config.versions.is_empty() {
        support.versions = config.versions.iter().map(|v| crate::error::known_version(v, "versions")).collect::<Result<_, _>>()?;
    }
    Ok(support)
}

fn options_of(config: &ClientConfig) -> Result<transport::ClientOptions, A2aError> {
    let d = transport::ClientOptions::default();
    let tls = match &config.ca_file {
        Some(path) => Some(transport::tls::ClientTls::from_ca_file(path).map_err(|e| A2aError::from(&e))?),
        None => None,
    };
    let card_keys = match &config.card_jwks {
        Some(jwks) => Some(Arc::new(transport::signing::CardKeySet::from_jwks(jwks).map_err(|e| A2aError::from(&e))?)),
        None if config.require_signed_card => {
            return Err(A2aError::invalid_value("requireSignedCard".into(), "needs cardJwks, the keys a signature is checked against"))
        }
        None => None,
    };
    Ok(transport::ClientOptions {
        card_keys,
        require_signed_card: config.require_signed_card,
        deadline: config.timeout.unwrap_or(d.deadline),
        connect_timeout: config.connect_timeout.unwrap_or(d.connect_timeout),
        stream_idle_timeout: config.stream_idle_timeout.unwrap_or(d.stream_idle_timeout),
        stream_resumes: config.stream_resumes.unwrap_or(d.stream_resumes),
        tls,
        ..d
    })
}

/// An A2A client bound to one interface of one agent, picked from its card. One value
/// serves many calls at once, from any coroutine or thread.
#[derive(uniffi::Object)]
pub struct A2aClient {
    inner: transport::Client,
    card: AgentCard,
}

fn into<T, U: From<T>>(r: Result<T, transport::Error>) -> Result<U, A2aError> {
    r.map(U::from).map_err(|e| A2aError::from(&e))
}

#[uniffi::export]
impl A2aClient {
    /// Fetches the agent's card from `url` (its base URL or the card's URL) and picks the
    /// first interface whose binding and version the config allows.
    #[uniffi::constructor]
    pub async fn connect(url: String, config: ClientConfig) -> Result<Arc<A2aClient>, A2aError> {
        let support = support_of(&config)?;
        let options = options_of(&config)?;
        let (mut client, card) = transport::Client::connect_with(&url, &support, options).await.map_err(|e| A2aError::from(&e))?;
        for (name, value) in &config.headers {
            client = client.with_header(name, value);
        }
        if !config.extensions.is_empty() {
            let uris: Vec<&str> = config.extensions.iter().map(String::as_str).collect();
            client = client.with_extensions(&uris);
        }
        Ok(Arc::new(A2aClient { inner: client, card: card.into() }))
    }

    /// This client, asking `provider` for headers before each request (replacing a provider
    /// given before). Set it up once, right after `connect`: the client returned opens its
    /// own connections.
    pub fn with_header_provider(&self, provider: Arc<dyn HeaderProvider>) -> Arc<A2aClient> {
        let inner = self.inner.clone().with_header_provider(move || {
            let provider = provider.clone();
            async move {
                let headers = provider.headers().await.map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)?;
                Ok(headers.into_iter().collect())
            }
        });
        Arc::new(A2aClient { inner, card: self.card.clone() })
    }

    /// A client sharing this one's connections whose calls have this time limit (`null`: the
    /// config's) and send these headers too: `client.withCallOptions(java.time.Duration.ofSeconds(5), mapOf())`.
    pub fn with_call_options(&self, timeout: Option<Duration>, headers: HashMap<String, String>) -> Arc<A2aClient> {
        let options = transport::CallOptions { timeout, headers: headers.into_iter().collect() };
        Arc::new(A2aClient { inner: self.inner.with_call_options(options), card: self.card.clone() })
    }

    /// The agent's card, as fetched.
    pub fn card(&self) -> AgentCard {
        self.card.clone()
    }

    /// The interface in use: its URL, binding and protocol version.
    pub fn interface(&self) -> crate::model::AgentInterface {
        let i = self.inner.interface();
        crate::model::AgentInterface {
            url: i.url.clone(),
            protocol_binding: i.binding.to_string(),
            protocol_version: i.version.to_string(),
            tenant: i.tenant.clone(),
        }
    }

    /// `SendMessage`: the task it started or continued, or the agent's direct message.
    pub async fn send_message(&self, request: SendMessageRequest) -> Result<SendMessageResponse, A2aError> {
        use crate::model::SendMessageResponsePayload as P;
        let reply = self.inner.send_message(request.into_pb(&Path::ROOT)?).await.map_err(|e| A2aError::from(&e))?;
        let payload = match reply {
            a2a::client::Reply::Message(m) => P::Message { message: m.into() },
            a2a::client::Reply::Task(t) => P::Task { task: t.task().clone().into() },
        };
        Ok(SendMessageResponse { payload: Some(payload) })
    }

    /// `SendStreamingMessage`: the task's events as they happen.
    pub async fn send_streaming_message(&self, request: SendMessageRequest) -> Result<Arc<TaskStream>, A2aError> {
        let request = request.into_pb(&Path::ROOT)?;
        let stream = self.inner.send_streaming_message(request).await.map_err(|e| A2aError::from(&e))?;
        Ok(TaskStream::new(stream))
    }

    /// `GetTask`.
    pub async fn get_task(&self, request: GetTaskRequest) -> Result<Task, A2aError> {
        into(self.inner.get_task(request.into_pb(&Path::ROOT)?).await)
    }

    /// `ListTasks`.
    pub async fn list_tasks(&self, request: ListTasksRequest) -> Result<ListTasksResponse, A2aError> {
        into(self.inner.list_tasks(request.into_pb(&Path::ROOT)?).await)
    }

    /// `CancelTask`.
    pub async fn cancel_task(&self, request: CancelTaskRequest) -> Result<Task, A2aError> {
        into(self.inner.cancel_task(request.into_pb(&Path::ROOT)?).await)
    }

    /// `SubscribeToTask`: the events of a task that is still running.
    pub async fn subscribe_to_task(&self, request: SubscribeToTaskRequest) -> Result<Arc<TaskStream>, A2aError> {
        let stream = self.inner.subscribe_to_task(request.into_pb(&Path::ROOT)?).await.map_err(|e| A2aError::from(&e))?;
        Ok(TaskStream::new(stream))
    }

    /// `CreateTaskPushNotificationConfig`.
    pub async fn create_push_config(&self, config: TaskPushNotificationConfig) -> Result<TaskPushNotificationConfig, A2aError> {
        into(self.inner.create_push_config(config.into_pb(&Path::ROOT)?).await)
    }

    /// `GetTaskPushNotificationConfig`.
    pub async fn get_push_config(&self, request: GetTaskPushNotificationConfigRequest) -> Result<TaskPushNotificationConfig, A2aError> {
        into(self.inner.get_push_config(request.into_pb(&Path::ROOT)?).await)
    }

    /// `ListTaskPushNotificationConfigs`.
    pub async fn list_push_configs(
        &self,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2aError> {
        into(self.inner.list_push_configs(request.into_pb(&Path::ROOT)?).await)
    }

    /// `DeleteTaskPushNotificationConfig`.
    pub async fn delete_push_config(&self, request: DeleteTaskPushNotificationConfigRequest) -> Result<(), A2aError> {
        self.inner.delete_push_config(request.into_pb(&Path::ROOT)?).await.map_err(|e| A2aError::from(&e))
    }

    /// `GetExtendedAgentCard`.
    pub async fn get_extended_agent_card(&self) -> Result<AgentCard, A2aError> {
        into(self.inner.get_extended_agent_card().await)
    }
}

/// The events of one stream. `next()` waits for the next event (`null` at the end);
/// `cancel()`, from any thread, ends it and closes its connection. `Flows.kt` makes it a
/// `Flow` whose collection ending cancels it.
#[derive(uniffi::Object)]
pub struct TaskStream {
    inner: smol::lock::Mutex<Option<transport::EventStream>>,
    stop: async_channel::Sender<()>,
    stopped: async_channel::Receiver<()>,
}

impl TaskStream {
    fn new(stream: transport::EventStream) -> Arc<TaskStream> {
        let (stop, stopped) = async_channel::bounded(1);
        Arc::new(TaskStream { inner: smol::lock::Mutex::new(Some(stream)), stop, stopped })
    }
}

#[uniffi::export]
impl TaskStream {
    /// The next event, or `null` once the stream has ended (or was cancelled).
    pub async fn next(&self) -> Result<Option<StreamResponse>, A2aError> {
        let mut guard = self.inner.lock().await;
        if self.stop.is_closed() {
            *guard = None;
        }
        let Some(stream) = guard.as_mut() else { return Ok(None) };
        let event = smol::future::or(async { Some(stream.next().await) }, async {
            let _ = self.stopped.recv().await;
            None
        })
        .await;
        match event {
            Some(Some(Ok(e))) => Ok(Some(e.into())),
            Some(Some(Err(e))) => {
                *guard = None;
                Err(A2aError::from(&e))
            }
            Some(None) | None => {
                *guard = None;
                Ok(None)
            }
        }
    }

    /// Ends the stream: a waiting `next()` returns `null`, and so does every later one.
    pub fn cancel(&self) {
        // Closing the channel wakes every waiter, now and later.
        self.stop.close();
    }

    /// The `Last-Event-ID` of the last event, when the server numbers its events.
    pub async fn last_event_id(&self) -> Option<String> {
        self.inner.lock().await.as_ref().and_then(|s| s.last_event_id().map(str::to_string))
    }
}

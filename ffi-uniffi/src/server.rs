//! The agent server: `AgentServer(agent, card, ServerConfig)` runs the transport's ready
//! server (HTTP/1.1 and HTTP/2; JSON-RPC, HTTP+JSON and gRPC; v1.0 and v0.3) on threads of
//! its own; the agent is a Kotlin/Swift object implementing [`AgentExecutor`], whose
//! `suspend fun execute(ctx, events)` runs on the foreign side's executor for each message.
//! When the task is canceled the context says so (`isCancelled()`, `cancelled()`), and a run
//! still going after the cancel grace has its coroutine cancelled.

use crate::error::A2aError;
use crate::model::{AgentCard, Artifact, Message, Task, TaskState};
use crate::rt::Path;
use a2a_wire_smol as transport;
use a2a_wire_smol::agent::{EventSink, RequestContext};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The agent, implemented in Kotlin or Swift.
#[uniffi::export(foreign)]
#[async_trait::async_trait]
pub trait AgentExecutor: Send + Sync {
    /// Handles one message: publish through `events`, return when the turn is over (a run
    /// that returns without ending the task leaves it as its last status said; one that
    /// throws fails the task with the exception's text).
    async fn execute(&self, ctx: Arc<RunContext>, events: Arc<Events>) -> Result<(), A2aError>;
}

/// Everything the agent knows about one run.
#[derive(uniffi::Object)]
pub struct RunContext {
    inner: RequestContext,
}

#[uniffi::export]
impl RunContext {
    /// The task the message belongs to.
    pub fn task_id(&self) -> String {
        self.inner.task_id.clone()
    }
    /// Its context.
    pub fn context_id(&self) -> String {
        self.inner.context_id.clone()
    }
    /// The message, with `taskId` and `contextId` filled in.
    pub fn message(&self) -> Message {
        self.inner.message.clone().into()
    }
    /// The text of the message's text parts, concatenated.
    pub fn text(&self) -> String {
        self.inner.text()
    }
    /// True when the message continues an existing task.
    pub fn is_follow_up(&self) -> bool {
        self.inner.follow_up
    }
    /// The task as stored when the run started (`null` for a new task).
    pub fn task(&self) -> Option<Task> {
        self.inner.task.clone().map(Task::from)
    }
    /// Who sent it (the principal authentication gave; `null`: anonymous).
    pub fn principal(&self) -> Option<String> {
        self.inner.principal().map(str::to_string)
    }
    /// The tenant the request named (`""`: none).
    pub fn tenant(&self) -> String {
        self.inner.tenant.clone()
    }
    /// The request's metadata, as JSON text (`null`: none).
    pub fn metadata(&self) -> Option<String> {
        self.inner.metadata.as_ref().map(crate::rt::json_text)
    }
    /// The extensions active for this call.
    pub fn extensions(&self) -> Vec<String> {
        self.inner.extensions().to_vec()
    }
    /// The output modes the client accepts (empty: any).
    pub fn accepted_output_modes(&self) -> Vec<String> {
        self.inner.accepted_output_modes().to_vec()
    }
    /// True once the task is canceled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_canceled()
    }
    /// Returns when the task is canceled (at once if it already is).
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await
    }
}

/// Where the agent publishes one run's events. Every call throws once the server refused an
/// event of the run (the run ended, the task was canceled, the server stopped).
#[derive(uniffi::Object)]
pub struct Events {
    sink: EventSink,
}

fn refused(r: transport::agent::Refused) -> A2aError {
    A2aError::from(&r.0)
}

fn agent_message(text: &str) -> a2a::v1::Message {
    transport::agent::agent_text(transport::agent::new_id(), text)
}

#[uniffi::export]
impl Events {
    /// Sets the task's status, with an optional agent message (a question, a reason).
    pub fn status(&self, state: TaskState, message: Option<Message>, metadata: Option<String>) -> Result<(), A2aError> {
        let state = a2a::v1::TaskState::try_from(state.number())
            .map_err(|_| A2aError::invalid_value("state".into(), "a state this version does not name cannot be set"))?;
        let message = message.map(|m| m.into_pb(&Path::ROOT.field("message"))).transpose()?;
        let metadata = metadata.map(|m| crate::rt::parse_struct(&m, &Path::ROOT.field("metadata"))).transpose()?;
        self.sink.status_with_metadata(state, message, metadata).map_err(refused)
    }

    /// `WORKING`, with an optional agent message.
    pub fn working(&self, text: Option<String>) -> Result<(), A2aError> {
        self.sink.status(a2a::v1::TaskState::Working, text.map(|t| agent_message(&t))).map_err(refused)
    }

    /// `INPUT_REQUIRED` with the question, which ends the turn.
    pub fn require_input(&self, question: String) -> Result<(), A2aError> {
        self.sink.status(a2a::v1::TaskState::InputRequired, Some(agent_message(&question))).map_err(refused)
    }

    /// `COMPLETED`, with an optional agent message.
    pub fn complete(&self, text: Option<String>) -> Result<(), A2aError> {
        self.sink.status(a2a::v1::TaskState::Completed, text.map(|t| agent_message(&t))).map_err(refused)
    }

    /// `FAILED` with the reason.
    pub fn fail(&self, reason: String) -> Result<(), A2aError> {
        self.sink.status(a2a::v1::TaskState::Failed, Some(agent_message(&reason))).map_err(refused)
    }

    /// Publishes an artifact or a chunk of one (`append`: add to the artifact with the same
    /// id; `lastChunk`: it is complete). An artifact without an id gets a fresh UUID.
    pub fn artifact(&self, artifact: Artifact, append: bool, last_chunk: bool, metadata: Option<String>) -> Result<(), A2aError> {
        let artifact = artifact.into_pb(&Path::ROOT.field("artifact"))?;
        let metadata = metadata.map(|m| crate::rt::parse_struct(&m, &Path::ROOT.field("metadata"))).transpose()?;
        self.sink.artifact_with_metadata(artifact, append, last_chunk, metadata).map_err(refused)
    }

    /// A whole artifact of one text part, with a fresh id.
    pub fn text_artifact(&self, text: String) -> Result<(), A2aError> {
        let artifact = a2a::v1::Artifact { parts: vec![transport::agent::text_part(&text)], ..Default::default() };
        self.sink.artifact(artifact, false, true).map_err(refused)
    }

    /// Replies with a direct message instead of a task (the first and only event of a run).
    pub fn message(&self, message: Message) -> Result<(), A2aError> {
        let message = message.into_pb(&Path::ROOT.field("message"))?;
        self.sink.message(message).map_err(refused)
    }

    /// Waits until the server applied every event published so far; throws the refusal if
    /// it refused one (an event after the task ended, a canceled task). Events are sent
    /// without waiting, so an event the server refuses throws here, or at the next publish.
    pub async fn flush(&self) -> Result<(), A2aError> {
        self.sink.flushed().await.map_err(refused)
    }

    /// A direct agent message of one text part.
    pub fn reply(&self, text: String) -> Result<(), A2aError> {
        self.sink.message(agent_message(&text)).map_err(refused)
    }
}

/// The bridge from the foreign agent to the transport's executor.
struct Foreign(Arc<dyn AgentExecutor>);

impl transport::agent::AgentExecutor for Foreign {
    fn execute(&self, ctx: RequestContext, events: EventSink) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'static>> {
        let agent = self.0.clone();
        Box::pin(async move {
            let out = Arc::new(Events { sink: events.clone() });
            if let Err(e) = agent.execute(Arc::new(RunContext { inner: ctx }), out).await {
                events.fail(e.description());
            }
            events.finish();
        })
    }
}

/// How the server listens and keeps its tasks. Every field has a default.
#[derive(Clone, Debug, uniffi::Record)]
pub struct ServerConfig {
    /// The address to listen on (`127.0.0.1`).
    #[uniffi(default = "127.0.0.1")]
    pub host: String,
    /// The port (0: any free one; `url()` says which).
    #[uniffi(default = 0)]
    pub port: u16,
    /// Token to principal: every call then needs `Authorization: Bearer TOKEN`.
    #[uniffi(default)]
    pub bearer_tokens: HashMap<String, String>,
    /// Serve HTTPS with this certificate chain and key (PEM files).
    #[uniffi(default)]
    pub tls_cert_file: Option<String>,
    /// The key of `tlsCertFile`.
    #[uniffi(default)]
    pub tls_key_file: Option<String>,
    /// Where tasks are kept: `null`, in memory; a file, SQLite; a `postgres://` URL.
    #[uniffi(default)]
    pub store: Option<String>,
    /// How long a canceled run may go on before its coroutine is cancelled (`null`: 5 s).
    #[uniffi(default)]
    pub cancel_grace: Option<Duration>,
    /// Sign the card served (spec 8.4) with this private key: a JWK (JSON text with `kid`;
    /// ES256 or EdDSA) or a PKCS#8 PEM key with `cardSigningKid`.
    #[uniffi(default)]
    pub card_signing_key: Option<String>,
    /// The `kid` of a PEM `cardSigningKey` (of a JWK: replaces its own).
    #[uniffi(default)]
    pub card_signing_kid: Option<String>,
}

/// A running agent server.
#[derive(uniffi::Object)]
pub struct AgentServer {
    server: Mutex<Option<transport::RunningServer>>,
    url: String,
    card: AgentCard,
    jwks: Option<String>,
}

#[uniffi::export]
impl AgentServer {
    /// Serves `agent` under `card` (its interfaces: when empty, the standard six at this
    /// server's address; when given, served as given).
    #[uniffi::constructor]
    pub fn new(agent: Arc<dyn AgentExecutor>, card: AgentCard, config: ServerConfig) -> Result<Arc<AgentServer>, A2aError> {
        let card = card.into_pb(&Path::ROOT)?;
        let mut ready = transport::ready::ReadyOptions { cancel_grace: config.cancel_grace, ..Default::default() };
        if !config.bearer_tokens.is_empty() {
            let mut tokens = a2a::auth::BearerTokens::new();
            for (token, principal) in &config.bearer_tokens {
                tokens.insert(token, principal).map_err(|e| A2aError::invalid_value("bearerTokens".into(), &e.to_string()))?;
            }
            ready.bearer_tokens = Some(tokens);
        }
        match (&config.tls_cert_file, &config.tls_key_file) {
            (Some(cert), Some(key)) => {
                ready.tls = Some(transport::tls::ServerTls::from_pem_files(cert, key).map_err(|e| A2aError::from(&e))?);
            }
            (None, None) => {}
            _ => return Err(A2aError::invalid_value("tlsCertFile".into(), "give tlsCertFile and tlsKeyFile together")),
        }
        let mut jwks = None;
        if let Some(key) = &config.card_signing_key {
            let key = transport::signing::SigningKey::from_text(key, config.card_signing_kid.as_deref()).map_err(|e| A2aError::from(&e))?;
            jwks = Some(crate::rt::json_text(&serde_json::json!({ "keys": [key.public_jwk()] })));
            ready.signing_key = Some(Arc::new(key));
        }
        ready.store = config.store.as_ref().map(std::path::PathBuf::from);
        let ip: std::net::IpAddr = config
            .host
            .parse()
            .map_err(|e| A2aError::invalid_value("host".into(), &format!("{:?} is not an IP address: {e}", config.host)))?;
        let wanted = std::net::SocketAddr::new(ip, config.port);
        let transport_error = |what: String| A2aError::Transport { description: what };
        // The card must name the port before the server binds it.
        let addr = transport::server::concrete_addr(wanted).map_err(|e| transport_error(format!("cannot bind {wanted}: {e}")))?;
        let url = ready.listening_origin(addr);
        let store = ready.open_store().map_err(|e| transport_error(e.to_string()))?;
        let config = ready.server_config(card, addr).map_err(|e| match e {
            transport::ready::ReadyError::Card { error, .. } => A2aError::from(error),
            other => A2aError::invalid_value(String::new(), &other.to_string()),
        })?;
        let card = config.card.clone().into();
        let agent = transport::host::AgentKind::Future(Arc::new(Foreign(agent)));
        let server = transport::RunningServer::start(addr, config, agent, store)
            .map_err(|e| transport_error(format!("cannot serve on {addr}: {e}")))?;
        Ok(Arc::new(AgentServer { server: Mutex::new(Some(server)), url, card, jwks }))
    }

    /// `http://HOST:PORT` (`https://` with TLS); the card is at `/.well-known/agent-card.json`.
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The public JWKS of `cardSigningKey` (JSON text; what a client's `cardJwks` takes),
    /// or `null` when the card is not signed.
    pub fn card_jwks(&self) -> Option<String> {
        self.jwks.clone()
    }

    /// The card the server publishes.
    pub fn card(&self) -> AgentCard {
        self.card.clone()
    }

    /// Stops the server (open streams end, running runs are canceled) and returns once it
    /// has stopped. Later calls do nothing.
    pub async fn stop(&self) {
        let server = self.server.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(s) = server {
            smol::unblock(move || s.stop()).await;
        }
    }
}

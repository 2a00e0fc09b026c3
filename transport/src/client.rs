//! The A2A client on smol: fetches Agent Cards, picks an interface (the core decides), and
//! runs the eleven operations over HTTP/1.1 (JSON-RPC and HTTP+JSON; streams over SSE) or
//! gRPC (HTTP/2). Every protocol step is the core's step-function client
//! ([`a2a_wire::client::Exchange`]); this module dials, writes, reads and keeps time.
//!
//! Time limits ([`ClientOptions`]): a connect timeout, a deadline for each unary call (and
//! for a stream until its head arrives), and an idle timeout between two events of a
//! stream. Size limits: the response head (bytes and fields), the answer body, each stream
//! event — a server that breaks one gets a clean [`Error`], never a panic or an unbounded
//! buffer. Unary calls reuse one kept-alive connection; each stream has its own.

use crate::http1::{self, Buffer, ChunkedDecoder, Framing, Limits};
use crate::io::Stream;
use crate::url::parse_url;
use a2a_wire::card::{self, Binding, CardView, ClientSupport, SelectedInterface};
use a2a_wire::client::{self as core_client, ClientError, ClientLimits, Exchange, Finished, PreparedCall, Reply, Step};
use a2a_wire::op::{Operation, Request, Response};
use a2a_wire::v1;
use smol::net::TcpStream;
use std::fmt;
use std::time::Duration;

pub use crate::error::Error;
pub use crate::url::Url;

/// Time and size limits of a client.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// Time allowed to open a connection (and, for gRPC, its HTTP/2 handshake).
    pub connect_timeout: Duration,
    /// Time allowed for a whole unary call, retries included; for a stream, until its head
    /// has arrived.
    pub deadline: Duration,
    /// Time allowed between two events of a stream (and for its head after the request).
    pub stream_idle_timeout: Duration,
    /// Largest response head (bytes), and number of header fields.
    pub max_head: usize,
    /// Largest number of response header fields.
    pub max_headers: usize,
    /// What the core accepts: the largest answer body and stream event.
    pub answer: ClientLimits,
    /// TLS for `https://` URLs: the roots trusted and an optional client certificate.
    /// `None`: the platform's roots (read on the first `https://` call).
    pub tls: Option<crate::tls::ClientTls>,
    /// How many times in a row a stream that broke off (dropped connection, idle timeout,
    /// `Unavailable` from the server) is resumed with `SubscribeToTask` and `Last-Event-ID`
    /// before its error is returned (0: never). The count starts again after each event.
    pub stream_resumes: u32,
    /// The keys Agent Card signatures are checked against (spec 8.4). With keys, a card
    /// that carries signatures must have one they verify; a card without is accepted unless
    /// [`ClientOptions::require_signed_card`].
    pub card_keys: Option<std::sync::Arc<crate::signing::CardKeySet>>,
    /// Refuse a card that no key of [`ClientOptions::card_keys`] signed.
    pub require_signed_card: bool,
    /// How file bytes travel on a v0.3 gRPC or HTTP+JSON interface (base64 text by default;
    /// raw for a server on @a2a-js/sdk 0.3; see [`a2a_wire::client::FileBytes`]).
    pub v03_file_bytes: a2a_wire::client::FileBytes,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect_timeout: Duration::from_secs(10),
            deadline: Duration::from_secs(30),
            stream_idle_timeout: Duration::from_secs(300),
            max_head: 64 * 1024,
            max_headers: 128,
            answer: ClientLimits::default(),
            tls: None,
            stream_resumes: 5,
            card_keys: None,
            require_signed_card: false,
            v03_file_bytes: a2a_wire::client::FileBytes::default(),
        }
    }
}

impl ClientOptions {
    fn http_limits(&self) -> Limits {
        Limits { max_head: self.max_head, max_headers: self.max_headers, max_body: self.answer.max_body, ..Limits::default() }
    }

    /// The TLS settings `https://` URLs use.
    pub(crate) fn client_tls(&self) -> Result<crate::tls::ClientTls, Error> {
        match &self.tls {
            Some(t) => Ok(t.clone()),
            None => crate::tls::default_client(),
        }
    }
}

/// A TCP connection to `url`, then its TLS handshake for `https://` (asking for `alpn`),
/// within the connect timeout.
pub(crate) async fn connect(url: &Url, options: &ClientOptions, alpn: &'static [u8]) -> Result<Stream, Error> {
    let open = async {
        let stream = TcpStream::connect(url.authority.as_str()).await?;
        // Nagle off: requests are written whole, and stream events must not wait.
        let _ = stream.set_nodelay(true);
        if !url.tls {
            return Ok(Stream::Plain(stream));
        }
        options.client_tls()?.connect(&url.server_name, alpn, stream).await
    };
    crate::io::timeout(options.connect_timeout, open)
        .await
        .map_err(|_| Error::Timeout { what: "connecting", after: options.connect_timeout })?
}

/// One kept-alive HTTP/1.1 connection.
struct Conn {
    authority: String,
    tls: bool,
    stream: Stream,
    buf: Buffer,
}

async fn dial(url: &Url, options: &ClientOptions) -> Result<Conn, Error> {
    let stream = connect(url, options, crate::tls::ALPN_HTTP1).await?;
    Ok(Conn { authority: url.authority.clone(), tls: url.tls, stream, buf: Buffer::new() })
}

fn card_url(url: &str) -> String {
    if url.trim_end_matches('/').ends_with(".json") {
        String::from(url)
    } else {
        format!("{}/.well-known/agent-card.json", url.trim_end_matches('/'))
    }
}

/// Fetches and reads an Agent Card. `url` is the card's URL, or an agent's base URL (then
/// `/.well-known/agent-card.json` is appended).
pub async fn fetch_card(url: &str) -> Result<CardView, Error> {
    fetch_card_with(url, &ClientOptions::default()).await
}

/// [`fetch_card`] with these limits (and the card's signature checked, when the options
/// hold [`ClientOptions::card_keys`]).
pub async fn fetch_card_with(url: &str, options: &ClientOptions) -> Result<CardView, Error> {
    fetch_card_checked(url, options).await.map(|(view, _)| view)
}

/// The signature check of a fetched card document (see [`ClientOptions::card_keys`] and
/// [`a2a_wire::signing::check_card_document`]).
pub fn check_card_signature(body: &[u8], options: &ClientOptions) -> Result<Option<a2a_wire::signing::Verified>, Error> {
    let keys = options.card_keys.as_deref().map(|k| k as &dyn a2a_wire::signing::CardKeys);
    a2a_wire::signing::check_card_document(body, keys, options.require_signed_card).map_err(|e| Error::Signature(e.to_string()))
}

/// [`fetch_card_with`], also returning the signature that verified (see
/// [`check_card_signature`]).
pub async fn fetch_card_checked(url: &str, options: &ClientOptions) -> Result<(CardView, Option<a2a_wire::signing::Verified>), Error> {
    let card_url = card_url(url);
    let u = parse_url(&card_url)?;
    let fetch = async {
        let mut conn = dial(&u, options).await?;
        let limits = options.http_limits();
        let headers = vec![(String::from("accept"), String::from("application/json")), (String::from("connection"), String::from("close"))];
        http1::write_request(&mut conn.stream, "GET", &u.target, &u.host, &headers, b"").await?;
        let head = conn.buf.read_response_head(&mut conn.stream, &limits).await?;
        let framing = http1::response_framing(&head, false)?;
        let body = conn.buf.read_response_body(&mut conn.stream, framing, options.answer.max_body).await?;
        if head.status != 200 {
            return Err(Error::Card(format!(
                "{card_url} answered {} {}",
                head.status,
                String::from_utf8_lossy(&body[..body.len().min(200)])
            )));
        }
        let verified = check_card_signature(&body, options)?;
        Ok((card::read_card(&body).map_err(|e| Error::Card(e.to_string()))?, verified))
    };
    crate::io::timeout(options.deadline, fetch).await.map_err(|_| Error::Timeout { what: "fetching the card", after: options.deadline })?
}

/// Headers computed before each request (a token that expires is refreshed here); see
/// [`Client::with_header_provider`].
pub type HeaderProvider = std::sync::Arc<dyn Fn() -> HeadersFuture + Send + Sync>;

/// What a [`HeaderProvider`] returns.
pub type HeadersFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Vec<(String, String)>, Box<dyn std::error::Error + Send + Sync>>> + Send>>;

/// Options of one call ([`Client::with_call_options`]): its own time limit and headers.
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    /// The call's deadline instead of [`ClientOptions::deadline`].
    pub timeout: Option<Duration>,
    /// Headers sent with this call only, after the client's own.
    pub headers: Vec<(String, String)>,
}

impl CallOptions {
    /// Options with this deadline.
    pub fn timeout(after: Duration) -> Self {
        CallOptions { timeout: Some(after), headers: Vec::new() }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// What is added to each request of a call: the call's headers and the provider's.
#[derive(Clone)]
struct Extra {
    headers: Vec<(String, String)>,
    provider: Option<HeaderProvider>,
    grpc: bool,
}

impl Extra {
    fn is_empty(&self) -> bool {
        self.headers.is_empty() && self.provider.is_none()
    }

    /// Adds the headers to `req` (the provider asked now, so a refreshed token goes out);
    /// a header that cannot be sent is refused before anything is written.
    async fn apply(&self, req: &mut a2a_wire::http::OutgoingRequest) -> Result<(), Error> {
        let mut add = |name: String, value: String| -> Result<(), Error> {
            a2a_wire::http::check_header_field(&name, &value).map_err(|m| Error::Headers(m.into()))?;
            // gRPC metadata keys are lowercase (HTTP/2 refuses others).
            let name = if self.grpc { name.to_ascii_lowercase() } else { name };
            req.headers.push((name, value));
            Ok(())
        };
        if let Some(p) = &self.provider {
            for (k, v) in p().await.map_err(Error::Headers)? {
                add(k, v)?;
            }
        }
        for (k, v) in &self.headers {
            add(k.clone(), v.clone())?;
        }
        Ok(())
    }
}

/// The kept-alive HTTP/1.1 connections a client keeps idle at most.
const IDLE_CONNECTIONS: usize = 16;

struct Shared {
    /// Builds each call's requests (its JSON-RPC ids count up, hence the lock, held only
    /// while a request is built).
    core: std::sync::Mutex<core_client::Client>,
    iface: SelectedInterface,
    options: ClientOptions,
    provider: Option<HeaderProvider>,
    /// Idle kept-alive HTTP/1.1 connections; a call takes one (or dials) and puts it back.
    idle: std::sync::Mutex<Vec<Conn>>,
    /// The HTTP/2 connection gRPC calls share.
    grpc: std::sync::Mutex<Option<crate::grpc::GrpcConnection>>,
}

/// An A2A client bound to one interface of one agent. Cheap to clone, and usable from
/// many tasks at once: clones share the connections (unary HTTP/1.1 calls take an idle
/// kept-alive connection or dial one; gRPC calls share one HTTP/2 connection; each stream
/// has its own).
#[derive(Clone)]
pub struct Client {
    shared: std::sync::Arc<Shared>,
    call: CallOptions,
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").field("interface", &self.shared.iface).field("options", &self.shared.options).finish_non_exhaustive()
    }
}

impl Client {
    /// A client for an interface already selected (see [`a2a_wire::card::select_interface`]).
    pub fn new(iface: SelectedInterface) -> Self {
        Self::from_parts(core_client::Client::new(iface), ClientOptions::default(), None)
    }

    fn from_parts(core: core_client::Client, options: ClientOptions, provider: Option<HeaderProvider>) -> Self {
        let core = core.with_v03_file_bytes(options.v03_file_bytes);
        let shared = Shared {
            iface: core.interface().clone(),
            core: std::sync::Mutex::new(core),
            options,
            provider,
            idle: std::sync::Mutex::new(Vec::new()),
            grpc: std::sync::Mutex::new(None),
        };
        Client { shared: std::sync::Arc::new(shared), call: CallOptions::default() }
    }

    /// The settings, to build a changed client from (its connections are not carried over).
    fn parts(&self) -> (core_client::Client, ClientOptions, Option<HeaderProvider>) {
        (lock(&self.shared.core).clone(), self.shared.options.clone(), self.shared.provider.clone())
    }

    /// Fetches the agent's card from `url` (card URL or base URL) and selects the first
    /// interface whose binding and version `support` speaks. Returns the card too.
    pub async fn connect(url: &str, support: &ClientSupport) -> Result<(Client, v1::AgentCard), Error> {
        Self::connect_with(url, support, ClientOptions::default()).await
    }

    /// [`Client::connect`] with these limits (the card fetch obeys them too).
    pub async fn connect_with(url: &str, support: &ClientSupport, options: ClientOptions) -> Result<(Client, v1::AgentCard), Error> {
        let view = fetch_card_with(url, &options).await?;
        // A build without gRPC speaks only the HTTP/1.1 bindings.
        #[cfg(not(feature = "grpc"))]
        let support =
            &ClientSupport { bindings: support.bindings.iter().filter(|b| **b != Binding::Grpc).cloned().collect(), ..support.clone() };
        let iface = card::select_interface(&view.card, support).map_err(|e| Error::Card(e.to_string()))?;
        Ok((Client::new(iface).with_options(options), view.card))
    }

    /// Declares extensions (sent in `A2A-Extensions`).
    pub fn with_extensions(self, uris: &[&str]) -> Self {
        let (core, options, provider) = self.parts();
        Self::from_parts(core.with_extensions(uris), options, provider)
    }

    /// Sends this header with every request (e.g. `Authorization`). For a value that
    /// changes (a token refreshed before it expires), see [`Client::with_header_provider`].
    pub fn with_header(self, name: &str, value: &str) -> Self {
        let (core, options, provider) = self.parts();
        Self::from_parts(core.with_header(name, value), options, provider)
    }

    /// Asks `provider` for headers before each request (a stream's resumes too), and sends
    /// them after the client's own: the place to refresh a token. Its error fails the call
    /// as [`Error::Headers`] before anything is sent.
    pub fn with_header_provider<F, Fut>(self, provider: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Vec<(String, String)>, Box<dyn std::error::Error + Send + Sync>>> + Send + 'static,
    {
        let (core, options, _) = self.parts();
        let provider: HeaderProvider = std::sync::Arc::new(move || Box::pin(provider()));
        Self::from_parts(core, options, Some(provider))
    }

    /// Replaces the time and size limits.
    pub fn with_options(self, options: ClientOptions) -> Self {
        let (core, _, provider) = self.parts();
        Self::from_parts(core, options, provider)
    }

    /// Replaces the HTTP size limits (head size and fields, body size).
    pub fn with_limits(self, limits: Limits) -> Self {
        let (core, mut options, provider) = self.parts();
        options.max_head = limits.max_head;
        options.max_headers = limits.max_headers;
        options.answer.max_body = limits.max_body;
        Self::from_parts(core, options, provider)
    }

    /// This client (sharing its connections) with `options` for the calls made through the
    /// value returned: `client.with_call_options(CallOptions::timeout(d)).get_task(r)`.
    pub fn with_call_options(&self, options: CallOptions) -> Client {
        Client { shared: self.shared.clone(), call: options }
    }

    /// The limits in use.
    pub fn options(&self) -> &ClientOptions {
        &self.shared.options
    }

    /// The interface in use.
    pub fn interface(&self) -> &SelectedInterface {
        &self.shared.iface
    }

    fn extra(&self) -> Extra {
        Extra {
            headers: self.call.headers.clone(),
            provider: self.shared.provider.clone(),
            grpc: self.shared.iface.binding == Binding::Grpc,
        }
    }

    fn deadline(&self) -> Duration {
        self.call.timeout.unwrap_or(self.shared.options.deadline)
    }

    fn start(&self, operation: Operation) -> Result<Exchange, Error> {
        Ok(lock(&self.shared.core).start_with(operation, self.shared.options.answer)?)
    }

    /// Runs a unary operation.
    pub async fn call(&self, operation: Operation) -> Result<Response, Error> {
        let mut x = self.start(operation)?;
        if x.is_streaming() {
            return Err(Error::A2a(ClientError::Local(String::from("a streaming operation: use Client::stream"))));
        }
        let deadline = self.deadline();
        // A connection left in the middle of an answer when the time is up is dropped with
        // the future, never put back for another call.
        crate::io::timeout(deadline, self.drive_unary(&mut x)).await.map_err(|_| Error::Timeout { what: "the call", after: deadline })?
    }

    async fn drive_unary(&self, x: &mut Exchange) -> Result<Response, Error> {
        let extra = self.extra();
        loop {
            match x.poll(crate::io::now()) {
                Step::Send(mut req) => {
                    if !extra.is_empty() {
                        extra.apply(&mut req).await?;
                    }
                    if self.shared.iface.binding == Binding::Grpc {
                        self.grpc_unary(&req, x).await?;
                    } else {
                        self.http_unary(&req, x).await?;
                    }
                }
                Step::Done(f) => return Ok(f.into_result()?),
                // The answer is fed whole by the two functions above.
                _ => return Err(Error::A2a(ClientError::Protocol(String::from("the answer was not read whole")))),
            }
        }
    }

    async fn grpc_conn(&self) -> Result<crate::grpc::GrpcConnection, Error> {
        if let Some(g) = lock(&self.shared.grpc).as_ref().filter(|g| !g.is_closed()) {
            return Ok(g.clone());
        }
        // Dialed without the lock held; two calls racing here dial twice and the later one
        // is kept (both work).
        let g = grpc_dial(&self.shared.iface.url, &self.shared.options).await?;
        *lock(&self.shared.grpc) = Some(g.clone());
        Ok(g)
    }

    async fn grpc_unary(&self, req: &a2a_wire::http::OutgoingRequest, x: &mut Exchange) -> Result<(), Error> {
        let (status, headers, mut body) = self.grpc_conn().await?.request(req).await?;
        x.handle_head(status, &headers);
        while let Some(bytes) = body.data().await? {
            x.handle_body(&bytes);
            if x.is_over() {
                // Over a limit: stop reading.
                return Ok(());
            }
        }
        x.handle_end(body.trailers());
        Ok(())
    }

    /// An idle kept-alive connection to `u` that the server has not closed, if any.
    fn take_idle(&self, u: &Url) -> Option<Conn> {
        let mut idle = lock(&self.shared.idle);
        while let Some(i) = idle.iter().rposition(|c| c.authority == u.authority && c.tls == u.tls) {
            let mut c = idle.swap_remove(i);
            // The server closed it (or sent something unasked) while it was idle.
            if !c.buf.peer_closed(&mut c.stream) {
                return Some(c);
            }
        }
        None
    }

    fn put_idle(&self, c: Conn) {
        let mut idle = lock(&self.shared.idle);
        if idle.len() < IDLE_CONNECTIONS {
            idle.push(c);
        }
    }

    /// Sends one request on a kept-alive connection (dialing a new one once if the server
    /// closed it between requests) and feeds the whole answer to `x`.
    async fn http_unary(&self, req: &a2a_wire::http::OutgoingRequest, x: &mut Exchange) -> Result<(), Error> {
        let u = parse_url(&req.url)?;
        let limits = self.shared.options.http_limits();
        for attempt in 0..2 {
            let (mut conn, reused) = match self.take_idle(&u) {
                Some(c) => (c, true),
                None => (dial(&u, &self.shared.options).await?, false),
            };
            let sent = http1::write_request(&mut conn.stream, req.method, &u.target, &u.host, &req.headers, &req.body).await;
            if let Err(e) = sent {
                // Not written: it is safe to send again on a new connection, once.
                if reused && attempt == 0 {
                    continue;
                }
                return Err(e.into());
            }
            // Written, and a failure from here on is not sent again (the server may have
            // acted on it: a SendMessage would run twice); the connection is dropped.
            let head = conn.buf.read_response_head(&mut conn.stream, &limits).await?;
            let framing = http1::response_framing(&head, req.method == "HEAD")?;
            let body = conn.buf.read_response_body(&mut conn.stream, framing, self.shared.options.answer.max_body).await?;
            if framing != Framing::UntilClose && head.keep_alive() {
                self.put_idle(conn);
            }
            x.handle_head(head.status, &head.headers);
            x.handle_body(&body);
            x.handle_end(&[]);
            return Ok(());
        }
        Err(Error::Transport(String::from("the server closed the connection twice")))
    }

    /// Starts a streaming operation (SendStreamingMessage, SubscribeToTask) on its own
    /// connection; returns once the stream's head has arrived (an error answered instead of
    /// a stream is returned as the error).
    pub async fn stream(&self, operation: Operation) -> Result<EventStream, Error> {
        let x = self.start(operation)?;
        if !x.is_streaming() {
            return Err(Error::A2a(ClientError::Local(String::from("not a streaming operation: use Client::call"))));
        }
        let mut es = EventStream {
            x,
            source: None,
            options: self.shared.options.clone(),
            grpc: None,
            failed: false,
            core: lock(&self.shared.core).clone(),
            extra: self.extra(),
            failures: 0,
            resumed: 0,
        };
        if self.shared.iface.binding == Binding::Grpc {
            es.grpc = Some(self.grpc_conn().await?);
        }
        let deadline = self.deadline();
        crate::io::timeout(deadline, es.start()).await.map_err(|_| Error::Timeout { what: "starting the stream", after: deadline })??;
        Ok(es)
    }

    /// `SendMessage`: a Task to follow or a direct Message.
    pub async fn send_message(&self, request: v1::SendMessageRequest) -> Result<Reply, Error> {
        match self.call(Operation::Task(Request::SendMessage(request))).await? {
            Response::SendMessage(r) => {
                Reply::from_response(r).ok_or_else(|| protocol("SendMessage answered neither a task nor a message"))
            }
            other => Err(unexpected(&other)),
        }
    }

    /// `SendStreamingMessage`.
    pub async fn send_streaming_message(&self, request: v1::SendMessageRequest) -> Result<EventStream, Error> {
        self.stream(Operation::Task(Request::SendStreamingMessage(request))).await
    }

    /// `GetTask`.
    pub async fn get_task(&self, request: v1::GetTaskRequest) -> Result<v1::Task, Error> {
        match self.call(Operation::Task(Request::GetTask(request))).await? {
            Response::Task(t) => Ok(t),
            other => Err(unexpected(&other)),
        }
    }

    /// `ListTasks` (v1.0 interfaces only).
    pub async fn list_tasks(&self, request: v1::ListTasksRequest) -> Result<v1::ListTasksResponse, Error> {
        match self.call(Operation::Task(Request::ListTasks(request))).await? {
            Response::ListTasks(t) => Ok(t),
            other => Err(unexpected(&other)),
        }
    }

    /// `CancelTask`.
    pub async fn cancel_task(&self, request: v1::CancelTaskRequest) -> Result<v1::Task, Error> {
        match self.call(Operation::Task(Request::CancelTask(request))).await? {
            Response::Task(t) => Ok(t),
            other => Err(unexpected(&other)),
        }
    }

    /// `SubscribeToTask`.
    pub async fn subscribe_to_task(&self, request: v1::SubscribeToTaskRequest) -> Result<EventStream, Error> {
        self.stream(Operation::Task(Request::SubscribeToTask(request))).await
    }

    /// `CreateTaskPushNotificationConfig`.
    pub async fn create_push_config(&self, config: v1::TaskPushNotificationConfig) -> Result<v1::TaskPushNotificationConfig, Error> {
        match self.call(Operation::Task(Request::CreatePushConfig(config))).await? {
            Response::PushConfig(c) => Ok(c),
            other => Err(unexpected(&other)),
        }
    }

    /// `GetTaskPushNotificationConfig`.
    pub async fn get_push_config(
        &self,
        request: v1::GetTaskPushNotificationConfigRequest,
    ) -> Result<v1::TaskPushNotificationConfig, Error> {
        match self.call(Operation::Task(Request::GetPushConfig(request))).await? {
            Response::PushConfig(c) => Ok(c),
            other => Err(unexpected(&other)),
        }
    }

    /// `ListTaskPushNotificationConfigs`.
    pub async fn list_push_configs(
        &self,
        request: v1::ListTaskPushNotificationConfigsRequest,
    ) -> Result<v1::ListTaskPushNotificationConfigsResponse, Error> {
        match self.call(Operation::Task(Request::ListPushConfigs(request))).await? {
            Response::PushConfigs(c) => Ok(c),
            other => Err(unexpected(&other)),
        }
    }

    /// `DeleteTaskPushNotificationConfig`.
    pub async fn delete_push_config(&self, request: v1::DeleteTaskPushNotificationConfigRequest) -> Result<(), Error> {
        match self.call(Operation::Task(Request::DeletePushConfig(request))).await? {
            Response::Deleted => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// `GetExtendedAgentCard` (send credentials with [`Client::with_header`]). Never cached:
    /// each call asks with this client's own credentials, so one identity's card is never
    /// shown to another.
    pub async fn get_extended_agent_card(&self) -> Result<v1::AgentCard, Error> {
        match self.call(Operation::GetExtendedAgentCard(v1::GetExtendedAgentCardRequest::default())).await? {
            Response::AgentCard(c) => Ok(c),
            other => Err(unexpected(&other)),
        }
    }

    /// The prepared form of `operation`, without sending it (for logging or custom IO).
    pub fn prepare(&self, operation: Operation) -> Result<PreparedCall, Error> {
        Ok(lock(&self.shared.core).prepare(operation)?)
    }
}

fn protocol(m: &str) -> Error {
    Error::A2a(ClientError::Protocol(String::from(m)))
}

fn unexpected(r: &Response) -> Error {
    Error::A2a(ClientError::Protocol(format!("unexpected answer {r:?}")))
}

enum Source {
    /// `pending`: chunked bytes the decoder could not use yet (a size line split across
    /// reads); fresh socket bytes are appended to them, never read in their place.
    Http {
        conn: Conn,
        framing: Framing,
        chunked: ChunkedDecoder,
        remaining: usize,
        out: Vec<u8>,
        pending: Vec<u8>,
    },
    Grpc(crate::grpc::GrpcBody),
}

/// A gRPC connection to `url`, within the connect timeout.
async fn grpc_dial(url: &str, options: &ClientOptions) -> Result<crate::grpc::GrpcConnection, Error> {
    let u = parse_url(url)?;
    let t = options.connect_timeout;
    crate::io::timeout(t, crate::grpc::GrpcConnection::connect(&u, options))
        .await
        .map_err(|_| Error::Timeout { what: "connecting", after: t })?
}

/// True for the failures after which a stream is worth resuming: the connection dropped or
/// went quiet, or the server cut the stream off as `Unavailable` (a slow subscriber, a
/// restart).
fn breaks_off(e: &Error) -> bool {
    match e {
        Error::Transport(_) | Error::Io(_) | Error::Timeout { .. } => true,
        Error::A2a(e) => core_client::is_resumable_error(e),
        _ => false,
    }
}

/// The events of one stream, in order. Use [`EventStream::next`] in a loop, or
/// [`EventStream::into_stream`] for a `futures` stream.
///
/// A stream that breaks off mid-task is resumed on its own ([`ClientOptions::stream_resumes`]):
/// a `SubscribeToTask` with the id of the last event taken (`Last-Event-ID`), after a short
/// pause that doubles each time. Against a server that keeps its events (a2a-wire does), the
/// events go on exactly where they stopped: none is lost or seen twice, and
/// [`EventStream::task`] follows on. A server that does not starts the new stream with the
/// current Task.
pub struct EventStream {
    x: Exchange,
    source: Option<Source>,
    options: ClientOptions,
    grpc: Option<crate::grpc::GrpcConnection>,
    failed: bool,
    /// Builds the resuming requests.
    core: core_client::Client,
    /// Headers added to each request (the resumes' too).
    extra: Extra,
    /// Resume attempts since the last event.
    failures: u32,
    /// Streams resumed so far.
    resumed: u32,
}

impl fmt::Debug for EventStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStream").field("over", &self.x.is_over()).finish_non_exhaustive()
    }
}

impl EventStream {
    /// Sends the request (and a retry, when the binding's rules call for one) until the
    /// answer's head says it is a stream, or the answer is an error.
    async fn start(&mut self) -> Result<(), Error> {
        loop {
            if self.x.stream_started() {
                return Ok(());
            }
            match self.x.poll(crate::io::now()) {
                Step::Send(req) => self.open(&req).await?,
                Step::Read => self.read_more().await?,
                Step::Done(Finished::Failed(e)) => return Err(e.into()),
                Step::Done(_) => return Err(protocol("the stream ended before it started")),
                // No event comes before the head.
                _ => {}
            }
        }
    }

    /// Sends `req` on a connection of its own and feeds the answer's head.
    async fn open(&mut self, req: &a2a_wire::http::OutgoingRequest) -> Result<(), Error> {
        let mut with_extra;
        let req = if self.extra.is_empty() {
            req
        } else {
            with_extra = req.clone();
            self.extra.apply(&mut with_extra).await?;
            &with_extra
        };
        if let Some(grpc) = self.grpc.as_mut() {
            let (status, headers, body) = grpc.request(req).await?;
            self.x.handle_head(status, &headers);
            self.source = Some(Source::Grpc(body));
            return Ok(());
        }
        let u = parse_url(&req.url)?;
        let mut conn = dial(&u, &self.options).await?;
        http1::write_request(&mut conn.stream, req.method, &u.target, &u.host, &req.headers, &req.body).await?;
        let head = conn.buf.read_response_head(&mut conn.stream, &self.options.http_limits()).await?;
        let framing = http1::response_framing(&head, false)?;
        self.x.handle_head(head.status, &head.headers);
        let remaining = if let Framing::Length(n) = framing { n } else { 0 };
        if framing == Framing::Length(0) {
            // Nothing follows the head (an empty answer): its end is here.
            self.x.handle_end(&[]);
        }
        self.source =
            Some(Source::Http { conn, framing, chunked: ChunkedDecoder::default(), remaining, out: Vec::new(), pending: Vec::new() });
        Ok(())
    }

    /// Reads more of the answer into the exchange (bytes, or its end).
    async fn read_more(&mut self) -> Result<(), Error> {
        let Some(source) = self.source.as_mut() else { return Err(protocol("nothing to read")) };
        match source {
            Source::Grpc(body) => match body.data().await? {
                Some(bytes) => self.x.handle_body(&bytes),
                None => self.x.handle_end(body.trailers()),
            },
            Source::Http { conn, framing, chunked, remaining, out, pending } => {
                let bytes = conn.buf.read_some(&mut conn.stream).await?;
                let eof = bytes.is_empty();
                match framing {
                    Framing::Chunked => {
                        pending.extend_from_slice(&bytes);
                        out.clear();
                        let done = chunked.decode(pending, out)?;
                        self.x.handle_body(out);
                        if done {
                            self.x.handle_end(&[]);
                        } else if eof {
                            return Err(Error::Transport(String::from("connection closed inside the stream")));
                        }
                    }
                    Framing::Length(_) => {
                        let take = bytes.len().min(*remaining);
                        self.x.handle_body(&bytes[..take]);
                        *remaining -= take;
                        if *remaining == 0 {
                            self.x.handle_end(&[]);
                        } else if eof {
                            return Err(Error::Transport(String::from("connection closed before the body's Content-Length")));
                        }
                    }
                    Framing::UntilClose => {
                        if eof {
                            self.x.handle_end(&[]);
                        } else {
                            self.x.handle_body(&bytes);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The next event; `None` at the end of the stream. An error ends the stream (after the
    /// resumes [`ClientOptions::stream_resumes`] allows, for a stream that broke off).
    pub async fn next(&mut self) -> Option<Result<v1::StreamResponse, Error>> {
        loop {
            match self.next_once().await {
                Some(Err(e)) if breaks_off(&e) => {
                    if let Err(e) = self.resume_after(e).await {
                        return Some(Err(e));
                    }
                }
                Some(Ok(ev)) => {
                    self.failures = 0;
                    return Some(Ok(ev));
                }
                other => return other,
            }
        }
    }

    /// Resumes the stream after it broke off with `error`, trying again while the attempts
    /// also break off and [`ClientOptions::stream_resumes`] allows. When no attempt gets
    /// through, `error` stands (why the stream broke, not that the server is still away);
    /// an attempt answered with another error (the task is gone) ends it with that one.
    async fn resume_after(&mut self, mut error: Error) -> Result<(), Error> {
        while self.failures < self.options.stream_resumes {
            self.failures += 1;
            match self.resume().await {
                Ok(true) => {
                    self.failed = false;
                    self.resumed += 1;
                    return Ok(());
                }
                // Nothing to resume (no task seen yet, or it is settled): the error stands.
                Ok(false) => break,
                // The server is not back yet: the next attempt waits longer.
                Err(e) if breaks_off(&e) => {}
                Err(e) => {
                    error = e;
                    break;
                }
            }
        }
        self.failed = true;
        Err(error)
    }

    /// Replaces the broken exchange with a `SubscribeToTask` that continues it, after a
    /// pause (50 ms doubling per attempt, at most 2 s), and starts it. `Ok(false)`: nothing
    /// to resume.
    async fn resume(&mut self) -> Result<bool, Error> {
        let Some(x) = self.core.resume(&self.x)? else { return Ok(false) };
        smol::Timer::after(Duration::from_millis(core_client::resume_pause_ms(self.failures))).await;
        self.x = x;
        self.source = None;
        if self.core.interface().binding == Binding::Grpc && self.grpc.as_ref().is_none_or(|g| g.is_closed()) {
            self.grpc = Some(grpc_dial(&self.core.interface().url, &self.options).await?);
        }
        let deadline = self.options.deadline;
        crate::io::timeout(deadline, self.start()).await.map_err(|_| Error::Timeout { what: "resuming the stream", after: deadline })??;
        Ok(true)
    }

    /// How many times the stream was resumed after breaking off.
    pub fn resumed(&self) -> u32 {
        self.resumed
    }

    /// The id of the last event taken, when the server gives ids.
    pub fn last_event_id(&self) -> Option<&str> {
        self.x.last_event_id()
    }

    async fn next_once(&mut self) -> Option<Result<v1::StreamResponse, Error>> {
        if self.failed {
            return None;
        }
        let idle = self.options.stream_idle_timeout;
        loop {
            let step = self.x.poll(crate::io::now());
            let r = match step {
                Step::Event(ev) => return Some(Ok(ev)),
                Step::Done(Finished::StreamEnded) => return None,
                Step::Done(Finished::Failed(e)) => Err(e.into()),
                Step::Done(Finished::Answer(_)) => Err(protocol("an answer where a stream was expected")),
                Step::Read => match crate::io::timeout(idle, self.read_more()).await {
                    Ok(r) => r,
                    Err(_) => Err(Error::Timeout { what: "waiting for the next stream event", after: idle }),
                },
                Step::Send(req) => self.open(&req).await,
                _ => Ok(()),
            };
            if let Err(e) = r {
                self.failed = true;
                return Some(Err(e));
            }
        }
    }

    /// The task as the events have shown it so far (assembled by the core's tracker).
    pub fn task(&self) -> &core_client::TaskTracker {
        self.x.task()
    }

    /// The direct reply, when the stream's first event was a Message.
    pub fn direct_reply(&self) -> Option<&v1::Message> {
        self.x.direct_reply()
    }

    /// The events as a `futures` stream (ends after the first error).
    pub fn into_stream(self) -> impl smol::stream::Stream<Item = Result<v1::StreamResponse, Error>> {
        smol::stream::unfold(self, |mut s| async move { s.next().await.map(|item| (item, s)) })
    }

    /// Closes the stream (the task goes on at the server).
    pub async fn close(self) {
        if let Some(Source::Http { mut conn, .. }) = self.source {
            use smol::io::AsyncWriteExt;
            let _ = conn.stream.close().await;
        }
    }
}

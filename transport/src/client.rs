//! The A2A client on smol: fetches Agent Cards, picks an interface (the core decides), and
//! runs the eleven operations over HTTP/1.1 (JSON-RPC and HTTP+JSON; streams over SSE) or
//! gRPC (HTTP/2). Unary calls reuse one kept-alive connection; each stream has its own.

use crate::http1::{self, Buffer, ChunkedDecoder, Limits, ReadError};
use a2a_wire::binding::Operation;
use a2a_wire::card::{self, Binding, CardView, ClientSupport, SelectedInterface};
use a2a_wire::client::{self as core_client, ClientError, PreparedCall, Reply, StreamDecoder};
use a2a_wire::engine::{Request, Response};
use a2a_wire::http::{HttpResponse, OutgoingRequest};
use a2a_wire::v1;
use smol::io::AsyncWriteExt;
use smol::net::TcpStream;
use std::fmt;

/// Why a client call failed.
#[derive(Debug)]
pub enum Error {
    /// The peer answered, with an A2A error or a protocol violation (see
    /// [`ClientError`]): the A2A meaning of the failure.
    A2a(ClientError),
    /// The connection failed, timed out or carried malformed HTTP.
    Transport(String),
    /// The URL cannot be used (not `http://host[:port]/path`).
    Url(String),
    /// The Agent Card is invalid or offers nothing this client speaks.
    Card(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::A2a(e) => write!(f, "{e}"),
            Error::Transport(m) => write!(f, "transport error: {m}"),
            Error::Url(m) => write!(f, "invalid URL: {m}"),
            Error::Card(m) => write!(f, "agent card: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ClientError> for Error {
    fn from(e: ClientError) -> Self {
        Error::A2a(e)
    }
}

impl From<ReadError> for Error {
    fn from(e: ReadError) -> Self {
        Error::Transport(match e {
            ReadError::Closed => String::from("connection closed by the peer"),
            ReadError::Io(e) => e.to_string(),
            ReadError::Malformed(m) => String::from(m),
            ReadError::HeadTooLarge => String::from("response head over the limit"),
            ReadError::BodyTooLarge => String::from("response body over the limit"),
            ReadError::Timeout => String::from("timed out"),
        })
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Transport(e.to_string())
    }
}

/// A parsed `http://` URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Url {
    /// `host:port` to dial.
    pub authority: String,
    /// `Host` header value.
    pub host: String,
    /// Path and query, at least `/`.
    pub target: String,
}

/// Parses `http://host[:port][/path]`, or a bare `host:port[/path]` (how gRPC interfaces are
/// often published).
pub(crate) fn parse_url(url: &str) -> Result<Url, Error> {
    let rest = if let Some(r) = url.strip_prefix("http://") {
        r
    } else if url.starts_with("https://") {
        return Err(Error::Url(format!("{url}: TLS is not built into a2a-wire-smol; put a TLS-terminating proxy in front")));
    } else if url.contains("://") {
        return Err(Error::Url(format!("{url}: only http:// is supported")));
    } else {
        url
    };
    let (auth, path) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if auth.is_empty() || auth.contains('@') {
        return Err(Error::Url(format!("{url}: no host, or credentials in the URL")));
    }
    let has_port = if auth.starts_with('[') { auth.contains("]:") } else { auth.contains(':') };
    let authority = if has_port { String::from(auth) } else { format!("{auth}:80") };
    let target = if path.starts_with('?') { format!("/{path}") } else { String::from(path) };
    Ok(Url { authority, host: String::from(auth), target })
}

/// One kept-alive HTTP/1.1 connection.
struct Conn {
    authority: String,
    stream: TcpStream,
    buf: Buffer,
}

async fn dial(url: &Url, limits: &Limits) -> Result<Conn, Error> {
    let stream = http1::timeout(limits.head_timeout, TcpStream::connect(url.authority.as_str())).await??;
    // Nagle off: requests are written whole, and stream events must not wait.
    let _ = stream.set_nodelay(true);
    Ok(Conn { authority: url.authority.clone(), stream, buf: Buffer::new() })
}

fn response_headers(head: &http1::ResponseHead) -> HttpResponse {
    HttpResponse { status: head.status, headers: head.headers.clone(), ..HttpResponse::default() }
}

/// Fetches and reads an Agent Card. `url` is the card's URL, or an agent's base URL (then
/// `/.well-known/agent-card.json` is appended).
pub async fn fetch_card(url: &str) -> Result<CardView, Error> {
    let card_url = if url.trim_end_matches('/').ends_with(".json") {
        String::from(url)
    } else {
        format!("{}/.well-known/agent-card.json", url.trim_end_matches('/'))
    };
    let u = parse_url(&card_url)?;
    let limits = Limits::default();
    let mut conn = dial(&u, &limits).await?;
    let headers = vec![(String::from("accept"), String::from("application/json")), (String::from("connection"), String::from("close"))];
    http1::write_request(&mut conn.stream, "GET", &u.target, &u.host, &headers, b"").await?;
    let head = conn.buf.read_response_head(&mut conn.stream, &limits).await?;
    let body = conn.buf.read_body(&mut conn.stream, &head.headers, &limits, true).await?;
    if head.status != 200 {
        return Err(Error::Card(format!("{card_url} answered {} {}", head.status, String::from_utf8_lossy(&body[..body.len().min(200)]))));
    }
    card::read_card(&body).map_err(|e| Error::Card(e.to_string()))
}

/// An A2A client bound to one interface of one agent.
pub struct Client {
    core: core_client::Client,
    limits: Limits,
    conn: Option<Conn>,
    grpc: Option<crate::grpc::GrpcConnection>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").field("interface", self.core.interface()).finish_non_exhaustive()
    }
}

impl Client {
    /// A client for an interface already selected (see [`a2a_wire::card::select_interface`]).
    pub fn new(iface: SelectedInterface) -> Self {
        Client { core: core_client::Client::new(iface), limits: Limits::default(), conn: None, grpc: None }
    }

    /// Fetches the agent's card from `url` (card URL or base URL) and selects the first
    /// interface whose binding and version `support` speaks. Returns the card too.
    pub async fn connect(url: &str, support: &ClientSupport) -> Result<(Client, v1::AgentCard), Error> {
        let view = fetch_card(url).await?;
        let iface = card::select_interface(&view.card, support).map_err(|e| Error::Card(e.to_string()))?;
        Ok((Client::new(iface), view.card))
    }

    /// Declares extensions (sent in `A2A-Extensions`).
    pub fn with_extensions(mut self, uris: &[&str]) -> Self {
        self.core = self.core.with_extensions(uris);
        self
    }

    /// Sends this header with every request (e.g. `Authorization`).
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.core = self.core.with_header(name, value);
        self
    }

    /// Replaces the HTTP limits (response sizes, timeouts).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The interface in use.
    pub fn interface(&self) -> &SelectedInterface {
        self.core.interface()
    }

    /// Runs a unary operation.
    pub async fn call(&mut self, operation: Operation) -> Result<Response, Error> {
        let mut prepared = self.core.prepare(operation)?;
        if prepared.is_streaming() {
            return Err(Error::A2a(ClientError::Local(String::from("a streaming operation: use Client::stream"))));
        }
        if self.core.interface().binding == Binding::Grpc {
            let limits = self.limits;
            let answer = self.grpc_conn().await?.unary(&prepared.request, &limits).await?;
            return Ok(self.core.parse(&prepared, &answer)?);
        }
        let mut answer = self.exchange(&prepared.request).await?;
        if let Some(again) = self.core.retry(&mut prepared, &answer) {
            answer = self.exchange(&again).await?;
        }
        Ok(self.core.parse(&prepared, &answer)?)
    }

    async fn grpc_conn(&mut self) -> Result<&mut crate::grpc::GrpcConnection, Error> {
        if self.grpc.as_ref().is_none_or(|g| g.is_closed()) {
            let u = parse_url(&self.core.interface().url)?;
            self.grpc = Some(crate::grpc::GrpcConnection::connect(&u, &self.limits).await?);
        }
        // Just set above when it was None.
        self.grpc.as_mut().ok_or_else(|| Error::Transport(String::from("no gRPC connection")))
    }

    /// Sends one request on the kept-alive connection (re-dialing once if the server closed
    /// it between requests) and reads the whole answer.
    async fn exchange(&mut self, req: &OutgoingRequest) -> Result<HttpResponse, Error> {
        let u = parse_url(&req.url)?;
        for attempt in 0..2 {
            let reuse = matches!(&self.conn, Some(c) if c.authority == u.authority);
            if !reuse {
                self.conn = Some(dial(&u, &self.limits).await?);
            }
            let Some(conn) = self.conn.as_mut() else { continue };
            let sent = http1::write_request(&mut conn.stream, req.method, &u.target, &u.host, &req.headers, &req.body).await;
            let head = match sent {
                Ok(()) => conn.buf.read_response_head(&mut conn.stream, &self.limits).await,
                Err(e) => Err(ReadError::Io(e)),
            };
            let head = match head {
                Ok(h) => h,
                // A kept-alive connection the server closed: dial again, once.
                Err(ReadError::Closed | ReadError::Io(_)) if reuse && attempt == 0 => {
                    self.conn = None;
                    continue;
                }
                Err(e) => {
                    self.conn = None;
                    return Err(e.into());
                }
            };
            let body = conn.buf.read_body(&mut conn.stream, &head.headers, &self.limits, true).await;
            let close = head.headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("connection") && v.eq_ignore_ascii_case("close"));
            let mut answer = response_headers(&head);
            match body {
                Ok(b) => answer.body = b,
                Err(e) => {
                    self.conn = None;
                    return Err(e.into());
                }
            }
            if close {
                self.conn = None;
            }
            return Ok(answer);
        }
        Err(Error::Transport(String::from("the server closed the connection twice")))
    }

    /// Starts a streaming operation (SendStreamingMessage, SubscribeToTask) on its own
    /// connection.
    pub async fn stream(&mut self, operation: Operation) -> Result<EventStream, Error> {
        let mut prepared = self.core.prepare(operation)?;
        if !prepared.is_streaming() {
            return Err(Error::A2a(ClientError::Local(String::from("not a streaming operation: use Client::call"))));
        }
        if self.core.interface().binding == Binding::Grpc {
            let limits = self.limits;
            let (head, body) = self.grpc_conn().await?.start_stream(&prepared.request, &limits).await?;
            let decoder = self.core.stream_decoder(&prepared, &head)?;
            return Ok(EventStream { source: Source::Grpc(body), decoder, body_done: false, finished: false });
        }
        let mut req = prepared.request.clone();
        let mut retried = false;
        loop {
            let u = parse_url(&req.url)?;
            let mut conn = dial(&u, &self.limits).await?;
            http1::write_request(&mut conn.stream, req.method, &u.target, &u.host, &req.headers, &req.body).await?;
            let head = conn.buf.read_response_head(&mut conn.stream, &self.limits).await?;
            let mut answer = response_headers(&head);
            let is_sse = head
                .headers
                .iter()
                .any(|(k, v)| k.eq_ignore_ascii_case("content-type") && a2a_wire::http::media_type(v) == "text/event-stream");
            if head.status != 200 || !is_sse {
                answer.body = conn.buf.read_body(&mut conn.stream, &head.headers, &self.limits, true).await?;
                if !retried {
                    if let Some(again) = self.core.retry(&mut prepared, &answer) {
                        req = again;
                        retried = true;
                        continue;
                    }
                }
            }
            let decoder = self.core.stream_decoder(&prepared, &answer)?;
            let chunked =
                head.headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.to_ascii_lowercase().contains("chunked"));
            return Ok(EventStream {
                source: Source::Http { conn, chunked: chunked.then(ChunkedDecoder::default), pending: Vec::new() },
                decoder,
                body_done: false,
                finished: false,
            });
        }
    }

    /// `SendMessage`: a Task to follow or a direct Message.
    pub async fn send_message(&mut self, request: v1::SendMessageRequest) -> Result<Reply, Error> {
        match self.call(Operation::Task(Request::SendMessage(request))).await? {
            Response::SendMessage(r) => {
                Reply::from_response(r).ok_or_else(|| protocol("SendMessage answered neither a task nor a message"))
            }
            other => Err(unexpected(&other)),
        }
    }

    /// `SendStreamingMessage`.
    pub async fn send_streaming_message(&mut self, request: v1::SendMessageRequest) -> Result<EventStream, Error> {
        self.stream(Operation::Task(Request::SendStreamingMessage(request))).await
    }

    /// `GetTask`.
    pub async fn get_task(&mut self, request: v1::GetTaskRequest) -> Result<v1::Task, Error> {
        match self.call(Operation::Task(Request::GetTask(request))).await? {
            Response::Task(t) => Ok(t),
            other => Err(unexpected(&other)),
        }
    }

    /// `ListTasks` (v1.0 interfaces only).
    pub async fn list_tasks(&mut self, request: v1::ListTasksRequest) -> Result<v1::ListTasksResponse, Error> {
        match self.call(Operation::Task(Request::ListTasks(request))).await? {
            Response::ListTasks(t) => Ok(t),
            other => Err(unexpected(&other)),
        }
    }

    /// `CancelTask`.
    pub async fn cancel_task(&mut self, request: v1::CancelTaskRequest) -> Result<v1::Task, Error> {
        match self.call(Operation::Task(Request::CancelTask(request))).await? {
            Response::Task(t) => Ok(t),
            other => Err(unexpected(&other)),
        }
    }

    /// `SubscribeToTask`.
    pub async fn subscribe_to_task(&mut self, request: v1::SubscribeToTaskRequest) -> Result<EventStream, Error> {
        self.stream(Operation::Task(Request::SubscribeToTask(request))).await
    }

    /// `CreateTaskPushNotificationConfig`.
    pub async fn create_push_config(&mut self, config: v1::TaskPushNotificationConfig) -> Result<v1::TaskPushNotificationConfig, Error> {
        match self.call(Operation::Task(Request::CreatePushConfig(config))).await? {
            Response::PushConfig(c) => Ok(c),
            other => Err(unexpected(&other)),
        }
    }

    /// `GetTaskPushNotificationConfig`.
    pub async fn get_push_config(
        &mut self,
        request: v1::GetTaskPushNotificationConfigRequest,
    ) -> Result<v1::TaskPushNotificationConfig, Error> {
        match self.call(Operation::Task(Request::GetPushConfig(request))).await? {
            Response::PushConfig(c) => Ok(c),
            other => Err(unexpected(&other)),
        }
    }

    /// `ListTaskPushNotificationConfigs`.
    pub async fn list_push_configs(
        &mut self,
        request: v1::ListTaskPushNotificationConfigsRequest,
    ) -> Result<v1::ListTaskPushNotificationConfigsResponse, Error> {
        match self.call(Operation::Task(Request::ListPushConfigs(request))).await? {
            Response::PushConfigs(c) => Ok(c),
            other => Err(unexpected(&other)),
        }
    }

    /// `DeleteTaskPushNotificationConfig`.
    pub async fn delete_push_config(&mut self, request: v1::DeleteTaskPushNotificationConfigRequest) -> Result<(), Error> {
        match self.call(Operation::Task(Request::DeletePushConfig(request))).await? {
            Response::Deleted => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// `GetExtendedAgentCard` (send credentials with [`Client::with_header`]).
    pub async fn get_extended_agent_card(&mut self) -> Result<v1::AgentCard, Error> {
        match self.call(Operation::GetExtendedAgentCard(v1::GetExtendedAgentCardRequest::default())).await? {
            Response::AgentCard(c) => Ok(c),
            other => Err(unexpected(&other)),
        }
    }

    /// The prepared form of `operation`, without sending it (for logging or custom IO).
    pub fn prepare(&mut self, operation: Operation) -> Result<PreparedCall, Error> {
        Ok(self.core.prepare(operation)?)
    }
}

fn protocol(m: &str) -> Error {
    Error::A2a(ClientError::Protocol(String::from(m)))
}

fn unexpected(r: &Response) -> Error {
    Error::A2a(ClientError::Protocol(format!("unexpected answer {r:?}")))
}

enum Source {
    Http { conn: Conn, chunked: Option<ChunkedDecoder>, pending: Vec<u8> },
    Grpc(crate::grpc::GrpcBody),
}

/// The events of one stream, in order. Use [`EventStream::next`] in a loop, or
/// [`EventStream::into_stream`] for a `futures` stream.
pub struct EventStream {
    source: Source,
    decoder: StreamDecoder,
    body_done: bool,
    finished: bool,
}

impl fmt::Debug for EventStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStream").field("finished", &self.finished).finish_non_exhaustive()
    }
}

impl EventStream {
    /// The next event; `None` at the end of the stream. An error ends the stream.
    pub async fn next(&mut self) -> Option<Result<v1::StreamResponse, Error>> {
        loop {
            if self.finished {
                return None;
            }
            match self.decoder.next_event() {
                Ok(Some(ev)) => return Some(Ok(ev)),
                Ok(None) => {}
                Err(e) => {
                    self.finished = true;
                    return Some(Err(e.into()));
                }
            }
            if self.body_done {
                // Every buffered event was taken: the end verdict (gRPC trailers) decides.
                self.finished = true;
                let trailers = match &self.source {
                    Source::Grpc(b) => b.trailers().to_vec(),
                    Source::Http { .. } => Vec::new(),
                };
                return self.decoder.finish(&trailers).err().map(|e| Err(e.into()));
            }
            match self.read_more().await {
                Ok(more) => self.body_done = !more,
                Err(e) => {
                    self.finished = true;
                    return Some(Err(e));
                }
            }
        }
    }

    /// Reads more body bytes into the decoder; false at the end of the body.
    async fn read_more(&mut self) -> Result<bool, Error> {
        match &mut self.source {
            Source::Grpc(body) => match body.data().await? {
                Some(bytes) => {
                    self.decoder.feed(&bytes);
                    Ok(true)
                }
                None => Ok(false),
            },
            Source::Http { conn, chunked, pending } => {
                let bytes = conn.buf.read_some(&mut conn.stream).await?;
                let eof = bytes.is_empty();
                match chunked {
                    Some(dec) => {
                        pending.extend_from_slice(&bytes);
                        let mut out = Vec::new();
                        let done = dec.decode(pending, &mut out)?;
                        self.decoder.feed(&out);
                        if done {
                            return Ok(false);
                        }
                        if eof {
                            return Err(Error::Transport(String::from("connection closed inside the stream")));
                        }
                        Ok(true)
                    }
                    None => {
                        self.decoder.feed(&bytes);
                        Ok(!eof)
                    }
                }
            }
        }
    }

    /// The events as a `futures` stream (ends after the first error).
    pub fn into_stream(self) -> impl smol::stream::Stream<Item = Result<v1::StreamResponse, Error>> {
        smol::stream::unfold(self, |mut s| async move { s.next().await.map(|item| (item, s)) })
    }

    /// Closes the stream (the task goes on at the server).
    pub async fn close(self) {
        if let Source::Http { mut conn, .. } = self.source {
            let _ = conn.stream.close().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_to_authority_host_and_target() {
        let u = parse_url("http://127.0.0.1:8080/a2a/v1?x=1").unwrap();
        assert_eq!((u.authority.as_str(), u.host.as_str(), u.target.as_str()), ("127.0.0.1:8080", "127.0.0.1:8080", "/a2a/v1?x=1"));
        let u = parse_url("http://example.org").unwrap();
        assert_eq!((u.authority.as_str(), u.target.as_str()), ("example.org:80", "/"));
        let u = parse_url("localhost:50051").unwrap();
        assert_eq!((u.authority.as_str(), u.target.as_str()), ("localhost:50051", "/"));
        let u = parse_url("http://[::1]:9/x").unwrap();
        assert_eq!(u.authority, "[::1]:9");
        assert!(matches!(parse_url("https://a/"), Err(Error::Url(m)) if m.contains("TLS")));
        assert!(matches!(parse_url("ftp://a/"), Err(Error::Url(_))));
        assert!(matches!(parse_url("http://user:pw@a/"), Err(Error::Url(_))));
        assert!(matches!(parse_url("http:///x"), Err(Error::Url(_))));
    }
}

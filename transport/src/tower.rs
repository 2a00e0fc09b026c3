//! The A2A server as a [`tower_service::Service`] over `http` requests, to mount in axum,
//! hyper or any server of the `http` / `http-body` / `tower` family (the feature `tower`).
//!
//! It needs no runtime of the embedding server's: it only moves each request to the host of
//! the sans-IO service (which runs, with the agent, on smol's executor threads, as in every
//! other binding) and turns the host's answer into an `http::Response` whose body streams
//! the SSE events or gRPC messages as they come. The answer is the same, byte for byte, as
//! [`crate::Server`]'s: routes, versions, errors and the card are the core's.
//!
//! ```no_run
//! # fn demo(card: a2a_wire::v1::AgentCard) -> std::io::Result<()> {
//! use a2a_wire_smol::agent::{agent_fn, agent_text, new_id};
//! use a2a_wire_smol::{host::AgentKind, tower::A2aService, ServerConfig};
//! let agent = agent_fn(|ctx, events| async move {
//!     let _ = events.message(agent_text(new_id(), &ctx.text()));
//! });
//! let (service, stop) = A2aService::start(ServerConfig::new(card), AgentKind::Future(std::sync::Arc::new(agent)), a2a_wire::engine::MemoryStore::new())?;
//! // axum: `Router::new().fallback_service(service)`; hyper: `service_fn` calling it.
//! # drop((service, stop)); Ok(()) }
//! ```
//!
//! The peer's address reaches the authentication hook ([`crate::host::AuthCall::peer`]) when
//! the request carries a [`std::net::SocketAddr`] or a [`Peer`] extension (axum puts its
//! `ConnectInfo` elsewhere: copy it into a [`Peer`] with a small layer or middleware).

use crate::host::{CallEvent, HostHandle, OwnedRequest};
use crate::io::TaskCount;
use crate::server::{service_for, spawn_host, ServerConfig};
use crate::store::Store;
use bytes::Bytes;
use http_body::{Body, Frame};
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The peer's address, as a request extension (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peer(pub SocketAddr);

/// The A2A server as a `tower` service (see the module docs). Cheap to clone: every clone
/// reaches the same host.
#[derive(Clone, Debug)]
pub struct A2aService {
    host: HostHandle,
    max_body: usize,
}

/// Stops the host behind an [`A2aService`]: streams end, runs are told, the store is
/// flushed. Dropping it does not stop anything.
#[derive(Debug)]
pub struct StopHandle {
    host: HostHandle,
    task: Option<smol::Task<()>>,
}

impl StopHandle {
    /// Begins the shutdown and waits until the host stopped (every open call answered or
    /// ended, the store flushed).
    pub async fn stop(mut self) {
        self.host.shutdown();
        if let Some(t) = self.task.take() {
            t.await;
        }
    }
}

impl Drop for StopHandle {
    fn drop(&mut self) {
        // Not stopped: the host goes on serving the service's clones.
        if let Some(t) = self.task.take() {
            t.detach();
        }
    }
}

impl A2aService {
    /// Starts the host for `config`, `agent` and `store` on smol's executor. The config's
    /// HTTP limits that apply here are the body size; TLS, connection and time limits are
    /// the embedding server's.
    pub fn start(
        config: ServerConfig,
        agent: crate::host::AgentKind,
        store: impl Into<Store>,
    ) -> std::io::Result<(A2aService, StopHandle)> {
        let service = service_for(&config, store.into())?;
        let (host, task) = spawn_host(&config, agent, service, TaskCount::default())?;
        let stop = StopHandle { host: host.clone(), task: Some(task) };
        Ok((A2aService { host, max_body: config.limits.max_body }, stop))
    }

    async fn serve<B>(self, req: http::Request<B>) -> http::Response<A2aBody>
    where
        B: Body,
        B::Data: bytes::Buf,
    {
        let (parts, body) = req.into_parts();
        let body = match collect(body, self.max_body).await {
            Ok(b) => b,
            Err(status) => return plain(status, "request body refused"),
        };
        let peer = parts.extensions.get::<Peer>().map(|p| p.0).or_else(|| parts.extensions.get::<SocketAddr>().copied());
        let headers =
            parts.headers.iter().map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect();
        let target = parts.uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
        let req = OwnedRequest { method: parts.method.as_str().to_owned(), target, headers, body, peer };
        let Some(call) = self.host.call(req).await else { return plain(http::StatusCode::SERVICE_UNAVAILABLE, "server stopped") };
        match call.events.recv().await {
            Ok(CallEvent::Answer(r)) => {
                let trailers = (!r.trailers.is_empty()).then(|| header_map(&r.trailers));
                response(r.status, &r.headers, A2aBody { state: State::Full(Some(Bytes::from(r.body)), trailers) })
            }
            Ok(CallEvent::Head(h)) => {
                let first = (!h.body.is_empty()).then(|| Bytes::from(h.body));
                // The id is set before the host sends anything on the call.
                let id = call.id();
                let call = StreamCall { events: Box::pin(call.events), id, host: self.host.clone(), ended: false };
                let state = State::Stream { call, first, trailers: None };
                response(h.status, &h.headers, A2aBody { state })
            }
            // No head before frames, and the host ended the call: nothing to answer with.
            Ok(_) | Err(_) => plain(http::StatusCode::SERVICE_UNAVAILABLE, "server stopped"),
        }
    }
}

impl<B> tower_service::Service<http::Request<B>> for A2aService
where
    B: Body + Send + 'static,
    B::Data: bytes::Buf + Send,
{
    type Response = http::Response<A2aBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.serve(req).await) })
    }
}

/// Reads a request body whole, up to `max` bytes (413 beyond, 400 when it fails).
async fn collect<B>(body: B, max: usize) -> Result<Vec<u8>, http::StatusCode>
where
    B: Body,
    B::Data: bytes::Buf,
{
    use bytes::Buf;
    let mut body = std::pin::pin!(body);
    let mut out = Vec::new();
    loop {
        match std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
            None => return Ok(out),
            Some(Err(_)) => return Err(http::StatusCode::BAD_REQUEST),
            Some(Ok(frame)) => {
                if let Ok(mut data) = frame.into_data() {
                    if out.len() + data.remaining() > max {
                        return Err(http::StatusCode::PAYLOAD_TOO_LARGE);
                    }
                    while data.has_remaining() {
                        let chunk = data.chunk();
                        out.extend_from_slice(chunk);
                        let n = chunk.len();
                        data.advance(n);
                    }
                }
            }
        }
    }
}

fn header_map(fields: &[(String, String)]) -> http::HeaderMap {
    let mut map = http::HeaderMap::new();
    for (k, v) in fields {
        // The core writes valid names and values; anything else is left out, never a panic.
        if let (Ok(k), Ok(v)) = (http::HeaderName::from_bytes(k.as_bytes()), http::HeaderValue::from_str(v)) {
            map.append(k, v);
        }
    }
    map
}

fn response(status: u16, headers: &[(String, String)], body: A2aBody) -> http::Response<A2aBody> {
    let mut r = http::Response::new(body);
    *r.status_mut() = http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
    *r.headers_mut() = header_map(headers);
    r
}

fn plain(status: http::StatusCode, text: &'static str) -> http::Response<A2aBody> {
    let mut r = http::Response::new(A2aBody { state: State::Full(Some(Bytes::from_static(text.as_bytes())), None) });
    *r.status_mut() = status;
    r.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("text/plain; charset=utf-8"));
    r
}

/// The body of an [`A2aService`] answer: whole, or a stream's frames as they come (SSE
/// events, gRPC messages and their trailers). Dropping it before its end tells the server
/// the client went away (the task goes on).
pub struct A2aBody {
    state: State,
}

impl std::fmt::Debug for A2aBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.state {
            State::Full(..) => "A2aBody::Full",
            State::Stream { .. } => "A2aBody::Stream",
        })
    }
}

enum State {
    Full(Option<Bytes>, Option<http::HeaderMap>),
    Stream { call: StreamCall, first: Option<Bytes>, trailers: Option<http::HeaderMap> },
}

struct StreamCall {
    events: Pin<Box<async_channel::Receiver<CallEvent>>>,
    id: Option<a2a_wire::engine::CallId>,
    host: HostHandle,
    ended: bool,
}

impl Drop for StreamCall {
    fn drop(&mut self) {
        if !self.ended {
            if let Some(id) = self.id {
                self.host.gone(id);
            }
        }
    }
}

impl Body for A2aBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.state {
            State::Full(data, trailers) => {
                if let Some(d) = data.take().filter(|d| !d.is_empty()) {
                    return Poll::Ready(Some(Ok(Frame::data(d))));
                }
                Poll::Ready(trailers.take().map(|t| Ok(Frame::trailers(t))))
            }
            State::Stream { call, first, trailers } => {
                if let Some(d) = first.take() {
                    return Poll::Ready(Some(Ok(Frame::data(d))));
                }
                if call.ended {
                    return Poll::Ready(trailers.take().map(|t| Ok(Frame::trailers(t))));
                }
                let recv = {
                    use smol::stream::StreamExt;
                    call.events.poll_next(cx)
                };
                match recv {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(Some(CallEvent::Frame(bytes))) => Poll::Ready(Some(Ok(Frame::data(Bytes::from(bytes))))),
                    Poll::Ready(Some(CallEvent::End(bytes, t))) => {
                        call.ended = true;
                        if !t.is_empty() {
                            *trailers = Some(header_map(&t));
                        }
                        if bytes.is_empty() {
                            Poll::Ready(trailers.take().map(|t| Ok(Frame::trailers(t))))
                        } else {
                            Poll::Ready(Some(Ok(Frame::data(Bytes::from(bytes)))))
                        }
                    }
                    // The host stopped, or sent what a stream does not carry: the stream ends.
                    Poll::Ready(_) => {
                        call.ended = true;
                        Poll::Ready(None)
                    }
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.state {
            State::Full(data, trailers) => data.as_ref().is_none_or(Bytes::is_empty) && trailers.is_none(),
            State::Stream { call, first, trailers } => call.ended && first.is_none() && trailers.is_none(),
        }
    }
}

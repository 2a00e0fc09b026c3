//! gRPC over HTTP/2 (cleartext with prior knowledge, or TLS with ALPN `h2`) with `h2`, driven on smol through
//! tokio-util's `compat` adapters. Framing, status trailers and error details are the core's
//! (`a2a_wire::binding::grpc`); this module only moves HTTP/2 messages.

use crate::error::Error;
use crate::http1::{self, Limits};
use crate::url::Url;
use a2a_wire::http::{HttpResponse, OutgoingRequest};
use bytes::Bytes;
use tokio_util::compat::{Compat, FuturesAsyncReadCompatExt};

/// The HTTP/2 connection preface a prior-knowledge client sends first.
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

fn header_map(fields: &[(String, String)]) -> http::HeaderMap {
    let mut map = http::HeaderMap::new();
    for (k, v) in fields {
        // The core writes valid names and values; anything else is skipped, not a panic.
        if let (Ok(name), Ok(value)) =
            (http::header::HeaderName::from_bytes(k.to_ascii_lowercase().as_bytes()), http::HeaderValue::from_str(v))
        {
            map.append(name, value);
        }
    }
    map
}

fn fields(map: &http::HeaderMap) -> Vec<(String, String)> {
    map.iter().map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect()
}

/// A client connection: one HTTP/2 connection, many concurrent calls (clones share it).
#[derive(Clone)]
pub struct GrpcConnection {
    send: h2::client::SendRequest<Bytes>,
    authority: String,
    scheme: &'static str,
    closed: async_channel::Receiver<()>,
}

impl GrpcConnection {
    /// Dials `url` (TLS with ALPN `h2` for `https://`) and runs the HTTP/2 handshake (the
    /// caller bounds the time).
    #[cfg(feature = "client")]
    pub(crate) async fn connect(url: &Url, options: &crate::client::ClientOptions) -> Result<GrpcConnection, Error> {
        let stream = crate::client::connect(url, options, crate::tls::ALPN_H2).await?;
        let mut builder = h2::client::Builder::new();
        // A server may not make us buffer more than this of one header list.
        builder.max_header_list_size(64 * 1024);
        let (send, conn) = builder.handshake(stream.compat()).await?;
        let (done_tx, closed) = async_channel::bounded::<()>(1);
        smol::spawn(async move {
            let _ = conn.await;
            drop(done_tx);
        })
        .detach();
        Ok(GrpcConnection { send, authority: url.host.clone(), scheme: if url.tls { "https" } else { "http" }, closed })
    }

    /// True when the connection ended.
    pub fn is_closed(&self) -> bool {
        self.closed.is_closed()
    }

    async fn start(&mut self, req: &OutgoingRequest) -> Result<h2::client::ResponseFuture, Error> {
        let path = crate::url::parse_url(&req.url)?.target;
        let mut builder = http::Request::builder().method("POST").uri(format!("{}://{}{}", self.scheme, self.authority, path));
        if let Some(h) = builder.headers_mut() {
            *h = header_map(&req.headers);
        }
        let request = builder.body(()).map_err(|e| Error::Transport(e.to_string()))?;
        let mut send = self.send.clone().ready().await?;
        let (response, mut body) = send.send_request(request, false)?;
        body.send_data(Bytes::copy_from_slice(&req.body), true)?;
        Ok(response)
    }

    /// Sends a call: the response's status and headers, and its body to read from.
    pub async fn request(&mut self, req: &OutgoingRequest) -> Result<(u16, Vec<(String, String)>, GrpcBody), Error> {
        let response = self.start(req).await?.await?;
        let (parts, recv) = response.into_parts();
        Ok((parts.status.as_u16(), fields(&parts.headers), GrpcBody { recv, trailers: Vec::new() }))
    }
}

/// The body of a gRPC response: data as it arrives, then trailers.
pub struct GrpcBody {
    recv: h2::RecvStream,
    trailers: Vec<(String, String)>,
}

impl GrpcBody {
    /// The next data, or `None` at the end (trailers are then read).
    pub async fn data(&mut self) -> Result<Option<Vec<u8>>, Error> {
        match self.recv.data().await {
            Some(chunk) => {
                let chunk = chunk?;
                let _ = self.recv.flow_control().release_capacity(chunk.len());
                Ok(Some(chunk.to_vec()))
            }
            None => {
                if let Some(t) = self.recv.trailers().await? {
                    self.trailers = fields(&t);
                }
                Ok(None)
            }
        }
    }

    /// The trailers (after [`GrpcBody::data`] returned `None`).
    pub fn trailers(&self) -> &[(String, String)] {
        &self.trailers
    }
}

/// What the server side needs to send one gRPC answer.
pub(crate) struct Responder {
    respond: h2::server::SendResponse<Bytes>,
    send: Option<h2::SendStream<Bytes>>,
}

impl Responder {
    /// Sends a whole answer (head, message, trailers).
    pub(crate) fn answer(&mut self, resp: &HttpResponse) -> Result<(), h2::Error> {
        self.head(resp, false)?;
        self.data(&resp.body)?;
        self.trailers(&resp.trailers)
    }

    /// Sends the response head.
    pub(crate) fn head(&mut self, resp: &HttpResponse, end: bool) -> Result<(), h2::Error> {
        let mut builder = http::Response::builder().status(resp.status);
        if let Some(h) = builder.headers_mut() {
            *h = header_map(&resp.headers);
        }
        // Status and header values came from the core and were filtered above.
        let head = builder.body(()).unwrap_or_default();
        self.send = Some(self.respond.send_response(head, end)?);
        Ok(())
    }

    /// Sends body bytes.
    pub(crate) fn data(&mut self, bytes: &[u8]) -> Result<(), h2::Error> {
        if bytes.is_empty() {
            return Ok(());
        }
        match self.send.as_mut() {
            Some(s) => s.send_data(Bytes::copy_from_slice(bytes), false),
            None => Ok(()),
        }
    }

    /// Resolves when the client resets the stream (or the connection ends).
    pub(crate) async fn reset(&mut self) {
        let _ = std::future::poll_fn(|cx| match self.send.as_mut() {
            Some(s) => s.poll_reset(cx),
            None => self.respond.poll_reset(cx),
        })
        .await;
    }

    /// Ends the answer with trailers.
    pub(crate) fn trailers(&mut self, trailers: &[(String, String)]) -> Result<(), h2::Error> {
        match self.send.as_mut() {
            Some(s) => s.send_trailers(header_map(trailers)),
            None => Ok(()),
        }
    }
}

/// Serves one HTTP/2 connection: each request is read whole and handed to `handle` on its own
/// task. `io` already had its first bytes read into `prefix` (the preface detection).
pub(crate) async fn serve<F, Fut>(
    io: crate::io::Rewind,
    limits: Limits,
    tasks: crate::io::TaskCount,
    stop: async_channel::Receiver<()>,
    handle: F,
) where
    F: Fn(http::request::Parts, Vec<u8>, Responder) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let io: Compat<crate::io::Rewind> = io.compat();
    let mut builder = h2::server::Builder::new();
    builder.max_concurrent_streams(256).max_header_list_size(u32::try_from(limits.max_head).unwrap_or(u32::MAX));
    let Ok(Ok(mut conn)) = http1::timeout(limits.head_timeout, builder.handshake::<_, Bytes>(io)).await else { return };
    let handle = std::sync::Arc::new(handle);
    let mut stopping = false;
    loop {
        use smol::future::FutureExt;
        let next = if stopping {
            Some(http1::timeout(limits.idle_timeout, conn.accept()).await)
        } else {
            async { Some(http1::timeout(limits.idle_timeout, conn.accept()).await) }
                .or(async {
                    let _ = stop.recv().await;
                    None
                })
                .await
        };
        let (request, respond) = match next {
            // Shutting down: no new streams (GOAWAY); the open ones finish, then accept ends.
            None => {
                conn.graceful_shutdown();
                stopping = true;
                continue;
            }
            Some(Ok(Some(Ok(r)))) => r,
            _ => break,
        };
        let handle = handle.clone();
        tasks
            .spawn(async move {
                let (parts, mut recv) = request.into_parts();
                let mut body = Vec::new();
                let mut responder = Responder { respond, send: None };
                let read = http1::timeout(limits.body_timeout, async {
                    while let Some(chunk) = recv.data().await {
                        let chunk = chunk.map_err(|_| ())?;
                        let _ = recv.flow_control().release_capacity(chunk.len());
                        if body.len() + chunk.len() > limits.max_body {
                            return Err(());
                        }
                        body.extend_from_slice(&chunk);
                    }
                    Ok(())
                })
                .await;
                if !matches!(read, Ok(Ok(()))) {
                    // RESOURCE_EXHAUSTED: the message was too large or never arrived whole.
                    let trailers = vec![
                        (String::from("grpc-status"), String::from("8")),
                        (String::from("grpc-message"), String::from("request too large or incomplete")),
                    ];
                    let resp = HttpResponse {
                        status: 200,
                        headers: vec![(String::from("content-type"), String::from("application/grpc"))],
                        ..HttpResponse::default()
                    };
                    let _ = responder.head(&resp, false).and_then(|()| responder.trailers(&trailers));
                    return;
                }
                handle(parts, body, responder).await;
            })
            .detach();
    }
}

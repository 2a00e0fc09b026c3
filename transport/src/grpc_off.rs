//! gRPC in a build without the `grpc` feature: the same API, and every use of it fails
//! saying so. A client never selects a gRPC interface ([`crate::Client::connect`] leaves the
//! binding out); a server closes an HTTP/2 connection at once.

#![allow(dead_code)]

use crate::error::Error;
use crate::http1::Limits;
use a2a_wire::http::{HttpResponse, OutgoingRequest};

/// The HTTP/2 connection preface a prior-knowledge client sends first.
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

pub(crate) fn off() -> Error {
    Error::Transport(String::from("this build of a2a-wire-smol has no gRPC (the `grpc` feature is off)"))
}

#[derive(Clone, Debug)]
pub(crate) enum Never {}

/// A client connection; none can be made in this build.
#[derive(Clone, Debug)]
pub struct GrpcConnection(Never);

impl GrpcConnection {
    #[cfg(feature = "client")]
    pub(crate) async fn connect(_url: &crate::url::Url, _options: &crate::client::ClientOptions) -> Result<GrpcConnection, Error> {
        Err(off())
    }

    /// True when the connection ended.
    pub fn is_closed(&self) -> bool {
        match self.0 {}
    }

    /// Sends a call.
    pub async fn request(&mut self, _req: &OutgoingRequest) -> Result<(u16, Vec<(String, String)>, GrpcBody), Error> {
        match self.0 {}
    }
}

/// The body of a gRPC response; none exists in this build.
#[derive(Debug)]
pub struct GrpcBody(Never);

impl GrpcBody {
    /// The next data.
    pub async fn data(&mut self) -> Result<Option<Vec<u8>>, Error> {
        match self.0 {}
    }

    /// The trailers.
    pub fn trailers(&self) -> &[(String, String)] {
        match self.0 {}
    }
}

/// Why a send on a [`Responder`] failed (never made in this build).
#[derive(Debug)]
pub(crate) struct Off;

pub(crate) struct Responder(Never);

impl Responder {
    pub(crate) fn answer(&mut self, _resp: &HttpResponse) -> Result<(), Off> {
        match self.0 {}
    }
    pub(crate) fn head(&mut self, _resp: &HttpResponse, _end: bool) -> Result<(), Off> {
        match self.0 {}
    }
    pub(crate) fn data(&mut self, _bytes: &[u8]) -> Result<(), Off> {
        match self.0 {}
    }
    pub(crate) async fn reset(&mut self) {
        match self.0 {}
    }
    pub(crate) fn trailers(&mut self, _trailers: &[(String, String)]) -> Result<(), Off> {
        match self.0 {}
    }
}

/// Closes an HTTP/2 connection: this build serves no gRPC.
pub(crate) async fn serve<F, Fut>(
    io: crate::io::Rewind,
    _limits: Limits,
    _tasks: crate::io::TaskCount,
    _stop: async_channel::Receiver<()>,
    _handle: F,
) where
    F: Fn(http::request::Parts, Vec<u8>, Responder) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    drop(io);
}

//! Why a client call failed.

use crate::http1::ReadError;
use a2a_wire::client::ClientError;
use std::fmt;
use std::time::Duration;

/// Why a client call failed.
#[non_exhaustive]
#[derive(Debug)]
pub enum Error {
    /// The peer answered, with an A2A error or a protocol violation (see [`ClientError`]):
    /// the A2A meaning of the failure.
    A2a(ClientError),
    /// The connection carried malformed HTTP or HTTP/2, or the peer broke a limit.
    Transport(String),
    /// The connection could not be opened, or failed (its [`std::error::Error::source`] is
    /// the operating system's error).
    Io(std::io::Error),
    /// A header of the call (its own, or its header provider's) cannot be sent, or the
    /// provider failed (the source says why).
    Headers(Box<dyn std::error::Error + Send + Sync>),
    /// A time limit passed: connecting, the whole unary call, or the wait between two events
    /// of a stream.
    Timeout {
        /// Which limit.
        what: &'static str,
        /// Its value.
        after: Duration,
    },
    /// The URL cannot be used (not `http://host[:port]/path`).
    Url(String),
    /// The Agent Card is invalid or offers nothing this client speaks.
    Card(String),
    /// TLS failed: the peer's certificate is not trusted or not for the name dialed, the
    /// handshake broke off, or the TLS settings (certificate, key, CA file) are unusable.
    Tls(String),
    /// The Agent Card's signature (spec 8.4) does not verify against the keys the client
    /// trusts, or the card is unsigned and a signature is required.
    Signature(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::A2a(e) => write!(f, "{e}"),
            Error::Transport(m) => write!(f, "transport error: {m}"),
            Error::Io(e) => write!(f, "connection failed: {e}"),
            Error::Headers(e) => write!(f, "request headers: {e}"),
            Error::Timeout { what, after } => write!(f, "timed out: {what} took longer than {after:?}"),
            Error::Url(m) => write!(f, "invalid URL: {m}"),
            Error::Card(m) => write!(f, "agent card: {m}"),
            Error::Tls(m) => write!(f, "TLS: {m}"),
            Error::Signature(m) => write!(f, "agent card signature: {m}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::A2a(e) => Some(e),
            Error::Io(e) => Some(e),
            Error::Headers(e) => Some(&**e),
            _ => None,
        }
    }
}

impl Error {
    /// The A2A error the peer answered with, if that is what this is.
    pub fn a2a(&self) -> Option<&a2a_wire::error::A2aError> {
        match self {
            Error::A2a(ClientError::Remote(a2a_wire::error::Received::A2a(e))) => Some(e),
            _ => None,
        }
    }

    /// True for a time limit that passed.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Error::Timeout { .. })
    }
}

impl From<ClientError> for Error {
    fn from(e: ClientError) -> Self {
        Error::A2a(e)
    }
}

impl From<ReadError> for Error {
    fn from(e: ReadError) -> Self {
        Error::Transport(match e {
            ReadError::Closed => String::from("connection closed by the peer"),
            ReadError::Io(e) => return Error::Io(e),
            ReadError::Malformed(m) => String::from(m),
            ReadError::HeadTooLarge => String::from("response head over the limit"),
            ReadError::BodyTooLarge => String::from("response body over the limit"),
            ReadError::Timeout => String::from("timed out"),
            ReadError::Refused(r) => format!("malformed HTTP: {r}"),
        })
    }
}

impl From<a2a_wire::http1::FramingError> for Error {
    fn from(e: a2a_wire::http1::FramingError) -> Self {
        ReadError::from(e).into()
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

#[cfg(feature = "grpc")]
impl From<h2::Error> for Error {
    fn from(e: h2::Error) -> Self {
        Error::Transport(format!("HTTP/2: {e}"))
    }
}

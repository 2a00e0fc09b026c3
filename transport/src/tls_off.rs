//! TLS in a build without the `tls` feature: the same API, and every use of it fails with
//! [`Error::Tls`] saying so (an `https://` URL, a server or client certificate). PEM reading
//! works (card signing keys use it).

use crate::error::Error;
use pki_types::pem::PemObject;
use pki_types::{CertificateDer, PrivateKeyDer};
use rustls_pki_types as pki_types;
use std::path::Path;

/// ALPN protocol id of HTTP/2.
pub const ALPN_H2: &[u8] = b"h2";
/// ALPN protocol id of HTTP/1.1.
pub const ALPN_HTTP1: &[u8] = b"http/1.1";

fn off() -> Error {
    Error::Tls(String::from("this build of a2a-wire-smol has no TLS (the `tls` feature is off)"))
}

/// The certificates of a PEM text (every `CERTIFICATE` block, in order).
pub fn certs_from_pem(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, Error> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::Tls(format!("reading PEM certificates: {e}")))?;
    if certs.is_empty() {
        return Err(Error::Tls(String::from("no CERTIFICATE block in the PEM text")));
    }
    Ok(certs)
}

/// The private key of a PEM text (PKCS#8, PKCS#1 or SEC1; the first one).
pub fn key_from_pem(pem: &[u8]) -> Result<PrivateKeyDer<'static>, Error> {
    PrivateKeyDer::from_pem_slice(pem).map_err(|e| Error::Tls(format!("reading the PEM private key: {e}")))
}

/// Fails: no TLS in this build.
pub fn check_pem_files(_cert: impl AsRef<Path>, _key: impl AsRef<Path>) -> Result<(), Error> {
    Err(off())
}

/// A server's TLS settings; none can be made in this build.
#[derive(Clone, Debug)]
pub struct ServerTls(Never);

#[derive(Clone, Debug)]
pub(crate) enum Never {}

impl ServerTls {
    /// Fails: no TLS in this build.
    pub fn from_pem(_cert_pem: &[u8], _key_pem: &[u8]) -> Result<ServerTls, Error> {
        Err(off())
    }
    /// Fails: no TLS in this build.
    pub fn from_pem_files(_cert: impl AsRef<Path>, _key: impl AsRef<Path>) -> Result<ServerTls, Error> {
        Err(off())
    }
    /// Fails: no TLS in this build.
    pub fn reload_pem(&self, _cert_pem: &[u8], _key_pem: &[u8]) -> Result<(), Error> {
        match self.0 {}
    }
    /// Fails: no TLS in this build.
    pub fn reload_pem_files(&self, _cert: impl AsRef<Path>, _key: impl AsRef<Path>) -> Result<(), Error> {
        match self.0 {}
    }
    #[allow(dead_code)]
    pub(crate) fn acceptor(&self) -> Acceptor {
        match self.0 {}
    }
}

/// A client's TLS settings; none can be made in this build.
#[derive(Clone, Debug)]
pub struct ClientTls(Never);

impl ClientTls {
    /// Fails: no TLS in this build.
    pub fn platform() -> Result<ClientTls, Error> {
        Err(off())
    }
    /// Fails: no TLS in this build.
    pub fn from_ca_pem(_pem: &[u8]) -> Result<ClientTls, Error> {
        Err(off())
    }
    /// Fails: no TLS in this build.
    pub fn from_ca_file(_path: impl AsRef<Path>) -> Result<ClientTls, Error> {
        Err(off())
    }
    /// Fails: no TLS in this build.
    pub fn with_client_cert_pem(self, _cert_pem: &[u8], _key_pem: &[u8]) -> Result<ClientTls, Error> {
        match self.0 {}
    }
    /// Fails: no TLS in this build.
    pub fn with_client_cert_files(self, _cert: impl AsRef<Path>, _key: impl AsRef<Path>) -> Result<ClientTls, Error> {
        match self.0 {}
    }
    /// `Ok(None)` when neither is given; otherwise fails: no TLS in this build.
    pub fn from_files(ca_file: Option<&Path>, client_cert: Option<(&Path, &Path)>) -> Result<Option<ClientTls>, Error> {
        if ca_file.is_none() && client_cert.is_none() {
            return Ok(None);
        }
        Err(off())
    }
    #[allow(dead_code)]
    pub(crate) async fn connect(
        &self,
        _host: &str,
        _alpn: &'static [u8],
        _stream: smol::net::TcpStream,
    ) -> Result<crate::io::Stream, Error> {
        match self.0 {}
    }
}

/// What a server with TLS accepts connections with (none in this build).
#[allow(dead_code)]
pub(crate) type Acceptor = Never;

#[allow(dead_code)]
pub(crate) async fn accept(acceptor: &Acceptor, _stream: smol::net::TcpStream) -> std::io::Result<crate::io::Stream> {
    match *acceptor {}
}

/// Fails: no TLS in this build (an `https://` URL was dialed).
#[allow(dead_code)]
pub(crate) fn default_client() -> Result<ClientTls, Error> {
    Err(off())
}

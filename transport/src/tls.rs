//! TLS with rustls (the `ring` provider; no OpenSSL), for the server, the client and webhook
//! deliveries.
//!
//! - [`ServerTls`]: the server's certificate chain and key from PEM; one port then serves
//!   HTTP/1.1 (JSON-RPC, HTTP+JSON, SSE) and HTTP/2 (gRPC) chosen by ALPN. The identity can be
//!   replaced while the server runs ([`ServerTls::reload_pem_files`]): new handshakes use the
//!   new certificate, open connections keep theirs.
//! - [`ClientTls`]: which certificate authorities a client trusts — the platform's roots by
//!   default ([`ClientTls::platform`]), or a CA file — and an optional client certificate.
//!   `https://` URLs use it; gRPC over TLS asks for ALPN `h2` and refuses a server that does
//!   not agree to it.
//!
//! Certificates are verified by rustls's WebPKI verifier: chain to a trusted root, validity
//! period, and the name (DNS name or IP address) the URL dialed.

use crate::error::Error;
use futures_rustls::rustls;
use pki_types::pem::PemObject;
use pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls_pki_types as pki_types;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

/// ALPN protocol id of HTTP/2.
pub const ALPN_H2: &[u8] = b"h2";
/// ALPN protocol id of HTTP/1.1.
pub const ALPN_HTTP1: &[u8] = b"http/1.1";

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    static P: OnceLock<Arc<rustls::crypto::CryptoProvider>> = OnceLock::new();
    P.get_or_init(|| Arc::new(rustls::crypto::ring::default_provider())).clone()
}

fn tls_error(what: &str, e: impl fmt::Display) -> Error {
    Error::Tls(format!("{what}: {e}"))
}

/// The certificates of a PEM text (every `CERTIFICATE` block, in order).
pub fn certs_from_pem(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, Error> {
    let certs = CertificateDer::pem_slice_iter(pem).collect::<Result<Vec<_>, _>>().map_err(|e| tls_error("reading PEM certificates", e))?;
    if certs.is_empty() {
        return Err(Error::Tls(String::from("no CERTIFICATE block in the PEM text")));
    }
    Ok(certs)
}

/// The private key of a PEM text (PKCS#8, PKCS#1 or SEC1; the first one).
pub fn key_from_pem(pem: &[u8]) -> Result<PrivateKeyDer<'static>, Error> {
    PrivateKeyDer::from_pem_slice(pem).map_err(|e| tls_error("reading the PEM private key", e))
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::Tls(format!("{what} {}: {e}", path.display())))
}

fn certified_key(cert_pem: &[u8], key_pem: &[u8]) -> Result<Arc<rustls::sign::CertifiedKey>, Error> {
    let certs = certs_from_pem(cert_pem)?;
    let key = key_from_pem(key_pem)?;
    let signing = provider().key_provider.load_private_key(key).map_err(|e| tls_error("loading the private key", e))?;
    let ck = rustls::sign::CertifiedKey::new(certs, signing);
    ck.keys_match().map_err(|e| tls_error("the private key does not belong to the certificate", e))?;
    Ok(Arc::new(ck))
}

/// Checks a PEM certificate chain and key file pair: both readable, and the key belongs to
/// the certificate.
pub fn check_pem_files(cert: impl AsRef<Path>, key: impl AsRef<Path>) -> Result<(), Error> {
    certified_key(&read(cert.as_ref(), "the certificate file")?, &read(key.as_ref(), "the key file")?).map(|_| ())
}

/// The server's current identity, replaceable while it serves.
struct Identity(RwLock<Arc<rustls::sign::CertifiedKey>>);

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Identity")
    }
}

impl rustls::server::ResolvesServerCert for Identity {
    fn resolve(&self, _hello: rustls::server::ClientHello<'_>) -> Option<Arc<rustls::sign::CertifiedKey>> {
        Some(self.0.read().unwrap_or_else(PoisonError::into_inner).clone())
    }
}

/// A server's TLS settings: its certificate chain and private key (PEM), ALPN `h2` and
/// `http/1.1`. Clones share the identity: a reload through one is seen by all.
#[derive(Clone)]
pub struct ServerTls {
    identity: Arc<Identity>,
    config: Arc<rustls::ServerConfig>,
}

impl fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerTls").finish_non_exhaustive()
    }
}

impl ServerTls {
    /// From a PEM certificate chain (the server's certificate first) and its PEM private key.
    pub fn from_pem(cert_pem: &[u8], key_pem: &[u8]) -> Result<ServerTls, Error> {
        let identity = Arc::new(Identity(RwLock::new(certified_key(cert_pem, key_pem)?)));
        let mut config = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| tls_error("TLS versions", e))?
            .with_no_client_auth()
            .with_cert_resolver(identity.clone());
        config.alpn_protocols = vec![ALPN_H2.to_vec(), ALPN_HTTP1.to_vec()];
        Ok(ServerTls { identity, config: Arc::new(config) })
    }

    /// [`ServerTls::from_pem`] with the two files.
    pub fn from_pem_files(cert: impl AsRef<Path>, key: impl AsRef<Path>) -> Result<ServerTls, Error> {
        ServerTls::from_pem(&read(cert.as_ref(), "the certificate file")?, &read(key.as_ref(), "the key file")?)
    }

    /// Replaces the certificate and key: handshakes from now on use them. On error the
    /// current identity stays.
    pub fn reload_pem(&self, cert_pem: &[u8], key_pem: &[u8]) -> Result<(), Error> {
        let ck = certified_key(cert_pem, key_pem)?;
        *self.identity.0.write().unwrap_or_else(PoisonError::into_inner) = ck;
        Ok(())
    }

    /// [`ServerTls::reload_pem`] with the two files.
    pub fn reload_pem_files(&self, cert: impl AsRef<Path>, key: impl AsRef<Path>) -> Result<(), Error> {
        self.reload_pem(&read(cert.as_ref(), "the certificate file")?, &read(key.as_ref(), "the key file")?)
    }

    pub(crate) fn acceptor(&self) -> futures_rustls::TlsAcceptor {
        futures_rustls::TlsAcceptor::from(self.config.clone())
    }
}

/// A client's TLS settings: the roots it trusts and, optionally, its own certificate.
/// Clones share the built rustls configurations.
#[derive(Clone)]
pub struct ClientTls {
    roots: Arc<rustls::RootCertStore>,
    client_cert: Option<Arc<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>>,
    configs: Arc<[OnceLock<Arc<rustls::ClientConfig>>; 2]>,
}

impl fmt::Debug for ClientTls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientTls").field("roots", &self.roots.len()).field("client_cert", &self.client_cert.is_some()).finish()
    }
}

impl ClientTls {
    fn with_roots(roots: rustls::RootCertStore) -> ClientTls {
        ClientTls { roots: Arc::new(roots), client_cert: None, configs: Arc::new([OnceLock::new(), OnceLock::new()]) }
    }

    /// Trusts the platform's certificate authorities (the system store, read once per
    /// process; `SSL_CERT_FILE` / `SSL_CERT_DIR` override it as OpenSSL's tools do).
    pub fn platform() -> Result<ClientTls, Error> {
        static ROOTS: OnceLock<Result<rustls::RootCertStore, String>> = OnceLock::new();
        let roots = ROOTS.get_or_init(|| {
            let found = rustls_native_certs::load_native_certs();
            let mut store = rustls::RootCertStore::empty();
            let (added, _ignored) = store.add_parsable_certificates(found.certs);
            if added == 0 {
                let why = found.errors.first().map(|e| e.to_string()).unwrap_or_else(|| String::from("the system store is empty"));
                return Err(format!("no trusted root certificate on this system ({why}); give a CA file"));
            }
            Ok(store)
        });
        match roots {
            Ok(r) => Ok(ClientTls::with_roots(r.clone())),
            Err(e) => Err(Error::Tls(e.clone())),
        }
    }

    /// Trusts exactly the certificate authorities of a PEM text.
    pub fn from_ca_pem(pem: &[u8]) -> Result<ClientTls, Error> {
        let mut store = rustls::RootCertStore::empty();
        for c in certs_from_pem(pem)? {
            store.add(c).map_err(|e| tls_error("a CA certificate", e))?;
        }
        Ok(ClientTls::with_roots(store))
    }

    /// [`ClientTls::from_ca_pem`] with a file.
    pub fn from_ca_file(path: impl AsRef<Path>) -> Result<ClientTls, Error> {
        ClientTls::from_ca_pem(&read(path.as_ref(), "the CA file")?)
    }

    /// Presents this certificate chain and key when a server asks for one (mutual TLS).
    pub fn with_client_cert_pem(mut self, cert_pem: &[u8], key_pem: &[u8]) -> Result<ClientTls, Error> {
        // Checked whole (the key belongs to the certificate) before it is kept.
        certified_key(cert_pem, key_pem)?;
        self.client_cert = Some(Arc::new((certs_from_pem(cert_pem)?, key_from_pem(key_pem)?)));
        self.configs = Arc::new([OnceLock::new(), OnceLock::new()]);
        Ok(self)
    }

    /// [`ClientTls::with_client_cert_pem`] with the two files.
    pub fn with_client_cert_files(self, cert: impl AsRef<Path>, key: impl AsRef<Path>) -> Result<ClientTls, Error> {
        let (c, k) = (read(cert.as_ref(), "the client certificate file")?, read(key.as_ref(), "the client key file")?);
        self.with_client_cert_pem(&c, &k)
    }

    /// The settings a client's options name: the CAs of `ca_file` (absent: the platform's
    /// roots) and, with `client_cert`, that certificate and key file pair. `None` when both
    /// are absent (the caller then uses the default, the platform's roots).
    pub fn from_files(ca_file: Option<&Path>, client_cert: Option<(&Path, &Path)>) -> Result<Option<ClientTls>, Error> {
        if ca_file.is_none() && client_cert.is_none() {
            return Ok(None);
        }
        let base = match ca_file {
            Some(f) => ClientTls::from_ca_file(f)?,
            None => ClientTls::platform()?,
        };
        match client_cert {
            Some((cert, key)) => base.with_client_cert_files(cert, key).map(Some),
            None => Ok(Some(base)),
        }
    }

    fn config(&self, alpn: &'static [u8]) -> Result<Arc<rustls::ClientConfig>, Error> {
        let slot = &self.configs[usize::from(alpn == ALPN_H2)];
        if let Some(c) = slot.get() {
            return Ok(c.clone());
        }
        let builder = rustls::ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| tls_error("TLS versions", e))?
            .with_root_certificates(self.roots.clone());
        let mut config = match &self.client_cert {
            Some(pair) => {
                builder.with_client_auth_cert(pair.0.clone(), pair.1.clone_key()).map_err(|e| tls_error("the client certificate", e))?
            }
            None => builder.with_no_client_auth(),
        };
        config.alpn_protocols = vec![alpn.to_vec()];
        Ok(slot.get_or_init(|| Arc::new(config)).clone())
    }

    /// Runs the handshake on `stream` for `host` (a DNS name or an IP address, without port
    /// or brackets), asking for `alpn`.
    pub(crate) async fn connect(&self, host: &str, alpn: &'static [u8], stream: smol::net::TcpStream) -> Result<crate::io::Stream, Error> {
        let name = ServerName::try_from(host.to_string()).map_err(|e| tls_error(&format!("{host:?} as a TLS server name"), e))?;
        let connector = futures_rustls::TlsConnector::from(self.config(alpn)?);
        let tls = connector.connect(name, stream).await.map_err(|e| tls_error(&format!("TLS handshake with {host}"), e))?;
        let agreed = tls.get_ref().1.alpn_protocol();
        if alpn == ALPN_H2 && agreed != Some(ALPN_H2) {
            return Err(Error::Tls(format!("{host} did not agree to HTTP/2 (ALPN h2), which gRPC needs")));
        }
        Ok(crate::io::Stream::Client(Box::new(tls)))
    }
}

/// What a server with TLS accepts connections with.
pub(crate) type Acceptor = futures_rustls::TlsAcceptor;

/// The server side of the handshake on `stream`.
pub(crate) async fn accept(acceptor: &Acceptor, stream: smol::net::TcpStream) -> std::io::Result<crate::io::Stream> {
    Ok(crate::io::Stream::Server(Box::new(acceptor.accept(stream).await?)))
}

/// The process's default client TLS settings: the platform's roots, read on first use.
pub(crate) fn default_client() -> Result<ClientTls, Error> {
    static DEFAULT: OnceLock<Result<ClientTls, String>> = OnceLock::new();
    match DEFAULT.get_or_init(|| ClientTls::platform().map_err(|e| e.to_string())) {
        Ok(c) => Ok(c.clone()),
        Err(e) => Err(Error::Tls(e.clone())),
    }
}

//! Throwaway certificate authorities for the TLS tests, made at test time (rcgen): a CA, a
//! server certificate for `127.0.0.1` and `localhost`, and a client certificate, all PEM.
//! `a2a-wire-testca DIR` writes them as files for the Python, Node and C tests.

use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose};
use std::sync::Arc;

/// A CA and the certificates it signed, PEM.
#[derive(Clone, Debug)]
pub struct TestCa {
    /// The CA's certificate (what clients trust).
    pub ca_pem: String,
    /// The server's certificate (SANs `127.0.0.1`, `::1`, `localhost`).
    pub server_cert_pem: String,
    /// The server's private key (PKCS#8).
    pub server_key_pem: String,
    /// A client certificate (for mutual TLS).
    pub client_cert_pem: String,
    /// Its private key.
    pub client_key_pem: String,
}

/// What can go wrong making one (rcgen's error, as text).
pub type Result<T> = std::result::Result<T, String>;

fn leaf(names: &[&str], usage: ExtendedKeyUsagePurpose, ca: &rcgen::Certificate, ca_key: &KeyPair) -> Result<(String, String)> {
    let mut params = CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>()).map_err(|e| e.to_string())?;
    params.distinguished_name.push(DnType::CommonName, names.first().copied().unwrap_or("a2a-wire test"));
    params.extended_key_usages = vec![usage];
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    let key = KeyPair::generate().map_err(|e| e.to_string())?;
    let cert = params.signed_by(&key, ca, ca_key).map_err(|e| e.to_string())?;
    Ok((cert.pem(), key.serialize_pem()))
}

impl TestCa {
    /// A new CA (named `name`) with a server certificate for `server_names` and a client
    /// certificate.
    pub fn new(name: &str, server_names: &[&str]) -> Result<TestCa> {
        let mut params = CertificateParams::new(Vec::<String>::new()).map_err(|e| e.to_string())?;
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        let ca_key = KeyPair::generate().map_err(|e| e.to_string())?;
        let ca = params.self_signed(&ca_key).map_err(|e| e.to_string())?;
        let (server_cert_pem, server_key_pem) = leaf(server_names, ExtendedKeyUsagePurpose::ServerAuth, &ca, &ca_key)?;
        let (client_cert_pem, client_key_pem) = leaf(&["a2a-wire test client"], ExtendedKeyUsagePurpose::ClientAuth, &ca, &ca_key)?;
        Ok(TestCa { ca_pem: ca.pem(), server_cert_pem, server_key_pem, client_cert_pem, client_key_pem })
    }

    /// The usual one: a server certificate for `127.0.0.1`, `::1` and `localhost`.
    pub fn local() -> Result<TestCa> {
        TestCa::new("a2a-wire test CA", &["127.0.0.1", "::1", "localhost"])
    }

    /// Writes `ca.pem`, `server.pem`, `server.key`, `client.pem` and `client.key` into `dir`.
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        for (name, text) in [
            ("ca.pem", &self.ca_pem),
            ("server.pem", &self.server_cert_pem),
            ("server.key", &self.server_key_pem),
            ("client.pem", &self.client_cert_pem),
            ("client.key", &self.client_key_pem),
        ] {
            std::fs::write(dir.join(name), text)?;
        }
        Ok(())
    }
}

/// An `https://` webhook receiver on 127.0.0.1 with the server certificate of a [`TestCa`]:
/// it answers 204 to every request and hands each request (head and body) to `requests`.
pub struct HttpsReceiver {
    /// `https://127.0.0.1:PORT/hook`.
    pub url: String,
    /// Every request received, whole.
    pub requests: std::sync::mpsc::Receiver<Vec<u8>>,
    _task: smol::Task<()>,
}

impl HttpsReceiver {
    /// Starts one; with `client_ca`, it requires a client certificate signed by that CA.
    pub fn start(ca: &TestCa, client_ca: Option<&TestCa>) -> Result<HttpsReceiver> {
        use futures_rustls::rustls;
        let e = |e: &dyn std::fmt::Display| e.to_string();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder =
            rustls::ServerConfig::builder_with_provider(provider.clone()).with_safe_default_protocol_versions().map_err(|x| e(&x))?;
        let builder = match client_ca {
            Some(c) => {
                let mut roots = rustls::RootCertStore::empty();
                for cert in a2a_wire_smol::tls::certs_from_pem(c.ca_pem.as_bytes()).map_err(|x| e(&x))? {
                    roots.add(cert).map_err(|x| e(&x))?;
                }
                let verifier =
                    rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider).build().map_err(|x| e(&x))?;
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let certs = a2a_wire_smol::tls::certs_from_pem(ca.server_cert_pem.as_bytes()).map_err(|x| e(&x))?;
        let key = a2a_wire_smol::tls::key_from_pem(ca.server_key_pem.as_bytes()).map_err(|x| e(&x))?;
        let acceptor = futures_rustls::TlsAcceptor::from(Arc::new(builder.with_single_cert(certs, key).map_err(|x| e(&x))?));
        let listener = smol::block_on(smol::net::TcpListener::bind("127.0.0.1:0")).map_err(|x| e(&x))?;
        let url = format!("https://127.0.0.1:{}/hook", listener.local_addr().map_err(|x| e(&x))?.port());
        let (tx, requests) = std::sync::mpsc::channel();
        let task = smol::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, tx) = (acceptor.clone(), tx.clone());
                smol::spawn(async move {
                    if let Ok(tls) = acceptor.accept(tcp).await {
                        answer(tls, tx).await;
                    }
                })
                .detach();
            }
        });
        Ok(HttpsReceiver { url, requests, _task: task })
    }
}

/// Reads one request (head, then a `content-length` body), hands it over, answers 204.
async fn answer<S: smol::io::AsyncRead + smol::io::AsyncWrite + Unpin>(mut s: S, tx: std::sync::mpsc::Sender<Vec<u8>>) {
    use smol::io::{AsyncReadExt, AsyncWriteExt};
    let mut seen = Vec::new();
    let mut buf = vec![0u8; 8192];
    let mut need = None;
    loop {
        if need.is_none() {
            if let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&seen[..end]).to_ascii_lowercase();
                let len = head.lines().find_map(|l| l.strip_prefix("content-length:").and_then(|v| v.trim().parse::<usize>().ok()));
                need = Some(end + 4 + len.unwrap_or(0));
            }
        }
        if need.is_some_and(|n| seen.len() >= n) {
            break;
        }
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    let _ = tx.send(seen);
    let _ = s.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n").await;
    let _ = s.close().await;
}

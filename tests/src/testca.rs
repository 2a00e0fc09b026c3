//! Throwaway certificate authorities for the TLS tests, made at test time (rcgen): a CA, a
//! server certificate for `127.0.0.1` and `localhost`, and a client certificate, all PEM.
//! `a2a-wire-testca DIR` writes them as files for the Python, Node and C tests.

use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose};

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

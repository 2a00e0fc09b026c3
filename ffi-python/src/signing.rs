//! Agent Card signatures (spec 8.4) for Python (`a2a_wire.signing`): the transport's keys
//! (`a2a_wire_smol::signing`, ES256 and EdDSA with ring) behind three classes. What is
//! signed and which signature is good is the core's (`a2a::signing`); nothing is decided here.
//!
//! Bad key material (text that is not a JWK or JWKS, a PEM key that is not PKCS#8, a key of
//! another algorithm, a missing `kid`) raises `ValueError`, as every other bad argument of the
//! package does; a file that cannot be opened raises `OSError` (`FileNotFoundError`, ...).
//! A signature that does not verify raises `a2a_wire.errors.CardSignatureError`.

use crate::errors;
use crate::model::generated::PyAgentCard;
use crate::model::{json_to_py, py_to_json, type_name};
use a2a::signing::{Verification, Verified};
use a2a_wire_smol::signing::{CardKeySet, SigningKey};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMapping, PyString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// `repr(s)` as Python writes it.
pub(crate) fn py_repr(py: Python<'_>, s: &str) -> PyResult<String> {
    Ok(PyString::new(py, s).repr()?.to_str()?.to_owned())
}

/// The transport's key errors (`signing key: ...`) as the `ValueError` of a bad argument.
fn bad_key(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// `OSError` (its errno subclass, with the file name) when `path` cannot be opened, so that a
/// missing file is told apart from a bad key in it.
fn readable(path: &Path) -> PyResult<()> {
    match std::fs::File::open(path) {
        Ok(_) => Ok(()),
        Err(e) => Err(PyOSError::new_err((e.raw_os_error().unwrap_or(0), e.to_string(), path.display().to_string()))),
    }
}

/// JSON text from a `str` (taken as is; the transport parses it) or a mapping (`dict`).
fn json_text(v: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(s.to_str()?.to_owned());
    }
    if let Ok(b) = v.cast::<PyBytes>() {
        return std::str::from_utf8(b.as_bytes()).map(str::to_owned).map_err(|e| PyValueError::new_err(format!("{what}: not UTF-8: {e}")));
    }
    if v.cast::<PyMapping>().is_ok() {
        let value = py_to_json(v).map_err(|e| {
            let py = v.py();
            let msg = e.value(py).str().map(|s| s.to_string()).unwrap_or_default();
            if e.is_instance_of::<PyTypeError>(py) {
                PyTypeError::new_err(format!("{what}: {msg}"))
            } else {
                PyValueError::new_err(format!("{what}: {msg}"))
            }
        })?;
        return serde_json::to_string(&value).map_err(|e| PyValueError::new_err(format!("{what}: {e}")));
    }
    Err(PyTypeError::new_err(format!("{what}: expected str or a mapping, got {}", type_name(v))))
}

/// A private key that signs Agent Cards (ES256 or EdDSA).
#[pyclass(module = "a2a_wire.signing", name = "SigningKey", frozen)]
pub struct PySigningKey(pub(crate) Arc<SigningKey>);

#[pymethods]
impl PySigningKey {
    /// A private JWK (a JSON text or a mapping): `{"kty":"EC","crv":"P-256","x","y","d","kid"}`
    /// (ES256) or `{"kty":"OKP","crv":"Ed25519","x","d","kid"}` (EdDSA); `alg`, when present,
    /// must match. Bad key material raises `ValueError`.
    #[staticmethod]
    fn from_jwk(jwk: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = json_text(jwk, "jwk")?;
        SigningKey::from_jwk(&text).map(|k| PySigningKey(Arc::new(k))).map_err(bad_key)
    }

    /// A PKCS#8 private key in PEM (`-----BEGIN PRIVATE KEY-----`: `openssl genpkey
    /// -algorithm ed25519`, or a P-256 key through `openssl pkcs8 -topk8 -nocrypt`), named
    /// `kid`. Bad key material raises `ValueError`.
    #[staticmethod]
    fn from_pem(pem: &Bound<'_, PyAny>, kid: &str) -> PyResult<Self> {
        let text = if let Ok(s) = pem.cast::<PyString>() {
            s.to_str()?.to_owned()
        } else if let Ok(b) = pem.cast::<PyBytes>() {
            String::from_utf8(b.as_bytes().to_vec()).map_err(|e| PyValueError::new_err(format!("pem: not UTF-8: {e}")))?
        } else {
            return Err(PyTypeError::new_err(format!("pem: expected str or bytes, got {}", type_name(pem))));
        };
        SigningKey::from_pkcs8_pem(&text, kid).map(|k| PySigningKey(Arc::new(k))).map_err(bad_key)
    }

    /// A key from a file: a private JWK (its own `kid`, unless `kid` is given) or a PKCS#8
    /// PEM key (then `kid` is needed). A file that cannot be opened raises `OSError`, bad key
    /// material `ValueError`.
    #[staticmethod]
    #[pyo3(signature = (path, kid = None))]
    fn from_file(path: PathBuf, kid: Option<&str>) -> PyResult<Self> {
        readable(&path)?;
        SigningKey::from_file(&path, kid).map(|k| PySigningKey(Arc::new(k))).map_err(bad_key)
    }

    /// The key id (`kid`) put in each signature's header.
    #[getter]
    fn kid(&self) -> &str {
        a2a::signing::CardSigner::kid(self.0.as_ref())
    }

    /// The JWS algorithm: `"ES256"` or `"EdDSA"`.
    #[getter]
    fn alg(&self) -> &str {
        a2a::signing::CardSigner::alg(self.0.as_ref())
    }

    /// The public half as a JWK dict (with `kid`, `alg` and `"use": "sig"`), for the
    /// verifiers' key set (`CardKeySet`, a published JWKS).
    fn public_jwk<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.0.public_jwk())
    }

    /// `card` with one more signature by this key (spec 8.4: a JWS over the RFC 8785 form of
    /// the card without its signatures), `jku` in the header when given. A card that cannot
    /// be signed raises `ValueError`.
    #[pyo3(signature = (card, *, jku = None))]
    fn sign_card(&self, py: Python<'_>, card: PyRef<'_, PyAgentCard>, jku: Option<&str>) -> PyResult<PyAgentCard> {
        let card = card.0.clone();
        let key = self.0.clone();
        py.detach(|| key.sign_card(&card, jku)).map(PyAgentCard).map_err(bad_key)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        // The private key never shows.
        Ok(format!("SigningKey(alg={}, kid={})", py_repr(py, self.alg())?, py_repr(py, self.kid())?))
    }
}

/// The public keys a verifier trusts, by `kid`.
#[pyclass(module = "a2a_wire.signing", name = "CardKeySet", frozen)]
pub struct PyCardKeySet(Mutex<CardKeySet>);

impl PyCardKeySet {
    /// The keys as they are now (a client takes them when it connects).
    pub(crate) fn snapshot(&self) -> Arc<CardKeySet> {
        Arc::new(self.0.lock().unwrap_or_else(PoisonError::into_inner).clone())
    }

    fn add_to(set: &mut CardKeySet, key: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
        if let Ok(k) = key.cast::<PySigningKey>() {
            // The public half of our own key.
            *set = std::mem::take(set).with_key(&k.get().0);
            return Ok(());
        }
        if key.cast::<PyMapping>().is_ok() {
            let text = json_text(key, what)?;
            let jwk: serde_json::Value = serde_json::from_str(&text).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
            return set.insert(&jwk).map_err(|e| PyValueError::new_err(format!("{what}: {e}")));
        }
        Err(PyTypeError::new_err(format!("{what}: expected SigningKey or a JWK mapping, got {}", type_name(key))))
    }
}

#[pymethods]
impl PyCardKeySet {
    /// A key set of `keys`: `SigningKey`s (their public halves are kept) and public JWK
    /// mappings. Bad key material raises `ValueError`.
    #[new]
    #[pyo3(signature = (keys = None), text_signature = "(keys=())")]
    fn new(keys: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let mut set = CardKeySet::default();
        if let Some(keys) = keys {
            if keys.is_instance_of::<PyString>() || keys.cast::<PyMapping>().is_ok() {
                return Err(PyTypeError::new_err(format!(
                    "keys: expected an iterable of SigningKey or JWK mappings, got {} (CardKeySet.from_jwks reads a JWKS)",
                    type_name(keys)
                )));
            }
            for (i, key) in keys.try_iter()?.enumerate() {
                Self::add_to(&mut set, &key?, &format!("keys[{i}]"))?;
            }
        }
        Ok(PyCardKeySet(Mutex::new(set)))
    }

    /// A JWKS document (`{"keys": [...]}`) or one JWK, as JSON text or a mapping; private
    /// members are ignored. Every key needs a `kid`; keys other than EC P-256 and OKP Ed25519
    /// are refused. Bad key material raises `ValueError`.
    #[staticmethod]
    fn from_jwks(jwks: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = json_text(jwks, "jwks")?;
        CardKeySet::from_jwks(&text).map(|s| PyCardKeySet(Mutex::new(s))).map_err(bad_key)
    }

    /// `from_jwks` of a file's text. A file that cannot be opened raises `OSError`, bad key
    /// material `ValueError`.
    #[staticmethod]
    fn from_file(path: PathBuf) -> PyResult<Self> {
        readable(&path)?;
        CardKeySet::from_jwks_file(&path).map(|s| PyCardKeySet(Mutex::new(s))).map_err(bad_key)
    }

    /// Adds a key: a `SigningKey` (its public half) or a public JWK mapping. A key with the
    /// `kid` of one already there replaces it.
    fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut set = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        Self::add_to(&mut set, key, "key")
    }

    /// The first signature of `card` these keys verify. Signatures over the official SDKs'
    /// payload (empty values removed) are accepted too unless `spec_form_only`. Raises
    /// `CardSignatureError` when the card is unsigned or no signature verifies (the message
    /// gives each signature's reason).
    #[pyo3(signature = (card, *, spec_form_only = false))]
    fn verify_card(&self, py: Python<'_>, card: PyRef<'_, PyAgentCard>, spec_form_only: bool) -> PyResult<VerifiedSignature> {
        let card = card.0.clone();
        let keys = self.snapshot();
        let how = Verification { accept_sdk_form: !spec_form_only };
        match py.detach(|| keys.verify_card(&card, how)) {
            Ok(v) => Ok(VerifiedSignature::from(v)),
            Err(e) => Err(errors::signature_error(py, &e.to_string())),
        }
    }
}

/// The signature that verified: its position in the card's `signatures` (`index`), key id,
/// algorithm, the `jku` its header named (None: none), and the payload it covers (`form`:
/// `"spec"` for spec 8.4.1's, `"sdk"` for the official SDKs' with empty values removed).
#[pyclass(module = "a2a_wire.signing", name = "VerifiedSignature", frozen, eq, hash, get_all)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct VerifiedSignature {
    index: usize,
    kid: String,
    alg: String,
    jku: Option<String>,
    form: String,
}

impl From<Verified> for VerifiedSignature {
    fn from(v: Verified) -> Self {
        VerifiedSignature { index: v.index, kid: v.kid, alg: v.alg, jku: v.jku, form: v.form.as_str().to_string() }
    }
}

#[pymethods]
impl VerifiedSignature {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let jku = match &self.jku {
            Some(j) => py_repr(py, j)?,
            None => String::from("None"),
        };
        Ok(format!(
            "VerifiedSignature(index={}, kid={}, alg={}, jku={jku}, form={})",
            self.index,
            py_repr(py, &self.kid)?,
            py_repr(py, &self.alg)?,
            py_repr(py, &self.form)?
        ))
    }
}

//! Agent Card signatures (spec 8.4): the transport's keys (`a2a_wire_smol::signing`, ring)
//! behind two classes, `NativeSigningKey` and `NativeCardKeySet`; every rule (the payload,
//! the header, which signature verifies) is the core's. `lib/signing.js` wraps them as the
//! package's `SigningKey` and `CardKeySet`.
//!
//! Key texts that are not usable keys are the caller's mistake: `TypeError`, with the
//! transport's reason. A card that cannot be signed, or whose signature does not verify, is a
//! `CardSignatureError`.

use crate::errors;
use a2a::signing::{CardSigner, SignatureError, Verification};
use a2a::v1;
use a2a_wire_smol::signing::{CardKeySet, SigningKey};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::json;
use std::sync::Arc;

/// A key-text error of the transport (`signing key: ...`) as the caller's `TypeError`.
fn key_error(e: a2a_wire_smol::Error) -> Error {
    match e {
        a2a_wire_smol::Error::Card(m) => errors::type_error(m),
        other => errors::type_error(format!("signing key: {other}")),
    }
}

/// A signature that cannot be made or does not verify, as `CardSignatureError`.
pub(crate) fn signature_error(e: &SignatureError) -> Error {
    errors::throw(json!({"class": "CardSignatureError", "message": e.to_string()}))
}

/// A private key that signs Agent Cards (ES256 or EdDSA). Its private half never leaves
/// Rust: nothing here returns it.
#[napi]
pub struct NativeSigningKey {
    pub(crate) key: Arc<SigningKey>,
}

#[napi]
impl NativeSigningKey {
    /// A private JWK (JSON text): EC P-256 (ES256) or OKP Ed25519 (EdDSA), with a `kid`.
    #[napi(factory, catch_unwind)]
    pub fn from_jwk(text: String) -> Result<Self> {
        Ok(NativeSigningKey { key: Arc::new(SigningKey::from_jwk(&text).map_err(key_error)?) })
    }

    /// A PKCS#8 private key in PEM, named `kid`.
    #[napi(factory, catch_unwind)]
    pub fn from_pem(pem: String, kid: String) -> Result<Self> {
        Ok(NativeSigningKey { key: Arc::new(SigningKey::from_pkcs8_pem(&pem, &kid).map_err(key_error)?) })
    }

    /// A key from a file's text: a private JWK (JSON; `kid`, when given, replaces its own)
    /// or a PKCS#8 PEM key (then `kid` is needed).
    #[napi(factory, catch_unwind)]
    pub fn from_text(text: String, kid: Option<String>) -> Result<Self> {
        Ok(NativeSigningKey { key: Arc::new(SigningKey::from_text(&text, kid.as_deref()).map_err(key_error)?) })
    }

    /// The key id (`kid`) its signatures name.
    #[napi(getter, catch_unwind)]
    pub fn kid(&self) -> String {
        self.key.kid().to_string()
    }

    /// The JWS algorithm: `"ES256"` or `"EdDSA"`.
    #[napi(getter, catch_unwind)]
    pub fn alg(&self) -> String {
        self.key.alg().to_string()
    }

    /// The public half as a JWK (JSON text, with `kid`, `alg` and `use: sig`).
    #[napi(catch_unwind)]
    pub fn public_jwk(&self) -> String {
        self.key.public_jwk().to_string()
    }

    /// `card` (ProtoJSON, checked) with one more signature by this key, `jku` in its header
    /// when given.
    #[napi(catch_unwind)]
    pub fn sign_card(&self, card: String, jku: Option<String>) -> Result<String> {
        let card: v1::AgentCard = crate::run::decode(&card)?;
        let signed = self.key.sign_card(&card, jku.as_deref()).map_err(|e| signature_error(&e))?;
        crate::run::json(&signed)
    }
}

/// The signature that verified.
#[napi(object, object_from_js = false)]
pub struct VerifiedSignature {
    /// Its position in the card's `signatures`.
    pub index: u32,
    pub kid: String,
    pub alg: String,
    /// The `jku` its header named, if any.
    pub jku: Option<String>,
    /// `"spec"` (the payload of spec 8.4.1) or `"sdk"` (the official SDKs' payload).
    pub form: String,
}

/// The public keys a verifier trusts, by `kid`.
#[napi]
pub struct NativeCardKeySet {
    pub(crate) keys: CardKeySet,
}

#[napi]
impl NativeCardKeySet {
    /// An empty key set.
    #[napi(constructor, catch_unwind)]
    pub fn new() -> Self {
        NativeCardKeySet { keys: CardKeySet::default() }
    }

    /// A JWKS document (`{"keys": [...]}`) or one JWK (JSON text); private members are
    /// ignored.
    #[napi(factory, catch_unwind)]
    pub fn from_jwks(text: String) -> Result<Self> {
        Ok(NativeCardKeySet { keys: CardKeySet::from_jwks(&text).map_err(key_error)? })
    }

    /// Adds one public JWK (JSON text); a key of the same `kid` is replaced.
    #[napi(catch_unwind)]
    pub fn insert(&mut self, jwk: String) -> Result<()> {
        let v: serde_json::Value = serde_json::from_str(&jwk).map_err(|e| errors::type_error(format!("signing key: not a JWK: {e}")))?;
        self.keys.insert(&v).map_err(key_error)
    }

    /// Adds the public half of `key`.
    #[napi(catch_unwind)]
    pub fn insert_key(&mut self, key: &NativeSigningKey) {
        self.keys = std::mem::take(&mut self.keys).with_key(&key.key);
    }

    /// The first signature of `card` (ProtoJSON, read as given: REQUIRED fields are not
    /// checked, a signature covers them as they are) that these keys verify. With
    /// `specFormOnly`, only the spec's payload counts (not the official SDKs' form).
    #[napi(catch_unwind)]
    pub fn verify_card(&self, card: String, spec_form_only: bool) -> Result<VerifiedSignature> {
        let card: v1::AgentCard = a2a::codec::json::decode_unchecked(card.as_bytes()).map_err(|e| errors::decode_error(&e))?;
        let v = self.keys.verify_card(&card, Verification { accept_sdk_form: !spec_form_only }).map_err(|e| signature_error(&e))?;
        let form = v.form.as_str().into();
        Ok(VerifiedSignature { index: u32::try_from(v.index).unwrap_or(u32::MAX), kid: v.kid, alg: v.alg, jku: v.jku, form })
    }
}

impl Default for NativeCardKeySet {
    fn default() -> Self {
        Self::new()
    }
}

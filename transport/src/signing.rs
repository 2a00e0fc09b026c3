//! The keys of Agent Card signatures (the core's [`a2a_wire::signing`] decides everything
//! else): ES256 (P-256) and EdDSA (Ed25519) with ring, from JWKs (RFC 7517) or PKCS#8 PEM.
//!
//! - [`SigningKey`]: a private key that signs a card ([`SigningKey::sign_card`]); a server
//!   publishes the signed cards ([`crate::ServerConfig::sign_cards`]).
//! - [`CardKeySet`]: the public keys a client trusts, by `kid` (a JWKS document); a client
//!   with [`crate::ClientOptions::card_keys`] checks the card it fetches, and with
//!   `require_signed_card` refuses one that is not signed by them.

use crate::Error;
use a2a_wire::signing::{self, CardKeys, CardSigner, SignatureError, Verification, Verified};
use a2a_wire::v1;
use ring::rand::SystemRandom;
use ring::signature::{self as sig, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _, UnparsedPublicKey};
use rustls_pki_types as pki_types;
use serde_json::{json, Value};
use std::path::Path;

fn key_error(m: impl std::fmt::Display) -> Error {
    Error::Card(format!("signing key: {m}"))
}

/// A member of a JWK that holds base64url bytes.
fn member(jwk: &Value, name: &str) -> Result<Vec<u8>, Error> {
    let text = jwk.get(name).and_then(Value::as_str).ok_or_else(|| key_error(format!("the JWK has no {name}")))?;
    signing::from_base64url(text).map_err(|e| key_error(format!("the JWK's {name}: {e}")))
}

fn text_member(jwk: &Value, name: &str) -> Option<String> {
    jwk.get(name).and_then(Value::as_str).map(String::from)
}

/// The algorithm a JWK is for: its `kty`/`crv`, and its `alg` when it names one.
fn jwk_alg(jwk: &Value) -> Result<&'static str, Error> {
    let alg = match (jwk.get("kty").and_then(Value::as_str), jwk.get("crv").and_then(Value::as_str)) {
        (Some("EC"), Some("P-256")) => "ES256",
        (Some("OKP"), Some("Ed25519")) => "EdDSA",
        (kty, crv) => return Err(key_error(format!("kty {kty:?} crv {crv:?} is neither EC P-256 (ES256) nor OKP Ed25519 (EdDSA)"))),
    };
    match jwk.get("alg").and_then(Value::as_str) {
        None => Ok(alg),
        Some(a) if a == alg => Ok(alg),
        Some(a) => Err(key_error(format!("the JWK says alg {a}, but its key is for {alg}"))),
    }
}

enum Private {
    Es256(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
}

/// A private key that signs Agent Cards.
pub struct SigningKey {
    kid: String,
    key: Private,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key stays out of logs.
        f.debug_struct("SigningKey").field("alg", &self.alg()).field("kid", &self.kid).finish_non_exhaustive()
    }
}

impl SigningKey {
    /// A private JWK: `{"kty":"EC","crv":"P-256","x","y","d","kid"}` or
    /// `{"kty":"OKP","crv":"Ed25519","x","d","kid"}` (`alg`, when present, must match).
    pub fn from_jwk(text: &str) -> Result<SigningKey, Error> {
        let jwk: Value = serde_json::from_str(text).map_err(|e| key_error(format!("not a JWK: {e}")))?;
        let alg = jwk_alg(&jwk)?;
        let kid = text_member(&jwk, "kid").filter(|k| !k.is_empty()).ok_or_else(|| key_error("the JWK has no kid"))?;
        let d = member(&jwk, "d")?;
        let key = match alg {
            "ES256" => {
                let mut point = vec![4u8];
                point.extend(member(&jwk, "x")?);
                point.extend(member(&jwk, "y")?);
                let pair =
                    EcdsaKeyPair::from_private_key_and_public_key(&sig::ECDSA_P256_SHA256_FIXED_SIGNING, &d, &point, &SystemRandom::new())
                        .map_err(|e| key_error(format!("the EC key does not load: {e}")))?;
                Private::Es256(pair)
            }
            _ => {
                let pair = Ed25519KeyPair::from_seed_and_public_key(&d, &member(&jwk, "x")?)
                    .map_err(|e| key_error(format!("the Ed25519 key does not load: {e}")))?;
                Private::Ed25519(pair)
            }
        };
        Ok(SigningKey { kid, key })
    }

    /// A PKCS#8 private key in PEM (`openssl genpkey -algorithm ed25519`, or a P-256 key
    /// converted with `openssl pkcs8 -topk8 -nocrypt`), named `kid`.
    pub fn from_pkcs8_pem(pem: &str, kid: &str) -> Result<SigningKey, Error> {
        if kid.is_empty() {
            return Err(key_error("a kid is needed"));
        }
        let der = match crate::tls::key_from_pem(pem.as_bytes())? {
            pki_types::PrivateKeyDer::Pkcs8(k) => k.secret_pkcs8_der().to_vec(),
            _ => return Err(key_error("the PEM key is not PKCS#8 (BEGIN PRIVATE KEY); convert it with openssl pkcs8 -topk8 -nocrypt")),
        };
        let key = if let Ok(pair) = Ed25519KeyPair::from_pkcs8_maybe_unchecked(&der) {
            Private::Ed25519(pair)
        } else {
            let pair = EcdsaKeyPair::from_pkcs8(&sig::ECDSA_P256_SHA256_FIXED_SIGNING, &der, &SystemRandom::new())
                .map_err(|e| key_error(format!("neither an Ed25519 nor a P-256 PKCS#8 key: {e}")))?;
            Private::Es256(pair)
        };
        Ok(SigningKey { kid: kid.to_string(), key })
    }

    /// A key from text: a private JWK (JSON; `kid`, when given, replaces its own), or a
    /// PKCS#8 PEM key named `kid`.
    pub fn from_text(text: &str, kid: Option<&str>) -> Result<SigningKey, Error> {
        let kid = kid.filter(|k| !k.is_empty());
        if text.trim_start().starts_with('{') {
            let key = SigningKey::from_jwk(text)?;
            return Ok(match kid {
                Some(k) => SigningKey { kid: k.to_string(), ..key },
                None => key,
            });
        }
        SigningKey::from_pkcs8_pem(text, kid.ok_or_else(|| key_error("a PEM key needs a kid"))?)
    }

    /// A key from a file: a private JWK (JSON), or a PKCS#8 PEM key named `kid` (see
    /// [`SigningKey::from_text`]).
    pub fn from_file(path: impl AsRef<Path>, kid: Option<&str>) -> Result<SigningKey, Error> {
        let p = path.as_ref();
        let text = std::fs::read_to_string(p).map_err(|e| key_error(format!("{}: {e}", p.display())))?;
        SigningKey::from_text(&text, kid).map_err(|e| match e {
            Error::Card(m) => Error::Card(format!("{}: {m}", p.display())),
            other => other,
        })
    }

    /// The public half as a JWK (with `kid`, `alg` and `use: sig`), for the verifiers' key set.
    pub fn public_jwk(&self) -> Value {
        match &self.key {
            Private::Es256(k) => {
                let p = k.public_key().as_ref();
                // An uncompressed P-256 point: 0x04, then x and y of 32 bytes each.
                let (x, y) = (p.get(1..33).unwrap_or_default(), p.get(33..65).unwrap_or_default());
                json!({"kty": "EC", "crv": "P-256", "x": signing::base64url(x), "y": signing::base64url(y), "kid": self.kid, "alg": "ES256", "use": "sig"})
            }
            Private::Ed25519(k) => json!({
                "kty": "OKP", "crv": "Ed25519", "x": signing::base64url(k.public_key().as_ref()), "kid": self.kid, "alg": "EdDSA", "use": "sig"
            }),
        }
    }

    /// `card` with one more signature by this key (`jku` in the header when given).
    pub fn sign_card(&self, card: &v1::AgentCard, jku: Option<&str>) -> Result<v1::AgentCard, SignatureError> {
        signing::sign(card, self, jku)
    }
}

impl CardSigner for SigningKey {
    fn alg(&self) -> &str {
        match self.key {
            Private::Es256(_) => "ES256",
            Private::Ed25519(_) => "EdDSA",
        }
    }
    fn kid(&self) -> &str {
        &self.kid
    }
    fn sign(&self, input: &[u8]) -> Result<Vec<u8>, String> {
        match &self.key {
            Private::Es256(k) => k.sign(&SystemRandom::new(), input).map(|s| s.as_ref().to_vec()).map_err(|e| format!("ES256: {e}")),
            Private::Ed25519(k) => Ok(k.sign(input).as_ref().to_vec()),
        }
    }
}

/// The public keys a verifier trusts, by `kid`.
#[derive(Clone, Debug, Default)]
pub struct CardKeySet {
    keys: Vec<(String, &'static str, Vec<u8>)>,
}

impl CardKeySet {
    /// A JWKS document (`{"keys":[...]}`) or one JWK; private members are ignored. Every key
    /// needs a `kid`; keys other than EC P-256 and OKP Ed25519 are refused.
    pub fn from_jwks(text: &str) -> Result<CardKeySet, Error> {
        let v: Value = serde_json::from_str(text).map_err(|e| key_error(format!("not a JWKS: {e}")))?;
        let list = match v.get("keys") {
            Some(Value::Array(keys)) => keys.clone(),
            Some(_) => return Err(key_error("the JWKS's keys is not a list")),
            None => vec![v],
        };
        let mut set = CardKeySet::default();
        for jwk in &list {
            set.insert(jwk)?;
        }
        if set.keys.is_empty() {
            return Err(key_error("the JWKS holds no key"));
        }
        Ok(set)
    }

    /// [`CardKeySet::from_jwks`] of a file's text.
    pub fn from_jwks_file(path: impl AsRef<Path>) -> Result<CardKeySet, Error> {
        let p = path.as_ref();
        let text = std::fs::read_to_string(p).map_err(|e| key_error(format!("{}: {e}", p.display())))?;
        Self::from_jwks(&text).map_err(|e| key_error(format!("{}: {e}", p.display())))
    }

    /// Adds one public JWK.
    pub fn insert(&mut self, jwk: &Value) -> Result<(), Error> {
        let kid = text_member(jwk, "kid").filter(|k| !k.is_empty()).ok_or_else(|| key_error("a JWK has no kid"))?;
        let alg = jwk_alg(jwk)?;
        let public = if alg == "ES256" {
            let mut p = vec![4u8];
            p.extend(member(jwk, "x")?);
            p.extend(member(jwk, "y")?);
            p
        } else {
            member(jwk, "x")?
        };
        self.keys.retain(|(k, _, _)| *k != kid);
        self.keys.push((kid, alg, public));
        Ok(())
    }

    /// Adds the public half of `key`.
    pub fn with_key(mut self, key: &SigningKey) -> Self {
        // A key's own public JWK always reads back.
        let _ = self.insert(&key.public_jwk());
        self
    }

    /// The first signature of `card` these keys verify (see [`a2a_wire::signing::verify`]).
    pub fn verify_card(&self, card: &v1::AgentCard, how: Verification) -> Result<Verified, SignatureError> {
        signing::verify(card, self, how)
    }
}

impl CardKeys for CardKeySet {
    fn verify(&self, alg: &str, kid: &str, _jku: Option<&str>, input: &[u8], signature: &[u8]) -> Result<(), String> {
        let Some((_, key_alg, public)) = self.keys.iter().find(|(k, _, _)| k == kid) else {
            return Err(format!("no trusted key has kid {kid}"));
        };
        if *key_alg != alg {
            return Err(format!("key {kid} is for {key_alg}, the signature says {alg}"));
        }
        let algorithm: &dyn sig::VerificationAlgorithm = if alg == "ES256" { &sig::ECDSA_P256_SHA256_FIXED } else { &sig::ED25519 };
        UnparsedPublicKey::new(algorithm, public)
            .verify(input, signature)
            .map_err(|_| format!("the {alg} signature by {kid} does not match the card"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 8037 appendix A.1's Ed25519 key; a P-256 key made for these tests.
    const ED: &str = r#"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"ed"}"#;
    const EC: &str = r#"{"kty":"EC","crv":"P-256","x":"ZN9Zn66EGLiHDvZ3dmPGJINDMCpZXvBnWoQsSLw5G0s","y":"VON8Xibfnq4ATbojtj8EarQk6oVSgpIIsv3PpZwoxYQ","d":"8sP4ik2dsHAPsIvt-PgY4fI4pUu7GW9uB9_4ThAewqY","kid":"ec"}"#;

    fn card() -> v1::AgentCard {
        v1::AgentCard { name: "Signed".into(), description: "d".into(), version: "1".into(), ..Default::default() }
    }

    #[test]
    fn both_algorithms_sign_and_verify_and_a_changed_card_fails() {
        for text in [ED, EC] {
            let key = SigningKey::from_jwk(text).unwrap();
            let signed = key.sign_card(&card(), None).unwrap();
            let keys = CardKeySet::default().with_key(&key);
            let ok = keys.verify_card(&signed, Verification::default()).unwrap();
            assert_eq!(ok.kid, key.kid());
            let mut changed = signed.clone();
            changed.version = "2".into();
            assert!(keys.verify_card(&changed, Verification::default()).is_err(), "{}", key.alg());
            // The other key's set does not verify it.
            let other = SigningKey::from_jwk(if text == ED { EC } else { ED }).unwrap();
            assert!(CardKeySet::default().with_key(&other).verify_card(&signed, Verification::default()).is_err());
        }
    }

    #[test]
    fn ed25519_signatures_are_deterministic_and_match_rfc_8037() {
        let key = SigningKey::from_jwk(ED).unwrap();
        // RFC 8037 A.4: the signature of the JWS input "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc".
        let s = key.sign(b"eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc").unwrap();
        assert_eq!(signing::base64url(&s), "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg");
        assert_eq!(key.public_jwk()["x"], "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo");
    }

    #[test]
    fn keys_must_say_what_they_are() {
        for bad in [
            r#"{"kty":"RSA","n":"x","e":"AQAB","kid":"r"}"#,
            r#"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#,
            r#"{"kty":"OKP","crv":"Ed25519","alg":"ES256","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"k"}"#,
            "not json",
            r#"{"keys":[]}"#,
        ] {
            assert!(CardKeySet::from_jwks(bad).is_err(), "{bad}");
        }
        assert!(
            SigningKey::from_jwk(r#"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"k"}"#).is_err(),
            "no d"
        );
        // A key set's key for one algorithm does not verify a signature claiming another.
        let ed = SigningKey::from_jwk(ED).unwrap();
        let mut jwk = ed.public_jwk();
        jwk["kid"] = "ec".into();
        let set = CardKeySet::default();
        let mut set2 = set.clone();
        set2.insert(&jwk).unwrap();
        let ec_signed = SigningKey::from_jwk(EC).unwrap().sign_card(&card(), None).unwrap();
        let Err(SignatureError::Invalid(r)) = set2.verify_card(&ec_signed, Verification::default()) else { panic!() };
        assert!(r[0].contains("is for EdDSA"), "{r:?}");
    }
}

//! Agent Card signatures (spec §8.4), sans-IO and without cryptography of its own: what is
//! signed, how a signature is carried, and which signature is good; the host brings the
//! keys ([`CardSigner`], [`CardKeys`]; the smol transport has them for ES256 and EdDSA).
//!
//! - **The payload** ([`payload`]) is the RFC 8785 canonical form ([`crate::jcs`]) of the
//!   card's ProtoJSON without `signatures`, following the proto's presence rules (§8.4.1):
//!   `optional` fields and messages exactly when set (even to a default), other fields
//!   omitted at their default, except REQUIRED ones, which are always there (`"skills":[]`,
//!   `"description":""`; the REQUIRED fields come from the protos' `field_behavior`,
//!   [`crate::proto::signing_schema`]).
//! - **The signature** is a JWS (RFC 7515) with a detached payload: `protected` is the
//!   base64url (unpadded) of the header JSON `{"alg","kid","typ":"JOSE"}` (and `jku` when
//!   given), `signature` the base64url of the signature over `protected.BASE64URL(payload)`.
//! - **Verification** ([`verify`]) tries each signature in turn: a header that does not
//!   parse, an algorithm outside [`ALGORITHMS`], a `crit` parameter, no `kid`, or a key the
//!   caller's key set does not have makes that signature fail, not the card; the first good
//!   one wins. `jku` is carried and shown to the key set but never fetched here: a URL the
//!   signer chose cannot vouch for the signer.
//!
//! ## The official SDKs' payload
//! The Python (`a2a-sdk`) and JS (`@a2a-js/sdk`) signers remove every empty value (`""`,
//! `[]`, `{}`, `null`), recursively and inside arrays, before JCS. For a card without empty
//! values the two payloads are the same bytes. They differ when a card holds an explicitly
//! set empty value, which §8.4.1 says the payload keeps: a REQUIRED empty field, an
//! `optional` string set to `""`, or, most often, a security requirement without scopes
//! (`{"schemes":{"bearer":{}}}`), which the SDKs leave out of what they sign. The spec's
//! form is right, and [`sign`] makes it; [`verify`] accepts a signature over the SDKs' form
//! too when asked ([`Verification::accept_sdk_form`]), so that cards signed by the official
//! SDKs verify, and reports which form matched.

use crate::jcs;
use crate::v1;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use serde_json::{Map, Value};

/// The algorithms a signature may use: ES256 (ECDSA P-256 with SHA-256, `r||s`) and EdDSA
/// (Ed25519). Every other `alg` (`none`, HMAC, ...) is refused.
pub const ALGORITHMS: &[&str] = &["ES256", "EdDSA"];

/// Which payload a signature covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PayloadForm {
    /// The spec's (§8.4.1): presence rules, REQUIRED fields always there.
    Spec,
    /// The official SDKs': every empty value removed (see the module docs).
    SdkEmptiesRemoved,
}

impl PayloadForm {
    /// Its name in the bindings' results: `spec` or `sdk`.
    pub fn as_str(self) -> &'static str {
        match self {
            PayloadForm::Spec => "spec",
            PayloadForm::SdkEmptiesRemoved => "sdk",
        }
    }
}

/// Why a card could not be signed or did not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignatureError {
    /// The card has no signature.
    Unsigned,
    /// No signature verified; one reason per signature, in order.
    Invalid(Vec<String>),
    /// The card or the signer cannot make a signature.
    Sign(String),
    /// A signed card is required, but the caller trusts no key.
    NoKeys,
    /// The card document is not a v1.0 Agent Card.
    Unreadable(String),
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureError::Unsigned => write!(f, "the agent card is not signed"),
            SignatureError::Invalid(reasons) => write!(f, "no signature of the agent card verifies: {}", reasons.join("; ")),
            SignatureError::Sign(m) => write!(f, "cannot sign the agent card: {m}"),
            SignatureError::NoKeys => write!(f, "a signed card is required, but no card keys are set"),
            SignatureError::Unreadable(m) => write!(f, "the agent card: {m}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SignatureError {}

/// Makes signatures (the host's key).
pub trait CardSigner {
    /// The JWS `alg` (one of [`ALGORITHMS`]).
    fn alg(&self) -> &str;
    /// The key id (`kid`).
    fn kid(&self) -> &str;
    /// The signature of `input` (for ES256 the 64 bytes `r||s`).
    fn sign(&self, input: &[u8]) -> Result<Vec<u8>, String>;
}

/// The keys a verifier trusts (the host's key set).
pub trait CardKeys {
    /// Checks `signature` over `input` with key `kid` for `alg`; `jku` is what the header
    /// named, for a key set that wants to tell sources apart. `Err` says why not.
    fn verify(&self, alg: &str, kid: &str, jku: Option<&str>, input: &[u8], signature: &[u8]) -> Result<(), String>;
}

/// How [`verify`] judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verification {
    /// Also accept a signature over the official SDKs' payload (see the module docs).
    pub accept_sdk_form: bool,
}

impl Default for Verification {
    /// The SDKs' form is accepted (cards they sign verify).
    fn default() -> Self {
        Verification { accept_sdk_form: true }
    }
}

/// The signature that verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// Its position in `signatures`.
    pub index: usize,
    /// Its key id.
    pub kid: String,
    /// Its algorithm.
    pub alg: String,
    /// The `jku` its header named, if any.
    pub jku: Option<String>,
    /// The payload it covers.
    pub form: PayloadForm,
}

/// A protected header, as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// `alg`.
    pub alg: String,
    /// `kid` (required by §8.4.2).
    pub kid: Option<String>,
    /// `jku`.
    pub jku: Option<String>,
    /// `typ` (`JOSE` as §8.4.2 asks; the Python SDK writes `JWT`).
    pub typ: Option<String>,
}

/// Unpadded base64url.
pub fn base64url(bytes: &[u8]) -> String {
    crate::proto::json::base64::encode(bytes).trim_end_matches('=').replace('+', "-").replace('/', "_")
}

/// Reads unpadded base64url (RFC 7515 §2); standard-alphabet characters and padding are
/// refused.
pub fn from_base64url(text: &str) -> Result<Vec<u8>, String> {
    if !text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return Err(String::from("not unpadded base64url"));
    }
    let mut std = text.replace('-', "+").replace('_', "/");
    while std.len() % 4 != 0 {
        std.push('=');
    }
    crate::proto::json::base64::decode(&std).map_err(|e| format!("not base64url: {e:?}"))
}

/// The payload `form` of `card` (see the module docs).
pub fn payload(card: &v1::AgentCard, form: PayloadForm) -> Result<Vec<u8>, SignatureError> {
    let json = crate::codec::json::encode(card).map_err(|e| SignatureError::Sign(e.to_string()))?;
    let mut value: Value = serde_json::from_slice(&json).map_err(|e| SignatureError::Sign(e.to_string()))?;
    if let Value::Object(m) = &mut value {
        m.remove("signatures");
    }
    match form {
        PayloadForm::Spec => keep_required(&mut value, "lf.a2a.v1.AgentCard"),
        PayloadForm::SdkEmptiesRemoved => {
            if !remove_empties(&mut value) {
                value = Value::Object(Map::new());
            }
        }
    }
    Ok(jcs::canonicalize(&value))
}

/// Puts back the REQUIRED fields the ProtoJSON printer left out at their default, in
/// message `type_name` and every message under it.
fn keep_required(value: &mut Value, type_name: &str) {
    let Value::Object(obj) = value else { return };
    for f in crate::proto::signing_schema::signing_fields(type_name) {
        if let (Some(default), false) = (f.required_default, obj.contains_key(f.json)) {
            // The generator writes each default as valid JSON (`""`, `[]`, `{}`, `0`, ...).
            if let Ok(v) = serde_json::from_str::<Value>(default) {
                obj.insert(String::from(f.json), v);
            }
        }
        let (Some(inner), Some(child)) = (f.message, obj.get_mut(f.json)) else { continue };
        match child {
            Value::Array(items) => items.iter_mut().for_each(|i| keep_required(i, inner)),
            Value::Object(entries) if f.map => entries.values_mut().for_each(|v| keep_required(v, inner)),
            other => keep_required(other, inner),
        }
    }
}

/// Removes every `""`, `null`, `[]` and `{}`, recursively (emptied containers go too);
/// false when `value` itself is empty.
fn remove_empties(value: &mut Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => {
            items.retain_mut(remove_empties);
            !items.is_empty()
        }
        Value::Object(m) => {
            m.retain(|_, v| remove_empties(v));
            !m.is_empty()
        }
        _ => true,
    }
}

/// The protected header's text for `alg`, `kid` and `jku`, in the order the official SDKs
/// write it (so that their protected values are the same bytes): `alg`, `kid`, `typ`, `jku`.
fn header_json(alg: &str, kid: &str, jku: Option<&str>) -> String {
    let s = |t: &str| Value::String(String::from(t)).to_string();
    let mut out = format!("{{\"alg\":{},\"kid\":{},\"typ\":\"JOSE\"", s(alg), s(kid));
    if let Some(j) = jku {
        out.push_str(&format!(",\"jku\":{}", s(j)));
    }
    out.push('}');
    out
}

/// Reads a `protected` value.
pub fn parse_header(protected: &str) -> Result<Header, String> {
    let bytes = from_base64url(protected)?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| format!("the protected header is not JSON: {e}"))?;
    let Value::Object(m) = v else { return Err(String::from("the protected header is not a JSON object")) };
    let text = |k: &str| -> Result<Option<String>, String> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("the header's {k} is not a string")),
        }
    };
    let alg = text("alg")?.ok_or_else(|| String::from("the header has no alg"))?;
    if m.contains_key("crit") {
        return Err(String::from("the header has crit parameters, which this verifier does not know"));
    }
    Ok(Header { alg, kid: text("kid")?, jku: text("jku")?, typ: text("typ")? })
}

/// The JWS signing input: `protected.BASE64URL(payload)`.
pub fn signing_input(protected: &str, payload: &[u8]) -> Vec<u8> {
    format!("{protected}.{}", base64url(payload)).into_bytes()
}

/// `card` with one more signature, by `signer`, over the spec's payload; `jku` goes into the
/// header when given.
pub fn sign(card: &v1::AgentCard, signer: &dyn CardSigner, jku: Option<&str>) -> Result<v1::AgentCard, SignatureError> {
    if !ALGORITHMS.contains(&signer.alg()) {
        return Err(SignatureError::Sign(format!("algorithm {} is not one of {}", signer.alg(), ALGORITHMS.join(", "))));
    }
    if signer.kid().is_empty() {
        return Err(SignatureError::Sign(String::from("the key has no kid (the header needs one, spec 8.4.2)")));
    }
    let protected = base64url(header_json(signer.alg(), signer.kid(), jku).as_bytes());
    let body = payload(card, PayloadForm::Spec)?;
    let signature = signer.sign(&signing_input(&protected, &body)).map_err(SignatureError::Sign)?;
    let mut signed = card.clone();
    signed.signatures.push(v1::AgentCardSignature { protected, signature: base64url(&signature), header: None });
    Ok(signed)
}

/// The first signature of `card` that `keys` verify (see the module docs).
pub fn verify(card: &v1::AgentCard, keys: &dyn CardKeys, how: Verification) -> Result<Verified, SignatureError> {
    if card.signatures.is_empty() {
        return Err(SignatureError::Unsigned);
    }
    let spec = payload(card, PayloadForm::Spec)?;
    let sdk = if how.accept_sdk_form { Some(payload(card, PayloadForm::SdkEmptiesRemoved)?).filter(|p| *p != spec) } else { None };
    let mut reasons = Vec::new();
    for (index, s) in card.signatures.iter().enumerate() {
        match verify_one(s, &spec, sdk.as_deref(), keys) {
            Ok((h, kid, form)) => return Ok(Verified { index, kid, alg: h.alg, jku: h.jku, form }),
            Err(r) => reasons.push(format!("signature {index}: {r}")),
        }
    }
    Err(SignatureError::Invalid(reasons))
}

/// What a client does with a card document it fetched: with `keys`, a card that carries
/// signatures must have one they verify, and an unsigned card is refused when `require`;
/// without keys, `require` refuses every card. Returns the signature that verified (`None`:
/// not checked, or unsigned and allowed). Signatures cover the v1.0 card as its document
/// holds it (not a v0.3 card's translation).
pub fn check_card_document(body: &[u8], keys: Option<&dyn CardKeys>, require: bool) -> Result<Option<Verified>, SignatureError> {
    let Some(keys) = keys else {
        return if require { Err(SignatureError::NoKeys) } else { Ok(None) };
    };
    let card: v1::AgentCard = crate::codec::json::decode_unchecked(body).map_err(|e| SignatureError::Unreadable(e.to_string()))?;
    match verify(&card, keys, Verification::default()) {
        Ok(v) => Ok(Some(v)),
        Err(SignatureError::Unsigned) if !require => Ok(None),
        Err(e) => Err(e),
    }
}

fn verify_one(
    s: &v1::AgentCardSignature,
    spec: &[u8],
    sdk: Option<&[u8]>,
    keys: &dyn CardKeys,
) -> Result<(Header, String, PayloadForm), String> {
    let h = parse_header(&s.protected)?;
    if !ALGORITHMS.contains(&h.alg.as_str()) {
        return Err(format!("algorithm {} is not accepted (only {})", h.alg, ALGORITHMS.join(", ")));
    }
    let kid = h.kid.clone().filter(|k| !k.is_empty()).ok_or_else(|| String::from("the header has no kid"))?;
    let signature = from_base64url(&s.signature).map_err(|e| format!("the signature: {e}"))?;
    let first = keys.verify(&h.alg, &kid, h.jku.as_deref(), &signing_input(&s.protected, spec), &signature);
    match (first, sdk) {
        (Ok(()), _) => Ok((h, kid, PayloadForm::Spec)),
        (Err(e), None) => Err(e),
        (Err(e), Some(sdk)) => match keys.verify(&h.alg, &kid, h.jku.as_deref(), &signing_input(&s.protected, sdk), &signature) {
            Ok(()) => Ok((h, kid, PayloadForm::SdkEmptiesRemoved)),
            Err(_) => Err(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test "signature": the input's FNV digest under a key id; enough to test everything
    /// but the cryptography, which the transport's tests cover.
    struct Fake(&'static str);

    fn digest(kid: &str, input: &[u8]) -> Vec<u8> {
        crate::webhook::fnv1a(kid.bytes().chain(input.iter().copied())).to_be_bytes().to_vec()
    }

    impl CardSigner for Fake {
        fn alg(&self) -> &str {
            "EdDSA"
        }
        fn kid(&self) -> &str {
            self.0
        }
        fn sign(&self, input: &[u8]) -> Result<Vec<u8>, String> {
            Ok(digest(self.0, input))
        }
    }

    impl CardKeys for Fake {
        fn verify(&self, _alg: &str, kid: &str, _jku: Option<&str>, input: &[u8], signature: &[u8]) -> Result<(), String> {
            if kid != self.0 {
                return Err(format!("no key {kid}"));
            }
            if digest(kid, input) == signature {
                Ok(())
            } else {
                Err(String::from("bad signature"))
            }
        }
    }

    fn card() -> v1::AgentCard {
        v1::AgentCard {
            name: String::from("Example Agent"),
            capabilities: Some(v1::AgentCapabilities { streaming: Some(false), push_notifications: Some(false), ..Default::default() }),
            ..Default::default()
        }
    }

    #[test]
    fn the_payload_follows_the_specs_example() {
        // §8.4.1's example: REQUIRED fields kept even empty, explicitly set optionals kept,
        // empty non-required lists dropped.
        let p = payload(&card(), PayloadForm::Spec).unwrap();
        let text = String::from_utf8(p).unwrap();
        assert!(
            text.starts_with(r#"{"capabilities":{"pushNotifications":false,"streaming":false},"defaultInputModes":[],"defaultOutputModes":[],"description":"","name":"Example Agent","#),
            "{text}"
        );
        assert!(
            text.contains(r#""skills":[]"#) && text.contains(r#""supportedInterfaces":[]"#) && text.contains(r#""version":"""#),
            "{text}"
        );
        // The SDKs' form drops every empty value.
        let sdk = String::from_utf8(payload(&card(), PayloadForm::SdkEmptiesRemoved).unwrap()).unwrap();
        assert_eq!(sdk, r#"{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}"#);
    }

    #[test]
    fn signatures_are_left_out_and_nested_required_fields_are_kept() {
        let mut c = card();
        c.skills.push(v1::AgentSkill { id: String::from("s"), ..Default::default() });
        c.security_requirements
            .push(v1::SecurityRequirement { schemes: [(String::from("bearer"), v1::StringList::default())].into_iter().collect() });
        let before = payload(&c, PayloadForm::Spec).unwrap();
        c.signatures.push(v1::AgentCardSignature { protected: String::from("x"), signature: String::from("y"), header: None });
        assert_eq!(payload(&c, PayloadForm::Spec).unwrap(), before, "signatures are not signed");
        let text = String::from_utf8(before).unwrap();
        assert!(text.contains(r#""skills":[{"description":"","id":"s","name":"","tags":[]}]"#), "{text}");
        assert!(text.contains(r#""securityRequirements":[{"schemes":{"bearer":{}}}]"#), "a requirement without scopes is signed: {text}");
        let sdk = String::from_utf8(payload(&c, PayloadForm::SdkEmptiesRemoved).unwrap()).unwrap();
        assert!(!sdk.contains("securityRequirements"), "the SDKs leave it out: {sdk}");
    }

    #[test]
    fn a_signed_card_verifies_and_any_change_breaks_it() {
        let signed = sign(&card(), &Fake("k1"), Some("https://example.com/jwks.json")).unwrap();
        let s = &signed.signatures[0];
        let h = parse_header(&s.protected).unwrap();
        assert_eq!(
            (h.alg.as_str(), h.kid.as_deref(), h.typ.as_deref(), h.jku.as_deref()),
            ("EdDSA", Some("k1"), Some("JOSE"), Some("https://example.com/jwks.json"))
        );
        assert_eq!(
            String::from_utf8(from_base64url(&s.protected).unwrap()).unwrap(),
            r#"{"alg":"EdDSA","kid":"k1","typ":"JOSE","jku":"https://example.com/jwks.json"}"#
        );
        let ok = verify(&signed, &Fake("k1"), Verification::default()).unwrap();
        assert_eq!((ok.index, ok.kid.as_str(), ok.form), (0, "k1", PayloadForm::Spec));
        let mut tampered = signed.clone();
        tampered.name.push('!');
        assert!(matches!(verify(&tampered, &Fake("k1"), Verification::default()), Err(SignatureError::Invalid(_))));
        // An unknown key, no signature at all.
        assert!(
            matches!(verify(&signed, &Fake("k2"), Verification::default()), Err(SignatureError::Invalid(r)) if r[0].contains("no key k1"))
        );
        assert_eq!(verify(&card(), &Fake("k1"), Verification::default()), Err(SignatureError::Unsigned));
    }

    #[test]
    fn bad_headers_fail_their_signature_and_the_next_good_one_wins() {
        let good = sign(&card(), &Fake("k1"), None).unwrap().signatures[0].clone();
        let with = |protected: String| v1::AgentCardSignature { protected, signature: good.signature.clone(), header: None };
        let b = |t: &str| base64url(t.as_bytes());
        let mut c = card();
        c.signatures = alloc::vec![
            with(String::from("***")),
            with(b("[]")),
            with(b(r#"{"alg":"none","kid":"k1"}"#)),
            with(b(r#"{"alg":"HS256","kid":"k1"}"#)),
            with(b(r#"{"alg":"EdDSA"}"#)),
            with(b(r#"{"alg":"EdDSA","kid":"k1","crit":["b64"]}"#)),
            with(format!("{}=", good.protected)),
            good.clone(),
        ];
        let ok = verify(&c, &Fake("k1"), Verification::default()).unwrap();
        assert_eq!(ok.index, 7);
        c.signatures.pop();
        let Err(SignatureError::Invalid(reasons)) = verify(&c, &Fake("k1"), Verification::default()) else { panic!() };
        assert_eq!(reasons.len(), 7);
        for (r, want) in reasons.iter().zip(["base64url", "not a JSON object", "none", "HS256", "no kid", "crit", "base64url"]) {
            assert!(r.contains(want), "{r} should say {want}");
        }
        // A header with jku null and typ JWT (what the Python SDK writes) is fine.
        let p = b(r#"{"alg":"EdDSA","jku":null,"kid":"k1","typ":"JWT"}"#);
        let h = parse_header(&p).unwrap();
        assert_eq!((h.jku, h.typ.as_deref()), (None, Some("JWT")));
    }

    #[test]
    fn a_signature_over_the_sdks_payload_verifies_only_when_accepted() {
        let mut c = card();
        c.security_requirements
            .push(v1::SecurityRequirement { schemes: [(String::from("bearer"), v1::StringList::default())].into_iter().collect() });
        // What an SDK makes: the same header, over the payload without empty values.
        let protected = base64url(header_json("EdDSA", "k1", None).as_bytes());
        let input = signing_input(&protected, &payload(&c, PayloadForm::SdkEmptiesRemoved).unwrap());
        c.signatures.push(v1::AgentCardSignature { protected, signature: base64url(&digest("k1", &input)), header: None });
        let ok = verify(&c, &Fake("k1"), Verification { accept_sdk_form: true }).unwrap();
        assert_eq!(ok.form, PayloadForm::SdkEmptiesRemoved);
        assert!(verify(&c, &Fake("k1"), Verification { accept_sdk_form: false }).is_err());
    }

    #[test]
    fn a_fetched_card_is_checked_as_the_callers_keys_and_requirement_say() {
        let signed = crate::codec::json::encode(&sign(&card(), &Fake("k1"), None).unwrap()).unwrap();
        let unsigned = crate::codec::json::encode(&card()).unwrap();
        let keys: &dyn CardKeys = &Fake("k1");
        assert_eq!(check_card_document(&signed, Some(keys), true).unwrap().map(|v| v.kid), Some(String::from("k1")));
        assert_eq!(check_card_document(&unsigned, Some(keys), false), Ok(None));
        assert_eq!(check_card_document(&unsigned, Some(keys), true), Err(SignatureError::Unsigned));
        assert_eq!(check_card_document(&signed, None, false), Ok(None), "no keys: not checked");
        assert_eq!(check_card_document(&signed, None, true), Err(SignatureError::NoKeys));
        assert!(matches!(check_card_document(&signed, Some(&Fake("k2")), false), Err(SignatureError::Invalid(_))));
        assert!(matches!(check_card_document(b"[]", Some(keys), false), Err(SignatureError::Unreadable(_))));
    }

    #[test]
    fn base64url_is_unpadded_and_strict() {
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        assert_eq!(from_base64url("-_8").unwrap(), [0xfb, 0xff]);
        for bad in ["+/8", "-_8=", "a b", "ä"] {
            assert!(from_base64url(bad).is_err(), "{bad}");
        }
    }
}

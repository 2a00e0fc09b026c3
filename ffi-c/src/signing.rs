//! Agent Card signatures (spec 8.4): `a2a_signing_key` signs a card (`a2a_card_sign`, or a
//! ready server with `a2a_server_config_set_signing_key`), `a2a_card_keys` is the set of
//! public keys a verifier trusts (`a2a_card_verify`, or a ready client with
//! `a2a_client_config_set_card_keys`). The payload, header and verification rules are the
//! core's (`a2a_wire::signing`); the keys are the transport's (ES256 and EdDSA with ring).

use crate::error::a2a_error;
use crate::{a2a_bytes, a2a_result, a2a_str, arg, arg_mut, box_out, bytes_arg, bytes_out, guard, guard_value, invalid, out, str_arg};
use a2a::signing::{CardSigner, Verification};
use a2a::v1;
use a2a_wire_smol::signing::{CardKeySet, SigningKey};
use core::ffi::c_char;
use std::sync::Arc;

/// A private key that signs Agent Cards (ES256 or EdDSA). Make it with
/// `a2a_signing_key_new` or `a2a_signing_key_from_file`, free it with
/// `a2a_signing_key_free`. Immutable: any thread, several at once.
pub struct a2a_signing_key {
    pub(crate) inner: Arc<SigningKey>,
    alg: &'static str,
}

/// The public keys a verifier trusts, by `kid`. Make it with `a2a_card_keys_new`, free it
/// with `a2a_card_keys_free`.
pub struct a2a_card_keys {
    pub(crate) inner: CardKeySet,
}

/// Flag for `a2a_card_verify`: accept only a signature over the spec's payload (8.4.1),
/// not one over the official SDKs' payload (which drops empty values; INTEROP.md).
pub const A2A_CARD_VERIFY_SPEC_FORM_ONLY: u32 = 1;

fn signature_error(m: impl core::fmt::Display) -> a2a_error {
    a2a_error::local(a2a_result::Signature, m.to_string())
}

fn key_error(e: a2a_wire_smol::Error) -> a2a_error {
    match e {
        a2a_wire_smol::Error::Card(m) => invalid(m),
        other => invalid(other.to_string()),
    }
}

/// The key `make` builds with the `kid` argument, written to `key_out`.
fn made_key(
    kid: *const c_char,
    kid_len: usize,
    key_out: *mut *mut a2a_signing_key,
    make: impl FnOnce(Option<&str>) -> Result<SigningKey, a2a_wire_smol::Error>,
) -> Result<(), a2a_error> {
    let o = out(key_out, "key_out")?;
    let key = make(crate::opt_str_arg(kid, kid_len, "kid")?).map_err(key_error)?;
    let alg = if key.alg() == "ES256" { "ES256" } else { "EdDSA" };
    box_out(o, a2a_signing_key { inner: Arc::new(key), alg });
    Ok(())
}

/// A signing key from `key`: a private JWK (`{"kty":"EC","crv":"P-256",...}` or
/// `{"kty":"OKP","crv":"Ed25519",...}`) or a PKCS#8 PEM private key. `kid` (NULL: the JWK's
/// own) names the key in each signature's header; a PEM key needs one.
/// `A2A_RESULT_INVALID_ARGUMENT` says what is wrong with the key (never its secret).
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_signing_key_new(
    key: *const c_char,
    key_len: usize,
    kid: *const c_char,
    kid_len: usize,
    key_out_: *mut *mut a2a_signing_key,
) -> a2a_result {
    guard(|| {
        let text = str_arg(key, key_len, "key")?;
        made_key(kid, kid_len, key_out_, |kid| SigningKey::from_text(text, kid))
    })
}

/// `a2a_signing_key_new` with the key read from the file at `path`.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_signing_key_from_file(
    path: *const c_char,
    path_len: usize,
    kid: *const c_char,
    kid_len: usize,
    key_out_: *mut *mut a2a_signing_key,
) -> a2a_result {
    guard(|| {
        let p = str_arg(path, path_len, "path")?;
        made_key(kid, kid_len, key_out_, |kid| SigningKey::from_file(p, kid))
    })
}

/// The key's id (`kid`), borrowed from `key` (empty for NULL).
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_signing_key_kid(key: *const a2a_signing_key) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(key, "key").map_or(&b""[..], |k| k.inner.kid().as_bytes())))
}

/// The key's JWS algorithm, `ES256` or `EdDSA` (static; empty for NULL).
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_signing_key_alg(key: *const a2a_signing_key) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(key, "key").map_or(&b""[..], |k| k.alg.as_bytes())))
}

/// The key's public half as a JWK (with `kid`, `alg` and `use: sig`), the entry to publish
/// in the verifiers' key set. Threads: any.
#[no_mangle]
pub extern "C" fn a2a_signing_key_public_jwk(key: *const a2a_signing_key, jwk_out: *mut *mut a2a_bytes) -> a2a_result {
    guard(|| {
        let k = arg(key, "key")?;
        let o = out(jwk_out, "jwk_out")?;
        bytes_out(o, k.inner.public_jwk().to_string().into_bytes());
        Ok(())
    })
}

/// Frees a key; NULL does nothing. A server or config that took the key keeps its own
/// reference. Threads: any, once.
#[no_mangle]
pub extern "C" fn a2a_signing_key_free(key: *mut a2a_signing_key) {
    guard_value((), || crate::free_box(key))
}

/// Signs the Agent Card `card_json` (v1.0 ProtoJSON, checked whole) with `key`: the card
/// with one more entry in `signatures`, a JWS with detached payload over the RFC 8785 form of
/// the card without `signatures` (spec 8.4.1). `jku` (NULL: none) goes in the header. Sign
/// last: a change to the card afterwards breaks the signature. `A2A_RESULT_DECODE` for a card
/// that does not decode, `A2A_RESULT_SIGNATURE` when the key cannot sign.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_card_sign(
    card_json: *const u8,
    card_json_len: usize,
    key: *const a2a_signing_key,
    jku: *const c_char,
    jku_len: usize,
    card_out: *mut *mut a2a_bytes,
) -> a2a_result {
    guard(|| {
        let k = arg(key, "key")?;
        let o = out(card_out, "card_out")?;
        let card: v1::AgentCard =
            a2a::codec::json::decode(bytes_arg(card_json, card_json_len, "card_json")?).map_err(|e| a2a_error::decode(&e))?;
        let jku = crate::opt_str_arg(jku, jku_len, "jku")?;
        let signed = k.inner.sign_card(&card, jku).map_err(signature_error)?;
        let json = a2a::codec::json::encode(&signed).map_err(|e| a2a_error::local(a2a_result::Encode, e.to_string()))?;
        bytes_out(o, json);
        Ok(())
    })
}

/// A key set from `jwks`: a JWKS document (`{"keys":[...]}`) or one JWK. Private members are
/// ignored; every key needs a `kid`; only EC P-256 (ES256) and OKP Ed25519 (EdDSA) keys are
/// taken. `A2A_RESULT_INVALID_ARGUMENT` says which key is wrong and why.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_card_keys_new(jwks: *const c_char, jwks_len: usize, keys_out: *mut *mut a2a_card_keys) -> a2a_result {
    guard(|| {
        let o = out(keys_out, "keys_out")?;
        let text = str_arg(jwks, jwks_len, "jwks")?;
        box_out(o, a2a_card_keys { inner: CardKeySet::from_jwks(text).map_err(key_error)? });
        Ok(())
    })
}

/// Adds the public half of `key` to `keys` (replacing a key with the same `kid`).
/// Threads: one at a time per key set.
#[no_mangle]
pub extern "C" fn a2a_card_keys_add_key(keys: *mut a2a_card_keys, key: *const a2a_signing_key) -> a2a_result {
    guard(|| {
        let set = arg_mut(keys, "keys")?;
        let k = arg(key, "key")?;
        set.inner.insert(&k.inner.public_jwk()).map_err(key_error)?;
        Ok(())
    })
}

/// Frees a key set; NULL does nothing. A client config that took it keeps its own copy.
/// Threads: any, once.
#[no_mangle]
pub extern "C" fn a2a_card_keys_free(keys: *mut a2a_card_keys) {
    guard_value((), || crate::free_box(keys))
}

/// Verifies the Agent Card `card_json` (v1.0 ProtoJSON, as its document holds it) against
/// `keys`: the first of its signatures the keys verify is described in `*verified_json_out`
/// as `{"index":0,"kid":"...","alg":"EdDSA","jku":null,"form":"spec"}` (`form` is `sdk` for
/// a signature over the official SDKs' payload, refused with
/// `A2A_CARD_VERIFY_SPEC_FORM_ONLY` in `flags`). `A2A_RESULT_SIGNATURE` when the card is
/// unsigned or no signature verifies (`a2a_error_last()` gives each signature's reason),
/// `A2A_RESULT_DECODE` when it is no card. Threads: any.
#[no_mangle]
pub extern "C" fn a2a_card_verify(
    card_json: *const u8,
    card_json_len: usize,
    keys: *const a2a_card_keys,
    flags: u32,
    verified_json_out: *mut *mut a2a_bytes,
) -> a2a_result {
    guard(|| {
        let set = arg(keys, "keys")?;
        let o = out(verified_json_out, "verified_json_out")?;
        if flags & !A2A_CARD_VERIFY_SPEC_FORM_ONLY != 0 {
            return Err(invalid(format!("unknown flags {flags:#x}")));
        }
        let card: v1::AgentCard =
            a2a::codec::json::decode_unchecked(bytes_arg(card_json, card_json_len, "card_json")?).map_err(|e| a2a_error::decode(&e))?;
        let how = Verification { accept_sdk_form: flags & A2A_CARD_VERIFY_SPEC_FORM_ONLY == 0 };
        let v = set.inner.verify_card(&card, how).map_err(signature_error)?;
        let json = serde_json::json!({"index": v.index, "kid": v.kid, "alg": v.alg, "jku": v.jku, "form": v.form.as_str()});
        bytes_out(o, json.to_string().into_bytes());
        Ok(())
    })
}

"""Agent Card signatures (spec 8.4) from Python: keys of both algorithms (ES256, EdDSA) from
JWKs, PEM and files, signing and verifying (a tampered card, another key, kid and jku
carried), bad key material refused with the right exception, the official SDK verifying our
signature, and the servers signing what they serve with clients checking it."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from hosts import base_card, mounted_card
from hosts import uvicorn_serving as serve

import a2a_wire as a
from a2a_wire.asgi import A2AApp
from a2a_wire.client import Client
from a2a_wire.server import AgentServer, Events, RequestContext
from a2a_wire.signing import CardKeySet, CardSignatureError, SigningKey, VerifiedSignature

#: RFC 8037's Ed25519 test key (A.1).
RFC8037 = {
    "kty": "OKP",
    "crv": "Ed25519",
    "d": "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A",
    "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def new_jwk(alg: str, kid: str) -> dict[str, Any]:
    """A fresh private JWK, made with the cryptography package (installed with the official
    SDK, through google-auth)."""
    if alg == "ES256":
        k = ec.generate_private_key(ec.SECP256R1())
        n = k.private_numbers()
        return {
            "kty": "EC", "crv": "P-256", "kid": kid,
            "x": b64(n.public_numbers.x.to_bytes(32, "big")),
            "y": b64(n.public_numbers.y.to_bytes(32, "big")),
            "d": b64(n.private_value.to_bytes(32, "big")),
        }
    e = ed25519.Ed25519PrivateKey.generate()
    return {"kty": "OKP", "crv": "Ed25519", "kid": kid, "x": b64(e.public_key().public_bytes_raw()), "d": b64(e.private_bytes_raw())}


def new_pem(alg: str) -> bytes:
    """A fresh PKCS#8 PEM private key."""
    k: Any = ec.generate_private_key(ec.SECP256R1()) if alg == "ES256" else ed25519.Ed25519PrivateKey.generate()
    pem: bytes = k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return pem


async def agent(ctx: RequestContext, events: Events) -> None:
    events.artifact(ctx.text, artifact_id="echo", last_chunk=True)
    events.complete()


@pytest.mark.parametrize("alg", ["ES256", "EdDSA"])
def test_sign_and_verify(alg: str) -> None:
    jwk = new_jwk(alg, f"kid-{alg}")
    key = SigningKey.from_jwk(jwk)
    assert (key.kid, key.alg) == (f"kid-{alg}", alg)
    assert SigningKey.from_jwk(json.dumps(jwk)).public_jwk() == key.public_jwk(), "text and mapping read the same"
    public = key.public_jwk()
    assert "d" not in public and public["kid"] == key.kid and public["alg"] == alg and public["use"] == "sig"
    assert jwk["d"] not in repr(key) and repr(key) == f"SigningKey(alg={alg!r}, kid='kid-{alg}')"

    card = base_card()
    signed = key.sign_card(card, jku="https://keys.example/jwks.json")
    assert len(signed.signatures) == 1 and card.signatures == ()
    assert signed.replace(signatures=None) == card, "signing adds a signature and changes nothing else"
    header = json.loads(base64.urlsafe_b64decode(signed.signatures[0].protected + "=="))
    assert header == {"alg": alg, "kid": key.kid, "jku": "https://keys.example/jwks.json", "typ": "JOSE"}

    for keys in (CardKeySet([key]), CardKeySet([public]), CardKeySet.from_jwks({"keys": [public]}), CardKeySet.from_jwks(json.dumps(public))):
        v = keys.verify_card(signed)
        assert isinstance(v, VerifiedSignature)
        assert (v.index, v.kid, v.alg, v.jku, v.form) == (0, key.kid, alg, "https://keys.example/jwks.json", "spec")
        assert keys.verify_card(signed, spec_form_only=True) == v and hash(keys.verify_card(signed)) == hash(v)
    # Without jku the header has none.
    assert CardKeySet([key]).verify_card(key.sign_card(card)).jku is None

    # A tampered card, another key under the same kid, and an unsigned card all fail.
    keys = CardKeySet([key])
    with pytest.raises(CardSignatureError, match="does not match the card"):
        keys.verify_card(signed.replace(description="something else"))
    impostor = SigningKey.from_jwk(new_jwk(alg, key.kid))
    with pytest.raises(CardSignatureError, match="does not match the card"):
        CardKeySet([impostor]).verify_card(signed)
    with pytest.raises(CardSignatureError, match="no trusted key has kid"):
        CardKeySet([SigningKey.from_jwk(new_jwk(alg, "someone-else"))]).verify_card(signed)
    with pytest.raises(CardSignatureError, match="not signed"):
        keys.verify_card(card)
    assert issubclass(CardSignatureError, a.CardError) and a.CardSignatureError is CardSignatureError


def test_two_signatures_the_second_verifies_and_keys_are_added() -> None:
    ed = SigningKey.from_jwk({**RFC8037, "kid": "rfc8037"})
    assert ed.alg == "EdDSA" and ed.public_jwk()["x"] == RFC8037["x"]
    other = SigningKey.from_jwk(new_jwk("ES256", "es"))
    both = other.sign_card(ed.sign_card(base_card()))
    keys = CardKeySet()
    with pytest.raises(CardSignatureError, match="no trusted key"):
        keys.verify_card(both)
    keys.add(other.public_jwk())
    v = keys.verify_card(both)
    assert (v.index, v.kid) == (1, "es")
    keys.add(ed)
    assert keys.verify_card(both).index == 0


@pytest.mark.parametrize("alg", ["ES256", "EdDSA"])
def test_pem_and_file_keys(alg: str, tmp_path: Path) -> None:
    pem = new_pem(alg)
    from_bytes = SigningKey.from_pem(pem, "pem-key")
    from_text = SigningKey.from_pem(pem.decode(), "pem-key")
    assert (from_bytes.alg, from_bytes.kid) == (alg, "pem-key") and from_bytes.public_jwk() == from_text.public_jwk()
    (tmp_path / "key.pem").write_bytes(pem)
    from_file = SigningKey.from_file(tmp_path / "key.pem", kid="file-key")
    assert from_file.kid == "file-key" and from_file.public_jwk()["x"] == from_bytes.public_jwk()["x"]
    with pytest.raises(ValueError, match="needs a kid"):
        SigningKey.from_file(tmp_path / "key.pem")
    jwk = new_jwk(alg, "own-kid")
    (tmp_path / "key.jwk").write_text(json.dumps(jwk))
    assert SigningKey.from_file(str(tmp_path / "key.jwk")).kid == "own-kid"
    assert SigningKey.from_file(tmp_path / "key.jwk", "renamed").kid == "renamed"
    (tmp_path / "jwks.json").write_text(json.dumps({"keys": [from_file.public_jwk()]}))
    keys = CardKeySet.from_file(tmp_path / "jwks.json")
    assert keys.verify_card(from_file.sign_card(base_card())).kid == "file-key"
    with pytest.raises(FileNotFoundError) as missing:
        SigningKey.from_file(tmp_path / "nope.jwk")
    assert missing.value.filename == str(tmp_path / "nope.jwk")
    with pytest.raises(FileNotFoundError):
        CardKeySet.from_file(tmp_path / "nope.json")


def test_bad_key_material_is_a_value_error_naming_what_is_wrong() -> None:
    cases: list[tuple[Any, str]] = [
        ("not json", "not a JWK"),
        ({"kty": "RSA", "n": "AQAB", "e": "AQAB", "d": "AQAB", "kid": "r"}, "neither EC P-256"),
        ({k: v for k, v in RFC8037.items()}, "no kid"),
        ({**RFC8037, "kid": "k", "alg": "ES256"}, "alg ES256"),
        ({**RFC8037, "kid": "k", "d": "@@@"}, "the JWK's d"),
    ]
    for jwk, words in cases:
        with pytest.raises(ValueError, match=words):
            SigningKey.from_jwk(jwk)
    with pytest.raises(TypeError, match="jwk: expected str or a mapping, got int"):
        SigningKey.from_jwk(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        SigningKey.from_pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "k")
    with pytest.raises(ValueError, match="kid is needed"):
        SigningKey.from_pem(new_pem("EdDSA"), "")
    with pytest.raises(ValueError, match="holds no key"):
        CardKeySet.from_jwks({"keys": []})
    with pytest.raises(ValueError, match=r"keys\[1\]: .*no kid"):
        CardKeySet([{**RFC8037, "kid": "ok"}, {"kty": "OKP", "crv": "Ed25519", "x": RFC8037["x"]}])
    with pytest.raises(TypeError, match="CardKeySet.from_jwks reads a JWKS"):
        CardKeySet({"keys": []})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="key: expected SigningKey or a JWK mapping, got int"):
        CardKeySet().add(7)  # type: ignore[arg-type]


def test_the_official_sdk_verifies_our_signatures() -> None:
    import jwt  # a2a-sdk's signing extra (tests/requirements.txt)
    from a2a.client.card_resolver import parse_agent_card
    from a2a.utils import signing as sdk_signing

    keys = [SigningKey.from_jwk(new_jwk("ES256", "sdk-es")), SigningKey.from_jwk(new_jwk("EdDSA", "sdk-ed"))]
    public = {k.kid: k.public_jwk() for k in keys}

    def key_provider(kid: str | None, jku: str | None) -> Any:
        if kid in public:
            return jwt.PyJWK(public[kid])
        raise jwt.exceptions.PyJWKError(f"no key {kid!r}")

    verify = sdk_signing.create_signature_verifier(key_provider, algorithms=["ES256", "EdDSA"])
    # A card without empty values: the SDK signs and verifies a payload without them (see
    # INTEROP.md), which is then the spec's payload too.
    skill = a.AgentSkill(id="echo", name="echo", description="echoes", tags=["text"])
    card = mounted_card("http://127.0.0.1:1").replace(skills=[skill])
    for key in keys:
        signed = key.sign_card(card)
        verify(parse_agent_card(json.loads(signed.to_json())))  # raises when it does not verify
        tampered = signed.replace(name="not what was signed")
        with pytest.raises(sdk_signing.SignatureVerificationError):
            verify(parse_agent_card(json.loads(tampered.to_json())))


async def test_the_ready_server_signs_and_the_client_checks() -> None:
    key = SigningKey.from_jwk(new_jwk("ES256", "server-key"))
    trusted = CardKeySet([key])
    strangers = CardKeySet([SigningKey.from_jwk(new_jwk("ES256", "server-key"))])
    async with AgentServer(agent, card=base_card(), signing_key=key, card_jku="https://keys.example/jwks.json") as s:
        v = trusted.verify_card(s.card)
        assert (v.kid, v.jku) == ("server-key", "https://keys.example/jwks.json")
        async with await Client.connect(s.url, card_keys=trusted, require_signed_card=True) as c:
            assert c.card == s.card and trusted.verify_card(c.card).kid == "server-key"
            t = await c.send_message("signed")
            assert isinstance(t, a.Task) and t.status is not None and t.status.state is a.TaskState.COMPLETED
        with pytest.raises(CardSignatureError, match="does not match the card"):
            await Client.connect(s.url, card_keys=strangers)
    async with AgentServer(agent, card=base_card()) as unsigned:
        with pytest.raises(CardSignatureError, match="not signed"):
            await Client.connect(unsigned.url, card_keys=trusted, require_signed_card=True)
        # Keys without require_signed_card: an unsigned card is taken (only a bad signature is refused).
        async with await Client.connect(unsigned.url, card_keys=trusted) as c:
            assert c.card.signatures == ()
        with pytest.raises(ValueError, match="require_signed_card needs card_keys"):
            await Client.connect(unsigned.url, require_signed_card=True)
    with pytest.raises(ValueError, match="card_jku is given without signing_key"):
        async with AgentServer(agent, card=base_card(), card_jku="https://keys.example/jwks.json"):
            pass


async def test_the_asgi_app_serves_its_card_signed() -> None:
    key = SigningKey.from_jwk({**RFC8037, "kid": "asgi"})

    def app_for(base: str) -> A2AApp:
        return A2AApp(agent, mounted_card(base), signing_key=key, card_jku="https://keys.example/asgi.json")

    async with serve(app_for) as base:
        async with await Client.connect(base, card_keys=CardKeySet([key]), require_signed_card=True) as c:
            v = CardKeySet([key]).verify_card(c.card)
            assert (v.kid, v.alg, v.jku) == ("asgi", "EdDSA", "https://keys.example/asgi.json")
            t = await c.send_message("hi")
            assert isinstance(t, a.Task)
        with pytest.raises(CardSignatureError):
            await Client.connect(base, card_keys=CardKeySet([SigningKey.from_jwk(new_jwk("EdDSA", "asgi"))]))
    with pytest.raises(ValueError, match="card_jku is given without signing_key"):
        await A2AApp(agent, base_card(), card_jku="https://x.example/k")({"type": "http"}, _never, _never)


async def _never(*_: Any) -> Any:
    raise AssertionError("the app should have refused its settings first")

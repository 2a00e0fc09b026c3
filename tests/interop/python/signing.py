"""Agent Card signatures with the official Python SDK's own functions (a2a.utils.signing),
for the cross-SDK signature check of tests/interop/run.py.

    signing.py gen-keys DIR              writes es256.jwk, eddsa.jwk (private) and jwks.json
    signing.py sign KEY.jwk CARD OUT     the SDK signs CARD (header alg, kid, typ JOSE)
    signing.py verify JWKS CARD          exit 0 when the SDK verifies a signature, 1 when not
"""

import json
import sys
from pathlib import Path

from a2a.client.card_resolver import parse_agent_card
from a2a.utils.signing import SignatureVerificationError, create_agent_card_signer, create_signature_verifier
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from google.protobuf.json_format import MessageToDict
from jwt import PyJWK
from jwt.algorithms import ECAlgorithm, OKPAlgorithm
from jwt.exceptions import PyJWKError


def gen_keys(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    es = ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()), as_dict=True)
    ed = OKPAlgorithm.to_jwk(ed25519.Ed25519PrivateKey.generate(), as_dict=True)
    es.update(kid="interop-es256", alg="ES256")
    ed.update(kid="interop-eddsa", alg="EdDSA")
    (out / "es256.jwk").write_text(json.dumps(es))
    (out / "eddsa.jwk").write_text(json.dumps(ed))
    public = [{k: v for k, v in j.items() if k != "d"} for j in (es, ed)]
    (out / "jwks.json").write_text(json.dumps({"keys": public}))


def load_card(path: str):
    return parse_agent_card(json.loads(Path(path).read_text()))


def sign(key_file: str, card_file: str, out: str) -> None:
    jwk = json.loads(Path(key_file).read_text())
    signer = create_agent_card_signer(signing_key=PyJWK(jwk), protected_header={"alg": jwk["alg"], "kid": jwk["kid"], "typ": "JOSE"})
    Path(out).write_text(json.dumps(MessageToDict(signer(load_card(card_file)))))


def verify(jwks_file: str, card_file: str) -> int:
    keys = json.loads(Path(jwks_file).read_text())["keys"]

    def key_provider(kid, jku):
        for k in keys:
            if k.get("kid") == kid:
                return PyJWK(k)
        # The SDK moves on to the next signature only after a PyJWTError.
        raise PyJWKError(f"no key {kid!r}")

    try:
        create_signature_verifier(key_provider, algorithms=["ES256", "EdDSA"])(load_card(card_file))
    except SignatureVerificationError as e:
        print(f"not verified: {type(e).__name__}: {e}")
        return 1
    print("verified")
    return 0


def main() -> int:
    cmd, *rest = sys.argv[1:]
    if cmd == "gen-keys":
        gen_keys(Path(rest[0]))
        return 0
    if cmd == "sign":
        sign(*rest)
        return 0
    if cmd == "verify":
        return verify(*rest)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

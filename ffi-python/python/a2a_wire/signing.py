"""Agent Card signatures (A2A spec 8.4): sign the card you serve, check the card you fetch.

::

    from a2a_wire.signing import CardKeySet, SigningKey

    key = SigningKey.from_file("card-key.jwk")                   # or from_jwk / from_pem
    signed = key.sign_card(card, jku="https://agent.example/jwks.json")
    keys = CardKeySet([key.public_jwk()])                         # what a verifier trusts
    keys.verify_card(signed)                                      # VerifiedSignature(index=0, kid=..., ...)

Servers sign for you: ``AgentServer(..., signing_key=key)`` and ``A2AApp(...,
signing_key=key)`` publish their card and extended cards signed. Clients check:
``Client.connect(url, card_keys=keys)`` refuses a signed card none of whose signatures
verifies, and with ``require_signed_card=True`` an unsigned one, raising
:class:`~a2a_wire.errors.CardSignatureError`.

Two algorithms: ES256 (ECDSA P-256) and EdDSA (Ed25519); keys come as JWKs (RFC 7517) or
PKCS#8 PEM. What is signed (the RFC 8785 form of the card without its signatures) and which
signature is good are the Rust core's rules; the cryptography is ring's. Bad key material
raises ``ValueError``; a file that cannot be opened ``OSError``.
"""

from __future__ import annotations

from ._a2a_wire import CardKeySet, SigningKey, VerifiedSignature
from .errors import CardSignatureError

__all__ = ["SigningKey", "CardKeySet", "VerifiedSignature", "CardSignatureError"]

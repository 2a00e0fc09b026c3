"""Version negotiation, interface selection and Agent Cards of either version.

Each function is one call into the Rust core, so a Python client or server decides exactly
as every other a2a-wire binding does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from . import _a2a_wire

if TYPE_CHECKING:
    from ._model import AgentCard

__all__ = ["BINDINGS", "VERSIONS", "SelectedInterface", "negotiate", "select_interface", "read_card", "transcode"]

#: The three protocol bindings, in a2a-wire's order of preference.
BINDINGS: tuple[str, ...] = ("JSONRPC", "HTTP+JSON", "GRPC")
#: The protocol versions a2a-wire speaks, most preferred first.
VERSIONS: tuple[str, ...] = ("1.0", "0.3")


class SelectedInterface(NamedTuple):
    """The interface of a card a client uses."""

    url: str
    binding: str
    version: str
    tenant: str
    #: The position of the entry in ``card.supported_interfaces``.
    entry_index: int


def negotiate(requested: str | None, supported: Sequence[str]) -> str:
    """The version a request is served with.

    ``requested`` is the raw ``A2A-Version`` value (None or blank means 0.3, spec 3.6.2).
    Raises ``VersionNotSupportedError`` (with ``requestedVersion`` and ``supportedVersions``
    in its metadata) when ``supported`` does not have it.
    """
    result: str = _a2a_wire.negotiate(requested, list(supported))
    return result


def select_interface(
    card: AgentCard, *, bindings: Sequence[str] = BINDINGS, versions: Sequence[str] = VERSIONS
) -> SelectedInterface:
    """The interface of ``card`` to use: the card's first entry whose binding the client
    speaks decides the binding; among that binding's entries the client's most preferred
    version wins. Raises ``CannotSendError`` listing what the card offers when none is usable.
    """
    return SelectedInterface(*_a2a_wire._select_interface(card, list(bindings), list(versions)))


def read_card(data: str | bytes) -> tuple[AgentCard, str]:
    """Reads an Agent Card document of either version: v0.3 fields (``url``,
    ``preferredTransport``, ``additionalInterfaces``) become ``supported_interfaces``.
    Returns the card and its shape: ``"1.0"``, ``"0.3"`` or ``"both"``.
    """
    card, shape = _a2a_wire.read_card(data)
    return card, shape


def transcode(type_name: str, data: str | bytes, source: str = "json", target: str = "json", *, validate: bool = True) -> bytes:
    """A message chosen by full proto name (``"lf.a2a.v1.Task"``, ``"google.protobuf.Timestamp"``)
    from one wire format to the other: ``"json"`` (ProtoJSON) or ``"protobuf"``. JSON comes
    out canonical (compact, fields in field-number order). Raises ``ValidationError`` as the
    model classes do."""
    result: bytes = _a2a_wire.transcode(type_name, data, source, target, validate=validate)
    return result

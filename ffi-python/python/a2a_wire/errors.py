"""The exceptions of a2a_wire.

Every exception the package defines derives from one root, :class:`Error`, in three families:

- :class:`A2AError` and one subclass per A2A error kind (``TaskNotFoundError``, ...). A client
  raises them when the peer answered with an A2A error; an authenticator raises them to
  refuse a call (the service renders them on the call's binding), and an agent that raises
  one fails its task with its message. Each carries the JSON-RPC ``code``, the ``ErrorInfo``
  ``reason``, the ``message``, the ``metadata``, the field ``violations`` and, when received,
  the ``binding`` it came by with the ``wire_status`` seen there (HTTP status, gRPC code or
  JSON-RPC code; None when the transport does not report it, as for our client's calls).
- :class:`ClientError`: what a client meets that is not an A2A error - a status without A2A
  meaning such as a proxy's bare 404 (:class:`NotA2AError`, never read as TaskNotFound), an
  answer that breaks the protocol (:class:`ProtocolError`), a request the chosen interface
  cannot express (:class:`CannotSendError`), no connection (:class:`TransportError`), or a
  card that cannot be used (:class:`CardError`; :class:`CardSignatureError` when its
  signature does not verify).
  A call that outlives its deadline raises :class:`CallTimeoutError`, which is also the
  built-in ``TimeoutError``; a call on a closed client :class:`ClientClosedError` (also a
  ``RuntimeError``).
- :class:`ValidationError` (also a ``ValueError``): bytes or values that do not make a valid
  message, naming the JSON path of the offending field; :class:`EncodeError` (also a
  ``ValueError``) a value its wire format cannot carry.

``except a2a_wire.Error`` catches them all; a bad argument (a wrong type, a negative count) is
the built-in ``TypeError`` or ``ValueError``, as everywhere in Python.

The wire forms (codes, statuses, reasons) come from the Rust core's error table; this module
only gives them Python classes.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from . import _a2a_wire

__all__ = [
    "Error",
    "A2AError",
    "TaskNotFoundError",
    "TaskNotCancelableError",
    "PushNotificationNotSupportedError",
    "UnsupportedOperationError",
    "ContentTypeNotSupportedError",
    "InvalidAgentResponseError",
    "ExtendedAgentCardNotConfiguredError",
    "ExtensionSupportRequiredError",
    "VersionNotSupportedError",
    "JSONParseError",
    "InvalidRequestError",
    "MethodNotFoundError",
    "InvalidParamsError",
    "InternalError",
    "UnauthenticatedError",
    "PermissionDeniedError",
    "UnavailableError",
    "FieldViolation",
    "ClientError",
    "NotA2AError",
    "ProtocolError",
    "CannotSendError",
    "TransportError",
    "TLSError",
    "CallTimeoutError",
    "ClientClosedError",
    "CardError",
    "CardSignatureError",
    "ValidationError",
    "JsonSyntaxError",
    "InvalidValueError",
    "MissingFieldError",
    "ProtobufError",
    "ConversionError",
    "EncodeError",
    "classify_http",
    "classify_grpc",
    "classify_jsonrpc",
]


def _rebuild(cls: type[Exception], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Exception:
    return cls(*args, **kwargs)


class FieldViolation(NamedTuple):
    """One offending field: its JSON path (``message.parts[2]``) and what is wrong."""

    field: str
    description: str


class Error(Exception):
    """The root of every exception a2a_wire defines."""


class A2AError(Error):
    """An A2A error. Subclasses name the kind; ``A2AError.from_kind`` finds one by name."""

    kind: ClassVar[str] = ""
    number: ClassVar[int] = 0
    code: ClassVar[int] = 0
    reason: ClassVar[str] = ""
    http_status: ClassVar[int] = 0
    grpc_status: ClassVar[int] = 0
    default_message: ClassVar[str] = ""

    message: str
    metadata: dict[str, str]
    violations: list[FieldViolation]
    binding: str | None
    wire_status: int | None

    def __init__(
        self,
        message: str | None = None,
        *,
        metadata: dict[str, str] | None = None,
        violations: list[FieldViolation] | list[tuple[str, str]] | None = None,
        binding: str | None = None,
        wire_status: int | None = None,
    ) -> None:
        if type(self) is A2AError:
            raise TypeError("A2AError is abstract: raise one of its subclasses (A2AError.from_kind finds one)")
        self.message = self.default_message if message is None else message
        self.metadata = dict(metadata or {})
        self.violations = [FieldViolation(*v) for v in (violations or [])]
        self.binding = binding
        self.wire_status = wire_status
        super().__init__(self.message)

    def __repr__(self) -> str:
        extra = f", metadata={self.metadata!r}" if self.metadata else ""
        return f"{type(self).__name__}({self.message!r}{extra})"

    def __reduce__(self) -> Any:
        kw = {
            "metadata": self.metadata,
            "violations": self.violations,
            "binding": self.binding,
            "wire_status": self.wire_status,
        }
        return (_rebuild, (type(self), (self.message,), kw))

    @staticmethod
    def from_kind(kind: str) -> type[A2AError]:
        """The subclass of an error kind by its name (``"TaskNotFound"``)."""
        try:
            return _BY_KIND[kind]
        except KeyError:
            raise ValueError(f"no A2A error kind {kind!r}") from None

    def to_jsonrpc(self) -> dict[str, Any]:
        """The JSON-RPC ``error`` object (``code``, ``message``, ``data`` with ErrorInfo)."""
        result: dict[str, Any] = _a2a_wire._render_error(self, "jsonrpc")
        return result

    def to_http(self, version: str = "1.0") -> tuple[int, dict[str, Any]]:
        """The HTTP+JSON status and body (AIP-193 ``google.rpc.Status``; v0.3 shape for ``"0.3"``)."""
        status, body = _a2a_wire._render_error(self, "http-0.3" if version == "0.3" else "http")
        return int(status), body

    def to_grpc(self) -> tuple[int, str, bytes]:
        """The gRPC status code, message and ``grpc-status-details-bin`` (``google.rpc.Status`` bytes)."""
        code, message, details = _a2a_wire._render_error(self, "grpc")
        return int(code), str(message), bytes(details)


class TaskNotFoundError(A2AError):
    """The task does not exist or the caller may not see it."""

    kind = "TaskNotFound"


class TaskNotCancelableError(A2AError):
    """The task is in a terminal state and cannot be canceled."""

    kind = "TaskNotCancelable"


class PushNotificationNotSupportedError(A2AError):
    """The agent does not support push notifications."""

    kind = "PushNotificationNotSupported"


class UnsupportedOperationError(A2AError):
    """The operation, or an aspect of it, is not supported."""

    kind = "UnsupportedOperation"


class ContentTypeNotSupportedError(A2AError):
    """A media type in the request is not supported."""

    kind = "ContentTypeNotSupported"


class InvalidAgentResponseError(A2AError):
    """An agent produced a response that does not conform to the spec."""

    kind = "InvalidAgentResponse"


class ExtendedAgentCardNotConfiguredError(A2AError):
    """The card declares an extended card, but none is configured."""

    kind = "ExtendedAgentCardNotConfigured"


class ExtensionSupportRequiredError(A2AError):
    """The client did not declare an extension the agent requires."""

    kind = "ExtensionSupportRequired"


class VersionNotSupportedError(A2AError):
    """The requested protocol version is not served by this interface."""

    kind = "VersionNotSupported"


class JSONParseError(A2AError):
    """The body is not JSON (JSON-RPC -32700)."""

    kind = "JsonParse"


class InvalidRequestError(A2AError):
    """Not a valid request envelope (JSON-RPC -32600)."""

    kind = "InvalidRequest"


class MethodNotFoundError(A2AError):
    """No such method (JSON-RPC -32601)."""

    kind = "MethodNotFound"


class InvalidParamsError(A2AError):
    """Invalid parameters, with the field violations (JSON-RPC -32602)."""

    kind = "InvalidParams"


class InternalError(A2AError):
    """An internal failure (JSON-RPC -32603)."""

    kind = "Internal"


class UnauthenticatedError(A2AError):
    """Missing or invalid credentials."""

    kind = "Unauthenticated"


class PermissionDeniedError(A2AError):
    """The caller lacks a permission."""

    kind = "PermissionDenied"


class UnavailableError(A2AError):
    """Temporarily unavailable; retry later."""

    kind = "Unavailable"


_BY_KIND: dict[str, type[A2AError]] = {c.kind: c for c in A2AError.__subclasses__()}


def _fill_from_core() -> None:
    # The core's table is the one source of every wire form; a kind without a class here
    # (or a class without a kind there) is a bug the tests catch.
    for number, kind, code, grpc, http, reason, message in _a2a_wire._error_table():
        cls = _BY_KIND.get(kind)
        if cls is None:
            raise ImportError(f"a2a_wire.errors has no class for the core's error kind {kind!r}")
        cls.number, cls.code, cls.grpc_status, cls.http_status = number, code, grpc, http
        cls.reason, cls.default_message = reason, message


_fill_from_core()


class ClientError(Error):
    """A client-side failure that is not an A2A error from the peer."""


class NotA2AError(ClientError):
    """The peer answered with an error that has no A2A meaning (a proxy's bare 404, a 502).

    Never read it as TaskNotFound: the request may not have reached an A2A server at all.
    """

    def __init__(self, status: int, message: str = "", *, binding: str | None = None) -> None:
        self.status = status
        self.message = message
        self.binding = binding
        super().__init__(f"not an A2A error: status {status} {message}".rstrip())

    def __reduce__(self) -> Any:
        return (_rebuild, (type(self), (self.status, self.message), {"binding": self.binding}))


class ProtocolError(ClientError):
    """The peer's answer does not follow the A2A protocol."""


class CannotSendError(ClientError):
    """The request cannot be expressed on the selected interface (e.g. ListTasks in v0.3)."""


class TransportError(ClientError):
    """No answer: the connection failed, was refused, timed out or closed early."""


class TLSError(TransportError):
    """TLS failed: the agent's certificate is not trusted or not for the name dialed, the
    handshake broke off, or a TLS file (certificate, key, CA) is unusable."""


class CallTimeoutError(TransportError, TimeoutError):
    """The call took longer than its timeout (``Client.connect(timeout=)`` or the call's own
    ``timeout=``). Also the built-in ``TimeoutError``."""


class ClientClosedError(ClientError, RuntimeError):
    """The client was closed (``aclose()``, or the ``async with`` block ended) before or while
    the call ran. Also a ``RuntimeError``, what a closed client raised
    before this class."""


class CardError(ClientError):
    """The Agent Card could not be fetched or read, or offers no interface the client speaks."""


class CardSignatureError(CardError):
    """The Agent Card's signature (spec 8.4) does not verify against the trusted keys, or the
    card is unsigned where a signature is required (``Client.connect(...,
    require_signed_card=True)``). Raised by ``CardKeySet.verify_card`` and ``Client.connect``."""


class ValidationError(Error, ValueError):
    """Bytes or values that do not make a valid message.

    ``path`` is the JSON path of the first offending field (``""`` for the message itself or
    a syntax error), ``description`` what is wrong there, ``violations`` every offending
    field found, and ``line`` / ``column`` the position in JSON text when known.
    """

    kind: ClassVar[str] = ""

    def __init__(
        self,
        description: str,
        *,
        path: str = "",
        violations: list[FieldViolation] | list[tuple[str, str]] | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.path = path
        self.description = description
        self.violations = [FieldViolation(*v) for v in (violations or [(path, description)])]
        self.line = line
        self.column = column
        text = f"{path}: {description}" if path else description
        if line is not None:
            text += f" at line {line} column {column}"
        super().__init__(text)

    def __reduce__(self) -> Any:
        kw = {"path": self.path, "violations": self.violations, "line": self.line, "column": self.column}
        return (_rebuild, (type(self), (self.description,), kw))


class JsonSyntaxError(ValidationError):
    """The bytes are not JSON (or end early, or have trailing data)."""

    kind = "syntax"


class InvalidValueError(ValidationError):
    """Valid JSON whose value does not fit the field (wrong type, unknown enum name, ...)."""

    kind = "invalid_value"


class MissingFieldError(ValidationError):
    """A REQUIRED field is missing or empty, or a oneof has no member."""

    kind = "missing_required"


class ProtobufError(ValidationError):
    """The bytes are not a valid protobuf encoding of the message."""

    kind = "protobuf"


class ConversionError(ValidationError):
    """A v0.3 <-> v1.0 translation that must be refused (the value cannot be carried)."""

    kind = "conversion"


class EncodeError(Error, ValueError):
    """A value its wire format cannot carry (a timestamp outside years 1-9999, a NaN)."""


def classify_http(status: int, body: str | bytes, version: str = "1.0") -> A2AError | NotA2AError:
    """The exception an HTTP+JSON error response means: the ``ErrorInfo`` reason decides;
    without one only the generic statuses (400, 401, 403, 500, 503) with a
    ``google.rpc.Status`` body are A2A errors, and anything else (a proxy's bare 404) is
    ``NotA2AError``. ``version`` is the interface's protocol version."""
    result: A2AError | NotA2AError = _a2a_wire.classify_http(status, body, version)
    return result


def classify_grpc(
    code: int, message: str, details: bytes | None = None, version: str = "1.0"
) -> A2AError | NotA2AError:
    """The exception a gRPC status means; ``details`` is the ``grpc-status-details-bin``
    trailer (an encoded ``google.rpc.Status``)."""
    result: A2AError | NotA2AError = _a2a_wire.classify_grpc(code, message, details, version)
    return result


def classify_jsonrpc(error: dict[str, Any]) -> A2AError | NotA2AError:
    """The exception a JSON-RPC ``error`` object means (the ``ErrorInfo`` reason beats the
    code)."""
    result: A2AError | NotA2AError = _a2a_wire.classify_jsonrpc(error)
    return result

"""a2a_wire: the A2A (Agent2Agent) protocol for Python, on a Rust core.

- The v1.0 model as immutable typed classes (``Task``, ``Message``, ``Part``, ...) with
  ProtoJSON, dict and protobuf conversions, and enums (``TaskState``, ``Role``).
- Exceptions under one root, ``a2a_wire.Error``: ``A2AError`` and one subclass per A2A
  error kind, ``ClientError``, ``ValidationError`` (see ``a2a_wire.errors``).
- The v0.3 model and its translation (``a2a_wire.v03``); version negotiation and
  interface selection (``negotiate``, ``select_interface``, ``read_card``).
- Agent Card signatures (``SigningKey``, ``CardKeySet``; see ``a2a_wire.signing``) and the
  receiving end of push notifications (``a2a_wire.webhook``).

The ready server and client are in ``a2a_wire.server`` and ``a2a_wire.client``, the ASGI
app in ``a2a_wire.asgi``.
"""

from . import errors, signing, v03, webhook
from ._a2a_wire import __version__
from ._model import *  # noqa: F403 (the generated classes; see _model.pyi)
from .errors import *  # noqa: F403
from .protocol import BINDINGS, VERSIONS, SelectedInterface, negotiate, read_card, select_interface, transcode
from .signing import CardKeySet, SigningKey, VerifiedSignature

__all__ = [
    "__version__",
    "errors",
    "signing",
    "v03",
    "webhook",
    "BINDINGS",
    "VERSIONS",
    "SelectedInterface",
    "negotiate",
    "read_card",
    "select_interface",
    "transcode",
    # Agent Card signatures (a2a_wire.signing)
    "SigningKey",
    "CardKeySet",
    "VerifiedSignature",
    # the model (generated; test_api.py checks this list against _model.__all__)
    "APIKeySecurityScheme",
    "AgentCapabilities",
    "AgentCard",
    "AgentCardSignature",
    "AgentExtension",
    "AgentInterface",
    "AgentProvider",
    "AgentSkill",
    "Artifact",
    "AuthenticationInfo",
    "AuthorizationCodeOAuthFlow",
    "CancelTaskRequest",
    "ClientCredentialsOAuthFlow",
    "DeleteTaskPushNotificationConfigRequest",
    "DeviceCodeOAuthFlow",
    "GetExtendedAgentCardRequest",
    "GetTaskPushNotificationConfigRequest",
    "GetTaskRequest",
    "HTTPAuthSecurityScheme",
    "ImplicitOAuthFlow",
    "ListTaskPushNotificationConfigsRequest",
    "ListTaskPushNotificationConfigsResponse",
    "ListTasksRequest",
    "ListTasksResponse",
    "Message",
    "MutualTlsSecurityScheme",
    "OAuth2SecurityScheme",
    "OAuthFlows",
    "OpenIdConnectSecurityScheme",
    "Part",
    "PasswordOAuthFlow",
    "Role",
    "SecurityRequirement",
    "SecurityScheme",
    "SendMessageConfiguration",
    "SendMessageRequest",
    "SendMessageResponse",
    "StreamResponse",
    "StringList",
    "SubscribeToTaskRequest",
    "Task",
    "TaskArtifactUpdateEvent",
    "TaskPushNotificationConfig",
    "TaskState",
    "TaskStatus",
    "TaskStatusUpdateEvent",
    # the exceptions (errors.__all__)
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

"""The A2A v0.3 model and its translation to and from v1.0.

v0.3 peers speak other JSON shapes (``"kind": "task"``, lowercase states, ``final`` flags,
``file`` parts, a card with ``url`` and ``preferredTransport``). A :class:`V03Object` holds
one such object, decoded and checked by the Rust core; :meth:`V03Object.to_v1` translates it
to the v1.0 model and :meth:`V03Object.from_v1` back, each with the list of what the
translation could not carry (:class:`Loss`). Nothing is lost silently: an empty list means
the translation is exact.

>>> msg = Message.from_json('{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}')
>>> v1, losses = msg.to_v1()
>>> v1.role, losses
(<Role.USER: 1>, [])
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

if TYPE_CHECKING:
    from typing_extensions import Self

from . import _a2a_wire

__all__ = [
    "Loss",
    "V03Object",
    "Task",
    "Message",
    "Part",
    "Artifact",
    "TaskStatus",
    "TaskStatusUpdateEvent",
    "TaskArtifactUpdateEvent",
    "StreamEvent",
    "SendMessageResult",
    "MessageSendParams",
    "TaskQueryParams",
    "TaskIdParams",
    "PushNotificationConfig",
    "TaskPushNotificationConfig",
    "GetTaskPushNotificationConfigParams",
    "ListTaskPushNotificationConfigParams",
    "DeleteTaskPushNotificationConfigParams",
    "TaskPushNotificationConfigList",
    "AgentCard",
    "to_v1",
    "from_v1",
]


class Loss(NamedTuple):
    """Something a translation could not carry: its kind (``dropped``, ``unknown_state``, ...)
    and the JSON path in the source object."""

    kind: str
    path: str


class V03Object:
    """A v0.3 object (immutable). Subclasses name the v0.3 type."""

    type_name: ClassVar[str] = ""
    __slots__ = ("_json",)
    _json: bytes

    def __init__(self, data: str | bytes | Mapping[str, Any] | list[Any]) -> None:
        """Decodes and checks ``data`` (JSON text or what ``json.loads`` gives)."""
        if not self.type_name:
            raise TypeError("V03Object is abstract: use one of its subclasses (v03.Task, ...)")
        if isinstance(data, (Mapping, list)):
            data = json.dumps(data)
        canonical = _a2a_wire._v03_canonical(self.type_name, data)
        object.__setattr__(self, "_json", bytes(canonical))

    @classmethod
    def from_json(cls, data: str | bytes) -> Self:
        return cls(data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | list[Any]) -> Self:
        return cls(data)

    def to_json(self) -> str:
        """The canonical v0.3 JSON (compact)."""
        return self._json.decode()

    def to_dict(self) -> Any:
        result: Any = json.loads(self._json)
        return result

    def to_v1(self) -> tuple[Any, list[Loss]]:
        """The v1.0 model object (``a2a_wire.Task``, ...) and the losses of the translation."""
        _, obj, losses = _a2a_wire._v03_to_v1(self.type_name, self._json)
        return obj, [Loss(*x) for x in losses]

    @classmethod
    def from_v1(cls, obj: Any) -> tuple[Self, list[Loss]]:
        """Translates a v1.0 model object to this v0.3 type (``ConversionError`` when it
        cannot be carried at all, ``TypeError`` when it translates to another v0.3 type)."""
        name, data, losses = _a2a_wire._v03_from_v1(obj)
        if name != cls.type_name and cls is not V03Object:
            raise TypeError(f"{type(obj).__name__} translates to v0.3 {name}, not {cls.type_name}")
        return _BY_NAME[name](bytes(data)), [Loss(*x) for x in losses]  # type: ignore[return-value]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, V03Object) and type(other) is type(self) and other._json == self._json

    __hash__ = None  # type: ignore[assignment]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self) -> str:
        return f"v03.{self.type_name}({self.to_json()})"


class Task(V03Object):
    """A v0.3 Task (``kind: "task"``)."""

    type_name = "Task"
    __slots__ = ()


class Message(V03Object):
    """A v0.3 Message (``kind: "message"``)."""

    type_name = "Message"
    __slots__ = ()


class Part(V03Object):
    """A v0.3 Part (``kind`` ``text``, ``file`` or ``data``)."""

    type_name = "Part"
    __slots__ = ()


class Artifact(V03Object):
    """A v0.3 Artifact."""

    type_name = "Artifact"
    __slots__ = ()


class TaskStatus(V03Object):
    """A v0.3 TaskStatus (lowercase states)."""

    type_name = "TaskStatus"
    __slots__ = ()


class TaskStatusUpdateEvent(V03Object):
    """A v0.3 status-update event (with ``final``)."""

    type_name = "TaskStatusUpdateEvent"
    __slots__ = ()


class TaskArtifactUpdateEvent(V03Object):
    """A v0.3 artifact-update event."""

    type_name = "TaskArtifactUpdateEvent"
    __slots__ = ()


class StreamEvent(V03Object):
    """Any of the four ``kind``-tagged stream results."""

    type_name = "StreamEvent"
    __slots__ = ()


class SendMessageResult(V03Object):
    """The result of ``message/send``: a task or a message."""

    type_name = "SendMessageResult"
    __slots__ = ()


class MessageSendParams(V03Object):
    """The params of ``message/send`` and ``message/stream``."""

    type_name = "MessageSendParams"
    __slots__ = ()


class TaskQueryParams(V03Object):
    """The params of ``tasks/get``."""

    type_name = "TaskQueryParams"
    __slots__ = ()


class TaskIdParams(V03Object):
    """The params of ``tasks/cancel`` and ``tasks/resubscribe``."""

    type_name = "TaskIdParams"
    __slots__ = ()


class PushNotificationConfig(V03Object):
    """A v0.3 push notification config."""

    type_name = "PushNotificationConfig"
    __slots__ = ()


class TaskPushNotificationConfig(V03Object):
    """A v0.3 task push notification config (nested ``pushNotificationConfig``)."""

    type_name = "TaskPushNotificationConfig"
    __slots__ = ()


class GetTaskPushNotificationConfigParams(V03Object):
    """The params of ``tasks/pushNotificationConfig/get``."""

    type_name = "GetTaskPushNotificationConfigParams"
    __slots__ = ()


class ListTaskPushNotificationConfigParams(V03Object):
    """The params of ``tasks/pushNotificationConfig/list``."""

    type_name = "ListTaskPushNotificationConfigParams"
    __slots__ = ()


class DeleteTaskPushNotificationConfigParams(V03Object):
    """The params of ``tasks/pushNotificationConfig/delete``."""

    type_name = "DeleteTaskPushNotificationConfigParams"
    __slots__ = ()


class TaskPushNotificationConfigList(V03Object):
    """The bare array result of ``tasks/pushNotificationConfig/list``."""

    type_name = "TaskPushNotificationConfigList"
    __slots__ = ()


class AgentCard(V03Object):
    """A v0.3 Agent Card (``url``, ``preferredTransport``, ``additionalInterfaces``)."""

    type_name = "AgentCard"
    __slots__ = ()


_BY_NAME: dict[str, type[V03Object]] = {c.type_name: c for c in V03Object.__subclasses__()}


def to_v1(type_name: str, data: str | bytes | Mapping[str, Any] | list[Any]) -> tuple[Any, list[Loss]]:
    """Decodes v0.3 ``data`` of ``type_name`` and translates it to the v1.0 model."""
    try:
        cls = _BY_NAME[type_name]
    except KeyError:
        raise ValueError(f"no v0.3 type {type_name!r}") from None
    return cls(data).to_v1()


def from_v1(obj: Any) -> tuple[V03Object, list[Loss]]:
    """Translates a v1.0 model object to its v0.3 form (the type follows from the object)."""
    return V03Object.from_v1(obj)

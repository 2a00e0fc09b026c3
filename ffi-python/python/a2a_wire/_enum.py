"""The base of the model's enums (made by the native module from the proto's enums)."""

from __future__ import annotations

import enum
from typing import Any


class ProtoEnum(enum.Enum):
    """A proto enum: members named without the enum's prefix, valued by proto number.

    Proto enums are open: a number this version does not know (from a newer peer) still
    reads, as a member named ``UNKNOWN_<number>``, and writes back unchanged.
    """

    @property
    def proto_name(self) -> str:
        """The ProtoJSON name (``TASK_STATE_COMPLETED``)."""
        names: dict[int, str] = type(self)._a2a_proto_names  # type: ignore[attr-defined]
        return names.get(self.value, str(self.value))

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        member = object.__new__(cls)
        member._name_ = f"UNKNOWN_{value}"
        member._value_ = value
        return member


def make_enum(name: str, full_name: str, members: list[tuple[str, int, str]]) -> type[ProtoEnum]:
    functional: Any = ProtoEnum  # the functional API: ProtoEnum(name, members, ...) makes a subclass
    cls: type[ProtoEnum] = functional(name, [(n, v) for n, v, _ in members], module="a2a_wire", qualname=name)
    setattr(cls, "_a2a_proto_names", {v: proto for _, v, proto in members})
    cls.__doc__ = f"The `{full_name}` enum."
    return cls

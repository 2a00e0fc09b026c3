"""The v1.0 model: one immutable class per message of ``lf.a2a.v1`` and one enum per enum.

The classes are generated, in the native module, from the proto; ``_model.pyi`` is written
by the same generator (``make py-stubs``) and the tests fail when it drifts.
"""

from . import _a2a_wire

__all__ = list(_a2a_wire._MODEL_NAMES)
globals().update({name: getattr(_a2a_wire, name) for name in __all__})

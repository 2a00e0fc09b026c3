"""Authentication on the servers: the request an ``authenticate`` function judges, and what it
answers.

Both hosts take the same function, ``AgentServer(agent, card=..., authenticate=fn)`` and
``A2AApp(agent, card, authenticate=fn)``::

    async def authenticate(request: a2a_wire.auth.Request) -> str | None:
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        user = await sessions.lookup(token)
        return user.name if user else None   # None: 401 with WWW-Authenticate

It gets every call (the card itself is public) and answers with:

- a ``str``: the principal, the caller's name; the agent sees it as ``ctx.principal``, and
  each principal sees only the tasks and push configs it made;
- ``None``: refused with 401 (gRPC ``UNAUTHENTICATED``) and a ``WWW-Authenticate`` header
  naming the card's schemes;
- :data:`ANONYMOUS`: let the call in without a principal;
- raising ``PermissionError``: refused with 403 (``PERMISSION_DENIED``), its text the
  message; raising an :class:`~a2a_wire.A2AError` answers with that error. Any other exception
  is logged to the ``a2a_wire`` logger and answered as an internal error.

An ``async def`` runs on the event loop; a plain function in a thread pool, never on the
thread that moves the bytes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from typing import Any, Final, Union

from .errors import A2AError, InternalError, PermissionDeniedError, UnauthenticatedError

__all__ = ["ANONYMOUS", "Authenticator", "Headers", "Request"]

log = logging.getLogger("a2a_wire")


class _Anonymous:
    __slots__ = ()

    def __repr__(self) -> str:
        return "a2a_wire.auth.ANONYMOUS"


#: What ``authenticate`` returns to let a call in without a principal.
ANONYMOUS: Final = _Anonymous()


class Headers(Mapping[str, str]):
    """A request's headers, every one of them, with names in any case: ``headers["Authorization"]``
    and ``headers["authorization"]`` are the same. A name sent twice reads as its values
    joined with ``", "``; :meth:`get_all` gives them apart. Iterating gives lowercase names."""

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[tuple[str, str]]) -> None:
        self._items = [(k.lower(), v) for k, v in items]

    def get_all(self, name: str) -> list[str]:
        """Every value of header ``name``, in the order received."""
        name = name.lower()
        return [v for k, v in self._items if k == name]

    def __getitem__(self, name: str) -> str:
        values = self.get_all(name)
        if not values:
            raise KeyError(name)
        return ", ".join(values)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and any(k == name.lower() for k, _ in self._items)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(k for k, _ in self._items))

    def __len__(self) -> int:
        return len(dict.fromkeys(k for k, _ in self._items))

    def raw(self) -> list[tuple[str, str]]:
        """The headers as received: ``(name, value)`` pairs, names lowercase."""
        return list(self._items)

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


class Request:
    """A call to judge: the HTTP request (``method``, ``path``, ``query``, ``headers``,
    ``peer``) and what the A2A core read in it (``operation``, ``binding``, ``version``,
    ``tenant``). ``scope`` is the ASGI scope under :class:`~a2a_wire.asgi.A2AApp` (None under
    :class:`~a2a_wire.server.AgentServer`, which has no host request of its own)."""

    __slots__ = ("method", "path", "query", "headers", "peer", "operation", "binding", "version", "tenant", "scope")

    def __init__(
        self,
        *,
        method: str,
        path: str,
        query: str,
        headers: Headers,
        peer: tuple[str, int] | None,
        operation: str,
        binding: str,
        version: str,
        tenant: str,
        scope: Mapping[str, Any] | None = None,
    ) -> None:
        #: The HTTP method (``POST``; gRPC calls are ``POST`` too).
        self.method = method
        #: The request's path, without the query.
        self.path = path
        #: The query string (``""``: none).
        self.query = query
        #: Every header (gRPC: every metadata entry).
        self.headers = headers
        #: The peer's ``(host, port)``, when known.
        self.peer = peer
        #: The A2A operation (``"SendMessage"``, ``"GetTask"``, ...).
        self.operation = operation
        #: ``"JSONRPC"``, ``"HTTP+JSON"`` or ``"GRPC"``.
        self.binding = binding
        #: The protocol version it is served with (``"1.0"``, ``"0.3"``).
        self.version = version
        #: The tenant it names (``""``: none).
        self.tenant = tenant
        #: The ASGI scope (A2AApp) or None.
        self.scope = scope

    @staticmethod
    def _split(target: str) -> tuple[str, str]:
        path, _, query = target.partition("?")
        return path, query

    def __repr__(self) -> str:
        return f"Request({self.method} {self.path!r}, operation={self.operation!r}, binding={self.binding!r})"


#: Judges a call (see the module): returns the principal, None (401) or :data:`ANONYMOUS`, or
#: raises ``PermissionError`` (403). May be ``async``.
Authenticator = Callable[[Request], Union[str, None, _Anonymous, Awaitable[Union[str, None, _Anonymous]]]]


def check(authenticate: Any) -> None:
    """Raises ``TypeError`` unless ``authenticate`` can judge."""
    if not callable(authenticate):
        raise TypeError(f"authenticate: expected a function of one Request, got {type(authenticate).__name__}")


async def judge(
    authenticate: Authenticator,
    request: Request,
    loop: asyncio.AbstractEventLoop,
    pool: concurrent.futures.Executor | None,
) -> tuple[str | None, A2AError | None]:
    """Runs ``authenticate`` on ``request``: ``(principal, None)`` lets the call in (principal
    None: anonymous), ``(None, error)`` refuses it."""
    try:
        if inspect.iscoroutinefunction(authenticate) or inspect.iscoroutinefunction(getattr(authenticate, "__call__", None)):
            result: Any = await authenticate(request)  # type: ignore[misc]
        else:
            result = await loop.run_in_executor(pool, authenticate, request)
            if inspect.isawaitable(result):
                result = await result
    except A2AError as e:
        return None, e
    except PermissionError as e:
        return None, PermissionDeniedError(str(e) or None)
    except Exception:
        log.exception("authenticate raised while judging %r", request)
        return None, InternalError("authentication failed")
    if result is ANONYMOUS:
        return None, None
    if result is None:
        return None, UnauthenticatedError()
    if isinstance(result, str) and result:
        return result, None
    log.error("authenticate returned %r: expected the principal (a non-empty str), None or ANONYMOUS", result)
    return None, InternalError("authentication failed")

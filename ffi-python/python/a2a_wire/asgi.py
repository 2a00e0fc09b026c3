"""The A2A service as an ASGI application, to mount into the app you already run.

::

    from fastapi import FastAPI
    from a2a_wire.asgi import A2AApp

    a2a = A2AApp(agent, card)              # card: an AgentCard whose interfaces point here
    app = FastAPI(lifespan=a2a.lifespan)   # mounted apps get no lifespan events of their own
    app.mount("/", a2a)                    # after your own routes

The app serves what the card lists (JSON-RPC and HTTP+JSON, v1.0 and v0.3, with SSE
streaming) and the card itself at ``/.well-known/agent-card.json``. Every protocol decision
is the Rust core's sans-IO service, called without the GIL; this module only moves ASGI
messages in and out. gRPC needs HTTP/2 trailers, which ASGI servers do not offer: serve
gRPC with the ready server (``a2a_wire.server.AgentServer``) instead.

The service must see request paths as the client sent them (they are matched against the
card's URLs): the app takes ``root_path`` into account, so it works mounted under a prefix
too, as long as the card's URLs include that prefix; the card is then served at
``PREFIX/.well-known/agent-card.json``.

Tasks live in the service's memory unless ``store`` is given: a SQLite file (or a
:class:`TaskStore` of your own, ``TaskStore.memory()`` or ``TaskStore.open_sqlite(path)``).
The service then keeps only the tasks in use plus a cache of about ``cache_mb`` MiB and asks
the app for the rest; the app answers those requests in order on a thread of its own
(store IO blocks), so the event loop never waits for the disk::

    a2a = A2AApp(agent, card, store="tasks.db", cache_mb=16, retain=datetime.timedelta(days=30))
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import datetime
import logging
import os
import socket
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any

from . import _a2a_wire
from ._a2a_wire import SigningKey, StoreReply, StoreRequest, TaskStore
from ._model import AgentCard
from ._wake import unwatch, watch
from .errors import A2AError
from .auth import Authenticator, Headers, Request, check
from .server import Executor, _grace, _retain_ms, _Runner

__all__ = ["A2AApp", "Authenticator", "TaskStore"]

log = logging.getLogger("a2a_wire")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: Where the Agent Card is served (the core's path).
CARD_PATH: str = _a2a_wire.CARD_PATH

#: Bytes of a stream a slow client may leave unsent before it is cut off (it then
#: resubscribes and starts again from the current task).
STREAM_BUFFER = 4 * 1024 * 1024


def __getattr__(name: str) -> Any:
    # ImportError, not AttributeError: `from a2a_wire.asgi import AuthRequest` would replace an
    # AttributeError's message with its own, and this one names the replacement.
    if name == "AuthRequest":
        raise ImportError(
            "a2a_wire.asgi.AuthRequest was replaced by a2a_wire.auth.Request: authenticate now gets the whole request "
            "(.method is the HTTP method, .operation the A2A one; .headers has every header; .scope the ASGI scope) and "
            "returning None refuses the call with 401 (return a2a_wire.auth.ANONYMOUS to let it in without a principal)"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Call:
    __slots__ = ("items", "wakeup", "queued", "scope", "target")

    def __init__(self, scope: Scope, target: str) -> None:
        self.items: deque[tuple[Any, ...]] = deque()
        self.wakeup = asyncio.Event()
        self.queued = 0
        self.scope = scope
        self.target = target


class A2AApp:
    """An ASGI app serving ``executor`` (see ``a2a_wire.server``) under ``card``.

    ``authenticate`` judges every call (see :mod:`a2a_wire.auth`): it gets the request (every
    header, the peer, the ASGI scope) and returns the principal, None to refuse it with 401
    and ``WWW-Authenticate``, or :data:`~a2a_wire.auth.ANONYMOUS`; ``PermissionError`` gives
    403. Without it every call is anonymous and no extended card is ever served (only
    authenticated callers get one):
    ``extended_card`` is every authenticated caller's, ``extended_cards`` maps a principal
    (what ``authenticate`` returned) to a card of its own, which only that principal gets.
    ``signing_key`` (a :class:`~a2a_wire.signing.SigningKey`) signs the card and the extended
    cards as given (spec 8.4), with ``card_jku`` in each signature's header.

    ``max_body`` bounds request bodies (bytes). Push notifications go to public addresses
    only: the SSRF guard refuses loopback, private and link-local ones, except those of
    ``allow_webhooks`` (host names, addresses, CIDR networks; local development) or all of
    them with ``allow_private_webhooks`` (tests). ``https://`` receivers are verified
    against ``webhook_ca_file`` (PEM; None: the platform's roots). The service starts on the
    first request or at ASGI lifespan startup, on the event loop that runs the app, and stops
    at lifespan shutdown (or ``await app.aclose()``).

    ``store``: None keeps every task in the service's memory; a path opens that SQLite file
    at start (created if missing, closed at shutdown; the file ``AgentServer(store=...)`` and
    ``a2a-wire serve --store`` use); a :class:`TaskStore` is used as it is (and left open).
    With a store the service holds the tasks in use plus about ``cache_mb`` MiB of others
    (default 64). ``retain`` (seconds or a ``timedelta``) deletes tasks in a terminal state
    whose last change is older, with everything kept for them; tasks still working or
    waiting for input are never deleted (None: keep every task).

    ``cancel_grace`` (seconds) is how long a canceled run's coroutine may go on after
    ``ctx.wait_cancelled()`` returned before it gets ``asyncio.CancelledError``. The card's
    interfaces are served as given (they must point at where the app is mounted).
    """

    def __init__(
        self,
        executor: Executor,
        card: AgentCard,
        *,
        extended_card: AgentCard | None = None,
        authenticate: Authenticator | None = None,
        max_body: int = 8 * 1024 * 1024,
        allow_private_webhooks: bool = False,
        shutdown_timeout: float = 5.0,
        extended_cards: Mapping[str, AgentCard] | None = None,
        allow_webhooks: Iterable[str] = (),
        webhook_ca_file: str | os.PathLike[str] | None = None,
        signing_key: SigningKey | None = None,
        card_jku: str | None = None,
        store: TaskStore | str | os.PathLike[str] | None = None,
        cache_mb: int | None = None,
        retain: float | datetime.timedelta | None = None,
        cancel_grace: float = 5.0,
    ) -> None:
        if not isinstance(card, AgentCard):
            raise TypeError(f"A2AApp needs card: the AgentCard to serve, got {type(card).__name__}")
        if authenticate is not None:
            check(authenticate)
        self._cancel_grace = _grace(cancel_grace)
        if cache_mb is not None and (isinstance(cache_mb, bool) or not isinstance(cache_mb, int) or cache_mb < 0):
            raise ValueError(f"cache_mb must be a whole number of MiB, got {cache_mb!r}")
        if not (store is None or isinstance(store, (TaskStore, str, os.PathLike))):
            raise TypeError(f"store: expected a path or a TaskStore, got {type(store).__name__}")
        self._store_arg = store
        self._cache_bytes = None if cache_mb is None else cache_mb * (1 << 20)
        self._retain_ms = _retain_ms(retain)
        self._store: TaskStore | None = None
        self._store_thread: concurrent.futures.ThreadPoolExecutor | None = None
        self._store_pending: set[asyncio.Future[StoreReply]] = set()
        if isinstance(allow_webhooks, str):
            raise TypeError("allow_webhooks: expected a list of hosts, addresses or networks, got a str")
        self._extended_cards = None if extended_cards is None else dict(extended_cards)
        self._allow_webhooks = list(allow_webhooks)
        self._webhook_ca_file = webhook_ca_file
        self._signing_key = signing_key
        self._card_jku = card_jku
        self._executor = executor
        self._card = card
        self._extended_card = extended_card
        self._authenticate = authenticate
        self._max_body = max_body
        self._allow_private = allow_private_webhooks
        self._shutdown_timeout = shutdown_timeout
        self._service: _a2a_wire.ServiceHost | None = None
        self._runner: _Runner | None = None
        self._calls: dict[int, _Call] = {}
        self._watch: socket.socket | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def card(self) -> AgentCard:
        """The card as given (the service serves it signed with ``signing_key``)."""
        return self._card

    def _start(self) -> _a2a_wire.ServiceHost:
        if self._service is not None:
            return self._service
        loop = asyncio.get_running_loop()
        store = self._store_arg
        if store is not None and not isinstance(store, TaskStore):
            store = TaskStore.open_sqlite(os.fspath(store))  # OSError when it cannot be opened
        service = _a2a_wire.ServiceHost(
            self._card,
            extended_card=self._extended_card,
            authenticate=self._authenticate is not None,
            max_body=self._max_body,
            allow_private_webhooks=self._allow_private,
            extended_cards=self._extended_cards,
            allow_webhooks=self._allow_webhooks,
            webhook_ca_file=self._webhook_ca_file,
            signing_key=self._signing_key,
            card_jku=self._card_jku,
            external_store=store is not None,
            cache_bytes=self._cache_bytes,
            retain_ms=self._retain_ms,
        )
        if store is not None:
            self._store = store
            self._store_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="a2a-wire-store")
        self._loop = loop
        self._runner = _Runner(self._executor, loop, None, self._cancel_grace, self._authenticate)
        self._watch = watch(loop, service.take_watch_fd(), self._pump)
        self._service = service
        if store is not None:
            self._pump()  # the store's first request (open) goes out now, not at the first call
        return service

    def _ask_store(self, request: StoreRequest) -> None:
        # One thread answers, so the requests are carried out, and their replies come back,
        # in the order the service asked.
        assert self._loop is not None and self._store is not None and self._store_thread is not None
        reply = self._loop.run_in_executor(self._store_thread, self._store.answer, request)
        self._store_pending.add(reply)
        reply.add_done_callback(self._store_answered)

    def _store_answered(self, reply: asyncio.Future[StoreReply]) -> None:
        self._store_pending.discard(reply)
        service = self._service
        if service is None or reply.cancelled():
            return
        error = reply.exception()
        if error is not None:  # TaskStore.answer replies even when the disk fails; not this
            log.error("the task store raised: %r", error)
            return
        service.store_reply(reply.result())
        self._pump()

    def _pump(self) -> None:
        service = self._service
        if service is None:
            return
        runner = self._runner
        assert runner is not None
        for out in service.poll():
            kind = out[0]
            if kind == "store":
                self._ask_store(out[1])
            elif kind == "start":
                runner.start(out[1])
            elif kind == "cancel":
                runner.cancel(out[1])
            elif kind == "authenticate":
                self._judge(out[1], out[2], out[3], out[4], out[5])
            else:
                call = self._calls.get(out[1])
                if call is None:
                    continue
                call.items.append(out)
                if kind == "frame":
                    call.queued += len(out[2])
                    if call.queued > STREAM_BUFFER:
                        service.slow_consumer(out[1])
                call.wakeup.set()
        self._schedule_timer(service)

    def _judge(self, call_id: int, operation: str, binding: str, version: str, tenant: str) -> None:
        assert self._runner is not None
        call = self._calls.get(call_id)
        scope: Scope = call.scope if call is not None else {}
        path, _, query = (call.target if call is not None else "").partition("?")
        raw = scope.get("headers", [])
        headers = Headers((bytes(k).decode("latin-1"), bytes(v).decode("latin-1")) for k, v in raw)
        client = scope.get("client")
        peer = (str(client[0]), int(client[1])) if client else None
        request = Request(
            method=scope.get("method", "GET"), path=path, query=query, headers=headers, peer=peer,
            operation=operation, binding=binding, version=version, tenant=tenant, scope=scope,
        )

        def answer(principal: str | None, error: A2AError | None) -> None:
            if self._service is not None:
                self._service.authenticated(call_id, principal, error)
                self._pump()

        self._runner.judge(request, answer)

    def _schedule_timer(self, service: _a2a_wire.ServiceHost) -> None:
        delay = service.next_timeout()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if delay is not None and self._loop is not None:
            self._timer = self._loop.call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self._service is not None:
            self._service.timeout()
            self._pump()

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any = None) -> AsyncIterator[None]:
        """The service's lifetime as a lifespan context for the enclosing app
        (``FastAPI(lifespan=a2a.lifespan)``, ``Starlette(lifespan=...)``): Starlette does not
        pass lifespan events to mounted apps, so without it runs still going at shutdown are
        not canceled."""
        self._start()
        try:
            yield
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        """Stops the service: open streams end with Unavailable, waiting calls are answered,
        runs still going are canceled (waiting up to ``shutdown_timeout``)."""
        service = self._service
        if service is None:
            return
        service.shutdown()
        self._pump()
        assert self._runner is not None
        await self._runner.cancel_all(self._shutdown_timeout)
        self._pump()
        # Writes still on their way land before the store closes.
        assert self._loop is not None
        deadline = self._loop.time() + self._shutdown_timeout
        while self._store_pending and self._loop.time() < deadline:
            await asyncio.wait(set(self._store_pending), timeout=max(0.0, deadline - self._loop.time()))
        if self._store_thread is not None:
            self._store_thread.shutdown(wait=False)
            self._store_thread = None
        if self._store is not None and not isinstance(self._store_arg, TaskStore):
            self._store.close()  # the file the app opened
        self._store = None
        if self._watch is not None and self._loop is not None:
            unwatch(self._loop, self._watch)
        if self._timer is not None:
            self._timer.cancel()
        self._service = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)
        # websocket and others: not ours; close as ASGI asks.
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1000})

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    self._start()
                except Exception as e:  # the service refused the card
                    await send({"type": "lifespan.startup.failed", "message": str(e)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        service = self._start()
        # The body, up to one byte past the limit (the service answers what is too long).
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            if chunk and size <= self._max_body:
                chunks.append(chunk)
                size += len(chunk)
            more = message.get("more_body", False)
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        path: str = scope.get("path", "/")
        root: str = scope.get("root_path", "")
        if root and not path.startswith(root):
            path = root + path
        # The card is the app's own well-known path under its mount point; every other path
        # goes to the service whole, to be matched against the card's URLs.
        if root and path[len(root):] == CARD_PATH:
            path = CARD_PATH
        query: bytes = scope.get("query_string", b"")
        target = f"{path}?{query.decode('latin-1')}" if query else path
        call = _Call(scope, target)
        call_id = service.request(scope.get("method", "GET"), target, scope.get("headers", []), body)
        self._calls[call_id] = call
        try:
            await self._answer(call_id, call, receive, send, scope.get("method") == "HEAD")
        finally:
            self._calls.pop(call_id, None)

    async def _answer(self, call_id: int, call: _Call, receive: Receive, send: Send, head_only: bool) -> None:
        self._pump()
        watcher: asyncio.Task[None] | None = None
        try:
            while True:
                while not call.items:
                    if watcher is None:
                        watcher = asyncio.ensure_future(self._watch_disconnect(receive, call_id, call))
                    call.wakeup.clear()
                    await call.wakeup.wait()
                out = call.items.popleft()
                kind = out[0]
                if kind == "gone":
                    return
                if kind == "answer":
                    headers = out[3]
                    if head_only:
                        # To HEAD the head only, its Content-Length telling the body's size.
                        if not any(n.lower() == b"content-length" for n, _ in headers):
                            headers = [*headers, (b"content-length", str(len(out[4])).encode())]
                        await send({"type": "http.response.start", "status": out[2], "headers": headers})
                        await send({"type": "http.response.body", "body": b""})
                        return
                    await send({"type": "http.response.start", "status": out[2], "headers": headers})
                    await send({"type": "http.response.body", "body": out[4]})
                    return
                if kind == "head":
                    await send({"type": "http.response.start", "status": out[2], "headers": out[3]})
                elif kind == "frame":
                    call.queued -= len(out[2])
                    await send({"type": "http.response.body", "body": out[2], "more_body": True})
                elif kind == "end":
                    await send({"type": "http.response.body", "body": out[2]})
                    return
        except OSError:
            # The client went away while we wrote.
            if self._service is not None:
                self._service.caller_gone(call_id)
        finally:
            if watcher is not None:
                watcher.cancel()

    async def _watch_disconnect(self, receive: Receive, call_id: int, call: _Call) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                if self._service is not None:
                    self._service.caller_gone(call_id)
                call.items.append(("gone",))
                call.wakeup.set()
                return

"""Agents: what an A2A agent written in Python implements, and the ready server.

An agent is an ``async def`` (or a plain function, run in a thread pool) that receives a
:class:`RequestContext` and an :class:`Events`::

    async def agent(ctx: RequestContext, events: Events) -> None:
        events.artifact(ctx.text, artifact_id="echo", last_chunk=True)
        events.status(TaskState.COMPLETED)

It publishes status, artifact and message events; its turn ends when it returns (an
exception fails the task). When the task is canceled, ``ctx.cancelled`` turns true,
``await ctx.wait_cancelled()`` returns, an executor object's ``cancel(ctx, events)`` method is
called, and a coroutine still running ``cancel_grace`` seconds later (5 by default) gets
``asyncio.CancelledError``; when the server stops it gets it at once. A function in a thread
sees the flag.

:class:`AgentServer` runs such an agent on the transport of the Rust core (HTTP/1.1 and
HTTP/2, JSON-RPC, HTTP+JSON, gRPC, SSE, the Agent Card) on threads of its own: the Python
event loop runs only the agent. ``a2a_wire.asgi.A2AApp`` runs the same agent inside an ASGI
application instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import datetime
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol, Union

from . import _a2a_wire
from ._a2a_wire import SigningKey
from ._model import AgentCard, Artifact, Message, Part, Role, SendMessageConfiguration, Task, TaskState
from ._wake import unwatch, watch
from .auth import Authenticator, Headers, Request, check, judge
from .errors import A2AError

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["RequestContext", "Events", "AgentExecutor", "Executor", "AgentServer", "serve", "AGENT_FAILED"]

log = logging.getLogger("a2a_wire")

#: The status text of a task whose agent raised (the core's words, the same on every a2a-wire
#: binding; the exception itself goes to the ``a2a_wire`` logger, not to the client).
AGENT_FAILED: str = _a2a_wire.AGENT_FAILED


class RequestContext:
    """What one run of the agent is about. Read-only."""

    __slots__ = ("_run", "_cancel")

    def __init__(self, run: _a2a_wire.Run, cancel: asyncio.Event | None = None) -> None:
        self._run = run
        self._cancel = asyncio.Event() if cancel is None else cancel

    @property
    def task_id(self) -> str:
        """The task the message belongs to (allocated even when the agent replies with a
        direct message)."""
        return self._run.task_id

    @property
    def context_id(self) -> str:
        return self._run.context_id

    @property
    def message(self) -> Message:
        """The user's message, with ``task_id`` and ``context_id`` filled in."""
        return self._run.message

    @property
    def text(self) -> str:
        """The text of the message's text parts, concatenated."""
        return self._run.text

    @property
    def follow_up(self) -> bool:
        """True when the message continues an existing task (e.g. answers a question)."""
        return self._run.follow_up

    @property
    def resumed(self) -> bool:
        """True when this run resumes a task whose run was lost in a restart."""
        return self._run.resumed

    @property
    def task(self) -> Task | None:
        """The task as stored when the run started (None for a new task)."""
        return self._run.task

    @property
    def principal(self) -> str | None:
        """Who sent it, as the server's authentication judged (None: anonymous)."""
        return self._run.principal

    @property
    def extensions(self) -> list[str]:
        """The extensions active for this call."""
        return self._run.extensions

    @property
    def tenant(self) -> str:
        """The tenant the request named (``""``: none)."""
        return self._run.tenant

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The request's metadata (``SendMessageRequest.metadata``; None when it sent none,
        and for a resumed run)."""
        return self._run.metadata

    @property
    def configuration(self) -> SendMessageConfiguration | None:
        """The request's configuration as sent (accepted output modes, history length,
        return immediately, push config; None when it sent none, and for a resumed run)."""
        return self._run.configuration

    @property
    def accepted_output_modes(self) -> list[str]:
        """The media types the client accepts (empty: any)."""
        c = self._run.configuration
        return [] if c is None else list(c.accepted_output_modes)

    @property
    def cancelled(self) -> bool:
        """True once the task was canceled or the server is stopping."""
        return self._run.cancelled or self._cancel.is_set()

    async def wait_cancelled(self) -> None:
        """Returns once the task is canceled or the server is stopping (at once if it
        already was): race it against the work, ``asyncio.wait({work, cancel}, ...)``."""
        if not self.cancelled:
            await self._cancel.wait()

    @property
    def run_id(self) -> int:
        return self._run.id

    def __repr__(self) -> str:
        return f"RequestContext(task_id={self.task_id!r}, context_id={self.context_id!r}, text={self.text!r})"


class Events:
    """Where a run publishes. Every method may be called from any thread.

    A publish the server refuses raises the ``A2AError`` that says why: the run is over (its
    task finished, was canceled, or a newer message continued it), or the event breaks the
    task's state machine (an artifact after the task completed). The ready server learns of a
    refusal a moment later than the ASGI app: from the next publish on, or at once with
    ``await events.flush()``.
    """

    __slots__ = ("_run",)

    def __init__(self, run: _a2a_wire.Run) -> None:
        self._run = run

    def agent_message(self, text: str, *, metadata: Mapping[str, Any] | None = None) -> Message:
        """An agent message of one text part, with a fresh id (a UUID v4) and the run's task
        and context."""
        return Message(
            message_id=str(uuid.uuid4()),
            role=Role.AGENT,
            parts=[Part(text=text)],
            task_id=self._run.task_id,
            context_id=self._run.context_id,
            metadata=metadata,
        )

    def status(self, state: TaskState, message: Message | str | None = None, *, metadata: Mapping[str, Any] | None = None) -> None:
        """Sets the task's status, with an optional agent message (a question, a reason);
        ``metadata`` goes on the status update event."""
        if isinstance(message, str):
            message = self.agent_message(message)
        self._run.status(state, message, None if metadata is None else dict(metadata))

    def artifact(
        self,
        artifact: Artifact | str,
        *,
        artifact_id: str = "",
        name: str = "",
        append: bool = False,
        last_chunk: bool = False,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        """Publishes an artifact, or a chunk of one (``append`` adds its parts to the artifact
        with the same id; ``last_chunk`` says it is complete). A ``str`` becomes an artifact
        of one text part named by ``artifact_id`` and ``name``; an artifact without an id gets
        a fresh one (a UUID v4), so two calls make two artifacts: give ``artifact_id`` to send
        one in chunks. ``metadata`` goes on the artifact update event."""
        if isinstance(artifact, str):
            artifact = Artifact(artifact_id=artifact_id, name=name, parts=[Part(text=artifact)])
        self._run.artifact(artifact, append, last_chunk, None if metadata is None else dict(metadata))

    def message(self, message: Message | str, *, metadata: Mapping[str, Any] | None = None) -> None:
        """Replies with a message: as the run's first event a direct reply (no task is
        kept), later a message in the task's conversation. ``metadata`` is the message's own
        (for a ``str``)."""
        if isinstance(message, str):
            message = self.agent_message(message, metadata=metadata)
        elif metadata is not None:
            raise TypeError("metadata: give it in the Message itself (Message(metadata=...))")
        self._run.message_event(message)

    def complete(self, message: Message | str | None = None, *, metadata: Mapping[str, Any] | None = None) -> None:
        """Shorthand for ``status(TaskState.COMPLETED, message, metadata=metadata)``."""
        self.status(TaskState.COMPLETED, message, metadata=metadata)

    async def flush(self) -> None:
        """Waits until the server applied every event sent so far; raises its refusal."""
        await asyncio.get_running_loop().run_in_executor(None, self._run.flush)

    @property
    def cancelled(self) -> bool:
        return self._run.cancelled


class AgentExecutor(Protocol):
    """An agent as an object (the shape of the official SDK's executors). A ``cancel(ctx,
    events)`` method, when it has one (it may be ``async``), is called when the run's task is
    canceled; events published then are refused (the task is canceled already)."""

    def execute(self, ctx: RequestContext, events: Events) -> Awaitable[None] | None: ...


#: What the servers accept as the agent: an ``async def``, a plain function (run in a
#: thread pool), or an object with such an ``execute`` method.
Executor = Union[
    Callable[[RequestContext, Events], Awaitable[None]],
    Callable[[RequestContext, Events], None],
    AgentExecutor,
]


class _Runner:
    """Runs the agent for each run a host hands over, on one event loop, and judges calls
    with ``authenticate``."""

    def __init__(
        self,
        executor: Executor,
        loop: asyncio.AbstractEventLoop,
        pool: concurrent.futures.Executor | None,
        cancel_grace: float = 5.0,
        authenticate: Authenticator | None = None,
    ) -> None:
        fn: Any = getattr(executor, "execute", executor)
        if not callable(fn):
            raise TypeError("the agent must be a callable or have an execute(ctx, events) method")
        self._fn = fn
        on_cancel = getattr(executor, "cancel", None) if hasattr(executor, "execute") else None
        self._on_cancel: Any = on_cancel if callable(on_cancel) else None
        self._is_async = _is_async(fn)
        self._loop = loop
        self._pool = pool
        self._grace = cancel_grace
        self.authenticate = authenticate
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self._runs: dict[int, tuple[RequestContext, Events]] = {}
        self._cancels: dict[int, asyncio.Event] = {}
        self.judging: set[asyncio.Task[None]] = set()

    def start(self, run: _a2a_wire.Run) -> None:
        cancel = asyncio.Event()
        ctx, events = RequestContext(run, cancel), Events(run)
        task = self._loop.create_task(self._execute(run, ctx, events))
        run_id = run.id
        self.tasks[run_id] = task
        self._runs[run_id] = (ctx, events)
        self._cancels[run_id] = cancel

        def forget(_: asyncio.Task[None]) -> None:
            self.tasks.pop(run_id, None)
            self._runs.pop(run_id, None)
            self._cancels.pop(run_id, None)

        task.add_done_callback(forget)

    def cancel(self, run_id: int) -> None:
        """The run's task was canceled: wake ``wait_cancelled``, tell the executor, and cancel
        the coroutine if it still runs after the grace."""
        task = self.tasks.get(run_id)
        if task is None:
            return
        event = self._cancels.get(run_id)
        if event is None or event.is_set():
            return
        event.set()
        pair = self._runs.get(run_id)
        if self._on_cancel is not None and pair is not None:
            side = self._loop.create_task(self._tell_cancel(*pair))
            self.judging.add(side)
            side.add_done_callback(self.judging.discard)
        self._loop.call_later(self._grace, _cancel_if_running, task)

    async def _tell_cancel(self, ctx: RequestContext, events: Events) -> None:
        try:
            if _is_async(self._on_cancel):
                await self._on_cancel(ctx, events)
            else:
                result = await self._loop.run_in_executor(self._pool, self._on_cancel, ctx, events)
                if inspect.isawaitable(result):
                    await result
        except A2AError:
            pass  # a publish refused: the task is canceled already
        except Exception:
            log.exception("the executor's cancel raised for task %s", ctx.task_id)

    async def _execute(self, run: _a2a_wire.Run, ctx: RequestContext, events: Events) -> None:
        try:
            if self._is_async:
                await self._fn(ctx, events)
            else:
                result = await self._loop.run_in_executor(self._pool, self._fn, ctx, events)
                if inspect.isawaitable(result):
                    await result
        except asyncio.CancelledError:
            run.finish()
            raise
        except A2AError as e:
            run.fail(e.message)
        except Exception:
            log.exception("the agent raised while working on task %s", run.task_id)
            run.fail(AGENT_FAILED)
        else:
            run.finish()

    def judge(self, request: Request, answer: Callable[[str | None, A2AError | None], object]) -> None:
        """Runs ``authenticate`` on ``request`` as a task of its own; ``answer`` gets the
        verdict."""
        assert self.authenticate is not None
        authenticate = self.authenticate

        async def run() -> None:
            principal, error = await judge(authenticate, request, self._loop, self._pool)
            answer(principal, error)

        task = self._loop.create_task(run())
        self.judging.add(task)
        task.add_done_callback(self.judging.discard)

    async def cancel_all(self, timeout: float) -> None:
        """Cancels every run still going at once (the server stops) and waits (up to
        ``timeout``) for them to end."""
        for event in self._cancels.values():
            event.set()
        tasks = list(self.tasks.values())
        for t in tasks:
            t.cancel()
        for t in list(self.judging):
            t.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


def _cancel_if_running(task: asyncio.Task[None]) -> None:
    if not task.done():
        task.cancel()


def _grace(cancel_grace: float) -> float:
    if isinstance(cancel_grace, bool) or not isinstance(cancel_grace, (int, float)) or not 0 <= cancel_grace < float("inf"):
        raise ValueError(f"cancel_grace must be a finite number of seconds, 0 or more, got {cancel_grace!r}")
    return float(cancel_grace)


def _retain_ms(retain: float | datetime.timedelta | None) -> int | None:
    """``retain`` as whole milliseconds (None: keep for ever)."""
    if retain is None:
        return None
    if isinstance(retain, datetime.timedelta):
        seconds = retain.total_seconds()
    elif isinstance(retain, (int, float)) and not isinstance(retain, bool):
        seconds = float(retain)
    else:
        raise TypeError(f"retain: expected seconds or a datetime.timedelta, got {type(retain).__name__}")
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"retain must be a positive, finite duration, got {retain!r}")
    return max(1, round(seconds * 1000))


class AgentServer:
    """The ready server: the Rust transport on threads of its own, the agent on this event
    loop. Use it as ``async with AgentServer(agent) as server:`` or ``await server.start()``
    / ``await server.stop()``; ``server.url`` is where it listens.

    ``card`` is the Agent Card to publish (required: the card says who the agent is). Its
    interfaces follow one rule, the same in every binding: a card without
    ``supported_interfaces`` gets the standard six, and a card that lists some is served as
    given. The six: JSON-RPC at ``/a2a/jsonrpc``, HTTP+JSON at ``/a2a/rest`` and
    gRPC at the address in v1.0, and the same in v0.3 at ``/a2a/v03/jsonrpc``,
    ``/a2a/v03/rest`` and the address. Servers listen where they are told: give
    ``host="0.0.0.0"`` deliberately.

    Tasks are kept in memory unless ``store`` names a SQLite file (created if missing, an
    older release's file migrated) or a PostgreSQL database
    (``"postgres://USER[:PASS]@HOST:PORT/DB"``, tables created at start): then they outlive
    the process, and memory holds the tasks
    in use plus a cache of about ``cache_mb`` MiB (default 64) of others. ``retain`` (seconds
    or a :class:`~datetime.timedelta`) deletes each completed, canceled, failed or rejected
    task whose last change is older, with everything kept for it; it then answers as a task
    that never existed. Tasks still working, submitted or waiting for input are never
    deleted. None (the default) keeps every task. A store that cannot be opened raises
    ``OSError`` at start. ``public_url`` (``"https://HOST[:PORT]"``, a load balancer's
    origin) is what the card's interfaces name instead of the listening address; ``url``
    stays where this server listens.

    ``authenticate`` judges every call (see :mod:`a2a_wire.auth`): it gets the request (every
    header, the peer) and returns the principal, or None to refuse it with 401 and
    ``WWW-Authenticate``, or raises ``PermissionError`` for 403. It may be ``async``.
    ``bearer_tokens`` (token to principal) is the shortcut for a fixed table: every call needs
    ``Authorization: Bearer TOKEN`` for one of the tokens and the card declares the scheme
    (give one of the two). Either way each principal sees only the tasks and push configs it
    made (another's are answered as if they did not exist), and ``ctx.principal`` names the
    caller.

    ``cancel_grace`` (seconds) is how long a canceled run's coroutine may go on after
    ``ctx.wait_cancelled()`` returned before it gets ``asyncio.CancelledError``.

    ``tls`` is a ``(certificate, key)`` pair of PEM files: the server then speaks HTTPS only
    (HTTP/1.1 and HTTP/2 by ALPN on the one port), its card and ``url`` list ``https://``
    URLs, and a bad file raises :class:`~a2a_wire.TLSError` at start.

    ``extended_card`` is what every authenticated caller gets from ``GetExtendedAgentCard``
    (anonymous callers get none); ``extended_cards`` maps a principal (a value of
    ``bearer_tokens``) to an extended card of its own, which only that principal gets. Like
    ``card``, an extended card without interfaces gets the standard six, and with bearer
    tokens each declares the bearer scheme.

    ``signing_key`` (a :class:`~a2a_wire.signing.SigningKey`) signs the card and the extended
    cards as served (spec 8.4), with ``card_jku`` (where the key set is published) in each
    signature's header.

    Push notifications go to public addresses only: the SSRF guard refuses loopback, private
    and link-local ones. ``allow_webhooks`` lets some through (host names, addresses, CIDR
    networks: ``["127.0.0.1", "10.0.0.0/8"]``; local development), ``allow_private_webhooks``
    all of them. ``https://`` receivers are verified against ``webhook_ca_file`` (PEM;
    None: the platform's roots). A bad allow-list entry raises ``ValueError`` naming it.

    ``v03_file_bytes`` is how v0.3 gRPC and HTTP+JSON answers carry file bytes:
    ``"base64"`` (the default) writes their base64 text, what a2a-sdk and a2a-go v0.3 read;
    ``"raw"`` the bytes, for clients on @a2a-js/sdk 0.3. Both forms are read, and a client
    that sent raw bytes is answered raw either way (INTEROP.md, "File bytes in v0.3").
    """

    def __init__(
        self,
        executor: Executor,
        *,
        card: AgentCard | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        thread_pool: concurrent.futures.Executor | None = None,
        shutdown_timeout: float = 5.0,
        authenticate: Authenticator | None = None,
        cancel_grace: float = 5.0,
        bearer_tokens: Mapping[str, str] | None = None,
        tls: tuple[str | os.PathLike[str], str | os.PathLike[str]] | None = None,
        extended_card: AgentCard | None = None,
        extended_cards: Mapping[str, AgentCard] | None = None,
        signing_key: SigningKey | None = None,
        card_jku: str | None = None,
        allow_webhooks: Iterable[str] = (),
        allow_private_webhooks: bool = False,
        webhook_ca_file: str | os.PathLike[str] | None = None,
        v03_file_bytes: Literal["base64", "raw"] = "base64",
        store: str | os.PathLike[str] | None = None,
        cache_mb: int | None = None,
        retain: float | datetime.timedelta | None = None,
        public_url: str | None = None,
    ) -> None:
        if card is None:
            raise TypeError(
                "AgentServer needs card=: the AgentCard to publish (a2a_wire.AgentCard(name=..., description=..., "
                "version=..., ...); its supported_interfaces may stay empty, they are filled in)"
            )
        if v03_file_bytes not in ("base64", "raw"):
            raise ValueError(f'v03_file_bytes must be "base64" or "raw", got {v03_file_bytes!r}')
        if authenticate is not None:
            check(authenticate)
            if bearer_tokens is not None:
                raise ValueError("give bearer_tokens or authenticate, not both: the tokens are an authenticator of their own")
        self._authenticate = authenticate
        self._cancel_grace = _grace(cancel_grace)
        if cache_mb is not None and (isinstance(cache_mb, bool) or not isinstance(cache_mb, int) or cache_mb < 0):
            raise ValueError(f"cache_mb must be a whole number of MiB, got {cache_mb!r}")
        self._store = None if store is None else os.fspath(store)
        self._cache_bytes = None if cache_mb is None else cache_mb * (1 << 20)
        self._retain_ms = _retain_ms(retain)
        self._public_url = public_url
        if isinstance(allow_webhooks, str):
            raise TypeError("allow_webhooks: expected a list of hosts, addresses or networks, got a str")
        self._executor = executor
        self._tls = tls
        self._extended_card = extended_card
        self._extended_cards = None if extended_cards is None else dict(extended_cards)
        self._signing_key = signing_key
        self._card_jku = card_jku
        self._allow_webhooks = list(allow_webhooks)
        self._allow_private_webhooks = allow_private_webhooks
        self._webhook_ca_file = webhook_ca_file
        self._v03_file_bytes = v03_file_bytes
        self._bearer_tokens = None if bearer_tokens is None else dict(bearer_tokens)
        self._card = card
        self._host = host
        self._port = port
        self._pool = thread_pool
        self._shutdown_timeout = shutdown_timeout
        self._server: _a2a_wire.ReadyServer | None = None
        self._watch: socket.socket | None = None
        self._runner: _Runner | None = None
        self._stopped: asyncio.Event | None = None

    async def start(self) -> None:
        """Binds and starts serving; returns once the server listens."""
        if self._server is not None:
            raise RuntimeError("the server is already started")
        loop = asyncio.get_running_loop()
        self._runner = _Runner(self._executor, loop, self._pool, self._cancel_grace, self._authenticate)
        self._stopped = asyncio.Event()
        self._server = _a2a_wire.ReadyServer(
            self._host, self._port, self._card, self._bearer_tokens, self._tls,
            extended_card=self._extended_card, extended_cards=self._extended_cards, signing_key=self._signing_key,
            card_jku=self._card_jku, allow_webhooks=self._allow_webhooks, allow_private_webhooks=self._allow_private_webhooks,
            webhook_ca_file=self._webhook_ca_file, v03_file_bytes=self._v03_file_bytes, store=self._store,
            cache_bytes=self._cache_bytes, retain_ms=self._retain_ms, public_url=self._public_url,
            authenticate=self._authenticate is not None, cancel_grace_ms=round(self._cancel_grace * 1000),
        )
        self._watch = watch(loop, self._server.take_watch_fd(), self._take)

    def _take(self) -> None:
        if self._server is not None:
            self._dispatch(self._server.take())

    def _dispatch(self, items: list[_a2a_wire.Run | int | _a2a_wire.AuthCall]) -> None:
        assert self._runner is not None
        for item in items:
            if isinstance(item, int):
                self._runner.cancel(item)
            elif isinstance(item, _a2a_wire.AuthCall):
                path, _, query = item.target.partition("?")
                request = Request(
                    method=item.method, path=path, query=query, headers=Headers(item.headers), peer=item.peer,
                    operation=item.operation, binding=item.binding, version=item.version, tenant=item.tenant,
                )
                self._runner.judge(request, item.answer)
            else:
                self._runner.start(item)

    @property
    def url(self) -> str:
        """``http://HOST:PORT``; the card is at ``/.well-known/agent-card.json``."""
        if self._server is None:
            raise RuntimeError("the server is not started")
        return self._server.url

    @property
    def card(self) -> AgentCard:
        """The card the server publishes (with the interfaces it serves, signed with
        ``signing_key``)."""
        if self._server is None:
            raise RuntimeError("the server is not started")
        return self._server.card

    async def stop(self) -> None:
        """Stops the server: no new connections, open streams end with Unavailable, runs
        still going are canceled (waiting up to ``shutdown_timeout`` for them)."""
        server, self._server = self._server, None
        if server is None:
            return
        loop = asyncio.get_running_loop()
        if self._watch is not None:
            unwatch(loop, self._watch)
        # The transport cancels every run as it stops; those cancels come back with the runs
        # that were still waiting to start, which end when their handle goes.
        left = await loop.run_in_executor(None, server.stop)
        assert self._runner is not None
        for item in left:
            if isinstance(item, int):
                self._runner.cancel(item)
        await self._runner.cancel_all(self._shutdown_timeout)
        if self._stopped is not None:
            self._stopped.set()

    async def serve_forever(self) -> None:
        """Waits until ``stop()`` (or cancellation, which stops the server)."""
        if self._server is None:
            await self.start()
        assert self._stopped is not None
        try:
            await self._stopped.wait()
        finally:
            await self.stop()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


async def serve(
    executor: Executor,
    *,
    card: AgentCard | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    authenticate: Authenticator | None = None,
    cancel_grace: float = 5.0,
    bearer_tokens: Mapping[str, str] | None = None,
    tls: tuple[str | os.PathLike[str], str | os.PathLike[str]] | None = None,
    extended_card: AgentCard | None = None,
    extended_cards: Mapping[str, AgentCard] | None = None,
    signing_key: SigningKey | None = None,
    card_jku: str | None = None,
    allow_webhooks: Iterable[str] = (),
    allow_private_webhooks: bool = False,
    webhook_ca_file: str | os.PathLike[str] | None = None,
    v03_file_bytes: Literal["base64", "raw"] = "base64",
    store: str | os.PathLike[str] | None = None,
    cache_mb: int | None = None,
    retain: float | datetime.timedelta | None = None,
    public_url: str | None = None,
) -> AgentServer:
    """Starts an :class:`AgentServer` and returns it (already listening); the options are
    the server's."""
    server = AgentServer(
        executor, card=card, host=host, port=port, authenticate=authenticate, cancel_grace=cancel_grace,
        bearer_tokens=bearer_tokens, tls=tls, extended_card=extended_card,
        extended_cards=extended_cards, signing_key=signing_key, card_jku=card_jku, allow_webhooks=allow_webhooks,
        allow_private_webhooks=allow_private_webhooks, webhook_ca_file=webhook_ca_file, v03_file_bytes=v03_file_bytes,
        store=store, cache_mb=cache_mb, retain=retain, public_url=public_url,
    )
    await server.start()
    return server

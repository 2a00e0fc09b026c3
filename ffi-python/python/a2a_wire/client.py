"""The asyncio client: the eleven A2A operations over JSON-RPC, HTTP+JSON and gRPC, v1.0 and
v0.3, chosen from the agent's card.

::

    async with Client.connect("http://127.0.0.1:8000") as client:
        reply = await client.send_message("hello")          # a Task or a Message
        async for event in client.send_streaming_message("slow"):
            print(event)

The work is the Rust transport's client (itself the core's step-function client, so retries
and error classification follow the core's rules) on its own threads; results come back to
the event loop without blocking it. Calls may overlap (each uses its own connection from a
small pool). A stream is an async iterator; leaving the loop early, ``aclose()`` or
cancelling the task that iterates closes its connection (the task goes on at the server).
``send_streaming_message`` and ``subscribe_to_task`` give an ``OpeningStream``: iterate it
at once, or ``await`` it for its ``Stream``. ``await Client.connect(url)`` works as well as
``async with Client.connect(url)``.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Union

from . import _a2a_wire
from ._model import (
    AgentCard,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    SendMessageResponse,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
)
from ._a2a_wire import CardKeySet
from ._wake import unwatch, watch
from .errors import ClientClosedError, ProtocolError
from .protocol import BINDINGS, VERSIONS, SelectedInterface

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Client", "Connecting", "HeaderProvider", "OpeningStream", "Stream", "connect", "user_message"]


def user_message(text: str, *, task_id: str = "", context_id: str = "") -> Message:
    """A user message of one text part with a fresh id."""
    return Message(message_id=uuid.uuid4().hex, role=Role.USER, parts=[Part(text=text)], task_id=task_id, context_id=context_id)


class Stream:
    """The events of one stream (``StreamResponse``: ``task``, ``message``, ``status_update``
    or ``artifact_update``), as an async iterator. Errors the server sends end the stream and
    raise here."""

    def __init__(self, client: Client, stream_id: int) -> None:
        self._client = client
        self._id = stream_id
        self._done = False

    def __aiter__(self) -> Stream:
        return self

    async def __anext__(self) -> StreamResponse:
        if self._done:
            raise StopAsyncIteration
        try:
            event = await self._client._next(self._id)
        except BaseException:
            # An error ends the stream; so does cancelling the task that waits here.
            await self.aclose()
            raise
        if event is None:
            self._done = True
            raise StopAsyncIteration
        return event

    async def aclose(self) -> None:
        """Closes the stream's connection (the task goes on at the server)."""
        if not self._done:
            self._done = True
            self._client._hub.stream_close(self._id)

    async def __aenter__(self) -> Stream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class OpeningStream:
    """A stream about to open, as ``send_streaming_message`` and ``subscribe_to_task`` give it.
    Iterate it (``async for event in client.send_streaming_message(text)``), use it with
    ``async with ... as stream``, or ``await`` it for the ``Stream``; the request is sent once,
    when one of these first needs it."""

    def __init__(self, client: Client, method: str, request: Any, timeout: float | None, headers: Mapping[str, str] | None) -> None:
        self._client = client
        self._method = method
        self._request = request
        self._options = (timeout, headers)
        self._stream: Stream | None = None

    async def _open(self) -> Stream:
        if self._stream is None:
            self._stream = await self._client._stream(self._method, self._request, *self._options)
        return self._stream

    def __await__(self) -> Generator[Any, None, Stream]:
        return self._open().__await__()

    def __aiter__(self) -> OpeningStream:
        return self

    async def __anext__(self) -> StreamResponse:
        stream = await self._open()
        return await stream.__anext__()

    async def aclose(self) -> None:
        """Closes the stream's connection, if it was opened (the task goes on at the server)."""
        if self._stream is not None:
            await self._stream.aclose()

    async def __aenter__(self) -> Stream:
        return await self._open()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class Connecting:
    """What ``Client.connect`` gives: ``async with Client.connect(url) as client:`` connects
    and closes the client when the block ends; ``await Client.connect(url)`` gives the client
    to close yourself."""

    def __init__(self, connect: Coroutine[Any, Any, Client]) -> None:
        self._connect: Coroutine[Any, Any, Client] | None = connect
        self._client: Client | None = None

    def _take(self) -> Coroutine[Any, Any, Client]:
        connect, self._connect = self._connect, None
        if connect is None:
            raise RuntimeError("Client.connect(...) was already awaited: call it again for another client")
        return connect

    def __await__(self) -> Generator[Any, None, Client]:
        return self._take().__await__()

    async def __aenter__(self) -> Client:
        self._client = await self._take()
        return self._client

    async def __aexit__(self, *exc: object) -> None:
        if self._client is not None:
            await self._client.aclose()

    def __del__(self) -> None:
        # Never awaited: close the coroutine so that Python does not warn about it.
        if self._connect is not None:
            self._connect.close()


#: Gives the headers of each call: a function or ``async def`` returning a mapping, asked
#: before every call (a fresh token, say). Its headers come after ``headers=`` of connect
#: and before those of the call.
HeaderProvider = Callable[[], Union[Mapping[str, str], Awaitable[Mapping[str, str]]]]


class Client:
    """A client bound to one interface of one agent. Make it with ``async with
    Client.connect(url) as client:`` (or ``client = await Client.connect(url)``).

    Every operation takes ``timeout=`` (seconds, instead of the client's) and ``headers=``
    (sent with this call only, after the client's own)."""

    def __init__(self) -> None:
        self._hub = _a2a_wire.ClientHub()
        self._loop = asyncio.get_running_loop()
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._token = 0
        self._watch = watch(self._loop, self._hub.take_watch_fd(), self._take)
        self._card: AgentCard | None = None
        self._closed = False
        self._header_provider: HeaderProvider | None = None

    @classmethod
    def connect(
        cls,
        url: str,
        *,
        bindings: Sequence[str] = BINDINGS,
        versions: Sequence[str] = VERSIONS,
        timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
        header_provider: HeaderProvider | None = None,
        extensions: Sequence[str] = (),
        ca_file: str | os.PathLike[str] | None = None,
        client_cert: tuple[str | os.PathLike[str], str | os.PathLike[str]] | None = None,
        card_keys: CardKeySet | None = None,
        require_signed_card: bool = False,
        stream_resumes: int = 5,
        v03_file_bytes: Literal["base64", "raw"] = "base64",
    ) -> Connecting:
        """Fetches the agent's card (``url`` is its base URL or its card's URL) and selects the
        interface: the card's first entry whose binding is in ``bindings`` decides the binding,
        the most preferred of ``versions`` it offers the version. ``timeout`` bounds each call
        (seconds; a call that outlives it raises :class:`~a2a_wire.CallTimeoutError`, a
        ``TimeoutError``); ``headers`` go with every request (``Authorization``);
        ``header_provider`` (see :data:`HeaderProvider`) is asked before every call, for
        headers that change (a token refreshed); ``extensions`` are declared in
        ``A2A-Extensions``.

        ``https://`` agents are verified against the platform's roots, or only against the
        certificate authorities of ``ca_file`` (PEM); ``client_cert`` is a ``(certificate,
        key)`` pair of PEM files presented when the agent asks for one. A certificate that
        does not verify raises :class:`~a2a_wire.TLSError`.

        ``card_keys`` (a :class:`~a2a_wire.signing.CardKeySet`, taken as it is now) checks the
        card's signatures (spec 8.4): a signed card must carry one they verify, and with
        ``require_signed_card`` an unsigned card is refused too; either refusal raises
        :class:`~a2a_wire.CardSignatureError`. ``require_signed_card`` without ``card_keys``
        raises ``ValueError``.

        A stream that breaks off mid-task (the connection dropped, the server restarted) is
        resumed with ``SubscribeToTask`` and ``Last-Event-ID``, up to ``stream_resumes`` times
        in a row (0: never; a negative count raises ``ValueError``): against a server that
        keeps its events, as a2a-wire does, none is lost or seen twice. A resume sends the
        headers its stream was opened with.

        ``v03_file_bytes`` is how file bytes travel on a v0.3 gRPC or HTTP+JSON interface:
        ``"base64"`` (the default) writes their base64 text, what the servers of a2a-sdk and
        a2a-go v0.3 read; ``"raw"`` the bytes, for servers on @a2a-js/sdk 0.3 (and 1.3.0's
        v0.3 layer) and a2a-go v2's. Both forms are read (INTEROP.md, "File bytes in
        v0.3").

        Returns a :class:`Connecting`: use it in ``async with`` or ``await`` it. The arguments
        are checked at once (a bad one raises here, before any await)."""
        if v03_file_bytes not in ("base64", "raw"):
            raise ValueError(f'v03_file_bytes must be "base64" or "raw", got {v03_file_bytes!r}')
        if isinstance(stream_resumes, bool) or not isinstance(stream_resumes, int):
            raise TypeError(f"stream_resumes: expected int, got {type(stream_resumes).__name__}")
        if stream_resumes < 0:
            raise ValueError(f"stream_resumes must be 0 or more, got {stream_resumes}")
        if card_keys is not None and not isinstance(card_keys, CardKeySet):
            raise TypeError(f"card_keys: expected CardKeySet, got {type(card_keys).__name__}")
        if require_signed_card and card_keys is None:
            raise ValueError("require_signed_card needs card_keys: the keys a signature must verify against")
        if header_provider is not None and not callable(header_provider):
            raise TypeError(f"header_provider: expected a function, got {type(header_provider).__name__}")
        args = (
            url, list(bindings), list(versions), timeout, list((headers or {}).items()), list(extensions),
            ca_file, client_cert, card_keys, require_signed_card, stream_resumes, v03_file_bytes,
        )
        return Connecting(cls._connect(args, header_provider))

    @classmethod
    async def _connect(cls, args: tuple[Any, ...], header_provider: HeaderProvider | None) -> Client:
        client = cls()
        client._header_provider = header_provider
        try:
            card = await client._submit(client._hub.connect, *args)
        except BaseException:
            await client.aclose()
            raise
        client._card = card
        return client

    # ------------------------------------------------------------------ plumbing

    def _take(self) -> None:
        for token, ok, value in self._hub.take():
            fut = self._pending.pop(token, None)
            if fut is None or fut.done():
                continue
            if ok:
                fut.set_result(value)
            else:
                fut.set_exception(value)

    async def _submit(self, fn: Any, *args: Any) -> Any:
        if self._closed:
            raise ClientClosedError("the client is closed")
        self._token += 1
        token = self._token
        fut: asyncio.Future[Any] = self._loop.create_future()
        self._pending[token] = fut
        try:
            fn(token, *args)
        except BaseException:
            self._pending.pop(token, None)
            raise
        return await fut

    async def _next(self, stream_id: int) -> StreamResponse | None:
        self._token += 1
        token = self._token
        fut: asyncio.Future[Any] = self._loop.create_future()
        self._pending[token] = fut
        if not self._hub.stream_next(token, stream_id):
            self._pending.pop(token, None)
            return None
        result: StreamResponse | None = await fut
        return result

    async def _headers(self, headers: Mapping[str, str] | None) -> list[tuple[str, str]]:
        """The call's own headers: the provider's, then ``headers``."""
        out: list[tuple[str, str]] = []
        if self._header_provider is not None:
            given = self._header_provider()
            if inspect.isawaitable(given):
                given = await given
            out.extend(dict(given).items())
        if headers:
            out.extend(headers.items())
        return out

    async def _call(self, method: str, request: Any, timeout: float | None = None, headers: Mapping[str, str] | None = None) -> Any:
        return await self._submit(self._hub.call, method, request, timeout, await self._headers(headers))

    async def _stream(self, method: str, request: Any, timeout: float | None = None, headers: Mapping[str, str] | None = None) -> Stream:
        stream_id = await self._submit(self._hub.open_stream, method, request, timeout, await self._headers(headers))
        return Stream(self, stream_id)

    # ------------------------------------------------------------------ what it is

    @property
    def card(self) -> AgentCard:
        """The agent's card as fetched (v0.3 cards read into the v1.0 model)."""
        if self._card is None:
            raise RuntimeError("the client is not connected")
        return self._card

    @property
    def interface(self) -> SelectedInterface:
        """The interface in use."""
        i = self._hub.interface()
        if i is None:
            raise RuntimeError("the client is not connected")
        return SelectedInterface(*i)

    # ------------------------------------------------------------------ the operations

    @staticmethod
    def _send_request(
        message: Message | str | SendMessageRequest,
        configuration: SendMessageConfiguration | None,
        metadata: Mapping[str, Any] | None,
    ) -> SendMessageRequest:
        if isinstance(message, SendMessageRequest):
            return message
        if isinstance(message, str):
            message = user_message(message)
        return SendMessageRequest(message=message, configuration=configuration, metadata=metadata)

    async def send_message(
        self,
        message: Message | str | SendMessageRequest,
        *,
        configuration: SendMessageConfiguration | None = None,
        metadata: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Task | Message:
        """``SendMessage``: a ``str`` becomes a user message of one text part. Returns the Task
        to follow, or the agent's direct Message."""
        request = self._send_request(message, configuration, metadata)
        response: SendMessageResponse = await self._call("SendMessage", request, timeout, headers)
        if response.task is not None:
            return response.task
        if response.message is not None:
            return response.message
        raise ProtocolError("SendMessage answered neither a task nor a message")

    def send_streaming_message(
        self,
        message: Message | str | SendMessageRequest,
        *,
        configuration: SendMessageConfiguration | None = None,
        metadata: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> OpeningStream:
        """``SendStreamingMessage``: the stream of the task's events (or the direct reply), to
        iterate at once or to await (see ``OpeningStream``). ``timeout`` bounds the wait for
        each event."""
        request = self._send_request(message, configuration, metadata)
        return OpeningStream(self, "SendStreamingMessage", request, timeout, headers)

    async def get_task(
        self, task_id: str, *, history_length: int | None = None, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> Task:
        """``GetTask``."""
        result: Task = await self._call("GetTask", GetTaskRequest(id=task_id, history_length=history_length), timeout, headers)
        return result

    async def list_tasks(
        self,
        request: ListTasksRequest | None = None,
        *,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
        **fields: Any,
    ) -> ListTasksResponse:
        """``ListTasks`` (v1.0 only: a v0.3 interface raises ``CannotSendError``); give a
        request or its fields (``context_id=``, ``status=``, ``page_size=`` ...)."""
        if request is None:
            request = ListTasksRequest(**fields)
        result: ListTasksResponse = await self._call("ListTasks", request, timeout, headers)
        return result

    async def cancel_task(self, task_id: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None) -> Task:
        """``CancelTask``."""
        result: Task = await self._call("CancelTask", CancelTaskRequest(id=task_id), timeout, headers)
        return result

    def subscribe_to_task(self, task_id: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None) -> OpeningStream:
        """``SubscribeToTask``: the current task, then its events (see ``OpeningStream``)."""
        return OpeningStream(self, "SubscribeToTask", SubscribeToTaskRequest(id=task_id), timeout, headers)

    async def create_push_config(
        self, config: TaskPushNotificationConfig, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> TaskPushNotificationConfig:
        """``CreateTaskPushNotificationConfig``."""
        result: TaskPushNotificationConfig = await self._call("CreateTaskPushNotificationConfig", config, timeout, headers)
        return result

    async def get_push_config(
        self, task_id: str, config_id: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> TaskPushNotificationConfig:
        """``GetTaskPushNotificationConfig``."""
        request = GetTaskPushNotificationConfigRequest(task_id=task_id, id=config_id)
        result: TaskPushNotificationConfig = await self._call("GetTaskPushNotificationConfig", request, timeout, headers)
        return result

    async def list_push_configs(
        self,
        task_id: str,
        *,
        page_size: int | None = None,
        page_token: str | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> ListTaskPushNotificationConfigsResponse:
        """``ListTaskPushNotificationConfigs``."""
        request = ListTaskPushNotificationConfigsRequest(task_id=task_id, page_size=page_size, page_token=page_token)
        result: ListTaskPushNotificationConfigsResponse = await self._call("ListTaskPushNotificationConfigs", request, timeout, headers)
        return result

    async def delete_push_config(
        self, task_id: str, config_id: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> None:
        """``DeleteTaskPushNotificationConfig``."""
        request = DeleteTaskPushNotificationConfigRequest(task_id=task_id, id=config_id)
        await self._call("DeleteTaskPushNotificationConfig", request, timeout, headers)

    async def get_extended_agent_card(self, *, timeout: float | None = None, headers: Mapping[str, str] | None = None) -> AgentCard:
        """``GetExtendedAgentCard`` (needs credentials the agent accepts)."""
        result: AgentCard = await self._call("GetExtendedAgentCard", GetExtendedAgentCardRequest(), timeout, headers)
        return result

    # ------------------------------------------------------------------ closing

    async def aclose(self) -> None:
        """Closes the client's streams and connections; calls still waiting raise."""
        if self._closed:
            return
        self._closed = True
        self._hub.close()
        unwatch(self._loop, self._watch)
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(ClientClosedError("the client was closed"))
        self._pending.clear()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def connect(url: str, **options: Any) -> Connecting:
    """``Client.connect(url, **options)``: ``async with connect(url) as client:``."""
    return Client.connect(url, **options)

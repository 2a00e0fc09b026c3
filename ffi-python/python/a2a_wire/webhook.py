"""The receiving end of push notifications: a client that registered a push config gets each
of its task's events once, and only from the agent it gave the credentials to.

::

    from a2a_wire.webhook import WebhookEndpoint, WebhookReceiver

    receiver = WebhookReceiver(token="a secret of yours")       # what the push config carries

    async def on_event(task_id: str, event: StreamResponse) -> None:
        ...                                                      # raise: the sender retries it

    app = WebhookEndpoint(receiver, on_event)                    # an ASGI app: uvicorn, or mount it
    # then: receiver.expect_task(task.id); client.create_push_config(TaskPushNotificationConfig(
    #           task_id=task.id, url="https://me.example/hook", token="a secret of yours"))

:class:`WebhookReceiver` is the Rust core's sans-IO receiver: ``handle(method, headers,
body)`` judges one HTTP request and returns a :class:`Delivery` - a new event
(``kind == "event"``), a redelivery of one already handed over (``"duplicate"``, recognized
whatever the sender's encoding), or a refusal (``"refused"``: wrong or missing credentials
401, a task not expected 404, a body that is no event 400) - with the HTTP answer to send
(``status``, ``headers``, ``body``). v1.0 and v0.3 senders are both understood; events come
out in the v1.0 model. Use it under any web framework; :class:`WebhookEndpoint` is that glue
for ASGI.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Union

from ._a2a_wire import Delivery, WebhookReceiver
from ._model import StreamResponse

__all__ = ["WebhookReceiver", "Delivery", "WebhookEndpoint", "OnEvent"]

log = logging.getLogger("a2a_wire")

#: What the application does with each new event: ``on_event(task_id, event)``, an ``async
#: def`` or a plain function (run in the loop's default thread pool). An exception means the
#: event was not taken: the sender is told to deliver it again (503) and it is handed over
#: again then.
OnEvent = Callable[[str, StreamResponse], Union[Awaitable[None], None]]

_Scope = MutableMapping[str, Any]
_Message = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_Message]]
_Send = Callable[[_Message], Awaitable[None]]


class WebhookEndpoint:
    """An ASGI app that receives push notifications for ``receiver`` and hands each new
    event to ``on_event`` (see :data:`OnEvent`), once.

    For each request it reads the body (more than ``max_body`` bytes: 413, not judged), lets
    ``receiver.handle`` judge it, and for a new event awaits ``on_event(task_id, event)``
    before answering 204; when ``on_event`` raises, the answer becomes 503 with
    ``Retry-After`` (``receiver.retry_later``; the exception goes to the ``a2a_wire``
    logger), so that the sender delivers the event again and the application sees it then.
    Duplicates and refusals are answered without calling ``on_event``. The path is not
    looked at: mount the app where the push config's URL points. Lifespan events are
    acknowledged; websockets are closed. ``receiver`` stays available as an attribute (tell
    it the tasks to expect).
    """

    def __init__(self, receiver: WebhookReceiver, on_event: OnEvent, *, max_body: int = 8 * 1024 * 1024) -> None:
        if not isinstance(receiver, WebhookReceiver):
            raise TypeError(f"receiver: expected WebhookReceiver, got {type(receiver).__name__}")
        if not callable(on_event):
            raise TypeError("on_event: expected a function of (task_id, event)")
        if isinstance(max_body, bool) or not isinstance(max_body, int) or max_body < 0:
            raise ValueError(f"max_body must be a number of bytes (0 or more), got {max_body!r}")
        self.receiver = receiver
        self._on_event = on_event
        self._is_async = inspect.iscoroutinefunction(on_event) or inspect.iscoroutinefunction(getattr(on_event, "__call__", None))
        self._max_body = max_body

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1000})

    async def _http(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        headers: list[tuple[bytes, bytes]] = [(bytes(n), bytes(v)) for n, v in scope.get("headers", [])]
        for name, value in headers:
            if name.lower() == b"content-length" and value.strip().isdigit() and int(value) > self._max_body:
                await _answer(send, 413, [("Content-Type", "text/plain")], b"request body too large")
                return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk: bytes = message.get("body", b"")
            size += len(chunk)
            if size > self._max_body:
                await _answer(send, 413, [("Content-Type", "text/plain")], b"request body too large")
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        delivery = self.receiver.handle(scope.get("method", "POST"), headers, b"".join(chunks))
        if delivery.kind == "event":
            delivery = await self._hand_over(delivery)
        elif delivery.kind == "refused":
            log.info("webhook delivery refused with %d: %s", delivery.status, delivery.error)
        await _answer(send, delivery.status, delivery.headers, delivery.body)

    async def _hand_over(self, delivery: Delivery) -> Delivery:
        task_id, event = delivery.task_id, delivery.event
        assert task_id is not None and event is not None  # kind == "event" carries both
        try:
            if self._is_async:
                result = self._on_event(task_id, event)
            else:
                result = await asyncio.get_running_loop().run_in_executor(None, self._on_event, task_id, event)
            if inspect.isawaitable(result):
                await result
        except asyncio.CancelledError:
            # Not taken: a redelivery must be handed over again.
            self.receiver.retry_later(delivery)
            raise
        except Exception:
            log.exception("on_event raised for an event of task %s: answered 503, the sender delivers it again", task_id)
            return self.receiver.retry_later(delivery)
        return delivery


async def _answer(send: _Send, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
    raw = [(n.lower().encode("latin-1"), v.encode("latin-1")) for n, v in headers]
    if not any(n == b"content-length" for n, _ in raw) and status not in (204, 304):
        raw.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})

"""What only the ASGI app does: an authenticator (and the extended card for authenticated
callers), webhooks delivered from the in-process service, and requests as ASGI hands them
(root_path, oversize bodies), driven by real clients over uvicorn."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fastapi import FastAPI
from hosts import mounted_card
from hosts import uvicorn_serving as serve

import a2a_wire as a
from a2a_wire.asgi import A2AApp
from a2a_wire.auth import Request
from a2a_wire.client import Client, user_message
from a2a_wire.server import Events, RequestContext

principals: list[str | None] = []


async def agent(ctx: RequestContext, events: Events) -> None:
    principals.append(ctx.principal)
    events.artifact(ctx.text, artifact_id="echo", last_chunk=True)
    events.complete()


def authenticated_app(base: str) -> FastAPI:
    card = mounted_card(base).replace(capabilities=a.AgentCapabilities(streaming=True, extended_agent_card=True))
    extended = card.replace(name="test (extended)")

    async def judge(req: Request) -> str | None:
        token = req.headers.get("authorization", "")
        if token == "Bearer good":
            return "alice"
        if token:
            raise a.PermissionDeniedError("that token may not call this agent")
        raise a.UnauthenticatedError("send a bearer token")

    a2a = A2AApp(agent, card, extended_card=extended, authenticate=judge)
    app = FastAPI(lifespan=a2a.lifespan)
    app.mount("/", a2a)
    return app


async def test_the_authenticator_judges_every_call() -> None:
    principals.clear()
    async with serve(authenticated_app) as base:
        async with await Client.connect(base) as anonymous:
            try:
                await anonymous.send_message("hi")
                raise AssertionError("an anonymous call was served")
            except a.UnauthenticatedError as e:
                assert e.binding == "JSONRPC"
        async with await Client.connect(base, headers={"Authorization": "Bearer bad"}) as wrong:
            try:
                await wrong.send_message("hi")
                raise AssertionError("a bad token was served")
            except a.PermissionDeniedError:
                pass
        async with await Client.connect(base, headers={"Authorization": "Bearer good"}) as alice:
            t = await alice.send_message("hi")
            assert isinstance(t, a.Task) and principals == ["alice"]
            card = await alice.get_extended_agent_card()
            assert card.name == "test (extended)"


class Receiver:
    """A webhook receiver on 127.0.0.1 that records each POST body."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.got = asyncio.Event()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        body = await reader.readexactly(length)
        self.bodies.append(json.loads(body))
        self.got.set()
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        await writer.drain()
        writer.close()


async def test_webhooks_are_delivered_from_the_in_process_service() -> None:
    receiver = Receiver()
    listener = await asyncio.start_server(receiver.handle, "127.0.0.1", 0)
    hook_port = listener.sockets[0].getsockname()[1]

    def push_app(base: str) -> FastAPI:
        card = mounted_card(base).replace(capabilities=a.AgentCapabilities(streaming=True, push_notifications=True))
        a2a = A2AApp(agent, card, allow_private_webhooks=True)
        app = FastAPI(lifespan=a2a.lifespan)
        app.mount("/", a2a)
        return app

    async with listener, serve(push_app) as base, await Client.connect(base) as c:
        config = a.TaskPushNotificationConfig(url=f"http://127.0.0.1:{hook_port}/hook", token="secret")
        request = a.SendMessageRequest(message=user_message("notify me"),
                                       configuration=a.SendMessageConfiguration(task_push_notification_config=config))
        t = await c.send_message(request)
        assert isinstance(t, a.Task)
        await asyncio.wait_for(receiver.got.wait(), 20)
        for _ in range(100):
            states = [b.get("statusUpdate", b.get("task", {})).get("status", {}).get("state") for b in receiver.bodies]
            if "TASK_STATE_COMPLETED" in states:
                break
            await asyncio.sleep(0.05)
        assert "TASK_STATE_COMPLETED" in states, receiver.bodies


async def test_oversize_bodies_and_prefixed_mounts() -> None:
    def prefixed(base: str) -> FastAPI:
        card = mounted_card(base + "/agents/echo")
        a2a = A2AApp(agent, card, max_body=4096)
        app = FastAPI(lifespan=a2a.lifespan)
        app.mount("/agents/echo", a2a)
        return app

    async with serve(prefixed) as base:
        async with await Client.connect(base + "/agents/echo/.well-known/agent-card.json") as c:
            t = await c.send_message("under a prefix")
            assert isinstance(t, a.Task) and t.artifacts[0].parts[0].text == "under a prefix"
            # The core's limit, applied to what the app read (it stops one chunk past it).
            with pytest.raises(a.InvalidRequestError, match="exceeds the limit of 4096"):
                await c.send_message("x" * 10_000)


async def test_head_of_the_card_is_the_head_only() -> None:
    import httpx

    def plain(base: str) -> FastAPI:
        a2a = A2AApp(agent, mounted_card(base))
        app = FastAPI(lifespan=a2a.lifespan)
        app.mount("/", a2a)
        return app

    async with serve(plain) as base, httpx.AsyncClient() as http:
        got = await http.get(base + "/.well-known/agent-card.json")
        head = await http.head(base + "/.well-known/agent-card.json")
        assert got.status_code == head.status_code == 200
        assert head.content == b"" and head.headers["content-length"] == str(len(got.content))
        assert head.headers["etag"] == got.headers["etag"]

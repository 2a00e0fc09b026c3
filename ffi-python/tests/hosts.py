"""Test helpers: run an agent on the ready server or mounted as ASGI under uvicorn, both on
127.0.0.1, and a free port."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

import a2a_wire as a
from a2a_wire.asgi import A2AApp
from a2a_wire.server import AgentServer, Executor


def free_port(count: int = 1) -> int:
    """A port p of 127.0.0.1 with p .. p + count - 1 all free when asked (the SDK's server
    puts gRPC on p + 1)."""
    for _ in range(50):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        s.close()
        free = True
        for k in range(1, count):
            t = socket.socket()
            try:
                t.bind(("127.0.0.1", port + k))
            except OSError:
                free = False
            finally:
                t.close()
        if free:
            return port
    raise RuntimeError("no free run of ports on 127.0.0.1")


def base_card() -> a.AgentCard:
    return a.AgentCard(
        name="test",
        description="test agent",
        version="1",
        capabilities=a.AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
    )


def mounted_card(base: str) -> a.AgentCard:
    return base_card().replace(
        supported_interfaces=[
            a.AgentInterface(url=f"{base}/a2a/jsonrpc", protocol_binding="JSONRPC", protocol_version="1.0"),
            a.AgentInterface(url=f"{base}/a2a/rest", protocol_binding="HTTP+JSON", protocol_version="1.0"),
            a.AgentInterface(url=f"{base}/a2a/v03/jsonrpc", protocol_binding="JSONRPC", protocol_version="0.3"),
            a.AgentInterface(url=f"{base}/a2a/v03/rest", protocol_binding="HTTP+JSON", protocol_version="0.3"),
        ]
    )


class Hosted:
    """Where an agent runs in a test: its base URL and what the host still runs."""

    def __init__(self, url: str, host: Any) -> None:
        self.url = url
        self.host = host

    def runs_left(self) -> int:
        runner = self.host._runner
        return 0 if runner is None else len(runner.tasks)


@contextlib.asynccontextmanager
async def ready(agent: Executor, **options: Any) -> AsyncIterator[Hosted]:
    async with AgentServer(agent, card=base_card(), **options) as s:
        yield Hosted(s.url, s)


@contextlib.asynccontextmanager
async def uvicorn_serving(app_for: Callable[[str], Any]) -> AsyncIterator[str]:
    """Serves `app_for(base_url)` with uvicorn on a free port of 127.0.0.1; yields the base URL."""
    import uvicorn

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = uvicorn.Server(uvicorn.Config(app_for(base), host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve())
    for _ in range(200):
        if server.started:
            break
        await asyncio.sleep(0.02)
    assert server.started, "uvicorn did not start"
    try:
        yield base
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)


@contextlib.asynccontextmanager
async def mounted(agent: Executor, **options: Any) -> AsyncIterator[Hosted]:
    from fastapi import FastAPI

    made: list[A2AApp] = []

    def app_for(base: str) -> FastAPI:
        a2a_app = A2AApp(agent, mounted_card(base), **options)
        made.append(a2a_app)
        app = FastAPI(lifespan=a2a_app.lifespan)
        app.mount("/", a2a_app)
        return app

    async with uvicorn_serving(app_for) as base:
        yield Hosted(base, made[0])


HOSTS = {"ready": ready, "mounted": mounted}

"""Streams that break off are resumed (``Client.connect(stream_resumes=...)``): a TCP relay on
127.0.0.1 between our client and the ready server cuts the first stream's connection in the
middle of a task; with the default the client resumes it with Last-Event-ID and every event
arrives once, in order; with ``stream_resumes=0`` the stream fails."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
from hosts import base_card

import a2a_wire as a
from a2a_wire.client import Client
from a2a_wire.server import AgentServer, Events, RequestContext

TICKS = 30


async def agent(ctx: RequestContext, events: Events) -> None:
    events.status(a.TaskState.WORKING)
    for i in range(TICKS):
        await asyncio.sleep(0.02)
        events.artifact(f"tick {i}", artifact_id="ticks", append=i > 0, last_chunk=i == TICKS - 1)
    events.complete()


class CuttingRelay:
    """Relays 127.0.0.1 connections to the server; the first answer that is an event stream
    is cut off (both sides closed) once `after` events' data went through."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.target = 0
        self.cuts = 0
        self.connections = 0

    async def handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self.connections += 1
        server_r, server_w = await asyncio.open_connection("127.0.0.1", self.target)

        async def up() -> None:
            with contextlib.suppress(OSError):
                while data := await client_r.read(65536):
                    server_w.write(data)
                    await server_w.drain()
            server_w.close()

        upward = asyncio.create_task(up())
        seen = b""
        cutting = False
        try:
            while data := await server_r.read(65536):
                client_w.write(data)
                await client_w.drain()
                if self.cuts == 0 or cutting:
                    seen += data
                    cutting = cutting or b"text/event-stream" in seen
                    if cutting and seen.count(b"data:") >= self.after:
                        self.cuts += 1
                        client_w.transport.abort()
                        return
        except OSError:
            pass
        finally:
            upward.cancel()
            server_w.close()
            client_w.close()


@contextlib.asynccontextmanager
async def relayed(after: int) -> AsyncIterator[tuple[str, CuttingRelay]]:
    """The ready server behind a cutting relay; its card names the relay's address."""
    relay = CuttingRelay(after)
    listener = await asyncio.start_server(relay.handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    card = base_card().replace(
        supported_interfaces=[a.AgentInterface(url=f"http://127.0.0.1:{port}/a2a/jsonrpc", protocol_binding="JSONRPC", protocol_version="1.0")]
    )
    async with listener, AgentServer(agent, card=card) as s:
        relay.target = int(s.url.rsplit(":", 1)[1])
        yield f"http://127.0.0.1:{port}", relay


def ticks_of(events: list[a.StreamResponse]) -> list[str]:
    return [p.text or "" for e in events if e.artifact_update is not None and e.artifact_update.artifact is not None
            for p in e.artifact_update.artifact.parts]


async def test_a_cut_stream_is_resumed_and_loses_nothing() -> None:
    async with relayed(after=5) as (url, relay), await Client.connect(url) as c:
        stream = await c.send_streaming_message("tick")
        events = await asyncio.wait_for(_collect(stream), 60)
    assert relay.cuts == 1, "the relay cut the stream"
    assert ticks_of(events) == [f"tick {i}" for i in range(TICKS)], "every chunk once, in order"
    last = events[-1].status_update
    assert last is not None and last.status is not None and last.status.state is a.TaskState.COMPLETED
    assert sum(1 for e in events if e.task is not None) == 1, "the resumed stream goes on; it does not start over with the task"


async def test_without_resumes_the_cut_stream_fails() -> None:
    async with relayed(after=5) as (url, relay), await Client.connect(url, stream_resumes=0) as c:
        stream = await c.send_streaming_message("tick")
        got: list[a.StreamResponse] = []
        with pytest.raises(a.TransportError):
            async for e in stream:
                got.append(e)
    assert relay.cuts == 1
    assert 0 < len(ticks_of(got)) < TICKS


async def test_stream_resumes_is_checked() -> None:
    with pytest.raises(ValueError, match="stream_resumes must be 0 or more, got -1"):
        await Client.connect("http://127.0.0.1:9", stream_resumes=-1)
    with pytest.raises(TypeError, match="stream_resumes: expected int, got bool"):
        await Client.connect("http://127.0.0.1:9", stream_resumes=True)


async def _collect(stream: AsyncIterator[a.StreamResponse]) -> list[a.StreamResponse]:
    return [e async for e in stream]

"""Our asyncio client: the eleven operations on all six interfaces of the ready server, the
exceptions each binding's errors become, overlapping calls, and stream closing (leaving the
loop early, cancelling the task that iterates)."""

from __future__ import annotations

import asyncio

import pytest
from hosts import base_card

import a2a_wire as a
from a2a_wire.client import Client, Stream, user_message
from a2a_wire.server import AgentServer, Events, RequestContext

INTERFACES = [(b, v) for b in ("JSONRPC", "HTTP+JSON", "GRPC") for v in ("1.0", "0.3")]


async def agent(ctx: RequestContext, events: Events) -> None:
    if ctx.text == "ticks":
        events.status(a.TaskState.WORKING)
        for i in range(200):
            await asyncio.sleep(0.01)
            events.artifact(f"tick {i}", artifact_id="ticks", append=i > 0)
        events.complete()
    elif ctx.text == "wait":
        events.status(a.TaskState.WORKING)
        await asyncio.sleep(30)
    else:
        events.artifact(ctx.text, artifact_id="echo", last_chunk=True)
        events.complete()


def push_card() -> a.AgentCard:
    return base_card().replace(capabilities=a.AgentCapabilities(streaming=True, push_notifications=True))


@pytest.mark.parametrize("binding,version", INTERFACES)
async def test_the_eleven_operations(binding: str, version: str) -> None:
    async with AgentServer(agent, card=push_card()) as s, await Client.connect(s.url, bindings=[binding], versions=[version]) as c:
        assert (c.interface.binding, c.interface.version) == (binding, version)
        assert c.card.name == "test"
        t = await c.send_message("one")                                                    # 1 SendMessage
        assert isinstance(t, a.Task)
        events = [e async for e in await c.send_streaming_message("two")]                   # 2 SendStreamingMessage
        assert events[0].task is not None
        assert (await c.get_task(t.id, history_length=1)).id == t.id                       # 3 GetTask
        if version == "1.0":
            listed = await c.list_tasks(page_size=10)                                       # 4 ListTasks
            assert t.id in [x.id for x in listed.tasks]
        else:
            with pytest.raises(a.CannotSendError):
                await c.list_tasks()
        w = await c.send_message(a.SendMessageRequest(
            message=user_message("wait"), configuration=a.SendMessageConfiguration(return_immediately=True)))
        assert isinstance(w, a.Task)
        sub = await c.subscribe_to_task(w.id)                                               # 6 SubscribeToTask
        first = await sub.__anext__()
        assert first.task is not None and first.task.id == w.id
        await sub.aclose()
        assert (await c.cancel_task(w.id)).status.state is a.TaskState.CANCELED             # type: ignore[union-attr]  # 5 CancelTask
        config = a.TaskPushNotificationConfig(task_id=t.id, id="cfg-1", url="https://hooks.example/a2a", token="tok")
        made = await c.create_push_config(config)                                           # 7 Create...Config
        assert made.url == config.url and made.task_id == t.id
        got = await c.get_push_config(t.id, made.id)                                        # 8 Get...Config
        assert got.url == config.url
        listed_configs = await c.list_push_configs(t.id)                                    # 9 List...Configs
        assert [x.id for x in listed_configs.configs] == [made.id]
        await c.delete_push_config(t.id, made.id)                                           # 10 Delete...Config
        with pytest.raises(a.TaskNotFoundError):
            await c.get_push_config(t.id, made.id)
        if version == "1.0":
            # 11 GetExtendedAgentCard: the card declares none.
            with pytest.raises((a.UnsupportedOperationError, a.ExtendedAgentCardNotConfiguredError, a.UnauthenticatedError)):
                await c.get_extended_agent_card()
        with pytest.raises(a.TaskNotFoundError) as e:
            await c.get_task("missing")
        assert e.value.binding == binding


async def test_overlapping_calls_and_stream_closing() -> None:
    async with AgentServer(agent, card=base_card()) as s, await Client.connect(s.url) as c:
        replies = await asyncio.gather(*[c.send_message(f"n{i}") for i in range(64)])
        assert [r.artifacts[0].parts[0].text for r in replies if isinstance(r, a.Task)] == [f"n{i}" for i in range(64)]
        # Leaving the loop early closes the stream; the client goes on.
        async with await c.send_streaming_message("ticks") as stream:
            async for event in stream:
                if event.artifact_update is not None:
                    break
        # Cancelling the task that iterates closes it too.
        async def consume() -> None:
            async for _ in await c.send_streaming_message("ticks"):
                pass
        task = asyncio.ensure_future(consume())
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert isinstance(await c.send_message("still here"), a.Task)


async def test_connect_failures_are_client_errors() -> None:
    with pytest.raises(a.TransportError):
        await Client.connect("http://127.0.0.1:9", timeout=2)
    with pytest.raises(ValueError):
        await Client.connect("ftp://example.com")
    # A header field that would end itself and write another is refused before any request.
    for headers in ({"Bad Name": "x"}, {"X-Ok": "a\r\nInjected: 1"}):
        with pytest.raises(ValueError, match="headers"):
            await Client.connect("http://127.0.0.1:9", headers=headers)
    async with AgentServer(agent, card=base_card()) as s:
        with pytest.raises(a.CardError):
            await Client.connect(s.url, bindings=["GRPC"], versions=["2.0"])


async def test_streams_are_iterated_at_once_or_awaited() -> None:
    async with AgentServer(agent, card=base_card()) as s, await Client.connect(s.url) as c:
        # Iterated at once: the request goes out when the loop first asks.
        opening = c.send_streaming_message("two")
        events = [e async for e in opening]
        assert events[0].task is not None and events[-1].status_update is not None
        # Awaited, the form before: the Stream.
        stream = await c.send_streaming_message("two")
        assert isinstance(stream, Stream)
        assert [e async for e in stream][0].task is not None
        # As a context manager, closing it on the way out.
        w = await c.send_message(a.SendMessageRequest(
            message=user_message("wait"), configuration=a.SendMessageConfiguration(return_immediately=True)))
        assert isinstance(w, a.Task)
        async with c.subscribe_to_task(w.id) as sub:
            first = await sub.__anext__()
            assert first.task is not None and first.task.id == w.id
        await c.cancel_task(w.id)
        # Nothing is sent for a stream that is never used, and an error comes where it is read.
        c.send_streaming_message("never sent")
        with pytest.raises(a.TaskNotFoundError):
            async for _ in c.subscribe_to_task("no-such-task"):
                pass

"""Agents on both hosts (the ready server and the ASGI app under uvicorn), driven by our own
client: the event kinds, follow-ups, cancellation, sync executors, and agents that go wrong
- one that raises, one that never returns (cancelled at shutdown), one that publishes after
its task ended. The server keeps serving through all of them and no run is left behind."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from hosts import HOSTS

import a2a_wire as a
from a2a_wire.client import Client, user_message
from a2a_wire.server import AGENT_FAILED, Events, RequestContext

pytestmark = pytest.mark.parametrize("host", sorted(HOSTS))


class Recorder:
    def __init__(self) -> None:
        self.seen: list[str] = []
        self.refusals: list[a.A2AError] = []
        self.release = asyncio.Event()


def make_agent(rec: Recorder) -> Any:
    async def agent(ctx: RequestContext, events: Events) -> None:
        text = ctx.text
        if ctx.follow_up:
            rec.seen.append(f"follow-up {text} on {ctx.task_id}")
            events.artifact(text, artifact_id="echo", last_chunk=True)
            events.complete()
        elif text == "need-input":
            events.status(a.TaskState.INPUT_REQUIRED, "what now?")
        elif text == "raise-late":
            events.status(a.TaskState.WORKING)
            await events.flush()
            raise RuntimeError("the agent broke")
        elif text == "raise-early":
            raise ValueError("broke before any event")
        elif text == "refuse":
            raise a.UnsupportedOperationError("I do not do that")
        elif text == "forever":
            events.status(a.TaskState.WORKING)
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                rec.seen.append(f"cancelled {ctx.task_id} flag={ctx.cancelled}")
                raise
        elif text == "late":
            events.artifact("on time", artifact_id="echo", last_chunk=True)
            events.complete()
            await events.flush()
            try:
                events.artifact("too late", artifact_id="echo2", last_chunk=True)
                await events.flush()
            except a.A2AError as e:
                rec.refusals.append(e)
            rec.release.set()
        elif text == "message-only":
            events.message("direct")
        else:
            events.artifact(text, artifact_id="echo", last_chunk=True)
            events.complete()

    return agent


async def test_agent_behaviours(host: str) -> None:
    rec = Recorder()
    async with HOSTS[host](make_agent(rec)) as h, await Client.connect(h.url) as c:
        t = await c.send_message("hello")
        assert isinstance(t, a.Task) and t.status is not None and t.status.state is a.TaskState.COMPLETED
        assert t.artifacts[0].parts[0].text == "hello"
        m = await c.send_message("message-only")
        assert isinstance(m, a.Message) and m.parts[0].text == "direct" and m.role is a.Role.AGENT
        q = await c.send_message("need-input")
        assert isinstance(q, a.Task) and q.status is not None and q.status.state is a.TaskState.INPUT_REQUIRED
        assert q.status.message is not None and q.status.message.parts[0].text == "what now?"
        done = await c.send_message(user_message("answer", task_id=q.id, context_id=q.context_id))
        assert isinstance(done, a.Task) and done.id == q.id and done.status is not None
        assert done.status.state is a.TaskState.COMPLETED and rec.seen == [f"follow-up answer on {q.id}"]
        events = [e async for e in await c.send_streaming_message("stream me")]
        assert events[0].task is not None and events[-1].status_update is not None
        assert events[-1].status_update.status is not None
        assert events[-1].status_update.status.state is a.TaskState.COMPLETED
        got = await c.get_task(t.id)
        assert got.id == t.id
        with pytest.raises(a.TaskNotFoundError):
            await c.get_task("no-such-task")
    assert h.runs_left() == 0


async def test_failing_agents_fail_their_task_and_the_server_keeps_serving(host: str) -> None:
    rec = Recorder()
    async with HOSTS[host](make_agent(rec)) as h, await Client.connect(h.url) as c:
        t = await c.send_message("raise-late")
        assert isinstance(t, a.Task) and t.status is not None and t.status.state is a.TaskState.FAILED
        assert t.status.message is not None and t.status.message.parts[0].text == AGENT_FAILED
        # A run that raised before its task existed: the caller gets an internal error.
        with pytest.raises(a.InternalError):
            await c.send_message("raise-early")
        # An A2AError raised before the task exists: its message is the failure's text.
        with pytest.raises(a.InternalError, match="I do not do that"):
            await c.send_message("refuse")
        # Still serving.
        ok = await c.send_message("after")
        assert isinstance(ok, a.Task) and ok.status is not None and ok.status.state is a.TaskState.COMPLETED
    assert h.runs_left() == 0


async def test_publishing_after_the_task_ended_is_refused(host: str) -> None:
    rec = Recorder()
    async with HOSTS[host](make_agent(rec)) as h, await Client.connect(h.url) as c:
        t = await c.send_message("late")
        await asyncio.wait_for(rec.release.wait(), 10)
        assert len(rec.refusals) == 1, rec.refusals
        got = await c.get_task(t.id)
        assert [x.artifact_id for x in got.artifacts] == ["echo"]
        assert got.status is not None and got.status.state is a.TaskState.COMPLETED
    assert h.runs_left() == 0


async def test_cancel_reaches_the_coroutine(host: str) -> None:
    # After the cancel grace, a coroutine that goes on gets CancelledError.
    rec = Recorder()
    async with HOSTS[host](make_agent(rec), cancel_grace=0.2) as h, await Client.connect(h.url) as c:
        request = a.SendMessageRequest(message=user_message("forever"), configuration=a.SendMessageConfiguration(return_immediately=True))
        t = await c.send_message(request)
        assert isinstance(t, a.Task)
        canceled = await c.cancel_task(t.id)
        assert canceled.status is not None and canceled.status.state is a.TaskState.CANCELED
        for _ in range(100):
            if rec.seen:
                break
            await asyncio.sleep(0.02)
        assert rec.seen == [f"cancelled {t.id} flag=True"]
    assert h.runs_left() == 0


async def test_a_run_that_never_returns_is_cancelled_at_shutdown(host: str) -> None:
    rec = Recorder()
    async with HOSTS[host](make_agent(rec)) as h, await Client.connect(h.url) as c:
        request = a.SendMessageRequest(message=user_message("forever"), configuration=a.SendMessageConfiguration(return_immediately=True))
        t = await c.send_message(request)
        assert isinstance(t, a.Task) and t.status is not None
        assert t.status.state in (a.TaskState.SUBMITTED, a.TaskState.WORKING)
        for _ in range(100):
            if (await c.get_task(t.id)).status.state is a.TaskState.WORKING:  # type: ignore[union-attr]
                break
            await asyncio.sleep(0.02)
    assert rec.seen == [f"cancelled {t.id} flag=True"]
    assert h.runs_left() == 0


async def test_sync_executors_run_in_a_thread_pool(host: str) -> None:
    threads: list[str] = []

    def agent(ctx: RequestContext, events: Events) -> None:
        threads.append(threading.current_thread().name)
        events.artifact(ctx.text.upper(), artifact_id="up", last_chunk=True)
        events.complete()

    async with HOSTS[host](agent) as h, await Client.connect(h.url) as c:
        t = await c.send_message("shout")
        assert isinstance(t, a.Task) and t.artifacts[0].parts[0].text == "SHOUT"
    assert threads and threads[0] != threading.main_thread().name

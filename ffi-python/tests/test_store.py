"""The ready server's store settings: a SQLite file that outlives the server (with a cache far
smaller than what is stored), retention that deletes finished tasks and keeps waiting ones
(in memory and in the file, on every binding), and the errors of bad settings."""

from __future__ import annotations

import asyncio
import datetime
from pathlib import Path

import pytest

import a2a_wire as a
from a2a_wire.client import Client
from a2a_wire.server import AgentServer, Events, RequestContext

BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"]


async def agent(ctx: RequestContext, events: Events) -> None:
    if ctx.text == "ask" and not ctx.follow_up:
        events.status(a.TaskState.INPUT_REQUIRED, "which one?")
    else:
        events.complete(f"echo: {ctx.text}")


async def test_a_store_file_keeps_the_tasks_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "tasks.db"
    async with AgentServer(agent, store=db, cache_mb=0) as s, await Client.connect(s.url) as c:
        done = await c.send_message("hello")
        waiting = await c.send_message("ask")
        assert isinstance(done, a.Task) and isinstance(waiting, a.Task)
    assert db.exists()
    async with AgentServer(agent, store=str(db)) as s, await Client.connect(s.url) as c:
        got = await c.get_task(done.id)
        assert got.status.state is a.TaskState.COMPLETED  # type: ignore[union-attr]
        listed = await c.list_tasks(status=a.TaskState.INPUT_REQUIRED)
        assert [t.id for t in listed.tasks] == [waiting.id]
        follow = await c.send_message(a.Message(
            message_id="m-follow", role=a.Role.USER, parts=[a.Part(text="the first")], task_id=waiting.id))
        assert isinstance(follow, a.Task) and follow.status.state is a.TaskState.COMPLETED  # type: ignore[union-attr]


@pytest.mark.parametrize("kind", ["memory", "file"])
async def test_retention_deletes_finished_tasks_and_keeps_waiting_ones(tmp_path: Path, kind: str) -> None:
    store = None if kind == "memory" else tmp_path / "tasks.db"
    async with AgentServer(agent, store=store, retain=datetime.timedelta(seconds=2)) as s:
        made = {}
        for b in BINDINGS:
            async with await Client.connect(s.url, bindings=[b]) as c:
                made[b] = (await c.send_message("hello"), await c.send_message("ask"))
        deadline = asyncio.get_running_loop().time() + 15
        for b in BINDINGS:
            async with await Client.connect(s.url, bindings=[b]) as c:
                done, waiting = made[b]
                while True:
                    try:
                        await c.get_task(done.id)
                    except a.TaskNotFoundError:
                        break
                    assert asyncio.get_running_loop().time() < deadline, f"{b}: the completed task was never deleted"
                    await asyncio.sleep(0.25)
                kept = await c.get_task(waiting.id)
                assert kept.status.state is a.TaskState.INPUT_REQUIRED, b  # type: ignore[union-attr]


async def test_bad_store_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="retain"):
        AgentServer(agent, retain=0)
    with pytest.raises(TypeError, match="retain"):
        AgentServer(agent, retain="30d")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cache_mb"):
        AgentServer(agent, cache_mb=-1)
    s = AgentServer(agent, store="/nonexistent-dir/x/tasks.db")
    with pytest.raises(OSError, match="tasks.db"):
        await s.start()

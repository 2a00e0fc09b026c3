"""The ready server's store settings: a SQLite file that outlives the server (with a cache far
smaller than what is stored), retention that deletes finished tasks and keeps waiting ones
(in memory and in the file, on every binding), and the errors of bad settings. Then the same
for the ASGI app, which answers its service's store requests itself (a SQLite file, a
TaskStore in memory), and the sans-IO exchange of requests and replies underneath."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from hosts import base_card, mounted_card, uvicorn_serving

import a2a_wire as a
from a2a_wire import _a2a_wire
from a2a_wire.asgi import A2AApp, TaskStore
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
    async with AgentServer(agent, card=base_card(), store=db, cache_mb=0) as s, await Client.connect(s.url) as c:
        done = await c.send_message("hello")
        waiting = await c.send_message("ask")
        assert isinstance(done, a.Task) and isinstance(waiting, a.Task)
    assert db.exists()
    async with AgentServer(agent, card=base_card(), store=str(db)) as s, await Client.connect(s.url) as c:
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
    async with AgentServer(agent, card=base_card(), store=store, retain=datetime.timedelta(seconds=2)) as s:
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
        AgentServer(agent, card=base_card(), retain=0)
    with pytest.raises(TypeError, match="retain"):
        AgentServer(agent, card=base_card(), retain="30d")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cache_mb"):
        AgentServer(agent, card=base_card(), cache_mb=-1)
    s = AgentServer(agent, card=base_card(), store="/nonexistent-dir/x/tasks.db")
    with pytest.raises(OSError, match="tasks.db"):
        await s.start()


# ---- the ASGI app answering its own store requests (A2AApp(store=...)) -----------------

def store_app(store: TaskStore | Path, **kw: Any) -> Callable[[str], FastAPI]:
    def make(base: str) -> FastAPI:
        a2a = A2AApp(agent, mounted_card(base), store=store, **kw)
        app = FastAPI(lifespan=a2a.lifespan)
        app.mount("/", a2a)
        return app
    return make


async def test_the_asgi_app_keeps_its_tasks_in_a_sqlite_file_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "asgi.db"
    async with uvicorn_serving(store_app(db, cache_mb=0)) as base, await Client.connect(base) as c:
        done = await c.send_message("hello")
        waiting = await c.send_message("ask")
        assert isinstance(done, a.Task) and isinstance(waiting, a.Task)
    async with uvicorn_serving(store_app(db)) as base:
        for b in ["JSONRPC", "HTTP+JSON"]:
            async with await Client.connect(base, bindings=[b]) as c:
                got = await c.get_task(done.id)
                assert got.status.state is a.TaskState.COMPLETED, b  # type: ignore[union-attr]
                listed = await c.list_tasks(status=a.TaskState.INPUT_REQUIRED)
                assert [t.id for t in listed.tasks] == [waiting.id], b
        async with await Client.connect(base) as c:
            follow = await c.send_message(a.Message(
                message_id="m-follow", role=a.Role.USER, parts=[a.Part(text="the first")], task_id=waiting.id))
            assert isinstance(follow, a.Task) and follow.status.state is a.TaskState.COMPLETED  # type: ignore[union-attr]


async def test_the_asgi_app_with_a_memory_task_store_applies_retention() -> None:
    store = TaskStore.memory()
    async with uvicorn_serving(store_app(store, retain=1.5)) as base:
        for b in ["JSONRPC", "HTTP+JSON"]:
            async with await Client.connect(base, bindings=[b]) as c:
                done, waiting = await c.send_message("hello"), await c.send_message("ask")
                deadline = asyncio.get_running_loop().time() + 15
                while True:
                    try:
                        await c.get_task(done.id)
                    except a.TaskNotFoundError:
                        break
                    assert asyncio.get_running_loop().time() < deadline, f"{b}: the completed task was never deleted"
                    await asyncio.sleep(0.25)
                kept = await c.get_task(waiting.id)
                assert kept.status.state is a.TaskState.INPUT_REQUIRED, b  # type: ignore[union-attr]
    # The app leaves a store it was given open: it still answers.
    assert "TaskStore memory" in repr(store)


def test_a_service_host_asks_its_store_and_each_request_and_reply_is_used_once() -> None:
    card = mounted_card("http://a2a.example")
    host = _a2a_wire.ServiceHost(card, external_store=True, cache_bytes=0)
    store = TaskStore.memory()
    call = host.request("GET", "/a2a/rest/tasks/nope", [(b"a2a-version", b"1.0")], b"")
    answer = None
    asked = []
    for _ in range(20):  # open, then a load of the unknown task, then the answer
        for out in host.poll():
            if out[0] == "store":
                request = out[1]
                asked.append(request.kind)
                reply = store.answer(request)
                with pytest.raises(ValueError, match="answered already"):
                    store.answer(request)
                host.store_reply(reply)
                with pytest.raises(ValueError, match="fed to the service already"):
                    host.store_reply(reply)
            elif out[0] == "answer" and out[1] == call:
                answer = out
        if answer is not None:
            break
    assert answer is not None and answer[2] == 404, answer
    assert asked[0] == "open" and "load" in asked, asked
    assert host.is_idle()
    store.close()
    store.close()  # idempotent
    host.request("GET", "/a2a/rest/tasks/x", [(b"a2a-version", b"1.0")], b"")
    load = [o[1] for o in host.poll() if o[0] == "store"]
    assert [r.kind for r in load] == ["load"]
    with pytest.raises(ValueError, match="closed"):
        store.answer(load[0])


def test_bad_asgi_store_settings_are_refused(tmp_path: Path) -> None:
    card = mounted_card("http://a2a.example")
    with pytest.raises(TypeError, match="store"):
        A2AApp(agent, card, store=42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cache_mb"):
        A2AApp(agent, card, store=tmp_path / "x.db", cache_mb=-1)
    with pytest.raises(ValueError, match="retain"):
        A2AApp(agent, card, retain=-1)
    with pytest.raises(OSError, match="tasks.db"):
        TaskStore.open_sqlite("/nonexistent-dir/x/tasks.db")


# ---- PostgreSQL (the test command starts a cluster and sets A2A_PG_URL) ------------------

def pg_database(name: str) -> str | None:
    """A fresh database on the test cluster, as a URL (None: no cluster given)."""
    import os
    import subprocess

    admin = os.environ.get("A2A_PG_URL")
    if admin is None:
        assert "A2A_PG_REQUIRED" not in os.environ, "A2A_PG_REQUIRED is set but A2A_PG_URL is not"
        return None
    subprocess.run(["psql", "-q", admin, "-c", f"DROP DATABASE IF EXISTS {name}", "-c", f"CREATE DATABASE {name}"],
                   check=True, env={**os.environ, "PGOPTIONS": "-c client_min_messages=warning"})
    return admin.rsplit("/", 1)[0] + "/" + name


async def test_a_postgres_store_keeps_the_tasks_across_a_restart_and_the_card_names_the_public_url() -> None:
    db = pg_database("a2a_py_store")
    if db is None:
        pytest.skip("no PostgreSQL cluster (A2A_PG_URL)")
    async with AgentServer(agent, card=base_card(), store=db, cache_mb=0) as s, await Client.connect(s.url) as c:
        done = await c.send_message("hello")
        waiting = await c.send_message("ask")
    async with AgentServer(agent, card=base_card(), store=db, public_url="https://agents.example") as s:
        assert s.url.startswith("http://127.0.0.1:"), s.url
        import urllib.request

        with urllib.request.urlopen(s.url + "/.well-known/agent-card.json", timeout=10) as r:
            card = a.AgentCard.from_json(r.read())
        assert card.supported_interfaces and all(i.url.startswith("https://agents.example") for i in card.supported_interfaces)
    async with AgentServer(agent, card=base_card(), store=db) as s, await Client.connect(s.url) as c:
        assert isinstance(done, a.Task) and isinstance(waiting, a.Task)
        got = await c.get_task(done.id)
        assert got.status.state is a.TaskState.COMPLETED  # type: ignore[union-attr]
        listed = await c.list_tasks(status=a.TaskState.INPUT_REQUIRED)
        assert [t.id for t in listed.tasks] == [waiting.id]
    bad = AgentServer(agent, card=base_card(), public_url="https://agents.example/path")
    with pytest.raises(ValueError, match="public_url"):
        await bad.start()

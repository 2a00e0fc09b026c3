"""Interop with the official SDK (a2a-sdk from PyPI), both directions, the nine checks of the
interop matrix (INTEROP.md) on every binding each side serves, in v1.0 and v0.3:

- the SDK's client (tests/interop/python/their_client.py, run by ffi-c/tests/sdk_checks.py)
  against our Python agent on the ready server (JSON-RPC, HTTP+JSON, gRPC) and mounted as
  ASGI under uvicorn (JSON-RPC, HTTP+JSON): the examples, run as a user runs them;
- our Python client against the SDK's server (tests/interop/python/their_server.py).
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from conftest import REPO
from hosts import free_port

import a2a_wire as a
from a2a_wire.client import Client, user_message

SDK_CHECKS = REPO / "ffi-c" / "tests" / "sdk_checks.py"


@pytest.mark.parametrize(
    "example,bindings",
    [("agent.py", "JSONRPC,HTTP+JSON,GRPC"), ("mounted.py", "JSONRPC,HTTP+JSON")],
)
def test_the_sdk_client_against_our_python_agent(example: str, bindings: str) -> None:
    cmd = [sys.executable, str(SDK_CHECKS), "--python", sys.executable, "--bindings", bindings, "--",
           sys.executable, str(REPO / "examples" / "python" / example), "127.0.0.1:{port}"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    print(out.stdout, out.stderr)
    assert out.returncode == 0, out.stdout + out.stderr
    assert " 0 failed; server exit: 0" in out.stdout


def text_of(task: a.Task) -> str:
    return "".join(p.text or "" for art in task.artifacts for p in art.parts)


async def nine_checks(url: str, binding: str, version: str) -> dict[str, str]:
    """The matrix's checks with our client; returns check -> "" (passed) or what failed."""
    results: dict[str, str] = {}

    async def check(name: str, body: Any) -> None:
        try:
            await body()
            results[name] = ""
        except Exception as e:  # noqa: BLE001 - every failure is reported by name
            results[name] = f"{type(e).__name__}: {e}"

    async with await Client.connect(url, bindings=[binding], versions=[version]) as c:
        done: list[str] = []

        async def card() -> None:
            assert (c.interface.binding, c.interface.version) == (binding, version)

        async def send() -> None:
            t = await c.send_message("hello")
            assert isinstance(t, a.Task) and t.status is not None and t.status.state is a.TaskState.COMPLETED
            assert text_of(t) == "hello"
            done.append(t.id)

        async def get() -> None:
            t = await c.get_task(done[0])
            assert t.id == done[0] and t.status is not None and t.status.state is a.TaskState.COMPLETED

        async def stream() -> None:
            events = [e async for e in await c.send_streaming_message("slow")]
            chunks = [e.artifact_update for e in events if e.artifact_update is not None]
            assert [x.append for x in chunks] == [False, True, True] and chunks[-1].last_chunk
            assert "".join(p.text or "" for x in chunks if x.artifact for p in x.artifact.parts) == "one two three"
            last = events[-1].status_update
            assert last is not None and last.status is not None and last.status.state is a.TaskState.COMPLETED

        async def input_required() -> None:
            first = await c.send_message("need-input")
            assert isinstance(first, a.Task) and first.status is not None
            assert first.status.state is a.TaskState.INPUT_REQUIRED
            second = await c.send_message(user_message("x", task_id=first.id, context_id=first.context_id))
            assert isinstance(second, a.Task) and second.id == first.id and second.status is not None
            assert second.status.state is a.TaskState.COMPLETED

        async def cancel_completed() -> None:
            with pytest.raises(a.TaskNotCancelableError):
                await c.cancel_task(done[0])

        async def get_unknown() -> None:
            with pytest.raises(a.TaskNotFoundError):
                await c.get_task("no-such-task-0f3c")

        async def list_tasks() -> None:
            r = await c.list_tasks()
            assert done[0] in [t.id for t in r.tasks]

        async def message_only() -> None:
            m = await c.send_message("message-only")
            assert isinstance(m, a.Message) and m.role is a.Role.AGENT

        checks = [("card", card), ("send", send), ("get", get), ("stream", stream), ("input_required", input_required),
                  ("cancel_completed", cancel_completed), ("get_unknown", get_unknown), ("message_only", message_only)]
        if version == "1.0":
            checks.append(("list", list_tasks))
        for name, body in checks:
            await check(name, body)
    return results


@pytest.fixture(scope="module")
def their_server() -> Any:
    port = free_port(2)
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "interop" / "python" / "their_server.py"), "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "READY", line + (proc.stderr.read() if proc.stderr else "")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.parametrize("version", ["1.0", "0.3"])
@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON", "GRPC"])
async def test_our_python_client_against_the_sdk_server(their_server: str, binding: str, version: str) -> None:
    results = await nine_checks(their_server, binding, version)
    failed = {k: v for k, v in results.items() if v}
    assert not failed, failed
    assert len(results) == (9 if version == "1.0" else 8)

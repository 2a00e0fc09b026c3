"""One client for both sides of a port: a2a_wire's client against the agent at URL, on
JSON-RPC and on HTTP+JSON. Exits non-zero naming the first check that fails.

    python check.py URL
"""

import asyncio
import sys

import a2a_wire as a
from a2a_wire.client import Client, user_message


async def check(url: str, binding: str) -> None:
    async with Client.connect(url, bindings=[binding], versions=["1.0"]) as c:
        t = await c.send_message("hello")
        assert isinstance(t, a.Task) and t.status is not None, f"{binding} send: {t!r}"
        assert t.status.state is a.TaskState.COMPLETED, f"{binding} send: {t.status.state}"
        assert [p.text for art in t.artifacts for p in art.parts] == ["HELLO"], f"{binding} send: {t.artifacts}"
        states, texts = [], []
        async for e in c.send_streaming_message("hey"):
            if e.status_update is not None and e.status_update.status is not None:
                states.append(e.status_update.status.state)
            if e.artifact_update is not None:
                texts += [p.text for p in e.artifact_update.artifact.parts]
        assert a.TaskState.WORKING in states and states[-1] is a.TaskState.COMPLETED, f"{binding} stream: {states}"
        assert texts == ["HEY"], f"{binding} stream: {texts}"
        request = a.SendMessageRequest(message=user_message("wait"), configuration=a.SendMessageConfiguration(return_immediately=True))
        w = await c.send_message(request)
        assert isinstance(w, a.Task), f"{binding} wait: {w!r}"
        for _ in range(50):  # the SDKs may answer SUBMITTED before the agent's WORKING lands
            if (await c.get_task(w.id)).status.state is a.TaskState.WORKING:
                break
            await asyncio.sleep(0.05)
        canceled = await c.cancel_task(w.id)
        assert canceled.status is not None and canceled.status.state is a.TaskState.CANCELED, f"{binding} cancel: {canceled.status}"
        got = await c.get_task(w.id)
        assert got.status is not None and got.status.state is a.TaskState.CANCELED, f"{binding} get after cancel: {got.status}"
    print(f"{url} {binding}: send, stream, cancel ok")


async def main(url: str) -> None:
    for binding in ("JSONRPC", "HTTP+JSON"):
        await check(url, binding)

asyncio.run(main(sys.argv[1]))

"""Three `a2a-wire serve` replicas on one PostgreSQL database behind a round-robin TCP
balancer (a2a-wire-balancer), driven by the official Python SDK client (a2a-sdk, from the
interop venv) on each v1.0 binding: JSON-RPC, HTTP+JSON and gRPC (make pg-replicas).

Each SDK client here opens one connection, so consecutive clients land on consecutive
replicas: per binding,

- a stream (SendStreamingMessage) on one replica and a SubscribeToTask on the next get the same
  events, to the task's COMPLETED end;
- over HTTP (JSON-RPC, HTTP+JSON), a raw SSE subscriber reads a few events with their ids and
  drops; resubscribing with `Last-Event-ID` through the balancer (another replica) gets exactly
  the events after it, numbered on without a gap, to the end;
- a cancel from a third replica ends the stream on the first with CANCELED;
- GetTask and ListTasks from each of three replicas see the tasks.

The balancer's counts show every replica relayed connections (tests/pg/harness.py starts the
replicas and the balancer). Every process is bounded by a timeout and killed at the end;
everything listens on 127.0.0.1.

usage: replicas_sdk.py A2A_BINARY BALANCER_BINARY ADMIN_URL
"""

import asyncio
import json
import os
import sys
import uuid

import grpc.aio
import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Replicas  # noqa: E402
from a2a.types.a2a_pb2 import (
    AgentCard,
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskState,
)

A2A, BALANCER, ADMIN = sys.argv[1], sys.argv[2], sys.argv[3]
TIMEOUT = 30


def user(text):
    return Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])


def final_state(events):
    state = None
    for ev in events:
        if ev.HasField("task"):
            state = ev.task.status.state
        elif ev.HasField("status_update"):
            state = ev.status_update.status.state
    return state


def ticks(events):
    """The tick texts of the artifact updates, in order."""
    return ["".join(p.text for p in ev.artifact_update.artifact.parts) for ev in events if ev.HasField("artifact_update")]


def sse(lb, path, body, headers, stop_after=None):
    """A raw SSE request through the balancer: [(id, data)] of the events read."""
    out = []
    with httpx.Client(timeout=TIMEOUT) as h:
        with h.stream("POST", f"http://127.0.0.1:{lb}{path}", content=json.dumps(body),
                      headers={"Content-Type": "application/json", "Accept": "text/event-stream", "A2A-Version": "1.0",
                               **headers}) as r:
            assert r.status_code == 200, f"{path}: HTTP {r.status_code} {r.read()[:200]}"
            ev_id, data = None, []
            for line in r.iter_lines():
                if line.startswith("id:"):
                    ev_id = line[3:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].strip())
                elif line == "" and data:
                    out.append((ev_id, json.loads("\n".join(data))))
                    ev_id, data = None, []
                    if stop_after is not None and len(out) >= stop_after:
                        break
    return out


def subscribe_body(binding, task_id):
    if binding == "JSONRPC":
        return "/a2a/jsonrpc", {"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": task_id}}
    return f"/a2a/rest/tasks/{task_id}:subscribe", {}


def seq(ev_id):
    return int(ev_id.split("-")[1])


async def run_binding(card, binding, lb):
    iface = next(i for i in card.supported_interfaces if i.protocol_binding == binding and i.protocol_version.startswith("1."))
    sub = AgentCard()
    sub.CopyFrom(card)
    del sub.supported_interfaces[:]
    sub.supported_interfaces.append(iface)
    opened = []

    def client():
        http = httpx.AsyncClient(timeout=TIMEOUT)
        opened.append(http)
        channel = lambda url: grpc.aio.insecure_channel(url.removeprefix("http://").split("/")[0])  # noqa: E731
        config = ClientConfig(streaming=True, httpx_client=http, supported_protocol_bindings=[binding],
                              grpc_channel_factory=channel)
        c = ClientFactory(config).create(sub)
        opened.append(c)
        return c

    notes = []
    # 1. A stream on one replica, a subscriber on the next.
    c1 = client()
    stream = c1.send_message(SendMessageRequest(message=user("ticks 12 150")))
    first = await stream.__anext__()
    task_id = first.task.id if first.HasField("task") else first.status_update.task_id
    on_1 = [first]

    async def rest():
        async for ev in stream:
            on_1.append(ev)

    streaming = asyncio.ensure_future(rest())
    await asyncio.sleep(0.3)
    c2 = client()
    on_2 = [ev async for ev in c2.subscribe(SubscribeToTaskRequest(id=task_id))]
    await asyncio.wait_for(streaming, TIMEOUT)
    assert final_state(on_1) == TaskState.TASK_STATE_COMPLETED, f"{binding}: the stream ended {final_state(on_1)}"
    assert final_state(on_2) == TaskState.TASK_STATE_COMPLETED, f"{binding}: the subscriber ended {final_state(on_2)}"
    t1, t2 = ticks(on_1), ticks(on_2)
    assert t1 == [f"tick {n}" for n in range(1, 13)], f"{binding}: the stream's ticks {t1}"
    assert t2 and t1[-len(t2):] == t2, f"{binding}: the subscriber's ticks {t2} are not the stream's last ones {t1}"
    notes.append(f"stream {len(on_1)} events, subscriber on the next replica {len(on_2)}")

    # 2. Raw SSE with ids; resume with Last-Event-ID through the balancer (another replica).
    if binding in ("JSONRPC", "HTTP+JSON"):
        c = client()
        long = c.send_message(SendMessageRequest(message=user("ticks 10 200")))
        ev = await long.__anext__()
        long_id = ev.task.id if ev.HasField("task") else ev.status_update.task_id
        await long.aclose()
        path, body = subscribe_body(binding, long_id)
        part = await asyncio.to_thread(sse, lb, path, body, {}, 3)
        last = part[-1][0]
        assert last, f"{binding}: SSE events carry no id: {part}"
        resumed = await asyncio.to_thread(sse, lb, path, body, {"Last-Event-ID": last})
        seqs = [seq(i) for i, _ in resumed]
        assert seqs == list(range(seq(last) + 1, seq(last) + 1 + len(seqs))), f"{binding}: resumed ids {seqs} after {last}"
        assert resumed and json.dumps(resumed[-1][1]).find("TASK_STATE_COMPLETED") >= 0, f"{binding}: resumed {resumed[-1:]}"
        notes.append(f"resumed after {last}: {len(resumed)} events, {seqs[0]}..{seqs[-1]}")

    # 3. A cancel from a third replica ends the stream on the first.
    c3 = client()
    doomed = c3.send_message(SendMessageRequest(message=user("ticks 200 100")))
    ev = await doomed.__anext__()
    doomed_id = ev.task.id if ev.HasField("task") else ev.status_update.task_id
    seen = [ev]

    async def follow():
        async for e in doomed:
            seen.append(e)

    following = asyncio.ensure_future(follow())
    await asyncio.sleep(0.5)
    c4, c5 = client(), client()
    canceled = await c5.cancel_task(CancelTaskRequest(id=doomed_id))
    assert canceled.status.state == TaskState.TASK_STATE_CANCELED, f"{binding}: cancel answered {canceled.status.state}"
    await asyncio.wait_for(following, TIMEOUT)
    assert final_state(seen) == TaskState.TASK_STATE_CANCELED, f"{binding}: the canceled stream ended {final_state(seen)}"
    notes.append(f"cancel on another replica ended the stream after {len(ticks(seen))} ticks")

    # 4. GetTask and ListTasks from three replicas.
    for c in (client(), client(), client()):
        t = await c.get_task(GetTaskRequest(id=task_id))
        assert t.status.state == TaskState.TASK_STATE_COMPLETED, f"{binding}: GetTask {t.status.state}"
        d = await c.get_task(GetTaskRequest(id=doomed_id))
        assert d.status.state == TaskState.TASK_STATE_CANCELED, f"{binding}: GetTask of the canceled task {d.status.state}"
        listed = {x.id for x in (await c.list_tasks(ListTasksRequest(page_size=100))).tasks}
        assert {task_id, doomed_id} <= listed, f"{binding}: ListTasks lacks them ({len(listed)} listed)"
    del c4
    for o in opened:
        try:
            await asyncio.wait_for(o.close() if hasattr(o, "close") and not isinstance(o, httpx.AsyncClient) else o.aclose(), 5)
        except Exception:  # noqa: BLE001
            pass
    return notes


def main():
    with Replicas(A2A, BALANCER, ADMIN, "a2a_replicas") as r:
        lb, ports = r.lb, r.ports

        async def go():
            async with httpx.AsyncClient(timeout=TIMEOUT) as h:
                card = await A2ACardResolver(h, f"http://127.0.0.1:{ports[0]}").get_agent_card()
            out = {}
            for binding in ("JSONRPC", "HTTP+JSON", "GRPC"):
                out[binding] = await asyncio.wait_for(run_binding(card, binding, lb), 120)
            return out

        results = asyncio.run(go())
        relayed = r.relayed()
        assert relayed and all(n >= 5 for n in relayed), f"not every replica served: relayed {relayed}"
        for b, notes in results.items():
            print(f"  {b}: " + "; ".join(notes))
        print(f"three replicas behind a balancer, a2a-sdk clients on every v1.0 binding: connections per replica {relayed}")


main()

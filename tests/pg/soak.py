"""A bounded soak of three `a2a-wire serve` replicas on one PostgreSQL database behind
a2a-wire-balancer (make pg-replicas): for SOAK_SECONDS (60 by default), concurrent clients on
every replica each start a streaming task through the balancer (JSON-RPC, SSE) and subscribe
to it on another connection (another replica); each stream and each subscription must carry
every event once, in order, with consecutive ids, to the task's COMPLETED end. Bounded: the
clients stop at the deadline and every request has a timeout.

usage: soak.py A2A_BINARY BALANCER_BINARY ADMIN_URL
"""

import json
import os
import sys
import threading
import time
import uuid

import httpx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Replicas  # noqa: E402

A2A, BALANCER, ADMIN = sys.argv[1], sys.argv[2], sys.argv[3]
SECONDS = float(os.environ.get("SOAK_SECONDS", "60"))
CLIENTS = 6
TICKS = 15


def events(response):
    """(id, payload) of each SSE event of a JSON-RPC stream."""
    ev_id, data = None, []
    for line in response.iter_lines():
        if line.startswith("id:"):
            ev_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "" and data:
            msg = json.loads("\n".join(data))
            yield ev_id, msg.get("result", msg)
            ev_id, data = None, []


def check(kind, evs, first_tick):
    """Problems with one stream's events: ids consecutive, ticks in order from first_tick, a
    COMPLETED end."""
    problems = []
    seqs = [int(i.split("-")[1]) for i, _ in evs if i]
    if len(seqs) != len(evs):
        problems.append(f"{kind}: an event without an id")
    if not seqs or seqs != list(range(seqs[0], seqs[0] + len(seqs))):
        problems.append(f"{kind}: ids not consecutive: {seqs}")
    ticks = []
    for _, p in evs:
        if "artifactUpdate" in p:
            ticks.append("".join(x.get("text", "") for x in p["artifactUpdate"]["artifact"]["parts"]))
    want = [f"tick {n}" for n in range(first_tick, TICKS + 1)]
    if ticks != want:
        problems.append(f"{kind}: ticks {ticks[:3]}..{ticks[-3:]} ({len(ticks)}), expected {len(want)} from tick {first_tick}")
    last = evs[-1][1] if evs else {}
    if last.get("statusUpdate", {}).get("status", {}).get("state") != "TASK_STATE_COMPLETED":
        problems.append(f"{kind}: ended with {json.dumps(last)[:120]}")
    return problems


def main():
    with Replicas(A2A, BALANCER, ADMIN, "a2a_soak") as r:
        lb = r.lb
        url = f"http://127.0.0.1:{lb}/a2a/jsonrpc"
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream", "A2A-Version": "1.0"}
        deadline = time.time() + SECONDS
        lock = threading.Lock()
        stats = {"tasks": 0, "events": 0, "problems": []}

        def client(n):
            while time.time() < deadline:
                msg = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": f"ticks {TICKS} 30"}]}
                send = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": msg}}
                got_sub, sub_problems = [], []
                try:
                    # New clients: a new connection each, so the stream and the subscription
                    # land on different replicas.
                    with httpx.Client(timeout=30) as a, httpx.Client(timeout=30) as b:
                        with a.stream("POST", url, content=json.dumps(send), headers=headers) as r:
                            it = events(r)
                            first = next(it)
                            task_id = first[1]["task"]["id"]
                            got = [first]
                            sub = {"jsonrpc": "2.0", "id": 2, "method": "SubscribeToTask", "params": {"id": task_id}}

                            def subscribe():
                                try:
                                    with b.stream("POST", url, content=json.dumps(sub), headers=headers) as s:
                                        got_sub.extend(events(s))
                                except Exception as e:  # noqa: BLE001
                                    sub_problems.append(f"subscribe: {e}")

                            t = threading.Thread(target=subscribe)
                            t.start()
                            got.extend(it)
                            t.join(30)
                except Exception as e:  # noqa: BLE001
                    with lock:
                        stats["problems"].append(f"client {n}: {e}")
                    continue
                problems = check("stream", got[1:], 1) + sub_problems
                if got_sub:
                    # The subscription starts with the Task (holding the ticks before it).
                    snap = got_sub[0][1].get("task", {})
                    held = sum(len(a.get("parts", [])) for a in snap.get("artifacts", []))
                    problems += check("subscription", got_sub[1:], held + 1) if len(got_sub) > 1 else []
                    if len(got_sub) > 1 and got_sub[0][0] and got_sub[1][0]:
                        if int(got_sub[1][0].split("-")[1]) != int(got_sub[0][0].split("-")[1]) + 1:
                            problems.append("subscription: the first update does not follow the Task's id")
                else:
                    problems.append("subscription: no events")
                with lock:
                    stats["tasks"] += 1
                    stats["events"] += len(got) + len(got_sub)
                    stats["problems"] += [f"task {task_id}: {p}" for p in problems]

        threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(SECONDS + 60)
        assert not any(t.is_alive() for t in threads), "a client did not stop"
        assert stats["tasks"] > 0, "no task ran"
        assert not stats["problems"], f"{len(stats['problems'])} problems: {stats['problems'][:5]}"
        print(f"soak {SECONDS:.0f} s, 3 replicas, {CLIENTS} clients: {stats['tasks']} tasks, {stats['events']} events "
              f"on streams and subscriptions, none lost, duplicated or out of order")


main()

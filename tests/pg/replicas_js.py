"""Three `a2a-wire serve` replicas on one PostgreSQL database behind the round-robin balancer,
driven by the official JS SDK client (@a2a-js/sdk of tests/interop/js) on each v1.0 binding:
JSON-RPC, HTTP+JSON and gRPC (make pg-replicas). Then the two-principal isolation matrix
(a2a-wire-isolation) through the balancer, on replicas that take bearer tokens.

Each SDK step is a process of its own (tests/pg/replicas_js.mjs), with one connection, so
consecutive steps land on consecutive replicas. Per binding:

- a stream (SendStreamingMessage) on one replica and a SubscribeToTask on the next get the
  same events, to the task's COMPLETED end;
- a cancel from another replica ends a stream with CANCELED;
- GetTask and ListTasks from each of three replicas see both tasks.

The balancer's counts show every replica relayed connections.

usage: replicas_js.py A2A_BINARY BALANCER_BINARY ISOLATION_BINARY ADMIN_URL
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Replicas  # noqa: E402

A2A, BALANCER, ISOLATION, ADMIN = sys.argv[1:5]
STEP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "replicas_js.mjs")


def start(card, binding, *args):
    return subprocess.Popen(["node", STEP, card, binding, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p, what):
    out, err = p.communicate(timeout=40)
    assert p.returncode == 0, f"{what}: exit {p.returncode}: {err[-1500:]}"
    return [json.loads(x) for x in out.splitlines() if x.strip()]


def first_line(p, what):
    line = p.stdout.readline()
    assert line, f"{what}: no event: {p.stderr.read()[-1500:]}"
    return json.loads(line)


def final_state(events):
    states = [e["state"] for e in events if "state" in e]
    return states[-1] if states else None


def ticks(events):
    return [e["tick"] for e in events if e["kind"] == "artifactUpdate"]


def run_binding(card, binding):
    notes = []
    # 1. A stream on one replica, a subscriber on the next.
    s = start(card, binding, "stream", "ticks", "12", "150")
    first = first_line(s, f"{binding} stream")
    task = first["task"]
    time.sleep(0.3)
    sub = finish(start(card, binding, "subscribe", task), f"{binding} subscribe")
    streamed = [first] + finish(s, f"{binding} stream")
    assert final_state(streamed) == "TASK_STATE_COMPLETED", f"{binding}: the stream ended {final_state(streamed)}"
    assert final_state(sub) == "TASK_STATE_COMPLETED", f"{binding}: the subscriber ended {final_state(sub)}"
    t1, t2 = ticks(streamed), ticks(sub)
    assert t1 == [f"tick {n}" for n in range(1, 13)], f"{binding}: the stream's ticks {t1}"
    assert t2 and t1[-len(t2):] == t2, f"{binding}: the subscriber's ticks {t2} are not the stream's last ones {t1}"
    notes.append(f"stream {len(streamed)} events, subscriber on the next replica {len(sub)}")

    # 2. A cancel from another replica ends a stream.
    d = start(card, binding, "stream", "ticks", "200", "100")
    doomed = first_line(d, f"{binding} long stream")["task"]
    time.sleep(0.5)
    canceled = finish(start(card, binding, "cancel", doomed), f"{binding} cancel")
    assert canceled and canceled[0].get("state") == "TASK_STATE_CANCELED", f"{binding}: cancel answered {canceled}"
    rest = finish(d, f"{binding} long stream")
    assert final_state(rest) == "TASK_STATE_CANCELED", f"{binding}: the canceled stream ended {final_state(rest)}"
    notes.append(f"cancel on another replica ended the stream after {len(ticks(rest))} more ticks")

    # 3. GetTask and ListTasks from three replicas.
    for n in range(3):
        got = finish(start(card, binding, "look", task, doomed), f"{binding} look {n}")
        states = {e["task"]: e.get("state") for e in got if e["kind"] == "task"}
        assert states == {task: "TASK_STATE_COMPLETED", doomed: "TASK_STATE_CANCELED"}, f"{binding}: GetTask {states}"
        listed = next(e["tasks"] for e in got if e["kind"] == "list")
        assert {task, doomed} <= set(listed), f"{binding}: ListTasks lacks them ({len(listed)} listed)"
    return notes


def main():
    with Replicas(A2A, BALANCER, ADMIN, "a2a_replicas_js") as r:
        card = os.path.join(r.work, "card.json")
        with open(card, "w") as f:
            json.dump(r.card, f)
        results = {b: run_binding(card, b) for b in ("JSONRPC", "HTTP+JSON", "GRPC")}
        relayed = r.relayed()
        assert relayed and all(n >= 5 for n in relayed), f"not every replica served: relayed {relayed}"
        for b, notes in results.items():
            print(f"  {b}: " + "; ".join(notes))
        print(f"three replicas behind a balancer, @a2a-js/sdk clients on every v1.0 binding: connections per replica {relayed}")

    # The isolation matrix through the balancer: principals A and B on every interface, their
    # calls spread over the replicas.
    with Replicas(A2A, BALANCER, ADMIN, "a2a_replicas_iso", extra=["--bearer-tokens", tokens_file()]) as r:
        run = subprocess.run([ISOLATION, "--url", f"http://127.0.0.1:{r.lb}", "--token-a", "alice-token", "--token-b",
                              "bob-token"], capture_output=True, text=True, timeout=300)
        lines = [json.loads(x) for x in run.stdout.splitlines() if x.startswith("{")]
        failed = [x for x in lines if not x.get("ok")]
        assert run.returncode == 0 and not failed and lines, f"isolation through the balancer (exit {run.returncode}): " \
            f"{json.dumps(failed)[:3000]} {run.stderr[-1500:]}"
        relayed = r.relayed()
        assert relayed and all(n >= 1 for n in relayed), f"not every replica served: relayed {relayed}"
        print(f"isolation matrix through the balancer: {len(lines)} checks passed; connections per replica {relayed}")


def tokens_file():
    import tempfile
    f = tempfile.NamedTemporaryFile("w", prefix="a2a-tokens-", suffix=".txt", delete=False)
    f.write("alice-token alice\nbob-token bob\n")
    f.close()
    return f.name


main()

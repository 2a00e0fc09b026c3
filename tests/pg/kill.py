"""`kill -9` of the server running a long task (make pg-test).

Two `a2a-wire serve` on one PostgreSQL database (the cluster of tests/pg/cluster.sh) with a
2 s lease. A task of 40 ticks 250 ms apart starts on the first server, with a push config
whose receiver (here, on 127.0.0.1) holds every delivery unanswered until the kill, so the
first server dies with its deliveries queued. Then:

- the second server claims the task once the lease runs out and finishes it (the demo agent is
  told it resumes a run), within the lease plus a bound;
- the second server takes over the dead one's queued deliveries: the receiver takes (answers
  200 to) the events the first server had queued and those of the resumed run (which goes on
  after the last stored tick), each once: ticks 1 to 40 in order, and last the task's
  COMPLETED status.

Then the same kill on two servers started with `--no-resume`: the task fails on the second
server within the lease plus a bound, its status message saying why.

usage: kill.py A2A_BINARY ADMIN_URL
"""

import http.server
import json
import re
import os
import sys
import tempfile
import threading
import time

A2A, ADMIN = sys.argv[1], sys.argv[2]
LEASE = 2
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import free_port, fresh_database, rpc, serve  # noqa: E402


killed = threading.Event()
taken = []  # the bodies answered with 200, in order
held = [0]
lock = threading.Lock()


class Receiver(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not killed.is_set():
            # Held: the first server dies with this delivery unanswered.
            with lock:
                held[0] += 1
            killed.wait(60)
            self.close_connection = True
            return
        with lock:
            taken.append(json.loads(body))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


def describe(event):
    if "statusUpdate" in event:
        return "status " + event["statusUpdate"]["status"]["state"]
    if "artifactUpdate" in event:
        parts = event["artifactUpdate"]["artifact"]["parts"]
        return "artifact " + " ".join(p.get("text", "") for p in parts)
    return "other " + json.dumps(event)[:60]


def main():
    db = fresh_database(ADMIN, "a2a_kill")
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook = f"http://127.0.0.1:{receiver.server_address[1]}/webhook"
    work = tempfile.mkdtemp(prefix="a2a-kill-")
    servers = []
    try:
        ports = []
        for name in ("a", "b"):
            port = free_port()
            servers.append(serve(A2A, port, db, ["--lease-seconds", str(LEASE), "--allow-private-webhooks"],
                                 os.path.join(work, f"{name}.log")))
            ports.append(port)
        a = rpc(ports[0], "SendMessage", {
            "message": {"messageId": "kill-1", "role": "ROLE_USER", "parts": [{"text": "ticks 40 250"}]},
            "configuration": {"returnImmediately": True, "taskPushNotificationConfig": {"url": hook, "token": "t"}}})
        task = a["result"]["task"]["id"]
        time.sleep(1.5)
        servers[0][0].kill()
        servers[0][0].wait()
        killed.set()
        died = time.time()
        done = None
        while time.time() - died < 20:
            got = rpc(ports[1], "GetTask", {"id": task})
            if got.get("result", {}).get("status", {}).get("state") == "TASK_STATE_COMPLETED":
                done = time.time() - died
                break
            time.sleep(0.2)
        assert done is not None, f"the task did not finish after its server was killed: {got}"
        assert done <= LEASE + 10, f"finished {done:.1f} s after the kill"
        # The deliveries: wait until the COMPLETED status arrived (or give up).
        deadline = time.time() + 20
        while time.time() < deadline:
            with lock:
                if taken and describe(taken[-1]) == "status TASK_STATE_COMPLETED":
                    break
            time.sleep(0.1)
        time.sleep(1)
        with lock:
            seen = [describe(e) for e in taken]
        assert held[0] >= 1, "the first server made no delivery before it died"
        assert seen and seen[-1] == "status TASK_STATE_COMPLETED", f"deliveries taken: {seen}"
        assert len(seen) == len(set(seen)), f"a delivery taken twice: {seen}"
        ticks = [s for s in seen if re.fullmatch(r"artifact tick \d+", s)]
        # Every tick once, in order: those the dead server stored (their deliveries were
        # written with them) and those the resumed run sent after the last stored one.
        assert ticks == [f"artifact tick {k}" for k in range(1, 41)], f"deliveries taken: {seen}"
        print(f"kill -9: the task finished on the other server {done:.1f} s after the kill (lease {LEASE} s); "
              f"{len(seen)} webhook deliveries taken once each (ticks 1-40 in order), {held[0]} held when it died")
    finally:
        for p, _ in servers:
            p.kill()
            p.wait()
        receiver.shutdown()


def no_resume():
    """Two servers with --no-resume: the task of the killed one fails on the other, saying why."""
    db = fresh_database(ADMIN, "a2a_kill_noresume")
    work = tempfile.mkdtemp(prefix="a2a-kill-")
    servers = []
    try:
        ports = [free_port(), free_port()]
        for name, port in zip("ab", ports):
            servers.append(serve(A2A, port, db, ["--lease-seconds", str(LEASE), "--no-resume"],
                                 os.path.join(work, f"{name}.log"))[0])
        a = rpc(ports[0], "SendMessage", {
            "message": {"messageId": "kill-2", "role": "ROLE_USER", "parts": [{"text": "ticks 40 250"}]},
            "configuration": {"returnImmediately": True}})
        task = a["result"]["task"]["id"]
        time.sleep(1)
        servers[0].kill()
        servers[0].wait()
        died = time.time()
        status = {}
        while time.time() - died < 20:
            status = rpc(ports[1], "GetTask", {"id": task}).get("result", {}).get("status", {})
            if status.get("state") == "TASK_STATE_FAILED":
                break
            time.sleep(0.2)
        after = time.time() - died
        said = " ".join(p.get("text", "") for p in status.get("message", {}).get("parts", []))
        assert status.get("state") == "TASK_STATE_FAILED", f"the task did not fail after its server was killed: {status}"
        assert "does not resume" in said, f"the failure does not say why: {status}"
        assert after <= LEASE + 10, f"failed {after:.1f} s after the kill"
        print(f"kill -9 with --no-resume: the task failed on the other server {after:.1f} s after the kill: {said!r}")
    finally:
        for p in servers:
            p.kill()
            p.wait()


main()
no_resume()

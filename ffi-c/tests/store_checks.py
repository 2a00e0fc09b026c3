#!/usr/bin/env python3
"""The store a sans-IO host answers for, checked over the wire (examples/cpp/embed.cpp):

    store_checks.py --db FILE -- SERVER_CMD ... 127.0.0.1:{port}

SERVER_CMD is run with `--store FILE` (or `--store memory` for the retention check) added,
on a free port of 127.0.0.1. Checks:

1. restart: tasks made on one run (a completed one, an input-required one) are read back by
   the next run from the same file, ListTasks finds the waiting one by state, and a follow-up
   message completes it;
2. retention (`--retain-ms 1500`, memory and file): a completed task answers TaskNotFound on
   JSON-RPC (-32001) and HTTP+JSON (404) within a few seconds, an input-required task of the
   same age stays.

Every server must exit with status 0 on SIGTERM (so a sanitizer's report fails the run).
Bounded: each request by a 10 s timeout, each wait by a deadline.
"""

import argparse
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    def __init__(self, cmd, extra):
        self.port = free_port()
        argv = [a.replace("{port}", str(self.port)) for a in cmd] + extra
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 120
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"{argv}: exited with {self.proc.returncode} before serving")
            try:
                with urllib.request.urlopen(self.base + "/.well-known/agent-card.json", timeout=2):
                    return
            except OSError:
                if time.time() > deadline:
                    raise SystemExit(f"{argv}: no card after 120 s")
                time.sleep(0.2)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=60)
        if rc != 0:
            raise SystemExit(f"the server exited with {rc}")

    def rpc(self, method, params):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
        req = urllib.request.Request(self.base + "/a2a/jsonrpc", body,
                                     {"Content-Type": "application/json", "A2A-Version": "1.0"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)

    def send(self, text, task_id=None):
        msg = {"messageId": f"m-{time.monotonic_ns()}", "role": "ROLE_USER", "parts": [{"text": text}]}
        if task_id:
            msg["taskId"] = task_id
        out = self.rpc("SendMessage", {"message": msg})
        if "result" not in out or "task" not in out["result"]:
            raise SystemExit(f"SendMessage {text!r}: {out}")
        return out["result"]["task"]

    def state(self, task_id):
        out = self.rpc("GetTask", {"id": task_id})
        if "error" in out:
            return out["error"]["code"]
        return out["result"]["status"]["state"]

    def rest_status(self, task_id):
        req = urllib.request.Request(f"{self.base}/a2a/rest/tasks/{task_id}", headers={"A2A-Version": "1.0"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code


def expect(what, got, want):
    if got != want:
        raise SystemExit(f"{what}: {got!r}, expected {want!r}")


def restart(cmd, db):
    s = Server(cmd, ["--store", db, "--cache-mb", "0"])
    done = s.send("hello")
    waiting = s.send("need-input")
    expect("the first task", done["status"]["state"], "TASK_STATE_COMPLETED")
    expect("the second task", waiting["status"]["state"], "TASK_STATE_INPUT_REQUIRED")
    s.stop()
    s = Server(cmd, ["--store", db])
    expect("the completed task after a restart", s.state(done["id"]), "TASK_STATE_COMPLETED")
    listed = s.rpc("ListTasks", {"status": "TASK_STATE_INPUT_REQUIRED"})["result"]["tasks"]
    expect("ListTasks by state after a restart", [t["id"] for t in listed], [waiting["id"]])
    follow = s.send("echo this", task_id=waiting["id"])
    expect("the follow-up", follow["status"]["state"], "TASK_STATE_COMPLETED")
    s.stop()
    print(f"store {db}: two tasks outlived a restart; ListTasks and a follow-up work")


def retention(cmd, store):
    s = Server(cmd, ["--store", store, "--retain-ms", "1500"])
    done = s.send("hello")
    waiting = s.send("need-input")
    deadline = time.time() + 15
    while s.state(done["id"]) != -32001:
        if time.time() > deadline:
            raise SystemExit(f"store {store}: the completed task was not deleted within 15 s")
        time.sleep(0.25)
    expect("HTTP+JSON GetTask of the deleted task", s.rest_status(done["id"]), 404)
    expect("the input-required task of the same age", s.state(waiting["id"]), "TASK_STATE_INPUT_REQUIRED")
    s.stop()
    print(f"store {store}: retention deleted the completed task and kept the waiting one")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    restart(cmd, a.db)
    retention(cmd, "memory")
    retention(cmd, a.db + ".retain")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The official Python or JS SDK's interop checks against an A2A server started here.

    sdk_checks.py --bindings JSONRPC,HTTP+JSON[,GRPC] [--client python|js] -- SERVER_CMD ... 127.0.0.1:{port}

Starts SERVER_CMD (every `{port}` replaced by a free port; listening on 127.0.0.1 only),
waits for its Agent Card, runs tests/interop/python/their_client.py (a2a-sdk from PyPI, in
target/interop-py-venv) or, with --client js, tests/interop/js/their_client.mjs
(@a2a-js/sdk from npm), as `make interop-deps` installs them, and requires the nine checks
of the interop matrix to pass on every listed binding in v1.0 and v0.3 (ListTasks exists in
v1.0 only), but for the SDK quirks tests/interop/quirks.json lists against a2a-wire. Then stops the server with SIGTERM and requires a clean exit (status 0, so a
server under AddressSanitizer or valgrind that found an error fails the run). Bounded: the
checks by RUN_TIMEOUT, the server's exit by EXIT_TIMEOUT.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ["card", "send", "get", "stream", "input_required", "cancel_completed", "get_unknown", "list", "message_only"]
RUN_TIMEOUT = 600
EXIT_TIMEOUT = 60


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_card(port, proc, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode} before it served its card")
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")
            ok = s.recv(12).startswith(b"HTTP/1.1 200")
            s.close()
            if ok:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"no card on port {port} after {timeout} s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bindings", required=True)
    ap.add_argument("--python", default=str(ROOT / "target" / "interop-py-venv" / "bin" / "python"))
    ap.add_argument("--log", default=None)
    ap.add_argument("--client", choices=["python", "js"], default="python")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = [c for c in args.cmd if c != "--"]
    port = free_port()
    cmd = [c.replace("{port}", str(port)) for c in cmd]
    log = open(args.log, "w") if args.log else subprocess.DEVNULL
    server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_card(port, server)
        url = f"http://127.0.0.1:{port}"
        if args.client == "js":
            client = ["node", str(ROOT / "tests/interop/js/their_client.mjs"), "--url", url]
            for b in args.bindings.split(","):
                client += ["--binding", b]
        else:
            client = [args.python, str(ROOT / "tests/interop/python/their_client.py"), "--url", url]
        out = subprocess.run(client, capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=ROOT / "tests/interop" / args.client)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
            code = "killed: it did not stop within %d s of SIGTERM" % EXIT_TIMEOUT
    rows = {}
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            rows[(r["binding"], r["version"], r["check"])] = r
    quirks = json.loads((ROOT / "tests/interop/quirks.json").read_text())["quirks"]

    def quirk(b, v, c):
        m = lambda q, k, want: q[k] in ("*", want)
        return any(m(q, "client", args.client) and m(q, "server", "a2a-wire") and m(q, "binding", b) and m(q, "version", v)
                   and m(q, "check", c) for q in quirks)

    failed = []
    allowed = []
    passed = 0
    for b in args.bindings.split(","):
        for v in ("1.0", "0.3"):
            for c in CHECKS:
                if c == "list" and v == "0.3":
                    continue
                r = rows.get((b, v, c))
                if (r is None or not r["ok"]) and quirk(b, v, c):
                    allowed.append(f"{b} {v} {c}")
                elif r is None or not r["ok"]:
                    failed.append(f"{b} {v} {c}: {'not run' if r is None else r.get('detail', '')}")
                else:
                    passed += 1
    name = os.path.basename(cmd[0]) if cmd else "?"
    print(f"{args.client} sdk checks against {' '.join(cmd)}: {passed} passed, {len(failed)} failed; server exit: {code}")
    if allowed:
        print(f"  documented quirks (tests/interop/quirks.json): {', '.join(allowed)}")
    for f in failed:
        print("  FAIL", f)
    if failed and out.stderr:
        print(out.stderr[-2000:], file=sys.stderr)
    if code != 0:
        print(f"  FAIL {name} did not exit cleanly: {code}")
    return 1 if failed or code != 0 else 0


if __name__ == "__main__":
    sys.exit(main())

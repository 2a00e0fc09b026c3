#!/usr/bin/env python3
"""The HTTP/1.1 framing table (tests/vectors/http1/framing.json) against a2a-wire and the
servers the official SDKs run on, in one run: what each answers to each case. A measurement
for INTEROP.md, not a test (the tests assert a2a-wire's answers: cli/tests/framing.rs).

    python3 tests/interop/framing.py [--a2a-wire BIN]... [--json OUT]

Servers: each `--a2a-wire BIN` (`serve --store memory`; default target/release/a2a-wire),
the official Python SDK's server (tests/interop/python/their_server.py: Starlette under
uvicorn, venv target/interop-py-venv) and the official JS SDK's (tests/interop/js/
their_server.mjs: Express on Node's http). All on 127.0.0.1; every read is bounded.
A case counts as passed when the server gives the table's statuses in order and then closes
or keeps the connection as the table says.
"""

import argparse
import importlib.util
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
TABLE = json.loads((ROOT / "tests" / "vectors" / "http1" / "framing.json").read_text())

# Port picking and waiting are the interop runner's (run.py, next to this file).
_spec = importlib.util.spec_from_file_location("interop_run", Path(__file__).with_name("run.py"))
_interop = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_interop)
free_port, wait_port = _interop.free_port, _interop.wait_port


def fill(s, buf):
    try:
        chunk = s.recv(65536)
    except (ConnectionResetError, socket.timeout, TimeoutError):
        return False
    buf.extend(chunk)
    return bool(chunk)


def read_answer(s, buf):
    """(status, body) of one answer, or (None, reason)."""
    while b"\r\n\r\n" not in buf:
        if not fill(s, buf):
            return None, "no answer"
    end = buf.index(b"\r\n\r\n") + 4
    head = bytes(buf[:end]).decode("latin-1")
    del buf[:end]
    try:
        status = int(head.split(" ", 2)[1])
    except (IndexError, ValueError):
        return None, "not HTTP"
    fields = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in head.split("\r\n")[1:] if l)}
    if 100 <= status < 200:
        return status, b""
    if fields.get("transfer-encoding", "").lower() == "chunked":
        body = bytearray()
        while True:
            while b"\r\n" not in buf:
                if not fill(s, buf):
                    return status, bytes(body)
            i = buf.index(b"\r\n")
            try:
                size = int(bytes(buf[:i]).split(b";")[0], 16)
            except ValueError:
                return status, bytes(body)
            while len(buf) < i + 2 + size + 2:
                if not fill(s, buf):
                    return status, bytes(body)
            body += buf[i + 2 : i + 2 + size]
            del buf[: i + 2 + size + 2]
            if size == 0:
                return status, bytes(body)
    n = int(fields.get("content-length", "0") or 0)
    while len(buf) < n:
        if not fill(s, buf):
            break
    body = bytes(buf[:n])
    del buf[:n]
    return status, body


def run_case(port, rpc, case):
    """What the server answered: a list of statuses (None: nothing came), then 'close' or
    'keep open' where the table asks; equal to `expected(case)` when it passes. (The Python
    binding's tests use it against the ready server.)"""
    host = f"127.0.0.1:{port}"
    got = []
    with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
        buf = bytearray()
        for step in case["steps"]:
            if "send" in step:
                try:
                    s.sendall(step["send"].replace("{host}", host).replace("{rpc}", rpc).encode("latin-1"))
                except OSError:
                    got.append("send failed")
                    return got
            elif "status" in step:
                status, body = read_answer(s, buf)
                got.append(status)
                if status is None:
                    return got
            elif step.get("closed") or step.get("open"):
                # Closed: nothing more comes, and the stream ends. Open: a card request works.
                if step.get("open"):
                    try:
                        s.sendall(f"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
                        status, _ = read_answer(s, buf)
                    except OSError:
                        status = None
                    got.append("keep open" if status == 200 else f"not open ({status})")
                else:
                    while fill(s, buf):
                        pass
                    got.append("close" if not buf else f"more: {bytes(buf[:40])!r}")
                return got
    return got


def expected(case):
    out = []
    for step in case["steps"]:
        if "status" in step:
            out.append(step["status"])
        elif step.get("closed"):
            out.append("close")
        elif step.get("open"):
            out.append("keep open")
    return out


def rpc_path(port):
    with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
        s.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\n\r\n")
        _, body = read_answer(s, bytearray())
    card = json.loads(body)
    for i in card.get("supportedInterfaces", []):
        if i.get("protocolBinding") == "JSONRPC" and i.get("protocolVersion") == "1.0":
            return urlsplit(i["url"]).path
    return urlsplit(card.get("url", "/")).path or "/"


def wait(port, proc, timeout=60):
    """The server's JSON-RPC path, once it answers with its card."""
    wait_port(port, proc, timeout)
    for _ in range(100):
        try:
            return rpc_path(port)
        except (OSError, ValueError, json.JSONDecodeError):
            time.sleep(0.3)
    raise RuntimeError("the server listens but serves no card")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a2a-wire", action="append", help="an a2a-wire binary to measure (several allowed)")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    servers = []
    for b in args.a2a_wire or [str(ROOT / "target" / "release" / "a2a-wire")]:
        servers.append((f"a2a-wire ({b})", lambda p, b=b: [b, "serve", "--addr", f"127.0.0.1:{p}", "--store", "memory"]))
    py = ROOT / "target" / "interop-py-venv" / "bin" / "python"
    if py.exists():
        servers.append(("python-sdk (uvicorn)", lambda p: [str(py), str(ROOT / "tests/interop/python/their_server.py"), "--port", str(p)]))
    if (ROOT / "tests/interop/js/node_modules").exists():
        servers.append(("js-sdk (express)", lambda p: ["node", str(ROOT / "tests/interop/js/their_server.mjs"), "--port", str(p)]))
    results = {}
    for name, cmd in servers:
        port = free_port()
        proc = subprocess.Popen(cmd(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            rpc = wait(port, proc)
            results[name] = {c["name"]: run_case(port, rpc, c) for c in TABLE["cases"]}
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    names = list(results)
    print("| case | expected | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    passed = {n: 0 for n in names}
    for c in TABLE["cases"]:
        want = expected(c)
        cells = []
        for n in names:
            got = results[n][c["name"]]
            ok = got == want
            passed[n] += ok
            cells.append(("" if ok else "**") + ", ".join(str(g) for g in got) + ("" if ok else "**"))
        print(f"| `{c['name']}` | {', '.join(str(w) for w in want)} | " + " | ".join(cells) + " |")
    print("| passed | " + str(len(TABLE["cases"])) + " | " + " | ".join(str(passed[n]) for n in names) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

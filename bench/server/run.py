#!/usr/bin/env python3
"""Server benchmarks over sockets, in one run on this machine (results go to BENCHMARKS.md).

    python3 bench/server/run.py [--seconds 10] [--repeats 3]

Installs wrk (Debian package) if missing; expects `make interop`'s SDK installs
(target/interop-py-venv, tests/interop/js/node_modules) and release builds of
`a2a-wire`, `floor-server` and `server-load` (`make bench-server` does all of it).

1. Non-streaming JSON-RPC SendMessage with wrk (bench/server/sendmessage.lua, a copy of the
   project's shared ../shared/bench/sendmessage.lua; 1 thread) at 1, 8 and 32 connections,
   so that a stall cannot hide behind one good median: each server pinned to CPU 0, wrk to
   CPU 1, `repeats` runs of `seconds` each after a warm-up; medians of requests/s, p50, p99
   and the worst p99 of the runs, per concurrency. Servers: a2a-wire
   (memory store, and SQLite store), the floor (bench/src/bin/floor_server.rs: the cheapest
   HTTP/1.1 server on the same runtime, answering with the bytes of a real a2a-wire answer),
   the official Python SDK server and the official JS SDK server (tests/interop/*/their_server.*,
   the same echo agent).
2. SSE events per second: one subscriber to a stream of 200,000 events (the demo agent's
   `ticks`), and 1,000 subscribers to one task of 500 events; the floor writes events of the
   same size to the same number of connections.
3. Memory: RSS per idle keep-alive connection (1,000) and per stored task (20,000 completed
   echo tasks, memory store).

Every server listens on 127.0.0.1 and every run is bounded by a timeout.
"""

import argparse
import importlib.util
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "target"
REL = TARGET / "release"
# The measured load script is the project's shared one (a copy lives next to this file); the
# warm-up script is ours and uses message ids of its own, so that every measured call creates
# a new task.
LUA = Path(os.environ.get("A2A_BENCH_LUA", ROOT / "bench" / "server" / "sendmessage.lua"))
WARMUP_LUA = ROOT / "bench" / "server" / "warmup.lua"
HAS_TASKSET = shutil.which("taskset") is not None

# Port picking and waiting are the interop runner's (tests/interop/run.py).
_spec = importlib.util.spec_from_file_location("interop_run", ROOT / "tests" / "interop" / "run.py")
_interop = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_interop)
wait_port = _interop.wait_port


def free_port():
    """A port p with p + 1 free too (the SDK servers put gRPC on the next port)."""
    return _interop.free_port(2)


def pin(cpu, cmd):
    return (["taskset", "-c", str(cpu)] if HAS_TASKSET else []) + cmd


def wait_card(port, proc, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            ok = s.recv(12).startswith(b"HTTP/1.1 200")
            s.close()
            if ok:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"no card on {port}")


class Server:
    def __init__(self, name, cmd, port, path, card=True, env=None):
        self.name, self.port, self.path = name, port, path
        log = open(TARGET / f"bench-{name}.log", "w")
        self.proc = subprocess.Popen(pin(0, cmd), stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
        (wait_card if card else wait_port)(port, self.proc)

    def url(self):
        return f"http://127.0.0.1:{self.port}{self.path}"

    def stop(self):
        self.proc.kill()
        self.proc.wait()


CONCURRENCY = [1, 8, 32]


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def wrk(url, seconds, script=None, connections=32):
    cmd = pin(1, ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s", "--latency", "-s", str(script or LUA), url])
    if script is not None:
        subprocess.run(cmd, capture_output=True, timeout=seconds + 60)
        return None
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60).stdout
    for line in out.splitlines():
        if line.startswith("{") and '"rps"' in line:
            return json.loads(line)
    raise RuntimeError(f"wrk printed no summary:\n{out}")


def load(*args, timeout=300):
    out = subprocess.run(pin(1, [str(REL / "server-load"), *args]), capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"server-load {args}: {out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def sendmessage_answer(port, path):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                       "params": {"message": {"messageId": "floor-probe", "role": "ROLE_USER", "parts": [{"text": "hello bench 1"}]}}})
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(f"POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\na2a-version: 1.0\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n{body}".encode())
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return data.split(b"\r\n\r\n", 1)[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-sdks", action="store_true")
    ap.add_argument("--c-agent", help="also measure this build of examples/c/agent.c (the C agent on the ready server)")
    ap.add_argument("--rust-echo", help="also measure this build of bench/src/bin/echo_server.rs (the Rust demo agent on the host the bindings use)")
    ap.add_argument("--py", help="also measure the Python demo agent on the ready server (py-ready) and mounted under uvicorn (py-asgi), run by this Python (a venv with a2a_wire and a2a-sdk), which then runs the SDK server too")
    ap.add_argument("--node", action="store_true", help="also measure the Node demo agent on the ready server (node-ready, examples/node/agent.mjs) and under Express (node-express, examples/node/express.mjs); examples/node must have a2a-wire installed (bench/node/run.sh does it)")
    ap.add_argument("--kotlin-agent", help="also measure the Kotlin demo agent (examples/kotlin/Agent.kt on the ready server) run by this command, the address appended (bench/kotlin/run.py gives a java command line)")
    ap.add_argument("--baseline", help="also measure this other build of a2a-wire (`serve --store memory`) as a2a-wire-baseline: a before/after comparison in one sitting")
    ap.add_argument("--only", help="comma-separated server names to measure (SSE and memory are then skipped)")
    ap.add_argument("--out", default=str(TARGET / "bench-server.json"))
    args = ap.parse_args()
    if not LUA.exists():
        sys.exit(f"run.py: no load script at {LUA} (A2A_BENCH_LUA names another one)")
    results = {"machine": os.uname().release, "cpu_model": cpu_model(), "cpus": os.cpu_count(), "seconds": args.seconds, "repeats": args.repeats}
    print(f"CPU: {results['cpu_model']} ({results['cpus']} CPUs)", file=sys.stderr)

    # --- 1. SendMessage with wrk -------------------------------------------------------------
    py = Path(args.py) if args.py else TARGET / "interop-py-venv" / "bin" / "python"
    specs = []
    ours_port = free_port()
    specs.append(("a2a-wire", lambda p: [str(REL / "a2a-wire"), "serve", "--addr", f"127.0.0.1:{p}", "--store", "memory"], "/a2a/jsonrpc", True))
    db = TARGET / "bench-store.db"
    specs.append(("a2a-wire-sqlite", lambda p: [str(REL / "a2a-wire"), "serve", "--addr", f"127.0.0.1:{p}", "--store", str(db)], "/a2a/jsonrpc", True))
    if args.baseline:
        specs.append(("a2a-wire-baseline", lambda p: [str(Path(args.baseline).resolve()), "serve", "--addr", f"127.0.0.1:{p}", "--store", "memory"], "/a2a/jsonrpc", True))
    specs.append(("floor", lambda p: [str(REL / "floor-server"), "--addr", f"127.0.0.1:{p}", "--body", str(TARGET / "bench-floor-body.json")], "/a2a/jsonrpc", False))
    if args.rust_echo:
        specs.append(("rust-echo", lambda p: [str(Path(args.rust_echo).resolve()), f"127.0.0.1:{p}", "future", "silent"], "/a2a/jsonrpc", True))
    if args.c_agent:
        specs.append(("c-agent", lambda p: [str(Path(args.c_agent).resolve()), f"127.0.0.1:{p}"], "/a2a/jsonrpc", True))
    if args.kotlin_agent:
        import shlex
        specs.append(("kotlin-agent", lambda p: shlex.split(args.kotlin_agent) + [f"127.0.0.1:{p}"], "/a2a/jsonrpc", True))
    if args.py:
        specs.append(("py-ready", lambda p: [str(py), str(ROOT / "examples/python/agent.py"), f"127.0.0.1:{p}"], "/a2a/jsonrpc", True))
        specs.append(("py-asgi", lambda p: [str(py), str(ROOT / "examples/python/mounted.py"), f"127.0.0.1:{p}"], "/a2a/jsonrpc", True))
    if args.node:
        specs.append(("node-ready", lambda p: ["node", str(ROOT / "examples/node/agent.mjs"), f"127.0.0.1:{p}"], "/a2a/jsonrpc", True))
        specs.append(("node-express", lambda p: ["node", str(ROOT / "examples/node/express.mjs"), f"127.0.0.1:{p}"], "/a2a/jsonrpc", True))
    if not args.skip_sdks:
        specs.append(("python-sdk", lambda p: [str(py), str(ROOT / "tests/interop/python/their_server.py"), "--port", str(p)], "/a2a/jsonrpc", True))
        specs.append(("js-sdk", lambda p: ["node", str(ROOT / "tests/interop/js/their_server.mjs"), "--port", str(p)], "/a2a/jsonrpc", True))

    # The floor answers with the bytes of a real a2a-wire answer.
    probe = Server("probe", specs[0][1](ours_port), ours_port, "/a2a/jsonrpc")
    body = sendmessage_answer(ours_port, "/a2a/jsonrpc")
    probe.stop()
    (TARGET / "bench-floor-body.json").write_bytes(body)
    results["answer_bytes"] = len(body)

    if args.only:
        keep = set(args.only.split(","))
        specs = [s for s in specs if s[0] in keep]
    runs = {(name, c): [] for name, *_ in specs for c in CONCURRENCY}
    for rep in range(args.repeats):
        for name, cmd, path, card in specs:
            for c in CONCURRENCY:
                for suffix in ["", "-wal", "-shm"]:
                    Path(str(db) + suffix).unlink(missing_ok=True)
                port = free_port()
                srv = Server(name, cmd(port), port, path, card=card)
                try:
                    wrk(srv.url(), 2, WARMUP_LUA)  # warm-up (JIT, caches), with message ids of its own
                    r = wrk(srv.url(), args.seconds, connections=c)
                    status = Path(f"/proc/{srv.proc.pid}/status")
                    r["rss_kib_after"] = int(status.read_text().split("VmRSS:")[1].split()[0]) if status.exists() else 0
                    runs[(name, c)].append(r)
                    print(f"[{rep + 1}/{args.repeats}] {name} -c{c}: {r['ok_rps']:.0f} ok/s, p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms, errors {r['rpc_errors']}", file=sys.stderr)
                finally:
                    srv.stop()
    summary = {}
    for (name, c), rs in runs.items():
        summary.setdefault(name, {})[f"c{c}"] = {
            "ok_rps": statistics.median(r["ok_rps"] for r in rs),
            "p50_ms": statistics.median(r["p50_ms"] for r in rs),
            "p99_ms": statistics.median(r["p99_ms"] for r in rs),
            "worst_p99_ms": max(r["p99_ms"] for r in rs),
            "errors": sum(r["rpc_errors"] + r["non2xx"] for r in rs),
            "runs": [round(r["ok_rps"]) for r in rs],
        }
    results["sendmessage"] = summary
    print("\nSendMessage (medians of %d runs of %d s; CPU: %s)" % (args.repeats, args.seconds, results["cpu_model"]), file=sys.stderr)
    for name, per in summary.items():
        cells = "  ".join(f"-c{c} {per[f'c{c}']['ok_rps']:>8.0f}/s p99 {per[f'c{c}']['p99_ms']:6.2f} ms" for c in CONCURRENCY)
        print(f"  {name:<16} {cells}", file=sys.stderr)

    if args.only:
        Path(args.out).write_text(json.dumps(results, indent=1))
        print(json.dumps(results, indent=1))
        return 0

    # --- 2. SSE -------------------------------------------------------------------------------
    port = free_port()
    srv = Server("a2a-wire-sse", specs[0][1](port), port, "/a2a/jsonrpc")
    try:
        one = load("sse-one", "--addr", f"127.0.0.1:{port}", "--n", "200000")
        fan = load("sse-fan", "--addr", f"127.0.0.1:{port}", "--n", "500", "--subs", "1000")
    finally:
        srv.stop()
    port = free_port()
    floor_cmd = next(cmd for name, cmd, *_ in specs if name == "floor")
    floor = Server("floor-sse", floor_cmd(port), port, "", card=False)
    try:
        size = max(1, one["bytes_per_event"] - 8)
        floor_one = load("floor-sse", "--addr", f"127.0.0.1:{port}", "--n", "200000", "--size", str(size))
        floor_fan = load("floor-sse", "--addr", f"127.0.0.1:{port}", "--n", "500", "--size", str(max(1, fan["bytes_per_event"] - 8)), "--subs", "1000")
    finally:
        floor.stop()
    results["sse"] = {"one": one, "floor_one": floor_one, "fan": fan, "floor_fan": floor_fan}

    # --- 3. Memory ----------------------------------------------------------------------------
    port = free_port()
    srv = Server("a2a-wire-mem", specs[0][1](port), port, "/a2a/jsonrpc")
    try:
        mem = load("mem", "--addr", f"127.0.0.1:{port}", "--pid", str(srv.proc.pid), "--conns", "1000", "--tasks", "20000", timeout=600)
    finally:
        srv.stop()
    results["memory"] = mem

    Path(args.out).write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

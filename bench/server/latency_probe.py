#!/usr/bin/env python3
"""Latency of one request at a time, measured by the client that sends it.

    python3 bench/server/latency_probe.py [--n 20000] NAME ...   # names of bench/server/run.py's servers

wrk's -c1 percentiles can disagree with its own throughput (a p99 of 8-14 ms beside 7,000
requests/s on one connection, which a mean of 0.14 ms does not allow); this probe is the
cross-check. For each named server (started as run.py starts it: pinned to CPU 0, on
127.0.0.1, the card awaited) it sends `--n` JSON-RPC SendMessage requests one after the
other on one keep-alive connection (this process pinned to CPU 1), each with a fresh message
id, times each from the first byte written to the last byte of the answer read, and prints
one JSON line per server: p50, p90, p99, p99.9, max and mean in ms, and the count over 5 ms.
Every run is bounded (a socket timeout of 10 s per request).
"""

import argparse
import importlib.util
import json
import os
import socket
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_server_run", ROOT / "bench" / "server" / "run.py")
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)


def specs():
    rel = run.REL
    return {
        "a2a-wire": lambda p: [str(rel / "a2a-wire"), "serve", "--addr", f"127.0.0.1:{p}", "--store", "memory"],
        "node-ready": lambda p: ["node", str(ROOT / "examples/node/agent.mjs"), f"127.0.0.1:{p}"],
        "node-express": lambda p: ["node", str(ROOT / "examples/node/express.mjs"), f"127.0.0.1:{p}"],
        "js-sdk": lambda p: ["node", str(ROOT / "tests/interop/js/their_server.mjs"), "--port", str(p)],
    }


def probe(port, path, n):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    lat = []
    for i in range(n):
        body = json.dumps({"jsonrpc": "2.0", "id": i, "method": "SendMessage", "params": {"message": {
            "messageId": f"probe-{os.getpid()}-{i}", "role": "ROLE_USER", "parts": [{"text": "hello probe"}]}}}).encode()
        req = (b"POST %s HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\na2a-version: 1.0\r\n"
               b"content-length: %d\r\n\r\n" % (path.encode(), len(body))) + body
        t = time.perf_counter()
        s.sendall(req)
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                raise RuntimeError("the server closed the connection")
            buf += chunk
        head, rest = buf.split(b"\r\n\r\n", 1)
        lines = [l.lower() for l in head.split(b"\r\n")]
        length = next((int(l.split(b":")[1]) for l in lines if l.startswith(b"content-length:")), None)
        if length is not None:
            while len(rest) < length:
                rest += s.recv(65536)
        else:
            # Chunked: read until the last chunk.
            while not rest.endswith(b"0\r\n\r\n"):
                rest += s.recv(65536)
        lat.append((time.perf_counter() - t) * 1000)
    s.close()
    lat.sort()
    pick = lambda q: lat[min(n - 1, int(n * q))]
    return {"n": n, "p50_ms": pick(0.5), "p90_ms": pick(0.9), "p99_ms": pick(0.99), "p999_ms": pick(0.999),
            "max_ms": lat[-1], "mean_ms": statistics.mean(lat), "over_5ms": sum(1 for x in lat if x > 5)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    if run.HAS_TASKSET:
        os.sched_setaffinity(0, {1})
    table = specs()
    for name in args.names:
        port = run.free_port()
        srv = run.Server(f"probe-{name}", table[name](port), port, "/a2a/jsonrpc")
        try:
            probe(port, "/a2a/jsonrpc", 2000)  # warm-up
            r = probe(port, "/a2a/jsonrpc", args.n)
        finally:
            srv.stop()
        print(json.dumps({"server": name, "cpu_model": run.cpu_model(), **{k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

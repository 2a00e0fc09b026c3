#!/usr/bin/env python3
"""TLS against plaintext, in one run on this machine (results go to BENCHMARKS.md).

    python3 bench/tls/run.py [--seconds 5] [--repeats 3]

`make bench-tls` builds what it needs (release `a2a-wire`, `a2a-wire-testca`) and installs
wrk. Two `a2a-wire serve --store memory` servers, one plaintext and one with a certificate
from a throwaway CA (`a2a-wire-testca`; ECDSA P-256, TLS 1.3 as wrk's OpenSSL negotiates
it), each pinned to CPU 0 with wrk on CPU 1, run one after the other:

1. SendMessage requests/s on kept-alive connections (the shared load script
   bench/server/sendmessage.lua): what TLS costs per request once connected;
2. the same with `Connection: close` (bench/tls/close.lua): every request on a new
   connection, so over TLS each one is a full handshake — the handshake rate.

At 1, 8 and 32 connections; `repeats` runs of `seconds` each after a warm-up; medians of
requests/s, p50 and p99, and the worst p99 of the runs. Everything listens on 127.0.0.1.
"""

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("server_run", ROOT / "bench" / "server" / "run.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

CLOSE_LUA = ROOT / "bench" / "tls" / "close.lua"


def measure(url, script, seconds, repeats, connections):
    os.environ["A2A_BENCH_BASE_LUA"] = str(bench.LUA)
    bench.wrk(url, 2, script=bench.WARMUP_LUA, connections=connections)
    runs = []
    for _ in range(repeats):
        cmd = bench.pin(1, ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s", "--latency", "-s", str(script), url])
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60).stdout
        row = next((json.loads(l) for l in out.splitlines() if l.startswith("{") and '"rps"' in l), None)
        if row is None:
            raise RuntimeError(f"wrk printed no summary:\n{out}")
        errors = sum(row.get(k, 0) for k in ("rpc_errors", "non2xx", "sock_connect", "sock_read", "sock_write", "sock_timeout"))
        if errors:
            print(f"  note: {errors} error(s) in a run: {row}", file=sys.stderr)
        runs.append(row)
    med = lambda k: statistics.median(r[k] for r in runs)
    return {"rps": med("ok_rps"), "p50": med("p50_ms"), "p99": med("p99_ms"), "worst_p99": max(r["p99_ms"] for r in runs), "runs": runs}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    rel = bench.REL
    tls_dir = bench.TARGET / "bench-tls"
    subprocess.run([str(rel / "a2a-wire-testca"), str(tls_dir)], check=True, timeout=60)
    results = {}
    for name, extra in [("plain", []), ("tls", ["--tls-cert", str(tls_dir / "server.pem"), "--tls-key", str(tls_dir / "server.key")])]:
        port = bench.free_port()
        cmd = [str(rel / "a2a-wire"), "serve", "--addr", f"127.0.0.1:{port}", "--store", "memory", *extra]
        log = open(bench.TARGET / f"bench-tls-{name}.log", "w")
        proc = subprocess.Popen(bench.pin(0, cmd), stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        try:
            bench.wait_port(port, proc)
            scheme = "https" if extra else "http"
            url = f"{scheme}://127.0.0.1:{port}/a2a/jsonrpc"
            for mode, script in [("keep-alive", bench.LUA), ("new connection", CLOSE_LUA)]:
                for c in bench.CONCURRENCY:
                    r = measure(url, script, args.seconds, args.repeats, c)
                    results[(name, mode, c)] = r
                    print(f"{name:<6} {mode:<15} c={c:<3} {r['rps']:>9.0f} req/s  p50 {r['p50']:.2f} ms  p99 {r['p99']:.2f} ms  worst p99 {r['worst_p99']:.2f} ms", flush=True)
        finally:
            proc.kill()
            proc.wait()
    print(f"\nCPU: {bench.cpu_model()} ({os.cpu_count()} CPUs); {args.repeats} runs of {args.seconds} s, medians\n")
    print("| connections | mode | plain req/s | TLS req/s | TLS / plain | plain p50 / p99 ms | TLS p50 / p99 ms | TLS worst p99 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for mode in ["keep-alive", "new connection"]:
        for c in bench.CONCURRENCY:
            p, t = results[("plain", mode, c)], results[("tls", mode, c)]
            print(f"| {c} | {mode} | {p['rps']:.0f} | {t['rps']:.0f} | {t['rps'] / p['rps']:.2f} | {p['p50']:.2f} / {p['p99']:.2f} | {t['p50']:.2f} / {t['p99']:.2f} | {t['worst_p99']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

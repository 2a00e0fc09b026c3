#!/usr/bin/env python3
"""The store benchmarks of issue 23, one sitting, two builds of `a2a-wire serve` (results in
BENCHMARKS.md, "Task state that outgrows memory").

    python3 bench/store/run.py --before PATH-TO-OLD-a2a-wire [--after target/release/a2a-wire]

1. SendMessage (wrk, the shared script bench/server/sendmessage.lua, one thread) at 1, 8 and
   32 connections, on `--store memory` and on a fresh SQLite file, for both builds: medians
   of --repeats runs of --seconds, p50 and p99.
2. Stored task count: each build's SQLite store is filled over the wire (bench/store/fill.lua,
   8 connections) to 10k, 100k and 300k tasks; at each count the server is killed and
   restarted: the time until the first GetTask of the oldest task is answered, and resident
   memory then and after 2,000 reads of old tasks; the file and WAL sizes.

The server runs pinned to CPU 0, wrk and the probes to CPU 1 (as bench/server/run.py).
"""

import argparse
import importlib.util
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_server", ROOT / "bench" / "server" / "run.py")
srv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(srv)

TARGET = ROOT / "target"
FILL_LUA = ROOT / "bench" / "store" / "fill.lua"
COUNTS = [10_000, 100_000, 300_000]


def rss_mib(pid):
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def start(binary, port, store, extra=()):
    cmd = [str(binary), "serve", "--addr", f"127.0.0.1:{port}", "--store", str(store), *extra]
    log = open(TARGET / "bench-store-server.log", "a")
    return subprocess.Popen(srv.pin(0, cmd), stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)


def rpc(port, method, params, timeout=5):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(f"POST /a2a/jsonrpc HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\na2a-version: 1.0\r\n"
                  f"content-length: {len(body)}\r\nconnection: close\r\n\r\n{body}".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    finally:
        s.close()
    return json.loads(data.split(b"\r\n\r\n", 1)[1])


def first_answer(port, proc, task_id, started, timeout=120):
    """Seconds from `started` until GetTask(task_id) is answered (polled every 2 ms)."""
    while time.monotonic() - started < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            r = rpc(port, "GetTask", {"id": task_id})
            if "result" in r:
                return time.monotonic() - started
            raise RuntimeError(f"GetTask {task_id}: {r}")
        except OSError:
            time.sleep(0.002)
    raise RuntimeError("no answer")


def remove_store(db):
    for suffix in ["", "-wal", "-shm"]:
        Path(str(db) + suffix).unlink(missing_ok=True)


def size_mib(p):
    return Path(p).stat().st_size / 2**20 if Path(p).exists() else 0.0


def sendmessage(builds, seconds, repeats):
    db = TARGET / "bench-store-sm.db"
    runs = {}
    for rep in range(repeats):
        for name, binary in builds.items():
            for store in ["memory", "sqlite"]:
                for c in srv.CONCURRENCY:
                    remove_store(db)
                    port = srv.free_port()
                    proc = start(binary, port, "memory" if store == "memory" else db)
                    try:
                        srv.wait_card(port, proc)
                        srv.wrk(f"http://127.0.0.1:{port}/a2a/jsonrpc", 2, srv.WARMUP_LUA)
                        r = srv.wrk(f"http://127.0.0.1:{port}/a2a/jsonrpc", seconds, connections=c)
                        r["rss_mib"] = rss_mib(proc.pid)
                        runs.setdefault((name, store, c), []).append(r)
                        print(f"[{rep + 1}/{repeats}] {name} {store} -c{c}: {r['ok_rps']:.0f} ok/s, p50 {r['p50_ms']:.2f} ms, "
                              f"p99 {r['p99_ms']:.2f} ms, errors {r['rpc_errors'] + r['non2xx']}, RSS {r['rss_mib']:.0f} MiB", file=sys.stderr)
                    finally:
                        proc.kill()
                        proc.wait()
    remove_store(db)
    out = {}
    for (name, store, c), rs in runs.items():
        out.setdefault(name, {}).setdefault(store, {})[f"c{c}"] = {
            "ok_rps": statistics.median(r["ok_rps"] for r in rs),
            "p50_ms": statistics.median(r["p50_ms"] for r in rs),
            "p99_ms": statistics.median(r["p99_ms"] for r in rs),
            "worst_p99_ms": max(r["p99_ms"] for r in rs),
            "errors": sum(r["rpc_errors"] + r["non2xx"] for r in rs),
            "rss_mib": statistics.median(r["rss_mib"] for r in rs),
            "runs": [round(r["ok_rps"]) for r in rs],
        }
    return out


def stored_rows(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return con.execute("SELECT IFNULL(MAX(rowid), 0) FROM tasks").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def stored_counts(builds):
    out = {}
    for name, binary in builds.items():
        db = TARGET / f"bench-store-{name}.db"
        remove_store(db)
        rows = []
        have = 0
        for count in COUNTS:
            port = srv.free_port()
            proc = start(binary, port, db)
            try:
                srv.wait_card(port, proc)
                t = time.monotonic()
                cmd = srv.pin(1, ["wrk", "-t1", "-c8", "-d600s", "--timeout", "5s", "-s", str(FILL_LUA),
                                  f"http://127.0.0.1:{port}/a2a/jsonrpc", "--", f"fill{count}"])
                # wrk has no way to stop after N answers, so it runs until the file holds the
                # count (MAX(rowid): rows only grow while filling), then is stopped.
                load = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    while time.monotonic() - t < 700:
                        time.sleep(0.5)
                        if load.poll() is not None:
                            raise RuntimeError(f"wrk ended early ({load.returncode})")
                        if db.exists() and stored_rows(db) >= count:
                            break
                    else:
                        raise RuntimeError(f"{count} tasks not reached in 700 s")
                    fill_s = time.monotonic() - t
                finally:
                    load.kill()
                    load.wait()
                rss_filled = rss_mib(proc.pid)
            finally:
                proc.kill()
                proc.wait()
            # Before any connection of ours: closing the last one checkpoints and removes it.
            wal_killed = size_mib(f"{db}-wal")
            con = sqlite3.connect(db)
            have = con.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
            oldest = con.execute("SELECT id FROM tasks ORDER BY rowid LIMIT 1").fetchone()[0]
            sample = [r[0] for r in con.execute("SELECT id FROM tasks ORDER BY random() LIMIT 2000")]
            con.close()
            # The restart.
            port = srv.free_port()
            t = time.monotonic()
            proc = start(binary, port, db)
            try:
                restart_s = first_answer(port, proc, oldest, t)
                rss_restart = rss_mib(proc.pid)
                for tid in sample:
                    r = rpc(port, "GetTask", {"id": tid})
                    if "result" not in r:
                        raise RuntimeError(f"GetTask {tid}: {r}")
                rss_reads = rss_mib(proc.pid)
                wal_restart = size_mib(f"{db}-wal")
            finally:
                proc.kill()
                proc.wait()
            row = {"tasks": have, "fill_s": round(fill_s, 1), "rss_filled_mib": round(rss_filled, 1),
                   "restart_first_answer_ms": round(restart_s * 1000, 1), "rss_restart_mib": round(rss_restart, 1),
                   "rss_after_2000_reads_mib": round(rss_reads, 1), "db_mib": round(size_mib(db), 1),
                   "wal_after_load_mib": round(wal_killed, 1), "wal_after_restart_mib": round(wal_restart, 1)}
            print(f"{name}: {row}", file=sys.stderr)
            rows.append(row)
        remove_store(db)
        out[name] = rows
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="the a2a-wire binary before the change")
    ap.add_argument("--after", default=str(TARGET / "release" / "a2a-wire"))
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--skip-sendmessage", action="store_true")
    ap.add_argument("--skip-stored", action="store_true")
    ap.add_argument("--out", default=str(TARGET / "bench-store.json"))
    args = ap.parse_args()
    builds = {"before": Path(args.before).resolve(), "after": Path(args.after).resolve()}
    results = {"cpu_model": srv.cpu_model(), "cpus": os.cpu_count(), "seconds": args.seconds, "repeats": args.repeats}
    print(f"CPU: {results['cpu_model']} ({results['cpus']} CPUs)", file=sys.stderr)
    if not args.skip_sendmessage:
        results["sendmessage"] = sendmessage(builds, args.seconds, args.repeats)
    if not args.skip_stored:
        results["stored"] = stored_counts(builds)
    Path(args.out).write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

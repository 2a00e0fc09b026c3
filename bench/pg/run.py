#!/usr/bin/env python3
"""The PostgreSQL store and replicas benchmarks of issue 24, one sitting (results in
BENCHMARKS.md, "Several servers on one PostgreSQL database").

    python3 bench/pg/run.py [--seconds 10] [--repeats 3] [--pg ADMIN_URL]

Needs release builds of `a2a-wire` and `a2a-wire-balancer` (`make bench-pg` builds them),
wrk (installed by `make bench-pg` when missing) and a PostgreSQL cluster: the one ADMIN_URL
names, or a throwaway one started with tests/pg/cluster.sh (127.0.0.1 only, fsync off).

1. SendMessage (wrk, the shared script bench/server/sendmessage.lua, one thread) at 1, 8 and
   32 connections: one `a2a-wire serve` on `--store memory`, on a fresh SQLite file and on a
   fresh PostgreSQL database; then one, two and three replicas on one database behind
   `a2a-wire-balancer` (round robin per connection). Medians of --repeats runs of --seconds
   after a 2 s warm-up; p50 and p99, the worst p99. The server side has CPU 0: every a2a-wire
   process (the replicas share it) and PostgreSQL's processes (pinned there for the run and
   let go after); wrk and the balancer have CPU 1. The CPU
   time of the replicas and of PostgreSQL's processes over each run (from /proc), divided by
   the requests answered, is the cost of one SendMessage on each side.
2. Bytes per task: the PostgreSQL database after the runs, the size of every a2a_ table
   (indexes and TOAST included) over the tasks it holds.
3. Event latency between replicas: a task of 400 ticks 10 ms apart streamed from replica A
   and subscribed to on replica B (direct connections); for each tick, the time B's
   subscriber got it minus the time A's stream got it (p50, p99, max).

Every server listens on 127.0.0.1 and every run is bounded by a timeout.
"""

import argparse
import http.client
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_server", ROOT / "bench" / "server" / "run.py")
srv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(srv)

TARGET = ROOT / "target"
REL = TARGET / "release"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total / TICK


def postgres_pids():
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "comm").read_text().strip() == "postgres":
                    pids.append(int(d.name))
            except OSError:
                pass
    return pids


def pin_postgres(cpus):
    """Pins every PostgreSQL process (the postmaster too, so new backends inherit it)."""
    if srv.HAS_TASKSET:
        for pid in postgres_pids():
            subprocess.run(["taskset", "-a", "-cp", cpus, str(pid)], capture_output=True)


def psql(admin, db, sql):
    url = admin.rsplit("/", 1)[0] + "/" + db
    env = dict(os.environ, PGOPTIONS="-c client_min_messages=warning")
    return subprocess.run(["psql", "-qAt", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True, env=env, capture_output=True,
                          text=True).stdout.strip()


def fresh_db(admin, name):
    env = dict(os.environ, PGOPTIONS="-c client_min_messages=warning")
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", admin, "-c", f"DROP DATABASE IF EXISTS {name}", "-c",
                    f"CREATE DATABASE {name}"], check=True, env=env)
    return admin.rsplit("/", 1)[0] + "/" + name


class Setup:
    """`replicas` servers over `store` (pinned to CPU 0), behind the balancer (CPU 1) when
    `balanced`."""

    def __init__(self, store, replicas=1, balanced=False):
        self.procs, self.ports = [], []
        self.lb = srv.free_port() if balanced else None
        for n in range(replicas):
            port = srv.free_port()
            extra = ["--public-url", f"http://127.0.0.1:{self.lb}"] if balanced else []
            cmd = [str(REL / "a2a-wire"), "serve", "--addr", f"127.0.0.1:{port}", "--store", str(store), *extra]
            log = open(TARGET / f"bench-pg-r{n}.log", "w")
            p = subprocess.Popen(srv.pin(0, cmd), stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
            self.procs.append(p)
            self.ports.append(port)
            srv.wait_card(port, p)
        self.servers = list(self.procs)
        if balanced:
            bal = subprocess.Popen(srv.pin(1, [str(REL / "a2a-wire-balancer"), f"127.0.0.1:{self.lb}"]
                                           + [f"127.0.0.1:{p}" for p in self.ports]), stdout=subprocess.DEVNULL)
            self.procs.append(bal)
            srv.wait_port(self.lb, bal)

    def url(self):
        return f"http://127.0.0.1:{self.lb or self.ports[0]}/a2a/jsonrpc"

    def stop(self):
        for p in self.procs:
            p.kill()
            p.wait()


def sendmessage(admin, seconds, repeats):
    db = TARGET / "bench-pg.sqlite"
    configs = [("memory", 1, False), ("sqlite", 1, False), ("postgres", 1, False), ("postgres-lb", 1, True),
               ("postgres-lb", 2, True), ("postgres-lb", 3, True)]
    runs = {}
    for rep in range(repeats):
        for kind, n, balanced in configs:
            for c in srv.CONCURRENCY:
                for suffix in ["", "-wal", "-shm"]:
                    Path(str(db) + suffix).unlink(missing_ok=True)
                store = {"memory": "memory", "sqlite": db}.get(kind) or fresh_db(admin, "a2a_bench")
                s = Setup(store, n, balanced)
                try:
                    srv.wrk(s.url(), 2, srv.WARMUP_LUA)
                    pg = postgres_pids()
                    ours0, pg0 = cpu_seconds(p.pid for p in s.servers), cpu_seconds(pg)
                    r = srv.wrk(s.url(), seconds, connections=c)
                    ours, theirs = cpu_seconds(p.pid for p in s.servers) - ours0, cpu_seconds(pg) - pg0
                    done = max(1, r["ok"] if "ok" in r else round(r["ok_rps"] * seconds))
                    r["server_us"] = ours / done * 1e6
                    r["postgres_us"] = theirs / done * 1e6 if kind.startswith("postgres") else 0.0
                    name = f"{kind}x{n}" if balanced else kind
                    runs.setdefault((name, c), []).append(r)
                    print(f"[{rep + 1}/{repeats}] {name} -c{c}: {r['ok_rps']:.0f} ok/s, p50 {r['p50_ms']:.2f} ms, p99 "
                          f"{r['p99_ms']:.2f} ms, errors {r['rpc_errors'] + r['non2xx']}, CPU/request a2a-wire "
                          f"{r['server_us']:.0f} us, postgres {r['postgres_us']:.0f} us", file=sys.stderr)
                finally:
                    s.stop()
    out = {}
    for (name, c), rs in runs.items():
        out.setdefault(name, {})[f"c{c}"] = {
            "ok_rps": statistics.median(r["ok_rps"] for r in rs),
            "p50_ms": statistics.median(r["p50_ms"] for r in rs),
            "p99_ms": statistics.median(r["p99_ms"] for r in rs),
            "worst_p99_ms": max(r["p99_ms"] for r in rs),
            "errors": sum(r["rpc_errors"] + r["non2xx"] for r in rs),
            "server_us": statistics.median(r["server_us"] for r in rs),
            "postgres_us": statistics.median(r["postgres_us"] for r in rs),
            "runs": [round(r["ok_rps"]) for r in rs],
        }
    return out


def bytes_per_task(admin):
    tasks = int(psql(admin, "a2a_bench", "SELECT count(*) FROM a2a_tasks"))
    rows = psql(admin, "a2a_bench", "SELECT relname, pg_total_relation_size(oid) FROM pg_class WHERE relkind = 'r' AND "
                "relname LIKE 'a2a_%' ORDER BY relname")
    sizes = {name: int(size) for name, size in (line.split("|") for line in rows.splitlines())}
    events = int(psql(admin, "a2a_bench", "SELECT count(*) FROM a2a_events"))
    total = sum(sizes.values())
    return {"tasks": tasks, "events": events, "table_bytes": sizes, "bytes_per_task": total / max(1, tasks),
            "tasks_bytes_per_task": sizes.get("a2a_tasks", 0) / max(1, tasks)}


def read_ticks(response, got):
    """Notes in `got` the monotonic time each `tick N` of an SSE response is read, until the
    task's terminal status."""
    for raw in response:
        line = raw.decode().strip()
        if line.startswith("data:"):
            now = time.monotonic()
            res = json.loads(line[5:]).get("result", {})
            art = res.get("artifactUpdate")
            if art:
                for p in art["artifact"]["parts"]:
                    if p.get("text", "").startswith("tick "):
                        got[int(p["text"].split()[1])] = now
            st = (res.get("statusUpdate") or {}).get("status", {}).get("state")
            if st in ("TASK_STATE_COMPLETED", "TASK_STATE_CANCELED", "TASK_STATE_FAILED"):
                return


def subscriber(port, body, got, ready):
    """Reads the SSE stream of a JSON-RPC request and notes the monotonic time of each tick."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", "/a2a/jsonrpc", json.dumps(body), {"Content-Type": "application/json",
                                                            "Accept": "text/event-stream", "A2A-Version": "1.0"})
    r = conn.getresponse()
    ready.set()
    read_ticks(r, got)
    conn.close()


def event_latency(admin, ticks=400, every_ms=10):
    store = fresh_db(admin, "a2a_bench_latency")
    s = Setup(store, 2, balanced=False)
    try:
        a, b = s.ports
        first = {}
        started = threading.Event()
        # A's stream: SendStreamingMessage on A; its first event gives the task id.
        conn = http.client.HTTPConnection("127.0.0.1", a, timeout=60)
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": {
            "messageId": f"lat-{time.time_ns()}", "role": "ROLE_USER", "parts": [{"text": f"ticks {ticks} {every_ms} 500"}]}}}
        conn.request("POST", "/a2a/jsonrpc", json.dumps(body), {"Content-Type": "application/json",
                                                                "Accept": "text/event-stream", "A2A-Version": "1.0"})
        r = conn.getresponse()
        task = None
        for raw in r:
            line = raw.decode().strip()
            if line.startswith("data:"):
                res = json.loads(line[5:]).get("result", {})
                task = (res.get("task") or {}).get("id") or (res.get("statusUpdate") or {}).get("taskId")
                break
        # B's subscriber, attached during the 500 ms wait before the first tick.
        on_b = {}
        sub = {"jsonrpc": "2.0", "id": 2, "method": "SubscribeToTask", "params": {"id": task}}
        t = threading.Thread(target=subscriber, args=(b, sub, on_b, started))
        t.start()
        started.wait(10)
        read_ticks(r, first)
        conn.close()
        t.join(60)
        lat = sorted((on_b[k] - first[k]) * 1000 for k in first if k in on_b)
        if not lat:
            raise RuntimeError("the subscriber on B got no tick")
        return {"ticks": ticks, "every_ms": every_ms, "measured": len(lat), "missing_on_b": ticks - len(lat),
                "p50_ms": statistics.median(lat), "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))], "max_ms": lat[-1]}
    finally:
        s.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--pg", help="a postgres:// URL of a cluster to use (default: a throwaway one)")
    ap.add_argument("--out", default=str(TARGET / "bench-pg.json"))
    args = ap.parse_args()
    own = None
    admin = args.pg
    if not admin:
        own = tempfile.mkdtemp(prefix="a2a-bench-pg-")
        subprocess.run([str(ROOT / "tests/pg/cluster.sh"), "start", own], check=True)
        admin = Path(own, "url").read_text().strip()
    pin_postgres("0")
    try:
        results = {"cpu_model": srv.cpu_model(), "cpus": os.cpu_count(), "seconds": args.seconds, "repeats": args.repeats}
        print(f"CPU: {results['cpu_model']} ({results['cpus']} CPUs)", file=sys.stderr)
        results["sendmessage"] = sendmessage(admin, args.seconds, args.repeats)
        results["bytes_per_task"] = bytes_per_task(admin)
        results["event_latency"] = event_latency(admin)
        Path(args.out).write_text(json.dumps(results, indent=2))
        print(json.dumps(results, indent=2))
    finally:
        pin_postgres(f"0-{os.cpu_count() - 1}")
        if own:
            subprocess.run([str(ROOT / "tests/pg/cluster.sh"), "stop", own])


main()

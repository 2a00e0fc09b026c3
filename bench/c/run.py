#!/usr/bin/env python3
"""The C boundary benchmarks, in one run (results with the exact commands in BENCHMARKS.md).

    python3 bench/c/run.py [--repeats 21] [--iterations 10000] [--seconds 10] [--server-repeats 3]

`make bench-c` builds what it needs first: release builds of liba2a_wire, `codec-loop`,
`a2a-wire` and the bench tools, and, against the release library, bench/c/codec_loop.c and
examples/c/agent.c in target/c-bench/.

1. Codec: decode + validate + encode of tests/vectors/bench/sample_task.json (JSON -> Task ->
   JSON), each loop pinned to CPU 1, in Rust (`codec::json::decode` + `encode_into`, reusing the output buffer) and
   through the C API (`a2a_transcode_into` into a caller buffer; `a2a_transcode` returning
   an owned buffer). Runs interleaved (rust, c-into, c-alloc, rust, ...) so that the
   machine's drift hits all three alike; medians of `repeats` runs. Also instructions per
   operation under callgrind (repeatable on a noisy machine): (I(3k) - I(k)) / 2k.
2. Server: the C agent (examples/c/agent.c) on the ready server against the Rust demo agent
   on the same server (`echo-server`: `RunningServer`, the host the bindings use, with the
   demo `EchoAgent` future), and against `a2a-wire serve --store memory`, all through
   bench/server/run.py's wrk load at 1, 8 and 32 connections.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "target"
CB = TARGET / "c-bench"


PIN = ["taskset", "-c", "1"] if shutil.which("taskset") else []


def run(cmd, timeout=600):
    out = subprocess.run(PIN + cmd, capture_output=True, text=True, timeout=timeout, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def instructions(cmd):
    """Total instructions of `cmd` under callgrind."""
    out_file = CB / "callgrind.out"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}"] + cmd,
                   capture_output=True, text=True, timeout=900, check=True)
    for line in out_file.read_text().splitlines():
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError("no callgrind totals")


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def server_instructions(cmd_for_port, seconds):
    """Instructions the server runs per SendMessage, under callgrind: (I(long) - I(short)) /
    (N(long) - N(short)) over two runs of wrk -c1 (the slope removes start-up and shutdown)."""
    import signal
    import socket
    import time
    points = []
    for secs in seconds:
        port = free_port()
        out_file = CB / f"callgrind.server.{port}"
        proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}"] + cmd_for_port(port),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.3)
        time.sleep(1)
        wrk = subprocess.run(["wrk", "-t1", "-c1", f"-d{secs}s", "--timeout", "10s", "-s", str(ROOT / "bench/server/sendmessage.lua"),
                              f"http://127.0.0.1:{port}/a2a/jsonrpc"], capture_output=True, text=True, timeout=secs + 120)
        summary = json.loads([l for l in wrk.stdout.splitlines() if l.startswith("{")][-1])
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
        total = None
        for line in out_file.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
        out_file.unlink()
        points.append((summary["ok"], total))
    (n1, i1), (n2, i2) = points
    return (i2 - i1) / max(1, n2 - n1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--iterations", type=int, default=10000)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--server-repeats", type=int, default=3)
    ap.add_argument("--skip-server", action="store_true")
    args = ap.parse_args()
    wire = CB / "sample_task.wire.json"
    subprocess.run([str(TARGET / "release" / "codec-loop"), "--write-wire", str(ROOT / "tests/vectors/bench/sample_task.json"), str(wire)], check=True)
    impls = {
        "rust": [str(TARGET / "release" / "codec-loop"), str(wire)],
        "c-into": [str(CB / "codec_loop"), str(wire), None, "into"],
        "c-alloc": [str(CB / "codec_loop"), str(wire), None, "alloc"],
    }

    def cmd(name, n):
        c = list(impls[name])
        if len(c) == 2:
            return c + [str(n)]
        c[2] = str(n)
        return c

    samples = {k: [] for k in impls}
    for _ in range(args.repeats):
        for name in impls:
            samples[name].append(run(cmd(name, args.iterations))["ns_per_op"])
    med = {k: statistics.median(v) for k, v in samples.items()}
    best = {k: min(v) for k, v in samples.items()}
    k = 2000
    instr = {name: (instructions(cmd(name, 3 * k)) - instructions(cmd(name, k))) / (2 * k) for name in impls}
    cpu = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    codec = {
        "cpu_model": cpu,
        "input_bytes": wire.stat().st_size,
        "iterations": args.iterations,
        "repeats": args.repeats,
        "ns_per_op_median": med,
        "ns_per_op_min": best,
        "c_into_over_rust_min": best["c-into"] / best["rust"],
        "c_alloc_over_rust_min": best["c-alloc"] / best["rust"],
        "ns_per_op_runs": samples,
        "instructions_per_op": instr,
        "c_into_over_rust": med["c-into"] / med["rust"],
        "c_alloc_over_rust": med["c-alloc"] / med["rust"],
        "c_into_over_rust_instructions": instr["c-into"] / instr["rust"],
        "c_alloc_over_rust_instructions": instr["c-alloc"] / instr["rust"],
    }
    print(f"CPU: {cpu}", file=sys.stderr)
    for name in impls:
        print(f"  {name:<8} {med[name]:8.0f} ns/op (median of {args.repeats}, min {best[name]:.0f}; runs {[round(x) for x in samples[name]]}), "
              f"{instr[name]:9.0f} instructions/op", file=sys.stderr)
    print(f"  C API / Rust: into {codec['c_into_over_rust']:.3f} (min {codec['c_into_over_rust_min']:.3f}, instructions "
          f"{codec['c_into_over_rust_instructions']:.3f}), alloc {codec['c_alloc_over_rust']:.3f} (min {codec['c_alloc_over_rust_min']:.3f}, "
          f"instructions {codec['c_alloc_over_rust_instructions']:.3f})", file=sys.stderr)
    results = {"codec": codec}
    if not args.skip_server:
        out = TARGET / "bench-c-server.json"
        subprocess.run([sys.executable, str(ROOT / "bench/server/run.py"), "--only", "a2a-wire,rust-echo,c-agent", "--c-agent", str(CB / "agent"),
                        "--rust-echo", str(TARGET / "release" / "echo-server"),
                        "--seconds", str(args.seconds), "--repeats", str(args.server_repeats), "--out", str(out)], check=True, timeout=3600)
        server = json.loads(out.read_text())
        sm = server["sendmessage"]
        ratios = {c: sm["c-agent"][c]["ok_rps"] / sm["rust-echo"][c]["ok_rps"] for c in sm["rust-echo"]}
        cli = {c: sm["c-agent"][c]["ok_rps"] / sm["a2a-wire"][c]["ok_rps"] for c in sm["a2a-wire"]}
        results["server"] = {"sendmessage": sm, "c_over_rust_rps": ratios, "c_over_cli_rps": cli, "cpu_model": server["cpu_model"]}
        print("  C agent / Rust demo agent, same host (RunningServer), requests per second: " + ", ".join(f"{c} {r:.3f}" for c, r in ratios.items()), file=sys.stderr)
        print("  C agent / `a2a-wire serve --store memory`: " + ", ".join(f"{c} {r:.3f}" for c, r in cli.items()), file=sys.stderr)
        instr = {
            "rust-echo": server_instructions(lambda p: [str(TARGET / "release" / "echo-server"), f"127.0.0.1:{p}", "future", "silent"], (3, 9)),
            "c-agent": server_instructions(lambda p: [str(CB / "agent"), f"127.0.0.1:{p}"], (3, 9)),
        }
        results["server"]["instructions_per_request"] = instr
        results["server"]["c_over_rust_instructions"] = instr["c-agent"] / instr["rust-echo"]
        print(f"  instructions per SendMessage (callgrind, server process): Rust demo agent {instr['rust-echo']:.0f}, "
              f"C agent {instr['c-agent']:.0f} ({instr['c-agent'] / instr['rust-echo']:.3f})", file=sys.stderr)
    (TARGET / "bench-c.json").write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The Kotlin binding's benchmarks, in one run (results with the exact commands in BENCHMARKS.md).

    python3 bench/kotlin/run.py [--iterations 20000] [--repeats 11] [--seconds 10] [--server-repeats 3]

`make bench-kotlin` builds what it needs first: release builds of liba2a_wire_uniffi,
`codec-loop`, `echo-server` and `a2a-wire`, and the Kotlin package in the local Maven
repository.

1. Codec: tests/vectors/bench/sample_task.json round trips (JSON -> Task -> JSON) through the
   Kotlin API (decodeTaskJson + encodeTaskJson: parse, validate, the data classes, ProtoJSON
   out) against Jackson's tree parse + write of the same bytes (no validation, no model) and
   the official a2a-java SDK's JSON path,
   in one JVM (bench/kotlin/CodecBench.kt); and the Rust core's own loop (`codec-loop`) as the
   floor of what the Kotlin API wraps. Each pinned to CPU 1; medians and minimums of the runs.
2. Server: the Kotlin demo agent (examples/kotlin/Agent.kt) on the ready server against the
   Rust demo agent on the same server (`echo-server`: `RunningServer`, the host every binding
   uses) and `a2a-wire serve --store memory`, through bench/server/run.py's wrk load at 1, 8
   and 32 connections: requests per second, p50 and p99.

The codec also runs the official a2a-java SDK's JSON path (a2a-java-sdk-jsonrpc-common
1.0.0.Alpha3 from Maven Central: JsonUtil, Gson into io.a2a.spec.Task and back).
"""

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "target"
REL = TARGET / "release"
PIN = ["taskset", "-c", "1"] if shutil.which("taskset") else []


def classpath(project, out):
    """Compiles the Maven project and returns its classes dir + dependency classpath."""
    cp_file = TARGET / f"{out}-classpath.txt"
    subprocess.run(["mvn", "-q", "-B", "compile", "dependency:build-classpath", f"-Dmdep.outputFile={cp_file}"],
                   cwd=project, check=True, timeout=900)
    return f"{TARGET / out / 'classes'}:{cp_file.read_text().strip()}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=11)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--server-repeats", type=int, default=3)
    args = ap.parse_args()
    java = ["java", f"-Djna.library.path={REL}"]
    wire = TARGET / "kotlin-bench-sample_task.wire.json"
    subprocess.run([str(REL / "codec-loop"), "--write-wire", str(ROOT / "tests/vectors/bench/sample_task.json"), str(wire)], check=True)

    bench_cp = classpath(ROOT / "bench/kotlin", "kotlin-bench")
    out = subprocess.run(PIN + java + ["-cp", bench_cp, "org.a2awire.bench.CodecBenchKt", str(wire), str(args.iterations), str(args.repeats)],
                         capture_output=True, text=True, timeout=1800, check=True)
    codec = json.loads(out.stdout.strip().splitlines()[-1])
    rust = [json.loads(subprocess.run(PIN + [str(REL / "codec-loop"), str(wire), str(args.iterations)], capture_output=True, text=True,
                                      check=True, timeout=600).stdout.strip().splitlines()[-1])["ns_per_op"] for _ in range(args.repeats)]
    rust.sort()
    codec["rust-core"] = {"ns_per_op_median": rust[len(rust) // 2], "ns_per_op_min": rust[0], "runs": [round(x) for x in rust]}
    k, j, r, aj = (codec[n]["ns_per_op_median"] for n in ("kotlin", "jackson", "rust-core", "a2a-java"))
    codec["a2a_java_round_trips_per_s"] = 1e9 / aj
    codec["kotlin_over_a2a_java_speed"] = aj / k
    codec["kotlin_round_trips_per_s"] = 1e9 / k
    codec["jackson_round_trips_per_s"] = 1e9 / j
    codec["kotlin_over_jackson_speed"] = j / k
    codec["kotlin_over_rust_time"] = k / r
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
    codec["cpu_model"] = cpu
    print(f"CPU: {cpu}", file=sys.stderr)
    print(f"  sample_task.json ({codec['bytes']} bytes) round trip: Kotlin API {k:.0f} ns ({1e9 / k:.0f}/s), Jackson tree {j:.0f} ns "
          f"({1e9 / j:.0f}/s), a2a-java {aj:.0f} ns ({1e9 / aj:.0f}/s), Rust core {r:.0f} ns; Kotlin speed / Jackson {j / k:.2f}x, "
          f"/ a2a-java {aj / k:.2f}x; Kotlin time / Rust {k / r:.2f}", file=sys.stderr)

    agent_cp = classpath(ROOT / "examples/kotlin", "kotlin-examples")
    kotlin_agent = " ".join(java + ["-cp", agent_cp, "org.a2awire.examples.AgentKt"])
    server_out = TARGET / "bench-kotlin-server.json"
    subprocess.run([sys.executable, str(ROOT / "bench/server/run.py"), "--only", "a2a-wire,rust-echo,kotlin-agent",
                    "--rust-echo", str(REL / "echo-server"), "--kotlin-agent", kotlin_agent,
                    "--seconds", str(args.seconds), "--repeats", str(args.server_repeats), "--out", str(server_out)], check=True, timeout=3600)
    server = json.loads(server_out.read_text())
    sm = server["sendmessage"]
    ratios = {c: sm["kotlin-agent"][c]["ok_rps"] / sm["rust-echo"][c]["ok_rps"] for c in sm["rust-echo"]}
    print("  Kotlin agent / Rust demo agent, same host (RunningServer), requests per second: "
          + ", ".join(f"{c} {x:.3f}" for c, x in ratios.items()), file=sys.stderr)
    results = {"codec": codec, "server": {"sendmessage": sm, "kotlin_over_rust_rps": ratios, "cpu_model": server["cpu_model"]}}
    (TARGET / "bench-kotlin.json").write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

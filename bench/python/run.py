#!/usr/bin/env python3
"""The Python binding's benchmarks, in one run (results with the exact commands in
BENCHMARKS.md).

    target/py-wheel-venv/bin/python bench/python/run.py [--repeats 15] [--target 0.3] [--seconds 10] [--server-repeats 3]

Run with the Python of a venv that has a2a_wire (the wheel `make py-test` builds) and the
official SDK installed (`make bench-python` does all of it).

1. Codec: round trips of tests/vectors/bench/sample_task.json (JSON text -> typed object ->
   JSON text), in one process, interleaved batches, medians of `repeats`:
   - a2a_wire: `Task.from_json(text).to_json()` (decode, validate, encode);
   - the official SDK's own wire path (bench/sdk/python_codec.py): `json.loads` +
     `parse_lenient` -> `a2a_pb2.Task` -> `MessageToDict` + `json.dumps`;
   - the stdlib floor: `json.dumps(json.loads(text))` (no model, no validation).
2. Servers: the same Python echo agent (examples/python/demo_agent.py) on the ready server
   (examples/python/agent.py) and mounted as ASGI in FastAPI under uvicorn
   (examples/python/mounted.py), against the official SDK's server on the same uvicorn
   (tests/interop/python/their_server.py), all run by this Python, through
   bench/server/run.py's wrk load (SendMessage, 1, 8 and 32 connections).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "sdk"))

import python_codec as sdk  # noqa: E402  (the SDK path exactly as bench/sdk measures it)

import a2a_wire  # noqa: E402


def cpu_model() -> str:
    """bench/server/run.py's reading of the CPU model."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("server_run", ROOT / "bench" / "server" / "run.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return str(mod.cpu_model())


def codec(repeats: int, target: float) -> dict[str, object]:
    data = sdk.load_input(str(ROOT / "tests" / "vectors" / "bench" / "sample_task.json"))
    text = data.decode()
    Task = a2a_wire.Task

    def ours() -> None:
        Task.from_json(text).to_json()

    def theirs() -> None:
        sdk.dumps_like_starlette(sdk.json_format.MessageToDict(sdk.sdk_decode(data)))

    def floor() -> None:
        json.dumps(json.loads(text))

    # The three give the same JSON (ours is canonical ProtoJSON; the others re-serialise the
    # same value).
    assert json.loads(Task.from_json(text).to_json()) == json.loads(text)
    cases = {"a2a_wire": ours, "sdk": theirs, "json": floor}
    batch = {}
    for name, fn in cases.items():
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < 0.5:
            fn()
            n += 1
        batch[name] = max(1, int(n / (time.perf_counter() - t0) * target))
    rates: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(repeats):
        for name, fn in cases.items():
            n = batch[name]
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            rates[name].append(n / (time.perf_counter() - t0))
    med = {k: statistics.median(v) for k, v in rates.items()}
    return {
        "bytes": len(data),
        "per_second": {k: round(v) for k, v in med.items()},
        "vs_sdk": round(med["a2a_wire"] / med["sdk"], 1),
        "vs_json": round(med["a2a_wire"] / med["json"], 2),
        "runs": {k: [round(x) for x in v] for k, v in rates.items()},
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--target", type=float, default=0.3)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--server-repeats", type=int, default=3)
    ap.add_argument("--skip-servers", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "target" / "bench-python.json"))
    args = ap.parse_args()
    results: dict[str, object] = {
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "a2a_wire": a2a_wire.__version__,
        "a2a_sdk": sdk.pkg_version("a2a-sdk"),
        "protobuf": f"{sdk.pkg_version('protobuf')} ({sdk.api_implementation.Type()})",
    }
    print(f"CPU: {results['cpu_model']}", file=sys.stderr)
    c = codec(args.repeats, args.target)
    results["codec"] = c
    print(f"codec round trips/s: {c['per_second']} -> {c['vs_sdk']}x the SDK, {c['vs_json']}x json", file=sys.stderr)
    if not args.skip_servers:
        out = ROOT / "target" / "bench-python-servers.json"
        cmd = [sys.executable, str(ROOT / "bench" / "server" / "run.py"), "--py", sys.executable,
               "--only", "py-ready,py-asgi,python-sdk", "--seconds", str(args.seconds),
               "--repeats", str(args.server_repeats), "--out", str(out)]
        subprocess.run(cmd, check=True, timeout=3600, stdout=subprocess.DEVNULL)
        servers = json.loads(out.read_text())["sendmessage"]
        results["servers"] = servers
        ratios = {}
        for name in ("py-ready", "py-asgi"):
            ratios[name] = {c_: round(servers[name][c_]["ok_rps"] / servers["python-sdk"][c_]["ok_rps"], 1) for c_ in servers[name]}
        results["server_ratios_vs_sdk"] = ratios
        print(f"servers vs the SDK server: {ratios}", file=sys.stderr)
    Path(args.out).write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

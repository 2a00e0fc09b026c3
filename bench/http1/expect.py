#!/usr/bin/env python3
"""A 1.5 MB SendMessage (one file part) uploaded with curl, with `Expect: 100-continue` and
without, against `a2a-wire serve --store memory`: curl waits up to a second for `100
Continue` before it sends the body, so a server that never answers the expectation costs
each large upload that second. Results go to BENCHMARKS.md.

    python3 bench/http1/expect.py [--runs 21] [BIN ...]   (default target/release/a2a-wire)

Every server listens on 127.0.0.1; every curl is bounded by --max-time.
"""

import argparse
import base64
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Port picking and waiting are the interop runner's (tests/interop/run.py).
_spec = importlib.util.spec_from_file_location("interop_run", ROOT / "tests" / "interop" / "run.py")
_interop = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_interop)
free_port, wait_port = _interop.free_port, _interop.wait_port


def curl(url, body_path, expect):
    header = "Expect: 100-continue" if expect else "Expect:"
    out = subprocess.run(
        ["curl", "-s", "-o", "/dev/null", "--max-time", "10", "-w", "%{http_code} %{time_total}",
         "-H", "Content-Type: application/json", "-H", "A2A-Version: 1.0", "-H", header,
         "--data-binary", f"@{body_path}", url],
        capture_output=True, text=True, check=True).stdout.split()
    if out[0] != "200":
        raise RuntimeError(f"curl got {out[0]}")
    return float(out[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("bins", nargs="*", default=[str(ROOT / "target" / "release" / "a2a-wire")])
    args = ap.parse_args()
    raw = base64.b64encode(os.urandom(1_125_000)).decode()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
            "messageId": "upload", "role": "ROLE_USER",
            "parts": [{"text": "hello"}, {"raw": raw, "filename": "blob.bin", "mediaType": "application/octet-stream"}]}}}, f)
        body = f.name
    size = os.path.getsize(body)
    print(f"body: {size} bytes; CPU: {open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip()}")
    print("| server | Expect: 100-continue, median (p90) | no Expect, median (p90) | ratio |")
    print("|---|---:|---:|---:|")
    for b in args.bins:
        port = free_port()
        proc = subprocess.Popen([b, "serve", "--addr", f"127.0.0.1:{port}", "--store", "memory"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_port(port, proc)
            url = f"http://127.0.0.1:{port}/a2a/jsonrpc"
            with_, without = [], []
            curl(url, body, False)
            for _ in range(args.runs):  # interleaved, so drift hits both alike
                with_.append(curl(url, body, True))
                without.append(curl(url, body, False))
        finally:
            proc.terminate()
            proc.wait(10)
        q = lambda xs: (statistics.median(xs) * 1000, statistics.quantiles(xs, n=10)[8] * 1000)
        (mw, pw), (mo, po) = q(with_), q(without)
        print(f"| `{b}` | {mw:.1f} ms ({pw:.1f}) | {mo:.1f} ms ({po:.1f}) | {mw / mo:.2f} |")
    os.unlink(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

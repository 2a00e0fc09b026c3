#!/usr/bin/env python3
"""ProtoJSON decode + re-encode round trips per second of the official Python A2A SDK
(`a2a-sdk`, PyPI) on the same 8 KB v1.0 Task that bench/benches/codec.rs uses
(tests/vectors/bench/sample_task.json, member "wire", serialized compactly).

The round trip is the path the SDK itself puts on its HTTP wire (JSON-RPC and REST):

  decode  bytes --json.loads--> dict --a2a.utils.proto_utils.parse_lenient--> a2a_pb2.Task
          (client: a2a/client/transports/http_helpers.py `response.json()`, then
           a2a/client/transports/{jsonrpc,rest}.py `parse_lenient(..., Task())`, which is
           google.protobuf.json_format.ParseDict(..., ignore_unknown_fields=True))
  encode  a2a_pb2.Task --json_format.MessageToDict--> dict --json.dumps--> bytes
          (server: a2a/server/routes/jsonrpc_dispatcher.py `_handle_get_task`
           `MessageToDict(task, preserving_proto_field_name=False)`, rest_dispatcher.py
           `MessageToDict(response)`, both returned through Starlette's JSONResponse, whose
           render() is json.dumps(ensure_ascii=False, allow_nan=False, indent=None,
           separators=(",", ":")).encode("utf-8"))

Also measures, in the same run, decode alone, encode alone (from a Task decoded once) and the
floor: json.loads + json.dumps of the same bytes. Each case is warmed up, its batch sized to
~--target seconds, then --repeats rounds run one batch of every case in turn (interleaved, so
a neighbour's load hits all cases alike); the median of a case's per-batch rates is reported.
Prints one JSON line per measurement.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time
from importlib.metadata import version as pkg_version

from google.protobuf import json_format
from google.protobuf.internal import api_implementation

from a2a.types.a2a_pb2 import Task
from a2a.utils.proto_utils import parse_lenient

HERE = os.path.dirname(os.path.abspath(__file__))
VECTOR = os.path.join(HERE, "..", "..", "tests", "vectors", "bench", "sample_task.json")


def load_input(path):
    with open(path, encoding="utf-8") as f:
        v = json.load(f)
    return json.dumps(v["wire"], separators=(",", ":")).encode("utf-8")


def dumps_like_starlette(obj):
    # starlette.responses.JSONResponse.render (starlette is the SDK's optional
    # http-server extra; replicated here so the bench does not need it installed).
    return json.dumps(
        obj, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode("utf-8")


def sdk_decode(data):
    return parse_lenient(json.loads(data), Task())


def sdk_encode(task):
    return dumps_like_starlette(
        json_format.MessageToDict(task, preserving_proto_field_name=False)
    )


def sdk_roundtrip(data):
    return sdk_encode(sdk_decode(data))


def floor_roundtrip(data):
    return json.dumps(json.loads(data), separators=(",", ":")).encode("utf-8")


def first_difference(a, b, path="$"):
    """First place where two parsed JSON values differ, or None. Numbers compare by value
    (JSON has one number type), but bool is never equal to a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return None if (type(a) is type(b) and a == b) else f"{path}: {a!r} != {b!r}"
    num = (int, float)
    if isinstance(a, num) and isinstance(b, num):
        return None if a == b else f"{path}: {a!r} != {b!r}"
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} {a!r:.80} != {type(b).__name__} {b!r:.80}"
    if isinstance(a, dict):
        for k in a:
            if k not in b:
                return f"{path}.{k}: missing in re-encoded output (input has {a[k]!r:.80})"
        for k in b:
            if k not in a:
                return f"{path}.{k}: added in re-encoded output ({b[k]!r:.80})"
        for k in a:
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: array length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r:.80} != {b!r:.80}"


def calibrate(fn, arg, target_s, warmup_s):
    """Warms fn up for warmup_s and returns a batch size that takes ~target_s."""
    n, t0 = 0, time.perf_counter()
    while True:
        fn(arg)
        n += 1
        el = time.perf_counter() - t0
        if el >= warmup_s:
            break
    return max(1, int(n * target_s / el))


def measure_interleaved(cases, repeats, target_s, warmup_s):
    """Median calls per second of each case. The repeats are interleaved (one batch of each
    case per round) so that a neighbour's load on this CPU hits every case alike."""
    batches = [calibrate(c["fn"], c["arg"], target_s, warmup_s) for c in cases]
    rates = [[] for _ in cases]
    for _ in range(repeats):
        for i, c in enumerate(cases):
            fn, arg, batch = c["fn"], c["arg"], batches[i]
            t0 = time.perf_counter()
            for _ in range(batch):
                fn(arg)
            rates[i].append(batch / (time.perf_counter() - t0))
    return [statistics.median(r) for r in rates], batches


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vector", default=VECTOR)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--target", type=float, default=0.3, help="seconds per repeat")
    ap.add_argument("--warmup", type=float, default=0.5, help="seconds of warm-up")
    args = ap.parse_args()

    data = load_input(args.vector)
    want = json.loads(data)
    runtime = (
        f"CPython {platform.python_version()}, protobuf {pkg_version('protobuf')} "
        f"({api_implementation.Type()})"
    )
    sdk_ver = pkg_version("a2a-sdk")

    task = sdk_decode(data)
    cases = [
        dict(sdk="a2a-sdk (python)", version=sdk_ver,
             what="protojson_decode_encode: json.loads + parse_lenient(ParseDict) -> "
                  "a2a_pb2.Task -> MessageToDict + json.dumps",
             fn=sdk_roundtrip, arg=data, out=sdk_roundtrip(data)),
        dict(sdk="a2a-sdk (python)", version=sdk_ver,
             what="protojson_decode: json.loads + parse_lenient(ParseDict) -> a2a_pb2.Task",
             fn=sdk_decode, arg=data, out=sdk_encode(sdk_decode(data))),
        # Encode alone, from a Task decoded once (like the Rust protojson_encode bench).
        dict(sdk="a2a-sdk (python)", version=sdk_ver,
             what="protojson_encode: a2a_pb2.Task -> MessageToDict + json.dumps",
             fn=sdk_encode, arg=task, out=sdk_encode(task)),
        dict(sdk="python json", version=platform.python_version(),
             what="floor: json.loads + json.dumps",
             fn=floor_roundtrip, arg=data, out=floor_roundtrip(data)),
    ]
    rates, batches = measure_interleaved(cases, args.repeats, args.target, args.warmup)
    for c, rate, batch in zip(cases, rates, batches):
        out = c["out"]
        diff = first_difference(want, json.loads(out))
        rec = {
            "sdk": c["sdk"], "version": c["version"], "what": c["what"],
            "median_per_sec": round(rate), "repeats": args.repeats,
            "roundtrip_equal": diff is None,
            "bytes_equal": out == data,
            "batch": batch, "input_bytes": len(data), "output_bytes": len(out),
            "runtime": runtime,
        }
        if diff:
            rec["first_difference"] = diff
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks a2a-wire's codecs against an independent implementation: Google's protobuf library
with the official A2A Python SDK's generated `lf.a2a.v1` classes (a2a-sdk from PyPI).

For every valid v1.0 golden vector:
  1. Google reads the wire JSON (ProtoJSON, unknown fields ignored) into message G;
  2. Google reads our canonical JSON into the same message G (our output means what the
     input meant);
  3. Google reads OUR protobuf encoding of it as G;
  4. we read GOOGLE's protobuf encoding of G and print exactly our canonical JSON.
For every invalid vector refused as syntax or invalid_value, Google refuses it too, except
for the documented places where a2a-wire is deliberately stricter (STRICTER below).

Usage: protobuf_oracle.py <path to a2a-wire-vector-tool>
"""
import base64
import glob
import json
import os
import subprocess
import sys

from google.protobuf import json_format, symbol_database
from google.protobuf import empty_pb2, struct_pb2, timestamp_pb2  # noqa: F401  (registers types)
from google.rpc import error_details_pb2  # noqa: F401
from a2a.types import a2a_pb2  # noqa: F401

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors")

# Invalid vectors that Google's json_format accepts and a2a-wire refuses, each with the reason.
STRICTER = {
    "v1/Part/raw-spec-elision.json":
        "Python's base64 decoder skips characters outside the alphabet ('...'); RFC 4648 and "
        "ProtoJSON's bytes rule do not allow them, and dropping them silently corrupts the data.",
    "v1/Task/duplicate-field-camel-and-snake.json":
        "`contextId` and `context_id` name one field; Python keeps the last one silently. The "
        "ProtoJSON spec makes a field given twice an error (Go's protojson refuses it too).",
    "v1/Task/status-is-array.json":
        "Python iterates an array given for a message field as if it were an object's keys "
        "(an empty array becomes an empty message); a message must be a JSON object.",
}


class Tool:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def call(self, op, ty, data):
        self.p.stdin.write(json.dumps({"op": op, "type": ty, "data": data}) + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def wire_text(v):
    if "wire" in v:
        return json.dumps(v["wire"], separators=(",", ":"))
    return v.get("wire_text")


def main():
    tool = Tool(sys.argv[1])
    db = symbol_database.Default()
    failures, stricter_seen, checked_valid, checked_invalid = [], set(), 0, 0
    for path in sorted(glob.glob(os.path.join(ROOT, "**", "*.json"), recursive=True)):
        v = json.load(open(path))
        name = os.path.relpath(path, ROOT)
        if v.get("version") != "1.0" or v.get("type") in ("error", "received-error", "http-request"):
            continue
        cls = db.GetSymbol(v["type"])
        text = wire_text(v)
        if v["expect"] == "valid":
            if text is None:  # protobuf vector
                g = cls.FromString(base64.b64decode(v["wire_base64"]))
            else:
                try:
                    g = json_format.Parse(text, cls(), ignore_unknown_fields=True)
                except json_format.ParseError as e:
                    failures.append(f"{name}: Google refuses a vector we accept: {e}")
                    continue
            canonical = v.get("canonical", v.get("wire"))
            canonical_text = json.dumps(canonical, separators=(",", ":"))
            g_canonical = json_format.Parse(canonical_text, cls(), ignore_unknown_fields=True)
            if g_canonical != g:
                failures.append(f"{name}: Google reads our canonical JSON as a different message")
            ours = tool.call("json_to_pb", v["type"], canonical_text)
            if "ok" not in ours:
                failures.append(f"{name}: our protobuf encode failed: {ours}")
            elif cls.FromString(base64.b64decode(ours["ok"])) != g:
                failures.append(f"{name}: Google reads our protobuf as a different message")
            back = tool.call("pb_to_json", v["type"], base64.b64encode(g.SerializeToString(deterministic=True)).decode())
            if "ok" not in back:
                failures.append(f"{name}: we refuse Google's protobuf: {back}")
            elif json.loads(back["ok"]) != canonical:
                failures.append(f"{name}: Google's protobuf reads as {back['ok']}, not the canonical JSON")
            checked_valid += 1
        elif v["error"]["kind"] in ("syntax", "invalid_value") and text is not None:
            checked_invalid += 1
            refused = 0
            # Google's lenient mode (unknown fields ignored) also ignores unknown enum names,
            # which a2a-wire refuses on purpose (a v0.3 "completed" must never read as "unset");
            # its strict mode refuses them. Either refusal counts.
            for lenient in (True, False):
                try:
                    json_format.Parse(text, cls(), ignore_unknown_fields=lenient)
                except (json_format.ParseError, ValueError, TypeError, RecursionError):
                    refused += 1
            if refused:
                continue
            if name in STRICTER:
                stricter_seen.add(name)
            else:
                failures.append(f"{name}: Google accepts what we refuse as {v['error']['kind']} (add to STRICTER with a reason, or fix)")
    tool.close()
    for name in sorted(set(STRICTER) - stricter_seen):
        failures.append(f"{name}: listed in STRICTER but Google refuses it too (remove the entry)")
    print(f"protobuf oracle: {checked_valid} valid and {checked_invalid} invalid v1.0 vectors checked against Google protobuf "
          f"+ a2a-sdk {a2a_pb2.DESCRIPTOR.package} classes; {len(STRICTER)} documented stricter cases")
    if failures:
        print("\n".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()

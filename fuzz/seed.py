#!/usr/bin/env python3
"""Writes the fuzz seed corpora from the golden vectors: one file per vector,
`<type name>\\0<wire bytes>`, into fuzz/corpus/<target>/ (not committed)."""
import base64, glob, hashlib, json, os, sys

root = os.path.dirname(os.path.abspath(__file__))
vectors = os.path.join(root, "..", "tests", "vectors")
out = {"1.0": os.path.join(root, "corpus", "v1_json_decode"), "0.3": os.path.join(root, "corpus", "v03_json_decode")}
params = os.path.join(root, "corpus", "service_params")
engine = os.path.join(root, "corpus", "engine_calls")
for d in list(out.values()) + [params, engine]:
    os.makedirs(d, exist_ok=True)


def put(folder, data):
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


# Service parameters: a query line, then header lines.
for sample in [b"A2A-Version=1.0\nA2A-Version: 0.3\nA2A-Extensions: urn:a, urn:b",
               b"x=1\na2a-version: 1.0.1\nA2A-EXTENSIONS: ,urn:a,,urn:a",
               b"\nA2A-Version: banana"]:
    put(params, sample)
# Engine scripts: (op, arg) byte pairs.
for sample in [bytes([0, 1, 8, 2, 9, 3, 8, 3]), bytes([2, 0, 8, 2, 3, 0, 9, 1, 11, 0, 8, 3]), bytes([0, 0, 10, 0, 4, 0, 4, 0, 6, 2])]:
    put(engine, sample)
n = 0
for path in sorted(glob.glob(os.path.join(vectors, "**", "*.json"), recursive=True)):
    v = json.load(open(path))
    if "wire" in v:
        wire = json.dumps(v["wire"], separators=(",", ":")).encode()
    elif "wire_text" in v:
        wire = v["wire_text"].encode()
    else:
        continue  # protobuf vectors seed no JSON decoder
    put(out[v["version"]], v["type"].encode() + b"\0" + wire)
    if v["type"] in ("lf.a2a.v1.AgentCard", "AgentCard"):
        put(params, wire)
    n += 1
print(f"seeded {n} corpus files", file=sys.stderr)

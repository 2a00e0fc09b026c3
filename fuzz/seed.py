#!/usr/bin/env python3
"""Writes the fuzz seed corpora from the golden vectors: one file per vector,
`<type name>\\0<wire bytes>`, into fuzz/corpus/<target>/ (not committed)."""
import base64, glob, hashlib, json, os, sys

root = os.path.dirname(os.path.abspath(__file__))
vectors = os.path.join(root, "..", "tests", "vectors")
out = {"1.0": os.path.join(root, "corpus", "v1_json_decode"), "0.3": os.path.join(root, "corpus", "v03_json_decode")}
for d in out.values():
    os.makedirs(d, exist_ok=True)
n = 0
for path in sorted(glob.glob(os.path.join(vectors, "**", "*.json"), recursive=True)):
    v = json.load(open(path))
    if "wire" in v:
        wire = json.dumps(v["wire"], separators=(",", ":")).encode()
    elif "wire_text" in v:
        wire = v["wire_text"].encode()
    else:
        continue  # protobuf vectors seed no JSON decoder
    data = v["type"].encode() + b"\0" + wire
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out[v["version"]], name), "wb") as f:
        f.write(data)
    n += 1
print(f"seeded {n} corpus files", file=sys.stderr)

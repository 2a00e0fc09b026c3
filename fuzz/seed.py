#!/usr/bin/env python3
"""Writes the fuzz seed corpora from the golden vectors: one file per vector,
`<type name>\\0<wire bytes>`, into fuzz/corpus/<target>/ (not committed)."""
import base64, glob, hashlib, json, os, sys

root = os.path.dirname(os.path.abspath(__file__))
vectors = os.path.join(root, "..", "tests", "vectors")
out = {"1.0": os.path.join(root, "corpus", "v1_json_decode"), "0.3": os.path.join(root, "corpus", "v03_json_decode")}
params = os.path.join(root, "corpus", "service_params")
engine = os.path.join(root, "corpus", "engine_calls")
rpc = os.path.join(root, "corpus", "jsonrpc_request")
rest = os.path.join(root, "corpus", "rest_request")
grpc = os.path.join(root, "corpus", "grpc_request")
sse = os.path.join(root, "corpus", "sse_decoder")
http1 = os.path.join(root, "corpus", "http1_response")
http1_request = os.path.join(root, "corpus", "http1_request")
jcs = os.path.join(root, "corpus", "jcs")
for d in list(out.values()) + [params, engine, rpc, rest, grpc, sse, http1, http1_request, jcs]:
    os.makedirs(d, exist_ok=True)


def put(folder, data):
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


# Service parameters: a query line, then header lines.
for sample in [b"A2A-Version=1.0\nA2A-Version: 0.3\nA2A-Extensions: urn:a, urn:b",
               b"x=1\na2a-version: 1.0.1\nA2A-EXTENSIONS: ,urn:a,,urn:a",
               b"\nA2A-Version: banana"]:
    put(params, sample)
# Transport-level seeds.
for sample in [b'GET /tasks/t1?historyLength=2\n\n', b'POST /message:send\ncontent-type: application/json\n\n{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}',
               b'GET /acme/tasks?status=TASK_STATE_WORKING&pageSize=5&includeArtifacts=true\n\n', b'DELETE /tasks/t%2F1/pushNotificationConfigs/c\n\n',
               b'POST /tasks/t1:cancel\ncontent-type: application/a2a+json\n\n{"metadata":{"k":1}}', b'GET /tasks/t1:subscribe\n\n']:
    put(rest, sample)
for sample in [b'\x00data: {"a":1}\n\n', b'\x05: c\r\nevent: x\r\ndata: 1\r\ndata: 2\r\n\r\n', b'\x03\xef\xbb\xbfdata:x\r\rdata:y\n\n']:
    put(sse, sample)
for sample in [b'\x02\x00\x00\x00\x00\x04\x12\x02t1', b'\x00\x00\x00\x00\x00\x00']:
    put(grpc, sample)
# Responses: a head, chunked bodies (one huge size), SSE events, a gRPC frame.
for sample in [b'\x00HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}',
               b'\x01HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
               b'\x05ffffffffffffffff\r\nabc', b'\x03a;ext=1\r\n0123456789\r\n0\r\nx: y\r\n\r\nrest',
               b'\x04data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t"}}}\n\n',
               b'\x06\x00\x00\x00\x00\x04\x0a\x02\x74\x31']:
    put(http1, sample)
# Requests: every conversation of the framing table, its bytes as one client sends them.
framing = json.load(open(os.path.join(vectors, "http1", "framing.json")))
for case in framing["cases"]:
    sent = "".join(s["send"] for s in case["steps"] if "send" in s)
    put(http1_request, sent.replace("{host}", "127.0.0.1:7420").replace("{rpc}", "/a2a/jsonrpc").encode())
# Engine scripts: (op, arg) byte pairs.
for sample in [bytes([0, 1, 8, 2, 9, 3, 8, 3]), bytes([2, 0, 8, 2, 3, 0, 9, 1, 11, 0, 8, 3]), bytes([0, 0, 10, 0, 4, 0, 4, 0, 6, 2])]:
    put(engine, sample)
n = 0
for path in sorted(glob.glob(os.path.join(vectors, "**", "*.json"), recursive=True)):
    v = json.load(open(path))
    if v.get("type") == "http1-framing":
        continue  # seeded above
    if v.get("type") == "jcs":
        for d in v["documents"]:
            put(jcs, d["input"].encode())
        for x in v["numbers"]:
            if x["canonical"] is not None:
                put(jcs, ("[" + x["canonical"] + "]").encode())
        continue
    if "wire" in v:
        wire = json.dumps(v["wire"], separators=(",", ":")).encode()
    elif "wire_text" in v:
        wire = v["wire_text"].encode()
    else:
        continue  # protobuf vectors seed no JSON decoder
    put(out[v["version"]], v["type"].encode() + b"\0" + wire)
    if v.get("expect") == "valid" and v["type"] in ("lf.a2a.v1.SendMessageRequest", "lf.a2a.v1.GetTaskRequest", "lf.a2a.v1.ListTasksRequest", "lf.a2a.v1.CancelTaskRequest"):
        method = v["type"].split(".")[-1].replace("Request", "")
        put(rpc, b'{"jsonrpc":"2.0","id":1,"method":"' + method.encode() + b'","params":' + wire + b"}")
    if v["version"] == "0.3" and v.get("expect") == "valid" and v["type"] == "MessageSendParams":
        put(rpc, b'{"jsonrpc":"2.0","id":"a","method":"message/send","params":' + wire + b"}")
    if v["type"] in ("lf.a2a.v1.AgentCard", "AgentCard"):
        put(params, wire)
    n += 1
print(f"seeded {n} corpus files", file=sys.stderr)

// Every golden vector in tests/vectors/ through the Node API: the same files, the same
// verdicts as the Rust, C and Python tests.
//
// - v1/ and bench/: lf.a2a.v1 messages through decode / encode (ProtoJSON and protobuf),
//   other messages (well-known types, google.rpc) through transcode; invalid ones throw the
//   ValidationError subclass of their kind naming their path; the v0.3 translation too.
// - v03/: decoded as their v0.3 type and translated to v1.0, with the losses.
// - errors/render-*: an A2AError built here renders exactly the vector's JSON-RPC, HTTP and
//   gRPC forms; errors/received-*: the bytes of a peer classify to the vector's class.
// - http/: requests through the sans-IO service (service.test.mjs).
import assert from "node:assert/strict";
import { test } from "node:test";
import * as a2a from "a2a-wire";
import { loadVectors, pb } from "./helpers.mjs";

const KIND_CLASS = {
  syntax: a2a.JsonSyntaxError,
  invalid_value: a2a.InvalidValueError,
  missing_required: a2a.MissingFieldError,
  protobuf: a2a.ProtobufError,
  conversion: a2a.ConversionError,
};

const V1 = [...loadVectors("v1"), ...loadVectors("bench")];
const V03 = loadVectors("v03");
const ERRORS = loadVectors("errors");
const MODEL = new Set(a2a.MESSAGE_NAMES.map((n) => `lf.a2a.v1.${n}`));

function wireOf(v) {
  if ("wire_base64" in v) return [Buffer.from(v.wire_base64, "base64"), "protobuf"];
  if ("wire_text" in v) return [v.wire_text, "json"];
  return [JSON.stringify(v.wire), "json"];
}

function checkError(err, want) {
  const cls = KIND_CLASS[want.kind];
  assert.ok(err instanceof cls, `threw ${err?.constructor?.name}: ${err?.message}, want ${cls.name}`);
  assert.ok(err instanceof a2a.ValidationError);
  assert.equal(err.kind, want.kind);
  if ("field" in want) assert.equal(err.path, want.field, err.message);
  assert.ok(err.message.includes(want.contains ?? ""), `${err.message} lacks ${want.contains}`);
}

function caught(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail("no error thrown");
}

/** Decodes through the model when the type is one of it; returns the plain object. */
function decodeAny(type, data, format) {
  if (MODEL.has(type)) return a2a.decode(type.slice("lf.a2a.v1.".length), data, { format });
  return JSON.parse(a2a.transcode(type, data, { from: format, to: "json" }));
}

test("every vector folder is read", () => {
  assert.ok(V1.length > 300 && V03.length > 15 && ERRORS.length >= 20, `${V1.length} ${V03.length} ${ERRORS.length}`);
});

for (const [name, v] of V1) {
  test(name, () => {
    const [data, format] = wireOf(v);
    if (v.expect === "invalid") {
      checkError(caught(() => decodeAny(v.type, data, format)), v.error);
      return;
    }
    const obj = decodeAny(v.type, data, format);
    const canonical = v.canonical ?? v.wire;
    assert.deepEqual(obj, canonical);
    if (MODEL.has(v.type)) {
      const short = v.type.slice("lf.a2a.v1.".length);
      // The other doors say the same: encode to text, to protobuf and back, the text path.
      assert.deepEqual(JSON.parse(a2a.encode(short, obj)), canonical);
      const bytes = a2a.encode(short, obj, { format: "protobuf" });
      assert.ok(Buffer.isBuffer(bytes));
      assert.deepEqual(a2a.decode(short, bytes, { format: "protobuf" }), canonical);
      assert.deepEqual(JSON.parse(a2a.canonicalize(short, typeof data === "string" ? data : a2a.encode(short, obj))), canonical);
    } else {
      const bytes = a2a.transcode(v.type, JSON.stringify(canonical), { to: "protobuf" });
      assert.deepEqual(JSON.parse(a2a.transcode(v.type, bytes, { from: "protobuf" })), canonical);
    }
    const t = v.v03;
    if (t === undefined || !MODEL.has(v.type)) return;
    const short = v.type.slice("lf.a2a.v1.".length);
    if ("error" in t) {
      checkError(caught(() => a2a.v03.fromV1(short, obj)), t.error);
      return;
    }
    const back = a2a.v03.fromV1(short, obj);
    if ("type" in t) assert.equal(back.type, t.type);
    assert.deepEqual(back.value, t.json);
    assert.deepEqual(back.losses.map((x) => `${x.kind}@${x.path}`), t.losses ?? []);
  });
}

for (const [name, v] of V03) {
  test(name, () => {
    const [data] = wireOf(v);
    if (v.expect === "invalid") {
      checkError(caught(() => a2a.v03.toV1(v.type, data)), v.error);
      return;
    }
    assert.deepEqual(a2a.v03.decode(v.type, data), v.canonical ?? v.wire);
    const { type, value, losses } = a2a.v03.toV1(v.type, data);
    const want = v.v1;
    if ("type" in want) assert.equal(`lf.a2a.v1.${type}`, want.type);
    assert.deepEqual(value, want.json);
    assert.deepEqual(losses.map((x) => `${x.kind}@${x.path}`), want.losses ?? []);
  });
}

/** A google.rpc.Status with ErrorInfo details, written by the test's own protobuf writer. */
function grpcDetails(code, message, details) {
  const fields = [[1, code], [2, message]];
  for (const d of details) {
    const info = pb([[1, d.reason ?? ""], [2, d.domain ?? ""]]);
    fields.push([3, pb([[1, d.type_url ?? ""], [2, info]])]);
  }
  return pb(fields.filter(([, v]) => v !== 0 && v !== ""));
}

for (const [name, v] of ERRORS) {
  test(name, () => {
    const version = v.version ?? "1.0";
    if (v.type === "error") {
      const e = v.error;
      const cls = a2a.A2AError.fromKind(e.kind);
      const err = new cls(e.message, { metadata: e.metadata, violations: e.violations });
      assert.ok(err instanceof a2a.A2AError);
      assert.deepEqual(err.toJsonRpc(), v.jsonrpc);
      assert.deepEqual(err.toHttp(), v.http);
      const g = err.toGrpc();
      assert.equal(g.code, v.grpc.code);
      assert.equal(g.code, err.grpcStatus);
      // The gRPC trailer reads back as the same error.
      const back = a2a.classifyGrpc(g.code, g.message, g.details);
      assert.equal(back.constructor, cls);
      assert.deepEqual(back.metadata, err.metadata);
      assert.deepEqual(back.violations, err.violations);
      return;
    }
    assert.equal(v.type, "received-error");
    const r = v.received;
    const want = v.classified;
    let got;
    let binding;
    let status;
    if ("http" in r) {
      got = a2a.classifyHttp(r.http.status, r.http.body_text ?? "", version);
      [binding, status] = ["HTTP+JSON", r.http.status];
    } else if ("grpc" in r) {
      const g = r.grpc;
      const details = "details" in g ? grpcDetails(g.code, g.message ?? "", g.details) : null;
      got = a2a.classifyGrpc(g.code, g.message ?? "", details, version);
      [binding, status] = ["GRPC", g.code];
    } else {
      got = a2a.classifyJsonRpc(r.jsonrpc);
      [binding, status] = ["JSONRPC", r.jsonrpc.code ?? null];
    }
    if (want.not_a2a) {
      assert.ok(got instanceof a2a.NotA2AError, `classified as ${got.constructor.name}`);
      assert.equal(got.status, want.status);
      assert.equal(got.binding, binding);
      assert.ok(!(got instanceof a2a.A2AError));
      return;
    }
    assert.ok(got instanceof a2a.A2AError, `classified as ${got.constructor.name}: ${got.message}`);
    assert.equal(got.kind, want.kind);
    assert.equal(got.binding, binding);
    assert.equal(got.wireStatus, status);
    for (const [k, val] of Object.entries(want.metadata ?? {})) assert.equal(got.metadata[k], val);
    if ("violations" in want) assert.deepEqual(got.violations.map((x) => x.field), want.violations);
  });
}

// The sans-IO service in the Node process: every HTTP vector (tests/vectors/http/) through
// the native ServiceHost as the fetch handler drives it (requests of every route and method
// on the three bindings in both versions decode to the vector's operation, refused ones get
// the vector's answer), then the fetch handler itself on web Request / Response.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as a2a from "a2a-wire";
import { loadVectors, nativeModule, vectorCard } from "./helpers.mjs";

const HTTP = loadVectors("http");
const native = nativeModule();

function bodyOf(r) {
  if ("body" in r) return Buffer.from(JSON.stringify(r.body));
  if ("body_text" in r) return Buffer.from(String(r.body_text));
  if ("body_base64" in r) return Buffer.from(r.body_base64, "base64");
  return Buffer.alloc(0);
}

function header(flat, name) {
  for (let i = 0; i + 1 < flat.length; i += 2) if (flat[i].toLowerCase() === name) return flat[i + 1];
  return undefined;
}

/** The ErrorInfo reasons of a google.rpc.Status (a small reader of our own). */
function statusReasons(bytes) {
  const read = (buf) => {
    const fields = [];
    let i = 0;
    const varint = () => {
      let v = 0n;
      let shift = 0n;
      for (;;) {
        const b = buf[i++];
        v |= BigInt(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
        shift += 7n;
      }
    };
    while (i < buf.length) {
      const key = Number(varint());
      const [num, wire] = [key >> 3, key & 7];
      if (wire === 0) fields.push([num, varint()]);
      else if (wire === 2) {
        const n = Number(varint());
        fields.push([num, buf.subarray(i, i + n)]);
        i += n;
      } else throw new Error(`wire type ${wire}`);
    }
    return fields;
  };
  const reasons = [];
  for (const [num, any] of read(bytes)) {
    if (num !== 3) continue;
    const a = read(any);
    const url = a.find(([n]) => n === 1)?.[1]?.toString();
    if (url?.endsWith("google.rpc.ErrorInfo")) reasons.push(read(a.find(([n]) => n === 2)[1]).find(([n]) => n === 1)?.[1]?.toString());
  }
  return reasons;
}

const host = new native.ServiceHost(JSON.stringify(vectorCard()), { extendedCard: JSON.stringify(vectorCard()) }, () => {});

test("every http vector is read", () => {
  assert.ok(HTTP.length >= 100, `${HTTP.length}`);
});

for (const [name, v] of HTTP) {
  test(name, () => {
    const r = v.request;
    const headers = Object.entries(r.headers ?? {}).flatMap(([k, x]) => [k, String(x)]);
    const body = bodyOf(r);
    const d = host.decode(r.method, r.target, headers, body);
    if (v.expect === "valid") {
      assert.equal(d.kind, "call", `refused: ${d.status} ${d.body}`);
      const want = v.operation;
      assert.equal(d.method, want.method);
      assert.deepEqual(JSON.parse(d.request), want.request);
      if ("jsonrpc_id" in want) assert.deepEqual(JSON.parse(d.jsonrpcId), want.jsonrpc_id);
      assert.equal(d.version, v.version ?? "1.0");
      return;
    }
    let answer = d;
    if (d.kind !== "refused") {
      // Decoded: the refusal is the whole service's (the extended card needs an
      // authenticated caller), so the request goes through it.
      const call = host.request(r.method, r.target, headers, body);
      answer = host.poll().find((o) => o.kind === "answer" && o.call === call);
      assert.ok(answer, `decoded as ${d.method} and served, want a refusal`);
    }
    const want = v.response;
    let json = null;
    try {
      json = JSON.parse(answer.body.toString());
    } catch {}
    if ("status" in want) assert.equal(answer.status, want.status, answer.body.toString());
    if ("jsonrpc_code" in want) {
      assert.equal(json.error.code, want.jsonrpc_code);
      if ("jsonrpc_id" in want) assert.deepEqual(json.id, want.jsonrpc_id);
    }
    if ("grpc_status" in want) assert.equal(header(answer.trailers, "grpc-status"), String(want.grpc_status));
    if ("reason" in want) {
      const details = header(answer.trailers, "grpc-status-details-bin");
      const reasons =
        details !== undefined
          ? statusReasons(Buffer.from(details, "base64"))
          : (json.error.details ?? json.error.data ?? []).map((x) => x.reason);
      assert.ok(reasons.includes(want.reason), `${reasons} lacks ${want.reason}`);
    }
    if ("content_type" in want) assert.equal(header(answer.headers, "content-type"), want.content_type);
    for (const [k, w] of Object.entries(want.body_subset ?? {})) assert.deepEqual(json[k], w);
    if ("grpc_message_prefix" in want) {
      assert.ok(decodeURIComponent(header(answer.trailers, "grpc-message") ?? "").startsWith(want.grpc_message_prefix));
    }
    if ("allow" in want) assert.equal(header(answer.headers, "allow"), want.allow);
    if (want.no_errorinfo) assert.ok(!answer.body.toString().includes("ErrorInfo"));
  });
}

// ---------------------------------------------------------------- the fetch handler

const BASE = "http://a2a.test";
function card() {
  return {
    name: "fetch",
    description: "the fetch handler",
    version: "1",
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    capabilities: { streaming: true },
    supportedInterfaces: [
      { url: `${BASE}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${BASE}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: `${BASE}/a2a/v03/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ],
  };
}

async function echo(ctx, events) {
  if (ctx.text === "slow") {
    events.status(a2a.TaskState.WORKING);
    for (const [i, piece] of ["a", "b", "c"].entries()) {
      await new Promise((r) => setTimeout(r, 20));
      events.artifact(piece, { artifactId: "s", append: i > 0, lastChunk: i === 2 });
    }
  } else {
    events.artifact(ctx.text, { artifactId: "echo", lastChunk: true });
  }
  events.complete();
}

function rpc(method, params, version = "1.0", path = "/a2a/jsonrpc") {
  return new Request(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": version },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
  });
}

const userMessage = (text) => ({ messageId: `m-${text}`, role: a2a.Role.USER, parts: [{ text }] });

test("the fetch handler serves the card with its validators", async () => {
  const s = new a2a.A2AService(echo, card());
  const r = await s.fetch(new Request(`${BASE}${a2a.CARD_PATH}`));
  assert.equal(r.status, 200);
  const got = await r.json();
  assert.equal(got.name, "fetch");
  const etag = r.headers.get("etag");
  assert.ok(etag);
  const again = await s.fetch(new Request(`${BASE}${a2a.CARD_PATH}`, { headers: { "if-none-match": etag } }));
  assert.equal(again.status, 304);
  assert.equal(await again.text(), "");
  const head = await s.fetch(new Request(`${BASE}${a2a.CARD_PATH}`, { method: "HEAD" }));
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");
  await s.close();
});

test("the fetch handler answers SendMessage on JSON-RPC v1.0 and v0.3 and HTTP+JSON", async () => {
  const s = new a2a.A2AService(echo, card());
  const r = await s.fetch(rpc("SendMessage", { message: userMessage("hi") }));
  assert.equal(r.status, 200);
  const body = await r.json();
  assert.equal(body.id, 7);
  assert.equal(body.result.task.status.state, "TASK_STATE_COMPLETED");
  assert.equal(body.result.task.artifacts[0].parts[0].text, "hi");
  const old = await s.fetch(
    rpc("message/send", { message: { kind: "message", messageId: "m3", role: "user", parts: [{ kind: "text", text: "old" }] } }, "0.3", "/a2a/v03/jsonrpc"),
  );
  const ob = await old.json();
  assert.equal(ob.result.kind, "task");
  assert.equal(ob.result.status.state, "completed");
  const rest = await s.fetch(
    new Request(`${BASE}/a2a/rest/message:send`, {
      method: "POST",
      headers: { "content-type": "application/a2a+json", "a2a-version": "1.0" },
      body: JSON.stringify({ message: userMessage("rest") }),
    }),
  );
  assert.equal(rest.status, 200);
  const task = (await rest.json()).task;
  const get = await s.fetch(new Request(`${BASE}/a2a/rest/tasks/${task.id}`, { headers: { "a2a-version": "1.0" } }));
  assert.equal((await get.json()).id, task.id);
  const missing = await s.fetch(new Request(`${BASE}/a2a/rest/tasks/nope`, { headers: { "a2a-version": "1.0" } }));
  assert.equal(missing.status, 404);
  const err = a2a.classifyHttp(missing.status, await missing.text());
  assert.ok(err instanceof a2a.TaskNotFoundError);
  await s.close();
});

test("the fetch handler streams SSE as the events happen", async () => {
  const s = new a2a.A2AService(echo, card());
  const r = await s.fetch(rpc("SendStreamingMessage", { message: userMessage("slow") }));
  assert.equal(r.status, 200);
  assert.match(r.headers.get("content-type"), /text\/event-stream/);
  const text = await r.text();
  const events = text.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)).result);
  assert.equal(events[0].task.status.state, "TASK_STATE_SUBMITTED");
  assert.deepEqual(events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate.artifact.parts[0].text), ["a", "b", "c"]);
  assert.equal(events.at(-1).statusUpdate.status.state, "TASK_STATE_COMPLETED");
  await s.close();
});

test("a stream whose reader goes away is told to the service", async () => {
  const s = new a2a.A2AService(echo, card());
  const r = await s.fetch(rpc("SendStreamingMessage", { message: userMessage("slow") }));
  const reader = r.body.getReader();
  await reader.read();
  await reader.cancel();
  // The run goes on to its end; the service forgot the call and closes cleanly.
  await s.close(2000);
});

test("matches() takes the card and the interfaces, and nothing else", () => {
  const s = new a2a.A2AService(echo, card());
  assert.ok(s.matches(new Request(`${BASE}${a2a.CARD_PATH}`)));
  assert.ok(s.matches(new Request(`${BASE}/a2a/jsonrpc`, { method: "POST" })));
  assert.ok(s.matches("/a2a/rest/tasks/t1"));
  assert.ok(!s.matches("/hello"));
  assert.ok(!s.matches("/a2a/jsonrpc/extra"));
  return s.close();
});

test("the authenticate hook gives the principal to the agent, or refuses the call", async () => {
  let seen = null;
  const agent = (ctx, events) => {
    seen = ctx.principal;
    events.complete();
  };
  const s = new a2a.A2AService(agent, card(), {
    authenticate: async (req) => {
      if (req.headers.get("authorization") !== "Bearer good") throw new a2a.UnauthenticatedError("who are you?");
      return "alice";
    },
  });
  const withAuth = rpc("SendMessage", { message: userMessage("x") });
  withAuth.headers.set("authorization", "Bearer good");
  const ok = await (await s.fetch(withAuth)).json();
  assert.equal(ok.result.task.status.state, "TASK_STATE_COMPLETED");
  assert.equal(seen, "alice");
  const refused = await (await s.fetch(rpc("SendMessage", { message: userMessage("y") }))).json();
  const err = a2a.classifyJsonRpc(refused.error);
  assert.ok(err instanceof a2a.UnauthenticatedError, err.message);
  await s.close();
});

test("a body over maxBody is refused with the service's error", async () => {
  const s = new a2a.A2AService(echo, card(), { maxBody: 100 });
  const r = await s.fetch(rpc("SendMessage", { message: userMessage("x".repeat(500)) }));
  const body = await r.json();
  assert.ok(body.error, JSON.stringify(body));
  await s.close();
});

test("the node:http listener says the Content-Length of an answer, and of a HEAD answer's left-out body", async () => {
  const http = await import("node:http");
  const s = new a2a.A2AService(echo, card());
  const srv = http.createServer(s.listener());
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  try {
    const base = `http://127.0.0.1:${srv.address().port}`;
    const r = await fetch(`${base}${a2a.CARD_PATH}`);
    const body = Buffer.from(await r.arrayBuffer());
    assert.equal(r.headers.get("content-length"), String(body.length));
    assert.equal(r.headers.get("transfer-encoding"), null);
    const head = await fetch(`${base}${a2a.CARD_PATH}`, { method: "HEAD" });
    assert.equal(head.headers.get("content-length"), String(body.length));
    assert.equal((await head.arrayBuffer()).byteLength, 0);
  } finally {
    await s.close();
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  }
});

// The API an SDK user switches to: the authentication hook on the ready server and on the
// in-process service (fetch, node:http), the request context (metadata, tenant,
// configuration) and event metadata, safe defaults (fresh ids, a required card), an
// executor's cancelTask, per-call options (AbortSignal, timeoutMs, headers), a header
// provider, streams iterable at once, and the error classes' code/status/reason across ESM
// and CommonJS.
import assert from "node:assert/strict";
import http from "node:http";
import { createRequire } from "node:module";
import { test } from "node:test";
import * as a2a from "a2a-wire";
import { baseCard } from "./helpers.mjs";

const V1 = { "content-type": "application/json", "a2a-version": "1.0" };
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function rpc(text) {
  const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text }] };
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } });
}

const echo = (ctx, events) => {
  events.artifact(`${ctx.principal}:${ctx.text}`, { lastChunk: true });
  events.complete();
};

function judge(seen) {
  return async (req) => {
    seen.push(req);
    if (req.headers.get("x-deny")) throw Object.assign(new Error("not you"), { status: 403 });
    if (req.headers.get("x-anonymous")) return a2a.ANONYMOUS;
    return req.headers.get("x-user"); // null: 401
  };
}

/** The three hosts of an agent with `authenticate`: the ready server, node:http, fetch. */
const HOSTS = {
  async ready(agent, authenticate) {
    const s = await a2a.serve(agent, { card: baseCard(), authenticate });
    return { url: s.url, close: () => s.close() };
  },
  async node(agent, authenticate) {
    const srv = http.createServer();
    await new Promise((r) => srv.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${srv.address().port}`;
    const card = { ...baseCard(), supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }, { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }] };
    const service = new a2a.A2AService(agent, card, { authenticate });
    srv.on("request", service.listener());
    return { url: base, close: async () => { await service.close(); await new Promise((r) => srv.close(r)); } };
  },
};

for (const [host, make] of Object.entries(HOSTS)) {
  test(`${host}: the auth hook sees every header and the peer, and refuses with 401 or 403`, async () => {
    const seen = [];
    const h = await make(echo, judge(seen));
    try {
      let r = await fetch(`${h.url}/a2a/jsonrpc`, { method: "POST", headers: { ...V1, "x-trace": "abc", "X-User": "alice" }, body: rpc("hi") });
      const body = await r.json();
      assert.equal(body.result?.task?.artifacts?.[0]?.parts?.[0]?.text, "alice:hi", JSON.stringify(body));
      const req = seen.at(-1);
      assert.ok(req instanceof a2a.AuthRequest);
      assert.deepEqual([req.method, req.path, req.operation, req.binding, req.version], ["POST", "/a2a/jsonrpc", "SendMessage", "JSONRPC", "1.0"]);
      assert.ok(req.headers instanceof Headers);
      assert.equal(req.headers.get("X-TRACE"), "abc");
      assert.equal(req.headers.get("content-type"), "application/json");
      // The first API's plain-object reads fail loudly, naming the replacement.
      assert.throws(() => req.headers.authorization, /req\.headers\.get\("authorization"\)/);
      assert.throws(() => req.headers["x-trace"], /req\.headers\.get\("x-trace"\)/);
      assert.equal(req.peer?.address, "127.0.0.1");
      if (host === "node") assert.ok(req.request instanceof http.IncomingMessage);
      else assert.equal(req.request, null);
      r = await fetch(`${h.url}/a2a/rest/message:send`, { method: "POST", headers: V1, body: JSON.stringify(JSON.parse(rpc("x")).params) });
      assert.equal(r.status, 401);
      assert.ok(r.headers.get("www-authenticate"), "a 401 carries the challenge");
      r = await fetch(`${h.url}/a2a/rest/message:send`, { method: "POST", headers: { ...V1, "x-deny": "1" }, body: JSON.stringify(JSON.parse(rpc("x")).params) });
      assert.equal(r.status, 403);
      assert.match(await r.text(), /not you/);
      r = await fetch(`${h.url}/a2a/jsonrpc`, { method: "POST", headers: { ...V1, "x-anonymous": "1" }, body: rpc("who") });
      assert.equal((await r.json()).result.task.artifacts[0].parts[0].text, "null:who");
    } finally {
      await h.close();
    }
  });
}

test("fetch: the auth hook gets the Fetch Request itself", async () => {
  const seen = [];
  const card = { ...baseCard(), supportedInterfaces: [{ url: "http://a2a.example/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
  const s = new a2a.A2AService(echo, card, { authenticate: judge(seen) });
  try {
    const request = new Request("http://a2a.example/rpc?x=1", { method: "POST", headers: { ...V1, "x-user": "bob" }, body: rpc("hey") });
    const body = await (await s.fetch(request)).json();
    assert.equal(body.result.task.artifacts[0].parts[0].text, "bob:hey");
    assert.equal(seen[0].request, request);
    assert.equal(seen[0].query, "x=1");
  } finally {
    await s.close();
  }
});

test("serve needs a card and one judge", async () => {
  await assert.rejects(a2a.serve(echo), (e) => e instanceof TypeError && /card/.test(e.message));
  await assert.rejects(a2a.serve(echo, {}), /card option is required/);
  await assert.rejects(a2a.serve(echo, { card: baseCard(), bearerTokens: { t: "p" }, authenticate: () => "p" }), /not both/);
  await assert.rejects(a2a.serve(echo, { card: baseCard(), authenticate: "yes" }), TypeError);
});

test("metadata, tenant and configuration reach the agent; events carry metadata; default artifacts stay two", async () => {
  let got = null;
  const agent = (ctx, events) => {
    got = { metadata: ctx.metadata, tenant: ctx.tenant, modes: ctx.acceptedOutputModes, history: ctx.configuration?.historyLength };
    events.status(a2a.TaskState.WORKING, undefined, { metadata: { step: 1 } });
    events.artifact("one", { metadata: { ext: "x" } });
    events.artifact("two");
    events.complete();
  };
  const server = await a2a.serve(agent, { card: baseCard() });
  const c = await a2a.A2AClient.connect(server.url);
  try {
    const request = { message: c.userMessage("go"), metadata: { trace: "t-1" }, configuration: { acceptedOutputModes: ["text/plain"], historyLength: 3 }, tenant: "acme" };
    const events = [];
    for await (const e of c.sendStreamingMessage(request)) events.push(e); // iterable at once
    assert.deepEqual(got, { metadata: { trace: "t-1" }, tenant: "acme", modes: ["text/plain"], history: 3 });
    assert.ok(events.some((e) => e.statusUpdate?.metadata?.step === 1), JSON.stringify(events));
    const artifacts = events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate);
    assert.deepEqual(artifacts.map((u) => u.metadata ?? null), [{ ext: "x" }, null]);
    const ids = artifacts.map((u) => u.artifact.artifactId);
    assert.equal(new Set(ids).size, 2);
    for (const id of ids) assert.match(id, UUID4);
  } finally {
    c.close();
    await server.close();
  }
});

test("message ids are UUID v4s: two clients never collide", async () => {
  const server = await a2a.serve((ctx, events) => events.message("reply"), { card: baseCard() });
  const [a, b] = await Promise.all([a2a.A2AClient.connect(server.url), a2a.A2AClient.connect(server.url)]);
  try {
    const ids = new Set();
    for (let i = 0; i < 50; i++) ids.add(a.userMessage("x").messageId).add(b.userMessage("x").messageId);
    assert.equal(ids.size, 100);
    for (const id of ids) assert.match(id, UUID4);
    const reply = (await a.sendMessage("x")).message;
    assert.match(reply.messageId, UUID4);
  } finally {
    a.close();
    b.close();
    await server.close();
  }
});

test("an executor's cancelTask is called and ctx.signal aborts", async () => {
  const log = [];
  const executor = {
    async execute(ctx, events) {
      events.status(a2a.TaskState.WORKING);
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      log.push(`aborted ${ctx.cancelled}`);
    },
    async cancelTask(ctx) {
      log.push(`cancelTask ${ctx.text}`);
    },
  };
  const server = await a2a.serve(executor, { card: baseCard() });
  const c = await a2a.A2AClient.connect(server.url);
  try {
    const { task } = await c.sendMessage({ message: c.userMessage("long"), configuration: { returnImmediately: true } });
    await c.cancelTask(task.id);
    for (let i = 0; i < 200 && log.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(log.sort(), ["aborted true", "cancelTask long"]);
  } finally {
    c.close();
    await server.close();
  }
});

test("per-call options: an AbortSignal aborts, timeoutMs times out, headers and the provider go per call", async () => {
  const seen = [];
  const slow = async (ctx, events) => {
    if (ctx.text === "slow") await new Promise((r) => setTimeout(r, 1500));
    events.complete();
  };
  const authenticate = (req) => {
    seen.push([req.headers.get("authorization"), req.headers.get("x-call")]);
    return "p";
  };
  const server = await a2a.serve(slow, { card: baseCard(), authenticate });
  let n = 0;
  const c = await a2a.A2AClient.connect(server.url, { headerProvider: async () => ({ authorization: `Bearer t${++n}` }) });
  try {
    await c.sendMessage("a");
    await c.sendMessage("b", { headers: { "x-call": "two" } });
    assert.deepEqual(seen.slice(-2), [["Bearer t1", null], ["Bearer t2", "two"]]);
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error("stop")), 100);
    await assert.rejects(c.sendMessage("slow", { signal: controller.signal }), /stop/);
    assert.ok(Date.now() - started < 1000, "the abort did not wait for the answer");
    await assert.rejects(c.sendMessage("x", { signal: AbortSignal.abort() }), { name: "AbortError" });
    await assert.rejects(c.sendMessage("slow", { timeoutMs: 200 }), (e) => e instanceof a2a.CallTimeoutError && e instanceof a2a.TransportError);
    // An aborted stream opening rejects too, and the client goes on.
    await assert.rejects(c.sendStreamingMessage("x", { signal: AbortSignal.abort() }).next(), { name: "AbortError" });
    assert.equal((await c.sendMessage("after")).task.status.state, "TASK_STATE_COMPLETED");
    c.close();
    await assert.rejects(c.getTask("t"), a2a.ClientClosedError);
  } finally {
    c.close();
    await server.close();
  }
});

test("error classes carry code, status and reason, the same classes in ESM and CommonJS", () => {
  const cjs = createRequire(import.meta.url)("a2a-wire");
  const e = new a2a.TaskNotFoundError("gone");
  assert.deepEqual([e.code, e.status, e.reason], [-32001, 404, "TASK_NOT_FOUND"]);
  assert.ok(e instanceof cjs.TaskNotFoundError && e instanceof cjs.A2AError);
  const c = new cjs.CallTimeoutError("late");
  assert.ok(c instanceof a2a.CallTimeoutError && c instanceof a2a.ClientError);
  assert.equal(cjs.ANONYMOUS, a2a.ANONYMOUS);
});

// The receiving end of push notifications from Node: WebhookReceiver (sans-IO: credentials,
// expected tasks, duplicates, v0.3 bodies, retryLater) and WebhookEndpoint on node:http, on
// fetch and under Express, fed by our own servers (the ready server and A2AService with
// `allowWebhooks`): an application that fails once gets the event again, and sees every
// event once, in order. Without `allowWebhooks`, the SSRF guard keeps 127.0.0.1 out.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import express from "express";
import * as a2a from "a2a-wire";
import { httpServer } from "./helpers.mjs";

const CARD = {
  name: "pusher",
  description: "pushes its task's events",
  version: "1",
  capabilities: { streaming: true, pushNotifications: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  supportedInterfaces: [],
};
const PIECES = ["one ", "two ", "three"];

// A task waits for input (so that its push config is made before the events to deliver),
// then works, streams three chunks and completes.
async function agent(ctx, events) {
  if (!ctx.followUp) {
    events.status(a2a.TaskState.INPUT_REQUIRED, "go on?");
    return;
  }
  events.status(a2a.TaskState.WORKING);
  for (const [i, piece] of PIECES.entries()) {
    await new Promise((r) => setTimeout(r, 20));
    events.artifact(piece, { artifactId: "chunks", append: i > 0, lastChunk: i === PIECES.length - 1 });
  }
  events.complete();
}

/** `promise`, or a rejection after `ms`. */
function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const isCompleted = (e) => e.statusUpdate?.status.state === a2a.TaskState.COMPLETED;

/** A WebhookEndpoint on node:http at `/hook`, counting the answers it sent. */
async function hookServer(endpoint) {
  const h = await httpServer();
  const statuses = [];
  const listener = endpoint.listener();
  h.srv.on("request", (req, res) => {
    res.on("finish", () => statuses.push(res.statusCode));
    listener(req, res);
  });
  return { ...h, url: `${h.base}/hook`, statuses };
}

/** Starts a task, registers the push config for it (token t0k) and sends the follow-up that runs it. */
async function runPushedTask(agentUrl, hookUrl, receiver) {
  const c = await a2a.A2AClient.connect(agentUrl);
  try {
    const first = (await c.sendMessage("start")).task;
    assert.equal(first.status.state, a2a.TaskState.INPUT_REQUIRED);
    receiver?.expectTask(first.id);
    await c.createTaskPushNotificationConfig({ taskId: first.id, url: hookUrl, token: "t0k" });
    const done = (await c.sendMessage({ message: c.userMessage("go", { taskId: first.id, contextId: first.contextId }) })).task;
    assert.equal(done.status.state, a2a.TaskState.COMPLETED);
    return first.id;
  } finally {
    c.close();
  }
}

// The two hosts of an agent, each with `allowWebhooks: ["127.0.0.1"]`.
const HOSTS = {
  async "the ready server"(options) {
    const server = await a2a.serve(agent, { card: CARD, ...options });
    return { url: server.url, close: () => server.close() };
  },
  async "A2AService on node:http"(options) {
    const h = await httpServer();
    const card = { ...CARD, supportedInterfaces: [{ url: `${h.base}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
    const service = new a2a.A2AService(agent, card, options);
    h.srv.on("request", service.listener());
    return { url: h.base, close: async () => { await service.close(); await h.close(); } };
  },
};

for (const [name, host] of Object.entries(HOSTS)) {
  test(`${name} delivers every event once and in order, through a 503 and its retry`, async () => {
    const receiver = new a2a.WebhookReceiver({ token: "t0k" });
    const seen = [];
    let failures = 0;
    let completed;
    const finished = new Promise((r) => (completed = r));
    const reported = [];
    const endpoint = new a2a.WebhookEndpoint(receiver, async (taskId, event) => {
      // The application's store is down the first time it is given the first chunk.
      if (failures === 0 && event.artifactUpdate) {
        failures += 1;
        throw new Error("the store is down");
      }
      seen.push([taskId, event]);
      if (isCompleted(event)) completed();
    }, { onError: (err, taskId, event) => reported.push([err.message, taskId, event.artifactUpdate?.artifact.parts[0].text]) });
    const hook = await hookServer(endpoint);
    const agentHost = await host({ allowWebhooks: ["127.0.0.1"] });
    try {
      const taskId = await runPushedTask(agentHost.url, hook.url, receiver);
      await within(finished, 20000, "the completed event");
      assert.equal(failures, 1);
      assert.deepEqual(reported, [["the store is down", taskId, PIECES[0]]]);
      assert.equal(hook.statuses.filter((s) => s === 503).length, 1, `${hook.statuses}`);
      assert.ok(hook.statuses.every((s) => s === 204 || s === 503), `${hook.statuses}`);
      assert.ok(seen.every(([id]) => id === taskId));
      const events = seen.map(([, e]) => e);
      const texts = JSON.stringify(events.map((e) => JSON.stringify(e)));
      assert.equal(new Set(events.map((e) => JSON.stringify(e))).size, events.length, `each event once: ${texts}`);
      // In order: working, the three chunks (the one that failed among them, once), completed last.
      const chunks = events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate.artifact.parts[0].text);
      assert.deepEqual(chunks, PIECES);
      const working = events.findIndex((e) => e.statusUpdate?.status.state === a2a.TaskState.WORKING);
      const firstChunk = events.findIndex((e) => e.artifactUpdate);
      assert.ok(working >= 0 && working < firstChunk, texts);
      assert.ok(isCompleted(events.at(-1)), texts);
    } finally {
      await agentHost.close();
      await hook.close();
    }
  });
}

test("without allowWebhooks the SSRF guard keeps 127.0.0.1 out: the receiver gets nothing", async () => {
  let handed = 0;
  const receiver = new a2a.WebhookReceiver({ token: "t0k" });
  const hook = await hookServer(new a2a.WebhookEndpoint(receiver, () => { handed += 1; }));
  const server = await a2a.serve(agent, { card: CARD });
  try {
    await runPushedTask(server.url, hook.url, receiver);
    // Attempts go out at once and retries within a few seconds: none may reach the hook.
    await sleep(2500);
    assert.deepEqual(hook.statuses, []);
    assert.equal(handed, 0);
  } finally {
    await server.close();
    await hook.close();
  }
});

// ---------------------------------------------------------------- the receiver, sans-IO

const EVENT = { statusUpdate: { taskId: "t-1", contextId: "c-1", status: { state: "TASK_STATE_WORKING" } } };
const CREDENTIALS = { "content-type": "application/a2a+json", "a2a-notification-token": "tok", authorization: "Bearer s3cret" };
const delivery = (event = EVENT, headers = CREDENTIALS) => ({ method: "POST", headers, body: JSON.stringify(event) });

describe("WebhookReceiver", () => {
  test("a new event is handed over once; the same event again is a duplicate, however it is spelled", () => {
    const rx = new a2a.WebhookReceiver({ token: "tok", authorization: "Bearer s3cret" });
    assert.equal(rx.expects("t-1"), false);
    rx.expectTask("t-1");
    assert.equal(rx.expects("t-1"), true);
    const d = rx.handle(delivery());
    assert.deepEqual(
      { ...d, body: [...d.body] },
      { kind: "event", taskId: "t-1", event: EVENT, error: null, status: 204, headers: [], body: [] },
    );
    const again = rx.handle(delivery());
    assert.deepEqual([again.kind, again.taskId, again.event, again.status], ["duplicate", "t-1", null, 204]);
    // Spelled differently (snake_case, other order, bytes, Headers): the same event.
    const respelled = '{ "status_update": { "status": { "state": "TASK_STATE_WORKING" }, "context_id": "c-1", "task_id": "t-1" } }';
    assert.equal(rx.handle({ headers: new Headers(CREDENTIALS), body: Buffer.from(respelled) }).kind, "duplicate");
    assert.equal(rx.handle({ headers: Object.entries(CREDENTIALS), body: JSON.stringify(EVENT) }).kind, "duplicate");
  });

  test("refusals: wrong credentials 401, a task not expected 404, not an event 400, not a POST", () => {
    const rx = new a2a.WebhookReceiver({ token: "tok", authorization: "Bearer s3cret" });
    rx.expectTask("t-1");
    const refused = (req, status, cls) => {
      const d = rx.handle(req);
      assert.equal(d.kind, "refused");
      assert.equal(d.status, status);
      assert.equal(d.taskId, null);
      assert.equal(d.event, null);
      assert.ok(d.error instanceof cls, `${d.error?.name}: ${d.error?.message}`);
      assert.ok(d.headers.some(([n, v]) => n.toLowerCase() === "content-type" && v === "application/json"));
      assert.ok(JSON.parse(Buffer.from(d.body).toString()).error, "an A2A error body");
    };
    refused(delivery(EVENT, { ...CREDENTIALS, "a2a-notification-token": "wrong" }), 401, a2a.UnauthenticatedError);
    // Both credentials are required: one alone is not enough.
    refused(delivery(EVENT, { "a2a-notification-token": "tok" }), 401, a2a.UnauthenticatedError);
    refused(delivery({ statusUpdate: { ...EVENT.statusUpdate, taskId: "t-other" } }), 404, a2a.TaskNotFoundError);
    refused({ headers: CREDENTIALS, body: '{"hello": 1}' }, 400, a2a.InvalidParamsError);
    refused({ method: "GET", headers: CREDENTIALS }, a2a.MethodNotFoundError.httpStatus, a2a.MethodNotFoundError);
    rx.forgetTask("t-1");
    assert.equal(rx.expects("t-1"), false);
    refused(delivery(), 404, a2a.TaskNotFoundError);
    assert.throws(() => rx.retryLater(rx.handle(delivery())), TypeError);
  });

  test("retryLater answers 503 and the redelivery is handed over again", () => {
    const rx = new a2a.WebhookReceiver({ token: "tok" });
    rx.expectTask("t-1");
    const d = rx.handle(delivery(EVENT, { "a2a-notification-token": "tok" }));
    assert.equal(d.kind, "event");
    const later = rx.retryLater(d);
    assert.deepEqual([later.kind, later.taskId, later.status], ["event", "t-1", 503]);
    assert.deepEqual(later.event, EVENT);
    assert.deepEqual(later.headers, [["Retry-After", "1"]]);
    assert.equal(later.body.length, 0);
    assert.equal(d.status, 204, "the delivery handle() gave is left as it was");
    const redelivered = rx.handle(delivery(EVENT, { "x-a2a-notification-token": "tok" }));
    assert.equal(redelivered.kind, "event");
    // A copy of the delivery (not the object handle() returned) works the same.
    rx.retryLater({ ...redelivered });
    assert.equal(rx.handle(delivery(EVENT, { "a2a-notification-token": "tok" })).kind, "event");
    assert.equal(rx.handle(delivery(EVENT, { "a2a-notification-token": "tok" })).kind, "duplicate");
  });

  test("a v0.3 body is read as v1.0", () => {
    const rx = new a2a.WebhookReceiver({ authorization: "Bearer s3cret" });
    rx.expectTask("t-1");
    const old = { kind: "status-update", taskId: "t-1", contextId: "c-1", status: { state: "working" }, final: false };
    const d = rx.handle({ headers: { "content-type": "application/json", authorization: "Bearer s3cret" }, body: JSON.stringify(old) });
    assert.equal(d.kind, "event");
    assert.equal(d.event.statusUpdate.status.state, a2a.TaskState.WORKING);
  });

  test("the window bounds what is remembered", () => {
    const rx = new a2a.WebhookReceiver({ token: "tok", window: 1 });
    rx.expectTask("t-1");
    const other = { statusUpdate: { ...EVENT.statusUpdate, status: { state: "TASK_STATE_COMPLETED" } } };
    const h = { "a2a-notification-token": "tok" };
    assert.deepEqual(
      [delivery(EVENT, h), delivery(EVENT, h), delivery(other, h), delivery(EVENT, h)].map((r) => rx.handle(r).kind),
      ["event", "duplicate", "event", "event"],
    );
  });

  test("bad options and arguments", () => {
    assert.throws(() => new a2a.WebhookReceiver({}), (e) => e instanceof TypeError && /token or an authorization/.test(e.message));
    assert.throws(() => new a2a.WebhookReceiver(), TypeError);
    assert.throws(() => new a2a.WebhookReceiver({ token: "" }), RangeError);
    assert.throws(() => new a2a.WebhookReceiver({ token: 5 }), TypeError);
    assert.throws(() => new a2a.WebhookReceiver({ token: "t", window: 0 }), RangeError);
    assert.throws(() => new a2a.WebhookReceiver({ token: "t", window: 1.5 }), RangeError);
    assert.throws(() => new a2a.WebhookReceiver({ token: "t", window: "8" }), TypeError);
    const rx = new a2a.WebhookReceiver({ token: "t" });
    assert.throws(() => rx.expectTask(1), TypeError);
    assert.throws(() => rx.handle({ body: 42 }), TypeError);
    assert.throws(() => rx.handle({ headers: "x: y" }), TypeError);
    assert.throws(() => new a2a.WebhookEndpoint({}, () => {}), TypeError);
    assert.throws(() => new a2a.WebhookEndpoint(rx, null), TypeError);
    assert.throws(() => new a2a.WebhookEndpoint(rx, () => {}, { maxBody: -1 }), RangeError);
    assert.throws(() => new a2a.WebhookEndpoint(rx, () => {}, { onError: "log" }), TypeError);
  });
});

// ---------------------------------------------------------------- the endpoint's hosting

describe("WebhookEndpoint", () => {
  function setup(options) {
    const rx = new a2a.WebhookReceiver({ token: "tok" });
    rx.expectTask("t-1");
    const handed = [];
    const endpoint = new a2a.WebhookEndpoint(rx, (taskId, event) => { handed.push([taskId, event]); }, options);
    return { rx, handed, endpoint };
  }
  const post = (url, body, token = "tok") =>
    fetch(url, { method: "POST", headers: { "content-type": "application/a2a+json", "a2a-notification-token": token }, body });

  test("on node:http: 204, duplicates and refusals answered without the application, 413 past maxBody", async () => {
    const { handed, endpoint } = setup({ maxBody: 1000 });
    const hook = await hookServer(endpoint);
    try {
      assert.equal((await post(hook.url, JSON.stringify(EVENT))).status, 204);
      assert.equal((await post(hook.url, JSON.stringify(EVENT))).status, 204, "the replay");
      const wrong = await post(hook.url, JSON.stringify(EVENT), "nope");
      assert.equal(wrong.status, 401);
      assert.ok(a2a.classifyHttp(401, await wrong.text()) instanceof a2a.UnauthenticatedError);
      const unexpected = { statusUpdate: { ...EVENT.statusUpdate, taskId: "t-2" } };
      assert.equal((await post(hook.url, JSON.stringify(unexpected))).status, 404);
      const big = { statusUpdate: { ...EVENT.statusUpdate, metadata: { pad: "x".repeat(2000) } } };
      assert.equal((await post(hook.url, JSON.stringify(big))).status, 413);
      assert.deepEqual(handed, [["t-1", EVENT]]);
    } finally {
      await hook.close();
    }
  });

  test("on fetch, and under Express", async () => {
    const { handed, endpoint } = setup();
    const r = await endpoint.fetch(
      new Request("http://hook.test/hook", { method: "POST", headers: { "a2a-notification-token": "tok" }, body: JSON.stringify(EVENT) }),
    );
    assert.equal(r.status, 204);
    assert.equal(handed.length, 1);
    const app = express();
    app.post("/hook", endpoint.middleware());
    const h = await httpServer();
    h.srv.on("request", app);
    try {
      const second = { statusUpdate: { ...EVENT.statusUpdate, status: { state: "TASK_STATE_COMPLETED" } } };
      assert.equal((await post(`${h.base}/hook`, JSON.stringify(second))).status, 204);
      assert.equal((await post(`${h.base}/hook`, JSON.stringify(EVENT))).status, 204, "a duplicate of the fetch delivery");
      assert.deepEqual(handed.map(([, e]) => e.statusUpdate.status.state), ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]);
    } finally {
      await h.close();
    }
  });

  test("an application that rejects gets the event again on the redelivery", async () => {
    const rx = new a2a.WebhookReceiver({ token: "tok" });
    rx.expectTask("t-1");
    let calls = 0;
    const errors = [];
    const endpoint = new a2a.WebhookEndpoint(rx, async () => {
      calls += 1;
      if (calls === 1) throw new Error("not now");
    }, { onError: (err) => errors.push(err.message) });
    const req = () => new Request("http://hook.test/hook", { method: "POST", headers: { "a2a-notification-token": "tok" }, body: JSON.stringify(EVENT) });
    const first = await endpoint.fetch(req());
    assert.equal(first.status, 503);
    assert.equal(first.headers.get("retry-after"), "1");
    assert.equal((await endpoint.fetch(req())).status, 204);
    assert.equal((await endpoint.fetch(req())).status, 204);
    assert.equal(calls, 2, "handed over again once after the 503, then a duplicate");
    assert.deepEqual(errors, ["not now"]);
  });
});

// The ready server's store settings: a SQLite file that outlives the server (with a cache far
// smaller than what is stored), retention that deletes finished tasks and keeps waiting ones
// (in memory and in the file, on every binding), and the errors of bad settings. Then the
// same for A2AService, which answers its service's store requests itself (a SQLite file, a
// TaskStore in memory) on node:http.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import * as a2a from "a2a-wire";
import { httpServer, baseCard } from "./helpers.mjs";

const BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"];

async function agent(ctx, events) {
  if (ctx.text === "ask") events.status(a2a.TaskState.INPUT_REQUIRED);
  else events.complete();
}

function tempDb() {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), "a2a-wire-store-")), "tasks.db");
}

test("a store file keeps the tasks across a restart", async () => {
  const store = tempDb();
  let server = await a2a.serve(agent, { card: baseCard(), store, cacheMb: 0 });
  let c = await a2a.A2AClient.connect(server.url);
  const done = (await c.sendMessage("hello")).task;
  const waiting = (await c.sendMessage("ask")).task;
  await server.close();
  assert.ok(fs.existsSync(store));
  server = await a2a.serve(agent, { card: baseCard(), store });
  try {
    c = await a2a.A2AClient.connect(server.url);
    assert.equal((await c.getTask({ id: done.id })).status.state, a2a.TaskState.COMPLETED);
    const listed = await c.listTasks({ status: a2a.TaskState.INPUT_REQUIRED });
    assert.deepEqual(listed.tasks.map((t) => t.id), [waiting.id]);
    const follow = await c.sendMessage({ message: { ...c.userMessage("the first"), taskId: waiting.id } });
    assert.equal(follow.task.status.state, a2a.TaskState.COMPLETED);
  } finally {
    await server.close();
  }
});

for (const kind of ["memory", "file"]) {
  test(`retention deletes finished tasks and keeps waiting ones (${kind})`, async () => {
    const server = await a2a.serve(agent, { card: baseCard(), store: kind === "file" ? tempDb() : undefined, retain: "2s" });
    try {
      const made = {};
      for (const b of BINDINGS) {
        const c = await a2a.A2AClient.connect(server.url, { bindings: [b] });
        made[b] = [(await c.sendMessage("hello")).task, (await c.sendMessage("ask")).task];
      }
      const deadline = Date.now() + 15_000;
      for (const b of BINDINGS) {
        const c = await a2a.A2AClient.connect(server.url, { bindings: [b] });
        const [done, waiting] = made[b];
        for (;;) {
          try {
            await c.getTask({ id: done.id });
          } catch (e) {
            assert.ok(e instanceof a2a.TaskNotFoundError, `${b}: ${e}`);
            break;
          }
          assert.ok(Date.now() < deadline, `${b}: the completed task was never deleted`);
          await new Promise((r) => setTimeout(r, 250));
        }
        assert.equal((await c.getTask({ id: waiting.id })).status.state, a2a.TaskState.INPUT_REQUIRED, b);
      }
    } finally {
      await server.close();
    }
  });
}

test("bad store settings are refused", async () => {
  await assert.rejects(a2a.serve(agent, { card: baseCard(), retain: 0 }), RangeError);
  await assert.rejects(a2a.serve(agent, { card: baseCard(), retain: "soon" }), /retain/);
  await assert.rejects(a2a.serve(agent, { card: baseCard(), cacheMb: -1 }), RangeError);
  await assert.rejects(a2a.serve(agent, { card: baseCard(), store: "/nonexistent-dir/x/tasks.db" }), /tasks\.db/);
});

// ---- A2AService answering its own store requests ({store}) ------------------------------

function mountedCard(base) {
  return {
    name: "stored",
    description: "A2AService with a store",
    version: "1",
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    capabilities: { streaming: true },
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ],
  };
}

/** An A2AService with `options` on node:http at 127.0.0.1: `{ base, close() }`. */
async function hosted(options) {
  const h = await httpServer();
  const service = new a2a.A2AService(agent, mountedCard(h.base), options);
  h.srv.on("request", service.listener());
  return {
    base: h.base,
    async close() {
      await service.close();
      await h.close();
    },
  };
}

test("A2AService keeps its tasks in a SQLite file across a restart", async () => {
  const store = tempDb();
  let s = await hosted({ store, cacheMb: 0 });
  let done, waiting;
  try {
    const c = await a2a.A2AClient.connect(s.base);
    done = (await c.sendMessage("hello")).task;
    waiting = (await c.sendMessage("ask")).task;
  } finally {
    await s.close();
  }
  s = await hosted({ store });
  try {
    for (const b of ["JSONRPC", "HTTP+JSON"]) {
      const c = await a2a.A2AClient.connect(s.base, { bindings: [b] });
      assert.equal((await c.getTask({ id: done.id })).status.state, a2a.TaskState.COMPLETED, b);
      const listed = await c.listTasks({ status: a2a.TaskState.INPUT_REQUIRED });
      assert.deepEqual(listed.tasks.map((t) => t.id), [waiting.id], b);
    }
    const c = await a2a.A2AClient.connect(s.base);
    const follow = await c.sendMessage({ message: { ...c.userMessage("the first"), taskId: waiting.id } });
    assert.equal(follow.task.status.state, a2a.TaskState.COMPLETED);
  } finally {
    await s.close();
  }
});

test("A2AService with a memory TaskStore applies retention", async () => {
  const store = a2a.TaskStore.memory();
  const s = await hosted({ store, retain: 1500 });
  try {
    for (const b of ["JSONRPC", "HTTP+JSON"]) {
      const c = await a2a.A2AClient.connect(s.base, { bindings: [b] });
      const done = (await c.sendMessage("hello")).task;
      const waiting = (await c.sendMessage("ask")).task;
      const deadline = Date.now() + 15_000;
      for (;;) {
        try {
          await c.getTask({ id: done.id });
        } catch (e) {
          assert.ok(e instanceof a2a.TaskNotFoundError, `${b}: ${e}`);
          break;
        }
        assert.ok(Date.now() < deadline, `${b}: the completed task was never deleted`);
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.equal((await c.getTask({ id: waiting.id })).status.state, a2a.TaskState.INPUT_REQUIRED, b);
    }
  } finally {
    await s.close();
  }
  // A store given is left open: a second service uses it and finds nothing expired wrongly.
  const again = await hosted({ store });
  try {
    const c = await a2a.A2AClient.connect(again.base);
    assert.equal((await c.sendMessage("hello")).task.status.state, a2a.TaskState.COMPLETED);
  } finally {
    await again.close();
    store.close();
    store.close(); // idempotent
  }
});

test("bad A2AService store settings are refused", () => {
  const card = mountedCard("http://127.0.0.1:1");
  assert.throws(() => new a2a.A2AService(agent, card, { store: 42 }), TypeError);
  assert.throws(() => new a2a.A2AService(agent, card, { store: tempDb(), cacheMb: -1 }), RangeError);
  assert.throws(() => new a2a.A2AService(agent, card, { retain: "soon" }), /retain/);
  assert.throws(() => a2a.TaskStore.openSqlite("/nonexistent-dir/x/tasks.db"), /tasks\.db/);
  assert.throws(() => new a2a.TaskStore(), TypeError);
});

// ---- PostgreSQL (the test command starts a cluster and sets A2A_PG_URL) ------------------

/** A fresh database on the test cluster, as a URL (null: no cluster given). */
function pgDatabase(name) {
  const admin = process.env.A2A_PG_URL;
  if (admin == null) {
    assert.equal(process.env.A2A_PG_REQUIRED, undefined, "A2A_PG_REQUIRED is set but A2A_PG_URL is not");
    return null;
  }
  execFileSync("psql", ["-q", admin, "-c", `DROP DATABASE IF EXISTS ${name}`, "-c", `CREATE DATABASE ${name}`], {
    env: { ...process.env, PGOPTIONS: "-c client_min_messages=warning" },
  });
  return `${admin.slice(0, admin.lastIndexOf("/"))}/${name}`;
}

test("a postgres store keeps the tasks across a restart, and the card names the public URL", async (t) => {
  const db = pgDatabase("a2a_node_store");
  if (db === null) return t.skip("no PostgreSQL cluster (A2A_PG_URL)");
  let server = await a2a.serve(agent, { card: baseCard(), store: db, cacheMb: 0 });
  let c = await a2a.A2AClient.connect(server.url);
  const done = (await c.sendMessage("hello")).task;
  const waiting = (await c.sendMessage("ask")).task;
  await server.close();
  server = await a2a.serve(agent, { card: baseCard(), store: db, publicUrl: "https://agents.example" });
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:/);
    const card = await (await fetch(`${server.url}${a2a.CARD_PATH}`)).json();
    assert.ok(card.supportedInterfaces.length > 0 && card.supportedInterfaces.every((i) => i.url.startsWith("https://agents.example")));
  } finally {
    await server.close();
  }
  server = await a2a.serve(agent, { card: baseCard(), store: db });
  try {
    c = await a2a.A2AClient.connect(server.url);
    assert.equal((await c.getTask({ id: done.id })).status.state, a2a.TaskState.COMPLETED);
    const listed = await c.listTasks({ status: a2a.TaskState.INPUT_REQUIRED });
    assert.deepEqual(listed.tasks.map((x) => x.id), [waiting.id]);
  } finally {
    await server.close();
  }
  await assert.rejects(a2a.serve(agent, { card: baseCard(), publicUrl: "https://agents.example/path" }), /publicUrl/);
});

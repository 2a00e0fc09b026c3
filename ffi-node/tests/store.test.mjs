// The ready server's store settings: a SQLite file that outlives the server (with a cache far
// smaller than what is stored), retention that deletes finished tasks and keeps waiting ones
// (in memory and in the file, on every binding), and the errors of bad settings.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import * as a2a from "a2a-wire";

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
  let server = await a2a.serve(agent, { store, cacheMb: 0 });
  let c = await a2a.A2AClient.connect(server.url);
  const done = (await c.sendMessage("hello")).task;
  const waiting = (await c.sendMessage("ask")).task;
  await server.close();
  assert.ok(fs.existsSync(store));
  server = await a2a.serve(agent, { store });
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
    const server = await a2a.serve(agent, { store: kind === "file" ? tempDb() : undefined, retain: "2s" });
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
  await assert.rejects(a2a.serve(agent, { retain: 0 }), RangeError);
  await assert.rejects(a2a.serve(agent, { retain: "soon" }), /retain/);
  await assert.rejects(a2a.serve(agent, { cacheMb: -1 }), RangeError);
  await assert.rejects(a2a.serve(agent, { store: "/nonexistent-dir/x/tasks.db" }), /tasks\.db/);
});

// Interop with the official JavaScript SDK (@a2a-js/sdk from npm, as tests/interop/js
// installs it), both directions, the nine checks of the interop matrix (INTEROP.md) in v1.0
// and v0.3 (ListTasks exists in v1.0 only):
//
// - the SDK's client (tests/interop/js/their_client.mjs) against our Node agent on the ready
//   server (JSON-RPC, HTTP+JSON, gRPC), under Express and under Hono (JSON-RPC, HTTP+JSON):
//   the examples, run as a user runs them;
// - our Node client against the SDK's server (tests/interop/js/their_server.mjs).
//
// A failure is allowed only where tests/interop/quirks.json lists a documented SDK quirk.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import * as a2a from "a2a-wire";
import { REPO, freePort, run, start, waitCard } from "./helpers.mjs";

const JS = join(REPO, "tests", "interop", "js");
const EXAMPLES = join(REPO, "examples", "node");
const CHECKS = ["card", "send", "get", "stream", "input_required", "cancel_completed", "get_unknown", "list", "message_only"];
const QUIRKS = JSON.parse(readFileSync(join(REPO, "tests", "interop", "quirks.json"), "utf8")).quirks;

function quirk(client, server, binding, version, check) {
  const m = (q, k, v) => q[k] === "*" || q[k] === v;
  return QUIRKS.find((q) => m(q, "client", client) && m(q, "server", server) && m(q, "binding", binding) && m(q, "version", version) && m(q, "check", check));
}

for (const [example, bindings] of [
  ["agent.mjs", ["JSONRPC", "HTTP+JSON", "GRPC"]],
  ["express.mjs", ["JSONRPC", "HTTP+JSON"]],
  ["hono.mjs", ["JSONRPC", "HTTP+JSON"]],
]) {
  test(`the SDK's client against examples/node/${example}`, async () => {
    const port = await freePort();
    const server = start(process.execPath, [join(EXAMPLES, example), `127.0.0.1:${port}`], { cwd: EXAMPLES });
    let code;
    let out;
    try {
      await waitCard(`http://127.0.0.1:${port}`, 30000, server.proc);
      const args = [join(JS, "their_client.mjs"), "--url", `http://127.0.0.1:${port}`];
      for (const b of bindings) args.push("--binding", b);
      out = await run(process.execPath, args, { cwd: JS, timeoutMs: 600000 });
    } finally {
      code = await server.stop();
    }
    const rows = new Map();
    for (const line of out.stdout.split("\n")) {
      if (!line.startsWith("{")) continue;
      const r = JSON.parse(line);
      rows.set(`${r.binding} ${r.version} ${r.check}`, r);
    }
    const failed = [];
    const quirks = [];
    let passed = 0;
    for (const b of bindings) {
      for (const v of ["1.0", "0.3"]) {
        for (const c of CHECKS) {
          if (c === "list" && v === "0.3") continue;
          const r = rows.get(`${b} ${v} ${c}`);
          if (r?.ok) passed += 1;
          else if (quirk("js", "a2a-wire", b, v, c)) quirks.push(`${b} ${v} ${c}`);
          else failed.push(`${b} ${v} ${c}: ${r === undefined ? "not run" : r.detail}`);
        }
      }
    }
    console.log(`@a2a-js/sdk client -> examples/node/${example} (${bindings.join(", ")} x 1.0, 0.3): ${passed} ok, quirks: ${quirks.join("; ") || "none"}`);
    assert.deepEqual(failed, [], `${failed.join("\n")}\n${out.stderr.slice(-2000)}\n${server.output().slice(-2000)}`);
    assert.ok(passed >= bindings.length * 15, `only ${passed} checks passed`);
    assert.equal(code, 0, `the example did not exit cleanly: ${code}\n${server.output()}`);
  });
}

const textOf = (task) => (task.artifacts ?? []).flatMap((x) => x.parts).map((p) => p.text ?? "").join("");

/** The matrix's checks with our client; returns check -> "" (passed) or what failed. */
async function nineChecks(url, binding, version) {
  const results = {};
  const c = await a2a.A2AClient.connect(url, { bindings: [binding], versions: [version] });
  const done = [];
  const checks = {
    card: async () => assert.deepEqual([c.interface.binding, c.interface.version], [binding, version]),
    send: async () => {
      const { task } = await c.sendMessage("hello");
      assert.equal(task.status.state, a2a.TaskState.COMPLETED);
      assert.equal(textOf(task), "hello");
      done.push(task.id);
    },
    get: async () => {
      const t = await c.getTask(done[0]);
      assert.equal(t.id, done[0]);
      assert.equal(t.status.state, a2a.TaskState.COMPLETED);
    },
    stream: async () => {
      const events = [];
      for await (const e of await c.sendStreamingMessage("slow")) events.push(e);
      const chunks = events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate);
      assert.deepEqual(chunks.map((x) => x.append ?? false), [false, true, true]);
      assert.ok(chunks.at(-1).lastChunk);
      assert.equal(chunks.flatMap((x) => x.artifact.parts).map((p) => p.text).join(""), "one two three");
      assert.equal(events.at(-1).statusUpdate.status.state, a2a.TaskState.COMPLETED);
    },
    input_required: async () => {
      const first = (await c.sendMessage("need-input")).task;
      assert.equal(first.status.state, a2a.TaskState.INPUT_REQUIRED);
      const second = (await c.sendMessage({ message: c.userMessage("x", { taskId: first.id, contextId: first.contextId }) })).task;
      assert.equal(second.id, first.id);
      assert.equal(second.status.state, a2a.TaskState.COMPLETED);
    },
    cancel_completed: () => assert.rejects(c.cancelTask(done[0]), a2a.TaskNotCancelableError),
    get_unknown: () => assert.rejects(c.getTask("no-such-task-0f3c"), a2a.TaskNotFoundError),
    message_only: async () => {
      const { message } = await c.sendMessage("message-only");
      assert.equal(message.role, a2a.Role.AGENT);
    },
  };
  if (version === "1.0") {
    checks.list = async () => {
      const r = await c.listTasks();
      assert.ok(r.tasks.some((t) => t.id === done[0]));
    };
  }
  for (const [name, body] of Object.entries(checks)) {
    try {
      await body();
      results[name] = "";
    } catch (e) {
      results[name] = `${e?.constructor?.name}: ${e?.message}`;
    }
  }
  c.close();
  return results;
}

describe("our client against the SDK's server", () => {
  let theirs;
  let url;
  before(async () => {
    const port = await freePort(2);
    theirs = start(process.execPath, [join(JS, "their_server.mjs"), "--port", String(port)], { cwd: JS });
    url = `http://127.0.0.1:${port}`;
    await waitCard(url, 30000, theirs.proc);
  });
  after(() => theirs.stop());
  for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) {
    for (const version of ["1.0", "0.3"]) {
      test(`${binding} ${version}`, async () => {
        const results = await nineChecks(url, binding, version);
        const failed = Object.entries(results).filter(([k, v]) => v && !quirk("a2a-wire", "js", binding, version, k));
        const ok = Object.values(results).filter((v) => !v).length;
        console.log(`a2a-wire Node client -> @a2a-js/sdk server, ${binding} ${version}: ${ok} of ${Object.keys(results).length} ok`);
        assert.deepEqual(failed, []);
        assert.equal(Object.keys(results).length, version === "1.0" ? 9 : 8);
      });
    }
  }
});

// Agents on both hosts (the ready server, and the in-process service under node:http):
// what they publish reaches the client, and misbehaving agents are handled cleanly — one
// that throws fails its task and the server keeps serving; one that never resolves is
// canceled (its signal aborts) and does not hold the server's stop; one that publishes after
// its end is refused with an A2AError and the stored task keeps its final state.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import * as a2a from "a2a-wire";
import { httpServer } from "./helpers.mjs";

const CARD = {
  name: "agents",
  description: "the agents under test",
  version: "1",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  supportedInterfaces: [],
};

const seen = { errors: [], aborted: 0, late: [] };

async function agent(ctx, events) {
  switch (ctx.text) {
    case "throw":
      throw new Error("the agent broke");
    case "throw-late":
      events.status(a2a.TaskState.WORKING);
      throw new Error("the agent broke while working");
    case "reject-late":
      events.status(a2a.TaskState.WORKING);
      return Promise.reject(new TypeError("a rejected promise"));
    case "refuse":
      throw new a2a.UnsupportedOperationError("I do not do that");
    case "hang":
      events.status(a2a.TaskState.WORKING);
      // Never resolves by itself; only the cancel ends it.
      await new Promise((resolve) => ctx.signal.addEventListener("abort", () => {
        seen.aborted += 1;
        resolve(undefined);
      }));
      return;
    case "late":
      events.artifact("done", { artifactId: "a", lastChunk: true });
      events.complete();
      setTimeout(async () => {
        try {
          events.artifact("after the end", { artifactId: "b" });
          await events.flush();
          seen.late.push("accepted");
        } catch (e) {
          seen.late.push(e);
        }
      }, 50);
      return;
    case "bad-event":
      // An event the model refuses: the path is named, the run fails.
      events.message({ messageId: "", role: a2a.Role.AGENT, parts: [] });
      return;
    default:
      events.artifact(ctx.text, { artifactId: "echo", lastChunk: true });
      events.complete();
  }
}

const onError = (err) => seen.errors.push(err);

async function readyHost() {
  const server = await a2a.serve(agent, { card: CARD, onError });
  return { url: server.url, close: () => server.close(), bindings: ["JSONRPC", "HTTP+JSON", "GRPC"] };
}

async function nodeHost() {
  const { srv, base, close } = await httpServer();
  const card = {
    ...CARD,
    supportedInterfaces: [
      { url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ],
  };
  const service = new a2a.A2AService(agent, card, { onError });
  srv.on("request", service.listener());
  return {
    url: base,
    bindings: ["JSONRPC", "HTTP+JSON"],
    async close() {
      await service.close();
      await close();
    },
  };
}

const text = (task) => (task.artifacts ?? []).flatMap((a) => a.parts).map((p) => p.text).join("");

for (const [hostName, makeHost] of [["ready server", readyHost], ["node:http service", nodeHost]]) {
  describe(`agents on the ${hostName}`, async () => {
    const host = await makeHost();
    after(() => host.close());
    for (const binding of host.bindings) {
      test(`${binding}: an agent that throws fails its task; the server keeps serving`, async () => {
        const c = await a2a.A2AClient.connect(host.url, { bindings: [binding] });
        const before = seen.errors.length;
        for (const t of ["throw-late", "reject-late"]) {
          const r = await c.sendMessage(t);
          assert.equal(r.task.status.state, a2a.TaskState.FAILED);
          assert.equal(r.task.status.message.parts[0].text, a2a.AGENT_FAILED);
        }
        // Before its task existed: the caller gets an internal error.
        await assert.rejects(c.sendMessage("throw"), a2a.InternalError);
        // An A2AError before the task exists: its message is the failure's text (not logged).
        await assert.rejects(c.sendMessage("refuse"), (e) => e instanceof a2a.InternalError && e.message.includes("I do not do that"));
        assert.equal(seen.errors.length, before + 3);
        assert.equal(seen.errors.at(-2).message, "a rejected promise");
        const ok = await c.sendMessage("still here");
        assert.equal(ok.task.status.state, a2a.TaskState.COMPLETED);
        assert.equal(text(ok.task), "still here");
        c.close();
      });

      test(`${binding}: an agent that never resolves is canceled`, async () => {
        const c = await a2a.A2AClient.connect(host.url, { bindings: [binding] });
        const stream = await c.sendStreamingMessage("hang");
        let taskId;
        for await (const ev of stream) {
          taskId ??= ev.task?.id ?? ev.statusUpdate?.taskId;
          if (ev.statusUpdate?.status.state === a2a.TaskState.WORKING) break;
        }
        const abortedBefore = seen.aborted;
        const canceled = await c.cancelTask(taskId);
        assert.equal(canceled.status.state, a2a.TaskState.CANCELED);
        for (let i = 0; i < 100 && seen.aborted === abortedBefore; i++) await new Promise((r) => setTimeout(r, 10));
        assert.equal(seen.aborted, abortedBefore + 1, "the agent's signal aborted");
        await assert.rejects(c.cancelTask(taskId), a2a.TaskNotCancelableError);
        c.close();
      });

      test(`${binding}: a publish after the end is refused`, async () => {
        const c = await a2a.A2AClient.connect(host.url, { bindings: [binding] });
        const n = seen.late.length;
        const r = await c.sendMessage("late");
        for (let i = 0; i < 200 && seen.late.length === n; i++) await new Promise((r) => setTimeout(r, 10));
        const late = seen.late.at(-1);
        assert.ok(late instanceof a2a.A2AError, `the late publish: ${late}`);
        const t = await c.getTask(r.task.id);
        assert.equal(t.status.state, a2a.TaskState.COMPLETED);
        assert.equal(text(t), "done");
        c.close();
      });

      test(`${binding}: an event the model refuses fails the run with the field's path`, async () => {
        const c = await a2a.A2AClient.connect(host.url, { bindings: [binding] });
        const before = seen.errors.length;
        await assert.rejects(c.sendMessage("bad-event"), a2a.InternalError);
        const err = seen.errors.at(-1);
        assert.equal(seen.errors.length, before + 1);
        assert.ok(err instanceof a2a.MissingFieldError, `${err}`);
        assert.equal(err.path, "messageId");
        c.close();
      });
    }
  });
}

test("an agent that never resolves does not hold the ready server's stop", async () => {
  const server = await a2a.serve(agent, { card: CARD, onError });
  const c = await a2a.A2AClient.connect(server.url);
  const stream = await c.sendStreamingMessage("hang");
  await stream.next();
  const t0 = Date.now();
  await server.close();
  assert.ok(Date.now() - t0 < 5000, `stopped in ${Date.now() - t0} ms`);
  stream.close();
  c.close();
});

// Our client: the eleven operations on all six interfaces of the ready server, the error
// classes each binding's errors become (with the binding and the status seen), overlapping
// calls, stream closing (`break`, close()), a proxy's bare 404 read as NotA2AError, and
// connect failures.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import * as a2a from "a2a-wire";

const INTERFACES = ["JSONRPC", "HTTP+JSON", "GRPC"].flatMap((b) => ["1.0", "0.3"].map((v) => [b, v]));

async function agent(ctx, events) {
  if (ctx.text === "ticks") {
    events.status(a2a.TaskState.WORKING);
    for (let i = 0; i < 200 && !ctx.cancelled; i++) {
      await new Promise((r) => setTimeout(r, 10));
      events.artifact(`tick ${i}`, { artifactId: "ticks", append: i > 0 });
    }
    events.complete();
  } else if (ctx.text === "wait") {
    events.status(a2a.TaskState.WORKING);
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
  } else {
    events.artifact(ctx.text, { artifactId: "echo", lastChunk: true });
    events.complete();
  }
}

const CARD = {
  name: "test",
  description: "the client's peer",
  version: "1",
  capabilities: { streaming: true, pushNotifications: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  supportedInterfaces: [],
};

let server;
before(async () => {
  server = await a2a.serve(agent, { card: CARD });
});
after(() => server.close());

describe("the eleven operations", () => {
  for (const [binding, version] of INTERFACES) {
    test(`${binding} ${version}`, async () => {
      const c = await a2a.A2AClient.connect(server.url, { bindings: [binding], versions: [version] });
      assert.deepEqual([c.interface.binding, c.interface.version], [binding, version]);
      assert.equal(c.card.name, "test");
      const t = (await c.sendMessage("one")).task; //                                    1 SendMessage
      assert.equal(t.status.state, a2a.TaskState.COMPLETED);
      const events = [];
      for await (const e of await c.sendStreamingMessage("two")) events.push(e); //       2 SendStreamingMessage
      assert.ok(events[0].task);
      assert.equal(events.at(-1).statusUpdate.status.state, a2a.TaskState.COMPLETED);
      assert.equal((await c.getTask({ id: t.id, historyLength: 1 })).id, t.id); //        3 GetTask
      if (version === "1.0") {
        const listed = await c.listTasks({ pageSize: 10 }); //                            4 ListTasks
        assert.ok(listed.tasks.some((x) => x.id === t.id));
      } else {
        await assert.rejects(c.listTasks(), a2a.CannotSendError);
      }
      const w = (await c.sendMessage({ message: c.userMessage("wait"), configuration: { returnImmediately: true } })).task;
      const sub = await c.subscribeToTask(w.id); //                                       6 SubscribeToTask
      const first = await sub.next();
      assert.equal(first.value.task.id, w.id);
      await sub.return();
      assert.equal((await c.cancelTask(w.id)).status.state, a2a.TaskState.CANCELED); //   5 CancelTask
      const config = { taskId: t.id, id: "cfg-1", url: "https://hooks.example/a2a", token: "tok" };
      const made = await c.createTaskPushNotificationConfig(config); //                   7 Create...Config
      assert.equal(made.url, config.url);
      assert.equal(made.taskId, t.id);
      const got = await c.getTaskPushNotificationConfig({ taskId: t.id, id: made.id }); // 8 Get...Config
      assert.equal(got.url, config.url);
      const configs = await c.listTaskPushNotificationConfigs({ taskId: t.id }); //       9 List...Configs
      assert.deepEqual(configs.configs.map((x) => x.id), [made.id]);
      await c.deleteTaskPushNotificationConfig({ taskId: t.id, id: made.id }); //         10 Delete...Config
      await assert.rejects(c.getTaskPushNotificationConfig({ taskId: t.id, id: made.id }), a2a.TaskNotFoundError);
      if (version === "1.0") {
        // 11 GetExtendedAgentCard: the card declares none.
        await assert.rejects(
          c.getExtendedAgentCard(),
          (e) => e instanceof a2a.UnsupportedOperationError || e instanceof a2a.ExtendedAgentCardNotConfiguredError,
        );
      }
      c.close();
    });
  }
});

describe("the error classes on every binding", () => {
  for (const [binding, version] of INTERFACES) {
    test(`${binding} ${version}`, async () => {
      const c = await a2a.A2AClient.connect(server.url, { bindings: [binding], versions: [version] });
      await assert.rejects(c.getTask("missing"), (e) => {
        assert.ok(e instanceof a2a.TaskNotFoundError, `${e}`);
        assert.ok(e instanceof a2a.A2AError && e instanceof Error);
        assert.equal(e.binding, binding);
        assert.equal(e.reason, "TASK_NOT_FOUND");
        return true;
      });
      const done = (await c.sendMessage("finished")).task;
      await assert.rejects(c.cancelTask(done.id), (e) => {
        assert.ok(e instanceof a2a.TaskNotCancelableError, `${e}`);
        assert.equal(e.binding, binding);
        return true;
      });
      // A request the model refuses never leaves: the path of the field is named.
      await assert.rejects(c.sendMessage({ message: { messageId: "m", role: a2a.Role.USER, parts: [] } }), (e) => {
        assert.ok(e instanceof a2a.MissingFieldError, `${e}`);
        assert.equal(e.path, "message.parts");
        return true;
      });
      c.close();
    });
  }
});

test("overlapping calls, and a stream left early is closed", async () => {
  const c = await a2a.A2AClient.connect(server.url);
  const replies = await Promise.all(Array.from({ length: 64 }, (_, i) => c.sendMessage(`n${i}`)));
  assert.deepEqual(replies.map((r) => r.task.artifacts[0].parts[0].text), Array.from({ length: 64 }, (_, i) => `n${i}`));
  let seen = 0;
  for await (const e of await c.sendStreamingMessage("ticks")) {
    if (e.artifactUpdate) seen += 1;
    if (seen === 2) break;
  }
  assert.equal(seen, 2);
  const s = await c.sendStreamingMessage("ticks");
  await s.next();
  s.close();
  assert.deepEqual(await s.next(), { done: true, value: undefined });
  assert.equal((await c.sendMessage("still here")).task.status.state, a2a.TaskState.COMPLETED);
  c.close();
});

test("a peer's bare 404 is NotA2AError, never TaskNotFound", async () => {
  // A card that points at a server answering every A2A path with a proxy's plain 404.
  const srv = http.createServer((req, res) => {
    if (req.url === a2a.CARD_PATH) {
      const base = `http://127.0.0.1:${srv.address().port}`;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ...CARD, supportedInterfaces: [{ url: `${base}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }] }));
      return;
    }
    res.writeHead(404, { "content-type": "text/html" });
    res.end("<h1>Not Found</h1>");
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  try {
    const c = await a2a.A2AClient.connect(`http://127.0.0.1:${srv.address().port}`);
    await assert.rejects(c.getTask("t1"), (e) => {
      assert.ok(e instanceof a2a.NotA2AError, `${e}`);
      assert.ok(!(e instanceof a2a.A2AError));
      assert.equal(e.status, 404);
      return true;
    });
    c.close();
  } finally {
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  }
});

test("connect failures are client errors", async () => {
  await assert.rejects(a2a.A2AClient.connect("http://127.0.0.1:9", { timeoutMs: 2000 }), a2a.TransportError);
  await assert.rejects(a2a.A2AClient.connect("ftp://example.com"), TypeError);
  await assert.rejects(a2a.A2AClient.connect(server.url, { bindings: ["GRPC"], versions: ["2.0"] }), a2a.CardError);
  await assert.rejects(a2a.A2AClient.connect(server.url, { bindings: ["SOAP"] }), RangeError);
  await assert.rejects(a2a.A2AClient.connect(server.url, { timeoutMs: -1 }), RangeError);
  // A header field that would end itself and write another is refused before any request.
  for (const headers of [{ "Bad Name": "x" }, { "X-Ok": "a\r\nInjected: 1" }]) {
    await assert.rejects(a2a.A2AClient.connect(server.url, { headers }), (e) => e instanceof TypeError && /headers/.test(e.message));
  }
});

// Leak tests: one million decode/encode calls and ten thousand served requests (on the
// ready server and on the in-process service under node:http) with flat RSS.
//
// RSS is read after a warm-up (allocator pools, lazily made objects in place, and V8's heap
// grown to its steady size: V8 enlarges its young generation under a request load, which
// takes RSS up by some 25 MB over the first 20,000 requests and then stays, while the live
// heap does not grow) and after a forced GC at the end (the test runs node with
// --expose-gc). The bounds are what a leak would break and steady state does not: a leak of
// even 16 bytes per call would add 16 MB over a million calls, and 1 KB per request 10 MB
// over each window of ten thousand. The live JavaScript heap is checked too (2 MB).
import assert from "node:assert/strict";
import http from "node:http";
import { test } from "node:test";
import * as a2a from "a2a-wire";
import { baseCard } from "./helpers.mjs";

const CODEC_BOUND = 8 * 1024 * 1024;
const SERVED_BOUND = 8 * 1024 * 1024;
const HEAP_BOUND = 2 * 1024 * 1024;
const WARM_UP = 20_000;
const WINDOWS = 3;

function settled() {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage();
}

/**
 * Serves three windows of 10,000 requests after the warm-up; asserts that RSS and the live
 * heap stayed flat over at least one of them. A leak grows every window by the same amount;
 * the allocator's arenas grow in steps of a few MB that land in one window at most (seen with
 * mimalloc, the addon's allocator: +6 MB once between 30,000 and 40,000 requests, then flat).
 */
async function flat(what, client) {
  await burst(client, WARM_UP);
  const rss = [];
  const heap = [];
  let before = settled();
  for (let w = 0; w < WINDOWS; w++) {
    await burst(client, 10_000);
    const after = settled();
    rss.push(after.rss - before.rss);
    heap.push(after.heapUsed - before.heapUsed);
    before = after;
  }
  console.log(`${what}: over each 10,000 requests RSS grew ${rss.join(", ")} bytes, the live heap ${heap.join(", ")} bytes`);
  assert.ok(Math.min(...rss) < SERVED_BOUND, `RSS grew ${rss.join(", ")} bytes in the ${WINDOWS} windows`);
  assert.ok(Math.min(...heap) < HEAP_BOUND, `the live heap grew ${heap.join(", ")} bytes in the ${WINDOWS} windows`);
}

test("a million codec calls keep RSS flat", () => {
  assert.ok(globalThis.gc, "run with --expose-gc");
  const msg = { messageId: "m-1", role: a2a.Role.USER, parts: [{ text: "hello" }, { data: { k: [1, 2] } }], metadata: { trace: "x" } };
  const text = a2a.encode("Message", msg);
  const bad = '{"messageId":"m","role":"ROLE_USER","parts":[{}]}';
  const rounds = (n) => {
    for (let i = 0; i < n; i++) {
      const m = a2a.decode("Message", text);
      a2a.encode("Message", m);
      if (i % 100 === 0) {
        // Errors and the other conversions too: they allocate error objects and paths.
        assert.throws(() => a2a.decode("Message", bad), a2a.MissingFieldError);
        a2a.decode("Message", a2a.encode("Message", m, { format: "protobuf" }), { format: "protobuf" });
        a2a.canonicalize("Message", text);
      }
    }
  };
  rounds(100_000);
  const before = settled().rss;
  rounds(400_000);
  const grown = settled().rss - before;
  console.log(`codec: RSS grew ${grown} bytes over 400,000 decode/encode rounds (800,000 calls)`);
  assert.ok(grown < CODEC_BOUND, `RSS grew ${grown} bytes`);
});

async function agent(ctx, events) {
  // A direct reply: the server keeps no task, so whatever stays is a leak.
  events.message(ctx.text);
}

async function burst(client, n) {
  for (let start = 0; start < n; start += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, i) => client.sendMessage(`m${start + i}`)));
  }
}

test("ten thousand requests on the ready server keep RSS flat", async () => {
  const server = await a2a.serve(agent, { card: baseCard() });
  const c = await a2a.A2AClient.connect(server.url);
  try {
    await flat("ready server", c);
  } finally {
    c.close();
    await server.close();
  }
});

test("ten thousand requests on the node:http service keep RSS flat", async () => {
  const srv = http.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${srv.address().port}`;
  const card = {
    name: "leaks",
    description: "leak test",
    version: "1",
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    capabilities: {},
    supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  };
  const service = new a2a.A2AService(agent, card);
  srv.on("request", service.listener());
  const c = await a2a.A2AClient.connect(base);
  try {
    await flat("node:http service", c);
  } finally {
    c.close();
    await service.close();
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  }
});

// Streams resumed with Last-Event-ID (`streamResumes`): a node:net relay between our client
// and the ready server cuts the streaming connection once, mid-stream. With the default the
// client resumes and every event arrives once, in order; with `streamResumes: 0` the stream
// fails. The option is checked like the package's other numbers.
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, test } from "node:test";
import * as a2a from "a2a-wire";

const CHUNKS = Array.from({ length: 8 }, (_, i) => `chunk ${i} `);

async function agent(ctx, events) {
  events.status(a2a.TaskState.WORKING);
  for (const [i, text] of CHUNKS.entries()) {
    await new Promise((r) => setTimeout(r, 40));
    events.artifact(text, { artifactId: "chunks", append: i > 0, lastChunk: i === CHUNKS.length - 1 });
  }
  events.complete();
}

/**
 * A TCP relay on 127.0.0.1 to `port`. `cutAfter(n)` arms it: the first connection whose
 * answers have carried `n` artifact events so far is closed (both ways) right after them.
 */
async function relay() {
  const sockets = new Set();
  let armed = null;
  let cuts = 0;
  let target = 0;
  const srv = net.createServer((client) => {
    const upstream = net.connect(target, "127.0.0.1");
    sockets.add(client).add(upstream);
    let seen = 0;
    client.on("data", (d) => upstream.write(d));
    upstream.on("data", (d) => {
      client.write(d);
      seen += d.toString("latin1").split('"artifactUpdate"').length - 1;
      if (armed !== null && seen >= armed) {
        armed = null;
        cuts += 1;
        client.destroy();
        upstream.destroy();
      }
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return {
    port: srv.address().port,
    set target(p) { target = p; },
    cutAfter(n) { armed = n; },
    get cuts() { return cuts; },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((r) => srv.close(r));
    },
  };
}

let r;
let server;
before(async () => {
  r = await relay();
  // The card points at the relay, so every call of the client goes through it.
  const card = {
    name: "resumable",
    description: "streams chunks slowly",
    version: "1",
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    supportedInterfaces: [{ url: `http://127.0.0.1:${r.port}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  };
  server = await a2a.serve(agent, { card });
  r.target = Number(new URL(server.url).port);
});
after(async () => {
  await server?.close();
  await r?.close();
});

test("a stream cut mid-way is resumed: every event arrives once, in order", async () => {
  const c = await a2a.A2AClient.connect(`http://127.0.0.1:${r.port}`, { timeoutMs: 20000 });
  const cuts = r.cuts;
  r.cutAfter(3);
  const events = [];
  for await (const e of await c.sendStreamingMessage("go")) events.push(e);
  c.close();
  assert.equal(r.cuts, cuts + 1, "the relay cut the stream");
  const chunks = events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate.artifact.parts[0].text);
  assert.deepEqual(chunks, CHUNKS);
  assert.equal(events.at(-1).statusUpdate?.status.state, a2a.TaskState.COMPLETED);
  assert.equal(events.filter((e) => e.statusUpdate?.status.state === a2a.TaskState.COMPLETED).length, 1);
});

test("with streamResumes: 0 a stream cut mid-way fails", async () => {
  const c = await a2a.A2AClient.connect(`http://127.0.0.1:${r.port}`, { timeoutMs: 20000, streamResumes: 0 });
  const cuts = r.cuts;
  r.cutAfter(3);
  const chunks = [];
  await assert.rejects(
    (async () => {
      for await (const e of await c.sendStreamingMessage("go")) if (e.artifactUpdate) chunks.push(e);
    })(),
    (e) => {
      assert.ok(e instanceof a2a.TransportError, `${e?.name}: ${e?.message}`);
      return true;
    },
  );
  c.close();
  assert.equal(r.cuts, cuts + 1);
  assert.ok(chunks.length >= 1 && chunks.length < CHUNKS.length, `${chunks.length} chunks before the cut`);
});

test("streamResumes is a whole number, 0 or more", async () => {
  const url = `http://127.0.0.1:${r.port}`;
  for (const bad of [-1, 1.5, Number.NaN, Infinity, 2 ** 32]) {
    await assert.rejects(a2a.A2AClient.connect(url, { streamResumes: bad }), (e) => e instanceof RangeError && /streamResumes/.test(e.message));
  }
  await assert.rejects(a2a.A2AClient.connect(url, { streamResumes: "3" }), TypeError);
  const c = await a2a.A2AClient.connect(url, { streamResumes: 2 });
  c.close();
});

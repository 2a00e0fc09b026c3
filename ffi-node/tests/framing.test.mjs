// HTTP/1.1 framing on the Node ready server: the request-smuggling cases of the framing
// table (tests/vectors/http1/framing.json, the file the Rust, C and Python tests read) and
// its controls, as raw bytes on a socket. The ready server reads HTTP/1.1 through the core's
// request reader, so a request with two framings is refused and nothing smuggled in its body
// is ever answered.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import * as a2a from "a2a-wire";
import { VECTORS } from "./helpers.mjs";

const TABLE = JSON.parse(readFileSync(join(VECTORS, "http1", "framing.json"), "utf8"));
const CASES = TABLE.cases.filter((c) => c.tags.includes("smuggling") || c.tags.includes("control"));

const CARD = {
  name: "framing",
  description: "the framing table's server",
  version: "1",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  supportedInterfaces: [],
};

async function agent(ctx, events) {
  events.artifact(ctx.text, { artifactId: "echo", lastChunk: true });
  events.complete();
}

/** A socket whose bytes are read on demand: `more()` resolves false at the end of the stream
 * (a reset after the answer counts as its end). */
function connect(port) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, "127.0.0.1");
    const conn = { sock, buf: Buffer.alloc(0), ended: false, waiters: [] };
    const wake = () => conn.waiters.splice(0).forEach((w) => w());
    sock.on("data", (d) => {
      conn.buf = Buffer.concat([conn.buf, d]);
      wake();
    });
    sock.on("end", () => {
      conn.ended = true;
      wake();
    });
    sock.on("error", () => {
      conn.ended = true;
      wake();
    });
    sock.setTimeout(5000, () => sock.destroy(new Error("timed out")));
    conn.more = () => {
      if (conn.ended) return Promise.resolve(false);
      const had = conn.buf.length;
      return new Promise((r) => conn.waiters.push(() => r(conn.buf.length > had || !conn.ended)));
    };
    sock.once("connect", () => resolve(conn));
    sock.once("error", reject);
  });
}

/** One answer: its status and body (Content-Length or chunked). */
async function readAnswer(conn) {
  while (conn.buf.indexOf("\r\n\r\n") < 0) assert.ok(await conn.more(), `closed before an answer: ${conn.buf}`);
  const end = conn.buf.indexOf("\r\n\r\n") + 4;
  const head = conn.buf.subarray(0, end).toString("latin1");
  conn.buf = conn.buf.subarray(end);
  const status = Number(head.split(" ")[1]);
  const fields = Object.fromEntries(
    head.split("\r\n").slice(1).filter(Boolean).map((l) => [l.slice(0, l.indexOf(":")).trim().toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
  );
  if (status >= 100 && status < 200) return { status, body: "" };
  let body = Buffer.alloc(0);
  if ((fields["transfer-encoding"] ?? "").toLowerCase() === "chunked") {
    for (;;) {
      while (conn.buf.indexOf("\r\n") < 0) assert.ok(await conn.more(), "closed inside a chunked answer");
      const lineEnd = conn.buf.indexOf("\r\n");
      const size = parseInt(conn.buf.subarray(0, lineEnd).toString().split(";")[0], 16);
      while (conn.buf.length < lineEnd + 2 + size + 2) assert.ok(await conn.more(), "closed inside a chunk");
      body = Buffer.concat([body, conn.buf.subarray(lineEnd + 2, lineEnd + 2 + size)]);
      conn.buf = conn.buf.subarray(lineEnd + 2 + size + 2);
      if (size === 0) return { status, body: body.toString() };
    }
  }
  const n = Number(fields["content-length"] ?? 0);
  while (conn.buf.length < n) assert.ok(await conn.more(), "closed inside an answer");
  body = conn.buf.subarray(0, n);
  conn.buf = conn.buf.subarray(n);
  return { status, body: body.toString() };
}

async function runCase(port, rpc, c) {
  const host = `127.0.0.1:${port}`;
  const conn = await connect(port);
  try {
    for (const step of c.steps) {
      if (step.send !== undefined) {
        conn.sock.write(Buffer.from(step.send.replaceAll("{host}", host).replaceAll("{rpc}", rpc), "latin1"));
      } else if (step.status !== undefined) {
        const a = await readAnswer(conn);
        assert.equal(a.status, step.status, `${c.name}: ${a.status} ${a.body}`);
        if (step.body_contains) assert.ok(a.body.includes(step.body_contains), `${c.name}: ${a.body}`);
      } else if (step.closed) {
        while (await conn.more());
        assert.equal(conn.buf.length, 0, `${c.name}: more came after the answer: ${conn.buf}`);
        return;
      } else if (step.open) {
        conn.sock.write(`GET /.well-known/agent-card.json HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
        assert.equal((await readAnswer(conn)).status, 200, `${c.name}: the connection did not stay open`);
      }
    }
  } finally {
    conn.sock.destroy();
  }
}

test("the ready server refuses smuggled requests", async () => {
  assert.ok(CASES.some((c) => c.name === "te-and-cl"));
  const server = await a2a.serve(agent, { card: CARD });
  try {
    const port = Number(new URL(server.url).port);
    const card = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json();
    const rpc = new URL(card.supportedInterfaces.find((i) => i.protocolBinding === "JSONRPC" && i.protocolVersion === "1.0").url).pathname;
    for (const c of CASES) await runCase(port, rpc, c);
    // Still serving after every refusal.
    await runCase(port, rpc, CASES.find((c) => c.name === "pipelined-requests"));
  } finally {
    await server.close();
  }
});

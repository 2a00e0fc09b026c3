// Per-principal authorization from Node: two principals on every operation and interface.
// The two-principal matrix (`a2a-wire-isolation`, tests/src/bin/isolation.rs, built by `make
// node-test`) runs over real sockets against the ready server with `bearerTokens` and against
// the in-process service under node:http with an `authenticate` callback. Principal B tries
// every operation on principal A's tasks and push configs and must get exactly the answer a
// task that does not exist gets; A's tasks stay as A left them.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as a2a from "a2a-wire";
import { REPO, httpServer, baseCard } from "./helpers.mjs";

const MATRIX = process.env.A2A_ISOLATION_BIN ?? join(REPO, "target", "debug", "a2a-wire-isolation");
const TOKENS = { "alice-token": "alice", "bob-token": "bob" };
const CARD = {
  name: "isolation",
  description: "two principals",
  version: "1",
  capabilities: { streaming: true, pushNotifications: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  supportedInterfaces: [],
};

// The two behaviours the matrix needs: a task left waiting, and a finished one.
function agent(ctx, events) {
  if (ctx.text === "need-input" && !ctx.followUp) {
    events.status(a2a.TaskState.INPUT_REQUIRED, "What should I echo?");
    return;
  }
  events.artifact(ctx.text, { artifactId: "echo", lastChunk: true });
  events.complete();
}

function runMatrix(url) {
  accessSync(MATRIX, constants.X_OK);
  return new Promise((resolve) => {
    execFile(MATRIX, ["--url", url, "--token-a", "alice-token", "--token-b", "bob-token"], { timeout: 90000 }, (err, stdout) => {
      const rows = stdout.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
      resolve({ code: err ? err.code : 0, rows });
    });
  });
}

function assertIsolated({ code, rows }, interfaces) {
  assert.deepEqual(rows.filter((r) => !r.ok), []);
  assert.equal(new Set(rows.map((r) => `${r.binding} ${r.version}`)).size, interfaces);
  // Every check ran on every interface.
  assert.equal(rows.length, 14 * interfaces);
  assert.equal(code, 0);
}

test("the ready server with bearerTokens keeps the principals apart", async () => {
  const server = await a2a.serve(agent, { card: CARD, bearerTokens: TOKENS });
  try {
    assert.equal(server.card.securitySchemes.bearer.httpAuthSecurityScheme.scheme, "Bearer");
    assertIsolated(await runMatrix(server.url), 6);
  } finally {
    await server.close();
  }
});

test("the matrix catches two tokens of one principal", async () => {
  const server = await a2a.serve(agent, { card: CARD, bearerTokens: { "alice-token": "alice", "bob-token": "alice" } });
  try {
    const { code, rows } = await runMatrix(server.url);
    assert.equal(code, 1);
    assert.equal(rows.filter((r) => r.check === "get" && !r.ok).length, 6);
  } finally {
    await server.close();
  }
});

test("the node:http service keeps the principals its authenticate callback names apart", async () => {
  const { srv, base, close } = await httpServer();
  const card = {
    ...CARD,
    supportedInterfaces: [
      { url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: `${base}/v03/rpc`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url: `${base}/v03/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
    ],
  };
  const authenticate = (req) => {
    const value = req.headers.get("authorization") ?? "";
    const token = value.startsWith("Bearer ") ? value.slice(7) : "";
    const principal = Object.hasOwn(TOKENS, token) ? TOKENS[token] : undefined;
    if (principal === undefined) throw new a2a.UnauthenticatedError("send a known bearer token");
    return principal;
  };
  const service = new a2a.A2AService(agent, card, { authenticate });
  srv.on("request", service.listener());
  try {
    assertIsolated(await runMatrix(base), 4);
  } finally {
    await service.close();
    await close();
  }
});

test("bearerTokens are checked when the server starts", async () => {
  await assert.rejects(a2a.serve(agent, { card: baseCard(), bearerTokens: {} }), /empty/);
  await assert.rejects(a2a.serve(agent, { card: baseCard(), bearerTokens: { "not a token": "carol" } }), (e) => {
    assert.match(e.message, /token of "carol"/);
    assert.ok(!e.message.includes("not a token"), "the message must not repeat the secret");
    return true;
  });
});

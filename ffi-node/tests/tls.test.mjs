// TLS from Node, with a throwaway CA made at test time (`a2a-wire-testca`, built by `make
// node-test`): the ready server with `tls: {cert, key}` on every binding, our client with
// `caFile` (and refusing what it cannot verify), and the official JS SDK's client
// (tests/interop/js/their_client.mjs, @a2a-js/sdk from npm) against our TLS server on all
// three bindings, in v1.0 and v0.3.
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import * as a2a from "a2a-wire";
import { REPO, baseCard } from "./helpers.mjs";

const TESTCA = process.env.A2A_TESTCA_BIN ?? join(REPO, "target", "debug", "a2a-wire-testca");
const THEIR_CLIENT = join(REPO, "tests", "interop", "js", "their_client.mjs");
const dir = mkdtempSync(join(tmpdir(), "a2a-wire-tls-"));
const files = { cert: join(dir, "server.pem"), key: join(dir, "server.key") };
const ca = join(dir, "ca.pem");
let server;

// The interop matrix's agent: need-input, slow, message-only, echo.
async function demo(ctx, events) {
  if (ctx.followUp) {
    events.artifact(ctx.text, { artifactId: "echo", lastChunk: true });
    events.complete();
  } else if (ctx.text === "need-input") {
    events.status(a2a.TaskState.INPUT_REQUIRED, "What should I echo?");
  } else if (ctx.text === "slow") {
    events.status(a2a.TaskState.WORKING);
    const pieces = ["one ", "two ", "three"];
    for (const [i, piece] of pieces.entries()) {
      await new Promise((r) => setTimeout(r, 50));
      events.artifact(piece, { artifactId: "slow", append: i > 0, lastChunk: i === pieces.length - 1 });
    }
    events.complete();
  } else if (ctx.text === "message-only") {
    events.message(ctx.text);
  } else {
    events.artifact(ctx.text, { artifactId: "echo", lastChunk: true });
    events.complete();
  }
}

before(async () => {
  execFileSync(TESTCA, [dir], { timeout: 60000 });
  server = await a2a.serve(demo, { card: baseCard(), tls: files });
});
after(() => server?.close());

test("our client talks to our TLS server on every binding", async () => {
  assert.match(server.url, /^https:\/\/127\.0\.0\.1:/);
  assert.ok(server.card.supportedInterfaces.every((i) => i.url.startsWith("https://")));
  for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) {
    for (const version of ["1.0", "0.3"]) {
      const c = await a2a.A2AClient.connect(server.url, { bindings: [binding], versions: [version], caFile: ca });
      const reply = await c.sendMessage("hello");
      assert.equal(reply.task?.status.state, a2a.TaskState.COMPLETED, `${binding} ${version}`);
      c.close();
    }
  }
});

test("a certificate that does not verify is a TLSError", async () => {
  const other = mkdtempSync(join(tmpdir(), "a2a-wire-tls-other-"));
  execFileSync(TESTCA, [other], { timeout: 60000 });
  for (const caFile of [undefined, join(other, "ca.pem")]) {
    await assert.rejects(a2a.A2AClient.connect(server.url, { caFile }), (e) => {
      assert.ok(e instanceof a2a.TLSError && e instanceof a2a.TransportError, `${e?.name}: ${e?.message}`);
      // Another CA of the same name fails on its signature, the platform's roots on the issuer.
      assert.match(e.message, /invalid peer certificate|no trusted root/);
      return true;
    });
  }
  await assert.rejects(a2a.serve(demo, { card: baseCard(), tls: { cert: files.cert, key: join(dir, "missing.key") } }), a2a.TLSError);
});

test("the official JS SDK client talks to our TLS server on every binding", async () => {
  const stdout = await new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [THEIR_CLIENT, "--url", server.url, "--ca-file", ca],
      { timeout: 300000, env: { ...process.env, NODE_EXTRA_CA_CERTS: ca }, maxBuffer: 1 << 24 },
      (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
    );
  });
  const rows = stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  // The SDK's own v0.3 quirk (INTEROP.md): its v0.3 HTTP+JSON and gRPC clients drop `append`.
  const quirk = (r) => r.version === "0.3" && r.check === "stream" && (r.binding === "HTTP+JSON" || r.binding === "GRPC");
  assert.deepEqual(rows.filter((r) => !r.ok && !quirk(r)), []);
  assert.equal(new Set(rows.map((r) => `${r.binding} ${r.version}`)).size, 6);
  assert.equal(rows.length, 3 * (9 + 8));
});

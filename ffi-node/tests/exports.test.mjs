// The hand-written typings (index.d.ts) against what the package exports at run time, the
// way stubtest checks the Python stubs: every runtime export is declared, every declared
// value exists, and the ESM entry exports the same names as the CommonJS one.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import * as esm from "a2a-wire";

const require = createRequire(import.meta.url);
const cjs = require("a2a-wire");
const dir = dirname(require.resolve("a2a-wire/package.json"));

/** The value names a .d.ts declares (`export declare const|function|class NAME`). */
function declared(file) {
  const text = readFileSync(join(dir, file), "utf8");
  return new Set([...text.matchAll(/^export declare (?:abstract )?(?:const|function|class) (\w+)/gm)].map((m) => m[1]));
}

test("every runtime export is declared and every declared value exists", () => {
  // model.d.ts declares the enum objects and MESSAGE_NAMES; index.d.ts the rest.
  const types = new Set([...declared("index.d.ts"), ...declared("model.d.ts")]);
  const runtime = new Set(Object.keys(cjs));
  assert.deepEqual([...runtime].filter((k) => !types.has(k)), [], "exported but not declared");
  assert.deepEqual([...types].filter((k) => !runtime.has(k)), [], "declared but not exported");
});

test("ESM and CommonJS export the same objects", () => {
  const names = Object.keys(esm).filter((k) => k !== "default");
  assert.deepEqual(names.sort(), Object.keys(cjs).sort());
  for (const k of names) assert.equal(esm[k], cjs[k], k);
  assert.equal(esm.default, cjs);
});

test("the error classes declared are the core's kinds, each with its wire forms", () => {
  const kinds = Object.values(cjs).filter((v) => typeof v === "function" && v.prototype instanceof cjs.A2AError);
  assert.equal(kinds.length, 17);
  for (const cls of kinds) {
    assert.equal(cjs.A2AError.fromKind(cls.kind), cls);
    assert.equal(typeof cls.code, "number");
    assert.equal(typeof cls.httpStatus, "number");
    assert.equal(typeof cls.grpcStatus, "number");
    const e = new cls();
    assert.equal(e.message, cls.defaultMessage);
    assert.equal(e.toJsonRpc().code, cls.code);
    assert.equal(e.toHttp().status, cls.httpStatus);
  }
});

test("the signing and webhook classes, and CardSignatureError among the client errors", () => {
  assert.ok(cjs.CardSignatureError.prototype instanceof cjs.CardError);
  assert.ok(cjs.CardSignatureError.prototype instanceof cjs.ClientError);
  for (const name of ["SigningKey", "CardKeySet", "WebhookReceiver", "WebhookEndpoint"]) {
    assert.equal(typeof cjs[name], "function", name);
    assert.equal(esm[name], cjs[name], name);
  }
  // Classes of the package, not the native module's: no native internals leak out.
  assert.ok(!Object.keys(cjs).some((k) => k.startsWith("Native")));
});

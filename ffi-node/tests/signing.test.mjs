// Agent Card signatures (spec 8.4) from Node: SigningKey and CardKeySet with both algorithms
// (ES256, EdDSA; keys made at test time with node:crypto), the ready server and the in-process
// service serving signed cards, A2AClient.connect checking them (cardKeys,
// requireSignedCard), and the official JS SDK (@a2a-js/sdk, through
// tests/interop/js/signing.mjs) verifying our signatures and we theirs.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { after, before, describe, test } from "node:test";
import * as a2a from "a2a-wire";
import { REPO } from "./helpers.mjs";

const ALGS = [
  ["ES256", () => generateKeyPairSync("ec", { namedCurve: "P-256" })],
  ["EdDSA", () => generateKeyPairSync("ed25519")],
];
const dir = mkdtempSync(join(tmpdir(), "a2a-wire-signing-"));

/** A fresh private JWK of `alg` named `kid` (and its node:crypto pair). */
function privateJwk(alg, kid) {
  const pair = ALGS.find(([a]) => a === alg)[1]();
  return { jwk: { ...pair.privateKey.export({ format: "jwk" }), kid }, pair };
}

const CARD = {
  name: "signed",
  description: "a card to sign",
  version: "1",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  supportedInterfaces: [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
};

function echo(ctx, events) {
  events.artifact(ctx.text, { artifactId: "echo", lastChunk: true });
  events.complete();
}

for (const [alg] of ALGS) {
  describe(`${alg} keys`, () => {
    const { jwk } = privateJwk(alg, `${alg}-1`);
    const key = a2a.SigningKey.fromJwk(jwk);
    const other = a2a.SigningKey.fromJwk(privateJwk(alg, `${alg}-2`).jwk);
    // Another key under the same kid: found by kid, refused by the signature.
    const impostor = a2a.SigningKey.fromJwk(privateJwk(alg, `${alg}-1`).jwk);

    test("sign and verify, with the kid and the jku carried", () => {
      assert.equal(key.alg, alg);
      assert.equal(key.kid, `${alg}-1`);
      const signed = key.signCard(CARD, { jku: "https://keys.example/jwks.json" });
      assert.equal(signed.signatures.length, 1);
      assert.equal(signed.name, CARD.name);
      const header = JSON.parse(Buffer.from(signed.signatures[0].protected, "base64url").toString());
      assert.deepEqual([header.alg, header.kid, header.jku], [alg, `${alg}-1`, "https://keys.example/jwks.json"]);
      const v = new a2a.CardKeySet([key]).verifyCard(signed);
      assert.deepEqual(v, { index: 0, kid: `${alg}-1`, alg, jku: "https://keys.example/jwks.json", form: "spec" });
      // A second signature by another key: the set that trusts only that key finds it.
      const twice = other.signCard(signed);
      assert.equal(twice.signatures.length, 2);
      assert.equal(new a2a.CardKeySet([other]).verifyCard(twice).index, 1);
      // Without a jku, none in the header.
      assert.equal(new a2a.CardKeySet([key]).verifyCard(key.signCard(CARD)).jku, null);
    });

    test("the public half verifies: a JWK object, a JWKS document, add()", () => {
      const signed = key.signCard(CARD);
      const pub = key.publicJwk();
      assert.equal(pub.d, undefined, "the public JWK has no private part");
      assert.deepEqual([pub.kid, pub.alg, pub.use], [`${alg}-1`, alg, "sig"]);
      assert.equal(new a2a.CardKeySet([pub]).verifyCard(signed).kid, key.kid);
      assert.equal(a2a.CardKeySet.fromJwks({ keys: [other.publicJwk(), pub] }).verifyCard(signed).kid, key.kid);
      assert.equal(a2a.CardKeySet.fromJwks(JSON.stringify(pub)).verifyCard(signed).kid, key.kid);
      const set = new a2a.CardKeySet();
      assert.equal(set.add(other).add(pub), set);
      assert.equal(set.verifyCard(signed).kid, key.kid);
    });

    test("a tampered card, another key, an impostor under the same kid and an unsigned card are refused", () => {
      const signed = key.signCard(CARD);
      const keys = new a2a.CardKeySet([key]);
      const refused = (card, set, pattern) =>
        assert.throws(() => set.verifyCard(card), (e) => {
          assert.ok(e instanceof a2a.CardSignatureError && e instanceof a2a.CardError && e instanceof a2a.ClientError, `${e}`);
          assert.match(e.message, pattern);
          return true;
        });
      refused({ ...signed, description: "changed after signing" }, keys, /does not match the card/);
      refused(signed, new a2a.CardKeySet([other]), new RegExp(`no trusted key has kid ${alg}-1`));
      refused(signed, new a2a.CardKeySet([impostor]), /does not match the card/);
      refused(CARD, keys, /not signed/);
    });
  });
}

test("the private key never shows", () => {
  const { jwk } = privateJwk("ES256", "secret-key");
  const key = a2a.SigningKey.fromJwk(jwk);
  for (const shown of [inspect(key, { showHidden: true, depth: 5 }), JSON.stringify(key), String(key), JSON.stringify(key.publicJwk())]) {
    assert.ok(!shown.includes(jwk.d), shown);
  }
  assert.match(inspect(key), /SigningKey \{ alg: 'ES256', kid: 'secret-key' \}/);
  assert.throws(() => new a2a.SigningKey(), TypeError);
});

test("keys from PEM and from files", () => {
  const { jwk, pair } = privateJwk("ES256", "from-jwk");
  const pem = pair.privateKey.export({ format: "pem", type: "pkcs8" });
  const fromPem = a2a.SigningKey.fromPem(pem, "pem-kid");
  assert.deepEqual([fromPem.alg, fromPem.kid], ["ES256", "pem-kid"]);
  assert.equal(a2a.SigningKey.fromPem(Buffer.from(pem), "bytes").kid, "bytes");
  // The same key, however it was read: the JWK's public half verifies the PEM key's signature.
  const signed = fromPem.signCard(CARD);
  assert.equal(new a2a.CardKeySet([{ ...a2a.SigningKey.fromJwk(jwk).publicJwk(), kid: "pem-kid" }]).verifyCard(signed).kid, "pem-kid");

  writeFileSync(join(dir, "key.pem"), pem);
  writeFileSync(join(dir, "key.jwk"), JSON.stringify(jwk));
  writeFileSync(join(dir, "jwks.json"), JSON.stringify({ keys: [fromPem.publicJwk()] }));
  assert.equal(a2a.SigningKey.fromFile(join(dir, "key.pem"), "file-kid").kid, "file-kid");
  assert.equal(a2a.SigningKey.fromFile(join(dir, "key.jwk")).kid, "from-jwk");
  assert.equal(a2a.SigningKey.fromFile(join(dir, "key.jwk"), "renamed").kid, "renamed");
  assert.equal(a2a.CardKeySet.fromFile(join(dir, "jwks.json")).verifyCard(signed).kid, "pem-kid");
  assert.throws(() => a2a.SigningKey.fromFile(join(dir, "key.pem")), (e) => e instanceof TypeError && /needs a kid/.test(e.message));
  assert.throws(() => a2a.SigningKey.fromFile(join(dir, "missing.pem"), "k"), (e) => e.code === "ENOENT");
  assert.throws(() => a2a.CardKeySet.fromFile(join(dir, "key.pem")), (e) => e instanceof TypeError && e.message.includes("key.pem"));
});

test("bad key material is a TypeError that says what is wrong", () => {
  const bad = (fn, pattern) => assert.throws(fn, (e) => e instanceof TypeError && pattern.test(e.message) || assert.fail(`${e?.name}: ${e?.message}`));
  const { jwk } = privateJwk("EdDSA", "k");
  bad(() => a2a.SigningKey.fromJwk("{"), /not a JWK/);
  bad(() => a2a.SigningKey.fromJwk({ ...jwk, kid: undefined }), /no kid/);
  bad(() => a2a.SigningKey.fromJwk({ ...jwk, d: undefined }), /no d/);
  bad(() => a2a.SigningKey.fromJwk({ kty: "RSA", n: "AQAB", e: "AQAB", d: "AQAB", kid: "r" }), /neither EC P-256/);
  bad(() => a2a.SigningKey.fromJwk({ ...jwk, alg: "ES256" }), /alg ES256/);
  bad(() => a2a.SigningKey.fromJwk(42), /expected JSON text or an object/);
  bad(() => a2a.SigningKey.fromPem("not a pem", "k"), /.+/);
  bad(() => a2a.SigningKey.fromPem(generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }), ""), /kid/);
  bad(() => a2a.CardKeySet.fromJwks({ keys: "none" }), /not a list/);
  bad(() => a2a.CardKeySet.fromJwks({ keys: [] }), /no key/);
  bad(() => new a2a.CardKeySet([42]), /SigningKey or a public JWK/);
  bad(() => new a2a.CardKeySet({ keys: [] }), /iterable/);
  bad(() => a2a.SigningKey.fromJwk(jwk).signCard("not a card"), /AgentCard object/);
  // A card the model refuses is not signed: the field is named.
  assert.throws(() => a2a.SigningKey.fromJwk(jwk).signCard({ ...CARD, name: undefined }), a2a.MissingFieldError);
});

describe("signed cards over the wire", () => {
  const key = a2a.SigningKey.fromJwk(privateJwk("ES256", "server-key").jwk);
  const stranger = a2a.SigningKey.fromJwk(privateJwk("ES256", "stranger").jwk);
  let signedServer;
  let plainServer;
  before(async () => {
    signedServer = await a2a.serve(echo, { card: { ...CARD, supportedInterfaces: [] }, signingKey: key, cardJku: "https://keys.example/jwks.json" });
    plainServer = await a2a.serve(echo, { card: { ...CARD, supportedInterfaces: [] } });
  });
  after(async () => {
    await signedServer?.close();
    await plainServer?.close();
  });

  test("the ready server's card is signed after its interfaces are filled in", async () => {
    const card = await (await fetch(`${signedServer.url}${a2a.CARD_PATH}`)).json();
    assert.equal(card.supportedInterfaces.length, 6);
    const v = new a2a.CardKeySet([key.publicJwk()]).verifyCard(card, { specFormOnly: true });
    assert.deepEqual([v.kid, v.jku], ["server-key", "https://keys.example/jwks.json"]);
    assert.deepEqual(signedServer.card.signatures, card.signatures);
  });

  test("connect with cardKeys accepts it, another key set is refused", async () => {
    const c = await a2a.A2AClient.connect(signedServer.url, { cardKeys: new a2a.CardKeySet([key]), requireSignedCard: true });
    assert.equal((await c.sendMessage("signed hello")).task.status.state, a2a.TaskState.COMPLETED);
    assert.equal(c.card.signatures.length, 1);
    c.close();
    await assert.rejects(a2a.A2AClient.connect(signedServer.url, { cardKeys: new a2a.CardKeySet([stranger]) }), (e) => {
      assert.ok(e instanceof a2a.CardSignatureError && e instanceof a2a.CardError, `${e?.name}: ${e?.message}`);
      assert.match(e.message, /no trusted key has kid server-key/);
      return true;
    });
  });

  test("an unsigned card: accepted with keys unless a signature is required", async () => {
    const c = await a2a.A2AClient.connect(plainServer.url, { cardKeys: new a2a.CardKeySet([key]) });
    c.close();
    await assert.rejects(
      a2a.A2AClient.connect(plainServer.url, { cardKeys: new a2a.CardKeySet([key]), requireSignedCard: true }),
      (e) => e instanceof a2a.CardSignatureError && /not signed/.test(e.message),
    );
    await assert.rejects(
      a2a.A2AClient.connect(plainServer.url, { requireSignedCard: true }),
      (e) => e instanceof a2a.CardSignatureError && /no card keys/.test(e.message),
    );
    await assert.rejects(a2a.A2AClient.connect(plainServer.url, { cardKeys: [key] }), TypeError);
    await assert.rejects(a2a.A2AClient.connect(plainServer.url, { requireSignedCard: "yes" }), TypeError);
  });

  test("A2AService serves its card and extended card signed", async () => {
    const withExtended = { ...CARD, capabilities: { extendedAgentCard: true } };
    const service = new a2a.A2AService(echo, withExtended, {
      signingKey: key,
      cardJku: "https://keys.example/jwks.json",
      extendedCard: { ...withExtended, name: "extended" },
      authenticate: () => "alice",
    });
    try {
      const card = await (await service.fetch(new Request(`http://127.0.0.1:1${a2a.CARD_PATH}`))).json();
      assert.equal(new a2a.CardKeySet([key]).verifyCard(card).jku, "https://keys.example/jwks.json");
      assert.deepEqual(service.card.signatures, card.signatures);
      const r = await service.fetch(
        new Request("http://127.0.0.1:1/a2a", {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": "1.0" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard", params: {} }),
        }),
      );
      const body = await r.json();
      const extended = body.result;
      assert.equal(extended?.name, "extended", JSON.stringify(body));
      assert.equal(new a2a.CardKeySet([key]).verifyCard(extended).kid, "server-key");
    } finally {
      await service.close();
    }
    assert.throws(() => new a2a.A2AService(echo, CARD, { signingKey: key.publicJwk() }), TypeError);
  });
});

// ---------------------------------------------------------------- the official JS SDK

const SDK_SIGNING = join(REPO, "tests", "interop", "js", "signing.mjs");

function sdk(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [SDK_SIGNING, ...args], { cwd: join(REPO, "tests", "interop", "js"), timeout: 60000 }, (err, stdout, stderr) =>
      resolve({ ok: !err, out: `${stdout}${stderr}` }),
    );
  });
}

test("the official JS SDK verifies our signatures, and we verify its", async () => {
  // The vectors' card (tests/vectors/signing): the same the interop run signs.
  const card = JSON.parse(readFileSync(join(REPO, "tests", "vectors", "signing", "payloads.json"), "utf8")).cards.card;
  writeFileSync(join(dir, "card.json"), JSON.stringify(card));
  for (const [alg] of ALGS) {
    const { jwk } = privateJwk(alg, `sdk-${alg}`);
    const key = a2a.SigningKey.fromJwk({ ...jwk, alg });
    writeFileSync(join(dir, `${alg}.jwk`), JSON.stringify({ ...jwk, alg }));
    writeFileSync(join(dir, `${alg}.jwks`), JSON.stringify({ keys: [key.publicJwk()] }));
    const ours = join(dir, `ours-${alg}.json`);
    writeFileSync(ours, JSON.stringify(key.signCard(card)));
    const verified = await sdk(["verify", join(dir, `${alg}.jwks`), ours]);
    assert.ok(verified.ok && /verified/.test(verified.out), `the SDK refused our ${alg} signature: ${verified.out}`);
    // A tampered copy: the SDK refuses it too (so its yes above means something).
    const tampered = join(dir, `tampered-${alg}.json`);
    writeFileSync(tampered, JSON.stringify({ ...JSON.parse(readFileSync(ours, "utf8")), description: "changed" }));
    assert.ok(!(await sdk(["verify", join(dir, `${alg}.jwks`), tampered])).ok, `the SDK took a tampered ${alg} card`);

    const theirs = join(dir, `theirs-${alg}.json`);
    const signed = await sdk(["sign", join(dir, `${alg}.jwk`), join(dir, "card.json"), theirs]);
    assert.ok(signed.ok, signed.out);
    const theirCard = JSON.parse(readFileSync(theirs, "utf8"));
    const v = new a2a.CardKeySet([key]).verifyCard(theirCard);
    assert.equal(v.kid, `sdk-${alg}`);
    assert.equal(v.form, "spec");
    if (alg === "EdDSA") {
      // Ed25519 is deterministic: the same key over the same payload and header signs the same bytes.
      assert.deepEqual(key.signCard(card).signatures, theirCard.signatures);
    }
  }
});

test("a signature over the SDKs' payload form verifies as \"sdk\", and not with specFormOnly", async () => {
  // A security requirement without scopes: the SDKs leave it out of what they sign, spec
  // 8.4.1 keeps it (INTEROP.md), so their signature covers the other payload.
  const card = JSON.parse(readFileSync(join(REPO, "tests", "vectors", "signing", "payloads.json"), "utf8")).cards["card-empty-scopes"];
  writeFileSync(join(dir, "card-empty-scopes.json"), JSON.stringify(card));
  const { jwk } = privateJwk("ES256", "sdk-form");
  writeFileSync(join(dir, "sdk-form.jwk"), JSON.stringify({ ...jwk, alg: "ES256" }));
  const theirs = join(dir, "theirs-empty-scopes.json");
  const signed = await sdk(["sign", join(dir, "sdk-form.jwk"), join(dir, "card-empty-scopes.json"), theirs]);
  assert.ok(signed.ok, signed.out);
  const theirCard = JSON.parse(readFileSync(theirs, "utf8"));
  const keys = new a2a.CardKeySet([a2a.SigningKey.fromJwk(jwk)]);
  assert.equal(keys.verifyCard(theirCard).form, "sdk");
  assert.throws(() => keys.verifyCard(theirCard, { specFormOnly: true }), a2a.CardSignatureError);
});

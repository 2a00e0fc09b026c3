// Extended Agent Cards per identity: alice and bob have cards of their own, carol (known, but
// without one) gets the default extended card, an anonymous caller gets an error. On the
// ready server the principals come from `bearerTokens`; on A2AService from its
// `authenticate` callback.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as a2a from "a2a-wire";
import { httpServer, baseCard } from "./helpers.mjs";

const TOKENS = { "alice-token": "alice", "bob-token": "bob", "carol-token": "carol" };
const CARD = {
  name: "public",
  description: "the card everybody sees",
  version: "1",
  capabilities: { streaming: true, extendedAgentCard: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  supportedInterfaces: [],
};
const named = (name, extra = {}) => ({ ...CARD, name, description: `${name}'s card`, ...extra });

function agent(ctx, events) {
  events.complete();
}

/** The extended card each principal's client gets (or the error class name). */
async function cardsSeen(url, bindings) {
  const seen = {};
  for (const binding of bindings) {
    for (const [token, principal] of [...Object.entries(TOKENS), [null, "anonymous"]]) {
      const headers = token === null ? {} : { authorization: `Bearer ${token}` };
      const c = await a2a.A2AClient.connect(url, { bindings: [binding], versions: ["1.0"], headers });
      try {
        const card = await c.getExtendedAgentCard();
        seen[`${binding} ${principal}`] = card.name;
      } catch (e) {
        seen[`${binding} ${principal}`] = e.constructor.name;
      } finally {
        c.close();
      }
    }
  }
  return seen;
}

function expected(bindings) {
  const want = {};
  for (const b of bindings) {
    Object.assign(want, {
      [`${b} alice`]: "alice-only",
      [`${b} bob`]: "bob-only",
      [`${b} carol`]: "default-extended",
      [`${b} anonymous`]: "UnauthenticatedError",
    });
  }
  return want;
}

test("the ready server gives each bearer-token principal exactly its extended card", async () => {
  const server = await a2a.serve(agent, {
    card: CARD,
    bearerTokens: TOKENS,
    extendedCard: named("default-extended"),
    extendedCards: { alice: named("alice-only", { skills: [{ id: "a", name: "a", description: "alice's skill", tags: ["a"] }] }), bob: named("bob-only") },
  });
  try {
    const bindings = ["JSONRPC", "HTTP+JSON", "GRPC"];
    assert.deepEqual(await cardsSeen(server.url, bindings), expected(bindings));
    // Interfaces filled in and the bearer scheme declared on the extended cards too.
    const c = await a2a.A2AClient.connect(server.url, { headers: { authorization: "Bearer alice-token" } });
    const alice = await c.getExtendedAgentCard();
    c.close();
    assert.equal(alice.supportedInterfaces.length, 6);
    assert.equal(alice.securitySchemes.bearer.httpAuthSecurityScheme.scheme, "Bearer");
    assert.equal(alice.skills[0].id, "a");
  } finally {
    await server.close();
  }
});

test("A2AService gives each principal its authenticate callback names exactly its extended card", async () => {
  const h = await httpServer();
  const card = {
    ...CARD,
    supportedInterfaces: [
      { url: `${h.base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${h.base}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ],
  };
  const withInterfaces = (c) => ({ ...c, supportedInterfaces: card.supportedInterfaces });
  const authenticate = (req) => {
    const value = req.headers.get("authorization") ?? "";
    if (value === "") return a2a.ANONYMOUS; // let in without a principal (so no extended card)
    const principal = TOKENS[value.replace(/^Bearer /, "")];
    if (principal === undefined) throw new a2a.UnauthenticatedError("unknown token");
    return principal;
  };
  const service = new a2a.A2AService(agent, card, {
    authenticate,
    extendedCard: withInterfaces(named("default-extended")),
    extendedCards: { alice: withInterfaces(named("alice-only")), bob: withInterfaces(named("bob-only")) },
  });
  h.srv.on("request", service.listener());
  try {
    const bindings = ["JSONRPC", "HTTP+JSON"];
    assert.deepEqual(await cardsSeen(h.base, bindings), expected(bindings));
  } finally {
    await service.close();
    await h.close();
  }
});

test("a bad extended card is named when the server starts", async () => {
  await assert.rejects(
    a2a.serve(agent, { card: baseCard(), bearerTokens: TOKENS, extendedCards: { bob: { ...named("bob"), description: undefined } } }),
    (e) => e instanceof a2a.MissingFieldError && e.path === 'extendedCards["bob"].description' || assert.fail(`${e?.name}: ${e?.message} (${e?.path})`),
  );
  assert.throws(() => new a2a.A2AService(agent, { ...CARD, supportedInterfaces: [{ url: "http://x/a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }] }, { extendedCards: { bob: 5 } }), TypeError);
  await assert.rejects(a2a.serve(agent, { card: baseCard(), extendedCards: ["not", "a", "map"] }), TypeError);
});

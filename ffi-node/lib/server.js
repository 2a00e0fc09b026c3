"use strict";
// The ready server: the Rust transport (HTTP/1.1 and HTTP/2; JSON-RPC, HTTP+JSON and gRPC;
// v1.0 and v0.3; SSE; the Agent Card) on threads of its own. JavaScript runs only the agent:
// each run arrives through a thread-safe call, its events go back without waiting, and the
// event loop is never blocked by the server.

const native = require("../native.js");
const { call, translate } = require("./errors.js");
const { Runner } = require("./agent.js");
const { SigningKey } = require("./signing.js");
const { cardsByPrincipal, stringList, cacheMb, retainOption } = require("./service.js");
const { AuthRequest, headersOf, splitTarget, checkAuthenticate, judge } = require("./auth.js");

function guarded(fn) {
  try {
    fn();
  } catch (e) {
    console.error("a2a-wire: the ready server's callback failed:", e);
  }
}

/** Judges one call of the ready server with `authenticate` and answers it. */
function judgeCall(authenticate, c) {
  const [path, query] = splitTarget(c.target);
  const peer = c.peerAddress == null ? null : { address: c.peerAddress, port: c.peerPort };
  const req = new AuthRequest({
    method: c.method, path, query, headers: headersOf(c.headers), peer,
    operation: c.operation, binding: c.binding, version: c.version, tenant: c.tenant, request: null,
  });
  judge(authenticate, req).then(({ principal, error }) => {
    c.answer(error === undefined ? principal : null, error === undefined ? undefined : JSON.stringify(error));
  });
}

/** A running server; `serve()` makes one. */
class AgentServer {
  #native;
  #runner;
  #stopped = null;
  constructor(n, runner) {
    this.#native = n;
    this.#runner = runner;
  }
  /** `http://HOST:PORT`; the card is at `URL/.well-known/agent-card.json`. */
  get url() { return this.#native.url; }
  /** The card the server publishes. */
  get card() { return JSON.parse(this.#native.card); }
  /**
   * Stops: open streams end, running runs are canceled (their `ctx.signal` aborts); resolves
   * once the server has stopped and no longer holds the event loop.
   */
  close() {
    this.#stopped ??= this.#native.stop().then(
      () => this.#runner.cancelAll(),
      (e) => { throw translate(e); },
    );
    return this.#stopped;
  }
  async [Symbol.asyncDispose]() {
    await this.close();
  }
}

/**
 * Serves `agent` (an async function `(ctx, events)` or an object with `execute`, and
 * optionally `cancelTask(ctx, events)`) on `host:port` (default 127.0.0.1, port 0: a free
 * one). `card` (required) is the AgentCard to publish; one rule for its interfaces, the same
 * in every binding: a card without `supportedInterfaces` gets the six the server speaks at
 * its address (JSON-RPC, HTTP+JSON and gRPC, v1.0 and v0.3), and a card that lists some is
 * served as given. `onError(err, ctx)` gets what an agent threw. `authenticate(req)` judges
 * every call (see `lib/auth.js`: `req` has the method, path, every header and the peer; it
 * returns the principal, `null` for 401, or rejects with `status: 403`; it may be async).
 * `bearerTokens` (an object, token to principal) is the shortcut for a fixed table (give one
 * of the two): every call needs `Authorization: Bearer TOKEN` for one of the tokens and the
 * card declares the scheme. Either way each principal sees only the tasks and push configs
 * it made (another's are answered as if they did not exist); `ctx.principal` names the
 * caller. `tls` (`{cert, key}`, PEM files)
 * makes it speak HTTPS only, its card listing `https://` URLs. `extendedCard` is served to
 * every authenticated caller (a principal of `bearerTokens`) and `extendedCards` (principal
 * to card) to the principals it names. `signingKey` (a SigningKey) signs the card and the
 * extended cards, last, with `cardJku` in each signature's header. Push notifications:
 * `allowWebhooks` (hosts, addresses and CIDR networks the SSRF guard lets through although
 * not public: local development), `allowPrivateWebhooks` (every loopback and private address,
 * for tests), `webhookCaFile` (PEM: the CAs `https://` receivers are verified against;
 * default the platform's roots). Tasks are kept in memory unless `store` names a SQLite file
 * (created if missing) or a PostgreSQL database (`postgres://USER[:PASS]@HOST:PORT/DB`):
 * then they outlive the process, and memory holds the tasks in use plus about `cacheMb` MiB
 * (default 64) of others. `retain` (milliseconds, or a string like
 * `"90s"`, `"12h"`, `"30d"`) deletes each completed, canceled, failed or rejected task whose
 * last change is older; it then answers as a task that never existed (tasks still working or
 * waiting for input are never deleted). `publicUrl` (`https://HOST[:PORT]`, a load
 * balancer's origin) is what the card's interfaces name instead of the listening address
 * (`url` stays where the server listens). Resolves once it listens.
 */
async function serve(agent, options = {}) {
  const { host = "127.0.0.1", port = 0, card = null, bearerTokens = null, tls = null, onError, authenticate = null } = options;
  if (card == null || typeof card !== "object") {
    throw new TypeError("serve: the card option is required: the AgentCard to publish ({name, description, version, ...}; its supportedInterfaces may stay empty, they are filled in)");
  }
  checkAuthenticate(authenticate);
  if (authenticate != null && bearerTokens != null) {
    throw new TypeError("serve: give bearerTokens or authenticate, not both (the tokens are an authenticator of their own)");
  }
  const runner = new Runner(agent, onError);
  const settings = {
    bearerTokens: bearerTokens == null ? undefined : { ...bearerTokens },
    tls: tls == null ? undefined : { cert: String(tls.cert), key: String(tls.key) },
    extendedCard: options.extendedCard == null ? undefined : JSON.stringify(options.extendedCard),
    extendedCards: cardsByPrincipal(options.extendedCards),
    cardJku: options.cardJku == null ? undefined : String(options.cardJku),
    allowWebhooks: stringList(options.allowWebhooks, "allowWebhooks"),
    allowPrivateWebhooks: options.allowPrivateWebhooks ?? false,
    webhookCaFile: options.webhookCaFile == null ? undefined : String(options.webhookCaFile),
    store: options.store == null ? undefined : String(options.store),
    cacheMb: cacheMb(options.cacheMb),
    retain: retainOption(options.retain),
    publicUrl: options.publicUrl == null ? undefined : String(options.publicUrl),
  };
  const key = SigningKey._native(options.signingKey);
  const n = call(
    () =>
      new native.ReadyServer(
        host,
        port,
        JSON.stringify(card),
        settings,
        key ?? undefined,
        // Called from the event loop by the transport's threads: nothing may escape them.
        (run) => guarded(() => runner.start(run)),
        (id) => guarded(() => runner.cancel(id)),
        authenticate == null ? undefined : (c) => guarded(() => judgeCall(authenticate, c)),
      ),
  );
  return new AgentServer(n, runner);
}

module.exports = { serve, AgentServer };

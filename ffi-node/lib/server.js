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

function guarded(fn) {
  try {
    fn();
  } catch (e) {
    console.error("a2a-wire: the ready server's callback failed:", e);
  }
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
 * Serves `agent` (an async function `(ctx, events)` or an object with `execute`) on
 * `host:port` (default 127.0.0.1, port 0: a free one). `card` (optional) is the AgentCard to
 * publish: its interfaces are replaced by the six the server speaks at its address (JSON-RPC,
 * HTTP+JSON and gRPC, v1.0 and v0.3); without it, a card of the demo agent's shape is used.
 * `onError(err, ctx)` gets what an agent threw. `bearerTokens` (an object, token to
 * principal) makes every call need `Authorization: Bearer TOKEN` for one of the tokens: the
 * card declares the scheme, a call without a known token gets the A2A unauthenticated error,
 * and each principal sees only the tasks and push configs it made (another's are answered as
 * if they did not exist); `ctx.principal` names the caller. `tls` (`{cert, key}`, PEM files)
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
  const { host = "127.0.0.1", port = 0, card = null, bearerTokens = null, tls = null, onError } = options;
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
        card == null ? null : JSON.stringify(card),
        settings,
        key ?? undefined,
        // Called from the event loop by the transport's threads: nothing may escape them.
        (run) => guarded(() => runner.start(run)),
        (id) => guarded(() => runner.cancel(id)),
      ),
  );
  return new AgentServer(n, runner);
}

module.exports = { serve, AgentServer };

"use strict";
// The A2A service in your own HTTP stack (sans-IO): one handler on web-standard Request ->
// Response (Hono, Bun-style servers, anything with fetch semantics), an Express / connect
// middleware, and a node:http listener. Every protocol decision is the Rust core's sans-IO
// service; this file moves bytes between it and the framework.
//
// gRPC needs HTTP/2 trailers, which neither Request/Response nor Express give: serve gRPC
// with the ready server (`serve`) instead. The service sees request paths as the client sent
// them (they are matched against the card's URLs), so a card mounted under a prefix lists
// URLs with that prefix; the card itself is served at `/.well-known/agent-card.json`.

const native = require("../native.js");
const { call, CONSTANTS } = require("./errors.js");
const { AuthRequest, headersOf, splitTarget, checkAuthenticate, judge } = require("./auth.js");
const { Runner } = require("./agent.js");
const { SigningKey } = require("./signing.js");
const { TaskStore } = require("./store.js");

/** Where the Agent Card is served (the core's path). */
const CARD_PATH = CONSTANTS.cardPath;
/** Bytes of a stream a slow client may leave unsent before it is cut off (it then resubscribes). */
const STREAM_BUFFER = 4 * 1024 * 1024;
const NULL_BODY = new Set([101, 204, 205, 304]);

/** `{principal: AgentCard}` as principal -> ProtoJSON text (undefined when absent). */
function cardsByPrincipal(cards) {
  if (cards == null) return undefined;
  if (typeof cards !== "object" || Array.isArray(cards)) throw new TypeError("extendedCards: expected an object of principal -> AgentCard");
  const out = {};
  for (const [principal, card] of Object.entries(cards)) {
    if (card === null || typeof card !== "object") throw new TypeError(`extendedCards[${JSON.stringify(principal)}]: expected an AgentCard object`);
    out[principal] = JSON.stringify(card);
  }
  return out;
}

/** A list of strings (undefined when absent). */
function stringList(list, what) {
  if (list == null) return undefined;
  if (typeof list === "string" || typeof list[Symbol.iterator] !== "function") throw new TypeError(`${what}: expected an array of strings`);
  return [...list].map((x) => {
    if (typeof x !== "string") throw new TypeError(`${what}: expected an array of strings, found a ${typeof x}`);
    return x;
  });
}

/** `cacheMb` checked (undefined when absent). */
function cacheMb(v) {
  if (v == null) return undefined;
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`cacheMb: a whole number of MiB, got ${v}`);
  return v;
}

/** `retain` as the native duration text (undefined when absent). */
function retainOption(v) {
  if (v == null) return undefined;
  if (typeof v === "number") {
    if (!Number.isInteger(v) || v <= 0) throw new RangeError(`retain: a positive whole number of milliseconds, got ${v}`);
    return `${v}ms`;
  }
  if (typeof v === "string") return v;
  throw new TypeError(`retain: milliseconds or a string like "30d", got ${typeof v}`);
}

function pairs(flat) {
  const out = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

function hasHeader(flat, name) {
  for (let i = 0; i < flat.length; i += 2) if (flat[i].toLowerCase() === name) return true;
  return false;
}

/** Reads a Node request body, stopping one byte past `limit` (the service then refuses it). */
function readNodeBody(req, limit) {
  if (Buffer.isBuffer(req.body)) return Promise.resolve(req.body);
  if (typeof req.body === "string") return Promise.resolve(Buffer.from(req.body));
  if (req.readableEnded && req.body !== undefined) {
    // A body parser that ran first (express.json()) consumed the stream: its object is all
    // that is left. Mount the A2A middleware before body parsers to serve the exact bytes.
    return Promise.resolve(Buffer.from(JSON.stringify(req.body)));
  }
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      if (size > limit) return;
      size += c.length;
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Where one call's answer goes (a web Response, or a Node ServerResponse). */
class WebSink {
  constructor(service, callId, head) {
    this.service = service;
    this.call = callId;
    this.head = head === "HEAD";
    this.promise = new Promise((resolve) => (this.resolve = resolve));
    this.controller = null;
  }
  answer(status, headers, body) {
    const b = this.head || NULL_BODY.has(status) ? null : body;
    this.resolve(new Response(b, { status, headers: pairs(headers) }));
  }
  streamHead(status, headers) {
    const self = this;
    const body = new ReadableStream({
      start(c) { self.controller = c; },
      cancel() { self.service._gone(self.call); },
    }, { highWaterMark: STREAM_BUFFER, size: (chunk) => chunk.byteLength });
    this.resolve(new Response(body, { status, headers: pairs(headers) }));
  }
  frame(bytes) {
    if (this.controller === null) return;
    this.controller.enqueue(bytes);
    if (this.controller.desiredSize !== null && this.controller.desiredSize <= 0) this.service._slow(this.call);
  }
  end(bytes) {
    if (this.controller === null) return;
    if (bytes.length) this.controller.enqueue(bytes);
    this.controller.close();
    this.controller = null;
  }
}

class NodeSink {
  constructor(service, callId, req, res) {
    this.service = service;
    this.call = callId;
    this.head = req.method === "HEAD";
    this.res = res;
    this.done = false;
    res.on("close", () => {
      if (!this.done) service._gone(callId);
    });
  }
  answer(status, headers, body) {
    this.done = true;
    const noBody = NULL_BODY.has(status);
    // The length is known: say it (Node would otherwise send the answer chunked). A HEAD
    // answer carries the length of the body it leaves out.
    if (!noBody && !hasHeader(headers, "content-length")) headers.push("content-length", String(body.length));
    this.res.writeHead(status, headers);
    this.res.end(this.head || noBody ? undefined : body);
  }
  streamHead(status, headers) {
    this.res.writeHead(status, headers);
    this.res.flushHeaders?.();
  }
  frame(bytes) {
    this.res.write(bytes);
    if (this.res.writableLength > STREAM_BUFFER) this.service._slow(this.call);
  }
  end(bytes) {
    this.done = true;
    this.res.end(bytes.length ? bytes : undefined);
  }
}

/**
 * The A2A service of `agent` (see `agent.js`) under `card` (an AgentCard object whose
 * interfaces point at this server: JSON-RPC and HTTP+JSON, v1.0 and v0.3).
 *
 * Options: `extendedCard`, and `extendedCards` (principal to card: a principal listed gets
 * its own, every other authenticated caller `extendedCard`); `authenticate(req)` judges
 * every call (see `lib/auth.js`: `req` has the HTTP `method`, `path`, every header as a
 * `Headers`, the `peer`, the A2A `operation`, and `request`, the host's own request object:
 * the Fetch `Request`, or node's / Express's `req`) and returns the principal, `null` to
 * refuse with 401 and `WWW-Authenticate`, or `ANONYMOUS`; a rejection with `status: 403`
 * refuses with 403 (it may be async; without it every call is anonymous and no extended
 * card is ever served);
 * `maxBody` (bytes, default 8 MiB); `signingKey` (a SigningKey: the card and the extended
 * cards are served signed, `cardJku` in each signature's header); the push notifications'
 * `allowWebhooks` (hosts, addresses and CIDR networks the SSRF guard lets through although
 * not public: local development), `allowPrivateWebhooks` (every loopback and private
 * address, for tests) and `webhookCaFile` (PEM: the CAs `https://` receivers are verified
 * against; default the platform's roots); `onError(err, ctx)` gets what an agent threw.
 *
 * Tasks live in the service's memory unless `store` is given: a SQLite file path (opened
 * now, closed by `close()`) or a `TaskStore` (`TaskStore.memory()`,
 * `TaskStore.openSqlite(path)`; left open). The service then keeps the tasks in use plus
 * about `cacheMb` MiB (default 64) of others and asks for the rest with `"store"` outputs,
 * which this class hands to the store in order and whose replies it feeds back in order.
 * `retain` (milliseconds, or a string like `"90s"`, `"12h"`, `"30d"`) deletes each
 * completed, canceled, failed or rejected task whose last change is older (tasks still
 * working or waiting for input are never deleted).
 */
class A2AService {
  #host;
  #runner;
  #sinks = new Map();
  #authenticate;
  #maxBody;
  #timer = null;
  #due = 0;
  #draining = false;
  #closed = false;
  #poked = false;
  #store = null;
  #ownsStore = false;
  #storeTail = Promise.resolve();
  #storePending = 0;

  constructor(agent, card, options = {}) {
    const store = options.store;
    if (store != null && !(store instanceof TaskStore) && typeof store !== "string") {
      throw new TypeError("store: expected a file path or a TaskStore");
    }
    const settings = { externalStore: store != null, cacheMb: cacheMb(options.cacheMb), retain: retainOption(options.retain) };
    this.#runner = new Runner(agent, options.onError, () => this.#poke());
    checkAuthenticate(options.authenticate);
    this.#authenticate = options.authenticate ?? null;
    this.#maxBody = options.maxBody ?? 8 * 1024 * 1024;
    const opts = {
      extendedCard: options.extendedCard == null ? undefined : JSON.stringify(options.extendedCard),
      extendedCards: cardsByPrincipal(options.extendedCards),
      authenticate: this.#authenticate !== null,
      maxBody: this.#maxBody,
      allowPrivateWebhooks: options.allowPrivateWebhooks ?? false,
      allowWebhooks: stringList(options.allowWebhooks, "allowWebhooks"),
      webhookCaFile: options.webhookCaFile == null ? undefined : String(options.webhookCaFile),
      cardJku: options.cardJku == null ? undefined : String(options.cardJku),
      ...settings,
    };
    const key = SigningKey._native(options.signingKey);
    // The wake-up comes from the event loop on behalf of other threads: nothing may escape it.
    const wake = () => {
      try {
        this.#drain();
      } catch (e) {
        console.error("a2a-wire: draining the service failed:", e);
      }
    };
    if (typeof store === "string") {
      this.#store = TaskStore.openSqlite(store);
      this.#ownsStore = true;
    } else {
      this.#store = store ?? null;
    }
    try {
      this.#host = call(() => new native.ServiceHost(JSON.stringify(card), opts, wake, key ?? undefined));
    } catch (e) {
      if (this.#ownsStore) this.#store.close();
      throw e;
    }
    // The store's first request (open) goes out now, not with the first call.
    if (this.#store !== null) this.#drain();
    /** The web-standard handler: `Request` in, `Promise<Response>` out (every path answered). */
    this.fetch = this.fetch.bind(this);
  }

  /** The card served. */
  get card() { return JSON.parse(this.#host.card); }

  /** True when `request` (a Request, or a path and its Content-Type) is the service's to answer. */
  matches(request, contentType) {
    if (typeof request === "string") return this.#host.serves(request, contentType ?? undefined);
    const url = new URL(request.url);
    return this.#host.serves(url.pathname, request.headers.get("content-type") ?? undefined);
  }

  async fetch(request) {
    if (this.#closed) return new Response("the A2A service is closed", { status: 503 });
    const url = new URL(request.url);
    const headers = [];
    for (const [n, v] of request.headers) headers.push(n, v);
    let body;
    if (request.method === "GET" || request.method === "HEAD" || request.body === null) {
      body = new Uint8Array(0);
    } else {
      body = await readWebBody(request, this.#maxBody);
    }
    const id = this.#host.request(request.method, url.pathname + url.search, headers, body);
    const sink = new WebSink(this, id, request.method);
    sink.origin = { request, target: url.pathname + url.search, headers, peer: null };
    this.#sinks.set(id, sink);
    request.signal?.addEventListener?.("abort", () => this._gone(id), { once: true });
    this.#drain();
    return sink.promise;
  }

  /** Serves one node:http request (every path answered). */
  async handleNode(req, res) {
    if (this.#closed) {
      res.writeHead(503).end("the A2A service is closed");
      return;
    }
    const headers = [];
    const raw = req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) headers.push(raw[i].toLowerCase(), raw[i + 1]);
    let body;
    try {
      body = await readNodeBody(req, this.#maxBody);
    } catch {
      res.destroy();
      return;
    }
    const target = req.originalUrl ?? req.url ?? "/";
    const id = this.#host.request(req.method ?? "GET", target, headers, body);
    const sink = new NodeSink(this, id, req, res);
    const address = req.socket?.remoteAddress;
    sink.origin = { request: req, target, headers, peer: address == null ? null : { address, port: req.socket.remotePort } };
    this.#sinks.set(id, sink);
    this.#drain();
  }

  /** A node:http request listener: `http.createServer(service.listener())`. */
  listener() {
    return (req, res) => {
      this.handleNode(req, res).catch((e) => {
        console.error("a2a-wire: request failed:", e);
        if (!res.headersSent) res.writeHead(500).end();
      });
    };
  }

  /**
   * An Express / connect middleware: serves the card and the card's interfaces, and passes
   * every other request to `next()`. Mount it before body parsers (it needs the raw body).
   */
  middleware() {
    return (req, res, next) => {
      const path = (req.originalUrl ?? req.url ?? "/").split("?")[0];
      if (!this.#host.serves(path, req.headers["content-type"])) return next();
      this.handleNode(req, res).catch(next);
    };
  }

  /** A Hono middleware: `app.use(service.hono())`; other requests go on to your routes. */
  hono() {
    return async (c, next) => (this.matches(c.req.raw) ? this.fetch(c.req.raw) : next());
  }

  /**
   * Stops: open streams end, waiting calls get Unavailable, runs are canceled; resolves once
   * nothing is in flight (or after `timeoutMs`).
   */
  async close(timeoutMs = 5000) {
    if (this.#closed) return;
    this.#closed = true;
    this.#host.shutdown();
    this.#drain();
    const until = Date.now() + timeoutMs;
    while ((!this.#host.isIdle() || this.#storePending > 0) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 5));
      this.#drain();
    }
    this.#runner.cancelAll();
    this.#cancelTimer();
    if (this.#ownsStore) this.#store.close(); // after the writes on their way have landed
  }

  // The store carries the requests out in the order they are handed over; the replies go
  // back to the service in that order too (the chain), each followed by a drain.
  #askStore(request) {
    let reply;
    try {
      reply = this.#store._answer(request);
    } catch (e) {
      reply = Promise.reject(e); // a TaskStore closed by its owner while the service runs
    }
    this.#storePending++;
    this.#storeTail = this.#storeTail
      .then(() => reply)
      .then(
        (r) => this.#host.storeReply(r),
        (e) => console.error("a2a-wire: the task store failed:", e),
      )
      .finally(() => {
        this.#storePending--;
        this.#drain();
      });
  }

  _gone(id) {
    if (this.#sinks.delete(id)) {
      this.#host.callerGone(id);
      this.#drain();
    }
  }
  _slow(id) {
    this.#host.slowConsumer(id);
    queueMicrotask(() => this.#drain());
  }

  /** A drain soon (after what the current job publishes next). */
  #poke() {
    if (this.#poked) return;
    this.#poked = true;
    queueMicrotask(() => {
      this.#poked = false;
      this.#drain();
    });
  }

  #drain() {
    if (this.#draining) return;
    this.#draining = true;
    try {
      for (;;) {
        const outputs = this.#host.poll();
        if (outputs.length === 0) break;
        for (const o of outputs) this.#output(o);
      }
    } finally {
      this.#draining = false;
    }
    this.#schedule();
  }

  #output(o) {
    switch (o.kind) {
      case "answer": {
        const s = this.#sinks.get(o.call);
        this.#sinks.delete(o.call);
        s?.answer(o.status, o.headers, o.body);
        break;
      }
      case "head":
        this.#sinks.get(o.call)?.streamHead(o.status, o.headers);
        break;
      case "frame":
        this.#sinks.get(o.call)?.frame(o.body);
        break;
      case "end": {
        const s = this.#sinks.get(o.call);
        this.#sinks.delete(o.call);
        s?.end(o.body);
        break;
      }
      case "start": {
        const run = this.#host.takeRun(o.run);
        if (run != null) this.#runner.start(run);
        break;
      }
      case "cancel":
        this.#runner.cancel(o.run);
        break;
      case "authenticate":
        this.#judge(o);
        break;
      case "store": {
        const request = this.#host.takeStoreRequest(o.request);
        if (request != null) this.#askStore(request);
        break;
      }
      default:
        break;
    }
  }

  async #judge(o) {
    const origin = this.#sinks.get(o.call)?.origin ?? { request: null, target: "", headers: [], peer: null };
    const [path, query] = splitTarget(origin.target);
    const req = new AuthRequest({
      method: origin.request?.method ?? "POST", path, query, headers: headersOf(origin.headers), peer: origin.peer,
      operation: o.method, binding: o.binding, version: o.version, tenant: o.tenant, request: origin.request,
    });
    const { principal, error } = await judge(this.#authenticate, req);
    if (this.#closed) return;
    this.#host.authenticated(o.call, error === undefined ? principal : null, error === undefined ? undefined : JSON.stringify(error));
    this.#drain();
  }

  // One timer at a time, for the service's earliest deadline. A timer due no later than the
  // new deadline is kept (it fires early at worst: the service then has nothing due and
  // says when to look again), so a busy service does not make a timer per request.
  #schedule() {
    const ms = this.#host.nextTimeout();
    if (this.#closed) {
      this.#cancelTimer();
      return;
    }
    if (ms == null) return;
    const due = performance.now() + ms;
    if (this.#timer !== null) {
      if (this.#due <= due) return;
      this.#cancelTimer();
    }
    this.#due = due;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#host.timeout();
      this.#drain();
    }, Math.ceil(ms));
    this.#timer.unref?.();
  }

  #cancelTimer() {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}

async function readWebBody(request, limit) {
  const reader = request.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      // One byte past the limit is enough for the service to refuse it with its error.
      await reader.cancel().catch(() => {});
      break;
    }
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

module.exports = { A2AService, CARD_PATH, STREAM_BUFFER, readNodeBody, readWebBody, cardsByPrincipal, stringList, cacheMb, retainOption };

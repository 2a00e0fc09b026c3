"use strict";
// The receiving end of push notifications, for a client that hosts a webhook.
//
// - WebhookReceiver is sans-IO (the Rust core's receiver): `handle()` judges one delivery —
//   credentials compared in constant time, only the tasks it expects, each event handed
//   over once (a redelivery is a "duplicate"), v0.3 bodies translated to v1.0 — and gives the
//   HTTP answer to send back; `retryLater()` turns an event the application could not take
//   into a 503 whose redelivery is handed over again.
// - WebhookEndpoint hosts a receiver in your HTTP server (fetch handler, node:http listener,
//   Express middleware) and hands each new event to an async `onEvent(taskId, event)`.

const native = require("../native.js");
const { call, fromDescription } = require("./errors.js");
const { readNodeBody, readWebBody } = require("./service.js");

const NULL_BODY = new Set([101, 204, 205, 304]);
const EMPTY = new Uint8Array(0);

function pairs(flat) {
  const out = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

/** Headers as a flat `[name, value, ...]` list: an object, `[name, value]` pairs, a `Headers` or a Map. */
function flatHeaders(headers) {
  const flat = [];
  if (headers == null) return flat;
  if (typeof headers === "object" && typeof headers[Symbol.iterator] === "function") {
    for (const pair of headers) {
      if (!Array.isArray(pair) || pair.length !== 2) throw new TypeError("headers: expected [name, value] pairs");
      flat.push(String(pair[0]), String(pair[1]));
    }
    return flat;
  }
  if (typeof headers !== "object") throw new TypeError(`headers: expected an object, [name, value] pairs or a Headers, got ${typeof headers}`);
  for (const [name, value] of Object.entries(headers)) {
    if (value == null) continue;
    // node:http gives repeated fields as arrays.
    for (const v of Array.isArray(value) ? value : [value]) flat.push(name, String(v));
  }
  return flat;
}

function bodyBytes(body) {
  if (body == null) return EMPTY;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError(`body: expected a string or a Uint8Array, got ${typeof body}`);
}

function credential(value, name) {
  if (value == null) return undefined;
  if (typeof value !== "string") throw new TypeError(`${name}: expected a string, got ${typeof value}`);
  if (value === "") throw new RangeError(`${name} is empty: no delivery could match it`);
  return value;
}

/**
 * The receiving end of one webhook: `new WebhookReceiver({token, authorization, window})`.
 * `token` is the push config's `token` (sent in `A2A-Notification-Token`), `authorization`
 * the whole `Authorization` value its `authentication` makes (`"Bearer s3cret"`); at least
 * one is needed, and with both, both are required. `window`: how many recent events per
 * task are remembered to recognize redeliveries (default 256).
 */
class WebhookReceiver {
  #native;
  /** Delivery -> the canonical ProtoJSON of its event, for retryLater. */
  #events = new WeakMap();

  constructor(options = {}) {
    if (options === null || typeof options !== "object") throw new TypeError("options: expected { token?, authorization?, window? }");
    const token = credential(options.token, "token");
    const authorization = credential(options.authorization, "authorization");
    if (token === undefined && authorization === undefined) {
      throw new TypeError("a WebhookReceiver needs a token or an authorization value to check (the push config's credentials)");
    }
    const { window } = options;
    if (window !== undefined && typeof window !== "number") throw new TypeError(`window: expected a number of events, got ${typeof window}`);
    if (window !== undefined && !(Number.isInteger(window) && window >= 1 && window <= 0xffffffff)) {
      throw new RangeError(`window must be a whole number of events, at least 1 (got ${window})`);
    }
    this.#native = call(() => new native.NativeWebhookReceiver(token, authorization, window));
  }

  /** Accept events for `taskId` from now on. */
  expectTask(taskId) {
    this.#native.expectTask(taskIdOf(taskId));
  }
  /** Stop accepting events for `taskId` (and forget what was seen of it). */
  forgetTask(taskId) {
    this.#native.forgetTask(taskIdOf(taskId));
  }
  /** True when events for `taskId` are accepted. */
  expects(taskId) {
    return this.#native.expects(taskIdOf(taskId));
  }

  /**
   * Judges one delivery (`{method, headers, body}`; method default POST) and returns what it
   * was with the answer to send: `{kind, taskId, event, error, status, headers, body}`.
   * `kind` is "event" (hand `event` to the application), "duplicate" (an event already
   * handed over, delivered again) or "refused" (`error` says why: wrong credentials 401, a
   * task not expected 404, not an event 400).
   */
  handle(request) {
    if (request === null || typeof request !== "object") throw new TypeError("request: expected { method, headers, body }");
    const method = request.method ?? "POST";
    if (typeof method !== "string") throw new TypeError("method: expected a string");
    const d = call(() => this.#native.handle(method, flatHeaders(request.headers), bodyBytes(request.body)));
    const delivery = {
      kind: d.kind,
      taskId: d.taskId ?? null,
      event: d.event == null ? null : JSON.parse(d.event),
      error: d.error == null ? null : fromDescription(JSON.parse(d.error)),
      status: d.status,
      headers: pairs(d.headers),
      body: d.body,
    };
    if (d.event != null) this.#events.set(delivery, d.event);
    return delivery;
  }

  /**
   * The application could not take `delivery` (its store was down, say): the same delivery
   * with the answer 503 and `Retry-After`. The event is forgotten, so the sender's
   * redelivery is handed over again (once). A duplicate keeps its place; a refused delivery
   * was never handed over and has nothing to retry (TypeError).
   */
  retryLater(delivery) {
    if (delivery === null || typeof delivery !== "object") throw new TypeError("delivery: expected what handle() returned");
    if (delivery.kind !== "event" && delivery.kind !== "duplicate") {
      throw new TypeError(`retryLater: a ${JSON.stringify(delivery.kind)} delivery was not handed over; answer it as handle() says`);
    }
    const taskId = taskIdOf(delivery.taskId);
    let event;
    if (delivery.kind === "event") event = this.#events.get(delivery) ?? JSON.stringify(delivery.event);
    const a = call(() => this.#native.retryLater(taskId, event));
    return { ...delivery, status: a.status, headers: pairs(a.headers), body: a.body };
  }
}

function defaultOnError(err, taskId) {
  console.error(`a2a-wire: the application did not take an event of task ${taskId} (answered 503: it is delivered again):`, err);
}

function taskIdOf(taskId) {
  if (typeof taskId !== "string") throw new TypeError(`taskId: expected a string, got ${taskId === null ? "null" : typeof taskId}`);
  return taskId;
}

/**
 * A WebhookReceiver in your HTTP server: each POST's body is read (at most `maxBody` bytes,
 * default 8 MiB: 413 past it) and judged; a new event is handed to `await onEvent(taskId,
 * event)` and answered 204 once it resolves. If `onEvent` throws or rejects, the answer is
 * 503 (`retryLater`): the sender delivers the event again and `onEvent` sees it again, once;
 * what it threw goes to `onError(err, taskId, event)` (default: console.error). Duplicates
 * and refusals are answered without calling `onEvent`. Mount it at the URL the push config
 * names: `fetch(Request)` (web-standard), `listener()` (node:http), `middleware()` (Express /
 * connect; errors go to `next`).
 */
class WebhookEndpoint {
  #receiver;
  #onEvent;
  #maxBody;
  #onError;

  constructor(receiver, onEvent, options = {}) {
    if (!(receiver instanceof WebhookReceiver)) throw new TypeError("receiver: expected a WebhookReceiver");
    if (typeof onEvent !== "function") throw new TypeError("onEvent: expected a function (taskId, event) => Promise<void>");
    const maxBody = options?.maxBody ?? 8 * 1024 * 1024;
    if (typeof maxBody !== "number") throw new TypeError(`maxBody: expected a number of bytes, got ${typeof maxBody}`);
    if (!(Number.isInteger(maxBody) && maxBody >= 0)) throw new RangeError(`maxBody must be a whole number of bytes (got ${maxBody})`);
    const onError = options?.onError ?? defaultOnError;
    if (typeof onError !== "function") throw new TypeError("onError: expected a function (err, taskId, event) => void");
    this.#receiver = receiver;
    this.#onEvent = onEvent;
    this.#maxBody = maxBody;
    this.#onError = onError;
    /** The web-standard handler: `Request` in, `Promise<Response>` out. */
    this.fetch = this.fetch.bind(this);
  }

  /** The receiver it hosts. */
  get receiver() { return this.#receiver; }

  /** One request's answer, `{status, headers, body}`. */
  async #deliver(method, headers, body) {
    if (body.length > this.#maxBody) {
      return { status: 413, headers: [["content-type", "text/plain"]], body: Buffer.from(`a delivery larger than ${this.#maxBody} bytes is refused`) };
    }
    const d = this.#receiver.handle({ method, headers, body });
    if (d.kind !== "event") return d;
    try {
      await this.#onEvent(d.taskId, d.event);
    } catch (err) {
      // The application could not take it: the sender is told to deliver it again.
      try {
        this.#onError(err, d.taskId, d.event);
      } catch (e) {
        console.error("a2a-wire: the webhook's onError failed:", e);
      }
      return this.#receiver.retryLater(d);
    }
    return d;
  }

  async fetch(request) {
    const headers = [...request.headers];
    const hasBody = request.method !== "GET" && request.method !== "HEAD" && request.body !== null;
    const body = hasBody ? await readWebBody(request, this.#maxBody) : EMPTY;
    const a = await this.#deliver(request.method, headers, body);
    const b = NULL_BODY.has(a.status) || request.method === "HEAD" ? null : a.body;
    return new Response(b, { status: a.status, headers: a.headers });
  }

  /** Serves one node:http request. */
  async handleNode(req, res) {
    const headers = [];
    const raw = req.rawHeaders ?? [];
    for (let i = 0; i + 1 < raw.length; i += 2) headers.push([raw[i], raw[i + 1]]);
    const method = req.method ?? "POST";
    let body = EMPTY;
    if (method !== "GET" && method !== "HEAD") {
      try {
        body = await readNodeBody(req, this.#maxBody);
      } catch {
        // The sender went away mid-body: nobody is left to answer.
        res.destroy();
        return;
      }
    }
    const a = await this.#deliver(method, headers, body);
    const flat = a.headers.flat();
    const noBody = NULL_BODY.has(a.status);
    if (!noBody) flat.push("content-length", String(a.body.length));
    res.writeHead(a.status, flat);
    res.end(noBody || method === "HEAD" ? undefined : a.body);
  }

  /** A node:http request listener: `http.createServer(endpoint.listener())`. */
  listener() {
    return (req, res) => {
      this.handleNode(req, res).catch((e) => {
        console.error("a2a-wire: webhook request failed:", e);
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    };
  }

  /** An Express / connect middleware answering every request routed to it (`app.post("/hook", endpoint.middleware())`). */
  middleware() {
    return (req, res, next) => {
      this.handleNode(req, res).catch(next);
    };
  }
}

module.exports = { WebhookReceiver, WebhookEndpoint };

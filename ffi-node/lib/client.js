"use strict";
// The ready client: the eleven operations over JSON-RPC, HTTP+JSON and gRPC, v1.0 and v0.3,
// on the Rust transport's client (itself the core's step-function client: every retry and
// error rule is the core's). Calls are Promises; streams are async iterables (`break` closes
// them). Requests and answers are plain objects of the v1.0 model; the client translates to
// and from v0.3 itself when the agent speaks it.

const native = require("../native.js");
const { call, translate } = require("./errors.js");
const { BINDINGS, SUPPORTED_VERSIONS } = require("./protocol.js");
const { Role } = require("../model.js");
const { CardKeySet } = require("./signing.js");
const { randomUUID } = require("node:crypto");

async function settle(p) {
  try {
    return await p;
  } catch (e) {
    throw translate(e);
  }
}

/** An open stream of StreamResponse objects; `for await` it, `break` (or `close()`) ends it. */
class EventStream {
  #native;
  #done = false;
  constructor(n) {
    this.#native = n;
  }
  /** The next event, or null once the stream ended. */
  async next() {
    if (this.#done) return { done: true, value: undefined };
    const text = await settle(this.#native.next());
    if (text === null) {
      this.#done = true;
      return { done: true, value: undefined };
    }
    return { done: false, value: JSON.parse(text) };
  }
  /** Closes the stream (its connection is dropped; the task goes on at the server). */
  close() {
    this.#done = true;
    this.#native.close();
  }
  async return() {
    this.close();
    return { done: true, value: undefined };
  }
  [Symbol.asyncIterator]() {
    return this;
  }
  async [Symbol.asyncDispose]() {
    this.close();
  }
}

/**
 * A stream about to open, as `sendStreamingMessage` and `subscribeToTask` give it: iterate
 * it at once (`for await (const e of client.sendStreamingMessage(text))`), or `await` it for
 * its EventStream. The request is sent once, when one of these first needs it.
 */
class OpeningStream {
  #open;
  #stream = null;
  #opening = null;
  constructor(open) {
    this.#open = open;
  }
  #get() {
    this.#opening ??= this.#open().then((s) => (this.#stream = s));
    return this.#opening;
  }
  then(resolve, reject) {
    return this.#get().then(resolve, reject);
  }
  async next() {
    return (await this.#get()).next();
  }
  async return() {
    if (this.#opening !== null) (await this.#opening.catch(() => null))?.close();
    return { done: true, value: undefined };
  }
  /** Closes the stream once it is open (the task goes on at the server). */
  close() {
    this.#stream?.close();
    this.#opening?.then((s) => s.close(), () => {});
  }
  [Symbol.asyncIterator]() {
    return this;
  }
  async [Symbol.asyncDispose]() {
    await this.return();
  }
}

function flatHeaders(h) {
  const out = [];
  if (h == null) return out;
  if (Array.isArray(h)) throw new TypeError("headers: expected an object of name to value, or a Headers");
  const entries = typeof h.entries === "function" ? h.entries() : Object.entries(h);
  for (const [n, v] of entries) out.push(n, String(v));
  return out;
}

/** The abort ids of calls with a signal (unique per process). */
let nextAbortId = 0;

/**
 * A client of one agent: `await A2AClient.connect(url)` fetches its card and picks the
 * first interface the card offers that speaks one of `bindings` and `versions` (in
 * preference order: JSONRPC, HTTP+JSON, GRPC and 1.0, 0.3 by default).
 */
class A2AClient {
  #native;
  #headerProvider;
  constructor(n, headerProvider = null) {
    this.#native = n;
    this.#headerProvider = headerProvider;
    /** The card fetched at connect. */
    this.card = JSON.parse(n.card);
    /** The interface used: `{url, binding, version, tenant, index}`. */
    this.interface = JSON.parse(n.interface);
  }

  /**
   * Options: `bindings`, `versions` (preference order), `timeoutMs` (each call's deadline,
   * default 30 s), `headers` (sent with every request: credentials), `extensions` (URIs to
   * activate), `caFile` (PEM: verify `https://` agents against these CAs only, instead of the
   * platform's roots), `clientCert` (`{cert, key}` PEM files, presented when the agent asks).
   * A certificate that does not verify rejects with `TLSError`. `cardKeys` (a CardKeySet):
   * a card that carries signatures must have one these keys verify; `requireSignedCard`:
   * an unsigned card is refused too (without `cardKeys`, every card is); either refusal is a
   * `CardSignatureError`. `streamResumes`: how many times in a row a stream that broke off
   * is resumed with `Last-Event-ID` (default 5; 0: never), each event arriving once (a resume
   * sends the headers its stream was opened with). `headerProvider` (a function, possibly
   * async, returning headers) is asked before every call: a token that is refreshed.
   *
   * Every operation takes a last argument of per-call options: `{ signal, timeoutMs, headers }`
   * (an AbortSignal that stops the call and rejects with its reason, a deadline instead of
   * the client's, headers for this call only). A call past its deadline rejects with
   * `CallTimeoutError`; one on a closed client with `ClientClosedError`.
   */
  static async connect(url, options = {}) {
    const {
      bindings = BINDINGS, versions = SUPPORTED_VERSIONS, timeoutMs = 30000, headers, extensions = [], caFile, clientCert,
      cardKeys, requireSignedCard = false, streamResumes, headerProvider = null,
    } = options;
    if (typeof requireSignedCard !== "boolean") throw new TypeError("requireSignedCard: expected a boolean");
    if (headerProvider != null && typeof headerProvider !== "function") throw new TypeError("headerProvider: expected a function");
    if (streamResumes !== undefined && typeof streamResumes !== "number") {
      throw new TypeError(`streamResumes: expected a whole number of resumes, got ${typeof streamResumes}`);
    }
    const opts = {
      bindings: [...bindings], versions: [...versions], timeoutMs, headers: flatHeaders(headers), extensions: [...extensions],
      caFile: caFile == null ? undefined : String(caFile),
      clientCert: clientCert == null ? undefined : { cert: String(clientCert.cert), key: String(clientCert.key) },
      requireSignedCard,
      streamResumes,
    };
    const keys = CardKeySet._native(cardKeys);
    return new A2AClient(await settle(call(() => native.connect(url, opts, keys ?? undefined))), headerProvider);
  }

  /** The native options of one call, and its signal. */
  async #settings(options) {
    const { signal, timeoutMs, headers } = options ?? {};
    if (signal != null && typeof signal.aborted !== "boolean") throw new TypeError("signal: expected an AbortSignal");
    signal?.throwIfAborted();
    const flat = [];
    if (this.#headerProvider !== null) flat.push(...flatHeaders(await this.#headerProvider()));
    flat.push(...flatHeaders(headers));
    const settings = { timeoutMs: timeoutMs ?? undefined, headers: flat, abortId: undefined };
    if (signal != null) {
      nextAbortId = (nextAbortId + 1) % 0xffffffff;
      settings.abortId = nextAbortId;
    }
    return { settings, signal };
  }
  /** `pending` (a native promise), rejected with the signal's reason once it aborts. */
  #abortable(pending, settings, signal) {
    if (signal == null) return settle(pending);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#native.abort(settings.abortId);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      pending.then(
        (v) => {
          signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        (e) => {
          signal.removeEventListener("abort", onAbort);
          reject(translate(e));
        },
      );
    });
  }
  async #call(method, request, options) {
    const text = call(() => JSON.stringify(request));
    const { settings, signal } = await this.#settings(options);
    return JSON.parse(await this.#abortable(call(() => this.#native.call(method, text, settings)), settings, signal));
  }
  #stream(method, request, options) {
    return new OpeningStream(async () => {
      const text = call(() => JSON.stringify(request));
      const { settings, signal } = await this.#settings(options);
      const stream = new EventStream(await this.#abortable(call(() => this.#native.openStream(method, text, settings)), settings, signal));
      signal?.addEventListener("abort", () => stream.close(), { once: true });
      return stream;
    });
  }

  /** A user message of one text part, with a fresh id (a UUID v4). */
  userMessage(text, extra = {}) {
    return { messageId: randomUUID(), role: Role.USER, parts: [{ text: String(text) }], ...extra };
  }
  #request(message) {
    return typeof message === "string" ? { message: this.userMessage(message) } : message;
  }

  /** SendMessage: `request` is a SendMessageRequest (or the text of a new user message). Resolves to `{task}` or `{message}`. */
  sendMessage(request, options) { return this.#call("SendMessage", this.#request(request), options); }
  /** SendStreamingMessage: an OpeningStream of StreamResponse (iterate it, or await it for the EventStream). */
  sendStreamingMessage(request, options) { return this.#stream("SendStreamingMessage", this.#request(request), options); }
  /** GetTask (`request`: a GetTaskRequest, or the task id). */
  getTask(request, options) { return this.#call("GetTask", typeof request === "string" ? { id: request } : request, options); }
  /** ListTasks (v1.0 only). */
  listTasks(request = {}, options) { return this.#call("ListTasks", request, options); }
  /** CancelTask (`request`: a CancelTaskRequest, or the task id). */
  cancelTask(request, options) { return this.#call("CancelTask", typeof request === "string" ? { id: request } : request, options); }
  /** SubscribeToTask: an OpeningStream, starting with the task as it is. */
  subscribeToTask(request, options) {
    return this.#stream("SubscribeToTask", typeof request === "string" ? { id: request } : request, options);
  }
  /** CreateTaskPushNotificationConfig. */
  createTaskPushNotificationConfig(config, options) { return this.#call("CreateTaskPushNotificationConfig", config, options); }
  /** GetTaskPushNotificationConfig. */
  getTaskPushNotificationConfig(request, options) { return this.#call("GetTaskPushNotificationConfig", request, options); }
  /** ListTaskPushNotificationConfigs. */
  listTaskPushNotificationConfigs(request, options) { return this.#call("ListTaskPushNotificationConfigs", request, options); }
  /** DeleteTaskPushNotificationConfig. */
  async deleteTaskPushNotificationConfig(request, options) { await this.#call("DeleteTaskPushNotificationConfig", request, options); }
  /** GetExtendedAgentCard (the caller must be authenticated). */
  getExtendedAgentCard(request = {}, options) { return this.#call("GetExtendedAgentCard", request, options); }

  /** Closes the client: later calls reject with ClientClosedError (calls in flight finish). */
  close() { this.#native.close(); }
  [Symbol.dispose]() { this.close(); }
}

module.exports = { A2AClient, EventStream, OpeningStream };

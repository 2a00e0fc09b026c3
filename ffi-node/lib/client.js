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

function flatHeaders(h) {
  const out = [];
  for (const [n, v] of Object.entries(h ?? {})) out.push(n, String(v));
  return out;
}

/**
 * A client of one agent: `await A2AClient.connect(url)` fetches its card and picks the
 * first interface the card offers that speaks one of `bindings` and `versions` (in
 * preference order: JSONRPC, HTTP+JSON, GRPC and 1.0, 0.3 by default).
 */
class A2AClient {
  #native;
  #replies = 0;
  constructor(n) {
    this.#native = n;
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
   * is resumed with `Last-Event-ID` (default 5; 0: never), each event arriving once.
   */
  static async connect(url, options = {}) {
    const {
      bindings = BINDINGS, versions = SUPPORTED_VERSIONS, timeoutMs = 30000, headers, extensions = [], caFile, clientCert,
      cardKeys, requireSignedCard = false, streamResumes,
    } = options;
    if (typeof requireSignedCard !== "boolean") throw new TypeError("requireSignedCard: expected a boolean");
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
    return new A2AClient(await settle(call(() => native.connect(url, opts, keys ?? undefined))));
  }

  async #call(method, request) {
    const text = call(() => JSON.stringify(request));
    return JSON.parse(await settle(this.#native.call(method, text)));
  }
  async #stream(method, request) {
    return new EventStream(await settle(this.#native.openStream(method, JSON.stringify(request))));
  }

  /** A user message of one text part, with a fresh id. */
  userMessage(text, extra = {}) {
    this.#replies += 1;
    return { messageId: `${Date.now().toString(36)}-${process.pid}-${this.#replies}`, role: Role.USER, parts: [{ text: String(text) }], ...extra };
  }
  #request(message) {
    return typeof message === "string" ? { message: this.userMessage(message) } : message;
  }

  /** SendMessage: `request` is a SendMessageRequest (or the text of a new user message). Resolves to `{task}` or `{message}`. */
  sendMessage(request) { return this.#call("SendMessage", this.#request(request)); }
  /** SendStreamingMessage: an EventStream of StreamResponse. */
  sendStreamingMessage(request) { return this.#stream("SendStreamingMessage", this.#request(request)); }
  /** GetTask (`request`: a GetTaskRequest, or the task id). */
  getTask(request) { return this.#call("GetTask", typeof request === "string" ? { id: request } : request); }
  /** ListTasks (v1.0 only). */
  listTasks(request = {}) { return this.#call("ListTasks", request); }
  /** CancelTask (`request`: a CancelTaskRequest, or the task id). */
  cancelTask(request) { return this.#call("CancelTask", typeof request === "string" ? { id: request } : request); }
  /** SubscribeToTask: an EventStream, starting with the task as it is. */
  subscribeToTask(request) { return this.#stream("SubscribeToTask", typeof request === "string" ? { id: request } : request); }
  /** CreateTaskPushNotificationConfig. */
  createTaskPushNotificationConfig(config) { return this.#call("CreateTaskPushNotificationConfig", config); }
  /** GetTaskPushNotificationConfig. */
  getTaskPushNotificationConfig(request) { return this.#call("GetTaskPushNotificationConfig", request); }
  /** ListTaskPushNotificationConfigs. */
  listTaskPushNotificationConfigs(request) { return this.#call("ListTaskPushNotificationConfigs", request); }
  /** DeleteTaskPushNotificationConfig. */
  async deleteTaskPushNotificationConfig(request) { await this.#call("DeleteTaskPushNotificationConfig", request); }
  /** GetExtendedAgentCard (the caller must be authenticated). */
  getExtendedAgentCard(request = {}) { return this.#call("GetExtendedAgentCard", request); }

  /** Drops idle connections (calls in flight finish). */
  close() { this.#native.close(); }
  [Symbol.dispose]() { this.close(); }
}

module.exports = { A2AClient, EventStream };

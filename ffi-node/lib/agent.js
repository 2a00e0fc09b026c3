"use strict";
// Agents: what an A2A agent written for Node implements, and how a host runs it.
//
// An agent is an async function (or an object with such an `execute` method) that receives
// a RequestContext and an Events:
//
//     async function agent(ctx, events) {
//       events.artifact(ctx.text, { artifactId: "echo", lastChunk: true });
//       events.complete();
//     }
//
// Its turn ends when the promise settles; a thrown error (or rejection) fails the task and
// the host keeps serving (an A2AError's message becomes the failure's text; any other error
// goes to `onError`, the client sees AGENT_FAILED). When the task is canceled, or the server
// stops, `ctx.signal` aborts, `ctx.cancelled` turns true, and an executor object's
// `cancelTask(ctx, events)` (the official SDK's name; `cancel` works too) is called.

const { call, translate, A2AError, CONSTANTS } = require("./errors.js");
const { TaskState, Role } = require("../model.js");
const { randomUUID } = require("node:crypto");

/** The status text of a task whose agent threw (the core's words, on every a2a-wire binding). */
const AGENT_FAILED = CONSTANTS.agentFailed;

/**
 * A run's cancellation. Its AbortController is made when the agent first asks for the
 * signal (most agents never do, and one costs more than the rest of a short run's JavaScript).
 */
class Cancel {
  #controller = null;
  #reason = undefined;
  aborted = false;
  get signal() {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }
  abort(reason) {
    if (this.aborted) return;
    this.aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/** What one run of the agent is about. Read-only. */
class RequestContext {
  #run;
  #message;
  #task;
  #cancel;
  #metadata;
  #configuration;
  constructor(run, cancel) {
    this.#run = run;
    this.#cancel = cancel;
  }
  /** The task the message belongs to (allocated even when the agent replies with a message). */
  get taskId() { return this.#run.taskId; }
  get contextId() { return this.#run.contextId; }
  /** The user's message, with `taskId` and `contextId` filled in. */
  get message() { return (this.#message ??= JSON.parse(this.#run.messageJson)); }
  get messageId() { return this.#run.messageId; }
  /** The text of the message's text parts, concatenated. */
  get text() { return this.#run.text; }
  /** True when the message continues an existing task (e.g. answers a question). */
  get followUp() { return this.#run.followUp; }
  /** True when this run resumes a task whose run was lost in a restart. */
  get resumed() { return this.#run.resumed; }
  /** The task as stored when the run started (null for a new task). */
  get task() {
    if (this.#task === undefined) {
      const t = this.#run.taskJson;
      this.#task = t == null ? null : JSON.parse(t);
    }
    return this.#task;
  }
  /** Who sent it, as the server's authentication judged (null: anonymous). */
  get principal() { return this.#run.principal ?? null; }
  /** The extensions active for this call. */
  get extensions() { return this.#run.extensions; }
  /** The tenant the request named (`""`: none). */
  get tenant() { return this.#run.tenant; }
  /** The request's metadata (`SendMessageRequest.metadata`; null when none was sent, and for a resumed run). */
  get metadata() {
    if (this.#metadata === undefined) {
      const m = this.#run.metadataJson;
      this.#metadata = m == null ? null : JSON.parse(m);
    }
    return this.#metadata;
  }
  /** The request's configuration as sent (accepted output modes, history length, ...; null when none, and for a resumed run). */
  get configuration() {
    if (this.#configuration === undefined) {
      const c = this.#run.configurationJson;
      this.#configuration = c == null ? null : JSON.parse(c);
    }
    return this.#configuration;
  }
  /** The media types the client accepts (empty: any). */
  get acceptedOutputModes() { return this.configuration?.acceptedOutputModes ?? []; }
  /** True once the task was canceled or the server is stopping. */
  get cancelled() { return this.#cancel.aborted || this.#run.cancelled; }
  /** Aborts when the task is canceled or the server is stopping. */
  get signal() { return this.#cancel.signal; }
  get runId() { return this.#run.id; }
}

/**
 * Where a run publishes. A publish the server refuses throws the A2AError that says why: the
 * run is over (its task finished, was canceled, or a newer message continued it), or the
 * event breaks the task's state machine (an artifact after the task completed). The ready
 * server learns of a refusal a moment later than the in-process service: from the next
 * publish on, or at once with `await events.flush()`.
 */
class Events {
  #run;
  #poke;
  constructor(run, poke) {
    this.#run = run;
    this.#poke = poke;
  }
  /** An agent message of one text part, with a fresh id (a UUID v4) and the run's task and context. */
  agentMessage(text, { metadata } = {}) {
    const m = { messageId: randomUUID(), role: Role.AGENT, parts: [{ text: String(text) }], taskId: this.#run.taskId, contextId: this.#run.contextId };
    if (metadata != null) m.metadata = metadata;
    return m;
  }
  #msg(m) {
    return typeof m === "string" ? this.agentMessage(m) : m;
  }
  /** Sets the task's status, with an optional agent message (a question, a reason); `metadata` goes on the status update event. */
  status(state, message, { metadata } = {}) {
    const m = message == null ? undefined : JSON.stringify(this.#msg(message));
    const meta = metadataArg(metadata);
    try {
      call(() => this.#run.status(state, m, meta));
    } finally {
      this.#poke?.();
    }
  }
  /**
   * Publishes an artifact, or a chunk of one (`append` adds its parts to the artifact with
   * the same id; `lastChunk` says it is complete). A string becomes an artifact of one text
   * part named by `artifactId` and `name`. An artifact without an id gets a fresh one (a UUID
   * v4), so two calls make two artifacts: give `artifactId` to send one in chunks. `metadata`
   * goes on the artifact update event.
   */
  artifact(artifact, { artifactId, name, append = false, lastChunk = false, metadata } = {}) {
    let a;
    if (typeof artifact === "string") {
      a = { artifactId: artifactId || randomUUID(), ...(name ? { name } : {}), parts: [{ text: artifact }] };
    } else {
      a = artifact?.artifactId ? artifact : { ...artifact, artifactId: randomUUID() };
    }
    const meta = metadataArg(metadata);
    try {
      call(() => this.#run.artifact(JSON.stringify(a), append, lastChunk, meta));
    } finally {
      this.#poke?.();
    }
  }
  /**
   * Replies with a message: as the run's first event a direct reply (no task is kept), later
   * a message in the task's conversation. `metadata` is the message's own (for a string).
   */
  message(message, { metadata } = {}) {
    if (typeof message !== "string" && metadata != null) throw new TypeError("metadata: give it in the message itself ({..., metadata})");
    const m = typeof message === "string" ? this.agentMessage(message, { metadata }) : message;
    try {
      call(() => this.#run.messageEvent(JSON.stringify(m)));
    } finally {
      this.#poke?.();
    }
  }
  /** Shorthand for `status(TaskState.COMPLETED, message, options)`. */
  complete(message, options) {
    this.status(TaskState.COMPLETED, message, options);
  }
  /** Resolves once the server applied every event sent so far; rejects with its refusal. */
  async flush() {
    try {
      await this.#run.flush();
    } catch (e) {
      throw translate(e);
    }
  }
  get cancelled() { return this.#run.cancelled; }
}

/** An event's `metadata` option as the JSON the native side reads (undefined: none). */
function metadataArg(metadata) {
  if (metadata == null) return undefined;
  if (typeof metadata !== "object" || Array.isArray(metadata)) throw new TypeError("metadata: expected an object");
  return JSON.stringify(metadata);
}

/** The executor's cancel method (`cancelTask`, the official SDK's name, or `cancel`), or null. */
function cancelFunction(agent) {
  if (agent == null || typeof agent !== "object" || typeof agent.execute !== "function") return null;
  if (typeof agent.cancelTask === "function") return (ctx, events) => agent.cancelTask(ctx, events);
  if (typeof agent.cancel === "function") return (ctx, events) => agent.cancel(ctx, events);
  return null;
}

function agentFunction(agent) {
  if (typeof agent === "function") return agent;
  if (agent != null && typeof agent.execute === "function") return (ctx, events) => agent.execute(ctx, events);
  throw new TypeError("agent: expected an async function (ctx, events) or an object with an execute(ctx, events) method");
}

function defaultOnError(err, ctx) {
  console.error(`a2a-wire: the agent failed on task ${ctx.taskId}:`, err);
}

/**
 * Runs the agent for each run a host hands over, on the event loop. `poke` (the in-process
 * service's) is called after every publish and end, so that the host drains what they made:
 * the native side does not wake the loop for them.
 */
class Runner {
  constructor(agent, onError = defaultOnError, poke = null) {
    this.fn = agentFunction(agent);
    this.onCancel = cancelFunction(agent);
    this.onError = onError ?? defaultOnError;
    this.poke = poke;
    this.runs = new Map();
  }
  start(run) {
    const cancel = new Cancel();
    const id = run.id;
    const ctx = new RequestContext(run, cancel);
    const events = new Events(run, this.poke);
    this.runs.set(id, { cancel, ctx, events });
    let p;
    try {
      p = Promise.resolve(this.fn(ctx, events));
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      () => run.finish(),
      (err) => {
        // A run canceled meanwhile ends as finished (an aborted sleep rejects, as it should).
        if (cancel.aborted) {
          run.finish();
          return;
        }
        // An A2AError is the agent's answer: its message is the failure's text.
        if (err instanceof A2AError) {
          run.fail(err.message);
          return;
        }
        // Anything else goes to the application's log, not to the client.
        run.fail(AGENT_FAILED);
        try {
          this.onError(err, ctx);
        } catch {}
      },
    ).finally(() => {
      this.runs.delete(id);
      this.poke?.();
    });
  }
  cancel(id) {
    const r = this.runs.get(id);
    if (r === undefined || r.cancel.aborted) return;
    r.cancel.abort(new Error("the task was canceled or the server is stopping"));
    if (this.onCancel === null) return;
    // The executor hears of it; what it publishes now is refused (the task is canceled).
    Promise.resolve()
      .then(() => this.onCancel(r.ctx, r.events))
      .catch((err) => {
        if (!(err instanceof A2AError)) {
          try {
            this.onError(err, r.ctx);
          } catch {}
        }
      });
  }
  cancelAll() {
    for (const r of this.runs.values()) r.cancel.abort(new Error("the server is stopping"));
  }
}

module.exports = { RequestContext, Events, Runner, AGENT_FAILED };

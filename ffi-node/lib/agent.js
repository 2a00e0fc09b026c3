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
// goes to `onError`, the client sees AGENT_FAILED). When the task is canceled, or the server stops, `ctx.signal`
// aborts and `ctx.cancelled` turns true.

const { call, translate, A2AError, CONSTANTS } = require("./errors.js");
const { TaskState, Role } = require("../model.js");

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
  #replies = 0;
  constructor(run, poke) {
    this.#run = run;
    this.#poke = poke;
  }
  /** An agent message of one text part, with an id of its own. */
  agentMessage(text) {
    this.#replies += 1;
    return { messageId: `${this.#run.messageId}-reply-${this.#replies}`, role: Role.AGENT, parts: [{ text: String(text) }] };
  }
  #msg(m) {
    return typeof m === "string" ? this.agentMessage(m) : m;
  }
  /** Sets the task's status, with an optional agent message (a question, a reason). */
  status(state, message) {
    const m = message == null ? undefined : JSON.stringify(this.#msg(message));
    try {
      call(() => this.#run.status(state, m));
    } finally {
      this.#poke?.();
    }
  }
  /**
   * Publishes an artifact, or a chunk of one (`append` adds its parts to the artifact with
   * the same id; `lastChunk` says it is complete). A string becomes an artifact of one text
   * part named by `artifactId` and `name`.
   */
  artifact(artifact, { artifactId = "artifact", name, append = false, lastChunk = false } = {}) {
    const a = typeof artifact === "string" ? { artifactId, ...(name ? { name } : {}), parts: [{ text: artifact }] } : artifact;
    try {
      call(() => this.#run.artifact(JSON.stringify(a), append, lastChunk));
    } finally {
      this.#poke?.();
    }
  }
  /** Replies with a message: as the run's first event a direct reply (no task is kept), later a message in the task's conversation. */
  message(message) {
    try {
      call(() => this.#run.messageEvent(JSON.stringify(this.#msg(message))));
    } finally {
      this.#poke?.();
    }
  }
  /** Shorthand for `status(TaskState.COMPLETED, message)`. */
  complete(message) {
    this.status(TaskState.COMPLETED, message);
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
    this.onError = onError ?? defaultOnError;
    this.poke = poke;
    this.runs = new Map();
  }
  start(run) {
    const cancel = new Cancel();
    const id = run.id;
    this.runs.set(id, cancel);
    const ctx = new RequestContext(run, cancel);
    const events = new Events(run, this.poke);
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
    const c = this.runs.get(id);
    if (c !== undefined) c.abort(new Error("the task was canceled or the server is stopping"));
  }
  cancelAll() {
    for (const c of this.runs.values()) c.abort(new Error("the server is stopping"));
  }
}

module.exports = { RequestContext, Events, Runner, AGENT_FAILED };

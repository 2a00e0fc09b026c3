// The demo agent of the a2a-wire examples, for Node: the four behaviours of the Rust demo
// agent (transport/src/demo.rs), so that the same interop checks pass against every binding.
//
// | text           | what the agent does                                                            |
// |----------------|--------------------------------------------------------------------------------|
// | `need-input`   | INPUT_REQUIRED with a question; a follow-up completes it, echoing the follow-up |
// | `slow`         | WORKING, three appended chunks of one artifact 0.7 s apart, then COMPLETED       |
// | `message-only` | a direct Message (no task)                                                     |
// | anything else  | a COMPLETED task with one artifact echoing the text                            |
import { setTimeout as sleep } from "node:timers/promises";
import { TaskState } from "a2a-wire";

const SLOW = ["one ", "two ", "three"];

/**
 * @param {import("a2a-wire").RequestContext} ctx
 * @param {import("a2a-wire").Events} events
 */
export async function demoAgent(ctx, events) {
  const text = ctx.text;
  if (ctx.followUp) {
    events.artifact(text, { artifactId: "echo", name: "echo", lastChunk: true });
    events.complete();
  } else if (text === "need-input") {
    events.status(TaskState.INPUT_REQUIRED, "What should I echo?");
  } else if (text === "slow") {
    events.status(TaskState.WORKING);
    for (const [i, piece] of SLOW.entries()) {
      await sleep(700, undefined, { signal: ctx.signal });
      events.artifact(piece, { artifactId: "slow", name: "echo", append: i > 0, lastChunk: i === SLOW.length - 1 });
    }
    events.complete();
  } else if (text === "message-only") {
    events.message(text);
  } else {
    events.artifact(text, { artifactId: "echo", name: "echo", lastChunk: true });
    events.complete();
  }
}

/** The card of the examples (the servers fill in or replace `supportedInterfaces`). */
export const CARD = {
  name: "a2a-wire Node echo",
  description: "Echoes what it is sent (need-input, slow, message-only do more).",
  version: "1.0.0",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  supportedInterfaces: [],
};

/**
 * The card of a mounted service at `base` (`http://HOST:PORT`): JSON-RPC and HTTP+JSON,
 * each in v1.0 and v0.3.
 * @param {string} base
 * @returns {import("a2a-wire").AgentCard}
 */
export function mountedCard(base) {
  return {
    ...CARD,
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: `${base}/a2a/v03/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url: `${base}/a2a/v03/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
    ],
  };
}

/**
 * `HOST:PORT` from the command line (default 127.0.0.1:8000).
 * @returns {{host: string, port: number, base: string}}
 */
export function address() {
  const addr = process.argv[2] ?? "127.0.0.1:8000";
  const i = addr.lastIndexOf(":");
  return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)), base: `http://${addr}` };
}

/**
 * Runs `stop` on SIGTERM or Ctrl-C, then exits with status 0.
 * @param {() => Promise<void>} stop
 */
export function onSignals(stop) {
  const handler = () => stop().then(() => process.exit(0), () => process.exit(1));
  process.once("SIGTERM", handler);
  process.once("SIGINT", handler);
}

// The "shout" agent on the official JavaScript SDK (@a2a-js/sdk 1.3.0) with Express:
// JSON-RPC and HTTP+JSON in v1.0. It answers a message with its text in capitals as an
// artifact; "wait" works until the task is canceled.
//
//     node sdk_agent.mjs PORT
import { randomUUID } from "node:crypto";
import express from "express";
import { TaskState } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from "@a2a-js/sdk/server/express";

const port = Number(process.argv[2]);
const base = `http://127.0.0.1:${port}`;
const card = {
  name: "shout", description: "Answers in capitals", version: "1.0",
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], securitySchemes: {}, securityRequirements: [], signatures: [],
  skills: [{ id: "shout", name: "Shout", description: "Repeats the text in capitals", tags: ["demo"], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  supportedInterfaces: [
    { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" },
    { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant: "" },
  ],
};

const textPart = (text) => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" });
const textOf = (message) => (message?.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");

class Shout {
  waiting = new Map();
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const status = (state) =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined }));
    const text = textOf(ctx.userMessage);
    bus.publish(AgentEvent.task({
      id: taskId, contextId, artifacts: [], history: [ctx.userMessage], metadata: undefined,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    }));
    status(TaskState.TASK_STATE_WORKING);
    if (text === "wait") {
      await new Promise((resolve) => this.waiting.set(taskId, resolve));
      return;
    }
    bus.publish(AgentEvent.artifactUpdate({
      taskId, contextId, append: false, lastChunk: true, metadata: undefined,
      artifact: { artifactId: randomUUID(), name: "shout", description: "", parts: [textPart(text.toUpperCase())], metadata: undefined, extensions: [] },
    }));
    status(TaskState.TASK_STATE_COMPLETED);
    bus.finished();
  }
  async cancelTask(taskId, bus) {
    bus.publish(AgentEvent.statusUpdate({
      taskId, contextId: "", metadata: undefined, status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
    }));
    bus.finished();
    this.waiting.get(taskId)?.();
  }
}

const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new Shout());
const userBuilder = UserBuilder.noAuthentication;
const app = express();
app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: requestHandler }));
app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder }));
app.use("/a2a/rest", restHandler({ requestHandler, userBuilder }));
app.listen(port, "127.0.0.1");

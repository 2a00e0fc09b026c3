#!/usr/bin/env node
// Interop server: one echo agent served by the official @a2a-js/sdk over
// JSON-RPC, HTTP+JSON and gRPC, each for protocol v1.0 and (through the SDK's
// opt-in v0.3 compat layer) v0.3. The agent is the one of ../CHECKS.md.
//
//   node their_server.mjs --port P                          (@a2a-js/sdk 1.3.0, ./node_modules)
//   node ../js-1.0/their_server.mjs --port P                (@a2a-js/sdk 1.0.0-beta.0)
//   A2A_JS_SDK_DIR=DIR node their_server.mjs --port P       (the SDK in DIR/node_modules)
//
// The SDK is loaded through ./sdk.mjs from the folder A2A_JS_SDK_DIR names
// (default: this one); 1.3.0 and 1.0.0-beta.0 share every API used here.
//
// HTTP (agent card, JSON-RPC, REST) listens on 127.0.0.1:P, gRPC on
// 127.0.0.1:P+1. Prints READY on stdout once both are listening.
//
// Behaviour (the same as a2a-wire's demo agent):
//   need-input    -> TASK_STATE_INPUT_REQUIRED with a question; a follow-up on
//                    that task completes it with one artifact echoing the text
//   slow          -> working, then three chunks of artifact "slow"
//                    ("one ", "two ", "three", 0.5 s apart), then completed
//   message-only  -> a direct Message reply, no task
//   a file part with bytes -> completed, artifact "file": a text part
//                    "received N bytes sha256 HEX" and the same file part back
//   anything else -> completed task with artifact "echo" echoing the text
//
// How v0.3 is served (SDK 1.3.0 compat layer, `legacyCompat: {enabled: true}`):
//   - JSON-RPC: same URL for both versions; a request whose A2A-Version header
//     is absent or 0.3 goes to the v0.3 dispatcher (message/send, ...).
//   - REST: v1.0 routes at <base>/message:send ...; v0.3 routes at
//     <base>/v1/message:send ... (A2A-Version absent or 0.3).
//   - gRPC: v1.0 service lf.a2a.v1.A2AService and v0.3 service
//     a2a.v1.A2AService registered on the same server.
//   - Card: A2A-Version 1.0 gets the v1.0 card; absent/0.3 gets a v0.3 card
//     synthesised by the SDK (it keeps supportedInterfaces embedded).
//
// Push notifications: the SDK's InMemoryPushNotificationStore and the sender of
// createLegacyAwarePushNotificationSender (v1.0 webhooks get a StreamResponse
// body, webhooks set over v0.3 the bare v0.3 event). The sender posts to any
// URL, 127.0.0.1 included; the token goes in X-A2A-Notification-Token.

import { createHash, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sdk, peer, SDK_VERSION } from './sdk.mjs';

const express = peer('express');
const grpc = peer('@grpc/grpc-js');
const { Role, TaskState } = await sdk();
const { AgentEvent, DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore } = await sdk('/server');
const { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } = await sdk('/server/express');
const { A2AService, grpcService } = await sdk('/server/grpc');
const { LegacyA2AService, legacyGrpcService } = await sdk('/compat/v0_3/server/grpc');
const { createLegacyAwarePushNotificationSender } = await sdk('/compat/v0_3/server');

const { values: opts } = parseArgs({ options: { port: { type: 'string' } } });
const port = Number.parseInt(opts.port ?? '', 10);
if (!Number.isInteger(port) || port <= 0 || port >= 65535) {
  process.stderr.write('usage: their_server.mjs --port P   (gRPC then listens on P+1)\n');
  process.exit(2);
}
const HOST = '127.0.0.1';
const grpcPort = port + 1;
const httpBase = `http://${HOST}:${port}`;

// ------------------------------------------------------------ agent card ----

const interfaces = [];
for (const protocolVersion of ['1.0', '0.3']) {
  interfaces.push(
    { url: `${httpBase}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion },
    { url: `${httpBase}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion },
    { url: `${HOST}:${grpcPort}`, protocolBinding: 'GRPC', tenant: '', protocolVersion },
  );
}

const agentCard = {
  name: 'a2a-js interop echo',
  description:
    'Echoes text back: need-input asks a question, slow streams three chunks, message-only replies with a message, a file comes back with its size and sha256.',
  supportedInterfaces: interfaces,
  version: '0.1.0',
  capabilities: { streaming: true, pushNotifications: true, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Echoes the text of a message as an artifact.',
      tags: ['echo', 'demo'],
      examples: ['hello', 'need-input', 'slow', 'message-only', 'file'],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    },
  ],
  signatures: [],
};

// ----------------------------------------------------------------- agent ----

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => new Date().toISOString();

const textPart = (text) => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' });

function agentMessage(text, contextId, taskId = '') {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function textOf(message) {
  return (message?.parts ?? [])
    .map((p) => (p?.content?.$case === 'text' ? p.content.value : ''))
    .join('');
}

class EchoAgent {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const text = textOf(ctx.userMessage);
    const status = (state, message) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message, timestamp: now() },
          metadata: undefined,
        }),
      );
    const artifact = (artifactId, chunk, append = false, lastChunk = false) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId,
            name: '',
            description: '',
            parts: typeof chunk === 'string' ? [textPart(chunk)] : chunk,
            metadata: undefined,
            extensions: [],
          },
          append,
          lastChunk,
          metadata: undefined,
        }),
      );

    // A follow-up to a task that asked for input: echo the answer and finish.
    if (ctx.task) {
      status(TaskState.TASK_STATE_WORKING, undefined);
      artifact('echo', text, false, true);
      status(TaskState.TASK_STATE_COMPLETED, undefined);
      bus.finished();
      return;
    }

    if (text === 'message-only') {
      bus.publish(AgentEvent.message(agentMessage(text, contextId)));
      bus.finished();
      return;
    }

    const file = (ctx.userMessage?.parts ?? []).find((p) => p?.content?.$case === 'raw');

    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      }),
    );

    if (text === 'need-input') {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, agentMessage('What should I echo?', contextId, taskId));
      // No finished(): the SDK keeps the bus of an interrupted task alive
      // for the follow-up message.
      return;
    }

    if (file) {
      // Send back what arrived: its size and digest, then the same bytes.
      const bytes = Buffer.from(file.content.value);
      const digest = createHash('sha256').update(bytes).digest('hex');
      artifact('file', [textPart(`received ${bytes.length} bytes sha256 ${digest}`), { ...file, content: { $case: 'raw', value: bytes } }], false, true);
      status(TaskState.TASK_STATE_COMPLETED, undefined);
      bus.finished();
      return;
    }

    if (text === 'slow') {
      status(TaskState.TASK_STATE_WORKING, undefined);
      const chunks = ['one ', 'two ', 'three'];
      for (let i = 0; i < chunks.length; i++) {
        await sleep(500);
        artifact('slow', chunks[i], i > 0, i === chunks.length - 1);
      }
      status(TaskState.TASK_STATE_COMPLETED, undefined);
      bus.finished();
      return;
    }

    artifact('echo', text, false, true);
    status(TaskState.TASK_STATE_COMPLETED, undefined);
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() },
        metadata: undefined,
      }),
    );
    bus.finished();
  }
}

const pushStore = new InMemoryPushNotificationStore();
const requestHandler = new DefaultRequestHandler(
  agentCard,
  new InMemoryTaskStore(),
  new EchoAgent(),
  undefined, // the default event bus manager
  pushStore,
  createLegacyAwarePushNotificationSender(pushStore),
);

// ----------------------------------------------------------------- HTTP ----

const legacyCompat = { enabled: true };
const userBuilder = UserBuilder.noAuthentication;
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder, legacyCompat }));
app.use('/a2a/rest', restHandler({ requestHandler, userBuilder, legacyCompat }));

const httpReady = new Promise((resolve, reject) => {
  const server = app.listen(port, HOST, () => resolve(server));
  server.on('error', reject);
});

// ----------------------------------------------------------------- gRPC ----

const grpcServer = new grpc.Server();
grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
grpcServer.addService(LegacyA2AService, legacyGrpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
const grpcReady = new Promise((resolve, reject) => {
  grpcServer.bindAsync(`${HOST}:${grpcPort}`, grpc.ServerCredentials.createInsecure(), (err, boundPort) =>
    err ? reject(err) : resolve(boundPort),
  );
});

try {
  const [httpServer] = await Promise.all([httpReady, grpcReady]);
  process.stderr.write(`@a2a-js/sdk ${SDK_VERSION}\n`);
  process.stdout.write('READY\n');
  const shutdown = () => {
    httpServer.close();
    grpcServer.forceShutdown();
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
} catch (e) {
  process.stderr.write(`failed to start: ${e?.stack ?? e}\n`);
  process.exit(1);
}

#!/usr/bin/env node
// Interop server: the demo echo agent of tests/interop/CHECKS.md served by the
// official @a2a-js/sdk 0.3.14 (a v0.3 release: protocol 0.3 only) over JSON-RPC,
// HTTP+JSON (REST) and gRPC.
//
//   npm ci --prefix tests/interop/js-0.3
//   node tests/interop/js-0.3/their_server.mjs --port P [--host 127.0.0.1]
//
// HTTP (agent card, JSON-RPC, REST) listens on 127.0.0.1:P, gRPC on 127.0.0.1:P+1.
// Prints READY on stdout once both are listening.
//
// The card is a v0.3 card (protocolVersion 0.3.0): `url` + `preferredTransport: JSONRPC`,
// and `additionalInterfaces` listing all three:
//   JSONRPC    http://127.0.0.1:P/a2a/jsonrpc   (jsonRpcHandler)
//   HTTP+JSON  http://127.0.0.1:P/a2a/rest      (restHandler: /v1/message:send, ...)
//   GRPC       127.0.0.1:P+1                    (grpcService, service a2a.v1.A2AService)
// gRPC is written as the bare target host:port, as the SDK's README publishes it
// (`{ url: 'localhost:4001', transport: 'GRPC' }`): its client hands the URL to grpc-js
// as the channel target, which does not resolve http://host:port.
//
// Push notifications are on (capabilities.pushNotifications), with the SDK's own
// InMemoryPushNotificationStore and DefaultPushNotificationSender: after every event of a
// task with a config, the sender POSTs the whole v0.3 Task as JSON, the config's token in
// X-A2A-Notification-Token. The sender posts to any URL (127.0.0.1 included).
//
// Behaviour (CHECKS.md), by the text of the message (text parts joined):
//   need-input    -> input-required with a question; a follow-up on that task completes it,
//                    one artifact "echo" echoing the follow-up
//   slow          -> working, then three chunks "one ", "two ", "three" of artifact "slow",
//                    0.5 s apart, the last with lastChunk, then completed
//   message-only  -> a direct agent Message "message-only", no task
//   a file part with bytes -> completed, artifact "file": a text part
//                    "received N bytes sha256 HEX", then a file part with the same bytes,
//                    name and media type
//   anything else -> completed with one artifact "echo" echoing the text

import { createHash, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import express from 'express';
import * as grpc from '@grpc/grpc-js';
import {
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';

const { values: opts } = parseArgs({
  options: { port: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' } },
});
const port = Number.parseInt(opts.port ?? '', 10);
if (!Number.isInteger(port) || port <= 0 || port >= 65535) {
  process.stderr.write('usage: their_server.mjs --port P [--host 127.0.0.1]   (gRPC then listens on P+1)\n');
  process.exit(2);
}
const HOST = opts.host;
const grpcPort = port + 1;
const httpBase = `http://${HOST}:${port}`;

// ------------------------------------------------------------ agent card ----

const agentCard = {
  name: 'a2a-js 0.3 interop echo',
  description:
    'Echoes text back: need-input asks a question, slow streams three chunks, message-only replies with a message, a file is echoed with its digest.',
  protocolVersion: '0.3.0',
  version: '0.1.0',
  url: `${httpBase}/a2a/jsonrpc`,
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [
    { url: `${httpBase}/a2a/jsonrpc`, transport: 'JSONRPC' },
    { url: `${httpBase}/a2a/rest`, transport: 'HTTP+JSON' },
    { url: `${HOST}:${grpcPort}`, transport: 'GRPC' },
  ],
  capabilities: { streaming: true, pushNotifications: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Echoes the text of a message as an artifact.',
      tags: ['echo', 'demo'],
      examples: ['hello', 'need-input', 'slow', 'message-only'],
    },
  ],
};

// ----------------------------------------------------------------- agent ----

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => new Date().toISOString();

function textOf(message) {
  return (message?.parts ?? []).map((p) => (p?.kind === 'text' ? p.text : '')).join('');
}

/** The first file part that carries bytes (v0.3: `file.bytes`, base64). */
function fileWithBytes(message) {
  return (message?.parts ?? []).find((p) => p?.kind === 'file' && typeof p.file?.bytes === 'string');
}

class EchoAgent {
  async execute(ctx, bus) {
    const { taskId, contextId, userMessage } = ctx;
    const text = textOf(userMessage);
    const status = (state, message, final = false) =>
      bus.publish({ kind: 'status-update', taskId, contextId, status: { state, message, timestamp: now() }, final });
    const artifact = (artifactId, parts, append = false, lastChunk = false) =>
      bus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        artifact: { artifactId, name: artifactId, parts },
        append,
        lastChunk,
      });
    const agentText = (t) => ({ kind: 'message', messageId: randomUUID(), role: 'agent', parts: [{ kind: 'text', text: t }], taskId, contextId });

    // A follow-up to a task that asked for input: echo the answer and finish.
    if (ctx.task) {
      status('working');
      artifact('echo', [{ kind: 'text', text }], false, true);
      status('completed', undefined, true);
      bus.finished();
      return;
    }

    if (text === 'message-only') {
      bus.publish({ kind: 'message', messageId: randomUUID(), role: 'agent', parts: [{ kind: 'text', text }], contextId });
      bus.finished();
      return;
    }

    bus.publish({
      kind: 'task',
      id: taskId,
      contextId,
      status: { state: 'submitted', timestamp: now() },
      history: [userMessage],
    });

    const file = fileWithBytes(userMessage);
    if (file) {
      const bytes = Buffer.from(file.file.bytes, 'base64');
      const hex = createHash('sha256').update(bytes).digest('hex');
      const back = { bytes: bytes.toString('base64') };
      if (file.file.name !== undefined) back.name = file.file.name;
      if (file.file.mimeType !== undefined) back.mimeType = file.file.mimeType;
      status('working');
      artifact('file', [{ kind: 'text', text: `received ${bytes.length} bytes sha256 ${hex}` }, { kind: 'file', file: back }], false, true);
      status('completed', undefined, true);
      bus.finished();
      return;
    }

    if (text === 'need-input') {
      // final: the SDK ends the call here and keeps the task for the follow-up.
      status('input-required', agentText('What should I echo?'), true);
      bus.finished();
      return;
    }

    if (text === 'slow') {
      status('working');
      const chunks = ['one ', 'two ', 'three'];
      for (let i = 0; i < chunks.length; i++) {
        await sleep(500);
        artifact('slow', [{ kind: 'text', text: chunks[i] }], i > 0, i === chunks.length - 1);
      }
      status('completed', undefined, true);
      bus.finished();
      return;
    }

    artifact('echo', [{ kind: 'text', text }], false, true);
    status('completed', undefined, true);
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    bus.publish({ kind: 'status-update', taskId, contextId: '', status: { state: 'canceled', timestamp: now() }, final: true });
    bus.finished();
  }
}

const pushStore = new InMemoryPushNotificationStore();
const pushSender = new DefaultPushNotificationSender(pushStore, { timeout: 5000, tokenHeaderName: 'X-A2A-Notification-Token' });
const requestHandler = new DefaultRequestHandler(
  agentCard,
  new InMemoryTaskStore(),
  new EchoAgent(),
  undefined, // event bus manager: the SDK's default
  pushStore,
  pushSender,
);

// ----------------------------------------------------------------- HTTP ----

const userBuilder = UserBuilder.noAuthentication;
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder }));
app.use('/a2a/rest', restHandler({ requestHandler, userBuilder }));

const httpReady = new Promise((resolve, reject) => {
  const server = app.listen(port, HOST, () => resolve(server));
  server.on('error', reject);
});

// ----------------------------------------------------------------- gRPC ----

const grpcServer = new grpc.Server();
grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
const grpcReady = new Promise((resolve, reject) => {
  grpcServer.bindAsync(`${HOST}:${grpcPort}`, grpc.ServerCredentials.createInsecure(), (err, boundPort) =>
    err ? reject(err) : resolve(boundPort),
  );
});

try {
  const [httpServer] = await Promise.all([httpReady, grpcReady]);
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

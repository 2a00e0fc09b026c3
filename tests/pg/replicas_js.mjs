#!/usr/bin/env node
// One step of tests/pg/replicas_js.py with the official @a2a-js/sdk client (the release of
// tests/interop/js), on one binding, through the balancer the card names:
//
//   node replicas_js.mjs CARD_FILE BINDING stream TEXT     the events of a SendStreamingMessage
//   node replicas_js.mjs CARD_FILE BINDING subscribe TASK  the events of a SubscribeToTask
//   node replicas_js.mjs CARD_FILE BINDING cancel TASK     CancelTask's answer
//   node replicas_js.mjs CARD_FILE BINDING look TASK...    GetTask of each, then ListTasks
//
// Each step is its own process, so it opens its own connection (Node's fetch keeps one
// alive per origin and grpc-js shares a channel's connection inside a process): consecutive
// steps land on consecutive replicas behind the round-robin balancer. The card is read from
// CARD_FILE (as a replica served it) and cut to the interface under test.
//
// Prints one JSON line per event or answer ({"kind","task","state","tick"}); exits 1 with
// the error on stderr when the SDK call fails, 2 on bad arguments. Bounded: 30 s.

import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { sdk } from '../interop/js/sdk.mjs';

const [cardFile, binding, step, ...args] = process.argv.slice(2);
if (!cardFile || !binding || !step) {
  process.stderr.write('usage: replicas_js.mjs CARD_FILE BINDING stream|subscribe|cancel|look ARG...\n');
  process.exit(2);
}
const { Role, TaskState } = await sdk();
const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } = await sdk('/client');
const { GrpcTransportFactory } = await sdk('/client/grpc');

const timer = setTimeout(() => {
  process.stderr.write(`${step}: timed out after 30 s\n`);
  process.exit(1);
}, 30_000);

const card = JSON.parse(readFileSync(cardFile, 'utf8'));
const iface = card.supportedInterfaces.find((i) => i.protocolBinding === binding && i.protocolVersion.startsWith('1.'));
const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({}), new RestTransportFactory({}), new GrpcTransportFactory({})],
  }),
);
const client = await factory.createFromAgentCard({ ...card, supportedInterfaces: [iface] });

const stateName = (s) => TaskState[s] ?? String(s);
const text = (parts) => (parts ?? []).map((p) => (p?.content?.$case === 'text' ? p.content.value : '')).join('');

function line(ev) {
  const p = ev.payload ?? { $case: 'task', value: ev };
  const v = p.value;
  const out = { kind: p.$case, task: p.$case === 'task' ? v.id : v.taskId };
  if (p.$case === 'task' || p.$case === 'statusUpdate') out.state = stateName(v.status?.state);
  if (p.$case === 'artifactUpdate') out.tick = text(v.artifact?.parts);
  process.stdout.write(JSON.stringify(out) + '\n');
}

const message = (t) => ({
  messageId: randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: t }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

try {
  if (step === 'stream') {
    const req = { tenant: '', message: message(args.join(' ')), configuration: undefined, metadata: undefined };
    for await (const ev of client.sendMessageStream(req)) line(ev);
  } else if (step === 'subscribe') {
    for await (const ev of client.resubscribeTask({ tenant: '', id: args[0] })) line(ev);
  } else if (step === 'cancel') {
    line(await client.cancelTask({ tenant: '', id: args[0], metadata: undefined }));
  } else if (step === 'look') {
    for (const id of args) line(await client.getTask({ tenant: '', id, historyLength: undefined }));
    const listed = await client.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 100,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: undefined,
    });
    process.stdout.write(JSON.stringify({ kind: 'list', tasks: (listed.tasks ?? []).map((t) => t.id) }) + '\n');
  } else {
    process.stderr.write(`unknown step ${step}\n`);
    process.exit(2);
  }
} catch (e) {
  process.stderr.write(`${step} on ${binding}: ${e?.stack ?? e}\n`);
  process.exit(1);
}
clearTimeout(timer);
// grpc-js keeps its channel (and the process) alive: the step is over.
process.exit(0);

#!/usr/bin/env node
// Interop client: drives an A2A server (normally a2a-wire) with the official
// @a2a-js/sdk client, once per binding (JSONRPC, HTTP+JSON, GRPC) and protocol
// version (1.0, 0.3), and prints one JSON result line per check on stdout.
//
//   node their_client.mjs --url http://127.0.0.1:7441 [--binding JSONRPC|HTTP+JSON|GRPC]...
//                         [--version 1.0|0.3]... [--server-name NAME]
//
// Every check runs on its own; a failing check never stops the others, and the
// process always exits 0 (the orchestrator judges the lines).
// Set A2A_INTEROP_TRACE=1 to log every HTTP exchange to stderr, and
// A2A_INTEROP_TIMEOUT_MS to change the per-check deadline (default 20000).

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { credentials as grpcCredentials } from '@grpc/grpc-js';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';

const TIMEOUT_MS = Number(process.env.A2A_INTEROP_TIMEOUT_MS) || 20_000;
const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
const VERSIONS = ['1.0', '0.3'];

const { values: opts } = parseArgs({
  options: {
    url: { type: 'string' },
    binding: { type: 'string', multiple: true },
    version: { type: 'string', multiple: true },
    'server-name': { type: 'string', default: 'a2a-wire' },
    // TLS rows: https:// agents verified against this CA. fetch (JSON-RPC, HTTP+JSON) reads
    // it from NODE_EXTRA_CA_CERTS, which the caller sets to the same file; gRPC gets it here.
    'ca-file': { type: 'string' },
  },
});
if (!opts.url) {
  process.stderr.write('usage: their_client.mjs --url http://127.0.0.1:PORT [--binding B] [--version V]\n');
  process.exit(2);
}
const baseUrl = opts.url.replace(/\/+$/, '');
const bindings = opts.binding?.length ? opts.binding : BINDINGS;
const versions = opts.version?.length ? opts.version : VERSIONS;

// Never let a stray rejection (e.g. a gRPC stream torn down after a check gave
// up on it) crash the run: report it on stderr and carry on.
process.on('unhandledRejection', (e) => process.stderr.write(`unhandled rejection: ${describe(e)}\n`));
process.on('uncaughtException', (e) => process.stderr.write(`uncaught exception: ${describe(e)}\n`));

// ---------------------------------------------------------------- output ----

function emit(binding, version, check, ok, detail) {
  const line = { sdk: 'js', client: 'js', server: opts['server-name'], binding, version, check, ok, detail };
  process.stdout.write(JSON.stringify(line) + '\n');
}

/** Why an expected A2A error was not recognised, when the cause is a known one. */
function errorHint(e, version, binding) {
  const text = String(e?.message ?? '');
  if (version === '0.3' && binding === 'HTTP+JSON' && text.includes('{"error":')) {
    return (
      ' | hint: the SDK v0.3 HTTP+JSON client maps only a bare JSON-RPC-style error body ' +
      '{"code":-32001,"message":...}; this server sent a v1.0 (AIP-193) {"error":{...}} body on a v0.3 route'
    );
  }
  return '';
}

function describe(e) {
  if (e === undefined || e === null) return String(e);
  if (!(e instanceof Error)) return typeof e === 'string' ? e : JSON.stringify(e);
  const bits = [`${e.name}: ${e.message}`];
  for (const k of ['reason', 'envelopeCode', 'statusCode', 'status', 'code']) {
    if (e[k] !== undefined && typeof e[k] !== 'object') bits.push(`${k}=${e[k]}`);
  }
  if (e.data !== undefined) bits.push(`data=${JSON.stringify(e.data)}`);
  if (e.cause) bits.push(`cause=(${describe(e.cause)})`);
  return bits.join(' ');
}

const stateName = (s) => (s === undefined ? 'undefined' : (TaskState[s] ?? String(s)));

// --------------------------------------------------------------- tracing ----

async function tracingFetch(input, init) {
  const url = typeof input === 'string' ? input : input.url ?? String(input);
  const method = init?.method ?? 'GET';
  process.stderr.write(`>> ${method} ${url} ${JSON.stringify(init?.headers ?? {})} ${init?.body ?? ''}\n`);
  const res = await fetch(input, init);
  const copy = res.clone();
  copy.text().then(
    (t) => process.stderr.write(`<< ${res.status} ${res.headers.get('content-type')} ${url}\n${t}\n`),
    () => {},
  );
  return res;
}
const fetchImpl = process.env.A2A_INTEROP_TRACE ? tracingFetch : undefined;

// ------------------------------------------------------------- utilities ----

/** Runs `fn(signal)` with a hard deadline, whatever the SDK does with the signal. */
async function withDeadline(fn, ms = TIMEOUT_MS) {
  const ctl = new AbortController();
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => {
      ctl.abort(new Error(`timed out after ${ms} ms`));
      reject(new Error(`timed out after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([fn(ctl.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function userMessage(text, { taskId = '', contextId = '' } = {}) {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function sendRequest(message) {
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

const isMessage = (r) => r && typeof r === 'object' && 'messageId' in r && !('status' in r);
const isTask = (r) => r && typeof r === 'object' && 'status' in r && 'id' in r;

function partsText(parts) {
  return (parts ?? [])
    .map((p) => (p?.content?.$case === 'text' ? p.content.value : ''))
    .join('');
}

function artifactsSummary(task) {
  return (task.artifacts ?? []).map((a) => ({ id: a.artifactId, text: partsText(a.parts) }));
}

function taskSummary(task) {
  return JSON.stringify({
    id: task.id,
    state: stateName(task.status?.state),
    artifacts: artifactsSummary(task),
  });
}

class CheckFailure extends Error {}
function expect(cond, msg) {
  if (!cond) throw new CheckFailure(msg);
}

// ----------------------------------------------------------- the checks ----

/**
 * The SDK hands the card's gRPC URL to grpc-js as its target, and grpc-js takes `host:port`,
 * not the `https://host:port` a TLS card lists (INTEROP.md, "JS SDK: gRPC over TLS"): this
 * wrapper gives it the bare address; the channel credentials carry the TLS.
 */
function tlsGrpc(inner) {
  const bare = (u) => u.replace(/^https:\/\//, '');
  return {
    get protocolName() { return inner.protocolName; },
    create(url, card) {
      const ifaces = (card.supportedInterfaces ?? []).map((i) => (i.protocolBinding === 'GRPC' ? { ...i, url: bare(i.url) } : i));
      return inner.create(bare(url), { ...card, supportedInterfaces: ifaces });
    },
  };
}

function makeFactory() {
  const legacyCompat = { enabled: true };
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ legacyCompat, fetchImpl }),
      transports: [
        new JsonRpcTransportFactory({ legacyCompat, fetchImpl }),
        new RestTransportFactory({ legacyCompat, fetchImpl }),
        opts['ca-file'] ? tlsGrpc(new GrpcTransportFactory({ legacyCompat, grpcChannelCredentials: grpcCredentials.createSsl(readFileSync(opts['ca-file'])) })) : new GrpcTransportFactory({ legacyCompat }),
      ],
    }),
  );
}

function sameVersion(a, b) {
  const norm = (v) => String(v ?? '').split('.').slice(0, 2).map((x) => Number.parseInt(x, 10) || 0).join('.');
  return norm(a) === norm(b);
}

/** Runs every check for one binding × version. */
async function runCombo(binding, version) {
  const report = (check, ok, detail) => emit(binding, version, check, ok, detail);
  const state = { client: undefined, task: undefined };

  async function check(name, fn) {
    try {
      const detail = await withDeadline(fn);
      report(name, true, detail ?? '');
    } catch (e) {
      report(name, false, e instanceof CheckFailure ? e.message : describe(e));
    }
  }

  function needClient() {
    if (!state.client) throw new CheckFailure('no client: the card check did not yield one');
    return state.client;
  }

  /** A completed task for the checks that need one: reuse send's, else make one. */
  async function completedTask(signal) {
    if (state.task) return state.task;
    const r = await needClient().sendMessage(sendRequest(userMessage('hello')), { signal });
    if (!isTask(r)) throw new CheckFailure(`could not create a task to work on (send returned ${JSON.stringify(r)})`);
    state.task = r;
    return r;
  }

  await check('card', async (signal) => {
    const factory = makeFactory();
    const resolver = new DefaultAgentCardResolver({ legacyCompat: { enabled: true }, fetchImpl });
    const card = await resolver.resolve(baseUrl);
    const ifaces = card.supportedInterfaces ?? [];
    const iface = ifaces.find(
      (i) => String(i.protocolBinding).toUpperCase() === binding && sameVersion(i.protocolVersion, version),
    );
    expect(iface, `card lists no ${binding} ${version} interface: ${JSON.stringify(ifaces)}`);
    // Keep only the chosen interface so the factory cannot prefer another one.
    const client = await factory.createFromAgentCard({ ...card, supportedInterfaces: [iface] });
    expect(
      String(client.transport.protocolName).toUpperCase() === binding,
      `factory picked transport ${client.transport.protocolName}`,
    );
    expect(
      sameVersion(client.protocolVersion, version),
      `factory picked protocol version ${client.protocolVersion}`,
    );
    expect(card.capabilities?.streaming === true, 'card does not declare capabilities.streaming');
    state.client = client;
    void signal;
    return `interface ${iface.url} (${client.transport.constructor.name})`;
  });

  await check('send', async (signal) => {
    const r = await needClient().sendMessage(sendRequest(userMessage('hello')), { signal });
    expect(isTask(r), `expected a Task, got ${JSON.stringify(r)}`);
    state.task = r;
    expect(r.status?.state === TaskState.TASK_STATE_COMPLETED, `state ${stateName(r.status?.state)}: ${taskSummary(r)}`);
    const arts = artifactsSummary(r);
    expect(arts.length === 1 && arts[0].text === 'hello', `artifacts ${JSON.stringify(arts)}`);
    return taskSummary(r);
  });

  await check('get', async (signal) => {
    const t = await completedTask(signal);
    const r = await needClient().getTask({ tenant: '', id: t.id, historyLength: undefined }, { signal });
    expect(isTask(r), `expected a Task, got ${JSON.stringify(r)}`);
    expect(r.id === t.id, `task id ${r.id} != ${t.id}`);
    expect(r.status?.state === TaskState.TASK_STATE_COMPLETED, `state ${stateName(r.status?.state)}`);
    const arts = artifactsSummary(r);
    expect(arts.length === 1 && arts[0].text === 'hello', `artifacts ${JSON.stringify(arts)}`);
    return taskSummary(r);
  });

  await check('stream', async (signal) => {
    const events = [];
    for await (const ev of needClient().sendMessageStream(sendRequest(userMessage('slow')), { signal })) {
      events.push(ev);
    }
    const trace = events.map((ev) => {
      const p = ev.payload;
      if (!p) return '?';
      if (p.$case === 'task') return `task(${stateName(p.value.status?.state)})`;
      if (p.$case === 'message') return 'message';
      if (p.$case === 'statusUpdate') return `status(${stateName(p.value.status?.state)})`;
      const a = p.value;
      return `artifact(${a.artifact?.artifactId},${JSON.stringify(partsText(a.artifact?.parts))},append=${a.append},last=${a.lastChunk})`;
    });
    const arts = events.filter((e) => e.payload?.$case === 'artifactUpdate').map((e) => e.payload.value);
    const states = events
      .map((e) =>
        e.payload?.$case === 'task' || e.payload?.$case === 'statusUpdate' ? e.payload.value.status?.state : undefined,
      )
      .filter((s) => s !== undefined);
    const problems = [];
    if (arts.length !== 3) problems.push(`${arts.length} artifact updates, want 3`);
    const appends = arts.map((a) => a.append);
    if (JSON.stringify(appends) !== JSON.stringify([false, true, true]))
      problems.push(`append flags ${JSON.stringify(appends)}, want [false,true,true]`);
    if (arts.length && !arts[arts.length - 1].lastChunk) problems.push('last chunk lacks lastChunk=true');
    if (arts.some((a) => a.artifact?.artifactId !== 'slow')) problems.push('artifactId is not "slow" throughout');
    const text = arts.map((a) => partsText(a.artifact?.parts)).join('');
    if (text !== 'one two three') problems.push(`assembled text ${JSON.stringify(text)}`);
    const final = states[states.length - 1];
    if (final !== TaskState.TASK_STATE_COMPLETED) problems.push(`final state ${stateName(final)}`);
    if (
      version === '0.3' &&
      binding !== 'JSONRPC' &&
      arts.length > 1 &&
      arts.every((a) => a.append === false)
    ) {
      problems.push(
        'hint: @a2a-js/sdk 1.3.0 v0.3 HTTP+JSON/gRPC clients drop `append` ' +
          '(FromProto.taskArtifactUpdateEvent omits it); check the wire before blaming the server',
      );
    }
    expect(problems.length === 0, `${problems.join('; ')} | events: ${trace.join(' ')}`);
    return trace.join(' ');
  });

  await check('input_required', async (signal) => {
    const client = needClient();
    const first = await client.sendMessage(sendRequest(userMessage('need-input')), { signal });
    expect(isTask(first), `expected a Task, got ${JSON.stringify(first)}`);
    expect(
      first.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED,
      `first reply state ${stateName(first.status?.state)}, want TASK_STATE_INPUT_REQUIRED`,
    );
    const question = partsText(first.status?.message?.parts);
    const second = await client.sendMessage(
      sendRequest(userMessage('x', { taskId: first.id, contextId: first.contextId })),
      { signal },
    );
    expect(isTask(second), `follow-up: expected a Task, got ${JSON.stringify(second)}`);
    expect(second.id === first.id, `follow-up answered with task ${second.id}, not ${first.id}`);
    expect(
      second.status?.state === TaskState.TASK_STATE_COMPLETED,
      `follow-up state ${stateName(second.status?.state)}, want TASK_STATE_COMPLETED`,
    );
    const arts = artifactsSummary(second);
    expect(arts.some((a) => a.text === 'x'), `follow-up artifacts ${JSON.stringify(arts)} do not echo "x"`);
    return `question ${JSON.stringify(question)}; then ${taskSummary(second)}`;
  });

  await check('cancel_completed', async (signal) => {
    const t = await completedTask(signal);
    let r;
    try {
      r = await needClient().cancelTask({ tenant: '', id: t.id, metadata: undefined }, { signal });
    } catch (e) {
      expect(e instanceof TaskNotCancelableError, `wrong error: ${describe(e)}${errorHint(e, version, binding)}`);
      return describe(e);
    }
    throw new CheckFailure(`cancel succeeded instead of failing: ${isTask(r) ? taskSummary(r) : JSON.stringify(r)}`);
  });

  await check('get_unknown', async (signal) => {
    let r;
    try {
      r = await needClient().getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }, { signal });
    } catch (e) {
      expect(e instanceof TaskNotFoundError, `wrong error: ${describe(e)}${errorHint(e, version, binding)}`);
      return describe(e);
    }
    throw new CheckFailure(`GetTask succeeded instead of failing: ${JSON.stringify(r)}`);
  });

  if (sameVersion(version, '1.0')) {
    await check('list', async (signal) => {
      const t = await completedTask(signal);
      const r = await needClient().listTasks(
        {
          tenant: '',
          contextId: '',
          status: TaskState.TASK_STATE_UNSPECIFIED,
          pageSize: undefined,
          pageToken: '',
          historyLength: undefined,
          statusTimestampAfter: undefined,
          includeArtifacts: undefined,
        },
        { signal },
      );
      const ids = (r?.tasks ?? []).map((x) => x.id);
      expect(ids.length > 0, `no tasks listed: ${JSON.stringify(r)}`);
      expect(ids.includes(t.id), `task ${t.id} not among the ${ids.length} listed`);
      return `${ids.length} tasks, pageSize=${r.pageSize}, totalSize=${r.totalSize}, nextPageToken=${JSON.stringify(r.nextPageToken)}`;
    });
  }

  await check('message_only', async (signal) => {
    const r = await needClient().sendMessage(sendRequest(userMessage('message-only')), { signal });
    expect(isMessage(r), `expected a Message, got ${JSON.stringify(r)}`);
    expect(r.role === Role.ROLE_AGENT, `message role ${Role[r.role] ?? r.role}, want ROLE_AGENT`);
    return `message ${JSON.stringify(partsText(r.parts))}`;
  });

  // Release the gRPC channel so the process can end on its own.
  try {
    state.client?.transport?.grpcClient?.close?.();
  } catch {
    /* ignore */
  }
}

for (const binding of bindings) {
  for (const version of versions) {
    await runCombo(binding.toUpperCase(), version);
  }
}
process.exit(0);

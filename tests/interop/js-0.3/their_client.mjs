#!/usr/bin/env node
// Interop client: the checks of tests/interop/CHECKS.md, driven by the official
// @a2a-js/sdk 0.3.14 client (protocol v0.3 only) against any A2A server, once per
// binding (JSONRPC, HTTP+JSON, GRPC); one JSON result line per check on stdout.
//
//   npm ci --prefix tests/interop/js-0.3
//   node tests/interop/js-0.3/their_client.mjs --url http://127.0.0.1:PORT
//        [--binding JSONRPC|HTTP+JSON|GRPC]... [--version 0.3]... [--timeout 20]
//        [--server NAME] [--ca-file CA.pem]
//
// How the SDK is steered to each interface: the card is fetched with the SDK's
// DefaultAgentCardResolver; the v0.3 card fields name the interfaces (`url` with
// `preferredTransport`, and `additionalInterfaces`). For the binding under test the client
// is made by ClientFactory.createFromAgentCard from a copy of the card whose `url`,
// `preferredTransport` and `additionalInterfaces` list that one interface only, so the
// factory can pick no other. The factory has the JsonRpcTransportFactory,
// RestTransportFactory and GrpcTransportFactory (@a2a-js/sdk/client/grpc).
//
// 0.3.14 speaks v0.3 only: --version 1.0 prints failing `card` rows saying so.
// Every check runs on its own; a failing check never stops the others, and the process
// always exits 0 (run.py judges the lines). A2A_INTEROP_TRACE=1 logs every HTTP exchange
// of the JSON-RPC and HTTP+JSON transports, and every POST the push webhook gets, to stderr.

import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { credentials as grpcCredentials } from '@grpc/grpc-js';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  TaskNotCancelableError,
  TaskNotFoundError,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';

const SDK = 'js-0.3';
const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
const VERSIONS = ['0.3'];
// CHECKS.md: 32 bytes, not UTF-8, not base64 text.
const FILE_BYTES = Buffer.from('6132612d7769726520000102feff2066696c652062797465732089504e470d0a', 'hex');
const FILE_SHA256 = 'c623ddb6f664aa33b3176d5db240949c0cfa08cc35de1470e309eab0c90bde03';

const { values: opts } = parseArgs({
  options: {
    url: { type: 'string' },
    binding: { type: 'string', multiple: true },
    version: { type: 'string', multiple: true },
    timeout: { type: 'string', default: '20' },
    server: { type: 'string' },
    'server-name': { type: 'string' },
    // TLS rows: fetch (JSON-RPC, HTTP+JSON) reads the CA from NODE_EXTRA_CA_CERTS, which
    // the caller sets to the same file; gRPC gets it here.
    'ca-file': { type: 'string' },
  },
});
if (!opts.url) {
  process.stderr.write('usage: their_client.mjs --url http://127.0.0.1:PORT [--binding B]... [--version 0.3] [--timeout S] [--server NAME]\n');
  process.exit(2);
}
const baseUrl = opts.url.replace(/\/+$/, '');
const bindings = (opts.binding?.length ? opts.binding : BINDINGS).map((b) => b.toUpperCase());
const versions = opts.version?.length ? opts.version : VERSIONS;
const serverName = opts.server ?? opts['server-name'] ?? 'a2a-wire';
const TIMEOUT_MS = (Number(opts.timeout) || 20) * 1000;

// A stray rejection (a stream torn down after a check gave up on it) must not end the run.
process.on('unhandledRejection', (e) => process.stderr.write(`unhandled rejection: ${describe(e)}\n`));
process.on('uncaughtException', (e) => process.stderr.write(`uncaught exception: ${describe(e)}\n`));

// ---------------------------------------------------------------- output ----

function emit(binding, version, check, ok, detail) {
  const line = { sdk: SDK, client: SDK, server: serverName, binding, version, check, ok, detail };
  process.stdout.write(JSON.stringify(line) + '\n');
}

function describe(e) {
  if (e === undefined || e === null) return String(e);
  if (!(e instanceof Error)) return typeof e === 'string' ? e : JSON.stringify(e);
  const bits = [`${e.name}: ${e.message}`];
  for (const k of ['code', 'details']) {
    if (e[k] !== undefined && typeof e[k] !== 'object') bits.push(`${k}=${e[k]}`);
  }
  if (e.errorResponse?.error) bits.push(`rpc=${JSON.stringify(e.errorResponse.error)}`);
  if (e.cause) bits.push(`cause=(${describe(e.cause)})`);
  return bits.join(' ');
}

// --------------------------------------------------------------- tracing ----

async function tracingFetch(input, init) {
  const url = typeof input === 'string' ? input : input.url ?? String(input);
  process.stderr.write(`>> ${init?.method ?? 'GET'} ${url} ${JSON.stringify(init?.headers ?? {})} ${init?.body ?? ''}\n`);
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

function userMessage(text, { taskId, contextId, extraParts = [] } = {}) {
  const m = { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }, ...extraParts] };
  if (taskId) m.taskId = taskId;
  if (contextId) m.contextId = contextId;
  return m;
}

const isTask = (r) => r?.kind === 'task';
const isMessage = (r) => r?.kind === 'message';
const partsText = (parts) => (parts ?? []).map((p) => (p?.kind === 'text' ? p.text : '')).join('');
const artifactsSummary = (task) => (task.artifacts ?? []).map((a) => ({ id: a.artifactId, text: partsText(a.parts) }));
const taskSummary = (task) => JSON.stringify({ id: task.id, state: task.status?.state, artifacts: artifactsSummary(task) });
const stateOf = (ev) => (ev?.kind === 'task' || ev?.kind === 'status-update' ? ev.status?.state : undefined);

function traceOf(events) {
  return events
    .map((ev) => {
      if (ev?.kind === 'task') return `task(${ev.status?.state})`;
      if (ev?.kind === 'status-update') return `status(${ev.status?.state}${ev.final ? ',final' : ''})`;
      if (ev?.kind === 'artifact-update')
        return `artifact(${ev.artifact?.artifactId},${JSON.stringify(partsText(ev.artifact?.parts))},append=${ev.append},last=${ev.lastChunk})`;
      if (ev?.kind === 'message') return 'message';
      return '?';
    })
    .join(' ');
}

/** The artifact text the artifact-update events build: append=true adds, else it starts over. */
function assembled(arts) {
  let text = '';
  for (const a of arts) text = a.append ? text + partsText(a.artifact?.parts) : partsText(a.artifact?.parts);
  return text;
}

class CheckFailure extends Error {}
function expect(cond, msg) {
  if (!cond) throw new CheckFailure(msg);
}

// ---------------------------------------------------------------- client ----

function makeFactory() {
  const grpcChannelCredentials = opts['ca-file'] ? grpcCredentials.createSsl(readFileSync(opts['ca-file'])) : undefined;
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      transports: [
        new JsonRpcTransportFactory({ fetchImpl }),
        new RestTransportFactory({ fetchImpl }),
        new GrpcTransportFactory({ grpcChannelCredentials }),
      ],
    }),
  );
}

/** The interfaces a v0.3 card names: `url` (as preferredTransport, JSONRPC by default) and additionalInterfaces. */
function cardInterfaces(card) {
  const list = [{ transport: card.preferredTransport ?? 'JSONRPC', url: card.url }, ...(card.additionalInterfaces ?? [])];
  return list.filter((i) => i?.url && i?.transport);
}

/** A small HTTP listener on 127.0.0.1 (a free port) collecting the POSTs to /webhook. */
async function startWebhook() {
  const received = [];
  const waiters = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const hit = { method: req.method, path: req.url, headers: req.headers, raw, body };
      received.push(hit);
      if (process.env.A2A_INTEROP_TRACE) process.stderr.write(`webhook << ${req.method} ${req.url} ${JSON.stringify(req.headers)}\n${raw}\n`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const w of waiters) w();
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}/webhook`,
    received,
    /** Resolves with the first POST `match` accepts; rejects when `signal` aborts. */
    waitFor(match, signal) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const hit = received.find(match);
          if (hit) {
            waiters.delete(look);
            resolve(hit);
          }
        };
        waiters.add(look);
        signal.addEventListener('abort', () => {
          waiters.delete(look);
          reject(signal.reason ?? new Error('aborted'));
        });
        look();
      });
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

// ----------------------------------------------------------- the checks ----

/** Runs every check for one binding on v0.3. */
async function runCombo(binding, version) {
  const report = (check, ok, detail) => emit(binding, version, check, ok, detail);
  const state = { client: undefined, task: undefined };

  async function check(name, fn) {
    try {
      report(name, true, (await withDeadline(fn)) ?? '');
    } catch (e) {
      report(name, false, e instanceof CheckFailure ? e.message : describe(e));
    }
  }

  function needClient() {
    if (!state.client) throw new CheckFailure('no client: the card check did not yield one');
    return state.client;
  }

  /** A completed task for the checks that need one: send's, else a new one. */
  async function completedTask(signal) {
    if (state.task) return state.task;
    const r = await needClient().sendMessage({ message: userMessage('hello') }, { signal });
    if (!isTask(r)) throw new CheckFailure(`could not create a task to work on (send returned ${JSON.stringify(r)})`);
    return (state.task = r);
  }

  await check('card', async () => {
    const card = await new DefaultAgentCardResolver({ fetchImpl }).resolve(baseUrl);
    expect(
      String(card.protocolVersion ?? '').startsWith('0.3'),
      `card protocolVersion ${JSON.stringify(card.protocolVersion)}, not a v0.3 card`,
    );
    const ifaces = cardInterfaces(card);
    const iface = ifaces.find((i) => String(i.transport).toUpperCase() === binding);
    expect(iface, `card lists no ${binding} interface: ${JSON.stringify(ifaces)}`);
    expect(card.capabilities?.streaming === true, 'card does not declare capabilities.streaming');
    // Only the interface under test, so the factory cannot pick another one.
    const only = { ...card, url: iface.url, preferredTransport: binding, additionalInterfaces: [{ url: iface.url, transport: binding }] };
    state.client = await makeFactory().createFromAgentCard(only);
    return `interface ${iface.url} (${state.client.transport.constructor.name})`;
  });

  await check('send', async (signal) => {
    const r = await needClient().sendMessage({ message: userMessage('hello') }, { signal });
    expect(isTask(r), `expected a Task, got ${JSON.stringify(r)}`);
    state.task = r;
    expect(r.status?.state === 'completed', `state ${r.status?.state}: ${taskSummary(r)}`);
    const arts = artifactsSummary(r);
    expect(arts.length === 1 && arts[0].text === 'hello', `artifacts ${JSON.stringify(arts)}`);
    return taskSummary(r);
  });

  await check('get', async (signal) => {
    const t = await completedTask(signal);
    const r = await needClient().getTask({ id: t.id }, { signal });
    expect(isTask(r), `expected a Task, got ${JSON.stringify(r)}`);
    expect(r.id === t.id, `task id ${r.id} != ${t.id}`);
    expect(r.status?.state === 'completed', `state ${r.status?.state}`);
    const arts = artifactsSummary(r);
    expect(arts.length === 1 && arts[0].text === 'hello', `artifacts ${JSON.stringify(arts)}`);
    return taskSummary(r);
  });

  await check('stream', async (signal) => {
    const events = [];
    for await (const ev of needClient().sendMessageStream({ message: userMessage('slow') }, { signal })) events.push(ev);
    const arts = events.filter((e) => e?.kind === 'artifact-update');
    const states = events.map(stateOf).filter(Boolean);
    const text = assembled(arts);
    const problems = [];
    if (arts.length !== 3) problems.push(`${arts.length} artifact updates, want 3`);
    if (arts.some((a) => a.artifact?.artifactId !== 'slow')) problems.push('artifactId is not "slow" throughout');
    if (JSON.stringify(arts.map((a) => a.append ?? false)) !== '[false,true,true]')
      problems.push(`append flags ${JSON.stringify(arts.map((a) => a.append))}, want [false,true,true]`);
    if (arts.length && !arts[arts.length - 1].lastChunk) problems.push('last chunk lacks lastChunk=true');
    if (text !== 'one two three') problems.push(`assembled text ${JSON.stringify(text)}`);
    if (states[states.length - 1] !== 'completed') problems.push(`final state ${states[states.length - 1]}`);
    if (binding !== 'JSONRPC' && arts.length > 0 && arts.every((a) => a.append === undefined)) {
      const joined = arts.map((a) => partsText(a.artifact?.parts)).join('');
      problems.unshift(
        `cannot check append on this binding: @a2a-js/sdk 0.3.14's ${binding} client drops TaskArtifactUpdateEvent.append ` +
          `(FromProto.taskArtifactUpdateEvent omits it); the chunks joined read ${JSON.stringify(joined)}`,
      );
    }
    expect(problems.length === 0, `${problems.join('; ')} | events: ${traceOf(events)}`);
    return traceOf(events);
  });

  await check('input_required', async (signal) => {
    const client = needClient();
    const first = await client.sendMessage({ message: userMessage('need-input') }, { signal });
    expect(isTask(first), `expected a Task, got ${JSON.stringify(first)}`);
    expect(first.status?.state === 'input-required', `first reply state ${first.status?.state}, want input-required`);
    const question = partsText(first.status?.message?.parts);
    const second = await client.sendMessage(
      { message: userMessage('answer', { taskId: first.id, contextId: first.contextId }) },
      { signal },
    );
    expect(isTask(second), `follow-up: expected a Task, got ${JSON.stringify(second)}`);
    expect(second.id === first.id, `follow-up answered with task ${second.id}, not ${first.id}`);
    expect(second.status?.state === 'completed', `follow-up state ${second.status?.state}, want completed`);
    const arts = artifactsSummary(second);
    expect(arts.some((a) => a.text === 'answer'), `follow-up artifacts ${JSON.stringify(arts)} do not echo "answer"`);
    return `question ${JSON.stringify(question)}; then ${taskSummary(second)}`;
  });

  await check('cancel_completed', async (signal) => {
    const t = await completedTask(signal);
    let r;
    try {
      r = await needClient().cancelTask({ id: t.id }, { signal });
    } catch (e) {
      expect(e instanceof TaskNotCancelableError, `wrong error: ${describe(e)}`);
      return describe(e);
    }
    throw new CheckFailure(`cancel succeeded instead of failing: ${isTask(r) ? taskSummary(r) : JSON.stringify(r)}`);
  });

  await check('get_unknown', async (signal) => {
    let r;
    try {
      r = await needClient().getTask({ id: 'no-such-task' }, { signal });
    } catch (e) {
      expect(e instanceof TaskNotFoundError, `wrong error: ${describe(e)}`);
      return describe(e);
    }
    throw new CheckFailure(`GetTask succeeded instead of failing: ${JSON.stringify(r)}`);
  });

  await check('message_only', async (signal) => {
    const r = await needClient().sendMessage({ message: userMessage('message-only') }, { signal });
    expect(isMessage(r), `expected a Message, got ${JSON.stringify(r)}`);
    expect(r.role === 'agent', `message role ${r.role}, want agent`);
    expect(partsText(r.parts) === 'message-only', `message text ${JSON.stringify(partsText(r.parts))}`);
    return `message ${JSON.stringify(partsText(r.parts))}`;
  });

  await check('file', async (signal) => {
    // v0.3 FileWithBytes: `bytes` is the base64 of the file; the SDK maps it per binding.
    const filePart = {
      kind: 'file',
      file: { bytes: FILE_BYTES.toString('base64'), name: 'hello.bin', mimeType: 'application/octet-stream' },
    };
    const r = await needClient().sendMessage({ message: userMessage('file', { extraParts: [filePart] }) }, { signal });
    expect(isTask(r), `expected a Task, got ${JSON.stringify(r)}`);
    const summary = taskSummary(r);
    expect(r.status?.state === 'completed', `state ${r.status?.state}: ${summary}`);
    const art = (r.artifacts ?? []).find((a) => a.artifactId === 'file' || a.name === 'file');
    expect(art, `no artifact "file": ${summary}`);
    const said = partsText(art.parts);
    const want = `received ${FILE_BYTES.length} bytes sha256 ${FILE_SHA256}`;
    expect(said === want, `the agent said ${JSON.stringify(said)}, want ${JSON.stringify(want)} (it did not get the bytes sent)`);
    const back = (art.parts ?? []).find((p) => p?.kind === 'file');
    expect(back && typeof back.file?.bytes === 'string', `artifact "file" carries no file part with bytes: ${JSON.stringify(art.parts)}`);
    const got = Buffer.from(back.file.bytes, 'base64');
    expect(
      got.equals(FILE_BYTES),
      `file part bytes ${got.length} bytes sha256 ${createHash('sha256').update(got).digest('hex')} (hex ${got.toString('hex').slice(0, 80)}), not FILE_BYTES`,
    );
    return `${said}; returned ${got.length} bytes, name ${JSON.stringify(back.file.name)}, mimeType ${JSON.stringify(back.file.mimeType)}`;
  });

  await check('push', async (signal) => {
    const hook = await startWebhook();
    try {
      const token = `push-token-${randomUUID()}`;
      const r = await needClient().sendMessage(
        {
          message: userMessage('slow'),
          configuration: { blocking: false, pushNotificationConfig: { url: hook.url, token } },
        },
        { signal },
      );
      expect(isTask(r), `expected a Task, got ${JSON.stringify(r)}`);
      const taskId = r.id;
      let hit;
      try {
        hit = await hook.waitFor(
          (h) => h.method === 'POST' && h.headers['x-a2a-notification-token'] === token && h.body?.id === taskId && h.body?.status?.state === 'completed',
          signal,
        );
      } catch (e) {
        const seen = hook.received.map((h) => ({
          method: h.method,
          path: h.path,
          token: h.headers['x-a2a-notification-token'],
          contentType: h.headers['content-type'],
          body: h.raw.slice(0, 300),
        }));
        throw new CheckFailure(`no POST naming task ${taskId} completed with the token (${describe(e)}); received ${JSON.stringify(seen)}`);
      }
      return `${hook.received.length} POST(s) to ${hit.path}; content-type ${hit.headers['content-type']}; token ok; body kind=${hit.body.kind} id=${hit.body.id} state=${hit.body.status.state}`;
    } finally {
      await hook.close();
    }
  });

  await check('resubscribe', async (signal) => {
    const client = needClient();
    // First stream: read one event (the task id is then known), then drop the call.
    const drop = new AbortController();
    const onOuterAbort = () => drop.abort(signal.reason);
    signal.addEventListener('abort', onOuterAbort);
    let first;
    try {
      const stream = client.sendMessageStream({ message: userMessage('slow') }, { signal: drop.signal });
      for await (const ev of stream) {
        first = ev;
        break; // ends the generator: its finally cancels the gRPC call / the SSE reader
      }
    } finally {
      drop.abort(new Error('dropped by the check'));
      signal.removeEventListener('abort', onOuterAbort);
    }
    const taskId = first?.kind === 'task' ? first.id : first?.taskId;
    expect(taskId, `the first event names no task: ${JSON.stringify(first)}`);
    const events = [];
    for await (const ev of client.resubscribeTask({ id: taskId }, { signal })) events.push(ev);
    const arts = events.filter((e) => e?.kind === 'artifact-update');
    const states = events.map(stateOf).filter(Boolean);
    const lastChunk = arts.length ? partsText(arts[arts.length - 1].artifact?.parts) : undefined;
    const problems = [];
    if (states[states.length - 1] !== 'completed') problems.push(`second stream ends in state ${states[states.length - 1]}`);
    if (lastChunk !== 'three') problems.push(`last chunk seen ${JSON.stringify(lastChunk)}, want "three"`);
    const trace = `first ${traceOf([first])}; then ${traceOf(events)}`;
    expect(problems.length === 0, `${problems.join('; ')} | ${trace}`);
    return trace;
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
    if (!String(version).startsWith('0.3')) {
      emit(binding, version, 'card', false, `@a2a-js/sdk 0.3.14 speaks protocol 0.3 only; no ${version} client`);
      continue;
    }
    await runCombo(binding, version);
  }
}
process.exit(0);

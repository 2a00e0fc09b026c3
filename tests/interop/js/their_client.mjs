#!/usr/bin/env node
// Interop client: drives an A2A server (normally a2a-wire) with the official
// @a2a-js/sdk client, once per binding (JSONRPC, HTTP+JSON, GRPC) and protocol
// version (1.0, 0.3), and prints one JSON result line per check on stdout.
//
//   node their_client.mjs --url http://127.0.0.1:7441 [--binding JSONRPC|HTTP+JSON|GRPC]...
//                         [--version 1.0|0.3]... [--server-name NAME]
//   node ../js-1.0/their_client.mjs ...        (the same program on @a2a-js/sdk 1.0.0-beta.0)
//   A2A_JS_SDK_DIR=DIR node their_client.mjs ...   (the SDK in DIR/node_modules)
//
// The SDK is loaded through ./sdk.mjs from the folder A2A_JS_SDK_DIR names
// (default: this one). 1.3.0 and 1.0.0-beta.0 share the client API used here;
// the one difference is where the error classes live (see the imports).
//
// Each binding x version gets its own client: the factory is given a copy of
// the card that lists only the interface under test, and the SDK's
// `legacyCompat` option picks its v0.3 transport for a 0.3 interface.
// The checks are those of ../CHECKS.md: card, send, get, stream,
// input_required, cancel_completed, get_unknown, list (1.0), message_only,
// file, push, resubscribe.
//
// Every check runs on its own; a failing check never stops the others, and the
// process always exits 0 (the orchestrator judges the lines).
// Set A2A_INTEROP_TRACE=1 to log every HTTP exchange to stderr, and
// A2A_INTEROP_TIMEOUT_MS to change the per-check deadline (default 20000).

import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { sdk, peer, SDK_VERSION } from './sdk.mjs';

const { credentials: grpcCredentials } = peer('@grpc/grpc-js');
const { Role, TaskState } = await sdk();
const {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} = await sdk('/client');
const { GrpcTransportFactory } = await sdk('/client/grpc');
// 1.3.0 exports the error classes from '@a2a-js/sdk/errors'; 1.0.0-beta.0 has no
// such subpath and exports them from '@a2a-js/sdk/client'.
const { TaskNotCancelableError, TaskNotFoundError } = (await sdk('/errors')) ?? (await sdk('/client'));

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
  const line = { sdk: 'js', sdk_version: SDK_VERSION, client: 'js', server: opts['server-name'], binding, version, check, ok, detail };
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

/** The 32 bytes of the `file` check (CHECKS.md), and what the agent must say of them. */
const FILE_BYTES = Buffer.from('6132612d7769726520000102feff2066696c652062797465732089504e470d0a', 'hex');
const FILE_SAYS = `received ${FILE_BYTES.length} bytes sha256 ${createHash('sha256').update(FILE_BYTES).digest('hex')}`;

/** A hint when `got` is the base64 text of FILE_BYTES (or its size is that of the text). */
function base64Hint(got) {
  const b64 = FILE_BYTES.toString('base64');
  if (Buffer.isBuffer(got) && got.toString('latin1') === b64) return ' (these are the base64 text of FILE_BYTES, not the bytes)';
  if (typeof got === 'string' && got.includes(`received ${b64.length} bytes`)) return ' (the size of the base64 text, not of the bytes)';
  return '';
}

function partsSummary(parts) {
  return JSON.stringify(
    (parts ?? []).map((p) => {
      const c = p?.content;
      if (c?.$case === 'raw') return { raw: Buffer.from(c.value).toString('hex'), filename: p.filename, mediaType: p.mediaType };
      return c ? { [c.$case]: c.value } : {};
    }),
  );
}

/** The task id an event of a stream names, if any. */
function taskIdOf(ev) {
  const p = ev?.payload;
  if (!p) return '';
  return p.$case === 'task' ? p.value.id : p.value?.taskId ?? '';
}

function eventTrace(ev) {
  const p = ev?.payload;
  if (!p) return '?';
  if (p.$case === 'task') return `task(${stateName(p.value.status?.state)})`;
  if (p.$case === 'message') return 'message';
  if (p.$case === 'statusUpdate') return `status(${stateName(p.value.status?.state)})`;
  const a = p.value;
  return `artifact(${a.artifact?.artifactId},${JSON.stringify(partsText(a.artifact?.parts))},append=${a.append},last=${a.lastChunk})`;
}

/**
 * A webhook on 127.0.0.1 (a free port, path /webhook) that keeps every POST it gets.
 * `waitFor(pred, signal)` resolves with the first POST `pred` accepts.
 */
async function startWebhook() {
  const posts = [];
  let waiters = [];
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
      const post = { method: req.method, path: req.url, headers: req.headers, raw, body };
      posts.push(post);
      if (process.env.A2A_INTEROP_TRACE) process.stderr.write(`webhook <- ${req.method} ${req.url} ${JSON.stringify(req.headers)} ${raw}\n`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      for (const w of waiters) w();
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}/webhook`,
    posts,
    waitFor(pred, signal) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const hit = posts.find(pred);
          if (!hit) return;
          waiters = waiters.filter((w) => w !== look);
          resolve(hit);
        };
        waiters.push(look);
        signal.addEventListener('abort', () => reject(signal.reason ?? new Error('aborted')), { once: true });
        look();
      });
    },
    close() {
      server.closeAllConnections?.();
      server.close();
    },
  };
}

/** Whether a push body names task `id` in its completed state, in the spelling of `version`. */
function pushSaysCompleted(body, id, version) {
  if (!body || typeof body !== 'object') return false;
  if (sameVersion(version, '1.0')) {
    const done = (x) => x?.status?.state === 'TASK_STATE_COMPLETED';
    return (
      (body.task?.id === id && done(body.task)) ||
      (body.statusUpdate?.taskId === id && done(body.statusUpdate)) ||
      (body.id === id && done(body))
    );
  }
  // v0.3: the Task (CHECKS.md; v0.3 §9.5 posts the Task object). A bare status-update is
  // another release's shape and fails the check.
  return body.id === id && (body.kind === undefined || body.kind === 'task') && body.status?.state === 'completed';
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
    // A2A_INTEROP_CHECKS=card,send,...: run only these checks (the bindings' tests run the
    // nine their agents implement; unset: every check).
    const only = (process.env.A2A_INTEROP_CHECKS ?? '').split(',').filter(Boolean);
    if (only.length > 0 && !only.includes(name)) return;
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
    const trace = events.map(eventTrace);
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
        `hint: @a2a-js/sdk ${SDK_VERSION} v0.3 HTTP+JSON/gRPC clients drop \`append\` ` +
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

  await check('file', async (signal) => {
    const message = userMessage('file');
    message.parts.push({
      content: { $case: 'raw', value: FILE_BYTES },
      metadata: undefined,
      filename: 'hello.bin',
      mediaType: 'application/octet-stream',
    });
    const r = await needClient().sendMessage(sendRequest(message), { signal });
    expect(isTask(r), `expected a Task, got ${JSON.stringify(r)}`);
    expect(r.status?.state === TaskState.TASK_STATE_COMPLETED, `state ${stateName(r.status?.state)}: ${taskSummary(r)}`);
    const art = (r.artifacts ?? []).find((a) => a.artifactId === 'file');
    expect(art, `no artifact "file": ${JSON.stringify(artifactsSummary(r))}`);
    const problems = [];
    const said = partsText(art.parts);
    if (said !== FILE_SAYS) problems.push(`the agent says ${JSON.stringify(said)}, want ${JSON.stringify(FILE_SAYS)}${base64Hint(said)}`);
    const back = (art.parts ?? []).find((p) => p?.content?.$case === 'raw');
    if (!back) problems.push('no file part with bytes came back');
    else {
      const got = Buffer.from(back.content.value);
      if (!got.equals(FILE_BYTES)) problems.push(`file part bytes ${got.length}: ${got.toString('hex')}, want FILE_BYTES${base64Hint(got)}`);
    }
    expect(problems.length === 0, `${problems.join('; ')} | parts ${partsSummary(art.parts)}`);
    return `${said}; file part ${back.filename || '(no name)'} ${back.mediaType || '(no media type)'} with FILE_BYTES`;
  });

  await check('push', async (signal) => {
    const hook = await startWebhook();
    try {
      const token = `push-token-${randomUUID()}`;
      const request = sendRequest(userMessage('slow'));
      request.configuration = {
        acceptedOutputModes: [],
        taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url: hook.url, token, authentication: undefined },
        historyLength: undefined,
        returnImmediately: true,
      };
      const r = await needClient().sendMessage(request, { signal });
      expect(isTask(r), `expected a Task, got ${JSON.stringify(r)}`);
      // CHECKS.md: X-A2A-Notification-Token (v0.3's header); on 1.0, which names no header
      // since v1.0.1, A2A-Notification-Token too (a2a-go v2's and a2a-wire's).
      const tokenOf = (p) => (version === '1.0' && p.headers['a2a-notification-token']) || p.headers['x-a2a-notification-token'];
      const tokenOk = (p) => tokenOf(p) === token;
      let hit;
      try {
        hit = await hook.waitFor((p) => tokenOk(p) && pushSaysCompleted(p.body, r.id, version), signal);
      } catch (e) {
        const seen = hook.posts.map(
          (p) => `${p.method} ${p.path} token=${tokenOk(p) ? 'ok' : JSON.stringify(tokenOf(p))} ${p.raw.slice(0, 300)}`,
        );
        throw new CheckFailure(`no POST with the token naming task ${r.id} completed (${describe(e)}); ${seen.length} POSTs: ${seen.join(' || ') || 'none'}`);
      }
      const shape = hit.body.task ? 'StreamResponse{task}' : hit.body.statusUpdate ? 'StreamResponse{statusUpdate}' : `${hit.body.kind ?? 'bare'} object`;
      return `${hook.posts.length} POSTs; the completing one: ${shape}, content-type ${hit.headers['content-type']}, token header ok`;
    } finally {
      hook.close();
    }
  });

  await check('resubscribe', async (signal) => {
    const client = needClient();
    // The first stream gets its own signal, aborted to drop it after one event.
    const drop = new AbortController();
    const onAbort = () => drop.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let taskId = '';
    let first = '';
    try {
      for await (const ev of client.sendMessageStream(sendRequest(userMessage('slow')), { signal: drop.signal })) {
        first = eventTrace(ev);
        taskId = taskIdOf(ev);
        if (taskId) break;
      }
    } finally {
      drop.abort(new Error('stream dropped by the resubscribe check'));
      signal.removeEventListener('abort', onAbort);
    }
    expect(taskId, `the first stream gave no task id (first event ${first || 'none'})`);
    const events = [];
    for await (const ev of client.resubscribeTask({ tenant: '', id: taskId }, { signal })) events.push(ev);
    const trace = events.map(eventTrace);
    const states = events
      .map((e) => (e.payload?.$case === 'task' || e.payload?.$case === 'statusUpdate' ? e.payload.value.status?.state : undefined))
      .filter((s) => s !== undefined);
    const sawThree = events.some(
      (e) => e.payload?.$case === 'artifactUpdate' && partsText(e.payload.value.artifact?.parts) === 'three',
    );
    const final = states[states.length - 1];
    const problems = [];
    if (final !== TaskState.TASK_STATE_COMPLETED) problems.push(`second stream ends in state ${stateName(final)}`);
    if (!sawThree) problems.push('second stream has no chunk "three"');
    expect(problems.length === 0, `${problems.join('; ')} | first: ${first}; second: ${trace.join(' ') || 'no events'}`);
    return `first: ${first}; second: ${trace.join(' ')}`;
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

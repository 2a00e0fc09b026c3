// A strict compile check of the package's typings (tsc --noEmit, make node-test): the API as
// a TypeScript user writes it, and the mistakes the types must refuse (@ts-expect-error
// fails the check when the line compiles).
import * as a2a from "a2a-wire";
import a2aDefault, {
  A2AClient, A2AService, TaskState, Role, decode, encode, canonicalize, serve, v03,
  type Agent, type AgentCard, type Message, type Part, type Task, type StreamResponse,
} from "a2a-wire";

const state: TaskState = TaskState.COMPLETED;
const literal: "TASK_STATE_COMPLETED" = TaskState.COMPLETED;
// @ts-expect-error: not a TaskState
const wrong: TaskState = "completed";

const part: Part = { text: "hi" };
// @ts-expect-error: a oneof takes one member
const twoMembers: Part = { text: "hi", url: "https://x" };
function textOf(p: Part): string {
  // The oneof narrows on its member.
  return "text" in p && p.text !== undefined ? p.text : "";
}

const msg: Message = { messageId: "m", role: Role.USER, parts: [part] };
// @ts-expect-error: messageId is REQUIRED
const noId: Message = { role: Role.USER, parts: [] };

const task: Task = decode("Task", '{"id":"t","status":{"state":"TASK_STATE_WORKING"}}');
const s: string = encode("Message", msg);
const b: Buffer = encode("Message", msg, { format: "protobuf" });
const again: Message = decode("Message", b, { format: "protobuf" });
const text: string = canonicalize("Task", s);
// @ts-expect-error: the value must be a Message
encode("Message", task);

const agent: Agent = async (ctx, events) => {
  const t: string = ctx.text;
  const signal: AbortSignal = ctx.signal;
  if (t === "ask") events.status(TaskState.INPUT_REQUIRED, "What?");
  events.artifact(t, { artifactId: "echo", lastChunk: true });
  events.complete();
  await events.flush();
  void signal;
};

const card: AgentCard = {
  name: "typed",
  description: "typed agent",
  version: "1",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  supportedInterfaces: [{ url: "http://127.0.0.1:1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
};

async function main(): Promise<void> {
  const service = new A2AService(agent, card, {
    authenticate: (req) => (req.headers.get("authorization") ? "alice" : req.path === "/public" ? a2a.ANONYMOUS : null),
  });
  const r: Response = await service.fetch(new Request("http://127.0.0.1:1/.well-known/agent-card.json"));
  const server = await serve(agent, { card, port: 0, bearerTokens: { "alice-token": "alice" } });
  const client = await A2AClient.connect(server.url, { bindings: ["GRPC"], versions: ["1.0"], caFile: "ca.pem", clientCert: { cert: "client.pem", key: "client.key" } });
  const reply = await client.sendMessage("hi");
  if (reply.task) {
    const st: TaskState = reply.task.status.state;
    void st;
  }
  for await (const ev of await client.sendStreamingMessage("hi")) {
    const e: StreamResponse = ev;
    if (e.statusUpdate) break;
  }
  try {
    await client.getTask("missing");
  } catch (e) {
    if (e instanceof a2a.TaskNotFoundError) {
      const code: number = e.code;
      const reason: string = e.reason;
      const meta: { [k: string]: string } = e.metadata;
      void [code, reason, meta];
    } else if (e instanceof a2a.NotA2AError) {
      const status: number = e.status;
      void status;
    }
  }
  const { value, losses } = v03.fromV1("Task", task);
  void [value, losses.map((l) => l.path)];
  client.close();
  await server.close();
  await service.close();
  void [r, a2aDefault.VERSION];
}

// ---------------------------------------------------------------- signatures and webhooks

async function signedAndPushed(): Promise<void> {
  const key: a2a.SigningKey = a2a.SigningKey.fromJwk({ kty: "OKP", crv: "Ed25519", x: "x", d: "d", kid: "k" });
  const fromPem: a2a.SigningKey = a2a.SigningKey.fromPem(new Uint8Array(0), "k");
  const fromFile: a2a.SigningKey = a2a.SigningKey.fromFile("key.jwk");
  const alg: "ES256" | "EdDSA" = key.alg;
  const signed: AgentCard = key.signCard(card, { jku: "https://keys.example/jwks.json" });
  const keys = new a2a.CardKeySet([key, key.publicJwk()]).add(fromPem);
  const more: a2a.CardKeySet = a2a.CardKeySet.fromJwks({ keys: [fromFile.publicJwk()] });
  const v: a2a.VerifiedSignature = keys.verifyCard(signed, { specFormOnly: true });
  const form: "spec" | "sdk" = v.form;
  const jku: string | null = v.jku;
  // @ts-expect-error: a kid is needed for a PEM key
  a2a.SigningKey.fromPem("pem");
  // @ts-expect-error: the constructor is private
  new a2a.SigningKey();

  const server = await serve(agent, {
    card,
    signingKey: key,
    cardJku: "https://keys.example/jwks.json",
    bearerTokens: { "alice-token": "alice" },
    extendedCard: card,
    extendedCards: { alice: card },
    allowWebhooks: ["127.0.0.1", "10.0.0.0/8"],
    allowPrivateWebhooks: false,
    webhookCaFile: "ca.pem",
  });
  // @ts-expect-error: the signing key is a SigningKey, not a JWK
  await serve(agent, { card, signingKey: key.publicJwk() });
  const service = new A2AService(agent, card, { signingKey: key, extendedCards: { bob: card }, allowWebhooks: ["localhost"], webhookCaFile: "ca.pem" });
  const tasks = a2a.TaskStore.memory();
  const stored = new A2AService(agent, card, { store: tasks, cacheMb: 8, retain: "30d" });
  new A2AService(agent, card, { store: "tasks.db", retain: 90_000 });
  // @ts-expect-error: a store is a path or a TaskStore
  new A2AService(agent, card, { store: 42 });
  // @ts-expect-error: TaskStore is made by its factories
  new a2a.TaskStore();
  void stored;
  tasks.close();
  const client = await A2AClient.connect(server.url, { cardKeys: keys, requireSignedCard: true, streamResumes: 0 });
  // @ts-expect-error: cardKeys is a CardKeySet
  await A2AClient.connect(server.url, { cardKeys: [key] });
  try {
    await A2AClient.connect(server.url, { cardKeys: more });
  } catch (e) {
    if (e instanceof a2a.CardSignatureError) {
      const asCard: a2a.CardError = e;
      void asCard;
    }
  }

  const receiver = new a2a.WebhookReceiver({ token: "t0k", window: 64 });
  receiver.expectTask("t-1");
  const expected: boolean = receiver.expects("t-1");
  const d = receiver.handle({ method: "POST", headers: new Headers({ "a2a-notification-token": "t0k" }), body: "{}" });
  receiver.handle({ headers: [["a2a-notification-token", "t0k"]], body: new Uint8Array(0) });
  receiver.handle({ headers: { "a2a-notification-token": "t0k" } });
  if (d.kind === "event") {
    const ev: StreamResponse = d.event;
    const id: string = d.taskId;
    const later: a2a.EventDelivery = receiver.retryLater(d);
    void [ev, id, later];
  } else if (d.kind === "refused") {
    const err: a2a.A2AError = d.error;
    // @ts-expect-error: a refused delivery has no event to retry
    receiver.retryLater(d);
    void err;
  }
  const status: number = d.status;
  const body: Uint8Array = d.body;
  const endpoint = new a2a.WebhookEndpoint(receiver, async (taskId: string, event: StreamResponse) => {
    void [taskId, event];
  }, { maxBody: 1 << 20, onError: (err: unknown, taskId: string, event: StreamResponse) => void [err, taskId, event] });
  const answer: Response = await endpoint.fetch(new Request("http://127.0.0.1:1/hook", { method: "POST" }));
  const listener: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void = endpoint.listener();
  // @ts-expect-error: onEvent takes the task id and the event
  new a2a.WebhookEndpoint(receiver, (event: number) => void event);
  client.close();
  await service.close();
  await server.close();
  void [alg, form, jku, expected, status, body, answer, listener, endpoint.middleware()];
}

void [state, literal, wrong, twoMembers, noId, again, text, textOf, main, signedAndPushed];

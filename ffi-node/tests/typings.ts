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
  const service = new A2AService(agent, card, { authenticate: (req) => (req.headers.authorization ? "alice" : null) });
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

void [state, literal, wrong, twoMembers, noId, again, text, textOf, main];

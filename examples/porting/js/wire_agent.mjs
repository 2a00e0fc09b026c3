// The "shout" agent ported to a2a-wire: the same card and behaviour, on the ready server
// (which adds gRPC and the v0.3 interfaces on the same port).
//
//     node wire_agent.mjs PORT
import { TaskState, serve } from "a2a-wire";

const card = {
  name: "shout", description: "Answers in capitals", version: "1.0", capabilities: { streaming: true },
  defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"],
  skills: [{ id: "shout", name: "Shout", description: "Repeats the text in capitals", tags: ["demo"] }],
};

async function shout(ctx, events) {
  events.status(TaskState.WORKING);
  if (ctx.text === "wait") {
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
    return;
  }
  events.artifact(ctx.text.toUpperCase(), { name: "shout", lastChunk: true });
  events.complete();
}

await serve(shout, { card, port: Number(process.argv[2]) });

// Sends one message to an A2A agent and prints what comes back.
//
//     node examples/node/client.mjs http://127.0.0.1:8000 hello
//     node examples/node/client.mjs http://127.0.0.1:8000 slow --stream
import { A2AClient } from "a2a-wire";

const [url, text, ...rest] = process.argv.slice(2);
if (!url || text === undefined) {
  console.error("usage: client.mjs URL TEXT [--stream]");
  process.exit(2);
}
/**
 * The text of a message's or a task's artifacts' text parts.
 * @param {import("a2a-wire").Task | import("a2a-wire").Message} reply
 */
function textOf(reply) {
  const parts = "parts" in reply ? reply.parts : (reply.artifacts ?? []).flatMap((a) => a.parts);
  return parts.map((p) => p.text ?? "").join("");
}

const client = await A2AClient.connect(url);
const i = client.interface;
console.log(`${i.binding} ${i.version} at ${i.url}`);
if (rest.includes("--stream")) {
  for await (const event of client.sendStreamingMessage(text)) console.log(JSON.stringify(event));
} else {
  const reply = await client.sendMessage(text);
  if ("task" in reply && reply.task) console.log(`${reply.task.status.state}: ${textOf(reply.task)}`);
  else if (reply.message) console.log(`message: ${textOf(reply.message)}`);
}
client.close();

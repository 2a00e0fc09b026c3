// The demo agent mounted in a Hono application on @hono/node-server: the app's own route
// (`/hello`) beside the A2A service (JSON-RPC and HTTP+JSON, each in v1.0 and v0.3, with SSE
// streams as web ReadableStreams; the card at /.well-known/agent-card.json).
//
//     node examples/node/hono.mjs 127.0.0.1:8000
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { A2AService } from "a2a-wire";
import { address, demoAgent, mountedCard, onSignals } from "./demo-agent.mjs";

const { host, port, base } = address();
const a2a = new A2AService(demoAgent, mountedCard(base));
const app = new Hono();
app.use(a2a.hono());
app.get("/hello", (c) => c.json({ hello: "from the app's own route" }));
const server = serve({ fetch: app.fetch, hostname: host, port }, () => console.log(`serving ${base} (card at ${base}/.well-known/agent-card.json)`));
onSignals(async () => {
  await a2a.close();
  await new Promise((resolve) => server.close(() => resolve(undefined)));
});

// The demo agent mounted in an Express application: the app's own route (`/hello`) beside
// the A2A service (JSON-RPC and HTTP+JSON, each in v1.0 and v0.3; the card at
// /.well-known/agent-card.json).
//
//     node examples/node/express.mjs 127.0.0.1:8000
import express from "express";
import { A2AService } from "a2a-wire";
import { address, demoAgent, mountedCard, onSignals } from "./demo-agent.mjs";

const { host, port, base } = address();
const a2a = new A2AService(demoAgent, mountedCard(base));
const app = express();
// Before any body parser: the service reads the raw body itself.
app.use(a2a.middleware());
app.get("/hello", (_req, res) => {
  res.json({ hello: "from the app's own route" });
});
const server = app.listen(port, host, () => console.log(`serving ${base} (card at ${base}/.well-known/agent-card.json)`));
onSignals(async () => {
  await a2a.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(() => resolve(undefined)));
});

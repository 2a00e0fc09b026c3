// The demo agent on a2a-wire's ready server (the Rust transport: JSON-RPC, HTTP+JSON and
// gRPC, each in v1.0 and v0.3, on one port; the card at /.well-known/agent-card.json).
//
//     node examples/node/agent.mjs 127.0.0.1:8000
//
// Stops cleanly on SIGTERM or Ctrl-C.
import { serve } from "a2a-wire";
import { CARD, address, demoAgent, onSignals } from "./demo-agent.mjs";

const { host, port } = address();
// The card has no interfaces: the server lists its standard six at its address.
const server = await serve(demoAgent, { host, port, card: CARD });
console.log(`serving ${server.url} (card at ${server.url}/.well-known/agent-card.json)`);
onSignals(() => server.close());

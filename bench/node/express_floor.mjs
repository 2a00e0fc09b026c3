// The Express floor of the Node server benchmark (BENCHMARKS.md, "The Node binding"): the
// same Express 5 app the example mounts a2a-wire in, answering every POST to /a2a/jsonrpc
// with the bytes of a real SendMessage answer after reading and JSON.parse-ing the request,
// and no A2A at all. What is left of a request's time under Express is Express's and Node's.
//
//     node bench/node/express_floor.mjs 127.0.0.1:PORT target/bench-floor-body.json
//     taskset -c 1 wrk -t1 -c32 -d10s -s bench/server/sendmessage.lua http://127.0.0.1:PORT/a2a/jsonrpc
//
// Express comes from examples/node (`npm ci` there first); the body file from a run of
// bench/server/run.py.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const express = createRequire(new URL("../../examples/node/package.json", import.meta.url))("express");
const [addr, bodyFile] = process.argv.slice(2);
if (!addr || !bodyFile) {
  console.error("usage: node bench/node/express_floor.mjs HOST:PORT BODY_FILE");
  process.exit(2);
}
const body = readFileSync(bodyFile);
const [host, port] = [addr.slice(0, addr.lastIndexOf(":")), Number(addr.slice(addr.lastIndexOf(":") + 1))];
const app = express();
app.post("/a2a/jsonrpc", (req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    JSON.parse(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
    res.end(body);
  });
});
app.listen(port, host, () => console.log(`express floor on http://${addr}`));

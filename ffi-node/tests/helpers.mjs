// Shared by the Node tests: where the repository is, the golden vectors, ports, processes.
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import http from "node:http";
import net from "node:net";
import { dirname, join } from "node:path";

/** The repository (make node-test sets A2A_REPO; the tests run in a project of their own). */
export const REPO = process.env.A2A_REPO ?? join(import.meta.dirname, "..", "..");
export const VECTORS = join(REPO, "tests", "vectors");

/** Every vector of a folder of tests/vectors: [name, object] pairs, sorted. */
export function loadVectors(folder) {
  const dir = join(VECTORS, folder);
  return readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => [`${folder}/${f.replace(/\.json$/, "")}`, JSON.parse(readFileSync(join(dir, f), "utf8"))]);
}

/** The installed package's private native module (for the tests that drive it directly). */
export function nativeModule() {
  const require = createRequire(import.meta.url);
  return require(join(dirname(require.resolve("a2a-wire/package.json")), "native.js"));
}

function listenOnce(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once("error", () => resolve(null));
    s.listen(port, "127.0.0.1", () => {
      const got = s.address().port;
      s.close(() => resolve(got));
    });
  });
}

/** A port p of 127.0.0.1 with p .. p + count - 1 all free when asked (the SDK's server puts
 * gRPC on p + 1). */
export async function freePort(count = 1) {
  for (let i = 0; i < 50; i++) {
    const port = await listenOnce(0);
    let free = port !== null;
    for (let k = 1; free && k < count; k++) free = (await listenOnce(port + k)) !== null;
    if (free) return port;
  }
  throw new Error("no free run of ports on 127.0.0.1");
}

/** A node:http server listening on a free port of 127.0.0.1: `{ srv, base, close() }`
 * (`close` ends every open connection too). */
export async function httpServer() {
  const srv = http.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return {
    srv,
    base: `http://127.0.0.1:${srv.address().port}`,
    close() {
      srv.closeAllConnections();
      return new Promise((r) => srv.close(r));
    },
  };
}

/** Resolves once `url` answers its card, or rejects after `timeoutMs`. */
export async function waitCard(url, timeoutMs = 30000, proc) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (proc && proc.exitCode !== null) throw new Error(`the server exited with ${proc.exitCode} before it served its card`);
    try {
      const r = await fetch(`${url}/.well-known/agent-card.json`);
      if (r.ok) return await r.json();
    } catch {}
    if (Date.now() > until) throw new Error(`no card at ${url} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts `cmd` with `args`; collects its output; `stop()` sends SIGTERM and resolves to the exit code. */
export function start(cmd, args, options = {}) {
  const proc = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  let out = "";
  proc.stdout.on("data", (d) => (out += d));
  proc.stderr.on("data", (d) => (out += d));
  const exited = new Promise((resolve) => proc.once("exit", (code, signal) => resolve(code ?? signal)));
  return {
    proc,
    output: () => out,
    async stop(timeoutMs = 20000) {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      const t = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}

/** Runs `cmd` to its end (bounded); resolves to {code, stdout, stderr}. */
export function run(cmd, args, options = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    const t = setTimeout(() => proc.kill("SIGKILL"), options.timeoutMs ?? 600000);
    proc.once("error", reject);
    proc.once("exit", (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The card of the vectors (tests/vectors/http): every binding in both versions. */
/** A valid card without interfaces (the ready server fills in its six). */
export function baseCard() {
  return {
    name: "test",
    description: "test agent",
    version: "1",
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
  };
}

export function vectorCard() {
  const iface = (url, b, v) => ({ url, protocolBinding: b, protocolVersion: v });
  return {
    name: "vectors",
    description: "the card of tests/vectors/http",
    version: "1",
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    supportedInterfaces: [
      iface("http://a2a.example/rpc", "JSONRPC", "1.0"),
      iface("http://a2a.example/rpc", "JSONRPC", "0.3"),
      iface("http://a2a.example/rest", "HTTP+JSON", "1.0"),
      iface("http://a2a.example/rest", "HTTP+JSON", "0.3"),
      iface("a2a.example:443", "GRPC", "1.0"),
      iface("a2a.example:443", "GRPC", "0.3"),
    ],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
  };
}

/** A minimal protobuf writer (varints and length-delimited fields), independent of the package. */
export function pb(fields) {
  const out = [];
  const varint = (n) => {
    let v = BigInt(n);
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v) b |= 0x80;
      out.push(b);
    } while (v);
  };
  for (const [num, value] of fields) {
    if (typeof value === "number") {
      varint(num << 3);
      varint(value);
    } else {
      const bytes = typeof value === "string" ? Buffer.from(value) : Buffer.from(value);
      varint((num << 3) | 2);
      varint(bytes.length);
      out.push(...bytes);
    }
  }
  return Buffer.from(out);
}

// ProtoJSON decode + re-encode round trips per second of the official JavaScript A2A SDK
// (@a2a-js/sdk, npm) on the same 8 KB v1.0 Task that bench/benches/codec.rs uses
// (tests/vectors/bench/sample_task.json, member "wire", JSON.stringify'd).
//
// The round trip is the path the SDK itself puts on its HTTP wire (JSON-RPC and REST):
//   decode  string --JSON.parse--> object --Task.fromJSON--> Task
//           (client: dist/client/index.js JsonRpcTransport `await httpResponse.json()`, then
//            getTask/cancelTask `return Task.fromJSON(rpcResponse.result)`)
//   encode  Task --Task.toJSON--> object --JSON.stringify--> string
//           (server: dist/server/index.js JSON-RPC handler `result = Task.toJSON(...)`,
//            sent by express `res.json(...)`, which is JSON.stringify)
// Task is the ts-proto generated codec exported from the package root (dist/index.js);
// the client and server bundles carry byte-identical copies of it.
//
// Also measures, in the same run, decode alone, encode alone (from a Task decoded once) and the
// floor: JSON.parse + JSON.stringify. Each case is warmed up, its batch sized to ~--target
// seconds, then --repeats rounds run one batch of every case in turn (interleaved); the median
// of a case's per-batch rates is reported. Prints one JSON line per measurement.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { Task } from "@a2a-js/sdk";

const here = dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=");
    return [k, v];
  }),
);
const vectorPath = args.vector ?? join(here, "..", "..", "tests", "vectors", "bench", "sample_task.json");
const repeats = Number(args.repeats ?? 15);
const targetS = Number(args.target ?? 0.3);
const warmupS = Number(args.warmup ?? 0.5);

// Resolve the SDK's version from the package.json that `import` actually loaded.
function sdkVersion() {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve("@a2a-js/sdk"));
  for (;;) {
    try {
      const pj = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (pj.name === "@a2a-js/sdk") return pj.version;
    } catch {}
    const up = dirname(dir);
    if (up === dir) return "unknown";
    dir = up;
  }
}

const input = JSON.stringify(JSON.parse(readFileSync(vectorPath, "utf8")).wire);
const want = JSON.parse(input);

const sdkDecode = (s) => Task.fromJSON(JSON.parse(s));
const sdkEncode = (t) => JSON.stringify(Task.toJSON(t));
const sdkRoundtrip = (s) => sdkEncode(sdkDecode(s));
const floorRoundtrip = (s) => JSON.stringify(JSON.parse(s));

function firstDifference(a, b, path = "$") {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) {
    return `${path}: ${JSON.stringify(a)?.slice(0, 80)} != ${JSON.stringify(b)?.slice(0, 80)}`;
  }
  if (Array.isArray(a)) {
    if (a.length !== b.length) return `${path}: array length ${a.length} != ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (a !== null && typeof a === "object") {
    for (const k of Object.keys(a)) {
      if (!(k in b)) return `${path}.${k}: missing in re-encoded output (input has ${JSON.stringify(a[k]).slice(0, 80)})`;
    }
    for (const k of Object.keys(b)) {
      if (!(k in a)) return `${path}.${k}: added in re-encoded output (${JSON.stringify(b[k]).slice(0, 80)})`;
    }
    for (const k of Object.keys(a)) {
      const d = firstDifference(a[k], b[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
}

let sink = 0; // keeps results observable so nothing is optimized away
const now = () => process.hrtime.bigint();
function calibrate(fn, arg) {
  let n = 0;
  let el;
  const t0 = now();
  for (;;) {
    const r = fn(arg);
    sink += typeof r === "string" ? r.length : 1;
    n++;
    el = Number(now() - t0) / 1e9;
    if (el >= warmupS) break;
  }
  return Math.max(1, Math.floor((n * targetS) / el));
}
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
// Median calls per second of each case; the repeats are interleaved (one batch of each case
// per round) so that a neighbour's load on this CPU hits every case alike.
function measureInterleaved(cases) {
  const batches = cases.map((c) => calibrate(c.fn, c.arg));
  const rates = cases.map(() => []);
  for (let r = 0; r < repeats; r++) {
    cases.forEach((c, i) => {
      const { fn, arg } = c;
      const batch = batches[i];
      const s = now();
      for (let k = 0; k < batch; k++) {
        const x = fn(arg);
        sink += typeof x === "string" ? x.length : 1;
      }
      rates[i].push(batch / (Number(now() - s) / 1e9));
    });
  }
  return { medians: rates.map(median), batches };
}

const ver = sdkVersion();
const runtime = `node ${process.version}`;
const task = sdkDecode(input);
const cases = [
  { sdk: "@a2a-js/sdk (node)", version: ver,
    what: "protojson_decode_encode: JSON.parse + Task.fromJSON -> Task -> Task.toJSON + JSON.stringify",
    fn: sdkRoundtrip, arg: input, out: sdkRoundtrip(input) },
  { sdk: "@a2a-js/sdk (node)", version: ver, what: "protojson_decode: JSON.parse + Task.fromJSON -> Task",
    fn: sdkDecode, arg: input, out: sdkEncode(sdkDecode(input)) },
  // Encode alone, from a Task decoded once (like the Rust protojson_encode bench).
  { sdk: "@a2a-js/sdk (node)", version: ver, what: "protojson_encode: Task -> Task.toJSON + JSON.stringify",
    fn: sdkEncode, arg: task, out: sdkEncode(task) },
  { sdk: "node JSON", version: process.version, what: "floor: JSON.parse + JSON.stringify",
    fn: floorRoundtrip, arg: input, out: floorRoundtrip(input) },
];
// With --a2a-wire (bench/node/run.sh installs the packed package next to this script): the
// same round trip through a2a-wire in the same run, both of its paths.
if ("a2a-wire" in args) {
  const a2a = await import("a2a-wire");
  const ours = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("a2a-wire/package.json"), "utf8")).version;
  const obj = a2a.decode("Task", input);
  const oursRoundtrip = (s) => a2a.encode("Task", a2a.decode("Task", s));
  cases.push(
    { sdk: "a2a-wire (node)", version: ours,
      what: "object path: decode (checked, canonical ProtoJSON object) -> encode (checked, canonical text)",
      fn: oursRoundtrip, arg: input, out: oursRoundtrip(input) },
    { sdk: "a2a-wire (node)", version: ours, what: "object path, decode alone: text -> checked plain object",
      fn: (s) => a2a.decode("Task", s), arg: input, out: JSON.stringify(a2a.decode("Task", input)) },
    { sdk: "a2a-wire (node)", version: ours, what: "object path, encode alone: plain object -> checked canonical text",
      fn: (o) => a2a.encode("Task", o), arg: obj, out: a2a.encode("Task", obj) },
    { sdk: "a2a-wire (node)", version: ours, what: "text path: canonicalize (checked, no JS object built)",
      fn: (s) => a2a.canonicalize("Task", s), arg: input, out: a2a.canonicalize("Task", input) },
  );
}
const { medians, batches } = measureInterleaved(cases);
cases.forEach((c, i) => {
  const got = JSON.parse(c.out);
  const diff = firstDifference(want, got);
  const rec = {
    sdk: c.sdk, version: c.version, what: c.what,
    median_per_sec: Math.round(medians[i]), repeats,
    roundtrip_equal: diff === null && isDeepStrictEqual(want, got),
    bytes_equal: c.out === input,
    batch: batches[i], input_bytes: Buffer.byteLength(input), output_bytes: Buffer.byteLength(c.out),
    runtime,
  };
  if (diff) rec.first_difference = diff;
  console.log(JSON.stringify(rec));
});
if (sink === -1) console.log(""); // never true; reads sink

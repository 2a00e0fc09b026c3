#!/usr/bin/env bash
# The Node binding's benchmarks, in one run on this machine (results go to BENCHMARKS.md):
#
# 1. the codec: round trips per second of tests/vectors/bench/sample_task.json through
#    a2a-wire (the plain-object path and the text path) against the official SDK's own path
#    and bare JSON.parse + JSON.stringify, interleaved in one process (bench/sdk/node_codec.mjs
#    --a2a-wire, pinned to CPU 1);
# 2. the servers: the same Node echo agent on the ready server (examples/node/agent.mjs)
#    and under Express (examples/node/express.mjs) against the official JS SDK server and the
#    floor, under the `make bench-server` load (bench/server/run.py --node), and one request
#    at a time timed by the client (bench/server/latency_probe.py), wrk's -c1 cross-check.
#
#   bench/node/run.sh        # `make bench-node` packs the package first
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="$root/target/node-bench"
tgz=$(ls "$root"/target/node-dist/a2a-wire-*.tgz)
q=(--no-audit --no-fund --loglevel=error)
mkdir -p "$dir"
cp "$root/bench/sdk/package.json" "$root/bench/sdk/package-lock.json" "$root/bench/sdk/node_codec.mjs" "$dir/"
(cd "$dir" && npm ci "${q[@]}" >&2 && npm install --no-save "${q[@]}" "$tgz" >&2)
(cd "$root/examples/node" && npm ci "${q[@]}" >&2 && npm install --no-save "${q[@]}" "$tgz" >&2)
pin=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc --all 2>/dev/null || echo 1)" -ge 2 ]; then
  pin=(taskset -c 1)
fi
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')" >&2
timeout 300 "${pin[@]}" node "$dir/node_codec.mjs" --a2a-wire --vector="$root/tests/vectors/bench/sample_task.json" \
  --repeats="${NODE_BENCH_REPEATS:-15}" --target="${NODE_BENCH_TARGET:-0.3}" | tee "$root/target/bench-node-codec.jsonl"
python3 "$root/bench/server/run.py" --node --only floor,js-sdk,node-ready,node-express \
  --seconds "${NODE_BENCH_SECONDS:-10}" --repeats "${NODE_BENCH_SERVER_REPEATS:-3}" --out "$root/target/bench-node-servers.json"
# One request at a time, timed by the client (the cross-check of wrk's -c1 percentiles).
python3 "$root/bench/server/latency_probe.py" --n "${NODE_BENCH_PROBE_N:-20000}" node-ready node-express js-sdk a2a-wire \
  | tee "$root/target/bench-node-latency.jsonl"

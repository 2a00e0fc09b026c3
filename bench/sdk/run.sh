#!/usr/bin/env bash
# Measures the official A2A SDKs' ProtoJSON decode + re-encode round trips per second on the
# same 8 KB v1.0 Task as the Rust criterion bench (tests/vectors/bench/sample_task.json), next
# to each language's plain JSON floor, in one run on this machine.
#
#   bench/sdk/run.sh            # installs (pinned) into target/, then prints one JSON line per measurement
#
# Installs: Python venv at target/sdk-venv (requirements.txt), node_modules at target/sdk-node
# (package.json + package-lock.json, `npm ci`). Install logs go to stderr; stdout is only the
# JSON lines. Each benchmark is pinned to CPU 1 when taskset exists, and bounded by `timeout`.
# No network use beyond the package installs. Tunables: SDK_BENCH_REPEATS (15),
# SDK_BENCH_TARGET (seconds per repeat, 0.3), SDK_BENCH_WARMUP (seconds, 0.5).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/target/sdk-venv"
nodedir="$root/target/sdk-node"
vector="$root/tests/vectors/bench/sample_task.json"
repeats="${SDK_BENCH_REPEATS:-15}"
target="${SDK_BENCH_TARGET:-0.3}"
warmup="${SDK_BENCH_WARMUP:-0.5}"

log() { echo "run.sh: $*" >&2; }

# --- installs -------------------------------------------------------------------------------
if [ ! -x "$venv/bin/python" ]; then
  log "creating venv $venv"
  python3 -m venv "$venv"
fi
log "pip install -r requirements.txt"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/requirements.txt" >&2

log "npm ci in $nodedir"
mkdir -p "$nodedir"
cp "$here/package.json" "$here/package-lock.json" "$here/node_codec.mjs" "$nodedir/"
# ESM resolves bare imports from the script's own folder, so the script runs from the copy
# that sits next to node_modules.
(cd "$nodedir" && npm ci --no-audit --no-fund --loglevel=error >&2)

# --- runs -----------------------------------------------------------------------------------
pin=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc --all 2>/dev/null || echo 1)" -ge 2 ]; then
  pin=(taskset -c 1)
fi
log "running (pin: ${pin[*]:-none}; repeats=$repeats target=${target}s warmup=${warmup}s)"

timeout 150 "${pin[@]}" "$venv/bin/python" "$here/python_codec.py" \
  --vector "$vector" --repeats "$repeats" --target "$target" --warmup "$warmup"
timeout 150 "${pin[@]}" node "$nodedir/node_codec.mjs" \
  --vector="$vector" --repeats="$repeats" --target="$target" --warmup="$warmup"

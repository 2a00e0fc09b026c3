#!/bin/sh
# Installs the packages `make dist` wrote as their users would, on a machine without a Rust
# toolchain: PATH keeps no directory with cargo or rustc in it. The wheel goes into a clean
# venv (pip install, no index), the two npm tarballs into a fresh project (npm install);
# each then serves an agent on 127.0.0.1 and talks to it with its own client.
#
#   tests/dist/run.sh DIST
set -eu
DIST=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
NPM_Q="--no-audit --no-fund --loglevel=error"
NO_RUST=$(echo "$PATH" | tr ':' '\n' | while read -r d; do
  [ -n "$d" ] && [ ! -e "$d/cargo" ] && [ ! -e "$d/rustc" ] && printf '%s:' "$d"; done)
export PATH="${NO_RUST%:}"
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET RUSTUP_HOME CARGO_HOME
if command -v cargo >/dev/null 2>&1 || command -v rustc >/dev/null 2>&1; then
  echo "dist: cargo or rustc still on PATH" >&2; exit 1
fi

WHEEL=$(ls "$DIST"/a2a_wire-*-cp310-abi3-manylinux_*_x86_64.whl)
ls "$DIST"/a2a_wire-*.tar.gz >/dev/null
echo "== pip install $(basename "$WHEEL") (no cargo, no rustc)"
python3 -m venv "$T/venv"
"$T/venv/bin/pip" install -q --disable-pip-version-check --no-index "$WHEEL"
"$T/venv/bin/python" - <<'PY'
import asyncio
import a2a_wire as a
from a2a_wire.client import Client
from a2a_wire.server import AgentServer

async def echo(ctx, events):
    events.artifact(ctx.text, last_chunk=True)
    events.complete()

async def main():
    card = a.AgentCard(name="dist", description="d", version="1", capabilities=a.AgentCapabilities(), default_input_modes=["text/plain"], default_output_modes=["text/plain"])
    async with AgentServer(echo, card=card) as s, Client.connect(s.url) as c:
        t = await c.send_message("from the wheel")
        assert t.status.state is a.TaskState.COMPLETED and t.artifacts[0].parts[0].text == "from the wheel", t
    print("python: the wheel serves and calls")

asyncio.run(main())
PY

MAIN=$(ls "$DIST"/a2a-wire-[0-9]*.tgz)
BIN=$(ls "$DIST"/a2a-wire-linux-x64-gnu-*.tgz)
echo "== npm install $(basename "$MAIN") $(basename "$BIN") (no cargo, no rustc)"
tar xzf "$MAIN" -O package/package.json | grep -q '"a2a-wire-linux-x64-gnu"' || { echo "dist: a2a-wire lacks its optional binary dependency" >&2; exit 1; }
! tar tzf "$MAIN" | grep -q '\.node$' || { echo "dist: a2a-wire carries a native module itself" >&2; exit 1; }
mkdir -p "$T/app"
cd "$T/app"
printf '{"name":"dist-check","version":"1.0.0","private":true,"type":"module"}\n' > package.json
npm install $NPM_Q "$BIN" "$MAIN"
test -f node_modules/a2a-wire-linux-x64-gnu/a2a-wire.linux-x64-gnu.node
cat > check.mjs <<'JS'
import { A2AClient, serve } from "a2a-wire";
const card = { name: "dist", description: "d", version: "1", capabilities: {}, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"] };
const server = await serve((ctx, events) => { events.artifact(ctx.text, { lastChunk: true }); events.complete(); }, { card });
const client = await A2AClient.connect(server.url);
const { task } = await client.sendMessage("from npm");
if (task?.status.state !== "TASK_STATE_COMPLETED" || task.artifacts[0].parts[0].text !== "from npm") throw new Error(JSON.stringify(task));
client.close();
await server.close();
console.log("node: the packages serve and call");
JS
node check.mjs
echo "dist: both packages install and run without a Rust toolchain"

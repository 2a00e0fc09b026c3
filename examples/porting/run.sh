#!/bin/sh
# Runs examples/porting: each agent (the official SDK's and its a2a-wire port, in Python and
# in JavaScript) on a free port of 127.0.0.1, the same client (check.py) against each, and
# checks the line counts README.md gives. Needs what `make py-test` (the venv with a2a_wire
# and a2a-sdk) and `make node-pack` (the a2a-wire tarball) leave in target/.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=$ROOT/target/py-wheel-venv/bin/python
TGZ=$(ls "$ROOT"/target/node-dist/a2a-wire-*.tgz)
test -x "$PY" || { echo "porting: $PY is missing: make py-test first" >&2; exit 1; }
"$PY" -c 'import a2a_wire, a2a.server' || { echo "porting: the venv lacks a2a_wire or a2a-sdk" >&2; exit 1; }
NPM_Q="--no-audit --no-fund --loglevel=error"
JS=$ROOT/target/porting-js
rm -rf "$JS" && mkdir -p "$JS"
cp "$HERE"/js/package.json "$HERE"/js/package-lock.json "$HERE"/js/*.mjs "$JS"/
(cd "$JS" && npm ci $NPM_Q && npm install --no-save $NPM_Q "$TGZ")

free() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pid=""
trap '[ -n "$pid" ] && kill $pid 2>/dev/null || true' EXIT
one() { # label, command...
  label=$1; shift
  port=$(free)
  "$@" "$port" &
  pid=$!
  for _ in $(seq 100); do
    "$PY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' \
      "http://127.0.0.1:$port/.well-known/agent-card.json" >/dev/null 2>&1 && break
    kill -0 $pid 2>/dev/null || { echo "porting: $label exited before serving" >&2; exit 1; }
    sleep 0.1
  done
  timeout 120 "$PY" "$HERE/check.py" "http://127.0.0.1:$port" || { echo "porting: $label failed the client's checks" >&2; exit 1; }
  kill $pid; wait $pid 2>/dev/null || true
  pid=""
}
one "python sdk_agent.py" "$PY" "$HERE/python/sdk_agent.py"
one "python wire_agent.py" "$PY" "$HERE/python/wire_agent.py"
one "js sdk_agent.mjs" node "$JS/sdk_agent.mjs"
one "js wire_agent.mjs" node "$JS/wire_agent.mjs"

# The counts README.md gives: lines that are neither blank nor only a comment.
count() { grep -cvE '^[[:space:]]*($|#|//)' "$1"; }
for f in python/sdk_agent.py python/wire_agent.py js/sdk_agent.mjs js/wire_agent.mjs; do
  n=$(count "$HERE/$f")
  grep -q "| \`$f\` | $n |" "$HERE/README.md" || { echo "porting: README.md does not give $f its $n lines" >&2; exit 1; }
done
echo "porting: the same client passes against the SDK agents and their ports; README counts match"

#!/bin/sh
# Runs the "Use from C/C++" commands of README.md as written (the block between the
# `c-commands` markers), from the repository root, with /tmp/a2a-wire replaced by a fresh
# temporary prefix and the port by a free one; fails unless the client prints the echo.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" agent client' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -n '/<!-- c-commands: begin -->/,/<!-- c-commands: end -->/p' README.md | sed '/^<!--/d; /^```/d' \
  | sed "s|/tmp/a2a-wire|$tmp/prefix|g; s|7430|$port|g" > "$tmp/commands.sh"
test -s "$tmp/commands.sh" || { echo "README.md has no c-commands block"; exit 1; }
out=$(timeout 900 bash -e "$tmp/commands.sh" 2>&1)
echo "$out" | tail -3
echo "$out" | grep -q 'artifact echo: hello' || { echo "README C commands: no echo in the output"; exit 1; }
echo "README 'Use from C/C++' commands: ran as written, the echo came back"

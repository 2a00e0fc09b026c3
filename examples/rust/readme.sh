#!/bin/sh
# Runs the "Use from Rust" commands of README.md as written (the block between the
# `rust-commands` markers), from the repository root, with the port replaced by a free one;
# fails unless the client prints the shouted text the server stored.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -n '/<!-- rust-commands: begin -->/,/<!-- rust-commands: end -->/p' README.md | sed '/^<!--/d; /^```/d' \
  | sed "s|7440|$port|g" > "$tmp/commands.sh"
test -s "$tmp/commands.sh" || { echo "README.md has no rust-commands block"; exit 1; }
out=$(timeout 600 sh -e "$tmp/commands.sh" 2>&1)
echo "$out" | tail -3
echo "$out" | grep -q 'has "MAKE IT LOUD"' || { echo "README Rust commands: no shouted text in the output"; exit 1; }
echo "README 'Use from Rust' commands: ran as written, the answer came back"

#!/bin/sh
# Runs the "Use from Python" part of README.md as written: writes each `py-file` block to a
# fresh temporary directory, then runs the block between the `py-commands` markers there,
# with the venv in that directory, `./ffi-python` pointing at this checkout and free ports;
# fails unless both servers echo through the client.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$ROOT/README.md" "$tmp" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
files = re.findall(r"<!-- py-file: (\S+) -->\n```python\n(.*?)```", text, re.S)
assert len(files) == 3, f"README.md has {len(files)} py-file blocks, want 3"
for name, body in files:
    open(f"{sys.argv[2]}/{name}", "w").write(body)
PY
free() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
p1=$(free); p2=$(free)
sed -n '/<!-- py-commands: begin -->/,/<!-- py-commands: end -->/p' "$ROOT/README.md" | sed '/^<!--/d; /^```/d' \
  | sed "s|/tmp/a2a-py|$tmp/venv|g; s|\./ffi-python|$ROOT/ffi-python|g; s|7440|$p1|g; s|7441|$p2|g" > "$tmp/commands.sh"
sed -i "s|7440|$p1|g; s|7441|$p2|g" "$tmp"/quickstart_*.py
test -s "$tmp/commands.sh" || { echo "README.md has no py-commands block"; exit 1; }
cd "$tmp"
# The wheel build shares the checkout's target directory (as `make py-test` does).
out=$(CARGO_TARGET_DIR="$ROOT/target" CARGO_BUILD_TARGET="$(rustc -vV | sed -n 's/^host: //p')" timeout 1200 bash -e "$tmp/commands.sh" 2>&1) || { echo "$out" | tail -30; exit 1; }
echo "$out" | tail -4
test "$(echo "$out" | grep -c '^COMPLETED hello$')" = 2 || { echo "README Python commands: want two 'COMPLETED hello' lines"; exit 1; }
# The quickstart is typed: mypy --strict passes on it as on the examples.
"$tmp/venv/bin/pip" install -q mypy==2.4.1
(cd "$tmp" && "$tmp/venv/bin/python" -m mypy --strict quickstart_app.py quickstart_server.py quickstart_client.py)
echo "README 'Use from Python' commands: ran as written, both servers echoed"

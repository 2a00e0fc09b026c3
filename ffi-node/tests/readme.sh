#!/bin/sh
# Runs the "Use from Node" part of README.md as written: writes each `node-file` block to a
# fresh temporary directory, puts the packed tarball (target/node-dist, `make node-pack`)
# there, then runs the block between the `node-commands` markers in that directory with
# free ports; fails unless all four servers (Express and the ready server, in JS and in
# TypeScript) echo through the client and webhook.js gets the task's events pushed.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TGZ=$(ls "$ROOT"/target/node-dist/a2a-wire-*.tgz)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node - "$ROOT/README.md" "$tmp" <<'JS'
const fs = require("node:fs");
const path = require("node:path");
const [readme, dir] = process.argv.slice(2);
const text = fs.readFileSync(readme, "utf8");
const files = [...text.matchAll(/<!-- node-file: (\S+) -->\n```(?:js|ts)\n([\s\S]*?)```/g)];
if (files.length !== 9) throw new Error(`README.md has ${files.length} node-file blocks, want 9`);
for (const [, name, body] of files) {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  fs.writeFileSync(path.join(dir, name), body);
}
JS
free() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
p1=$(free); p2=$(free)
cp "$TGZ" "$tmp/$(basename "$TGZ")"
# The commands' servers never outlive them, whatever step fails.
echo 'trap "kill \$(jobs -p) 2>/dev/null || true" EXIT' > "$tmp/commands.sh"
sed -n '/<!-- node-commands: begin -->/,/<!-- node-commands: end -->/p' "$ROOT/README.md" | sed '/^<!--/d; /^```/d' \
  | sed "s|7450|$p1|g; s|7451|$p2|g" >> "$tmp/commands.sh"
grep -q "$(basename "$TGZ")" "$tmp/commands.sh" || { echo "README.md's Node commands do not install $(basename "$TGZ")"; exit 1; }
find "$tmp" -name '*.js' -o -name '*.ts' | xargs sed -i "s|7450|$p1|g; s|7451|$p2|g"
cd "$tmp"
timeout 600 bash -e "$tmp/commands.sh" > "$tmp/out.log" 2>&1 || { tail -30 "$tmp/out.log"; exit 1; }
out=$(cat "$tmp/out.log")
echo "$out" | grep -E '^(TASK_STATE_COMPLETED|pushed:) ' || true
test "$(echo "$out" | grep -c '^TASK_STATE_COMPLETED hello$')" = 4 || { echo "$out"; echo "README Node commands: want four 'TASK_STATE_COMPLETED hello' lines"; exit 1; }
test "$(echo "$out" | grep -c '^pushed: hello TASK_STATE_COMPLETED$')" = 1 || { echo "$out"; echo "README Node commands: want the line 'pushed: hello TASK_STATE_COMPLETED'"; exit 1; }
echo "README 'Use from Node' commands: ran as written, all four servers echoed, the webhook got the pushed events"

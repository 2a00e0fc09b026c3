#!/bin/sh
# Runs the "Use from Kotlin" part of README.md as written: the commands between the
# `kotlin-commands` markers (the port replaced by a free one), then the agent and the client
# programs between the `kotlin-agent` / `kotlin-client` markers, each compiled in a fresh
# Maven project that depends on org.a2awire:a2a-wire as a user's would (examples/kotlin's
# pom.xml), the agent's port replaced by a free one; fails unless the echoes come back.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
tmp=$(mktemp -d)
free() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
p1=$(free); p2=$(free)
cleanup() { pkill -f "exec.args=127.0.0.1:$p1" 2>/dev/null || true; [ -n "${agent:-}" ] && kill "$agent" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
block() { sed -n "/<!-- $1: begin -->/,/<!-- $1: end -->/p" README.md | sed '/^<!--/d; /^```/d'; }

block kotlin-commands | sed "s|7470|$p1|g" > "$tmp/commands.sh"
test -s "$tmp/commands.sh" || { echo "README.md has no kotlin-commands block"; exit 1; }
# Output to a file, not a pipe: the agent the commands start in the background keeps its
# descriptors open until it is stopped.
timeout 600 sh -e "$tmp/commands.sh" > "$tmp/commands.log" 2>&1 || { tail -20 "$tmp/commands.log"; echo "README Kotlin commands failed"; exit 1; }
grep -q 'artifact: hello' "$tmp/commands.log" || { tail -20 "$tmp/commands.log"; echo "README Kotlin commands: no echo in the output"; exit 1; }
i=0
while pgrep -f "exec.args=127.0.0.1:$p1" >/dev/null; do
  i=$((i + 1)); [ $i -le 40 ] || { echo "README Kotlin commands: the agent did not stop"; exit 1; }; sleep 0.5
done

for prog in agent client; do
  mkdir -p "$tmp/$prog"
  cp examples/kotlin/pom.xml "$tmp/$prog/pom.xml"
  sed -i "s|\${project.basedir}/../../target/kotlin-examples|$tmp/$prog/target|" "$tmp/$prog/pom.xml"
  block "kotlin-$prog" | sed "s|7471|$p2|g" > "$tmp/$prog/Main.kt"
  test -s "$tmp/$prog/Main.kt" || { echo "README.md has no kotlin-$prog block"; exit 1; }
  (cd "$tmp/$prog" && mvn -q -B compile)
done
run() { cd "$tmp/$1" && exec mvn -q -B exec:java -Djna.library.path="$ROOT/target/debug" -Dexec.mainClass=MainKt; }
(run agent) > "$tmp/agent.log" 2>&1 &
agent=$!
i=0
until grep -q "serving http://127.0.0.1:$p2" "$tmp/agent.log"; do
  i=$((i + 1)); [ $i -le 120 ] || { cat "$tmp/agent.log"; echo "README Kotlin agent: it did not start"; exit 1; }; sleep 0.5
done
out=$(cd "$tmp/client" && timeout 300 mvn -q -B exec:java -Djna.library.path="$ROOT/target/debug" -Dexec.mainClass=MainKt 2>&1)
echo "$out" | grep -q 'text=hello' || { echo "$out" | tail -20; echo "README Kotlin client: no echo of hello"; exit 1; }
echo "$out" | grep -q 'text=again' || { echo "$out" | tail -20; echo "README Kotlin client: the stream did not echo"; exit 1; }
echo "README 'Use from Kotlin' commands and programs: ran as written, the echoes came back"

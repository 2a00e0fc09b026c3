#!/bin/bash
# CPU time per request of an agent process under wrk load, with its requests/s and p99:
# steadier than requests/s alone on a shared, noisy machine (BENCHMARKS.md, the Kotlin binding).
#
#   bench/kotlin/cpu_per_request.sh PORT COMMAND...   (the address 127.0.0.1:PORT is appended)
#
# The agent runs on CPU 0 and wrk (one thread) on CPU 1; an 8 s warm-up at 8 connections,
# then 6 s at 1, 8 and 32 connections of JSON-RPC SendMessage (a short text message). CPU
# time is the process's utime + stime across each run (/proc/PID/stat, 100 ticks/s).
set -eu
PORT=$1; shift
LOG=$(mktemp)
LUA=$(mktemp --suffix=.lua)
trap 'kill $PID 2>/dev/null || true; rm -f "$LOG" "$LUA"' EXIT
cat > "$LUA" <<'LUA'
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.headers["a2a-version"] = "1.0"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello bench"}]}}}'
LUA
taskset -c 0 "$@" "127.0.0.1:$PORT" > "$LOG" 2>&1 &
PID=$!
for _ in $(seq 120); do grep -q serving "$LOG" && break; sleep 0.5; done
grep -q serving "$LOG" || { cat "$LOG"; echo "the agent did not start"; exit 1; }
URL="http://127.0.0.1:$PORT/a2a/jsonrpc"
taskset -c 1 wrk -t1 -c8 -d8s -s "$LUA" "$URL" > /dev/null
for c in 1 8 32; do
  t0=$(awk '{print $14 + $15}' /proc/$PID/stat)
  out=$(taskset -c 1 wrk -t1 -c$c -d6s --latency -s "$LUA" "$URL")
  t1=$(awk '{print $14 + $15}' /proc/$PID/stat)
  n=$(echo "$out" | awk '/requests in/ {print $1}')
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
  echo "c$c requests/s=$rps p99=$p99 cpu_us_per_request=$(( (t1 - t0) * 10000 / n ))"
done

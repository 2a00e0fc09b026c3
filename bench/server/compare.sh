#!/bin/bash
# SendMessage before and after a change, with RunningServer and the floor, in one sitting
# (BENCHMARKS.md, "Close to the hardware"): the servers run interleaved, two rounds each.
#
#   bench/server/compare.sh BASELINE_A2A_WIRE_BINARY [ROUNDS] [SECONDS]
#
# Needs the release builds (cargo build --release -p a2a-wire-cli -p a2a-wire-bench --bins)
# and wrk. Each server on CPU 0, wrk (one thread) on CPU 1; a 2 s warm-up at 8 connections,
# then 1, 8 and 32 connections of bench/server/sendmessage.lua. The floor answers with the
# bytes of a real answer of the server under test. Prints one line per server and level:
# round, server, connections, requests/s, p50, p99.
set -eu
cd "$(dirname "$0")/../.."
BASE=$1; ROUNDS=${2:-2}; SECS=${3:-6}
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT/a2a/jsonrpc"
BODY=target/bench-floor-body.json
wait_port() { for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && return; sleep 0.1; done; echo "no server on $PORT" >&2; exit 1; }
target/release/a2a-wire serve --addr 127.0.0.1:$PORT --store memory >/dev/null 2>&1 & P=$!
wait_port
curl -s -X POST -H 'content-type: application/json' -H 'a2a-version: 1.0' \
  -d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello bench"}]}}}' \
  "$URL" > $BODY
kill $P; wait $P 2>/dev/null || true
for r in $(seq "$ROUNDS"); do
  for s in before after echo-server floor; do
    case $s in
      before) cmd="$BASE serve --addr 127.0.0.1:$PORT --store memory" ;;
      after) cmd="target/release/a2a-wire serve --addr 127.0.0.1:$PORT --store memory" ;;
      echo-server) cmd="target/release/echo-server 127.0.0.1:$PORT" ;;
      floor) cmd="target/release/floor-server --addr 127.0.0.1:$PORT --body $BODY" ;;
    esac
    taskset -c 0 $cmd >/dev/null 2>&1 & P=$!
    wait_port
    taskset -c 1 wrk -t1 -c8 -d2s -s bench/server/sendmessage.lua "$URL" >/dev/null
    for c in 1 8 32; do
      echo "r$r $s c$c $(taskset -c 1 wrk -t1 -c$c -d${SECS}s --latency -s bench/server/sendmessage.lua "$URL" |
        awk '/Requests\/sec/ {r=$2} $1=="50%" {p50=$2} $1=="99%" {p99=$2} END {print r, p50, p99}')"
    done
    kill $P; wait $P 2>/dev/null || true
  done
done

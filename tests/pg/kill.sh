#!/bin/sh
# `kill -9` of the server running a long task (make pg-test, with the cluster of
# tests/pg/cluster.sh started): two `a2a-wire serve` on one PostgreSQL database with a 2 s
# lease; a long task starts on the first, which is killed; the second claims the task once the
# lease runs out and finishes it (the demo agent is told it resumes a run), within the lease
# plus a bound.
set -eu
A2A=$1
ADMIN=$2
DB="${ADMIN%/*}/a2a_kill"
PGOPTIONS="-c client_min_messages=warning" psql -q -v ON_ERROR_STOP=1 "$ADMIN" -c "DROP DATABASE IF EXISTS a2a_kill" -c "CREATE DATABASE a2a_kill"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pa=$(free_port); pb=$(free_port)
la=$(mktemp); lb=$(mktemp)
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null || true; done; rm -f "$la" "$lb"' EXIT
serve() { # port log
  "$A2A" serve --addr "127.0.0.1:$1" --store "$DB" --lease-seconds 2 > "$2" 2>&1 &
  pids="$pids $!"
  for _ in $(seq 100); do grep -q "echo agent on" "$2" && return; sleep 0.1; done
  cat "$2"; echo "a server did not start"; exit 1
}
serve "$pa" "$la"; a=$(echo $pids | awk '{print $1}')
serve "$pb" "$lb"
# A task of 40 ticks 250 ms apart (10 s), answered at once, running on the first server.
id=$(python3 - "$pa" <<'EOF'
import json, sys, urllib.request
body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
    "message": {"messageId": "kill-1", "role": "ROLE_USER", "parts": [{"text": "ticks 40 250"}]},
    "configuration": {"returnImmediately": True}}}
req = urllib.request.Request(f"http://127.0.0.1:{sys.argv[1]}/a2a/jsonrpc", json.dumps(body).encode(),
                             {"Content-Type": "application/json", "A2A-Version": "1.0"})
print(json.load(urllib.request.urlopen(req, timeout=10))["result"]["task"]["id"])
EOF
)
sleep 1
kill -9 "$a"
killed=$(date +%s)
# Lease 2 s, claims every 2/3 s, the resumed demo run finishes at once: 10 s is a wide bound.
for _ in $(seq 100); do
  got=$(timeout 10 "$A2A" get "http://127.0.0.1:$pb" "$id" --json 2>/dev/null || true)
  if echo "$got" | grep -q '"TASK_STATE_COMPLETED"'; then
    took=$(( $(date +%s) - killed ))
    [ "$took" -le 12 ] || { echo "finished $took s after the kill"; exit 1; }
    echo "kill -9: the task of the killed server finished on the other one ${took} s later (lease 2 s)"
    exit 0
  fi
  sleep 0.2
done
echo "the task did not finish after its server was killed: $got"; cat "$lb"; exit 1

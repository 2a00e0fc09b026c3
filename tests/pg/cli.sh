#!/bin/sh
# `a2a-wire serve --store postgres://...` as a user runs it (make pg-test, with the cluster
# tests/pg/cluster.sh started): a task sent to one server is read back from a second one
# started on the same database after the first stopped, and an unreachable database is an
# error at start, with the password left out of the message.
set -eu
A2A=$1
ADMIN=$2
DB="${ADMIN%/*}/a2a_cli"
PGOPTIONS="-c client_min_messages=warning" psql -q -v ON_ERROR_STOP=1 "$ADMIN" -c "DROP DATABASE IF EXISTS a2a_cli" -c "CREATE DATABASE a2a_cli"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
log=$(mktemp)
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
serve() {
  "$A2A" serve --addr "127.0.0.1:$port" --store "$DB" --cache-mb 0 > "$log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q "echo agent on" "$log" && return; sleep 0.1; done
  cat "$log"; echo "the server did not start"; exit 1
}
serve
grep -q "tasks in ${DB}" "$log" || { cat "$log"; echo "serve did not name its database"; exit 1; }
id=$(timeout 30 "$A2A" send "http://127.0.0.1:$port" "kept in postgres" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
kill -TERM $pid; wait $pid || true
serve
got=$(timeout 30 "$A2A" get "http://127.0.0.1:$port" "$id" --json)
echo "$got" | grep -q '"TASK_STATE_COMPLETED"' && echo "$got" | grep -q 'kept in postgres' || { echo "after a restart: $got"; exit 1; }
kill -TERM $pid; wait $pid || true
if out=$(timeout 60 "$A2A" serve --addr "127.0.0.1:$port" --store "postgres://postgres:hunter2@127.0.0.1:1/none" 2>&1); then
  echo "serve started on an unreachable database"; exit 1
fi
echo "$out" | grep -q "127.0.0.1:1" && ! echo "$out" | grep -q hunter2 || { echo "unreachable database: $out"; exit 1; }
echo "a2a-wire serve --store postgres://: a task outlived a restart; an unreachable database is refused at start"

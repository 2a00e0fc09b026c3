#!/bin/sh
# The official SDKs' clients (a2a-sdk's tests/interop/python/their_client.py and @a2a-js/sdk's
# tests/interop/js/their_client.mjs) against the Kotlin demo agent (examples/kotlin/Agent.kt,
# started as `make kotlin-agent` starts it) on all three bindings in v1.0 and v0.3: the nine
# checks of the interop matrix, and a clean exit on SIGTERM (ffi-c/tests/sdk_checks.py).
# Needs `make interop-deps kotlin-install`.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$ROOT/target/kotlin-interop"
cd "$ROOT/examples/kotlin"
mvn -q -B compile
for client in python js; do
  python3 "$ROOT/ffi-c/tests/sdk_checks.py" --client $client --bindings JSONRPC,HTTP+JSON,GRPC --log "$ROOT/target/kotlin-interop/agent-$client.log" -- \
    mvn -q -B exec:java -Djna.library.path="$ROOT/target/debug" -Dexec.mainClass=org.a2awire.examples.AgentKt "-Dexec.args=127.0.0.1:{port}"
done

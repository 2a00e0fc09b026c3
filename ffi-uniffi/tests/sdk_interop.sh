#!/bin/sh
# The official Python SDK's client (a2a-sdk, tests/interop/python/their_client.py) against the
# Kotlin demo agent (examples/kotlin/Agent.kt, started as `make kotlin-agent` starts it) on all
# three bindings in v1.0 and v0.3: the nine checks of the interop matrix, and a clean exit on
# SIGTERM (ffi-c/tests/sdk_checks.py). Needs `make interop-py kotlin-install`.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$ROOT/target/kotlin-interop"
cd "$ROOT/examples/kotlin"
mvn -q -B compile
python3 "$ROOT/ffi-c/tests/sdk_checks.py" --bindings JSONRPC,HTTP+JSON,GRPC --log "$ROOT/target/kotlin-interop/agent.log" -- \
  mvn -q -B exec:java -Djna.library.path="$ROOT/target/debug" -Dexec.mainClass=org.a2awire.examples.AgentKt "-Dexec.args=127.0.0.1:{port}"

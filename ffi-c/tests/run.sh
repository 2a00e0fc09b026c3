#!/bin/sh
# The C binding's tests against an installed copy (`make c-test` installs one first):
#
#   ffi-c/tests/run.sh PREFIX
#
# 1. the C tests built with gcc through pkg-config, linked dynamically and statically, run
#    (test_framing.c: the HTTP/1.1 framing table's smuggling cases against the ready server);
# 2. the examples (C, and the C++ embedding with g++) built through CMake's find_package,
#    dynamically and statically; the C agent and client talk over loopback;
# 3. the C tests, the C agent and the C++ embedding under AddressSanitizer +
#    UndefinedBehaviorSanitizer (the official Python SDK's checks run against both servers;
#    the embedding also with its own store: a SQLite file and memory, store_checks.py);
# 4. two principals on the ready server with bearer tokens (test_isolation.c and the
#    two-principal matrix), dynamic and under the sanitizers;
# 5. TLS: the ready server and client with a test CA, and the official Python SDK's client
#    against the C agent over TLS;
# 6. Agent Card signatures and extended cards per identity (test_cards.c), and push
#    notifications into a webhook hosted in cpp-httplib with a2a_receiver (test_webhook.cpp),
#    dynamic and under the sanitizers (the receiver's sans-IO test is in the loop of 1);
# 7. the C tests, the agent/client examples and both servers (with the SDK's checks) under
#    valgrind (memcheck, leak check full).
# Everything listens on 127.0.0.1; every run is bounded by `timeout`.
set -eu
PREFIX=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/target/c-build
mkdir -p "$B"
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
CFLAGS="-std=gnu11 -Wall -Wextra -Werror -g -O1"
CFLAGS_PC=$(pkg-config --cflags a2a_wire)
LIBS_PC=$(pkg-config --libs a2a_wire)
STATIC="-L$PREFIX/lib -Wl,-Bstatic -la2a_wire -Wl,-Bdynamic -lpthread -ldl -lm"
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
VALGRIND="valgrind -q --num-callers=40 --suppressions=$ROOT/ffi-c/tests/valgrind.supp --leak-check=full --error-exitcode=9 --errors-for-leak-kinds=definite,indirect,possible"
T="timeout 600"
TESTS=${C_TESTS:-"api loopback vectors receiver framing sdk_api"}
run() { # name, command... (its time is printed after it, to show where a run's time goes)
  name=$1; shift
  printf '%s: ' "$name"
  t0=$(date +%s)
  "$@"
  echo "  ($name: $(( $(date +%s) - t0 )) s)"
}

echo "== pkg-config: $(pkg-config --modversion a2a_wire), cflags $CFLAGS_PC, libs $LIBS_PC"
for t in $TESTS; do
  gcc $CFLAGS $CFLAGS_PC "$ROOT/ffi-c/tests/test_$t.c" $LIBS_PC -Wl,-rpath,"$PREFIX/lib" -lcjson -lpthread -o "$B/test_$t"
  gcc $CFLAGS $CFLAGS_PC "$ROOT/ffi-c/tests/test_$t.c" $STATIC -lcjson -o "$B/test_${t}_static"
  gcc $CFLAGS $SAN $CFLAGS_PC "$ROOT/ffi-c/tests/test_$t.c" $LIBS_PC -Wl,-rpath,"$PREFIX/lib" -lcjson -lpthread -o "$B/test_${t}_asan"
done
# The dynamic builds must load the installed library (by its soname), not a build tree's.
ldd "$B/test_api" | grep -q "liba2a_wire.so.0 => $PREFIX/lib/liba2a_wire.so.0" || { ldd "$B/test_api"; echo "not linked against $PREFIX"; exit 1; }
! ldd "$B/test_api_static" | grep -q liba2a_wire || { echo "the static build loads liba2a_wire.so"; exit 1; }
VEC="$ROOT/tests/vectors"
for t in $TESTS; do
  arg=""; [ "$t" = vectors ] && arg=$VEC; [ "$t" = framing ] && arg=$VEC/http1/framing.json
  run "dynamic $t" $T "$B/test_$t" $arg
  run "static $t" $T "$B/test_${t}_static" $arg
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run "asan+ubsan $t" $T "$B/test_${t}_asan" $arg
  run "valgrind $t" $T $VALGRIND "$B/test_$t" $arg
done

# Two principals on every operation and interface of the ready server with bearer tokens
# (the matrix is tests/src/bin/isolation.rs; `make c-test` builds it).
echo "== two principals: test_isolation with the two-principal matrix"
MATRIX=${A2A_ISOLATION_BIN:-$ROOT/target/debug/a2a-wire-isolation}
gcc $CFLAGS $CFLAGS_PC "$ROOT/ffi-c/tests/test_isolation.c" $LIBS_PC -Wl,-rpath,"$PREFIX/lib" -o "$B/test_isolation"
gcc $CFLAGS $SAN $CFLAGS_PC "$ROOT/ffi-c/tests/test_isolation.c" $LIBS_PC -Wl,-rpath,"$PREFIX/lib" -o "$B/test_isolation_asan"
run "dynamic isolation" $T "$B/test_isolation" "$MATRIX"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run "asan+ubsan isolation" $T "$B/test_isolation_asan" "$MATRIX"

# TLS: the ready server and the blocking client with a CA made now (a2a-wire-testca, built by
# `make c-test`), and the official Python SDK's client against the C agent over TLS.
echo "== TLS: test_tls with a test CA and the official Python SDK's client"
TESTCA=${A2A_TESTCA_BIN:-$ROOT/target/debug/a2a-wire-testca}
rm -rf "$B/tls" && "$TESTCA" "$B/tls"
gcc $CFLAGS $CFLAGS_PC "$ROOT/ffi-c/tests/test_tls.c" $LIBS_PC -Wl,-rpath,"$PREFIX/lib" -o "$B/test_tls"
run "dynamic tls" $T "$B/test_tls" "$B/tls" "$ROOT/target/interop-py-venv/bin/python" "$ROOT/tests/interop/python/their_client.py"

# Signatures and extended cards; push notifications into a cpp-httplib webhook.
echo "== cards (signatures, extended cards per identity) and webhooks (a2a_receiver in cpp-httplib)"
gcc $CFLAGS $CFLAGS_PC "$ROOT/ffi-c/tests/test_cards.c" $LIBS_PC -Wl,-rpath,"$PREFIX/lib" -o "$B/test_cards"
gcc $CFLAGS $SAN $CFLAGS_PC "$ROOT/ffi-c/tests/test_cards.c" $LIBS_PC -Wl,-rpath,"$PREFIX/lib" -o "$B/test_cards_asan"
HTTPLIB="$(pkg-config --cflags cpp-httplib 2>/dev/null)"
HTTPLIB_LIBS="$(pkg-config --libs cpp-httplib 2>/dev/null)"
g++ -std=c++17 -Wall -Wextra -Werror -g -O1 $CFLAGS_PC $HTTPLIB "$ROOT/ffi-c/tests/test_webhook.cpp" $LIBS_PC $HTTPLIB_LIBS -Wl,-rpath,"$PREFIX/lib" -lpthread -o "$B/test_webhook"
g++ -std=c++17 -Wall -Wextra -Werror -g -O1 $SAN $CFLAGS_PC $HTTPLIB "$ROOT/ffi-c/tests/test_webhook.cpp" $LIBS_PC $HTTPLIB_LIBS -Wl,-rpath,"$PREFIX/lib" -lpthread -o "$B/test_webhook_asan"
run "dynamic cards" $T "$B/test_cards"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run "asan+ubsan cards" $T "$B/test_cards_asan"
run "dynamic webhook" $T "$B/test_webhook"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run "asan+ubsan webhook" $T "$B/test_webhook_asan"

echo "== examples through CMake find_package(a2a_wire)"
cmake -S "$ROOT/examples" -B "$B/examples" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$B/examples" -j 2 >/dev/null
for x in agent client agent_static client_static embed embed_static; do test -x "$B/examples/$x" || { echo "example $x not built"; exit 1; }; done
for f in "$ROOT"/examples/c/*.c; do
  n=$(wc -l < "$f"); [ "$n" -lt 80 ] || { echo "$f has $n lines (the examples stay under 80)"; exit 1; }
done

# The agent and client examples over loopback, dynamic and static, then under valgrind.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
for kind in "" _static; do
  "$B/examples/agent$kind" "127.0.0.1:$PORT" > "$B/agent.log" 2>&1 &
  pid=$!
  for _ in $(seq 50); do grep -q serving "$B/agent.log" && break; sleep 0.1; done
  out=$($T "$B/examples/client$kind" "http://127.0.0.1:$PORT" "hello from C" 2>/dev/null)
  kill -TERM $pid; wait $pid
  echo "$out" | grep -q 'artifact echo: hello from C' || { echo "client$kind: $out"; exit 1; }
  echo "examples agent$kind + client$kind: the echo came back"
done
$VALGRIND "$B/examples/agent" "127.0.0.1:$PORT" > "$B/agent-valgrind.log" 2>&1 &
pid=$!
for _ in $(seq 300); do grep -q serving "$B/agent-valgrind.log" && break; sleep 0.1; done
for text in hello need-input message-only slow; do
  $T $VALGRIND "$B/examples/client" "http://127.0.0.1:$PORT" "$text" > "$B/client-valgrind.out" 2>> "$B/client-valgrind.log" || { cat "$B/client-valgrind.log"; exit 1; }
done
kill -TERM $pid
if ! wait $pid; then cat "$B/agent-valgrind.log"; echo "the agent under valgrind found errors"; exit 1; fi
echo "valgrind: examples/c/agent.c and client.c, four behaviours: clean"

echo "== the official Python SDK (a2a-sdk) against the C servers, under ASan + UBSan"
g++ -std=c++17 -Wall -Wextra -Werror -g -O1 $SAN $CFLAGS_PC $(pkg-config --cflags cpp-httplib 2>/dev/null) "$ROOT/examples/cpp/embed.cpp" $LIBS_PC $(pkg-config --libs cpp-httplib 2>/dev/null) -Wl,-rpath,"$PREFIX/lib" -lpthread -o "$B/embed_asan"
gcc $CFLAGS $SAN $CFLAGS_PC "$ROOT/examples/c/agent.c" $LIBS_PC -Wl,-rpath,"$PREFIX/lib" -lpthread -o "$B/agent_asan"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
python3 "$ROOT/ffi-c/tests/sdk_checks.py" --bindings JSONRPC,HTTP+JSON,GRPC --log "$B/sdk-agent.log" -- "$B/agent_asan" "127.0.0.1:{port}"
python3 "$ROOT/ffi-c/tests/sdk_checks.py" --bindings JSONRPC,HTTP+JSON --log "$B/sdk-embed.log" -- "$B/embed_asan" "127.0.0.1:{port}"
# The embedding answering its own store requests (a SQLite file, then memory): the SDK's
# checks, a restart that keeps the tasks, retention (ffi-c/tests/store_checks.py).
rm -f "$B"/embed-*.db*
python3 "$ROOT/ffi-c/tests/sdk_checks.py" --bindings JSONRPC,HTTP+JSON --log "$B/sdk-embed-store.log" -- "$B/embed_asan" "127.0.0.1:{port}" --store "$B/embed-sdk.db"
python3 "$ROOT/ffi-c/tests/sdk_checks.py" --bindings JSONRPC,HTTP+JSON --log "$B/sdk-embed-memstore.log" -- "$B/embed_asan" "127.0.0.1:{port}" --store memory
$T python3 "$ROOT/ffi-c/tests/store_checks.py" --db "$B/embed-store.db" -- "$B/embed_asan" "127.0.0.1:{port}"
echo "== the same under valgrind (memcheck, leak check full; a report fails the server's exit status)"
unset ASAN_OPTIONS UBSAN_OPTIONS
python3 "$ROOT/ffi-c/tests/sdk_checks.py" --bindings JSONRPC,HTTP+JSON,GRPC --log "$B/sdk-agent-valgrind.log" -- $VALGRIND "$B/examples/agent" "127.0.0.1:{port}"
python3 "$ROOT/ffi-c/tests/sdk_checks.py" --bindings JSONRPC,HTTP+JSON --log "$B/sdk-embed-valgrind.log" -- $VALGRIND "$B/examples/embed" "127.0.0.1:{port}"
echo "== the same against the static CMake builds (C agent and C++ embedding)"
# (The dynamic C++ embedding of the CMake build, examples/embed, passed them under valgrind above.)
python3 "$ROOT/ffi-c/tests/sdk_checks.py" --bindings JSONRPC,HTTP+JSON --log "$B/sdk-embed-static.log" -- "$B/examples/embed_static" "127.0.0.1:{port}"
python3 "$ROOT/ffi-c/tests/sdk_checks.py" --bindings JSONRPC,HTTP+JSON,GRPC --log "$B/sdk-agent-static.log" -- "$B/examples/agent_static" "127.0.0.1:{port}"
echo "c tests: all passed"

# a2a-wire: the single entry point. `make test` runs every test the repository has and
# installs what it needs (rustup target, cargo-fuzz) on a fresh machine.

CARGO ?= cargo
THUMB := thumbv7em-none-eabihf
FUZZ_SECONDS ?= 5
export CARGO_TERM_COLOR ?= never

.PHONY: test deps fmt-check unit pg-test pg-replicas tokio-check axum-test oracle interop interop-deps bench-server nostd fuzz-smoke bench-build bench demo serve clean \
	interop-py test-bins bench-tls c-lib c-header c-header-check install c-test bench-c py-dist py-stubs py-test bench-python \
	node-build node-model node-check node-pack node-test bench-node bench-pg dist dist-test porting-test uniffi-gen uniffi-check kotlin-test kotlin-install kotlin-agent kotlin-client bench-kotlin

# Each step runs in order and says how long it took (CI keeps a full run under 45 minutes).
TEST_STEPS := deps fmt-check unit pg-test tokio-check axum-test oracle c-test py-test interop pg-replicas node-test kotlin-test porting-test dist-test nostd bench-build fuzz-smoke
# One throwaway PostgreSQL cluster serves every step (A2A_PG_URL; A2A_PG_REQUIRED makes a
# test that needs it fail instead of skipping); it is stopped however the run ends.
test:
	@tests/pg/cluster.sh start $(PG_DIR) || exit 1; \
	export A2A_PG_URL=$$(cat $(PG_DIR)/url) A2A_PG_REQUIRED=1; \
	trap 'tests/pg/cluster.sh stop $(PG_DIR)' EXIT; \
	for step in $(TEST_STEPS); do \
	  start=$$(date +%s); $(MAKE) --no-print-directory $$step || exit 1; \
	  echo "make test: $$step took $$(( $$(date +%s) - start )) s"; \
	done; \
	echo "make test: all passed"

CBINDGEN_VERSION := 0.29.4
# Every release build of a binding names the host target, as `napi build` always does: the
# C library, the Python wheels and the Node module then share one set of compiled
# dependencies in target/$(HOST)/release instead of building them twice.
HOST := $(shell rustc -vV | sed -n 's/^host: //p')
REL_DIR := target/$(HOST)/release
C_DEBS := valgrind libcjson-dev libcpp-httplib-dev pkg-config cmake

deps:
	rustup component add rustfmt
	rustup target add $(THUMB)
	@command -v cargo-fuzz >/dev/null 2>&1 || $(CARGO) install cargo-fuzz --locked
	@cbindgen --version 2>/dev/null | grep -qx "cbindgen $(CBINDGEN_VERSION)" || $(CARGO) install cbindgen --version $(CBINDGEN_VERSION) --locked
	@dpkg -s $(C_DEBS) >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq $(C_DEBS))
	@command -v mvn >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq maven)

fmt-check:
	$(CARGO) fmt --all -- --check

# The workspace's binaries (a2a-wire, the tests crate's tools), built as `cargo test` builds
# them: with one feature set for every step, so no step rebuilds a crate the unit tests
# compiled with other features (after `unit`, a no-op).
BINS := $(CARGO) test --no-run -q

# Unit tests, doc tests and the golden vectors (proto, core, tests).
unit:
	$(CARGO) test
	# The README's "Use from Rust" commands, as written (the binaries `cargo test` just built).
	sh examples/rust/readme.sh
	# The transport's features build apart (a store file is refused without `sqlite`, gRPC
	# and TLS fail saying so without theirs): a client alone, a server without gRPC or TLS
	# (every feature together is the default; `tower` and `postgres` are built by axum-test
	# and pg-test); and a client-only build compiles no SQLite, no h2 and no rustls.
	for f in client server; do \
	  $(CARGO) check -q -p a2a-wire-smol --no-default-features --features "$$f" || exit 1; done
	@deps=$$($(CARGO) tree -q -p a2a-wire-smol --no-default-features --features client -e normal --prefix none | cut -d' ' -f1 | sort -u); \
	  for heavy in libsqlite3-sys rusqlite h2 rustls; do \
	    if echo "$$deps" | grep -qx "$$heavy"; then echo "a client-only build compiles $$heavy"; exit 1; fi; done; \
	  echo "client-only a2a-wire-smol: no SQLite, h2 or rustls"

# PostgreSQL: a throwaway cluster (tests/pg/cluster.sh: Debian's postgresql installed when
# missing, 127.0.0.1 only, fsync off, stopped at the end) for the store's tests
# (transport/tests/store.rs, `pg::`) and `a2a-wire serve --store postgres://` (tests/pg/cli.sh).
# `make test` starts one cluster for every step; alone, this step starts its own. The C,
# Python and Node tests use the cluster of `make test` too (their PostgreSQL cases skip
# without one when run by hand).
PG_DIR := $(CURDIR)/target/pg-cluster
pg-test:
	$(BINS)
	@if [ -n "$$A2A_PG_URL" ]; then url=$$A2A_PG_URL; own=; \
	  else tests/pg/cluster.sh start $(PG_DIR)-own && url=$$(cat $(PG_DIR)-own/url) && own=1; fi; \
	  A2A_PG_URL=$$url A2A_PG_REQUIRED=1 $(CARGO) test -q --test store pg:: \
	  && tests/pg/cli.sh target/debug/a2a-wire $$url && python3 tests/pg/kill.py target/debug/a2a-wire $$url \
	  && python3 tests/pg/outage.py target/debug/a2a-wire; \
	  rc=$$?; [ -z "$$own" ] || tests/pg/cluster.sh stop $(PG_DIR)-own; exit $$rc

# Three `a2a-wire serve` replicas on one database behind a2a-wire-balancer, driven by the
# official Python SDK client (tests/pg/replicas_sdk.py) and the official JS SDK client
# (tests/pg/replicas_js.py, which also runs the isolation matrix through the balancer) on
# each v1.0 binding, then a 60 s soak with concurrent streams and subscriptions on every
# replica (tests/pg/soak.py).
pg-replicas: interop-deps
	$(BINS)
	@if [ -n "$$A2A_PG_URL" ]; then url=$$A2A_PG_URL; own=; \
	  else tests/pg/cluster.sh start $(PG_DIR)-own && url=$$(cat $(PG_DIR)-own/url) && own=1; fi; \
	  $(INTEROP_PY)/bin/python tests/pg/replicas_sdk.py target/debug/a2a-wire target/debug/a2a-wire-balancer $$url \
	  && python3 tests/pg/replicas_js.py target/debug/a2a-wire target/debug/a2a-wire-balancer target/debug/a2a-wire-isolation $$url \
	  && $(INTEROP_PY)/bin/python tests/pg/soak.py target/debug/a2a-wire target/debug/a2a-wire-balancer $$url; \
	  rc=$$?; [ -z "$$own" ] || tests/pg/cluster.sh stop $(PG_DIR)-own; exit $$rc

# No tokio runtime anywhere in the tree: h2 and sqlx bring tokio's IO traits and sync, never
# its runtime, reactor, timers or process and signal handling.
tokio-check:
	@features=$$($(CARGO) tree --workspace -e features -i tokio 2>/dev/null | grep -oE 'tokio feature "[a-z-]+"' | sort -u); \
	  echo "tokio features in the tree:" $$features; \
	  if echo "$$features" | grep -qE '"(rt|rt-multi-thread|net|time|fs|process|signal)"'; then echo "a tokio runtime feature is on"; exit 1; fi

# The transport's tower Service (feature `tower`) mounted in axum on tokio: tests/axum is a
# workspace of its own (as fuzz/ is), so tokio's runtime never joins the main workspace.
axum-test:
	cd tests/axum && $(CARGO) test --locked --target-dir ../../target/axum

# The v1.0 vectors against an independent implementation: Google's protobuf library with the
# official Python SDK's generated classes (tests/python/protobuf_oracle.py).
PY_VENV := target/py-venv
oracle:
	test -x $(PY_VENV)/bin/python || python3 -m venv $(PY_VENV)
	$(PY_VENV)/bin/python -m pip install -q --disable-pip-version-check -r tests/python/requirements.txt
	$(BINS)
	$(PY_VENV)/bin/python tests/python/protobuf_oracle.py target/debug/a2a-wire-vector-tool

# no_std proof, never as a --workspace build (feature unification would turn `std` on):
# 1. the core crates for a target that has no `std` at all;
# 2. a host `#![no_std]` staticlib with its own panic handler, linked into a C program and run;
# 3. self-test: the core built with a deliberate `std` use must FAIL to build.
# The interop matrix against the official SDKs from PyPI and npm, both directions, every
# binding and version (tests/interop/run.py; INTEROP.md lists the SDK quirks it allows).
INTEROP_PY := target/interop-py-venv
# The two-hop chains' middle agent runs on the Python package: the wheel py-dist built (made
# here if there is none), installed into a venv of its own.
INTEROP_CHAIN := target/interop-chain-venv
interop: interop-deps
	$(BINS)
	test -n "$$(ls $(PY_DIST)/a2a_wire-*.whl 2>/dev/null)" || $(MAKE) --no-print-directory py-dist
	rm -rf $(INTEROP_CHAIN) && python3 -m venv $(INTEROP_CHAIN)
	$(INTEROP_CHAIN)/bin/pip install -q --disable-pip-version-check $(PY_DIST)/a2a_wire-*.whl
	python3 tests/interop/run.py --chains $(INTEROP_CHAIN)/bin/python

# Every SDK line of the matrix (tests/interop/run.py, LINES): a venv per a2a-sdk release,
# `npm ci` per @a2a-js/sdk release, a build per a2a-go release.
# A stamp names what was installed: a later step (or run) installs again only when a
# requirements file, a lock file or a Go module file changed.
INTEROP_DEPS_FILES := tests/interop/python/requirements-1.0.txt tests/interop/python-0.3/requirements.txt \
	$(wildcard tests/interop/js*/package-lock.json tests/interop/go*/go.sum tests/interop/go*/go.mod tests/interop/go*/cmd/*/*.go)
interop-deps: interop-py target/interop-deps.stamp
target/interop-deps.stamp: $(INTEROP_DEPS_FILES)
	test -x target/interop-py-1.0-venv/bin/python || python3 -m venv target/interop-py-1.0-venv
	target/interop-py-1.0-venv/bin/pip install -q --disable-pip-version-check -r tests/interop/python/requirements-1.0.txt
	test -x target/interop-py-0.3-venv/bin/python || python3 -m venv target/interop-py-0.3-venv
	target/interop-py-0.3-venv/bin/pip install -q --disable-pip-version-check -r tests/interop/python-0.3/requirements.txt
	for d in js js-1.0 js-0.3; do (cd tests/interop/$$d && npm ci --no-audit --no-fund --loglevel=error) || exit 1; done
	cd tests/interop/go && go build -o ../../../target/interop-go/ ./cmd/...
	cd tests/interop/go-0.3 && go build -o ../../../target/interop-go-0.3/ ./cmd/...
	touch $@

# The official Python SDK (a2a-sdk 1.3.0 from PyPI) in its own venv.
interop-py: $(INTEROP_PY)/installed.stamp
$(INTEROP_PY)/installed.stamp: tests/interop/python/requirements.txt
	test -x $(INTEROP_PY)/bin/python || python3 -m venv $(INTEROP_PY)
	$(INTEROP_PY)/bin/pip install -q --disable-pip-version-check -r tests/interop/python/requirements.txt
	touch $@

# Server benchmarks over sockets with wrk against the official SDKs' servers and a floor
# (bench/server/run.py; results in BENCHMARKS.md). Not part of `make test`.
bench-server: interop-deps
	command -v wrk >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq wrk)
	$(CARGO) build --release -p a2a-wire-cli -p a2a-wire-bench --bins
	python3 bench/server/run.py

# TLS against plaintext (bench/tls/run.py; results in BENCHMARKS.md): SendMessage on kept-alive
# connections and on a new connection per request (the handshake rate). Not part of `make test`.
bench-tls:
	command -v wrk >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq wrk)
	$(CARGO) build --release -p a2a-wire-cli -p a2a-wire-tests --bin a2a-wire --bin a2a-wire-testca
	python3 bench/tls/run.py

nostd:
	$(CARGO) build -p a2a-wire-proto --target $(THUMB)
	$(CARGO) build -p a2a-wire --no-default-features --target $(THUMB)
	cd nostd-probe && CARGO_TARGET_DIR=../target/nostd-probe $(CARGO) build
	cc nostd-probe/probe.c target/nostd-probe/debug/liba2a_wire_nostd_probe.a -lpthread -ldl -lm -o target/nostd-probe/probe
	./target/nostd-probe/probe
	@if RUSTFLAGS="--cfg a2a_wire_std_canary" $(CARGO) build -p a2a-wire --no-default-features --target $(THUMB) \
	      --target-dir target/nostd-canary 2> target/nostd-canary.log; then \
	  echo "no_std self-test: a std use in the core was NOT caught"; exit 1; \
	elif grep -q "can't find crate for \`std\`" target/nostd-canary.log; then \
	  echo "no_std self-test: a std use in the core fails the build, as it must"; \
	else cat target/nostd-canary.log; echo "no_std self-test failed for another reason"; exit 1; fi

# Each fuzz target for a short bounded time, seeded from the golden vectors. The smoke run
# uses the dev profile (opt-level 1, fuzz/Cargo.toml): the sanitizer release build takes
# several times longer for a few seconds of fuzzing. Long runs: `cargo fuzz run TARGET`.
FUZZ_RUN := RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run --dev
fuzz-smoke:
	python3 fuzz/seed.py
	cd fuzz && RUSTC_BOOTSTRAP=1 $(CARGO) fuzz build --dev
	@# Two targets at a time (one a core), each for its full time; any failure fails the step.
	@set -- v1_json_decode v03_json_decode service_params engine_calls jsonrpc_request rest_request grpc_request \
	  sse_decoder http1_response http1_request jcs; \
	while [ $$# -gt 0 ]; do \
	  a=$$1; shift; b=$${1:-}; [ $$# -gt 0 ] && shift; \
	  echo "fuzz: $$a $$b"; \
	  (cd fuzz && $(FUZZ_RUN) $$a corpus/$$a -- -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 > ../target/fuzz-$$a.log 2>&1) & pa=$$!; \
	  pb=; if [ -n "$$b" ]; then (cd fuzz && $(FUZZ_RUN) $$b corpus/$$b -- -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 > ../target/fuzz-$$b.log 2>&1) & pb=$$!; fi; \
	  wait $$pa || { tail -40 target/fuzz-$$a.log; exit 1; }; \
	  [ -z "$$pb" ] || wait $$pb || { tail -40 target/fuzz-$$b.log; exit 1; }; \
	  tail -1 target/fuzz-$$a.log; [ -z "$$b" ] || tail -1 target/fuzz-$$b.log; \
	done

# ---- The C binding (ffi-c/): liba2a_wire.so / .a and include/a2a_wire.h -----------------
# `make install PREFIX=DIR` installs the libraries, the header, a pkg-config file and a CMake
# package config; `make c-test` checks the header for drift, installs into target/c-prefix and
# runs the C tests and examples against that copy (ffi-c/tests/run.sh).
PREFIX ?= /usr/local
C_VERSION := $(shell sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
C_MAJOR := $(word 1,$(subst ., ,$(C_VERSION)))
C_MINOR := $(word 2,$(subst ., ,$(C_VERSION)))
C_PREFIX := $(CURDIR)/target/c-prefix
C_SUBST := -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(C_VERSION)|g' -e 's|@MAJOR@|$(C_MAJOR)|g' -e 's|@MINOR@|$(C_MINOR)|g'

c-lib:
	$(CARGO) build --release --target $(HOST) -p a2a-wire-c

# Regenerates ffi-c/include/a2a_wire.h (commit the result); c-header-check fails on drift.
c-header:
	ffi-c/gen-header.sh
c-header-check:
	ffi-c/gen-header.sh --check

# Kotlin and Swift through uniffi (ffi-uniffi/): the sources uniffi-bindgen generates from the
# built library are committed; uniffi-check fails when they drift and compiles the C header
# the Swift module needs. kotlin-test runs the Kotlin tests under Maven (Kotlin, JNA,
# coroutines and JUnit from Maven Central) on the library that check built: the vectors
# through the model, and the client against `a2a-wire serve` on 127.0.0.1.
uniffi-gen:
	ffi-uniffi/gen.sh
uniffi-check:
	ffi-uniffi/gen.sh --check
kotlin-test: uniffi-check interop-deps
	$(BINS)
	# The tests, then the package into ~/.m2 (the examples and the README depend on it): one build.
	cd ffi-uniffi/kotlin && mvn -q -B install -Da2a.native.dir=$(CURDIR)/target/debug
	@grep -h "Tests run" target/kotlin/surefire-reports/*.txt
	ffi-uniffi/tests/sdk_interop.sh
	ffi-uniffi/tests/readme.sh

# The Kotlin benchmarks: sample_task.json round trips through the Kotlin API against Jackson,
# and the Kotlin demo agent against the Rust demo agent at 1, 8 and 32 connections
# (bench/kotlin/run.py; results in BENCHMARKS.md). Not part of `make test`.
bench-kotlin: kotlin-install
	command -v wrk >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq wrk)
	$(CARGO) build --release -p a2a-wire-uniffi
	$(CARGO) build --release -p a2a-wire-cli -p a2a-wire-bench --bins
	python3 bench/kotlin/run.py

# The Kotlin package into the local Maven repository (~/.m2), as the examples depend on it.
KOTLIN_RUN = cd examples/kotlin && mvn -q -B compile exec:java -Djna.library.path=$(CURDIR)/target/debug
kotlin-install:
	cd ffi-uniffi/kotlin && mvn -q -B install -DskipTests
# The Kotlin demo agent (examples/kotlin/Agent.kt) in the foreground, until killed.
ADDR ?= 127.0.0.1:7450
kotlin-agent: uniffi-check kotlin-install
	$(KOTLIN_RUN) -Dexec.mainClass=org.a2awire.examples.AgentKt -Dexec.args="$(ADDR)"
URL ?= http://127.0.0.1:7450
TEXT ?= hello
kotlin-client: uniffi-check kotlin-install
	$(KOTLIN_RUN) -Dexec.mainClass=org.a2awire.examples.ClientKt -Dexec.args="$(URL) $(TEXT)"

install: c-lib
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/lib/cmake/a2a_wire
	install -m 644 ffi-c/include/a2a_wire.h $(DESTDIR)$(PREFIX)/include/a2a_wire.h
	install -m 755 $(REL_DIR)/liba2a_wire.so $(DESTDIR)$(PREFIX)/lib/liba2a_wire.so.$(C_VERSION)
	ln -sf liba2a_wire.so.$(C_VERSION) $(DESTDIR)$(PREFIX)/lib/liba2a_wire.so.$(C_MAJOR)
	ln -sf liba2a_wire.so.$(C_MAJOR) $(DESTDIR)$(PREFIX)/lib/liba2a_wire.so
	install -m 644 $(REL_DIR)/liba2a_wire.a $(DESTDIR)$(PREFIX)/lib/liba2a_wire.a
	sed $(C_SUBST) ffi-c/a2a_wire.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/a2a_wire.pc
	sed $(C_SUBST) ffi-c/cmake/a2a_wireConfig.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/a2a_wire/a2a_wireConfig.cmake
	sed $(C_SUBST) ffi-c/cmake/a2a_wireConfigVersion.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/a2a_wire/a2a_wireConfigVersion.cmake

# The two-principal matrix (tests/src/bin/isolation.rs) and the test CA (testca.rs) that
# every binding's tests use against their servers.
test-bins:
	$(BINS)

# The bindings' agents implement the nine original interop checks (tests/interop/CHECKS.md
# up to message_only); the SDK clients their tests run are held to those.
BINDING_CHECKS := card,send,get,stream,input_required,cancel_completed,get_unknown,list,message_only
c-test py-test node-test kotlin-test: export A2A_INTEROP_CHECKS := $(BINDING_CHECKS)

c-test: c-header-check interop-py test-bins
	rm -rf $(C_PREFIX)
	$(MAKE) install PREFIX=$(C_PREFIX)
	ffi-c/tests/run.sh $(C_PREFIX)
	ffi-c/tests/readme.sh

# The C boundary benchmarks (bench/c/run.py; results in BENCHMARKS.md): the codec through the C
# API against the same in Rust, and the C agent against the Rust demo agent on the same server.
C_BENCH := target/c-bench
bench-c: interop-py
	command -v wrk >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq wrk)
	$(CARGO) build --release -p a2a-wire-cli -p a2a-wire-bench --bins
	$(CARGO) build --release --target $(HOST) -p a2a-wire-c
	mkdir -p $(C_BENCH)
	cc -O2 -Wall -Wextra -Iffi-c/include bench/c/codec_loop.c $(REL_DIR)/liba2a_wire.a -lpthread -ldl -lm -o $(C_BENCH)/codec_loop
	cc -O2 -Wall -Wextra -Iffi-c/include examples/c/agent.c $(REL_DIR)/liba2a_wire.a -lpthread -ldl -lm -o $(C_BENCH)/agent
	python3 bench/c/run.py

# SendMessage on one server over memory, SQLite and PostgreSQL and on 1-3 replicas behind the
# balancer, bytes per task in the database, event latency between replicas (bench/pg/run.py;
# results in BENCHMARKS.md). A throwaway cluster unless A2A_PG_URL names one.
bench-pg:
	command -v wrk >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq wrk)
	$(CARGO) build --release -p a2a-wire-cli -p a2a-wire-tests --bin a2a-wire --bin a2a-wire-balancer
	python3 bench/pg/run.py $${A2A_PG_URL:+--pg $$A2A_PG_URL}

# The benchmarks must keep compiling (type-checked: their optimized build is what `make
# bench` makes, see BENCHMARKS.md).
bench-build:
	$(CARGO) check -p a2a-wire-bench --benches --bins

bench:
	$(CARGO) bench -p a2a-wire-bench -- --noplot
	python3 bench/report.py
	$(CARGO) bench -p a2a-wire-bench --features mimalloc -- --noplot
	python3 bench/report.py
	bench/sdk/run.sh

# What a2a-wire does today, on real wire data: decode, validate, translate.
# The main job: the demo echo agent on 127.0.0.1:7420 (ADDR=... and STORE=... to change).
ADDR ?= 127.0.0.1:7420
STORE ?= a2a-wire-tasks.db
serve:
	$(CARGO) build --release -p a2a-wire-cli
	target/release/a2a-wire serve --addr $(ADDR) --store $(STORE)

demo:
	$(CARGO) run -q -p a2a-wire --example wire_tour

clean:
	$(CARGO) clean
	rm -rf fuzz/corpus fuzz/artifacts fuzz/target

# ---- The Python binding (ffi-python/): pip install a2a-wire, import a2a_wire -------------
# `make py-test` builds the sdist, builds the wheel from that sdist (maturin build in the
# unpacked sdist: a manylinux abi3 wheel, maturin's manylinux check passing), installs it into a
# clean venv and runs stubtest, mypy --strict and pytest there; then installs from source
# (`pip install ./ffi-python`, as the README says) into another clean venv and runs the
# README's Python commands with it. Every build shares target/ (CARGO_TARGET_DIR).
PY_DIST := target/py-dist
PY_TOOLS := target/py-tools
PY_WHEEL_VENV := target/py-wheel-venv
PY_SRC_VENV := target/py-src-venv
PIP_Q := -q --disable-pip-version-check
PY_CARGO := CARGO_TARGET_DIR=$(CURDIR)/target CARGO_BUILD_TARGET=$(HOST)

py-dist:
	test -x $(PY_TOOLS)/bin/maturin || (python3 -m venv $(PY_TOOLS) && $(PY_TOOLS)/bin/pip install $(PIP_Q) maturin==1.16.0)
	rm -rf $(PY_DIST) && mkdir -p $(PY_DIST)
	$(PY_TOOLS)/bin/maturin sdist -m ffi-python/Cargo.toml -o $(PY_DIST)
	mkdir -p $(PY_DIST)/src && tar xzf $(PY_DIST)/a2a_wire-*.tar.gz -C $(PY_DIST)/src
	cd $(PY_DIST)/src/a2a_wire-* && $(PY_CARGO) $(CURDIR)/$(PY_TOOLS)/bin/maturin build --release --quiet -o $(CURDIR)/$(PY_DIST)
	rm -rf $(PY_DIST)/src
	ls $(PY_DIST)/a2a_wire-*-cp310-abi3-manylinux_*_x86_64.whl

# Regenerates python/a2a_wire/_model.pyi from the generator (commit the result); the tests
# fail when the committed copy drifts.
py-stubs: py-dist
	rm -rf $(PY_WHEEL_VENV) && python3 -m venv $(PY_WHEEL_VENV)
	$(PY_WHEEL_VENV)/bin/pip install $(PIP_Q) $(PY_DIST)/a2a_wire-*.whl
	cd /tmp && $(CURDIR)/$(PY_WHEEL_VENV)/bin/python -c "import a2a_wire._a2a_wire as m, sys; sys.stdout.write(m._MODEL_STUB)" > $(CURDIR)/ffi-python/python/a2a_wire/_model.pyi

py-test: py-dist test-bins
	rm -rf $(PY_WHEEL_VENV) && python3 -m venv $(PY_WHEEL_VENV)
	$(PY_WHEEL_VENV)/bin/pip install $(PIP_Q) $(PY_DIST)/a2a_wire-*.whl -r ffi-python/tests/requirements.txt
	cd /tmp && $(CURDIR)/$(PY_WHEEL_VENV)/bin/python -m mypy.stubtest a2a_wire
	$(PY_WHEEL_VENV)/bin/python -m mypy --strict ffi-python/python/a2a_wire
	cd examples/python && $(CURDIR)/$(PY_WHEEL_VENV)/bin/python -m mypy --strict .
	cd ffi-python/tests && $(CURDIR)/$(PY_WHEEL_VENV)/bin/python -m pytest -q -p no:cacheprovider .
	ffi-python/tests/readme.sh

# The Python binding's benchmarks (bench/python/run.py; results in BENCHMARKS.md): the codec
# against the official SDK's path and json.loads+dumps, and the Python agent on the ready
# server and under uvicorn against the official SDK server, through bench/server/run.py.
bench-python: py-test
	command -v wrk >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq wrk)
	$(CARGO) build --release -p a2a-wire-cli -p a2a-wire-bench --bins
	$(PY_WHEEL_VENV)/bin/python bench/python/run.py

# ---- The Node binding (ffi-node/): npm install a2a-wire -----------------------------------
# `make node-test` builds the native module with @napi-rs/cli from npm (its own target
# triple directory under target/), checks that the committed generated files (the napi
# loader native.js and native.d.ts, model.js and model.d.ts, index.mjs) are what the build
# makes, packs the package with `npm pack`, installs the tarball into a fresh project and
# into examples/node, and runs tsc --strict and node --test there (ffi-node/tests/run.sh),
# then the README's Node commands (ffi-node/tests/readme.sh).
NODE_DIST := target/node-dist
NPM_Q := --no-audit --no-fund --loglevel=error

node-build:
	cd ffi-node && npm ci $(NPM_Q) && CARGO_TARGET_DIR=$(CURDIR)/target npx napi build --platform --release --js native.js --dts native.d.ts

# Regenerates model.js, model.d.ts and index.mjs (commit the result).
node-model: node-build
	node ffi-node/scripts/model.js
	node ffi-node/scripts/esm.js

node-check: node-build
	node ffi-node/scripts/model.js --check
	node ffi-node/scripts/esm.js --check
	@git diff --exit-code --stat -- ffi-node/native.js ffi-node/native.d.ts || (echo "ffi-node/native.js or native.d.ts drifted from what napi build writes: commit them"; exit 1)

node-pack: node-check
	rm -rf $(NODE_DIST) && mkdir -p $(NODE_DIST)
	cd ffi-node && npm pack $(NPM_Q) --pack-destination $(CURDIR)/$(NODE_DIST)

node-test: node-pack interop-deps test-bins
	ffi-node/tests/run.sh
	ffi-node/tests/readme.sh

# The SDK agents of examples/porting and their a2a-wire ports, one client against all four
# (needs the venv of py-test and the tarball of node-pack, which the steps before it leave).
porting-test:
	examples/porting/run.sh

# ---- Packages that install without a Rust toolchain --------------------------------------
# `make dist` writes to target/dist/ the Python abi3 manylinux wheel and the sdist (py-dist),
# and the npm packages in the napi-rs layout: `a2a-wire` (JavaScript and types) with its
# binary package `a2a-wire-linux-x64-gnu` as an optional dependency. `make dist-test`
# installs them into fresh projects with no cargo or rustc on PATH and runs an agent and a
# client with each (tests/dist/run.sh).
DIST := target/dist

dist: py-dist node-build
	rm -rf $(DIST) && mkdir -p $(DIST)
	cp $(PY_DIST)/a2a_wire-*.whl $(PY_DIST)/a2a_wire-*.tar.gz $(DIST)/
	ffi-node/scripts/dist.sh $(DIST)

dist-test: dist
	tests/dist/run.sh $(DIST)

# The Node binding's benchmarks (bench/node/run.sh; results in BENCHMARKS.md): the codec
# against the official SDK's path and JSON.parse + JSON.stringify, and the Node agent on the
# ready server and under Express against the official SDK server, through bench/server/run.py.
bench-node: node-pack interop-deps
	command -v wrk >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq wrk)
	$(CARGO) build --release -p a2a-wire-cli -p a2a-wire-bench --bins
	bench/node/run.sh

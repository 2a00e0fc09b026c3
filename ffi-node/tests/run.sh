#!/bin/sh
# The Node package's tests, as its users install it: the tarball `npm pack` made
# (target/node-dist, by `make node-pack`) goes into a fresh project with the tests and their
# dependencies from the registry, and into examples/node; then tsc --strict checks the
# typings on the tests' typings.ts and on the examples, and node --test runs every test.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TGZ=$(ls "$ROOT"/target/node-dist/a2a-wire-*.tgz)
T="$ROOT/target/node-test"
NPM_Q="--no-audit --no-fund --loglevel=error"
rm -rf "$T" && mkdir -p "$T"
cp "$ROOT"/ffi-node/tests/package.json "$ROOT"/ffi-node/tests/package-lock.json "$ROOT"/ffi-node/tests/tsconfig.json \
   "$ROOT"/ffi-node/tests/*.mjs "$ROOT"/ffi-node/tests/*.ts "$T"/
(cd "$T" && npm ci $NPM_Q && npm install --no-save $NPM_Q "$TGZ")
(cd "$ROOT/examples/node" && npm ci $NPM_Q && npm install --no-save $NPM_Q "$TGZ")
# The typings, strictly, on the API as a TypeScript user writes it and on the examples.
(cd "$T" && npx tsc -p .)
(cd "$ROOT/examples/node" && npx tsc -p .)
# ESM and CommonJS both load the installed package, and agree.
(cd "$T" && node -e 'const a = require("a2a-wire"); if (typeof a.decode !== "function" || a.TaskState.COMPLETED !== "TASK_STATE_COMPLETED") process.exit(1)' \
  && node --input-type=module -e 'import a, { decode, A2AError } from "a2a-wire"; import { createRequire } from "node:module"; const c = createRequire(import.meta.url)("a2a-wire"); if (decode !== c.decode || a.A2AError !== A2AError) process.exit(1)')
cd "$T"
A2A_REPO="$ROOT" node --expose-gc --test --test-concurrency=1 --test-reporter=dot ./*.test.mjs
echo "node tests: all passed"

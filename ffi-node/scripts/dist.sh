#!/bin/sh
# Packs the Node packages in the napi-rs layout into DIST (`make dist`):
#   a2a-wire-VERSION.tgz                 the JavaScript, the types and the napi loader, with
#                                        a2a-wire-linux-x64-gnu as an optional dependency;
#   a2a-wire-linux-x64-gnu-VERSION.tgz   the native module alone (os linux, cpu x64, glibc).
# npm installs the binary package that fits the machine; the loader (native.js) requires it
# when the package carries no .node file of its own. Needs the module `make node-build`
# wrote (ffi-node/a2a-wire.linux-x64-gnu.node).
set -eu
DIST=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")/.." && pwd)
NPM_Q="--no-audit --no-fund --loglevel=error"
NODE_FILE="$HERE/a2a-wire.linux-x64-gnu.node"
test -f "$NODE_FILE" || { echo "dist.sh: $NODE_FILE is missing: make node-build" >&2; exit 1; }
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
VERSION=$(node -p 'require(process.argv[1]).version' "$HERE/package.json")

# The binary package.
mkdir -p "$STAGE/linux-x64-gnu"
cp "$NODE_FILE" "$STAGE/linux-x64-gnu/"
node - "$HERE/package.json" "$STAGE/linux-x64-gnu/package.json" <<'JS'
const fs = require("fs");
const main = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const pkg = {
  name: `${main.name}-linux-x64-gnu`,
  version: main.version,
  description: `The native module of ${main.name} for Linux on x86-64 with glibc (installed by ${main.name}).`,
  license: main.license,
  main: `${main.napi.binaryName}.linux-x64-gnu.node`,
  files: [`${main.napi.binaryName}.linux-x64-gnu.node`],
  os: ["linux"],
  cpu: ["x64"],
  libc: ["glibc"],
  engines: main.engines,
};
fs.writeFileSync(process.argv[3], JSON.stringify(pkg, null, 2) + "\n");
JS
printf '# a2a-wire-linux-x64-gnu\n\nThe native module of [a2a-wire](https://www.npmjs.com/package/a2a-wire) for Linux x86-64 (glibc). Install `a2a-wire`; npm picks this package.\n' > "$STAGE/linux-x64-gnu/README.md"

# The main package: what `files` lists, without the native module.
mkdir -p "$STAGE/main"
(cd "$HERE" && cp -r index.js index.mjs index.d.ts model.js model.d.ts native.js native.d.ts lib README.md "$STAGE/main/")
node - "$HERE/package.json" "$STAGE/main/package.json" <<'JS'
const fs = require("fs");
const pkg = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
pkg.files = pkg.files.filter((f) => !f.endsWith(".node"));
pkg.optionalDependencies = { [`${pkg.name}-linux-x64-gnu`]: pkg.version };
// The platforms a binary package exists for (the JavaScript itself is portable).
pkg.os = ["linux"];
pkg.cpu = ["x64"];
delete pkg.devDependencies;
delete pkg.scripts;
fs.writeFileSync(process.argv[3], JSON.stringify(pkg, null, 2) + "\n");
JS
(cd "$STAGE/linux-x64-gnu" && npm pack $NPM_Q --pack-destination "$DIST" >/dev/null)
(cd "$STAGE/main" && npm pack $NPM_Q --pack-destination "$DIST" >/dev/null)
ls "$DIST/a2a-wire-$VERSION.tgz" "$DIST/a2a-wire-linux-x64-gnu-$VERSION.tgz"

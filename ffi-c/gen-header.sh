#!/bin/sh
# Regenerates ffi-c/include/a2a_wire.h with the pinned cbindgen, the version macros taken
# from the workspace Cargo.toml. With --check: fails (exit 1, with the diff) when the
# committed header differs from what the sources generate.
set -eu
CBINDGEN_VERSION=0.29.4
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
if ! cbindgen --version 2>/dev/null | grep -qx "cbindgen $CBINDGEN_VERSION"; then
  echo "gen-header.sh: needs cbindgen $CBINDGEN_VERSION (cargo install cbindgen --version $CBINDGEN_VERSION --locked)" >&2
  exit 2
fi
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$root/Cargo.toml")
major=${version%%.*}; rest=${version#*.}; minor=${rest%%.*}; patch=${rest#*.}; patch=${patch%%[-+]*}
defines="#define A2A_WIRE_VERSION \"$version\"\n#define A2A_WIRE_VERSION_MAJOR $major\n#define A2A_WIRE_VERSION_MINOR $minor\n#define A2A_WIRE_VERSION_PATCH $patch"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s|@VERSION_DEFINES@|$defines|" "$here/cbindgen.toml" > "$tmp/cbindgen.toml"
cbindgen --quiet --config "$tmp/cbindgen.toml" --crate a2a-wire-c --output "$tmp/a2a_wire.h" "$here"
if [ "${1:-}" = "--check" ]; then
  if ! diff -u "$here/include/a2a_wire.h" "$tmp/a2a_wire.h"; then
    echo "ffi-c/include/a2a_wire.h is out of date: run ffi-c/gen-header.sh and commit it" >&2
    exit 1
  fi
  grep -qx "#define A2A_WIRE_VERSION \"$version\"" "$here/include/a2a_wire.h" || { echo "A2A_WIRE_VERSION is not $version" >&2; exit 1; }
  grep -qx "#define A2A_WIRE_VERSION_MAJOR $major" "$here/include/a2a_wire.h" || { echo "A2A_WIRE_VERSION_MAJOR is not $major" >&2; exit 1; }
  echo "a2a_wire.h matches the sources (cbindgen $CBINDGEN_VERSION, version $version)"
else
  cp "$tmp/a2a_wire.h" "$here/include/a2a_wire.h"
fi

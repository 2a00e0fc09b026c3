#!/bin/sh
# Generates the Kotlin and Swift sources of a2a-wire-uniffi from the built library (uniffi
# library mode: the metadata is read out of liba2a_wire_uniffi.so, the names from uniffi.toml)
# with the workspace's own uniffi-bindgen, pinned with the library's uniffi:
#   kotlin/src/main/kotlin/org/a2awire/a2a_wire.kt
#   swift/Sources/A2AWire/A2AWire.swift, swift/Sources/A2AWireFFI/{A2AWireFFI.h, module.modulemap}
#
#   ffi-uniffi/gen.sh          regenerate the committed files
#   ffi-uniffi/gen.sh --check  fail when they differ from what the library generates now
#                              (and check that the C header compiles: cc -fsyntax-only)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CARGO=${CARGO:-cargo}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
(cd "$ROOT" && $CARGO build -q -p a2a-wire-uniffi -p a2a-wire-uniffi-bindgen)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$TARGET/debug/uniffi-bindgen" generate "$TARGET/debug/liba2a_wire_uniffi.so" -l kotlin -l swift --no-format -o "$OUT" >/dev/null
mkdir -p "$OUT/tree/kotlin/src/main/kotlin/org/a2awire" "$OUT/tree/swift/Sources/A2AWire" "$OUT/tree/swift/Sources/A2AWireFFI"
mv "$OUT/org/a2awire/a2a_wire.kt" "$OUT/tree/kotlin/src/main/kotlin/org/a2awire/a2a_wire.kt"
# uniffi's per-call JNA status structure replaced by a per-thread pool (see the script).
python3 "$HERE/patch_kotlin.py" "$OUT/tree/kotlin/src/main/kotlin/org/a2awire/a2a_wire.kt"
mv "$OUT/A2AWire.swift" "$OUT/tree/swift/Sources/A2AWire/A2AWire.swift"
mv "$OUT/A2AWireFFI.h" "$OUT/tree/swift/Sources/A2AWireFFI/A2AWireFFI.h"
mv "$OUT/A2AWireFFI.modulemap" "$OUT/tree/swift/Sources/A2AWireFFI/module.modulemap"
FILES="kotlin/src/main/kotlin/org/a2awire/a2a_wire.kt swift/Sources/A2AWire/A2AWire.swift swift/Sources/A2AWireFFI/A2AWireFFI.h swift/Sources/A2AWireFFI/module.modulemap"
# The header compiles as C, included by a file of its own (-Wall -Werror). Clang (which
# Swift's importer is) knows the nullability qualifiers; gcc does not, so they are defined
# away for it.
if command -v clang >/dev/null 2>&1; then HCC=clang; else HCC="cc -D_Nullable= -D_Nonnull= -D_Null_unspecified="; fi
printf '#include "A2AWireFFI.h"\n' > "$OUT/tree/swift/Sources/A2AWireFFI/check.c"
$HCC -fsyntax-only -Wall -Werror "$OUT/tree/swift/Sources/A2AWireFFI/check.c" || { echo "ffi-uniffi: the generated C header does not compile" >&2; exit 1; }
if [ "${1:-}" = "--check" ]; then
  for f in $FILES; do
    if ! cmp -s "$OUT/tree/$f" "$HERE/$f"; then
      echo "ffi-uniffi/$f differs from what the library generates: run ffi-uniffi/gen.sh and commit" >&2
      diff -u "$HERE/$f" "$OUT/tree/$f" | head -20 >&2 || true
      exit 1
    fi
  done
  echo "ffi-uniffi: the generated Kotlin and Swift sources match the library; the C header compiles"
else
  for f in $FILES; do mkdir -p "$(dirname "$HERE/$f")"; cp "$OUT/tree/$f" "$HERE/$f"; done
  echo "ffi-uniffi: generated $FILES"
fi

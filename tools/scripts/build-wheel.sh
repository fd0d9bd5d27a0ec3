#!/usr/bin/env bash
# build-wheel.sh [BUILD_DIR] [OUT_DIR]: a wheel of the infc Python package that carries the
# compiler (BUILD_DIR/bin/infc, default build/) with its runtime archive and export map, so
# that `pip install` of the wheel gives `import infc`, `infc.compile` and `infc.load` with no
# other setup. Written to OUT_DIR (default dist/). The compiler links the system's LLVM 22,
# MLIR 22 and protobuf shared libraries and links models with clang-22 (or cc): the wheel is
# for machines set up like this one (tools/scripts/setup.sh), tagged for this platform.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:-$REPO/build}" && pwd)"
OUT="$(mkdir -p "${2:-$REPO/dist}" && cd "${2:-$REPO/dist}" && pwd)"
for f in bin/infc lib/libinfc_runtime.a lib/infc_exports.map; do
  [[ -f "$BUILD/$f" ]] || { echo "build-wheel.sh: $BUILD/$f missing (build first)" >&2; exit 1; }
done
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp "$REPO/python/pyproject.toml" "$REPO/python/setup.py" "$REPO/python/README.md" "$stage/"
mkdir -p "$stage/infc"
cp "$REPO"/python/infc/*.py "$stage/infc/"
# The installed compiler, not the build tree's: its RUNPATH names LLVM's directory only
# (the build tree's has an empty entry, the current directory, after it).
cmake --install "$BUILD" --prefix "$stage/prefix" >/dev/null
mkdir -p "$stage/infc/_compiler/bin" "$stage/infc/_compiler/lib"
cp "$stage/prefix/bin/infc" "$stage/infc/_compiler/bin/"
cp "$stage/prefix/lib/libinfc_runtime.a" "$stage/prefix/lib/infc_exports.map" \
  "$stage/infc/_compiler/lib/"
rm -rf "$stage/prefix"
python3 -m pip wheel -q --no-index --no-build-isolation --no-deps "$stage" -w "$OUT"
ls "$OUT"/infc-*.whl

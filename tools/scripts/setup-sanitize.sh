#!/usr/bin/env bash
# Builds infc with ASan and UBSan and the libFuzzer targets into build-asan/ (or
# $INFC_ASAN_BUILD_DIR), after setup.sh has installed the dependencies. Used by test.sh and
# fuzz.sh. -O1 with the sanitizers: instrumented -O3 takes twice as long to build, and -O1
# still runs the e2e subset's real models quickly enough.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${INFC_ASAN_BUILD_DIR:-$REPO/build-asan}"
export CCACHE_BASEDIR="$REPO" CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -S "$REPO" -B "$BUILD" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DINFC_SANITIZE=ON -DINFC_FUZZ=ON \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld-22 -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld-22 \
    -DPython3_EXECUTABLE="$(command -v python3)" >/dev/null
fi
cmake --build "$BUILD"

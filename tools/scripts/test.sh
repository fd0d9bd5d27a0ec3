#!/usr/bin/env bash
# Every test: set up and build, then ctest (lit pass tests, runtime unit tests, end-to-end
# comparisons with onnxruntime, bad-input tests).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${INFC_BUILD_DIR:-$REPO/build}"
bash "$REPO/tools/scripts/setup.sh"
cd "$BUILD"
exec ctest --output-on-failure -j2 "$@"

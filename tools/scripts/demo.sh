#!/usr/bin/env bash
# The main job on the bundled example: set up, compile examples/digits/digits.onnx, run it on
# the 360 held-out digits and compare with onnxruntime, then quantize it to int8 with infc's
# own calibration and compare the accuracies.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${INFC_BUILD_DIR:-$REPO/build}"
bash "$REPO/tools/scripts/setup.sh"
exec python3 "$REPO/examples/digits/demo.py" --infc "$BUILD/bin/infc" --work "$BUILD/demo"

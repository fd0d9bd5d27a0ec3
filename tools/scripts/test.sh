#!/usr/bin/env bash
# Every test: set up and build, then ctest (lit pass tests, runtime unit tests and the TSan
# concurrency tests, end-to-end comparisons with onnxruntime, bad-input tests, conformance).
# Then, unless arguments select tests or INFC_SANITIZER_TESTS=0: the ASan/UBSan build
# (build-asan/, tools/scripts/setup-sanitize.sh) runs the fuzz smoke runs and the sanitizer
# subset below (docs/testing.md says what runs where).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${INFC_BUILD_DIR:-$REPO/build}"
ASAN_BUILD="${INFC_ASAN_BUILD_DIR:-$REPO/build-asan}"
# lit, the unit and Python tests, the bad-input and malformed-model tests, six zoo models and
# int8 calibration through infc compile and run, the C embedding, and the four fuzzers
# for INFC_FUZZ_SECONDS (15 s) each: about a minute and a half.
SANITIZER_SUBSET='^lit$|^runtime\.|^target\.|^import\.|^python\.|^e2e_bad_inputs$|^e2e_malformed$|^e2e_(mlp|lenet|seq_encoder|decoder|qlinear_cnn|bert_layer|quantize|bf16|c_embedding|specialize|symbolic|sequence|profile|llm)$|^fuzz_'
bash "$REPO/tools/scripts/setup.sh"
status=0
ctest --test-dir "$BUILD" --output-on-failure -j2 "$@" || status=1
if (($# == 0)) && [[ "${INFC_SANITIZER_TESTS:-1}" != 0 ]]; then
  bash "$REPO/tools/scripts/setup-sanitize.sh"
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir "$ASAN_BUILD" --output-on-failure -j2 -R "$SANITIZER_SUBSET" || status=1
fi
exit $status

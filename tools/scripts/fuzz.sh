#!/usr/bin/env bash
# A fuzzing campaign: fuzz.sh HOURS [TARGET...] (as root on Debian 12, like test.sh).
# Sets up and builds build-asan/ (ASan, UBSan, libFuzzer), then runs each target (default:
# import compile npy runtime) for HOURS, one after another, one job each, from the seed corpus
# in test/fuzz/corpus/. New inputs collect in build-asan/test/fuzz/campaign/<target>/corpus;
# a crash is written there as crash-* and stops that target. Prints libFuzzer's final stats
# (executions, coverage, corpus size) per target: record them in docs/testing.md.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${INFC_ASAN_BUILD_DIR:-$REPO/build-asan}"
hours=${1:?usage: fuzz.sh HOURS [import|compile|npy|runtime ...]}
shift
targets=("$@")
((${#targets[@]})) || targets=(import compile npy runtime)
bash "$REPO/tools/scripts/setup.sh"
bash "$REPO/tools/scripts/setup-sanitize.sh"
seconds=$(python3 -c "print(int(float('$hours') * 3600))")
status=0
for t in "${targets[@]}"; do
  seeds=$t
  [[ $t == import || $t == compile ]] && seeds=onnx
  work="$BUILD/test/fuzz/campaign/$t"
  mkdir -p "$work"
  echo "fuzz.sh: $t for $seconds s, work in $work"
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    bash "$REPO/test/fuzz/run_fuzzer.sh" "$BUILD/bin/fuzz_$t" "$REPO/test/fuzz/corpus/$seeds" \
    "$work" "$seconds" 2>&1 | tail -n 25 | tee "$work.log" || status=1
done
exit $status

#!/usr/bin/env bash
# run_fuzzer.sh FUZZER SEEDS WORK SECONDS [libFuzzer flags...]
# Runs FUZZER for SECONDS: first every seed and regression file in SEEDS once, then
# mutations of them. New inputs go to WORK/corpus, a crash to WORK/crash-*; SEEDS is only
# read. Fails when the fuzzer finds a crash, a leak, a timeout or runs out of memory.
set -euo pipefail
fuzzer=$1 seeds=$2 work=$3 seconds=$4
shift 4
mkdir -p "$work/corpus"
cd "$work"
# -rss_limit_mb: an input that makes the compiler use 2 GiB is a bug too (the machine has 24).
exec "$fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/" "$@" "$work/corpus" "$seeds"

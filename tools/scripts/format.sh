#!/usr/bin/env bash
# format.sh [--check]: clang-format-22 (LLVM style, .clang-format) over the C and C++ sources
# the repository tracks; --check lists the files it would change and fails if there are any.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
format=/usr/lib/llvm-22/bin/clang-format
if [[ ! -x $format ]]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-format-22 >/dev/null
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp')
if [[ ${1:-} == --check ]]; then
  changed=0
  for f in "${files[@]}"; do
    if ! "$format" --style=file "$f" | cmp -s - "$f"; then
      echo "needs formatting: $f"
      changed=1
    fi
  done
  exit $changed
fi
"$format" --style=file -i "${files[@]}"

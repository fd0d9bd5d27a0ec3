#!/usr/bin/env bash
# codegen-snapshot.sh OUTDIR [INFC]: the code infc generates for every zoo model, for a
# refactor's before/after check (diff -r two snapshots; none expected from a pure refactor).
# Per model: x86 assembly for AVX-512 (sapphirerapids) and AVX2 (haswell), and the CUDA
# kernels' PTX at fp32 and fp16. Needs the zoo (ctest -R zoo_generate, in build/zoo).
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out=${1:?usage: codegen-snapshot.sh OUTDIR [INFC]}
infc=${2:-$REPO/build/bin/infc}
zoo=${INFC_ZOO_DIR:-$REPO/build/zoo}
mkdir -p "$out"
for model in "$zoo"/*.onnx; do
  name=$(basename "$model" .onnx)
  for variant in "avx512:--cpu sapphirerapids --emit=asm" "avx2:--cpu haswell --emit=asm" \
                 "ptx32:--target cuda --emit=ptx" "ptx16:--target cuda --precision fp16 --emit=ptx"; do
    tag=${variant%%:*}
    # shellcheck disable=SC2086
    "$infc" compile "$model" ${variant#*:} -o "$out/$name.$tag" 2>"$out/$name.$tag.err" ||
      echo "codegen-snapshot: $name.$tag failed (kept its error)"
    [[ -s $out/$name.$tag.err ]] || rm -f "$out/$name.$tag.err"
  done
done
( cd "$out" && sha256sum ./*.avx512 ./*.avx2 ./*.ptx32 ./*.ptx16 2>/dev/null > SHA256SUMS )
echo "codegen-snapshot: $(wc -l < "$out/SHA256SUMS") files in $out"

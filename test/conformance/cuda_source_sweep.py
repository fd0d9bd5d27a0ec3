#!/usr/bin/env python3
"""Every ONNX node test through `--target cuda --emit=cuda` and nvcc: does the CUDA printer
take each kernel the pipeline makes, and does nvcc accept what it prints?

    python3 test/conformance/cuda_source_sweep.py --infc build/bin/infc \
        --node-dir build/conformance-work/node-data [--precision fp32] [--arch sm_80] [--jobs 2]

Each case's model.onnx is compiled as it stands (no --input-shape: a case with symbolic dims
is counted as 'not compiled', as is an op the CUDA path does not take); each source tree
that is written is built with `nvcc -O3 -Werror all-warnings -fatbin -arch=ARCH`. Prints the
counts and every printer refusal or nvcc failure; exits 1 on any. Not a ctest (about 8
minutes on 2 cores); e2e_emit_cuda runs the printed kernels of the zoo.
"""

import argparse
import collections
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--node-dir", required=True)
    ap.add_argument("--precision", default="fp32")
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    cases = sorted(d for d in os.listdir(args.node_dir) if d.startswith("test_"))
    work = tempfile.mkdtemp(prefix="cuda-sweep-")

    def one(case):
        out = os.path.join(work, case)
        r = subprocess.run([args.infc, "compile", os.path.join(args.node_dir, case, "model.onnx"),
                            "--target", "cuda", "--precision", args.precision, "--emit=cuda",
                            "-o", out], capture_output=True, text=True, timeout=300)
        if r.returncode:
            last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
            printer = "CUDA output" in last or "C output" in last or r.returncode != 1
            return case, "printer refused" if printer else "not compiled", last
        r = subprocess.run([args.nvcc, "-O3", "-Werror", "all-warnings", "-fatbin",
                            f"-arch={args.arch}", "-o", "model.fatbin", "model.cu"],
                           capture_output=True, text=True, timeout=900, cwd=out)
        shutil.rmtree(out, ignore_errors=True)
        return case, "nvcc failed" if r.returncode else "built", (r.stdout + r.stderr)[:800]

    counts, problems = collections.Counter(), []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for case, kind, detail in pool.map(one, cases):
            counts[kind] += 1
            if kind in ("printer refused", "nvcc failed"):
                problems.append(f"{case}: {kind}: {detail}")
    shutil.rmtree(work, ignore_errors=True)
    print(", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f" (of {len(cases)})")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

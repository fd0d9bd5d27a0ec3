#!/usr/bin/env python3
"""A compiled model.so as a product sees it.

    check_embedding.py --infc BIN --cc CC --model M.onnx --work DIR

Compiles M.onnx with --header, then checks:
  * `ldd` lists only libc, libm, libdl/libpthread, the loader (and the vDSO);
  * `nm -D --defined-only` exports only infc_* ABI symbols;
  * the weights sit in a read-only, 64-byte aligned `.infc_weights` section;
  * a C program (embed_main.c) that includes only infc/runtime.h runs it, both linked
    (with the generated header) and through infc_api_open (dlopen), and its outputs match
    onnxruntime on the same input (rtol 1e-4, atol 1e-5).
Prints 'N passed, M failed'; exits 1 on any failure.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    so = os.path.join(a.work, "model.so")
    header = os.path.join(a.work, "model.h")
    results = []

    def check(name, ok, detail=""):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))

    subprocess.run([a.infc, "compile", a.model, "-o", so, "--header", header], check=True)

    ldd = subprocess.run(["ldd", so], capture_output=True, text=True).stdout
    libs = [l.split()[0] for l in ldd.strip().splitlines()]
    allowed = re.compile(r"^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libdl\.so\.2|"
                         r"libpthread\.so\.0|/lib64/ld-linux-x86-64\.so\.2|ld-linux.*)$")
    bad = [l for l in libs if not allowed.match(os.path.basename(l)) and not allowed.match(l)]
    check("ldd: only libc/libm/loader", not bad, f"unexpected {bad}")

    nm = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True).stdout
    syms = [l.split()[-1] for l in nm.strip().splitlines()]
    bad = [s for s in syms if not s.startswith("infc_")]
    check("nm -D: only infc_* exported", not bad and syms, f"unexpected {bad[:10]}")

    sections = subprocess.run(["readelf", "-SW", so], capture_output=True, text=True).stdout
    weights = [l for l in sections.splitlines() if " .infc_weights " in l]
    fields = weights[0].split() if weights else []
    # [Nr] Name Type Address Off Size ES Flg Lk Inf Al: read-only (A, no W), 64-byte aligned.
    check("weights in a read-only, 64-byte aligned .infc_weights section",
          bool(fields) and "W" not in fields[-4] and "A" in fields[-4] and int(fields[-1]) >= 64,
          weights[0] if weights else "no .infc_weights section")

    sess = ort.InferenceSession(a.model, providers=["CPUExecutionProvider"])
    feeds = {}
    for i, inp in enumerate(sess.get_inputs()):
        n = int(np.prod(inp.shape))
        k = np.arange(n, dtype=np.int64)
        feeds[inp.name] = (((k * 7 + i) % 13) / np.float32(13.0) - np.float32(0.5)).astype(
            np.float32).reshape(inp.shape)
    expected = sess.run(None, feeds)

    inc = ["-I", os.path.join(REPO, "include")]
    variants = {
        "linked": [a.cc, "-std=c99", "-Wall", "-Werror", *inc, "-DINFC_LINKED", "-include", header,
                   os.path.join(HERE, "embed_main.c"), so, "-Wl,-rpath," + a.work,
                   "-o", os.path.join(a.work, "embed_linked")],
        "dlopen": [a.cc, "-std=c99", "-Wall", "-Werror", *inc, os.path.join(HERE, "embed_main.c"),
                   "-ldl", "-o", os.path.join(a.work, "embed_dlopen")],
    }
    for name, cmd in variants.items():
        build = subprocess.run(cmd, capture_output=True, text=True)
        if build.returncode:
            check(f"C host ({name}) builds", False, build.stderr.strip()[:500])
            continue
        prefix = os.path.join(a.work, f"out_{name}")
        run = subprocess.run([cmd[-1], so, prefix], capture_output=True, text=True)
        if run.returncode:
            check(f"C host ({name}) runs", False, run.stderr.strip())
            continue
        ok, worst = True, 0.0
        for j, ref in enumerate(expected):
            got = np.fromfile(f"{prefix}.{j}.bin", dtype=ref.dtype).reshape(ref.shape)
            worst = max(worst, float(np.max(np.abs(got - ref))))
            ok &= bool(np.allclose(got, ref, rtol=1e-4, atol=1e-5))
        check(f"C host ({name}) matches onnxruntime", ok, f"max abs diff {worst:.3g}")
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

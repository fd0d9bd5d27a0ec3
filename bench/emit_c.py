#!/usr/bin/env python3
"""C source output (infc compile --emit=c) built by a C compiler, beside infc's own .so.

    python3 bench/emit_c.py --infc build/bin/infc [--models resnet50,bert_base]
        [--threads 1,2] [--runs 5] [--warmup 3] [--out bench/emit_c.md]

For each zoo model (test/models/make_zoo.py, generated into bench/.cache like compare.py):
`infc compile` to a .so for this CPU, and `--emit=c` twice: with the default tiles
(x86-64-v3: 16 256-bit registers) and with `--cpu native`. Each source tree is built into a
shared library by `clang-22 -O3 -march=native` (and the native one also by
`gcc -O3 -march=native`), every .c of the directory, nothing else. For each thread count, one
worker process per library (benchlib's infc engine: the Python package), alternating in
--runs rounds (the order reversed every other round); the latency is the median of the
rounds' medians. The table gives each C build's latency over the .so's (the issue's target:
at most 2) and its largest difference from the .so's outputs, relative to their largest
magnitude. Writes a Markdown table to --out.
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import bf16  # noqa: E402  (its measure(): alternating rounds of worker processes)
import compare  # noqa: E402


def build_c(cc, src, lib):
    """Every .c of `src` into the shared library `lib`; the build's seconds."""
    start = time.time()
    r = subprocess.run([cc, "-O3", "-march=native", "-fPIC", "-shared", "-o", lib,
                        *sorted(glob.glob(os.path.join(src, "*.c"))), "-lm", "-lpthread"],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{cc} {src}: {r.stderr[-2000:]}")
    return time.time() - start


def outputs(worker, tmp, tag):
    path = os.path.join(tmp, f"{tag}.npz")
    worker.request({"cmd": "outputs", "path": path})
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--infc", required=True)
    ap.add_argument("--models", default="resnet50,bert_base")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(benchlib.BENCH_DIR, ".cache"))
    ap.add_argument("--python-dir", default=benchlib.DEFAULT_PYTHON_DIR)
    ap.add_argument("--out", default=os.path.join(benchlib.BENCH_DIR, "emit_c.md"))
    args = ap.parse_args(argv)
    zdir = compare.zoo_dir(args.work, None)
    rows = []
    for name in args.models.split(","):
        err = compare.generate(name, zdir, None, 1800)
        if err:
            sys.exit(f"{name}: {err}")
        onnx_path = os.path.join(zdir, f"{name}.onnx")
        inputs = os.path.join(zdir, f"{name}.inputs.npz")
        so = os.path.join(args.work, f"emit_c.{name}.so")
        res = compare.compile_model(args.infc, onnx_path, so, [], 1800)
        if "error" in res:
            sys.exit(f"{name}: {res['error']}")
        libs = {"so": (so, None)}
        build_seconds = {}
        for tiles, flags in [("v3", []), ("native", ["--cpu", "native"])]:
            src = os.path.join(args.work, f"emit_c.{name}.{tiles}")
            r = subprocess.run([args.infc, "compile", onnx_path, "--emit=c", "-o", src, *flags],
                               capture_output=True, text=True)
            if r.returncode:
                sys.exit(f"{name} --emit=c {flags}: {r.stderr[-2000:]}")
            for cc in ["clang-22"] + (["gcc"] if tiles == "native" else []):
                tag = f"c_{tiles}_{cc.split('-')[0]}"
                lib = os.path.join(args.work, f"emit_c.{name}.{tag}.so")
                build_seconds[tag] = build_c(cc, src, lib)
                libs[tag] = (lib, os.path.join(src, "model.weights"))
        for t in [int(x) for x in args.threads.split(",")]:
            workers = {}
            try:
                for tag, (lib, weights) in libs.items():
                    if weights:
                        os.environ["INFC_WEIGHTS"] = weights  # the worker's environment
                    workers[tag] = benchlib.Worker("infc", lib, t, inputs, os.devnull,
                                                   args.python_dir, 600)
                ms = bf16.measure(workers, args.runs, args.warmup)
                with tempfile.TemporaryDirectory() as tmp:
                    ref = outputs(workers["so"], tmp, "so")
                    diff = {}
                    for tag in workers:
                        got = outputs(workers[tag], tmp, tag)
                        diff[tag] = max(float(np.max(np.abs(got[k].astype(np.float64) - v)) /
                                              max(1e-30, float(np.max(np.abs(v)))))
                                        for k, v in ref.items())
            finally:
                for w in workers.values():
                    w.kill()
                    w.close()
            rows.append((name, t, ms, diff))
            print(name, t, {e: round(v, 2) for e, v in ms.items()}, flush=True)
            time.sleep(0.5)
    tags = [t for t in rows[0][2] if t != "so"]
    head = (["model", "threads", "so ms"] + [f"{t} ms" for t in tags]
            + [f"{t} / so" for t in tags] + ["largest rel. diff from the .so"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, t, ms, diff in rows:
        cells = ([name, str(t), f"{ms['so']:.2f}"] + [f"{ms[g]:.2f}" for g in tags]
                 + [f"{ms[g] / ms['so']:.2f}" for g in tags]
                 + [f"{max(diff[g] for g in tags):.1e}"])
        lines.append("| " + " | ".join(cells) + " |")
    text = ("## C source output beside the .so\n\n"
            f"Latency in ms, median of {args.runs} alternating rounds (each a round median). "
            "`python3 bench/emit_c.py " + " ".join(argv if argv is not None else sys.argv[1:])
            + "`. Tags: c_TILES_CC, TILES the --emit=c tiles (v3: the default x86-64-v3, "
            "native: --cpu native), CC the compiler (-O3 -march=native).\n\n"
            + "\n".join(benchlib.machine_lines()) + "\n\n" + "\n".join(lines) + "\n")
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()

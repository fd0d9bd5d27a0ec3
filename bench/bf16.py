#!/usr/bin/env python3
"""bf16 on the CPU: infc --precision bf16 beside infc's fp32, OpenVINO's default (bf16 on a
CPU with AVX512_BF16 or AMX) and onnxruntime's fp32, in one run.

    python3 bench/bf16.py --infc build/bin/infc [--models resnet50,mobilenetv2,bert_base]
        [--threads 1,2] [--runs 5] [--warmup 5] [--out bench/bf16.md]

For each zoo model (test/models/make_zoo.py, generated into bench/.cache like compare.py)
infc compiles it twice (fp32, and --precision bf16, which needs a CPU with AMX-BF16); for
each thread count, one worker process per engine (benchlib's: infc through its Python API,
onnxruntime with IOBinding, OpenVINO's CPU plugin with the latency hint, one stream, and its
default precision, which the table names), alternating in --runs rounds (the order reversed
every other round); each round's median of its timed runs, and the median of those. The
accuracy columns: each engine's outputs against onnxruntime's fp32, as the relative L2
error of the first output (||got - ort|| / ||ort||) and, for the classifiers, whether the
top-1 class is the same. Writes a Markdown table to --out.
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import compare  # noqa: E402

CLASSIFIERS = {"resnet50", "mobilenetv2", "resnet18"}


def measure(workers, runs, warmup):
    """{engine: median over rounds of the round's median ms}."""
    first = {}
    for e, w in workers.items():
        first[e] = w.request({"cmd": "run", "warmup": warmup, "iters": 1})["times"][0]
    iters = int(min(100, max(3, round(1.0 / max(first.values())))))
    rounds = {e: [] for e in workers}
    for r in range(runs):
        order = list(workers) if r % 2 == 0 else list(reversed(workers))
        for e in order:
            rounds[e].append(benchlib.median(workers[e].request(
                {"cmd": "run", "warmup": 1, "iters": iters})["times"]))
    return {e: 1e3 * benchlib.median(v) for e, v in rounds.items()}


def accuracy(workers, name, tmp):
    """{engine: (relative L2 error of the first output against ORT, same top-1 or None)}."""
    outs = {}
    for e, w in workers.items():
        path = os.path.join(tmp, f"{e}.npz")
        w.request({"cmd": "outputs", "path": path})
        with np.load(path) as z:
            outs[e] = {k: z[k] for k in z.files}
    ref_all = outs["ort"]
    key = next(iter(ref_all))
    ref = ref_all[key].astype(np.float64)
    result = {}
    for e, o in outs.items():
        got = o.get(key, next(iter(o.values()))).astype(np.float64).reshape(ref.shape)
        rel = float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
        top1 = (bool(np.array_equal(got.argmax(-1), ref.argmax(-1)))
                if name in CLASSIFIERS else None)
        result[e] = (rel, top1)
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--infc", required=True)
    ap.add_argument("--models", default="resnet50,mobilenetv2,bert_base")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--work", default=os.path.join(benchlib.BENCH_DIR, ".cache"))
    ap.add_argument("--python-dir", default=benchlib.DEFAULT_PYTHON_DIR)
    ap.add_argument("--out", default=os.path.join(benchlib.BENCH_DIR, "bf16.md"))
    args = ap.parse_args(argv)
    zdir = compare.zoo_dir(args.work, None)
    rows = []
    for name in args.models.split(","):
        err = compare.generate(name, zdir, None, 1800)
        if err:
            sys.exit(f"{name}: {err}")
        onnx_path = os.path.join(zdir, f"{name}.onnx")
        inputs = os.path.join(zdir, f"{name}.inputs.npz")
        sos = {}
        for e, flags in [("infc_fp32", []), ("infc_bf16", ["--precision", "bf16"])]:
            so = os.path.join(args.work, f"bf16.{name}.{e}.so")
            res = compare.compile_model(args.infc, onnx_path, so, flags, 1800)
            if "error" in res:
                sys.exit(f"{name} ({e}): {res['error']}")
            sos[e] = so
        for t in [int(x) for x in args.threads.split(",")]:
            workers = {}
            try:
                for e, so in sos.items():
                    workers[e] = benchlib.Worker("infc", so, t, inputs, os.devnull,
                                                 args.python_dir, 600)
                workers["ov"] = benchlib.Worker("ov", onnx_path, t, inputs, os.devnull,
                                                args.python_dir, 600)
                workers["ort"] = benchlib.Worker("ort", onnx_path, t, inputs, os.devnull,
                                                 args.python_dir, 600)
                ov_precision = workers["ov"].ready.get("precision")
                ms = measure(workers, args.runs, args.warmup)
                with tempfile.TemporaryDirectory() as tmp:
                    acc = accuracy(workers, name, tmp)
            finally:
                for w in workers.values():
                    w.kill()
                    w.close()
            rows.append((name, t, ms, acc, ov_precision))
            print(name, t, {e: round(v, 3) for e, v in ms.items()}, ov_precision, flush=True)
            time.sleep(0.5)
    engines = ["infc_bf16", "infc_fp32", "ov", "ort"]
    head = (["model", "threads"] + [f"{e} ms" for e in engines]
            + ["bf16 / OV", "fp32 / bf16 (infc)", "OV precision"]
            + [f"{e} rel. L2 vs ORT" for e in ["infc_bf16", "ov"]] + ["top-1 (bf16, OV)"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, t, ms, acc, ov_precision in rows:
        top = ", ".join("-" if acc[e][1] is None else ("same" if acc[e][1] else "differs")
                        for e in ["infc_bf16", "ov"])
        cells = ([name, str(t)] + [f"{ms[e]:.2f}" for e in engines]
                 + [f"{ms['infc_bf16'] / ms['ov']:.2f}", f"{ms['infc_fp32'] / ms['infc_bf16']:.2f}",
                    str(ov_precision)]
                 + [f"{acc[e][0]:.1e}" for e in ["infc_bf16", "ov"]] + [top])
        lines.append("| " + " | ".join(cells) + " |")
    text = ("## bf16 on the CPU beside OpenVINO\n\n"
            f"Latency in ms, median of {args.runs} alternating rounds (each a round median). "
            "`python3 bench/bf16.py " + " ".join(argv if argv is not None else sys.argv[1:])
            + "`\n\n" + "\n".join(benchlib.machine_lines()) + "\n\n" + "\n".join(lines) + "\n")
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()

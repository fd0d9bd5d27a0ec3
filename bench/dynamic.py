#!/usr/bin/env python3
"""Generic code for a symbolic dim (infc compile --dim) against the static library of each
shape and onnxruntime running the same dynamic model, in one run.

    python3 bench/dynamic.py --infc build/bin/infc [--threads 1,2] [--batches 1,8,64]
        [--rounds 5] [--out bench/dynamic.md]

The model (made here): an MLP x[batch, 256] -> 1024 -> 1024 -> 256 (MatMul, Add, Relu, and
a Softmax at the end), 1.5 M weights. infc's two libraries are timed by `infc bench` (the C
ABI, no Python in the loop; --iters scaled to about 0.3 s a round); onnxruntime by a Python
loop over `run` with preallocated inputs (its own overhead included, a few microseconds).
Engines alternate round by round; each number is the median of the round medians. Then
paced: --paced-iters calls each after a pause of --interval-ms (default 32), P50.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402


def make_mlp(path):
    import onnx
    from onnx import TensorProto as T
    from onnx import helper
    rng = np.random.default_rng(3)

    def init(name, shape):
        return helper.make_tensor(name, T.FLOAT, shape,
                                  (rng.standard_normal(shape) * 0.05).astype(np.float32).ravel())
    nodes, prev, sizes = [], "x", [256, 1024, 1024, 256]
    inits = []
    for i in range(3):
        nodes += [helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"]),
                  helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"])]
        inits += [init(f"w{i}", [sizes[i], sizes[i + 1]]), init(f"b{i}", [sizes[i + 1]])]
        if i < 2:
            nodes.append(helper.make_node("Relu", [f"a{i}"], [f"r{i}"]))
            prev = f"r{i}"
    nodes.append(helper.make_node("Softmax", ["a2"], ["y"], axis=-1))
    graph = helper.make_graph(nodes, "mlp_dynamic",
                              [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 256])],
                              [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 256])],
                              inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def infc_ms(infc, lib, batch, threads, iters, interval_ms=0):
    paced = ["--interval-ms", str(interval_ms)] if interval_ms else []
    out = subprocess.run([infc, "bench", lib, "--threads", str(threads), "--iters", str(iters),
                          "--input-shape", f"x={batch}x256"] + paced, capture_output=True,
                         text=True, check=True).stdout
    return float(re.search(r"p50 ([0-9.]+)", out).group(1))


def ort_ms(session, x, iters, interval_ms=0):
    feeds = {"x": x}
    times = []
    for _ in range(iters):
        if interval_ms:
            time.sleep(interval_ms / 1e3)
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return benchlib.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--batches", default="1,8,64")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--interval-ms", type=int, default=32,
                    help="paced calls: the pause before each (default 32)")
    ap.add_argument("--paced-iters", type=int, default=40)
    ap.add_argument("--out", default=os.path.join(benchlib.BENCH_DIR, "dynamic.md"))
    args = ap.parse_args()
    import onnxruntime as ort
    batches = [int(b) for b in args.batches.split(",")]
    work = tempfile.mkdtemp(prefix="infc-dynamic-")
    model = os.path.join(work, "mlp.onnx")
    make_mlp(model)
    generic = os.path.join(work, "generic.so")
    subprocess.run([args.infc, "compile", model, "-o", generic, "--dim",
                    f"batch=1..{max(batches)}"], check=True)
    static = {}
    for b in batches:
        static[b] = os.path.join(work, f"static{b}.so")
        subprocess.run([args.infc, "compile", model, "-o", static[b], "--input-shape",
                        f"x={b}x256"], check=True)
    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        session = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
        for b in batches:
            x = np.random.default_rng(b).standard_normal((b, 256)).astype(np.float32)
            # Iterations for about 0.3 s of the static library a round.
            probe = infc_ms(args.infc, static[b], b, threads, 20)
            iters = max(20, min(20000, int(300 / max(probe, 1e-3))))
            times = {"generic": [], "static": [], "ort": []}
            for _ in range(args.rounds):
                times["generic"].append(infc_ms(args.infc, generic, b, threads, iters))
                times["static"].append(infc_ms(args.infc, static[b], b, threads, iters))
                times["ort"].append(ort_ms(session, x, iters))
            med = {k: benchlib.median(v) for k, v in times.items()}
            # Paced, as a product calls between events: P50 after a pause before each call.
            med["generic_paced"] = infc_ms(args.infc, generic, b, threads, args.paced_iters,
                                           args.interval_ms)
            med["static_paced"] = infc_ms(args.infc, static[b], b, threads, args.paced_iters,
                                          args.interval_ms)
            med["ort_paced"] = ort_ms(session, x, args.paced_iters, args.interval_ms)
            rows.append((threads, b, med))
            print(f"threads {threads} batch {b}: generic {med['generic']:.4f} ms, static "
                  f"{med['static']:.4f} ms, onnxruntime {med['ort']:.4f} ms; paced "
                  f"{med['generic_paced']:.4f} / {med['static_paced']:.4f} / "
                  f"{med['ort_paced']:.4f} ms", flush=True)
    lines = ["# Generic code (`--dim`) against static libraries and onnxruntime", "",
             "Written by `python3 bench/dynamic.py --infc build/bin/infc` "
             f"({benchlib.infc_version(args.infc)}, onnxruntime {ort.__version__}).", ""]
    lines += benchlib.machine_lines()
    lines += ["", "MLP x[batch, 256] -> 1024 -> 1024 -> 256 (MatMul, Add, Relu, Softmax): one "
              f"library compiled with `--dim batch=1..{max(batches)}` against the static "
              "library of each batch (`--input-shape`) and onnxruntime on the same dynamic "
              f"model; medians of {args.rounds} alternating rounds, ms.", "",
              "| threads | batch | generic | static | onnxruntime | generic / static | "
              "generic / onnxruntime |", "|---|---|---|---|---|---|---|"]
    for threads, b, med in rows:
        lines.append(f"| {threads} | {b} | {med['generic']:.4f} | {med['static']:.4f} | "
                     f"{med['ort']:.4f} | {med['generic'] / med['static']:.2f} | "
                     f"{med['generic'] / med['ort']:.2f} |")
    lines += ["", f"Paced: P50 of {args.paced_iters} calls, each after a pause of "
              f"{args.interval_ms} ms (as a product calls between events), ms:", "",
              "| threads | batch | generic | static | onnxruntime | generic / static | "
              "generic / onnxruntime |", "|---|---|---|---|---|---|---|"]
    for threads, b, med in rows:
        lines.append(f"| {threads} | {b} | {med['generic_paced']:.4f} | "
                     f"{med['static_paced']:.4f} | {med['ort_paced']:.4f} | "
                     f"{med['generic_paced'] / med['static_paced']:.2f} | "
                     f"{med['generic_paced'] / med['ort_paced']:.2f} |")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

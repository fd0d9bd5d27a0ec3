#!/usr/bin/env python3
"""One library for every batch size (infc compile --dim) against the static library of each
shape and onnxruntime running the same dynamic model, in one run.

    python3 bench/dynamic.py --infc build/bin/infc [--model mlp|resnet50|bert_base|bert_base_seq|
        bert_base_dyn]
        [--threads 1,2] [--batches 1,8,64] [--rounds 5] [--min-iters 20] [--out bench/dynamic.md]

Models: `mlp` (made here), x[batch, 256] -> 1024 -> 1024 -> 256 (MatMul, Add, Relu, and a
Softmax at the end), 1.5 M weights, which compiles to generic code; `resnet50`, the zoo's
torchvision ResNet-50 (test/models/make_zoo.py) with its dim 0 named `batch` as exporters
write it, which compiles to the batch loop (the code for one image, once per image);
`bert_base`, the zoo's BERT-base with a `batch` dim (the batch loop); `bert_base_seq`, the
same at batch 1 with a `seq` dim (generic code from imports at several sizes; --batches are
then the sequence lengths); `bert_base_dyn`, with both (the batch loop around generic code;
--batches are BATCHxSEQ points, e.g. 1x16,1x128,1x512,8x128).
infc's two libraries are timed by `infc bench` (the C ABI, no Python in the loop; --iters
scaled to about 0.3 s a round, at least --min-iters); onnxruntime by a Python loop over
`run` with preallocated inputs (its own overhead included, a few microseconds). Engines
alternate round by round; each number is the median of the round medians. Then paced:
--paced-iters calls each after a pause of --interval-ms (default 32), P50.
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


def zoo_with_dims(name, batch=False, seq=False):
    """A maker of the zoo's model `name` (test/models/make_zoo.py) with dim 0 of its inputs
    and outputs named `batch` and (`seq`) dim 1, the sequence length where they have it,
    named `seq`, as exporters write them."""
    def make(path, work):
        zoo = os.path.join(os.path.dirname(benchlib.BENCH_DIR), "test", "models")
        subprocess.run([sys.executable, os.path.join(zoo, "make_zoo.py"), "--out", work,
                        "--only", name], check=True, capture_output=True)
        sys.path.insert(0, zoo)
        import make_zoo
        make_zoo.with_symbolic_dims(os.path.join(work, f"{name}.onnx"), path, batch, seq)
    return make


# Per model: how it is made, the dim it varies, its inputs (name, shape with "N" where the
# dim is, what values: "float", "ids" below 1000, or "ones") and what it is.
MODELS = {
    "mlp": (lambda path, work: make_mlp(path), "batch", [("x", ("N", 256), "float")],
            "MLP x[batch, 256] -> 1024 -> 1024 -> 256 (MatMul, Add, Relu, Softmax), generic "
            "code"),
    "resnet50": (zoo_with_dims("resnet50", batch=True), "batch", [("input", ("N", 3, 224, 224), "float")],
                 "the zoo's ResNet-50 with a `batch` dim 0, the batch loop"),
    "bert_base": (zoo_with_dims("bert_base", batch=True), "batch",
                  [("input_ids", ("N", 128), "ids"), ("attention_mask", ("N", 128), "ones")],
                  "the zoo's BERT-base (12 layers, hidden 768) at sequence 128 with a `batch` "
                  "dim 0, the batch loop"),
    "bert_base_seq": (zoo_with_dims("bert_base", seq=True), "seq",
                      [("input_ids", (1, "N"), "ids"), ("attention_mask", (1, "N"), "ones")],
                      "the zoo's BERT-base (12 layers, hidden 768) at batch 1 with a `seq` "
                      "dim 1, generic code from imports at several sizes"),
    # Two dims: --batches lists BATCHxSEQ points.
    "bert_base_dyn": (zoo_with_dims("bert_base", batch=True, seq=True), ("batch", "seq"),
                      [("input_ids", ("N", "M"), "ids"), ("attention_mask", ("N", "M"), "ones")],
                      "the zoo's BERT-base (12 layers, hidden 768) with a `batch` dim 0 and a "
                      "`seq` dim 1, the batch loop around generic code for the sequence"),
}


def shape_of(template, n):
    """The shape of an input at point `n` (a size, or a (batch, seq) pair for "N", "M")."""
    point = n if isinstance(n, tuple) else (n,)
    return tuple(point[0] if d == "N" else point[1] if d == "M" else d for d in template)


def feeds_for(inputs, n):
    rng = np.random.default_rng(n if isinstance(n, int) else n[0] * 10000 + n[1])
    feeds = {}
    for name, template, kind in inputs:
        shape = shape_of(template, n)
        feeds[name] = (rng.standard_normal(shape).astype(np.float32) if kind == "float" else
                       rng.integers(0, 1000, shape).astype(np.int64) if kind == "ids" else
                       np.ones(shape, np.int64))
    return feeds


def infc_ms(infc, lib, shape_flags, threads, iters, interval_ms=0):
    paced = ["--interval-ms", str(interval_ms)] if interval_ms else []
    out = subprocess.run([infc, "bench", lib, "--threads", str(threads), "--iters", str(iters)]
                         + shape_flags + paced, capture_output=True, text=True,
                         check=True).stdout
    return float(re.search(r"p50 ([0-9.]+)", out).group(1))


def ort_ms(session, feeds, iters, interval_ms=0):
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
    ap.add_argument("--model", default="mlp", choices=sorted(MODELS))
    ap.add_argument("--min-iters", type=int, default=20)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--batches", default="1,8,64")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--interval-ms", type=int, default=32,
                    help="paced calls: the pause before each (default 32)")
    ap.add_argument("--paced-iters", type=int, default=40)
    ap.add_argument("--out", help="default bench/dynamic.md (mlp), bench/dynamic_MODEL.md")
    args = ap.parse_args()
    import onnxruntime as ort
    make, dim, inputs, what = MODELS[args.model]
    out = args.out or os.path.join(
        benchlib.BENCH_DIR, "dynamic.md" if args.model == "mlp" else f"dynamic_{args.model}.md")
    batches = [tuple(int(d) for d in b.split("x")) if "x" in b else int(b)
               for b in args.batches.split(",")]
    dims = dim if isinstance(dim, tuple) else (dim,)
    label = " x ".join(dims)

    def point(b):
        return "x".join(str(d) for d in b) if isinstance(b, tuple) else str(b)

    def bound(k):  # the largest size of dim k the points take
        return max(b[k] if isinstance(b, tuple) else b for b in batches)
    work = tempfile.mkdtemp(prefix="infc-dynamic-")
    model = os.path.join(work, "model.onnx")
    make(model, work)

    def shape_flags(b):  # --input-shape per input, for infc compile and infc bench
        return [f for name, template, _ in inputs
                for f in ("--input-shape",
                          f"{name}=" + "x".join(str(d) for d in shape_of(template, b)))]
    generic = os.path.join(work, "generic.so")
    dim_flags = [f for k, d in enumerate(dims) for f in ("--dim", f"{d}=1..{bound(k)}")]
    subprocess.run([args.infc, "compile", model, "-o", generic] + dim_flags, check=True)
    static = {}
    for b in batches:
        static[b] = os.path.join(work, f"static{point(b)}.so")
        subprocess.run([args.infc, "compile", model, "-o", static[b]] + shape_flags(b),
                       check=True)
    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        session = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
        for b in batches:
            x = feeds_for(inputs, b)
            flag = shape_flags(b)
            # Iterations for about 0.3 s of the static library a round.
            probe = infc_ms(args.infc, static[b], flag, threads, args.min_iters)
            iters = max(args.min_iters, min(20000, int(300 / max(probe, 1e-3))))
            times = {"generic": [], "static": [], "ort": []}
            for _ in range(args.rounds):
                times["generic"].append(infc_ms(args.infc, generic, flag, threads, iters))
                times["static"].append(infc_ms(args.infc, static[b], flag, threads, iters))
                times["ort"].append(ort_ms(session, x, iters))
            med = {k: benchlib.median(v) for k, v in times.items()}
            # Paced, as a product calls between events: P50 after a pause before each call.
            med["generic_paced"] = infc_ms(args.infc, generic, flag, threads, args.paced_iters,
                                           args.interval_ms)
            med["static_paced"] = infc_ms(args.infc, static[b], flag, threads, args.paced_iters,
                                          args.interval_ms)
            med["ort_paced"] = ort_ms(session, x, args.paced_iters, args.interval_ms)
            rows.append((threads, b, med))
            print(f"threads {threads} {label} {point(b)}: generic {med['generic']:.4f} ms, static "
                  f"{med['static']:.4f} ms, onnxruntime {med['ort']:.4f} ms; paced "
                  f"{med['generic_paced']:.4f} / {med['static_paced']:.4f} / "
                  f"{med['ort_paced']:.4f} ms", flush=True)
    lines = [f"# One library for every {label} (`--dim`) against static libraries and onnxruntime",
             "", f"Written by `python3 bench/dynamic.py --infc build/bin/infc --model {args.model}"
             f" --batches {args.batches} --rounds {args.rounds}` "
             f"({benchlib.infc_version(args.infc)}, onnxruntime {ort.__version__}).", ""]
    lines += benchlib.machine_lines()
    lines += ["", f"{what[0].upper() + what[1:]}: one library compiled with "
              f"`{' '.join(dim_flags)}` against the static "
              f"library of each {label} (`--input-shape`) and onnxruntime on the same dynamic "
              f"model; medians of {args.rounds} alternating rounds, ms.", "",
              f"| threads | {label} | generic | static | onnxruntime | generic / static | "
              "generic / onnxruntime |", "|---|---|---|---|---|---|---|"]
    for threads, b, med in rows:
        lines.append(f"| {threads} | {point(b)} | {med['generic']:.4f} | {med['static']:.4f} | "
                     f"{med['ort']:.4f} | {med['generic'] / med['static']:.2f} | "
                     f"{med['generic'] / med['ort']:.2f} |")
    lines += ["", f"Paced: P50 of {args.paced_iters} calls, each after a pause of "
              f"{args.interval_ms} ms (as a product calls between events), ms:", "",
              f"| threads | {label} | generic | static | onnxruntime | generic / static | "
              "generic / onnxruntime |", "|---|---|---|---|---|---|---|"]
    for threads, b, med in rows:
        lines.append(f"| {threads} | {point(b)} | {med['generic_paced']:.4f} | "
                     f"{med['static_paced']:.4f} | {med['ort_paced']:.4f} | "
                     f"{med['generic_paced'] / med['static_paced']:.2f} | "
                     f"{med['generic_paced'] / med['ort_paced']:.2f} |")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

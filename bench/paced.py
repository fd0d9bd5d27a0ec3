#!/usr/bin/env python3
"""Latency after idle: infc and onnxruntime called back to back and with a pause before each
call, as products call a model (a detector every 32 ms, a classifier per request).

    python3 bench/paced.py --infc build/bin/infc [--baseline-infc OTHER/bin/infc]
        [--models mlp,lenet,seq_encoder,bert_layer,mobilenetv2,resnet18,vad,orientation,magika]
        [--threads 1,2]
        [--interval-ms 32] [--paced-iters 60] [--out bench/paced.md]

For each model and thread count (zoo models: test/models/make_zoo.py, generated into
bench/.cache like compare.py; field models vad, orientation, magika: the PyPI wheels'
models of test/models/field_models.py, batch 1), one worker process per engine (the same workers as compare.py: infc
through its Python API, onnxruntime with IOBinding), alternating: back to back (median of
--runs rounds of round medians), then paced (--paced-iters calls, each after a sleep of
--interval-ms; P50 and P95). --baseline-infc adds a second infc (another build's compiler
and runtime: a before/after comparison within one run). Writes a Markdown table to --out.
"""

import argparse
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import compare  # noqa: E402

sys.path.insert(0, os.path.join(benchlib.BENCH_DIR, "..", "test", "models"))
import field_models  # noqa: E402


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def measure(workers, args):
    """{engine: (back-to-back median ms, paced p50 ms, paced p95 ms)}."""
    out = {}
    first = {}
    for e, w in workers.items():
        first[e] = w.request({"cmd": "run", "warmup": args.warmup, "iters": 1})["times"][0]
    iters = int(min(100, max(3, round(0.5 / max(first.values())))))
    b2b = {e: [] for e in workers}
    for r in range(args.runs):
        order = list(workers) if r % 2 == 0 else list(reversed(workers))
        for e in order:
            b2b[e].append(benchlib.median(workers[e].request(
                {"cmd": "run", "warmup": 0, "iters": iters})["times"]))
            time.sleep(0.05)
    paced = {e: [] for e in workers}
    # Paced calls interleaved in blocks, so that both engines see the same machine.
    block = max(1, args.paced_iters // args.runs)
    for r in range(args.runs):
        for e in workers:
            paced[e] += workers[e].request({"cmd": "run", "warmup": 0, "iters": block,
                                            "interval_ms": args.interval_ms},
                                           timeout=600)["times"]
    for e in workers:
        out[e] = (1e3 * benchlib.median(b2b[e]), 1e3 * percentile(paced[e], 0.5),
                  1e3 * percentile(paced[e], 0.95))
    return out


def model_files(name, zdir, work):
    """(model path, inputs .npz, infc compile flags) of a zoo or field model."""
    if name in field_models.MODELS:
        missing = field_models.missing()
        if missing:
            sys.exit(f"{name}: {', '.join(missing)} not installed (tools/scripts/setup.sh)")
        import numpy as np
        os.makedirs(work, exist_ok=True)
        inputs = os.path.join(work, f"field.{name}.inputs.npz")
        np.savez(inputs, **field_models.inputs(name, np.random.default_rng(0), 1)[0])
        return (field_models.model_path(name), inputs,
                field_models.compile_flags(name, work))
    err = compare.generate(name, zdir, None, 1800)
    if err:
        sys.exit(f"{name}: {err}")
    return (os.path.join(zdir, f"{name}.onnx"), os.path.join(zdir, f"{name}.inputs.npz"), [])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--infc", required=True)
    ap.add_argument("--baseline-infc")
    ap.add_argument("--models", default="mlp,lenet,seq_encoder,bert_layer,mobilenetv2,resnet18,"
                    "vad,orientation,magika")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--interval-ms", type=float, default=32)
    ap.add_argument("--paced-iters", type=int, default=60)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--work", default=os.path.join(benchlib.BENCH_DIR, ".cache"))
    ap.add_argument("--python-dir", default=benchlib.DEFAULT_PYTHON_DIR)
    ap.add_argument("--out", default=os.path.join(benchlib.BENCH_DIR, "paced.md"))
    args = ap.parse_args(argv)
    zdir = compare.zoo_dir(args.work, None)
    engines = [("infc", args.infc)] + ([("infc_before", args.baseline_infc)]
                                       if args.baseline_infc else [])
    rows = []
    for name in args.models.split(","):
        onnx_path, inputs, flags = model_files(name, zdir, args.work)
        sos = {}
        for e, binary in engines:
            so = os.path.join(args.work, f"paced.{name}.{e}.so")
            res = compare.compile_model(binary, onnx_path, so, flags, 1800)
            if "error" in res:
                sys.exit(f"{name} ({e}): {res['error']}")
            sos[e] = so
        for t in [int(x) for x in args.threads.split(",")]:
            workers = {}
            try:
                for e, so in sos.items():
                    workers[e] = benchlib.Worker("infc", so, t, inputs, os.devnull,
                                                 args.python_dir, 600)
                workers["ort"] = benchlib.Worker("ort", onnx_path, t, inputs, os.devnull,
                                                 args.python_dir, 600)
                m = measure(workers, args)
            finally:
                for w in workers.values():
                    w.kill()
                    w.close()
            rows.append((name, t, m))
            print(name, t, {e: tuple(round(x, 3) for x in v) for e, v in m.items()}, flush=True)
    cols = [e for e, _ in engines] + ["ort"]
    head = ["model", "threads"]
    for e in cols:
        head += [f"{e} b2b", f"{e} paced p50", f"{e} paced p95"]
    head += ["infc paced / ORT paced", "infc paced / infc b2b"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, t, m in rows:
        cells = [name, str(t)]
        for e in cols:
            cells += [f"{x:.3f}" for x in m[e]]
        cells += [f"{m['infc'][1] / m['ort'][1]:.2f}", f"{m['infc'][1] / m['infc'][0]:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    text = ("## Latency after idle (paced calls)\n\n"
            f"Latency in ms, a pause of {args.interval_ms:g} ms before each paced call "
            f"({args.paced_iters} paced calls, P50 and P95; back to back: median of "
            f"{args.runs} round medians). `python3 bench/paced.py "
            + " ".join(argv if argv is not None else sys.argv[1:]) + "`\n\n"
            + "\n".join(benchlib.machine_lines()) + "\n\n" + "\n".join(lines) + "\n")
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()

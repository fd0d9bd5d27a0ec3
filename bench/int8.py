#!/usr/bin/env python3
"""int8 on CPU: infc's own quantization, and ORT's quantize_static model, side by side.

    python3 bench/int8.py --infc build/bin/infc [--models resnet50,bert_base]
        [--threads 1,2] [--runs 5] [--calib 16] [--held-out 32] [--out FILE.md]

For each model of the zoo (test/models/make_zoo.py, seeded weights):
  1. calibration samples: --calib seeded inputs (images N(0, 1); token ids uniform over the
     vocabulary, attention mask all ones), written as DIR/<sample>/<input>.npy;
  2. infc fp32:  infc compile model.onnx
     infc int8:  infc compile model.onnx --quantize int8 --calibration DIR
                 (--calibration-method, default percentile, as infc)
     ORT int8:   onnxruntime.quantization.quantize_static on the same samples (QDQ, per-channel
                 int8 weights, uint8 activations, after quant_pre_process), run in ORT
     infc on ORT's model: infc compile ort_int8.onnx (its Q/DQ folded to integer kernels)
  1b. the CNNs are conditioned first (condition_cnn: BatchNorm statistics and the classifier's
     bias from the calibration samples, so the predicted class depends on the input;
     --no-condition keeps the seeded model);
  3. accuracy on --held-out other seeded inputs, against the fp32 model in ORT: top-1
     agreement of the logits for the CNNs (and of the logits centred by their mean over the
     inputs: seeded random weights favour one class for every input), the cosine similarity
     of every output (flattened) for BERT (its minimum over inputs and outputs);
  4. latency: the engines alternate round by round (--runs rounds of ~1 s each, same inputs,
     the same intra-op thread count), the table gives medians of the per-round medians and the
     ratios infc int8 / infc fp32 and infc int8 / ORT int8.
Writes the markdown section to bench/int8.md (--out) and splices it into docs/benchmarks.md as
its '## int8' section (--doc; bench/compare.py keeps that section when it rewrites the page).
Not a test; nothing here runs in CI.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def input_specs(model):
    inits = {i.name for i in model.graph.initializer}
    specs = []
    for i in model.graph.input:
        if i.name in inits:
            continue
        t = i.type.tensor_type
        specs.append((i.name, t.elem_type, [d.dim_value for d in t.shape.dim]))
    return specs


def sample(specs, rng):
    out = {}
    for name, elem, shape in specs:
        if elem == onnx.TensorProto.INT64:
            out[name] = (np.ones(shape, np.int64) if "mask" in name
                         else rng.integers(0, 30522, shape).astype(np.int64))
        else:
            out[name] = rng.standard_normal(shape).astype(np.float32)
    return out


def run(argv):
    t0 = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(argv)}\n{r.stderr[-3000:]}")
    return time.perf_counter() - t0, r


def ort_session(path, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = [o.name for o in s.get_outputs()]
    return lambda feed: dict(zip(names, s.run(names, feed)))


def infc_session(path, threads):
    import infc
    m = infc.load(path, num_threads=threads)
    return lambda feed: m(**feed)


def time_round(fn, feed, seconds):
    fn(feed)
    ts = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(ts) < 3:
        t0 = time.perf_counter()
        fn(feed)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def time_engines(engines, feed, threads, runs, seconds):
    """{label: median ms} of engines (label -> (threads -> fn)) alternating round by round,
    each round's figure the median of ~`seconds` of runs (time_round)."""
    fns = {label: make(threads) for label, make in engines.items()}
    rounds = {label: [] for label in fns}
    for _ in range(runs):
        for label, fn in fns.items():
            rounds[label].append(time_round(fn, feed, seconds))
    return {label: statistics.median(v) for label, v in rounds.items()}


def condition_cnn(src, dst, samples):
    """A copy of the seeded CNN whose predicted class depends on the input: each
    BatchNormalization's mean and variance set, in graph order, to the statistics of its
    input over `samples` (scale 1, bias 0), and the classifier's bias set so the mean logits
    over the samples are 0. With random weights and BatchNorm statistics as drawn, one class
    wins for every input (the fp32 model picks 1 class of 1000), so top-1 agreement measured
    nothing; here it does. The speed of the model is unchanged (BatchNorm folds away)."""
    import onnxruntime as ort
    from onnx import numpy_helper
    model = onnx.load(src)
    inits = {t.name: t for t in model.graph.initializer}

    def run_to(tensor_name):
        probe = onnx.ModelProto()
        probe.CopyFrom(model)
        del probe.graph.output[:]
        probe.graph.output.append(onnx.helper.make_empty_tensor_value_info(tensor_name))
        s = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
        return [s.run(None, x)[0] for x in samples]

    def set_init(name, array):
        inits[name].CopyFrom(numpy_helper.from_array(array.astype(np.float32), name))

    for node in model.graph.node:
        if node.op_type != "BatchNormalization":
            continue
        acts = np.stack(run_to(node.input[0]))  # [samples, N, C, H, W]
        axes = tuple(i for i in range(acts.ndim) if i != 2)
        set_init(node.input[3], acts.mean(axis=axes))
        set_init(node.input[4], acts.var(axis=axes))
        set_init(node.input[1], np.ones(acts.shape[2]))
        set_init(node.input[2], np.zeros(acts.shape[2]))
    last = model.graph.node[-1]
    if last.op_type == "Gemm" and len(last.input) == 3 and last.input[2] in inits:
        logits = np.stack(run_to(last.output[0]))
        bias = numpy_helper.to_array(inits[last.input[2]])
        set_init(last.input[2], bias - logits.mean(axis=(0, 1)))
    onnx.save(model, dst)


def accuracy(ref_outs, outs, is_cnn):
    cos = []
    if is_cnn:
        k = next(iter(ref_outs[0]))
        agree = [int(np.argmax(r[k]) == np.argmax(o[k])) for r, o in zip(ref_outs, outs)]
        classes = len({int(np.argmax(r[k])) for r in ref_outs})
        # Seeded random weights favour one class whatever the input, so top-1 agreement
        # says little; the logits minus their mean over the inputs (the fp32 model's mean,
        # for both) are what the input decides.
        centre = np.mean([r[k] for r in ref_outs], axis=0)
        centred = [int(np.argmax(r[k] - centre) == np.argmax(o[k] - centre))
                   for r, o in zip(ref_outs, outs)]
        centred_classes = len({int(np.argmax(r[k] - centre)) for r in ref_outs})
        for r, o in zip(ref_outs, outs):
            a, b = r[k].astype(np.float64).ravel(), o[k].astype(np.float64).ravel()
            cos.append(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30)))
        return (f"top-1 agreement {sum(agree)}/{len(agree)} (the fp32 model picks {classes} "
                f"distinct classes); top-1 of the centred logits {sum(centred)}/{len(centred)} "
                f"({100 * np.mean(centred):.1f}%, {centred_classes} distinct classes); logits "
                f"cosine min {min(cos):.4f}")
    for r, o in zip(ref_outs, outs):
        for k in r:
            a, b = r[k].astype(np.float64).ravel(), o[k].astype(np.float64).ravel()
            cos.append(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30)))
    return f"cosine min {min(cos):.4f}, mean {np.mean(cos):.4f}"


def add_common_args(ap, name, held_out):
    """The options this script shares with bench/ppocr.py (`name`: the section's file and
    cache folder)."""
    ap.add_argument("--infc", required=True)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0, help="length of a timing round")
    ap.add_argument("--calib", type=int, default=16)
    ap.add_argument("--held-out", type=int, default=held_out)
    ap.add_argument("--work", default=os.path.join(HERE, ".cache", name))
    ap.add_argument("--out", help=f"write the markdown section here (default bench/{name}.md)")
    ap.add_argument("--doc", default=os.path.join(REPO, "docs", "benchmarks.md"),
                    help="splice the section into this page ('' to skip)")
    ap.add_argument("--note", help="a line on the conditions for the report")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap, "int8", held_out=32)
    ap.add_argument("--models", default="resnet50,bert_base")
    ap.add_argument("--calibration-method", default="percentile",
                    help="infc's --calibration-method (minmax, percentile[=P])")
    ap.add_argument("--accuracy-only", action="store_true",
                    help="compile and measure accuracy only: no timing, no report written")
    ap.add_argument("--no-condition", action="store_true",
                    help="keep the CNNs' seeded BatchNorm statistics (see condition_cnn)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    threads = [int(t) for t in args.threads.split(",")]
    lines = []
    for name in args.models.split(","):
        d = os.path.join(args.work, name)
        os.makedirs(d, exist_ok=True)
        f32 = os.path.join(d, name + ".onnx")
        if not os.path.exists(f32):
            run([sys.executable, os.path.join(REPO, "test", "models", "make_zoo.py"), "--out", d,
                 "--only", name])
        specs = input_specs(onnx.load(f32, load_external_data=False))
        rng = np.random.default_rng(2024)
        calib = [sample(specs, rng) for _ in range(args.calib)]
        held = [sample(specs, rng) for _ in range(args.held_out)]
        if name != "bert_base" and not args.no_condition:
            conditioned = os.path.join(d, name + ".conditioned.onnx")
            if not os.path.exists(conditioned):
                log(f"{name}: BatchNorm statistics and classifier bias from the calibration "
                    "samples")
                condition_cnn(f32, conditioned, calib)
            f32 = conditioned
        cdir = os.path.join(d, "calib")
        write_calibration(cdir, calib)
        ort_q = os.path.join(d, os.path.basename(f32)[:-5] + ".ort_int8.onnx")
        if not os.path.exists(ort_q):
            log(f"{name}: quantize_static")
            ort_quantize_static(f32, os.path.join(d, os.path.basename(f32)[:-5] + ".pre.onnx"),
                                ort_q, calib)
        so = {k: os.path.join(d, f"{name}.{k}.so") for k in ("fp32", "int8", "ort_qdq")}
        compile_s = {}
        compile_s["fp32"], _ = run([args.infc, "compile", f32, "-o", so["fp32"]])
        compile_s["int8"], rep = run([args.infc, "compile", f32, "-o", so["int8"], "--quantize",
                                      "int8", "--calibration", cdir, "--calibration-method",
                                      args.calibration_method, "--report"])
        compile_s["ort_qdq"], _ = run([args.infc, "compile", ort_q, "-o", so["ort_qdq"]])
        summary = [l for l in rep.stdout.splitlines() if "run on int8" in l]
        log(f"{name}: compiled ({', '.join(f'{k} {v:.1f} s' for k, v in compile_s.items())})")

        ref = ort_session(f32, 0)
        ref_outs = [ref(h) for h in held]
        is_cnn = name != "bert_base"
        engines = {"infc int8": lambda t: infc_session(so["int8"], t),
                   "infc int8 (ORT's QDQ model)": lambda t: infc_session(so["ort_qdq"], t),
                   "ORT int8": lambda t: ort_session(ort_q, t),
                   "infc fp32": lambda t: infc_session(so["fp32"], t)}
        acc = {}
        for label, make in engines.items():
            if label == "infc fp32":
                continue
            fn = make(0)
            acc[label] = accuracy(ref_outs, [fn(h) for h in held], is_cnn)
            log(f"{name}: {label}: {acc[label]}")
        if args.accuracy_only:
            continue

        lines.append(f"### {name}\n")
        lines.append(f"- infc --quantize int8 --report: {summary[0] if summary else '?'}")
        lines.append(f"- compile time: fp32 {compile_s['fp32']:.1f} s, int8 with calibration on "
                     f"{args.calib} samples {compile_s['int8']:.1f} s, ORT's QDQ model "
                     f"{compile_s['ort_qdq']:.1f} s")
        lines.append(f"- accuracy against the fp32 model (ORT) on {args.held_out} held-out "
                     "inputs:")
        for label, a in acc.items():
            lines.append(f"  - {label}: {a}")
        lines.append("")
        lines.append("| threads | infc fp32 ms | infc int8 ms | infc on ORT's QDQ ms | ORT int8 ms "
                     "| infc int8 / infc fp32 | infc int8 / ORT int8 |")
        lines.append("|---|---|---|---|---|---|---|")
        for t in threads:
            med = time_engines(engines, held[0], t, args.runs, args.seconds)
            log(f"{name} threads {t}: " + ", ".join(f"{k} {v:.2f} ms" for k, v in med.items()))
            lines.append(f"| {t} | {med['infc fp32']:.2f} | {med['infc int8']:.2f} | "
                         f"{med['infc int8 (ORT' + chr(39) + 's QDQ model)']:.2f} | "
                         f"{med['ORT int8']:.2f} | {med['infc int8'] / med['infc fp32']:.2f} | "
                         f"{med['infc int8'] / med['ORT int8']:.2f} |")
        lines.append("")
    head = ["## int8", "",
            "Written by `python3 bench/int8.py --infc build/bin/infc` "
            f"(threads {args.threads}, {args.runs} alternating rounds of ~{args.seconds:g} s, "
            f"{args.calib} calibration samples, {args.held_out} held-out inputs; see its "
            "docstring for the method). Targets (quantization issue): infc int8 at most half of "
            "infc fp32, and at most ORT's int8 on the model quantized by ORT's quantize_static "
            "with the same calibration data; top-1 agreement at least 99% for the CNNs, cosine "
            "at least 0.99 for BERT.", ""]
    if args.accuracy_only:
        return
    if args.note:
        head += [args.note, ""]
    text = "\n".join(head + lines)
    print(text)
    out = args.out or os.path.join(HERE, "int8.md")
    with open(out, "w") as f:
        f.write(text + "\n")
    if args.doc:
        splice(args.doc, text)



def write_calibration(cdir, samples):
    """infc's --calibration layout: DIR/<sample>/<input>.npy, one folder per feed dict."""
    shutil.rmtree(cdir, ignore_errors=True)
    for i, feeds in enumerate(samples):
        os.makedirs(os.path.join(cdir, f"{i:03d}"))
        for k, v in feeds.items():
            np.save(os.path.join(cdir, f"{i:03d}", k + ".npy"), v)


def ort_quantize_static(f32, pre, out, samples):
    """ORT's own int8 of `f32`: quant_pre_process to `pre`, then quantize_static to `out`
    (QDQ, per-channel int8 weights, uint8 activations) calibrated on the feed dicts."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(samples)

        def get_next(self):
            return next(self.it, None)
    quant_pre_process(f32, pre, skip_symbolic_shape=True)
    quantize_static(pre, out, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


def compile_int8_variants(infc, f32, ort_q, cdir, stem, what):
    """Compiles `f32` as stem.fp32.so, infc's own int8 calibrated on `cdir` (percentile and
    minmax, with --report) as stem.percentile.so / stem.minmax.so, and ORT's QDQ model
    `ort_q` as stem.ort_qdq.so. Returns (paths by kind, the --report summary by method)."""
    so = {k: f"{stem}.{k}.so" for k in ("fp32", "percentile", "minmax", "ort_qdq")}
    secs, _ = run([infc, "compile", f32, "-o", so["fp32"]])
    log(f"{what} fp32: compiled in {secs:.1f} s")
    report = {}
    for method in ("percentile", "minmax"):
        secs, rep = run([infc, "compile", f32, "-o", so[method], "--quantize", "int8",
                         "--calibration", cdir, "--calibration-method", method, "--report"])
        report[method] = next((l for l in rep.stdout.splitlines() if "run on int8" in l), "?")
        log(f"{what} {method}: {secs:.1f} s; {report[method]}")
    run([infc, "compile", ort_q, "-o", so["ort_qdq"]])
    return so, report


def int8_engines(so, ort_q, f32):
    """The engines the trained-model benchmarks compare (label -> (threads -> fn))."""
    return {"infc int8 (percentile)": lambda t: infc_session(so["percentile"], t),
            "infc int8 (minmax)": lambda t: infc_session(so["minmax"], t),
            "infc int8 (ORT's QDQ model)": lambda t: infc_session(so["ort_qdq"], t),
            "ORT int8": lambda t: ort_session(ort_q, t),
            "infc fp32": lambda t: infc_session(so["fp32"], t),
            "ORT fp32": lambda t: ort_session(f32, t)}


def timing_table(engines, feed, threads, args, ratios, what):
    """Markdown rows: per thread count, every engine's median ms (time_engines) and the
    `ratios`, (header, numerator label, denominator label) each."""
    lines = ["| threads | " + " | ".join(f"{k} ms" for k in engines) + " | " +
             " | ".join(h for h, _, _ in ratios) + " |",
             "|---" * (len(engines) + len(ratios) + 1) + "|"]
    for t in threads:
        med = time_engines(engines, feed, t, args.runs, args.seconds)
        log(f"{what} threads {t}: {med}")
        lines.append(f"| {t} | " + " | ".join(f"{v:.2f}" for v in med.values()) + " | " +
                     " | ".join(f"{med[a] / med[b]:.2f}" for _, a, b in ratios) + " |")
    return lines

def splice(path, section, heading="## int8"):
    """Replace the `heading` section of `path` (up to the next '## ') or append it."""
    text = open(path).read() if os.path.exists(path) else ""
    start = text.find("\n" + heading + "\n")
    if start < 0:
        text = text.rstrip() + "\n\n" + section + "\n"
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start + 1] + section + "\n" + (text[end:] if end >= 0 else "")
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())

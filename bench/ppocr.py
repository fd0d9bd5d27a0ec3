#!/usr/bin/env python3
"""Trained models: PaddleOCR's PP-OCR detector, classifier and recognizer, fp32 and int8.

    python3 bench/ppocr.py --infc build/bin/infc [--threads 1,2] [--runs 5] [--seconds 1]
        [--calib 16] [--held-out 100] [--det-side 640] [--out FILE.md]

The zoo's models carry seeded weights; these are trained (test/models/ppocr_models.py:
the models of the rapidocr-onnxruntime wheel, text rendered here with Pillow's font):
  1. fp32: each model compiled with its input fixed (det 1x3xSxS with S = --det-side, cls
     1x3x48x192, rec 1x3x48x320); infc and ORT (ORT_ENABLE_ALL, the same intra-op threads)
     alternate round by round (--runs rounds of ~--seconds each, medians of the per-round
     medians); the outputs are checked against ORT (|infc - ORT| <= 1e-4 + 1e-3 |ORT|).
  2. int8, for the classifier and the recognizer: --calib rendered lines calibrate infc's
     own quantization (`--quantize int8 --calibration DIR`, percentile and minmax) and ORT's
     quantize_static (QDQ, per-channel int8 weights, uint8 activations, on the model converted
     to opset 17, which its DequantizeLinear axis needs); infc also compiles ORT's QDQ model.
     Accuracy on --held-out other lines, against the fp32 model in ORT: the recognizer's text
     (greedy CTC) equal to the fp32 text and to the rendered text, and the top-1 agreement of
     its 40 steps; the classifier's top-1 agreement (half the lines turned by 180 degrees) and
     its accuracy on those labels. Latency as in 1, with infc fp32 beside.
Writes bench/ppocr.md (--out) and splices it into docs/benchmarks.md as its '## Trained
models (PP-OCR)' section; bench/compare.py keeps that section when it rewrites the page.
Not a test: test/e2e/check_ppocr.py is the test.
"""

import argparse
import os
import sys

import numpy as np
import onnx
import onnx.version_converter

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "test", "models"))
sys.path.insert(0, HERE)
import ppocr_models as ppocr  # noqa: E402
import benchlib  # noqa: E402
from int8 import (add_common_args, compile_int8_variants, infc_session,  # noqa: E402
                  int8_engines, log, ort_quantize_static, ort_session, run, splice,
                  time_engines, timing_table, write_calibration)

HEADING = "## Trained models (PP-OCR)"


def rec_accuracy(outs, refs, texts, chars):
    text_fp32 = sum(ppocr.ctc_decode(o, chars) == ppocr.ctc_decode(r, chars)
                    for o, r in zip(outs, refs))
    text_truth = sum(ppocr.ctc_decode(o, chars) == t for o, t in zip(outs, texts))
    steps = sum(int((o.argmax(-1) == r.argmax(-1)).sum()) for o, r in zip(outs, refs))
    total = sum(r[..., 0].size for r in refs)
    return (f"text = fp32 text {text_fp32}/{len(refs)}, text = rendered {text_truth}/"
            f"{len(refs)}, per-step top-1 = fp32 {steps}/{total} ({100 * steps / total:.2f}%)")


def cls_accuracy(outs, refs, labels):
    same = sum(int(o.argmax() == r.argmax()) for o, r in zip(outs, refs))
    right = sum(int(o.argmax() == y) for o, y in zip(outs, labels))
    return (f"top-1 = fp32 {same}/{len(refs)} ({100 * same / len(refs):.1f}%), "
            f"right {right}/{len(refs)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap, "ppocr", held_out=100)
    ap.add_argument("--det-side", type=int, default=640)
    args = ap.parse_args()
    if ppocr.models_dir() is None:
        sys.exit("bench/ppocr.py: rapidocr-onnxruntime is not installed "
                 "(tools/scripts/setup.sh installs it)")
    os.makedirs(args.work, exist_ok=True)
    threads = [int(t) for t in args.threads.split(",")]
    ppocr.MODELS["det"] = (ppocr.MODELS["det"][0], [1, 3, args.det_side, args.det_side])
    paths = {name: ppocr.static_model(name, args.work) for name in ppocr.MODELS}
    rng = np.random.default_rng(7)
    page = {"x": ppocr.page_input(rng, ppocr.random_texts(rng, 12), args.det_side)}
    _, cls_lines, _ = ppocr.line_samples(rng, 1, 192, flip=False)
    _, rec_lines, _ = ppocr.line_samples(rng, 1, 320)
    feeds = {"det": page, "cls": {"x": cls_lines[0]}, "rec": {"x": rec_lines[0]}}

    lines = [HEADING, "",
             f"Written by `python3 bench/ppocr.py --infc build/bin/infc` (threads {args.threads}, "
             f"{args.runs} alternating rounds of ~{args.seconds:g} s; {args.calib} calibration "
             f"lines, {args.held_out} held-out lines; see its docstring for the method). "
             "PaddleOCR's trained PP-OCR models from the rapidocr-onnxruntime wheel "
             "(paddle2onnx exports, opset 11) on text rendered here.", ""]
    if args.note:
        lines += [args.note, ""]
    lines += ["### fp32", "",
              "| model | input | threads | infc ms | ORT ms | infc / ORT | outputs match ORT |",
              "|---|---|---|---|---|---|---|"]
    for name, path in paths.items():
        so = os.path.join(args.work, f"ppocr_{name}.so")
        secs, _ = run([args.infc, "compile", path, "-o", so])
        log(f"{name}: compiled in {secs:.1f} s")
        ok = benchlib.compare_outputs(infc_session(so, 0)(feeds[name]),
                                      ort_session(path, 0)(feeds[name]), rtol=1e-3, atol=1e-4)[0]
        engines = {"infc": lambda t, so=so: infc_session(so, t),
                   "ORT": lambda t, path=path: ort_session(path, t)}
        for t in threads:
            med = time_engines(engines, feeds[name], t, args.runs, args.seconds)
            log(f"{name} threads {t}: {med}")
            shape = "x".join(map(str, ppocr.MODELS[name][1]))
            lines.append(f"| {name} | {shape} | {t} | {med['infc']:.2f} | {med['ORT']:.2f} | "
                         f"{med['infc'] / med['ORT']:.2f} | {'yes' if ok else 'NO'} |")
    lines.append("")

    chars = ppocr.characters(paths["rec"])
    lines += ["### int8", ""]
    for name, width in (("cls", 192), ("rec", 320)):
        d = os.path.join(args.work, name)
        os.makedirs(d, exist_ok=True)
        rng = np.random.default_rng(11)
        flip = name == "cls"
        _, calib, _ = ppocr.line_samples(rng, args.calib, width, flip)
        texts, held, labels = ppocr.line_samples(rng, args.held_out, width, flip)
        cdir = os.path.join(d, "calib")
        write_calibration(cdir, [{"x": x} for x in calib])
        f32 = paths[name]
        opset17 = os.path.join(d, f"{name}.opset17.onnx")
        onnx.save(onnx.version_converter.convert_version(onnx.load(f32), 17), opset17)
        ort_q = os.path.join(d, f"{name}.ort_int8.onnx")
        ort_quantize_static(opset17, os.path.join(d, f"{name}.pre.onnx"), ort_q,
                            [{"x": x} for x in calib])
        so, report = compile_int8_variants(args.infc, f32, ort_q, cdir,
                                           os.path.join(d, name), name)
        ref = ort_session(f32, 0)
        refs = [list(ref({"x": x}).values())[0] for x in held]
        engines = int8_engines(so, ort_q, f32)
        lines.append(f"**{name}** (`--report`, percentile: {report['percentile']}). Accuracy "
                     f"on {args.held_out} held-out lines against the fp32 model (ORT):")
        lines.append("")
        for label, make in engines.items():
            if label == "ORT fp32":
                continue
            fn = make(0)
            outs = [list(fn({"x": x}).values())[0] for x in held]
            acc = (rec_accuracy(outs, refs, texts, chars) if name == "rec"
                   else cls_accuracy(outs, refs, labels))
            log(f"{name} {label}: {acc}")
            lines.append(f"- {label}: {acc}")
        if name == "rec":
            lines.append(f"- ORT fp32: {rec_accuracy(refs, refs, texts, chars)}")
        q = "infc int8 (percentile)"
        lines += [""] + timing_table(engines, {"x": held[0]}, threads, args,
                                     [(f"{q} / infc fp32", q, "infc fp32"),
                                      (f"{q} / ORT int8", q, "ORT int8")], f"{name} int8")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    with open(args.out or os.path.join(HERE, "ppocr.md"), "w") as f:
        f.write(text + "\n")
    if args.doc:
        splice(args.doc, text, HEADING)


if __name__ == "__main__":
    sys.exit(main())

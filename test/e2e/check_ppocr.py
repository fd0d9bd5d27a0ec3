#!/usr/bin/env python3
"""Trained models from the field: PaddleOCR's PP-OCR detector, classifier and recognizer.

    check_ppocr.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

The models of the rapidocr-onnxruntime wheel (test/models/ppocr_models.py; paddle2onnx
exports: opset 11, dim_value -1 for dynamic dims, Constant-node weights, hard-swish, SE
blocks, an FPN with nearest Resize and 2x2 ConvTransposes, an SVTR neck with attention) on
text rendered with Pillow's font. Checks:
  - each model, its input fixed, compiles and matches onnxruntime (graph optimizations off)
    within rtol 1e-3, atol 1e-5: the detector on a page of 8 lines, the classifier and the
    recognizer on 4 lines each;
  - the recognizer's text (greedy CTC over its 6625 classes) is onnxruntime's on those lines;
  - int8: the recognizer quantized by infc (`--quantize int8 --calibration-method
    percentile`, 8 calibration lines) keeps the fp32 model's top-1 class in at least 98% of
    the 40 steps of 16 held-out lines (bench/ppocr.py measured 99.15% on 100), and its
    probabilities are off the fp32 model's by a relative L2 error above 1e-3 (it really is
    quantized: infc's fp32 is within 1e-4 of ORT's).
Exits 77 (CTest: skipped) when rapidocr-onnxruntime or Pillow is not installed;
tools/scripts/setup.sh installs both. Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import importlib.util
import os
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
import harness  # noqa: E402
import ppocr_models as ppocr  # noqa: E402

SKIP = 77


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--python-dir", default=os.path.join(HERE, "..", "..", "python"))
    args = ap.parse_args()
    if harness.missing({"rapidocr-onnxruntime": ppocr.models_dir(),
                        "Pillow": importlib.util.find_spec("PIL")}):
        return SKIP
    infc = harness.import_infc(args.python_dir)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    rng = np.random.default_rng(5)
    feeds = {
        "det": [ppocr.page_input(rng, ppocr.random_texts(rng, 8), 320)],
        "cls": ppocr.line_samples(rng, 4, 192, flip=True)[1],
        "rec": ppocr.line_samples(rng, 4, 320)[1],
    }
    tally = harness.Tally()
    report = tally.report

    paths, outs, refs = {}, {}, {}
    for name in ppocr.MODELS:
        paths[name] = ppocr.static_model(name, args.work)
        so = os.path.join(args.work, f"{name}.so")
        r = harness.run_tool([args.infc, "compile", paths[name], "-o", so], timeout=600)
        if r.returncode != 0:
            report(False, f"{name}: infc compile: {r.stderr.strip()[-2000:]}")
            continue
        model = infc.load(so)
        outs[name], refs[name] = [], []
        for x in feeds[name]:
            ref = harness.ort_reference(paths[name], {"x": x})
            got = model(x=x)
            for key, want in ref.items():
                ok, summary = harness.compare(got[key], want, rtol=1e-3, atol=1e-5)
                report(ok, f"{name} fp32 {key}{list(want.shape)}: {summary}")
            outs[name].append(list(got.values())[0])
            refs[name].append(list(ref.values())[0])

    if "rec" in outs:
        chars = ppocr.characters(paths["rec"])
        texts = [(ppocr.ctc_decode(o, chars), ppocr.ctc_decode(r, chars))
                 for o, r in zip(outs["rec"], refs["rec"])]
        report(all(a == b for a, b in texts), f"rec fp32 text = onnxruntime's: {texts}")

        calib = ppocr.line_samples(rng, 8, 320)[1]
        _, held, _ = ppocr.line_samples(rng, 16, 320)
        cdir = os.path.join(args.work, "calib")
        harness.write_calibration(cdir, calib)
        so = os.path.join(args.work, "rec_int8.so")
        r = harness.run_tool([args.infc, "compile", paths["rec"], "-o", so, "--quantize", "int8",
                              "--calibration", cdir, "--calibration-method", "percentile"],
                             timeout=900)
        if r.returncode != 0:
            report(False, f"rec int8: infc compile: {r.stderr.strip()[-2000:]}")
        else:
            model = infc.load(so)
            same = total = 0
            gots, refs_held = [], []
            for x in held:
                ref = list(harness.ort_reference(paths["rec"], {"x": x}).values())[0]
                got = list(model(x=x).values())[0]
                same += int((got.argmax(-1) == ref.argmax(-1)).sum())
                total += ref[..., 0].size
                gots.append(got)
                refs_held.append(ref)
            g, r = np.stack(gots).astype(np.float64), np.stack(refs_held).astype(np.float64)
            rel = float(np.linalg.norm(g - r) / np.linalg.norm(r))
            report(same >= 0.98 * total and rel > 1e-3,
                   f"rec int8 (percentile): top-1 = fp32 on {same}/{total} steps "
                   f"({100 * same / total:.2f}%, at least 98%); relative L2 error against "
                   f"fp32 {rel:.3e} (above 1e-3: quantized)")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

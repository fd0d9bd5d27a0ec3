#!/usr/bin/env python3
"""The Python package as a user installs it: `pip install ./python` and the wheel of
tools/scripts/build-wheel.sh, each into a fresh virtual environment.

    check_python_package.py --infc BUILD/bin/infc --work DIR

Each environment is `python3 -m venv --system-site-packages --without-pip` (numpy and pip
come from the system's site-packages, nothing is downloaded), the package installed with
`python -m pip install --no-build-isolation --no-deps`. Checks, run by the environment's
python from a directory outside the repository (no path tricks):
  - source install: `import infc` is the installed copy; with no compiler on PATH and no
    INFC_COMPILER, infc.compile fails with FileNotFoundError naming where it looked; with
    INFC_COMPILER it compiles a small Gemm+Relu model, and infc.load runs it equal to numpy
    (rtol 1e-5); a model with a bad Gemm raises infc.CompileError naming the node and leaves
    no output file;
  - wheel: built by build-wheel.sh from this build; installed, infc.compile finds the
    bundled compiler by itself (INFC_COMPILER and PATH without infc) and the model runs equal
    to numpy, with input_shape= fixing a symbolic batch.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import shutil
import subprocess
import sys
import textwrap

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
import harness  # noqa: E402

# Runs inside the environment: prints one 'PASS ...' or 'FAIL ...' line per check.
PROBE = textwrap.dedent('''
    import os, sys, numpy as np, onnx
    from onnx import helper, TensorProto
    import infc
    mode, work = sys.argv[1], sys.argv[2]
    def report(ok, what):
        print(("PASS " if ok else "FAIL ") + what, flush=True)
    report(os.path.dirname(infc.__file__).startswith(sys.prefix),
           f"{mode}: infc imported from the environment ({infc.__file__})")
    rng = np.random.default_rng(3)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    def model(path, batch, trans_b=0):
        g = helper.make_graph(
            [helper.make_node("Gemm", ["x", "w"], ["y"], name="dense", transB=trans_b),
             helper.make_node("Relu", ["y"], ["z"], name="act")], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 8])],
            [helper.make_tensor_value_info("z", TensorProto.FLOAT, [batch, 4])],
            [helper.make_tensor("w", TensorProto.FLOAT, [8, 4], w.ravel())])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        onnx.save(m, path)
        return path
    x = rng.standard_normal((2, 8)).astype(np.float32)
    want = np.maximum(x @ w, 0)
    if mode == "source":
        try:
            infc.compile(model(os.path.join(work, "m.onnx"), 2), os.path.join(work, "m.so"))
            report(False, "source: compile without a compiler raised nothing")
        except FileNotFoundError as e:
            report("INFC_COMPILER" in str(e), f"source: no compiler found: {e}")
        os.environ["INFC_COMPILER"] = os.environ["PROBE_INFC"]
        so = infc.compile(model(os.path.join(work, "m.onnx"), 2), os.path.join(work, "m.so"))
        got = infc.load(so)(x=x)["z"]
        report(np.allclose(got, want, rtol=1e-5, atol=1e-6),
               f"source: compiled through INFC_COMPILER, runs equal to numpy")
        # A symbolic batch: dim= with no largest size, and no argument for it at all.
        x5 = rng.standard_normal((5, 8)).astype(np.float32)
        for label, kwargs in (("dim={'batch': (1, None)}", {"dim": {"batch": (1, None)}}),
                              ("no argument", {})):
            so = infc.compile(model(os.path.join(work, "b.onnx"), "batch"),
                              os.path.join(work, "b.so"), **kwargs)
            lib = infc.load(so)
            got = lib(x=x5)["z"]
            report(np.allclose(got, np.maximum(x5 @ w, 0), rtol=1e-5, atol=1e-6) and
                   "batch[1..]" in repr(lib), f"source: a symbolic batch with {label}: {lib!r}")
            lib.close()
        bad = os.path.join(work, "bad.so")
        try:
            infc.compile(model(os.path.join(work, "bad.onnx"), 2, trans_b=1), bad)
            report(False, "source: a Gemm of mismatched shapes compiled")
        except infc.CompileError as e:
            report("dense" in str(e) and "Gemm" in str(e) and not os.path.exists(bad),
                   f"source: CompileError names the node, no output file: {str(e)[:200]}")
    else:
        report(infc.find_compiler().startswith(os.path.dirname(infc.__file__)),
               f"wheel: the bundled compiler is found ({infc.find_compiler()})")
        so = infc.compile(model(os.path.join(work, "w.onnx"), "batch"),
                          os.path.join(work, "w.so"), input_shape={"x": (2, 8)})
        got = infc.load(so)(x=x)["z"]
        report(np.allclose(got, want, rtol=1e-5, atol=1e-6),
               "wheel: compiled by the bundled compiler (input_shape fixes the batch), "
               "runs equal to numpy")
''')


def venv(path):
    shutil.rmtree(path, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    path], check=True)
    return os.path.join(path, "bin", "python")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    tally = harness.Tally()
    probe = os.path.join(args.work, "probe.py")
    with open(probe, "w") as f:
        f.write(PROBE)
    env = dict(harness.env_without_compiler(args.infc), PROBE_INFC=os.path.abspath(args.infc),
               PYTHONDONTWRITEBYTECODE="1")

    def install_and_probe(mode, what):
        py = venv(os.path.join(args.work, f"venv-{mode}"))
        r = harness.run_tool([py, "-m", "pip", "install", "-q", "--no-index",
                              "--no-build-isolation", "--no-deps", what], timeout=300,
                             env=dict(env, PIP_DISABLE_PIP_VERSION_CHECK="1"))
        if r.returncode != 0:
            tally.report(False, f"{mode}: pip install {what}: {r.stderr.strip()[-1500:]}")
            return
        work = os.path.join(args.work, mode)
        os.makedirs(work)
        r = harness.run_tool([py, probe, mode, work], timeout=300, cwd=work, env=env)
        for line in r.stdout.splitlines():
            if line.startswith(("PASS ", "FAIL ")):
                tally.report(line.startswith("PASS "), line[5:])
        if r.returncode != 0:
            tally.report(False, f"{mode}: the probe failed: {r.stderr.strip()[-1500:]}")

    # From a copy: pip builds in the source tree (build/, infc.egg-info/), and the test must
    # not write into the repository.
    source = os.path.join(args.work, "python-src")
    shutil.copytree(os.path.join(REPO, "python"), source,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    install_and_probe("source", source)
    dist = os.path.join(args.work, "dist")
    build = os.path.dirname(os.path.dirname(os.path.abspath(args.infc)))
    r = harness.run_tool(["bash", os.path.join(REPO, "tools", "scripts", "build-wheel.sh"),
                          build, dist], timeout=300, env=env)
    wheels = [f for f in os.listdir(dist) if f.endswith(".whl")] if os.path.isdir(dist) else []
    tally.report(r.returncode == 0 and len(wheels) == 1 and "linux" in wheels[0],
                 f"build-wheel.sh: one platform wheel ({', '.join(wheels) or r.stderr[-500:]})")
    if wheels:
        install_and_probe("wheel", os.path.join(dist, wheels[0]))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

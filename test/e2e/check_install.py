#!/usr/bin/env python3
"""`cmake --install` and an out-of-tree product built from the installed files only.

    check_install.py --infc BUILD/bin/infc --work DIR

Installs the build (the directory above --infc's bin/) into DIR/prefix, then checks:
  - the tree: bin/infc, lib/libinfc_runtime.a, lib/infc_exports.map, include/infc/runtime.h,
    lib/cmake/infc/infcConfig.cmake, lib/pkgconfig/infc.pc, share/infc/python/infc;
  - the consumer project test/install/consumer (find_package(infc CONFIG) with
    CMAKE_PREFIX_PATH the prefix, nothing from the repository or the build): two models
    compiled at build time by the installed compiler (infc_add_model), an app that
    loads both (infc_api_open) and one that links the first and calls its typed header;
    their outputs equal numpy's (rtol 1e-5); a rebuild with nothing changed compiles no
    model, a touched model or one whose flags changed is compiled again, alone;
  - a Makefile user's line: cc $(pkg-config --cflags infc) builds the loader too;
  - the installed Python package (PYTHONPATH=prefix/share/infc/python) finds the installed
    compiler by itself and its infc.compile + infc.load agree with numpy.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
import harness  # noqa: E402


def models(work):
    """The two models (ONNX files in work) and their numpy results on the consumer's inputs."""
    import onnx
    from onnx import TensorProto, helper
    rng = np.random.default_rng(11)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    dense = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w"], ["y"], name="dense"),
         helper.make_node("Relu", ["y"], ["z"], name="act")], "dense",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor("w", TensorProto.FLOAT, [8, 4], w.ravel())])
    affine = helper.make_graph(
        [helper.make_node("Mul", ["a", "two"], ["t"]), helper.make_node("Add", ["t", "one"], ["b"])],
        "affine", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]),
         helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])])
    paths = []
    for name, g in (("dense", dense), ("affine", affine)):
        path = os.path.join(work, f"{name}.onnx")
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
        paths.append(path)
    x = ((np.arange(16, dtype=np.float32) - 7) / 8).reshape(2, 8)
    a = (np.arange(6, dtype=np.float32) / 4).reshape(2, 3)
    return paths, np.maximum(x @ w, 0).ravel(), (a * 2 + 1).ravel()


def numbers(line):
    return np.array([float(v) for v in line.split()[1:]], np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    tally = harness.Tally()
    report = tally.report
    build = os.path.dirname(os.path.dirname(os.path.abspath(args.infc)))
    prefix = os.path.join(args.work, "prefix")
    r = harness.run_tool(["cmake", "--install", build, "--prefix", prefix], timeout=300)
    if r.returncode != 0:
        report(False, f"cmake --install: {r.stderr.strip()[-1500:]}")
        return tally.finish()
    files = ["bin/infc", "lib/libinfc_runtime.a", "lib/infc_exports.map",
             "include/infc/runtime.h", "lib/cmake/infc/infcConfig.cmake",
             "lib/cmake/infc/infcConfigVersion.cmake", "lib/pkgconfig/infc.pc",
             "share/infc/python/infc/__init__.py", "share/infc/python/infc/_compile.py"]
    missing = [f for f in files if not os.path.isfile(os.path.join(prefix, f))]
    report(not missing, f"cmake --install: the tree ({'missing ' + ', '.join(missing) if missing else 'complete'})")

    (dense, affine), want_dense, want_affine = models(args.work)
    consumer = os.path.join(args.work, "consumer-build")
    cc = shutil.which("clang-22") or "cc"  # setup.sh installs clang-22
    env = harness.env_without_compiler(args.infc)
    r = harness.run_tool(["cmake", "-S", os.path.join(REPO, "test", "install", "consumer"), "-B",
                          consumer, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
                          f"-DCMAKE_C_COMPILER={cc}",
                          f"-DDENSE_MODEL={dense}", f"-DAFFINE_MODEL={affine}"],
                         timeout=300, env=env)
    report(r.returncode == 0, "consumer: configure with find_package(infc CONFIG)"
           + ("" if r.returncode == 0 else ": " + (r.stdout + r.stderr).strip()[-1500:]))
    r = harness.run_tool(["cmake", "--build", consumer], timeout=600, env=env)
    report(r.returncode == 0 and r.stdout.count("infc compile") == 2,
           "consumer: build, both models compiled by the installed compiler"
           + ("" if r.returncode == 0 else ": " + (r.stdout + r.stderr).strip()[-1500:]))
    if r.returncode == 0:
        out = harness.run_tool([os.path.join(consumer, "load_both")], timeout=60, env=env)
        lines = out.stdout.splitlines()
        ok = out.returncode == 0 and len(lines) == 2
        report(ok and np.allclose(numbers(lines[0]), want_dense, rtol=1e-5, atol=1e-6)
               and np.allclose(numbers(lines[1]), want_affine, rtol=1e-5, atol=1e-6),
               f"consumer: load_both runs both models equal to numpy ({out.stderr.strip()[:300]})")
        out = harness.run_tool([os.path.join(consumer, "linked")], timeout=60, env=env)
        report(out.returncode == 0 and np.allclose(numbers(out.stdout), want_dense, rtol=1e-5,
                                                   atol=1e-6),
               f"consumer: linked (dense.so linked, dense.h's dense_run) equal to numpy "
               f"({out.stderr.strip()[:300]})")
        again = harness.run_tool(["cmake", "--build", consumer], timeout=300, env=env)
        report(again.returncode == 0 and "infc compile" not in again.stdout,
               "consumer: a rebuild with nothing changed compiles no model")
        os.utime(affine)
        again = harness.run_tool(["cmake", "--build", consumer], timeout=300, env=env)
        report(again.returncode == 0 and again.stdout.count("infc compile") == 1
               and "affine" in again.stdout,
               "consumer: a touched model is compiled again, the other not")
        harness.run_tool(["cmake", "-DDENSE_EXTRA=-O1", consumer], timeout=300, env=env)
        again = harness.run_tool(["cmake", "--build", consumer], timeout=300, env=env)
        report(again.returncode == 0 and again.stdout.count("infc compile") == 1
               and "dense" in again.stdout,
               "consumer: a model whose flags changed is compiled again, the other not")

    pc = harness.run_tool(["pkg-config", "--cflags", "infc"], timeout=60,
                          env=dict(env, PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig")))
    loader = os.path.join(args.work, "load_both_make")
    built = harness.run_tool(["sh", "-c", f"{cc} {pc.stdout.strip()} -DDENSE_SO='\"{consumer}/infc_models/dense.so\"' "
                           f"-DAFFINE_SO='\"{consumer}/infc_models/affine.so\"' "
                           f"{REPO}/test/install/consumer/load_both.c -o {loader}"], timeout=120)
    out = harness.run_tool([loader], timeout=60) if built.returncode == 0 else built
    report(pc.returncode == 0 and "include" in pc.stdout and out.returncode == 0,
           f"pkg-config --cflags infc ({pc.stdout.strip()}): cc builds the loader, it runs "
           f"({(pc.stderr + built.stderr + out.stderr).strip()[:300]})")

    probe = ("import numpy as np, infc, sys; "
             "print(infc.find_compiler()); "
             f"infc.compile({dense!r}, {os.path.join(args.work, 'py.so')!r}, "
             "input_shape={'x': (2, 8)}); "
             "x = ((np.arange(16, dtype=np.float32) - 7) / 8).reshape(2, 8); "
             f"print(' '.join(repr(float(v)) for v in infc.load({os.path.join(args.work, 'py.so')!r})(x=x)['z'].ravel()))")
    out = harness.run_tool([sys.executable, "-c", probe], timeout=120, cwd=args.work,
                           env=dict(env, PYTHONPATH=os.path.join(prefix, "share", "infc", "python")))
    lines = out.stdout.splitlines()
    report(out.returncode == 0 and len(lines) == 2 and lines[0] == os.path.join(prefix, "bin", "infc")
           and np.allclose(np.array(lines[1].split(), np.float32), want_dense, rtol=1e-5, atol=1e-6),
           f"python from the prefix: finds {lines[0] if lines else '?'}, compiles and runs "
           f"equal to numpy ({out.stderr.strip()[-300:]})")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

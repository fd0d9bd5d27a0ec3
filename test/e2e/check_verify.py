#!/usr/bin/env python3
"""`infc verify`: the per-node comparison with onnxruntime, on a model that infc computes
right and on the same model with a deliberately miscompiled op.

    check_verify.py --infc BUILD/bin/infc --work DIR

The model (made here): Conv, Relu, Conv, Relu, GlobalAveragePool, Flatten, Gemm, Softmax,
its batch symbolic. Checks:
  - `infc verify m.onnx --input-shape x=2x3x8x8` exits 0 and says every tensor agrees;
  - with `-- --test-miscompile Relu` (a hidden compile flag: 1 added to every Relu's
    output) it exits 1, the nodes before the first Relu agree (0 elements off), the first
    Relu is reported as the first divergence; with --input files it does the same;
  - `--bisect OUT.onnx` writes a one-node Relu model and OUT.inputs.npz: the model passes
    onnx.checker, onnxruntime runs it on those inputs (the first Conv's output) as a Relu,
    and `infc verify` of it agrees without the miscompile flag and diverges with it;
  - a model that does not exist: exit 2, no traceback.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
import harness  # noqa: E402


def make_model(path):
    import onnx
    from onnx import TensorProto, helper
    rng = np.random.default_rng(4)

    def init(name, shape):
        return helper.make_tensor(name, TensorProto.FLOAT, shape,
                                  (0.3 * rng.standard_normal(shape)).astype(np.float32).ravel())
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1] * 4),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", pads=[1] * 4),
             helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             helper.make_node("GlobalAveragePool", ["r2"], ["p"], name="pool"),
             helper.make_node("Flatten", ["p"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "w3"], ["g"], name="fc"),
             helper.make_node("Softmax", ["g"], ["y"], name="softmax")]
    g = helper.make_graph(nodes, "cnn",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])],
                          [init("w1", [4, 3, 3, 3]), init("b1", [4]), init("w2", [6, 4, 3, 3]),
                           init("w3", [6, 5])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


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
    model = os.path.join(args.work, "cnn.onnx")
    make_model(model)
    verify = [args.infc, "verify", model, "--input-shape", "x=2x3x8x8"]
    env = {"INFC_COMPILER": None}

    r = harness.run_tool(verify, timeout=300, env=env)
    report(r.returncode == 0 and "every tensor agrees" in r.stdout,
           f"clean model: exit {r.returncode}, {r.stdout.strip().splitlines()[-1:]}"
           + (r.stderr.strip()[-500:] if r.returncode else ""))

    def rows(text):
        return {line.split()[0]: line for line in text.splitlines()
                if line.split() and line.split()[0] in ("conv1", "relu1", "conv2", "relu2")}

    r = harness.run_tool(verify + ["--", "--test-miscompile", "Relu"], timeout=300, env=env)
    t = rows(r.stdout)
    report(r.returncode == 1 and "first divergence at node 'relu1' (Relu)" in r.stdout
           and " 0/" in t.get("conv1", "") and "<- first divergence" in t.get("relu1", ""),
           f"miscompiled Relu: exit {r.returncode}, conv1 agrees, relu1 first: "
           f"{t.get('relu1', r.stdout[-300:] + r.stderr[-300:]).strip()}")

    x = np.random.default_rng(9).standard_normal((2, 3, 8, 8)).astype(np.float32)
    np.save(os.path.join(args.work, "x.npy"), x)
    out = os.path.join(args.work, "bisect.onnx")
    r = harness.run_tool(verify + ["--input", f"x={os.path.join(args.work, 'x.npy')}",
                                   "--bisect", out, "--", "--test-miscompile", "Relu"],
                         timeout=600, env=env)
    report(r.returncode == 1 and "first divergence at node 'relu1'" in r.stdout
           and os.path.exists(out), f"--input and --bisect: exit {r.returncode}, "
           f"{r.stdout.strip().splitlines()[-1:]}")
    if os.path.exists(out):
        import onnx
        import onnxruntime as ort
        sub = onnx.load(out)
        onnx.checker.check_model(sub)
        feeds = dict(np.load(os.path.splitext(out)[0] + ".inputs.npz"))
        got = ort.InferenceSession(out, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
        report([n.op_type for n in sub.graph.node] == ["Relu"] and list(feeds) == ["c1"]
               and np.array_equal(got, np.maximum(feeds["c1"], 0)),
               f"bisect: one Relu node reading c1 {feeds['c1'].shape if 'c1' in feeds else ''}, "
               "its inputs in .inputs.npz, onnxruntime runs it")
        base = [args.infc, "verify", out, "--input",
                f"c1={os.path.join(args.work, 'c1.npy')}"]
        np.save(os.path.join(args.work, "c1.npy"), feeds["c1"])
        ok = harness.run_tool(base, timeout=300, env=env)
        bad = harness.run_tool(base + ["--", "--test-miscompile", "Relu"], timeout=300, env=env)
        report(ok.returncode == 0 and bad.returncode == 1,
               f"bisect: the subgraph agrees without the flag (exit {ok.returncode}) and "
               f"diverges with it (exit {bad.returncode})")

    r = harness.run_tool([args.infc, "verify", os.path.join(args.work, "missing.onnx")],
                         timeout=120, env=env)
    report(r.returncode == 2 and "Traceback" not in r.stderr and "missing.onnx" in r.stderr,
           f"missing model: exit {r.returncode}, {r.stderr.strip()[:200]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

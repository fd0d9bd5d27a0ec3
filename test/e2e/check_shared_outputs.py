#!/usr/bin/env python3
"""Graph outputs that are one tensor, compiled and run against onnxruntime.

    check_shared_outputs.py --infc BIN --work DIR [--python-dir DIR]

An Identity of an output is another output of the same value once the importer folds the
Identity away, and calibration models return every activation; the compiled model writes
each output in place into its out-parameter, and a value returned twice needs a copy for
the second one (infc-unique-results; without it buffer-results-to-out-params crashed).
Models: (1) y = relu(x W + b) returned as `y` and, through an Identity, `y_again`; (2) the
same value three times, plus the conv-free `z = y * 2` in between. Each compiled .so must
match onnxruntime on every output (rtol 1e-4, atol 1e-5). Prints 'N passed, M failed'.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def model(extra_identities):
    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(rng.standard_normal((64, 96)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(96).astype(np.float32), "b")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"], name="matmul_0"),
             helper.make_node("Add", ["xw", "b"], ["pre"], name="add_0"),
             helper.make_node("Relu", ["pre"], ["y"], name="relu_0"),
             helper.make_node("Mul", ["y", "two"], ["z"], name="mul_0")]
    outputs = ["y", "z"]
    for i in range(extra_identities):
        nodes.append(helper.make_node("Identity", ["y"], [f"y_again{i}"], name=f"identity_{i}"))
        outputs.append(f"y_again{i}")
    two = numpy_helper.from_array(np.array(2.0, np.float32), "two")
    g = helper.make_graph(nodes, "shared_outputs",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [50, 64])],
                          [helper.make_tensor_value_info(o, TensorProto.FLOAT, [50, 96])
                           for o in outputs], [w, b, two])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--python-dir", default=os.path.join(REPO, "python"))
    a = ap.parse_args()
    sys.path.insert(0, a.python_dir)
    import infc  # noqa: E402
    os.makedirs(a.work, exist_ok=True)
    passed = failed = 0
    x = np.random.default_rng(8).standard_normal((50, 64)).astype(np.float32)
    for identities in (1, 2):
        path = os.path.join(a.work, f"shared{identities}.onnx")
        so = os.path.join(a.work, f"shared{identities}.so")
        onnx.save(model(identities), path)
        subprocess.run([a.infc, "compile", path, "-o", so], check=True)
        ref = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})
        got = infc.load(so)(x=x)
        names = [o.name for o in onnx.load(path).graph.output]
        for name, r in zip(names, ref):
            ok = name in got and got[name].shape == r.shape and np.allclose(
                got[name], r, rtol=1e-4, atol=1e-5)
            passed, failed = passed + ok, failed + (not ok)
            print(f"{'PASS' if ok else 'FAIL'} {identities} identities: output {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

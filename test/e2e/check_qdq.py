#!/usr/bin/env python3
"""QDQ models from onnxruntime's quantize_static, compiled by infc, against onnxruntime.

    check_qdq.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

Two float models (a CNN: padded, strided, 1x1 and grouped convolutions, a residual add,
global pooling and a Gemm with transB; an MLP on a [batch, seq, features] input) are
quantized by ORT's quantize_static in QDQ format with calibration data, in the three
configurations users pick: per-tensor weights with uint8 activations, per-channel weights
with uint8 activations, per-channel weights with int8 activations. For each, infc must:
  - fold every Conv (but the grouped one, which stays in float: its float kernel is the
    fast one), MatMul and Gemm of dequantized int8 tensors into an integer one (counted
    after the graph passes: `--emit infc`);
  - agree with onnxruntime running the same QDQ model within one step of the output's
    quantization scale (both compute the same integers; the float epilogues round apart).
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True
import harness  # noqa: E402

# This machine's kernels (AMX tiles where it has AMX-INT8), and those of the other int8
# kernels' CPUs where this machine can run them (harness.cpu_variants).
CPUS = harness.cpu_variants()

CONFIGS = [  # name, per_channel, activation type, weight type
    ("per_tensor_u8", False, "QUInt8", "QInt8"),
    ("per_channel_u8", True, "QUInt8", "QInt8"),
    ("per_channel_s8", True, "QInt8", "QInt8"),
]


def cnn(rng):
    def w(name, shape, s):
        return numpy_helper.from_array((rng.standard_normal(shape) * s).astype(np.float32), name)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"]),
        helper.make_node("Add", ["c3", "r2"], ["a3"]),
        helper.make_node("Conv", ["a3", "w4"], ["c4"], pads=[1, 1, 1, 1], group=4),
        helper.make_node("GlobalAveragePool", ["c4"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], transB=1),
    ]
    inits = [w("w1", [16, 3, 3, 3], 0.3), w("b1", [16], 0.1), w("w2", [32, 16, 3, 3], 0.1),
             w("b2", [32], 0.1), w("w3", [32, 32, 1, 1], 0.2), w("b3", [32], 0.1),
             w("w4", [32, 8, 3, 3], 0.1), w("wf", [10, 32], 0.3), w("bf", [10], 0.1)]
    g = helper.make_graph(nodes, "qdq_cnn",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 20, 20])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    return g, {"x": (1, 3, 20, 20)}, 1  # the grouped conv stays float


def mlp(rng):
    def w(name, shape, s):
        return numpy_helper.from_array((rng.standard_normal(shape) * s).astype(np.float32), name)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["m1"]),
        helper.make_node("Add", ["m1", "b1"], ["h1"]),
        helper.make_node("Relu", ["h1"], ["r1"]),
        helper.make_node("MatMul", ["r1", "w2"], ["y"]),
    ]
    inits = [w("w1", [24, 64], 0.3), w("b1", [64], 0.1), w("w2", [64, 48], 0.2)]
    g = helper.make_graph(nodes, "qdq_mlp",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 24])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5, 48])],
                          inits)
    return g, {"x": (2, 5, 24)}, 0


def output_step(model):
    """The scale of the DequantizeLinear that produces the graph output."""
    out = model.graph.output[0].name
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "DequantizeLinear" and n.output[0] == out:
            return float(np.max(inits[n.input[1]]))
    return None


def main():
    args = harness.kernel_test_args()
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    infc = harness.import_infc(args.python_dir)
    failed = total = 0
    for make in (cnn, mlp):
        rng = np.random.default_rng(11)
        graph, shapes, float_convs = make(rng)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        f32 = os.path.join(args.work, graph.name + ".onnx")
        onnx.save(model, f32)
        calib = [{k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
                 for _ in range(8)]
        test = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}

        class Reader(CalibrationDataReader):
            def __init__(self):
                self.it = iter(calib)

            def get_next(self):
                return next(self.it, None)

        for (name, per_channel, act, weight), cpu in [(c, cpu) for c in CONFIGS for cpu in CPUS]:
            total += 1
            case = f"{graph.name}_{name}"
            path = os.path.join(args.work, case + ".onnx")
            if cpu is None:
                quantize_static(f32, path, Reader(), quant_format=QuantFormat.QDQ,
                                per_channel=per_channel, activation_type=getattr(QuantType, act),
                                weight_type=getattr(QuantType, weight))
            else:
                case += "_" + cpu
            so = os.path.join(args.work, case + ".so")
            r = harness.compile_for_cpu(args.infc, path, so, cpu)
            ir = harness.run_tool([args.infc, "compile", path, "--emit", "infc", "-o", "-"], 300)
            if r.returncode != 0 or ir.returncode != 0:
                print(f"FAIL {case}: compile failed\n{r.describe()}\n{ir.describe()}")
                failed += 1
                continue
            float_products = len(re.findall(r"infc\.(conv|matmul) .*xf32>\)", ir.stdout))
            ref = harness.ort_reference(path, test)["y"]
            got = infc.load(so)(**test)["y"]
            step = output_step(onnx.load(path))
            err = float(np.abs(got.astype(np.float64) - ref).max())
            ok = (got.shape == ref.shape and step is not None and err <= step * 1.001 and
                  float_products == float_convs)
            print(f"{'PASS' if ok else 'FAIL'} {case}: max |infc - ort| {err:.4g} "
                  f"(output step {step:.4g}), {float_products} float conv/matmul left "
                  f"(expected {float_convs})")
            failed += not ok
    print(f"{total - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

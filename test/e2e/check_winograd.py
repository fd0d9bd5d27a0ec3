#!/usr/bin/env python3
"""3x3 convolutions by Winograd F(2x2, 3x3) against onnxruntime.

    check_winograd.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

convert-infc-to-linalg computes NHWC 3x3 stride-1 f32 convolutions of 64 channels and more
by Winograd (lib/Conversion/InfcToLinalg/Winograd.cpp): an input transform, 16 matmuls
against weights transformed at compile time, an output transform. Each case is a model of
such convolutions (bias, Relu, a residual add after, as ResNet has them; one with a tap zero
in every filter, whose transformed weights hold a uniform matrix), seeded weights
and inputs, compiled for this machine and, where it can run it, for haswell (AVX2: the
16-lane vectors of the transforms as two ymm each). The outputs must match onnxruntime
(graph optimizations off) within |infc - ORT| <= 1e-5 + 1e-4 |ORT| (Winograd's rounding
differs from the direct sum's by about 1e-6 here), and the linalg stage must show that
each case took the Winograd path (its loop over the 16 positions, `infc.weight_batch`), or
not, for the cases outside it. Prints one line per case and 'N passed, M failed'; exits 1
on any failure.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True
import harness  # noqa: E402

CPUS = [cpu for cpu in harness.cpu_variants() if cpu in (None, "haswell")]

# name, C, H, W, [(F, pads top/left/bottom/right), ...] (the convs in a chain, each
# followed by Relu), residual (the input added to the last conv's output), Winograd?
CASES = [
    ("even_map", 64, 8, 8, [(64, (1, 1, 1, 1))], False, True),
    # odd output height and width: the last tiles' second row and column dropped
    ("odd_map", 64, 7, 9, [(80, (1, 1, 1, 1))], False, True),
    ("asymmetric_pads", 64, 10, 6, [(64, (0, 1, 1, 0))], False, True),
    ("no_pads", 96, 6, 7, [(128, (0, 0, 0, 0))], False, True),
    # ResNet's 14x14 stage: two convs, the residual added to the second
    ("resnet_block", 128, 14, 14, [(128, (1, 1, 1, 1)), (128, (1, 1, 1, 1))], True, True),
    ("one_pixel", 64, 1, 1, [(64, (1, 1, 1, 1))], False, True),
    # the corner tap zero in every filter (a masked conv): U[15] = g[2][2] is all zeros, a
    # uniform matrix among the 16 that infc-pack-matmul-panels packs
    ("masked_corner", 64, 8, 8, [(64, (1, 1, 1, 1))], False, True),
    # 32 channels: below the threshold, the implicit GEMM
    ("below_threshold", 32, 8, 8, [(32, (1, 1, 1, 1))], False, False),
]


def build(name, c, h, w, convs, residual, rng):
    nodes, inits = [], []
    x, channels = "x", c
    oh, ow = h, w
    for i, (f, pads) in enumerate(convs):
        wt = (rng.standard_normal((f, channels, 3, 3)) / np.sqrt(9 * channels)).astype(np.float32)
        if name == "masked_corner":
            wt[:, :, 2, 2] = 0
        bias = (0.1 * rng.standard_normal(f)).astype(np.float32)
        inits += [numpy_helper.from_array(wt, f"w{i}"), numpy_helper.from_array(bias, f"b{i}")]
        nodes.append(helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [f"conv{i}"],
                                      kernel_shape=[3, 3], pads=list(pads), name=f"conv{i}"))
        oh, ow = oh + pads[0] + pads[2] - 2, ow + pads[1] + pads[3] - 2
        last = i == len(convs) - 1
        if last and residual:
            nodes.append(helper.make_node("Add", [f"conv{i}", "x"], [f"sum{i}"]))
            nodes.append(helper.make_node("Relu", [f"sum{i}"], ["y"]))
        else:
            nodes.append(helper.make_node("Relu", [f"conv{i}"], ["y" if last else f"relu{i}"]))
        x, channels = f"relu{i}", f
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                      [1, c, h, w])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                         [1, channels, oh, ow])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model, rng.standard_normal((1, c, h, w)).astype(np.float32)


def main():
    args = harness.kernel_test_args()
    infc = harness.import_infc(args.python_dir)
    rng = np.random.default_rng(11)
    failed = 0
    for case, cpu in [(c, cpu) for c in CASES for cpu in CPUS]:
        name = case[0] + ("" if cpu is None else "_" + cpu)
        model, x = build(*case[:6], rng)
        path = os.path.join(args.work, name + ".onnx")
        onnx.save(model, path)
        so = os.path.join(args.work, name + ".so")
        r = harness.compile_for_cpu(args.infc, path, so, cpu)
        linalg = os.path.join(args.work, name + ".linalg.mlir")
        r2 = harness.compile_for_cpu(args.infc, path, linalg, cpu, extra=["--emit=linalg"])
        if r.returncode != 0 or r2.returncode != 0:
            print(f"FAIL {name}: compile failed\n{(r if r.returncode else r2).describe()}")
            failed += 1
            continue
        with open(linalg) as f:
            winograd = "infc.weight_batch" in f.read()
        got = infc.load(so)(x=x)["y"]
        ok, summary = harness.compare(got, harness.ort_reference(path, {"x": x})["y"],
                                      rtol=1e-4, atol=1e-5)
        path_ok = winograd == case[6]
        print(f"{'PASS' if ok and path_ok else 'FAIL'} {name}: {'Winograd' if winograd else 'direct'}"
              f"{'' if path_ok else ' (expected the other path)'}, {summary}")
        failed += not (ok and path_ok)
    print(f"{len(CASES) * len(CPUS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""int8 models on the CUDA path against onnxruntime, without a GPU.

    check_cuda_int8.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

An int8 product on the GPU reads its 8-bit operands as bytes and multiplies them on int8
tensor cores (mma.sync m16n8k32, each side s8 or u8 as it is, i32 sums). Cases: QDQ models from onnxruntime's
quantize_static (convolutions and a matmul, uint8 and int8 activations), MatMulInteger of
two activations (u8 x u8, u8 x s8), and a float model quantized by infc itself
(`--quantize int8 --target cuda-emulator`). For each:
  - compiled --target cuda-emulator (the kernels' IR run on the CPU), the output agrees with
    the reference: numpy's integers for MatMulInteger (onnxruntime's u8 x s8 products
    saturate on CPUs without VNNI), onnxruntime within one step of the output's
    quantization scale for QDQ models (the float epilogues round apart); infc's own
    quantization within 6% relative RMS of the float model and within 1e-5 of the same
    quantization compiled for the CPU;
  - compiled --target cuda --emit=ptx, ptxas (sm_80, sm_90) reports the expected number of
    tiled kernels (those with a barrier), no local memory in the PTX and at most 8 bytes of
    ptxas spills, and the PTX has at least 2
    `mma.sync` m16n8k32 of the expected byte types and 2 ldmatrix x4 per tiled kernel (a
    32 x 32 tile's; 16 and 6 in the 128 x 128 tiles of the big MatMulInteger).
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True
import check_cuda_tiled  # noqa: E402
import check_qdq  # noqa: E402
import check_quantize  # noqa: E402
import harness  # noqa: E402


def float_conv(rng):
    """Conv (padded, strided) + Relu, then a 1x1 Conv: two tiled int8 convolutions."""
    def w(name, shape):
        return numpy_helper.from_array(
            (rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))).astype(np.float32), name)
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1],
                              strides=[2, 2]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2"], ["y"])]
    inits = [w("w1", [40, 24, 3, 3]), numpy_helper.from_array(
        (0.1 * rng.standard_normal(40)).astype(np.float32), "b1"), w("w2", [48, 40, 1, 1])]
    g = helper.make_graph(nodes, "int8_conv",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 24, 33, 35])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 48, 17, 18])],
                          inits)
    return g, {"x": (1, 24, 33, 35)}


def float_matmul(rng):
    """MatMul + bias + Relu on [batch, seq, features]: 2 x 40 rows."""
    w = numpy_helper.from_array((rng.standard_normal([48, 80]) / 7).astype(np.float32), "w")
    b = numpy_helper.from_array((0.1 * rng.standard_normal(80)).astype(np.float32), "b")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]),
             helper.make_node("Add", ["m", "b"], ["a"]),
             helper.make_node("Relu", ["a"], ["y"])]
    g = helper.make_graph(nodes, "int8_matmul",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 40, 48])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 40, 80])],
                          [w, b])
    return g, {"x": (2, 40, 48)}


def matmul_integer(name, b_type, m=70, k=40, n=72):
    """MatMulInteger of two activations, u8 A [m, k] x B [k, n] of `b_type`."""
    np_b = np.uint8 if b_type == TensorProto.UINT8 else np.int8
    node = helper.make_node("MatMulInteger", ["a", "b"], ["y"])
    g = helper.make_graph([node], name,
                          [helper.make_tensor_value_info("a", TensorProto.UINT8, [m, k]),
                           helper.make_tensor_value_info("b", b_type, [k, n])],
                          [helper.make_tensor_value_info("y", TensorProto.INT32, [m, n])])

    def inputs(rng):
        info = np.iinfo(np_b)
        return {"a": rng.integers(0, 256, (m, k)).astype(np.uint8),
                "b": rng.integers(info.min, info.max + 1, (k, n)).astype(np_b)}
    return g, inputs


def save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def kernel_report(args, path, tiled, byte_types, extra=(), per_kernel=(2, 2)):
    """Problems with the --emit=ptx kernels: tiled count, local memory, the byte types of
    their mma.syncs (`byte_types`: the two operands', in either order; None: no mma), at
    least `per_kernel` (mma.sync, ldmatrix x4) per tiled kernel: a 32-deep step's, 2 and 2
    in a 32 x 32 tile, 8 and 4 in 64 x 64, 16 and 6 in 128 x 128."""
    ptx = path + ".ptx"
    r = harness.run_tool([args.infc, "compile", path, "-o", ptx, "--target=cuda", "--emit=ptx",
                          *extra], 600)
    if r.returncode:
        return [f"--emit=ptx failed\n{r.describe()}"]
    problems = []
    with open(ptx) as f:
        text = f.read()
    mma = re.findall(r"mma\.sync\.aligned\.m16n8k32\.row\.col\.s32\.(\w+)\.(\w+)\.s32", text)
    tensor_core = tiled if byte_types else 0
    want = sorted(byte_types or ())
    want_mma, want_ldmatrix = (n * tensor_core for n in per_kernel)
    if len(mma) < want_mma or (not tensor_core and mma) or \
            any(sorted(pair) != want for pair in mma):
        expected = f"at least {want_mma} {'.'.join(want)}" if tensor_core else "none"
        problems.append(f"mma.sync {sorted(set(mma))} x {len(mma)}, expected {expected}")
    ldmatrix = len(re.findall(check_cuda_tiled.LDMATRIX, text))
    if ldmatrix < want_ldmatrix or (not tensor_core and ldmatrix):
        problems.append(f"{ldmatrix} ldmatrix, expected {'at least ' + str(want_ldmatrix) if tensor_core else 0}")
    problems += [f"{k}: local memory in the PTX"
                 for k in sorted(check_cuda_tiled.local_memory_kernels(ptx))]
    for arch in ("sm_80", "sm_90"):
        kernels = check_cuda_tiled.ptxas_kernels(ptx, arch)
        with_barrier = [k for k, v in kernels.items() if v[2]]
        if len(with_barrier) != tiled:
            problems.append(f"{arch}: {len(with_barrier)} tiled kernels, expected {tiled}")
        problems += [f"{arch} {k}: ptxas spilled {v[1]} bytes" for k, v in kernels.items()
                     if v[1] > check_cuda_tiled.MAX_SPILL_BYTES]
    return problems


def main():
    args = harness.kernel_test_args()
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    infc = harness.import_infc(args.python_dir)
    tally = harness.Tally()

    def emulated(path, inputs, extra=()):
        so = path + ".emu.so"
        r = harness.run_tool([args.infc, "compile", path, "-o", so, "--target=cuda-emulator",
                              *extra], 600)
        if r.returncode:
            raise RuntimeError(f"compile failed\n{r.describe()}")
        return infc.load(so)(**inputs)["y"]

    # QDQ models: (float model, activation type, tiled kernels, mma.sync byte types)
    qdq_cases = [(float_conv, "QUInt8", 2, ("u8", "s8")), (float_conv, "QInt8", 2, ("s8", "s8")),
                 (float_matmul, "QUInt8", 1, ("u8", "s8"))]
    for make, act, tiled, types in qdq_cases:
        rng = np.random.default_rng(7)
        graph, shapes = make(rng)
        f32 = save(graph, os.path.join(args.work, graph.name + ".onnx"))
        calib = [{k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
                 for _ in range(8)]
        test = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}

        class Reader(CalibrationDataReader):
            def __init__(self):
                self.it = iter(calib)

            def get_next(self):
                return next(self.it, None)

        case = f"{graph.name}_{act.lower()}"
        path = os.path.join(args.work, case + ".onnx")
        quantize_static(f32, path, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=getattr(QuantType, act), weight_type=QuantType.QInt8)
        try:
            got = emulated(path, test)
        except RuntimeError as e:
            tally.report(False, f"{case}: {e}")
            continue
        ref = harness.ort_reference(path, test)["y"]
        step = check_qdq.output_step(onnx.load(path))
        err = float(np.abs(got.astype(np.float64) - ref).max()) if got.shape == ref.shape \
            else float("inf")
        problems = kernel_report(args, path, tiled, types)
        ok = step is not None and err <= step * 1.001 and not problems
        tally.report(ok, f"{case}: max |infc - ort| {err:.4g} (output step {step:.4g}); "
                         + ("; ".join(problems) or f"{tiled} tiled, mma.sync {'.'.join(types)}"))

    # MatMulInteger of two activations: u8 x u8 and u8 x s8 on the tensor cores, the last
    # big enough for 128 x 128 tiles (11 x 14 of them: 132 blocks decide).
    for name, b_type, types, sizes, per_kernel in (
            ("matmul_integer_u8u8", TensorProto.UINT8, ("u8", "u8"), {}, (2, 2)),
            ("matmul_integer_u8s8", TensorProto.INT8, ("u8", "s8"), {}, (2, 2)),
            ("matmul_integer_u8s8_tile128", TensorProto.INT8, ("u8", "s8"),
             {"m": 1300, "k": 64, "n": 1700}, (16, 6)),
            # 6 tiles of 32, 2048 deep: split in 8 slices (infc-split-reduction), i32 sums
            ("matmul_integer_u8s8_split_k", TensorProto.INT8, ("u8", "s8"),
             {"m": 64, "k": 2048, "n": 96}, (2, 2))):
        graph, make_inputs = matmul_integer(name, b_type, **sizes)
        path = save(graph, os.path.join(args.work, name + ".onnx"))
        inputs = make_inputs(np.random.default_rng(3))
        try:
            got = emulated(path, inputs)
        except RuntimeError as e:
            tally.report(False, f"{name}: {e}")
            continue
        ref = (inputs["a"].astype(np.int64) @ inputs["b"].astype(np.int64)).astype(np.int32)
        ok, summary = harness.compare(got, ref, rtol=0, atol=0)
        problems = kernel_report(args, path, 1, types, per_kernel=per_kernel)
        tally.report(ok and not problems, f"{name}: {summary}; "
                                          + ("; ".join(problems) or f"mma.sync {'.'.join(types)}"))

    # infc's own quantization for the GPU: calibrated on the CPU, the same integers.
    rng = np.random.default_rng(5)
    graph, shapes = float_conv(rng)
    (name, shape), = shapes.items()
    f32 = save(graph, os.path.join(args.work, "calibrated_conv.onnx"))
    calib = os.path.join(args.work, "calibrated_conv_calib")
    check_quantize.write_samples(calib, name, shape, 8, rng)
    x = {name: rng.standard_normal(shape).astype(np.float32)}
    quantize = ["--quantize", "int8", "--calibration", calib]
    cpu_so = f32 + ".cpu.so"
    r = harness.run_tool([args.infc, "compile", f32, "-o", cpu_so, *quantize], 600)
    try:
        if r.returncode:
            raise RuntimeError(f"CPU compile failed\n{r.describe()}")
        got = emulated(f32, x, quantize)
    except RuntimeError as e:
        tally.report(False, f"--quantize int8 --target cuda-emulator: {e}")
    else:
        cpu = infc.load(cpu_so)(**x)["y"]
        ref = harness.ort_reference(f32, x)["y"]
        rms = float(np.sqrt(np.mean((got - ref) ** 2) / np.mean(ref ** 2)))
        vs_cpu = float(np.abs(got - cpu).max() / np.abs(cpu).max())
        problems = kernel_report(args, f32, 2, ("u8", "s8"), quantize)
        ok = rms < 0.06 and vs_cpu <= 1e-5 and not np.array_equal(got, ref) and not problems
        tally.report(ok, f"--quantize int8 --target cuda-emulator: rel RMS vs float {rms:.3g}, "
                         f"max rel diff vs the CPU int8 build {vs_cpu:.3g}; "
                         + ("; ".join(problems) or "2 tiled, mma.sync u8.s8"))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

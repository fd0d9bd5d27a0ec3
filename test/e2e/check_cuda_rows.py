#!/usr/bin/env python3
"""The CUDA path's row kernels against onnxruntime, without a GPU.

    check_cuda_rows.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

infc-linalg-to-gpu-loops runs a row group (reductions of a tensor's trailing dims with the
elementwise ops around them over the same leading dims: a LayerNorm, a softmax) as one
kernel of a block per row, the threads splitting the row and combining their partial
results by warp shuffles, then the warps' through shared memory (32-bit values; others by
a tree in shared memory) (lib/Codegen/CUDA/RowKernels.cpp). Each case is a model whose row
is not a multiple of the block (or smaller than a warp's share), with the number of kernels
its --target cuda build must have in all and how many of them are row kernels (the ones
with barriers). For each case:
  - compiled --target cuda-emulator (the kernels' IR, barriers and shared memory included,
    run on the CPU), its output matches onnxruntime within 1e-4 + 1e-4 |ORT|;
  - compiled --target cuda --emit=ptx, the PTX has the expected kernels, a row kernel's
    partial results (all 32-bit here) go through butterfly shuffles (shfl.sync.bfly), and
    ptxas (sm_80 and sm_90) accepts them without spills.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import os
import re
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True
import harness  # noqa: E402
from check_cuda_tiled import (case_of, compile_emulator_and_ptx, graph_of,  # noqa: E402
                              local_memory_kernels, ptxas_kernels, save_case)


def layernorm_case(name, shape, residual=False, relu=False):
    """LayerNormalization over the last axis (after a residual add, before a Relu)."""
    def build(rng):
        width = shape[-1]
        inits = [numpy_helper.from_array(rng.standard_normal(width).astype(np.float32), "g"),
                 numpy_helper.from_array((0.1 * rng.standard_normal(width)).astype(np.float32),
                                         "b")]
        nodes, last, inputs = [], "x", {"x": shape}
        if residual:
            inputs["r"] = shape
            nodes.append(helper.make_node("Add", ["x", "r"], ["sum"]))
            last = "sum"
        nodes.append(helper.make_node("LayerNormalization", [last, "g", "b"],
                                      ["ln" if relu else "y"], axis=-1, epsilon=1e-5))
        if relu:
            nodes.append(helper.make_node("Relu", ["ln"], ["y"]))
        feeds = {n: (3 * rng.standard_normal(s) + 1).astype(np.float32)
                 for n, s in inputs.items()}
        return graph_of(name, nodes, inputs, shape, inits), feeds
    return name, build


def softmax_case(name, shape, axis=-1):
    def build(rng):
        node = helper.make_node("Softmax", ["x"], ["y"], axis=axis)
        return (graph_of(name, [node], {"x": shape}, shape),
                {"x": (4 * rng.standard_normal(shape)).astype(np.float32)})
    return name, build


def reduce_case(name, op, shape, axes, keepdims=0):
    """One Reduce* over `axes` (opset 18: the axes an input)."""
    def build(rng):
        inits = [numpy_helper.from_array(np.array(axes, np.int64), "axes")]
        node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=keepdims)
        out = [1 if a in axes else d for a, d in enumerate(shape)] if keepdims else \
            [d for a, d in enumerate(shape) if a not in axes]
        return case_of(name, [node], {"x": shape}, out, rng, inits)
    return name, build


def int_reduce_case(name, shape):
    """ReduceMax of int32 (a Cast first): the combiner's neutral element is INT_MIN."""
    def build(rng):
        inits = [numpy_helper.from_array(np.array([-1], np.int64), "axes")]
        nodes = [helper.make_node("Cast", ["x"], ["xi"], to=TensorProto.INT32),
                 helper.make_node("ReduceMax", ["xi", "axes"], ["y"], keepdims=0)]
        feeds = {"x": (-1000 + 100 * rng.standard_normal(shape)).astype(np.float32)}
        return graph_of(name, nodes, {"x": shape}, shape[:-1], inits, TensorProto.INT32), feeds
    return name, build


# (case, kernels in all, row kernels among them)
CASES = [
    (layernorm_case("layernorm_7x300", (7, 300)), 1, 1),
    (layernorm_case("add_layernorm_relu", (2, 5, 97), residual=True, relu=True), 1, 1),
    (softmax_case("softmax_2x3x1000", (2, 3, 1000)), 1, 1),
    (softmax_case("softmax_rows_of_40", (3, 50, 40)), 1, 1),
    (reduce_case("reduce_max_5x33", "ReduceMax", (5, 33), [1]), 1, 1),
    (reduce_case("reduce_mean_hw", "ReduceMean", (2, 6, 9, 7), [2, 3], keepdims=1), 1, 1),
    (reduce_case("reduce_sum_all", "ReduceSum", (37, 29), [0, 1]), 1, 1),
    (int_reduce_case("reduce_max_int32", (6, 45)), 1, 1),
    # Not row groups: a reduction of a middle axis (the innermost stays parallel), a row of
    # fewer than 32 elements.
    (reduce_case("reduce_sum_middle", "ReduceSum", (4, 50, 8), [1]), 1, 0),
    (reduce_case("reduce_sum_short_rows", "ReduceSum", (64, 16), [1]), 1, 0),
]


def main():
    args = harness.kernel_test_args()
    infc = harness.import_infc(args.python_dir)
    tally = harness.Tally()
    for (name, build), kernels, row_kernels in CASES:
        inputs, path, ref = save_case(args.work, name, build, 18)
        so, ptx, failed = compile_emulator_and_ptx(args.infc, path,
                                                   os.path.join(args.work, name))
        if failed:
            tally.report(False, f"{name}: compile failed\n{failed.describe()}")
            continue
        # (a full reduction's 0-d result compares as one element)
        got, ref = np.atleast_1d(infc.load(so)(**inputs)["y"]), np.atleast_1d(ref)
        if np.issubdtype(ref.dtype, np.integer):
            ok = got.dtype == ref.dtype and np.array_equal(got, ref)
            summary = "exact" if ok else f"integers differ (max |diff| " \
                f"{np.max(np.abs(got.astype(np.int64) - ref.astype(np.int64)))})"
        else:
            ok, summary = harness.compare(got, ref, rtol=1e-4, atol=1e-4)
        problems = []
        with open(ptx) as f:
            text = f.read()
        entries = len(re.findall(r"\.entry ", text))
        if entries != kernels:
            problems.append(f"{entries} kernels, expected {kernels}")
        if row_kernels and "shfl.sync.bfly" not in text:
            problems.append("no warp shuffle in the row kernel's PTX")
        local = local_memory_kernels(ptx)
        if local:
            problems.append(f"local memory in the PTX of {sorted(local)}")
        for arch in ("sm_80", "sm_90"):
            found = ptxas_kernels(ptx, arch)
            rows = [k for k, v in found.items() if v[2]]
            if len(rows) != row_kernels:
                problems.append(f"{arch}: {len(rows)} row kernels, expected {row_kernels}")
            problems += [f"{arch} {k}: ptxas spilled {v[1]} bytes"
                         for k, v in found.items() if v[1]]
        detail = "; ".join(problems) or f"{kernels} kernel(s), {row_kernels} a block per row"
        tally.report(ok and not problems, f"{name}: {summary}; {detail}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The CUDA path's tiled contraction kernels against onnxruntime, without a GPU.

    check_cuda_tiled.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

infc-linalg-to-gpu-loops runs matmuls, batch matmuls and convolutions (an implicit GEMM, over
NHWC, or NCHW in the _nchw cases) of
at least 32 rows and columns as one kernel each that stages tiles of both inputs in shared
memory (lib/Codegen/CUDA/TiledContraction.cpp). Each case is a model built to take one
tile size (128, 64, 32: the kernel picks the largest that still gives 132 blocks) with
sizes that are not multiples of the tile or of the reduction step, a fused epilogue (bias,
Relu) where ONNX has one; with --precision tf32, fp16 and bf16 the kernel runs on tensor
cores instead (mma.sync m16n8k8 and m16n8k16, the same tile sizes). For each case and precision
(fp32, tf32, fp16, bf16):
  - compiled --target cuda-emulator (the kernels' IR, barriers and shared memory included,
    run on the CPU) its output matches onnxruntime: fp32 within 1e-4 + 1e-4 |ORT|, the others
    within a relative L2 error of 2e-3 (tf32), 5e-3 (fp16) and 3e-2 (bf16);
  - compiled --target cuda --emit=ptx, ptxas (sm_80 and sm_90) reports the expected number of
    kernels with a barrier (and at fp32 no other kernel for the ONE_KERNEL cases), each
    with the shared memory of the expected tile and at most 8 bytes of spills, their PTX
    declares no local memory (the accumulators stay in registers), and the PTX has the
    tensor-core kernel's instructions (at least, a 64 x 64 kernel: tf32 32 mma.sync m16n8k8
    tf32, fp16 and bf16 16 mma.sync m16n8k16 of their type and 8 ldmatrix x4; twice the
    mma.syncs and 3/2 of the ldmatrix in a 128 x 128 kernel, a quarter and half in a
    32 x 32 one) or none.
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

PTXAS = os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin", "ptxas")
PRECISIONS = {"fp32": None, "tf32": 2e-3, "fp16": 5e-3, "bf16": 3e-2}
ELEMENT_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2}
# The tensor-core kernel's tile is the SIMT kernel's (the largest of 128, 64 and 32 whose
# grid has 132 blocks).
def tensor_core_tile(tile):
    return tile


# The tensor-core instructions a tiled kernel has at least (a reduction step's: a warp's
# fragments, 4 x 4 in 128 x 128 tiles, 2 x 4 in 64 x 64 ones and 1 x 2 in 32 x 32 ones,
# times 4 k-steps of 8 or 2 of 16), by the 64 x 64 tile's count, and their PTX.
TENSOR_CORE_OPS = {"fp16": (16, r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16"),
                   "tf32": (32, r"mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32"),
                   "bf16": (16, r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16")}
# The 16-bit kernels' fragments come from ldmatrix x4 (a reduction step's: 2 k-steps of 16,
# 4 for A and 2 for B each in 128 x 128 tiles, 2 and 2 in 64 x 64 ones, 1 and 1 in 32 x 32
# ones; B's transposed where it is read with its tile dimension fastest); TF32's from 32-bit
# loads.
LDMATRIX = r"ldmatrix\.sync\.aligned\.m8n8\.x4(?:\.trans)?\.shared\.b16"
LDMATRIX_PER_KERNEL = {"fp16": 8, "bf16": 8}


def mma_per_kernel(kind, tile):
    """TENSOR_CORE_OPS' count at the tensor-core tile of SIMT tile `tile` (twice the
    fragments in 128 x 128 tiles, a quarter in 32 x 32 ones)."""
    count = TENSOR_CORE_OPS[kind][0]
    return {128: 2 * count, 64: count, 32: count // 4, None: 0}[tensor_core_tile(tile)]


def ldmatrix_per_kernel(precision, tile):
    """LDMATRIX_PER_KERNEL's count at that tile (3/2 of it in 128 x 128 tiles, half in
    32 x 32 ones)."""
    count = LDMATRIX_PER_KERNEL.get(precision, 0)
    return {128: 3 * count // 2, 64: count, 32: count // 2, None: 0}[tensor_core_tile(tile)]


def graph_of(name, nodes, inputs, out_shape, inits=(), out_type=TensorProto.FLOAT):
    """A graph of `nodes` from float inputs {name: shape} to y."""
    return helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)) for n, s in inputs.items()],
        [helper.make_tensor_value_info("y", out_type, list(out_shape))], list(inits))


def case_of(name, nodes, inputs, out_shape, rng, inits=()):
    """graph_of's graph, and standard normal values for its inputs (drawn in order, after
    the caller's weights)."""
    return (graph_of(name, nodes, inputs, out_shape, inits),
            {n: rng.standard_normal(s).astype(np.float32) for n, s in inputs.items()})


def matmul_case(name, a_shape, b_shape, bias=False, relu=False, trans_b=False):
    """(name, model, inputs): A (an input) x B (a weight), the epilogue after."""
    def build(rng):
        b = (rng.standard_normal(b_shape) / np.sqrt(a_shape[-1])).astype(np.float32)
        inits, nodes = [numpy_helper.from_array(b, "b")], []
        if trans_b:  # Gemm with transB: B stored [N, K]
            c = (0.1 * rng.standard_normal(b_shape[0])).astype(np.float32)
            inits.append(numpy_helper.from_array(c, "c"))
            nodes.append(helper.make_node("Gemm", ["a", "b", "c"], ["mm"], transB=1, name="gemm"))
            out = [a_shape[0], b_shape[0]]
        else:
            nodes.append(helper.make_node("MatMul", ["a", "b"], ["mm"], name="matmul"))
            out = list(a_shape[:-1]) + [b_shape[-1]]
        last = "mm"
        if bias:
            c = (0.1 * rng.standard_normal(out[-1])).astype(np.float32)
            inits.append(numpy_helper.from_array(c, "bias"))
            nodes.append(helper.make_node("Add", [last, "bias"], ["biased"]))
            last = "biased"
        if relu:
            nodes.append(helper.make_node("Relu", [last], ["relu"]))
            last = "relu"
        nodes.append(helper.make_node("Identity", [last], ["y"]))
        return case_of(name, nodes, {"a": a_shape}, out, rng, inits)
    return name, build


def sliced_matmul_case(name, a_shape, columns, b_shape):
    """A Slice of the input's first `columns` columns x B (a weight): the matmul reads the
    input in place, its rows a_shape[1] elements apart."""
    def build(rng):
        b = (rng.standard_normal(b_shape) / np.sqrt(columns)).astype(np.float32)
        inits = [numpy_helper.from_array(b, "b")] + [
            numpy_helper.from_array(np.array([v], np.int64), n)
            for n, v in (("starts", 0), ("ends", columns), ("axes", 1))]
        nodes = [helper.make_node("Slice", ["a", "starts", "ends", "axes"], ["sliced"]),
                 helper.make_node("MatMul", ["sliced", "b"], ["y"], name="matmul")]
        return case_of(name, nodes, {"a": a_shape}, [a_shape[0], b_shape[1]], rng, inits)
    return name, build


def batch_matmul_case(name, a_shape, b_shape):
    """Both operands inputs (attention's Q K^T)."""
    def build(rng):
        node = helper.make_node("MatMul", ["a", "b"], ["y"], name="batch_matmul")
        out = list(a_shape[:-1]) + [b_shape[-1]]
        return case_of(name, [node], {"a": a_shape, "b": b_shape}, out, rng)
    return name, build


def reshaped_matmul_case(name, a_shape, b_shape, out_shape):
    """A (an input) x B (a weight), reshaped, + bias (over the last dim), Relu: the bias add
    reads the product through a reshape of its buffer (expand_shape: the 2-D product of a
    3-D A; collapse_shape: a batch matmul's 3-D product as 2-D)."""
    def build(rng):
        b = (rng.standard_normal(b_shape) / np.sqrt(a_shape[-1])).astype(np.float32)
        c = (0.1 * rng.standard_normal(out_shape[-1])).astype(np.float32)
        inits = [numpy_helper.from_array(b, "b"), numpy_helper.from_array(c, "bias"),
                 numpy_helper.from_array(np.array(out_shape, np.int64), "shape")]
        nodes = [helper.make_node("MatMul", ["a", "b"], ["mm"], name="matmul"),
                 helper.make_node("Reshape", ["mm", "shape"], ["reshaped"]),
                 helper.make_node("Add", ["reshaped", "bias"], ["biased"]),
                 helper.make_node("Relu", ["biased"], ["y"])]
        return case_of(name, nodes, {"a": a_shape}, out_shape, rng, inits)
    return name, build


def transposed_b_case(name, q_shape, k_shape):
    """Attention's scores: Q x K^T, both inputs, K transposed by a Transpose node (the batch
    matmul reads K itself through the reshape to 3-D and the permutation)."""
    def build(rng):
        nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
                 helper.make_node("MatMul", ["q", "kt"], ["y"], name="scores")]
        out = list(q_shape[:-1]) + [k_shape[-2]]
        return case_of(name, nodes, {"q": q_shape, "k": k_shape}, out, rng)
    return name, build


def heads_case(name, a_shape, b_shape, heads):
    """Attention's projection to heads: A x W + bias, reshaped to [batch, seq, heads, d] and
    transposed to [batch, heads, seq, d]: the bias add and the transpose run as a chain of
    epilogues in the matmul's kernel."""
    def build(rng):
        n = b_shape[-1]
        w = (rng.standard_normal(b_shape) / np.sqrt(a_shape[-1])).astype(np.float32)
        c = (0.1 * rng.standard_normal(n)).astype(np.float32)
        shape = list(a_shape[:-1]) + [heads, n // heads]
        inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(c, "bias"),
                 numpy_helper.from_array(np.array(shape, np.int64), "shape")]
        nodes = [helper.make_node("MatMul", ["a", "w"], ["mm"], name="projection"),
                 helper.make_node("Add", ["mm", "bias"], ["biased"]),
                 helper.make_node("Reshape", ["biased", "shape"], ["split"]),
                 helper.make_node("Transpose", ["split"], ["y"], perm=[0, 2, 1, 3])]
        out = [shape[0], heads, shape[1], n // heads]
        return case_of(name, nodes, {"a": a_shape}, out, rng, inits)
    return name, build


def conv_case(name, x_shape, filters, kernel, strides=(1, 1), pads=(0, 0, 0, 0),
              dilations=(1, 1)):
    """Conv + bias + Relu: the implicit GEMM, output pixels x filters (NCHW: filters x pixels)."""
    def build(rng):
        c = x_shape[1]
        w = (rng.standard_normal((filters, c) + kernel) / np.sqrt(c * kernel[0] * kernel[1]))
        bias = 0.1 * rng.standard_normal(filters)
        inits = [numpy_helper.from_array(w.astype(np.float32), "w"),
                 numpy_helper.from_array(bias.astype(np.float32), "bias")]
        conv = helper.make_node("Conv", ["x", "w", "bias"], ["conv"], kernel_shape=list(kernel),
                                strides=list(strides), pads=list(pads),
                                dilations=list(dilations), name="conv")
        relu = helper.make_node("Relu", ["conv"], ["y"])
        size = [(x_shape[2 + i] + pads[i] + pads[i + 2] - dilations[i] * (kernel[i] - 1) - 1)
                // strides[i] + 1 for i in range(2)]
        return case_of(name, [conv, relu], {"x": x_shape}, [x_shape[0], filters] + size,
                       rng, inits)
    return name, build


# (case, tiled kernels, tile): 132 blocks decide the tile (12 x 13 tiles of 128; 16 x 16 of
# 64; below that 32).
CASES = [
    (matmul_case("matmul_tile128", (1500, 40), (40, 1600), bias=True, relu=True), 1, 128),
    (matmul_case("matmul_tile64", (1000, 48), (48, 1000)), 1, 64),
    # 64 filters x 8 x 48 x 48 pixels: 144 tiles of 128, but half their rows would be
    # past the 64 filters: 64 x 64 tiles
    (conv_case("conv1x1_64_filters", (8, 16, 48, 48), 64, (1, 1)), 1, 64),
    # 200 filters x 2 x 70 x 70 pixels: 2 x 77 tiles of 128, the columns three loop
    # dimensions (the tensor-core kernel's lanes store their sums themselves)
    (conv_case("conv1x1_tile128", (2, 24, 70, 70), 200, (1, 1)), 1, 128),
    (matmul_case("gemm_transb_tile32", (100, 72), (70, 72), trans_b=True), 1, 32),
    # A a view of 48 of 50 columns: its staged chunks 2 elements, not 4 or 8 (the emulator
    # asserts every vector load's alignment)
    (sliced_matmul_case("sliced_matmul", (100, 50), 48, (48, 96)), 1, 32),
    (batch_matmul_case("batch_matmul", (12, 64, 40), (12, 40, 72)), 1, 32),
    (conv_case("conv3x3_stride2", (1, 24, 33, 35), 40, (3, 3), strides=(2, 2),
               pads=(1, 1, 1, 1)), 1, 32),
    (conv_case("conv3x3_dilated_batch2", (2, 20, 19, 21), 36, (3, 3), dilations=(2, 2)), 1, 32),
    (conv_case("conv1x1", (1, 64, 28, 28), 96, (1, 1)), 1, 32),
    # the model's own layout (--gpu-layout=nchw): filters x pixels, B the pixels
    (conv_case("conv1x1_64_filters_nchw", (8, 16, 48, 48), 64, (1, 1)), 1, 64),
    (conv_case("conv3x3_stride2_nchw", (1, 24, 33, 35), 40, (3, 3), strides=(2, 2),
               pads=(1, 1, 1, 1)), 1, 32),
    (reshaped_matmul_case("matmul_3d_reshaped_bias_relu", (6, 40, 48), (48, 72),
                          (6, 40, 8, 9)), 1, 32),
    (reshaped_matmul_case("batch_matmul_collapsed_bias_relu", (4, 35, 64), (4, 64, 40),
                          (140, 40)), 1, 32),
    (transposed_b_case("scores_transposed_k", (2, 3, 33, 40), (2, 3, 48, 40)), 1, 32),
    (heads_case("projection_to_heads", (2, 33, 40), (40, 48), 3), 1, 32),
    # too few tiles of 32 for 132 blocks, a long reduction: split in 8 slices of 256 and 288
    # (infc-split-reduction; the bias and Relu run in the kernel that sums the slices)
    (matmul_case("matmul_split_k", (64, 2048), (2048, 96), bias=True, relu=True), 1, 32),
    (conv_case("conv3x3_split_k", (1, 256, 7, 7), 64, (3, 3), pads=(1, 1, 1, 1)), 1, 32),
    # too small to tile (16 columns): the loop kernels
    (matmul_case("matmul_narrow", (64, 64), (64, 16)), 0, None),
]


# Cases whose other ops all run inside the contraction's kernel at fp32 (epilogues through
# reshapes and transposes, a transpose as a prologue): the PTX has one kernel.
ONE_KERNEL = ("matmul_3d_reshaped_bias_relu", "batch_matmul_collapsed_bias_relu",
              "scores_transposed_k", "projection_to_heads")
# Split cases: two kernels at fp32 (the slices' contraction, its padding a prologue, and
# the sum with the epilogue), and over NHWC a third: the output's transpose back to NCHW (a
# transpose is the epilogue of a tiled kernel, not of the elementwise sum).
SPLIT_KERNELS = {"matmul_split_k": 2, "conv3x3_split_k": 3}


def ptxas_kernels(ptx_path, arch):
    """{kernel: (shared bytes, spill store bytes, barriers)} from ptxas -v."""
    r = harness.run_tool([PTXAS, f"-arch={arch}", "-O3", "-v", ptx_path, "-o", os.devnull], 300)
    if r.returncode:
        raise RuntimeError(r.describe())
    kernels, name = {}, None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            name = m.group(1)
            kernels[name] = [0, 0, 0]
        m = re.search(r"(\d+) bytes spill stores", line)
        if m and name:
            kernels[name][1] = int(m.group(1))
        m = re.search(r"used (\d+) barriers", line)
        if m and name:
            kernels[name][2] = int(m.group(1))
        m = re.search(r"(\d+) bytes smem", line)
        if m and name:
            kernels[name][0] = int(m.group(1))
    return kernels


def local_memory_kernels(ptx_path):
    """The kernels whose PTX declares local memory (a private buffer LLVM did not keep in
    registers)."""
    with open(ptx_path) as f:
        text = f.read()
    kernels = re.split(r"\.entry ", text)[1:]
    return {k.split("(")[0].strip() for k in kernels if "__local_depot" in k or ".local" in k}


# ptxas -O3 may give a register up for occupancy and spill it (a bf16 dilated conv with
# its cast fused into the loads: 48 registers and 8 bytes, 80 and none with .minnctapersm 1):
# that much is its choice, more is register pressure.
MAX_SPILL_BYTES = 8


def save_case(work, name, build, opset):
    """Builds case `name` (`build` seeded by the name) and saves its graph as a checked model
    WORK/NAME.onnx: (its inputs, its path, onnxruntime's y)."""
    graph, inputs = build(np.random.default_rng(sum(map(ord, name))))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    path = os.path.join(work, name + ".onnx")
    onnx.save(model, path)
    return inputs, path, harness.ort_reference(path, inputs)["y"]


def compile_emulator_and_ptx(infc, path, stem, extra=()):
    """STEM.so for the emulator and STEM.ptx (--target cuda --emit=ptx): (so, ptx, the failed
    run or None)."""
    so, ptx = stem + ".so", stem + ".ptx"
    for argv in ([infc, "compile", path, "-o", so, "--target=cuda-emulator", *extra],
                 [infc, "compile", path, "-o", ptx, "--target=cuda", "--emit=ptx", *extra]):
        r = harness.run_tool(argv, 300)
        if r.returncode:
            return so, ptx, r
    return so, ptx, None


def layout_flags(name):
    """A _nchw case's convolutions over NCHW (--gpu-layout=nchw); the others over NHWC."""
    return ["--gpu-layout=nchw"] if name.endswith("_nchw") else []


def transposed_b(name):
    """Whether the case's B is read with its tile dimension fastest: an NCHW conv's input (its
    pixels; over NHWC the rows are the pixels, A, and B the filters [F, KH, KW, C], both
    channels-innermost), a batch matmul's second input, K^T (a matmul's weights are stored
    reduction-innermost, infc-depth-major-weights)."""
    return (name.startswith("conv") and name.endswith("_nchw")) or name in (
        "batch_matmul", "scores_transposed_k")


def shared_bytes(tile, precision, name):
    """The tiled kernel's static shared memory: the staged tiles of A and B, two stages of
    them where both fit 48 KB beside the staged sums (one barrier a reduction step), else one."""
    t = tensor_core_tile(tile)
    # tensor cores: the sums staged as C t x (t + 4) f32, but in 128 x 128 tiles (66 KB)
    sums = t * (t + 4) * 4 if t < 128 else 0
    if precision == "tf32":  # A t x (32 + 4), B 32 x (t + 8), f32
        staged = (t * 36 + 32 * (t + 8)) * 4
    elif precision in ("fp16", "bf16"):
        # A t x (32 + 8) halves; B the same, or 32 x (t + 8) as it is read (ldmatrix .trans)
        b = 32 * (t + 8) if transposed_b(name) else t * 40
        staged = (t * 40 + b) * 2
    else:
        depth = 4 * 256 // tile  # TiledContraction.cpp: four staged elements per thread
        run = min(4, tile // 16)  # a thread's runs of neighbouring rows and columns
        pitch = tile + -(-(32 // depth) // run) * run  # 32 / depth, rounded up to a run
        staged, sums = 2 * depth * pitch * ELEMENT_BYTES[precision], 0
    stages = 2 if 2 * staged + sums <= 48 * 1024 else 1
    return stages * staged + sums


def main():
    args = harness.kernel_test_args()
    infc = harness.import_infc(args.python_dir)
    tally = harness.Tally()
    for (name, build), tiled, tile in CASES:
        inputs, path, ref = save_case(args.work, name, build, 17)
        for precision, rel_l2 in PRECISIONS.items():
            what = f"{name} {precision}"
            so, ptx, failed = compile_emulator_and_ptx(
                args.infc, path, os.path.join(args.work, f"{name}_{precision}"),
                [f"--precision={precision}", *layout_flags(name)])
            if failed:
                tally.report(False, f"{what}: compile failed\n{failed.describe()}")
                continue
            got = infc.load(so)(**inputs)["y"]
            if rel_l2 is None:
                ok, summary = harness.compare(got, ref, rtol=1e-4, atol=1e-4)
            else:
                ok, summary = harness.compare_rel_l2(got, ref, rel_l2)
            problems = []
            with open(ptx) as f:
                text = f.read()
            # tf32, fp16, bf16: the tensor-core kernel's (more if LLVM unrolls the steps); none
            # in the others
            for kind, (_, pattern) in TENSOR_CORE_OPS.items():
                mma = len(re.findall(pattern, text))
                want = mma_per_kernel(kind, tile) * tiled if kind == precision else 0
                if mma < want or (want == 0 and mma):
                    problems.append(f"{mma} {kind} tensor-core instructions, expected "
                                    f"{'at least ' + str(want) if want else 0}")
            # a B read with its tile dimension fastest through ldmatrix .trans, nothing else
            transposed = len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.trans", text))
            if (transposed > 0) != (transposed_b(name) and precision in LDMATRIX_PER_KERNEL):
                problems.append(f"{transposed} ldmatrix .trans")
            ldmatrix = len(re.findall(LDMATRIX, text))
            want = ldmatrix_per_kernel(precision, tile) * tiled
            if ldmatrix < want or (want == 0 and ldmatrix):
                problems.append(f"{ldmatrix} ldmatrix, expected {'at least ' + str(want) if want else 0}")
            local = local_memory_kernels(ptx)
            for arch in ("sm_80", "sm_90"):
                kernels = ptxas_kernels(ptx, arch)
                with_barrier = {k: v for k, v in kernels.items() if v[2]}
                if len(with_barrier) != tiled:
                    problems.append(f"{arch}: {len(with_barrier)} tiled kernels, expected {tiled}")
                if precision == "fp32" and name in ONE_KERNEL and len(kernels) != 1:
                    problems.append(f"{arch}: {len(kernels)} kernels, expected 1 (fused)")
                split = SPLIT_KERNELS.get(name)
                if precision == "fp32" and split and len(kernels) != split:
                    problems.append(f"{arch}: {len(kernels)} kernels, expected {split} (split)")
                for k, (smem, spilled, _) in with_barrier.items():
                    want_smem = shared_bytes(tile, precision, name)
                    if smem != want_smem:
                        problems.append(f"{arch} {k}: {smem} bytes of shared memory, expected "
                                        f"{want_smem} (tile {tile})")
                    if k in local and arch == "sm_80":
                        problems.append(f"{k}: local memory in the PTX")
                    if spilled > MAX_SPILL_BYTES:
                        problems.append(f"{arch} {k}: ptxas spilled {spilled} bytes")
            kind = "tensor cores" if precision in TENSOR_CORE_OPS else f"tile {tile}"
            detail = "; ".join(problems) or (f"{tiled} tiled kernel(s), {kind}" if tiled
                                              else "no tiled kernel")
            tally.report(ok and not problems, f"{what}: {summary}; {detail}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

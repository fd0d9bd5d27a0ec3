#!/usr/bin/env python3
"""--precision bf16 and auto on the CPU against onnxruntime's fp32.

    check_bf16.py --infc BUILD/bin/infc --work DIR --zoo ZOO [--python-dir python]

infc-bf16-matmul rounds the operands of matmuls and convolutions with constant weights to
bf16 and multiplies them on AMX-BF16 tiles (tdpbf16ps), or on vdpbf16ps without AMX, sums
in f32; everything else stays f32. Checks, for each kernel (AMX: this machine's own CPU
where it has AMX-BF16, else --cpu sapphirerapids; vdpbf16ps: --cpu cooperlake):
  - the zoo's mlp, lenet, resnet18, mobilenetv2 and bert_layer compile with --precision bf16,
    and the code multiplies on that kernel's instruction and not the other's (--emit=asm
    of the mlp);
  - where this machine runs the kernel, each library runs and every float output is within
    a relative L2 error of 2e-2 of onnxruntime's fp32 (bf16 operands: about 3e-3 to 8e-3 on
    these models; a wrong tile layout or a K step out of place gives errors of order 1),
    and the classifiers (resnet18, mobilenetv2) pick onnxruntime's class;
  - Gemms of odd sizes (rows past a tile, K not a multiple of 32, N not of 16, one column)
    against numpy on the operands rounded to bf16 (the products are exact in f32: agreement
    to about 1e-6, so a value in the wrong place of a tile cannot hide);
  - MatMuls of two activations ([batch, M, K] x [batch, K, N], attention's products: B
    rounded and packed at run time) of odd sizes, likewise; under 16 rows against numpy
    in f32 (they stay f32);
  - resnet18 with a symbolic batch (the batch loop: each row's static code in bf16), a
    batch of 3, within the same limit and the same classes;
  - the mlp with a symbolic batch as generic code (--dim batch=1..8), at batch 5 and 7 (two
    overlapping blocks of 4 rows), likewise;
  - --precision auto prints its choice: bf16 for sapphirerapids and znver4 (whose vdpbf16ps
    does twice its FMAs' work; run on a Zen 4 host, within the limit above), fp32 for
    cooperlake (AVX512_BF16 without AMX: vdpbf16ps is slower than fp32 there) and znver3,
    whose library matches onnxruntime as fp32 does (rtol 1e-4, atol 1e-5).
Prints one line per check and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
import harness  # noqa: E402

MODELS = ["mlp", "lenet", "resnet18", "mobilenetv2", "bert_layer"]
CLASSIFIERS = {"resnet18", "mobilenetv2"}
REL_L2_LIMIT = 2e-2


# Single Gemms (bias added) of odd sizes: rows below, at and past a 16-row tile, K not a
# multiple of the 32-value step (and the 64 below which bf16 is not used), N not a multiple
# of a 16-column panel, and a single column.
GEMMS = [(1, 64, 16), (15, 65, 17), (17, 97, 40), (33, 300, 1), (64, 64, 64), (40, 1000, 33)]


def bf16_round(x):
    """x rounded to the nearest bf16, ties to even, as float32 (the reference's operands)."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return bits.astype(np.uint32).view(np.float32)


def gemm_model(path, m, k, n, rng):
    """A Gemm of [m, k] by constant [k, n] weights plus a bias; returns the weights and bias."""
    w = rng.standard_normal((k, n)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    harness.write_gemm_model(path, m, w, bias)
    return w, bias


# MatMuls of two activations (attention's QK^T and PV: a batched matmul, B rounded and
# packed at run time): [batch, M, K] x [batch, K, N]. Rows at and past a 16-row tile, K not
# a multiple of 32, N not of 16; under 16 rows (a decode step's query) it stays f32.
BATCHED = [(3, 20, 70, 24), (2, 16, 64, 16), (12, 33, 100, 40), (2, 8, 64, 16)]


def batched_matmul_model(path, batch, m, k, n):
    """MatMul of the graph inputs x [batch, m, k] and y [batch, k, n]."""
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "y"], ["z"])], "batched",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, m, k]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, k, n])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [batch, m, n])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--python-dir", default=harness.DEFAULT_PYTHON_DIR)
    args = ap.parse_args()
    work, _ = harness.fresh_work(args)
    infc = harness.import_infc(args.python_dir)
    flags = harness._cpu_flags()
    # (kernel, --cpu, whether this machine runs it): AMX tiles for this machine's own CPU
    # where it has AMX-BF16 (else sapphirerapids), vdpbf16ps for cooperlake (AVX512_BF16,
    # no AMX), which a Zen 4 or a Sapphire Rapids runs too.
    has_amx = {"amx_bf16", "amx_tile"} <= flags
    kernels = [("amx", None if has_amx else "sapphirerapids", has_amx),
               ("vdpbf16ps", "cooperlake", "avx512_bf16" in flags)]
    runs_here, cpu = has_amx, kernels[0][1]
    for kernel, target, runs in kernels:
        print(f"{kernel}: {'compiled and run' if runs else 'compiled only'} "
              f"(--cpu {target or 'this machine'})")
    passed = failed = 0

    def report(ok, line):
        nonlocal passed, failed
        print(("PASS " if ok else "FAIL ") + line)
        passed += ok
        failed += not ok

    # The kernels themselves: tdpbf16ps, or vdpbf16ps and no tile, in the mlp's code.
    model = os.path.join(args.zoo, "mlp.onnx")
    for kernel, target, _ in kernels:
        r = harness.compile_for_cpu(args.infc, model, work(f"mlp.{kernel}.s"),
                                    target or "sapphirerapids",
                                    extra=["--precision", "bf16", "--emit=asm"])
        if r.returncode != 0:
            report(False, f"mlp {kernel} --emit=asm: compile failed\n{r.describe()}")
            continue
        with open(work(f"mlp.{kernel}.s")) as f:
            asm = f.read()
        other = "vdpbf16ps" if kernel == "amx" else "tdpbf16ps"
        want = "tdpbf16ps" if kernel == "amx" else "vdpbf16ps"
        report(want in asm and other not in asm,
               f"mlp {kernel}: {asm.count(want)} {want}, {asm.count(other)} {other} in the code")

    for (name, (kernel, target, runs)) in [(n, k) for k in kernels for n in MODELS]:
        model = os.path.join(args.zoo, name + ".onnx")
        so = work(f"{name}.{kernel}.so")
        r = harness.compile_for_cpu(args.infc, model, so, target, extra=["--precision", "bf16"])
        label = f"{name} ({kernel})"
        if r.returncode != 0:
            report(False, f"{label}: compile failed\n{r.describe()}")
            continue
        if not runs:
            report(True, f"{label}: compiled for {target} (not run here)")
            continue
        inputs = harness.npz_inputs(os.path.join(args.zoo, name + ".inputs.npz"))
        ref = harness.ort_reference(model, inputs)
        got = infc.load(so)(**inputs)
        for out, want in ref.items():
            if not np.issubdtype(want.dtype, np.floating):
                continue
            ok, summary = harness.compare_rel_l2(got[out], want, REL_L2_LIMIT)
            if ok and name in CLASSIFIERS:
                same = np.array_equal(np.argmax(got[out], -1), np.argmax(want, -1))
                ok, summary = same, summary + (", same class" if same else ", another class")
            report(ok, f"{label}.{out}: {summary}")

    def against_numpy(path, label, feeds, out, want, k, operands):
        """The model at `path` with --precision bf16 for each kernel, its output `out` on
        `feeds` against numpy's `want` (a reduction of `k` products of `operands`)."""
        stem = os.path.splitext(path)[0]
        for kernel, target, runs in kernels:
            so = f"{stem}.{kernel}.so"
            r = harness.compile_for_cpu(args.infc, path, so, target,
                                        extra=["--precision", "bf16"])
            if r.returncode != 0:
                report(False, f"{label} ({kernel}): compile failed\n{r.describe()}")
            elif runs:
                ok, summary = harness.compare(infc.load(so)(**feeds)[out], want, rtol=1e-5,
                                              atol=1e-5 * np.sqrt(k))
                report(ok, f"{label} ({kernel}) against numpy on {operands} operands: "
                           f"{summary}")

    # Odd-sized Gemms against numpy on the operands rounded to bf16: the products of bf16
    # values are exact in f32 and only the order of the f32 sums differs, so the result
    # must agree to about 1e-6 relative (a value in the wrong place of a tile would not).
    rng = np.random.default_rng(3)
    for m, k, n in GEMMS:
        path = work(f"gemm_{m}_{k}_{n}.onnx")
        w, bias = gemm_model(path, m, k, n, rng)
        x = rng.standard_normal((m, k)).astype(np.float32)
        want = (bf16_round(x).astype(np.float64) @ bf16_round(w).astype(np.float64)
                + bias).astype(np.float32)
        against_numpy(path, f"gemm {m}x{k}x{n}", {"x": x}, "y", want, k, "bf16")

    # Batched matmuls of two activations, likewise (f32 operands under 16 rows).
    for batch, m, k, n in BATCHED:
        path = work(f"batched_{batch}_{m}_{k}_{n}.onnx")
        batched_matmul_model(path, batch, m, k, n)
        x = rng.standard_normal((batch, m, k)).astype(np.float32)
        y = rng.standard_normal((batch, k, n)).astype(np.float32)
        rounded = m >= 16
        operands = (bf16_round(x), bf16_round(y)) if rounded else (x, y)
        want = (operands[0].astype(np.float64) @ operands[1].astype(np.float64)).astype(
            np.float32)
        against_numpy(path, f"batched matmul {batch}x{m}x{k}x{n}", {"x": x, "y": y}, "z",
                      want, k, "bf16" if rounded else "f32")

    # With a symbolic batch (no flags: the batch loop), each row's static code in bf16.
    sys.path.insert(0, os.path.join(harness.REPO_ROOT, "test", "models"))
    from make_zoo import with_symbolic_dims
    dynamic = work("resnet18_batch.onnx")
    with_symbolic_dims(os.path.join(args.zoo, "resnet18.onnx"), dynamic, batch=True)
    so = work("resnet18_batch.bf16.so")
    r = harness.compile_for_cpu(args.infc, dynamic, so, cpu, extra=["--precision", "bf16"])
    if r.returncode != 0:
        report(False, f"resnet18 with a symbolic batch: compile failed\n{r.describe()}")
    elif runs_here:
        x = np.random.default_rng(5).standard_normal((3, 3, 224, 224)).astype(np.float32)
        want = harness.ort_reference(dynamic, {"input": x})["logits"]
        got = infc.load(so)(input=x)["logits"]
        ok, summary = harness.compare_rel_l2(got, want, REL_L2_LIMIT)
        same = np.array_equal(np.argmax(got, -1), np.argmax(want, -1))
        report(ok and same, f"resnet18, batch of 3 through the batch loop: {summary}, "
                            f"{'same classes' if same else 'other classes'}")
    else:
        report(True, "resnet18 with a symbolic batch: compiled for sapphirerapids (not run here)")

    # Generic code over a symbolic batch (the mlp with --dim): its row blocks take bf16 too.
    dynamic = work("mlp_batch.onnx")
    with_symbolic_dims(os.path.join(args.zoo, "mlp.onnx"), dynamic, batch=True)
    x = np.random.default_rng(6).standard_normal((5, 1, 16, 16)).astype(np.float32)
    for kernel, target, runs in kernels:
        so = work(f"mlp_batch.{kernel}.so")
        r = harness.compile_for_cpu(args.infc, dynamic, so, target,
                                    extra=["--precision", "bf16", "--dim", "batch=1..8"])
        if r.returncode != 0:
            report(False, f"mlp generic code ({kernel}): compile failed\n{r.describe()}")
            continue
        if not runs:
            report(True, f"mlp generic code ({kernel}): compiled for {target} (not run here)")
            continue
        # Batch 7: two blocks of 4 rows, the second over rows 3..6 (row 3 computed twice).
        for batch in (5, 7):
            xb = np.resize(x, (batch,) + x.shape[1:])
            want = harness.ort_reference(dynamic, {"input": xb})
            got = infc.load(so)(input=xb)
            results = [harness.compare_rel_l2(got[k], v, REL_L2_LIMIT) for k, v in want.items()]
            report(all(ok for ok, _ in results), f"mlp generic code ({kernel}), batch {batch}: "
                                                 + "; ".join(s for _, s in results))

    # --precision auto: the choice printed. Without AMX-BF16 and a Zen 4's vdpbf16ps, the
    # fp32 code (znver3's runs here, exact against ORT); Zen 4's bf16 code runs where this
    # machine has AVX512_BF16 and AMD's SSE4a (a Zen 4 or later).
    model = os.path.join(args.zoo, "mlp.onnx")
    inputs = harness.npz_inputs(os.path.join(args.zoo, "mlp.inputs.npz"))
    ref = harness.ort_reference(model, inputs)
    runs_zen4 = {"avx512_bf16", "sse4a"} <= flags
    for target, want in [("sapphirerapids", "bf16"), ("cooperlake", "fp32"), ("znver3", "fp32"),
                         ("znver4", "bf16")]:
        so = work(f"mlp.auto.{target}.so")
        r = harness.compile_for_cpu(args.infc, model, so, target, extra=["--precision", "auto"])
        said = f"--precision auto: {want}" in r.stderr
        if r.returncode != 0 or not said:
            report(False, f"auto for {target}: expected '--precision auto: {want}'\n"
                          f"{r.describe()}")
            continue
        if target == "znver3":
            got = infc.load(so)(**inputs)
            results = [harness.compare(got[k], v, rtol=1e-4, atol=1e-5) for k, v in ref.items()]
        elif target == "znver4" and runs_zen4:
            got = infc.load(so)(**inputs)
            results = [harness.compare_rel_l2(got[k], v, REL_L2_LIMIT) for k, v in ref.items()]
        else:
            report(True, f"auto for {target}: chose {want}")
            continue
        report(all(ok for ok, _ in results),
               f"auto for {target}: {want}, " + "; ".join(s for _, s in results))

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Exactness of the integer matmul kernels against numpy (and onnxruntime, which takes
per-tensor zero points only).

    check_integer_matmul.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

MatMulInteger with constant int8/uint8 weights takes AMX tiles on a CPU with AMX-INT8,
infc-vnni-matmul's vpdpbusd kernel on one with AVX-512 VNNI or AVX-VNNI, its vpmaddwd
kernel on AVX-512BW or AVX2 (each case also runs compiled for each of these CPUs that this
machine can run: harness.cpu_variants) and the i32 register-tiled kernel for widths no
panel divides; all must give exactly
(A - a_zero) @ (B - b_zero) in int32. The shapes cover whole and partial 8-row tiles,
K not a multiple of 4, several 16-column panels, a width no 16 divides (the fallback),
signed and unsigned A, scalar and per-row zero points, and extreme values (-128, 255).
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True
import harness  # noqa: E402

# Each case for this machine (AMX tiles where it has AMX-INT8) and for the other kernels'
# CPUs where this machine can run them (harness.cpu_variants).
CPUS = harness.cpu_variants()

CASES = [  # name, M, K, N, A dtype, B dtype, a_zero (None / scalar / "row"), b_zero
    ("s8_tiles", 64, 128, 64, np.int8, np.int8, 3, 0),
    ("s8_tails", 37, 61, 48, np.int8, np.int8, -5, 0),
    ("u8_row_zero", 19, 30, 32, np.uint8, np.int8, "row", 0),
    ("u8_u8_weights", 8, 64, 16, np.uint8, np.uint8, 128, 128),
    ("extremes", 9, 7, 16, np.int8, np.int8, None, 0),
    # 255 x -128 twice overflows an i16 pair sum (vpmaddubsw would saturate); 48 columns:
    # six 8-lane panels on ymm, three 16-lane ones (an odd last panel) on zmm and AMX.
    ("u8_extremes", 9, 33, 48, np.uint8, np.int8, None, 0),
    # 24 columns: three 8-lane panels on ymm, no whole 16-lane one (i32 there, AMX pads).
    ("ymm_panels", 13, 40, 24, np.uint8, np.int8, 7, 0),
    ("no_panel_fit", 12, 20, 10, np.int8, np.int8, 1, 0),
]


def build(name, m, k, n, adt, bdt, azp, bzp, rng):
    if name.endswith("extremes"):
        b = np.where(rng.random((k, n)) < 0.5, -128, 127).astype(bdt)
    else:
        b = rng.integers(np.iinfo(bdt).min, np.iinfo(bdt).max + 1, (k, n)).astype(bdt)
    inputs = ["a", "b"]
    inits = [numpy_helper.from_array(b, "b")]
    elem = TensorProto.INT8 if adt == np.int8 else TensorProto.UINT8
    za = None
    if azp is not None:
        za = (rng.integers(0, 256, m) if azp == "row" else np.array(azp)).astype(adt)
        inits.append(numpy_helper.from_array(za, "a_zero"))
        inputs.append("a_zero")
    if bzp:
        if azp is None:
            inputs.append("")
        inits.append(numpy_helper.from_array(np.array(bzp, bdt), "b_zero"))
        inputs.append("b_zero")
    node = helper.make_node("MatMulInteger", inputs, ["y"])
    g = helper.make_graph([node], name, [helper.make_tensor_value_info("a", elem, [m, k])],
                          [helper.make_tensor_value_info("y", TensorProto.INT32, [m, n])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    if name.endswith("extremes"):
        lo, hi = np.iinfo(adt).min, np.iinfo(adt).max
        a = np.where(rng.random((m, k)) < 0.5, lo, hi).astype(adt)
    else:
        a = rng.integers(np.iinfo(adt).min, np.iinfo(adt).max + 1, (m, k)).astype(adt)
    zr = 0 if za is None else (za.astype(np.int32)[:, None] if azp == "row" else int(za))
    ref = (a.astype(np.int32) - zr) @ (b.astype(np.int32) - int(bzp))
    return model, a, ref


def main():
    args = harness.kernel_test_args()
    infc = harness.import_infc(args.python_dir)
    rng = np.random.default_rng(7)
    failed = 0
    for case, cpu in [(c, cpu) for c in CASES for cpu in CPUS]:
        name = case[0] + ("" if cpu is None else "_" + cpu)
        model, a, ref = build(*case, rng)
        path = os.path.join(args.work, name + ".onnx")
        onnx.save(model, path)
        so = os.path.join(args.work, name + ".so")
        r = harness.compile_for_cpu(args.infc, path, so, cpu)
        if r.returncode != 0:
            print(f"FAIL {name}: compile failed\n{r.describe()}")
            failed += 1
            continue
        got = infc.load(so)(a=a)["y"]
        ok = got.dtype == np.int32 and np.array_equal(got, ref)
        if case[6] != "row":  # onnxruntime takes per-tensor zero points only
            ok = ok and np.array_equal(harness.ort_reference(path, {"a": a})["y"], ref)
        bad = int((got != ref).sum()) if got.shape == ref.shape else -1
        print(f"{'PASS' if ok else 'FAIL'} {name}: {a.shape} x {ref.shape[1]} columns, "
              f"{bad} elements differ from numpy")
        failed += not ok
    print(f"{len(CASES) * len(CPUS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

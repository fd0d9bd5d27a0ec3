#!/usr/bin/env python3
"""The calibration flow: infc compile --quantize int8 --calibration DIR on small models.

    check_quantize.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

The float CNN and MLP of check_qdq.py are quantized by infc itself from 16 calibration
samples (DIR/<sample>/<input>.npy), with each calibration method, then run on 8 held-out
inputs. Checks:
  - `--report` lists every Conv, MatMul and Gemm as int8 (the grouped conv as float), or as
    float where --keep-float
    names its op type (the CNN's Gemm) or node (the MLP's second MatMul, unnamed: MatMul_3);
  - the int8 outputs stay close to the float model's (onnxruntime): relative RMS error
    below 6%, and the CNN's 10 logits pick the same class on at least 7 of 8 inputs;
  - the int8 model differs from the float one (it really is quantized);
  - the CNN with a symbolic batch and no flag for it: the batch loop, calibrated row by row
    on samples of 4 rows, equal at batch 3 to the static int8 library run on each row;
  - the MLP with a symbolic dim 1 and --dim seq=1..16: generic code, calibrated on the same
    samples, equal at seq 10 to the static int8 library on each half; calibrated on samples
    of several sizes, within the float model's tolerance;
  - wrong use fails cleanly: --quantize without --calibration, a sample that lacks an
    input, an unknown method; no output file is left behind.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import os
import re
import shutil
import sys

import numpy as np
import onnx
from onnx import helper

sys.dont_write_bytecode = True
import check_qdq  # noqa: E402
import harness  # noqa: E402


def write_samples(path, name, shape, count, rng):
    shutil.rmtree(path, ignore_errors=True)
    for i in range(count):
        os.makedirs(os.path.join(path, f"{i:02d}"))
        np.save(os.path.join(path, f"{i:02d}", name + ".npy"),
                rng.standard_normal(shape).astype(np.float32))


def with_named_dim(src, dst, axis, name):
    """The model at `src` written to `dst` with dim `axis` of its (one) input and output
    symbolic, named `name`."""
    model = onnx.load(src)
    for v in (model.graph.input[0], model.graph.output[0]):
        dim = v.type.tensor_type.shape.dim[axis]
        dim.Clear()
        dim.dim_param = name
    onnx.save(model, dst)


def main():
    args = harness.kernel_test_args()
    infc = harness.import_infc(args.python_dir)
    results = []

    def check(name, ok, detail):
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
        results.append(ok)

    for make in (check_qdq.cnn, check_qdq.mlp):
        rng = np.random.default_rng(5)
        graph, shapes, grouped = make(rng)
        (input_name, shape), = shapes.items()
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        f32 = os.path.join(args.work, graph.name + ".onnx")
        onnx.save(model, f32)
        calib = os.path.join(args.work, graph.name + "_calib")
        write_samples(calib, input_name, shape, 16, rng)
        held_out = [rng.standard_normal(shape).astype(np.float32) for _ in range(8)]
        refs = [harness.ort_reference(f32, {input_name: x})["y"] for x in held_out]
        products = sum(n.op_type in ("Conv", "MatMul", "Gemm") for n in graph.node)

        # The CNN keeps an op type in float, the MLP one node (unnamed nodes are located as
        # <OpType>_<index>).
        keep_one = "Gemm" if make is check_qdq.cnn else "MatMul_3"
        for method, keep in (("minmax", None), ("percentile=99.9", None), ("minmax", keep_one)):
            case = f"{graph.name}_{method.split('=')[0]}" + (f"_keep_{keep}" if keep else "")
            so = os.path.join(args.work, case + ".so")
            argv = [args.infc, "compile", f32, "-o", so, "--quantize", "int8", "--calibration",
                    calib, "--calibration-method", method, "--report"]
            if keep:
                argv += ["--keep-float", keep]
            r = harness.run_tool(argv, 300)
            if r.returncode != 0:
                check(case, False, "compile failed\n" + r.describe())
                continue
            kept = 1 if keep else 0
            m = re.search(r"(\d+) of (\d+) convolutions and matmuls run on int8", r.stdout)
            counted = (m and int(m.group(1)) == products - kept - grouped and
                       int(m.group(2)) == products)
            floats = len(re.findall(r"^\S+\s+\S+\s+float\s+kept in float \(--keep-float\)",
                                    r.stdout, re.M))
            run = infc.load(so)
            outs = [run(**{input_name: x})["y"] for x in held_out]
            err = max(float(np.sqrt(np.mean((o - ref) ** 2) / np.mean(ref ** 2)))
                      for o, ref in zip(outs, refs))
            same = sum(int(np.array_equal(o.argmax(-1), ref.argmax(-1)))
                       for o, ref in zip(outs, refs))
            differs = any(not np.array_equal(o, ref) for o, ref in zip(outs, refs))
            ok = (bool(counted) and floats == kept and err < 0.06 and differs and
                  (same >= 7 or make is not check_qdq.cnn))
            check(case, ok, f"report {m.group(0) if m else 'missing'}, {floats} kept in float; "
                            f"relative RMS error vs float {err:.4f}, same argmax {same}/8")

        # A symbolic batch and no flag for it: the batch loop, calibrated row by row on
        # samples of 4 rows (the same 16 rows as above), so its quantization is the static
        # library's: at batch 3 each row equals that library's output on the row alone.
        if make is check_qdq.cnn:
            f32_dyn = os.path.join(args.work, graph.name + "_dyn.onnx")
            with_named_dim(f32, f32_dyn, 0, "batch")
            calib4 = os.path.join(args.work, graph.name + "_calib4")
            shutil.rmtree(calib4, ignore_errors=True)
            rows = [np.load(os.path.join(calib, f"{i:02d}", input_name + ".npy"))
                    for i in range(16)]
            for i in range(4):
                os.makedirs(os.path.join(calib4, f"{i:02d}"))
                np.save(os.path.join(calib4, f"{i:02d}", input_name + ".npy"),
                        np.concatenate(rows[4 * i:4 * i + 4]))
            so = os.path.join(args.work, graph.name + "_loop.so")
            r = harness.run_tool([args.infc, "compile", f32_dyn, "-o", so, "--quantize", "int8",
                                  "--calibration", calib4, "--calibration-method", "minmax",
                                  "--report"], 300)
            looped = "runs as the batch loop" in r.stderr
            if r.returncode != 0 or not looped:
                check(f"{graph.name}_batch_loop", False, "compile failed\n" + r.describe())
            else:
                loop = infc.load(so, num_threads=2)
                static = infc.load(os.path.join(args.work, f"{graph.name}_minmax.so"))
                x3 = np.concatenate(held_out[:3])
                got = loop(**{input_name: x3})["y"]
                want = np.concatenate([static(**{input_name: x})["y"] for x in held_out[:3]])
                err = float(np.abs(got - want).max())
                m = re.search(r"(\d+) of (\d+) convolutions and matmuls run on int8", r.stdout)
                check(f"{graph.name}_batch_loop",
                      got.shape == (3, 10) and err <= 1e-5 and m is not None and
                      int(m.group(1)) == products - grouped,
                      f"{m.group(0) if m else 'no report'}; batch 3 against the static int8 "
                      f"library row by row: max abs {err:.3g}")

        # The MLP with a symbolic dim 1 kept by --dim: generic code (its matmuls in blocks
        # of rows, on the integer kernels through the blocks' slices), calibrated on the
        # same 16 samples, so its quantization is the static library's: at seq 10 each half
        # of 5 positions equals that library's output on it (the MLP keeps positions apart).
        # Then calibrated on samples of three sizes (each run's outputs of another size),
        # within the float model's tolerance at seq 7.
        if make is check_qdq.mlp:
            f32_seq = os.path.join(args.work, graph.name + "_seq.onnx")
            with_named_dim(f32, f32_seq, 1, "seq")
            so = os.path.join(args.work, graph.name + "_generic.so")
            r = harness.run_tool([args.infc, "compile", f32_seq, "-o", so, "--dim", "seq=1..16",
                                  "--quantize", "int8", "--calibration", calib,
                                  "--calibration-method", "minmax", "--report"], 300)
            m = re.search(r"(\d+) of (\d+) convolutions and matmuls run on int8", r.stdout)
            if r.returncode != 0 or "runs as the batch loop" in r.stderr:
                check(f"{graph.name}_generic", False, "compile failed\n" + r.describe())
            else:
                run = infc.load(so)
                static = infc.load(os.path.join(args.work, f"{graph.name}_minmax.so"))
                x10 = np.concatenate(held_out[:2], axis=1)
                got = run(x=x10)["y"]
                want = np.concatenate([static(x=x)["y"] for x in held_out[:2]], axis=1)
                err = float(np.abs(got - want).max())
                check(f"{graph.name}_generic",
                      got.shape == (2, 10, 48) and err <= 1e-5 and m is not None and
                      int(m.group(1)) == products,
                      f"{m.group(0) if m else 'no report'}; seq 10 against the static int8 "
                      f"library on each half: max abs {err:.3g}")
            mixed = os.path.join(args.work, graph.name + "_calib_mixed")
            shutil.rmtree(mixed, ignore_errors=True)
            for i, seq in enumerate((3, 16, 1, 7)):
                os.makedirs(os.path.join(mixed, f"{i:02d}"))
                np.save(os.path.join(mixed, f"{i:02d}", "x.npy"),
                        rng.standard_normal((2, seq, 24)).astype(np.float32))
            so = os.path.join(args.work, graph.name + "_generic_mixed.so")
            r = harness.run_tool([args.infc, "compile", f32_seq, "-o", so, "--dim", "seq=1..16",
                                  "--quantize", "int8", "--calibration", mixed], 300)
            if r.returncode != 0:
                check(f"{graph.name}_generic_mixed", False, "compile failed\n" + r.describe())
            else:
                x7 = rng.standard_normal((2, 7, 24)).astype(np.float32)
                ref = harness.ort_reference(f32_seq, {"x": x7})["y"]
                got = infc.load(so)(x=x7)["y"]
                err = float(np.sqrt(np.mean((got - ref) ** 2) / np.mean(ref ** 2)))
                check(f"{graph.name}_generic_mixed", got.shape == ref.shape and err < 0.06,
                      f"calibrated on samples of seq 3, 16, 1, 7; seq 7 against the float "
                      f"model: relative RMS error {err:.4f}")

        # Wrong use: a clean error, a non-zero exit, no output file.
        bad = os.path.join(args.work, graph.name + "_bad_calib")
        write_samples(bad, "not_" + input_name, shape, 1, rng)
        for what, extra, expect in (
                ("no_calibration", ["--quantize", "int8"], "needs --calibration"),
                ("missing_input", ["--quantize", "int8", "--calibration", bad],
                 f"has no {input_name}.npy"),
                ("unknown_method", ["--quantize", "int8", "--calibration", calib,
                                    "--calibration-method", "entropy"], "unknown --calibration"),
                ("no_samples", ["--quantize", "int8", "--calibration", args.work + "/nowhere"],
                 "not a directory")):
            so = os.path.join(args.work, f"{graph.name}_{what}.so")
            r = harness.run_tool([args.infc, "compile", f32, "-o", so] + extra, 300)
            ok = r.returncode == 1 and expect in r.stderr and not os.path.exists(so)
            check(f"{graph.name}_{what}", ok, r.stderr.strip().splitlines()[-1] if r.stderr
                  else f"exit {r.returncode}, no message")
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

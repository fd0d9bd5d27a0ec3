#!/usr/bin/env python3
"""Races, reads of unwritten memory and out-of-bounds accesses in the CUDA kernels, without
a GPU.

    check_cuda_races.py --infc BUILD/bin/infc --zoo DIR --work DIR [--only NAME,...]

The emulator (--target cuda-emulator) runs a kernel's blocks one after another and, between
two barriers, its threads one after another, always in the same order: a kernel that reads
what another thread writes without a barrier between them, or what another block of the same
launch writes, or shared or private memory before writing it, can still give the right
numbers there and wrong ones on a GPU. `--emulator-checks` runs the blocks and the threads
last first, fills each block's shared and private memory with NaNs (integers: bytes 0xA5)
before it runs, and the workspace with the bytes 0xFF (NaN in every float type) when a run
starts; and every memref load, store and view is checked against its bounds (an abort,
which on a GPU would be an illegal address or another buffer's data). Every case here is
compiled both ways and run by `infc run` (a process of its own), and the outputs must be the
same bits: each thread computes what it computed before, so any difference is one of those
bugs.

Cases: the zoo models (fp32; ResNet-18, MobileNetV2 and the BERT layer also at fp16, the BERT
layer at tf32), check_cuda_tiled.py's contractions at fp32, tf32, fp16 and bf16 (SIMT and
tensor-core kernels, every tile size, split-K), check_cuda_rows.py's row kernels at fp32 and
fp16, and check_cuda_int8.py's MatMulIntegers (int8 tensor cores).
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
import check_cuda_int8  # noqa: E402
import check_cuda_rows  # noqa: E402
import check_cuda_tiled  # noqa: E402
import harness  # noqa: E402

ZOO = {"mlp": ("fp32",), "lenet": ("fp32",), "decoder": ("fp32",), "seq_encoder": ("fp32",),
       "text_detector": ("fp32",), "qlinear_cnn": ("fp32",),
       "resnet18": ("fp32", "fp16"), "mobilenetv2": ("fp32", "fp16"),
       "bert_layer": ("fp32", "tf32", "fp16")}
TILED_PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
ROWS_PRECISIONS = ("fp32", "fp16")


def same_bits(plain, checked):
    """Whether two outputs are the same bits, and a summary."""
    if plain.shape != checked.shape or plain.dtype != checked.dtype:
        return False, f"{checked.dtype}{list(checked.shape)} vs {plain.dtype}{list(plain.shape)}"
    # One row of bytes an element (NaNs compare by their bits, as everything else).
    a = np.ascontiguousarray(plain).view(np.uint8).reshape(plain.size, plain.dtype.itemsize)
    b = np.ascontiguousarray(checked).view(np.uint8).reshape(checked.size, plain.dtype.itemsize)
    differ = np.any(a != b, axis=1)
    if not differ.any():
        return True, f"{plain.size} elements the same bits"
    first = int(np.argmax(differ))
    nans = int(np.isnan(checked).sum()) if np.issubdtype(checked.dtype, np.floating) else 0
    return False, (f"{int(differ.sum())} of {plain.size} elements differ ({nans} NaN), the "
                   f"first at {tuple(int(i) for i in np.unravel_index(first, plain.shape))}: "
                   f"{plain.flat[first]!r} vs {checked.flat[first]!r}")


class Checker:
    def __init__(self, args):
        self.args = args
        self.tally = harness.Tally()
        self.only = set(args.only.split(",")) if args.only else None

    def compile(self, path, stem, flags):
        so = stem + ".so"
        r = harness.run_tool([self.args.infc, "compile", path, "-o", so,
                              "--target=cuda-emulator", *flags], 900)
        if r.returncode:
            raise RuntimeError(f"compile failed\n{r.describe()}")
        return so

    def run(self, so, inputs, stem):
        """`infc run` in a process of its own (a failed bounds check aborts it): the
        outputs by name."""
        in_dir, out_dir = stem + "_inputs", stem + "_out"
        for d in (in_dir, out_dir):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        argv = [self.args.infc, "run", so, "--output-dir", out_dir]
        for i, (name, value) in enumerate(inputs.items()):
            path = os.path.join(in_dir, f"{i}.npy")
            np.save(path, value)
            argv += ["--input", f"{name}={path}"]
        r = harness.run_tool(argv, 900)
        if r.returncode or r.crash_reason():
            raise RuntimeError(f"run failed\n{r.describe()}")
        return {f[:-len(".npy")]: np.load(os.path.join(out_dir, f), allow_pickle=False)
                for f in sorted(os.listdir(out_dir)) if f.endswith(".npy")}

    def check(self, name, path, inputs, flags=()):
        """Compiles `path` plainly and with --emulator-checks, runs both on `inputs`."""
        if self.only is not None and name.split(" ")[0] not in self.only:
            return
        stem = os.path.join(self.args.work, name.replace(" ", "_"))
        try:
            plain = self.run(self.compile(path, stem, flags), inputs, stem)
            checked_stem = stem + "_checked"
            checked = self.run(self.compile(path, checked_stem, [*flags, "--emulator-checks"]),
                               inputs, checked_stem)
        except Exception as e:  # a failed build or run, or unreadable outputs: this case fails
            self.tally.report(False, f"{name}: {type(e).__name__}: {e}")
            return
        problems, counts = [], 0
        if not plain or sorted(plain) != sorted(checked):
            problems.append(f"outputs {sorted(checked)} vs {sorted(plain)}")
        for output, value in plain.items():
            if output not in checked:
                continue
            ok, summary = same_bits(value, checked[output])
            counts += value.size
            if not ok:
                problems.append(f"{output}: {summary}")
        self.tally.report(not problems,
                          f"{name}: " + ("; ".join(problems) or
                                         f"{len(plain)} output(s), {counts} elements the same "
                                         "bits"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--infc", required=True)
    parser.add_argument("--zoo", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--only", default="", help="case names (before the precision)")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    checker = Checker(args)

    for name, precisions in ZOO.items():
        path = os.path.join(args.zoo, f"{name}.onnx")
        inputs = harness.npz_inputs(os.path.join(args.zoo, f"{name}.inputs.npz"))
        for precision in precisions:
            checker.check(f"{name} {precision}", path, inputs, [f"--precision={precision}"])

    for (name, build), _, _ in check_cuda_tiled.CASES:
        if checker.only is not None and name not in checker.only:
            continue
        inputs, path, _ = check_cuda_tiled.save_case(args.work, name, build, 17)
        for precision in TILED_PRECISIONS:
            checker.check(f"{name} {precision}", path, inputs,
                          [f"--precision={precision}", *check_cuda_tiled.layout_flags(name)])

    for (name, build), _, _ in check_cuda_rows.CASES:
        if checker.only is not None and name not in checker.only:
            continue
        inputs, path, _ = check_cuda_tiled.save_case(args.work, name, build, 18)
        for precision in ROWS_PRECISIONS:
            checker.check(f"{name} {precision}", path, inputs, [f"--precision={precision}"])

    from onnx import TensorProto
    for name, b_type, sizes in (("matmul_integer_u8s8", TensorProto.INT8, {}),
                                ("matmul_integer_u8u8_tile128", TensorProto.UINT8,
                                 {"m": 1300, "k": 64, "n": 1700}),
                                ("matmul_integer_u8s8_split_k", TensorProto.INT8,
                                 {"m": 64, "k": 2048, "n": 96})):
        graph, make_inputs = check_cuda_int8.matmul_integer(name, b_type, **sizes)
        path = check_cuda_int8.save(graph, os.path.join(args.work, name + ".onnx"))
        checker.check(name, path, make_inputs(np.random.default_rng(3)))
    return checker.tally.finish()


if __name__ == "__main__":
    sys.exit(main())

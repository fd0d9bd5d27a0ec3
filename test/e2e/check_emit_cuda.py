#!/usr/bin/env python3
"""CUDA source output (`infc compile --target cuda --emit=cuda`) without a GPU.

    check_emit_cuda.py --infc BUILD/bin/infc --work DIR --zoo ZOO_DIR --mock-driver LIB
                       [--models a,b,...] [--cuda-path DIR]

For each case, the source tree is built the ways docs/portable.md tells a user:
  - nvcc builds model.cu into model.fatbin for sm_80 and sm_90 (`-Werror all-warnings`:
    every kernel through ptxas for both);
  - gcc builds model.c and the runtime's sources into model.so (`-Wall -Wextra -Werror`);
  - clang++ builds model.cu for this CPU with cuda_emulation.h (the kernels as fibers:
    barriers, shuffles, ldmatrix and mma.sync by the PTX ISA's semantics).
`infc run` then runs model.so on the stand-in driver (mock_cuda.c) from the source
directory: the host side reads model.weights and model.fatbin, the stand-in checks every
launch's parameters and block against nvcc's cubin, and MOCK_CUDA_KERNELS runs the printed
kernels on the CPU. Outputs are compared with onnxruntime at fp32 (rtol 1e-4, atol 1e-5) and
at fp16, bf16 and tf32 with infc's own --target cuda-emulator library of the same precision
(the pipeline's kernels run as IR: rtol 1e-5 of the output's largest magnitude; they agree
bit for bit here). Also:
  - the launches of a run (kernel names, grids, blocks) are those of infc's own --target cuda
    library (the BERT layer and ResNet-18);
  - every block's threads run last first (MOCK_CUDA_REVERSE=1): the same output bits;
  - an int8 MatMulInteger (u8 x s8, mma.sync m16n8k32) against numpy, exactly;
  - the kernels linked in (bin2c, -DINFC_KERNELS_EMBEDDED) with no model.fatbin, and
    --embed-weights (weights.c, no model.weights);
  - model.fatbin missing, or not a fatbin: infc_model_create fails (INFC_ERR_UNAVAILABLE)
    naming the file, with no output written;
  - refusals: --emit=cuda without --target cuda, -o -, --header.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure, 77 when nvcc or
clang++ is missing.
"""

import argparse
import concurrent.futures
import glob
import os
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
import check_cuda_int8  # noqa: E402
import harness  # noqa: E402

DEFAULT_MODELS = ("mlp,mlp_ext,lenet,bottlenecks,decoder,seq_encoder,text_detector,qlinear_cnn,"
                  "upsampler_1d,bert_layer,resnet18,mobilenetv2")
REDUCED = [("bert_layer", "fp16"), ("bert_layer", "bf16"), ("bert_layer", "tf32"),
           ("resnet18", "fp16"), ("resnet18", "bf16"), ("resnet18", "tf32")]
SAME_LAUNCHES = ("bert_layer", "resnet18")
WARNINGS = ["-Wall", "-Wextra", "-Werror"]
CXX = "clang++-22"


class Builder:
    def __init__(self, args):
        self.args = args
        self.nvcc = os.path.join(args.cuda_path, "bin", "nvcc")
        self.bin2c = os.path.join(args.cuda_path, "bin", "bin2c")

    def emit(self, model, src, *flags):
        return harness.run_tool([self.args.infc, "compile", model, "--target", "cuda",
                                 "--emit=cuda", "-o", src, *flags], timeout=600)

    def fatbin(self, src):
        return harness.run_tool(
            [self.nvcc, "-O3", "-Werror", "all-warnings", "-fatbin",
             "-gencode", "arch=compute_80,code=[sm_80,compute_80]",
             "-gencode", "arch=compute_90,code=sm_90", "-o", "model.fatbin", "model.cu"],
            timeout=900, cwd=src)

    def host(self, src, out="model.so", extra=()):
        sources = sorted(os.path.basename(c) for c in glob.glob(os.path.join(src, "*.c")))
        return harness.run_tool(["gcc", "-O2", "-fPIC", "-shared", *WARNINGS, *extra, "-o",
                                 out, *sources, "-lm", "-lpthread"], timeout=600, cwd=src)

    def emulation(self, src):
        return harness.run_tool([CXX, "-std=c++17", "-O1", "-fPIC", "-shared",
                                 "-DINFC_CUDA_EMULATION", "-include",
                                 os.path.join(HERE, "cuda_emulation.h"), "-x", "c++",
                                 "model.cu", "-o", "kernels.so"], timeout=900, cwd=src)

    def build(self, model, src, *flags):
        """Every step; None, or the description of the one that failed."""
        for what, step in (("--emit=cuda", lambda: self.emit(model, src, *flags)),
                           ("nvcc", lambda: self.fatbin(src)),
                           ("gcc (host side)", lambda: self.host(src)),
                           (CXX + " (emulation)", lambda: self.emulation(src))):
            r = step()
            if r.returncode:
                return f"{what} failed\n{r.describe()}"
        return None

    def run(self, library, inputs, out, cwd, env=()):
        """`infc run` on the stand-in driver with the emulated kernels of `cwd`; the
        outputs (name -> array), or the failed run."""
        shutil.rmtree(out, ignore_errors=True)
        argv = [self.args.infc, "run", library, "--output-dir", out]
        for k, (name, value) in enumerate(inputs.items()):
            path = os.path.join(os.path.dirname(out), f"{os.path.basename(out)}.in{k}.npy")
            np.save(path, value)
            argv += ["--input", f"{name}={path}"]
        log = out + ".cuda.log"
        if os.path.exists(log):
            os.remove(log)
        environment = {"INFC_CUDA_DRIVER": self.args.mock_driver, "MOCK_CUDA_LOG": log,
                       "MOCK_CUDA_KERNELS": os.path.join(cwd, "kernels.so"),
                       "INFC_WEIGHTS": None, "INFC_KERNELS": None, **dict(env)}
        r = harness.run_tool(argv, timeout=900, cwd=cwd, env=environment)
        if r.returncode:
            return r
        return {os.path.basename(f)[:-4]: np.load(f)
                for f in glob.glob(os.path.join(out, "*.npy"))}


def launches(log):
    """The (name, grid, block) of each launch in a stand-in driver's log."""
    if not os.path.exists(log):
        return []
    return [tuple(line.split()[1:8]) for line in open(log) if line.startswith("launch ")]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--mock-driver", required=True)
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--cuda-path", default="/usr/local/cuda")
    args = ap.parse_args()
    for path in ("infc", "work", "zoo", "mock_driver"): # (runs happen in the source trees)
        setattr(args, path, os.path.abspath(getattr(args, path)))
    b = Builder(args)
    if harness.missing({"nvcc": os.path.exists(b.nvcc), "gcc": shutil.which("gcc"),
                        CXX: shutil.which(CXX)}):
        return 77
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    tally = harness.Tally()
    report = tally.report

    def zoo(name):
        return (os.path.join(args.zoo, name + ".onnx"),
                harness.npz_inputs(os.path.join(args.zoo, name + ".inputs.npz")))

    def model_case(name, precision):
        """Builds and runs one zoo model's source; (ok, line)."""
        model, inputs = zoo(name)
        case = f"{name}_{precision}"
        src = os.path.join(args.work, case)
        why = b.build(model, src, "--precision", precision)
        if why:
            return False, f"{case}: {why}"
        got = b.run("./model.so", inputs, os.path.join(args.work, case + ".out"), src)
        if not isinstance(got, dict):
            return False, f"{case}: the run failed\n{got.describe()}"
        if precision == "fp32":
            problems = harness.compare_outputs(got, harness.ort_reference(model, inputs))
            against = "onnxruntime"
        else:
            emu = os.path.join(args.work, case + ".emulator.so")
            r = harness.run_tool([args.infc, "compile", model, "--target", "cuda-emulator",
                                  "--precision", precision, "-o", emu], timeout=600)
            if r.returncode:
                return False, f"{case}: --target cuda-emulator failed\n{r.describe()}"
            want = b.run(emu, inputs, os.path.join(args.work, case + ".emulator.out"), src)
            if not isinstance(want, dict):
                return False, f"{case}: the emulator library failed\n{want.describe()}"
            problems = []
            for out, w in want.items():
                scale = float(np.abs(w).max()) if w.size else 0.0
                problems += harness.compare_outputs(got, {out: w}, 0.0, 1e-5 * max(scale, 1e-30))
            same = all(np.array_equal(got[o], w) for o, w in want.items() if o in got)
            against = ("infc's --target cuda-emulator library" +
                       (" (bit for bit)" if same else ""))
        kernels = len({launch[0] for launch in launches(
            os.path.join(args.work, case + ".out.cuda.log"))})
        return not problems, (f"{case}: nvcc (sm_80, sm_90), gcc and the emulation; {kernels} "
                              f"kernels, {len(got)} outputs against {against}"
                              + (f": {'; '.join(problems)}" if problems else ""))

    cases = [(name, "fp32") for name in args.models.split(",")]
    cases += [c for c in REDUCED if c[0] in args.models.split(",")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for ok, line in pool.map(lambda c: model_case(*c), cases):
            report(ok, line)

    # The same launches as infc's own library: names, grids and blocks, in order.
    for name in SAME_LAUNCHES:
        if name not in args.models.split(","):
            continue
        model, inputs = zoo(name)
        so = os.path.join(args.work, name + ".cuda.so")
        r = harness.run_tool([args.infc, "compile", model, "--target", "cuda", "-o", so], 900)
        src = os.path.join(args.work, name + "_fp32")
        if r.returncode:
            report(False, f"{name}: --target cuda failed\n{r.describe()}")
            continue
        out = os.path.join(args.work, name + ".library.out")
        b.run(so, inputs, out, src, env={"MOCK_CUDA_KERNELS": None})
        theirs = launches(out + ".cuda.log")
        ours = launches(os.path.join(args.work, name + "_fp32.out.cuda.log"))
        report(bool(ours) and ours == theirs,
               f"{name}: the source's {len(ours)} launches are the library's {len(theirs)} "
               "(names, grids, blocks)")

    # Threads of each block last first: a race between them would change the outputs.
    for name in ("bert_layer_fp16", "lenet_fp32"):
        src = os.path.join(args.work, name)
        first = os.path.join(args.work, name + ".out")
        if not os.path.exists(first):
            continue
        model, inputs = zoo(name.rsplit("_", 1)[0])
        got = b.run("./model.so", inputs, os.path.join(args.work, name + ".reverse.out"), src,
                    env={"MOCK_CUDA_REVERSE": "1"})
        forward = {os.path.basename(f)[:-4]: np.load(f)
                   for f in glob.glob(os.path.join(first, "*.npy"))}
        same = isinstance(got, dict) and forward and all(
            np.array_equal(got.get(k), v) for k, v in forward.items())
        report(same, f"{name}: every block's threads last first give the same bits"
               + ("" if isinstance(got, dict) else f"\n{got.describe()}"))

    # int8 tensor cores: MatMulInteger u8 x s8, exactly numpy's.
    from onnx import TensorProto
    graph, make_inputs = check_cuda_int8.matmul_integer("mmi_u8s8", TensorProto.INT8)
    path = check_cuda_int8.save(graph, os.path.join(args.work, "mmi_u8s8.onnx"))
    src = os.path.join(args.work, "mmi_u8s8")
    why = b.build(path, src)
    inputs = make_inputs(np.random.default_rng(5))
    if why:
        report(False, f"mmi_u8s8: {why}")
    else:
        got = b.run("./model.so", inputs, os.path.join(args.work, "mmi.out"), src)
        want = inputs["a"].astype(np.int64) @ inputs["b"].astype(np.int64)
        mma = "mma_sync_aligned_m16n8k32_row_col_s32_u8_s8_s32" in open(
            os.path.join(src, "model.cu")).read()
        report(isinstance(got, dict) and mma and np.array_equal(got["y"], want),
               "mmi_u8s8: MatMulInteger on mma.sync m16n8k32 (u8 x s8) equals numpy's"
               + ("" if isinstance(got, dict) else f"\n{got.describe()}"))

    # The kernels linked in (bin2c), and the weights as C arrays: nothing read at run time.
    model, inputs = zoo("lenet")
    src = os.path.join(args.work, "lenet_embedded")
    why = b.build(model, src, "--embed-weights")
    if why:
        report(False, f"lenet --embed-weights: {why}")
    else:
        r = harness.run_tool([b.bin2c, "-c", "-n", "infc_kernels_fatbin", "model.fatbin"],
                             timeout=120, cwd=src)
        if r.returncode == 0:
            with open(os.path.join(src, "kernels.c"), "w") as f:
                f.write(r.stdout)
            os.remove(os.path.join(src, "model.fatbin"))
            r = b.host(src, extra=["-DINFC_KERNELS_EMBEDDED"])
        got = b.run("./model.so", inputs, os.path.join(args.work, "embedded.out"), src) \
            if r.returncode == 0 else r
        problems = harness.compare_outputs(got, harness.ort_reference(model, inputs)) \
            if isinstance(got, dict) else [got.describe()]
        no_files = not os.path.exists(os.path.join(src, "model.weights"))
        report(not problems and no_files,
               "lenet: kernels linked in (bin2c, -DINFC_KERNELS_EMBEDDED) and --embed-weights, "
               "no file read" + (f": {'; '.join(problems)}" if problems else ""))

    # A missing or foreign fatbin: a clean failure that names it, no output.
    src = os.path.join(args.work, "mlp_fp32")
    if os.path.exists(os.path.join(src, "model.so")):
        _, inputs = zoo("mlp")
        for what, path, expect in (
                ("missing", os.path.join(args.work, "no-such.fatbin"), "cannot read the kernels"),
                ("not a fatbin", os.path.join(src, "model.weights"), "is not a fatbin")):
            out = os.path.join(args.work, "bad_fatbin.out")
            r = b.run("./model.so", inputs, out, src, env={"INFC_KERNELS": path})
            failed = not isinstance(r, dict) and r.returncode != 0 and expect in r.stderr \
                and path in r.stderr and not r.crash_reason()
            report(failed and not glob.glob(os.path.join(out, "*.npy")),
                   f"mlp: a fatbin {what} is refused by infc_model_create naming it"
                   + ("" if failed else f"\n{r if isinstance(r, dict) else r.describe()}"))

    # Refusals, each with a non-zero exit and no directory written.
    model, _ = zoo("mlp")
    for flags, expect in (
            (["--emit=cuda", "-o", os.path.join(args.work, "r1")], "needs --target cuda"),
            (["--target", "cuda", "--emit=cuda", "-o", "-"], "writes a directory"),
            (["--target", "cuda", "--emit=cuda", "-o", os.path.join(args.work, "r3"),
              "--header", os.path.join(args.work, "r3.h")], "no --header")):
        r = harness.run_tool([args.infc, "compile", model, *flags], timeout=120)
        report(r.returncode != 0 and expect in r.stderr and not r.crash_reason()
               and not os.path.exists(os.path.join(args.work, "r1"))
               and not os.path.exists(os.path.join(args.work, "r3")),
               f"refused: {' '.join(flags[:3])}...: {r.stderr.strip()[-150:]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

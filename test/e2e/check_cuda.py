#!/usr/bin/env python3
"""--target cuda on a machine without a GPU.

    check_cuda.py --infc BUILD/bin/infc --zoo BUILD/zoo --mock-driver libinfc_mock_cuda.so
                  --work DIR [--models mlp,lenet,...] [--gpu sm_80,sm_90]

For each zoo model:
  - it compiles for every architecture of --gpu: ptxas accepted every kernel, and the
    fatbin the .so hands the driver holds one cubin per architecture plus the PTX;
  - the .so needs nothing but libc/libm/libdl/libpthread (and the loader);
  - it loads without a CUDA driver, and a run fails with a clear message and a non-zero exit,
    as it does with a driver that finds no device;
  - with a stand-in driver (mock_cuda.c: device memory is host memory, launches are only
    logged) the run succeeds, and the log shows the orchestration a GPU would see: the
    weights uploaded once per model at session creation, one module load, per run one copy
    to the device per input and one back per output, the same launches in every run, each
    of a kernel the module has; a launch that fails makes the run fail with the driver's
    message;
  - each run launches at most MAX_LAUNCHES kernels (the fusions of infc-linalg-to-gpu-loops:
    a model that needs more has lost one; lower the bound when a fusion lands);
  - compiled with --precision fp16 and bf16 too (their tensor-core kernels through ptxas for
    every architecture), it runs on the stand-in driver as above.
The kernels' arithmetic is tested by the e2e_cuda_emulator_* tests (the same IR on the CPU).
Prints one line per model and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import re
import shutil
import struct
import sys

import numpy as np
import onnx

sys.dont_write_bytecode = True
import harness  # noqa: E402

ALLOWED_NEEDED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0",
                  "ld-linux-x86-64.so.2"}
DEFAULT_MODELS = "mlp,lenet,decoder,seq_encoder,qlinear_cnn,bert_layer,mobilenetv2,resnet18"
# Kernel launches a run (session 19). A BERT layer: LayerNorm, Q, K, V, scores (K's
# transpose inside), softmax, context, output projection (+ residual) with LayerNorm, FFN up,
# FFN down with LayerNorm, and the heads; ResNet-18: 20 convs (pad, bias, residual, Relu
# inside), the max pool's pad and pool, the average pool, the classifier. Since session 23
# a contraction split by infc-split-reduction adds the kernel that sums its slices (with
# the epilogue): 11 of ResNet-18's convs, 5 of MobileNetV2's; the BERT layer's FFN down
# too, its sum in the LayerNorm's kernel.
MAX_LAUNCHES = {"mlp": 10, "lenet": 9, "decoder": 6, "seq_encoder": 69, "qlinear_cnn": 4,
                "bert_layer": 19, "mobilenetv2": 57, "resnet18": 35}
REDUCED_PRECISIONS = ("fp16", "bf16")


def fatbin_images(data):
    """(kind, sm) of each image of a fatbin: kind 'elf' (a cubin) or 'ptx'."""
    magic, _, header, size = struct.unpack_from("<IHHQ", data, 0)
    if magic != 0xBA55ED50:
        raise ValueError(f"not a fatbin (magic {magic:#x})")
    images, off = [], header
    while off < header + size:
        kind, _, entry_header, payload = struct.unpack_from("<HHIQ", data, off)
        sm = struct.unpack_from("<I", data, off + 28)[0]
        images.append(({1: "ptx", 2: "elf"}.get(kind, str(kind)), sm))
        off += entry_header + payload
    return images


def needed_libraries(so):
    r = harness.run_tool(["/usr/lib/llvm-22/bin/llvm-readelf", "--dynamic-table", so], 60)
    if r.returncode:
        raise RuntimeError(r.describe())
    return set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", r.stdout))


def initializer_bytes(model_path):
    model = onnx.load(model_path)
    return sum(onnx.numpy_helper.to_array(t).nbytes for t in model.graph.initializer)


def check_orchestration(args, model, so, run, num_inputs, work, name, graphs):
    """Three runs in one process (bench: 1 warm-up, 2 timed) with the stand-in driver; its
    log against what a GPU would see. Returns (problems, launches of a run, uploads at
    session creation, fatbin images)."""
    problems = []
    log = os.path.join(work, name + ".cuda.log")
    fatbin = os.path.join(work, name + ".fatbin")
    for f in (log, fatbin):
        if os.path.exists(f):
            os.remove(f)
    env = {"INFC_CUDA_DRIVER": args.mock_driver, "MOCK_CUDA_LOG": log,
           "MOCK_CUDA_DUMP": fatbin, "INFC_CUDA_GRAPHS": None if graphs else "0"}
    r = run(env, "bench", ["--warmup", "1", "--iters", "2"])
    if r.returncode:
        return [f"bench with the stand-in driver failed:\n{r.describe()}"], None, None, None
    lines = [line.split() for line in open(log)]
    ops = [line[0] for line in lines]
    if ops.count("load") != 1:
        problems.append(f"{ops.count('load')} module loads, expected 1")
    images = []
    try:
        images = fatbin_images(open(fatbin, "rb").read())
        want = {("elf", int(a[3:])) for a in args.gpu.split(",")}
        want.add(("ptx", min(int(a[3:]) for a in args.gpu.split(","))))
        if set(images) != want:
            problems.append(f"fatbin images {images}, expected {sorted(want)}")
    except (OSError, ValueError, struct.error) as e:
        problems.append(f"cannot read the fatbin the driver got: {e}")

    # Session creation: everything up to the first run's first copy of an input.
    syncs = [i for i, op in enumerate(ops) if op == "sync"]
    if not syncs:
        return problems + ["no stream synchronization at all"], None, None, None
    setup, rest = lines[:syncs[0] + 1], lines[syncs[0] + 1:]
    uploads = [int(line[1]) for line in setup if line[0] == "htod"]
    weights = initializer_bytes(model)
    if len(uploads) != 1 or uploads[0] < weights // 2:
        problems.append(f"session creation uploads {uploads} bytes; expected the weights "
                        f"once (the model's initializers hold {weights} bytes)")
    runs, current = [], []
    for line in rest:
        current.append(line)
        if line[0] == "sync":
            runs.append(current)
            current = []
    if len(runs) != 3:
        return (problems + [f"{len(runs)} synchronized runs in the log, expected 3"], None,
                None, None)
    functions = {line[1] for line in lines if line[0] == "function"}
    launch_lists = []
    for k, lines_of_run in enumerate(runs):
        run_ops = [line[0] for line in lines_of_run]
        if run_ops.count("htod") != num_inputs:
            problems.append(f"run {k}: {run_ops.count('htod')} copies to the device, "
                            f"{num_inputs} inputs")
        if run_ops.count("dtoh") < 1:
            problems.append(f"run {k}: no output copied back")
        launched = [line[1] for line in lines_of_run if line[0] == "launch"]
        if not launched or not set(launched) <= functions:
            problems.append(f"run {k}: launches {launched[:5]}... of unknown kernels")
        if run_ops.index("launch") < max(i for i, op in enumerate(run_ops) if op == "htod"):
            problems.append(f"run {k}: a kernel launched before the inputs were copied")
        launch_lists.append(launched)
    if any(launched != launch_lists[0] for launched in launch_lists):
        problems.append("the runs launch different kernels")
    if ops.count("function") != len(set(launch_lists[0])):
        problems.append(f"{ops.count('function')} kernel lookups for "
                        f"{len(set(launch_lists[0]))} kernels: lookups are not cached")
    # With graphs: one capture at session creation, one graph launch per run.
    want = (1, 3) if graphs else (0, 0)
    got = (ops.count("capture-end"), ops.count("graph-launch"))
    if got != want:
        problems.append(f"{got[0]} graph captures and {got[1]} graph launches, expected "
                        f"{want[0]} and {want[1]}")
    mode = "graph" if graphs else "direct launches"
    return [f"({mode}) {p}" for p in problems], launch_lists[0], uploads, images



def check_model(args, name, work):
    problems = []
    model = os.path.join(args.zoo, name + ".onnx")
    inputs = harness.npz_inputs(os.path.join(args.zoo, name + ".inputs.npz"))
    so = os.path.join(work, name + ".so")
    r = harness.run_tool([args.infc, "compile", model, "--target", "cuda", "--gpu", args.gpu,
                          "-o", so], 900)
    if r.returncode:
        return [f"compile failed:\n{r.describe()}"]

    extra = needed_libraries(so) - ALLOWED_NEEDED
    if extra:
        problems.append(f"the .so needs {sorted(extra)}")

    in_args = []
    for k, (input_name, value) in enumerate(inputs.items()):
        path = os.path.join(work, f"{name}.in{k}.npy")
        np.save(path, value)
        in_args += ["--input", f"{input_name}={path}"]
    out_dir = os.path.join(work, name + ".out")

    def run(env, command="run", more=(), library=so):
        shutil.rmtree(out_dir, ignore_errors=True)
        argv = [args.infc, command, library] + in_args + list(more)
        if command == "run":
            argv += ["--output-dir", out_dir]
        return harness.run_tool(argv, 600, env=env)

    # No driver at all (a path that cannot exist, so a machine with a GPU tests this too).
    r = run({"INFC_CUDA_DRIVER": os.path.join(work, "no-such-dir", "libcuda.so.1")})
    if r.returncode == 0 or "CUDA driver cannot be loaded" not in r.stderr:
        problems.append(f"without a driver, expected a clean failure:\n{r.describe()}")
    if os.path.exists(out_dir) and os.listdir(out_dir):
        problems.append("a failed run wrote outputs")
    # A driver that finds no device.
    r = run({"INFC_CUDA_DRIVER": args.mock_driver, "MOCK_CUDA_NO_DEVICE": "1"})
    if r.returncode == 0 or "has no CUDA device" not in r.stderr:
        problems.append(f"with no device, expected a clean failure:\n{r.describe()}")

    # The stand-in driver, with the model captured as a CUDA graph (the default) and with
    # every kernel launched by each run.
    launches = None
    for graphs in (True, False):
        found, launches, uploads, images = check_orchestration(
            args, model, so, run, len(inputs), work, name, graphs)
        problems += found
        if found:
            return problems

    # A kernel that fails (replayed from the graph, or launched directly): the run reports
    # the driver's message, and writes no output.
    for graphs in (None, "0"):
        r = run({"INFC_CUDA_DRIVER": args.mock_driver, "MOCK_CUDA_FAIL_LAUNCH": "2",
                 "INFC_CUDA_GRAPHS": graphs})
        if r.returncode == 0 or "illegal memory access" not in r.stderr:
            problems.append(f"a failing launch must fail the run:\n{r.describe()}")
        elif os.path.exists(out_dir) and os.listdir(out_dir):
            problems.append("a failed run wrote outputs")
    if name in MAX_LAUNCHES and len(launches) > MAX_LAUNCHES[name]:
        problems.append(f"{len(launches)} kernel launches per run, at most "
                        f"{MAX_LAUNCHES[name]} expected (a fusion was lost)")
    # The reduced precisions: the tensor-core kernels (mma.sync), the same orchestration.
    for precision in REDUCED_PRECISIONS:
        reduced = os.path.join(work, f"{name}_{precision}.so")
        r = harness.run_tool([args.infc, "compile", model, "--target", "cuda", "--gpu",
                              args.gpu, "--precision", precision, "-o", reduced], 900)
        if r.returncode:
            problems.append(f"--precision {precision}: compile failed:\n{r.describe()}")
            continue
        found = check_orchestration(
            args, model, reduced,
            lambda env, command="run", more=(): run(env, command, more, library=reduced),
            len(inputs), work, f"{name}_{precision}", graphs=True)[0]
        problems += [f"--precision {precision}: {p}" for p in found]
    if not problems:
        print(f"  {name}: {len(launches)} kernel launches per run, weights "
              f"{uploads[0]} bytes, images {sorted(images)}")
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--zoo", required=True, help="directory of the generated model zoo")
    ap.add_argument("--mock-driver", required=True, help="the stand-in libcuda (mock_cuda.c)")
    ap.add_argument("--work", required=True, help="scratch directory (recreated)")
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--gpu", default="sm_80,sm_90")
    args = ap.parse_args(argv)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    passed = failed = 0
    for name in args.models.split(","):
        problems = check_model(args, name, args.work)
        if problems:
            failed += 1
            print(f"FAIL {name}:\n  " + "\n  ".join(p.replace("\n", "\n  ") for p in problems))
        else:
            passed += 1
            print(f"PASS {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

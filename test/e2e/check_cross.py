#!/usr/bin/env python3
"""Libraries for 64-bit ARM (`infc compile --target-triple aarch64-linux-gnu`), run under
qemu-aarch64 against onnxruntime's outputs on this machine.

    check_cross.py --infc BUILD/bin/infc --work DIR --zoo ZOO_DIR [--models a,b,...]

For each zoo model (MODEL@CPU: with --cpu CPU; the BERT layer also for neoverse-n1): compile
it for aarch64-linux-gnu (generic armv8-a with NEON), check the
library is an AArch64 ELF that needs only libc/libm, run it with cross_runner.c (built here
with clang --target, the C host a product would be) under qemu-aarch64 with Debian's
arm64 C library (-L /usr/aarch64-linux-gnu), and compare every output with onnxruntime's
(rtol 1e-4, atol 1e-5; integers exactly). Also: --cpu native refused for the cross triple.
Skipped (exit 77) without qemu-aarch64, the arm64 C library or the cross runtime.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
import harness  # noqa: E402

SYSROOT = "/usr/aarch64-linux-gnu"
DEFAULT_MODELS = ("mlp,lenet,bottlenecks,decoder,seq_encoder,text_detector,qlinear_cnn,bert_layer,"
                  "resnet18,mobilenetv2,bert_layer@neoverse-n1")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--cc", default="clang-22")
    args = ap.parse_args()
    qemu = shutil.which("qemu-aarch64")
    runtime = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.infc))), "lib",
                           "aarch64-linux-gnu", "libinfc_runtime.a")
    if harness.missing({"qemu-aarch64 (qemu-user)": qemu,
                        "the arm64 C library (libc6-dev-arm64-cross)":
                            os.path.exists(os.path.join(SYSROOT, "include", "stdio.h")),
                        "the aarch64 runtime (built with clang beside that C library)":
                            os.path.exists(runtime)}):
        return 77
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    tally = harness.Tally()
    report = tally.report
    runner = os.path.join(args.work, "cross_runner")
    r = harness.run_tool([args.cc, "--target=aarch64-linux-gnu", "-fuse-ld=lld", "-O1", "-Wall",
                          "-Wextra", "-Werror", "-I", os.path.join(harness.REPO_ROOT, "include"),
                          os.path.join(HERE, "cross_runner.c"), "-o", runner], timeout=120)
    report(r.returncode == 0, f"cross_runner built for aarch64: exit {r.returncode}"
           + (f" {r.stderr.strip()[-300:]}" if r.returncode else ""))
    if r.returncode:
        return tally.finish()

    for spec in args.models.split(","):
        name, _, cpu = spec.partition("@")  # MODEL@CPU: --cpu CPU (default generic)
        model = os.path.join(args.zoo, name + ".onnx")
        inputs = harness.npz_inputs(os.path.join(args.zoo, name + ".inputs.npz"))
        wdir = os.path.join(args.work, spec.replace("@", "_"))
        os.makedirs(os.path.join(wdir, "out"))
        lib = os.path.join(wdir, name + ".so")
        r = harness.run_tool([args.infc, "compile", model, "-o", lib, "--target-triple",
                              "aarch64-linux-gnu"] + (["--cpu", cpu] if cpu else []), timeout=600)
        if r.returncode != 0:
            report(False, f"{spec}: compile failed\n{r.describe()}")
            continue
        elf = subprocess.run(["readelf", "-hd", lib], capture_output=True, text=True).stdout
        needed = sorted(line.split("[")[1].rstrip("]") for line in elf.splitlines()
                        if "(NEEDED)" in line)
        arm = "AArch64" in elf and set(needed) <= {"libc.so.6", "libm.so.6"}
        files = []
        for i, (iname, x) in enumerate(inputs.items()):
            path = os.path.join(wdir, f"in{i}.bin")
            np.ascontiguousarray(x).tofile(path)
            files.append(path)
        r = harness.run_tool([qemu, "-L", SYSROOT, runner, lib, os.path.join(wdir, "out")] + files,
                             timeout=900)
        if r.returncode != 0:
            report(False, f"{spec}: the aarch64 run failed\n{r.describe()}")
            continue
        ref = harness.ort_reference(model, inputs)
        problems = []
        for j, (oname, want) in enumerate(ref.items()):
            got = np.fromfile(os.path.join(wdir, "out", f"out{j}.bin"), dtype=want.dtype)
            if got.size != want.size:
                problems.append(f"{oname}: {got.size} elements, expected {want.size}")
                continue
            ok, summary = harness.compare(got.reshape(want.shape), want, 1e-4, 1e-5)
            if not ok:
                problems.append(f"{oname}: {summary}")
        report(arm and not problems,
               f"{spec}: AArch64 ELF needing {needed}, {len(ref)} outputs against onnxruntime "
               f"under qemu ({r.seconds:.1f} s)" + (f": {'; '.join(problems)}" if problems else ""))

    r = harness.run_tool([args.infc, "compile", os.path.join(args.zoo, "mlp.onnx"), "-o",
                          os.path.join(args.work, "bad.so"), "--target-triple",
                          "aarch64-linux-gnu", "--cpu", "native"], timeout=120)
    report(r.returncode == 1 and "names this machine's CPU" in r.stderr,
           f"--cpu native with an aarch64 triple refused: {r.stderr.strip()[-160:]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

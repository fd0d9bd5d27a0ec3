#!/usr/bin/env python3
"""int8 against fp32 on each x86 instruction set infc has an int8 kernel for.

    python3 bench/int8_cpus.py --infc build/bin/infc [--models resnet50,bert_base,orinet]
        [--cpus native,icelake-server,alderlake,skylake-avx512,haswell] [--threads 1,2]
        [--runs 5] [--seconds 1] [--out FILE.md]

The int8 matmuls of infc-vnni-matmul run on AMX tiles (AMX-INT8), vpdpbusd on zmm
(AVX-512 VNNI: icelake-server), vpdpbusd on ymm (AVX-VNNI: alderlake), vpmaddwd on zmm
(AVX-512BW: skylake-avx512) or vpmaddwd on ymm (AVX2: haswell). This machine runs code for
every CPU whose features it has, so each model is compiled with `--cpu` for each of them,
in fp32 and in int8 (`--quantize int8 --calibration DIR`, percentile), and the two are
timed alternating round by round (bench/int8.py's time_engines: medians of --runs rounds of
~--seconds each), for the ratio int8 / fp32 per CPU. The CPUs this machine lacks the
features of are skipped. ORT is not in the table: it picks its kernels at run time, for
this machine's features only (bench/int8.py compares with it).

Inputs and calibration samples are the ones bench/int8.py (ResNet-50, conditioned, and
BERT-base) and bench/orinet.py (OriNet) wrote under bench/.cache; run those first.
Writes bench/int8_cpus.md (--out), which bench/compare.py includes in docs/benchmarks.md.
Not a test; nothing here runs in CI.
"""

import argparse
import glob
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "test", "e2e"))
import harness  # noqa: E402
from int8 import infc_session, log, run, time_engines  # noqa: E402

# --cpu value -> the int8 kernel infc gives it (which of them this machine runs:
# harness.cpu_variants, as the kernel tests take them)
CPUS = {
    "native": "this machine's (AMX tiles where it has AMX-INT8)",
    "icelake-server": "vpdpbusd, zmm (AVX-512 VNNI)",
    "alderlake": "vpdpbusd, ymm (AVX-VNNI)",
    "skylake-avx512": "vpmaddwd, zmm (AVX-512BW)",
    "haswell": "vpmaddwd, ymm (AVX2)",
}


def models(cache):
    """name -> (fp32 .onnx, calibration dir, feed dict), from the other benchmarks' caches."""
    out = {}
    for name, onnx_name in (("resnet50", "resnet50.conditioned.onnx"),
                            ("bert_base", "bert_base.onnx")):
        d = os.path.join(cache, "int8", name)
        if os.path.exists(os.path.join(d, onnx_name)):
            with np.load(os.path.join(d, name + ".inputs.npz")) as z:
                feed = {k: z[k] for k in z.files}
            out[name] = (os.path.join(d, onnx_name), os.path.join(d, "calib"), feed)
    d = os.path.join(cache, "orinet")
    if os.path.exists(os.path.join(d, "orinet.onnx")):
        first = sorted(glob.glob(os.path.join(d, "calib", "*")))[0]
        feed = {os.path.basename(p)[:-4]: np.load(p) for p in glob.glob(first + "/*.npy")}
        out["orinet"] = (os.path.join(d, "orinet.onnx"), os.path.join(d, "calib"), feed)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--infc", required=True)
    ap.add_argument("--models", default="resnet50,bert_base,orinet")
    ap.add_argument("--cpus", default=",".join(CPUS))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--work", default=os.path.join(HERE, ".cache", "int8_cpus"))
    ap.add_argument("--out", help="the markdown section (default bench/int8_cpus.md)")
    args = ap.parse_args()
    runnable = ["native" if c is None else c for c in harness.cpu_variants()]
    cpus = [c for c in args.cpus.split(",") if c in runnable]
    found = models(os.path.join(HERE, ".cache"))
    wanted = [m for m in args.models.split(",") if m in found]
    if not wanted:
        sys.exit("bench/int8_cpus.py: no model inputs under bench/.cache; run bench/int8.py "
                 "and bench/orinet.py first")
    os.makedirs(args.work, exist_ok=True)
    threads = [int(t) for t in args.threads.split(",")]
    lines = ["## int8 per instruction set", "",
             f"Written by `python3 bench/int8_cpus.py --infc build/bin/infc` (threads "
             f"{args.threads}, {args.runs} rounds of ~{args.seconds:g} s, alternating; medians). "
             "Each model compiled with `--cpu` for each instruction set this machine can run, "
             "fp32 and int8 (percentile calibration); ratio int8 / fp32 of the same CPU.", "",
             "| model | --cpu | int8 kernel | threads | fp32 ms | int8 ms | int8 / fp32 |",
             "|---|---|---|---:|---:|---:|---:|"]
    for name in wanted:
        f32, calib, feed = found[name]
        for cpu in cpus:
            stem = os.path.join(args.work, f"{name}.{cpu}")
            cpu_args = [] if cpu == "native" else ["--cpu", cpu]
            run([args.infc, "compile", f32, "-o", stem + ".fp32.so"] + cpu_args)
            run([args.infc, "compile", f32, "-o", stem + ".int8.so", "--quantize", "int8",
                 "--calibration", calib] + cpu_args)
            engines = {"fp32": lambda t, s=stem: infc_session(s + ".fp32.so", t),
                       "int8": lambda t, s=stem: infc_session(s + ".int8.so", t)}
            for t in threads:
                med = time_engines(engines, feed, t, args.runs, args.seconds)
                log(f"{name} {cpu} threads {t}: {med}")
                lines.append(f"| {name} | {cpu} | {CPUS[cpu]} | {t} | {med['fp32']:.2f} | "
                             f"{med['int8']:.2f} | {med['int8'] / med['fp32']:.2f} |")
    text = "\n".join(lines)
    print(text)
    with open(args.out or os.path.join(HERE, "int8_cpus.md"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())

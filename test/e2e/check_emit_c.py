#!/usr/bin/env python3
"""C source output (`infc compile --emit=c`), built by other compilers, against onnxruntime.

    check_emit_c.py --infc BUILD/bin/infc --work DIR --zoo ZOO_DIR [--models a,b,...]

For each zoo model: write its C source tree, build it with gcc and with clang
(`-O2 -Wall -Wextra -Werror`, every .c of the directory into one shared library, nothing
of infc's build on the command line), load each library with the Python package and compare
every output with onnxruntime's (rtol 1e-4, atol 1e-5; integers exactly). Also:
- model.c alone as C99 (`-std=c99`), the runtime's files as C11, model.h from C++17
  (a program that opens the model through its typed functions and the ABI);
- `--embed-weights` (weights.c, no weights file) for the MLP and LeNet;
- one build for every size: the BERT layer with `--dim seq=1..128` (generic code) at seq 1,
  7 and 128, the MLP with `--dim batch=1..16` (the batch loop) at batch 1, 3 and 16;
- `--weights int4` (the BERT layer) against infc's own library of the same flags;
- `--no-malloc` (model.c, model.h and weights.c alone; model_run_static on a caller's
  workspace filled with 0xFF bytes; no allocation or thread symbols) for the MLP and LeNet;
- the runtime's OpenMP entry points renamed infc__kmpc_* (none named __kmpc_*);
- the weights file: missing, or another model's, refused by infc_model_create with
  INFC_ERR_UNAVAILABLE and infc_weights_error() saying why;
- aarch64: the BERT layer and LeNet sources cross-built (clang --target, and
  aarch64-linux-gnu-gcc where installed), run under qemu-aarch64 with cross_runner.c; and
  LeNet's source emitted for --target-triple aarch64-linux-gnu --cpu neoverse-n1;
- refusals: -o -, --target cuda, --embed-weights without --emit=c.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import ctypes
import glob
import os
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
import harness  # noqa: E402

DEFAULT_MODELS = ("mlp,mlp_ext,lenet,bottlenecks,decoder,seq_encoder,text_detector,qlinear_cnn,"
                  "upsampler_1d,bert_layer,resnet18,mobilenetv2")
CROSS_MODELS = ("lenet", "bert_layer")
SYSROOT = "/usr/aarch64-linux-gnu"
WARNINGS = ["-Wall", "-Wextra", "-Werror"]


def build_library(cc, src, out, extra=()):
    """Every .c of `src` into the shared library `out` with `cc`."""
    sources = sorted(glob.glob(os.path.join(src, "*.c")))
    return harness.run_tool([cc, "-O2", "-fPIC", "-shared", *WARNINGS, *extra, "-o", out,
                             *sources, "-lm", "-lpthread"], timeout=600)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--python-dir", default=os.path.join(harness.REPO_ROOT, "python"))
    args = ap.parse_args()
    compilers = [cc for cc in ("gcc", "clang-22") if shutil.which(cc)]
    if harness.missing({"gcc or clang-22": compilers}):
        return 77
    infc = harness.import_infc(args.python_dir)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    tally = harness.Tally()
    report = tally.report

    def emit(model, out, *flags):
        return harness.run_tool([args.infc, "compile", model, "--emit=c", "-o", out, *flags],
                                timeout=600)

    def emit_and_build(model, src, lib, *flags):
        """--emit=c into `src`, then the first compiler's library `lib`; the failing step."""
        r = emit(model, src, *flags)
        return build_library(compilers[0], src, lib) if r.returncode == 0 else r

    def run_library(lib, weights, inputs):
        os.environ["INFC_WEIGHTS"] = weights
        with infc.load(lib) as m:
            return m(inputs)

    sources = {}
    for name in args.models.split(","):
        model = os.path.join(args.zoo, name + ".onnx")
        inputs = harness.npz_inputs(os.path.join(args.zoo, name + ".inputs.npz"))
        src = os.path.join(args.work, name)
        r = emit(model, src)
        if r.returncode != 0:
            report(False, f"{name}: --emit=c failed\n{r.describe()}")
            continue
        sources[name] = src
        ref = harness.ort_reference(model, inputs)
        for cc in compilers:
            lib = os.path.join(args.work, f"{name}.{cc}.so")
            b = build_library(cc, src, lib)
            if b.returncode != 0:
                report(False, f"{name}: {cc} -Wall -Wextra -Werror failed\n{b.describe()}")
                continue
            got = run_library(lib, os.path.join(src, "model.weights"), inputs)
            problems = harness.compare_outputs(got, ref)
            report(not problems, f"{name}: built by {cc} ({b.seconds:.1f} s), {len(ref)} outputs "
                   "against onnxruntime" + (f": {'; '.join(problems)}" if problems else ""))

    # The languages: model.c as C99, the runtime as C11, model.h from C++17.
    if "lenet" in sources and shutil.which("g++"):
        src = sources["lenet"]
        r = harness.run_tool(["gcc", "-std=c99", "-O1", *WARNINGS, "-c",
                              os.path.join(src, "model.c"), "-o",
                              os.path.join(args.work, "c99.o")], timeout=300)
        report(r.returncode == 0, "lenet: model.c builds as C99 (gcc -std=c99)"
               + (f"\n{r.describe()}" if r.returncode else ""))
        runtime = sorted(glob.glob(os.path.join(src, "infc_*.c")))
        r = harness.run_tool(["gcc", "-std=c11", "-O1", *WARNINGS, "-c", *runtime],
                             timeout=300, cwd=args.work)
        report(r.returncode == 0, "lenet: the runtime's files build as C11 (gcc -std=c11)"
               + (f"\n{r.describe()}" if r.returncode else ""))
        objects = []
        for c in sorted(glob.glob(os.path.join(src, "*.c"))):
            o = os.path.join(args.work, "cxx_" + os.path.basename(c) + ".o")
            harness.run_tool(["gcc", "-O1", "-c", c, "-o", o], timeout=300)
            objects.append(o)
        program = os.path.join(args.work, "cxx_main")
        r = harness.run_tool(["g++", "-std=c++17", *WARNINGS, "-I", src,
                              os.path.join(HERE, "emit_c_main.cpp"), *objects, "-o", program,
                              "-lm", "-lpthread"], timeout=300)
        if r.returncode == 0:
            r = harness.run_tool([program, os.path.join(src, "model.weights")], timeout=120)
        report(r.returncode == 0 and "ok" in r.stdout,
               "lenet: model.h from C++17, the model run through its typed functions: "
               + (r.stdout.strip()[-200:] if r.returncode == 0 else f"\n{r.describe()}"))

    # --embed-weights: no weights file at all.
    for name in ("mlp", "lenet"):
        model = os.path.join(args.zoo, name + ".onnx")
        src = os.path.join(args.work, name + "_embedded")
        lib = os.path.join(args.work, name + "_embedded.so")
        r = emit_and_build(model, src, lib, "--embed-weights")
        if r.returncode != 0:
            report(False, f"{name} --embed-weights: failed\n{r.describe()}")
            continue
        inputs = harness.npz_inputs(os.path.join(args.zoo, name + ".inputs.npz"))
        got = run_library(lib, os.path.join(args.work, "nowhere.weights"), inputs)
        problems = harness.compare_outputs(got, harness.ort_reference(model, inputs))
        report(not os.path.exists(os.path.join(src, "model.weights")) and not problems,
               f"{name} --embed-weights: weights.c, no weights file, outputs against onnxruntime"
               + (f": {'; '.join(problems)}" if problems else ""))

    # One library for every size: the BERT layer's sequence as generic code (--dim seq) and
    # the MLP's batch as the batch loop, through C, at several sizes.
    sys.path.insert(0, os.path.join(HERE, "..", "models"))
    from make_zoo import with_symbolic_dims
    for name, dims, sizes in (("bert_layer", dict(seq=True), (1, 7, 128)),
                              ("mlp", dict(batch=True), (1, 3, 16))):
        dim = next(iter(dims))
        model = os.path.join(args.work, f"{name}_{dim}.onnx")
        with_symbolic_dims(os.path.join(args.zoo, name + ".onnx"), model, **dims)
        src = os.path.join(args.work, f"{name}_{dim}")
        lib = src + ".so"
        r = emit_and_build(model, src, lib, "--dim", f"{dim}=1..{max(sizes)}")
        if r.returncode != 0:
            report(False, f"{name} --dim {dim}: failed\n{r.describe()}")
            continue
        base = harness.npz_inputs(os.path.join(args.zoo, name + ".inputs.npz"))
        problems = []
        for size in sizes:
            axis = 1 if dim == "seq" else 0
            inputs = {k: np.resize(np.take(v, [0], axis=0) if axis == 0 else v[:, :1],
                                   v.shape[:axis] + (size,) + v.shape[axis + 1:])
                      for k, v in base.items()}
            got = run_library(lib, os.path.join(src, "model.weights"), inputs)
            problems += [f"{dim} {size}: {p}" for p in
                         harness.compare_outputs(got, harness.ort_reference(model, inputs))]
        report(not problems, f"{name} --dim {dim}=1..{max(sizes)}: one C build at {dim} "
               f"{', '.join(map(str, sizes))} against onnxruntime"
               + (f": {'; '.join(problems)}" if problems else ""))

    # --no-malloc: model.c and weights.c alone, model_run_static through ctypes.
    for name in ("mlp", "lenet"):
        model = os.path.join(args.zoo, name + ".onnx")
        src = os.path.join(args.work, name + "_static")
        lib = os.path.join(args.work, name + "_static.so")
        r = emit_and_build(model, src, lib, "--no-malloc")
        if r.returncode != 0:
            report(False, f"{name} --no-malloc: failed\n{r.describe()}")
            continue
        files = sorted(os.listdir(src))
        undefined = harness.run_tool(["nm", "-u", lib], timeout=60).stdout.split()
        allocating = [u for u in undefined
                      if u.split("@")[0] in ("malloc", "calloc", "realloc", "free",
                                             "aligned_alloc", "posix_memalign")
                      or u.startswith("pthread_")]
        header = open(os.path.join(src, "model.h")).read()
        workspace = int(header.split("#define MODEL_WORKSPACE_BYTES ")[1].split()[0])
        inputs = harness.npz_inputs(os.path.join(args.zoo, name + ".inputs.npz"))
        ref = harness.ort_reference(model, inputs)
        handle = ctypes.CDLL(lib, mode=ctypes.RTLD_LOCAL)
        # 64-byte aligned workspace, filled with NaNs' bytes: the model must not read it first.
        raw = np.full(workspace + 64, 0xFF, np.uint8)
        offset = (-raw.ctypes.data) % 64
        arrays = [np.ascontiguousarray(x) for x in inputs.values()]
        outs = {k: np.empty_like(v) for k, v in ref.items()}
        handle.model_run_static(ctypes.c_void_p(raw.ctypes.data + offset),
                                *[ctypes.c_void_p(a.ctypes.data) for a in arrays],
                                *[ctypes.c_void_p(o.ctypes.data) for o in outs.values()])
        problems = harness.compare_outputs(outs, ref)
        report(files == ["model.c", "model.h", "weights.c"] and not allocating and not problems,
               f"{name} --no-malloc: {files}, workspace {workspace} bytes, undefined "
               f"allocation or thread symbols {allocating}, outputs against onnxruntime"
               + (f": {'; '.join(problems)}" if problems else ""))

    # The runtime's OpenMP entry points keep out of libgomp's way.
    if "mlp" in sources:
        lib = os.path.join(args.work, f"mlp.{compilers[0]}.so")
        symbols = harness.run_tool(["nm", lib], timeout=60).stdout.split()
        plain = sorted({s for s in symbols if s.startswith("__kmpc_")})
        renamed = sorted({s for s in symbols if s.startswith("infc__kmpc_")})
        report(not plain and "infc__kmpc_fork_call" in renamed,
               f"mlp: OpenMP entry points renamed ({len(renamed)} infc__kmpc_*), plain {plain}")

    # Weight-only int4 (--weights): the C source against infc's own library of the same
    # flags (its numbers are e2e_weight_only's), within rounding.
    if "bert_layer" in sources:
        model = os.path.join(args.zoo, "bert_layer.onnx")
        src = os.path.join(args.work, "bert_layer_int4")
        lib = os.path.join(args.work, "bert_layer_int4.so")
        ref_lib = os.path.join(args.work, "bert_layer_int4_ref.so")
        r = emit_and_build(model, src, lib, "--weights", "int4")
        if r.returncode == 0:
            r = harness.run_tool([args.infc, "compile", model, "-o", ref_lib, "--weights", "int4",
                                  "--cpu", "x86-64-v3"], timeout=600)
        problems = [] if r.returncode == 0 else [r.describe()]
        if not problems:
            inputs = harness.npz_inputs(os.path.join(args.zoo, "bert_layer.inputs.npz"))
            got = run_library(lib, os.path.join(src, "model.weights"), inputs)
            with infc.load(ref_lib) as m:
                want = m(inputs)
            for k, v in want.items():
                ok, summary = harness.compare(np.asarray(got[k]), np.asarray(v), 1e-4, 1e-5)
                if not ok:
                    problems.append(f"{k}: {summary}")
        report(not problems, "bert_layer --weights int4: the C source against the library"
               + (f": {'; '.join(problems)}" if problems else ""))

    # The weights file missing or another model's: a clear error, no run.
    if "mlp" in sources and "lenet" in sources:
        lib = os.path.join(args.work, f"mlp.{compilers[0]}.so")
        for weights, expect in ((os.path.join(args.work, "missing.weights"), "cannot open"),
                                (os.path.join(sources["lenet"], "model.weights"),
                                 "is not the weights file of this model")):
            os.environ["INFC_WEIGHTS"] = weights
            # A copy of its own: dlopen of a loaded path returns the library with its
            # weights already read.
            fresh = os.path.join(args.work, f"mlp_fresh_{expect[:6].replace(' ', '_')}.so")
            shutil.copy(lib, fresh)
            handle = ctypes.CDLL(fresh, mode=ctypes.RTLD_LOCAL)
            handle.infc_weights_error.restype = ctypes.c_char_p
            model = ctypes.c_void_p()
            status = handle.infc_model_create(ctypes.byref(model))
            why = handle.infc_weights_error().decode()
            report(status == 5 and expect in why,
                   f"mlp with weights {os.path.basename(os.path.dirname(weights))}/"
                   f"{os.path.basename(weights)}: status {status}, '{why}'")

    # aarch64: cross-built, run under qemu.
    qemu = shutil.which("qemu-aarch64")
    cross_ready = qemu and os.path.exists(os.path.join(SYSROOT, "include", "stdio.h"))
    cross_compilers = [["clang-22", "--target=aarch64-linux-gnu", "-fuse-ld=lld"]]
    if shutil.which("aarch64-linux-gnu-gcc"):
        cross_compilers.append(["aarch64-linux-gnu-gcc"])
    runner = os.path.join(args.work, "cross_runner")
    if cross_ready:
        r = harness.run_tool([*cross_compilers[0], "-O1", *WARNINGS, "-I",
                              os.path.join(harness.REPO_ROOT, "include"),
                              os.path.join(HERE, "cross_runner.c"), "-o", runner], timeout=120)
        cross_ready = r.returncode == 0
        report(cross_ready, "cross_runner built for aarch64"
               + (f"\n{r.describe()}" if r.returncode else ""))
    else:
        print("skipped: aarch64 (needs qemu-user and libc6-dev-arm64-cross)")
    def input_files(name, inputs):
        """Each input's raw bytes as WORK/NAME_in<i>.bin, cross_runner's arguments."""
        files = []
        for i, x in enumerate(inputs.values()):
            path = os.path.join(args.work, f"{name}_in{i}.bin")
            np.ascontiguousarray(x).tofile(path)
            files.append(path)
        return files

    def run_under_qemu(lib, weights, out, files, ref):
        """Runs `lib` with cross_runner under qemu-aarch64; (the run, problems against ref)."""
        os.makedirs(out, exist_ok=True)
        r = harness.run_tool([qemu, "-L", SYSROOT, runner, lib, out] + files, timeout=900,
                             env=dict(os.environ, INFC_WEIGHTS=weights))
        if r.returncode != 0:
            return r, [f"the aarch64 run failed\n{r.describe()}"]
        problems = []
        for j, (oname, want) in enumerate(ref.items()):
            got = np.fromfile(os.path.join(out, f"out{j}.bin"), dtype=want.dtype)
            ok, summary = harness.compare(got.reshape(want.shape), want, 1e-4, 1e-5)
            if not ok:
                problems.append(f"{oname}: {summary}")
        return r, problems

    for name in CROSS_MODELS if cross_ready else ():
        if name not in sources:
            continue
        model = os.path.join(args.zoo, name + ".onnx")
        inputs = harness.npz_inputs(os.path.join(args.zoo, name + ".inputs.npz"))
        ref = harness.ort_reference(model, inputs)
        files = input_files(name, inputs)
        for cc in cross_compilers:
            tag = os.path.basename(cc[0])
            lib = os.path.join(args.work, f"{name}.aarch64.{tag}.so")
            b = build_library(cc[0], sources[name], lib, extra=cc[1:])
            if b.returncode != 0:
                report(False, f"{name}: {' '.join(cc)} failed\n{b.describe()}")
                continue
            r, problems = run_under_qemu(lib, os.path.join(sources[name], "model.weights"),
                                         os.path.join(args.work, f"{name}_out_{tag}"), files, ref)
            report(not problems, f"{name}: built by {' '.join(cc)}, run under qemu-aarch64 "
                   f"({r.seconds:.1f} s), against onnxruntime"
                   + (f": {'; '.join(problems)}" if problems else ""))

    # Source emitted for the ARM triple itself (NEON-sized tiles for --cpu neoverse-n1).
    if cross_ready and "lenet" in sources:
        model = os.path.join(args.zoo, "lenet.onnx")
        src = os.path.join(args.work, "lenet_neoverse")
        r = emit(model, src, "--target-triple", "aarch64-linux-gnu", "--cpu", "neoverse-n1")
        lib = os.path.join(args.work, "lenet_neoverse.so")
        if r.returncode == 0:
            r = build_library(cross_compilers[-1][0], src, lib, extra=cross_compilers[-1][1:])
        problems = [r.describe()] if r.returncode != 0 else []
        if not problems:
            inputs = harness.npz_inputs(os.path.join(args.zoo, "lenet.inputs.npz"))
            r, problems = run_under_qemu(lib, os.path.join(src, "model.weights"),
                                         os.path.join(args.work, "lenet_neoverse_out"),
                                         input_files("lenet", inputs),
                                         harness.ort_reference(model, inputs))
        report(not problems, "lenet: --emit=c --target-triple aarch64-linux-gnu --cpu "
               "neoverse-n1, built by " + " ".join(cross_compilers[-1]) + ", under qemu"
               + (f": {'; '.join(problems)}" if problems else ""))

    mlp = os.path.join(args.zoo, "mlp.onnx")
    for flags, expect in ((["--emit=c", "-o", "-"], "writes a directory"),
                          (["--emit=c", "-o", os.path.join(args.work, "x"), "--target", "cuda"],
                           "--emit=cuda"),
                          (["-o", os.path.join(args.work, "x.so"), "--embed-weights"],
                           "--embed-weights is for --emit=c")):
        r = harness.run_tool([args.infc, "compile", mlp, *flags], timeout=120)
        report(r.returncode == 1 and expect in r.stderr,
               f"refused: {' '.join(flags[:3])}...: {r.stderr.strip()[-150:]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""--target cuda on an NVIDIA GPU: correctness against onnxruntime and latency, in one go.

The GPU machine lent to a session has the CUDA driver, PyTorch and onnxruntime (CPU build)
but no LLVM/MLIR, so infc cannot run there, and at most 64 MiB travel with a call. Hence
two steps:

  1. here, on the build machine (about 9 minutes):
       python3 bench/gpu.py prepare --infc build/bin/infc [--gpu sm_90] [--pack bench/gpu-pack]
     generates the models (test/models/make_zoo.py, seeded weights), compiles each with
     `infc compile --target cuda`, computes onnxruntime's CPU outputs on seeded inputs, and
     writes the pack: per model NAME.so.xz, NAME.inputs.npz, NAME.reference.npz, plus
     manifest.json; ResNet-50 and BERT-base also at batch 32 (NAME_b32), with --precision
     fp16 at batch 1 and 32 (NAME_fp16, NAME_fp16_b32; activations stored in half), bf16
     (NAME_bf16) and tf32 at batch 1 and 32 (NAME_tf32, NAME_tf32_b32), ResNet-50 also
     with --gpu-layout nchw at fp32 and fp16 (NAME_nchw, NAME_nchw_fp16; the others run
     NHWC), and fp16 at batch 32 with --gpu-index-bits 32 (NAME_i32_fp16_b32, beside
     NAME_fp16_b32's default 64); ResNet-18, MobileNetV2 and the BERT layer also built
     from --emit=cuda's source by nvcc and cc (NAME_src; NAME_src_fp16 but the BERT
     layer: the kernels printed as CUDA C++, linked in with bin2c, weights as C arrays):
     the reduced precisions checked by relative L2 error
     (RELATIVE_L2: 5e-3, bf16 3e-2). To fit the 64 MiB, the large models (ResNet-50,
     BERT-base) have compressible weights: every initializer repeats its first 4096 values
     (same scale and distribution) and BatchNorm is the identity (so folding it keeps the
     repetition). Their latency does not depend on the values; correctness is still checked
     against ORT on exactly those weights.
  2. on the GPU machine, with the pack carried (bench/.gitignore ignores it: name
     bench/gpu-pack in the device tool's `carry`; about 55 MiB):
       python3 bench/gpu.py run --pack bench/gpu-pack --out $OUT
     for each model: loads the .so through python/infc (the C ABI) with its CUDA graph
     required (INFC_CUDA_GRAPHS=require; if the capture fails, without, and the table says
     why), checks its outputs against the reference (rtol 1e-3, atol 1e-4: fp32), and times
     runs (P50 of --iters after --warmup) with host inputs and outputs, then with both in
     GPU memory on a PyTorch stream (their outputs must equal the host run's bit for bit).
     The baseline is PyTorch on the same GPU (torchvision ResNet-50, transformers
     BertModel; eager, cuDNN autotuning on, inputs already on the device) at batch 1 and 32,
     as the stand-in that this machine can run (its onnxruntime is the CPU build), like for
     like: fp32 rows with TF32 off (infc's fp32 kernels sum exact fp32 products), _tf32 rows
     with TF32 on (allow_tf32, as infc's --precision tf32), _fp16 and _bf16 rows with the
     model in that type. Writes $OUT/gpu.md and $OUT/gpu.json, and prints the
     table.

Exit status: 0 when every model matched, 1 otherwise.
"""

import argparse
import json
import lzma
import os
import shutil
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAKE_ZOO = os.path.join(REPO, "test", "models", "make_zoo.py")
# name -> (zoo model, compressible weights?)
MODELS = {
    "mlp": ("mlp", False), "lenet": ("lenet", False), "resnet18": ("resnet18", True),
    "mobilenetv2": ("mobilenetv2", True), "bert_layer": ("bert_layer", False),
    "decoder": ("decoder", False), "resnet50": ("resnet50", True),
    "bert_base": ("bert_base", True),
}
TILE = 4096
BATCHED = ("resnet50", "bert_base")  # also at batch 32, --precision fp16/bf16/tf32 (fp16, tf32 at 32 too)
CONV_MODELS = ("resnet50",)  # also with --gpu-layout nchw (fp32, fp16) beside the default nhwc
# Also built from --emit=cuda's source (NAME_src, NAME_src_fp16): nvcc's build of the printed
# kernels, to set against infc's own library row (small weights: they are C arrays).
SOURCE_MODELS = {"resnet18": ("fp32", "fp16"), "mobilenetv2": ("fp32", "fp16"),
                 "bert_layer": ("fp32",)}  # (the BERT layer's weights do not compress)
# The reduced precisions' bound on the relative L2 error against ORT's fp32 (bf16 keeps 8
# mantissa bits: 2.3e-3 a product measured, up to 1e-2 through the zoo's models).
RELATIVE_L2 = {"fp16": 5e-3, "tf32": 5e-3, "bf16": 3e-2}


def with_batch(model, batch):
    """The model with its inputs' first dim set to `batch` (the graph computes the rest)."""
    for v in model.graph.input:
        v.type.tensor_type.shape.dim[0].Clear()
        v.type.tensor_type.shape.dim[0].dim_value = batch
    for v in model.graph.output:
        v.type.tensor_type.shape.dim[0].Clear()
        v.type.tensor_type.shape.dim[0].dim_param = "batch"
    del model.graph.value_info[:]
    return model


def log(msg):
    print(msg, flush=True)


def compressible(model):
    """Every large initializer repeats its first TILE values; BatchNorm becomes the identity."""
    import onnx
    from onnx import numpy_helper
    bn_params = {}
    for node in model.graph.node:
        if node.op_type == "BatchNormalization":
            scale, bias, mean, var = node.input[1:5]
            bn_params.update({scale: 1.0, bias: 0.0, mean: 0.0, var: 1.0})
    for init in model.graph.initializer:
        a = numpy_helper.to_array(init)
        if init.name in bn_params:
            b = np.full(a.shape, bn_params[init.name], a.dtype)
        elif a.size > TILE and a.dtype.kind == "f":
            flat = a.reshape(-1)
            b = np.resize(flat[:TILE], flat.shape).reshape(a.shape).astype(a.dtype)
        else:
            continue
        init.CopyFrom(numpy_helper.from_array(b, init.name))
    return model


def build_from_source(args, onnx_path, so, extra):
    """--emit=cuda as docs/portable.md builds it: nvcc's fatbin of model.cu for --gpu linked
    in through bin2c, the weights as C arrays, one self-contained library. The failed
    step's CompletedProcess, or None."""
    src = so + ".src"
    shutil.rmtree(src, ignore_errors=True)
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    gencode = []
    for arch in args.gpu.split(","):
        gencode += ["-gencode", f"arch=compute_{arch[3:]},code=sm_{arch[3:]}"]
    steps = [([args.infc, "compile", onnx_path, "--target", "cuda", "--emit=cuda",
               "--embed-weights", "-o", src, *extra], None),
             ([os.path.join(cuda, "bin", "nvcc"), "-O3", "-fatbin", *gencode, "-o",
               "model.fatbin", "model.cu"], src)]
    for argv, cwd in steps:
        r = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
        if r.returncode:
            return r
    r = subprocess.run([os.path.join(cuda, "bin", "bin2c"), "-c", "-n", "infc_kernels_fatbin",
                        "model.fatbin"], capture_output=True, text=True, cwd=src)
    if r.returncode:
        return r
    with open(os.path.join(src, "kernels.c"), "w") as f:
        f.write(r.stdout)
    sources = sorted(p for p in os.listdir(src) if p.endswith(".c"))
    r = subprocess.run(["cc", "-O2", "-fPIC", "-shared", "-DINFC_KERNELS_EMBEDDED", "-o",
                        os.path.abspath(so), *sources, "-lm", "-lpthread"], capture_output=True,
                       text=True, cwd=src)
    shutil.rmtree(src, ignore_errors=True)
    return r if r.returncode else None


def pack_model(args, ort, pack, work, manifest, name, model, inputs, tile, extra=(),
               repeat=None, source=False):
    """Compiles one model for the GPU and adds it, its inputs and ORT's outputs to the pack.
    repeat=(model, times): the inputs are that packed model's, repeated along the batch, and
    the run step rebuilds them (the pack stays small). source: the library built from
    --emit=cuda's source by nvcc and cc instead (build_from_source)."""
    import onnx
    onnx_path = os.path.join(work, name + ".bench.onnx")
    onnx.save(model, onnx_path)
    so = os.path.join(work, name + ".so")
    t0 = time.perf_counter()
    if source:
        r = build_from_source(args, onnx_path, so, extra)
    else:
        r = subprocess.run([args.infc, "compile", onnx_path, "--target", "cuda", "--gpu",
                            args.gpu, "-o", so, *extra], capture_output=True, text=True)
        r = r if r.returncode else None
    if r:
        log(f"{name}: compile failed, skipped:\n{r.stderr.strip()}")
        return
    compile_s = time.perf_counter() - t0
    sess = ort.InferenceSession(onnx_path, ort.SessionOptions(),
                                providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    reference = dict(zip(names, sess.run(names, inputs)))
    with open(so, "rb") as f, lzma.open(os.path.join(pack, name + ".so.xz"), "wb",
                                        preset=6) as out:
        shutil.copyfileobj(f, out)
    os.remove(so)
    np.savez_compressed(os.path.join(pack, name + ".reference.npz"), **reference)
    manifest["models"][name] = {"compile_s": round(compile_s, 2),
                                "compressible_weights": tile, "compile_args": list(extra)}
    if repeat:
        manifest["models"][name]["inputs"] = {"repeat": repeat[0], "times": repeat[1]}
    else:
        np.savez(os.path.join(pack, name + ".inputs.npz"), **inputs)
    log(f"{name}: compiled in {compile_s:.1f} s, packed "
        f"{os.path.getsize(os.path.join(pack, name + '.so.xz')) / 1e6:.2f} MB")


def prepare(args):
    import onnx
    import onnxruntime as ort
    pack = os.path.abspath(args.pack)
    work = os.path.join(pack, "work")
    shutil.rmtree(pack, ignore_errors=True)
    os.makedirs(work)
    manifest = {"gpu": args.gpu, "models": {}}
    for name in args.models.split(","):
        zoo, tile = MODELS[name]
        log(f"{name}: generating")
        subprocess.run([sys.executable, MAKE_ZOO, "--out", work, "--only", zoo], check=True,
                       stdout=subprocess.DEVNULL)
        model = onnx.load(os.path.join(work, zoo + ".onnx"))
        if tile:
            model = compressible(model)
        inputs = dict(np.load(os.path.join(work, zoo + ".inputs.npz")))
        pack_model(args, ort, pack, work, manifest, name, model, inputs, tile)
        for precision in SOURCE_MODELS.get(name, ()):  # --emit=cuda built by nvcc
            pack_model(args, ort, pack, work, manifest,
                       name + "_src" + ("" if precision == "fp32" else "_" + precision), model,
                       inputs, tile, ("--precision", precision), repeat=(name, 1), source=True)
        if name in BATCHED:
            batched = with_batch(onnx.load(os.path.join(work, zoo + ".onnx")), 32)
            batched = compressible(batched) if tile else batched
            inputs32 = {k: np.repeat(v, 32, axis=0) for k, v in inputs.items()}
            pack_model(args, ort, pack, work, manifest, name + "_b32", batched, inputs32, tile,
                       repeat=(name, 32))
            # fp16 operands, f32 sums; TF32 tensor cores: checked by relative L2 error
            pack_model(args, ort, pack, work, manifest, name + "_fp16", model, inputs, tile,
                       ("--precision", "fp16"), repeat=(name, 1))
            pack_model(args, ort, pack, work, manifest, name + "_fp16_b32", batched, inputs32,
                       tile, ("--precision", "fp16"), repeat=(name, 32))
            pack_model(args, ort, pack, work, manifest, name + "_bf16", model, inputs, tile,
                       ("--precision", "bf16"), repeat=(name, 1))
            pack_model(args, ort, pack, work, manifest, name + "_tf32", model, inputs, tile,
                       ("--precision", "tf32"), repeat=(name, 1))
            pack_model(args, ort, pack, work, manifest, name + "_tf32_b32", batched,
                       inputs32, tile, ("--precision", "tf32"), repeat=(name, 32))
            # 32-bit index arithmetic against the default 64 (fewer registers in the loop
            # kernels, more in the tiled ones: only a GPU can say which is faster)
            pack_model(args, ort, pack, work, manifest, name + "_i32_fp16_b32", batched,
                       inputs32, tile, ("--precision", "fp16", "--gpu-index-bits", "32"),
                       repeat=(name, 32))
            if name in CONV_MODELS:  # the model's own layout, to set NHWC against
                pack_model(args, ort, pack, work, manifest, name + "_nchw", model, inputs,
                           tile, ("--gpu-layout", "nchw"), repeat=(name, 1))
                pack_model(args, ort, pack, work, manifest, name + "_nchw_fp16", model,
                           inputs, tile, ("--gpu-layout", "nchw", "--precision", "fp16"),
                           repeat=(name, 1))
    shutil.rmtree(work)
    with open(os.path.join(pack, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    total = sum(os.path.getsize(os.path.join(pack, p)) for p in os.listdir(pack))
    log(f"pack: {pack}, {total / 2**20:.1f} MiB" + ("  (over the 64 MiB a call carries)"
                                                     if total > 60 * 2**20 else ""))
    return 0


def p50_ms(fn, warmup, iters, sync=None):
    for _ in range(warmup):
        fn()
    if sync:
        sync()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def with_graphs(setting, make):
    """make() with INFC_CUDA_GRAPHS=setting (read at session creation), the caller's own
    setting restored after."""
    before = os.environ.get("INFC_CUDA_GRAPHS")
    os.environ["INFC_CUDA_GRAPHS"] = setting
    try:
        return make()
    finally:
        if before is None:
            os.environ.pop("INFC_CUDA_GRAPHS", None)
        else:
            os.environ["INFC_CUDA_GRAPHS"] = before


def load_with_graph(infc, so):
    """The model with its CUDA graph required (INFC_CUDA_GRAPHS=require), and "yes"; if the
    capture fails, the model launching each kernel per run, and why the graph is missing.
    INFC_CUDA_GRAPHS=0 set by the caller is kept (no graph)."""
    if os.environ.get("INFC_CUDA_GRAPHS") == "0":
        return infc.load(so), "no: INFC_CUDA_GRAPHS=0"
    try:
        return with_graphs("require", lambda: infc.load(so)), "yes"
    except infc.Error as e:
        if "INFC_CUDA_GRAPHS=require" not in str(e):
            raise
        return with_graphs("1", lambda: infc.load(so)), f"no: {e}"


def device_io(model, inputs, host_outputs, graph, warmup, iters):
    """P50 ms of runs with the inputs and outputs in GPU memory (PyTorch CUDA tensors through
    __cuda_array_interface__, no copy through the host) on PyTorch's stream, like the
    PyTorch baseline's; and whether their outputs are bit for bit the host run's. (None,
    None) without PyTorch on a GPU. `graph`: whether the host run's session had its CUDA
    graph; this session then must too."""
    try:
        import torch
    except ImportError:
        return None, None
    if not torch.cuda.is_available():
        return None, None
    torch_inputs = {k: torch.from_numpy(np.require(v, requirements="C")).cuda() for k, v in inputs.items()}
    outputs = {k: torch.from_numpy(np.empty_like(v)).cuda() for k, v in host_outputs.items()}
    torch.cuda.synchronize()  # the inputs are complete before another stream reads them
    stream = torch.cuda.Stream()  # not the legacy default one: a run returns once enqueued
    session = with_graphs("require" if graph else "0",
                          lambda: model.session(cuda_stream=stream.cuda_stream))
    try:
        ms = p50_ms(lambda: session.run(torch_inputs, out=dict(outputs)), warmup, iters,
                    stream.synchronize)
    finally:
        session.close()
    same = all(np.array_equal(outputs[k].cpu().numpy(), host_outputs[k], equal_nan=True)
               for k in outputs)
    return ms, same


def torch_baseline(name, batch, precision, warmup, iters):
    """PyTorch on the GPU for the models it has (None for the others): `precision` fp32
    (TF32 off), tf32 (TF32 on), fp16 or bf16 (the model in that type)."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    # The model's (and the image's) type: fp16 / bf16 rows in that type, the others f32.
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision, torch.float32)
    if name == "resnet50":
        import torchvision
        model = torchvision.models.resnet50().cuda().eval()
        model = model.to(dtype)
        x = torch.randn(batch, 3, 224, 224, device="cuda", dtype=dtype)
        run = lambda: model(x)  # noqa: E731
    elif name == "bert_base":
        import transformers
        model = transformers.BertModel(transformers.BertConfig()).cuda().eval()
        model = model.to(dtype)
        ids = torch.randint(0, 30000, (batch, 128), device="cuda")
        run = lambda: model(input_ids=ids)  # noqa: E731
    else:
        return None
    with torch.inference_mode():
        return p50_ms(run, warmup, iters, torch.cuda.synchronize)


def run(args):
    sys.path.insert(0, os.path.join(REPO, "python"))
    import infc
    pack = os.path.abspath(args.pack)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    manifest = json.load(open(os.path.join(pack, "manifest.json")))
    work = os.path.join("/tmp", "infc-gpu")
    os.makedirs(work, exist_ok=True)
    rows, failed = [], 0
    try:
        import onnxruntime as ort
        ort_cuda = "CUDAExecutionProvider" in ort.get_available_providers()
    except ImportError:
        ort_cuda = False
    for name in manifest["models"]:
        so = os.path.join(work, name + ".so")
        with lzma.open(os.path.join(pack, name + ".so.xz")) as f, open(so, "wb") as o:
            shutil.copyfileobj(f, o)
        spec = manifest["models"][name].get("inputs", {})
        source = spec.get("repeat", name)
        inputs = dict(np.load(os.path.join(pack, source + ".inputs.npz")))
        if spec:
            inputs = {k: np.repeat(v, spec["times"], axis=0) for k, v in inputs.items()}
        reference = dict(np.load(os.path.join(pack, name + ".reference.npz")))
        row = {"model": name}
        try:
            t0 = time.perf_counter()
            model, row["cuda_graph"] = load_with_graph(infc, so)
            row["session_s"] = round(time.perf_counter() - t0, 3)
            got = model(inputs)
            worst = 0.0
            ok = True
            compile_args = manifest["models"][name].get("compile_args", [])
            reduced = (compile_args[compile_args.index("--precision") + 1]
                       if "--precision" in compile_args else None)
            for k, ref in reference.items():
                g = got[k]
                if reduced:  # relative L2 error, within RELATIVE_L2
                    diff = np.linalg.norm(g.astype(np.float64) - ref)
                    err = np.array([diff / max(np.linalg.norm(ref), 1e-30)
                                    / RELATIVE_L2[reduced]])
                else:  # fp32: rtol 1e-3, atol 1e-4
                    err = np.abs(g.astype(np.float64) - ref) / (1e-4 + 1e-3 * np.abs(ref))
                worst = max(worst, float(err.max()) if err.size else 0.0)
                ok &= g.shape == ref.shape and bool(np.isfinite(g).all()) and worst <= 1.0
            row["match"] = bool(ok)
            row["worst_error_over_tolerance"] = round(worst, 4)
            failed += not ok
            row["infc_ms"] = round(p50_ms(lambda: model(inputs), args.warmup, args.iters), 3)
            try:
                ms, same = device_io(model, inputs, got, row["cuda_graph"] == "yes",
                                     args.warmup, args.iters)
            except Exception as e:  # noqa: BLE001 - the host figures stand
                ms, same = None, None
                row["device_io_error"] = str(e)
                failed += 1
            if ms is not None:
                row["infc_device_ms"] = round(ms, 3)
                row["device_io_same"] = same
                failed += not same
        except Exception as e:  # noqa: BLE001 - reported, the next model still runs
            row["error"] = str(e)
            failed += 1
        base, batch = (name[:-4], 32) if name.endswith("_b32") else (name, 1)
        precision = "fp32"
        for suffix in ("_fp16", "_bf16", "_tf32"):
            if base.endswith(suffix):
                base, precision = base[:-len(suffix)], suffix[1:]
        for variant in ("_nchw", "_i32", "_src"):  # the same model as the baseline sees it
            base = base[:-len(variant)] if base.endswith(variant) else base
        if base in BATCHED:
            try:
                row["torch_ms"] = torch_baseline(base, batch, precision, args.warmup, args.iters)
            except Exception as e:  # noqa: BLE001 - a missing torchvision, say: infc's stand
                row["torch_ms"] = f"failed: {e}"
        rows.append(row)
        log(json.dumps(row))
    lines = ["# infc --target cuda on " + gpu_name(), "",
             f"Command: `python3 bench/gpu.py run --pack {args.pack}` (P50 of {args.iters} "
             f"runs after {args.warmup} warm-up). infc ms: host inputs and outputs, copies "
             "included; infc device ms: inputs and outputs in GPU memory (PyTorch tensors) "
             "on PyTorch's stream, as the baseline's; infc / PyTorch compares the latter.",
             f"onnxruntime CUDA provider: {'yes' if ort_cuda else 'not installed here'}; "
             "baseline: PyTorch eager on the same GPU where it has the model (inputs on the "
             "device; fp32 rows TF32 off, _tf32 rows TF32 on, _fp16 / _bf16 rows the model in "
             "that type).",
             "",
             "| model (_b32: batch 32, _fp16 / _bf16 / _tf32: --precision, _src: built by nvcc "
             "from --emit=cuda's source) | matches ORT | infc ms "
             "| infc device ms | PyTorch ms | infc / PyTorch | CUDA graph | session creation s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = (f"{r['infc_device_ms'] / r['torch_ms']:.2f}"
                 if r.get("infc_device_ms") and isinstance(r.get("torch_ms"), float) else "-")
        device = r.get("infc_device_ms", r.get("device_io_error", "-"))
        if r.get("device_io_same") is False:
            device = f"{device} (outputs differ from the host run's)"
        lines.append(f"| {r['model']} | {r.get('match', r.get('error', '?'))} "
                     f"| {r.get('infc_ms', '-')} | {device} | {r.get('torch_ms', '-')} "
                     f"| {ratio} | {r.get('cuda_graph', '-')} | {r.get('session_s', '-')} |")
    open(os.path.join(out, "gpu.md"), "w").write("\n".join(lines) + "\n")
    json.dump(rows, open(os.path.join(out, "gpu.json"), "w"), indent=1)
    log("\n".join(lines))
    return 1 if failed else 0


def gpu_name():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.strip() or "a GPU"
    except OSError:
        return "a GPU"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare", help="compile the models and write the pack (here)")
    p.add_argument("--infc", required=True)
    p.add_argument("--gpu", default="sm_90")
    p.add_argument("--pack", default=os.path.join(REPO, "bench", "gpu-pack"))
    p.add_argument("--models", default=",".join(MODELS))
    r = sub.add_parser("run", help="check and time the pack (on the GPU machine)")
    r.add_argument("--pack", default=os.path.join(REPO, "bench", "gpu-pack"))
    r.add_argument("--out", default=".")
    r.add_argument("--warmup", type=int, default=10)
    r.add_argument("--iters", type=int, default=50)
    args = ap.parse_args(argv)
    return prepare(args) if args.step == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())

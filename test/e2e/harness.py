"""Shared helpers of the end-to-end scripts in test/e2e (not a test itself).

Runs the `infc` binary with crash detection, computes onnxruntime references, imports the
`infc` Python package from the repository's python/ directory, and compares arrays.
"""

import importlib
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_PYTHON_DIR = os.path.join(REPO_ROOT, "python")

# Output that means the tool crashed or hit an internal error instead of reporting one.
CRASH_MARKERS = re.compile(
    r"Stack dump|PLEASE submit a bug report|Segmentation fault|core dumped|Assertion .* failed"
    r"|terminate called|AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:"
    r"|LLVM ERROR|UNREACHABLE executed|Traceback \(most recent call last\)")


class ToolResult:
    def __init__(self, argv, returncode, stdout, stderr, seconds, timed_out=False):
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds
        self.timed_out = timed_out

    def crash_reason(self):
        """Why this run counts as a crash (signal, exit code >= 128, crash text), or None."""
        if self.timed_out:
            return "timed out"
        if self.returncode < 0:
            try:
                sig = signal.Signals(-self.returncode).name
            except ValueError:
                sig = str(-self.returncode)
            return f"killed by signal {sig}"
        if self.returncode >= 128:
            return f"exit code {self.returncode} (>= 128: a signal or an abort)"
        m = CRASH_MARKERS.search(self.stderr + self.stdout)
        if m:
            return f"crash text in output: {m.group(0)!r}"
        return None

    def describe(self):
        cmd = " ".join(_quote(a) for a in self.argv)
        return (f"$ {cmd}\n  exit {self.returncode} after {self.seconds:.1f} s"
                + (f"\n  stdout: {_indent(self.stdout)}" if self.stdout.strip() else "")
                + (f"\n  stderr: {_indent(self.stderr)}" if self.stderr.strip() else ""))


def _quote(a):
    return a if re.fullmatch(r"[\w./=,:+-]+", a) else repr(a)


def _indent(text, limit=4000):
    text = text.strip()
    if len(text) > limit:
        text = text[:limit] + f"... [{len(text) - limit} more chars]"
    return text.replace("\n", "\n          ")


def run_tool(argv, timeout, cwd=None, env=None):
    """Run a command, capturing text output; never raises on failure or timeout. `env`
    adds to (or, with None values, removes from) this process's environment."""
    t0 = time.perf_counter()
    full_env = None
    if env:
        full_env = dict(os.environ)
        for k, v in env.items():
            if v is None:
                full_env.pop(k, None)
            else:
                full_env[k] = v
    try:
        p = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                           timeout=timeout, cwd=cwd, env=full_env)
        return ToolResult(argv, p.returncode, p.stdout, p.stderr, time.perf_counter() - t0)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return ToolResult(argv, -1, out, err, time.perf_counter() - t0, timed_out=True)


def env_without_compiler(infc):
    """run_tool's `env` for a process that must find no infc by itself: PATH without the
    directory of the build's compiler `infc`, no INFC_COMPILER, no PYTHONPATH."""
    build_bin = os.path.dirname(os.path.abspath(infc))
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if os.path.abspath(p) != build_bin)
    return {"PATH": path, "INFC_COMPILER": None, "PYTHONPATH": None}


def _cpu_flags():
    with open("/proc/cpuinfo") as f:
        return set(next((line.split(":", 1)[1].split() for line in f
                         if line.startswith("flags")), []))


# Integer ops whose (activation, weight) inputs ORT multiplies as u8 x s8, with the weight's
# zero point: (activation zero point, weight, weight zero point) input indices.
_INTEGER_OPS = {"QLinearConv": (2, 3, 5), "QLinearMatMul": (2, 3, 5),
                "ConvInteger": (2, 1, 3), "MatMulInteger": (2, 1, 3)}


def _u8s8_as_u8u8(model_path):
    """The model with every constant int8 weight that meets uint8 activations in an integer
    op (and its zero point) shifted by 128 into uint8: the same products exactly, or None
    when there is none. onnxruntime's u8 x s8 kernels on a CPU without an 8-bit dot product
    (AVX2, AVX-512 without VNNI) sum pairs of products in int16 with saturation (vpmaddubsw),
    so its results for such models are wrong there (measured on AMD Zen 3: the zoo's
    qlinear_cnn off by 68 where the output step is 0.8; infc matches a numpy reference);
    its u8 x u8 kernels widen to int16 first and are exact."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(model_path)
    if not any(n.op_type in _INTEGER_OPS for n in model.graph.node):
        return None
    inits = {i.name: i for i in model.graph.initializer}
    typed = onnx.shape_inference.infer_shapes(model)
    elem = {v.name: v.type.tensor_type.elem_type for v in list(typed.graph.value_info)
            + list(typed.graph.input) + list(typed.graph.output)}
    elem.update({name: i.data_type for name, i in inits.items()})
    changed = False
    for n in model.graph.node:
        if n.op_type not in _INTEGER_OPS:
            continue
        a_zero, w_idx, wz_idx = _INTEGER_OPS[n.op_type]
        act = n.input[0]
        if elem.get(act) != onnx.TensorProto.UINT8 or len(n.input) <= w_idx:
            continue
        w = inits.get(n.input[w_idx])
        if w is None or w.data_type != onnx.TensorProto.INT8:
            continue
        wz_name = n.input[wz_idx] if len(n.input) > wz_idx else ""
        wz = inits.get(wz_name) if wz_name else None
        if wz_name and (wz is None or wz.data_type != onnx.TensorProto.INT8):
            continue
        shifted = (numpy_helper.to_array(w).astype(np.int16) + 128).astype(np.uint8)
        w.CopyFrom(numpy_helper.from_array(shifted, w.name))
        if wz is not None:
            z = (numpy_helper.to_array(wz).astype(np.int16) + 128).astype(np.uint8)
            wz.CopyFrom(numpy_helper.from_array(z, wz.name))
        else:  # no zero point: 0 becomes 128
            name = n.input[w_idx] + "__zero_u8"
            model.graph.initializer.append(
                numpy_helper.from_array(np.array(128, np.uint8), name))
            while len(n.input) <= wz_idx:
                n.input.append("")
            n.input[wz_idx] = name
        changed = True
    return model.SerializeToString() if changed else None


def write_gemm_model(path, m, w, bias):
    """Saves to `path` a model of one Gemm: the input x [m, k] times the constant weights
    w [k, n] plus the constant bias [n], the output y [m, n] (opset 17)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    k, n = w.shape
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w", "b"], ["y"])], "gemm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def ort_reference(model_path, inputs, threads=0):
    """Reference outputs from onnxruntime's CPU provider with graph optimizations disabled:
    ORT's own fusions (Conv+BN folding, GELU/LayerNorm/attention fusion, ...) change the order
    of floating-point operations, and the reference should be the graph as written. On a CPU
    without VNNI, a model with u8 x s8 integer products runs as the equivalent u8 x u8 one
    (_u8s8_as_u8u8), which ORT computes exactly there."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = threads
    model = model_path
    if not _cpu_flags() & {"avx512_vnni", "avx_vnni", "amx_int8"}:
        model = _u8s8_as_u8u8(model_path) or model_path
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(names, inputs)))


def import_infc(python_dir):
    """Import the `infc` package from python_dir (the repository's python/ by default)."""
    python_dir = os.path.abspath(python_dir)
    if python_dir not in sys.path:
        sys.path.insert(0, python_dir)
    return importlib.import_module("infc")



def missing(requirements):
    """The names in `requirements` (name -> what was found: falsy when absent) not found;
    prints the SKIP line when any is missing."""
    names = [name for name, found in requirements.items() if not found]
    if names:
        print(f"SKIP: {' and '.join(names)} not installed (tools/scripts/setup.sh installs "
              "them)")
    return names


class Tally:
    """Cases of a check script: a PASS / FAIL line each, then 'N passed, M failed'."""

    def __init__(self):
        self.passed = self.failed = 0

    def report(self, ok, what):
        print(("PASS " if ok else "FAIL ") + what, flush=True)
        self.passed, self.failed = self.passed + bool(ok), self.failed + (not ok)

    def finish(self):
        """Prints the summary; the exit status (1 on any failure)."""
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def random_float_tensor(rng, name, shape, scale=0.1):
    """An ONNX float32 initializer `name` of `shape`: scale x standard normal draws of rng."""
    from onnx import TensorProto, helper
    return helper.make_tensor(name, TensorProto.FLOAT, shape,
                              (scale * rng.standard_normal(shape)).astype(np.float32).ravel())


def write_calibration(cdir, inputs, name="x"):
    """infc's --calibration layout for one input `name`: cdir/<sample>/<name>.npy."""
    for i, x in enumerate(inputs):
        os.makedirs(os.path.join(cdir, f"{i:03d}"))
        np.save(os.path.join(cdir, f"{i:03d}", name + ".npy"), x)


def compare_rel_l2(got, ref, limit):
    """For reduced precision, where single elements near zero have no meaningful relative
    error: ||got - ref|| / ||ref|| (L2) at most limit, every value finite."""
    got = np.asarray(got)
    if got.shape != ref.shape or got.dtype != ref.dtype:
        return False, f"{got.dtype}{list(got.shape)} != reference {ref.dtype}{list(ref.shape)}"
    g64, r64 = got.astype(np.float64), ref.astype(np.float64)
    if not np.isfinite(g64).all():
        return False, "non-finite values"
    norm = np.linalg.norm(r64)
    rel = np.linalg.norm(g64 - r64) / norm if norm else np.linalg.norm(g64)
    return rel <= limit, f"relative L2 error {rel:.3e} (limit {limit:g})"


def compare(got, ref, rtol, atol):
    """Compare an output with its reference. Returns (ok, summary) where the summary gives the
    max absolute error, the max relative error, and the worst element against the tolerance
    (|got - ref| <= atol + rtol * |ref|, as numpy.allclose)."""
    got = np.asarray(got)
    if got.shape != ref.shape:
        return False, f"shape {list(got.shape)} != reference {list(ref.shape)}"
    if got.dtype != ref.dtype:
        return False, f"dtype {got.dtype} != reference {ref.dtype}"
    if ref.size == 0:
        return True, "empty"
    if not np.issubdtype(ref.dtype, np.floating):
        bad = np.count_nonzero(got != ref)
        return bad == 0, f"exact compare, {bad} of {ref.size} differ"
    g64, r64 = got.astype(np.float64), ref.astype(np.float64)
    nan_mismatch = np.count_nonzero(np.isnan(g64) != np.isnan(r64))
    with np.errstate(invalid="ignore"):
        err = np.abs(g64 - r64)
        err[np.isnan(g64) & np.isnan(r64)] = 0.0
        err[np.isinf(r64) & (g64 == r64)] = 0.0
        err = np.where(np.isnan(err), np.inf, err)
        rel = err / np.maximum(np.abs(r64), np.finfo(np.float32).tiny)
        limit = atol + rtol * np.abs(r64)
        bad = err > limit
    worst = int(np.argmax(err - limit))
    idx = np.unravel_index(worst, ref.shape)
    nbad = int(np.count_nonzero(bad))
    summary = (f"max_abs {err.max():.3e}  max_rel {rel.max():.3e}  "
               f"bad {nbad}/{ref.size}")
    if nbad or nan_mismatch:
        summary += (f"  worst at {tuple(int(i) for i in idx)}: got {g64[idx]:.8g} "
                    f"ref {r64[idx]:.8g}")
    if nan_mismatch:
        summary += f"  NaN mismatches {nan_mismatch}"
    return nbad == 0 and nan_mismatch == 0, summary


def compare_outputs(got, ref, rtol=1e-4, atol=1e-5):
    """compare() for every output of `ref` (name -> array) against `got`'s of the same name:
    the problems as "name: summary", a missing output one of them."""
    problems = []
    for name, want in ref.items():
        if name not in got:
            problems.append(f"{name}: missing")
            continue
        ok, summary = compare(np.asarray(got[name]), want, rtol, atol)
        if not ok:
            problems.append(f"{name}: {summary}")
    return problems


def npz_inputs(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def cpu_variants():
    """The --cpu values a kernel test compiles each case for, those this machine can run:
    its own (None; AMX tiles where it has AMX-INT8), icelake-server (AVX-512 VNNI without
    AMX: the vpdpbusd kernel), alderlake (AVX-VNNI: vpdpbusd on ymm), skylake-avx512
    (AVX-512BW without VNNI: vpmaddwd on zmm) and haswell (AVX2: vpmaddwd on ymm)."""
    flags = _cpu_flags()
    wanted = [("icelake-server", "avx512_vnni"), ("alderlake", "avx_vnni"),
              ("skylake-avx512", "avx512bw"), ("haswell", "avx2")]
    return [None] + [cpu for cpu, flag in wanted if flag in flags]


def compile_for_cpu(infc, model, out, cpu, extra=(), timeout=300):
    """`infc compile model -o out [extra]` for one of cpu_variants() (None: this machine's
    own CPU); returns run_tool's result."""
    cpu_args = [] if cpu is None else ["--cpu", cpu]
    return run_tool([infc, "compile", model, "-o", out] + list(extra) + cpu_args, timeout)


def fresh_work(args):
    """Empties args.work; returns work(name), a path in it, and compile(model, out, *flags),
    `infc compile work(model) -o work(out) flags...` (a Result)."""
    import shutil
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    def work(name):
        return os.path.join(args.work, name)

    def compile(model, out, *flags):
        return run_tool([args.infc, "compile", work(model), "-o", work(out), *flags],
                        timeout=300)
    return work, compile


def kernel_test_args(description=None, zoo=False):
    """--infc, --work (created) and --python-dir (and with `zoo` a required --zoo): the
    arguments of the kernel and quantization checks (check_integer_matmul.py, check_qdq.py,
    check_quantize.py, check_weight_only.py) and of the decoder checks, whose --help prints
    `description` (their docstring)."""
    import argparse
    ap = argparse.ArgumentParser(description=description,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--python-dir", default=DEFAULT_PYTHON_DIR)
    if zoo:
        ap.add_argument("--zoo", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    return args


#!/usr/bin/env python3
"""ONNX backend node test suite ("conformance") for infc.

Compiles every case of the ONNX node test directory with `infc compile`, runs it through the C
ABI (the `infc` Python package, a ctypes wrapper) in a separate process, compares every output
with the expected one, classifies each failure, checks the results against the
expected-failures list, and optionally writes docs/conformance.md.

    python3 test/conformance/run_conformance.py --infc build/bin/infc --work /tmp/conf \\
        --jobs 2 --xfail test/conformance/expected_failures.txt \\
        --write-doc docs/conformance.md

The test data: the directory given by --node-dir; otherwise the installed onnx package's
`onnx/backend/test/data/node` if it exists; otherwise (the onnx wheels since 1.2x do not ship
it) it is generated into WORK/node-data from the case definitions that the installed onnx
package does ship (`onnx.backend.test.case.node`, the code that produces the published data),
with numpy's global generator seeded, so the inputs are the same on every run. See README.md.

Exit status: 0 when every result is the expected one; 1 on a regression (a case that fails
and is not listed), an unexpected pass (a listed case that passes: remove it from the list),
or a stale --check-doc; 2 for a usage or setup error.
"""

import argparse
import collections
import concurrent.futures
import datetime
import glob
import json
import os
import pickle
import platform
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_PYTHON_DIR = os.path.join(REPO_ROOT, "python")
DEFAULT_XFAIL = os.path.join(HERE, "expected_failures.txt")

# Tolerances: |got - expected| <= ATOL + RTOL * |expected| for every floating-point dtype
# (float64, float32, float16, bfloat16; compared in float64). NaN must meet NaN and an infinity
# the same infinity. Everything else (integers, bool, strings) compares exactly. Shapes and
# dtypes compare exactly.
RTOL = 1e-3
ATOL = 1e-5

# Result classes, in the order the reports list them.
PASS = "pass"
CLASSES = collections.OrderedDict([
    (PASS, "passed"),
    ("unsupported", "clean compile error: unsupported op, attribute or dtype, or another "
                    "rejection reported as an `infc: error:` (exit 1)"),
    ("wrong-result", "compiled and ran, but an output differs (values beyond the tolerance, "
                     "shape, dtype, NaN/inf placement, a missing output)"),
    ("runtime-error", "compiled, but the run reported an error through the C ABI"),
    ("runtime-crash", "compiled, but the run died (a signal such as SIGSEGV, or a non-zero "
                      "exit) inside the model"),
    ("compiler-crash", "`infc compile` died: a signal, exit code >= 128, or a crash dump / "
                       "assertion / LLVM ERROR in its output"),
    ("timeout", "compile + run of the case took longer than --timeout"),
    ("runner-error", "the runner itself could not handle the case (a harness bug; should "
                     "be 0)"),
])
FAIL_CLASSES = [c for c in CLASSES if c != PASS]

# Output that means a tool crashed instead of reporting an error (as test/e2e/harness.py).
CRASH_MARKERS = re.compile(
    r"Stack dump|PLEASE submit a bug report|Segmentation fault|core dumped|Assertion .* failed"
    r"|terminate called|AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:"
    r"|LLVM ERROR|UNREACHABLE executed|Traceback \(most recent call last\)")

# Cases whose expected outputs cannot be reproduced by a deterministic compiler: the reference
# is a draw from numpy's generator (the ONNX spec leaves the generator to the implementation).
RANDOM_OPS = {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
              "Bernoulli", "Multinomial"}
TRAINING_DOMAIN = "ai.onnx.preview.training"
# Test-name words that are not the op's name in snake case.
NAME_ALIASES = {
    "sce": "SoftmaxCrossEntropyLoss",
    "nllloss": "NegativeLogLikelihoodLoss",
    "batchnorm": "BatchNormalization",
    "instancenorm": "InstanceNormalization",
    "mvn": "MeanVarianceNormalization",
    "basic_conv": "Conv",
    "strnorm": "StringNormalizer",
    "top_k": "TopK",
    "simple_rnn": "RNN",
    "training_dropout": "Dropout",
    "greater_equal": "GreaterOrEqual",
    "less_equal": "LessOrEqual",
    "tril": "Trilu",
    "triu": "Trilu",
    "l1normalization": "LpNormalization",
    "l2normalization": "LpNormalization",
    "constant_pad": "Pad",
    "edge_pad": "Pad",
    "reflect_pad": "Pad",
    "wrap_pad": "Pad",
    "basic_deform_conv": "DeformConv",
    "nesterov_momentum": "ai.onnx.preview.training:Momentum",
    "strnormalizer": "StringNormalizer",
}


# ----------------------------------------------------------------------------------------
# Test data
# ----------------------------------------------------------------------------------------

def installed_node_dir():
    import onnx
    path = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    if os.path.isdir(path) and any(os.scandir(path)):
        return path
    return None


def generate_node_data(dest):
    """Writes the node test directory from the installed onnx package's case definitions, as
    onnx's own `backend-test-tools generate-data` did before it dropped the node tests.
    numpy's global generator is seeded, so the random inputs are the same on every run."""
    import warnings

    import numpy as np
    import onnx
    from onnx import TensorProto, numpy_helper

    import ml_dtypes  # (onnx's dependency: its casts make the expected outputs of int4/int2)

    stamp = {"onnx": onnx.__version__, "numpy": np.__version__,
             "ml_dtypes": ml_dtypes.__version__, "seed": 0, "format": 1}
    stamp_path = os.path.join(dest, "GENERATED.json")
    if os.path.exists(stamp_path):
        with open(stamp_path) as f:
            if json.load(f) == stamp:
                return dest
    tmp = dest + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    np.random.seed(0)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        import onnx.backend.test.case.node as node_cases
        cases = node_cases.collect_testcases()

    def proto(value, vi):
        kind = vi.type.WhichOneof("value")
        if kind == "map_type":
            return numpy_helper.from_dict(value, vi.name)
        if kind == "sequence_type":
            return numpy_helper.from_list(value, vi.name)
        if kind == "optional_type":
            return numpy_helper.from_optional(value, vi.name)
        if isinstance(value, TensorProto):
            return value
        return numpy_helper.from_array(value, vi.name)

    for case in cases:
        case_dir = os.path.join(tmp, case.name)
        os.makedirs(case_dir)
        with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets):
            ds = os.path.join(case_dir, f"test_data_set_{i}")
            os.makedirs(ds)
            for prefix, values, infos in (("input", inputs, case.model.graph.input),
                                          ("output", outputs, case.model.graph.output)):
                for j, value in enumerate(values):
                    with open(os.path.join(ds, f"{prefix}_{j}.pb"), "wb") as f:
                        f.write(proto(value, infos[j]).SerializeToString())
    with open(os.path.join(tmp, "GENERATED.json"), "w") as f:
        json.dump(stamp, f)
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(tmp, dest)
    return dest


def read_value(path, vi):
    """A test data file as numpy (tensor), list (sequence), dict (map) or None/value
    (optional), by the graph's declared type."""
    import onnx
    from onnx import numpy_helper

    with open(path, "rb") as f:
        data = f.read()
    kind = vi.type.WhichOneof("value") if vi is not None else "tensor_type"
    if kind == "sequence_type":
        p = onnx.SequenceProto()
        p.ParseFromString(data)
        return numpy_helper.to_list(p)
    if kind == "optional_type":
        p = onnx.OptionalProto()
        p.ParseFromString(data)
        return numpy_helper.to_optional(p)
    if kind == "map_type":
        p = onnx.MapProto()
        p.ParseFromString(data)
        return numpy_helper.to_dict(p)
    p = onnx.TensorProto()
    p.ParseFromString(data)
    return numpy_helper.to_array(p)


def data_sets(case_dir, model):
    """[(inputs, outputs)] with inputs/outputs as lists in graph order."""
    inputs_vi = [vi for vi in model.graph.input]
    outputs_vi = list(model.graph.output)
    sets = []
    names = sorted((d for d in os.listdir(case_dir) if d.startswith("test_data_set_")),
                   key=lambda d: int(d.rsplit("_", 1)[1]))
    for d in names:
        ds = os.path.join(case_dir, d)
        ins, outs = [], []
        j = 0
        while os.path.exists(os.path.join(ds, f"input_{j}.pb")):
            ins.append(read_value(os.path.join(ds, f"input_{j}.pb"),
                                  inputs_vi[j] if j < len(inputs_vi) else None))
            j += 1
        j = 0
        while os.path.exists(os.path.join(ds, f"output_{j}.pb")):
            outs.append(read_value(os.path.join(ds, f"output_{j}.pb"),
                                   outputs_vi[j] if j < len(outputs_vi) else None))
            j += 1
        sets.append((ins, outs))
    return sets


# ----------------------------------------------------------------------------------------
# Op attribution and case categories
# ----------------------------------------------------------------------------------------

def _snake(name):
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return s.lower()


class OpNames:
    """Test-name prefixes -> op, from the onnx op schemas (every domain, every version)."""

    def __init__(self):
        import onnx.defs
        self.prefixes = {}
        for schema in onnx.defs.get_all_schemas_with_history():
            op = display_op(schema.domain, schema.name)
            words = {_snake(schema.name), schema.name.lower()}
            if schema.domain == "ai.onnx.ml":
                words = {"ai_onnx_ml_" + w for w in words}
            for w in words:
                self.prefixes.setdefault(w, op)
        for w, op in NAME_ALIASES.items():
            self.prefixes.setdefault(w, op)
        self.ordered = sorted(self.prefixes, key=len, reverse=True)

    def from_test_name(self, case_name):
        """The op whose snake-case (or lower-case) name is the longest prefix of the test
        name after `test_`, ending at `_`, a digit, or the end of the name."""
        rest = case_name[len("test_"):] if case_name.startswith("test_") else case_name
        for w in self.ordered:
            if rest.startswith(w) and (len(rest) == len(w) or rest[len(w)] == "_"
                                       or rest[len(w)].isdigit()):
                return self.prefixes[w]
        return None


def display_op(domain, op_type):
    return op_type if domain in ("", "ai.onnx") else f"{domain}:{op_type}"


def attribute_op(case_name, node_ops, names):
    """The op a case counts for. node_ops: the distinct ops of the model's graph, in order.
    A function-expanded case (`*_expanded*`) counts for the function op named by the test;
    otherwise the test-named op if the graph has it; otherwise the graph's single op;
    otherwise the test-named op; otherwise the graph's first op."""
    named = names.from_test_name(case_name)
    if named and re.search(r"_expanded(_ver\d+)?$", case_name):
        return named
    if named in node_ops:
        return named
    if len(node_ops) == 1:
        return node_ops[0]
    if named:
        return named
    return node_ops[0] if node_ops else "(no node)"


def _constant_value(model, name, feeds):
    """A graph value by name from the feeds, the initializers or a Constant node."""
    from onnx import numpy_helper
    if name in feeds:
        return feeds[name]
    for init in model.graph.initializer:
        if init.name == name:
            return numpy_helper.to_array(init)
    for node in model.graph.node:
        if node.op_type == "Constant" and node.output and node.output[0] == name:
            for a in node.attribute:
                if a.name == "value":
                    return numpy_helper.to_array(a.t)
    return None


def case_category(model, feeds):
    """'random' (outputs are random draws), 'training' (ai.onnx.preview.training ops) or
    None. feeds: graph input name -> value of the first data set."""
    import numpy as np
    nodes = list(model.graph.node)
    if any(n.domain == TRAINING_DOMAIN for n in nodes):
        return "training"
    for n in nodes:
        if n.op_type in RANDOM_OPS and n.domain in ("", "ai.onnx"):
            return "random"
        if n.op_type == "Dropout" and len(n.input) >= 3 and n.input[2]:
            training = _constant_value(model, n.input[2], feeds)
            ratio = _constant_value(model, n.input[1], feeds) if n.input[1] else 0.5
            if training is None or bool(np.asarray(training)):
                if ratio is None or float(np.asarray(ratio)) != 0.0:
                    return "random"
    return None


# ----------------------------------------------------------------------------------------
# Messages
# ----------------------------------------------------------------------------------------

def normalize_reason(text):
    """One line of a tool's message with names, paths and numbers taken out, so that the
    same failure in different cases reads the same."""
    s = text.strip().splitlines()[0] if text.strip() else "(no message)"
    s = re.sub(r"^infc: error: ", "", s)
    s = re.sub(r"^\S+\.onnx: ", "", s)                        # the model file
    s = re.sub(r"'[^']*' \(", "(", s)                         # 'node' (Op, ...)
    s = re.sub(r"\bnode \(", "node (", s)
    s = re.sub(r"\bat \S*?\((\w+)\):", r"at (\1):", s)        # at name(Op):
    s = re.sub(r"(?<![\w.])/[^\s'\":,]+", "<path>", s)        # absolute paths
    s = re.sub(r"0x[0-9a-fA-F]+", "N", s)
    s = re.sub(r"(?<![\w.])\d+(?:\.\d+)?(?:e[+-]?\d+)?(?!-?D\b)", "N", s)  # keep 2-D, 3D
    while True:                                                 # shapes 2x3x4 -> NxNxN
        t = re.sub(r"(?<=N)x\d+(?![\d.])", "xN", s)
        if t == s:
            break
        s = t
    s = re.sub(r"\b(input|output|value|tensor|initializer|attribute|dim)( N)? '[^']*'",
               r"\1\2 '*'", s)
    s = re.sub(r"\s+", " ", s)
    m = re.match(r"N unsupported nodes?: (.*)", s)
    if m:  # the importer's list of every unsupported node: the distinct ops, sorted
        ops = sorted(set(re.findall(r"\(([\w.:]+), opset N\)", m.group(1))))
        s = f"unsupported op{'s' if len(ops) > 1 else ''}: {', '.join(ops)}"
    return s[:200]


def first_error_line(stderr):
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith("infc: error:"):
            return ln
    return lines[0] if lines else "(no message)"


def crash_line(text):
    for ln in text.splitlines():
        if CRASH_MARKERS.search(ln):
            return ln.strip()
    return None


def signal_name(num):
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


# ----------------------------------------------------------------------------------------
# Comparison
# ----------------------------------------------------------------------------------------

def _is_float(dtype):
    import numpy as np
    if np.issubdtype(dtype, np.floating):
        return True
    return dtype.name in ("bfloat16",) or dtype.name.startswith("float8")


def compare(got, expected):
    """(ok, reason, detail): reason is short and groupable, detail has the numbers."""
    import numpy as np
    if isinstance(expected, (list, dict)) or expected is None:
        return False, "non-tensor expected output (sequence/map/optional)", ""
    expected = np.asarray(expected)
    got = np.asarray(got)
    if got.dtype != expected.dtype:
        return (False, f"dtype {got.dtype}, expected {expected.dtype}",
                f"dtype {got.dtype}, expected {expected.dtype}")
    if got.shape != expected.shape:
        return (False, "wrong shape",
                f"shape {list(got.shape)}, expected {list(expected.shape)}")
    if expected.size == 0:
        return True, "", ""
    if _is_float(expected.dtype):
        with np.errstate(all="ignore"):
            return _compare_float(got, expected)
    if got.dtype.kind in "OUS":
        ok = got.shape == expected.shape and all(
            a == b for a, b in zip(got.ravel().tolist(), expected.ravel().tolist()))
    else:
        ok = bool(np.array_equal(got, expected))
    if not ok:
        n = int(np.count_nonzero(got != expected))
        return False, "values differ (exact compare)", f"{n} of {expected.size} differ"
    return True, "", ""


def _compare_float(got, expected):
    import numpy as np
    g = got.astype(np.float64)
    e = expected.astype(np.float64)
    gnan, enan = np.isnan(g), np.isnan(e)
    nan_bad = int(np.count_nonzero(gnan != enan))
    inf_bad = int(np.count_nonzero((np.isinf(e) | np.isinf(g)) & (g != e) & ~enan))
    finite = ~(gnan | enan | np.isinf(e) | np.isinf(g))
    err = np.where(finite, np.abs(g - e), 0.0)
    limit = ATOL + RTOL * np.abs(np.where(finite, e, 0.0))
    bad = int(np.count_nonzero(err > limit))
    if nan_bad or inf_bad or bad:
        idx = np.unravel_index(int(np.argmax(np.where(finite, err - limit, -np.inf))
                                   if finite.any() else 0), e.shape)
        detail = (f"{bad} of {e.size} beyond rtol {RTOL:g}/atol {ATOL:g}, "
                  f"max abs err {err.max():.3g}")
        if bad:
            detail += f", worst at {tuple(int(i) for i in idx)}: got {g[idx]:.8g} " \
                      f"expected {e[idx]:.8g}"
        if nan_bad:
            detail += f", NaN mismatches {nan_bad}"
        if inf_bad:
            detail += f", inf mismatches {inf_bad}"
        reason = "values beyond tolerance" if bad else "NaN/inf mismatch"
        return False, reason, detail
    return True, "", ""


# ----------------------------------------------------------------------------------------
# The run worker: a fork server, so that a crashing model.so takes down only its own child
# ----------------------------------------------------------------------------------------

def serve(python_dir):
    """Reads one JSON request a line on stdin, forks a child that loads the .so and runs it,
    and answers one JSON line on stdout. The child writes its outputs to a pickle file."""
    import importlib
    importlib.import_module("numpy")  # loaded once, before the forks
    sys.path.insert(0, os.path.abspath(python_dir))
    import infc
    out = os.fdopen(os.dup(1), "w")
    # Nothing else may write to the protocol stream.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    for line in sys.stdin:
        req = json.loads(line)
        reply = _serve_one(infc, req)
        out.write(json.dumps(reply) + "\n")
        out.flush()


def _serve_one(infc, req):
    for p in (req["result"], req["log"]):
        if os.path.exists(p):
            os.unlink(p)
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            fd = os.open(req["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            with open(req["inputs"], "rb") as f:
                feeds = pickle.load(f)
            try:
                model = infc.load(req["so"], num_threads=1)
                outs = model(feeds)
                result = {"status": "ok", "outputs": outs,
                          "model_inputs": [io.name for io in model.inputs]}
            except infc.Error as e:
                result = {"status": "error", "message": str(e)}
            except Exception as e:  # e.g. a value the wrapper cannot convert
                result = {"status": "error", "message": f"{type(e).__name__}: {e}"}
            with open(req["result"] + ".tmp", "wb") as f:
                pickle.dump(result, f)
            os.rename(req["result"] + ".tmp", req["result"])
        except BaseException:
            traceback.print_exc()
            code = 3
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    timed_out = not _wait_child(pid, req["timeout"])
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    log = ""
    try:
        with open(req["log"], errors="replace") as f:
            log = f.read()[-4000:]
    except OSError:
        pass
    if timed_out:
        return {"status": "timeout", "log": log}
    if os.WIFSIGNALED(status):
        return {"status": "crash", "message": f"killed by {signal_name(os.WTERMSIG(status))}",
                "log": log}
    code = os.WEXITSTATUS(status)
    if code != 0:
        return {"status": "crash", "message": f"exit code {code}", "log": log}
    marker = crash_line(log)
    if marker:
        return {"status": "crash", "message": marker, "log": log}
    return {"status": "done", "log": log}


def _wait_child(pid, timeout):
    """True when the child exited within timeout (it stays a zombie for waitpid)."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        try:
            ready, _, _ = select.select([fd], [], [], max(timeout, 0.01))
            return bool(ready)
        finally:
            os.close(fd)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return True
        time.sleep(0.005)
    return False


class RunServer:
    """The runner's handle on one fork server process (one per job thread)."""

    def __init__(self, python_dir, log_path):
        self.python_dir = python_dir
        self.log_path = log_path
        self.proc = None

    def _start(self):
        env = dict(os.environ)
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = "1"
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        self.log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--serve",
             "--python-dir", self.python_dir],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True, env=env)

    def run(self, req):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            self.close()
            return {"status": "server-died"}
        return json.loads(line)

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
            self.log.close()


# ----------------------------------------------------------------------------------------
# One case
# ----------------------------------------------------------------------------------------

def run_tool(argv, timeout):
    """(returncode or None on timeout, stdout, stderr); the process group is killed on a
    timeout (the compiler may run a linker)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=max(timeout, 0.1))
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        return None, out, err


def input_shape_args(model, feeds_list):
    """--input-shape for every graph input with a symbolic or missing dim, from the data."""
    import numpy as np
    args = []
    init_names = {i.name for i in model.graph.initializer}
    for j, vi in enumerate(model.graph.input):
        if vi.name in init_names or vi.type.WhichOneof("value") != "tensor_type":
            continue
        t = vi.type.tensor_type
        # (a negative dim_value is dynamic too: paddle2onnx writes -1, infc reads it so)
        dynamic = not t.HasField("shape") or any(not d.HasField("dim_value") or d.dim_value < 0
                                                 for d in t.shape.dim)
        if not dynamic or j >= len(feeds_list):
            continue
        value = feeds_list[j]
        if not isinstance(value, np.ndarray) or value.ndim == 0:
            continue
        args += ["--input-shape", f"{vi.name}=" + "x".join(str(d) for d in value.shape)]
    return args


# "... it depends on graph input 'axes' (fix its value with --input-value axes=FILE.npy)":
# the compiler names the graph inputs a shape-deciding value comes from.
VALUE_REQUEST = re.compile(r"depends on graph inputs? ((?:'[^']*'(?:, )?)+) \(fix")


def requested_values(stderr):
    """Graph inputs the compiler asks --input-value for (empty when it asks for none)."""
    m = VALUE_REQUEST.search(stderr)
    return re.findall(r"'([^']*)'", m.group(1)) if m else []


class Case:
    def __init__(self, name, case_dir):
        self.name = name
        self.dir = case_dir


def build_c_source(args, src, so, timeout):
    """--via-c: model.c and weights.c of `src` with -Wall -Wextra -Werror, linked with the
    runtime's objects (built once, from the first case's copy) into `so`."""
    runtime = os.path.join(args.work, "c_runtime.a")
    if not os.path.exists(runtime):
        objs = []
        tag = f"{os.getpid()}_{threading.get_ident()}"  # (jobs in parallel build it too)
        for c in sorted(glob.glob(os.path.join(src, "infc_*.c"))):
            o = os.path.join(args.work, f"c_runtime_{tag}_" + os.path.basename(c) + ".o")
            rc, out, err = run_tool([args.via_c, "-O2", "-fPIC", "-Wall", "-Wextra", "-Werror",
                                     "-c", c, "-o", o], timeout)
            if rc != 0:
                return rc, out, err
            objs.append(o)
        tmp = runtime + f".{tag}.tmp"
        rc, out, err = run_tool(["ar", "rcs", tmp] + objs, timeout)
        if rc != 0:
            return rc, out, err
        os.replace(tmp, runtime)
    return run_tool([args.via_c, "-O1", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror", "-o", so,
                     os.path.join(src, "model.c"), os.path.join(src, "weights.c"),
                     "-Wl,--whole-archive", runtime, "-Wl,--no-whole-archive", "-lm",
                     "-lpthread"], timeout)


def run_case(case, args, names, server):
    """Returns the result record of one case (a dict, JSON-serializable)."""
    import numpy as np
    import onnx
    t0 = time.monotonic()
    deadline = t0 + args.timeout
    rec = {"case": case.name, "op": None, "ops": [], "category": None, "class": None,
           "reason": "", "detail": "", "compile_s": 0.0, "run_s": 0.0, "specialized": []}
    work = os.path.join(args.work, "cases", case.name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model_path = os.path.join(case.dir, "model.onnx")
    try:
        model = onnx.load(model_path, load_external_data=False)
        ops = []
        for n in model.graph.node:
            op = display_op(n.domain, n.op_type)
            if op not in ops:
                ops.append(op)
        rec["ops"] = ops
        rec["op"] = attribute_op(case.name, ops, names)
        sets = data_sets(case.dir, model)
        if not sets:
            raise RuntimeError("no test_data_set_* directory")
        input_names = [vi.name for vi in model.graph.input]
        feeds0 = dict(zip(input_names, sets[0][0]))
        rec["category"] = case_category(model, feeds0)
    except Exception as e:
        rec.update({"class": "runner-error", "reason": f"reading the case: {type(e).__name__}",
                    "detail": f"{type(e).__name__}: {e}"})
        return rec

    def finish(cls, reason, detail=""):
        rec.update({"class": cls, "reason": reason, "detail": detail})
        return rec

    # One compile per distinct set of input shapes (node tests have one data set) and of
    # values of the inputs the compiler asked to specialize (--input-value).
    compiled = {}
    specialized = rec["specialized"]
    for k, (ins, outs) in enumerate(sets):
        feeds_k = dict(zip(input_names, ins))
        while True:
            shape_args = input_shape_args(model, ins)
            value_args = []
            for name in specialized:
                npy = os.path.join(work, f"value_{k}_{input_names.index(name)}.npy")
                value = feeds_k[name]
                if value.dtype.kind == "V":  # bfloat16, float8 (ml_dtypes): .npy cannot say
                    value = value.astype(np.float32)  # exact; infc converts back exactly
                np.save(npy, value)
                value_args += ["--input-value", f"{name}={npy}"]
            key = (tuple(shape_args),
                   tuple(np.asarray(feeds_k[n]).tobytes() for n in specialized))
            if key in compiled:
                break
            so = os.path.join(work, f"model_{len(compiled)}.so")
            target = so
            if args.via_c:  # C source (--emit=c) built by --via-c's compiler into the .so
                target = os.path.join(work, f"model_{len(compiled)}_c")
                shape_args = shape_args + ["--emit=c", "--embed-weights"]
            argv = ([args.infc, "compile", model_path, "-o", target] + shape_args + value_args
                    + args.compile_arg)
            tc = time.monotonic()
            rc, out, err = run_tool(argv, deadline - tc)
            rec["compile_s"] += time.monotonic() - tc
            with open(os.path.join(work, f"compile_{len(compiled)}.log"), "a") as f:
                f.write("$ " + " ".join(argv) + f"\nexit {rc}\n{out}{err}")
            # A shape-deciding input given at run time: specialize it, as a user would.
            wanted = [n for n in requested_values(err) if n in feeds_k and n not in specialized
                      and isinstance(feeds_k[n], np.ndarray)]
            if rc == 1 and wanted:
                specialized += wanted
                continue
            if rc is None:
                return finish("timeout", f"compile timed out after {args.timeout:g} s")
            marker = crash_line(err + out)
            if rc < 0 or rc >= 128 or marker:
                what = (f"killed by {signal_name(-rc)}" if rc < 0
                        else f"exit code {rc}" if rc >= 128 else "crash text")
                line = marker or first_error_line(err)
                return finish("compiler-crash", f"{what}: {normalize_reason(line)}",
                              f"{what}: {line}")
            if rc != 0:
                line = first_error_line(err)
                cls = "unsupported" if rc == 1 else "runner-error"
                return finish(cls, normalize_reason(line), line)
            if args.via_c and os.path.isdir(target):
                rc, out, err = build_c_source(args, target, so, deadline - time.monotonic())
                if rc != 0:
                    return finish("c-build-error", normalize_reason(first_error_line(err + out)),
                                  (err + out)[-2000:])
            if not os.path.exists(so):
                return finish("runner-error", "compile exited 0 without writing the .so")
            compiled[key] = so
            break
        so = compiled[key]

        if any(not isinstance(v, np.ndarray) for v in ins):
            return finish("runtime-error", "non-tensor input (sequence/map/optional) cannot "
                          "be passed through the C ABI")
        feeds = dict(zip(input_names, ins))
        in_path = os.path.join(work, f"inputs_{k}.pkl")
        with open(in_path, "wb") as f:
            pickle.dump(feeds, f)
        req = {"so": so, "inputs": in_path, "result": os.path.join(work, f"result_{k}.pkl"),
               "log": os.path.join(work, f"run_{k}.log"),
               "timeout": max(deadline - time.monotonic(), 0.1)}
        tr = time.monotonic()
        reply = server.run(req)
        rec["run_s"] += time.monotonic() - tr
        status = reply["status"]
        if status == "timeout":
            return finish("timeout", f"run timed out (case limit {args.timeout:g} s)")
        if status == "crash":
            return finish("runtime-crash", normalize_reason(reply["message"]),
                          reply["message"] + ("\n" + reply["log"] if reply.get("log") else ""))
        if status != "done":
            return finish("runner-error", f"run server: {status}")
        try:
            with open(req["result"], "rb") as f:
                result = pickle.load(f)
        except Exception as e:
            return finish("runner-error", "no result from the run", f"{type(e).__name__}: {e}")
        if result["status"] == "error":
            return finish("runtime-error", normalize_reason(result["message"]),
                          result["message"])
        got = result["outputs"]
        for j, vi in enumerate(model.graph.output):
            if j >= len(outs):
                break
            if vi.name not in got:
                return finish("wrong-result", "missing output",
                              f"output '{vi.name}' missing (got {sorted(got)})")
            ok, reason, detail = compare(got[vi.name], outs[j])
            if not ok:
                return finish("wrong-result", f"{reason}",
                              f"data set {k}, output {j} '{vi.name}': {detail}")
    for so in compiled.values():  # keep the work folder small
        os.unlink(so)
    return finish(PASS, "")


# ----------------------------------------------------------------------------------------
# Expected failures
# ----------------------------------------------------------------------------------------

XFAIL_HEADER = """\
# Expected failures of the ONNX backend node tests (test/conformance/run_conformance.py).
# One case name a line; '#' starts a comment (the class and reason after a name are a comment
# written by --update-xfail). CI fails when a case not listed here fails (a regression) and
# when a listed case passes (remove it from the list). Regenerate with --update-xfail, and
# docs/conformance.md with --write-doc, in the same run.
"""


def read_xfail(path):
    entries = collections.OrderedDict()
    if not path or not os.path.exists(path):
        return entries
    with open(path) as f:
        for line in f:
            name = line.split("#", 1)[0].strip()
            if name:
                entries[name] = line.rstrip("\n")
    return entries


def write_xfail(path, results, old_entries, ran_all):
    ran = {r["case"]: r for r in results}
    lines = []
    names = set(old_entries) if not ran_all else set()
    names |= {n for n, r in ran.items() if r["class"] != PASS}
    names -= {n for n, r in ran.items() if r["class"] == PASS}
    for name in sorted(names):
        if name in ran:
            r = ran[name]
            lines.append(f"{name}  # {r['class']}: {r['reason']}".rstrip())
        else:
            lines.append(old_entries[name])
    with open(path, "w") as f:
        f.write(XFAIL_HEADER)
        for ln in lines:
            f.write(ln + "\n")


# ----------------------------------------------------------------------------------------
# docs/conformance.md
# ----------------------------------------------------------------------------------------

CATEGORY_TEXT = {
    "random": "random output: the expected values are draws from numpy's generator "
              "(RandomNormal*, RandomUniform*, Bernoulli, Multinomial, Dropout with "
              "training_mode on and a non-zero ratio), which no other implementation is "
              "required to reproduce",
    "training": f"training-only: ops of the `{TRAINING_DOMAIN}` domain (Adagrad, Adam, "
                f"Momentum); deterministic, but not inference ops",
}


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "n/a"


def md_escape(s):
    return s.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def op_rows(results):
    per_op = collections.defaultdict(list)
    for r in results:
        per_op[r["op"]].append(r)
    rows = []
    for op in sorted(per_op, key=lambda o: (o.rsplit(":", 1)[-1].lower(), o)):
        rs = per_op[op]
        passed = sum(r["class"] == PASS for r in rs)
        rows.append((op, passed, len(rs), rs))
    return rows


def write_doc(path, results, meta):
    total = len(results)
    passed = sum(r["class"] == PASS for r in results)
    by_class = collections.Counter(r["class"] for r in results)
    cats = collections.defaultdict(list)
    for r in results:
        if r["category"]:
            cats[r["category"]].append(r)
    special = [r for r in results if r["category"]]
    special_passed = sum(r["class"] == PASS for r in special)
    rows = op_rows(results)
    L = []
    L.append("# ONNX conformance: backend node tests")
    L.append("")
    L.append("Generated by `test/conformance/run_conformance.py`; do not edit by hand.")
    L.append("")
    spec = [r for r in results if r["class"] == PASS and r.get("specialized")]
    L.append(f"**{passed} / {total} cases pass ({pct(passed, total)}).** "
             f"{len(spec)} of them pass with shape-deciding inputs specialized by "
             f"`--input-value` (see the counting rules); without those, "
             f"{passed - len(spec)} / {total} ({pct(passed - len(spec), total)}).")
    L.append("")
    L.append(f"<!-- conformance-total: passed={passed} total={total} -->")
    L.append("")
    L.append("## How it was produced")
    L.append("")
    L.append("```sh")
    L.append(meta["command"])
    L.append("```")
    L.append("")
    L.append(f"- date: {meta['date']}")
    L.append(f"- onnx {meta['onnx']}, numpy {meta['numpy']}, Python {meta['python']}")
    L.append(f"- infc: {meta['infc_commit']}")
    L.append(f"- test data: {meta['data_source']}")
    L.append(f"- {meta['jobs']} parallel jobs, per-case time-out {meta['timeout']:g} s, "
             f"wall time {meta['wall_s'] / 60:.1f} min")
    L.append("")
    L.append("The CTest test `conformance` (label `conformance`) runs the same runner against "
             "`test/conformance/expected_failures.txt` and fails on any regression, on any "
             "listed case that passes, and when this page's pass counts no longer match the "
             "run. To refresh both after a change:")
    L.append("")
    L.append("```sh")
    L.append("python3 test/conformance/run_conformance.py --infc build/bin/infc "
             "--work build/conformance-work --jobs 2 \\")
    L.append("    --xfail test/conformance/expected_failures.txt --update-xfail "
             "--write-doc docs/conformance.md")
    L.append("```")
    L.append("")
    L.append("## Counting rules")
    L.append("")
    L.append("- Every case directory of the node test suite counts, none is skipped: the "
             "denominator is the whole directory. A case with several `test_data_set_*` "
             "passes only if all of them pass.")
    L.append("- A case passes when `infc compile model.onnx` succeeds (with `--input-shape` "
             "from the test data for inputs with symbolic dims, and `--input-value` where the "
             "compiler asks for it, below), the library runs through the "
             "C ABI (the `infc` Python package) and every output matches: floating-point "
             f"dtypes (float64, float32, float16, bfloat16) within rtol {RTOL:g} and atol "
             f"{ATOL:g} (`|got - expected| <= atol + rtol * |expected|`, computed in float64; "
             "NaN must meet NaN, an infinity the same infinity); integers, bool and strings "
             "exactly; shapes and dtypes exactly.")
    spec_ops = collections.Counter(r["op"] for r in spec)
    L.append(f"- Specialized inputs: many cases feed a value that decides a shape (Reduce "
             f"axes, Reshape's shape, Slice's starts, TopK's K, Resize's scales) as a graph "
             f"input, which static-shape code cannot take at run time. When the compiler "
             f"names such inputs (\"it depends on graph input 'axes' (fix its value with "
             f"--input-value ...)\"), the runner compiles again with `--input-value` from "
             f"the test data, as a user would, and runs the library with the same inputs: "
             f"the library checks at every run that the input holds the value it was "
             f"compiled for and refuses any other (one compile per distinct value). "
             f"{len(spec)} passing cases need it: "
             + ", ".join(f"{md_escape(op)} {c}" for op, c in
                         sorted(spec_ops.items(), key=lambda kv: (-kv[1], kv[0])))
             + ". Truly dynamic shapes (one library for every value) are not built yet.")
    L.append("- A case counts for one op: the op in its graph when it has one; for "
             "function-expanded (`*_expanded`) and other multi-node cases, the op the test is "
             "named after (the longest op name, in snake case, that prefixes the test name).")
    L.append(f"- Random-output and training-only cases stay in the denominator and count as "
             f"failures unless they pass: {len(special)} cases, {special_passed} passing. "
             f"Without them the pass rate would be {passed - special_passed} / "
             f"{total - len(special)} ({pct(passed - special_passed, total - len(special))}).")
    for cat in ("random", "training"):
        rs = cats.get(cat, [])
        L.append(f"  - {len(rs)} {CATEGORY_TEXT[cat]}: "
                 + (", ".join(f"`{r['case']}`" for r in sorted(rs, key=lambda r: r["case"]))
                    or "none") + ".")
    L.append("- Failure reasons are the first line of the compiler's or the runtime's error "
             "with node names, paths and numbers replaced (`N`, `'*'`).")
    L.append("")
    L.append("## Results by class")
    L.append("")
    L.append("| class | cases | meaning |")
    L.append("|---|---:|---|")
    for cls, text in CLASSES.items():
        L.append(f"| {cls} | {by_class.get(cls, 0)} | {text} |")
    L.append("")
    L.append("## Results by op")
    L.append("")
    L.append("| op | passed | total | failure reasons (cases) |")
    L.append("|---|---:|---:|---|")
    for op, p, n, rs in rows:
        reasons = collections.Counter(f"{r['class']}: {r['reason']}" for r in rs
                                      if r["class"] != PASS)
        text = "<br>".join(f"{md_escape(k)} ({v})" for k, v in
                           sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))
        L.append(f"| {md_escape(op)} | {p} | {n} | {text} |")
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def check_doc(path, results):
    """Problems with the pass counts published in path (empty when they match the run)."""
    if not os.path.exists(path):
        return [f"{path} does not exist"]
    with open(path) as f:
        text = f.read()
    problems = []
    total = len(results)
    passed = sum(r["class"] == PASS for r in results)
    m = re.search(r"<!-- conformance-total: passed=(\d+) total=(\d+) -->", text)
    if not m:
        problems.append("no conformance-total line")
    elif (int(m.group(1)), int(m.group(2))) != (passed, total):
        problems.append(f"total says {m.group(1)} / {m.group(2)}, the run has "
                        f"{passed} / {total}")
    published = {}
    by_op = text[text.find("## Results by op"):] if "## Results by op" in text else ""
    for m in re.finditer(r"^\| (.+?) \| (\d+) \| (\d+) \|", by_op, re.M):
        published[m.group(1).replace("\\|", "|")] = (int(m.group(2)), int(m.group(3)))
    for op, p, n, _ in op_rows(results):
        if published.get(op) != (p, n):
            problems.append(f"op {op}: says {published.get(op)}, the run has ({p}, {n})")
    ops = {op for op, *_ in op_rows(results)}
    for op in published:
        if op not in ops:
            problems.append(f"op {op} is listed but has no case")
    return problems


# ----------------------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------------------

def git_commit():
    try:
        head = subprocess.run(["git", "-C", REPO_ROOT, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO_ROOT, "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return f"commit {head}" + (" with uncommitted changes" if dirty else "") if head \
            else "unknown commit"
    except (OSError, subprocess.SubprocessError):
        return "unknown commit"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--infc", help="the infc binary")
    p.add_argument("--work", help="scratch directory (per-case logs, results.json)")
    p.add_argument("--jobs", type=int, default=2, help="cases in parallel (default 2)")
    p.add_argument("--compile-arg", action="append", default=[],
                   help="an extra `infc compile` argument (repeatable), e.g. "
                        "--compile-arg=--target=cuda-emulator")
    p.add_argument("--filter", help="only cases whose name matches this regex (re.search)")
    p.add_argument("--via-c", metavar="CC",
                   help="compile each case with --emit=c --embed-weights and build the source "
                        "with CC (-Wall -Wextra -Werror) instead of writing the .so; a build "
                        "failure is class c-build-error")
    p.add_argument("--timeout", type=float, default=60,
                   help="seconds per case, compile and run together (default 60)")
    p.add_argument("--xfail", default=None,
                   help="expected-failures list (e.g. test/conformance/expected_failures.txt)")
    p.add_argument("--update-xfail", action="store_true",
                   help="rewrite the --xfail list from this run's results")
    p.add_argument("--write-doc", metavar="MD", help="write the report (docs/conformance.md)")
    p.add_argument("--check-doc", metavar="MD",
                   help="fail if the pass counts published in MD differ from this run's")
    p.add_argument("--node-dir", help="the ONNX node test directory (default: the installed "
                   "onnx package's, or generated from its case definitions)")
    p.add_argument("--python-dir", default=DEFAULT_PYTHON_DIR,
                   help="directory holding the infc Python package (default: <repo>/python)")
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve:
        return args
    if not args.infc or not args.work:
        p.error("--infc and --work are required")
    if args.jobs < 1:
        p.error("--jobs must be >= 1")
    if args.update_xfail and not args.xfail:
        p.error("--update-xfail needs --xfail FILE")
    if (args.write_doc or args.check_doc) and args.filter:
        p.error("--write-doc and --check-doc count the whole suite: no --filter")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.via_c:  # (only then: the legend of docs/conformance.md stays as it is)
        CLASSES["c-build-error"] = "the C compiler refused the case's --emit=c source"
        FAIL_CLASSES.append("c-build-error")
    if args.serve:
        serve(args.python_dir)
        return 0
    import numpy as np
    import onnx

    args.infc = os.path.abspath(args.infc)
    args.work = os.path.abspath(args.work)
    if not os.access(args.infc, os.X_OK):
        print(f"error: --infc {args.infc} is not an executable", file=sys.stderr)
        return 2
    os.makedirs(args.work, exist_ok=True)

    if args.node_dir:
        node_dir = os.path.abspath(args.node_dir)
        source = f"`{args.node_dir}`"
    elif installed_node_dir():
        node_dir = installed_node_dir()
        source = f"the installed onnx {onnx.__version__} package's `backend/test/data/node`"
    else:
        t = time.monotonic()
        node_dir = generate_node_data(os.path.join(args.work, "node-data"))
        print(f"test data: generated from onnx {onnx.__version__}'s case definitions into "
              f"{node_dir} ({time.monotonic() - t:.1f} s)", flush=True)
        source = (f"generated from the installed onnx {onnx.__version__} package's node test "
                  f"case definitions (`onnx.backend.test.case.node`, the code that produces "
                  f"the published `backend/test/data/node`; the wheel no longer ships that "
                  f"directory), numpy's generator seeded with 0")
    if not os.path.isdir(node_dir):
        print(f"error: no test directory {node_dir}", file=sys.stderr)
        return 2

    all_cases = sorted(d for d in os.listdir(node_dir)
                       if os.path.exists(os.path.join(node_dir, d, "model.onnx")))
    names_rx = re.compile(args.filter) if args.filter else None
    cases = [Case(n, os.path.join(node_dir, n)) for n in all_cases
             if not names_rx or names_rx.search(n)]
    if not cases:
        print("error: no case matches", file=sys.stderr)
        return 2
    xfail = read_xfail(args.xfail)
    if args.xfail and not os.path.exists(args.xfail) and not args.update_xfail:
        print(f"error: --xfail {args.xfail} does not exist", file=sys.stderr)
        return 2

    names = OpNames()
    local = threading.local()
    servers = []
    servers_lock = threading.Lock()

    def server():
        if not hasattr(local, "server"):
            with servers_lock:
                local.server = RunServer(args.python_dir,
                                         os.path.join(args.work, f"server_{len(servers)}.log"))
                servers.append(local.server)
        return local.server

    def task(case):
        try:
            return run_case(case, args, names, server())
        except Exception as e:
            return {"case": case.name, "op": names.from_test_name(case.name) or case.name,
                    "ops": [], "category": None, "class": "runner-error",
                    "reason": f"runner exception {type(e).__name__}",
                    "detail": traceback.format_exc(), "compile_s": 0.0, "run_s": 0.0}

    print(f"{len(cases)} cases from {node_dir}, {args.jobs} jobs, infc {args.infc}",
          flush=True)
    t0 = time.monotonic()
    results = []
    step = max(len(cases) // 20, 1)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for i, rec in enumerate(pool.map(task, cases), 1):
            results.append(rec)
            if i % step == 0 or i == len(cases):
                print(f"[{i}/{len(cases)}] {time.monotonic() - t0:.0f} s, "
                      f"{sum(r['class'] == PASS for r in results)} passed", flush=True)
    for s in servers:
        s.close()
    wall = time.monotonic() - t0

    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)

    # Expected failures.
    regressions, unexpected_passes, changed = [], [], []
    for r in results:
        listed = r["case"] in xfail
        if r["class"] == PASS and listed:
            unexpected_passes.append(r)
        elif r["class"] != PASS and not listed:
            regressions.append(r)
        elif r["class"] != PASS and listed:
            m = re.search(r"#\s*([\w-]+):", xfail[r["case"]])
            if m and m.group(1) != r["class"]:
                changed.append((r, m.group(1)))
    stale = []
    if not args.filter:
        present = set(all_cases)
        stale = [n for n in xfail if n not in present]

    if regressions and args.update_xfail:
        print(f"\n{len(regressions)} failing cases are not in the list yet (--update-xfail "
              f"adds them)")
    elif regressions:
        print(f"\nREGRESSIONS ({len(regressions)}): failing cases not in the expected-failures "
              f"list")
        for r in regressions:
            print(f"  {r['case']} [{r['op']}] {r['class']}: {r['detail'] or r['reason']}"
                  .rstrip()[:600])
    if unexpected_passes:
        print(f"\nUNEXPECTED PASSES ({len(unexpected_passes)}): these pass now; remove them "
              f"from {args.xfail}")
        for r in unexpected_passes:
            print(f"  {r['case']} [{r['op']}]")
    if stale:
        print(f"\nSTALE ENTRIES ({len(stale)}): listed in {args.xfail} but no such case; "
              f"remove them from the list")
        for n in stale:
            print(f"  {n}")
    if changed:
        print(f"\nnote: {len(changed)} listed cases fail in another class than recorded:")
        for r, old in changed:
            print(f"  {r['case']}: {old} -> {r['class']}: {r['reason']}"[:300])

    by_class = collections.Counter(r["class"] for r in results)
    print("\nper class: " + ", ".join(f"{c} {by_class.get(c, 0)}" for c in CLASSES))
    crashes = [r for r in results if r["class"] in ("compiler-crash", "runtime-crash")]
    for r in crashes:
        print(f"  {r['class']}: {r['case']}: {r['reason']}")
    total_passed = by_class.get(PASS, 0)
    print(f"total: {total_passed} / {len(results)} cases pass "
          f"({pct(total_passed, len(results))}), wall time {wall:.0f} s")

    meta = {
        "command": " ".join(["python3", "test/conformance/run_conformance.py"]
                            + _doc_argv(args)),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "onnx": onnx.__version__, "numpy": np.__version__,
        "python": platform.python_version(), "infc_commit": git_commit(),
        "data_source": source, "jobs": args.jobs, "timeout": args.timeout, "wall_s": wall,
    }
    status = 0
    if args.write_doc:
        write_doc(args.write_doc, results, meta)
        print(f"wrote {args.write_doc}")
    if args.update_xfail:
        write_xfail(args.xfail, results, xfail, ran_all=not args.filter)
        print(f"wrote {args.xfail}")
        regressions, unexpected_passes, stale = [], [], []
    if args.check_doc:
        problems = check_doc(args.check_doc, results)
        if problems:
            print(f"\nSTALE DOC: {args.check_doc} does not match this run "
                  f"(regenerate it with --write-doc):")
            for p in problems[:20]:
                print(f"  {p}")
            status = 1

    unexpected = len(regressions) + len(unexpected_passes) + len(stale)
    if unexpected:
        status = 1
    expected_passes = total_passed - len(unexpected_passes)
    print(f"{expected_passes} passed, {unexpected} failed")
    return status


def _doc_argv(args):
    out = ["--infc", "build/bin/infc", "--work", "build/conformance-work",
           "--jobs", str(args.jobs)]
    if args.timeout != 60:
        out += ["--timeout", f"{args.timeout:g}"]
    if args.xfail:
        out += ["--xfail", "test/conformance/expected_failures.txt"]
    if args.update_xfail:
        out.append("--update-xfail")
    out += ["--write-doc", "docs/conformance.md"]
    return out


if __name__ == "__main__":
    sys.exit(main())

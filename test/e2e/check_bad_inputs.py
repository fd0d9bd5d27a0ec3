#!/usr/bin/env python3
"""Bad-input tests: infc must refuse bad models and bad arguments cleanly.

    check_bad_inputs.py --infc BUILD/bin/infc --work DIR [--only a1,c,...] [--python-dir DIR]
                        [--list] [--verbose]

Each compile case builds a bad input under DIR/<case>/ and runs `infc compile` on it with
`-o DIR/<case>/out/model.so` (out/ created empty beforehand). A case passes when infc
  - exits non-zero, and did not crash: no signal, exit code < 128, no crash text on its output
    (stack dump, assertion, sanitizer report, Python traceback);
  - prints its error on stderr, briefly (at most MAX_LINES lines plus one per expected item),
    with each expected pattern matched within ONE line (loose regexes: the node name and op
    type for unsupported ops, the file name for external data, '--input-shape' for symbolic
    dims, ...);
  - leaves out/ empty: no output file and no temporaries.

Compile cases:
  a1-a4  not ONNX: random bytes, a text file, an empty file, a path that does not exist
  b      a truncated model (the first half of a valid model's bytes, checked unparseable)
  c      three unsupported nodes (Det, Unique, com.example::FancyOp) next to supported ones:
         every unsupported node is listed by name and op type, supported ones are not
  d1-d2  unsupported dtypes: a complex64 input, a string input
  e1-e4  external data: file missing; location '../secret.bin' escaping the model folder (the
         file exists); an absolute location (the file exists); offset+length past the file end
  f      a symbolic dim 'batch' without --input-shape (message names --input-shape), then with
         --input-shape x=2x4 it must compile and `infc run` must match onnxruntime
  g1-g3  --input-shape of the wrong rank, naming a non-existent input, malformed
  h      an ai.onnx opset from the future (99): the message mentions 'opset'
  t1-t2  --target cuda: an architecture ptxas refuses (its message comes along), one LLVM
         does not know, one older than sm_80 and one that is not sm_NN; an unknown --target,
         --gpu, --precision or --gpu-layout without --target cuda, --precision fp8,
         --precision bf16 for a CPU without AMX-BF16, --precision auto with --target cuda,
         --gpu-layout nhcw, --activations bf8, without --precision fp16|bf16 or on the CPU,
         --quantize
         without --calibration for cuda, --emulator-checks for cuda, --gpu-index-bits 16 or
         for the emulator
  i      a Reshape whose shape is a graph input: refused, naming the input and --input-value;
         with --input-value it compiles, matches onnxruntime, and a run passing another
         shape fails cleanly
Run-time cases, on the zoo mlp compiled here (each in a subprocess, so a crash is reported):
  r1-r5  Python API: missing input, unexpected extra input, wrong shape, wrong rank, wrong
         dtype -> infc.Error whose message matches; load() of a non-library -> infc.Error
  r6-r8  `infc run`: an input of the wrong shape, a missing --input, an input file that is not
         .npy -> non-zero exit, no crash, a message on stderr
  r9     `infc run` with an empty (0x3) .npy input: runs, outputs match numpy

Prints one PASS/FAIL line per case (with the reasons and infc's stderr on failure) and
'N passed, M failed' at the end; exits 1 on any failure, 2 on bad usage.
"""

import argparse
import json
import os
import re
import shutil
import sys
import textwrap

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree
import harness  # noqa: E402

sys.path.insert(0, os.path.join(harness.REPO_ROOT, "test", "models"))
import make_zoo  # noqa: E402

MAX_LINES = 6  # allowed stderr lines for a one-error case (room for a note or a usage hint)
TIMEOUT = 300

# Key text expected in the error messages, matched case-insensitively within one line.
NOT_ONNX = r"pars|not (a |an )?(valid )?onnx|invalid (onnx|model|protobuf)|protobuf|corrupt|truncat"
NOT_FOUND = r"no such file|not found|does not exist|cannot open|can't open|failed to open|unable to open|missing"
ESCAPES = (r"outside|escape|not allowed|refus|forbidden|not permitted|must be relative|"
           r"must not|absolute|parent|not under|not within|invalid")


def both(a, b):
    """A regex matching a line that contains a and b in either order."""
    return f"(?:{a}).*(?:{b})|(?:{b}).*(?:{a})"


class Case:
    def __init__(self, name, title, fn):
        self.name, self.title, self.fn = name, title, fn


CASES = []


def case(name, title):
    def register(fn):
        CASES.append(Case(name, title, fn))
        return fn
    return register


class Ctx:
    """Per-case state: the case directory and the failure list."""

    def __init__(self, args, name):
        self.args = args
        self.dir = os.path.join(args.work, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.failures = []
        self.logs = []

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def fail(self, msg):
        self.failures.append(msg)

    # --- infc invocations -------------------------------------------------------------------
    def compile_fails(self, model_path, patterns, extra_args=(), forbid=(), label="compile"):
        """infc compile must fail cleanly; each pattern must match one stderr line."""
        out_dir = self.path(f"out_{label}")
        os.makedirs(out_dir, exist_ok=True)
        cmd = [self.args.infc, "compile", model_path, "-o", os.path.join(out_dir, "model.so")]
        cmd += list(extra_args)
        r = harness.run_tool(cmd, TIMEOUT)
        self.logs.append(r.describe())
        self.expect_clean_failure(r, patterns, forbid, label)
        left = os.listdir(out_dir)
        if left:
            self.fail(f"{label}: files left in the output directory: {left}")
        return r

    def expect_clean_failure(self, r, patterns, forbid=(), label=""):
        prefix = f"{label}: " if label else ""
        crash = r.crash_reason()
        if crash:
            self.fail(f"{prefix}crashed: {crash}")
        elif r.returncode == 0:
            self.fail(f"{prefix}exit code 0, expected a failure")
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        if not lines:
            self.fail(f"{prefix}nothing on stderr")
            return
        if len(lines) > MAX_LINES + len(patterns):
            self.fail(f"{prefix}{len(lines)} lines on stderr, expected a brief message "
                      f"(<= {MAX_LINES + len(patterns)})")
        for pat in patterns:
            if not any(re.search(pat, ln, re.IGNORECASE) for ln in lines):
                self.fail(f"{prefix}no stderr line matches /{pat}/")
        for pat in forbid:
            hit = [ln for ln in lines if re.search(pat, ln, re.IGNORECASE)]
            if hit:
                self.fail(f"{prefix}stderr should not match /{pat}/: {hit[0]!r}")

    def compile_ok(self, model_path, extra_args=(), label="compile"):
        so = self.path(f"{label}.so")
        r = harness.run_tool([self.args.infc, "compile", model_path, "-o", so]
                             + list(extra_args), TIMEOUT)
        self.logs.append(r.describe())
        if r.returncode != 0 or r.crash_reason() or not os.path.isfile(so):
            why = r.crash_reason() or (f"exit {r.returncode}" if r.returncode
                                       else "exit 0 but no output file")
            self.fail(f"{label}: expected success, got {why}")
            return None
        return so

    def python_check(self, so, code, pattern):
        """Run `code` (with infc imported, `m` the loaded model, np/x available) in a
        subprocess; it must raise infc.Error whose message matches pattern."""
        script = textwrap.dedent("""
            import json, sys
            import numpy as np
            sys.dont_write_bytecode = True
            sys.path.insert(0, {pydir!r})
            import infc
            x = np.load({x!r})
            try:
                m = infc.load({so!r})
                {code}
                print(json.dumps({{"raised": None}}))
            except infc.Error as e:
                print(json.dumps({{"raised": "infc.Error", "message": str(e)}}))
            except Exception as e:
                print(json.dumps({{"raised": type(e).__name__, "message": str(e)}}))
            """).format(pydir=os.path.abspath(self.args.python_dir), so=so,
                        x=self.path("..", "_shared", "mlp_input.npy"), code=code)
        r = harness.run_tool([sys.executable, "-c", script], TIMEOUT)
        self.logs.append(f"python: {code}\n" + r.describe())
        crash = r.crash_reason()
        if crash:
            self.fail(f"python `{code}` crashed: {crash}")
            return
        try:
            res = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            self.fail(f"python `{code}`: no result (exit {r.returncode})")
            return
        if res["raised"] != "infc.Error":
            self.fail(f"python `{code}`: expected infc.Error, got "
                      f"{res['raised'] or 'no exception'}: {res.get('message', '')}")
        elif not re.search(pattern, res["message"], re.IGNORECASE):
            self.fail(f"python `{code}`: message {res['message']!r} does not match /{pattern}/")
        else:
            self.logs.append(f"  -> infc.Error: {res['message']}")


# --- model builders -----------------------------------------------------------------------
def save(model, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save_model(model, path)
    return path


def mlp_model():
    return make_zoo.make_mlp("mlp")


def tiny_model(elem_type=TensorProto.FLOAT, shape=(2, 4), name="x", opset=17):
    """y = relu(x @ W + b), the smallest realistic model."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3)).astype(np.float32), "W")
    b = numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), "b")
    nodes = [helper.make_node("MatMul", [name, "W"], ["mm"], name="matmul_0"),
             helper.make_node("Add", ["mm", "b"], ["pre"], name="add_0"),
             helper.make_node("Relu", ["pre"], ["y"], name="relu_0")]
    g = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info(name, elem_type, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [shape[0], 3])],
                          [w, b])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def identity_model(elem_type, name):
    g = helper.make_graph([helper.make_node("Identity", [name], ["y"], name="identity_0")],
                          "bad_dtype", [helper.make_tensor_value_info(name, elem_type, [4])],
                          [helper.make_tensor_value_info("y", elem_type, [4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    return m


def unparseable(data):
    try:
        onnx.ModelProto().ParseFromString(data)
        return False
    except Exception:  # noqa: BLE001 - protobuf's DecodeError type varies by implementation
        return True


def ext_mlp(ctx, subdir, location, write_data=True, length_extra=0):
    """The zoo mlp with fc1.weight stored externally at `location` (relative to the model
    dir, or absolute). Returns the model path."""
    model, _ = mlp_model()
    model_dir = ctx.path(subdir)
    os.makedirs(model_dir, exist_ok=True)
    t = next(t for t in model.graph.initializer if t.name == "fc1.weight")
    raw = numpy_helper.to_array(t).tobytes()
    if write_data:
        target = location if os.path.isabs(location) else os.path.join(model_dir, location)
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        with open(target, "wb") as f:
            f.write(raw)
    onnx.external_data_helper.set_external_data(t, location=location, offset=0,
                                                length=len(raw) + length_extra)
    t.data_location = TensorProto.EXTERNAL
    t.ClearField("raw_data")
    return save(model, os.path.join(model_dir, "model.onnx"))


# --- compile cases ------------------------------------------------------------------------
@case("a1", "random bytes")
def _(ctx):
    rng = np.random.default_rng(0)
    data = rng.integers(0, 256, 4096, dtype=np.uint8).tobytes()
    assert unparseable(data), "pick another seed: these random bytes parse as a ModelProto"
    p = ctx.path("random.onnx")
    open(p, "wb").write(data)
    ctx.compile_fails(p, [NOT_ONNX])


@case("a2", "a text file")
def _(ctx):
    p = ctx.path("notes.onnx")
    open(p, "w").write("this is not an ONNX model\njust some notes\n")
    assert unparseable(open(p, "rb").read())
    ctx.compile_fails(p, [NOT_ONNX])


@case("a3", "an empty file")
def _(ctx):
    p = ctx.path("empty.onnx")
    open(p, "wb").close()
    ctx.compile_fails(p, [NOT_ONNX + r"|empty|no graph|no nodes"])


@case("a4", "a path that does not exist")
def _(ctx):
    ctx.compile_fails(ctx.path("no_such_model.onnx"), [both(r"no_such_model", NOT_FOUND)])


@case("b", "a truncated model")
def _(ctx):
    model, _ = mlp_model()
    data = model.SerializeToString()
    cut = len(data) // 2
    while not unparseable(data[:cut]):  # land inside a field so the protobuf cannot parse
        cut += 1
    p = ctx.path("truncated.onnx")
    open(p, "wb").write(data[:cut])
    ctx.compile_fails(p, [NOT_ONNX])


@case("c", "unsupported ops: Det, Unique, com.example::FancyOp")
def _(ctx):
    nodes = [
        helper.make_node("Relu", ["mat"], ["mat_relu"], name="relu_0"),
        helper.make_node("Det", ["mat_relu"], ["det"], name="det_0"),
        helper.make_node("Unique", ["signal"], ["uniques"], name="unique_0"),
        helper.make_node("FancyOp", ["det"], ["fancy"], name="custom_0", domain="com.example"),
        helper.make_node("Add", ["fancy", "det"], ["out"], name="add_0"),
    ]
    g = helper.make_graph(
        nodes, "unsupported",
        [helper.make_tensor_value_info("mat", TensorProto.FLOAT, [2, 3, 3]),
         helper.make_tensor_value_info("signal", TensorProto.FLOAT, [64])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("uniques", TensorProto.FLOAT, ["count"])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                            helper.make_opsetid("com.example", 1)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    p = save(m, ctx.path("unsupported.onnx"))
    ctx.compile_fails(p, [both(r"\bdet_0\b", r"\bDet\b"), both(r"\bunique_0\b", r"\bUnique\b"),
                          both(r"\bcustom_0\b", r"FancyOp")],
                      forbid=[r"\brelu_0\b", r"\badd_0\b"])


@case("d1", "complex64 input")
def _(ctx):
    p = save(identity_model(TensorProto.COMPLEX64, "cplx_in"), ctx.path("complex.onnx"))
    ctx.compile_fails(p, [both(r"cplx_in", r"complex")])


@case("d2", "string input")
def _(ctx):
    p = save(identity_model(TensorProto.STRING, "str_in"), ctx.path("string.onnx"))
    ctx.compile_fails(p, [both(r"str_in", r"string")])


@case("e1", "external data file missing")
def _(ctx):
    p = ext_mlp(ctx, "model", "weights.bin", write_data=False)
    ctx.compile_fails(p, [both(r"weights\.bin", NOT_FOUND)])


@case("e2", "external data location '../secret.bin' escapes the model folder")
def _(ctx):
    p = ext_mlp(ctx, "model", "../secret.bin")
    assert os.path.isfile(ctx.path("secret.bin"))  # it exists: only the path policy refuses
    ctx.compile_fails(p, [both(r"secret\.bin", ESCAPES)])


@case("e3", "external data at an absolute location")
def _(ctx):
    target = ctx.path("elsewhere", "weights.bin")
    p = ext_mlp(ctx, "model", os.path.abspath(target))
    ctx.compile_fails(p, [both(r"weights\.bin", ESCAPES)])


@case("e4", "external data offset+length past the end of the file")
def _(ctx):
    p = ext_mlp(ctx, "model", "weights.bin", length_extra=4096)
    ctx.compile_fails(p, [both(r"weights\.bin|fc1\.weight",
                               r"range|beyond|past|exceed|too (short|small)|truncat|size"
                               r"|length|end of")])


@case("f", "a named symbolic dim without flags (any batch), with x=2x4; an unnamed one")
def _(ctx):
    m = tiny_model(shape=("batch", 4))
    onnx.checker.check_model(m, full_check=True)
    p = save(m, ctx.path("symbolic.onnx"))

    def run_against_ort(so, batch, what):
        x = np.random.default_rng(batch).standard_normal((batch, 4)).astype(np.float32)
        np.save(ctx.path("x.npy"), x)
        out_dir = ctx.path(f"run_out_{what}_{batch}")
        r = harness.run_tool([ctx.args.infc, "run", so, "--input", f"x={ctx.path('x.npy')}",
                              "--output-dir", out_dir], TIMEOUT)
        ctx.logs.append(r.describe())
        y_path = os.path.join(out_dir, "y.npy")
        if r.returncode != 0 or not os.path.isfile(y_path):
            ctx.fail(f"infc run of the {what} model at batch {batch} failed "
                     f"(exit {r.returncode})")
            return
        ref = harness.ort_reference(p, {"x": x})["y"]
        ok, summary = harness.compare(np.load(y_path), ref, 1e-4, 1e-5)
        if not ok:
            ctx.fail(f"{what} model at batch {batch} disagrees with onnxruntime: {summary}")

    # No flag names 'batch': it stays symbolic with no largest size (the batch loop).
    so = ctx.compile_ok(p, label="without")
    if so:
        for batch in (2, 1, 300, 5):  # (grown past the first run's outputs, then reused)
            run_against_ort(so, batch, "symbolic")
    so = ctx.compile_ok(p, ["--input-shape", "x=2x4"], label="with")
    if so:
        run_against_ort(so, 2, "specialized")
    # A dim without a name cannot be named by --dim: it still needs --input-shape.
    m = tiny_model(shape=(None, 4))
    p = save(m, ctx.path("unnamed.onnx"))
    ctx.compile_fails(p, [r"symbolic dim \? \(dim 0\); pass --input-shape x=Nx4"],
                      label="unnamed")


@case("i", "a Reshape whose shape is a graph input: --input-value, then a run with another")
def _(ctx):
    x_info = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])
    s_info = helper.make_tensor_value_info("shape", TensorProto.INT64, [2])
    y_info = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    node = helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")
    m = helper.make_model(helper.make_graph([node], "g", [x_info, s_info], [y_info]),
                          opset_imports=[helper.make_opsetid("", 17)])
    p = save(m, ctx.path("runtime_shape.onnx"))
    ctx.compile_fails(p, [both(r"graph input 'shape'", r"--input-value")], label="without")
    shape = np.array([3, -1], np.int64)
    np.save(ctx.path("shape.npy"), shape)
    so = ctx.compile_ok(p, ["--input-value", f"shape={ctx.path('shape.npy')}"], label="with")
    if not so:
        return
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    np.save(ctx.path("x.npy"), x)
    out_dir = ctx.path("run_out")
    r = harness.run_tool([ctx.args.infc, "run", so, "--input", f"x={ctx.path('x.npy')}",
                          "--input", f"shape={ctx.path('shape.npy')}", "--output-dir", out_dir],
                         TIMEOUT)
    ctx.logs.append(r.describe())
    y_path = os.path.join(out_dir, "y.npy")
    if r.returncode != 0 or not os.path.isfile(y_path):
        ctx.fail(f"infc run of the specialized model failed (exit {r.returncode})")
        return
    ref = harness.ort_reference(p, {"x": x, "shape": shape})["y"]
    ok, summary = harness.compare(np.load(y_path), ref, 0, 0)
    if not ok:
        ctx.fail(f"specialized model disagrees with onnxruntime: {summary}")
    np.save(ctx.path("other.npy"), np.array([4, -1], np.int64))
    r = harness.run_tool([ctx.args.infc, "run", so, "--input", f"x={ctx.path('x.npy')}",
                          "--input", f"shape={ctx.path('other.npy')}",
                          "--output-dir", ctx.path("other_out")], TIMEOUT)
    ctx.logs.append(r.describe())
    ctx.expect_clean_failure(r, [r"compiled for one value"])


@case("g1", "--input-shape of the wrong rank")
def _(ctx):
    p = save(tiny_model(shape=("batch", 4)), ctx.path("symbolic.onnx"))
    ctx.compile_fails(p, [r"rank|dimensions|dims"], ["--input-shape", "x=2x4x1"])


@case("g2", "--input-shape naming a non-existent input")
def _(ctx):
    p = save(tiny_model(shape=("batch", 4)), ctx.path("symbolic.onnx"))
    ctx.compile_fails(p, [r"nosuch"], ["--input-shape", "nosuch=2x4"])


@case("g3", "malformed --input-shape")
def _(ctx):
    p = save(tiny_model(shape=("batch", 4)), ctx.path("symbolic.onnx"))
    ctx.compile_fails(p, [r"input-shape|2xfoo|invalid|malformed"],
                      ["--input-shape", "x=2xfoo"])


@case("h", "ai.onnx opset 99")
def _(ctx):
    p = save(tiny_model(opset=99), ctx.path("future_opset.onnx"))
    ctx.compile_fails(p, [both(r"opset", r"99")])


@case("t1", "--target cuda with an architecture ptxas does not know, one LLVM does not know, "
            "one older than sm_80, and one that is no sm_")
def _(ctx):
    p = save(tiny_model(), ctx.path("tiny.onnx"))
    # sm_101: LLVM's NVPTX back end knows it, CUDA 13's ptxas calls it sm_110.
    ctx.compile_fails(p, [both(r"ptxas", r"sm_101")], ["--target", "cuda", "--gpu", "sm_101"],
                      label="--gpu sm_101")
    ctx.compile_fails(p, [both(r"sm_99", r"NVPTX")], ["--target", "cuda", "--gpu", "sm_99"],
                      label="--gpu sm_99")
    ctx.compile_fails(p, [both(r"sm_75", r"older than sm_80")],
                      ["--target", "cuda", "--gpu", "sm_80,sm_75"], label="--gpu sm_80,sm_75")
    ctx.compile_fails(p, [both(r"compute_80", r"not a GPU architecture")],
                      ["--target", "cuda", "--gpu", "compute_80"], label="--gpu compute_80")


@case("t2", "an unknown --target, --gpu, --precision or --gpu-layout without --target cuda, "
            "--precision fp8, bf16 without AMX-BF16, auto on the GPU, --gpu-layout nhcw, "
            "--activations bf8, without fp16/bf16 or on the CPU, "
            "--quantize without --calibration for cuda, --emulator-checks for cuda, "
            "--gpu-index-bits 16 or for the emulator")
def _(ctx):
    p = save(tiny_model(), ctx.path("tiny.onnx"))
    ctx.compile_fails(p, [both(r"--target", r"tpu")], ["--target", "tpu"], label="tpu")
    ctx.compile_fails(p, [both(r"--gpu", r"--target cuda")], ["--gpu", "sm_90"],
                      label="--gpu alone")
    ctx.compile_fails(p, [both(r"--precision", r"--target cuda")], ["--precision", "fp16"],
                      label="--precision on the CPU")
    ctx.compile_fails(p, [both(r"--precision", r"fp8")],
                      ["--target", "cuda", "--precision", "fp8"], label="--precision fp8")
    # bf16 on the CPU needs AMX-BF16 (Zen 3 has none); auto is the CPU's; the CPU keeps
    # its activations in fp32.
    ctx.compile_fails(p, [both(r"--precision bf16", r"AMX-BF16")],
                      ["--precision", "bf16", "--cpu", "znver3"], label="bf16 without AMX-BF16")
    ctx.compile_fails(p, [both(r"--precision auto", r"--target cuda")],
                      ["--target", "cuda", "--precision", "auto"], label="auto on the GPU")
    ctx.compile_fails(p, [both(r"--activations", r"--target cuda")],
                      ["--precision", "bf16", "--cpu", "sapphirerapids", "--activations", "half"],
                      label="--activations on the CPU")
    ctx.compile_fails(p, [both(r"--gpu-layout", r"--target cuda")], ["--gpu-layout", "nchw"],
                      label="--gpu-layout on the CPU")
    ctx.compile_fails(p, [both(r"--gpu-layout", r"nhcw")],
                      ["--target", "cuda", "--gpu-layout", "nhcw"], label="--gpu-layout nhcw")
    ctx.compile_fails(p, [both(r"--activations", r"bf8")],
                      ["--target", "cuda", "--precision", "fp16", "--activations", "bf8"],
                      label="--activations bf8")
    ctx.compile_fails(p, [both(r"--activations", r"--precision fp16 or bf16")],
                      ["--target", "cuda", "--activations", "half"],
                      label="--activations at fp32")
    ctx.compile_fails(p, [both(r"--quantize", r"--calibration")],
                      ["--target", "cuda", "--quantize", "int8"], label="--quantize")
    ctx.compile_fails(p, [both(r"--emulator-checks", r"--target cuda-emulator")],
                      ["--target", "cuda", "--emulator-checks"],
                      label="--emulator-checks on the GPU")
    ctx.compile_fails(p, [both(r"--gpu-index-bits", r"64 or 32")],
                      ["--target", "cuda", "--gpu-index-bits", "16"], label="--gpu-index-bits 16")
    ctx.compile_fails(p, [both(r"--gpu-index-bits", r"--target cuda")],
                      ["--target", "cuda-emulator", "--gpu-index-bits", "32"],
                      label="--gpu-index-bits for the emulator")


# --- run-time cases -----------------------------------------------------------------------
_MLP_SO = {}


def compiled_mlp(ctx):
    """Compile the zoo mlp once (shared by the run-time cases)."""
    if "so" not in _MLP_SO:
        shared = os.path.join(ctx.args.work, "_shared")
        os.makedirs(shared, exist_ok=True)
        model, inputs = mlp_model()
        p = save(model, os.path.join(shared, "mlp.onnx"))
        np.save(os.path.join(shared, "mlp_input.npy"), inputs["input"])
        so = os.path.join(shared, "mlp.so")
        r = harness.run_tool([ctx.args.infc, "compile", p, "-o", so], TIMEOUT)
        _MLP_SO["so"] = so if r.returncode == 0 and os.path.isfile(so) else None
        _MLP_SO["log"] = r.describe()
    if _MLP_SO["so"] is None:
        ctx.logs.append(_MLP_SO["log"])
        ctx.fail("could not compile the zoo mlp")
    return _MLP_SO["so"]


PY_CASES = [
    ("r1", "python: missing input", "m()", r"input"),
    ("r2", "python: unexpected extra input", "m(input=x, bogus=x)", r"bogus|unexpected|input"),
    ("r3", "python: wrong shape", "m(input=x[:, :, :, :8].copy())", r"shape|dim"),
    ("r4", "python: wrong rank", "m(input=x.reshape(4, 256))", r"shape|rank|dim"),
    ("r5", "python: wrong dtype (float64)", "m(input=x.astype(np.float64))",
     r"dtype|type|float"),
]
for _name, _title, _code, _pat in PY_CASES:
    def _py(ctx, code=_code, pat=_pat):
        so = compiled_mlp(ctx)
        if so:
            ctx.python_check(so, code, pat)
    case(_name, _title)(_py)


@case("r5b", "python: load() of a file that is not a compiled model")
def _(ctx):
    if not compiled_mlp(ctx):
        return
    bogus = ctx.path("bogus.so")
    open(bogus, "w").write("not a shared library\n")
    ctx.python_check(bogus, "pass", r"bogus\.so|load|invalid|not")


def _run_cli(ctx, extra):
    so = compiled_mlp(ctx)
    if not so:
        return None
    r = harness.run_tool([ctx.args.infc, "run", so] + extra
                         + ["--output-dir", ctx.path("out")], TIMEOUT)
    ctx.logs.append(r.describe())
    return r


@case("r6", "infc run: input of the wrong shape")
def _(ctx):
    np.save(ctx.path("small.npy"), np.zeros((4, 1, 16, 8), np.float32))
    r = _run_cli(ctx, ["--input", f"input={ctx.path('small.npy')}"])
    if r:
        ctx.expect_clean_failure(r, [r"shape|dim"])


@case("r7", "infc run: no --input")
def _(ctx):
    r = _run_cli(ctx, [])
    if r:
        ctx.expect_clean_failure(r, [r"input"])


@case("r8", "infc run: input file that is not .npy")
def _(ctx):
    p = ctx.path("garbage.npy")
    open(p, "w").write("garbage\n")
    r = _run_cli(ctx, ["--input", f"input={p}"])
    if r:
        ctx.expect_clean_failure(r, [r"garbage\.npy|npy|input"])


@case("r9", "infc run: an empty input (0x3) is a tensor, not a missing one")
def _(ctx):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    like = helper.make_tensor_value_info("like", TensorProto.FLOAT, [0, 3])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu"),
                           helper.make_node("Neg", ["like"], ["z"], name="neg")], "empty",
                          [x, like], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                                      helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    p = save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
             ctx.path("empty.onnx"))
    so = ctx.compile_ok(p)
    if not so:
        return
    xv = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    np.save(ctx.path("x.npy"), xv)
    np.save(ctx.path("like.npy"), np.zeros((0, 3), np.float32))
    r = harness.run_tool([ctx.args.infc, "run", so, "--input", f"x={ctx.path('x.npy')}",
                          "--input", f"like={ctx.path('like.npy')}", "--output-dir",
                          ctx.path("out")], TIMEOUT)
    ctx.logs.append(r.describe())
    if r.returncode != 0 or r.crash_reason():
        ctx.fail(f"infc run failed: {r.crash_reason() or f'exit {r.returncode}'}")
        return
    y, z = np.load(ctx.path("out", "y.npy")), np.load(ctx.path("out", "z.npy"))
    if not np.array_equal(y, np.maximum(xv, 0)) or z.shape != (0, 3):
        ctx.fail(f"wrong outputs: y={y.tolist()}, z of shape {z.shape}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", help="path to the infc binary")
    ap.add_argument("--work", help="scratch directory")
    ap.add_argument("--only", help="comma-separated case names (see --list)")
    ap.add_argument("--python-dir", default=harness.DEFAULT_PYTHON_DIR,
                    help="directory holding the infc Python package (default: repo python/)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--verbose", "-v", action="store_true",
                    help="print every command and its output, also for passing cases")
    args = ap.parse_args(argv)
    if args.list:
        for c in CASES:
            print(f"{c.name:4s} {c.title}")
        return 0
    if not args.infc or not args.work:
        ap.error("--infc and --work are required")
    if not os.path.exists(args.infc):
        print(f"error: {args.infc} does not exist", file=sys.stderr)
        return 2
    args.work = os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    shutil.rmtree(os.path.join(args.work, "_shared"), ignore_errors=True)
    selected = CASES
    if args.only:
        want = {n.strip() for n in args.only.split(",")}
        unknown = want - {c.name for c in CASES}
        if unknown:
            ap.error(f"unknown case(s): {', '.join(sorted(unknown))}")
        selected = [c for c in CASES if c.name in want]

    passed = failed = 0
    for c in selected:
        ctx = Ctx(args, c.name)
        try:
            c.fn(ctx)
        except Exception as e:  # noqa: BLE001 - a broken case is a failure, not a harness crash
            ctx.fail(f"harness error: {type(e).__name__}: {e}")
        ok = not ctx.failures
        passed += ok
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {c.name:4s} {c.title}", flush=True)
        for f in ctx.failures:
            print(f"       - {f}")
        if not ok or args.verbose:
            for log in ctx.logs:
                print(textwrap.indent(log, "       "))
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

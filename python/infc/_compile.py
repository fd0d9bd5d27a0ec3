"""infc.compile: the `infc compile` command from Python.

The compiler is a separate program (it links LLVM and MLIR); this module finds it and runs it.
Where it looks, first found wins:
  1. the `compiler=` argument;
  2. the INFC_COMPILER environment variable;
  3. the compiler bundled in this package (`_compiler/bin/infc`: the wheel that
     tools/scripts/build-wheel.sh makes carries it with its runtime archive);
  4. the prefix this package was installed into by `cmake --install` (its package sits in
     `<prefix>/share/infc/python/infc`, the compiler in `<prefix>/bin/infc`);
  5. `infc` on PATH;
  6. a development checkout: `build/bin/infc` beside the package's `python/` directory.
"""

import os
import shutil
import subprocess
import tempfile

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))


class CompileError(RuntimeError):
    """`infc compile` failed: .returncode, .stderr (the compiler's message naming the node)."""

    def __init__(self, returncode, stderr, argv):
        self.returncode, self.stderr, self.argv = returncode, stderr, argv
        super().__init__(stderr.strip() or f"infc compile exited with status {returncode}")


def find_compiler(compiler=None):
    """The path of the infc compiler that infc.compile would run; raises FileNotFoundError
    naming every place it looked when there is none."""
    candidates = [("compiler=", compiler), ("INFC_COMPILER", os.environ.get("INFC_COMPILER")),
                  ("bundled", os.path.join(_HERE, "_compiler", "bin", "infc")),
                  ("installed prefix", os.path.join(_HERE, "..", "..", "..", "..", "bin", "infc")
                   if _HERE.replace(os.sep, "/").endswith("share/infc/python/infc") else None),
                  ("PATH", shutil.which("infc")),
                  ("checkout", os.path.join(_HERE, "..", "..", "build", "bin", "infc"))]
    looked = []
    for where, path in candidates:
        if not path:
            continue
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
        looked.append(f"{where}: {path}")
        if where in ("compiler=", "INFC_COMPILER"):  # asked for this one: do not guess on
            raise FileNotFoundError(f"infc compiler not found at {path} ({where})")
    raise FileNotFoundError(
        "no infc compiler found (looked at " + "; ".join(looked or ["PATH: no infc"]) +
        "); build it (the repository's README) and put it on PATH, set INFC_COMPILER, or "
        "install the wheel of tools/scripts/build-wheel.sh, which carries it")


def _flag(name):
    return "--" + name.replace("_", "-")


def compile(model, output, *, input_shape=None, input_value=None, header=None, dim=None,
            specialize=None, compiler=None, extra_args=(), timeout=None, **options):
    """Compiles the ONNX file `model` into the shared library `output`; returns `output`.

    input_shape: {input name: shape tuple} (--input-shape); input_value: {input name: array}
    (--input-value; written to a temporary .npy); header: a path for the typed C header;
    dim: {dim name: (min, max)} (--dim: generic code for every size in the range; max None
        for no largest size, what a named dim no argument fixes gets);
    specialize: {dim name: [sizes]} (--specialize: a static variant per combination).
    Every other keyword is the flag of the same name (underscores for dashes): a string or
    number its value (target="cuda", cpu="znver4", quantize="int8"), True the bare flag
    (emulator_checks=True), False or None leaves it out; a list or tuple is joined with
    commas (gpu=["sm_80", "sm_90"]); extra_args go last as they are (["-O2"]).
    compiler: the infc program (see find_compiler). docs/cli.md lists the flags. A failed
    compile raises CompileError with the compiler's message; no output file is left behind.
    """
    argv = [find_compiler(compiler), "compile", os.fspath(model), "-o", os.fspath(output)]
    with tempfile.TemporaryDirectory(prefix="infc-compile-") as tmp:
        for name, shape in (input_shape or {}).items():
            argv += ["--input-shape", f"{name}=" + "x".join(str(int(d)) for d in shape)]
        for i, (name, value) in enumerate((input_value or {}).items()):
            path = os.path.join(tmp, f"value{i}.npy")
            np.save(path, np.asarray(value))
            argv += ["--input-value", f"{name}={path}"]
        if header is not None:
            argv += ["--header", os.fspath(header)]
        for name, (lo, hi) in (dim or {}).items():
            argv += ["--dim", f"{name}={int(lo)}..{'' if hi is None else int(hi)}"]
        for name, sizes in (specialize or {}).items():
            argv += ["--specialize", f"{name}=" + ",".join(str(int(v)) for v in sizes)]
        for name, value in options.items():
            if value is None or value is False:
                continue
            if value is True:
                argv.append(_flag(name))
            elif isinstance(value, (list, tuple)):
                argv += [_flag(name), ",".join(str(v) for v in value)]
            else:
                argv += [_flag(name), os.fspath(value) if hasattr(value, "__fspath__")
                         else str(value)]
        argv += list(extra_args)
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise CompileError(r.returncode, r.stderr, argv)
    return output

#!/usr/bin/env python3
"""Shared code of bench/compare.py and bench/sgemm.py (not a benchmark itself).

- Worker: one engine (infc or onnxruntime) with one model at one thread count, in its own
  process, driven over stdin/stdout by the parent. Each engine runs in a fresh process so
  that their thread pools never share a process, a hang or crash of one is caught by a
  timeout, and each process's peak RSS (VmHWM) is the memory of that engine alone (plus the
  Python interpreter and numpy, reported separately as the baseline).

      python3 bench/benchlib.py worker --engine infc|ort --model M.so|M.onnx --threads N
                                       --inputs INPUTS.npz [--python-dir DIR]

  Both engines run with preallocated outputs (infc: run(out=...); ORT: IOBinding to numpy
  buffers), so neither pays for allocating and faulting in fresh output pages on each run.
  ORT: SessionOptions intra_op_num_threads=N, inter_op_num_threads=1, ORT_SEQUENTIAL,
  ORT_ENABLE_ALL. infc: infc.load(so, num_threads=N).

- Helpers: timed subprocesses with peak RSS (os.wait4), machine description, versions,
  output comparison.
"""

import argparse
import json
import os
import platform
import re
import select
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
DEFAULT_PYTHON_DIR = os.path.join(REPO_ROOT, "python")
PROTO = "@@bench "  # prefix of protocol lines on the worker's stdout


# --- worker side ------------------------------------------------------------------------
def proc_status_kib(field):
    """A 'kB' field of /proc/self/status (VmRSS, VmHWM) in KiB, or None."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class InfcEngine:
    """infc through its Python package. The public Session.run rebuilds its ctypes argument
    arrays on every call (about 60 us on a 2.6 GHz core), far more than ORT's pre-bound
    IOBinding path; so the timed loop calls the C entry point infc_run_named with arguments
    built once by the package's own helpers (the C-level equivalent of IOBinding). If the
    package's internals change, it falls back to the public run() (self.fast says which)."""

    def __init__(self, path, threads, python_dir):
        sys.path.insert(0, python_dir)
        import infc  # noqa: E402 - from the repository's python/

        self.model = infc.load(os.path.abspath(path), num_threads=threads)
        self.out = {io.name: np.empty(io.shape, io.dtype) for io in self.model.outputs}
        self.fast = False

    def bind(self, inputs):
        self.inputs = inputs
        self.model.run(inputs, out=self.out)  # the public path once: checks everything
        try:
            self._bind_fast(inputs)
        except (AttributeError, TypeError, ImportError):
            self.fast = False
            return
        # The fast path must write exactly what the public path wrote.
        public = {k: v.copy() for k, v in self.out.items()}
        for v in self.out.values():
            v.fill(0)
        self.run()
        self.fast = all(np.array_equal(public[k], self.out[k], equal_nan=True) for k in public)

    def _bind_fast(self, inputs):
        import ctypes

        from infc import _abi

        sess = self.model._session
        model = self.model
        keep = []
        index = {io.name: i for i, io in enumerate(model.inputs)}
        n, m = len(inputs), len(model.outputs)
        in_names = (ctypes.c_char_p * max(n, 1))()
        in_tensors = (_abi.Tensor * max(n, 1))()
        for k, (name, value) in enumerate(inputs.items()):
            arr, code = sess._to_array(value, index.get(name), name)
            keep.append(arr)
            in_names[k] = name.encode()
            in_tensors[k] = sess._tensor(arr, code, keep)
        out_names = (ctypes.c_char_p * max(m, 1))()
        out_tensors = (_abi.Tensor * max(m, 1))()
        for j, io in enumerate(model.outputs):
            arr = self.out[io.name]
            out_names[j] = io.name.encode()
            out_tensors[j] = sess._tensor(arr, model._output_codes[j], keep)
        fn, handle = sess._lib.infc_run_named, sess._handle
        self._keep = (keep, in_names, in_tensors, out_names, out_tensors)
        self.fast = True

        def call():
            status = fn(handle, in_names, in_tensors, n, out_names, out_tensors, m)
            if status != 0:
                raise RuntimeError(f"infc_run_named: status {status}: "
                                   + sess._lib.infc_session_error(handle).decode())
        self._call = call

    def run(self):
        if self.fast:
            self._call()
        else:
            self.model.run(self.inputs, out=self.out)

    def outputs(self):
        self.model.run(self.inputs, out=self.out)  # the public path, for the comparison
        return dict(self.out)


class OrtEngine:
    def __init__(self, path, threads):
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])

    def bind(self, inputs):
        self.binding = self.sess.io_binding()
        self.inputs = inputs
        for name, arr in inputs.items():
            self.binding.bind_cpu_input(name, arr)
        # Output shapes and dtypes from one plain run; then bind preallocated buffers.
        names = [o.name for o in self.sess.get_outputs()]
        first = self.sess.run(names, inputs)
        self.out = {}
        for name, val in zip(names, first):
            buf = np.empty_like(val)
            self.out[name] = buf
            self.binding.bind_output(name, "cpu", 0, buf.dtype, list(buf.shape),
                                     buf.ctypes.data)
        self.run()
        for name, val in zip(names, first):  # the bound buffers must receive the outputs
            if not np.array_equal(val, self.out[name], equal_nan=True):
                raise RuntimeError(f"IOBinding output '{name}' differs from run()'s")

    def run(self):
        self.sess.run_with_iobinding(self.binding)

    def outputs(self):
        self.run()
        return dict(self.out)


class OpenVinoEngine:
    """OpenVINO's CPU plugin, latency hint, one stream of `threads` threads. `precision`:
    its INFERENCE_PRECISION_HINT ("f32", "bf16"), or None for its default (bf16 on a CPU
    with AVX512_BF16 or AMX, f32 elsewhere; self.precision says which it took)."""

    def __init__(self, path, threads, precision=None):
        import openvino as ov

        config = {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY",
                  "NUM_STREAMS": 1}
        if precision:
            config["INFERENCE_PRECISION_HINT"] = precision
        self.ov = ov
        self.compiled = ov.Core().compile_model(path, "CPU", config)
        hint = self.compiled.get_property("INFERENCE_PRECISION_HINT")
        self.precision = hint.get_type_name() if hasattr(hint, "get_type_name") else str(hint)
        self.request = self.compiled.create_infer_request()

    def bind(self, inputs):
        self.inputs = inputs
        for name, arr in inputs.items():
            self.request.set_tensor(name, self.ov.Tensor(arr, shared_memory=True))
        self.run()

    def run(self):
        self.request.infer()

    def outputs(self):
        self.run()
        return {port.get_any_name(): np.array(self.request.get_tensor(port).data)
                for port in self.compiled.outputs}


def worker_main(argv):
    ap = argparse.ArgumentParser(prog="benchlib.py worker")
    ap.add_argument("--engine", choices=["infc", "ort", "ov"], required=True)
    ap.add_argument("--ov-precision", default=None,
                    help="ov: INFERENCE_PRECISION_HINT (f32, bf16); default: OpenVINO's own")
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--inputs", required=True, help=".npz keyed by input name")
    ap.add_argument("--python-dir", default=DEFAULT_PYTHON_DIR)
    args = ap.parse_args(argv)

    def reply(obj):
        sys.stdout.write(PROTO + json.dumps(obj) + "\n")
        sys.stdout.flush()

    with np.load(args.inputs) as z:
        # np.array, not np.ascontiguousarray: that makes a scalar (shape ()) one-dimensional.
        inputs = {k: np.array(z[k], order="C") for k in z.files}
    if args.engine == "ort":
        import onnxruntime  # noqa: F401 - imported before the baseline is taken
    elif args.engine == "ov":
        import openvino  # noqa: F401
    else:
        sys.path.insert(0, args.python_dir)
        import infc  # noqa: F401
    baseline = proc_status_kib("VmRSS")
    t0 = time.perf_counter()
    try:
        if args.engine == "infc":
            eng = InfcEngine(args.model, args.threads, args.python_dir)
        elif args.engine == "ov":
            eng = OpenVinoEngine(args.model, args.threads, args.ov_precision)
        else:
            eng = OrtEngine(args.model, args.threads)
        eng.bind(inputs)
    except Exception as e:  # noqa: BLE001 - reported to the parent
        reply({"error": f"{type(e).__name__}: {e}"})
        return 1
    reply({"ready": True, "load_s": time.perf_counter() - t0, "baseline_kib": baseline,
           "fast": getattr(eng, "fast", None), "precision": getattr(eng, "precision", None)})
    for line in sys.stdin:
        req = json.loads(line)
        cmd = req.get("cmd")
        try:
            if cmd == "run":
                for _ in range(req.get("warmup", 0)):
                    eng.run()
                times = []
                pause = req.get("interval_ms", 0) / 1e3
                for _ in range(req["iters"]):
                    if pause:  # a paced run: idle first, as a product between events
                        time.sleep(pause)
                    t = time.perf_counter()
                    eng.run()
                    times.append(time.perf_counter() - t)
                reply({"times": times})
            elif cmd == "outputs":
                np.savez(req["path"], **eng.outputs())
                reply({"saved": req["path"]})
            elif cmd == "quit":
                reply({"vmhwm_kib": proc_status_kib("VmHWM"),
                       "vmrss_kib": proc_status_kib("VmRSS")})
                return 0
            else:
                reply({"error": f"unknown command {cmd!r}"})
        except Exception as e:  # noqa: BLE001
            reply({"error": f"{type(e).__name__}: {e}"})
    return 0


# --- parent side ------------------------------------------------------------------------
class WorkerError(RuntimeError):
    pass


class Worker:
    """A running worker process; request() sends one command and waits for its reply."""

    def __init__(self, engine, model, threads, inputs, log_path, python_dir=DEFAULT_PYTHON_DIR,
                 timeout=600, extra=()):
        self.engine = engine
        self.log_path = log_path
        self.log = open(log_path, "w")
        env = dict(os.environ)
        # numpy's BLAS pool is not used by the timed code; keep it from starting threads.
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        env.setdefault("MKL_NUM_THREADS", "1")
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        argv = [sys.executable, os.path.abspath(__file__), "worker", "--engine", engine,
                "--model", model, "--threads", str(threads), "--inputs", inputs,
                "--python-dir", python_dir, *extra]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, env=env, text=True, bufsize=1,
                                     start_new_session=True)
        self._buf = ""
        self.ready = self._read(timeout)
        if "error" in self.ready:
            self.close()
            raise WorkerError(self.ready["error"])

    def _read(self, timeout):
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while "\n" in self._buf:
                line, self._buf = self._buf.split("\n", 1)
                if line.startswith(PROTO):
                    return json.loads(line[len(PROTO):])
                self.log.write(line + "\n")  # stray prints of a library
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise WorkerError(f"{self.engine}: no answer within {timeout:.0f} s (hung?)")
            r, _, _ = select.select([fd], [], [], left)
            if r:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    rc = self.proc.wait()
                    self.log.flush()
                    raise WorkerError(f"{self.engine}: worker died ({describe_rc(rc)})"
                                      + tail_of(self.log_path))
                self._buf += chunk.decode(errors="replace")

    def request(self, obj, timeout=600):
        try:
            self.proc.stdin.write(json.dumps(obj) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            rc = self.proc.wait()
            raise WorkerError(f"{self.engine}: worker died ({describe_rc(rc)})"
                              + tail_of(self.log_path)) from None
        reply = self._read(timeout)
        if "error" in reply:
            raise WorkerError(f"{self.engine}: {reply['error']}")
        return reply

    def quit(self, timeout=60):
        """Ends the worker; returns its final memory figures."""
        try:
            return self.request({"cmd": "quit"}, timeout)
        finally:
            self.close()

    def kill(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()

    def close(self):
        try:
            if self.proc.poll() is None:
                self.proc.stdin.close()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.kill()
        finally:
            self.log.close()


def describe_rc(rc):
    if rc is None:
        return "running"
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"signal {-rc}"
    return f"exit code {rc}"


def tail_of(path, lines=6):
    try:
        with open(path, errors="replace") as f:
            text = f.read().strip().splitlines()[-lines:]
    except OSError:
        return ""
    return (": " + " | ".join(text)) if text else ""


def run_measured(argv, timeout, cwd=None):
    """Runs a command; returns (returncode, stdout, stderr, wall seconds, peak RSS KiB).
    The peak RSS is that of this child alone (os.wait4), returncode None on a timeout."""
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=err, cwd=cwd, start_new_session=True)
        rc, rss = None, 0
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                rc = os.waitstatus_to_exitcode(status)
                rss = usage.ru_maxrss
                break
            if time.monotonic() > deadline:
                os.killpg(p.pid, signal.SIGKILL)
                _, _, usage = os.wait4(p.pid, 0)
                rss = usage.ru_maxrss
                break
            time.sleep(0.05)
        p.returncode = rc if rc is not None else -9
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        return (rc, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                wall, rss)


def compare_outputs(got, ref, rtol, atol):
    """Compares output dicts: returns (ok, max_abs, max_rel, worst_tol_ratio, note).
    Floats pass when |got - ref| <= atol + rtol*|ref| everywhere (numpy.allclose) and
    everything is finite; integers must match exactly. max_rel is over elements with
    |ref| > atol (the relative error of values near zero says little)."""
    ok, max_abs, max_rel, worst, notes = True, 0.0, 0.0, 0.0, []
    for name, r in ref.items():
        if name not in got:
            return False, float("nan"), float("nan"), float("inf"), f"missing output {name}"
        g = got[name]
        if g.shape != r.shape or g.dtype != r.dtype:
            return (False, float("nan"), float("nan"), float("inf"),
                    f"{name}: {g.dtype}{list(g.shape)} vs ORT {r.dtype}{list(r.shape)}")
        if r.size == 0:
            continue
        if not np.issubdtype(r.dtype, np.floating):
            if not np.array_equal(g, r):
                ok = False
                notes.append(f"{name}: integer mismatch")
            continue
        if not np.all(np.isfinite(g)):
            ok = False
            notes.append(f"{name}: non-finite values")
            continue
        g64, r64 = g.astype(np.float64), r.astype(np.float64)
        err = np.abs(g64 - r64)
        max_abs = max(max_abs, float(err.max()))
        big = np.abs(r64) > atol
        if big.any():
            max_rel = max(max_rel, float((err[big] / np.abs(r64[big])).max()))
        ratio = float((err / (atol + rtol * np.abs(r64))).max())
        worst = max(worst, ratio)
        if ratio > 1:
            ok = False
            notes.append(f"{name}: beyond tolerance ({ratio:.3g}x)")
    return ok, max_abs, max_rel, worst, "; ".join(notes)


def median(xs):
    return float(np.median(np.asarray(xs, dtype=np.float64)))


# --- machine and versions --------------------------------------------------------------
def lscpu():
    info = {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=20).stdout
        for line in out.splitlines():
            if ":" in line:
                k, v = line.split(":", 1)
                info[k.strip()] = v.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return info


SIMD_FLAGS = ["sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl",
              "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile", "amx_bf16"]


def machine_lines():
    """A Markdown list describing the CPU, memory and OS."""
    info = lscpu()
    flags = set(info.get("Flags", "").split())
    simd = [f for f in SIMD_FLAGS if f in flags]
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kib = int(f.readline().split()[1])
            mem = f"{kib / 2**20:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    lines = [
        f"- CPU: {info.get('Model name', platform.processor() or '?')}"
        f" ({info.get('Vendor ID', '?')}, family {info.get('CPU family', '?')}"
        f" model {info.get('Model', '?')})",
        f"- logical CPUs: {os.cpu_count()} (sockets {info.get('Socket(s)', '?')}, cores per "
        f"socket {info.get('Core(s) per socket', '?')}, threads per core "
        f"{info.get('Thread(s) per core', '?')})"
        + (f"; hypervisor {info['Hypervisor vendor']}" if "Hypervisor vendor" in info else ""),
        f"- caches: L1d {info.get('L1d cache', '?')}, L2 {info.get('L2 cache', '?')}, "
        f"L3 {info.get('L3 cache', '?')}",
        f"- SIMD flags: {' '.join(simd) or 'none found'}",
        f"- memory: {mem}; OS: {platform.system()} {platform.release()}",
    ]
    return lines


def infc_version(infc_bin):
    rev = "?"
    try:
        rev = subprocess.run(["git", "-C", REPO_ROOT, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=20).stdout.strip() or "?"
        dirty = subprocess.run(["git", "-C", REPO_ROOT, "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=20).stdout.strip()
        if dirty:
            rev += " + uncommitted changes"
    except (OSError, subprocess.SubprocessError):
        pass
    return f"infc {rev} ({os.path.relpath(infc_bin, REPO_ROOT) if infc_bin else 'not used'})"


def version_lines(infc_bin=None):
    import onnx

    try:
        import onnxruntime as ort
        ort_v = ort.__version__
    except ImportError:
        ort_v = "not installed"
    cc = ""
    ccbin = shutil.which("cc")
    if ccbin:
        try:
            cc = subprocess.run([ccbin, "--version"], capture_output=True, text=True,
                                timeout=20).stdout.splitlines()[0]
        except (OSError, subprocess.SubprocessError, IndexError):
            pass
    return [
        f"- {infc_version(infc_bin)}",
        f"- onnxruntime {ort_v} (pip, CPUExecutionProvider), onnx {onnx.__version__}, "
        f"numpy {np.__version__}, Python {platform.python_version()}",
    ] + ([f"- C compiler (FMA peak probe): {cc}"] if cc else [])


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def fmt_mib(kib):
    return "?" if kib is None else f"{kib / 1024:.0f}"


def sanitize(text, limit=160):
    text = re.sub(r"\s+", " ", text.replace("|", "/")).strip()
    return text if len(text) <= limit else text[:limit - 3] + "..."


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        sys.exit(worker_main(sys.argv[2:]))
    print(__doc__)
    sys.exit(2)

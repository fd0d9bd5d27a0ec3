#!/usr/bin/env python3
"""SGEMM micro benchmark: infc and onnxruntime on single-MatMul models, against the measured
FMA peak of this machine.

    python3 bench/sgemm.py --infc build/bin/infc [--threads 1] [--shapes 1024x1024x1024,...]
                           [--runs 5] [--target-s 0.5] [--work DIR] [--json OUT.json]

Shapes are MxKxN: C[M,N] = A[M,K] x B[K,N], A a graph input, B a constant initializer (a
weight, as in a Linear layer), all float32. Default: 1024x1024x1024 and the GEMMs of BERT-base
at sequence length 128: 128x768x768 (Q, K, V and attention output projections), 128x768x3072
(FFN up) and 128x3072x768 (FFN down).

Each model is compiled with `infc compile`, then infc (Python API, preallocated output) and
onnxruntime (IOBinding, ORT_ENABLE_ALL, intra_op_num_threads = threads) run it in separate
worker processes, alternating: --runs rounds, each of enough iterations to last about
--target-s seconds; the figure is the median over the rounds of each round's median. GFLOP/s
counts 2*M*N*K flops per run.

The FMA peak is measured, not taken from a data sheet: a small C program is compiled at run
time with `cc -O3 -march=native` and runs independent chains of FMAs on the widest vectors
the compiler targets (__m512 if AVX-512F is enabled, else __m256 with FMA, else scalar), one
chain per register so that FMA latency is hidden, on `threads` threads. The peak is the best
of 40 trials of about 20 ms, measured before and after the GEMM runs. % of peak = GFLOP/s /
peak at the same thread count.

The peak of a machine that other work shares is not the peak a round finds: the compute
itself slows by 10-20% for seconds at a time (an FMA-only kernel timed between the GEMM runs
moves as much as the GEMMs do), and the best of 40 trials sees the quietest moment. So the
probe also runs right before and after each engine's round (9 trials, their median), and
"% of the rounds' peak" is each round's GFLOP/s over the mean of the two probes around it,
the median over the rounds. Both figures are reported.

Correctness: infc's C is compared with numpy (float64 accumulation); the error is reported as
max |C - C_ref| / max |C_ref|, which must be below 1e-5 (fp32 accumulation over K terms of
random data lands near 1e-6).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

DEFAULT_SHAPES = [(1024, 1024, 1024), (128, 768, 768), (128, 768, 3072), (128, 3072, 768)]
ERR_LIMIT = 1e-5

FMA_PEAK_C = r"""
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__AVX512F__)
#define KIND "avx512 (__m512, 16 floats)"
#define WIDTH 16
#define CHAINS 24
typedef __m512 vec;
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
static float hsum(vec v) { return _mm512_reduce_add_ps(v); }
#elif defined(__FMA__) && defined(__AVX__)
#define KIND "avx2+fma (__m256, 8 floats)"
#define WIDTH 8
#define CHAINS 12
typedef __m256 vec;
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
static float hsum(vec v) {
  float f[8];
  _mm256_storeu_ps(f, v);
  return f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7];
}
#else
#define KIND "scalar"
#define WIDTH 1
#define CHAINS 8
typedef float vec;
#define SET1(x) (x)
#define FMA(a, b, c) __builtin_fmaf(a, b, c)
#define ADD(a, b) ((a) + (b))
static float hsum(vec v) { return v; }
#endif

static long iters;
static float results[256];

static void *work(void *arg) {
  long id = (long)arg;
  vec acc[CHAINS];
  for (int j = 0; j < CHAINS; ++j)
    acc[j] = SET1(1.0f + 0.001f * (float)(j + id));
  vec b = SET1(0.999999f), c = SET1(1e-7f);
  for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 64
    for (int j = 0; j < CHAINS; ++j)
      acc[j] = FMA(acc[j], b, c);
  }
  vec s = acc[0];
  for (int j = 1; j < CHAINS; ++j)
    s = ADD(s, acc[j]);
  results[id] = hsum(s);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  iters = argc > 2 ? atol(argv[2]) : 50000000L;
  int trials = argc > 3 ? atoi(argv[3]) : 5;
  if (threads < 1 || threads > 256)
    return 2;
  if (trials < 1 || trials > 1000)
    return 2;
  double best = 0, all[1000];
  float check = 0;
  for (int t = 0; t < trials; ++t) {
    pthread_t th[256];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long k = 1; k < threads; ++k)
      pthread_create(&th[k], NULL, work, (void *)k);
    work((void *)0);
    for (long k = 1; k < threads; ++k)
      pthread_join(th[k], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    double gflops = 2.0 * WIDTH * CHAINS * (double)iters * threads / s * 1e-9;
    all[t] = gflops;
    if (gflops > best)
      best = gflops;
    for (int k = 0; k < threads; ++k)
      check += results[k];
  }
  for (int i = 1; i < trials; ++i) /* insertion sort: the median trial */
    for (int j = i; j > 0 && all[j - 1] > all[j]; --j) {
      double x = all[j];
      all[j] = all[j - 1];
      all[j - 1] = x;
    }
  double median = trials % 2 ? all[trials / 2] : 0.5 * (all[trials / 2 - 1] + all[trials / 2]);
  printf("{\"gflops\": %.3f, \"median_gflops\": %.3f, \"kind\": \"%s\", \"width\": %d, "
         "\"chains\": %d, \"threads\": %d, \"checksum\": %g}\n",
         best, median, KIND, WIDTH, CHAINS, threads, check);
  return 0;
}
"""


class FmaProbe:
    """The FMA probe, compiled once (`cc -O3 -march=native`), its iteration count calibrated
    to about `seconds` a trial."""

    def __init__(self, work=None, seconds=0.02):
        work = work or tempfile.mkdtemp(prefix="infc-fma-")
        os.makedirs(work, exist_ok=True)
        src = os.path.join(work, "fma_peak.c")
        self.exe = os.path.join(work, "fma_peak")
        with open(src, "w") as f:
            f.write(FMA_PEAK_C)
        cc = os.environ.get("CC", "cc")
        r = subprocess.run([cc, "-O3", "-march=native", "-pthread", src, "-o", self.exe],
                           capture_output=True, text=True, timeout=120)
        if r.returncode:
            raise RuntimeError(f"compiling the FMA probe failed: {r.stderr.strip()}")
        probe = self.run(1, 1, iters=2000000)
        per_iter = 2.0 * probe["width"] * probe["chains"] / (probe["gflops"] * 1e9)
        self.iters = max(100000, int(seconds / per_iter))

    def run(self, threads, trials, iters=None):
        """{"gflops": best trial, "median_gflops": median trial, "kind", ...}."""
        out = subprocess.run([self.exe, str(threads), str(iters or self.iters), str(trials)],
                             capture_output=True, text=True, timeout=600, check=True).stdout
        return json.loads(out)


def measure_fma_peak(threads=1, work=None, seconds=0.02, trials=40, probe=None):
    """The machine's single-precision FMA peak in GFLOP/s on `threads` threads (measured):
    the best of `trials` short trials, so that one of them likely runs undisturbed on a
    machine with other work (a scheduler time slice is a few ms)."""
    return (probe or FmaProbe(work, seconds)).run(threads, trials)


def make_matmul_model(path, m, k, n):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(m * 1000003 + k * 1009 + n)
    b = (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["C"], name="/MatMul")], f"sgemm_{m}x{k}x{n}",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("C", TensorProto.FLOAT, [m, n])],
        [numpy_helper.from_array(b, "B")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="infc-bench-sgemm")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save_model(model, path)
    a = rng.standard_normal((m, k)).astype(np.float32)
    return a, b


def time_pair(workers, runs, target_s, warmup, timeout, log=print, window_peak=None):
    """Alternates the workers (a dict name -> Worker): returns {name: [round medians]}, the
    iteration count used and, with `window_peak` (a function returning GFLOP/s), {name:
    [the FMA peak around each round]}: the mean of the probes run right before and right
    after that engine's round (one probe between two rounds serves both)."""
    first = {}
    for name, w in workers.items():
        first[name] = benchlib.median(
            w.request({"cmd": "run", "warmup": warmup, "iters": 1}, timeout)["times"])
    slowest = max(first.values())
    iters = int(min(200, max(3, round(target_s / max(slowest, 1e-6)))))
    meds = {name: [] for name in workers}
    windows = {name: [] for name in workers}
    names = list(workers)
    before = window_peak() if window_peak else None
    for r in range(runs):
        order = names if r % 2 == 0 else names[::-1]
        for name in order:
            t = workers[name].request({"cmd": "run", "warmup": 1, "iters": iters},
                                      timeout)["times"]
            meds[name].append(benchlib.median(t))
            if window_peak:
                after = window_peak()
                windows[name].append(0.5 * (before + after))
                before = after
    return meds, iters, (windows if window_peak else None)


def run_sgemm(infc_bin, shapes, threads_list, work, runs=5, target_s=0.5, warmup=3,
              timeout=600, python_dir=benchlib.DEFAULT_PYTHON_DIR, log=print):
    """Runs the micro benchmark; returns a dict with 'peaks' and 'rows'."""
    os.makedirs(work, exist_ok=True)
    probe = FmaProbe(os.path.join(work, "fma"))
    peaks = {t: measure_fma_peak(t, probe=probe) for t in threads_list}
    rows = []
    for (m, k, n) in shapes:
        tag = f"{m}x{k}x{n}"
        onnx_path = os.path.join(work, f"sgemm_{tag}.onnx")
        so_path = os.path.join(work, f"sgemm_{tag}.so")
        a, b = make_matmul_model(onnx_path, m, k, n)
        inputs_path = os.path.join(work, f"sgemm_{tag}.inputs.npz")
        np.savez(inputs_path, A=a)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        flops = 2.0 * m * n * k
        infc_err = None
        if infc_bin:
            rc, _, err, secs, _ = benchlib.run_measured(
                [infc_bin, "compile", onnx_path, "-o", so_path], timeout)
            if rc != 0:
                infc_err = "compile failed: " + benchlib.sanitize(err or f"exit {rc}")
        else:
            infc_err = "no --infc"
        for t in threads_list:
            row = {"shape": tag, "m": m, "k": k, "n": n, "threads": t,
                   "peak_gflops": peaks[t]["gflops"], "infc_error": infc_err}
            workers = {}
            try:
                workers["ort"] = benchlib.Worker("ort", onnx_path, t, inputs_path,
                                                 os.path.join(work, f"{tag}.ort.t{t}.log"),
                                                 python_dir, timeout)
                if infc_err is None:
                    try:
                        workers["infc"] = benchlib.Worker(
                            "infc", so_path, t, inputs_path,
                            os.path.join(work, f"{tag}.infc.t{t}.log"), python_dir, timeout)
                    except benchlib.WorkerError as e:
                        row["infc_error"] = benchlib.sanitize(str(e))
                # The peak as the engines find it: the median of 9 trials (about 0.2 s)
                # before and after each round, on the same threads.
                window = lambda: probe.run(t, 9)["median_gflops"]  # noqa: E731
                try:
                    meds, iters, windows = time_pair(workers, runs, target_s, warmup, timeout,
                                                     log, window)
                except benchlib.WorkerError as e:
                    # Retry ORT alone if infc was the one that failed.
                    row["infc_error"] = benchlib.sanitize(str(e))
                    workers.pop("infc", None)
                    if workers["ort"].proc.poll() is not None:
                        raise
                    meds, iters, windows = time_pair(workers, runs, target_s, warmup,
                                                     timeout, log, window)
                row["iters"] = iters
                for name, ms in meds.items():
                    s = benchlib.median(ms)
                    row[f"{name}_s"] = s
                    row[f"{name}_gflops"] = flops / s * 1e-9
                    row[f"{name}_pct_peak"] = 100.0 * flops / s * 1e-9 / peaks[t]["gflops"]
                    # Each round against the peak of its own moment, the median of those.
                    row[f"{name}_window_peak"] = benchlib.median(windows[name])
                    row[f"{name}_pct_window"] = benchlib.median(
                        [100.0 * flops / rs * 1e-9 / wp for rs, wp in zip(ms, windows[name])])
                for name, w in workers.items():
                    path = os.path.join(work, f"{tag}.{name}.t{t}.out.npz")
                    w.request({"cmd": "outputs", "path": path}, timeout)
                    with np.load(path) as z:
                        c = z["C"].astype(np.float64)
                    row[f"{name}_err"] = float(np.abs(c - ref).max() / np.abs(ref).max())
                if "infc_err" in row and not row["infc_err"] < ERR_LIMIT:
                    row["infc_error"] = f"wrong result (error {row['infc_err']:.2e})"
            except benchlib.WorkerError as e:
                row["ort_error"] = benchlib.sanitize(str(e))
            finally:
                for w in workers.values():
                    try:
                        w.quit()
                    except benchlib.WorkerError:
                        w.kill()
            rows.append(row)
    # The peak again after the runs; the higher of the two counts (a busy moment only ever
    # lowers a measurement).
    for t in threads_list:
        again = measure_fma_peak(t, probe=probe)
        if again["gflops"] > peaks[t]["gflops"]:
            peaks[t] = again
        log(f"FMA peak, {t} thread(s): {peaks[t]['gflops']:.1f} GFLOP/s ({peaks[t]['kind']})")
    for row in rows:
        row["peak_gflops"] = peaks[row["threads"]]["gflops"]
        for name in ("infc", "ort"):
            if f"{name}_gflops" in row:
                row[f"{name}_pct_peak"] = 100.0 * row[f"{name}_gflops"] / row["peak_gflops"]
        log(format_row(row))
    return {"peaks": {str(t): p for t, p in peaks.items()}, "rows": rows}


def _cell(row, name, key, fmt):
    v = row.get(f"{name}_{key}")
    return "—" if v is None else fmt.format(v)


def format_row(row):
    def engine(name, label):
        if f"{name}_gflops" not in row or row.get(f"{name}_error"):
            return f"{label}: {row.get(f'{name}_error')}"
        return (f"{label} {row[f'{name}_gflops']:7.1f} GFLOP/s ({row[f'{name}_pct_peak']:5.1f}% "
                f"peak, {row[f'{name}_pct_window']:5.1f}% of its rounds' peak)")
    return f"{row['shape']:>16s} t={row['threads']}  {engine('infc', 'infc')}  {engine('ort', 'ORT')}"


def markdown_table(result):
    """% of peak: the median round against the best probe trial of the whole run; % of the
    rounds' peak: each round against the probes around it (the median of those ratios)."""
    lines = ["| M×K×N | threads | FMA peak GFLOP/s | peak in the rounds | infc GFLOP/s | "
             "infc % of peak | infc % of the rounds' peak | ORT GFLOP/s | ORT % of peak | "
             "ORT % of the rounds' peak | infc/ORT time | infc error |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for row in result["rows"]:
        ok = "infc_gflops" in row and not row.get("infc_error")
        ratio = (f"{row['infc_s'] / row['ort_s']:.2f}" if ok and "ort_s" in row else "—")
        err = (f"{row['infc_err']:.1e}" if ok else f"**{row.get('infc_error')}**")
        windows = [row[f"{e}_window_peak"] for e in ("infc", "ort") if f"{e}_window_peak" in row]
        lines.append(
            f"| {row['shape'].replace('x', '×')} | {row['threads']} | {row['peak_gflops']:.1f} | "
            + (f"{benchlib.median(windows):.1f} | " if windows else "— | ")
            + (f"{row['infc_gflops']:.1f} | {row['infc_pct_peak']:.1f}% | "
               f"{row['infc_pct_window']:.1f}% | " if ok else "— | — | — | ")
            + (f"{row['ort_gflops']:.1f} | {row['ort_pct_peak']:.1f}% | "
               f"{row['ort_pct_window']:.1f}% | " if "ort_gflops" in row
               else f"**{row.get('ort_error', 'failed')}** | — | — | ")
            + f"{ratio} | {err} |")
    return lines


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        parts = item.strip().lower().split("x")
        if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise argparse.ArgumentTypeError(f"bad shape '{item}' (expected MxKxN)")
        shapes.append(tuple(int(p) for p in parts))
    return shapes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", help="the infc binary (without it: ORT and the peak only)")
    ap.add_argument("--threads", default="1", help="comma-separated thread counts (default 1)")
    ap.add_argument("--shapes", type=parse_shapes, default=DEFAULT_SHAPES,
                    help="comma-separated MxKxN (default: 1024x1024x1024 and BERT-base's)")
    ap.add_argument("--runs", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--target-s", type=float, default=0.5,
                    help="approximate seconds of one round of one engine (default 0.5)")
    ap.add_argument("--work", default=os.path.join(benchlib.BENCH_DIR, ".cache", "sgemm"),
                    help="scratch directory (default bench/.cache/sgemm)")
    ap.add_argument("--python-dir", default=benchlib.DEFAULT_PYTHON_DIR,
                    help="directory holding the infc Python package (default: repo python/)")
    ap.add_argument("--timeout", type=float, default=600,
                    help="seconds allowed for one compile or one worker request")
    ap.add_argument("--json", help="also write the results as JSON here")
    args = ap.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",") if t.strip()]
    if not threads or min(threads) < 1:
        ap.error("--threads needs positive integers")
    infc_bin = os.path.abspath(args.infc) if args.infc else None
    if infc_bin and not os.access(infc_bin, os.X_OK):
        ap.error(f"{args.infc} is not an executable")
    result = run_sgemm(infc_bin, args.shapes, threads, os.path.abspath(args.work),
                       runs=args.runs, target_s=args.target_s, timeout=args.timeout,
                       python_dir=args.python_dir)
    print()
    print("\n".join(markdown_table(result)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    bad = [r for r in result["rows"] if r.get("infc_error") or r.get("ort_error")]
    return 1 if (infc_bin and bad) else 0


if __name__ == "__main__":
    sys.exit(main())

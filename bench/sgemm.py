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
  double best = 0;
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
    if (gflops > best)
      best = gflops;
    for (int k = 0; k < threads; ++k)
      check += results[k];
  }
  printf("{\"gflops\": %.3f, \"kind\": \"%s\", \"width\": %d, \"chains\": %d, "
         "\"threads\": %d, \"checksum\": %g}\n", best, KIND, WIDTH, CHAINS, threads, check);
  return 0;
}
"""


def measure_fma_peak(threads=1, work=None, seconds=0.02, trials=40):
    """The machine's single-precision FMA peak in GFLOP/s on `threads` threads (measured):
    the best of `trials` short trials, so that one of them likely runs undisturbed on a
    machine with other work (a scheduler time slice is a few ms)."""
    work = work or tempfile.mkdtemp(prefix="infc-fma-")
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "fma_peak.c")
    exe = os.path.join(work, "fma_peak")
    with open(src, "w") as f:
        f.write(FMA_PEAK_C)
    cc = os.environ.get("CC", "cc")
    r = subprocess.run([cc, "-O3", "-march=native", "-pthread", src, "-o", exe],
                       capture_output=True, text=True, timeout=120)
    if r.returncode:
        raise RuntimeError(f"compiling the FMA probe failed: {r.stderr.strip()}")
    # Calibrate the iteration count to ~`seconds` per trial.
    probe = json.loads(subprocess.run([exe, "1", "2000000", "1"], capture_output=True,
                                      text=True, timeout=120, check=True).stdout)
    per_iter = 2.0 * probe["width"] * probe["chains"] / (probe["gflops"] * 1e9)
    iters = max(100000, int(seconds / per_iter))
    out = subprocess.run([exe, str(threads), str(iters), str(trials)], capture_output=True,
                         text=True, timeout=600, check=True).stdout
    return json.loads(out)


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


def time_pair(workers, runs, target_s, warmup, timeout, log=print):
    """Alternates the workers (a dict name -> Worker): returns {name: [round medians]} and the
    iteration count used."""
    first = {}
    for name, w in workers.items():
        first[name] = benchlib.median(
            w.request({"cmd": "run", "warmup": warmup, "iters": 1}, timeout)["times"])
    slowest = max(first.values())
    iters = int(min(200, max(3, round(target_s / max(slowest, 1e-6)))))
    meds = {name: [] for name in workers}
    names = list(workers)
    for r in range(runs):
        order = names if r % 2 == 0 else names[::-1]
        for name in order:
            t = workers[name].request({"cmd": "run", "warmup": 1, "iters": iters},
                                      timeout)["times"]
            meds[name].append(benchlib.median(t))
    return meds, iters


def run_sgemm(infc_bin, shapes, threads_list, work, runs=5, target_s=0.5, warmup=3,
              timeout=600, python_dir=benchlib.DEFAULT_PYTHON_DIR, log=print):
    """Runs the micro benchmark; returns a dict with 'peaks' and 'rows'."""
    os.makedirs(work, exist_ok=True)
    peaks = {t: measure_fma_peak(t, os.path.join(work, "fma")) for t in threads_list}
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
                try:
                    meds, iters = time_pair(workers, runs, target_s, warmup, timeout, log)
                except benchlib.WorkerError as e:
                    # Retry ORT alone if infc was the one that failed.
                    row["infc_error"] = benchlib.sanitize(str(e))
                    workers.pop("infc", None)
                    if workers["ort"].proc.poll() is not None:
                        raise
                    meds, iters = time_pair(workers, runs, target_s, warmup, timeout, log)
                row["iters"] = iters
                for name, ms in meds.items():
                    s = benchlib.median(ms)
                    row[f"{name}_s"] = s
                    row[f"{name}_gflops"] = flops / s * 1e-9
                    row[f"{name}_pct_peak"] = 100.0 * flops / s * 1e-9 / peaks[t]["gflops"]
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
        again = measure_fma_peak(t, os.path.join(work, "fma"))
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
    infc = (f"infc {row['infc_gflops']:7.1f} GFLOP/s ({row['infc_pct_peak']:5.1f}% peak)"
            if "infc_gflops" in row and not row.get("infc_error") else
            f"infc: {row.get('infc_error')}")
    ort = (f"ORT {row['ort_gflops']:7.1f} GFLOP/s ({row['ort_pct_peak']:5.1f}% peak)"
           if "ort_gflops" in row else f"ORT: {row.get('ort_error')}")
    return f"{row['shape']:>16s} t={row['threads']}  {infc}  {ort}"


def markdown_table(result):
    lines = ["| M×K×N | threads | FMA peak GFLOP/s | infc GFLOP/s | infc % of peak | "
             "ORT GFLOP/s | ORT % of peak | infc/ORT time | infc error |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for row in result["rows"]:
        ok = "infc_gflops" in row and not row.get("infc_error")
        ratio = (f"{row['infc_s'] / row['ort_s']:.2f}" if ok and "ort_s" in row else "—")
        err = (f"{row['infc_err']:.1e}" if ok else f"**{row.get('infc_error')}**")
        lines.append(
            f"| {row['shape'].replace('x', '×')} | {row['threads']} | {row['peak_gflops']:.1f} | "
            + (f"{row['infc_gflops']:.1f} | {row['infc_pct_peak']:.1f}% | " if ok
               else "— | — | ")
            + (f"{row['ort_gflops']:.1f} | {row['ort_pct_peak']:.1f}% | " if "ort_gflops" in row
               else f"**{row.get('ort_error', 'failed')}** | — | ")
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

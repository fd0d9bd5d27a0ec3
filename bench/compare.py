#!/usr/bin/env python3
"""Compare infc with onnxruntime on the model zoo: latency, output agreement, peak memory,
compile time; plus the SGEMM micro benchmark. Writes docs/benchmarks.md and a PNG chart.

    python3 bench/compare.py --infc build/bin/infc
        [--models resnet50,mobilenetv2,bert_base,gpt2] [--threads 1,2] [--runs 5]
        [--iters N] [--warmup 3] [--target-s 1.0] [--out docs/benchmarks.md]
        [--png docs/benchmarks.png] [--work bench/.cache] [--layers L] [--no-sgemm]
        [--sgemm-threads 1] [--rtol 1e-3] [--atol 1e-4] [--compile-arg ARG ...]

Steps, for each model:
  1. generate it with test/models/make_zoo.py (seeded weights, exporter-shaped graph) into a
     cache folder keyed by a hash of make_zoo.py and --layers, so reruns reuse the files;
  2. `infc compile NAME.onnx -o NAME.so` (plus --compile-arg): wall time, the compiler's peak
     RSS (os.wait4 of that child), the .so size;
  3. for each thread count N: two worker processes, one infc (Python API, infc.load(so,
     num_threads=N), preallocated outputs) and one onnxruntime (pip wheel, CPU provider,
     intra_op_num_threads=N, inter_op_num_threads=1, ORT_SEQUENTIAL, ORT_ENABLE_ALL,
     IOBinding to preallocated outputs), both fed the same inputs (NAME.inputs.npz).
     Warmup, then --runs rounds alternating the two engines (infc first in even rounds, ORT
     first in odd ones), each round --iters timed runs (default: enough for about --target-s
     seconds of the slower engine, 3..100). The latency is the median over the rounds of each
     round's median; the spread is (max - min) / median of the round medians;
  4. the outputs of both are compared: a pass needs every output finite, of the same shape
     and dtype, and |infc - ort| <= atol + rtol*|ort| elementwise (defaults rtol 1e-3,
     atol 1e-4, against ORT_ENABLE_ALL in the same run). A fast wrong answer is a failure:
     its ratio is reported but marked;
  5. peak memory: VmHWM of each worker process when it exits (after all its runs), and the
     process's RSS before it loaded the model (Python + numpy + the engine's library).

A model that fails to generate, compile or run, or that times out (--timeout per compile or
per worker request), is recorded in the tables; the run goes on with the next one.

Then the SGEMM micro benchmark (bench/sgemm.py: 1024^3 and BERT-base's GEMM shapes, against
the measured FMA peak) unless --no-sgemm, and the report: --out (Markdown: the command, the
machine, versions, load average, tables) and --png (matplotlib bar chart of infc/ORT per model
and thread count, and SGEMM % of peak). Raw numbers go to WORK/results.json.

Exit status: 0 when every model ran in both engines and matched, 1 otherwise, 2 bad usage.
"""

import argparse
import datetime
import hashlib
import json
import os
import shlex
import sys
import time

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import sgemm  # noqa: E402

MAKE_ZOO = os.path.join(benchlib.REPO_ROOT, "test", "models", "make_zoo.py")
DEFAULT_MODELS = "resnet50,mobilenetv2,bert_base,gpt2"
PRETTY = {"resnet50": "ResNet-50", "mobilenetv2": "MobileNetV2", "bert_base": "BERT-base",
          "gpt2": "GPT-2 small", "resnet18": "ResNet-18", "bert_layer": "BERT layer",
          "gpt2_layer": "GPT-2 layer", "mlp": "MLP", "lenet": "LeNet"}
DESCRIPTION = {
    "resnet50": "1×3×224×224, torchvision ResNet-50",
    "mobilenetv2": "1×3×224×224, torchvision MobileNetV2",
    "bert_base": "batch 1, seq 128, HF BertModel + heads",
    "gpt2": "batch 1, 128-token prompt → logits 1×128×50257",
}


def log(msg):
    print(msg, flush=True)


def zoo_dir(work, layers):
    h = hashlib.sha1()
    with open(MAKE_ZOO, "rb") as f:
        h.update(f.read())
    h.update(f"layers={layers}".encode())
    return os.path.join(work, f"zoo-{h.hexdigest()[:12]}")


def generate(name, zdir, layers, timeout):
    """make_zoo.py --only NAME into zdir (skipped when already there); returns an error or
    None."""
    done = os.path.join(zdir, f"{name}.done")
    if os.path.exists(done):
        return None
    os.makedirs(zdir, exist_ok=True)
    argv = [sys.executable, MAKE_ZOO, "--out", zdir, "--only", name]
    if layers is not None:
        argv += ["--layers", str(layers)]
    rc, out, err, secs, _ = benchlib.run_measured(argv, timeout)
    if rc != 0:
        return "generation failed: " + benchlib.sanitize(err.strip().splitlines()[-1]
                                                         if err.strip() else f"exit {rc}")
    log(f"  generated: {out.strip()}")
    open(done, "w").close()
    return None


def compile_model(infc_bin, onnx_path, so_path, extra, timeout):
    if os.path.exists(so_path):
        os.unlink(so_path)
    rc, out, err, secs, rss = benchlib.run_measured(
        [infc_bin, "compile", onnx_path, "-o", so_path] + extra, timeout)
    res = {"compile_s": secs, "compile_rss_kib": rss, "compile_msg": err.strip()}
    if rc is None:
        res["error"] = f"compile timed out after {timeout:.0f} s"
    elif rc != 0 or not os.path.exists(so_path):
        lines = [ln for ln in err.strip().splitlines() if ln.strip()]
        res["error"] = "compile failed: " + benchlib.sanitize(lines[0] if lines
                                                             else benchlib.describe_rc(rc))
    else:
        res["so_bytes"] = os.path.getsize(so_path)
    return res


def bench_threads(name, threads, onnx_path, so_path, inputs_path, args, rundir):
    """One model at one thread count: both engines alternating, then outputs and memory."""
    res = {"threads": threads}
    workers = {}
    try:
        try:
            workers["ort"] = benchlib.Worker("ort", onnx_path, threads, inputs_path,
                                             os.path.join(rundir, f"ort.t{threads}.log"),
                                             args.python_dir, args.timeout)
            res["ort_load_s"] = workers["ort"].ready["load_s"]
            res["ort_baseline_kib"] = workers["ort"].ready["baseline_kib"]
        except benchlib.WorkerError as e:
            res["ort_error"] = benchlib.sanitize(str(e))
        if so_path:
            try:
                workers["infc"] = benchlib.Worker("infc", so_path, threads, inputs_path,
                                                  os.path.join(rundir, f"infc.t{threads}.log"),
                                                  args.python_dir, args.timeout)
                res["infc_load_s"] = workers["infc"].ready["load_s"]
                res["infc_fast"] = workers["infc"].ready.get("fast")
                res["infc_baseline_kib"] = workers["infc"].ready["baseline_kib"]
            except benchlib.WorkerError as e:
                res["infc_error"] = benchlib.sanitize(str(e))
        if not workers:
            return res

        def drop(engine, err):
            res[f"{engine}_error"] = benchlib.sanitize(str(err))
            w = workers.pop(engine)
            w.kill()
            w.close()

        # Warmup, and the time of one run of each (sets the iteration count).
        first = {}
        for engine in list(workers):
            try:
                t = workers[engine].request({"cmd": "run", "warmup": args.warmup, "iters": 1},
                                            args.timeout)["times"]
                first[engine] = t[0]
            except benchlib.WorkerError as e:
                drop(engine, e)
        if not workers:
            return res
        iters = args.iters or int(min(100, max(3, round(args.target_s / max(first.values())))))
        res["iters"] = iters
        rounds = {engine: [] for engine in workers}
        for r in range(args.runs):
            order = [e for e in ("infc", "ort") if e in workers]
            if r % 2:
                order.reverse()
            for engine in order:
                if engine not in workers:
                    continue
                try:
                    t = workers[engine].request({"cmd": "run", "warmup": 0, "iters": iters},
                                                args.timeout + 10 * iters * first[engine]
                                                )["times"]
                    rounds[engine].append(benchlib.median(t))
                except benchlib.WorkerError as e:
                    drop(engine, e)
                time.sleep(0.05)  # let spinning pool threads of the other engine park
        for engine, meds in rounds.items():
            if engine in workers and meds:
                m = benchlib.median(meds)
                res[f"{engine}_ms"] = 1e3 * m
                res[f"{engine}_round_ms"] = [1e3 * x for x in meds]
                res[f"{engine}_spread"] = (max(meds) - min(meds)) / m if m else 0.0

        # Outputs.
        outs = {}
        for engine, w in list(workers.items()):
            path = os.path.join(rundir, f"{engine}.t{threads}.out.npz")
            try:
                w.request({"cmd": "outputs", "path": path}, args.timeout)
                with np.load(path) as z:
                    outs[engine] = {k: z[k] for k in z.files}
                os.unlink(path)
            except benchlib.WorkerError as e:
                drop(engine, e)
        if "infc" in outs and "ort" in outs:
            ok, max_abs, max_rel, worst, note = benchlib.compare_outputs(
                outs["infc"], outs["ort"], args.rtol, args.atol)
            res.update(match=ok, max_abs=max_abs, max_rel=max_rel, tol_ratio=worst,
                       match_note=note)
        # Memory, at exit.
        for engine, w in list(workers.items()):
            try:
                q = w.quit(args.timeout)
                res[f"{engine}_hwm_kib"] = q["vmhwm_kib"]
            except benchlib.WorkerError as e:
                res[f"{engine}_error"] = benchlib.sanitize(str(e))
            workers.pop(engine)
    finally:
        for w in workers.values():
            w.kill()
            w.close()
    return res


def bench_model(name, args, zdir):
    log(f"== {name}")
    rec = {"model": name}
    err = generate(name, zdir, args.layers, args.timeout)
    if err:
        rec["error"] = err
        log(f"  {err}")
        return rec
    onnx_path = os.path.join(zdir, f"{name}.onnx")
    inputs_path = os.path.join(zdir, f"{name}.inputs.npz")
    rec["onnx_bytes"] = sum(os.path.getsize(os.path.join(zdir, f)) for f in os.listdir(zdir)
                            if f in (f"{name}.onnx", f"{name}.data"))
    rundir = os.path.join(args.work, "runs", name)
    os.makedirs(rundir, exist_ok=True)
    so_path = None
    if args.infc:
        so_path = os.path.join(rundir, f"{name}.so")
        c = compile_model(args.infc, onnx_path, so_path, args.compile_arg, args.timeout)
        rec.update(c)
        if "error" in c:
            log(f"  {c['error']}")
            rec["infc_error"] = c.pop("error")
            rec.pop("error", None)
            so_path = None
        else:
            log(f"  compiled in {c['compile_s']:.1f} s, .so {c['so_bytes'] / 2**20:.1f} MiB, "
                f"compiler peak RSS {c['compile_rss_kib'] / 1024:.0f} MiB")
    rec["per_threads"] = []
    for t in args.threads:
        r = bench_threads(name, t, onnx_path, so_path, inputs_path, args, rundir)
        if rec.get("infc_error") and "infc_error" not in r:
            r["infc_error"] = rec["infc_error"]
        rec["per_threads"].append(r)
        log("  " + summary_line(r))
    if so_path and os.path.exists(so_path) and not args.keep_so:
        os.unlink(so_path)
    return rec


def summary_line(r):
    parts = [f"threads {r['threads']}:"]
    for engine in ("infc", "ort"):
        if f"{engine}_ms" in r:
            parts.append(f"{engine} {fmt_ms(r[f'{engine}_ms'])} ms "
                         f"(±{100 * r[f'{engine}_spread']:.0f}%)")
        else:
            parts.append(f"{engine} FAILED ({r.get(f'{engine}_error', 'no result')})")
    if "infc_ms" in r and "ort_ms" in r:
        parts.append(f"ratio {r['infc_ms'] / r['ort_ms']:.2f}")
    if "match" in r:
        parts.append(("outputs match" if r["match"] else "OUTPUTS DIFFER")
                     + f" (max abs {r['max_abs']:.2e}, max rel {r['max_rel']:.2e})")
    return " ".join(parts)


# --- report -----------------------------------------------------------------------------
def fmt_ms(ms):
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.1f}"


def status_of(r):
    """'ok', or the reason this row does not count."""
    if r.get("infc_error"):
        return r["infc_error"]
    if r.get("ort_error"):
        return "ORT: " + r["ort_error"]
    if "match" in r and not r["match"]:
        return "WRONG OUTPUT: " + (r.get("match_note") or "beyond tolerance")
    if "match" not in r:
        return "no output comparison"
    return "ok"


def write_markdown(path, models, sg, args, meta):
    L = []
    L.append("# Benchmarks: infc vs onnxruntime on CPU")
    L.append("")
    L.append(f"Generated by `bench/compare.py` on {meta['date']}. Regenerate with:")
    L.append("")
    L.append("```sh")
    L.append(meta["command"])
    L.append("```")
    L.append("")
    load = meta["load"]
    L.append(f"Load average (1/5/15 min) before the run: {load[0]}, after: {load[1]}. "
             "Numbers from a machine with other work running are noisy; the per-round spread "
             "columns show how much.")
    if meta.get("note"):
        L.append("")
        L.append(f"> {meta['note']}")
    L.append("")
    L.append("## Machine")
    L.append("")
    L.extend(meta["machine"])
    L.extend(meta["versions"])
    L.append("")
    L.append("## Latency (ratio = infc / ORT; below 1 means infc is faster)")
    L.append("")
    L.append("| model | input | threads | infc ms | ORT ms | infc / ORT | infc spread | "
             "ORT spread | iters × rounds | outputs vs ORT |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for rec in models:
        pretty = PRETTY.get(rec["model"], rec["model"])
        desc = DESCRIPTION.get(rec["model"], "")
        if rec.get("error"):
            L.append(f"| {pretty} | {desc} | — | — | — | — | — | — | — | "
                     f"**{rec['error']}** |")
            continue
        for r in rec["per_threads"]:
            st = status_of(r)
            infc = fmt_ms(r["infc_ms"]) if "infc_ms" in r else "—"
            ort = fmt_ms(r["ort_ms"]) if "ort_ms" in r else "—"
            ratio = f"{r['infc_ms'] / r['ort_ms']:.2f}" if "infc_ms" in r and "ort_ms" in r \
                else "—"
            if st != "ok" and ratio != "—":
                ratio = f"~~{ratio}~~"
            sp = {e: (f"{100 * r[f'{e}_spread']:.1f}%" if f"{e}_spread" in r else "—")
                  for e in ("infc", "ort")}
            it = f"{r['iters']} × {args.runs}" if "iters" in r else "—"
            if st == "ok":
                agree = f"match (max abs {r['max_abs']:.1e}, max rel {r['max_rel']:.1e})"
            elif "match" in r and not r["match"]:
                agree = (f"**{st}** (max abs {r['max_abs']:.1e}, max rel {r['max_rel']:.1e})")
            else:
                agree = f"**{st}**"
            L.append(f"| {pretty} | {desc} | {r['threads']} | {infc} | {ort} | {ratio} | "
                     f"{sp['infc']} | {sp['ort']} | {it} | {agree} |")
    L.append("")
    L.append(f"Outputs pass when every element satisfies |infc − ORT| ≤ {args.atol:g} + "
             f"{args.rtol:g}·|ORT| (all outputs of the model, float32, finite), against "
             "onnxruntime with ORT_ENABLE_ALL in the same run. A struck-through ratio belongs to "
             "a row that failed that check or a run: it does not count.")
    L.append("")
    status = getattr(args, "status", None)
    if status and os.path.exists(status):
        # Hand-written: where we stand against the targets and the profiles that say why.
        with open(status) as f:
            L.append(f.read().rstrip())
        L.append("")
    # The last bench/paced.py, int8.py, int8_cpus.py, ppocr.py and orinet.py runs (their method
    # sections are in the text), and the GPU section (bench/gpu.md: what bench/gpu.py found).
    for section in ("paced.md", "int8.md", "int8_cpus.md", "ppocr.md", "orinet.md", "gpu.md"):
        section_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), section)
        if os.path.exists(section_path):
            with open(section_path) as f:
                L.append(f.read().rstrip())
            L.append("")
    L.append("## Compile time and memory")
    L.append("")
    L.append("| model | .onnx (+ data) MiB | compile s | compiler peak RSS MiB | .so MiB | "
             "threads | infc peak RSS MiB | ORT peak RSS MiB | baseline RSS infc / ORT MiB | "
             "load s infc / ORT |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for rec in models:
        pretty = PRETTY.get(rec["model"], rec["model"])
        if rec.get("error"):
            continue
        onnx_mib = f"{rec['onnx_bytes'] / 2**20:.1f}"
        comp = f"{rec['compile_s']:.1f}" if "compile_s" in rec else "—"
        if "compile_s" in rec and "so_bytes" not in rec:
            comp += " (failed)"
        crss = benchlib.fmt_mib(rec.get("compile_rss_kib")) if "compile_s" in rec else "—"
        so = f"{rec['so_bytes'] / 2**20:.1f}" if "so_bytes" in rec else "—"
        for r in rec["per_threads"]:
            base = (f"{benchlib.fmt_mib(r.get('infc_baseline_kib'))} / "
                    f"{benchlib.fmt_mib(r.get('ort_baseline_kib'))}")
            load_s = (f"{r['infc_load_s']:.2f}" if "infc_load_s" in r else "—") + " / " + \
                     (f"{r['ort_load_s']:.2f}" if "ort_load_s" in r else "—")
            hwm = {e: benchlib.fmt_mib(r[f"{e}_hwm_kib"]) if f"{e}_hwm_kib" in r else "—"
                   for e in ("infc", "ort")}
            L.append(f"| {pretty} | {onnx_mib} | {comp} | {crss} | {so} | {r['threads']} | "
                     f"{hwm['infc']} | {hwm['ort']} | {base} | {load_s} |")
    L.append("")
    L.append("Peak RSS is VmHWM of the worker process that ran the engine (loaded the model, "
             "ran warmup and all timed runs); the baseline is its RSS after importing Python, "
             "numpy and the engine's library, before the model was loaded. Load is the time "
             "to open the model and create the session (ORT: including its graph "
             "optimizations). Compile time is the wall time of `infc compile` and its own "
             "peak RSS.")
    if sg:
        L.append("")
        L.append("## SGEMM micro benchmark")
        L.append("")
        peaks = ", ".join(f"{p['gflops']:.1f} GFLOP/s on {t} thread(s)"
                          for t, p in sg["peaks"].items())
        kind = next(iter(sg["peaks"].values()))["kind"] if sg["peaks"] else "?"
        L.append(f"Measured FMA peak ({kind}, `cc -O3 -march=native`, independent FMA chains, "
                 f"best of 40 short trials before and after the GEMMs): {peaks}. "
                 "C = A × B with A an input and B a constant weight, float32; "
                 "M×K×N. infc error = max |C − C_ref| / max |C_ref| against float64 numpy.")
        L.append("")
        L.extend(sgemm.markdown_table(sg))
    L.append("")
    L.append("## Method")
    L.append("")
    L.append("- Models come from `test/models/make_zoo.py` (seeded weights, graphs shaped as "
             "torch.onnx.export emits them: Shape/Gather/Concat reshape chains, unfused or "
             "folded BatchNormalization, Gemm/MatMul+Add linears, HF attention masks). See "
             "its docstring for each model.")
    L.append("- Each engine runs in its own worker process (`bench/benchlib.py`), so thread "
             "pools never share a process and a hang or crash is caught by a timeout. infc: "
             "the Python API, `infc.load(so, num_threads=N)`, outputs preallocated "
             "(`run(out=...)`). ORT: `intra_op_num_threads=N`, `inter_op_num_threads=1`, "
             "`ORT_SEQUENTIAL`, `ORT_ENABLE_ALL`, IOBinding to preallocated numpy outputs. Both "
             "read the same inputs (`NAME.inputs.npz`).")
    L.append(f"- After {args.warmup} warmup runs per engine, {args.runs} rounds alternate the "
             "engines (infc first in even rounds, ORT first in odd ones); a round is `iters` "
             "timed runs of one engine (`--iters`, or by default enough for about "
             f"{args.target_s:g} s of the slower engine, 3 to 100). Latency = median over "
             "rounds of each round's median. Spread = (max − min) / median of the round "
             "medians.")
    L.append("- The ratio is infc latency / ORT latency at the same thread count.")
    slow = sorted({rec["model"] for rec in models for r in rec.get("per_threads", [])
                   if r.get("infc_fast") is False})
    L.append("- infc's timed loop calls `infc_run_named` with argument arrays built once by "
             "the Python package's helpers (checked to write the same outputs as "
             "`Model.run`), the counterpart of ORT's IOBinding; the public `Model.run` "
             "rebuilds them on every call, which costs tens of µs per run"
             + (f". The public path had to be used for: {', '.join(slow)}." if slow else "."))
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def write_png(path, models, sg, threads):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib is not installed (pip install matplotlib): no chart written")
        return False
    ncols = 2 if sg and sg["rows"] else 1
    fig, axes = plt.subplots(1, ncols, figsize=(6.5 * ncols, 4.2), squeeze=False)
    ax = axes[0][0]
    names = [rec["model"] for rec in models]
    width = 0.8 / max(1, len(threads))
    ymax = 1.2
    for i, t in enumerate(threads):
        xs, ys, bad = [], [], []
        for j, rec in enumerate(models):
            r = next((r for r in rec.get("per_threads", []) if r["threads"] == t), None)
            x = j + (i - (len(threads) - 1) / 2) * width
            if r and "infc_ms" in r and "ort_ms" in r:
                xs.append(x)
                ys.append(r["infc_ms"] / r["ort_ms"])
                bad.append(status_of(r) != "ok")
            else:
                ax.text(x, 0.05, "failed", rotation=90, ha="center", va="bottom", fontsize=8,
                        color="crimson")
        bars = ax.bar(xs, ys, width, label=f"{t} thread{'s' if t > 1 else ''}")
        for b, y, is_bad in zip(bars, ys, bad):
            ymax = max(ymax, y * 1.15)
            if is_bad:
                b.set_hatch("//")
                b.set_edgecolor("crimson")
            ax.text(b.get_x() + b.get_width() / 2, y, f"{y:.2f}" + (" ✗" if is_bad else ""),
                    ha="center", va="bottom", fontsize=8)
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([PRETTY.get(n, n) for n in names])
    ax.set_ylabel("latency infc / onnxruntime (lower is better)")
    ax.set_ylim(0, ymax)
    ax.set_title("Model latency ratio (hatched ✗: failed output check)")
    ax.legend()
    if ncols == 2:
        ax = axes[0][1]
        rows = sg["rows"]
        labels = [f"{r['shape']}\n{r['threads']}t" for r in rows]
        xs = np.arange(len(rows))
        for k, (engine, label) in enumerate((("infc", "infc"), ("ort", "onnxruntime"))):
            ys = [r.get(f"{engine}_pct_peak", 0.0) if not r.get(f"{engine}_error") else 0.0
                  for r in rows]
            bars = ax.bar(xs + (k - 0.5) * 0.4, ys, 0.4, label=label)
            for b, y in zip(bars, ys):
                ax.text(b.get_x() + b.get_width() / 2, y, f"{y:.0f}", ha="center",
                        va="bottom", fontsize=8)
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("% of measured FMA peak")
        ax.set_ylim(0, 110)
        ax.set_title("SGEMM (M×K×N, constant B)")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", help="the infc binary (required unless --ort-only)")
    ap.add_argument("--ort-only", action="store_true",
                    help="no infc: time onnxruntime alone (to check the scripts)")
    ap.add_argument("--models", default=DEFAULT_MODELS,
                    help=f"comma-separated make_zoo.py model names (default {DEFAULT_MODELS})")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--runs", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--iters", type=int, default=0,
                    help="timed runs per round (default 0: auto, see --target-s)")
    ap.add_argument("--target-s", type=float, default=1.0,
                    help="with --iters 0: seconds one round of the slower engine should take")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--out", default=os.path.join(benchlib.REPO_ROOT, "docs", "benchmarks.md"),
                    help="Markdown report (default docs/benchmarks.md)")
    ap.add_argument("--png", default=os.path.join(benchlib.REPO_ROOT, "docs", "benchmarks.png"),
                    help="chart (default docs/benchmarks.png)")
    ap.add_argument("--work", default=os.path.join(benchlib.BENCH_DIR, ".cache"),
                    help="cache and scratch directory (default bench/.cache)")
    ap.add_argument("--layers", type=int, default=None,
                    help="transformer layer count for bert_base/gpt2 (quick checks only; the "
                         "report says so)")
    ap.add_argument("--compile-arg", action="append", default=[],
                    help="extra argument for infc compile (repeatable), e.g. --compile-arg=-O2")
    ap.add_argument("--no-sgemm", action="store_true", help="skip the SGEMM micro benchmark")
    ap.add_argument("--sgemm-threads", default="1",
                    help="thread counts of the SGEMM benchmark (default 1)")
    ap.add_argument("--keep-so", action="store_true", help="keep the compiled .so files")
    ap.add_argument("--python-dir", default=benchlib.DEFAULT_PYTHON_DIR,
                    help="directory holding the infc Python package (default: repo python/)")
    ap.add_argument("--timeout", type=float, default=1800,
                    help="seconds allowed for one generation, compile or worker request")
    ap.add_argument("--note", help="a line to put at the top of the report (e.g. conditions)")
    ap.add_argument("--status", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "status.md"),
                    help="hand-written markdown placed after the latency table: the targets "
                         "and where we stand (default: bench/status.md)")
    args = ap.parse_args(argv)

    try:
        args.threads = [int(t) for t in args.threads.split(",") if t.strip()]
        sg_threads = [int(t) for t in args.sgemm_threads.split(",") if t.strip()]
    except ValueError:
        ap.error("--threads and --sgemm-threads take comma-separated integers")
    if not args.threads or min(args.threads) < 1 or (sg_threads and min(sg_threads) < 1):
        ap.error("thread counts must be positive")
    if args.runs < 1 or args.iters < 0 or args.warmup < 0:
        ap.error("--runs >= 1, --iters >= 0, --warmup >= 0")
    if args.ort_only:
        args.infc = None
    elif not args.infc:
        ap.error("--infc BIN is required (or --ort-only)")
    else:
        args.infc = os.path.abspath(args.infc)
        if not os.access(args.infc, os.X_OK):
            ap.error(f"{args.infc} is not an executable file")
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    args.work = os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)

    argv_shown = argv if argv is not None else sys.argv[1:]
    meta = {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "command": "python3 bench/compare.py " + " ".join(
            shlex.quote(os.path.relpath(a, benchlib.REPO_ROOT) if os.path.isabs(a) and
                        a.startswith(benchlib.REPO_ROOT) else a) for a in argv_shown),
        "machine": benchlib.machine_lines(),
        "versions": benchlib.version_lines(args.infc),
        "note": args.note,
    }
    if args.layers is not None:
        extra = f"Transformer models with --layers {args.layers}: not the full-size models."
        meta["note"] = (meta["note"] + " " if meta["note"] else "") + extra
    if args.ort_only:
        extra = "--ort-only: infc was not run."
        meta["note"] = (meta["note"] + " " if meta["note"] else "") + extra
    load0 = "/".join(f"{x:.2f}" for x in os.getloadavg())
    log(f"load average: {load0}")
    zdir = zoo_dir(args.work, args.layers)
    results = []
    for name in models:
        try:
            results.append(bench_model(name, args, zdir))
        except Exception as e:  # noqa: BLE001 - one model must not end the run
            log(f"  {name}: unexpected error: {type(e).__name__}: {e}")
            results.append({"model": name, "error": benchlib.sanitize(
                f"benchmark error: {type(e).__name__}: {e}")})
    sg = None
    if not args.no_sgemm and sg_threads:
        log("== sgemm")
        try:
            sg = sgemm.run_sgemm(args.infc, sgemm.DEFAULT_SHAPES, sg_threads,
                                 os.path.join(args.work, "sgemm"), runs=args.runs,
                                 target_s=min(args.target_s, 0.5), timeout=args.timeout,
                                 python_dir=args.python_dir, log=lambda m: log("  " + m))
        except Exception as e:  # noqa: BLE001
            log(f"  sgemm failed: {type(e).__name__}: {e}")
    load1 = "/".join(f"{x:.2f}" for x in os.getloadavg())
    meta["load"] = (load0, load1)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump({"meta": meta, "models": results, "sgemm": sg,
                   "args": {k: v for k, v in vars(args).items()}}, f, indent=1)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        write_markdown(args.out, results, sg, args, meta)
        log(f"wrote {args.out}")
    if args.png:
        os.makedirs(os.path.dirname(os.path.abspath(args.png)), exist_ok=True)
        if write_png(args.png, results, sg, args.threads):
            log(f"wrote {args.png}")
    ok = all(not rec.get("error") and rec.get("per_threads") and
             all(status_of(r) == "ok" for r in rec["per_threads"]) for rec in results)
    if args.ort_only:
        ok = all(not rec.get("error") and all("ort_ms" in r for r in rec["per_threads"])
                 for rec in results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

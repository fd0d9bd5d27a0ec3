#!/usr/bin/env python3
"""`infc compile --dim seq=MIN..MAX` on transformers whose exported graphs compute sizes from
the sequence length (Shape -> Gather -> Concat -> Reshape, position ids sliced or built by
Range, a mask expanded to [seq, seq], a causal mask sliced from a buffer): one library of
generic code found from imports at several sizes (lib/Import/Onnx/Generalize.cpp), against
onnxruntime at several sequence lengths.

    check_sequence.py --infc BUILD/bin/infc --work DIR --zoo ZOO [--python-dir python]

Checks:
  - the zoo's bert_layer quantized to int8 as generic code (--dim seq=1..64 --quantize):
    calibrated on samples of seq 17, equal there to the static int8 library calibrated on
    them; at seq 5 and 64 within a relative L2 error of 0.1 of onnxruntime's float; with
    --specialize seq=17,32 beside it (the variants take the generic code's ranges): equal
    at 17 to the static int8 library, at 5 and 32 to the int8 generic code; --specialize
    with --quantize and no --dim refused;
  - the zoo's bert_layer (two inputs, five outputs: the pooler's first token, the mask's
    mean pooling, the span head's Split and Squeeze) with dim 1 of its inputs named `seq`,
    compiled with --dim seq=1..512: the interface shows seq[1..512], outputs match
    onnxruntime at seq 1, 2, 7, 32, 128 and 512 on 2 threads (and seq 7 again on one), the
    output shapes follow the run; seq 513 and a mask of another length are refused;
  - --dim seq=1..64 --specialize seq=16,32: variants beside the generic code, at seq 16, 7,
    32, 64, 1 and 16, the profile naming the variant each run took (16 and 32 theirs);
  - the same with dim 0 named `batch` too, --dim batch=1..4 --dim seq=1..64: the batch loop
    around generic code for the sequence, at (batch, seq) (1, 7), (3, 16), (4, 64), (2, 1)
    and (3, 33);
  - the zoo's gpt2_layer (made here; position ids from Range, the causal mask sliced from the
    `attn.bias` buffer and applied by Where, which at seq 1 folds away) with --dim
    seq=1..128: logits at seq 1, 2, 31 and 128;
  - models that compute from the size other than as the size itself, refused at compile
    time with the node and what changes, and no file written: a Concat of x with itself
    along seq (2 * seq), a division by Shape(x)[1] (a constant computed from it), the first
    8 positions of x (min(seq, 8)), a Squeeze of every size-1 dim (drops seq at 1), a slice
    to seq of a 32-row tensor computed at run time (does not import at the range's maximum,
    64: never read past its end), the positions from seq on of a constant table (a constant
    that shrinks as seq grows).
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
import harness  # noqa: E402
from make_zoo import with_symbolic_dims  # noqa: E402


def make_refused(work):
    import onnx
    from onnx import TensorProto as T
    from onnx import helper

    def save(nodes, name, inits=(), out_shape=(1, "seq", 4)):
        x = helper.make_tensor_value_info("x", T.FLOAT, [1, "seq", 4])
        y = helper.make_tensor_value_info("y", T.FLOAT, list(out_shape))
        model = helper.make_model(helper.make_graph(nodes, name, [x], [y], list(inits)),
                                  opset_imports=[helper.make_opsetid("", 17)])
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(work, name + ".onnx"))

    def i64(name, values):
        return helper.make_tensor(name, T.INT64, [len(values)], values)

    save([helper.make_node("Concat", ["x", "x"], ["y"], axis=1)], "twice", out_shape=(1, None, 4))
    save([helper.make_node("Shape", ["x"], ["s"]),
          helper.make_node("Gather", ["s", "one"], ["n"], axis=0),
          helper.make_node("Cast", ["n"], ["nf"], to=T.FLOAT),
          helper.make_node("Div", ["x", "nf"], ["y"])], "by_length",
         [helper.make_tensor("one", T.INT64, [], [1])])
    save([helper.make_node("Slice", ["x", "zero", "eight", "axes1"], ["y"])], "first_8",
         [i64("zero", [0]), i64("eight", [8]), i64("axes1", [1])], out_shape=(1, None, 4))
    save([helper.make_node("Squeeze", ["x"], ["y"])], "squeeze_all", out_shape=("seq", 4))
    # Positions from a table of 32 (a ReduceSum of them, so the table is no constant slice:
    # a static tensor computed at run time): seq 33 and more do not import.
    table = helper.make_tensor("table", T.FLOAT, [1, 32, 4],
                               np.arange(128, dtype=np.float32) / 64)
    save([helper.make_node("Shape", ["x"], ["s"]),
          helper.make_node("Slice", ["s", "one1", "two1"], ["n"]),
          helper.make_node("Relu", ["x"], ["rx"]),
          helper.make_node("ReduceSum", ["rx", "axes1"], ["sx"], keepdims=1),
          helper.make_node("Add", ["table", "sx"], ["live"]),
          helper.make_node("Slice", ["live", "zero", "n", "axes1"], ["first"]),
          helper.make_node("Add", ["x", "first"], ["y"])], "short_table",
         [table, i64("one1", [1]), i64("two1", [2]), i64("zero", [0]), i64("axes1", [1])])
    # The positions from seq on of a table of 64: a constant that shrinks as seq grows.
    save([helper.make_node("Shape", ["x"], ["s"]),
          helper.make_node("Slice", ["s", "one1", "two1"], ["n"]),
          helper.make_node("Slice", ["table64", "n", "end", "axes1"], ["rest"]),
          helper.make_node("ReduceSum", ["rest", "axes1"], ["r"], keepdims=1),
          helper.make_node("Add", ["x", "r"], ["y"])], "tail",
         [helper.make_tensor("table64", T.FLOAT, [1, 64, 4],
                             np.arange(256, dtype=np.float32) / 128),
          i64("one1", [1]), i64("two1", [2]), i64("end", [64]), i64("axes1", [1])])


REFUSED = {
    "twice": "changes with the size other than as the dim itself",
    "by_length": "a constant computed from it",
    "first_8": "node 'Slice_0' (Slice): the graph changes with the size",
    "squeeze_all": "at seq=1",
    "short_table": "does not import at seq=64",
    "tail": "a constant computed from it",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--python-dir", default=None)
    args = ap.parse_args()
    work, compile = harness.fresh_work(args)
    tally = harness.Tally()
    report = tally.report
    infc = harness.import_infc(args.python_dir)
    make_refused(args.work)

    with_symbolic_dims(os.path.join(args.zoo, "bert_layer.onnx"), work("bert.onnx"), seq=True)
    r = compile("bert.onnx", "bert.so", "--dim", "seq=1..512")
    report(r.returncode == 0 and "batch loop" not in r.stderr,
           f"bert_layer --dim seq=1..512: exit {r.returncode} {r.stderr.strip()[-300:]}")
    if r.returncode == 0:
        m = infc.load(work("bert.so"), num_threads=2)
        report("input_ids: int64[1,seq[1..512]]" in repr(m), repr(m))
        single = m.session(num_threads=1)
        for seq, session in [(1, m), (2, m), (7, m), (32, m), (128, m), (512, m), (7, single)]:
            rng = np.random.default_rng(seq)
            ids = rng.integers(0, 1000, (1, seq)).astype(np.int64)
            mask = np.ones((1, seq), np.int64)
            mask[0, seq - seq // 4:] = 0  # trailing padding exercises the mask
            feeds = {"input_ids": ids, "attention_mask": mask}
            ref = harness.ort_reference(work("bert.onnx"), feeds)
            got = session(**feeds) if session is m else session.run(feeds)
            for name in ref:
                ok, summary = harness.compare(got[name], ref[name], 1e-3, 1e-4)
                report(ok and got[name].shape == ref[name].shape,
                       f"bert_layer seq {seq}{'' if session is m else ' (1 thread)'} {name}: "
                       f"{summary}")
        for feeds, want in [
                ({"input_ids": np.zeros((1, 513), np.int64),
                  "attention_mask": np.ones((1, 513), np.int64)}, "must be within 1..512"),
                ({"input_ids": np.zeros((1, 8), np.int64),
                  "attention_mask": np.ones((1, 9), np.int64)}, "of the same name is 8")]:
            try:
                m(**feeds)
                report(False, f"bert_layer run refused ({want}): it ran")
            except infc.Error as e:
                report(want in str(e), f"bert_layer run refused: {e}")
        single.close()
        m.close()

    # Variants beside the generic code: seq 16 and 32 run their static variants, the other
    # lengths the generic code (the profile's runs name the variant that ran).
    import json
    r = compile("bert.onnx", "bert_variants.so", "--dim", "seq=1..64", "--specialize",
                "seq=16,32")
    report(r.returncode == 0 and "2 variants (seq=16 | seq=32)" in r.stderr and
           "other sizes of 'seq' run generic code" in r.stderr,
           f"bert_layer --dim seq=1..64 --specialize seq=16,32: exit {r.returncode} "
           f"{r.stderr.strip()[-300:]}")
    if r.returncode == 0:
        trace = work("variants.json")
        m = infc.load(work("bert_variants.so"), num_threads=2, profile=trace)
        report("input_ids: int64[1,seq[1..64]]" in repr(m), repr(m))
        lengths = (16, 7, 32, 64, 1, 16)
        for seq in lengths:
            rng = np.random.default_rng(seq)
            feeds = {"input_ids": rng.integers(0, 1000, (1, seq)).astype(np.int64),
                     "attention_mask": np.ones((1, seq), np.int64)}
            ref = harness.ort_reference(work("bert.onnx"), feeds)
            got = m(**feeds)
            results = [harness.compare(got[k], ref[k], 1e-3, 1e-4) for k in ref]
            report(all(ok for ok, _ in results) and got["start_logits"].shape == (1, seq),
                   f"bert_layer variants + generic at seq {seq}: " + results[0][1])
        m.close()
        runs = [e.get("args", {}).get("variant", "generic")
                for e in json.load(open(trace))["traceEvents"] if e.get("cat") == "run"]
        want = ["seq=16", "generic", "seq=32", "generic", "generic", "seq=16"]
        report(runs == want, f"bert_layer variants + generic: the runs took {runs}")

    # A dynamic batch and sequence: the batch loop around generic code for the sequence.
    with_symbolic_dims(os.path.join(args.zoo, "bert_layer.onnx"), work("bert_bs.onnx"),
                       batch=True, seq=True)
    r = compile("bert_bs.onnx", "bert_bs.so", "--dim", "batch=1..4", "--dim", "seq=1..64")
    report(r.returncode == 0 and "'batch' runs as the batch loop" in r.stderr,
           f"bert_layer --dim batch=1..4 --dim seq=1..64: exit {r.returncode} "
           f"{r.stderr.strip()[-300:]}")
    if r.returncode == 0:
        m = infc.load(work("bert_bs.so"), num_threads=2)
        report("input_ids: int64[batch[1..4],seq[1..64]]" in repr(m), repr(m))
        for batch, seq in [(1, 7), (3, 16), (4, 64), (2, 1), (3, 33)]:
            rng = np.random.default_rng(batch * 100 + seq)
            ids = rng.integers(0, 1000, (batch, seq)).astype(np.int64)
            mask = np.ones((batch, seq), np.int64)
            mask[-1, seq - seq // 4:] = 0
            feeds = {"input_ids": ids, "attention_mask": mask}
            ref = harness.ort_reference(work("bert_bs.onnx"), feeds)
            got = m(**feeds)
            for name in ref:
                ok, summary = harness.compare(got[name], ref[name], 1e-3, 1e-4)
                report(ok and got[name].shape == ref[name].shape,
                       f"bert_layer batch {batch} seq {seq} {name}: {summary}")
        m.close()

    # int8 generic code (--quantize with --dim): calibrated on four samples of seq 17, the
    # same as a static int8 library of seq 17 calibrated on them, so equal to it at seq 17;
    # at other lengths within int8's error of onnxruntime's float.
    calib = work("calib17")
    rng = np.random.default_rng(17)
    for i in range(4):
        os.makedirs(os.path.join(calib, f"{i}"))
        np.save(os.path.join(calib, f"{i}", "input_ids.npy"),
                rng.integers(0, 1000, (1, 17)).astype(np.int64))
        np.save(os.path.join(calib, f"{i}", "attention_mask.npy"), np.ones((1, 17), np.int64))
    quantize = ["--quantize", "int8", "--calibration", calib, "--calibration-method", "minmax"]
    r = compile("bert.onnx", "bert_int8.so", "--dim", "seq=1..64", *quantize)
    r17 = compile("bert.onnx", "bert_int8_17.so", "--input-shape", "input_ids=1x17",
                  "--input-shape", "attention_mask=1x17", *quantize)
    report(r.returncode == 0 and r17.returncode == 0,
           f"bert_layer --dim seq=1..64 --quantize int8: exit {r.returncode}, static seq 17: "
           f"exit {r17.returncode} {(r.stderr + r17.stderr).strip()[-300:]}")
    if r.returncode == 0 and r17.returncode == 0:
        m, m17 = infc.load(work("bert_int8.so")), infc.load(work("bert_int8_17.so"))
        for seq in (17, 5, 64):
            rng = np.random.default_rng(1000 + seq)
            feeds = {"input_ids": rng.integers(0, 1000, (1, seq)).astype(np.int64),
                     "attention_mask": np.ones((1, seq), np.int64)}
            got = m(**feeds)
            if seq == 17:
                want = m17(**feeds)
                err = max(float(np.abs(got[k] - want[k]).max()) for k in want)
                report(err <= 1e-5, f"bert_layer int8 generic at seq 17 against the static int8 "
                                    f"library: max abs {err:.3g}")
                continue
            ref = harness.ort_reference(work("bert.onnx"), feeds)
            errs = [float(np.linalg.norm(got[k] - v) / np.linalg.norm(v)) for k, v in ref.items()]
            report(max(errs) < 0.1, f"bert_layer int8 generic at seq {seq} against float "
                                    f"onnxruntime: relative L2 errors "
                                    + ", ".join(f"{e:.2e}" for e in errs))
        # Variants beside int8 generic code: the generic code calibrated, the variants given
        # its ranges: the variant of 17 equals the static int8 library, other sizes the
        # int8 generic code.
        r = compile("bert.onnx", "bert_int8_variants.so", "--dim", "seq=1..64", "--specialize",
                    "seq=17,32", *quantize)
        report(r.returncode == 0 and "the variants take its ranges" in r.stderr,
               f"bert_layer --dim seq=1..64 --specialize seq=17,32 --quantize int8: exit "
               f"{r.returncode} {r.stderr.strip()[-300:]}")
        if r.returncode == 0:
            v = infc.load(work("bert_int8_variants.so"))
            for seq, want in ((17, m17), (5, m), (32, m)):
                rng = np.random.default_rng(2000 + seq)
                feeds = {"input_ids": rng.integers(0, 1000, (1, seq)).astype(np.int64),
                         "attention_mask": np.ones((1, seq), np.int64)}
                got, ref = v(**feeds), want(**feeds)
                err = max(float(np.abs(got[k] - ref[k]).max()) for k in ref)
                report(err <= 1e-5, f"bert_layer int8 variants + generic at seq {seq} against "
                                    f"the {'static' if want is m17 else 'generic'} int8 "
                                    f"library: max abs {err:.3g}")
            v.close()
        r = compile("bert.onnx", "bert_int8_bad.so", "--specialize", "seq=17,32", *quantize)
        report(r.returncode == 1 and "needs the specialized dim's --dim range" in r.stderr
               and not os.path.exists(work("bert_int8_bad.so")),
               f"--specialize --quantize without --dim refused: {r.stderr.strip()[-200:]}")
        m.close()
        m17.close()

    # (gpt2_layer is not in the default zoo: made here)
    harness.run_tool([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "..", "models", "make_zoo.py"),
                      "--out", args.work, "--only", "gpt2_layer"], timeout=300)
    with_symbolic_dims(work("gpt2_layer.onnx"), work("gpt2.onnx"), seq=True)
    r = compile("gpt2.onnx", "gpt2.so", "--dim", "seq=1..128")
    report(r.returncode == 0, f"gpt2_layer --dim seq=1..128: exit {r.returncode} "
           f"{r.stderr.strip()[-300:]}")
    if r.returncode == 0:
        m = infc.load(work("gpt2.so"), num_threads=2)
        for seq in (1, 2, 31, 128):
            ids = np.random.default_rng(seq).integers(0, 1000, (1, seq)).astype(np.int64)
            ref = harness.ort_reference(work("gpt2.onnx"), {"input_ids": ids})["logits"]
            ok, summary = harness.compare(m(input_ids=ids)["logits"], ref, 1e-3, 1e-4)
            report(ok, f"gpt2_layer seq {seq} logits: {summary}")
        m.close()

    for name, want in REFUSED.items():
        r = compile(f"{name}.onnx", f"{name}.so", "--dim", "seq=1..64")
        report(r.returncode != 0 and "nor generic code from imports at several sizes" in
               r.stderr and want in r.stderr and not os.path.exists(work(f"{name}.so")),
               f"{name} refused: exit {r.returncode} {r.stderr.strip()[-300:]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

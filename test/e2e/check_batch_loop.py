#!/usr/bin/env python3
"""`infc compile --dim batch=MIN..MAX` on models the generic code does not take (convolutions,
reshapes, gathers): the batch loop, one library that runs the code for one row once per row,
against onnxruntime at several batch sizes; and the models it must refuse.

    check_batch_loop.py --infc BUILD/bin/infc --work DIR --zoo ZOO [--python-dir python]

Checks:
  - the zoo's lenet, mlp, bert_layer (two inputs, five outputs) and resnet18, their dim 0
    renamed `batch` as exporters write it, compiled with --dim batch=1..16: the compiler says
    it loops over rows, the interface shows batch[1..16], outputs match onnxruntime at batch
    1, 3 and 8 (and 16 for the small ones), library-owned and caller-owned;
  - a model made here whose graph computes from the batch size in ways that keep rows
    apart (a reshape to Shape(x)[0] x 4 x 4, ConstantOfShape of the shape, a gather of
    rows' entries, a transpose and back, a softmax along the features): batch 1, 2 and 5;
  - models where rows meet, each refused at compile time with the node and what it does to
    the batch, and no file written: a Concat and a CumSum along the batch, a reshape that
    scrambles rows, a division by Shape(x)[0], x^T x, a Slice that drops a row, a Squeeze
    of every size-1 dim (the batch too, at 1) and a Slice of the first 4 rows (all of them
    at 2);
  - models where rows meet but which are generic code found from imports at several sizes
    (a ReduceSum over the batch, a Softmax along it, an output with the batch last): no
    loop, outputs match onnxruntime at batch 1, 3 and 16;
  - a Slice of the first 128 rows: the loop for --dim batch=1..100 (exact at 100), refused
    for 1..256 (the range's maximum is imported too) and for no largest size (--dim
    batch=1.., or no flag: imported at 1024 too);
  - lenet compiled with no flag for the batch: the loop, batch[1..], at batch 1, 40 and 3;
  - the static library of resnet18 at batch 2 (Winograd image by image, not the loop);
  - `infc run` of a batch-loop library at batch 5 through the C ABI;
  - --specialize batch=4 beside --dim: the variants of 1 (added) and 4 images are the loop's
    blocks, at batch 3, 4 and 9 (4 + 4 + 1) on 1 and 2 threads.
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


def make_models(work):
    import onnx
    from onnx import TensorProto as T
    from onnx import helper
    rng = np.random.default_rng(5)

    def save(nodes, name, inits=(), out_shape=("batch", 16), outs=None, x_shape=("batch", 16)):
        x = helper.make_tensor_value_info("x", T.FLOAT, list(x_shape))
        outs = outs or [helper.make_tensor_value_info("y", T.FLOAT, list(out_shape))]
        model = helper.make_model(helper.make_graph(nodes, name, [x], outs, list(inits)),
                                  opset_imports=[helper.make_opsetid("", 17)])
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(work, name + ".onnx"))

    def i64(name, values):
        return helper.make_tensor(name, T.INT64, [len(values)], values)

    w = helper.make_tensor("w", T.FLOAT, [4, 4], rng.standard_normal(16).astype(np.float32))
    # Rows kept apart: the batch read from the shape only to rebuild it.
    save([helper.make_node("Shape", ["x"], ["s"]),
          helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
          helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
          helper.make_node("Concat", ["n1", "four", "four"], ["shape3"], axis=0),
          helper.make_node("Reshape", ["x", "shape3"], ["x3"]),
          helper.make_node("MatMul", ["x3", "w"], ["m"]),
          helper.make_node("Transpose", ["m"], ["t"], perm=[2, 1, 0]),
          helper.make_node("Sigmoid", ["t"], ["st"]),
          helper.make_node("Transpose", ["st"], ["back"], perm=[2, 1, 0]),
          helper.make_node("Softmax", ["back"], ["p"], axis=-1),
          helper.make_node("ConstantOfShape", ["shape3"], ["ones"],
                           value=helper.make_tensor("v", T.FLOAT, [1], [0.5])),
          helper.make_node("Add", ["p", "ones"], ["q"]),
          helper.make_node("Gather", ["q", "idx"], ["g"], axis=2),
          helper.make_node("Flatten", ["g"], ["y"], axis=1)],
         "rows_apart", [helper.make_tensor("zero", T.INT64, [], [0]), i64("axes0", [0]),
                        i64("four", [4]), w, i64("idx", [3, 0])],
         out_shape=("batch", 8))
    # Rows meet: each must be refused.
    save([helper.make_node("Concat", ["x", "x"], ["y"], axis=0)], "concat", out_shape=(None, 16))
    save([helper.make_node("CumSum", ["x", "zero"], ["y"])], "cumsum",
         [helper.make_tensor("zero", T.INT64, [], [0])])
    # (Unsqueeze first, which the generic code does not take: these would be generic code.)
    def lifted(nodes):  # x -> u [batch, 16, 1] -> nodes -> v [batch, 16, 1] -> y
        return ([helper.make_node("Unsqueeze", ["x", "axes2"], ["u"])] + nodes +
                [helper.make_node("Squeeze", ["v", "axes2"], ["y"])])
    save(lifted([helper.make_node("ReduceSum", ["u", "axes0"], ["s"], keepdims=1),
                 helper.make_node("Add", ["u", "s"], ["v"])]), "reduce",
         [i64("axes0", [0]), i64("axes2", [2])])
    save(lifted([helper.make_node("Softmax", ["u"], ["v"], axis=0)]), "softmax_batch",
         [i64("axes2", [2])])
    save([helper.make_node("Unsqueeze", ["x", "axes2"], ["u"]),
          helper.make_node("Transpose", ["u"], ["y"], perm=[1, 2, 0])], "batch_last",
         [i64("axes2", [2])], out_shape=(16, 1, "batch"))
    # [batch, 16] read as [16, batch]: rows scrambled, then transposed back.
    save([helper.make_node("Reshape", ["x", "cols"], ["f"]),
          helper.make_node("Transpose", ["f"], ["y"], perm=[1, 0])], "merge",
         [i64("cols", [16, -1])])
    # Rows meet only at some sizes: a Squeeze of every size-1 dim drops the batch at 1 (a
    # classifier's `pool(x).squeeze()`); the first 4 rows are every row at 2 and 3.
    save([helper.make_node("Unsqueeze", ["x", "axes2"], ["u"]),
          helper.make_node("Squeeze", ["u"], ["y"])], "squeeze_all", [i64("axes2", [2])])
    save([helper.make_node("Slice", ["x", "zero1", "four", "axes0"], ["y"])], "first_rows",
         [i64("zero1", [0]), i64("four", [4]), i64("axes0", [0])], out_shape=(None, 16))
    # The first 128 rows (behind an Unsqueeze): every row up to 128, which only a range
    # beyond 128 reaches.
    save(lifted([helper.make_node("Slice", ["u", "zero1", "many", "axes0"], ["v"])]),
         "first_128", [i64("zero1", [0]), i64("many", [128]), i64("axes0", [0]),
                       i64("axes2", [2])], out_shape=(None, 16))
    save([helper.make_node("Shape", ["x"], ["s"]),
          helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
          helper.make_node("Cast", ["n"], ["nf"], to=T.FLOAT),
          helper.make_node("Div", ["x", "nf"], ["y"])], "mean_scale",
         [helper.make_tensor("zero", T.INT64, [], [0])])
    save([helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]),
          helper.make_node("MatMul", ["xt", "x"], ["y"])], "gram", out_shape=(16, 16))
    save([helper.make_node("Slice", ["x", "one", "big", "axes0"], ["y"])], "drop_row",
         [i64("one", [1]), i64("big", [1 << 40]), i64("axes0", [0])], out_shape=(None, 16))


REFUSED = {
    "concat": "changes with the batch size other than as one dim",
    "cumsum": "runs along the batch",
    "merge": "merges the batch with another dim",
    "mean_scale": "change with the batch size",
    "gram": "folds the batch's rows together",
    "drop_row": "change with the batch size",
    "squeeze_all": "at batch=1: ",
    "first_rows": "the graph changes with the batch size",
}
# Rows meet, but every size the graph computes is the batch itself: not the loop, generic
# code from the imports at several sizes (lib/Import/Onnx/Generalize.cpp).
GENERIC = ["reduce", "softmax_batch", "batch_last"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--python-dir", default=harness.DEFAULT_PYTHON_DIR)
    args = ap.parse_args()
    work, compile = harness.fresh_work(args)
    tally = harness.Tally()
    report = tally.report
    infc = harness.import_infc(args.python_dir)
    make_models(args.work)

    def check(name, batches, inputs, rtol=1e-4, atol=1e-5, flags=("--dim", "batch=1..16"),
              dims="batch[1..16]", so=None):
        so = so or f"{name}.so"
        r = compile(f"{name}.onnx", so, *flags)
        looped = "'batch' runs as the batch loop" in r.stderr
        report(r.returncode == 0 and looped,
               f"{so}: exit {r.returncode}, {'loop' if looped else 'no loop'} "
               f"{r.stderr.strip()[-200:]}")
        if r.returncode != 0:
            return
        m = infc.load(work(so), num_threads=2)
        report(all(str(i.dims[0]) == dims for i in m.inputs + m.outputs),
               f"{so}: {m!r}"[:300])
        for batch in batches:
            feeds = inputs(batch)
            ref = harness.ort_reference(work(f"{name}.onnx"), feeds)
            got = m(**feeds)
            mine = {k: np.full(v.shape, np.nan, v.dtype) for k, v in ref.items()}
            m.run(feeds, out=mine)
            results = [harness.compare(got[k], ref[k], rtol, atol) for k in ref]
            results += [harness.compare(mine[k], ref[k], rtol, atol) for k in ref]
            report(all(ok for ok, _ in results),
                   f"{name} batch {batch}: " + "; ".join(s for _, s in results[:len(ref)]))
        m.close()

    def images(shape):
        def feeds(batch):
            x = np.random.default_rng(batch).standard_normal((batch,) + shape)
            return {"input": x.astype(np.float32)}
        return feeds

    for name in ("lenet", "mlp", "bert_layer", "resnet18"):
        with_symbolic_dims(os.path.join(args.zoo, f"{name}.onnx"), work(f"{name}.onnx"),
                           batch=True)
    check("lenet", (1, 3, 8, 16), images((1, 28, 28)))
    check("mlp", (1, 3, 16), images((1, 16, 16)))
    # No flag names the batch: it has no largest size (library-owned outputs grow at 40,
    # then serve 3).
    check("lenet", (1, 40, 3), images((1, 28, 28)), flags=(), dims="batch[1..]",
          so="lenet_open.so")

    def tokens(batch):
        rng = np.random.default_rng(batch)
        mask = np.ones((batch, 32), np.int64)
        for n in range(batch):  # rows of different lengths, padded
            mask[n, 32 - 3 * n % 29:] = 0
        return {"input_ids": rng.integers(0, 1000, (batch, 32)).astype(np.int64),
                "attention_mask": mask}
    check("bert_layer", (1, 3, 8), tokens, rtol=1e-3, atol=1e-4)
    check("resnet18", (1, 3), images((3, 224, 224)), rtol=1e-3, atol=1e-4)
    # The static library of 2 images: its 3x3 convolutions run Winograd image by image.
    r = compile("resnet18.onnx", "resnet18_2.so", "--input-shape", "input=2x3x224x224")
    if r.returncode == 0:
        feeds = images((3, 224, 224))(2)
        ok, summary = harness.compare(
            infc.load(work("resnet18_2.so"))(**feeds)["logits"],
            harness.ort_reference(work("resnet18.onnx"), feeds)["logits"], 1e-3, 1e-4)
    report(r.returncode == 0 and ok, f"resnet18 static batch 2: exit {r.returncode} "
           f"{summary if r.returncode == 0 else r.stderr.strip()[-200:]}")
    check("rows_apart", (1, 2, 5),
          lambda b: {"x": np.random.default_rng(b).standard_normal((b, 16)).astype(np.float32)})

    # --specialize beside --dim: the variant of 4 images for a batch of 4, and the loop's
    # block elsewhere (9 = 4 + 4 + 1), on 1 thread and 2 (two rows side by side).
    r = compile("lenet.onnx", "lenet4.so", "--dim", "batch=1..16", "--specialize", "batch=4")
    report(r.returncode == 0 and "2 variants (batch=1 | batch=4)" in r.stderr and
           "other sizes of 'batch' run as the batch loop over them" in r.stderr,
           f"lenet --specialize batch=4: exit {r.returncode} {r.stderr.strip()[-200:]}")
    if r.returncode == 0:
        for threads in (1, 2):
            m = infc.load(work("lenet4.so"), num_threads=threads)
            for batch in (3, 4, 9):
                feeds = images((1, 28, 28))(batch)
                ref = harness.ort_reference(work("lenet.onnx"), feeds)["logits"]
                ok, summary = harness.compare(m(**feeds)["logits"], ref, 1e-4, 1e-5)
                report(ok, f"lenet variants as blocks, {threads} threads, batch {batch}: "
                       f"{summary}")
            m.close()

    for name, want in REFUSED.items():
        r = compile(f"{name}.onnx", f"{name}.so", "--dim", "batch=1..16")
        report(r.returncode != 0 and "the batch loop does not apply either" in r.stderr and
               want in r.stderr and not os.path.exists(work(f"{name}.so")),
               f"{name} refused: exit {r.returncode} {r.stderr.strip()[-260:]}")

    for name in GENERIC:
        r = compile(f"{name}.onnx", f"{name}.so", "--dim", "batch=1..16")
        if r.returncode != 0 or "batch loop" in r.stderr:
            report(False, f"{name} as generic code: exit {r.returncode} {r.stderr.strip()[-260:]}")
            continue
        m = infc.load(work(f"{name}.so"), num_threads=2)
        for batch in (1, 3, 16):
            x = np.random.default_rng(batch).standard_normal((batch, 16)).astype(np.float32)
            ok, summary = harness.compare(
                m(x=x)["y"], harness.ort_reference(work(f"{name}.onnx"), {"x": x})["y"], 1e-5,
                1e-6)
            report(ok, f"{name} as generic code at batch {batch}: {summary}")
        m.close()

    # Up to 128 rows the Slice keeps them all: the loop, exact at 100; beyond, refused.
    r = compile("first_128.onnx", "first_128.so", "--dim", "batch=1..100")
    if r.returncode == 0:
        x = np.random.default_rng(100).standard_normal((100, 16)).astype(np.float32)
        ok, summary = harness.compare(infc.load(work("first_128.so"))(x=x)["y"],
                                      harness.ort_reference(work("first_128.onnx"), {"x": x})["y"],
                                      0, 0)
    report(r.returncode == 0 and ok, f"first_128 --dim batch=1..100 at batch 100: exit "
           f"{r.returncode} {summary if r.returncode == 0 else r.stderr.strip()[-200:]}")
    for flags in (("--dim", "batch=1..256"), ("--dim", "batch=1.."), ()):
        # (with no largest size the loop's imports go up to 1024)
        r = compile("first_128.onnx", "first_128b.so", *flags)
        report(r.returncode != 0 and "the batch loop does not apply either" in r.stderr and
               not os.path.exists(work("first_128b.so")),
               f"first_128 {' '.join(flags) or 'without flags'} refused: exit {r.returncode} "
               f"{r.stderr.strip()[-200:]}")

    x5 = np.random.default_rng(5).standard_normal((5, 1, 28, 28)).astype(np.float32)
    np.save(work("x5.npy"), x5)
    r = harness.run_tool([args.infc, "run", work("lenet.so"), "--input", f"input={work('x5.npy')}",
                          "--output-dir", work("out")], timeout=120)
    path = work("out/logits.npy")
    got = np.load(path) if os.path.exists(path) else None
    ok = got is not None and harness.compare(
        got, harness.ort_reference(work("lenet.onnx"), {"input": x5})["logits"], 1e-4, 1e-5)[0]
    report(r.returncode == 0 and ok, f"infc run lenet at batch 5: exit {r.returncode} "
           f"{(r.stdout + r.stderr).strip()[:160]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

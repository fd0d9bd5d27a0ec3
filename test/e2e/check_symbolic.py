#!/usr/bin/env python3
"""`infc compile --dim NAME=MIN..MAX`: one library of generic code for every size of a
symbolic dim, against onnxruntime at several sizes.

    check_symbolic.py --infc BUILD/bin/infc --work DIR [--python-dir python]

Models (made here), all with a symbolic `batch`:
  - mlp: MatMul, Add, Relu, Gemm, Softmax, LogSoftmax (logits, probs, logp; logits' dim
    declared by another name, as exporters write `unk__1`);
  - rows: x * Sigmoid(x) - ReduceMax(x, axis 1) (an output dim without a name), a rank-3
    input through a MatMul (the rows in blocks of 16 and one by one), ReduceSum over the
    batch itself.
Checks:
  - compiled with --dim batch=1..64: outputs match onnxruntime at batch 1, 3, 17 and 64
    (library-owned and caller-owned outputs, two sessions), the interface prints
    batch[1..64], output_shapes follows the batch, batch 0 and 65 are refused with the
    range, a caller-owned output of another batch is refused; `infc run` through the C ABI;
  - the workspace is the plan at the bound (the same as the static library at batch 64);
  - compiled with no flag for the batch: generic code whose workspace is sized at each run,
    at batch 1, 300, 7 and 300 on 2 threads and 1 (library- and caller-owned outputs);
  - LayerNormalization then a Transpose that moves the batch last, at batch 1, 5, 16;
  - two matmuls of a [2, batch, 24] input with the Relu between them an output too, at
    batch 1, 7, 16;
  - the batch fixed on one input by --input-shape (m=1x32) and symbolic on the other: runs
    take it from the other, at batch 1 and 3;
  - Greater, Clip, Where, Not and Cast (exact) at batch 1 and 7;
  - what the generic code does not take yet fails at compile time, naming the node and the
    dim, and leaves no file: a Concat of the symbolic dim, a broadcast of it against a
    static size, two symbolic dims that are not a batch around generic code (a transpose
    moves the batch), --target cuda, --specialize beside it;
  - two symbolic dims on an Add of [batch, seq] inputs: the batch loop around generic code
    for seq, exact at four (batch, seq) pairs.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
import harness  # noqa: E402


def make_models(work):
    import onnx
    from onnx import TensorProto as T
    from onnx import helper
    rng = np.random.default_rng(11)

    def init(name, shape, scale=0.2):
        return helper.make_tensor(name, T.FLOAT, shape,
                                  (rng.standard_normal(shape) * scale).astype(np.float32).ravel())

    def save(graph, name, opset=17):
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(work, name))

    x = helper.make_tensor_value_info("x", T.FLOAT, ["batch", 32])
    save(helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h0"]),
         helper.make_node("Add", ["h0", "b1"], ["h1"]),
         helper.make_node("Relu", ["h1"], ["h2"]),
         helper.make_node("Gemm", ["h2", "w2", "b2"], ["logits"], transB=1),
         helper.make_node("Softmax", ["logits"], ["probs"], axis=-1),
         helper.make_node("LogSoftmax", ["logits"], ["logp"], axis=1)],
        "mlp", [x],
        [helper.make_tensor_value_info("logits", T.FLOAT, ["unk__1", 10]),
         helper.make_tensor_value_info("probs", T.FLOAT, ["batch", 10]),
         helper.make_tensor_value_info("logp", T.FLOAT, ["batch", 10])],
        [init("w1", [32, 64]), init("b1", [64]), init("w2", [10, 64]), init("b2", [10])]),
        "mlp.onnx")
    save(helper.make_graph(
        [helper.make_node("Sigmoid", ["x"], ["s"]),
         helper.make_node("Mul", ["x", "s"], ["xs"]),
         helper.make_node("ReduceMax", ["x"], ["m"], axes=[1], keepdims=1),
         helper.make_node("Sub", ["xs", "m"], ["y"]),
         helper.make_node("MatMul", ["t", "w"], ["u"]),
         helper.make_node("ReduceSum", ["y", "axes0"], ["total"], keepdims=0)],
        "rows", [x, helper.make_tensor_value_info("t", T.FLOAT, ["batch", 3, 32])],
        [helper.make_tensor_value_info("y", T.FLOAT, [None, 32]),
         helper.make_tensor_value_info("u", T.FLOAT, ["batch", 3, 8]),
         helper.make_tensor_value_info("total", T.FLOAT, [32])],
        [init("w", [32, 8]), helper.make_tensor("axes0", T.INT64, [1], [0])]),
        "rows.onnx")
    # Wide enough for the codegen's K blocks and several column panels (1024 x 1024); the
    # Relu between the matmuls is an output too.
    save(helper.make_graph(
        [helper.make_node("MatMul", ["x", "wa"], ["ha"]),
         helper.make_node("Add", ["ha", "ba"], ["hb"]),
         helper.make_node("Relu", ["hb"], ["ra"]),
         helper.make_node("MatMul", ["ra", "wb"], ["m"]),
         helper.make_node("Add", ["m", "bb"], ["y"])],
        "wide", [x], [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 1024]),
                      helper.make_tensor_value_info("ra", T.FLOAT, ["batch", 1024])],
        [init("wa", [32, 1024], 0.1), init("ba", [1024]), init("wb", [1024, 1024], 0.05),
         init("bb", [1024])]),
        "wide.onnx")
    # The same with the dim in the middle of a rank-3 input: the rows collapsed for each
    # matmul and expanded after, so the Relu's buffer is sized (2 x batch) / 2, which the
    # memory plan once refused as unbounded.
    save(helper.make_graph(
        [helper.make_node("MatMul", ["x3", "w3a"], ["h3"]),
         helper.make_node("Add", ["h3", "b3"], ["g3"]),
         helper.make_node("Relu", ["g3"], ["r3"]),
         helper.make_node("MatMul", ["r3", "w3b"], ["y3"])],
        "middle", [helper.make_tensor_value_info("x3", T.FLOAT, [2, "batch", 24])],
        [helper.make_tensor_value_info("y3", T.FLOAT, [2, "batch", 48]),
         helper.make_tensor_value_info("r3", T.FLOAT, [2, "batch", 64])],
        [init("w3a", [24, 64]), init("b3", [64]), init("w3b", [64, 48])]),
        "middle.onnx")
    # LayerNorm over the features, then the batch moved last (a `?` behind a static dim).
    save(helper.make_graph(
        [helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["n"], axis=-1),
         helper.make_node("Transpose", ["n"], ["y"], perm=[1, 0])],
        "transpose", [x], [helper.make_tensor_value_info("y", T.FLOAT, [32, "batch"])],
        [init("gamma", [32], 1.0), init("beta", [32])]),
        "transpose.onnx")
    # Comparisons, Where, Clip and Cast (bool and int32 results).
    save(helper.make_graph(
        [helper.make_node("Greater", ["x", "zero"], ["pos"]),
         helper.make_node("Clip", ["x", "lo", "hi"], ["clipped"]),
         helper.make_node("Where", ["pos", "x", "clipped"], ["y"]),
         helper.make_node("Not", ["pos"], ["neg"]),
         helper.make_node("Cast", ["neg"], ["k"], to=T.INT32)],
        "select", [x], [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 32]),
                        helper.make_tensor_value_info("k", T.INT32, ["batch", 32])],
        [helper.make_tensor("zero", T.FLOAT, [], [0.0]),
         helper.make_tensor("lo", T.FLOAT, [], [-0.5]),
         helper.make_tensor("hi", T.FLOAT, [], [0.0])]),
        "select.onnx")
    # A concatenation along a static axis beside the `?` (RoPE's rotate_half).
    save(helper.make_graph(
        [helper.make_node("Neg", ["x"], ["n"]),
         helper.make_node("Concat", ["n", "x", "n"], ["y"], axis=1)],
        "rotate", [x], [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 96])]),
        "rotate.onnx")
    save(helper.make_graph(
        [helper.make_node("Concat", ["x", "x"], ["y"], axis=0)],
        "concat", [x], [helper.make_tensor_value_info("y", T.FLOAT, [None, 32])]),
        "concat.onnx")
    save(helper.make_graph(
        [helper.make_node("Add", ["x", "c"], ["y"])],
        "broadcast", [x], [helper.make_tensor_value_info("y", T.FLOAT, [4, 32])],
        [init("c", [4, 32])]),
        "broadcast.onnx")
    save(helper.make_graph(
        [helper.make_node("Add", ["x", "m"], ["y"])],
        "pinned", [x, helper.make_tensor_value_info("m", T.FLOAT, ["batch", 32])],
        [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 32])]),
        "pinned.onnx")
    save(helper.make_graph(
        [helper.make_node("Add", ["x", "z"], ["y"])],
        "two", [helper.make_tensor_value_info("x", T.FLOAT, ["batch", "seq"]),
                helper.make_tensor_value_info("z", T.FLOAT, ["batch", "seq"])],
        [helper.make_tensor_value_info("y", T.FLOAT, ["batch", "seq"])]),
        "two.onnx")
    save(helper.make_graph(
        [helper.make_node("Transpose", ["x"], ["y"], perm=[1, 0])],
        "two_moved", [helper.make_tensor_value_info("x", T.FLOAT, ["batch", "seq"])],
        [helper.make_tensor_value_info("y", T.FLOAT, ["seq", "batch"])]),
        "two_moved.onnx")


def main():
    args = harness.kernel_test_args()
    work, compile = harness.fresh_work(args)
    tally = harness.Tally()
    report = tally.report
    make_models(args.work)
    infc = harness.import_infc(args.python_dir)

    def generic(name):
        """`name`.onnx compiled with --dim batch=1..16, reported; loaded, or None."""
        r = compile(f"{name}.onnx", f"{name}.so", "--dim", "batch=1..16")
        report(r.returncode == 0, f"{name} --dim batch=1..16: exit {r.returncode} "
               f"{r.stderr.strip()[-300:]}")
        return infc.load(work(f"{name}.so")) if r.returncode == 0 else None

    r = compile("mlp.onnx", "mlp.so", "--dim", "batch=1..64")
    report(r.returncode == 0, f"mlp --dim batch=1..64: exit {r.returncode} "
           f"{r.stderr.strip()[-300:]}")
    if r.returncode != 0:
        return tally.finish()
    m = infc.load(work("mlp.so"), num_threads=2)
    report(repr(m) == "<infc.Model 'mlp' (x: float32[batch[1..64],32]) -> "
           "(logits: float32[batch[1..64],10], probs: float32[batch[1..64],10], "
           "logp: float32[batch[1..64],10])>", repr(m))
    second = m.session(num_threads=1)

    def mlp_batches(m, second, batches, label):
        """The mlp library `m` against onnxruntime at each batch: library-owned outputs on
        its session, a caller-owned one on `second` (1 thread)."""
        for batch in batches:
            x = np.random.default_rng(batch).standard_normal((batch, 32)).astype(np.float32)
            ref = harness.ort_reference(work("mlp.onnx"), {"x": x})
            got = m(x=x)
            own = {"probs": np.empty((batch, 10), np.float32)}
            second.run({"x": x}, out=own)
            ok = all(harness.compare(got[k], ref[k], rtol=1e-4, atol=1e-6)[0] for k in ref)
            ok2, summary = harness.compare(own["probs"], ref["probs"], rtol=1e-4, atol=1e-6)
            report(ok and ok2 and got["probs"].shape == (batch, 10),
                   f"{label} batch {batch}: {summary} (library-owned; caller-owned, second "
                   "session)")
    mlp_batches(m, second, (1, 3, 17, 64, 3), "mlp")
    shapes = m.output_shapes(x=(5, 32))
    report(shapes == {"logits": (5, 10), "probs": (5, 10), "logp": (5, 10)},
           f"mlp output_shapes: {shapes}")
    for batch, want in ((0, "must be within 1..64"), (65, "must be within 1..64")):
        try:
            m(x=np.zeros((batch, 32), np.float32))
            report(False, f"mlp batch {batch}: not refused")
        except infc.Error as e:
            report(e.status == infc.Status.SHAPE_MISMATCH and want in str(e),
                   f"mlp batch {batch}: {e}")
    try:
        m.run({"x": np.zeros((3, 32), np.float32)}, out={"probs": np.empty((4, 10), np.float32)})
        report(False, "mlp: a caller-owned output of batch 4 for inputs of batch 3 accepted")
    except infc.Error as e:
        report(e.status == infc.Status.SHAPE_MISMATCH and "dim 0 'batch' is 4, expected 3" in str(e),
               f"mlp: caller-owned output of another batch: {e}")
    workspace = m.workspace_bytes
    second.close()
    m.close()
    # No flag for the batch: generic code with no largest size, its workspace sized at each
    # run (grown for 300 rows, reused for 7).
    r = compile("mlp.onnx", "mlp_open.so")
    report(r.returncode == 0 and "batch loop" not in r.stderr,
           f"mlp without flags, generic code: exit {r.returncode} {r.stderr.strip()[-300:]}")
    if r.returncode == 0:
        m = infc.load(work("mlp_open.so"), num_threads=2)
        report("x: float32[batch[1..],32]" in repr(m), repr(m))
        second = m.session(num_threads=1)
        mlp_batches(m, second, (1, 300, 7, 300), "mlp without flags,")
        second.close()
        m.close()
    r = compile("mlp.onnx", "mlp64.so", "--input-shape", "x=64x32")
    static = infc.load(work("mlp64.so"))
    report(r.returncode == 0 and 0 < workspace <= 2 * static.workspace_bytes + 4096,
           f"mlp workspace {workspace} bytes at the bound; static batch 64: "
           f"{static.workspace_bytes}")
    static.close()

    x5 = np.random.default_rng(5).standard_normal((5, 32)).astype(np.float32)
    np.save(work("x5.npy"), x5)
    r = harness.run_tool([args.infc, "run", work("mlp.so"), "--input", f"x={work('x5.npy')}",
                          "--output-dir", work("out")], timeout=120)
    got = np.load(work("out/probs.npy")) if os.path.exists(work("out/probs.npy")) else None
    ok = got is not None and harness.compare(
        got, harness.ort_reference(work("mlp.onnx"), {"x": x5})["probs"], 1e-4, 1e-6)[0]
    report(r.returncode == 0 and ok, f"infc run at batch 5: exit {r.returncode} "
           f"{(r.stdout + r.stderr).strip()[:160]}")
    r = harness.run_tool([args.infc, "bench", work("mlp.so"), "--iters", "3", "--input-shape",
                          "x=7x32"], timeout=120)
    r2 = harness.run_tool([args.infc, "bench", work("mlp.so"), "--iters", "3"], timeout=120)
    report(r.returncode == 0 and "latency ms" in r.stdout and r2.returncode == 1 and
           "varies from run to run" in r2.stderr,
           f"infc bench --input-shape x=7x32: exit {r.returncode}; without it exit "
           f"{r2.returncode}: {r2.stderr.strip()[-120:]}")

    rows = generic("rows")
    if rows is not None:
        for batch in (1, 2, 16):
            rng = np.random.default_rng(100 + batch)
            feeds = {"x": rng.standard_normal((batch, 32)).astype(np.float32),
                     "t": rng.standard_normal((batch, 3, 32)).astype(np.float32)}
            ref = harness.ort_reference(work("rows.onnx"), feeds)
            got = rows(feeds)
            results = [harness.compare(got[k], ref[k], rtol=1e-4, atol=1e-5) for k in ref]
            report(all(ok for ok, _ in results),
                   f"rows batch {batch}: " + "; ".join(s for _, s in results))
        rows.close()

    t = generic("transpose")
    if t is not None:
        for batch in (1, 5, 16):
            x = np.random.default_rng(300 + batch).standard_normal((batch, 32)).astype(np.float32)
            ref = harness.ort_reference(work("transpose.onnx"), {"x": x})["y"]
            got = t(x=x)["y"]
            ok, summary = harness.compare(got, ref, rtol=1e-4, atol=1e-5)
            report(ok and got.shape == (32, batch),
                   f"layer norm + transpose batch {batch} (output {got.shape}): {summary}")
        t.close()

    sel = generic("select")
    if sel is not None:
        for batch in (1, 7):
            x = np.random.default_rng(400 + batch).standard_normal((batch, 32)).astype(np.float32)
            ref = harness.ort_reference(work("select.onnx"), {"x": x})
            got = sel(x=x)
            ok = np.array_equal(got["k"], ref["k"]) and \
                harness.compare(got["y"], ref["y"], rtol=0, atol=0)[0]
            report(ok, f"select batch {batch}: Where/Clip exact, Cast of Not exact: {ok}")
        sel.close()

    # The generic rows in blocks of 16, 4 and 1 through the K-blocked kernels; and the
    # static library of 8 rows (on AVX2 a 6-row tile and a 2-row edge, which once failed to
    # compile: the K-block loop's tiles were hoisted into a copy).
    r = compile("wide.onnx", "wide.so", "--dim", "batch=1..64")
    r8 = compile("wide.onnx", "wide8.so", "--input-shape", "x=8x32")
    report(r.returncode == 0 and r8.returncode == 0,
           f"wide: generic exit {r.returncode}, static batch 8 exit {r8.returncode} "
           f"{(r.stderr + r8.stderr).strip()[-200:]}")
    if r.returncode == 0 and r8.returncode == 0:
        wide, wide8 = infc.load(work("wide.so")), infc.load(work("wide8.so"))
        for batch in (8, 21, 64):
            x = np.random.default_rng(200 + batch).standard_normal((batch, 32)).astype(np.float32)
            refs = harness.ort_reference(work("wide.onnx"), {"x": x})
            ref = refs["y"]
            got = wide(x=x)
            ok, summary = harness.compare(got["y"], ref, rtol=1e-4, atol=1e-5)
            ok_relu, summary_relu = harness.compare(got["ra"], refs["ra"], rtol=1e-4, atol=1e-5)
            ok, summary = ok and ok_relu, f"{summary}; the Relu: {summary_relu}"
            if batch == 8:
                ok8, summary8 = harness.compare(wide8(x=x)["y"], ref, rtol=1e-4, atol=1e-5)
                ok, summary = ok and ok8, f"{summary}; static: {summary8}"
            report(ok, f"wide batch {batch}: {summary}")
        wide.close()
        wide8.close()

    middle = generic("middle")
    if middle is not None:
        for batch in (1, 7, 16):
            x3 = np.random.default_rng(400 + batch).standard_normal((2, batch, 24)).astype(
                np.float32)
            ref = harness.ort_reference(work("middle.onnx"), {"x3": x3})
            got = middle(x3=x3)
            results = [harness.compare(got[k], ref[k], rtol=1e-4, atol=1e-5) for k in ref]
            report(all(ok for ok, _ in results),
                   f"middle batch {batch} (y3, r3): " + "; ".join(s for _, s in results))
        middle.close()

    rotate = generic("rotate")
    if rotate is not None:
        for batch in (1, 5, 16):
            x = np.random.default_rng(500 + batch).standard_normal((batch, 32)).astype(np.float32)
            got = rotate(x=x)["y"]
            report(np.array_equal(got, np.concatenate([-x, x, -x], axis=1)),
                   f"rotate batch {batch}: Concat([-x, x, -x], axis=1) exact")
        rotate.close()

    # The dim fixed on one input by --input-shape, symbolic on the other: runs take the
    # batch from the symbolic one (the fixed 1 broadcasts).
    r = compile("pinned.onnx", "pinned.so", "--dim", "batch=1..8", "--input-shape", "m=1x32")
    report(r.returncode == 0, f"pinned: exit {r.returncode} {r.stderr.strip()[-200:]}")
    if r.returncode == 0:
        pinned = infc.load(work("pinned.so"))
        for batch in (1, 3):
            x = np.random.default_rng(500 + batch).standard_normal((batch, 32)).astype(np.float32)
            m = np.random.default_rng(600).standard_normal((1, 32)).astype(np.float32)
            ref = harness.ort_reference(work("pinned.onnx"), {"x": x, "m": m})["y"]
            ok, summary = harness.compare(pinned(x=x, m=m)["y"], ref, rtol=1e-6, atol=1e-6)
            report(ok, f"pinned batch {batch} (m fixed at 1): {summary}")
        pinned.close()

    # Two symbolic dims, one a batch whose rows stay apart: the batch loop around generic
    # code for the other.
    r = compile("two.onnx", "two.so", "--dim", "batch=1..8", "--dim", "seq=1..8")
    report(r.returncode == 0 and "around generic code for 'seq'" in r.stderr,
           f"two.onnx --dim batch=1..8 --dim seq=1..8: exit {r.returncode} "
           f"{r.stderr.strip()[-200:]}")
    if r.returncode == 0:
        two = infc.load(work("two.so"), num_threads=2)
        for batch, seq in ((3, 5), (1, 8), (8, 1), (2, 2)):
            rng = np.random.default_rng(batch * 10 + seq)
            x = rng.standard_normal((batch, seq)).astype(np.float32)
            z = rng.standard_normal((batch, seq)).astype(np.float32)
            got = two(x=x, z=z)["y"]
            report(got.shape == (batch, seq) and np.array_equal(got, x + z),
                   f"two batch {batch} seq {seq}: x + z exact")
        two.close()

    for model, flags, want in (
            ("concat.onnx", ["--dim", "batch=1..8"],
             "node 'Concat_0' (Concat, opset 17): input 0 ('x') has the symbolic dim "
             "'batch'"),
            ("broadcast.onnx", ["--dim", "batch=1..8"],
             "a symbolic dim would broadcast against a static size"),
            ("two_moved.onnx", ["--dim", "batch=1..8", "--dim", "seq=1..8"],
             "the generic code takes one symbolic dim for now"),
            ("mlp.onnx", ["--dim", "batch=1..8", "--target", "cuda"],
             "with --target cuda is not supported yet"),
            ("two.onnx", ["--dim", "batch=1..8", "--specialize", "seq=2,4"],
             "with another left symbolic ('batch'")):
        out = work("bad.so")
        r = compile(model, "bad.so", *flags)
        report(r.returncode == 1 and want in r.stderr and not os.path.exists(out)
               and r.crash_reason() is None,
               f"{model} {' '.join(flags)}: exit {r.returncode}, {r.stderr.strip()[-200:]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

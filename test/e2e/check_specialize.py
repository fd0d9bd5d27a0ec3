#!/usr/bin/env python3
"""`infc compile --specialize`: one library holding a static variant per shape, against
onnxruntime at every shape.

    check_specialize.py --infc BUILD/bin/infc --work DIR [--python-dir python]

Models (made here): a CNN whose input is x[batch, 16, 32, 32] (two Convs, pool, Gemm), and
a token model over ids and mask [batch, seq] (Gather, MatMul, ReduceSum, Add, Softmax over
seq). Checks:
  - the CNN with --specialize batch=1,2,4: outputs match onnxruntime at each batch (Python,
    caller-owned and library-owned outputs); batch 3 is refused with SHAPE_MISMATCH naming
    the compiled variants; the weights section is no larger than the static library's (the
    variants share identical blobs); `infc run` at batch 4 through the C ABI;
  - the token model with --specialize batch=1,2 --specialize seq=8,32: four variants, each
    against onnxruntime; ids and mask of different seq refused; `infc bench` of random
    inputs at a shape `--input-shape` gives (and an error naming the flag without it);
  - compiled with --profile: the trace names the variant of each kernel;
  - flag errors (an unknown dim name, a malformed list, --emit=llvm, variants of
    one input shape) and variants whose output ranks differ (a Squeeze of every size-1
    dim) exit 1 with a message and leave no output file.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import json
import os
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
import harness  # noqa: E402


def make_models(work):
    import onnx
    from onnx import TensorProto as T
    from onnx import helper
    rng = np.random.default_rng(7)

    def init(name, shape, scale=0.1):
        return harness.random_float_tensor(rng, name, shape, scale)
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1] * 4),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", pads=[1] * 4),
             helper.make_node("GlobalAveragePool", ["c2"], ["p"], name="pool"),
             helper.make_node("Flatten", ["p"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], name="fc")]
    g = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 16, 32, 32])],
        [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 10])],
        [init("w1", [32, 16, 3, 3]), init("b1", [32]), init("w2", [32, 32, 3, 3]),
         init("w3", [32, 10]), init("b3", [10])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(work, "cnn.onnx"))
    nodes = [helper.make_node("Gather", ["emb", "ids"], ["e"], name="embed"),
             helper.make_node("MatMul", ["e", "w"], ["h"], name="proj"),
             helper.make_node("ReduceSum", ["h", "axes"], ["s"], name="score", keepdims=0),
             helper.make_node("Add", ["s", "mask"], ["sm"], name="masked"),
             helper.make_node("Softmax", ["sm"], ["y"], name="softmax", axis=1)]
    g = helper.make_graph(
        nodes, "tokens",
        [helper.make_tensor_value_info("ids", T.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info("mask", T.FLOAT, ["batch", "seq"])],
        [helper.make_tensor_value_info("y", T.FLOAT, ["batch", "seq"])],
        [init("emb", [50, 16], 1.0), init("w", [16, 16], 0.5),
         helper.make_tensor("axes", T.INT64, [1], [2])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(work, "tokens.onnx"))
    # Squeeze without axes drops every size-1 dim: the batch too at batch 1 (another rank).
    g = helper.make_graph(
        [helper.make_node("Squeeze", ["x"], ["y"], name="squeeze")], "squeeze",
        [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 4, 1, 1])],
        [helper.make_tensor_value_info("y", T.FLOAT, None)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(work, "squeeze.onnx"))


def section_size(lib, name):
    out = subprocess.run(["readelf", "-SW", lib], capture_output=True, text=True).stdout
    for line in out.splitlines():
        fields = line.replace("[ ", "[").split()
        if name in fields:
            return int(fields[fields.index(name) + 4], 16)
    return None


def main():
    args = harness.kernel_test_args()
    work, compile = harness.fresh_work(args)
    tally = harness.Tally()
    report = tally.report
    make_models(args.work)
    infc = harness.import_infc(args.python_dir)

    # The CNN: three batches in one library.
    r = compile("cnn.onnx", "cnn.so", "--specialize", "batch=1,2,4")
    report(r.returncode == 0 and "3 variants (batch=1 | batch=2 | batch=4)" in r.stderr,
           f"cnn --specialize batch=1,2,4: exit {r.returncode} {r.stderr.strip()[-300:]}")
    if r.returncode != 0:
        return tally.finish()
    m = infc.load(work("cnn.so"), num_threads=2)
    report(m.inputs[0].shape == (None, 16, 32, 32) and m.outputs[0].shape == (None, 10),
           f"cnn: the varying dim shows as None: {m!r}")
    for batch in (1, 2, 4):
        x = np.random.default_rng(batch).standard_normal((batch, 16, 32, 32)).astype(np.float32)
        ref = harness.ort_reference(work("cnn.onnx"), {"x": x})["y"]
        got = m(x=x)["y"]
        own = np.empty((batch, 10), np.float32)
        m.run({"x": x}, out={"y": own})
        ok, summary = harness.compare(got, ref, rtol=1e-4, atol=1e-5)
        ok2, _ = harness.compare(own, ref, rtol=1e-4, atol=1e-5)
        report(ok and ok2, f"cnn batch {batch}: {summary} (library-owned and caller-owned)")
    try:
        m(x=np.zeros((3, 16, 32, 32), np.float32))
        report(False, "cnn batch 3: not refused")
    except infc.Error as e:
        report(e.status == infc.Status.SHAPE_MISMATCH and
               "compiled for: batch=1 | batch=2 | batch=4" in str(e), f"cnn batch 3: {e}")
    m.close()
    r = compile("cnn.onnx", "cnn_static.so", "--input-shape", "x=1x16x32x32")
    shared, static = section_size(work("cnn.so"), ".infc_weights"), \
        section_size(work("cnn_static.so"), ".infc_weights")
    report(r.returncode == 0 and static and shared is not None and shared <= static,
           f"cnn: weights section {shared} bytes for 3 variants, {static} for one static shape")
    x4 = np.random.default_rng(4).standard_normal((4, 16, 32, 32)).astype(np.float32)
    np.save(work("x4.npy"), x4)
    r = harness.run_tool([args.infc, "run", work("cnn.so"), "--input", f"x={work('x4.npy')}",
                          "--output-dir", work("out")], timeout=120)
    got = np.load(work("out/y.npy")) if os.path.exists(work("out/y.npy")) else None
    ok = got is not None and harness.compare(
        got, harness.ort_reference(work("cnn.onnx"), {"x": x4})["y"], 1e-4, 1e-5)[0]
    report(r.returncode == 0 and "y: float32 [4x10]" in r.stdout and ok,
           f"infc run at batch 4: exit {r.returncode} {r.stdout.strip()[:80]}")

    r = harness.run_tool([args.infc, "bench", work("cnn.so"), "--iters", "3", "--input-shape",
                          "x=2x16x32x32"], timeout=120)
    r3 = harness.run_tool([args.infc, "bench", work("cnn.so"), "--iters", "3"], timeout=120)
    report(r.returncode == 0 and "latency ms" in r.stdout and r3.returncode == 1
           and "--input-shape x=" in r3.stderr,
           f"infc bench --input-shape x=2x16x32x32: exit {r.returncode}; without it exit "
           f"{r3.returncode}: {r3.stderr.strip()[-120:]}")

    # Two named dims: the cross product.
    r = compile("tokens.onnx", "tokens.so", "--specialize", "batch=1,2", "--specialize",
                "seq=8,32", "--dim", "seq=1..64")
    report(r.returncode == 0 and "4 variants" in r.stderr,
           f"tokens --specialize batch=1,2 seq=8,32: exit {r.returncode} {r.stderr.strip()[-300:]}")
    if r.returncode == 0:
        t = infc.load(work("tokens.so"))
        for batch in (1, 2):
            for seq in (8, 32):
                rng = np.random.default_rng(batch * 100 + seq)
                feeds = {"ids": rng.integers(0, 50, (batch, seq)),
                         "mask": rng.standard_normal((batch, seq)).astype(np.float32)}
                ref = harness.ort_reference(work("tokens.onnx"), feeds)["y"]
                ok, summary = harness.compare(t(feeds)["y"], ref, rtol=1e-4, atol=1e-6)
                report(ok, f"tokens batch {batch} seq {seq}: {summary}")
        # The dims' names and ranges: seq declared 1..64, both narrowed to the variants.
        dims = [str(d) for d in t.inputs[1].dims]
        report(dims == ["batch[1..2]", "seq[8..32]"] and
               [d.name for d in t.outputs[0].dims] == ["batch", "seq"],
               f"tokens: named dims {dims}, outputs {t.outputs[0].dims}")
        shapes = t.output_shapes(ids=(2, 32), mask=(2, 32))
        report(shapes == {"y": (2, 32)}, f"tokens: output_shapes for (2, 32): {shapes}")
        for ids, mask, want in (((2, 8), (2, 32), "input 1 'mask': dim 1 'seq' is 32, but input 0 "
                                 "'ids' dim 1 of the same name is 8"),
                                ((1, 100), (1, 100), "input 0 'ids': dim 1 'seq' is 100, must be "
                                 "within 1..64"),
                                ((3, 8), (3, 8), "no compiled variant takes these input shapes "
                                 "('ids' [3,8], 'mask' [3,8])")):
            try:
                t(ids=np.zeros(ids, np.int64), mask=np.zeros(mask, np.float32))
                report(False, f"tokens: ids {ids} with mask {mask} not refused")
            except infc.Error as e:
                report(e.status == infc.Status.SHAPE_MISMATCH and want in str(e),
                       f"tokens: ids {ids}, mask {mask} refused: {e}")
        t.close()

    # Profiled variants: each kernel event says which variant ran.
    r = compile("cnn.onnx", "cnn_prof.so", "--specialize", "batch=1,4", "--profile")
    if r.returncode == 0:
        p = infc.load(work("cnn_prof.so"), profile=work("trace.json"))
        p(x=x4)
        p(x=x4[:1])
        p.end_profiling()
        with open(work("trace.json")) as f:
            events = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "kernel"]
        variants = {e["args"].get("variant") for e in events}
        report(variants == {"batch=1", "batch=4"} and
               any(e["name"].startswith("conv2(Conv)") for e in events),
               f"--profile: kernel events of both variants ({sorted(map(str, variants))})")
    else:
        report(False, f"--specialize --profile: exit {r.returncode} {r.stderr.strip()[-300:]}")

    r = compile("squeeze.onnx", "squeeze.so", "--specialize", "batch=1,2")
    report(r.returncode == 1 and "another name, dtype or rank" in r.stderr
           and not os.path.exists(work("squeeze.so")),
           f"variants of different output ranks refused: {r.stderr.strip()[-200:]}")
    for flags, want in ((["--specialize", "btch=1,2"], "no graph input has"),
                        (["--specialize", "batch=1,2", "--input-shape", "x=1x16x32x32"],
                         "has the input shapes of variant"),
                        (["--specialize", "batch=0,2"], "malformed --specialize"),
                        (["--specialize", "batch=1", "--specialize", "batch=2"], "given twice"),
                        (["--specialize", "batch=1,2", "--emit=llvm"], "builds a library"),
                        (["--specialize", "batch=1,2", "--dim", "batch=2..4"],
                         "'batch' is 1 (from --input-shape or --specialize), outside --dim "
                         "batch=2..4"),
                        (["--specialize", "batch=1,2", "--dim", "batch=4..2"], "malformed --dim"),
                        (["--specialize", "batch=1,2", "--dim", "btch=1..4"],
                         "--dim names dim 'btch'")):
        out = work("bad.so")
        r = compile("cnn.onnx", "bad.so", *flags)
        report(r.returncode == 1 and want in r.stderr and not os.path.exists(out)
               and r.crash_reason() is None,
               f"{' '.join(flags[:4])}: exit {r.returncode}, {r.stderr.strip()[-160:]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

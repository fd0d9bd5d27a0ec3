"""infc verify: which node of a model does infc compute differently from onnxruntime?

    infc verify MODEL.onnx [--input NAME=x.npy ...] [--input-shape NAME=D0xD1...]
        [--rtol 1e-3] [--atol 1e-5] [--seed 0] [--bisect OUT.onnx] [--keep DIR]
        [-- COMPILE FLAGS...]
    (or python3 -m infc.verify ...)

Every intermediate tensor of the model becomes a graph output (a copy of the model, shapes
from ONNX shape inference), which infc compiles (with the flags after `--`) and
onnxruntime runs with its graph optimizations off, on the same inputs (the given .npy files,
else seeded random data of the inputs' shapes and dtypes). Tensors are compared in graph
order; one line per node: its outputs' largest absolute and relative error and how many
elements are off by more than atol + rtol * |reference|. The first node with such an element
is reported as the first divergence. --bisect writes the smallest subgraph that still
diverges (that node, with producers added until it does; the tensors it reads become
inputs) as OUT.onnx, with its inputs in OUT.inputs.npz (onnxruntime's values).
Exit status: 0 when every tensor agrees, 1 when one diverges, 2 on a usage or compile error.
"""

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np


def _parse(argv):
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(prog="infc verify", description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--input", "-i", action="append", default=[], metavar="NAME=FILE.npy")
    ap.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0xD1...")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bisect", metavar="OUT.onnx")
    ap.add_argument("--keep", metavar="DIR", help="keep the exposed model and its library here")
    args = ap.parse_args(argv)
    args.compile_flags = extra
    return args


def _fix_input_shapes(model, specs):
    shapes = {}
    for spec in specs:
        for item in spec.split(","):
            name, _, dims = item.partition("=")
            shapes[name] = [int(d) for d in dims.split("x")]
    for inp in model.graph.input:
        if inp.name in shapes:
            dims = inp.type.tensor_type.shape.dim
            for d, v in zip(dims, shapes[inp.name]):
                d.Clear()
                d.dim_value = v
    return shapes


def _exposed(model):
    """A copy of `model` with every node output of a known tensor type as a graph output, in
    graph order; returns (model, [(node, [output names])])."""
    import onnx

    inferred = onnx.shape_inference.infer_shapes(model)
    types = {vi.name: vi for vi in list(inferred.graph.value_info) + list(inferred.graph.output)}
    exposed = onnx.ModelProto()
    exposed.CopyFrom(model)
    present = {o.name for o in exposed.graph.output}
    nodes = []
    for node in model.graph.node:
        names = []
        for out in node.output:
            if not out or out not in types or not types[out].type.HasField("tensor_type"):
                continue
            names.append(out)
            if out not in present:
                exposed.graph.output.append(types[out])
                present.add(out)
        nodes.append((node, names))
    return exposed, nodes


def _random_inputs(model_lib, rng):
    feeds = {}
    for io in model_lib.inputs:
        shape = tuple(d if d is not None else 1 for d in io.shape)
        if np.issubdtype(io.dtype, np.floating):
            feeds[io.name] = rng.standard_normal(shape).astype(io.dtype)
        elif io.dtype == np.bool_:
            feeds[io.name] = rng.integers(0, 2, shape).astype(np.bool_)
        else:
            feeds[io.name] = rng.integers(0, 4, shape).astype(io.dtype)
    return feeds


def _compare(got, want, rtol, atol):
    """(max abs error, max relative error, elements off, elements)."""
    if got.shape != want.shape:
        return float("inf"), float("inf"), want.size or 1, want.size or 1
    if not (np.issubdtype(want.dtype, np.number) or want.dtype == np.bool_):
        same = got == want
        return 0.0, 0.0, int(np.size(same) - np.count_nonzero(same)), int(np.size(same))
    g, w = got.astype(np.float64), want.astype(np.float64)
    diff = np.abs(g - w)
    nan_ok = np.isnan(g) & np.isnan(w)
    diff = np.where(nan_ok | (g == w), 0.0, diff)  # equal infinities are no error
    bad = np.count_nonzero(diff > atol + rtol * np.abs(w))
    rel = diff / np.maximum(np.abs(w), max(atol, 1e-30))  # near-zero references: vs atol
    return (float(diff.max(initial=0)), float(rel.max(initial=0)), int(bad), int(w.size))


def _ort(model, feeds, names):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])
    return dict(zip(names, sess.run(names, feeds)))


def _subgraph(model, nodes, values):
    """The model of `nodes` (in graph order) whose outside tensors become inputs."""
    import onnx
    from onnx import helper

    produced = {o for n in nodes for o in n.output if o}
    inits = {t.name: t for t in model.graph.initializer}
    inputs, used_inits = [], []
    for n in nodes:
        for i in n.input:
            if not i or i in produced or i in [x.name for x in inputs] or i in used_inits:
                continue
            if i in inits:
                used_inits.append(i)
            else:
                v = values[i]
                inputs.append(helper.make_tensor_value_info(
                    i, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape)))
    last = nodes[-1]
    outputs = [helper.make_tensor_value_info(o, helper.np_dtype_to_tensor_dtype(values[o].dtype),
                                             list(values[o].shape))
               for o in last.output if o in values]
    g = helper.make_graph(list(nodes), "bisect", inputs, outputs, [inits[i] for i in used_inits])
    sub = helper.make_model(g, opset_imports=list(model.opset_import))
    sub.ir_version = model.ir_version
    onnx.checker.check_model(sub)
    return sub, {x.name: values[x.name] for x in inputs}


def main(argv=None):
    args = _parse(sys.argv[1:] if argv is None else argv)
    import onnx

    from . import _compile, load

    try:
        model = onnx.load(args.model)
        _fix_input_shapes(model, args.input_shape)
    except Exception as e:  # noqa: BLE001 - not a file, not ONNX: the message, exit 2
        print(f"infc verify: {args.model}: {e}", file=sys.stderr)
        return 2
    exposed, nodes = _exposed(model)
    work = args.keep or tempfile.mkdtemp(prefix="infc-verify-")
    os.makedirs(work, exist_ok=True)
    try:
        path = os.path.join(work, "exposed.onnx")
        onnx.save(exposed, path)
        flags = list(args.compile_flags)
        for spec in args.input_shape:
            flags = ["--input-shape", spec] + flags
        try:
            so = _compile.compile(path, os.path.join(work, "exposed.so"), extra_args=flags)
        except (_compile.CompileError, FileNotFoundError) as e:
            print(f"infc verify: {e}", file=sys.stderr)
            return 2
        try:
            lib = load(so)
            feeds = {}
            for spec in args.input:
                name, _, file = spec.partition("=")
                feeds[name] = np.load(file)
            if not feeds:
                feeds = _random_inputs(lib, np.random.default_rng(args.seed))
            got = lib(feeds)
            names = [o.name for o in exposed.graph.output]
            want = _ort(exposed, feeds, names)
        except Exception as e:  # noqa: BLE001 - a run that fails is no divergence: exit 2
            print(f"infc verify: running the model: {e}", file=sys.stderr)
            return 2
        first = None
        print(f"{'node':40} {'op':18} {'max abs err':>12} {'max rel err':>12} {'off':>14}")
        for node, outs in nodes:
            worst = (0.0, 0.0, 0, 0)
            for o in outs:
                if o in got and o in want:
                    c = _compare(got[o], want[o], args.rtol, args.atol)
                    worst = (max(worst[0], c[0]), max(worst[1], c[1]), worst[2] + c[2],
                             worst[3] + c[3])
            mark = ""
            if worst[2] and first is None:
                first, mark = node, "  <- first divergence"
            label = node.name or f"({node.op_type})"
            print(f"{label[:40]:40} {node.op_type[:18]:18} {worst[0]:12.3e} {worst[1]:12.3e} "
                  f"{worst[2]:>6}/{worst[3]:<7}{mark}")
        if first is None:
            print(f"infc verify: every tensor agrees with onnxruntime (rtol {args.rtol:g}, "
                  f"atol {args.atol:g}) on {len(nodes)} nodes")
            return 0
        print(f"infc verify: first divergence at node '{first.name}' ({first.op_type})")
        if args.bisect:
            return _bisect(model, first, want | feeds, args)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def _bisect(model, first, values, args):
    """Grows a subgraph back from `first` until infc diverges on it alone; writes it."""
    import onnx

    from . import _compile, load

    graph_nodes = list(model.graph.node)
    producer = {o: k for k, n in enumerate(graph_nodes) for o in n.output if o}
    chosen = {next(k for k, n in enumerate(graph_nodes) if n is first or n == first)}
    with tempfile.TemporaryDirectory(prefix="infc-bisect-") as tmp:
        for _ in range(len(graph_nodes)):
            try:
                sub, feeds = _subgraph(model, [graph_nodes[k] for k in sorted(chosen)], values)
            except Exception as e:  # noqa: BLE001 - e.g. a subgraph reading outer values
                print(f"infc verify: cannot cut a subgraph here: {e}", file=sys.stderr)
                return 2
            path = os.path.join(tmp, "sub.onnx")
            onnx.save(sub, path)
            try:
                got = load(_compile.compile(path, os.path.join(tmp, "sub.so"),
                                            extra_args=list(args.compile_flags)))(feeds)
                diverges = any(_compare(got[o.name], values[o.name], args.rtol, args.atol)[2]
                               for o in sub.graph.output)
            except _compile.CompileError:
                diverges = False
            if diverges:
                onnx.save(sub, args.bisect)
                np.savez(os.path.splitext(args.bisect)[0] + ".inputs.npz", **feeds)
                print(f"infc verify: wrote {args.bisect} ({len(chosen)} node(s), inputs in "
                      f"{os.path.splitext(args.bisect)[0]}.inputs.npz)")
                return 1
            # Add the producers of the subgraph's inputs (those not from the graph's inputs).
            more = {producer[i] for k in chosen for i in graph_nodes[k].input
                    if i in producer} - chosen
            if not more:
                break
            chosen |= more
    print("infc verify: no subgraph diverges on its own (the divergence needs the whole "
          "model); nothing written", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())

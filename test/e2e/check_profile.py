#!/usr/bin/env python3
"""Profiling: chrome traces of a compiled model's runs (INFC_PROFILE, --profile, Python's
profile=) and `infc bench --per-node`.

    check_profile.py --infc BUILD/bin/infc --work DIR [--python-dir python]

The model (made here): Conv, Relu, Conv, Add (residual), Relu, GlobalAveragePool, Flatten,
Gemm, Softmax over 16x64x64, large enough that its convolutions run on both threads.
Compiled with `infc compile --profile`. Checks:
  - `infc run --profile t.json --threads 2`: outputs match onnxruntime; the trace is JSON
    with one run, kernel events on the calling thread whose names are made of the graph's
    "node(OpType)" names only, every Conv and the Gemm named by some kernel, the kernels
    inside the run and not overlapping; worker events on thread 1, each inside a kernel
    of the same name on the caller;
  - the model with a symbolic batch compiled with --profile and no flag (the batch loop):
    `infc run` of 3 images on 2 threads matches onnxruntime, its trace is as above, with
    conv2 timed once per row;
  - `infc bench --per-node`: the table of the timed runs, shares that add up to at most
    100%, the first convolution among the kernels;
  - Python: INFC_PROFILE names a file per session (written at close), profile= and
    end_profiling() write another; profiled and plain runs agree with onnxruntime;
  - a plain session does not profile: `infc bench` without --profile says nothing of it;
  - a library compiled without --profile: traces of whole runs, saying why, and
    `bench --per-node` exits 1 naming `infc compile --profile`; --profile with
    --target cuda is refused.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import json
import os
import re
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
import harness  # noqa: E402


def make_model(path):
    import onnx
    from onnx import TensorProto, helper
    rng = np.random.default_rng(11)

    def init(name, shape, scale=0.1):
        return harness.random_float_tensor(rng, name, shape, scale)
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1] * 4),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", pads=[1] * 4),
             helper.make_node("Add", ["c2", "r1"], ["s"], name="residual"),
             helper.make_node("Relu", ["s"], ["r2"], name="relu2"),
             helper.make_node("GlobalAveragePool", ["r2"], ["p"], name="pool"),
             helper.make_node("Flatten", ["p"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "w3", "b3"], ["g"], name="fc"),
             helper.make_node("Softmax", ["g"], ["y"], name="softmax")]
    g = helper.make_graph(nodes, "profiled_cnn",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 64, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
                          [init("w1", [32, 16, 3, 3]), init("b1", [32]),
                           init("w2", [32, 32, 3, 3], 0.05), init("w3", [32, 10]),
                           init("b3", [10])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)
    return {f"{n.name}({n.op_type})" for n in nodes}


def check_trace(path, nodes, threads, report, label):
    """The trace's structure; returns the parsed events or None."""
    try:
        with open(path) as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        report(False, f"{label}: the trace is JSON ({e})")
        return None
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    runs = [e for e in events if e["cat"] == "run"]
    kernels = [e for e in events if e["cat"] == "kernel"]
    workers = [e for e in events if e["cat"] == "worker"]
    named = set()
    for k in kernels:
        named.update(k["name"].split(" + "))
    unknown = named - nodes
    report(len(runs) == trace["otherData"]["runs"] and kernels and not unknown
           and all(k["tid"] == 0 for k in kernels),
           f"{label}: {len(runs)} runs, {len(kernels)} kernel events on the caller, named by "
           f"the graph's nodes only" + (f" (unknown: {sorted(unknown)})" if unknown else ""))
    wanted = {"conv1(Conv)", "conv2(Conv)", "fc(Gemm)"}
    report(wanted <= named, f"{label}: every Conv and the Gemm name a kernel "
           f"(missing: {sorted(wanted - named)}; kernels: {sorted({k['name'] for k in kernels})})")
    # Kernels of one run lie inside it, one after another (0.01 us: the printed precision).
    eps = 0.01
    ok = True
    for r in runs:
        inside = sorted((k for k in kernels if k["args"]["run"] == r["args"]["run"]),
                        key=lambda k: k["ts"])
        ok &= all(r["ts"] - eps <= k["ts"] and k["ts"] + k["dur"] <= r["ts"] + r["dur"] + eps
                  for k in inside)
        ok &= all(a["ts"] + a["dur"] <= b["ts"] + eps for a, b in zip(inside, inside[1:]))
    report(ok, f"{label}: kernels inside their run, never overlapping")
    if threads > 1:
        contained = all(any(k["name"] == w["name"] and k["args"]["run"] == w["args"]["run"]
                            and k["ts"] - eps <= w["ts"]
                            and w["ts"] + w["dur"] <= k["ts"] + k["dur"] + eps
                            for k in kernels) for w in workers)
        report(workers and all(w["tid"] == 1 for w in workers) and contained,
               f"{label}: {len(workers)} worker events on thread 1, each inside the caller's "
               "kernel of that name")
    return events


def main():
    args = harness.kernel_test_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    tally = harness.Tally()
    report = tally.report
    work = lambda name: os.path.join(args.work, name)  # noqa: E731

    model = work("cnn.onnx")
    nodes = make_model(model)
    lib = work("cnn.so")
    r = harness.run_tool([args.infc, "compile", model, "-o", lib, "--profile"], timeout=300)
    report(r.returncode == 0, f"compile: exit {r.returncode} {r.stderr.strip()[-300:]}")
    if r.returncode != 0:
        return tally.finish()
    x = np.random.default_rng(5).standard_normal((1, 16, 64, 64)).astype(np.float32)
    np.save(work("x.npy"), x)
    ref = harness.ort_reference(model, {"x": x})["y"]
    env = {"INFC_PROFILE": None}

    trace = work("run.json")
    r = harness.run_tool([args.infc, "run", lib, "--input", f"x={work('x.npy')}", "--threads",
                          "2", "--profile", trace, "--output-dir", work("out")], timeout=120,
                         env=env)
    got = np.load(work("out/y.npy")) if os.path.exists(work("out/y.npy")) else None
    report(r.returncode == 0 and got is not None and np.allclose(got, ref, rtol=1e-4, atol=1e-5),
           f"infc run --profile: exit {r.returncode}, output against onnxruntime"
           + (f" {r.stderr.strip()[-300:]}" if r.returncode else ""))
    if os.path.exists(trace):
        check_trace(trace, nodes, 2, report, "run trace")
    else:
        report(False, "infc run --profile wrote no trace")

    # The batch loop (the dim 0 named `batch`, no flag for it): rows one after another in a
    # profiled run, each row's kernels timed.
    import onnx
    m = onnx.load(model)
    for v in (m.graph.input[0], m.graph.output[0]):
        dim = v.type.tensor_type.shape.dim[0]
        dim.Clear()
        dim.dim_param = "batch"
    onnx.save(m, work("cnn_batch.onnx"))
    r = harness.run_tool([args.infc, "compile", work("cnn_batch.onnx"), "-o", work("loop.so"),
                          "--profile"], timeout=300)
    x3 = np.random.default_rng(6).standard_normal((3, 16, 64, 64)).astype(np.float32)
    np.save(work("x3.npy"), x3)
    loop_trace = work("loop.json")
    if r.returncode == 0:
        r = harness.run_tool([args.infc, "run", work("loop.so"), "--input", f"x={work('x3.npy')}",
                              "--threads", "2", "--profile", loop_trace, "--output-dir",
                              work("out3")], timeout=120, env=env)
    got = np.load(work("out3/y.npy")) if os.path.exists(work("out3/y.npy")) else None
    ok = got is not None and np.allclose(got, harness.ort_reference(
        work("cnn_batch.onnx"), {"x": x3})["y"], rtol=1e-4, atol=1e-5)
    report(r.returncode == 0 and ok, f"the batch loop with --profile at batch 3: exit "
           f"{r.returncode}, output against onnxruntime {r.stderr.strip()[-300:]}")
    if ok and os.path.exists(loop_trace):
        events = check_trace(loop_trace, nodes, 2, report, "batch loop trace") or []
        convs = [e for e in events if e["cat"] == "kernel" and e["name"] == "conv2(Conv)"]
        report(len(convs) == 3, f"batch loop trace: conv2 timed once per row ({len(convs)})")

    r = harness.run_tool([args.infc, "bench", lib, "--threads", "2", "--warmup", "2",
                          "--iters", "20", "--per-node"], timeout=300, env=env)
    rows = [line for line in r.stdout.splitlines() if re.match(r"\s+\d+\.\d+\s+\d+\.\d+%", line)]
    shares = [float(line.split()[1].rstrip("%")) for line in rows]
    report(r.returncode == 0 and "per node, 20 profiled runs" in r.stdout and rows
           and sum(shares) <= 100.5 and any("conv1(Conv)" in line for line in rows),
           f"bench --per-node: exit {r.returncode}, {len(rows)} kernels, shares sum to "
           f"{sum(shares):.1f}%" + ("" if r.returncode == 0 else f" {r.stderr.strip()[-300:]}"))
    if r.returncode == 0:
        print("          " + "\n          ".join(r.stdout.strip().splitlines()[-8:]))

    r = harness.run_tool([args.infc, "bench", lib, "--iters", "5"], timeout=120, env=env)
    report(r.returncode == 0 and "profiled" not in r.stdout,
           f"plain bench does not profile: exit {r.returncode}")

    # Compiled without --profile: the trace times whole runs; --per-node says what to do.
    plain = work("plain.so")
    r = harness.run_tool([args.infc, "compile", model, "-o", plain], timeout=300)
    r = harness.run_tool([args.infc, "run", plain, "--input", f"x={work('x.npy')}",
                          "--profile", work("plain.json")], timeout=120, env=env)
    try:
        with open(work("plain.json")) as f:
            data = json.load(f)
        xs = [e for e in data["traceEvents"] if e.get("ph") == "X"]
        cats = sorted({e["cat"] for e in xs})
        workers = {e["name"] for e in xs if e["cat"] == "worker"}
        what = data["otherData"]["events"]
    except (OSError, ValueError, KeyError) as e:
        cats, workers, what = [], set(), str(e)
    report(r.returncode == 0 and "run" in cats and "kernel" not in cats
           and workers <= {"parallel region"} and "--profile" in what,
           f"without compile --profile: runs (and the workers' regions) only ({cats}, {what!r})")
    r = harness.run_tool([args.infc, "bench", plain, "--iters", "3", "--per-node"], timeout=120,
                         env=env)
    report(r.returncode == 1 and "infc compile --profile" in r.stderr,
           f"without compile --profile: bench --per-node exits {r.returncode}: "
           f"{r.stderr.strip()[-200:]}")
    r = harness.run_tool([args.infc, "compile", model, "-o", work("gpu.so"), "--profile",
                          "--target", "cuda"], timeout=120)
    report(r.returncode != 0 and "CPU-only" in r.stderr and not os.path.exists(work("gpu.so")),
           f"--profile --target cuda refused: {r.stderr.strip()[-200:]}")

    # Python, in a child process: INFC_PROFILE is read at session creation.
    script = f"""
import sys, numpy as np
sys.path.insert(0, {os.path.abspath(args.python_dir)!r})
import infc
x = np.load({work('x.npy')!r})
m = infc.load({lib!r}, num_threads=2)          # INFC_PROFILE: env.json
a = m(x=x)["y"]; b = m(x=x)["y"]
s = m.session(num_threads=1)                   # the second session: env.2.json
s(x=x)
s.close()
m.close()
p = infc.load({lib!r}, profile={work('api.json')!r})
c = p(x=x)["y"]
print("end:", p.end_profiling())
d = p(x=x)["y"]                                # after the end: not profiled
p.close()
np.save({work('py.npy')!r}, np.stack([a, b, c, d]))
"""
    r = harness.run_tool([sys.executable, "-c", script], timeout=120,
                         env={"INFC_PROFILE": work("env.json")})
    report(r.returncode == 0 and f"end: {work('api.json')}" in r.stdout,
           f"python: exit {r.returncode}" + (f" {r.stderr.strip()[-500:]}" if r.returncode else ""))
    if r.returncode == 0:
        outs = np.load(work("py.npy"))
        report(all(np.allclose(o, ref, rtol=1e-4, atol=1e-5) for o in outs),
               "python: profiled and plain runs agree with onnxruntime")
        runs = {}
        for name in ("env.json", "env.2.json", "api.json"):
            try:
                with open(work(name)) as f:
                    runs[name] = json.load(f)["otherData"]["runs"]
            except (OSError, ValueError, KeyError):
                runs[name] = None
        report(runs == {"env.json": 2, "env.2.json": 1, "api.json": 1},
               f"python: one trace per session with its runs: {runs}")
        if runs.get("env.json"):
            check_trace(work("env.json"), nodes, 2, report, "INFC_PROFILE trace")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The typed C header of `infc compile --header`, used as a product would: a C99 and a C++17
host (-Wall -Wextra -Werror) call its `<prefix>_run` on buffers sized by its count macros
or functions, and the outputs match onnxruntime.

    check_typed_header.py --infc BUILD/bin/infc --work DIR --zoo ZOO --cc CC --cxx CXX

Checks:
  - the zoo's mlp, static: `model_run` with the `_COUNT` sizes;
  - the zoo's bert_layer with a batch and a sequence (`--dim batch=1.. --dim seq=1..64`:
    the batch loop around generic code): `model_run(session, batch, seq, ...)` with the
    `_count(batch, seq)` sizes at (2, 7), (1, 64) and (3, 1); the dims' `_MIN`/`_MAX`;
  - the zoo's lenet as variants (`--specialize batch=1,4`): `model_run(session, batch, ...)`
    at batch 4 and 1;
  - a library whose output varies without a name (a Flatten of the batch into one dim,
    variants of batch 1 and 2) is refused with --header, and no file is left.
Prints one line per case and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import re
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
import harness  # noqa: E402
from make_zoo import with_symbolic_dims  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
C_TYPES = {np.float32: "float", np.int64: "int64_t"}


def identifier(name):
    out = re.sub(r"[^A-Za-z0-9]", "_", name)
    return "m_" + out if not out or out[0].isdigit() else out


def host_source(inputs, outputs, dims):
    """A host that reads each input from argv-given raw files, runs `model_run` at the dims
    given on the command line (in the header's order), and writes each output raw."""
    dim_ids = [identifier(d) for d in dims]
    sizes = ", ".join(dim_ids)
    count = (lambda kind, name: f"model_{kind}_{identifier(name)}_count({sizes})") if dims else \
        (lambda kind, name: f"model_{kind}_{identifier(name)}_COUNT")
    lines = ["#include <stdio.h>", "#include <stdlib.h>", "",
             "static void *read_all(const char *path, size_t bytes) {",
             "  void *p = malloc(bytes ? bytes : 1);",
             "  FILE *f = fopen(path, \"rb\");",
             "  if (!p || !f || fread(p, 1, bytes, f) != bytes) { fprintf(stderr, \"read %s\\n\", path); exit(2); }",
             "  fclose(f);",
             "  return p;",
             "}", "",
             "int main(int argc, char **argv) {",
             "  infc_model *m;",
             "  infc_session *s;",
             "  if (argc < 2) return 2;",
             "  if (infc_model_create(&m) != INFC_OK || infc_session_create(m, NULL, &s) != INFC_OK) return 3;"]
    for k, d in enumerate(dim_ids):
        lines.append(f"  int64_t {d} = atoll(argv[{k + 2}]);")
        lines.append(f"  if ({d} < model_DIM_{d}_MIN || {d} > model_DIM_{d}_MAX) return 4;")
    for name, dtype in inputs:
        n = count("input", name)
        lines.append(f"  char path_{identifier(name)}[512];")
        lines.append(f"  snprintf(path_{identifier(name)}, sizeof path_{identifier(name)}, "
                     f"\"%s/{identifier(name)}.bin\", argv[1]);")
        lines.append(f"  {C_TYPES[dtype]} *in_{identifier(name)} = ({C_TYPES[dtype]} *)read_all("
                     f"path_{identifier(name)}, (size_t)({n}) * sizeof(*in_{identifier(name)}));")
    for name, dtype in outputs:
        n = count("output", name)
        lines.append(f"  {C_TYPES[dtype]} *out_{identifier(name)} = ({C_TYPES[dtype]} *)malloc("
                     f"(size_t)({n}) * sizeof(*out_{identifier(name)}) + 1);")
    args = ", ".join(["s"] + dim_ids + [f"in_{identifier(n)}" for n, _ in inputs] +
                     [f"out_{identifier(n)}" for n, _ in outputs])
    lines.append(f"  if (model_run({args}) != INFC_OK) {{ fprintf(stderr, \"run: %s\\n\", "
                 "infc_session_error(s)); return 5; }")
    for name, _ in outputs:
        n = count("output", name)
        lines += [f"  {{ char path[512]; snprintf(path, sizeof path, \"%s/out_{identifier(name)}.bin\", argv[1]);",
                  "    FILE *f = fopen(path, \"wb\");",
                  f"    fwrite(out_{identifier(name)}, sizeof(*out_{identifier(name)}), (size_t)({n}), f);",
                  "    fclose(f); }"]
    lines += ["  infc_session_release(s);", "  infc_model_release(m);", "  return 0;", "}"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--infc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cxx", default="c++")
    args = ap.parse_args()
    work, compile = harness.fresh_work(args)
    tally = harness.Tally()
    report = tally.report
    import onnxruntime as ort

    def case(name, model, flags, dims, runs, feeds_at, rtol=1e-4, atol=1e-5):
        """Compiles `model` with `flags` and --header, builds the hosts, runs each of `runs`
        (tuples of the dims' sizes) and compares with onnxruntime."""
        lib_dir = work(name)
        os.makedirs(lib_dir)
        so, header = os.path.join(lib_dir, "model.so"), os.path.join(lib_dir, "model.h")
        r = harness.run_tool([args.infc, "compile", work(model), "-o", so, "--header", header,
                              *flags], timeout=300)
        report(r.returncode == 0, f"{name}: compile exit {r.returncode} {r.stderr.strip()[-200:]}")
        if r.returncode:
            return
        text = open(header).read()
        for d in dims:
            report(f"#define model_DIM_{identifier(d)}_MIN" in text,
                   f"{name}: the header has dim '{d}'s range")
        sess = ort.InferenceSession(work(model), providers=["CPUExecutionProvider"])
        dtypes = {"tensor(float)": np.float32, "tensor(int64)": np.int64}
        inputs = [(i.name, dtypes[i.type]) for i in sess.get_inputs()]
        outputs = [(o.name, dtypes[o.type]) for o in sess.get_outputs()]
        source = os.path.join(lib_dir, "host.c")
        open(source, "w").write(host_source(inputs, outputs, dims))
        inc = ["-I", os.path.join(REPO, "include"), "-include", header]
        hosts = {
            "C99": [args.cc, "-std=c99", "-Wall", "-Wextra", "-Werror", *inc, source],
            "C++17": [args.cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", *inc, "-x", "c++",
                      source, "-x", "none"],
        }
        for lang, cmd in hosts.items():
            exe = os.path.join(lib_dir, f"host_{lang.replace('+', 'x')}")
            build = subprocess.run(cmd + [so, "-Wl,-rpath," + lib_dir, "-o", exe],
                                   capture_output=True, text=True)
            report(build.returncode == 0, f"{name}: the {lang} host builds "
                   f"{build.stderr.strip()[:400]}")
            if build.returncode:
                continue
            for sizes in runs:
                feeds = feeds_at(*sizes)
                data = os.path.join(lib_dir, "data")
                os.makedirs(data, exist_ok=True)
                for k, v in feeds.items():
                    np.ascontiguousarray(v).tofile(os.path.join(data, identifier(k) + ".bin"))
                run = subprocess.run([exe, data, *map(str, sizes)], capture_output=True, text=True)
                if run.returncode:
                    report(False, f"{name} {lang} at {sizes}: exit {run.returncode} "
                           f"{run.stderr.strip()[:200]}")
                    continue
                ref = sess.run(None, feeds)
                results = []
                for (out, dtype), want in zip(outputs, ref):
                    got = np.fromfile(os.path.join(data, f"out_{identifier(out)}.bin"), dtype)
                    results.append(harness.compare(got.reshape(want.shape) if got.size == want.size
                                                   else got, want, rtol, atol))
                report(all(ok for ok, _ in results),
                       f"{name} {lang} at {sizes}: " + "; ".join(s for _, s in results)[:300])

    def images(shape):
        return lambda batch: {"input": np.random.default_rng(batch).standard_normal(
            (batch,) + shape).astype(np.float32)}

    # Static: the _COUNT macros.
    import shutil
    shutil.copy(os.path.join(args.zoo, "mlp.onnx"), work("mlp.onnx"))
    zoo_inputs = dict(np.load(os.path.join(args.zoo, "mlp.inputs.npz")))
    case("mlp_static", "mlp.onnx", [], [], [()], lambda: zoo_inputs)

    with_symbolic_dims(os.path.join(args.zoo, "bert_layer.onnx"), work("bert_dyn.onnx"),
                       batch=True, seq=True)

    def tokens(batch, seq):
        rng = np.random.default_rng(batch * 100 + seq)
        mask = np.ones((batch, seq), np.int64)
        mask[-1, seq // 2 + 1:] = 0
        return {"input_ids": rng.integers(0, 1000, (batch, seq)).astype(np.int64),
                "attention_mask": mask}
    case("bert_batch_seq", "bert_dyn.onnx", ["--dim", "batch=1..", "--dim", "seq=1..64"],
         ["batch", "seq"], [(2, 7), (1, 64), (3, 1)], tokens, rtol=1e-3, atol=1e-4)

    with_symbolic_dims(os.path.join(args.zoo, "lenet.onnx"), work("lenet_dyn.onnx"), batch=True)
    case("lenet_variants", "lenet_dyn.onnx", ["--specialize", "batch=1,4"], ["batch"], [(4,), (1,)],
         images((1, 28, 28)))

    # An output that varies without a name: refused, nothing left behind.
    import onnx
    from onnx import TensorProto as T
    from onnx import helper
    g = helper.make_graph([helper.make_node("Flatten", ["x"], ["y"], axis=0)], "flat",
                          [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 4])],
                          [helper.make_tensor_value_info("y", T.FLOAT, [1, None])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), work("flat.onnx"))
    r = compile("flat.onnx", "flat.so", "--specialize", "batch=1,2", "--header", work("flat.h"))
    report(r.returncode != 0 and "varies without a name" in r.stderr and
           not os.path.exists(work("flat.so")) and not os.path.exists(work("flat.h")),
           f"unnamed varying output refused with --header: exit {r.returncode} "
           f"{r.stderr.strip()[-200:]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())

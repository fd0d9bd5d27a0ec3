#!/usr/bin/env python3
"""Train a small digit classifier and export it to ONNX for the infc demo.

    python3 examples/digits/train.py [--out DIR]

Uses scikit-learn's bundled 8x8 handwritten digits (load_digits: 1797 images, no download),
a fixed stratified split (360 test images, random_state 0) and an MLPClassifier 64-64-32-10
with ReLU (random_state 0, ~97% test accuracy). Writes, next to this script by default:

  digits.onnx       input  "image"  float32 [360, 1, 8, 8], raw pixel values 0..16
                    outputs "logits" float32 [360, 10] and "probs" float32 [360, 10]
  test_images.npy   float32 [360, 1, 8, 8], the test split, ready to feed as "image"
  test_labels.npy   int64 [360]

The graph is what torch.onnx.export (opset 17) writes for the equivalent module:
    x / 16.0 -> nn.Flatten -> Linear(64, 64) -> ReLU -> Linear(64, 32) -> ReLU
      -> Linear(32, 10) = logits -> softmax(dim=1) = probs
i.e. Constant + Div, Flatten, Gemm(transB=1) with [out, in] weights, Relu, Softmax. The batch
is static (the whole test split in one call) because infc compiles static shapes.
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

TEST_SIZE = 360
SEED = 0


def load_split():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    d = load_digits()
    images = d.images.astype(np.float32)[:, None]            # [1797, 1, 8, 8], values 0..16
    labels = d.target.astype(np.int64)
    return train_test_split(images, labels, test_size=TEST_SIZE, random_state=SEED,
                            stratify=labels)


def train(x_train, y_train):
    from sklearn.neural_network import MLPClassifier
    clf = MLPClassifier(hidden_layer_sizes=(64, 32), activation="relu", alpha=1e-3,
                        max_iter=300, random_state=SEED)
    clf.fit(x_train.reshape(len(x_train), -1) / 16.0, y_train)
    return clf


def export(clf, batch):
    nodes, inits = [], []

    def node(op, inputs, outputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0]

    h = node("Constant", [], ["/Constant_output_0"], "/Constant",
             value=numpy_helper.from_array(np.array(16.0, np.float32)))
    h = node("Div", ["image", h], ["/Div_output_0"], "/Div")
    h = node("Flatten", [h], ["/flatten/Flatten_output_0"], "/flatten/Flatten", axis=1)
    layers = list(zip(clf.coefs_, clf.intercepts_))
    for i, (w, b) in enumerate(layers):
        idx = 2 * i + 1  # module indices in nn.Sequential(Linear, ReLU, Linear, ReLU, Linear)
        inits.append(numpy_helper.from_array(w.T.astype(np.float32), f"net.{idx}.weight"))
        inits.append(numpy_helper.from_array(b.astype(np.float32), f"net.{idx}.bias"))
        last = i == len(layers) - 1
        out = "logits" if last else f"/net/net.{idx}/Gemm_output_0"
        h = node("Gemm", [h, f"net.{idx}.weight", f"net.{idx}.bias"], [out],
                 f"/net/net.{idx}/Gemm", alpha=1.0, beta=1.0, transB=1)
        if not last:
            h = node("Relu", [h], [f"/net/net.{idx + 1}/Relu_output_0"],
                     f"/net/net.{idx + 1}/Relu")
    node("Softmax", [h], ["probs"], "/Softmax", axis=1)
    graph = helper.make_graph(
        nodes, "digits_mlp",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [batch, 1, 8, 8])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, 10]),
         helper.make_tensor_value_info("probs", TensorProto.FLOAT, [batch, 10])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="infc-examples-digits", producer_version="1",
                              doc_string="8x8 digit classifier (sklearn MLP 64-64-32-10), "
                                         "input: raw pixel values 0..16")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                    help="output directory (default: next to this script)")
    args = ap.parse_args(argv)

    x_train, x_test, y_train, y_test = load_split()
    clf = train(x_train, y_train)
    model = export(clf, TEST_SIZE)
    os.makedirs(args.out, exist_ok=True)
    onnx.save_model(model, os.path.join(args.out, "digits.onnx"))
    np.save(os.path.join(args.out, "test_images.npy"), x_test)
    np.save(os.path.join(args.out, "test_labels.npy"), y_test)

    import onnxruntime as ort
    sess = ort.InferenceSession(os.path.join(args.out, "digits.onnx"),
                                providers=["CPUExecutionProvider"])
    probs = sess.run(["probs"], {"image": x_test})[0]
    acc_ort = float(np.mean(probs.argmax(1) == y_test))
    acc_sk = clf.score(x_test.reshape(len(x_test), -1) / 16.0, y_test)
    print(f"trained in {clf.n_iter_} epochs; test accuracy sklearn {acc_sk:.4f}, "
          f"exported model in onnxruntime {acc_ort:.4f}")
    print(f"wrote digits.onnx, test_images.npy, test_labels.npy to {args.out}")
    return 0 if abs(acc_ort - acc_sk) < 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())

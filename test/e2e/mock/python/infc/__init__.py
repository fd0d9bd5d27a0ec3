"""Mock `infc` Python package for testing the e2e harness (test/e2e/mock/README.md).

Same surface as the real python/infc: infc.load(path) -> model; model(**inputs) -> dict of
numpy arrays; failures raise infc.Error. A "compiled model" here is an ONNX file with static
shapes and inlined weights, run with onnxruntime.
"""
import os
import re
import tempfile

import numpy as np
import onnx
from onnx import TensorProto

SUPPORTED_OPS = {
    "Conv", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Erf", "Tanh",
    "Sigmoid", "Relu", "Clip", "LeakyRelu", "MaxPool", "AveragePool", "GlobalAveragePool",
    "BatchNormalization", "Flatten", "Reshape", "Transpose", "Concat", "Split", "Slice",
    "Squeeze", "Unsqueeze", "Gather", "Shape", "Cast", "Constant", "ConstantOfShape",
    "Identity", "Softmax", "ReduceMean", "ReduceSum", "LayerNormalization", "Where", "Equal",
    "Expand",
}
SUPPORTED_DTYPES = {TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32, TensorProto.BOOL,
                    TensorProto.INT8, TensorProto.UINT8}
MIN_OPSET, MAX_OPSET = 11, 21


class Error(Exception):
    pass


def _dtype_name(t):
    return TensorProto.DataType.Name(t).lower()


def _parse(path):
    if not os.path.isfile(path):
        raise Error(f"cannot open '{path}': no such file")
    with open(path, "rb") as f:
        data = f.read()
    m = onnx.ModelProto()
    try:
        m.ParseFromString(data)
    except Exception:  # noqa: BLE001
        raise Error(f"'{path}' is not a valid ONNX model (protobuf parse failed)") from None
    if not m.HasField("graph") or not m.graph.node:
        raise Error(f"'{path}' is not a valid ONNX model (no graph)")
    return m


def _check_external(m, base_dir):
    errors = []
    base = os.path.realpath(base_dir)
    for t in m.graph.initializer:
        if t.data_location != TensorProto.EXTERNAL:
            continue
        info = {e.key: e.value for e in t.external_data}
        loc = info.get("location", "")
        full = os.path.realpath(os.path.join(base, loc))
        if os.path.isabs(loc) or os.path.commonpath([base, full]) != base:
            errors.append(f"external data location '{loc}' of tensor '{t.name}' is outside "
                          f"the model directory")
        elif not os.path.isfile(full):
            errors.append(f"external data file '{loc}' of tensor '{t.name}' not found")
        else:
            need = int(info.get("offset", 0)) + int(info.get("length", 0))
            if need > os.path.getsize(full):
                errors.append(f"external data of tensor '{t.name}' is out of range of "
                              f"'{loc}' ({need} > {os.path.getsize(full)} bytes)")
    if errors:
        raise Error("\n".join(errors))
    onnx.external_data_helper.load_external_data_for_model(m, base_dir)


def _parse_shape(spec):
    name, eq, dims = spec.partition("=")
    if not eq or not name or not re.fullmatch(r"\d+(x\d+)*", dims):
        raise Error(f"invalid --input-shape '{spec}': expected NAME=D0xD1x...")
    return name, [int(d) for d in dims.split("x")]


def _mock_compile(model_path, out_path, shape_specs):
    m = _parse(model_path)
    errors = []
    for op in m.opset_import:
        if op.domain in ("", "ai.onnx") and not MIN_OPSET <= op.version <= MAX_OPSET:
            errors.append(f"unsupported opset {op.version} of domain ai.onnx "
                          f"(supported {MIN_OPSET}..{MAX_OPSET})")
    for n in m.graph.node:
        if n.domain not in ("", "ai.onnx") or n.op_type not in SUPPORTED_OPS:
            dom = f"{n.domain}::" if n.domain else ""
            errors.append(f"node '{n.name}' ({dom}{n.op_type}): unsupported operator")
    for v in list(m.graph.input) + list(m.graph.output):
        t = v.type.tensor_type.elem_type
        if t not in SUPPORTED_DTYPES:
            errors.append(f"'{v.name}' has unsupported dtype {_dtype_name(t)}")
    if errors:
        raise Error("\n".join(errors))
    _check_external(m, os.path.dirname(os.path.abspath(model_path)))
    shapes = dict(_parse_shape(s) for s in shape_specs)
    inits = {t.name for t in m.graph.initializer}
    graph_inputs = {v.name: v for v in m.graph.input if v.name not in inits}
    for name, dims in shapes.items():
        if name not in graph_inputs:
            raise Error(f"--input-shape names '{name}', which is not an input of the model "
                        f"(inputs: {', '.join(graph_inputs)})")
        tshape = graph_inputs[name].type.tensor_type.shape
        if len(tshape.dim) != len(dims):
            raise Error(f"--input-shape {name}: rank {len(dims)} does not match the input's "
                        f"rank {len(tshape.dim)}")
        for d, v in zip(tshape.dim, dims):
            d.Clear()
            d.dim_value = v
    for v in graph_inputs.values():
        for d in v.type.tensor_type.shape.dim:
            if not d.HasField("dim_value") or d.dim_value < 0:
                raise Error(f"input '{v.name}' has a symbolic dimension '{d.dim_param}'; give "
                            f"its shape with --input-shape {v.name}=...")
    for v in m.graph.output:  # outputs get static shapes from inference below
        v.type.tensor_type.ClearField("shape")
    m = onnx.shape_inference.infer_shapes(m)
    data = m.SerializeToString()
    d = os.path.dirname(os.path.abspath(out_path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".infc-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, out_path)
    except BaseException:
        os.unlink(tmp)
        raise


class Model:
    def __init__(self, path):
        import onnxruntime as ort
        try:
            m = _parse(path)
            self._sess = ort.InferenceSession(m.SerializeToString(),
                                              providers=["CPUExecutionProvider"])
        except Error:
            raise
        except Exception as e:  # noqa: BLE001
            raise Error(f"cannot load '{path}': {e}") from None
        self.inputs = [(i.name, i.shape, i.type) for i in self._sess.get_inputs()]
        self.outputs = [o.name for o in self._sess.get_outputs()]

    def __call__(self, **inputs):
        expected = {n for n, _, _ in self.inputs}
        if set(inputs) != expected:
            missing, extra = expected - set(inputs), set(inputs) - expected
            raise Error(f"wrong inputs: missing {sorted(missing)}, unexpected {sorted(extra)}")
        types = {"tensor(float)": np.float32, "tensor(int64)": np.int64,
                 "tensor(int32)": np.int32, "tensor(bool)": np.bool_}
        for name, shape, typ in self.inputs:
            a = inputs[name]
            if not isinstance(a, np.ndarray):
                raise Error(f"input '{name}': expected a numpy array")
            if a.dtype != types.get(typ):
                raise Error(f"input '{name}': dtype {a.dtype} does not match the model's {typ}")
            if list(a.shape) != list(shape):
                raise Error(f"input '{name}': shape {list(a.shape)} does not match the "
                            f"model's {list(shape)}")
        return dict(zip(self.outputs, self._sess.run(self.outputs, inputs)))


def load(path):
    return Model(path)


def _mock_run_cli(so, input_paths, out_dir):
    m = load(so)
    arrays = {}
    for name, path in input_paths.items():
        try:
            arrays[name] = np.load(path, allow_pickle=False)
        except Exception as e:  # noqa: BLE001
            raise Error(f"cannot read input '{name}' from '{path}': {e}") from None
    outs = m(**arrays)
    os.makedirs(out_dir, exist_ok=True)
    for name, a in outs.items():
        np.save(os.path.join(out_dir, name + ".npy"), a)

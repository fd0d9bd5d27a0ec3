#!/usr/bin/env python3
"""The malformed-model corpus: models that infc must refuse, each with its exact error.

    malformed_models.py --write DIR      writes DIR/<case>/model.onnx (and side files)
    malformed_models.py --list           prints each case's name, class and title

Each case builds one bad model and says:
  - `error`: the exact line `infc compile` prints on stderr ("{model}" stands for the path
    given to infc), and nothing else may be printed;
  - `ort`: what onnxruntime 1.32 does with the model: "load" (refuses to load it), "run"
    (loads it, fails on the first run) or "ok" (runs it: infc is stricter, and the case says
    why). check_malformed.py checks this too, so the table cannot drift from onnxruntime.
    infc is stricter than onnxruntime only where the ONNX spec forbids the model and
    onnxruntime guesses: no ir_version, no ai.onnx opset imported (it assumes the newest),
    nodes out of topological order (it sorts them), two initializers of one name or one
    without a name, a ref_attr_name outside a function (it ignores them).
  - `args`: extra `infc compile` arguments.
The cases are grouped by class: bytes, proto (the protobuf's structure), wiring (names and
graph structure), attr-type, attr-value, op (ops, opsets, arity), dims, dtype, external
(external data), subgraph. test/e2e/check_malformed.py runs them; the fuzzers (issue 39)
start from the same models.
"""

import argparse
import os
import sys

import numpy as np
from onnx import AttributeProto, TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
CASES = []


class Case:
    def __init__(self, name, cls, title, build, error, ort, args=()):
        self.name, self.cls, self.title, self.build = name, cls, title, build
        self.error, self.ort, self.args = error, ort, list(args)


def case(name, cls, title, error, ort="load", args=()):
    def register(fn):
        CASES.append(Case(name, cls, title, fn, error, ort, args))
        return fn
    return register


def E(message):
    """The expected stderr line for a problem with the model."""
    return "infc: error: {model}: " + message


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=17, ir=8, name="g"):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=ir)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def unary(op, opset=17, shape=(2, 3), **attrs):
    """x -> op -> y with the given attributes."""
    return model([helper.make_node(op, ["x"], ["y"], name="n", **attrs)],
                 [vi("x", list(shape))], [vi("y", None)], opset=opset)


def raw_attr(name, type_, **fields):
    a = AttributeProto(name=name, type=type_)
    for k, v in fields.items():
        if isinstance(v, list):
            getattr(a, k).extend(v)
        else:
            setattr(a, k, v)
    return a


def gemm(opset=13, **attrs):
    n = helper.make_node("Gemm", ["a", "b"], ["y"], name="gemm", **attrs)
    return model([n], [vi("a", [2, 3])], [vi("y", None)],
                 [init("b", np.ones((2, 3), np.float32))], opset=opset)


def conv(x_shape=(1, 1, 4, 4), w_shape=(1, 1, 3, 3), opset=17, **attrs):
    n = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **attrs)
    return model([n], [vi("x", list(x_shape))], [vi("y", None)],
                 [init("w", np.ones(w_shape, np.float32))], opset=opset)


# --- bytes: not an ONNX protobuf at all ------------------------------------------------------
@case("bytes_empty", "bytes", "an empty file",
      E("not a valid ONNX model (no ir_version or graph)"))
def _(d):
    return b""


@case("bytes_random", "bytes", "random bytes",
      E("not a valid ONNX model (protobuf parse failed: the file is not ONNX or is truncated)"))
def _(d):
    return bytes(np.random.default_rng(7).integers(0, 256, 4096, dtype=np.uint8))


@case("bytes_text", "bytes", "a text file",
      E("not a valid ONNX model (protobuf parse failed: the file is not ONNX or is truncated)"))
def _(d):
    return b"graph {\n  node { op_type: 'Relu' }\n}\n"


@case("bytes_truncated", "bytes", "a valid model cut in half",
      E("not a valid ONNX model (protobuf parse failed: the file is not ONNX or is truncated)"))
def _(d):
    m = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [vi("x", [1, 64])],
              [vi("y", [1, 64])], [init("w", np.ones((64, 64), np.float32))])
    data = m.SerializeToString()
    return data[:len(data) // 2]


# --- proto: parses, but the model's structure is wrong ---------------------------------------
@case("proto_no_graph", "proto", "ir_version and opsets but no graph",
      E("not a valid ONNX model (no ir_version or graph)"))
def _(d):
    m = unary("Relu")
    m.ClearField("graph")
    return m


@case("proto_no_ir_version", "proto", "ir_version 0",
      E("not a valid ONNX model (no ir_version or graph)"), ort="ok")
def _(d):
    m = unary("Relu")
    m.ir_version = 0
    return m


@case("proto_no_default_opset", "proto", "only a custom domain's opset imported",
      E("the model imports no default-domain opset"), ort="ok")
def _(d):
    m = unary("Relu")
    del m.opset_import[:]
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    return m


@case("proto_future_opset", "proto", "ai.onnx opset 99",
      E("the model uses ai.onnx opset 99, newer than the newest infc knows (28)"))
def _(d):
    return unary("Relu", opset=99)


# --- wiring: names and graph structure -------------------------------------------------------
@case("wiring_output_written_twice", "wiring", "two nodes write the same tensor",
      E("node 'b' (Neg, opset 17): output 'y' is already defined (a value may be written "
        "once)"))
def _(d):
    return model([helper.make_node("Relu", ["x"], ["y"], name="a"),
                  helper.make_node("Neg", ["x"], ["y"], name="b")],
                 [vi("x", [2])], [vi("y", None)])


@case("wiring_output_shadows_input", "wiring", "a node writes a graph input",
      E("node 'a' (Relu, opset 17): output 'x' is already defined (a value may be written "
        "once)"))
def _(d):
    return model([helper.make_node("Relu", ["x"], ["x"], name="a"),
                  helper.make_node("Neg", ["x"], ["y"], name="b")],
                 [vi("x", [2])], [vi("y", None)])


@case("wiring_undefined_input", "wiring", "a node reads a name nothing defines",
      E("node 'a' (Add, opset 17): input 'ghost' is not a graph input, initializer or earlier "
        "node output"))
def _(d):
    return model([helper.make_node("Add", ["x", "ghost"], ["y"], name="a")],
                 [vi("x", [2])], [vi("y", None)])


@case("wiring_not_topological", "wiring", "a node reads a value a later node writes",
      E("node 'first' (Relu, opset 17): input 't' is not a graph input, initializer or "
        "earlier node output"), ort="ok")
def _(d):
    return model([helper.make_node("Relu", ["t"], ["y"], name="first"),
                  helper.make_node("Neg", ["x"], ["t"], name="second")],
                 [vi("x", [2])], [vi("y", None)])


@case("wiring_no_outputs", "wiring", "a graph with no outputs",
      E("the graph 'g' has no outputs"), ort="run")
def _(d):
    return model([helper.make_node("Relu", ["x"], ["y"], name="a")], [vi("x", [2])], [])


@case("wiring_output_not_produced", "wiring", "a graph output nothing writes",
      E("output 'z' is not produced by any node"))
def _(d):
    return model([helper.make_node("Relu", ["x"], ["y"], name="a")],
                 [vi("x", [2])], [vi("y", None), vi("z", None)])


@case("wiring_input_twice", "wiring", "two graph inputs of one name",
      E("input 'x' is defined twice"))
def _(d):
    return model([helper.make_node("Relu", ["x"], ["y"], name="a")],
                 [vi("x", [2]), vi("x", [2])], [vi("y", None)])


@case("wiring_initializer_twice", "wiring", "two initializers of one name",
      E("initializer 'w' is defined twice"), ort="ok")
def _(d):
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="a")], [vi("x", [2])],
                 [vi("y", None)], [init("w", np.ones(2, np.float32)),
                                   init("w", np.zeros(2, np.float32))])


@case("wiring_unnamed_initializer", "wiring", "an initializer without a name",
      E("has an initializer without a name"), ort="ok")
def _(d):
    return model([helper.make_node("Relu", ["x"], ["y"], name="a")], [vi("x", [2])],
                 [vi("y", None)], [init("", np.ones(2, np.float32))])


@case("wiring_required_input_empty", "wiring", "MatMul's B given as an empty name",
      E("node 'mm' (MatMul, opset 17): input 1 ('B') is required but given no name"))
def _(d):
    return model([helper.make_node("MatMul", ["x", ""], ["y"], name="mm")], [vi("x", [2, 2])],
                 [vi("y", None)])


# --- attr-type: an attribute of the wrong type ----------------------------------------------
@case("attr_gemm_transb_float", "attr-type", "Gemm transB written as a float (1.0)",
      E("node 'gemm' (Gemm, opset 13): attribute 'transB' must be int, got float"))
def _(d):
    return gemm(transB=1.0)


@case("attr_softmax_axis_string", "attr-type", "Softmax axis written as a string",
      E("node 'n' (Softmax, opset 17): attribute 'axis' must be int, got string"))
def _(d):
    return unary("Softmax", axis="1")


@case("attr_conv_strides_floats", "attr-type", "Conv strides written as floats",
      E("node 'conv' (Conv, opset 17): attribute 'strides' must be ints, got floats"))
def _(d):
    return conv(strides=[1.0, 1.0])


@case("attr_transpose_perm_int", "attr-type", "Transpose perm as one int, not a list",
      E("node 'n' (Transpose, opset 17): attribute 'perm' must be ints, got int"))
def _(d):
    return unary("Transpose", perm=1)


@case("attr_cast_to_float", "attr-type", "Cast's `to` written as a float",
      E("node 'n' (Cast, opset 17): attribute 'to' must be int, got float"))
def _(d):
    return unary("Cast", to=1.0)


@case("attr_type_field_lies", "attr-type", "type INT but the float field set",
      E("node 'n' (LeakyRelu, opset 17): attribute 'alpha' is declared int but holds a float "
        "value"))
def _(d):
    m = unary("LeakyRelu")
    m.graph.node[0].attribute.append(raw_attr("alpha", AttributeProto.INT, f=0.5))
    return m


@case("attr_two_values", "attr-type", "an attribute holding an int and a float",
      E("node 'n' (LeakyRelu, opset 17): attribute 'alpha' holds values of several types"))
def _(d):
    m = unary("LeakyRelu")
    m.graph.node[0].attribute.append(raw_attr("alpha", AttributeProto.FLOAT, f=0.5, i=2))
    return m


@case("attr_unknown", "attr-type", "an attribute Relu does not have",
      E("node 'n' (Relu, opset 17): unknown attribute 'alpha' (Relu-14 has none)"))
def _(d):
    return unary("Relu", alpha=0.1)


@case("attr_given_twice", "attr-type", "the same attribute twice",
      E("node 'n' (Softmax, opset 17): attribute 'axis' is given twice"))
def _(d):
    m = unary("Softmax", axis=1)
    m.graph.node[0].attribute.append(helper.make_attribute("axis", 0))
    return m


@case("attr_required_missing", "attr-type", "Cast without `to`",
      E("node 'n' (Cast, opset 17): required attribute 'to' is missing"))
def _(d):
    return unary("Cast")


@case("attr_lrn_size_missing", "attr-type", "LRN without its required size",
      E("node 'n' (LRN, opset 17): required attribute 'size' is missing"))
def _(d):
    return unary("LRN", shape=(1, 3, 4, 4))


@case("attr_ref_outside_function", "attr-type", "a ref_attr_name in a graph node",
      E("node 'n' (LeakyRelu, opset 17): attribute 'alpha' refers to a function attribute "
        "outside a function"), ort="ok")
def _(d):
    m = unary("LeakyRelu")
    m.graph.node[0].attribute.append(
        raw_attr("alpha", AttributeProto.FLOAT, ref_attr_name="a"))
    return m


@case("attr_untyped_wrong_value", "attr-type", "no type field, an int where a float goes",
      E("node 'n' (Elu, opset 17): attribute 'alpha' must be float, got int"))
def _(d):
    m = unary("Elu")
    m.graph.node[0].attribute.append(raw_attr("alpha", AttributeProto.UNDEFINED, i=1))
    return m


# --- attr-value: the right type, a value the op cannot take ----------------------------------
@case("value_transpose_perm_repeats", "attr-value", "Transpose perm=[0, 0]",
      E("node 'n' (Transpose, opset 17): perm is not a permutation of [0, 2): entry 0 "
        "repeats"))
def _(d):
    return unary("Transpose", perm=[0, 0])


@case("value_transpose_perm_range", "attr-value", "Transpose perm=[0, 5]",
      E("node 'n' (Transpose, opset 17): perm is not a permutation of [0, 2): entry 5 is out "
        "of range"))
def _(d):
    return unary("Transpose", perm=[0, 5])


@case("value_transpose_perm_length", "attr-value", "Transpose perm of rank 3 on rank 2",
      E("node 'n' (Transpose, opset 17): perm has 3 entries for rank 2"))
def _(d):
    return unary("Transpose", perm=[0, 1, 2])


@case("value_conv_kernel_too_big", "attr-value", "a 3x3 kernel on a 2x2 input, no pads",
      E("node 'conv' (Conv, opset 17): the kernel spans 3 along spatial dim 0, more than the "
        "padded input's 2 + 0 + 0"), ort="run")
def _(d):
    return conv(x_shape=(1, 1, 2, 2))


@case("value_conv_stride_zero", "attr-value", "Conv strides [0, 1]",
      E("node 'conv' (Conv, opset 17): strides [0, 1] must hold 2 positive values"))
def _(d):
    return conv(strides=[0, 1])


@case("value_conv_strides_rank", "attr-value", "Conv with 3 strides on a 2-D input",
      E("node 'conv' (Conv, opset 17): strides [1, 1, 1] must hold 2 positive values"))
def _(d):
    return conv(strides=[1, 1, 1])


@case("value_conv_dilation_negative", "attr-value", "Conv dilations [1, -1]",
      E("node 'conv' (Conv, opset 17): dilations [1, -1] must hold 2 positive values"))
def _(d):
    return conv(dilations=[1, -1])


@case("value_conv_dilation_huge", "attr-value", "Conv dilations [1, 2^62] (found by fuzz_import: "
      "the window's span overflowed int64)",
      E("node 'conv' (Conv, opset 17): the window along spatial dim 1 (kernel 3, dilation "
        "4611686018427387904, stride 1) is longer than 2^48"), ort="load")
def _(d):
    return conv(dilations=[1, 2**62])


@case("value_convinteger_scalar_weight", "attr-value", "a ConvInteger weight of rank 0 (found "
      "by fuzz_compile: its channels were read before the ranks were checked)",
      E("node 'conv' (ConvInteger, opset 17): expects a weight of rank 4, got 'tensor<ui8>'"),
      ort="load")
def _(d):
    n = helper.make_node("ConvInteger", ["x", "w"], ["y"], name="conv")
    return model([n], [vi("x", [1, 1, 4, 4], TensorProto.UINT8)], [vi("y", None)],
                 [init("w", np.array(1, np.uint8))])


@case("value_convtranspose_stride_huge", "attr-value", "ConvTranspose strides [2^40, 1]",
      E("node 'deconv' (ConvTranspose, opset 17): strides [1099511627776, 1] must hold 2 "
        "positive values up to 2^32"), ort="run")
def _(d):
    n = helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv", strides=[2**40, 1])
    return model([n], [vi("x", [1, 1, 4, 4])], [vi("y", None)],
                 [init("w", np.ones((1, 1, 3, 3), np.float32))])


@case("value_col2im_pads_short", "attr-value", "Col2Im with one pad (its four were read)",
      E("node 'col2im' (Col2Im, opset 18): pads [1] must hold 4 non-negative values up to 2^32"),
      ort="load")
def _(d):
    n = helper.make_node("Col2Im", ["x", "image", "block"], ["y"], name="col2im", pads=[1])
    return model([n], [vi("x", [1, 4, 9])], [vi("y", None)],
                 [init("image", np.array([4, 4], np.int64)),
                  init("block", np.array([2, 2], np.int64))], opset=18)


@case("value_reshape_shape_overflow", "attr-value", "a Reshape shape whose product overflows "
      "int64 (found by fuzz_import)",
      E("node 'n' (Reshape, opset 17): shape entry 1 (4611686018427387904) takes the element "
        "count past 2^63"), ort="load")
def _(d):
    n = helper.make_node("Reshape", ["x", "shape"], ["y"], name="n")
    return model([n], [vi("x", [2, 3])], [vi("y", None)],
                 [init("shape", np.array([4, 2**62, 1], np.int64))])


@case("value_maxunpool_stride_huge", "attr-value", "MaxUnpool strides [2^40, 1] (its unpooled "
      "shape overflowed)",
      E("node 'n' (MaxUnpool, opset 17): strides [1099511627776, 1] must hold 2 positive values "
        "up to 2^32"), ort="run")
def _(d):
    n = helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="n", kernel_shape=[2, 2],
                         strides=[2**40, 1])
    return model([n], [vi("x", [1, 1, 2, 2]), vi("i", [1, 1, 2, 2], TensorProto.INT64)],
                 [vi("y", None)])


@case("value_depthtospace_blocksize_huge", "attr-value", "DepthToSpace blocksize 2^40 (found by "
      "fuzz_compile: blocksize^2 overflowed int64)",
      E("node 'n' (DepthToSpace, opset 17): expects a positive blocksize up to 2^31, got "
        "1099511627776"), ort="load")
def _(d):
    return unary("DepthToSpace", shape=(1, 4, 2, 2), blocksize=2**40)


@case("value_conv_pads_negative", "attr-value", "Conv pads [0, -1, 0, 0]",
      E("node 'conv' (Conv, opset 17): pads [0, -1, 0, 0] must be non-negative"), ort="load")
def _(d):
    return conv(pads=[0, -1, 0, 0])


@case("value_conv_group", "attr-value", "Conv group 2 on one input channel",
      E("node 'conv' (Conv, opset 17): group 2 does not match input 'tensor<1x1x4x4xf32>' and "
        "weight 'tensor<1x1x3x3xf32>'"), ort="run")
def _(d):
    return conv(group=2)


@case("value_conv_bias_shape", "attr-value", "a Conv bias of 3 values for 1 filter (found by "
      "fuzz_compile: the op's verifier, named as the node's error)",
      E("node 'conv' (Conv, opset 17): 'infc.conv' op expects a bias of shape [1]"), ort="run")
def _(d):
    n = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv")
    return model([n], [vi("x", [1, 1, 4, 4])], [vi("y", None)],
                 [init("w", np.ones((1, 1, 3, 3), np.float32)),
                  init("b", np.ones(3, np.float32))])


@case("value_conv_auto_pad", "attr-value", "Conv auto_pad 'SAME'",
      E("node 'conv' (Conv, opset 17): unsupported auto_pad 'SAME'"))
def _(d):
    return conv(auto_pad="SAME")


@case("value_maxpool_stride_zero", "attr-value", "MaxPool strides [0, 0]",
      E("node 'n' (MaxPool, opset 17): strides [0, 0] must hold 2 positive values"))
def _(d):
    return unary("MaxPool", shape=(1, 1, 4, 4), kernel_shape=[2, 2], strides=[0, 0])


@case("value_softmax_axis_range", "attr-value", "Softmax axis 5 on rank 2",
      E("node 'n' (Softmax, opset 17): axis 5 is out of range for rank 2"))
def _(d):
    return unary("Softmax", axis=5)


@case("value_concat_axis_range", "attr-value", "Concat axis -3 on rank 2",
      E("node 'n' (Concat, opset 17): axis -3 is out of range for rank 2"))
def _(d):
    return unary("Concat", axis=-3)


@case("value_flatten_axis_range", "attr-value", "Flatten axis 4 on rank 2",
      E("node 'n' (Flatten, opset 17): axis 4 is out of range for rank 2"))
def _(d):
    return unary("Flatten", axis=4)


@case("value_cast_to_unknown", "attr-value", "Cast to dtype 99",
      E("node 'n' (Cast, opset 17): cast to unsupported dtype unknown"))
def _(d):
    return unary("Cast", to=99)


@case("value_reshape_two_minus_one", "attr-value", "Reshape to [-1, -1]",
      E("node 'r' (Reshape, opset 17): shape has more than one -1"))
def _(d):
    return model([helper.make_node("Reshape", ["x", "s"], ["y"], name="r")], [vi("x", [2, 3])],
                 [vi("y", None)], [init("s", np.array([-1, -1], np.int64))])


@case("value_reshape_count", "attr-value", "Reshape 6 elements to [4, 2]",
      E("node 'r' (Reshape, opset 17): cannot reshape 'tensor<2x3xf32>' (6 elements) to 8 "
        "elements"), ort="run")
def _(d):
    return model([helper.make_node("Reshape", ["x", "s"], ["y"], name="r")], [vi("x", [2, 3])],
                 [vi("y", None)], [init("s", np.array([4, 2], np.int64))])


@case("value_split_sizes", "attr-value", "Split sizes [1, 1] of a dim of 3",
      E("node 's' (Split, opset 17): split sizes do not add up to dim 3 over 2 outputs"), ort="load")
def _(d):
    return model([helper.make_node("Split", ["x", "p"], ["a", "b"], name="s")],
                 [vi("x", [3])], [vi("a", None), vi("b", None)],
                 [init("p", np.array([1, 1], np.int64))])


@case("value_pad_mode", "attr-value", "Pad mode 'mirror'",
      E("node 'p' (Pad, opset 17): unsupported mode 'mirror'"))
def _(d):
    return model([helper.make_node("Pad", ["x", "q"], ["y"], name="p", mode="mirror")],
                 [vi("x", [2, 3])], [vi("y", None)], [init("q", np.zeros(4, np.int64))])


# --- op: ops, opsets and arity --------------------------------------------------------------
@case("op_before_its_opset", "op", "Gelu (opset 20) in an opset-17 model",
      E("node 'n' (Gelu, opset 17): Gelu is not defined at opset 17 (introduced in opset 20)"))
def _(d):
    return unary("Gelu")


@case("op_unknown", "op", "an op ai.onnx does not have",
      E("node 'n' (Frobnicate, opset 17): 'Frobnicate' is not an ai.onnx op"))
def _(d):
    return unary("Frobnicate")


@case("op_deprecated", "op", "Upsample in an opset-10 model",
      E("node 'n' (Upsample, opset 10): Upsample is deprecated since opset 10"))
def _(d):
    return model([helper.make_node("Upsample", ["x", "s"], ["y"], name="n")],
                 [vi("x", [1, 1, 2, 2])], [vi("y", None)],
                 [init("s", np.array([1, 1, 2, 2], np.float32))], opset=10)


@case("op_too_many_inputs", "op", "Relu with two inputs",
      E("node 'n' (Relu, opset 17): takes 1 input, given 2"))
def _(d):
    return model([helper.make_node("Relu", ["x", "x"], ["y"], name="n")], [vi("x", [2])],
                 [vi("y", None)])


@case("op_too_few_inputs", "op", "Add with one input",
      E("node 'n' (Add, opset 17): takes 2 inputs, given 1"))
def _(d):
    return unary("Add")


@case("op_too_many_outputs", "op", "Relu with two outputs",
      E("node 'n' (Relu, opset 17): takes 1 output, given 2"))
def _(d):
    return model([helper.make_node("Relu", ["x"], ["y", "z"], name="n")], [vi("x", [2])],
                 [vi("y", None)])


@case("op_no_outputs", "op", "Relu with no outputs",
      E("node 'n' (Relu, opset 17): takes 1 output, given 0"))
def _(d):
    return model([helper.make_node("Relu", ["x"], [], name="n"),
                  helper.make_node("Neg", ["x"], ["y"], name="m")], [vi("x", [2])],
                 [vi("y", None)])


@case("op_unnamed_node", "op", "an unnamed node is named by its place in the graph",
      E("node 'Sigmoid_1' (Sigmoid, opset 17): takes 1 input, given 3"))
def _(d):
    return model([helper.make_node("Relu", ["x"], ["t"]),
                  helper.make_node("Sigmoid", ["t", "t", "t"], ["y"])], [vi("x", [2])],
                 [vi("y", None)])


# --- dims -----------------------------------------------------------------------------------
@case("dims_initializer_negative", "dims", "an initializer of dims [-2, 3]",
      E("initializer 'w' has a negative dim: [-2x3]"))
def _(d):
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="a")], [vi("x", [2, 3])],
              [vi("y", None)], [init("w", np.ones((2, 3), np.float32))])
    m.graph.initializer[0].dims[0] = -2
    return m


@case("dims_initializer_overflow", "dims", "an initializer whose dims overflow int64",
      E("initializer 'w' has more elements than int64 can count: "
        "[4294967296x4294967296]"))
def _(d):
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="a")], [vi("x", [1])],
              [vi("y", None)], [init("w", np.ones(1, np.float32))])
    m.graph.initializer[0].ClearField("dims")
    m.graph.initializer[0].dims.extend([1 << 32, 1 << 32])
    return m


@case("dims_initializer_data_short", "dims", "an initializer holding fewer values than dims",
      E("initializer 'w' holds 8 bytes, expected 24"))
def _(d):
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="a")], [vi("x", [2, 3])],
              [vi("y", None)], [init("w", np.ones((2, 3), np.float32))])
    m.graph.initializer[0].raw_data = np.ones(2, np.float32).tobytes()
    return m


@case("dims_input_overflow", "dims", "a graph input of 2^40 x 2^40 floats",
      E("input 'x' has more elements than int64 can count: [1099511627776x1099511627776]"), ort="run")
def _(d):
    return unary("Relu", shape=(1 << 40, 1 << 40))


@case("dims_input_address_space", "dims", "a graph input of 2^46 floats (256 TiB)",
      E("input 'x' needs 281474976710656 bytes, more than the address space holds: "
        "[70368744177664]"), ort="run")
def _(d):
    return unary("Relu", shape=(1 << 46,))


@case("dims_constant_of_shape_huge", "dims", "ConstantOfShape to [2^31, 2^31, 2^31]",
      E("node 'c' (ConstantOfShape, opset 17): computes a tensor of a negative or "
        "uncountable size: 'tensor<2147483648x2147483648x2147483648xf32>'"), ort="run")
def _(d):
    return model([helper.make_node("ConstantOfShape", ["s"], ["y"], name="c")], [],
                 [vi("y", None)], [init("s", np.array([1 << 31] * 3, np.int64))])


@case("dims_expand_huge", "dims", "Expand to 2^24 x 2^24 x 2^24 floats",
      E("node 'e' (Expand, opset 17): computes a tensor of a negative or uncountable size: "
        "'tensor<16777216x16777216x16777216xf32>'"), ort="run")
def _(d):
    return model([helper.make_node("Expand", ["x", "s"], ["y"], name="e")], [vi("x", [1])],
                 [vi("y", None)], [init("s", np.array([1 << 24] * 3, np.int64))])


@case("dims_huge_index_table", "dims", "ReverseSequence over 4 x 2^40 (found by fuzz_compile)",
      E("node 'rs' (ReverseSequence, opset 17): needs an index constant of 1099511627776 "
        "elements, more than the 67108864 the compiler builds"), ort="run")
def _(d):
    return model([helper.make_node("ReverseSequence", ["x", "lens"], ["y"], name="rs",
                                   batch_axis=0, time_axis=1)],
                 [vi("x", [4, 1 << 40])], [vi("y", None)],
                 [init("lens", np.array([1, 2, 3, 4], np.int64))])


@case("dims_gathernd_huge_rows", "dims", "GatherND of 2^32 index rows (found by fuzz_compile)",
      E("node 'g' (GatherND, opset 17): needs a row offset table of 4294967296 elements, more "
        "than the 67108864 the compiler builds"), ort="run")
def _(d):
    return model([helper.make_node("GatherND", ["x", "i"], ["y"], name="g")],
                 [vi("x", [2, 3]), vi("i", [1 << 32, 1], TensorProto.INT64)], [vi("y", None)])


@case("dims_eyelike_huge", "dims", "EyeLike of 2^20 x 2^20 (found by fuzz_compile)",
      E("node 'n' (EyeLike, opset 17): needs a diagonal table of 1099511627776 elements, more "
        "than the 67108864 the compiler builds"), ort="run")
def _(d):
    return unary("EyeLike", shape=(1 << 20, 1 << 20))


@case("dims_typed_data_short", "dims", "an initializer of 2^40 floats with no float_data",
      E("initializer 'w' holds 0 values for a shape of 1099511627776 elements"))
def _(d):
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="a")], [vi("x", [1])],
              [vi("y", None)], [init("w", np.ones(1, np.float32))])
    t = m.graph.initializer[0]
    t.ClearField("raw_data")
    t.ClearField("dims")
    t.dims.append(1 << 40)
    return m


@case("value_range_infinite", "attr-value", "Range up to infinity",
      E("node 'r' (Range, opset 17): start, limit and delta must be finite"), ort="run")
def _(d):
    return model([helper.make_node("Range", ["a", "b", "c"], ["y"], name="r")], [],
                 [vi("y", None)], [init("a", np.array(0, np.float32)),
                                   init("b", np.array(np.inf, np.float32)),
                                   init("c", np.array(1, np.float32))])


@case("dims_tensor_attr_negative", "dims", "a Constant whose tensor has a negative dim",
      E("node 'c' (Constant, opset 17): attribute 'value': the tensor has a negative dim: "
        "[-1]"))
def _(d):
    t = helper.make_tensor("v", F, [1], [1.0])
    t.dims[0] = -1
    return model([helper.make_node("Constant", [], ["y"], name="c", value=t)], [],
                 [vi("y", None)])


# --- dtype ----------------------------------------------------------------------------------
@case("dtype_add_mixed", "dtype", "Add of a float and an int64",
      E("node 'a' (Add, opset 17): input 1 ('k') is int64 but input 0 ('x') is float; both are "
        "of type T, which must be one type"))
def _(d):
    return model([helper.make_node("Add", ["x", "k"], ["y"], name="a")], [vi("x", [2])],
                 [vi("y", None)], [init("k", np.ones(2, np.int64))])


@case("dtype_matmul_int8", "dtype", "MatMul of int8 (not among its types)",
      E("node 'mm' (MatMul, opset 17): input 0 ('x') is int8, but A must be one of: float16, "
        "float, double, uint32, uint64, int32, int64, bfloat16"))
def _(d):
    return model([helper.make_node("MatMul", ["x", "x"], ["y"], name="mm")],
                 [vi("x", [2, 2], TensorProto.INT8)], [vi("y", None)])


@case("dtype_relu_bool", "dtype", "Relu on bool",
      E("node 'n' (Relu, opset 17): input 0 ('x') is bool, but X must be one of: float, "
        "int32, int8, int16, int64, float16, double, bfloat16"))
def _(d):
    return model([helper.make_node("Relu", ["x"], ["y"], name="n")],
                 [vi("x", [2], TensorProto.BOOL)], [vi("y", None)])


@case("dtype_reshape_float_shape", "dtype", "Reshape with a float shape",
      E("node 'r' (Reshape, opset 17): input 1 ('s') is float, but shape must be one of: "
        "int64"))
def _(d):
    return model([helper.make_node("Reshape", ["x", "s"], ["y"], name="r")], [vi("x", [2, 3])],
                 [vi("y", None)], [init("s", np.array([3, 2], np.float32))])


@case("dtype_where_int_condition", "dtype", "Where with an int32 condition",
      E("node 'w' (Where, opset 17): input 0 ('c') is int32, but condition must be one of: "
        "bool"))
def _(d):
    return model([helper.make_node("Where", ["c", "x", "x"], ["y"], name="w")],
                 [vi("x", [2]), vi("c", [2], TensorProto.INT32)], [vi("y", None)])


@case("dtype_initializer_unknown", "dtype", "an initializer of data type 99",
      E("initializer 'w' has unsupported dtype unknown"))
def _(d):
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="a")], [vi("x", [2])],
              [vi("y", None)], [init("w", np.ones(2, np.float32))])
    m.graph.initializer[0].data_type = 99
    return m


@case("dtype_input_string", "dtype", "a string graph input",
      E("graph input 'x' has unsupported dtype string"), ort="load")
def _(d):
    return model([helper.make_node("Identity", ["x"], ["y"], name="n")],
                 [vi("x", [2], TensorProto.STRING)], [vi("y", None)])


@case("dtype_output_declared_wrong", "dtype", "an output declared int64 that computes float",
      E("graph output 'y' is declared as int64 [2] but computes 'tensor<2xf32>'"))
def _(d):
    return model([helper.make_node("Relu", ["x"], ["y"], name="n")], [vi("x", [2])],
                 [vi("y", [2], TensorProto.INT64)])


# --- external data --------------------------------------------------------------------------
def ext_entry(t, key, value):
    e = t.external_data.add()
    e.key, e.value = key, value


def ext_model(d, entries, nbytes=24):
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="a")], [vi("x", [2, 3])],
              [vi("y", None)], [init("w", np.ones((2, 3), np.float32))])
    t = m.graph.initializer[0]
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in entries:
        ext_entry(t, k, v)
    with open(os.path.join(d, "w.bin"), "wb") as f:
        f.write(np.ones(nbytes // 4, np.float32).tobytes())
    return m


@case("external_missing_file", "external", "external data in a file that is not there",
      E("initializer 'w': external data 'nothere.bin': cannot open the file: No such file or "
        "directory"))
def _(d):
    return ext_model(d, [("location", "nothere.bin")])


@case("external_escapes", "external", "a location outside the model's folder",
      E("initializer 'w': external data '../w.bin': refusing a location outside the model's "
        "folder"))
def _(d):
    return ext_model(d, [("location", "../w.bin")])


@case("external_past_end", "external", "offset + length past the file's end",
      E("initializer 'w': external data 'w.bin': offset 16 + length 24 exceeds the file size "
        "24"))
def _(d):
    return ext_model(d, [("location", "w.bin"), ("offset", "16"), ("length", "24")])


@case("external_offset_not_number", "external", "an offset that is not a number",
      E("initializer 'w': external data 'w.bin': the offset 'abc' is not a number"))
def _(d):
    return ext_model(d, [("location", "w.bin"), ("offset", "abc")])


@case("external_short_file", "external", "a file shorter than the tensor",
      E("initializer 'w' holds 8 bytes, expected 24"), ort="load")
def _(d):
    return ext_model(d, [("location", "w.bin")], nbytes=8)


@case("external_no_location", "external", "external data without a location",
      E("initializer 'w': external data '': no location given"))
def _(d):
    return ext_model(d, [("offset", "0")])


# --- subgraphs ------------------------------------------------------------------------------
def if_model(then_nodes, then_out, else_nodes=None, else_out=None, cond_type=TensorProto.BOOL,
             outer_nodes=()):
    then_g = helper.make_graph(then_nodes, "then", [], then_out)
    # The else branch passes x through unless given: a problem of the then branch is one.
    else_g = helper.make_graph(
        else_nodes if else_nodes is not None
        else [helper.make_node("Identity", ["x"], ["e"], name="pass")], "else", [],
        else_out if else_out is not None else [vi("e", None)])
    n = helper.make_node("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    return model(list(outer_nodes) + [n], [vi("c", [], cond_type), vi("x", [2])],
                 [vi("y", None)])


@case("subgraph_bad_attr", "subgraph", "a Gemm with a float transB inside an If branch",
      E("node 'inner' (Gemm, opset 17): attribute 'transB' must be int, got float"))
def _(d):
    inner = helper.make_node("Gemm", ["x", "x"], ["t"], name="inner", transB=1.0)
    return if_model([inner], [vi("t", None)])


@case("subgraph_output_undefined", "subgraph", "an If branch output nothing writes",
      E("subgraph 'then' output 'nope' is not produced by any node or outer value"))
def _(d):
    return if_model([helper.make_node("Relu", ["x"], ["t"], name="r")], [vi("nope", None)],
                    [helper.make_node("Relu", ["x"], ["t"], name="r2")], [vi("t", None)])


@case("subgraph_shadows_outer", "subgraph", "a branch node writes a name the outer graph has",
      E("node 'r' (Relu, opset 17): output 'x' is already defined (a value may be written "
        "once)"))
def _(d):
    return if_model([helper.make_node("Relu", ["c"], ["x"], name="r")], [vi("x", None)])


@case("subgraph_missing_branch", "subgraph", "If without else_branch",
      E("node 'if' (If, opset 17): required attribute 'else_branch' is missing"))
def _(d):
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="r")], "then", [],
                               [vi("t", None)])
    n = helper.make_node("If", ["c"], ["y"], name="if", then_branch=then_g)
    return model([n], [vi("c", [], TensorProto.BOOL), vi("x", [2])], [vi("y", None)])


@case("subgraph_cond_float", "subgraph", "If with a float condition",
      E("node 'if' (If, opset 17): input 0 ('c') is float, but cond must be one of: bool"))
def _(d):
    return if_model([helper.make_node("Relu", ["x"], ["t"], name="r")], [vi("t", None)],
                    cond_type=F)


@case("subgraph_branch_graph_type", "subgraph", "then_branch given as an int",
      E("node 'if' (If, opset 17): attribute 'then_branch' must be graph, got int"))
def _(d):
    else_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="r")], "else", [],
                               [vi("t", None)])
    n = helper.make_node("If", ["c"], ["y"], name="if", then_branch=1, else_branch=else_g)
    return model([n], [vi("c", [], TensorProto.BOOL), vi("x", [2])], [vi("y", None)])


def write_case(c, root):
    d = os.path.join(root, c.name)
    os.makedirs(d, exist_ok=True)
    m = c.build(d)
    data = m if isinstance(m, bytes) else m.SerializeToString()
    path = os.path.join(d, "model.onnx")
    with open(path, "wb") as f:
        f.write(data)
    return path


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", metavar="DIR")
    p.add_argument("--list", action="store_true")
    args = p.parse_args(argv)
    if args.list:
        for c in CASES:
            print(f"{c.name:36} {c.cls:10} {c.title}")
    if args.write:
        for c in CASES:
            write_case(c, args.write)
        print(f"{len(CASES)} cases written to {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

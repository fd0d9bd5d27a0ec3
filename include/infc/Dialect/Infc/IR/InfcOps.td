//===- InfcOps.td - infc op definitions -------------------------*- tablegen -*-===//
#ifndef INFC_DIALECT_INFC_IR_INFCOPS_TD
#define INFC_DIALECT_INFC_IR_INFCOPS_TD

include "infc/Dialect/Infc/IR/InfcDialect.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Infc_Tensor : RankedTensorOf<[AnyType]>;
def Infc_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Infc_IndexTensor : RankedTensorOf<[I32, I64]>;
def Infc_ConvTensor : RankedTensorOf<[AnyFloat, I32]>;

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

def Infc_ConstantOp : Infc_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor (weights, folded shape values)";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Infc_ShapeOp : Infc_Op<"shape", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "The shape of a tensor as a 1-D i64 tensor (ONNX Shape)";
  let arguments = (ins Infc_Tensor:$input);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise family
//===----------------------------------------------------------------------===//

/// Marks the ops that apply one function to each element (unary) or to each broadcast pair
/// of elements (binary), with no attribute that names a dim: an op of the family commutes
/// with a transpose of its operands (infc-channels-last moves transposes through them).
def Infc_Elementwise : NativeOpTrait<"InfcElementwise"> {
  let cppNamespace = "::infc";
}

class Infc_UnaryOp<string mnemonic, list<Trait> traits = []>
    : Infc_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType,
                                              Infc_Elementwise])> {
  let arguments = (ins Infc_Tensor:$input);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Infc_NegOp : Infc_UnaryOp<"neg"> { let summary = "-x"; }
def Infc_AbsOp : Infc_UnaryOp<"abs"> { let summary = "|x|"; }
def Infc_SqrtOp : Infc_UnaryOp<"sqrt"> { let summary = "square root"; }
def Infc_ExpOp : Infc_UnaryOp<"exp"> { let summary = "e^x"; }
def Infc_LogOp : Infc_UnaryOp<"log"> { let summary = "natural logarithm"; }
def Infc_ErfOp : Infc_UnaryOp<"erf"> { let summary = "error function"; }
def Infc_TanhOp : Infc_UnaryOp<"tanh"> { let summary = "hyperbolic tangent"; }
def Infc_SigmoidOp : Infc_UnaryOp<"sigmoid"> { let summary = "1 / (1 + e^-x)"; }
def Infc_ReluOp : Infc_UnaryOp<"relu"> { let summary = "max(x, 0)"; }
def Infc_ReciprocalOp : Infc_UnaryOp<"reciprocal"> { let summary = "1 / x"; }
def Infc_FloorOp : Infc_UnaryOp<"floor"> { let summary = "round down"; }
def Infc_CeilOp : Infc_UnaryOp<"ceil"> { let summary = "round up"; }
def Infc_NotOp : Infc_UnaryOp<"not"> {
  let summary = "bitwise not (logical not on i1)";
  let arguments = (ins RankedTensorOf<[AnyInteger]>:$input);
  let results = (outs RankedTensorOf<[AnyInteger]>:$result);
}

def Infc_ClipOp : Infc_UnaryOp<"clip"> {
  let summary = "min(max(x, min), max); the importer turns ONNX's min/max inputs into attributes";
  let arguments = (ins Infc_Tensor:$input, F64Attr:$min, F64Attr:$max);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Infc_LeakyReluOp : Infc_UnaryOp<"leaky_relu"> {
  let summary = "x < 0 ? alpha * x : x";
  let arguments = (ins Infc_Tensor:$input, F64Attr:$alpha);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

/// Float-only math functions (libm calls on CPU).
def Infc_RoundOp : Infc_UnaryOp<"round"> { let summary = "round to nearest, ties to even"; }
def Infc_SinOp : Infc_UnaryOp<"sin"> { let summary = "sine"; }
def Infc_CosOp : Infc_UnaryOp<"cos"> { let summary = "cosine"; }
def Infc_TanOp : Infc_UnaryOp<"tan"> { let summary = "tangent"; }
def Infc_AsinOp : Infc_UnaryOp<"asin"> { let summary = "arcsine"; }
def Infc_AcosOp : Infc_UnaryOp<"acos"> { let summary = "arccosine"; }
def Infc_AtanOp : Infc_UnaryOp<"atan"> { let summary = "arctangent"; }
def Infc_SinhOp : Infc_UnaryOp<"sinh"> { let summary = "hyperbolic sine"; }
def Infc_CoshOp : Infc_UnaryOp<"cosh"> { let summary = "hyperbolic cosine"; }
def Infc_AsinhOp : Infc_UnaryOp<"asinh"> { let summary = "inverse hyperbolic sine"; }
def Infc_AcoshOp : Infc_UnaryOp<"acosh"> { let summary = "inverse hyperbolic cosine"; }
def Infc_AtanhOp : Infc_UnaryOp<"atanh"> { let summary = "inverse hyperbolic tangent"; }

def Infc_BitcastOp : Infc_Op<"bitcast", [Pure, SameOperandsAndResultShape]> {
  let summary = "the same bits read as another element type of the same width";
  let description = [{
    ONNX BitCast. The widths count as stored: i1 (bool) is a byte, so a bool may be read as
    an 8-bit type (giving 0 or 1); nothing is read as i1, since a byte may hold other values.
    Sub-byte types (int4, float4, int2) are not accepted.
  }];
  let arguments = (ins Infc_Tensor:$input);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Infc_CastOp : Infc_Op<"cast", [Pure, SameOperandsAndResultShape]> {
  let summary = "element type conversion with ONNX Cast semantics (float to int truncates)";
  let description = [{
    `saturate` matters only for a float8 or float4 result: out-of-range values and
    infinities become the largest finite value (the default), or else infinity (f8E5M2) or
    NaN (the FN and FNUZ types), as ONNX Cast's `saturate` attribute says.
  }];
  let arguments = (ins Infc_Tensor:$input, DefaultValuedAttr<BoolAttr, "true">:$saturate);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

/// Binary ops broadcast their operands numpy-style; the result shape is inferred.
class Infc_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Infc_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptorWithIsCompatible, Infc_Elementwise])> {
  let arguments = (ins Infc_Tensor:$lhs, Infc_Tensor:$rhs);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Infc_AddOp : Infc_BinaryOp<"add", [Commutative]> { let summary = "lhs + rhs"; }
def Infc_SubOp : Infc_BinaryOp<"sub"> { let summary = "lhs - rhs"; }
def Infc_MulOp : Infc_BinaryOp<"mul", [Commutative]> { let summary = "lhs * rhs"; }
def Infc_DivOp : Infc_BinaryOp<"div"> {
  let summary = "lhs / rhs (integer division truncates toward zero)";
}
def Infc_PowOp : Infc_BinaryOp<"pow"> { let summary = "lhs ^ rhs"; }
def Infc_MaxOp : Infc_BinaryOp<"max", [Commutative]> { let summary = "elementwise maximum"; }
def Infc_MinOp : Infc_BinaryOp<"min", [Commutative]> { let summary = "elementwise minimum"; }
/// Bitwise on integers, which on i1 is the logical op.
def Infc_AndOp : Infc_BinaryOp<"and", [Commutative]> { let summary = "bitwise and"; }
def Infc_OrOp : Infc_BinaryOp<"or", [Commutative]> { let summary = "bitwise or"; }
def Infc_XorOp : Infc_BinaryOp<"xor", [Commutative]> { let summary = "bitwise xor"; }
/// Comparisons yield i1.
def Infc_EqualOp : Infc_BinaryOp<"equal", [Commutative]> { let summary = "lhs == rhs"; }
def Infc_LessOp : Infc_BinaryOp<"less"> { let summary = "lhs < rhs"; }
def Infc_GreaterOp : Infc_BinaryOp<"greater"> { let summary = "lhs > rhs"; }
def Infc_RemOp : Infc_BinaryOp<"rem"> {
  let summary = "C remainder: lhs - trunc(lhs / rhs) * rhs (fmod for floats), lhs's sign";
}
/// Integer shifts with ONNX BitShift semantics for amounts outside [0, bit width).
def Infc_ShiftLeftOp : Infc_BinaryOp<"shift_left"> {
  let summary = "lhs << rhs; 0 when rhs < 0 or rhs >= the bit width";
}
def Infc_ShiftRightOp : Infc_BinaryOp<"shift_right"> {
  let summary = "arithmetic lhs >> rhs; the sign fill (0 or -1) when rhs is out of range";
}

def Infc_WhereOp : Infc_Op<"where", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "condition ? lhs : rhs, broadcasting all three";
  let arguments = (ins RankedTensorOf<[I1]>:$condition, Infc_Tensor:$lhs, Infc_Tensor:$rhs);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

def Infc_MatMulOp : Infc_Op<"matmul", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "batched matrix product with numpy broadcasting of the batch dims";
  let description = [{
    Both operands have rank >= 2 (the importer reshapes ONNX's 1-D cases). Leading dims
    broadcast; the last two are [M, K] x [K, N].
  }];
  let arguments = (ins Infc_Tensor:$lhs, Infc_Tensor:$rhs);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Infc_ConvOp : Infc_Op<"conv", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "2-D grouped convolution, NCHW (or NHWC) input, FCHW weight";
  let description = [{
    `pads` is [top, left, bottom, right] (ONNX order), zeros. `bias` is optional, shape [F].
    Float, or i32 for the integer convolutions (ConvInteger, QLinearConv accumulate in i32).
    With `channels_last` the input is [N, H, W, C] and the result [N, OH, OW, F] (the weight
    stays [F, C / group, KH, KW]); infc-channels-last writes it for the CPU.
  }];
  let arguments = (ins Infc_ConvTensor:$input, Infc_ConvTensor:$weight,
                       Optional<Infc_ConvTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$group,
                       UnitAttr:$channels_last);
  let results = (outs Infc_ConvTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The cast from 8-bit integers that an i32 convolution reads (an int8 model's
    /// integer convolution, its bytes widened), or null.
    CastOp getCastFromBytes();
  }];
  let hasVerifier = 1;
}

/// With `channels_last` the input is [N, H, W, C], as infc-channels-last writes it for the
/// CPU.
class Infc_PoolOp<string mnemonic> : Infc_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let arguments = (ins Infc_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                       UnitAttr:$channels_last);
  let results = (outs Infc_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Infc_MaxPoolOp : Infc_PoolOp<"max_pool"> {
  let summary = "2-D max pooling over NCHW; padding never wins the max";
}

def Infc_AvgPoolOp : Infc_PoolOp<"avg_pool"> {
  let summary = "2-D average pooling over NCHW";
  let arguments = (ins Infc_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                       BoolAttr:$count_include_pad, UnitAttr:$channels_last);
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

class Infc_ReduceOp<string mnemonic> : Infc_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let arguments = (ins Infc_Tensor:$input, DenseI64ArrayAttr:$axes, BoolAttr:$keepdims);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Infc_ReduceSumOp : Infc_ReduceOp<"reduce_sum"> { let summary = "sum over axes"; }
def Infc_ReduceMeanOp : Infc_ReduceOp<"reduce_mean"> { let summary = "mean over axes"; }
def Infc_ReduceMaxOp : Infc_ReduceOp<"reduce_max"> { let summary = "maximum over axes"; }
def Infc_ReduceMinOp : Infc_ReduceOp<"reduce_min"> { let summary = "minimum over axes"; }
def Infc_ReduceProdOp : Infc_ReduceOp<"reduce_prod"> { let summary = "product over axes"; }

/// The i64 index of the extreme element along `axis` (the first one, or the last one with
/// `select_last_index`); a NaN counts as the extreme, as in numpy.
class Infc_ArgReduceOp<string mnemonic> : Infc_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let arguments = (ins Infc_Tensor:$input, I64Attr:$axis, BoolAttr:$keepdims,
                       BoolAttr:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Infc_ArgMaxOp : Infc_ArgReduceOp<"arg_max"> { let summary = "index of the maximum"; }
def Infc_ArgMinOp : Infc_ArgReduceOp<"arg_min"> { let summary = "index of the minimum"; }

def Infc_SoftmaxOp : Infc_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "softmax along one axis (max-subtracted for stability)";
  let arguments = (ins Infc_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Infc_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Infc_LayerNormOp : Infc_Op<"layer_norm", [Pure]> {
  let summary = "normalize over the dims from `axis` on, then scale and shift";
  let arguments = (ins Infc_FloatTensor:$input, Infc_FloatTensor:$scale,
                       Optional<Infc_FloatTensor>:$bias, I64Attr:$axis, F64Attr:$epsilon);
  let results = (outs Infc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Infc_PagedAttentionOp : Infc_Op<"paged_attention",
                                    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "one decoder layer's causal attention over its paged KV cache";
  let description = [{
    `query` is [1, heads, T, head_dim] (after RoPE), `key` and `value` [1, kv_heads, T,
    head_dim]: the step's T rows, the new tokens of every sequence the step runs. The op
    stores each row's key and value in its sequence's cache of layer `layer` (the runtime's
    KV blocks, at the row's position) and returns, per row and query head, the softmax of
    `scale` times the query against every cached key of the row's sequence at the row's
    position or before, applied to the cached values; query head h reads KV head
    h / (heads / kv_heads). Which rows belong to which sequence, and the sequences' past
    lengths and block tables, are the runtime's step context (runtime/kv.c); a run with
    none is one sequence of T rows and no past (causal attention over the rows).
    Written by infc-recognize-attention; never folded or removed (it writes the cache).
  }];
  let arguments = (ins F32Tensor:$query, F32Tensor:$key, F32Tensor:$value,
                       I64Attr:$layer, F64Attr:$scale);
  let results = (outs F32Tensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Infc_DecoderLogitsOp : Infc_Op<"decoder_logits", [MemoryEffects<[MemRead]>]> {
  let summary = "a decoder's LM head over only the rows whose logits the step uses";
  let description = [{
    `hidden` [1, T, H] (the last norm's output), `weight` [H, V] constant: the logits
    `hidden x weight` [1, T, V] of the rows that the runtime's step context asks for (each
    sequence's last row in the step, or every row for infc_llm_step_all, none without a
    logits buffer), packed at the front in row order; the other rows are unspecified. A
    run with no step context (a plain infc_run) gets every row, in order. The runtime
    learns from the call that the rows were packed (runtime/kv.c). Written by
    infc-recognize-attention where the model's `logits` output is this product alone: a
    prefill of P tokens then computes one row of the LM head instead of P.
  }];
  let arguments = (ins F32Tensor:$hidden, F32Tensor:$weight);
  let results = (outs F32Tensor:$result);
  let assemblyFormat = [{
    $hidden `,` $weight attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Infc_ReshapeOp : Infc_Op<"reshape", [Pure]> {
  let summary = "reinterpret the row-major elements with the result's static shape";
  let arguments = (ins Infc_Tensor:$input);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Infc_BroadcastOp : Infc_Op<"broadcast", [Pure]> {
  let summary = "numpy-style broadcast to the result shape (ONNX Expand)";
  let arguments = (ins Infc_Tensor:$input);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Infc_TransposeOp : Infc_Op<"transpose", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "permute dims: result dim i is input dim perm[i]";
  let arguments = (ins Infc_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Infc_ConcatOp : Infc_Op<"concat", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "join tensors along an axis";
  let arguments = (ins Variadic<Infc_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Infc_SliceOp : Infc_Op<"slice", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "strided slice with normalized, in-range starts and sizes per dim";
  let description = [{
    For every dim: element j of the result is input[offsets[d] + j * steps[d]], j < sizes[d].
    Steps may be negative. The importer clamps ONNX's starts/ends into this form.
  }];
  let arguments = (ins Infc_Tensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$steps);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Infc_GatherOp : Infc_Op<"gather", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "take entries of `data` along `axis` at `indices` (negative counts from the end)";
  let arguments = (ins Infc_Tensor:$data, Infc_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Indexing and padding ops
//===----------------------------------------------------------------------===//

def Infc_PadOp : Infc_Op<"pad", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "pad every dim by `low`/`high` elements (constant, reflect, edge or wrap)";
  let description = [{
    `low` and `high` hold one non-negative count per dim (the importer turns ONNX's negative
    pads into a slice). `mode`:
    - `constant`: the new elements are `value` (a rank-0 tensor of the input's element type,
      read at run time; zero when absent);
    - `reflect`: mirrored without repeating the border element (numpy "reflect"), repeatedly
      when a pad is wider than the dim;
    - `edge`: the border element repeated;
    - `wrap`: the input tiled periodically.
  }];
  let arguments = (ins Infc_Tensor:$input, Optional<Infc_Tensor>:$value,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high, StrAttr:$mode);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = [{
    $input (`,` $value^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Infc_CumSumOp : Infc_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "running sum along `axis` (optionally exclusive and/or from the end)";
  let description = [{
    result[.., i, ..] = sum of input[.., j, ..] over j <= i (j < i with `exclusive`; j >= i,
    or j > i, with `reverse`).
  }];
  let arguments = (ins Infc_Tensor:$input, I64Attr:$axis, BoolAttr:$exclusive,
                       BoolAttr:$reverse);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Infc_CumProdOp : Infc_Op<"cumprod", [Pure, SameOperandsAndResultType]> {
  let summary = "running product along `axis`, like cumsum (an empty product is 1)";
  let arguments = (ins Infc_Tensor:$input, I64Attr:$axis, BoolAttr:$exclusive,
                       BoolAttr:$reverse);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Infc_ScatterOp : Infc_Op<"scatter", [Pure, AllTypesMatch<["data", "result"]>]> {
  let summary = "`data` with `updates` written or combined along `axis` (ONNX ScatterElements)";
  let description = [{
    `indices` and `updates` have one shape, of the rank of `data`. For every position p of
    `indices`, in row-major order, the element of the result at p with dim `axis` replaced by
    indices[p] becomes updates[p] (`reduction` = "none") or is combined with it ("add",
    "mul", "max", "min"). Negative indices count from the end. At run time an out-of-range
    index is clamped into the dim, so a bad index never writes outside the tensor.
  }];
  let arguments = (ins Infc_Tensor:$data, Infc_IndexTensor:$indices, Infc_Tensor:$updates,
                       I64Attr:$axis, StrAttr:$reduction);
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Infc_TopKOp : Infc_Op<"topk", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "the `k` largest (or smallest) elements along `axis`, sorted, and their indices";
  let description = [{
    Results: the values in order (largest first, or smallest first without `largest`) and
    their i64 positions along `axis`. Equal values keep the lower index first.
  }];
  let arguments = (ins Infc_Tensor:$input, I64Attr:$axis, I64Attr:$k, BoolAttr:$largest);
  let results = (outs Infc_Tensor:$values, RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($values) `,` type($indices)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// The granularity of a scale (and zero point) follows from its shape: rank 0 is per
/// tensor; rank 1 with `block_size` 0 is per slice along `axis` (its length is that dim);
/// the input's rank with `block_size` B > 0 is blocked: element i along `axis` uses entry
/// i floordiv B (that dim of the scale is ceil(dim / B)), the other dims match the input.
class Infc_QuantOp<string mnemonic> : Infc_Op<mnemonic, [Pure]> {
  let results = (outs Infc_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Infc_QuantizeOp : Infc_QuantOp<"quantize"> {
  let summary = "ONNX QuantizeLinear: saturate(round_half_even(x / scale) + zero_point)";
  let description = [{
    The result element type is the quantized type: an integer (saturated to its range) or a
    float8/float4 type (x / scale + zero_point, encoded like `cast`, with `saturate`). The
    zero point, when present, has the result's element type; none means 0. The division is
    done in f32 (f64 for an f64 scale).
  }];
  let arguments = (ins Infc_FloatTensor:$input, Infc_FloatTensor:$scale,
                       Optional<Infc_Tensor>:$zero_point, I64Attr:$axis, I64Attr:$block_size,
                       DefaultValuedAttr<BoolAttr, "true">:$saturate);
}

def Infc_DequantizeOp : Infc_QuantOp<"dequantize"> {
  let summary = "ONNX DequantizeLinear: (x - zero_point) * scale";
  let description = [{
    The input is an integer or float8/float4 tensor; the zero point, when present, has its
    element type. The result is a float tensor (usually of the scale's type), computed in f32
    (f64 for an f64 scale).
  }];
  let arguments = (ins Infc_Tensor:$input, Infc_FloatTensor:$scale,
                       Optional<Infc_Tensor>:$zero_point, I64Attr:$axis, I64Attr:$block_size);
}

#endif // INFC_DIALECT_INFC_IR_INFCOPS_TD

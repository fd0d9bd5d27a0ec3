//===- Passes.td - infc graph-level passes ----------------------*- tablegen -*-===//
#ifndef INFC_DIALECT_INFC_TRANSFORMS_PASSES_TD
#define INFC_DIALECT_INFC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def InfcShapeInference : Pass<"infc-shape-inference", "mlir::func::FuncOp"> {
  let summary = "Refine result types from operand types through each op's type inference";
  let description = [{
    Walks the function in order and replaces every result type that its op can infer more
    precisely (ranked from unranked, static from dynamic dims); then updates the function's
    signature to the refined return types. Ops written with a placeholder result type (for
    example by hand in a test) end up with the same types the importer would give them.
  }];
  let dependentDialects = ["infc::InfcDialect"];
}

def InfcFoldQdq : Pass<"infc-fold-qdq", "mlir::func::FuncOp"> {
  let summary = "Run the matmuls and convolutions of dequantized int8 tensors on the integers";
  let description = [{
    matmul(dequantize(a), dequantize(w)) and conv(dequantize(x), dequantize(w), bias) (group
    1: grouped convolutions stay in float, whose depthwise kernel is the fast one), with a
    per-tensor activation and constant weights per tensor or per output channel, become the
    i32 product of the 8-bit values (weights minus their zero point, folded at compile time)
    times sx * sw: x's zero point is subtracted after the product as zx times the weights'
    sums, and a padded convolution pads x with zx. The float bias is added last. Quantize
    ops that follow stay, and fuse with the rescale into one epilogue at the linalg level.
  }];
  let dependentDialects = ["infc::InfcDialect"];
}

def InfcQuantizeInt8 : Pass<"infc-quantize-int8", "mlir::func::FuncOp"> {
  let summary = "Quantize the calibrated convolutions and matmuls to int8 (Q/DQ form)";
  let description = [{
    For each infc.conv or infc.matmul carrying `infc.input_range = array<f64: lo, hi>` (the
    range its activation took on the calibration samples; `infc compile --quantize int8`
    sets it): the activation goes through quantize/dequantize to uint8 per tensor
    (asymmetric over [min(lo, 0), max(hi, 0)]), and the constant f32 weights become int8 per
    output channel (symmetric, scale max|w| / 127; a conv's axis 0, a matmul's axis 1)
    behind a dequantize. The op gets `infc.weight_error`, the relative RMS error of its
    dequantized weights. infc-fold-qdq then makes the integer kernel. Ops without the
    attribute, or whose weights are not constant, stay in float (with a warning).
  }];
  let dependentDialects = ["infc::InfcDialect"];
}

def InfcFoldConvAffine : Pass<"infc-fold-conv-affine", "mlir::func::FuncOp"> {
  let summary = "Fold per-channel scales and shifts (BatchNormalization) into convolutions";
  let description = [{
    conv(x, W, b) * s -> conv(x, W * s, b * s) and conv(x, W, b) + t -> conv(x, W, b + t),
    for a float NCHW conv of one use with constant f32 weights (and bias) and a constant
    that varies along the output channels only (a scalar, [F, 1, 1], [1, F, 1, 1]): the
    mul and add an exporter leaves for an inference BatchNormalization. The new weights are
    computed at compile time; the conv keeps its attributes.
  }];
  let dependentDialects = ["infc::InfcDialect"];
}

def InfcChannelsLast : Pass<"infc-channels-last", "mlir::func::FuncOp"> {
  let summary = "NHWC convolutions and pooling, with the transposes between them cancelled";
  let description = [{
    For the CPU, where an NHWC convolution is the GEMM of the linear layers (activation rows
    times weights packed at compile time). Each float convolution, plain or depthwise, becomes
    transpose(conv{channels_last}(transpose(x))); the transposes back to NCHW then move down
    through elementwise ops (a constant operand is transposed at compile time), max and
    average pooling (which become channels_last too) and keepdims reductions, until they meet
    the next convolution's transpose and cancel, or, moving only unit dims, become reshapes.
    The i32 convolutions of bytes (int8 models) become channels_last too, their bytes
    transposed before the widening cast; the transposes then also move through casts,
    quantize / dequantize (per tensor or per axis) and pads.
  }];
  let dependentDialects = ["infc::InfcDialect"];
}

def InfcRecognizeAttention : Pass<"infc-recognize-attention", "mlir::ModuleOp"> {
  let summary = "Each decoder layer's attention as infc.paged_attention over the KV cache";
  let description = [{
    For a module imported with `--decoder` (the `infc.decoder` attribute): each pair of
    results `present.N.key` / `present.N.value` (the step's new keys and values, the
    importer having taken the past out) anchors layer N's attention: the keys, repeated for
    grouped query heads (reshape, broadcast, reshape) or not, transposed into
    `matmul(q, k^T)`, times a constant scale, plus a causal mask (`where(causal, 0, -big)`,
    the causal part a slice of a lower-triangular constant, optionally anded with the
    padding of `attention_mask`), a softmax over the keys, and `matmul(probs, v)`. That
    region becomes `infc.paged_attention(q, k, v) {layer = N, scale}`, the presents leave
    the results, and inputs no longer read (`attention_mask`) leave the arguments. The
    module's `infc.decoder` becomes {layers, heads, kv_heads, head_dim}. Anything else (a
    bias on the scores, another mask, a softmax over other axes, a present read elsewhere)
    is an error naming the node: never compiled as something else.
  }];
  let dependentDialects = ["infc::InfcDialect"];
}

#endif // INFC_DIALECT_INFC_TRANSFORMS_PASSES_TD

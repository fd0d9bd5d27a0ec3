//===- Markers.h - attributes one layer of the pipeline sets for a later one -*- C++ -*-===//
//
// Discardable attribute names that a conversion sets on the ops it creates and a later
// codegen pass reads, shared here so that neither depends on the other's headers.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_SUPPORT_MARKERS_H
#define INFC_SUPPORT_MARKERS_H

#include "llvm/ADT/StringRef.h"

namespace infc {
/// A unit attribute on the linalg.matmul ops of infc.decoder_logits's lowering (a decoder's
/// LM head): infc-weight-only-matmul keeps int8 for them under --weights int4 (the logits'
/// error grows fastest there; GGUF files keep the output matrix at 8 bits or more too).
inline constexpr llvm::StringLiteral kLmHeadAttr = "infc.lm_head";
/// A unit attribute on the linalg.matmul of a convolution lowered through im2col (its B
/// the permuted weights, a constant): infc-weight-only-matmul leaves it f32 (--weights
/// is for the matmuls of MatMul and Gemm; a convolution is compute-bound, where the
/// dequantization would only cost).
inline constexpr llvm::StringLiteral kConvMatmulAttr = "infc.conv";
} // namespace infc

#endif // INFC_SUPPORT_MARKERS_H

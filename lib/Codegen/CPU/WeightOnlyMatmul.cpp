//===- WeightOnlyMatmul.cpp - f32 matmuls on int8 / int4 weights (--weights) -===//
//
// Weight-only quantization. A decode step multiplies one row by every weight of the model:
// it is bound by the bytes of the weights it streams from memory, not by its multiply-adds
// (SmolLM2's fp32 step reads 540 MB). Stored per group of K values of a column, as int8
// with an f32 scale or as int4 with an f32 scale and minimum, the weights take a little
// over a quarter or about a fifth of those bytes; the kernel widens each panel's values to
// f32 and dequantizes them in registers, so it computes exactly the f32 matmul by the
// dequantized weights (the activations, the sums and everything around the matmuls stay
// f32, and a test can check the library against onnxruntime running the model with those
// weights).
//
// The register kernel is infc::panelKernel's (as the vdpbf16ps and integer kernels): per K
// step (int4: per word of two K steps) two panels of lanes columns loaded and dequantized,
// each row's A value broadcast into rows x 2 panels of FMAs; single rows against 4 panels.
// A decoder's LM head keeps int8 under int4, and a convolution's im2col matmul stays f32
// (include/infc/Support/Markers.h). A weight that is not finite, or an int4 group whose
// range overflows, leaves its matmul f32.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"
#include "infc/Support/Markers.h"

#include "PanelKernel.h"
#include "TileUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>

namespace infc {
#define GEN_PASS_DEF_INFCWEIGHTONLYMATMUL
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// Shorter reductions stay f32: their weights are few, and the dequantization per K step
/// would not be paid back (the bf16 kernel's threshold too).
constexpr int64_t kMinReduction = 64;

/// B's quantized panels and their group parameters (int8: scales; int4: a scale and a
/// minimum per group and column).
struct PackedWeights {
  DenseElementsAttr values, params;
};

/// B [K, N]'s values in row-major order, or null when one is a NaN or an infinity (no
/// scale stands for it: the matmul then stays f32).
std::optional<std::vector<float>> finiteValues(DenseElementsAttr weights) {
  std::vector<float> b(weights.getNumElements());
  if (weights.isSplat())
    std::fill(b.begin(), b.end(), weights.getSplatValue<float>());
  else
    std::memcpy(b.data(), weights.getRawData().data(), b.size() * sizeof(float));
  if (!llvm::all_of(b, [](float w) { return std::isfinite(w); }))
    return std::nullopt;
  return b;
}

DenseElementsAttr denseOf(RankedTensorType type, const void *data, size_t bytes) {
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(static_cast<const char *>(data), bytes));
}

/// int8: B [K, N] as panels [ceil(N/L), K, L] (L: `lanes`, a vector's f32 lanes) and scales
/// [ceil(N/L), groups, L]: value q[p][k][j] of column Lp + j with scale s[p][k / group][j]
/// stands for float(q) * s; zero past N. A group's scale is its largest magnitude / 127, its
/// values round(w / scale) to nearest, ties to even (within +-127 by construction).
PackedWeights quantizeInt8(MLIRContext *ctx, const std::vector<float> &b, int64_t k, int64_t n,
                           int64_t g, int64_t lanes) {
  int64_t panels = llvm::divideCeil(n, lanes), groups = llvm::divideCeil(k, g);
  std::vector<int8_t> q(panels * k * lanes, 0);
  std::vector<float> scales(panels * groups * lanes, 0.0f);
  for (int64_t c = 0; c < n; ++c) {
    int64_t p = c / lanes, j = c % lanes;
    for (int64_t gi = 0; gi < groups; ++gi) {
      int64_t begin = gi * g, end = std::min(k, begin + g);
      float largest = 0.0f;
      for (int64_t r = begin; r < end; ++r)
        largest = std::max(largest, std::fabs(b[r * n + c]));
      float scale = largest / 127.0f;
      scales[(p * groups + gi) * lanes + j] = scale;
      if (scale == 0.0f) // zeros, or magnitudes below the smallest normal scale's reach
        continue;
      for (int64_t r = begin; r < end; ++r) {
        float v = std::nearbyint(b[r * n + c] / scale);
        q[(p * k + r) * lanes + j] = static_cast<int8_t>(std::clamp(v, -127.0f, 127.0f));
      }
    }
  }
  return {denseOf(RankedTensorType::get({panels, k, lanes}, IntegerType::get(ctx, 8)), q.data(),
                  q.size()),
          denseOf(RankedTensorType::get({panels, groups, lanes}, Float32Type::get(ctx)),
                  scales.data(), scales.size() * sizeof(float))};
}

/// int4: B [K, N] as panels of nibble pairs [ceil(N/L), ceil(K/2), L] (byte j of word w:
/// column Lp + j's value at K 2w in the low nibble, 2w + 1 in the high one) and parameters
/// [ceil(N/L), groups, 2L] (the group's scales, then its minimums). A group's minimum is
/// its smallest value lo, its scale (largest - lo) / 15, its values
/// round((w - lo) / scale) to nearest-even in [0, 15] (0 where the scale is 0), standing
/// for fma(float(q), scale, lo) (one rounding). Null when a group's range overflows.
std::optional<PackedWeights> quantizeInt4(MLIRContext *ctx, const std::vector<float> &b, int64_t k,
                                          int64_t n, int64_t g, int64_t lanes) {
  int64_t panels = llvm::divideCeil(n, lanes), groups = llvm::divideCeil(k, g);
  int64_t words = llvm::divideCeil(k, 2);
  std::vector<uint8_t> q(panels * words * lanes, 0);
  std::vector<float> params(panels * groups * 2 * lanes, 0.0f);
  for (int64_t c = 0; c < n; ++c) {
    int64_t p = c / lanes, j = c % lanes;
    for (int64_t gi = 0; gi < groups; ++gi) {
      int64_t begin = gi * g, end = std::min(k, begin + g);
      float lo = b[begin * n + c], hi = lo;
      for (int64_t r = begin; r < end; ++r) {
        lo = std::min(lo, b[r * n + c]);
        hi = std::max(hi, b[r * n + c]);
      }
      float scale = (hi - lo) / 15.0f;
      if (!std::isfinite(hi - lo))
        return std::nullopt;
      float *group = &params[(p * groups + gi) * 2 * lanes];
      group[j] = scale;
      group[lanes + j] = lo;
      if (scale == 0.0f)
        continue;
      for (int64_t r = begin; r < end; ++r) {
        float v = std::clamp(std::nearbyint((b[r * n + c] - lo) / scale), 0.0f, 15.0f);
        q[(p * words + r / 2) * lanes + j] |= static_cast<uint8_t>(v) << (4 * (r % 2));
      }
    }
  }
  return PackedWeights{
      denseOf(RankedTensorType::get({panels, words, lanes}, IntegerType::get(ctx, 8)), q.data(),
              q.size()),
      denseOf(RankedTensorType::get({panels, groups, 2 * lanes}, Float32Type::get(ctx)),
              params.data(), params.size() * sizeof(float))};
}

struct InfcWeightOnlyMatmulPass
    : public infc::impl::InfcWeightOnlyMatmulBase<InfcWeightOnlyMatmulPass> {
  using InfcWeightOnlyMatmulBase::InfcWeightOnlyMatmulBase;
  void runOnOperation() override {
    if (vectorBits != 256 && vectorBits != 512) {
      getOperation().emitError("infc-weight-only-matmul: vector-bits must be 256 or 512, not ")
          << static_cast<int64_t>(vectorBits);
      return signalPassFailure();
    }
    if (bits != 8 && bits != 4) {
      getOperation().emitError("infc-weight-only-matmul: bits must be 8 or 4, not ")
          << static_cast<int64_t>(bits);
      return signalPassFailure();
    }
    if (group != 0 && (group < 16 || !llvm::isPowerOf2_64(group))) {
      getOperation().emitError("infc-weight-only-matmul: group must be 0 or a power of two "
                               "from 16, not ")
          << static_cast<int64_t>(group);
      return signalPassFailure();
    }
    // Generic code over a symbolic dim runs the same weights in several row blocks: each
    // constant is quantized once.
    llvm::DenseMap<std::pair<Attribute, int64_t>, std::optional<PackedWeights>> packed;
    for (linalg::MatmulOp op : infc::plainContractions<linalg::MatmulOp>(getOperation())) {
      auto ct = cast<RankedTensorType>(op.getResult(0).getType());
      DenseElementsAttr weights;
      if (!ct.getElementType().isF32() || !getElementTypeOrSelf(op.getInputs()[0]).isF32() ||
          !matchPattern(op.getInputs()[1], m_Constant(&weights)) ||
          !weights.getElementType().isF32() || !infc::isZeroFill(op.getOutputs()[0]))
        continue;
      int64_t k = cast<RankedTensorType>(weights.getType()).getDimSize(0);
      if (ct.getDimSize(0) == 0 || ct.getDimSize(1) == 0 || k < kMinReduction ||
          op->hasAttr(infc::kConvMatmulAttr))
        continue;
      // int4 keeps int8 (at the same group) for a decoder's LM head.
      int64_t width = bits == 4 && op->hasAttr(infc::kLmHeadAttr) ? 8 : bits;
      auto [it, inserted] = packed.try_emplace({weights, width});
      if (inserted)
        it->second = quantize(weights, width);
      if (it->second)
        rewrite(op, *it->second, group ? group : k, width, vectorBits);
    }
  }

  std::optional<PackedWeights> quantize(DenseElementsAttr weights, int64_t width) {
    std::optional<std::vector<float>> b = finiteValues(weights);
    if (!b)
      return std::nullopt;
    auto type = cast<RankedTensorType>(weights.getType());
    int64_t k = type.getDimSize(0), n = type.getDimSize(1), g = group ? group : k;
    if (width == 4)
      return quantizeInt4(&getContext(), *b, k, n, g, vectorBits / 32);
    return quantizeInt8(&getContext(), *b, k, n, g, vectorBits / 32);
  }

  /// C [M, N] = A [M, K] x dequantized B on the register kernel.
  static void rewrite(linalg::MatmulOp op, const PackedWeights &weights, int64_t group,
                      int64_t bits, int64_t vectorBits) {
    // rows x 2 panels of accumulators, 2 panels (int4: 2 x 2 K steps) and the broadcasts
    // in the registers: 19 (22) of 32 zmm at 8 rows, 11 (14) of 16 ymm at 4.
    int64_t lanes = vectorBits / 32, tileRows = vectorBits == 512 ? 8 : 4;
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto ct = cast<RankedTensorType>(op.getResult(0).getType());
    Value a = op.getInputs()[0];
    Value values = arith::ConstantOp::create(b, loc, weights.values);
    Value params = arith::ConstantOp::create(b, loc, weights.params);
    auto valuesType = cast<RankedTensorType>(weights.values.getType());
    int64_t panels = valuesType.getDimSize(0), words = valuesType.getDimSize(1);
    int64_t k = cast<RankedTensorType>(a.getType()).getDimSize(1), m = ct.getDimSize(0);
    Type f32 = b.getF32Type(), i32 = b.getI32Type();
    auto laneType = VectorType::get({lanes}, f32);
    auto idx = [&](OpBuilder &ib, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ib, loc, v);
    };
    auto splatI32 = [&](OpBuilder &ib, int32_t v) -> Value {
      return arith::ConstantOp::create(
          ib, loc, DenseElementsAttr::get(VectorType::get({lanes}, i32), ib.getI32IntegerAttr(v)));
    };
    auto readLanes = [&](OpBuilder &rb, Value from, VectorType type, ValueRange at) -> Value {
      return vector::TransferReadOp::create(rb, loc, type, from, at, std::optional<Value>(),
                                            ArrayRef<bool>{true});
    };
    Value zeroAcc =
        arith::ConstantOp::create(b, loc, DenseElementsAttr::get(laneType, b.getF32FloatAttr(0)));
    // The group of K step (int8) or word (int4, two K steps) `q`.
    unsigned kPerWord = bits == 4 ? 2 : 1, groupShift = llvm::Log2_64(group / kPerWord);
    bool oneGroup = group >= k;
    auto groupOf = [&](OpBuilder &gb, Value q) -> Value {
      return oneGroup ? idx(gb, 0) : arith::ShRUIOp::create(gb, loc, q, idx(gb, groupShift));
    };
    auto bytesType = VectorType::get({lanes}, b.getI8Type());

    infc::PanelKernelSteps steps;
    steps.lanes = lanes;
    steps.words = words;
    auto columnStart = [&](OpBuilder &, Value) { return zeroAcc; };
    // int8: panel `panel`'s K step `q`, its bytes sign-extended, converted and scaled.
    auto int8Panel = [&](OpBuilder &pb, Value panel, Value q) -> Value {
      Value bytes = readLanes(pb, values, bytesType, {panel, q, idx(pb, 0)});
      Value ints = arith::ExtSIOp::create(pb, loc, VectorType::get({lanes}, i32), bytes);
      Value floats = arith::SIToFPOp::create(pb, loc, laneType, ints);
      Value scale = readLanes(pb, params, laneType, {panel, groupOf(pb, q), idx(pb, 0)});
      return arith::MulFOp::create(pb, loc, floats, scale);
    };
    // int4: word `q`'s two K steps, each nibble converted and dequantized with one fma,
    // the two as one vector of 2 x lanes.
    auto int4Panel = [&](OpBuilder &pb, Value panel, Value q) -> Value {
      Value bytes = readLanes(pb, values, bytesType, {panel, q, idx(pb, 0)});
      Value ints = arith::ExtUIOp::create(pb, loc, VectorType::get({lanes}, i32), bytes);
      Value low = arith::AndIOp::create(pb, loc, ints, splatI32(pb, 15));
      Value high = arith::ShRUIOp::create(pb, loc, ints, splatI32(pb, 4));
      Value g = groupOf(pb, q);
      Value scale = readLanes(pb, params, laneType, {panel, g, idx(pb, 0)});
      Value lowest = readLanes(pb, params, laneType, {panel, g, idx(pb, lanes)});
      auto dequantize = [&](Value nibbles) -> Value {
        Value floats = arith::SIToFPOp::create(pb, loc, laneType, nibbles);
        return vector::FMAOp::create(pb, loc, floats, scale, lowest);
      };
      SmallVector<int64_t> both = llvm::to_vector(llvm::seq<int64_t>(0, 2 * lanes));
      return vector::ShuffleOp::create(pb, loc, dequantize(low), dequantize(high), both);
    };
    auto int8Row = [&](OpBuilder &rb, Value row, Value q) -> Value {
      Value scalar = tensor::ExtractOp::create(rb, loc, a, ValueRange{row, q});
      return vector::BroadcastOp::create(rb, loc, laneType, scalar);
    };
    // int4: row `row`'s values at K 2q and 2q + 1, zero past an odd K (the last word's high
    // nibble dequantizes to the group's minimum, which the zero must cancel).
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
    auto int4Row = [&](OpBuilder &rb, Value row, Value q) -> Value {
      Value k0 = arith::MulIOp::create(rb, loc, q, idx(rb, 2));
      return vector::TransferReadOp::create(rb, loc, VectorType::get({2}, f32), a,
                                            ValueRange{row, k0}, zero, ArrayRef<bool>{k % 2 == 0});
    };
    auto int8MultiplyAdd = [&](OpBuilder &fb, Value acc, Value row, Value panel) -> Value {
      return vector::FMAOp::create(fb, loc, row, panel, acc);
    };
    // int4: the two K steps in order (each column summed in K order, as int8 and f32 do).
    auto int4MultiplyAdd = [&](OpBuilder &fb, Value acc, Value pair, Value panel) -> Value {
      for (int64_t t = 0; t < 2; ++t) {
        Value scalar = vector::ExtractOp::create(fb, loc, pair, ArrayRef<int64_t>{t});
        Value rowValue = vector::BroadcastOp::create(fb, loc, laneType, scalar);
        Value half =
            vector::ExtractStridedSliceOp::create(fb, loc, panel, ArrayRef<int64_t>{t * lanes},
                                                  ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1});
        acc = vector::FMAOp::create(fb, loc, rowValue, half, acc);
      }
      return acc;
    };
    steps.columnStart = columnStart;
    if (bits == 4) {
      steps.panelWords = int4Panel;
      steps.rowWord = int4Row;
      steps.multiplyAdd = int4MultiplyAdd;
    } else {
      steps.panelWords = int8Panel;
      steps.rowWord = int8Row;
      steps.multiplyAdd = int8MultiplyAdd;
    }
    Value c = tensor::EmptyOp::create(b, loc, {m, panels * lanes}, f32);
    Value product = infc::panelKernel(b, loc, steps, c, tileRows, panels);
    op.getResult(0).replaceAllUsesWith(infc::leadingBlock(b, loc, product, ct));
    op.erase();
  }
};
} // namespace

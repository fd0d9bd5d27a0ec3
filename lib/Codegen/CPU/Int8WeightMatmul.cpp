//===- Int8WeightMatmul.cpp - f32 matmuls on int8 weights (--weights int8) -===//
//
// Weight-only quantization. A decode step multiplies one row by every weight of the model:
// it is bound by the bytes of the weights it streams from memory, not by its multiply-adds
// (SmolLM2's fp32 step reads 540 MB). Stored as int8 with an f32 scale per group of K
// values of a column, the weights take a little over a quarter of those bytes; the kernel
// widens each panel's bytes to f32 and multiplies them by their group's scales in
// registers, so it computes exactly the f32 matmul by the dequantized weights (the
// activations, the sums and everything around the matmuls stay f32, and a test can check
// the library against onnxruntime running the model with those weights).
//
// The register kernel is infc::panelKernel's (as the vdpbf16ps and integer kernels): per K
// step two 16-column panels loaded and dequantized, each row's A value broadcast into
// rows x 2 panels of FMAs.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"

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
#define GEN_PASS_DEF_INFCINT8WEIGHTMATMUL
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// Shorter reductions stay f32: their weights are few, and the dequantization per K step
/// would not be paid back (the bf16 kernel's threshold too).
constexpr int64_t kMinReduction = 64;

/// B's int8 panels and their scales.
struct PackedWeights {
  DenseElementsAttr values, scales;
};

/// B [K, N] f32 as int8 panels [ceil(N/L), K, L] and scales [ceil(N/L), groups, L] (L:
/// `lanes`, a vector's f32 lanes): value q[p][k][j] of column Lp + j with scale
/// s[p][k / group][j] stands for float(q) * s; zero past N. A group's scale is its largest
/// magnitude / 127, its values round(w / scale) to nearest, ties to even (within +-127 by
/// construction). Null when B holds a NaN or an infinity (the matmul then stays f32).
std::optional<PackedWeights> quantizeWeights(MLIRContext *ctx, DenseElementsAttr weights,
                                             int64_t group, int64_t lanes) {
  auto type = cast<RankedTensorType>(weights.getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  int64_t panels = llvm::divideCeil(n, lanes), g = group ? group : k;
  int64_t groups = llvm::divideCeil(k, g);
  std::vector<float> b(k * n);
  if (weights.isSplat())
    std::fill(b.begin(), b.end(), weights.getSplatValue<float>());
  else
    std::memcpy(b.data(), weights.getRawData().data(), b.size() * sizeof(float));
  if (!llvm::all_of(b, [](float w) { return std::isfinite(w); }))
    return std::nullopt;
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
  auto valuesType = RankedTensorType::get({panels, k, lanes}, IntegerType::get(ctx, 8));
  auto scalesType = RankedTensorType::get({panels, groups, lanes}, Float32Type::get(ctx));
  ArrayRef<char> rawValues(reinterpret_cast<const char *>(q.data()), q.size());
  ArrayRef<char> rawScales(reinterpret_cast<const char *>(scales.data()),
                           scales.size() * sizeof(float));
  return PackedWeights{DenseElementsAttr::getFromRawBuffer(valuesType, rawValues),
                       DenseElementsAttr::getFromRawBuffer(scalesType, rawScales)};
}

struct InfcInt8WeightMatmulPass
    : public infc::impl::InfcInt8WeightMatmulBase<InfcInt8WeightMatmulPass> {
  using InfcInt8WeightMatmulBase::InfcInt8WeightMatmulBase;
  void runOnOperation() override {
    if (vectorBits != 256 && vectorBits != 512) {
      getOperation().emitError("infc-int8-weight-matmul: vector-bits must be 256 or 512, not ")
          << static_cast<int64_t>(vectorBits);
      return signalPassFailure();
    }
    if (group != 0 && (group < 16 || !llvm::isPowerOf2_64(group))) {
      getOperation().emitError("infc-int8-weight-matmul: group must be 0 or a power of two "
                               "from 16, not ")
          << static_cast<int64_t>(group);
      return signalPassFailure();
    }
    // Generic code over a symbolic dim runs the same weights in several row blocks: each
    // constant is quantized once.
    llvm::DenseMap<Attribute, std::optional<PackedWeights>> packed;
    for (linalg::MatmulOp op : infc::plainContractions<linalg::MatmulOp>(getOperation())) {
      auto ct = cast<RankedTensorType>(op.getResult(0).getType());
      DenseElementsAttr weights;
      if (!ct.getElementType().isF32() || !getElementTypeOrSelf(op.getInputs()[0]).isF32() ||
          !matchPattern(op.getInputs()[1], m_Constant(&weights)) ||
          !weights.getElementType().isF32() || !infc::isZeroFill(op.getOutputs()[0]))
        continue;
      int64_t k = cast<RankedTensorType>(weights.getType()).getDimSize(0);
      if (ct.getDimSize(0) == 0 || ct.getDimSize(1) == 0 || k < kMinReduction)
        continue;
      auto [it, inserted] = packed.try_emplace(weights);
      if (inserted)
        it->second = quantizeWeights(&getContext(), weights, group, vectorBits / 32);
      if (it->second)
        rewrite(op, *it->second, group ? group : k, vectorBits);
    }
  }

  /// C [M, N] = A [M, K] x dequantized B on the register kernel.
  static void rewrite(linalg::MatmulOp op, const PackedWeights &weights, int64_t group,
                      int64_t vectorBits) {
    // rows x 2 panels of accumulators, 2 panels and a broadcast in the registers: 19 of 32
    // zmm at 8 rows, 11 of 16 ymm at 4.
    int64_t lanes = vectorBits / 32, tileRows = vectorBits == 512 ? 8 : 4;
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto ct = cast<RankedTensorType>(op.getResult(0).getType());
    Value a = op.getInputs()[0];
    Value values = arith::ConstantOp::create(b, loc, weights.values);
    Value scales = arith::ConstantOp::create(b, loc, weights.scales);
    auto valuesType = cast<RankedTensorType>(weights.values.getType());
    int64_t panels = valuesType.getDimSize(0), k = valuesType.getDimSize(1);
    int64_t m = ct.getDimSize(0);
    Type f32 = b.getF32Type();
    auto laneType = VectorType::get({lanes}, f32);
    auto idx = [&](OpBuilder &ib, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ib, loc, v);
    };
    Value zeroAcc =
        arith::ConstantOp::create(b, loc, DenseElementsAttr::get(laneType, b.getF32FloatAttr(0)));
    unsigned groupShift = llvm::Log2_64(group);
    bool oneGroup = group >= k;

    infc::PanelKernelSteps steps;
    steps.lanes = lanes;
    steps.words = k;
    auto columnStart = [&](OpBuilder &, Value) { return zeroAcc; };
    // Panel `panel`'s K step `q`: 16 int8 values, sign-extended, converted and scaled.
    auto panelWords = [&](OpBuilder &pb, Value panel, Value q) -> Value {
      Value bytes = vector::TransferReadOp::create(
          pb, loc, VectorType::get({lanes}, pb.getI8Type()), values,
          ValueRange{panel, q, idx(pb, 0)}, std::optional<Value>(), ArrayRef<bool>{true});
      Value ints =
          arith::ExtSIOp::create(pb, loc, VectorType::get({lanes}, pb.getI32Type()), bytes);
      Value floats = arith::SIToFPOp::create(pb, loc, laneType, ints);
      Value groupIndex =
          oneGroup ? idx(pb, 0) : arith::ShRUIOp::create(pb, loc, q, idx(pb, groupShift));
      Value scale = vector::TransferReadOp::create(pb, loc, laneType, scales,
                                                   ValueRange{panel, groupIndex, idx(pb, 0)},
                                                   std::optional<Value>(), ArrayRef<bool>{true});
      return arith::MulFOp::create(pb, loc, floats, scale);
    };
    auto rowValue = [&](OpBuilder &rb, Value row, Value q) -> Value {
      Value scalar = tensor::ExtractOp::create(rb, loc, a, ValueRange{row, q});
      return vector::BroadcastOp::create(rb, loc, laneType, scalar);
    };
    auto multiplyAdd = [&](OpBuilder &fb, Value acc, Value row, Value panel) -> Value {
      return vector::FMAOp::create(fb, loc, row, panel, acc);
    };
    steps.columnStart = columnStart;
    steps.panelWords = panelWords;
    steps.rowWord = rowValue;
    steps.multiplyAdd = multiplyAdd;
    Value c = tensor::EmptyOp::create(b, loc, {m, panels * lanes}, f32);
    Value product = infc::panelKernel(b, loc, steps, c, tileRows, panels);
    op.getResult(0).replaceAllUsesWith(infc::leadingBlock(b, loc, product, ct));
    op.erase();
  }
};
} // namespace

//===- PadBorders.cpp - a constant pad as its borders plus the interior ---===//
//
// Bufferized as it is, a tensor.pad fills the whole padded buffer and then copies the
// input into its interior: for a convolution's one-pixel border that is a fill of the
// entire activation (a memset on the calling thread) and a copy of it. Written instead as
// the input inserted into an empty tensor plus one fill per border slab, only the border
// is filled, and empty-tensor elimination lets the producer of the input write straight
// into the interior, so the copy goes too.
//
//===----------------------------------------------------------------------===//
#include "Borders.h"
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace infc {
#define GEN_PASS_DEF_INFCPADBORDERS
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct PadAsBorders : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp op, PatternRewriter &rewriter) const override {
    Value padValue = op.getConstantPaddingValue();
    auto type = op.getResultType();
    auto sourceType = op.getSourceType();
    if (!padValue || !type.hasStaticShape() || !sourceType.hasStaticShape() || op.getNofold())
      return rewriter.notifyMatchFailure(op, "not a static pad by a constant");
    std::optional<SmallVector<int64_t>> low = getConstantIntValues(op.getMixedLowPad());
    std::optional<SmallVector<int64_t>> high = getConstantIntValues(op.getMixedHighPad());
    auto negative = [](int64_t p) { return p < 0; };
    if (!low || !high || llvm::any_of(*low, negative) || llvm::any_of(*high, negative))
      return rewriter.notifyMatchFailure(op, "dynamic or negative padding");
    // A pad value computed inside the region goes with it: take only one from outside.
    if (padValue.getParentRegion() == &op.getRegion())
      return rewriter.notifyMatchFailure(op, "pad value defined in the region");
    Location loc = op.getLoc();
    auto attrs = [&](ArrayRef<int64_t> v) { return getAsIndexOpFoldResult(getContext(), v); };
    ArrayRef<int64_t> inner = sourceType.getShape();
    Value result = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
    result =
        tensor::InsertSliceOp::create(rewriter, loc, op.getSource(), result, attrs(*low),
                                      attrs(inner), attrs(SmallVector<int64_t>(type.getRank(), 1)));
    result = infc::fillBorder(rewriter, loc, result, padValue, *low, inner);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

Value infc::fillBorder(OpBuilder &b, Location loc, Value padded, Value padValue,
                       ArrayRef<int64_t> low, ArrayRef<int64_t> inner) {
  auto type = cast<RankedTensorType>(padded.getType());
  int64_t rank = type.getRank();
  ArrayRef<int64_t> outer = type.getShape();
  auto attrs = [&](ArrayRef<int64_t> v) { return getAsIndexOpFoldResult(b.getContext(), v); };
  SmallVector<int64_t> ones(rank, 1);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t high = outer[d] - inner[d] - low[d];
    for (auto [begin, size] : {std::pair{int64_t(0), low[d]}, std::pair{low[d] + inner[d], high}}) {
      if (size == 0)
        continue;
      SmallVector<int64_t> offsets(rank, 0), sizes(outer);
      for (int64_t e = 0; e < d; ++e) {
        offsets[e] = low[e];
        sizes[e] = inner[e];
      }
      offsets[d] = begin;
      sizes[d] = size;
      Value slab = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
      slab = linalg::FillOp::create(b, loc, padValue, slab).getResult(0);
      padded = tensor::InsertSliceOp::create(b, loc, slab, padded, attrs(offsets), attrs(sizes),
                                             attrs(ones));
    }
  }
  return padded;
}

namespace {
struct InfcPadBordersPass : public infc::impl::InfcPadBordersBase<InfcPadBordersPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PadAsBorders>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

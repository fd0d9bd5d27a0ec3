//===- LowerVectors.cpp - vector.contract and transfers to FMAs and loads --===//
#include "infc/Codegen/Common/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace infc {
#define GEN_PASS_DEF_INFCLOWERVECTORS
#include "infc/Codegen/Common/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// A transfer_read along a dim of small constant stride s (a stride-2 convolution's or
/// pooling's window) becomes one contiguous read of the (n - 1) s + 1 elements it spans and
/// a shuffle picking every s-th: LLVM would gather element by element.
struct StridedTransferReadAsShuffle : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp op,
                                PatternRewriter &rewriter) const override {
    auto memref = dyn_cast<MemRefType>(op.getBase().getType());
    VectorType vt = op.getVectorType();
    // The vector's last dim must run along the memref's last dim; its other dims are unit,
    // so how the map permutes them does not matter (im2col's copies permute them).
    AffineMap map = op.getPermutationMap();
    auto last = map.getNumResults() ? dyn_cast<AffineDimExpr>(map.getResults().back())
                                    : AffineDimExpr(nullptr);
    if (!memref || op.getMask() || vt.getRank() < 1 || !last ||
        last.getPosition() != memref.getRank() - 1 ||
        llvm::any_of(op.getInBoundsValues(), [](bool b) { return !b; }))
      return failure();
    for (int64_t d = 0; d + 1 < vt.getRank(); ++d)
      if (vt.getDimSize(d) != 1)
        return failure();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memref.getStridesAndOffset(strides, offset)))
      return failure();
    int64_t s = strides.back(), n = vt.getShape().back();
    if (s < 2 || s > 4 || ShapedType::isDynamic(s) || n < 2 ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return failure();
    Location loc = op.getLoc();
    auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getBase());
    // The linear position of the first element: offset + sum of index x stride.
    Value linear = meta.getOffset();
    for (auto [index, stride] : llvm::zip(op.getIndices(), strides)) {
      Value scaled = arith::MulIOp::create(rewriter, loc, index,
                                           arith::ConstantIndexOp::create(rewriter, loc, stride));
      linear = arith::AddIOp::create(rewriter, loc, linear, scaled);
    }
    int64_t span = (n - 1) * s + 1;
    Type et = memref.getElementType();
    auto flatType = MemRefType::get(
        {span}, et, StridedLayoutAttr::get(rewriter.getContext(), ShapedType::kDynamic, {1}));
    Value flat = memref::ReinterpretCastOp::create(
        rewriter, loc, flatType, meta.getBaseBuffer(), OpFoldResult(linear),
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(span)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value wide =
        vector::TransferReadOp::create(rewriter, loc, VectorType::get({span}, et), flat,
                                       ValueRange{zero}, op.getPadding(), ArrayRef<bool>{true});
    SmallVector<int64_t> picks;
    for (int64_t i = 0; i < n; ++i)
      picks.push_back(i * s);
    Value v = vector::ShuffleOp::create(rewriter, loc, wide, wide, picks);
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(op, vt, v);
    return success();
  }
};

struct InfcLowerVectorsPass : public infc::impl::InfcLowerVectorsBase<InfcLowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto apply = [&](auto populate) {
      RewritePatternSet patterns(ctx);
      populate(patterns);
      return applyPatternsGreedily(getOperation(), std::move(patterns));
    };
    // Vector math becomes inline polynomials (error ~1e-7 relative): libm has no vector
    // entry points a libc-only .so may call. Scalar math keeps calling libm.
    SmallVector<Operation *> vectorMath;
    getOperation().walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) && op->getNumResults() == 1 &&
          isa<VectorType>(op->getResult(0).getType()))
        vectorMath.push_back(op);
    });
    if (!vectorMath.empty()) {
      RewritePatternSet patterns(ctx);
      // powf by a constant (GELU's x^3, x^2, x^0.5) becomes multiplies or a square root.
      populateMathAlgebraicSimplificationPatterns(patterns);
      // The transcendental functions of activations and normalizations, whose
      // approximations hold a few ulp over the whole range; sin/cos reduce the argument
      // too naively for large inputs and stay with libm.
      populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
        return llvm::is_contained({"math.erf", "math.exp", "math.expm1", "math.log", "math.log1p",
                                   "math.log2", "math.tanh"},
                                  name);
      });
      if (failed(applyOpPatternsGreedily(vectorMath, std::move(patterns))))
        return signalPassFailure();
    }
    if (failed(apply(
            [](RewritePatternSet &p) { p.add<StridedTransferReadAsShuffle>(p.getContext()); })) ||
        failed(apply([](RewritePatternSet &p) {
          vector::populateVectorContractLoweringPatterns(
              p, vector::VectorContractLowering::OuterProduct);
          vector::populateVectorTransferPermutationMapLoweringPatterns(p);
        })) ||
        failed(apply([](RewritePatternSet &p) {
          vector::populateVectorOuterProductLoweringPatterns(p);
          vector::populateVectorTransposeLoweringPatterns(p,
                                                          vector::VectorTransposeLowering::EltWise);
          vector::populateVectorBroadcastLoweringPatterns(p);
          vector::populateVectorMultiReductionLoweringPatterns(
              p, vector::VectorMultiReductionLowering::InnerParallel);
        })) ||
        failed(apply([](RewritePatternSet &p) {
          vector::populateVectorTransferLoweringPatterns(p, /*maxTransferRank=*/1);
          vector::populateVectorShapeCastLoweringPatterns(p);
        })))
      return signalPassFailure();
  }
};
} // namespace

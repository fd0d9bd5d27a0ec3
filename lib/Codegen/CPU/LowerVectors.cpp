//===- LowerVectors.cpp - vector.contract and transfers to FMAs and loads --===//
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace infc {
#define GEN_PASS_DEF_INFCLOWERVECTORS
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
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
        return llvm::is_contained({"math.erf", "math.exp", "math.expm1", "math.log",
                                   "math.log1p", "math.log2", "math.tanh"},
                                  name);
      });
      if (failed(applyOpPatternsGreedily(vectorMath, std::move(patterns))))
        return signalPassFailure();
    }
    if (failed(apply([](RewritePatternSet &p) {
          vector::populateVectorContractLoweringPatterns(
              p, vector::VectorContractLowering::OuterProduct);
          vector::populateVectorTransferPermutationMapLoweringPatterns(p);
        })) ||
        failed(apply([](RewritePatternSet &p) {
          vector::populateVectorOuterProductLoweringPatterns(p);
          vector::populateVectorTransposeLoweringPatterns(
              p, vector::VectorTransposeLowering::EltWise);
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

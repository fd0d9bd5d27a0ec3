//===- LowerVectors.cpp - vector.contract and transfers to FMAs and loads --===//
#include "infc/Codegen/CPU/Passes.h"

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

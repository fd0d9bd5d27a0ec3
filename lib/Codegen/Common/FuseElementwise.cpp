//===- FuseElementwise.cpp - elementwise fusion that spares contractions --===//
#include "infc/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace infc {
#define GEN_PASS_DEF_INFCFUSEELEMENTWISE
#include "infc/Codegen/Common/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
bool allParallel(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumLoops() == linalgOp.getNumParallelLoops();
}

/// A generic that only widens 8-bit integers to i32: the operand of an integer matmul,
/// which infc-vnni-matmul reads as the bytes themselves. Fusing the 8-bit producer (a
/// requantize) into it would hide the bytes and leave the matmul to the i32 kernel.
bool widensBytes(Operation *op) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || g.getNumDpsInputs() != 1 || g.getRegion().front().getOperations().size() != 2)
    return false;
  Operation &ext = g.getRegion().front().front();
  return isa<arith::ExtSIOp, arith::ExtUIOp>(ext) && ext.getOperand(0).getType().isInteger(8) &&
         ext.getResult(0).getType().isInteger(32);
}

struct InfcFuseElementwisePass
    : public infc::impl::InfcFuseElementwiseBase<InfcFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::ControlFusionFn control = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      // A value with other users stays materialized: fusing it would recompute the whole
      // producer chain (an embedding gather, a GELU) inside every consumer.
      return allParallel(producer) && allParallel(operand->getOwner()) &&
             !isa<linalg::FillOp>(producer) && operand->get().hasOneUse() &&
             !widensBytes(operand->getOwner());
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

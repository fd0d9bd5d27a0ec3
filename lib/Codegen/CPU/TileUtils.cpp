//===- TileUtils.cpp - steps shared by the tile-and-vectorize passes ------===//
#include "TileUtils.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;

bool infc::isRegisterTileable(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape())
    return false;
  Type et = cast<ShapedType>(op->getOperand(0).getType()).getElementType();
  return (et.isF32() || et.isSignlessInteger(32)) &&
         llvm::all_of(op->getOperandTypes(), [&](Type t) {
           return cast<ShapedType>(t).getElementType() == et;
         });
}

LogicalResult
infc::makePeeledTilesStatic(func::FuncOp func,
                            llvm::function_ref<void(RewritePatternSet &)> addOpPatterns) {
  MLIRContext *ctx = func.getContext();
  RewritePatternSet patterns(ctx);
  linalg::populateLinalgTilingCanonicalizationPatterns(patterns);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::InsertSliceOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::CastOp::getCanonicalizationPatterns(patterns, ctx);
  addOpPatterns(patterns);
  return applyPatternsGreedily(func, std::move(patterns));
}

bool infc::vectorizeTile(RewriterBase &rewriter, linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> v = linalg::vectorize(rewriter, op);
  if (failed(v))
    return false;
  if (!v->replacements.empty())
    rewriter.replaceOp(op, v->replacements);
  else
    rewriter.eraseOp(op);
  return true;
}

void infc::hoistLoopCarriedTiles(RewriterBase &rewriter, func::FuncOp func) {
  func.walk([&](scf::ForOp loop) {
    hoistLoopInvariantSubsets(rewriter, cast<LoopLikeOpInterface>(loop.getOperation()));
  });
}

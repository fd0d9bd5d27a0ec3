//===- TileAndVectorizeMatmul.cpp - register-tiled, vectorized matmul -----===//
//
// The recipe measured in design.md section 6: register tile mr x nr, K stepped by one,
// vectorize, reduction-to-contract, accumulators hoisted out of the K loop. Done on tensors
// so the hoisting works on iter_args instead of fighting memref aliasing.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"
#include "TileUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace infc {
#define GEN_PASS_DEF_INFCTILEANDVECTORIZEMATMUL
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// Register tile for an [M, N] f32 output. Per K step the kernel holds mr x nr accumulators,
/// nr / lanes B vectors and one broadcast A element: 8 x 32 uses 16 + 2 + 1 of AVX-512's 32
/// zmm registers, 6 x 16 uses 12 + 2 + 1 of AVX2's 16 ymm. Tiles that do not divide the
/// shape leave peeled static edge tiles.
std::pair<int64_t, int64_t> chooseRegisterTile(int64_t m, int64_t n, int64_t vectorBits) {
  int64_t lanes = std::max<int64_t>(4, vectorBits / 32);
  int64_t nr = 2 * lanes, mr = vectorBits >= 512 ? 8 : 6;
  if (n <= lanes)
    nr = lanes, mr *= 2;
  return {std::min(mr, m), nr};
}

struct InfcTileAndVectorizeMatmulPass
    : public infc::impl::InfcTileAndVectorizeMatmulBase<InfcTileAndVectorizeMatmulPass> {
  using InfcTileAndVectorizeMatmulBase::InfcTileAndVectorizeMatmulBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter batchRewriter(ctx);
    // Batched matmuls (attention): a loop over the batch around one matmul each, which the
    // register tiling below then handles like any other.
    SmallVector<linalg::BatchMatmulOp> batched;
    func.walk([&](linalg::BatchMatmulOp op) {
      if (infc::isRegisterTileable(op))
        batched.push_back(op);
    });
    for (linalg::BatchMatmulOp op : batched) {
      auto tileable = dyn_cast<TilingInterface>(op.getOperation());
      if (!tileable)
        continue;
      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(ctx, {1, 0, 0, 0}));
      batchRewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> result =
          scf::tileUsingSCF(batchRewriter, tileable, options);
      if (succeeded(result))
        batchRewriter.replaceOp(op, result->replacements);
    }
    if (!batched.empty()) {
      RewritePatternSet patterns(ctx);
      linalg::populateContractionOpRankReducingPatterns(patterns);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }

    SmallVector<linalg::MatmulOp> matmuls;
    func.walk([&](linalg::MatmulOp op) {
      if (infc::isRegisterTileable(op))
        matmuls.push_back(op);
    });

    IRRewriter rewriter(ctx);
    for (linalg::MatmulOp op : matmuls) {
      auto outType = cast<ShapedType>(op.getDpsInits()[0].getType());
      auto tile = chooseRegisterTile(outType.getDimSize(0), outType.getDimSize(1), vectorBits);
      auto tileable = dyn_cast<TilingInterface>(op.getOperation());
      if (!tileable) {
        op.emitOpError("has no TilingInterface (linalg's external models not registered)");
        return signalPassFailure();
      }
      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(ctx, {tile.first, tile.second, 1}));
      options.setInterchange({1, 0, 2});
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(rewriter, tileable, options);
      if (failed(result))
        continue;
      rewriter.replaceOp(op, result->replacements);
      // Output tiles are independent: the session's threads share out the column tiles, or
      // the row tiles of a matmul one tile wide (a packed panel outside the panel loop).
      // Inside infc-pack-matmul-panels' parallel loop the mark is ignored (nested).
      // Loops are (N, M, K) when all three exist; never mark the K loop.
      bool oneColumnTile = outType.getDimSize(1) <= tile.second;
      if (!oneColumnTile)
        result->loops[0]->setAttr("infc.parallel", rewriter.getUnitAttr());
      else if (result->loops.size() == 3)
        result->loops[1]->setAttr("infc.parallel", rewriter.getUnitAttr());
      // Peel the M loop, then the N loop around it: full tiles in the main loops and static
      // edge tiles after. Inner first, so the N edge's copy of the M loop is peeled too.
      for (LoopLikeOpInterface loop : llvm::reverse(ArrayRef(result->loops).drop_back())) {
        scf::ForOp partial;
        (void)scf::peelForLoopAndSimplifyBounds(rewriter, cast<scf::ForOp>(loop.getOperation()),
                                                partial);
      }
    }
    // Edge tiles become static once the peeled bounds fold into the slices.
    if (failed(infc::makePeeledTilesStatic(func, [&](RewritePatternSet &patterns) {
          linalg::MatmulOp::getCanonicalizationPatterns(patterns, ctx);
        })))
      return signalPassFailure();
    SmallVector<linalg::MatmulOp> tiles;
    func.walk([&](linalg::MatmulOp op) {
      if (op->getParentOfType<scf::ForOp>() && !op.hasDynamicShape())
        tiles.push_back(op);
    });
    for (linalg::MatmulOp op : tiles)
      (void)infc::vectorizeTile(rewriter, op);

    RewritePatternSet patterns(ctx);
    vector::populateVectorReductionToContractPatterns(patterns);
    // Broadcasts hidden in transfer permutation maps must surface to fold into the contract.
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateSinkVectorOpsPatterns(patterns);
    linalg::populateLinalgTilingCanonicalizationPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::InsertSliceOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();

    // The C tile: read once before the K loop, written once after it.
    infc::hoistLoopCarriedTiles(rewriter, func);
  }
};
} // namespace

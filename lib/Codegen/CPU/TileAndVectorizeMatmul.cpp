//===- TileAndVectorizeMatmul.cpp - register-tiled, vectorized matmul -----===//
//
// The recipe measured in design.md section 6: register tile mr x nr, K stepped by one,
// vectorize, reduction-to-contract, accumulators hoisted out of the K loop. Done on tensors
// so the hoisting works on iter_args instead of fighting memref aliasing.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"
#include "MatmulEpilogue.h"
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
/// The largest fill or epilogue vectorized as a fused C tile (elements): the biggest
/// register tile (6 x 64, 16 x 16) with room to spare.
constexpr int64_t kMaxFillTile = 1024;

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
    SmallVector<Operation *> batchTiles;
    for (linalg::BatchMatmulOp op : batched) {
      auto tileable = dyn_cast<TilingInterface>(op.getOperation());
      if (!tileable)
        continue;
      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(ctx, {1, 0, 0, 0}));
      batchRewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> result =
          scf::tileUsingSCF(batchRewriter, tileable, options);
      if (succeeded(result)) {
        batchRewriter.replaceOp(op, result->replacements);
        llvm::append_range(batchTiles, result->tiledOps);
      }
    }
    if (!batchTiles.empty()) {
      // The batch tiles only: a matmul of one row elsewhere (a pooler's, with its epilogue)
      // must stay a matmul, or it would not be register-tiled.
      RewritePatternSet patterns(ctx);
      linalg::populateContractionOpRankReducingPatterns(patterns);
      if (failed(applyOpPatternsGreedily(batchTiles, std::move(patterns))))
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
      infc::RegisterTile tile =
          infc::chooseRegisterTile(outType.getDimSize(0), outType.getDimSize(1), vectorBits);
      auto tileable = dyn_cast<TilingInterface>(op.getOperation());
      if (!tileable) {
        op.emitOpError("has no TilingInterface (linalg's external models not registered)");
        return signalPassFailure();
      }
      // Output tiles first (N, M), with a linalg.fill of C fused into them: the tile's
      // accumulators then start from the fill value in registers, and C is never read.
      // When infc-pack-matmul-panels gave the matmul an epilogue (the bias, activation...
      // of its panel), that is the op tiled, with the matmul fused into each of its tiles:
      // the epilogue then runs on the accumulators before anything is stored.
      Operation *root = op;
      if (op->hasOneUse())
        if (auto epilogue = dyn_cast<linalg::GenericOp>(*op->getUsers().begin()))
          if (epilogue->hasAttr(infc::kEpilogueMarker))
            root = epilogue;
      scf::SCFTileAndFuseOptions fuse;
      SmallVector<int64_t> sizes = {tile.rows, tile.cols};
      SmallVector<int64_t> interchange = {1, 0};
      if (root == op) {
        sizes.push_back(0);
        interchange.push_back(2);
      }
      fuse.tilingOptions.setTileSizes(getAsIndexOpFoldResult(ctx, sizes));
      fuse.tilingOptions.setInterchange(interchange);
      Operation *matmul = op;
      fuse.setFusionControlFn([matmul](tensor::ExtractSliceOp, OpResult producer,
                                       bool destination)
                                  -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        // The fill (the loop's destination, or, under an epilogue, the matmul's init), and
        // under an epilogue this matmul; no other producer (another matmul feeding A or the
        // epilogue would be recomputed in every tile).
        if (isa<linalg::FillOp>(producer.getOwner()) ||
            (!destination && producer.getOwner() == matmul))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
      rewriter.setInsertionPoint(root);
      FailureOr<scf::SCFTileAndFuseResult> outer =
          scf::tileConsumerAndFuseProducersUsingSCF(rewriter, cast<TilingInterface>(root),
                                                    fuse);
      if (failed(outer))
        continue;
      auto tiledMatmul = llvm::find_if(outer->tiledAndFusedOps,
                                       [](Operation *t) { return isa<linalg::MatmulOp>(t); });
      if (tiledMatmul == outer->tiledAndFusedOps.end()) {
        root->emitOpError("epilogue tiled without its matmul");
        return signalPassFailure();
      }
      auto tiled = cast<TilingInterface>(*tiledMatmul);
      for (OpResult r : root->getResults())
        rewriter.replaceAllUsesWith(r, outer->replacements.lookup(r));
      rewriter.eraseOp(root);
      if (root != op && op->use_empty())
        rewriter.eraseOp(op);
      for (Operation *producer : outer->fusedProducers)
        if (producer != op.getOperation() && producer->use_empty())
          rewriter.eraseOp(producer);
      // Then K by one inside the tile.
      scf::SCFTilingOptions kOptions;
      kOptions.setTileSizes(getAsIndexOpFoldResult(ctx, {0, 0, 1}));
      rewriter.setInsertionPoint(tiled);
      FailureOr<scf::SCFTilingResult> inner = scf::tileUsingSCF(rewriter, tiled, kOptions);
      if (failed(inner)) {
        tiled->emitOpError("K loop of the register tile not formed");
        return signalPassFailure();
      }
      rewriter.replaceOp(tiled, inner->replacements);
      std::optional<scf::SCFTilingResult> result = scf::SCFTilingResult{};
      result->loops = outer->loops;
      llvm::append_range(result->loops, inner->loops);
      // Output tiles are independent: the session's threads share out the column tiles, or
      // the row tiles of a matmul one tile wide (a packed panel outside the panel loop).
      // Inside infc-pack-matmul-panels' parallel loop the mark is ignored (nested).
      // Loops are (N, M, K) when all three exist; never mark the K loop.
      bool oneColumnTile = outType.getDimSize(1) <= tile.cols;
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
    // (the fused fills too: linalg's dialect patterns fold the casts of their operands.)
    if (failed(infc::makePeeledTilesStatic(func, [&](RewritePatternSet &patterns) {
          linalg::MatmulOp::getCanonicalizationPatterns(patterns, ctx);
          linalg::FillOp::getCanonicalizationPatterns(patterns, ctx);
          ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
          ctx->getLoadedDialect<tensor::TensorDialect>()->getCanonicalizationPatterns(patterns);
        })))
      return signalPassFailure();
    // The tiles, and the fills and epilogues fused with them: a fill of at most a register
    // tile (its vectorized form then folds into the accumulators' start value).
    SmallVector<linalg::LinalgOp> tiles;
    func.walk([&](Operation *op) {
      auto tile = dyn_cast<linalg::LinalgOp>(op);
      bool epilogue = isa<linalg::GenericOp>(op) && op->hasAttr(infc::kEpilogueMarker);
      // A matmul tile is always inside its K loop (one outside loops was not tiled). A
      // peeled edge tile's fill or epilogue may sit outside any loop once the loop of a
      // single column tile folded away: those of the matmul's own element types.
      bool inLoop = op->getParentOfType<scf::ForOp>() != nullptr;
      if (!tile || !(isa<linalg::MatmulOp, linalg::FillOp>(op) || epilogue) ||
          tile.hasDynamicShape() || !tile.hasPureTensorSemantics())
        return;
      Type et = cast<ShapedType>(op->getResult(0).getType()).getElementType();
      if (!inLoop && (isa<linalg::MatmulOp>(op) || !(et.isF32() || et.isSignlessInteger(32))))
        return;
      // Fills and epilogues of at most a register tile: one that was not tiled (its tiling
      // failed) must not become one huge vector.
      if ((isa<linalg::FillOp>(op) || epilogue) &&
          cast<ShapedType>(op->getResult(0).getType()).getNumElements() > kMaxFillTile)
        return;
      tiles.push_back(tile);
    });
    for (linalg::LinalgOp op : tiles)
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
    // A fused fill's write then meets that read, which folds to the fill value; the write
    // is overwritten by the tile's own and goes too.
    RewritePatternSet cleanup(ctx);
    vector::TransferReadOp::getCanonicalizationPatterns(cleanup, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(cleanup, ctx);
    scf::ForOp::getCanonicalizationPatterns(cleanup, ctx);
    if (failed(applyPatternsGreedily(func, std::move(cleanup))))
      return signalPassFailure();
  }
};
} // namespace

//===- TileAndVectorizeMatmul.cpp - register-tiled, vectorized matmul -----===//
//
// The recipe measured in design.md section 6: register tile mr x nr, K stepped by one,
// vectorize, reduction-to-contract, accumulators hoisted out of the K loop. Done on tensors
// so the hoisting works on iter_args instead of fighting memref aliasing.
//
//===----------------------------------------------------------------------===//
#include "MatmulEpilogue.h"
#include "TileUtils.h"
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace infc {
#define GEN_PASS_DEF_INFCTILEANDVECTORIZEMATMUL
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// The largest fill or epilogue vectorized as a fused C tile (elements): the biggest
/// register tile (6 x 64, 16 x 16) with room to spare.
constexpr int64_t kMaxFillTile = 1024;

/// A read of a slice of a tensor that a splat vector wholly overwrote (a fused fill, once
/// vectorized) is that splat: the one-vector column tiles of a split register tile start
/// from their slices of the fill.
struct FoldReadOfSplatWrite : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto slice = read.getBase().getDefiningOp<tensor::ExtractSliceOp>();
    auto write = slice ? slice.getSource().getDefiningOp<vector::TransferWriteOp>()
                       : vector::TransferWriteOp();
    if (!write || read.getMask() || write.getMask() ||
        write.getVectorType().getShape() != write.getShapedType().getShape() ||
        !llvm::all_of(write.getIndices(), [](Value v) { return isZeroInteger(v); }))
      return failure();
    SplatElementsAttr splat;
    Value scalar;
    if (matchPattern(write.getVector(), m_Constant(&splat)))
      scalar = arith::ConstantOp::create(rewriter, read.getLoc(), splat.getSplatValue<TypedAttr>());
    else if (auto broadcast = write.getVector().getDefiningOp<vector::BroadcastOp>();
             broadcast && !isa<VectorType>(broadcast.getSourceType()))
      scalar = broadcast.getSource();
    if (!scalar || scalar.getType() != read.getVectorType().getElementType())
      return failure();
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, read.getVectorType(), scalar);
    return success();
  }
};

/// extract_slice(insert_slice(x into d), s) with static, unit-stride slices that do not
/// overlap is extract_slice(d, s): an epilogue column tile of a split register tile then
/// reads its own K-loop result instead of the product written back and reloaded.
struct FoldExtractOfDisjointInsert : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp extract,
                                PatternRewriter &rewriter) const override {
    // Only within a chain of column writes (each insert's source a transfer_write, its
    // dest another such insert): reading a loop-carried tensor's older value instead would
    // make bufferization copy it.
    auto isColumnWrite = [](tensor::InsertSliceOp op) {
      return op && op.getSource().getDefiningOp<vector::TransferWriteOp>();
    };
    auto insert = extract.getSource().getDefiningOp<tensor::InsertSliceOp>();
    // Nor for a slice that is written too (the output tile of an epilogue that holds a
    // residual in place): it must come from the newest value.
    if (llvm::any_of(extract->getUsers(), [&](Operation *user) {
          auto write = dyn_cast<vector::TransferWriteOp>(user);
          return write && write.getBase() == extract.getResult();
        }))
      return failure();
    if (!isColumnWrite(insert) ||
        !isColumnWrite(insert.getDest().getDefiningOp<tensor::InsertSliceOp>()))
      return failure();
    if (!extract.hasUnitStride() || !insert.hasUnitStride() ||
        ShapedType::isDynamicShape(extract.getStaticOffsets()) ||
        ShapedType::isDynamicShape(insert.getStaticOffsets()) ||
        ShapedType::isDynamicShape(extract.getStaticSizes()) ||
        ShapedType::isDynamicShape(insert.getStaticSizes()) ||
        insert.getStaticSizes().size() != extract.getStaticSizes().size())
      return failure();
    bool disjoint = false;
    for (auto [eo, es, io, is] : llvm::zip(extract.getStaticOffsets(), extract.getStaticSizes(),
                                           insert.getStaticOffsets(), insert.getStaticSizes()))
      disjoint = disjoint || eo + es <= io || io + is <= eo;
    if (!disjoint)
      return failure();
    rewriter.modifyOpInPlace(extract, [&] { extract.getSourceMutable().assign(insert.getDest()); });
    return success();
  }
};

/// The one-vector column tiles of a split register tile are contractions of the same A
/// column (mr x 1) by their own B row (1 x lanes). Lowered one after the other, each would
/// broadcast all mr A elements and keep them live across the others: 24 accumulators + 8
/// broadcasts + a B vector spill AVX-512's 32 registers. Interleaved row by row instead:
/// broadcast A[i] once, one FMA into each column tile's row i (24 + 3 + 1 registers).
void interleaveColumnTiles(RewriterBase &rewriter, scf::ForOp loop) {
  SmallVector<vector::ContractionOp> contracts(loop.getBody()->getOps<vector::ContractionOp>());
  if (contracts.size() < 2)
    return;
  auto lhsSource = [](vector::ContractionOp c) -> std::pair<Value, ValueRange> {
    auto read = c.getLhs().getDefiningOp<vector::TransferReadOp>();
    return read ? std::make_pair(read.getBase(), ValueRange(read.getIndices()))
                : std::make_pair(Value(), ValueRange());
  };
  MLIRContext *ctx = loop.getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  SmallVector<AffineMap> standard = {AffineMap::get(3, 0, {m, k}, ctx),
                                     AffineMap::get(3, 0, {k, n}, ctx),
                                     AffineMap::get(3, 0, {m, n}, ctx)};
  auto [base, indices] = lhsSource(contracts.front());
  for (vector::ContractionOp c : contracts) {
    auto [b, idx] = lhsSource(c);
    auto lhsType = c.getLhsType(), rhsType = c.getRhsType();
    if (!base || b != base || !llvm::equal(idx, indices) || c.getIndexingMapsArray() != standard ||
        c.getKind() != vector::CombiningKind::ADD || lhsType.getRank() != 2 ||
        lhsType.getDimSize(1) != 1 || rhsType.getDimSize(0) != 1 ||
        !isa<VectorType>(c.getAccType()) || c->getBlock() != contracts.front()->getBlock() ||
        !isa<FloatType>(lhsType.getElementType()))
      return;
  }
  vector::ContractionOp last = contracts.back();
  rewriter.setInsertionPoint(last);
  Location loc = last.getLoc();
  Value lhs = contracts.front().getLhs();
  int64_t rows = contracts.front().getLhsType().getDimSize(0);
  SmallVector<Value> accs, rhsRows;
  for (vector::ContractionOp c : contracts) {
    accs.push_back(c.getAcc());
    rhsRows.push_back(vector::ExtractOp::create(rewriter, loc, c.getRhs(), ArrayRef<int64_t>{0}));
  }
  for (int64_t i = 0; i < rows; ++i) {
    Value a = vector::ExtractOp::create(rewriter, loc, lhs, ArrayRef<int64_t>{i, 0});
    for (auto [j, rhsRow] : llvm::enumerate(rhsRows)) {
      auto rowType = cast<VectorType>(rhsRow.getType());
      Value broadcast = vector::BroadcastOp::create(rewriter, loc, rowType, a);
      Value row = vector::ExtractOp::create(rewriter, loc, accs[j], ArrayRef<int64_t>{i});
      Value sum = vector::FMAOp::create(rewriter, loc, broadcast, rhsRow, row);
      accs[j] = vector::InsertOp::create(rewriter, loc, sum, accs[j], ArrayRef<int64_t>{i});
    }
  }
  for (auto [c, acc] : llvm::zip(contracts, accs))
    rewriter.replaceOp(c, acc);
}

/// The epilogue of a register tile (bias, residual, activation) vectorizes as ops on whole
/// [rows, cols] tiles: a residual tile read whole is 24 more registers beside the 24
/// accumulators of a 6 x 64 tile, and LLVM spills them (a 1x1 convolution with a residual
/// add spent a fifth of its time on the stack). Row by row instead: each row reads,
/// combines and writes its own vectors, starting from row i of the K loop's result.
/// `write` stores the tile; the chain behind it is elementwise ops, broadcasts of rows or
/// scalars, splat constants and minor-identity reads, all of the tile's shape and used only
/// there; it reads at least one K loop result.
LogicalResult splitEpilogueRows(RewriterBase &rewriter, vector::TransferWriteOp write) {
  VectorType type = write.getVectorType();
  if (type.getRank() != 2 || type.getDimSize(0) < 2 || write.getMask() ||
      !write.getPermutationMap().isMinorIdentity() ||
      !llvm::all_of(write.getInBoundsValues(), [](bool b) { return b; }))
    return failure();
  ArrayRef<int64_t> shape = type.getShape();
  auto isTile = [&](Type t) {
    auto v = dyn_cast<VectorType>(t);
    return v && v.getShape() == shape && !v.isScalable();
  };
  Block *block = write->getBlock();
  SetVector<Operation *> chain;
  bool readsAccumulators = false;
  SmallVector<Value> worklist = {write.getVector()};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!isTile(v.getType()))
      return failure();
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block || isa<scf::ForOp>(def)) {
      readsAccumulators |= def && isa<scf::ForOp>(def);
      continue; // a whole tile from elsewhere: its rows are extracted
    }
    if (chain.contains(def))
      continue;
    if (auto read = dyn_cast<vector::TransferReadOp>(def)) {
      if (read.getMask() || !read.getPermutationMap().isMinorIdentity() ||
          !llvm::all_of(read.getInBoundsValues(), [](bool b) { return b; }))
        return failure();
      // A read of the written tensor (an in-place residual) only at the tile written: its
      // rows are then read from the rows written before them (below).
      if (read.getBase() == write.getBase() && read.getIndices() != write.getIndices())
        return failure();
    } else if (auto broadcast = dyn_cast<vector::BroadcastOp>(def)) {
      auto source = dyn_cast<VectorType>(broadcast.getSourceType());
      if (source && (source.getShape().back() != shape[1] || source.getNumElements() != shape[1]))
        return failure();
    } else if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
      if (!isa<SplatElementsAttr>(constant.getValue()))
        return failure();
    } else if (OpTrait::hasElementwiseMappableTraits(def) && def->getNumResults() == 1 &&
               def->getNumRegions() == 0) {
      llvm::append_range(worklist, def->getOperands());
    } else {
      return failure();
    }
    chain.insert(def);
  }
  if (chain.empty() || !readsAccumulators)
    return failure();
  for (Operation *op : chain)
    for (Operation *user : op->getUsers())
      if (user != write && !chain.contains(user))
        return failure();
  SmallVector<Operation *> ordered(chain.begin(), chain.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });

  rewriter.setInsertionPoint(write);
  Location loc = write.getLoc();
  auto rowType = [&](Type t) {
    return VectorType::get({shape[1]}, cast<VectorType>(t).getElementType());
  };
  auto shifted = [&](ValueRange indices, int64_t row) {
    SmallVector<Value> out(indices);
    Value &index = out[out.size() - 2];
    index = arith::AddIOp::create(rewriter, loc, index,
                                  arith::ConstantIndexOp::create(rewriter, loc, row));
    return out;
  };
  Value dest = write.getBase();
  for (int64_t i = 0; i < shape[0]; ++i) {
    IRMapping rows;
    auto rowOf = [&](Value v) -> Value {
      if (Value mapped = rows.lookupOrNull(v))
        return mapped;
      Value r = vector::ExtractOp::create(rewriter, loc, v, ArrayRef<int64_t>{i});
      rows.map(v, r);
      return r;
    };
    for (Operation *op : ordered) {
      Value row;
      if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
        // A tile read from the tensor it is written into (a residual held in place) reads
        // row i after the rows before it are written: from the last write's result, so that
        // bufferization sees one tensor updated in place.
        Value base = read.getBase() == write.getBase() ? dest : read.getBase();
        row = vector::TransferReadOp::create(rewriter, loc, rowType(read.getVectorType()), base,
                                             shifted(read.getIndices(), i), read.getPadding(),
                                             ArrayRef<bool>{true});
      } else if (auto broadcast = dyn_cast<vector::BroadcastOp>(op)) {
        Value source = broadcast.getSource();
        auto sourceType = dyn_cast<VectorType>(source.getType());
        if (!sourceType)
          row = vector::BroadcastOp::create(rewriter, loc, rowType(broadcast.getType()), source);
        else if (sourceType.getRank() == 1)
          row = source;
        else
          row = vector::ShapeCastOp::create(rewriter, loc, rowType(broadcast.getType()), source);
      } else if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        auto splat = cast<SplatElementsAttr>(constant.getValue());
        row = arith::ConstantOp::create(
            rewriter, loc,
            SplatElementsAttr::get(rowType(constant.getType()), splat.getSplatValue<Attribute>()));
      } else {
        IRMapping operands;
        for (Value operand : op->getOperands())
          operands.map(operand, rowOf(operand));
        Operation *clone = rewriter.clone(*op, operands);
        clone->getResult(0).setType(rowType(op->getResult(0).getType()));
        row = clone->getResult(0);
      }
      rows.map(op->getResult(0), row);
    }
    auto rowWrite =
        vector::TransferWriteOp::create(rewriter, loc, rowOf(write.getVector()), dest,
                                        shifted(write.getIndices(), i), ArrayRef<bool>{true});
    if (rowWrite->getNumResults())
      dest = rowWrite.getResult();
  }
  if (write->getNumResults())
    rewriter.replaceOp(write, dest);
  else
    rewriter.eraseOp(write);
  for (Operation *op : llvm::reverse(ordered))
    rewriter.eraseOp(op);
  return success();
}

/// Tiles `op` by one vector along its last (column) dim and unrolls the loop.
LogicalResult splitOneVectorColumns(RewriterBase &rewriter, TilingInterface op, int64_t lanes) {
  SmallVector<int64_t> sizes(op.getLoopIteratorTypes().size(), 0);
  sizes[1] = lanes;
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> split = scf::tileUsingSCF(rewriter, op, options);
  if (failed(split))
    return failure();
  rewriter.replaceOp(op, split->replacements);
  for (LoopLikeOpInterface loop : split->loops)
    if (failed(loopUnrollFull(cast<scf::ForOp>(loop.getOperation()))))
      return failure();
  return success();
}

/// A tile three vectors wide (8 x 48, 7 x 48) as one vector a row would reach LLVM as
/// <48 x float> rows, which it widens to 64 lanes: four registers a row, a quarter of the
/// FMAs wasted and the accumulators spilled (an 8 x 48 GEMM ran 40 times slower). So the
/// K step's matmul is split into one-vector column tiles (unrolled), whose C subsets the
/// hoisting after vectorization carries as accumulators of their own (each starting from
/// its slice of the fill: FoldReadOfSplatWrite), and an epilogue tile likewise, so that
/// each of its column tiles reads one K-loop result (FoldExtractOfDisjointInsert).
LogicalResult splitColumns(RewriterBase &rewriter, LoopLikeOpInterface kLoop,
                           Operation *epilogueTile, int64_t lanes) {
  auto loop = cast<scf::ForOp>(kLoop.getOperation());
  auto step = llvm::to_vector(loop.getBody()->getOps<linalg::MatmulOp>());
  if (step.size() != 1 || failed(splitOneVectorColumns(
                              rewriter, cast<TilingInterface>(step.front().getOperation()), lanes)))
    return loop.emitOpError("register tile not split into one-vector columns");
  if (epilogueTile &&
      failed(splitOneVectorColumns(rewriter, cast<TilingInterface>(epilogueTile), lanes)))
    return epilogueTile->emitOpError("epilogue tile not split into one-vector columns");
  return success();
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
    SmallVector<Operation *> batchTiles;
    for (linalg::BatchMatmulOp op : batched) {
      auto tileable = dyn_cast<TilingInterface>(op.getOperation());
      if (!tileable)
        continue;
      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(ctx, {1, 0, 0, 0}));
      batchRewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(batchRewriter, tileable, options);
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
      int64_t lanes = infc::f32Lanes(vectorBits);
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
      fuse.setFusionControlFn(
          [matmul](tensor::ExtractSliceOp, OpResult producer,
                   bool destination) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
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
          scf::tileConsumerAndFuseProducersUsingSCF(rewriter, cast<TilingInterface>(root), fuse);
      if (failed(outer))
        continue;
      auto tiledMatmul = llvm::find_if(outer->tiledAndFusedOps,
                                       [](Operation *t) { return isa<linalg::MatmulOp>(t); });
      if (tiledMatmul == outer->tiledAndFusedOps.end()) {
        root->emitOpError("epilogue tiled without its matmul");
        return signalPassFailure();
      }
      auto tiled = cast<TilingInterface>(*tiledMatmul);
      Operation *epilogueTile = nullptr;
      if (root != op)
        for (Operation *t : outer->tiledAndFusedOps)
          if (isa<linalg::GenericOp>(t) && t->hasAttr(infc::kEpilogueMarker))
            epilogueTile = t;
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
      if (tile.cols > lanes && !llvm::isPowerOf2_64(tile.cols / lanes) &&
          failed(splitColumns(rewriter, inner->loops.front(), epilogueTile, lanes)))
        return signalPassFailure();
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
    SmallVector<scf::ForOp> kLoops;
    func.walk([&](scf::ForOp loop) { kLoops.push_back(loop); });
    for (scf::ForOp loop : kLoops)
      interleaveColumnTiles(rewriter, loop);
    // A fused fill's write then meets that read, which folds to the fill value; the write
    // is overwritten by the tile's own and goes too.
    RewritePatternSet cleanup(ctx);
    vector::TransferReadOp::getCanonicalizationPatterns(cleanup, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(cleanup, ctx);
    scf::ForOp::getCanonicalizationPatterns(cleanup, ctx);
    cleanup.add<FoldReadOfSplatWrite, FoldExtractOfDisjointInsert>(ctx);
    tensor::ExtractSliceOp::getCanonicalizationPatterns(cleanup, ctx);
    if (failed(applyPatternsGreedily(func, std::move(cleanup))))
      return signalPassFailure();

    // The column tiles of a split tile write disjoint slices of one C tile (or epilogue
    // tile): through those slices one-shot bufferization would copy each of them; written
    // straight into the tile, one after the other, they bufferize in place.
    SmallVector<Operation *> columnWrites;
    func.walk([&](tensor::InsertSliceOp insert) {
      auto write = insert.getSource().getDefiningOp<vector::TransferWriteOp>();
      auto slice = write ? write.getBase().getDefiningOp<tensor::ExtractSliceOp>()
                         : tensor::ExtractSliceOp();
      if (slice && llvm::count_if(slice.getSource().getUsers(),
                                  [](Operation *u) { return isa<tensor::ExtractSliceOp>(u); }) > 1)
        columnWrites.push_back(insert);
    });
    if (!columnWrites.empty()) {
      RewritePatternSet subsets(ctx);
      tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(subsets);
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingOps);
      if (failed(applyOpPatternsGreedily(columnWrites, std::move(subsets), config)))
        return signalPassFailure();
      // The column writes into their slices, now unused (their epilogue chains must have
      // one user each to be split into rows below).
      func.walk([&](vector::TransferWriteOp write) {
        if (write->getNumResults() && write->use_empty())
          rewriter.eraseOp(write);
      });
    }
    // Last, once the epilogues read the K loops' results (the folds above).
    SmallVector<vector::TransferWriteOp> tileWrites;
    func.walk([&](vector::TransferWriteOp write) { tileWrites.push_back(write); });
    for (vector::TransferWriteOp write : tileWrites)
      (void)splitEpilogueRows(rewriter, write);
  }
};
} // namespace

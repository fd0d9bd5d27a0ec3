//===- VectorizeElementwise.cpp - SIMD for everything that is not a matmul -===//
//
// After the graph is fused, what is left besides contractions are elementwise chains
// (bias + GELU, residual adds, casts), reductions (softmax, layer norm, Reduce*) and data
// movement (transpose, broadcast). Lowered to loops they run one scalar per instruction, and
// LLVM's loop vectorizer gives up on them (calls to libm, unknown aliasing in the arena).
// Here each such op is tiled so its innermost loop dimension becomes one SIMD vector and the
// tile is vectorized in MLIR, on tensors:
//   - all-parallel ops: tiles [1, .., 1, lanes]; the innermost loop peeled to static tiles;
//   - a reduction over the innermost dimension (softmax, layer norm): partial reduction, a
//     loop that accumulates lanes-wide vectors, then one horizontal merge per row;
//   - a reduction over outer dimensions: the reduction dims tiled by one, which leaves a
//     lanes-wide elementwise accumulation per step.
// Large ops get their outermost tiled loop marked infc.parallel for the session's threads.
//
//===----------------------------------------------------------------------===//
#include "TileUtils.h"
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace infc {
#define GEN_PASS_DEF_INFCVECTORIZEELEMENTWISE
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
constexpr StringLiteral kVectorizeMarker = "infc.vectorize";

/// Lanes of one vector register for the widest element type the op touches.
int64_t lanesFor(linalg::LinalgOp op, int64_t vectorBits) {
  unsigned widest = 8;
  for (Type t : op->getOperandTypes())
    if (auto shaped = dyn_cast<ShapedType>(t))
      if (shaped.getElementType().isIntOrFloat())
        widest = std::max(widest, shaped.getElementType().getIntOrFloatBitWidth());
  return std::max<int64_t>(1, vectorBits / widest);
}

/// A full read of a filled tensor is a broadcast of the fill value. With read-after-write
/// forwarding this leaves a partial-reduction accumulator no tensor at all, so nothing is
/// allocated per row (an allocation inside a loop is neither planned nor freed).
struct ReadOfFillToBroadcast : public OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto fill = read.getBase().getDefiningOp<linalg::FillOp>();
    if (!fill || read.getMask() || !read.getPermutationMap().isMinorIdentity())
      return failure();
    auto sourceType = cast<ShapedType>(read.getBase().getType());
    if (!sourceType.hasStaticShape() || sourceType.getShape() != read.getVectorType().getShape() ||
        !llvm::all_of(read.getIndices(), [](Value v) { return isZeroInteger(v); }))
      return failure();
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, read.getVectorType(),
                                                     fill.getInputs()[0]);
    return success();
  }
};

bool isCandidate(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() == 0 ||
      op->getParentOfType<LoopLikeOpInterface>())
    return false;
  // A symbolic dim (the generic code of `infc compile --dim`) may be a parallel loop: tiled
  // by one, an outer one leaves static tiles; the innermost one's vectors are peeled from a
  // scalar edge (the scores' scale and mask over the sequence). It may be the one reduction
  // if innermost (a softmax over the sequence): whole vectors, then the edge (tile()).
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t reductions = llvm::count(iterators, utils::IteratorType::reduction);
  for (auto [d, range] : llvm::enumerate(ranges))
    if (ShapedType::isDynamic(range) && iterators[d] != utils::IteratorType::parallel &&
        (d + 1 != ranges.size() || reductions != 1))
      return false;
  // Contractions and convolutions have their own code generation (or none yet).
  if (linalg::isaContractionOpInterface(op) || linalg::isaConvolutionOpInterface(op) ||
      op->hasAttr("infc.amx"))
    return false;
  if (!isa<linalg::GenericOp, linalg::TransposeOp, linalg::BroadcastOp, linalg::MapOp,
           linalg::CopyOp>(op.getOperation()))
    return false;
  // Bool and 4-/2-bit tensors hold one byte per element, but a vector of i1 or i4 is packed
  // bits in LLVM: ops reading or writing them stay scalar.
  return llvm::all_of(op->getOperandTypes(), [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return !shaped || (shaped.getElementType().isIntOrFloat() &&
                       shaped.getElementType().getIntOrFloatBitWidth() % 8 == 0);
  });
}

struct InfcVectorizeElementwisePass
    : public infc::impl::InfcVectorizeElementwiseBase<InfcVectorizeElementwisePass> {
  using InfcVectorizeElementwiseBase::InfcVectorizeElementwiseBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);
    SmallVector<linalg::LinalgOp> candidates;
    func.walk([&](linalg::LinalgOp op) {
      if (isCandidate(op))
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates) {
      if (!isa<linalg::GenericOp>(op.getOperation())) {
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::GenericOp> generic = linalg::generalizeNamedOp(rewriter, op);
        if (failed(generic))
          continue;
        op = *generic;
      }
      if (failed(linalg::vectorizeOpPrecondition(op)))
        continue;
      tile(rewriter, cast<linalg::GenericOp>(op.getOperation()));
    }

    // Peeled tiles become static once their bounds fold into the slices.
    if (failed(infc::makePeeledTilesStatic(func, [&](RewritePatternSet &patterns) {
          linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
        })))
      return signalPassFailure();

    SmallVector<linalg::LinalgOp> tiles;
    func.walk([&](linalg::LinalgOp op) {
      // A peeled tile's input may still come through a tensor.cast to a dynamic shape
      // while its slice is already static: read the static slice.
      if (op->hasAttr(kVectorizeMarker) && tensor::hasFoldableTensorCastOperand(op))
        (void)tensor::foldTensorCast(op);
      if (op->hasAttr(kVectorizeMarker) && !op.hasDynamicShape())
        tiles.push_back(op);
    });
    for (linalg::LinalgOp op : tiles) {
      op->removeAttr(kVectorizeMarker);
      if (succeeded(linalg::vectorizeOpPrecondition(op)))
        (void)infc::vectorizeTile(rewriter, op);
    }
    // Markers left on tiles that kept a dynamic shape.
    func.walk([&](Operation *op) { op->removeAttr(kVectorizeMarker); });
    {
      // One SSA value per constant index, so reads and writes of a slice can be matched.
      RewritePatternSet patterns(ctx);
      vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
      vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
      tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
      tensor::InsertSliceOp::getCanonicalizationPatterns(patterns, ctx);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }
    // Partial-reduction accumulators: read once before their loop, written once after, so
    // they live in registers.
    infc::hoistLoopCarriedTiles(rewriter, func);
    {
      RewritePatternSet patterns(ctx);
      patterns.add<ReadOfFillToBroadcast>(ctx);
      vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
      vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
      scf::ForOp::getCanonicalizationPatterns(patterns, ctx);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }
  }

  void tile(IRRewriter &rewriter, linalg::GenericOp op) {
    MLIRContext *ctx = op.getContext();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    int64_t loops = ranges.size(), inner = loops - 1;
    int64_t lanes = lanesFor(op, vectorBits);
    // A symbolic dim counts as large (for the threads' share below).
    int64_t elements = 1;
    for (int64_t r : ranges)
      elements = ShapedType::isDynamic(r) ? std::max<int64_t>(elements, parallelMinElements)
                                          : elements * r;
    SmallVector<unsigned> reductionDims;
    for (int64_t d = 0; d < loops; ++d)
      if (iterators[d] == utils::IteratorType::reduction)
        reductionDims.push_back(d);

    SmallVector<int64_t> sizes(loops, 0);
    // Unit dims need no loop; other outer dims go one at a time, the innermost a vector.
    for (int64_t d = 0; d < inner; ++d)
      sizes[d] = ranges[d] == 1 ? 0 : 1;
    bool dynamicInner = ShapedType::isDynamic(ranges[inner]);
    sizes[inner] = dynamicInner ? lanes : std::min(lanes, ranges[inner]);
    bool innerReduction = iterators[inner] == utils::IteratorType::reduction;
    // A transpose (an input whose contiguous dim is another loop dim): tiles of up to lanes
    // x lanes, read as rows of that input and turned in registers, instead of one strided
    // element per lane (a cache line and, at large strides, a page per element).
    if (!innerReduction && ranges[inner] >= lanes) {
      for (OpOperand *in : op.getDpsInputOperands()) {
        AffineMap map = op.getMatchingIndexingMap(in);
        if (map.getNumResults() == 0)
          continue;
        auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
        if (!last || last.getPosition() == (unsigned)inner)
          continue;
        unsigned d = last.getPosition();
        if (iterators[d] != utils::IteratorType::parallel || ShapedType::isDynamic(ranges[d]))
          continue;
        // The largest of lanes, lanes / 2, lanes / 4 (at least 4) that divides the dim.
        for (int64_t t = lanes; t >= 4 && sizes[d] <= 1; t /= 2)
          if (ranges[d] % t == 0)
            sizes[d] = t;
        if (sizes[d] > 1)
          break;
      }
    }
    // A reduction over the one innermost dim accumulates vectors, then merges each row once;
    // the partial-reduction tiling takes no parallel dims, so those are tiled first.
    if (innerReduction && (reductionDims.size() != 1 ||
                           (!dynamicInner && (ranges[inner] < 2 * lanes || ranges[inner] % lanes))))
      return;
    SmallVector<int64_t> outerSizes = sizes;
    if (innerReduction)
      outerSizes[inner] = 0;

    Operation *target = op;
    SmallVector<LoopLikeOpInterface> loopNest;
    if (llvm::any_of(outerSizes, [](int64_t s) { return s != 0; })) {
      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(ctx, outerSizes));
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> result =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(result) || result->tiledOps.size() != 1)
        return;
      rewriter.replaceOp(op, result->replacements);
      target = result->tiledOps.front();
      loopNest = result->loops;
      // The outermost loop over a parallel dim carries the threads when the op is large.
      // One of a few iterations that 4 do not divide (a 7x7 map's 7 rows: 4 : 3 on 2
      // threads) takes the next loop along if that is over a parallel dim too:
      // infc-parallelize-loops merges the two, and the threads share out their product.
      SmallVector<int64_t> tiledDims;
      for (auto [d, size] : llvm::enumerate(outerSizes))
        if (size != 0)
          tiledDims.push_back(d);
      if (elements >= parallelMinElements && !loopNest.empty() &&
          iterators[tiledDims.front()] == utils::IteratorType::parallel) {
        loopNest.front()->setAttr("infc.parallel", rewriter.getUnitAttr());
        int64_t d0 = tiledDims.front(), trips = (ranges[d0] + outerSizes[d0] - 1) / outerSizes[d0];
        constexpr int64_t kFewIterations = 32;
        if (!ShapedType::isDynamic(ranges[d0]) && trips < kFewIterations && trips % 4 != 0 &&
            loopNest.size() > 1 && iterators[tiledDims[1]] == utils::IteratorType::parallel)
          loopNest[1]->setAttr("infc.parallel", rewriter.getUnitAttr());
      }
    }
    if (!innerReduction) {
      target->setAttr(kVectorizeMarker, rewriter.getUnitAttr());
      // Static tiles for the vectorizer: peel the innermost loop when lanes do not divide it
      // (or may not: a symbolic size).
      if (!loopNest.empty() && (dynamicInner || ranges[inner] % sizes[inner] != 0)) {
        scf::ForOp partial;
        (void)scf::peelForLoopAndSimplifyBounds(
            rewriter, cast<scf::ForOp>(loopNest.back().getOperation()), partial);
      }
      return;
    }
    // Over a symbolic size: the whole vectors' share first, the edge after it, as one
    // reduction continues another (the edge's init is the share's result: the same order).
    Operation *edge = nullptr;
    if (dynamicInner) {
      std::optional<std::pair<Operation *, Operation *>> split =
          splitAtWholeVectors(rewriter, cast<TilingInterface>(target), inner, lanes);
      if (!split)
        return;
      std::tie(target, edge) = *split;
    }
    SmallVector<int64_t> reductionSizes(loops, 0);
    reductionSizes[inner] = lanes;
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(ctx, reductionSizes));
    options.setReductionTilingStrategy(ReductionTilingStrategy::PartialReductionOuterReduction);
    options.setReductionDims(reductionDims);
    rewriter.setInsertionPoint(target);
    FailureOr<scf::SCFTilingResult> result =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(target), options);
    if (failed(result))
      return;
    rewriter.replaceOp(target, result->replacements);
    for (Operation *tiled : result->tiledOps)
      tiled->setAttr(kVectorizeMarker, rewriter.getUnitAttr());
    for (Operation *merge : result->mergeOps)
      merge->setAttr(kVectorizeMarker, rewriter.getUnitAttr());
    if (edge && !result->loops.empty()) {
      // The share is a multiple of the lanes: every tile is whole, so a tile size (the
      // min of the lanes and what is left) is the lanes.
      auto loop = cast<scf::ForOp>(result->loops.back().getOperation());
      SmallVector<affine::AffineMinOp> mins;
      loop.getBody()->walk([&](affine::AffineMinOp min) {
        AffineMap map = min.getAffineMap();
        if (map.getNumResults() == 2 && llvm::any_of(map.getResults(), [&](AffineExpr e) {
              auto c = dyn_cast<AffineConstantExpr>(e);
              return c && c.getValue() == lanes;
            }))
          mins.push_back(min);
      });
      for (affine::AffineMinOp min : mins) {
        rewriter.setInsertionPoint(min);
        rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(min, lanes);
      }
    }
  }

  /// `op` (its reduction dim `inner` of a run-time size) as two ops over [0, whole) and
  /// [whole, size), whole the size rounded down to a multiple of `lanes`, the second
  /// continuing from the first's result; nullopt when it does not split so.
  std::optional<std::pair<Operation *, Operation *>>
  splitAtWholeVectors(IRRewriter &rewriter, TilingInterface op, int64_t inner, int64_t lanes) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    SmallVector<Range> domain = op.getIterationDomain(rewriter);
    SmallVector<OpFoldResult> offsets, sizes;
    for (const Range &r : domain) {
      offsets.push_back(r.offset);
      sizes.push_back(r.size);
    }
    if (!isZeroInteger(offsets[inner]) || op->getNumResults() != 1)
      return std::nullopt;
    AffineExpr s0;
    bindSymbols(rewriter.getContext(), s0);
    OpFoldResult size = sizes[inner];
    OpFoldResult whole = affine::makeComposedFoldedAffineApply(
        rewriter, loc, s0.floorDiv(lanes) * lanes, ArrayRef<OpFoldResult>{size});
    OpFoldResult left = affine::makeComposedFoldedAffineApply(rewriter, loc, s0 % lanes,
                                                              ArrayRef<OpFoldResult>{size});
    sizes[inner] = whole;
    FailureOr<TilingResult> share = op.getTiledImplementation(rewriter, offsets, sizes);
    offsets[inner] = whole;
    sizes[inner] = left;
    FailureOr<TilingResult> rest = op.getTiledImplementation(rewriter, offsets, sizes);
    if (failed(share) || failed(rest) || share->tiledOps.size() != 1 || rest->tiledOps.size() != 1)
      return std::nullopt;
    auto first = dyn_cast<linalg::LinalgOp>(share->tiledOps.front());
    auto second = dyn_cast<linalg::LinalgOp>(rest->tiledOps.front());
    // (a reduction's tile writes the whole of each result: the same types as the op's)
    if (!first || !second || first->getResultTypes() != op->getResultTypes() ||
        second->getResultTypes() != op->getResultTypes())
      return std::nullopt;
    second.getDpsInitsMutable()[0].assign(first->getResult(0));
    rewriter.replaceOp(op, second->getResults());
    return std::make_pair(first.getOperation(), second.getOperation());
  }
};
} // namespace

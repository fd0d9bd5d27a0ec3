//===- SplitReduction.cpp - a small contraction's reduction split into slices --===//
//
// A tiled contraction kernel (TiledContraction.cpp) gives each block one output tile and
// the whole reduction. When even 32 x 32 tiles leave most SMs idle (a batch-1 conv late in
// a ResNet: 512 filters x 49 pixels, 4608 deep), the few blocks walk long reductions one
// step after another. Splitting the reduction into S slices makes S times the blocks, each
// with 1/S of the steps, at the price of S partial outputs summed by one elementwise kernel
// (which the epilogue joins). This is split-K as cuBLAS and CUTLASS use it for such shapes.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "TiledContraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace infc {
#define GEN_PASS_DEF_INFCSPLITREDUCTION
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// How a contraction is split: its slices, and the reduction dimension they divide.
struct Split {
  int64_t slices;
  unsigned dim;
};

/// Where loop dimension `d` indexes the operand of indexing map `map`: the result that is
/// `d` itself, -1 if none reads it, nullopt if one is a compound of it (a conv input's
/// oh + kh) or several read it.
std::optional<int64_t> plainPosition(AffineMap map, unsigned d) {
  int64_t position = -1;
  for (auto [i, result] : llvm::enumerate(map.getResults())) {
    if (!result.isFunctionOfDim(d))
      continue;
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim || position >= 0)
      return std::nullopt;
    position = i;
  }
  return position;
}

/// The split of `op` (tensors), if it needs one: the fewest slices (a power of two, at
/// most `maxSplits`) that give its 32 x 32 tiles `minBlocks` blocks, each slice keeping
/// `minDepth` of the reduction, of the outermost reduction dimension whose range they
/// divide and that each input reads as one of its dimensions (which then splits in two:
/// slice and position in it).
std::optional<Split> splitOf(linalg::LinalgOp op, int64_t minBlocks, int64_t minDepth,
                             int64_t maxSplits) {
  // Only the function's own ops take tiled kernels (not those in a model's loops).
  if (!op.hasPureTensorSemantics() || !isa<FunctionOpInterface>(op->getParentOp()))
    return std::nullopt;
  std::optional<infc::ContractionTiling> t = infc::classifyContraction(op);
  if (!t)
    return std::nullopt;
  int64_t blocks = t->blocks(32);
  int64_t slices = 1;
  while (2 * slices <= maxSplits && blocks * slices < minBlocks &&
         t->depth / (2 * slices) >= minDepth && t->batch * 2 * slices <= 65535)
    slices *= 2;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto plain = [&](unsigned d) {
    return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
      return plainPosition(op.getMatchingIndexingMap(input), d).has_value();
    });
  };
  for (; slices > 1; slices /= 2)
    for (unsigned d : t->reductionDims) // loop order: the outermost first
      if (ranges[d] % slices == 0 && plain(d))
        return Split{slices, d};
  return std::nullopt;
}

Value add(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<IntegerType>(x.getType()))
    return arith::AddIOp::create(b, loc, x, y);
  return arith::AddFOp::create(b, loc, x, y);
}

/// Rewrites `op` (a generic) as the partial sums of `split.slices` slices of its reduction
/// and their total.
void splitContraction(RewriterBase &rewriter, linalg::GenericOp op, Split split) {
  MLIRContext *ctx = rewriter.getContext();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  unsigned loops = op.getNumLoops();
  int64_t chunk = op.getStaticLoopRanges()[split.dim] / split.slices;
  // The slice is a new parallel loop dimension (the last), `dim` now its range / slices:
  // an input's dimension that `dim` indexed is expanded into (slices, chunk), read at
  // (slice, dim); the partial sums have the slice first.
  AffineExpr slice = getAffineDimExpr(loops, ctx);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    int64_t position = *plainPosition(map, split.dim);
    SmallVector<AffineExpr> results(map.getResults());
    Value value = input->get();
    if (position >= 0) {
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape[position] = chunk;
      shape.insert(shape.begin() + position, split.slices);
      SmallVector<ReassociationIndices> groups;
      for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
        if (i < position)
          groups.push_back({i});
        else if (i == position)
          groups.push_back({i, i + 1});
        else
          groups.push_back({i + 1});
      }
      value = tensor::ExpandShapeOp::create(rewriter, loc, type.clone(shape), value, groups);
      results.insert(results.begin() + position, slice);
    }
    inputs.push_back(value);
    maps.push_back(AffineMap::get(loops + 1, 0, results, ctx));
  }
  OpOperand *out = op.getDpsInitOperand(0);
  SmallVector<AffineExpr> partialResults = {slice};
  llvm::append_range(partialResults, op.getMatchingIndexingMap(out).getResults());
  maps.push_back(AffineMap::get(loops + 1, 0, partialResults, ctx));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::parallel);

  auto outType = cast<RankedTensorType>(out->get().getType());
  Type element = outType.getElementType();
  SmallVector<int64_t> partialShape = {split.slices};
  llvm::append_range(partialShape, outType.getShape());
  Value empty = tensor::EmptyOp::create(rewriter, loc, partialShape, element);
  Value zero = arith::ConstantOp::create(rewriter, loc, element, rewriter.getZeroAttr(element));
  Value zeros = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  auto partial = linalg::GenericOp::create(rewriter, loc, TypeRange{zeros.getType()}, inputs,
                                           ValueRange{zeros}, maps, iterators);
  rewriter.cloneRegionBefore(op.getRegion(), partial.getRegion(), partial.getRegion().end());

  // The total: slice 0 + slice 1 + ... at every output point, added to the output (or to
  // the value of the fill that made it, unless that is 0). Each slice an extract_slice
  // read at the identity, reshaped as the contraction's only user reshapes it (a matmul's
  // [M][N] expanded to [1][M][N]), so that the elementwise op after (the bias add) fuses
  // with the total.
  Operation *reshape = nullptr;
  if (op->getResult(0).hasOneUse() &&
      isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(*op->getResult(0).user_begin()))
    reshape = *op->getResult(0).user_begin();
  auto reshaped = [&](Value v) -> Value {
    if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(reshape))
      return tensor::ExpandShapeOp::create(rewriter, loc, expand.getResultType(), v,
                                           expand.getReassociationIndices());
    if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(reshape))
      return tensor::CollapseShapeOp::create(rewriter, loc, collapse.getResultType(), v,
                                             collapse.getReassociationIndices());
    return v;
  };
  auto totalType = reshape ? cast<RankedTensorType>(reshape->getResult(0).getType()) : outType;
  SmallVector<Value> slices;
  for (int64_t s = 0; s < split.slices; ++s) {
    SmallVector<OpFoldResult> offsets(outType.getRank() + 1, rewriter.getIndexAttr(0)), sizes,
        strides(outType.getRank() + 1, rewriter.getIndexAttr(1));
    offsets[0] = rewriter.getIndexAttr(s);
    for (int64_t size : partialShape)
      sizes.push_back(rewriter.getIndexAttr(size));
    sizes[0] = rewriter.getIndexAttr(1);
    slices.push_back(reshaped(tensor::ExtractSliceOp::create(
        rewriter, loc, outType, partial.getResult(0), offsets, sizes, strides)));
  }
  Value dest = out->get(), start;
  bool readOut = true;
  // (A fill of a scalar of another type converts it: then the total reads the output.)
  auto fill = dest.getDefiningOp<linalg::FillOp>();
  if (fill && fill.getInputs()[0].getType() == element) {
    dest = fill.getOutputs()[0];
    readOut = false;
    start = fill.getInputs()[0];
    if (matchPattern(start, m_AnyZeroFloat()) || matchPattern(start, m_Zero()))
      start = Value();
  }
  dest = readOut || !reshape ? reshaped(dest)
                             : tensor::EmptyOp::create(rewriter, loc, totalType.getShape(),
                                                       totalType.getElementType())
                                   .getResult();
  int64_t rank = totalType.getRank();
  SmallVector<AffineMap> totalMaps(split.slices + 1, rewriter.getMultiDimIdentityMap(rank));
  auto total = linalg::GenericOp::create(
      rewriter, loc, TypeRange{totalType}, slices, ValueRange{dest}, totalMaps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value sum = args[0];
        for (int64_t s = 1; s < split.slices; ++s)
          sum = add(b, l, sum, args[s]);
        if (readOut)
          sum = add(b, l, args.back(), sum);
        else if (start)
          sum = add(b, l, start, sum);
        linalg::YieldOp::create(b, l, sum);
      });
  if (!reshape)
    return rewriter.replaceOp(op, total.getResults());
  rewriter.replaceOp(reshape, total.getResults());
  rewriter.eraseOp(op);
}

struct InfcSplitReductionPass : public infc::impl::InfcSplitReductionBase<InfcSplitReductionPass> {
  using InfcSplitReductionBase::InfcSplitReductionBase;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, Split>> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<Split> split = splitOf(op, minBlocks, minDepth, maxSplits))
        ops.push_back({op, *split});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, split] : ops) {
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::GenericOp> generalized = linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      splitContraction(rewriter, generic, split);
    }
  }
};
} // namespace

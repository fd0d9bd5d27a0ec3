//===- KernelGroups.cpp - linalg ops on buffers that may share a kernel ---===//
#include "infc/Codegen/Common/KernelGroups.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace infc {

SmallVector<Value> capturedShapedValues(linalg::LinalgOp op) {
  SmallVector<Value> captured;
  op.getBlock()->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (isa<MemRefType, RankedTensorType>(v.getType()) &&
          !op->isAncestor(v.getParentRegion()->getParentOp()))
        captured.push_back(v);
  });
  return captured;
}

SmallVector<Value> memrefsRead(linalg::LinalgOp op) {
  SmallVector<Value> read;
  for (OpOperand *input : op.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()))
      read.push_back(input->get());
  for (Value v : capturedShapedValues(op))
    if (isa<MemRefType>(v.getType()))
      read.push_back(v);
  return read;
}

bool capturesMemref(linalg::LinalgOp op) { return !capturedShapedValues(op).empty(); }

std::optional<SmallVector<Operation *>> reshapesFrom(Value of, Value view) {
  SmallVector<Operation *> reshapes;
  while (view != of) {
    Operation *reshape = view.getDefiningOp();
    if (!isa_and_present<memref::ExpandShapeOp, memref::CollapseShapeOp>(reshape))
      return std::nullopt;
    reshapes.insert(reshapes.begin(), reshape);
    view = reshape->getOperand(0);
  }
  return reshapes;
}

OpOperand *epilogueInput(linalg::LinalgOp next, Value out) {
  OpOperand *read = nullptr;
  for (OpOperand *input : next.getDpsInputOperands())
    if (reshapesFrom(out, input->get())) {
      if (read)
        return nullptr; // read twice: once at another thread's element
      read = input;
    }
  if (!read)
    return nullptr;
  AffineMap map = next.getMatchingIndexingMap(read);
  auto type = cast<MemRefType>(read->get().getType());
  SmallVector<int64_t> ranges = next.getStaticLoopRanges();
  if (!map.isPermutation() || !type.hasStaticShape() || ranges.size() != (size_t)type.getRank())
    return nullptr;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (ranges[map.getDimPosition(i)] != type.getDimSize(i))
      return nullptr;
  return read;
}

Operation *rowReductionCombiner(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return nullptr;
  Block *body = op.getBlock();
  Operation *yield = body->getTerminator();
  BlockArgument acc = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  Operation *combine =
      yield->getNumOperands() == 1 ? yield->getOperand(0).getDefiningOp() : nullptr;
  if (!combine || combine->getBlock() != body || combine->getNumOperands() != 2 ||
      combine->getNumResults() != 1 || !acc.hasOneUse() || acc.use_begin()->getOwner() != combine ||
      combine->getOperand(0) == combine->getOperand(1))
    return nullptr;
  return arith::getNeutralElement(combine) ? combine : nullptr;
}

std::optional<SmallVector<int64_t>> rowReductionShape(linalg::LinalgOp op, int64_t minReduction) {
  if (!isa<linalg::GenericOp, linalg::ReduceOp>(op) || !op.hasPureBufferSemantics() ||
      op->getNumResults() || op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0 ||
      linalg::isaContractionOpInterface(op) || linalg::isaConvolutionOpInterface(op))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  unsigned k = op.getNumParallelLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [d, type] : llvm::enumerate(iterators))
    if ((type == utils::IteratorType::parallel) != (d < k))
      return std::nullopt;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (out.getNumResults() != k)
    return std::nullopt;
  for (auto [i, result] : llvm::enumerate(out.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(result); !dim || dim.getPosition() != i)
      return std::nullopt;
  int64_t extent = 1;
  for (unsigned d = k; d < ranges.size(); ++d)
    extent *= ranges[d];
  if (extent < minReduction || !rowReductionCombiner(op))
    return std::nullopt;
  return SmallVector<int64_t>(ranges.begin(), ranges.begin() + k);
}

namespace {
/// Elements a row of `op` touches: the product of its loop ranges after the rows'.
int64_t pointsPerRow(linalg::LinalgOp op, size_t rowRank) {
  int64_t points = 1;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges(); // outlives the loop (C++17)
  for (int64_t range : ArrayRef(ranges).drop_front(rowRank))
    points *= range;
  return points;
}

/// Whether `op` can be an all-parallel member over `rows`, at most `maxPoints` a row (more
/// would make one block do more than the group's reductions do).
bool fitsRows(linalg::LinalgOp op, ArrayRef<int64_t> rows, int64_t maxPoints) {
  if (!op.hasPureBufferSemantics() || op->getNumResults() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() || op.getNumLoops() < rows.size())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) ||
      !llvm::equal(ArrayRef(ranges).take_front(rows.size()), rows))
    return false;
  return pointsPerRow(op, rows.size()) <= maxPoints;
}

/// Whether `op` can be the epilogue of `before`, a reduction of no row group (a
/// contraction) whose output it reads (epilogueInput): that kernel then stores what `op`
/// computes (a softmax's scale and mask after Q K^T; in half, with --precision) rather
/// than the sums.
bool epilogueOfReduction(linalg::LinalgOp op, linalg::LinalgOp before, int64_t minReduction) {
  return before && before.getNumReductionLoops() && before.getNumDpsInits() == 1 &&
         !rowReductionShape(before, minReduction) && !capturesMemref(op) &&
         epilogueInput(op, before.getDpsInits()[0]);
}
} // namespace

SmallVector<RowGroup> findRowGroups(Block &block, int64_t minReduction) {
  // The block's linalg ops in order, null for anything else that touches memory (the
  // run ends there).
  SmallVector<linalg::LinalgOp> seq;
  for (Operation &o : block) {
    if ((isMemoryEffectFree(&o) && !o.getNumRegions()) ||
        isa<memref::AllocOp, memref::DeallocOp>(o))
      continue;
    auto op = dyn_cast<linalg::LinalgOp>(&o);
    seq.push_back(op && op.hasPureBufferSemantics() ? op : linalg::LinalgOp());
  }
  SmallVector<RowGroup> groups;
  size_t floor = 0; // the first op not in a group before
  for (size_t i = 0; i < seq.size(); ++i) {
    std::optional<SmallVector<int64_t>> rows =
        seq[i] ? rowReductionShape(seq[i], minReduction) : std::nullopt;
    if (!rows)
      continue;
    int64_t maxPoints = pointsPerRow(seq[i], rows->size());
    size_t first = i, last = i;
    while (first > floor && seq[first - 1] && fitsRows(seq[first - 1], *rows, maxPoints) &&
           !(first >= 2 && epilogueOfReduction(seq[first - 1], seq[first - 2], minReduction)))
      --first;
    while (last + 1 < seq.size() && seq[last + 1]) {
      linalg::LinalgOp next = seq[last + 1];
      if (std::optional<SmallVector<int64_t>> more = rowReductionShape(next, minReduction)) {
        if (*more != *rows)
          break;
        maxPoints = std::max(maxPoints, pointsPerRow(next, rows->size()));
      } else if (!fitsRows(next, *rows, maxPoints)) {
        break;
      }
      ++last;
    }
    RowGroup group;
    group.rows = *rows;
    for (size_t j = first; j <= last; ++j)
      group.ops.push_back(seq[j]);
    groups.push_back(std::move(group));
    i = last;
    floor = last + 1;
  }
  return groups;
}

SmallVector<PointGroup>
findPointGroups(Block &block, function_ref<bool(linalg::LinalgOp)> member,
                function_ref<bool(linalg::LinalgOp, ArrayRef<linalg::LinalgOp>)> skip) {
  auto ranges = [](linalg::LinalgOp op) { return op.getStaticLoopRanges(); };
  auto allParallel = [](linalg::LinalgOp op) {
    return op && op.hasPureBufferSemantics() && !op->getNumResults() && op.getNumDpsInits() == 1 &&
           op.getNumLoops() > 0 && op.getNumReductionLoops() == 0 && !isa<linalg::FillOp>(op) &&
           !llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic);
  };
  SmallVector<PointGroup> groups;
  PointGroup current;
  SmallVector<int64_t> shape;
  auto close = [&] {
    if (current.ops.size() > 1)
      groups.push_back(std::move(current));
    current = PointGroup();
  };
  for (Operation &o : block) {
    if ((isMemoryEffectFree(&o) && !o.getNumRegions()) ||
        isa<memref::AllocOp, memref::DeallocOp>(o))
      continue;
    auto op = dyn_cast<linalg::LinalgOp>(&o);
    if (!allParallel(op)) {
      close();
      continue;
    }
    if (!current.ops.empty() && member(op) && ranges(op) == shape) {
      current.ops.push_back(op);
      continue;
    }
    if (!current.ops.empty() && ranges(op) != shape && skip(op, current.ops)) {
      current.skipped.push_back(op);
      continue;
    }
    close();
    if (member(op)) {
      current.ops.push_back(op);
      shape = ranges(op);
    }
  }
  close();
  // Skipped ops after the last member stay where they are.
  for (PointGroup &group : groups)
    llvm::erase_if(group.skipped,
                   [&](linalg::LinalgOp op) { return group.ops.back()->isBeforeInBlock(op); });
  return groups;
}

} // namespace infc

Value infc::viewRoot(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

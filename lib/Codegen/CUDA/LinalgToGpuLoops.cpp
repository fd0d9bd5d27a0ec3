//===- LinalgToGpuLoops.cpp - linalg to loops, reductions in registers ----===//
//
// Upstream's convert-linalg-to-parallel-loops reads and writes the output element in every
// iteration of a reduction: on a GPU that is a global-memory round trip per multiply-add of a
// matmul (the compiler cannot keep it in a register without knowing the buffers don't
// alias). Here each thread loads its output once, carries it through the reduction loops
// as a loop value, and stores it once.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace infc {
#define GEN_PASS_DEF_INFCLINALGTOGPULOOPS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct Lowering {
  linalg::LinalgOp op;
  Location loc;
  SmallVector<int64_t> ranges;
  SmallVector<unsigned> parallel, reduction;
  SmallVector<Value> dims; // the loop counters, by loop dimension

  /// The value a preceding linalg.fill gave the (single) output: the reduction starts from
  /// it instead of reading the output back (and the fill is not run at all).
  Value initialValue;

  Lowering(linalg::LinalgOp op) : op(op), loc(op.getLoc()) {}

  Value constant(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  SmallVector<Value> indices(OpBuilder &b, AffineMap map) {
    SmallVector<Value> result;
    for (AffineExpr expr : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        result.push_back(dims[dim.getPosition()]);
        continue;
      }
      AffineMap single = AffineMap::get(map.getNumDims(), 0, expr);
      result.push_back(affine::AffineApplyOp::create(b, loc, single, dims));
    }
    return result;
  }

  /// The payload at the current point: inputs loaded, outputs taken from `accumulators`.
  SmallVector<Value> body(OpBuilder &b, ValueRange accumulators) {
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(input);
      if (arg.use_empty())
        continue;
      Value v = input->get();
      if (isa<MemRefType>(v.getType()))
        v = memref::LoadOp::create(b, loc, v, indices(b, op.getMatchingIndexingMap(input)));
      mapping.map(arg, v);
    }
    for (auto [k, output] : llvm::enumerate(op.getDpsInitsMutable()))
      if (accumulators[k])
        mapping.map(op.getMatchingBlockArgument(&output), accumulators[k]);
    Block *block = op.getBlock();
    for (Operation &inner : block->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(index.getResult(), dims[index.getDim()]);
        continue;
      }
      b.clone(inner, mapping);
    }
    SmallVector<Value> results;
    for (Value v : block->getTerminator()->getOperands())
      results.push_back(mapping.lookupOrDefault(v));
    return results;
  }

  /// Reduction loops r.. around the body, the accumulators as loop-carried values.
  SmallVector<Value> reduce(OpBuilder &b, unsigned r, ValueRange accumulators) {
    if (r == reduction.size())
      return body(b, accumulators);
    auto loop = scf::ForOp::create(b, loc, constant(b, 0), constant(b, ranges[reduction[r]]),
                                   constant(b, 1), accumulators);
    dims[reduction[r]] = loop.getInductionVar();
    OpBuilder inner = OpBuilder::atBlockBegin(loop.getBody());
    SmallVector<Value> results = reduce(inner, r + 1, loop.getRegionIterArgs());
    scf::YieldOp::create(inner, loc, results);
    return loop.getResults();
  }

  /// One point of the parallel dimensions: load the outputs, reduce, store them.
  void point(OpBuilder &b) {
    // The outputs' maps do not use the reduction dimensions; they still take a value.
    auto zeroReductionDims = [&] {
      for (unsigned r : reduction)
        dims[r] = constant(b, 0);
    };
    zeroReductionDims();
    SmallVector<Value> accumulators;
    for (OpOperand &output : op.getDpsInitsMutable()) {
      bool used = !reduction.empty() || !op.getMatchingBlockArgument(&output).use_empty();
      if (initialValue) {
        accumulators.push_back(initialValue);
        continue;
      }
      accumulators.push_back(used ? memref::LoadOp::create(
                                        b, loc, output.get(),
                                        indices(b, op.getMatchingIndexingMap(&output)))
                                        .getResult()
                                  : Value());
    }
    SmallVector<Value> results = reduce(b, 0, accumulators);
    zeroReductionDims(); // the loop counters are out of scope here
    for (auto [k, output] : llvm::enumerate(op.getDpsInitsMutable()))
      memref::StoreOp::create(b, loc, results[k], output.get(),
                              indices(b, op.getMatchingIndexingMap(&output)));
  }

  /// Whether this lowering applies: static loop ranges, buffers, outputs that depend on the
  /// parallel dimensions only.
  bool matches() {
    if (!op.hasPureBufferSemantics() || op.hasDynamicShape())
      return false;
    ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return false;
    for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
      (type == utils::IteratorType::parallel ? parallel : reduction).push_back(d);
    for (OpOperand &output : op.getDpsInitsMutable()) {
      AffineMap map = op.getMatchingIndexingMap(&output);
      if (llvm::any_of(reduction, [&](unsigned r) { return map.isFunctionOfDim(r); }))
        return false;
    }
    return true;
  }

  void run() {
    OpBuilder b(op);
    dims.assign(ranges.size(), Value());
    // A full reduction still gets a (one-point) parallel loop: infc-map-to-gpu makes every
    // top-level loop one kernel, and the loads and stores around the reduction belong to it.
    SmallVector<Value> lbs, ubs, steps;
    for (unsigned d : parallel) {
      lbs.push_back(constant(b, 0));
      ubs.push_back(constant(b, ranges[d]));
      steps.push_back(constant(b, 1));
    }
    if (parallel.empty()) {
      lbs.push_back(constant(b, 0));
      ubs.push_back(constant(b, 1));
      steps.push_back(constant(b, 1));
    }
    auto loop = scf::ParallelOp::create(b, loc, lbs, ubs, steps);
    for (auto [k, d] : llvm::enumerate(parallel))
      dims[d] = loop.getInductionVars()[k];
    OpBuilder inner(loop.getBody()->getTerminator());
    point(inner);
    op->erase();
  }
};

/// The buffer a memref is part of: views are followed up to the memory plan's buffers
/// (memref.view of the workspace), which never overlap while both are live.
Value bufferOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>()) {
    if (isa<memref::ViewOp>(view))
      break;
    v = view.getViewSource();
  }
  return v;
}

/// The fill of `op`'s only output right before it (no op between touches that buffer), if
/// `op` reduces into it.
linalg::FillOp fillToFold(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return {};
  Value out = op.getDpsInits()[0];
  Value buffer = bufferOf(out);
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev); fill && fill.getOutputs()[0] == out)
      return fill;
    for (Value operand : prev->getOperands())
      if (isa<MemRefType>(operand.getType()) && bufferOf(operand) == buffer)
        return {};
    if (prev->getNumRegions()) // a loop nest: it may touch anything
      return {};
  }
  return {};
}

struct InfcLinalgToGpuLoopsPass
    : public infc::impl::InfcLinalgToGpuLoopsBase<InfcLinalgToGpuLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops; // fills last: the reductions may absorb them
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::FillOp>(op))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      Lowering lowering(op);
      if (!lowering.matches())
        continue;
      linalg::FillOp fill = fillToFold(op);
      if (fill && fill.getInputs()[0].getParentBlock() == op->getBlock() &&
          fill.getInputs()[0].getType() ==
              cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType())
        lowering.initialValue = fill.getInputs()[0];
      lowering.run();
      if (lowering.initialValue)
        fill->erase();
    }
    // The fills left over (their buffer is read or written by something else first).
    getOperation().walk([&](linalg::FillOp fill) {
      Lowering lowering(fill);
      if (lowering.matches())
        lowering.run();
    });
  }
};
} // namespace

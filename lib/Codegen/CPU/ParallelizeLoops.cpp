//===- ParallelizeLoops.cpp - marked scf.for to scf.parallel ---------------===//
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace infc {
#define GEN_PASS_DEF_INFCPARALLELIZELOOPS
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// After bufferization a marked loop's iter_args are memrefs it yields back unchanged.
bool yieldsItsBuffers(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [arg, yielded] : llvm::zip(loop.getRegionIterArgs(), yield.getOperands()))
    if (!isa<MemRefType>(arg.getType()) || yielded != arg)
      return false;
  return true;
}

/// A parallel loop whose body is only index arithmetic and views around one nested
/// parallel loop (infc-pack-matmul-panels' row blocks around its panels, those around the
/// row tiles), as one multi-dimensional loop: the threads then share out all the
/// iterations, not just the outer loop's few (3 row blocks on 2 threads ran 2 : 1, a
/// third of the second thread idle). Self-copies there (no-ops that bufferization left for
/// infc-lower-copies) go. Returns the merged loop, or null.
scf::ParallelOp mergeNested(scf::ParallelOp outer) {
  if (!outer.getInitVals().empty())
    return {};
  Block *body = outer.getBody();
  scf::ParallelOp inner;
  SmallVector<Operation *> views, selfCopies;
  for (Operation &op : body->without_terminator()) {
    if (auto nested = dyn_cast<scf::ParallelOp>(op); nested && !inner) {
      inner = nested;
      continue;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op); copy && copy.getSource() == copy.getTarget()) {
      selfCopies.push_back(copy);
      continue;
    }
    if (inner || !isPure(&op) || op.getNumRegions())
      return {};
    views.push_back(&op);
  }
  if (!inner || !inner.getInitVals().empty() || llvm::any_of(inner->getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return def && def->getBlock() == body;
      }))
    return {};
  for (Operation *copy : selfCopies)
    copy->erase();
  Operation *anchor = &inner.getBody()->front();
  for (Operation *view : views)
    view->moveBefore(anchor);
  auto concat = [](ValueRange a, ValueRange b) {
    SmallVector<Value> all(a);
    llvm::append_range(all, b);
    return all;
  };
  OpBuilder b(outer);
  auto merged = scf::ParallelOp::create(b, outer.getLoc(),
                                        concat(outer.getLowerBound(), inner.getLowerBound()),
                                        concat(outer.getUpperBound(), inner.getUpperBound()),
                                        concat(outer.getStep(), inner.getStep()));
  IRMapping map;
  SmallVector<Value> oldIvs = concat(outer.getInductionVars(), inner.getInductionVars());
  map.map(oldIvs, merged.getInductionVars());
  b.setInsertionPoint(merged.getBody()->getTerminator());
  for (Operation &op : inner.getBody()->without_terminator())
    b.clone(op, map);
  outer.erase();
  return merged;
}

struct InfcParallelizeLoopsPass
    : public infc::impl::InfcParallelizeLoopsBase<InfcParallelizeLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr("infc.parallel") && yieldsItsBuffers(loop) &&
          !loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    // Innermost first (the walk is post-order), so marked loops at every depth become
    // scf.parallel; the nests are merged below, and a parallel loop still nested in another
    // runs as a nested region, which the runtime executes on the calling thread alone.
    for (scf::ForOp loop : loops) {
      if (loop->getParentOfType<scf::ParallelOp>())
        continue;
      OpBuilder b(loop);
      auto parallel =
          scf::ParallelOp::create(b, loop.getLoc(), ValueRange{loop.getLowerBound()},
                                  ValueRange{loop.getUpperBound()}, ValueRange{loop.getStep()});
      IRMapping map;
      map.map(loop.getInductionVar(), parallel.getInductionVars()[0]);
      for (auto [arg, init] : llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
        map.map(arg, init);
      b.setInsertionPoint(parallel.getBody()->getTerminator());
      for (Operation &op : loop.getBody()->without_terminator())
        b.clone(op, map);
      loop.replaceAllUsesWith(loop.getInitArgs());
      loop.erase();
    }
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>())
        outermost.push_back(op);
    });
    for (scf::ParallelOp op : outermost)
      while (op)
        op = mergeNested(op);
  }
};
} // namespace

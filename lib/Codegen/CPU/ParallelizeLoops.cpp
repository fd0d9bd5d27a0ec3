//===- ParallelizeLoops.cpp - marked scf.for to scf.parallel ---------------===//
#include "infc/Codegen/CPU/Passes.h"

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

struct InfcParallelizeLoopsPass
    : public infc::impl::InfcParallelizeLoopsBase<InfcParallelizeLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr("infc.parallel") && yieldsItsBuffers(loop) &&
          !loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    // Outermost first; a marked loop nested in one already parallel stays sequential.
    for (scf::ForOp loop : loops) {
      if (loop->getParentOfType<scf::ParallelOp>())
        continue;
      OpBuilder b(loop);
      auto parallel = scf::ParallelOp::create(b, loop.getLoc(), ValueRange{loop.getLowerBound()},
                                              ValueRange{loop.getUpperBound()},
                                              ValueRange{loop.getStep()});
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
  }
};
} // namespace

//===- ParallelizeLoops.cpp - marked scf.for to scf.parallel ---------------===//
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace infc {
#define GEN_PASS_DEF_INFCPARALLELIZELOOPS
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// What an extent we cannot read at compile time counts as: large, so a loop of run-time
/// extent is never judged small.
constexpr double kUnknownWork = 1e12;

/// Lanes of one machine vector the estimate counts in (AVX-512's f32; coarse either way).
constexpr double kLanes = 16;

/// Roughly the instructions one execution of `op` runs: one a scalar op, a vector op its
/// elements over kLanes (a contraction its iteration space), a loop its static trip count
/// times its body, a linalg op on buffers its iteration space times its payload. Coarse on
/// purpose: it only tells loops of a few microseconds from loops of milliseconds.
double estimateWork(Operation *op);

double vectorWork(Operation *op) {
  if (auto contract = dyn_cast<vector::ContractionOp>(op)) {
    SmallVector<int64_t> bounds;
    contract.getIterationBounds(bounds);
    return std::max(1.0, static_cast<double>(llvm::product_of(bounds)) / kLanes);
  }
  // Vector and AMX tile values (not buffers): their elements over a vector's lanes.
  double widest = 1;
  for (Type type : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto shaped = dyn_cast<ShapedType>(type);
        shaped && !isa<MemRefType, TensorType>(type) && shaped.hasStaticShape())
      widest = std::max(widest, static_cast<double>(shaped.getNumElements()) / kLanes);
  return widest;
}

double estimateWork(Block &block) {
  double work = 0;
  for (Operation &op : block)
    work += estimateWork(&op);
  return work;
}

double estimateWork(Operation *op) {
  double body = 0;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      body += estimateWork(block);
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    double points = 1;
    for (int64_t extent : linalgOp.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(extent))
        return kUnknownWork;
      points *= extent;
    }
    return points * std::max(body, 1.0);
  }
  if (auto loop = dyn_cast<LoopLikeOpInterface>(op)) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips)
      return kUnknownWork;
    return static_cast<double>(trips->getZExtValue()) * (body + 1);
  }
  return vectorWork(op) + body;
}

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
  using InfcParallelizeLoopsBase::InfcParallelizeLoopsBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr("infc.parallel") && yieldsItsBuffers(loop) &&
          !loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    // Parallelism that pays for itself. Issuing a region costs a microsecond or two while the
    // workers spin, and waking them from their park (after a pause between runs) 50-150 us:
    // a nest of marked loops whose outermost does less work than minLoopWork stays on the
    // calling thread, and so do all of a function whose nests together do less than
    // minFunctionWork (a model of a few tens of microseconds, whose second thread would cost
    // more to wake than it saves). Nests are judged whole: an inner marked loop is merged
    // with its outer one below, so the threads share both loops' iterations.
    llvm::DenseSet<Operation *> candidates;
    for (scf::ForOp loop : loops)
      candidates.insert(loop);
    auto outermostMarked = [&](scf::ForOp loop) {
      Operation *outermost = loop;
      for (Operation *up = loop->getParentOp(); up; up = up->getParentOp())
        if (candidates.contains(up))
          outermost = up;
      return outermost;
    };
    // A nest inside unmarked loops (the batch loop around a batched matmul's nest, the K
    // blocks around panels) runs once per their iterations: it is judged per run of the
    // nest (each is a region of its own), and counts that many times in the function's work.
    auto enclosingTrips = [](Operation *op) {
      double trips = 1;
      for (Operation *up = op->getParentOp(); up && !isa<func::FuncOp>(up); up = up->getParentOp())
        if (auto loop = dyn_cast<LoopLikeOpInterface>(up)) {
          std::optional<APInt> n = loop.getStaticTripCount();
          trips *= n ? static_cast<double>(n->getZExtValue()) : kUnknownWork;
        }
      return trips;
    };
    llvm::DenseMap<Operation *, double> nestWork;
    double functionWork = 0;
    for (scf::ForOp loop : loops)
      if (outermostMarked(loop) == loop.getOperation())
        functionWork += (nestWork[loop] = estimateWork(loop)) * enclosingTrips(loop);
    bool serialFunction = functionWork < static_cast<double>(minFunctionWork);
    // infc-parallelize-copies then leaves this function's fills and copies alone too.
    if (serialFunction && !loops.empty())
      getOperation()->setAttr("infc.serial", UnitAttr::get(&getContext()));
    SmallVector<scf::ForOp> serial;
    llvm::erase_if(loops, [&](scf::ForOp loop) {
      if (!serialFunction &&
          nestWork.lookup(outermostMarked(loop)) >= static_cast<double>(minLoopWork))
        return false;
      serial.push_back(loop);
      return true;
    });
    for (scf::ForOp loop : serial)
      loop->removeAttr("infc.parallel");
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

//===- MapToGpu.cpp - every loop nest of the entry function as a kernel ---===//
#include "infc/Codegen/CUDA/Passes.h"
#include "infc/Codegen/Common/KernelGroups.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace infc {
#define GEN_PASS_DEF_INFCMAPTOGPU
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// A kernel name from the ONNX node the op came from ("k12_conv1"), so profilers name
/// the node; the index keeps names unique.
std::string kernelName(Operation *op, unsigned index) {
  std::string name = "k" + std::to_string(index);
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc); fused && !fused.getLocations().empty())
    loc = fused.getLocations().front();
  if (auto named = dyn_cast<NameLoc>(loc)) {
    name += "_";
    for (char c : named.getName().strref().take_front(48))
      name += std::isalnum((unsigned char)c) ? c : '_';
  }
  return name;
}

gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t blocks, int64_t threads,
                           StringRef name) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  Value one = c(1);
  auto launch = gpu::LaunchOp::create(
      b, loc, c(blocks), one, one, c(threads), one, one, /*dynamicSharedMemorySize=*/nullptr,
      /*asyncTokenType=*/nullptr, ValueRange{}, TypeRange{}, TypeRange{}, nullptr, nullptr, nullptr,
      FlatSymbolRefAttr::get(b.getContext(), "infc_kernels"),
      FlatSymbolRefAttr::get(b.getContext(), name));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

/// A top-level load of a buffer nothing in the function writes (a Pad's run-time padding
/// value, say) is read where it is used instead: inside the kernels, which is where its
/// value is needed, and where reading device memory is allowed.
void sinkReadOnlyLoads(func::FuncOp func) {
  // Roots through the memory plan's views too: its buffers share the workspace's bytes over
  // time, so a write to any of them may change what a later load reads.
  DenseSet<Value> written;
  func.walk([&](memref::StoreOp store) { written.insert(infc::viewRoot(store.getMemRef())); });
  for (Block &block : func.getBody())
    for (Operation &op : llvm::make_early_inc_range(block)) {
      auto load = dyn_cast<memref::LoadOp>(op);
      if (!load || written.contains(infc::viewRoot(load.getMemRef())))
        continue;
      for (OpOperand &use : llvm::make_early_inc_range(load->getUses())) {
        Operation *user = use.getOwner();
        if (user->getBlock() == &block)
          continue; // a top-level user: the load stays (and is reported) with it
        OpBuilder b(user);
        use.set(b.clone(*load)->getResult(0));
      }
      if (load->use_empty())
        load->erase();
    }
}

struct InfcMapToGpuPass : public infc::impl::InfcMapToGpuBase<InfcMapToGpuPass> {
  using InfcMapToGpuBase::InfcMapToGpuBase;

  /// One thread per point of the loop's iteration space.
  LogicalResult mapParallel(scf::ParallelOp loop, unsigned index) {
    if (loop.getNumResults())
      return loop.emitError("infc-map-to-gpu: a parallel loop with reductions");
    SmallVector<int64_t> lbs, steps, counts;
    int64_t total = 1;
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb), u = getConstantIntValue(ub),
                             s = getConstantIntValue(step);
      if (!l || !u || !s || *s <= 0)
        return loop.emitError("infc-map-to-gpu: loop bounds must be constants");
      lbs.push_back(*l);
      steps.push_back(*s);
      counts.push_back(*u <= *l ? 0 : llvm::divideCeil(*u - *l, *s));
      total *= counts.back();
    }
    if (total == 0) {
      loop.erase();
      return success();
    }
    int64_t blockSize = std::min<int64_t>(total, threads);
    int64_t blocks = llvm::divideCeil(total, blockSize);
    if (blocks > std::numeric_limits<int32_t>::max())
      return loop.emitError("infc-map-to-gpu: ") << total << " points exceed one grid";
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    gpu::LaunchOp launch = createLaunch(b, loc, blocks, blockSize, kernelName(loop, index));
    b.setInsertionPointToStart(&launch.getBody().front());
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
    Value point = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, c(blockSize)),
        launch.getThreadIds().x);
    if (blocks * blockSize != total) {
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, point, c(total));
      auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
      b.setInsertionPointToStart(guard.thenBlock());
    }
    // The innermost dimension varies fastest between neighbouring threads; what is left for
    // the outermost is below its count (the guard).
    IRMapping mapping;
    Value rest = point;
    for (int64_t d = (int64_t)counts.size() - 1; d >= 0; --d) {
      Value i = rest;
      if (d > 0) {
        i = arith::RemUIOp::create(b, loc, rest, c(counts[d]));
        rest = arith::DivUIOp::create(b, loc, rest, c(counts[d]));
      }
      if (steps[d] != 1)
        i = arith::MulIOp::create(b, loc, i, c(steps[d]));
      if (lbs[d] != 0)
        i = arith::AddIOp::create(b, loc, i, c(lbs[d]));
      mapping.map(loop.getInductionVars()[d], i);
    }
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, mapping);
    loop.erase();
    return success();
  }

  /// An op that touches memory outside any parallel loop: one thread runs it.
  LogicalResult runOnOneThread(Operation *op, unsigned index) {
    for (Value result : op->getResults())
      if (!result.use_empty())
        return op->emitError("infc-map-to-gpu: the host would need the result of '")
               << op->getName() << "', which runs on the GPU (a scalar the model computes "
               << "and then uses on the host: not supported yet)";
    OpBuilder b(op);
    gpu::LaunchOp launch = createLaunch(b, op->getLoc(), 1, 1, kernelName(op, index));
    op->moveBefore(launch.getBody().front().getTerminator());
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (threads < 1 || threads > 1024) {
      func.emitError("infc-map-to-gpu: threads must be 1..1024 (a CUDA block's limit), not ")
          << threads;
      return signalPassFailure();
    }
    sinkReadOnlyLoads(func);
    unsigned index = 0;
    for (Block &block : func.getBody())
      for (Operation &op : llvm::make_early_inc_range(block)) {
        if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
          // A kernel written before (a tiled contraction): named like the others.
          launch.setFunctionAttr(
              FlatSymbolRefAttr::get(op.getContext(), kernelName(launch, index++)));
          continue;
        }
        if (op.hasTrait<OpTrait::IsTerminator>() ||
            (isMemoryEffectFree(&op) && op.getNumRegions() == 0))
          continue;
        LogicalResult mapped = isa<scf::ParallelOp>(op)
                                   ? mapParallel(cast<scf::ParallelOp>(op), index++)
                                   : runOnOneThread(&op, index++);
        if (failed(mapped))
          return signalPassFailure();
      }
  }
};
} // namespace

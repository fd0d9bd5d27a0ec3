//===- LaunchToLoops.cpp - gpu.launch as loops on the CPU (the emulator) --===//
//
// Tests the GPU lowering without a GPU: the kernels' IR, as infc-map-to-gpu wrote it, runs
// on the CPU with every block and thread an iteration, and is compared with onnxruntime.
//
// A kernel with barriers is split at them (loop fission): the code between two barriers
// runs for every thread of the block before any thread goes past the barrier, as on a GPU.
// A barrier may sit in the kernel's body or in an scf.for there (the tiled contraction's
// reduction steps), whose bounds must then be the same in every thread. A value computed
// before a barrier and used after it is recomputed if it is pure (index arithmetic on the
// thread and block ids); anything else crossing a barrier is refused. Shared memory is one
// buffer reused by the blocks in turn, private memory one slice of a buffer per thread.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace infc {
#define GEN_PASS_DEF_INFCGPULAUNCHTOLOOPS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
bool containsBarrier(Operation *op) {
  return op->walk([](gpu::BarrierOp) { return WalkResult::interrupt(); }).wasInterrupted();
}

struct Emulation {
  gpu::LaunchOp launch;
  OpBuilder b;
  Location loc;
  Value zero, one;
  /// Block size operands (z, y, x) and the private attributions' per-thread buffers.
  Value blockZ, blockY, blockX;
  SmallVector<std::pair<BlockArgument, Value>> privates;

  explicit Emulation(gpu::LaunchOp launch) : launch(launch), b(launch), loc(launch.getLoc()) {}

  /// Makes `v` available under `mapping` at b's insertion point: a pure op of the kernel
  /// computed earlier (perhaps before a barrier) is computed again here.
  LogicalResult resolve(Value v, IRMapping &mapping) {
    if (mapping.contains(v) || !launch->isAncestor(v.getParentBlock()->getParentOp()))
      return success(); // mapped, or from outside the kernel
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumRegions() || !isMemoryEffectFree(def))
      return launch.emitError("infc-gpu-launch-to-loops: a value crosses a barrier or a "
                              "thread id is used where all threads must agree: ")
             << v;
    for (Value operand : def->getOperands())
      if (failed(resolve(operand, mapping)))
        return failure();
    b.clone(*def, mapping);
    return success();
  }

  /// Clones `op` under `mapping`, first making every value it uses from outside available.
  LogicalResult cloneWithOperands(Operation &op, IRMapping &mapping) {
    WalkResult walk = op.walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (!op.isAncestor(operand.getParentBlock()->getParentOp()) &&
            failed(resolve(operand, mapping)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    b.clone(op, mapping);
    return success();
  }

  /// The ops between two barriers, for every thread of the block in turn.
  LogicalResult runForEachThread(ArrayRef<Operation *> segment, const IRMapping &blockLevel) {
    if (segment.empty())
      return success();
    OpBuilder::InsertionGuard guard(b);
    gpu::KernelDim3 threadIds = launch.getThreadIds();
    Value bounds[3] = {blockZ, blockY, blockX};
    Value ivs[3];
    for (int i = 0; i < 3; ++i) {
      auto loop = scf::ForOp::create(b, loc, zero, bounds[i], one);
      ivs[i] = loop.getInductionVar();
      b.setInsertionPoint(loop.getBody()->getTerminator());
    }
    IRMapping mapping = blockLevel;
    mapping.map(threadIds.z, ivs[0]);
    mapping.map(threadIds.y, ivs[1]);
    mapping.map(threadIds.x, ivs[2]);
    // The private buffers this segment touches, sliced at the thread.
    SmallVector<std::pair<BlockArgument, Value>> used;
    for (auto [attribution, buffer] : privates)
      if (llvm::any_of(attribution.getUsers(), [&](Operation *user) {
            return llvm::any_of(segment, [&](Operation *op) { return op->isAncestor(user); });
          }))
        used.push_back({attribution, buffer});
    if (!used.empty()) {
      Value linear = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(
              b, loc, arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, ivs[0], blockY), ivs[1]),
              blockX),
          ivs[2]);
      for (auto [attribution, buffer] : used) {
        auto type = cast<MemRefType>(attribution.getType());
        auto bufferType = cast<MemRefType>(buffer.getType());
        SmallVector<OpFoldResult> offsets(bufferType.getRank(), b.getIndexAttr(0)),
            sizes, strides(bufferType.getRank(), b.getIndexAttr(1));
        offsets[0] = linear;
        sizes.push_back(b.getIndexAttr(1));
        for (int64_t size : type.getShape())
          sizes.push_back(b.getIndexAttr(size));
        auto sliceType = memref::SubViewOp::inferRankReducedResultType(
            type.getShape(), bufferType, offsets, sizes, strides);
        mapping.map(attribution, memref::SubViewOp::create(b, loc, cast<MemRefType>(sliceType),
                                                           buffer, offsets, sizes, strides)
                                     .getResult());
      }
    }
    for (Operation *op : segment)
      if (failed(cloneWithOperands(*op, mapping)))
        return failure();
    return success();
  }

  /// The ops of `block` (the kernel's body or a loop with barriers in it) at block level.
  LogicalResult emitBlock(Block &block, IRMapping &blockLevel) {
    SmallVector<Operation *> segment;
    for (Operation &op : block.without_terminator()) {
      if (isa<gpu::BarrierOp>(op) || containsBarrier(&op)) {
        if (failed(runForEachThread(segment, blockLevel)))
          return failure();
        segment.clear();
      }
      if (isa<gpu::BarrierOp>(op))
        continue;
      if (!containsBarrier(&op)) {
        segment.push_back(&op);
        continue;
      }
      auto loop = dyn_cast<scf::ForOp>(op);
      if (!loop || loop.getNumRegionIterArgs())
        return op.emitError("infc-gpu-launch-to-loops: a barrier inside '")
               << op.getName() << "' (only in the kernel's body or an scf.for without "
               << "loop values there)";
      for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
        if (failed(resolve(bound, blockLevel)))
          return failure();
      auto steps = scf::ForOp::create(b, loc, blockLevel.lookupOrDefault(loop.getLowerBound()),
                                      blockLevel.lookupOrDefault(loop.getUpperBound()),
                                      blockLevel.lookupOrDefault(loop.getStep()));
      blockLevel.map(loop.getInductionVar(), steps.getInductionVar());
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(steps.getBody()->getTerminator());
      if (failed(emitBlock(*loop.getBody(), blockLevel)))
        return failure();
    }
    return runForEachThread(segment, blockLevel);
  }

  LogicalResult run() {
    Region &body = launch.getBody();
    if (!body.hasOneBlock() || launch.getAsyncToken() || launch.getDynamicSharedMemorySize())
      return launch.emitError("infc-gpu-launch-to-loops: only synchronous single-block "
                              "launches without dynamic shared memory run on the CPU");
    zero = arith::ConstantIndexOp::create(b, loc, 0);
    one = arith::ConstantIndexOp::create(b, loc, 1);
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    blockZ = block.z;
    blockY = block.y;
    blockX = block.x;
    IRMapping mapping;
    gpu::KernelDim3 gridSize = launch.getGridSize(), blockSize = launch.getBlockSize();
    mapping.map(gridSize.x, grid.x);
    mapping.map(gridSize.y, grid.y);
    mapping.map(gridSize.z, grid.z);
    mapping.map(blockSize.x, block.x);
    mapping.map(blockSize.y, block.y);
    mapping.map(blockSize.z, block.z);
    // Shared memory: one buffer the blocks use in turn; private memory: one per thread.
    for (BlockArgument attribution : launch.getWorkgroupAttributions()) {
      auto type = cast<MemRefType>(attribution.getType());
      mapping.map(attribution,
                  memref::AllocaOp::create(b, loc, MemRefType::get(type.getShape(),
                                                                   type.getElementType()))
                      .getResult());
    }
    if (!launch.getPrivateAttributions().empty()) {
      Value threads = arith::MulIOp::create(
          b, loc, arith::MulIOp::create(b, loc, block.z, block.y), block.x);
      for (BlockArgument attribution : launch.getPrivateAttributions()) {
        auto type = cast<MemRefType>(attribution.getType());
        SmallVector<int64_t> shape = {ShapedType::kDynamic};
        llvm::append_range(shape, type.getShape());
        Value buffer = memref::AllocOp::create(
            b, loc, MemRefType::get(shape, type.getElementType()), ValueRange{threads});
        privates.push_back({attribution, buffer});
      }
    }
    // Outermost first: block z, y, x; then the threads, per segment between barriers.
    Value bounds[3] = {grid.z, grid.y, grid.x};
    gpu::KernelDim3 blockIds = launch.getBlockIds();
    Value ids[3] = {blockIds.z, blockIds.y, blockIds.x};
    {
      OpBuilder::InsertionGuard guard(b);
      for (int i = 0; i < 3; ++i) {
        auto loop = scf::ForOp::create(b, loc, zero, bounds[i], one);
        mapping.map(ids[i], loop.getInductionVar());
        b.setInsertionPoint(loop.getBody()->getTerminator());
      }
      if (failed(emitBlock(body.front(), mapping)))
        return failure();
    }
    for (auto &[attribution, buffer] : privates)
      memref::DeallocOp::create(b, loc, buffer);
    launch.erase();
    return success();
  }
};

struct InfcGpuLaunchToLoopsPass
    : public infc::impl::InfcGpuLaunchToLoopsBase<InfcGpuLaunchToLoopsPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
    for (gpu::LaunchOp launch : launches)
      if (failed(Emulation(launch).run()))
        return signalPassFailure();
  }
};
} // namespace

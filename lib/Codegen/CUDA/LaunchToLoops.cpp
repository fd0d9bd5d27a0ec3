//===- LaunchToLoops.cpp - gpu.launch as loops on the CPU (the emulator) --===//
//
// Tests the GPU lowering without a GPU: the kernels' IR, as infc-map-to-gpu wrote it, runs
// on the CPU with every block and thread an iteration, and is compared with onnxruntime.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace infc {
#define GEN_PASS_DEF_INFCGPULAUNCHTOLOOPS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcGpuLaunchToLoopsPass
    : public infc::impl::InfcGpuLaunchToLoopsBase<InfcGpuLaunchToLoopsPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
    for (gpu::LaunchOp launch : launches) {
      Region &body = launch.getBody();
      if (!body.hasOneBlock() || launch.getAsyncToken() || launch.getDynamicSharedMemorySize() ||
          !launch.getWorkgroupAttributions().empty() ||
          !launch.getPrivateAttributions().empty()) {
        launch.emitError("infc-gpu-launch-to-loops: only synchronous single-block launches "
                         "without shared memory run on the CPU");
        return signalPassFailure();
      }
      bool barrier = false;
      launch.walk([&](gpu::BarrierOp) { barrier = true; });
      if (barrier) {
        launch.emitError("infc-gpu-launch-to-loops: a kernel with barriers cannot run as "
                         "loops");
        return signalPassFailure();
      }
      OpBuilder b(launch);
      Location loc = launch.getLoc();
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      // Outermost first: block z, y, x, then thread z, y, x.
      Value bounds[6] = {grid.z, grid.y, grid.x, block.z, block.y, block.x};
      Value ivs[6];
      for (int i = 0; i < 6; ++i) {
        auto loop = scf::ForOp::create(b, loc, zero, bounds[i], one);
        ivs[i] = loop.getInductionVar();
        b.setInsertionPoint(loop.getBody()->getTerminator());
      }
      IRMapping mapping;
      gpu::KernelDim3 blockIds = launch.getBlockIds(), threadIds = launch.getThreadIds();
      gpu::KernelDim3 gridSize = launch.getGridSize(), blockSize = launch.getBlockSize();
      mapping.map(blockIds.z, ivs[0]);
      mapping.map(blockIds.y, ivs[1]);
      mapping.map(blockIds.x, ivs[2]);
      mapping.map(threadIds.z, ivs[3]);
      mapping.map(threadIds.y, ivs[4]);
      mapping.map(threadIds.x, ivs[5]);
      mapping.map(gridSize.x, grid.x);
      mapping.map(gridSize.y, grid.y);
      mapping.map(gridSize.z, grid.z);
      mapping.map(blockSize.x, block.x);
      mapping.map(blockSize.y, block.y);
      mapping.map(blockSize.z, block.z);
      for (Operation &op : body.front().without_terminator())
        b.clone(op, mapping);
      launch.erase();
    }
  }
};
} // namespace

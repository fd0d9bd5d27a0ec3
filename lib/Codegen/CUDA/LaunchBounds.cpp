//===- LaunchBounds.cpp - one resident block is enough for the tiled kernels ---===//
//
// ptxas bounds a kernel's registers by the occupancy it aims for: with only .maxntid 128,
// four resident blocks of 128 threads, so 128 registers a thread, and the tensor-core
// kernels (32 accumulators, 16 fragment registers, the staged elements and their
// addresses) spilled. A kernel with shared memory (the tiled contractions, the row
// kernels) says one resident block is enough (nvvm.minctasm = 1, PTX .minnctapersm), as
// CUTLASS bounds its GEMMs: ptxas then takes the registers it needs, up to 255.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace infc {
#define GEN_PASS_DEF_INFCKERNELLAUNCHBOUNDS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcKernelLaunchBoundsPass
    : public infc::impl::InfcKernelLaunchBoundsBase<InfcKernelLaunchBoundsPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (func.isKernel() && func.getNumWorkgroupAttributions() &&
          !func->hasAttr(NVVM::NVVMDialect::getMinctasmAttrName()))
        func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(1));
    });
  }
};
} // namespace

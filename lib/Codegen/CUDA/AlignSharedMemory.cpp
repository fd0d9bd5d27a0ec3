//===- AlignSharedMemory.cpp - 32-byte aligned workgroup buffers ----------===//
//
// convert-gpu-to-nvvm aligns a workgroup buffer to its element type (2 bytes for f16)
// unless the attribution says otherwise; the tensor-core kernels load their fragments
// with ldmatrix, whose rows must be 16-byte aligned (and so will cp.async's), so the
// buffers' starts must be aligned beyond their elements.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace infc {
#define GEN_PASS_DEF_INFCALIGNSHAREDMEMORY
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcAlignSharedMemoryPass
    : public infc::impl::InfcAlignSharedMemoryBase<InfcAlignSharedMemoryPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    getOperation().walk([&](gpu::GPUFuncOp func) {
      for (unsigned i = 0, e = func.getNumWorkgroupAttributions(); i < e; ++i) {
        auto current = dyn_cast_or_null<IntegerAttr>(
            func.getWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName()));
        if (!current || current.getInt() < 32)
          func.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                           b.getI64IntegerAttr(32));
      }
    });
  }
};
} // namespace

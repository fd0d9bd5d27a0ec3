//===- LaunchesToLLVM.cpp - kernel launches in the kernels' convention ----===//
//
// gpu-to-llvm's kernel calling convention is a pass option; infc-kernels-to-nvvm chose
// it from the kernels' buffers and left its choice on the module. This pass reads it and
// runs gpu-to-llvm to match, so a launch passes exactly the parameters its kernel takes.
// Both of gpu-to-llvm's options must follow the choice: with bare pointers for the host,
// its type converter passes bare pointers to the kernels too, whatever the kernel option
// says (the host functions are lowered by then, with bare pointers, by func-to-llvm).
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Pass/PassManager.h"

namespace infc {
#define GEN_PASS_DEF_INFCLAUNCHESTOLLVM
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcLaunchesToLLVMPass : public infc::impl::InfcLaunchesToLLVMBase<InfcLaunchesToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    GpuToLLVMConversionPassOptions options;
    bool barePointers = module->hasAttr(infc::kBarePointerKernelsAttrName);
    options.hostBarePtrCallConv = barePointers;
    options.kernelBarePtrCallConv = barePointers;
    module->removeAttr(infc::kBarePointerKernelsAttrName);
    OpPassManager launches(ModuleOp::getOperationName());
    launches.addPass(createGpuToLLVMConversionPass(options));
    if (failed(runPipeline(launches, module)))
      signalPassFailure();
  }
};
} // namespace

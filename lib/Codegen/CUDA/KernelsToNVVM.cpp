//===- KernelsToNVVM.cpp - kernels to NVVM: bare pointers, 32-bit indices -===//
//
// Upstream's convert-gpu-to-nvvm takes its calling convention as a pass option, fixed when
// the pipeline is built; whether a model's kernels can take bare pointers depends on their
// buffers. This pass looks at them first, then runs the lowering accordingly, with the
// index width asked for (32 only where every buffer allows it). nvgpu's own pass has no
// index-width option, so its patterns run here with the same width (their casts meet
// convert-gpu-to-nvvm's types).
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/Passes.h"

namespace infc {
#define GEN_PASS_DEF_INFCKERNELSTONVVM
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// The largest extent a kernel argument may have with 32-bit indices: 2^30 elements
/// leaves room for the index arithmetic of threads past a tensor's end.
constexpr int64_t kMaxExtent32 = int64_t(1) << 30;

/// What the device functions' arguments allow: bare pointers (ranked memrefs with static
/// shapes, strides and offsets only) and, with them, 32-bit indices unless `notIndex32`
/// (the first function and argument that rules them out, and why) is set.
struct KernelConvention {
  bool barePointers = true;
  gpu::GPUFuncOp notIndex32;
  std::string why;
};

KernelConvention conventionOf(ModuleOp module) {
  KernelConvention convention;
  auto refuse32 = [&](gpu::GPUFuncOp func, unsigned arg, const Twine &why) {
    if (convention.notIndex32)
      return;
    convention.notIndex32 = func;
    convention.why = ("argument " + Twine(arg) + " " + why).str();
  };
  // Every device function: convert-gpu-to-nvvm's convention applies to all of them, and
  // one it cannot give bare pointers would fail to lower.
  module.walk([&](gpu::GPUFuncOp func) {
    for (auto [arg, type] : llvm::enumerate(func.getArgumentTypes())) {
      // An index, or memory or vectors of them, is 64-bit on the host.
      if (getElementTypeOrSelf(type).isIndex())
        refuse32(func, arg, "holds indices, 64-bit on the host");
      auto memref = dyn_cast<BaseMemRefType>(type);
      if (!memref)
        continue;
      auto ranked = dyn_cast<MemRefType>(memref);
      SmallVector<int64_t> strides;
      int64_t offset;
      if (!ranked || !LLVMTypeConverter::canConvertToBarePtr(ranked) ||
          failed(ranked.getStridesAndOffset(strides, offset))) {
        convention.barePointers = false;
        refuse32(func, arg, "is not a static buffer");
        continue;
      }
      // The offset of the last element from the buffer's aligned pointer, plus one.
      int64_t extent = offset;
      if (!llvm::is_contained(ranked.getShape(), 0)) {
        extent += 1;
        for (auto [size, stride] : llvm::zip(ranked.getShape(), strides))
          extent += (size - 1) * stride;
      }
      if (extent > kMaxExtent32)
        refuse32(func, arg, "spans " + Twine(extent) + " elements, more than 2^30");
    }
  });
  return convention;
}

/// nvgpu's ldmatrix and mma.sync to NVVM with an index of `bitwidth` bits (upstream's
/// convert-nvgpu-to-nvvm always takes the host's 64). Only the patterns: the type
/// conversions upstream's pass adds for nvgpu's own types (async tokens, mbarriers,
/// warpgroup accumulators) are not here, so cp.async or wgmma would need them first.
LogicalResult lowerNvgpu(gpu::GPUModuleOp module, unsigned bitwidth) {
  MLIRContext *ctx = module.getContext();
  LowerToLLVMOptions options(ctx);
  options.overrideIndexBitwidth(bitwidth);
  LLVMTypeConverter converter(ctx, options);
  configureGpuToNVVMTypeConverter(converter); // shared memory's address space, as upstream
  RewritePatternSet patterns(ctx);
  populateNVGPUToNVVMConversionPatterns(converter, patterns);
  ConversionTarget target(*ctx);
  target.addIllegalDialect<nvgpu::NVGPUDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  return applyPartialConversion(module, target, std::move(patterns));
}

struct InfcKernelsToNVVMPass : public infc::impl::InfcKernelsToNVVMBase<InfcKernelsToNVVMPass> {
  using InfcKernelsToNVVMBase::InfcKernelsToNVVMBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (indexBitwidth != 32 && indexBitwidth != 64) {
      module.emitError() << "infc-kernels-to-nvvm: index-bitwidth must be 32 or 64, not "
                         << indexBitwidth;
      return signalPassFailure();
    }
    KernelConvention convention = conventionOf(module);
    if (indexBitwidth == 32 && convention.notIndex32) {
      convention.notIndex32.emitError()
          << "infc-kernels-to-nvvm: 32-bit kernel indices (--gpu-index-bits 32) need every "
             "kernel's buffers static and within 2^30 elements, and no index argument: "
          << convention.notIndex32.getName() << "'s " << convention.why;
      return signalPassFailure();
    }
    if (convention.barePointers)
      module->setAttr(infc::kBarePointerKernelsAttrName, UnitAttr::get(&getContext()));

    ConvertGpuOpsToNVVMOpsOptions nvvm;
    nvvm.indexBitwidth = indexBitwidth;
    nvvm.useBarePtrCallConv = convention.barePointers;
    OpPassManager kernels(gpu::GPUModuleOp::getOperationName());
    kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
    kernels.addPass(createCanonicalizerPass());
    kernels.addPass(createCSEPass());
    kernels.addPass(createReconcileUnrealizedCastsPass());
    for (auto gpuModule : llvm::to_vector(module.getOps<gpu::GPUModuleOp>()))
      if (failed(lowerNvgpu(gpuModule, indexBitwidth)) || failed(runPipeline(kernels, gpuModule)))
        return signalPassFailure();
  }
};
} // namespace

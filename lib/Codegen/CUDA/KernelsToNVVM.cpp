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

/// What the kernels' arguments allow: bare pointers (static memrefs only) and, with them,
/// 32-bit indices (no index arguments, every buffer's extent within kMaxExtent32).
struct KernelConvention {
  bool barePointers = true;
  bool index32 = true;
};

KernelConvention conventionOf(ModuleOp module) {
  KernelConvention convention;
  module.walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel())
      return;
    for (Type type : func.getArgumentTypes()) {
      if (type.isIndex())
        convention.index32 = false;
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref)
        continue;
      SmallVector<int64_t> strides;
      int64_t offset;
      if (!LLVMTypeConverter::canConvertToBarePtr(memref) ||
          failed(memref.getStridesAndOffset(strides, offset))) {
        convention.barePointers = false;
        continue;
      }
      // The offset of the last element from the buffer's aligned pointer, plus one.
      int64_t extent = offset;
      if (!llvm::is_contained(memref.getShape(), 0)) {
        extent += 1;
        for (auto [size, stride] : llvm::zip(memref.getShape(), strides))
          extent += (size - 1) * stride;
      }
      if (extent > kMaxExtent32)
        convention.index32 = false;
    }
  });
  convention.index32 &= convention.barePointers;
  return convention;
}

/// nvgpu's ldmatrix and mma.sync to NVVM with an index of `bitwidth` bits (upstream's
/// convert-nvgpu-to-nvvm always takes the host's 64).
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

struct InfcKernelsToNVVMPass
    : public infc::impl::InfcKernelsToNVVMBase<InfcKernelsToNVVMPass> {
  using InfcKernelsToNVVMBase::InfcKernelsToNVVMBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (indexBitwidth != 32 && indexBitwidth != 64) {
      module.emitError() << "infc-kernels-to-nvvm: index-bitwidth must be 32 or 64, not "
                         << indexBitwidth;
      return signalPassFailure();
    }
    KernelConvention convention = conventionOf(module);
    if (indexBitwidth == 32 && !convention.index32) {
      module.emitError("32-bit kernel indices (--gpu-index-bits 32) need every kernel's "
                       "buffers static and within 2^30 elements, and no index argument");
      return signalPassFailure();
    }
    unsigned bitwidth = indexBitwidth;
    if (convention.barePointers)
      module->setAttr(infc::kBarePointerKernelsAttrName, UnitAttr::get(&getContext()));

    ConvertGpuOpsToNVVMOpsOptions nvvm;
    nvvm.indexBitwidth = bitwidth;
    nvvm.useBarePtrCallConv = convention.barePointers;
    OpPassManager kernels(gpu::GPUModuleOp::getOperationName());
    kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
    kernels.addPass(createCanonicalizerPass());
    kernels.addPass(createCSEPass());
    kernels.addPass(createReconcileUnrealizedCastsPass());
    for (auto gpuModule : llvm::to_vector(module.getOps<gpu::GPUModuleOp>()))
      if (failed(lowerNvgpu(gpuModule, bitwidth)) || failed(runPipeline(kernels, gpuModule)))
        return signalPassFailure();
  }
};
} // namespace

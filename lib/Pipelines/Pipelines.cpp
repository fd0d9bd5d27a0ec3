//===- Pipelines.cpp - the infc compilation pipeline ----------------------===//
#include "infc/Pipelines/Pipelines.h"
#include "infc/Codegen/CPU/Passes.h"
#include "infc/Codegen/CUDA/Passes.h"
#include "infc/Codegen/Common/Passes.h"
#include "infc/Conversion/Passes.h"
#include "infc/Dialect/Infc/IR/InfcDialect.h"
#include "infc/Dialect/Infc/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/InlinerInterfaceImpl.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/RuntimeOpVerification.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void infc::registerInfcDialects(DialectRegistry &registry) {
  registry
      .insert<InfcDialect, func::FuncDialect, arith::ArithDialect, math::MathDialect,
              tensor::TensorDialect, linalg::LinalgDialect, memref::MemRefDialect,
              bufferization::BufferizationDialect, scf::SCFDialect, affine::AffineDialect,
              cf::ControlFlowDialect, LLVM::LLVMDialect, vector::VectorDialect, omp::OpenMPDialect,
              amx::AMXDialect, gpu::GPUDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerTilingInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerSubsetOpInterfaceExternalModels(registry);
  tensor::registerSubsetOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(registry);
  // memref.alloc as an AllocationOpInterface: buffer-results-to-out-params' hoisting of a
  // returned static alloc into the out-parameter needs it.
  memref::registerAllocationOpInterfaceExternalModels(registry);
  // infc-memory-plan bounds the buffers of symbolic sizes through these (affine.min clamps,
  // index arithmetic, views and dims).
  affine::registerValueBoundsOpInterfaceExternalModels(registry);
  arith::registerValueBoundsOpInterfaceExternalModels(registry);
  memref::registerValueBoundsOpInterfaceExternalModels(registry);
  // --emulator-checks: the emulated kernels' loads, stores and views bounds-checked.
  memref::registerRuntimeVerifiableOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  // --target cuda: kernels serialized through the NVVM target, embedded by gpu.binary.
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  // convert-gpu-to-nvvm converts the kernels' other dialects through these interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  gpu::registerConvertGpuToLLVMInterface(registry);
}

static void addGraphPasses(OpPassManager &pm) {
  // First: it matches the region as the importer wrote it (a --decoder module only).
  pm.addPass(infc::createInfcRecognizeAttention());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(infc::createInfcShapeInference());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(infc::createInfcFoldQdq());
  pm.addNestedPass<func::FuncOp>(infc::createInfcFoldConvAffine());
  pm.addPass(createCanonicalizerPass());
}

static void addLinalgPasses(OpPassManager &pm, const infc::InfcPipelineOptions &options) {
  infc::ConvertInfcToLinalgOptions seam;
  seam.directConv = options.cudaCodegen();
  // AMX tiles take K in steps of 64 bytes (infc-vnni-matmul pads A to them otherwise).
  if (!seam.directConv && options.vnni && options.amx && options.vectorBits >= 512)
    seam.byteRowMultiple = 64;
  seam.bf16Convs = !seam.directConv && options.precision == infc::Precision::BF16;
  if (!seam.directConv || options.gpuLayout == infc::ConvLayout::NHWC) {
    pm.addNestedPass<func::FuncOp>(infc::createInfcChannelsLast());
    pm.addPass(createCanonicalizerPass());
  }
  pm.addNestedPass<func::FuncOp>(infc::createConvertInfcToLinalg(seam));
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(infc::createInfcFuseElementwise());
  pm.addPass(createCSEPass());
}

/// Tensors to buffers, results to out-parameters: what the memory plan starts from.
static void addBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion = bufferization::LayoutMapOption::IdentityLayoutMap;
  // A tensor.empty whose result is inserted into a bigger tensor (im2col's per-tap copies,
  // whose destination linalg's canonicalization replaces by an empty tensor) becomes that
  // slice of the destination, so the copy writes in place instead of into a scratch buffer
  // that bufferization then copies again.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // A result computed by a loop (the panels of a matmul) is that loop's iter_arg buffer;
  // canonicalization forwards it to the alloc, which hoist-static-allocs can then replace
  // by the out-parameter, so the result is written in place instead of copied at the end.
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(infc::createInfcUniqueResults());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  outParams.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Memrefs, scalars, branches and the entry function (bare pointers: the runtime passes one
/// per buffer) to the LLVM dialect.
static void addFuncToLLVM(OpPassManager &pm) {
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcOptions));
}

/// Loops, vectors and memrefs down to the LLVM dialect, for the CPU (and the host side of
/// the GPU emulator).
static void addHostLowering(OpPassManager &pm, const infc::InfcPipelineOptions &options) {
  // Full unrolling: partial unrolling puts allocas inside loops.
  pm.addNestedPass<func::FuncOp>(
      createConvertVectorToSCFPass(VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToOpenMPPass());
  // Inlines the memref.alloca_scope that the OpenMP conversion wraps around loop bodies
  // (they hold no allocas); scf-to-cf would otherwise leave it with several blocks.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // LLVM intrinsics first (vector fma, sqrt, abs stay vector instructions; scalar exp/log
  // become intrinsics that the back end emits as expf/logf calls); libm then takes what has
  // no intrinsic (erf, tanh, acosh...).
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  ConvertVectorToLLVMPassOptions vectorOptions;
  vectorOptions.amx = options.amxTiles(); // the amx tile ops become their LLVM intrinsics
  pm.addPass(createConvertVectorToLLVMPass(vectorOptions));
  pm.addPass(createUBToLLVMConversionPass());
  addFuncToLLVM(pm);
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(infc::createInfcOutlineParallelRegions());
}

static void addCPUCodegenPasses(OpPassManager &pm, const infc::InfcPipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(infc::createInfcPadPointwiseInput());
  if (options.vnni && options.vectorBits >= 512) {
    infc::InfcVnniMatmulOptions vnni;
    vnni.amx = options.amx;
    pm.addNestedPass<func::FuncOp>(infc::createInfcVnniMatmul(vnni));
  } else if (!options.int8Kernel.empty()) {
    infc::InfcVnniMatmulOptions kernel;
    kernel.kernel = options.int8Kernel;
    kernel.vectorBits = options.int8KernelBits;
    pm.addNestedPass<func::FuncOp>(infc::createInfcVnniMatmul(kernel));
  }
  if (options.weights != infc::WeightFormat::FP32) {
    infc::InfcWeightOnlyMatmulOptions weightOnly;
    weightOnly.bits = options.weights == infc::WeightFormat::Int4 ? 4 : 8;
    weightOnly.group = options.weightGroupOrDefault();
    weightOnly.vectorBits = options.vectorBits >= 512 ? 512 : 256;
    pm.addNestedPass<func::FuncOp>(infc::createInfcWeightOnlyMatmul(weightOnly));
  }
  if (options.precision == infc::Precision::BF16) {
    infc::InfcBf16MatmulOptions bf16;
    bf16.kernel = options.amxBf16 ? "amx" : "vdpbf16ps";
    pm.addNestedPass<func::FuncOp>(infc::createInfcBf16Matmul(bf16));
    // The rounding of A joins the elementwise op that makes A (a LayerNorm, a GELU).
    pm.addNestedPass<func::FuncOp>(infc::createInfcFuseElementwise());
  }
  infc::InfcImplicitConvOptions implicitConv;
  implicitConv.vectorBits = options.vectorBits;
  pm.addNestedPass<func::FuncOp>(infc::createInfcImplicitConv(implicitConv));
  infc::InfcPackMatmulPanelsOptions panels;
  panels.vectorBits = options.vectorBits;
  pm.addNestedPass<func::FuncOp>(infc::createInfcPackMatmulPanels(panels));
  infc::InfcTileAndVectorizeMatmulOptions matmul;
  matmul.vectorBits = options.vectorBits;
  pm.addNestedPass<func::FuncOp>(infc::createInfcTileAndVectorizeMatmul(matmul));
  infc::InfcVectorizeElementwiseOptions elementwise;
  elementwise.vectorBits = options.vectorBits;
  pm.addNestedPass<func::FuncOp>(infc::createInfcVectorizeElementwise(elementwise));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(infc::createInfcPadBorders());
  addBufferization(pm);
  // A model with symbolic dims (--dim): its sizes as an argument, clamped to their bounds,
  // which the memory plan reads through the canonicalized sizes.
  pm.addPass(infc::createInfcBoundDynamicEntry());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(infc::createInfcMemoryPlan());
  pm.addNestedPass<func::FuncOp>(infc::createInfcPrefetchPanels());
  pm.addNestedPass<func::FuncOp>(infc::createInfcUnrollKLoops());
  if (options.amxTiles()) {
    // (k-chunk stays off: 8-step chunks gained 2.5% on bf16 BERT-base at 1 thread but take
    // the inner block loop out of the threads' sharing, which many cores would miss.)
    pm.addNestedPass<func::FuncOp>(infc::createInfcAmxTiles());
  }
  infc::InfcParallelizeLoopsOptions parallel;
  if (!options.serialSmallLoops)
    parallel.minLoopWork = parallel.minFunctionWork = 0;
  pm.addNestedPass<func::FuncOp>(infc::createInfcParallelizeLoops(parallel));
  pm.addNestedPass<func::FuncOp>(infc::createInfcLowerCopies());
  pm.addNestedPass<func::FuncOp>(infc::createInfcParallelizeCopies());
  infc::InfcVectorizeCopiesOptions copies;
  copies.vectorBits = options.vectorBits;
  pm.addNestedPass<func::FuncOp>(infc::createInfcVectorizeCopies(copies));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(infc::createInfcLowerVectors());
  pm.addPass(createCanonicalizerPass());
  if (options.profileEntry)
    pm.addPass(infc::createInfcProfileEntry());
  addHostLowering(pm, options);
}

/// The same bufferized loops as on the CPU, each loop nest a kernel: weights and workspace
/// in device memory, the host function a sequence of launches (runtime/cuda.c implements
/// the mgpu* calls it makes over the CUDA driver).
static void addCUDACodegenPasses(OpPassManager &pm, const infc::InfcPipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(infc::createInfcPadToGeneric());
  // int8 products read their bytes (the widening moves into their payloads); the
  // elementwise ops left around them fuse again.
  pm.addNestedPass<func::FuncOp>(infc::createInfcNarrowIntegerOperands());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(infc::createInfcFuseElementwise());
  // tf32 keeps f32 operands: the tensor cores round them (infc-linalg-to-gpu-loops{tf32}).
  if (options.precision == infc::Precision::FP16 || options.precision == infc::Precision::BF16) {
    infc::InfcLowerPrecisionOptions precision;
    precision.precision = options.precision;
    pm.addNestedPass<func::FuncOp>(infc::createInfcLowerPrecision(precision));
    // The casts to half join the ops that make their operands (a conv's padding).
    pm.addNestedPass<func::FuncOp>(infc::createInfcFuseElementwise());
    // What is left between kernels is stored in half too; the casts before the
    // contractions then fold away (truncf of extf). bf16's 8 mantissa bits would cost a
    // residual stream too much (BERT-base: 1e-2 -> 2.6e-2 relative error), so by default
    // it stores in half only what is rounded to half anyway.
    infc::Activations mode = options.activations.value_or(options.precision == infc::Precision::BF16
                                                              ? infc::Activations::Rounded
                                                              : infc::Activations::Half);
    if (mode != infc::Activations::FP32) {
      infc::InfcHalfActivationsOptions activations;
      activations.precision = options.precision;
      activations.mode = mode;
      pm.addNestedPass<func::FuncOp>(infc::createInfcHalfActivations(activations));
      pm.addPass(createCanonicalizerPass());
      pm.addNestedPass<func::FuncOp>(infc::createInfcFuseElementwise());
    }
  }
  // The 16-bit and int8 tensor cores stage their weights reduction-innermost.
  pm.addNestedPass<func::FuncOp>(infc::createInfcDepthMajorWeights());
  // Split-K for contractions too small for the SMs; the epilogues join the sums' kernel.
  pm.addNestedPass<func::FuncOp>(infc::createInfcSplitReduction());
  pm.addNestedPass<func::FuncOp>(infc::createInfcFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(infc::createInfcDuplicateFills()); // after CSE merged them
  addBufferization(pm);
  infc::InfcMemoryPlanOptions plan;
  plan.kernelGroups = true; // the fusions of infc-linalg-to-gpu-loops
  pm.addPass(infc::createInfcMemoryPlan(plan));
  pm.addPass(infc::createInfcPackWeights());
  pm.addNestedPass<func::FuncOp>(infc::createInfcLowerCopies());
  infc::InfcLinalgToGpuLoopsOptions loops;
  loops.tf32 = options.precision == infc::Precision::TF32;
  pm.addNestedPass<func::FuncOp>(infc::createInfcLinalgToGpuLoops(loops));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass()); // what is left
  // No canonicalization before the mapping: it would inline one-point loops into the host
  // function, where the loads and stores of their body cannot run.
  pm.addNestedPass<func::FuncOp>(infc::createInfcMapToGpu());
  if (options.target == infc::Target::CUDAEmulator) {
    pm.addNestedPass<func::FuncOp>(
        infc::createInfcGpuLaunchToLoops({/*raceCheck=*/options.emulatorChecks}));
    // Out of bounds, a kernel faults on a GPU or reads another buffer of the workspace;
    // the emulator would read on silently.
    if (options.emulatorChecks)
      pm.addPass(createGenerateRuntimeVerificationPass());
    pm.addNestedPass<func::FuncOp>(infc::createInfcLowerVectors()); // the emulated mma.syncs
    pm.addPass(createCanonicalizerPass());
    addHostLowering(pm, options);
    return;
  }
  pm.addPass(createCanonicalizerPass());
  // The canonicalizer hoists the kernels' constants into the host function; without
  // sinking them back, every tile size and loop bound would be a kernel argument (a
  // division by one a real division, a private array indexed by it kept in memory).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // The PTX is written for the oldest architecture (ptxas compiles it for every newer one,
  // and the driver JIT-compiles it for GPUs newer still), in a PTX ISA version the newest
  // one accepts: sm_90 needs 7.8, sm_100 8.6, sm_120 8.7.
  auto smOf = [](const std::string &arch) { return infc::gpuArchVersion(arch).value_or(0); };
  std::string oldest = options.gpuArchs.empty() ? "sm_80" : options.gpuArchs.front();
  unsigned newest = 0;
  for (const std::string &arch : options.gpuArchs) {
    if (smOf(arch) < smOf(oldest))
      oldest = arch;
    newest = std::max(newest, smOf(arch));
  }
  GpuNVVMAttachTargetOptions nvvm;
  nvvm.chip = oldest;
  nvvm.features = newest >= 120 ? "+ptx87" : newest >= 100 ? "+ptx86" : "+ptx80";
  nvvm.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(nvvm));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(infc::createInfcAlignSharedMemory());
  // Bare pointers where every kernel's buffers are static (the launches lowered to match);
  // 32-bit indices when asked for.
  infc::InfcKernelsToNVVMOptions toNvvm;
  toNvvm.indexBitwidth = options.gpuIndexWidth == infc::IndexWidth::I32 ? 32 : 64;
  pm.addPass(infc::createInfcKernelsToNVVM(toNvvm));
  addFuncToLLVM(pm);
  pm.addPass(infc::createInfcLaunchesToLLVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  if (options.stopAfter == infc::PipelineStage::GpuModules)
    return;
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = options.cudaPath; // libdevice, for the math functions
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (options.stopAfter == infc::PipelineStage::Kernels)
    return;
  infc::InfcCudaFatbinOptions fatbin;
  fatbin.archs.assign(options.gpuArchs.begin(), options.gpuArchs.end());
  fatbin.toolkit = options.cudaPath;
  pm.addPass(infc::createInfcCudaFatbin(fatbin));
}

void infc::buildInfcPipeline(OpPassManager &pm, const InfcPipelineOptions &options) {
  if (!options.skipGraphPasses)
    addGraphPasses(pm);
  if (options.stopAfter == PipelineStage::Infc)
    return;
  addLinalgPasses(pm, options);
  if (options.stopAfter == PipelineStage::Linalg)
    return;
  if (options.cudaCodegen())
    addCUDACodegenPasses(pm, options);
  else
    addCPUCodegenPasses(pm, options);
}

namespace {
struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  Option<std::string> stopAfter{*this, "stop-after",
                                llvm::cl::desc("infc | linalg | llvm (default)"),
                                llvm::cl::init("llvm")};
  Option<int64_t> vectorBits{*this, "vector-bits",
                             llvm::cl::desc("SIMD width of the target (256 or 512)"),
                             llvm::cl::init(256)};
  Option<bool> vnni{*this, "vnni", llvm::cl::desc("the target has AVX-512 VNNI"),
                    llvm::cl::init(false)};
  Option<bool> amx{*this, "amx", llvm::cl::desc("the target has AMX-INT8"), llvm::cl::init(false)};
  Option<bool> amxBf16{*this, "amx-bf16", llvm::cl::desc("the target has AMX-BF16"),
                       llvm::cl::init(false)};
  Option<bool> avx512Bf16{*this, "avx512-bf16", llvm::cl::desc("the target has AVX512_BF16"),
                          llvm::cl::init(false)};
  Option<std::string> int8Kernel{
      *this, "int8-kernel",
      llvm::cl::desc("without vnni: vpdpbusd (AVX-VNNI) or vpmaddwd (AVX2, AVX-512BW)")};
  Option<int64_t> int8KernelBits{*this, "int8-kernel-bits",
                                 llvm::cl::desc("int8-kernel's width (256 or 512)"),
                                 llvm::cl::init(512)};
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("cpu (default) | cuda | cuda-emulator"),
                             llvm::cl::init("cpu")};
  ListOption<std::string> gpu{*this, "gpu",
                              llvm::cl::desc("CUDA: GPU architectures (default sm_80,sm_90)")};
  Option<std::string> cudaPath{*this, "cuda-path", llvm::cl::desc("CUDA toolkit"),
                               llvm::cl::init("/usr/local/cuda")};
  Option<std::string> precision{*this, "precision",
                                llvm::cl::desc("fp32 (default); CUDA: tf32, fp16 or bf16; "
                                               "CPU with amx-bf16 or avx512-bf16: bf16"),
                                llvm::cl::init("fp32")};
  Option<std::string> weights{
      *this, "weights",
      llvm::cl::desc("CPU: the weights of f32 matmuls as fp32 (default), int8 (a scale per "
                     "weight-group K values of a column) or int4 (a scale and a minimum)"),
      llvm::cl::init("fp32")};
  Option<int64_t> weightGroup{
      *this, "weight-group",
      llvm::cl::desc("weights=int8|int4: K values sharing a scale (a power of two from 16, or "
                     "0: a column; default 64 for int8, 32 for int4)"),
      llvm::cl::init(-1)};
  Option<std::string> activations{
      *this, "activations",
      llvm::cl::desc("CUDA, fp16/bf16: activations stored half, rounded or fp32 (default: "
                     "half for fp16, rounded for bf16)")};
  Option<std::string> gpuLayout{*this, "gpu-layout",
                                llvm::cl::desc("CUDA: convolutions over nhwc (default) or nchw"),
                                llvm::cl::init("nhwc")};
  Option<std::string> gpuIndexBits{
      *this, "gpu-index-bits", llvm::cl::desc("CUDA: the kernels' index width, 64 (default) or 32"),
      llvm::cl::init("64")};
  Option<bool> emulatorChecks{
      *this, "emulator-checks",
      llvm::cl::desc("cuda-emulator: blocks and threads last first over poisoned memory, "
                     "loads and stores bounds-checked (compare with a plain run)"),
      llvm::cl::init(false)};
  Option<bool> serialSmallLoops{
      *this, "serial-small-loops",
      llvm::cl::desc("CPU: loops (and models) too small to pay for a parallel region run on "
                     "the calling thread (infc-parallelize-loops' cost model; default true)"),
      llvm::cl::init(true)};
  Option<bool> profileEntry{
      *this, "profile-entry",
      llvm::cl::desc("CPU: add @main_profiled, the entry with a timer around each kernel "
                     "(infc-profile-entry; infc compile --profile)"),
      llvm::cl::init(false)};
  Option<bool> skipGraphPasses{
      *this, "skip-graph-passes",
      llvm::cl::desc("the input is `infc compile --emit=infc` output: run the passes after "
                     "the graph passes only (as `infc compile` does after --emit=infc)"),
      llvm::cl::init(false)};
};
} // namespace

/// `--name value` or `name=value`, as `spelling` writes an option (`--name` or `name` for
/// a flag without a value).
static std::string spell(infc::OptionSpelling spelling, StringRef name, StringRef value = "") {
  if (spelling == infc::OptionSpelling::Flags)
    return ("--" + name + (value.empty() ? "" : " ") + value).str();
  return (name + (value.empty() ? "" : "=") + value).str();
}

std::string infc::checkPipelineOptions(const InfcPipelineOptions &options,
                                       OptionSpelling spelling) {
  auto option = [&](StringRef name, StringRef value = "") { return spell(spelling, name, value); };
  if (options.emulatorChecks && options.target != Target::CUDAEmulator)
    return option("emulator-checks") + " needs " + option("target", "cuda-emulator");
  if (options.precision == Precision::BF16 && options.target == Target::CPU && !options.amxBf16 &&
      !options.avx512Bf16)
    return option("precision", "bf16") +
           " on the CPU needs an x86 target CPU with AMX-BF16 or AVX512_BF16 (Sapphire " +
           "Rapids, Zen 4, Cooper Lake or later: " +
           (spelling == OptionSpelling::Flags ? "--cpu sapphirerapids"
                                              : "amx-bf16 or avx512-bf16") +
           "), or " + option("target", "cuda");
  if (options.precision != Precision::FP32 && options.precision != Precision::BF16 &&
      options.target == Target::CPU)
    return option("precision", nameOf(options.precision)) + " needs " + option("target", "cuda") +
           " (the CPU computes in fp32, or bf16)";
  if (options.weights != WeightFormat::FP32 && options.target != Target::CPU)
    return option("weights", nameOf(options.weights)) + " is for the CPU target (the GPU " +
           "takes " + option("precision", "fp16") + " or bf16 for smaller operands)";
  if (options.weights != WeightFormat::FP32 && options.precision != Precision::FP32)
    return option("weights", nameOf(options.weights)) + " computes in fp32: not with " +
           option("precision", nameOf(options.precision));
  if (int64_t group = options.weightGroupOrDefault();
      group != 0 && (group < 16 || !llvm::isPowerOf2_64(group)))
    return option("weight-group", std::to_string(group)) +
           " is not a power of two from 16, or 0 (a scale per column)";
  if (options.activations && options.precision != Precision::FP16 &&
      options.precision != Precision::BF16)
    return option("activations", nameOf(*options.activations)) + " needs " +
           option("precision", "fp16") + " or bf16 (activations are fp32 at " +
           nameOf(options.precision).str() + ")";
  if (options.activations && options.target == Target::CPU)
    return option("activations", nameOf(*options.activations)) + " needs " +
           option("target", "cuda") + " (the CPU keeps activations in fp32)";
  if (options.gpuLayout != ConvLayout::NHWC && options.target == Target::CPU)
    return option("gpu-layout", nameOf(options.gpuLayout)) + " needs " + option("target", "cuda") +
           " (the CPU convolves over NHWC)";
  if (options.gpuIndexWidth != IndexWidth::I64 && options.target != Target::CUDA)
    return option("gpu-index-bits", nameOf(options.gpuIndexWidth)) + " needs " +
           option("target", "cuda") + " (the emulator and the CPU index in 64 bits)";
  return "";
}

/// `value` as an E for option `name` of --infc-pipeline, or why not.
template <typename E>
static bool parsePipelineChoice(StringRef name, StringRef value, E &out, std::string &why) {
  if (std::optional<E> choice = infc::parseChoice<E>(value)) {
    out = *choice;
    return true;
  }
  why = (name + " '" + value + "' is not " + infc::choiceList<E>()).str();
  return false;
}

/// The typed options of `--infc-pipeline`'s strings, or why they are not valid.
static std::string parsePipelineOptions(const PipelineCLOptions &cl,
                                        infc::InfcPipelineOptions &options) {
  std::string why;
  if (!parsePipelineChoice("target", cl.target, options.target, why) ||
      !parsePipelineChoice("precision", cl.precision, options.precision, why) ||
      !parsePipelineChoice("weights", cl.weights, options.weights, why) ||
      !parsePipelineChoice("gpu-layout", cl.gpuLayout, options.gpuLayout, why) ||
      !parsePipelineChoice("gpu-index-bits", cl.gpuIndexBits, options.gpuIndexWidth, why))
    return why;
  if (!cl.activations.empty()) { // empty: the precision's default
    infc::Activations activations;
    if (!parsePipelineChoice("activations", cl.activations, activations, why))
      return why;
    options.activations = activations;
  }
  if (cl.stopAfter == "infc")
    options.stopAfter = infc::PipelineStage::Infc;
  else if (cl.stopAfter == "linalg")
    options.stopAfter = infc::PipelineStage::Linalg;
  else if (cl.stopAfter != "llvm")
    return "stop-after '" + cl.stopAfter + "' is not infc, linalg or llvm";
  options.vectorBits = cl.vectorBits;
  options.vnni = cl.vnni;
  options.amx = cl.amx;
  options.amxBf16 = cl.amxBf16;
  options.avx512Bf16 = cl.avx512Bf16;
  options.int8Kernel = cl.int8Kernel;
  options.int8KernelBits = cl.int8KernelBits;
  options.emulatorChecks = cl.emulatorChecks;
  if (cl.weightGroup != -1)
    options.weightGroup = cl.weightGroup;
  if (!cl.gpu.empty())
    options.gpuArchs.assign(cl.gpu.begin(), cl.gpu.end());
  options.cudaPath = cl.cudaPath;
  options.skipGraphPasses = cl.skipGraphPasses;
  options.serialSmallLoops = cl.serialSmallLoops;
  options.profileEntry = cl.profileEntry;
  return infc::checkPipelineOptions(options, infc::OptionSpelling::PipelineString);
}

void infc::registerInfcPipelines() {
  registerPassPipeline(
      "infc-pipeline", "The whole infc compile pipeline (as `infc compile` runs it)",
      [](OpPassManager &pm, StringRef optionString,
         function_ref<LogicalResult(const Twine &)> errorHandler) -> LogicalResult {
        PipelineCLOptions cl;
        if (failed(cl.parseFromString(optionString)))
          return failure();
        InfcPipelineOptions options;
        if (std::string why = parsePipelineOptions(cl, options); !why.empty())
          return errorHandler("infc-pipeline: " + why);
        buildInfcPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optionHandler) {
        optionHandler(PipelineCLOptions());
      });
}

void infc::registerUpstreamPasses() {
  registerCanonicalizerPass();
  registerCSEPass();
  bufferization::registerOneShotBufferizePass();
  bufferization::registerBufferResultsToOutParamsPass();
  registerConvertLinalgToLoopsPass();
  registerLinalgElementwiseOpFusionPass();
}

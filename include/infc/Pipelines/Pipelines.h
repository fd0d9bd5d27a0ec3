//===- Pipelines.h - the one pipeline builder -------------------*- C++ -*-===//
//
// `infc compile` and `infc-opt --infc-pipeline` build their pass pipelines here, so lit
// tests exercise exactly what users run.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_PIPELINES_PIPELINES_H
#define INFC_PIPELINES_PIPELINES_H

#include "infc/Support/Choices.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace infc {

/// Where the pipeline stops: after the graph passes (infc dialect), after lowering to
/// linalg on tensors, with a CUDA model's kernels in the NVVM dialect (gpu.module, before
/// serialization: --emit=cuda), with them as PTX (gpu.binary, before the fatbin), or in the
/// LLVM dialect ready for translation.
enum class PipelineStage { Infc, Linalg, GpuModules, Kernels, LLVM };

struct InfcPipelineOptions {
  PipelineStage stopAfter = PipelineStage::LLVM;
  /// SIMD register width of the target CPU in bits (from lib/Target's TargetMachine).
  int64_t vectorBits = 256;
  /// The target has AVX-512 VNNI: i8 matmuls run on vpdpbusd (infc-vnni-matmul).
  bool vnni = false;
  /// The target has AMX-INT8: those matmuls run on AMX tiles instead (infc-amx-tiles).
  bool amx = false;
  /// The target has AMX-BF16: with precision BF16, f32 matmuls and convolutions with
  /// constant weights run on its tiles (infc-bf16-matmul, infc-amx-tiles).
  bool amxBf16 = false;
  /// The target has AVX512_BF16: without AMX-BF16, those run on vdpbf16ps instead.
  bool avx512Bf16 = false;
  /// Without AVX-512 VNNI, the i8 matmuls' register kernel (infc-vnni-matmul's kernel and
  /// vector-bits): vpdpbusd on ymm (AVX-VNNI), vpmaddwd on zmm (AVX-512BW) or ymm (AVX2);
  /// empty: the i32 kernel.
  std::string int8Kernel;
  int64_t int8KernelBits = 0;
  /// CPU: marked loops too small to pay for a parallel region, and all of a model too small
  /// to pay for waking the workers, run on the calling thread (infc-parallelize-loops'
  /// cost model); false parallelizes every marked loop (lit tests of the parallel lowering).
  bool serialSmallLoops = true;
  /// CPU: a second entry function with a timer around each kernel, which the runtime's
  /// profiler calls (infc-profile-entry; `infc compile --profile`); the plain entry stays
  /// as it is. Off by default: LLVM compiles the model's code twice.
  bool profileEntry = false;
  /// The module has been through the graph passes already (`infc compile` runs them
  /// first when it calibrates or reports): start at the seam.
  bool skipGraphPasses = false;
  /// The CPU, or the CUDA code generation (CUDAEmulator: the kernels' IR run on the CPU,
  /// each launch as loops over its blocks and threads, infc-gpu-launch-to-loops).
  Target target = Target::CPU;
  /// CUDA: the GPU architectures that get a cubin (the first one's PTX goes along too).
  std::vector<std::string> gpuArchs = {"sm_80", "sm_90"};
  /// CUDA: the toolkit whose ptxas and fatbinary build the fatbin.
  std::string cudaPath = "/usr/local/cuda";
  /// CUDA, emulated: blocks and threads run last first over poisoned shared, private and
  /// workspace memory (infc-gpu-launch-to-loops' race-check), every memref load, store and
  /// view checked against its bounds (upstream's generate-runtime-verification): a plain
  /// emulated run's outputs bit for bit unless a kernel races, reads memory nothing wrote
  /// or reaches outside a buffer.
  bool emulatorChecks = false;
  /// CUDA: matmul and convolution operands (infc-lower-precision; TF32 on tensor cores).
  /// CPU: FP32, or BF16 on a target with AMX-BF16 or AVX512_BF16 (the operands of matmuls and
  /// convolutions with constant weights rounded to bf16, products accumulated in f32).
  Precision precision = Precision::FP32;
  /// CPU: the weights of f32 matmuls as given, or int8 / int4 with a scale (and for int4 a
  /// minimum) per `weightGroup` K values of a column (infc-weight-only-matmul; 0: one per
  /// column; unset: the format's default).
  WeightFormat weights = WeightFormat::FP32;
  std::optional<int64_t> weightGroup;
  int64_t weightGroupOrDefault() const {
    return weightGroup ? *weightGroup : defaultWeightGroup(weights);
  }
  /// CUDA at FP16 or BF16: the activations between kernels (infc-half-activations); unset:
  /// the precision's default (Half for FP16, Rounded for BF16).
  std::optional<Activations> activations;
  /// CUDA: NHWC convolutions and pools (infc-channels-last, as on the CPU: the implicit
  /// GEMM reads both operands channels innermost), or the model's own NCHW.
  ConvLayout gpuLayout = ConvLayout::NHWC;
  /// CUDA: the kernels' index width (infc-kernels-to-nvvm; I32 needs every kernel's
  /// buffers static and within 2^30 elements).
  IndexWidth gpuIndexWidth = IndexWidth::I64;

  /// The CUDA code generation runs (on a GPU or emulated).
  bool cudaCodegen() const { return target != Target::CPU; }
  /// CPU code with AMX tile products: int8 ones on AMX-INT8, bf16 ones on AMX-BF16
  /// (infc-amx-tiles lowers them, convert-vector-to-llvm their tile ops).
  bool amxTiles() const { return amx || (precision == Precision::BF16 && amxBf16); }
};

/// How checkPipelineOptions names options: as `infc compile` flags (`--precision fp16`) or
/// as `--infc-pipeline` options (`precision=fp16`).
enum class OptionSpelling { Flags, PipelineString };

/// Why `options` is not a combination infc compiles ("" when it is): --precision and
/// --gpu-layout need a GPU target, --activations fp16 or bf16, --emulator-checks the
/// emulator, 32-bit GPU indices a GPU. `infc compile` and `--infc-pipeline` both check here.
std::string checkPipelineOptions(const InfcPipelineOptions &options, OptionSpelling spelling);

/// Graph passes, then the seam (infc to linalg), then CPU or CUDA code generation down to
/// the LLVM dialect (with the kernels in a gpu.binary for CUDA). The module's `func.func @main` is
/// the model's entry point.
void buildInfcPipeline(mlir::OpPassManager &pm, const InfcPipelineOptions &options);

/// Registers `--infc-pipeline{stop-after=infc|linalg|llvm target=cpu|cuda ...}` with the pass
/// registry.
void registerInfcPipelines();

/// Dialects the pipeline creates, for tools that parse or build its IR.
void registerInfcDialects(mlir::DialectRegistry &registry);

/// The upstream passes that lit tests of our pipeline pieces use (canonicalize, cse, ...).
void registerUpstreamPasses();

} // namespace infc

#endif // INFC_PIPELINES_PIPELINES_H

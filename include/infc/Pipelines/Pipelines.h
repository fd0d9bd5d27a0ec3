//===- Pipelines.h - the one pipeline builder -------------------*- C++ -*-===//
//
// `infc compile` and `infc-opt --infc-pipeline` build their pass pipelines here, so lit
// tests exercise exactly what users run.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_PIPELINES_PIPELINES_H
#define INFC_PIPELINES_PIPELINES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace infc {

/// Where the pipeline stops: after the graph passes (infc dialect), after lowering to
/// linalg on tensors, with a CUDA model's kernels as PTX (gpu.binary, before the fatbin),
/// or in the LLVM dialect ready for translation.
enum class PipelineStage { Infc, Linalg, Kernels, LLVM };

/// What runs the model's code: the host CPU, or an NVIDIA GPU through the CUDA driver.
enum class Device { CPU, CUDA };

struct InfcPipelineOptions {
  PipelineStage stopAfter = PipelineStage::LLVM;
  /// SIMD register width of the target CPU in bits (from lib/Target's TargetMachine).
  int64_t vectorBits = 256;
  /// The target has AVX-512 VNNI: i8 matmuls run on vpdpbusd (infc-vnni-matmul).
  bool vnni = false;
  /// The target has AMX-INT8: those matmuls run on AMX tiles instead (infc-amx-tiles).
  bool amx = false;
  /// Without AVX-512 VNNI, the i8 matmuls' register kernel (infc-vnni-matmul's kernel and
  /// vector-bits): vpdpbusd on ymm (AVX-VNNI), vpmaddwd on zmm (AVX-512BW) or ymm (AVX2);
  /// empty: the i32 kernel.
  std::string int8Kernel;
  int64_t int8KernelBits = 0;
  /// The module has been through the graph passes already (`infc compile` runs them
  /// first when it calibrates or reports): start at the seam.
  bool skipGraphPasses = false;
  Device device = Device::CPU;
  /// CUDA: the GPU architectures that get a cubin (the first one's PTX goes along too).
  std::vector<std::string> gpuArchs = {"sm_80", "sm_90"};
  /// CUDA: the toolkit whose ptxas and fatbinary build the fatbin.
  std::string cudaPath = "/usr/local/cuda";
  /// CUDA: run the kernels' IR on the CPU instead, each launch as loops over its blocks and
  /// threads (infc-gpu-launch-to-loops), to test the GPU lowering without a GPU.
  bool emulateGpu = false;
  /// CUDA, emulated: blocks and threads run last first over poisoned shared, private and
  /// workspace memory (infc-gpu-launch-to-loops' race-check, which also checks 1-D vector
  /// loads and stores against their views' footprint), and every memref load, store and
  /// view checked against its bounds at run time (upstream's
  /// generate-runtime-verification: an abort that names the op): the same outputs as a
  /// plain emulated run, bit for bit, unless a kernel races, reads memory nothing wrote, or
  /// reaches outside a buffer (an illegal address on a GPU, or another buffer's data).
  bool emulatorChecks = false;
  /// CUDA: "fp16" or "bf16" stores the operands of matmuls and convolutions in that type,
  /// accumulating in f32 (infc-lower-precision); "tf32" runs f32 ones on tensor cores as
  /// TF32 (10-bit mantissas, f32 sums); "fp32" (default) leaves them.
  std::string precision = "fp32";
  /// CUDA, with precision fp16 or bf16: how the activations between kernels are stored
  /// (infc-half-activations): "half" (every one whose readers take its elements as they
  /// are), "rounded" (only those each reader rounds to half anyway: f32 storage's results
  /// bit for bit), "fp32"; empty for the precision's default (fp16 half, bf16 rounded).
  std::string activations;
  /// CUDA: convolutions and pools over NHWC (infc-channels-last, as on the CPU): the
  /// implicit GEMM then reads both operands with the reduction's channels innermost.
  /// false: NCHW ones, the model's own layout.
  bool gpuChannelsLast = true;
  /// CUDA: the kernels' index width (infc-kernels-to-nvvm): 64, or 32 (which needs every
  /// kernel's buffers static and within 2^30 elements).
  unsigned gpuIndexBitwidth = 64;
};

/// The string options that take one of a few values, shared by `infc compile`'s flags
/// and `--infc-pipeline`'s options: one list of values for both checks.
enum class PipelineChoice { Target, Precision, GpuLayout, Activations, GpuIndexBits };

/// The values `choice` takes, in the order messages list them.
llvm::ArrayRef<llvm::StringLiteral> pipelineChoices(PipelineChoice choice);
/// InfcPipelineOptions::gpuIndexBitwidth for a GpuIndexBits choice ("32": 32, else 64).
unsigned gpuIndexBitwidthOf(llvm::StringRef choice);

/// Whether `value` is one of pipelineChoices(choice).
bool isPipelineChoice(PipelineChoice choice, llvm::StringRef value);

/// pipelineChoices(choice) for a message: "a, b or c".
std::string pipelineChoiceList(PipelineChoice choice);

/// Graph passes, then the seam (infc to linalg), then CPU or CUDA code generation down to
/// the LLVM dialect (with the kernels in a gpu.binary for CUDA). The module's `func.func @main` is the model's entry point.
void buildInfcPipeline(mlir::OpPassManager &pm, const InfcPipelineOptions &options);

/// Registers `--infc-pipeline{stop-after=infc|linalg|llvm target=cpu|cuda ...}` with the pass registry.
void registerInfcPipelines();

/// Dialects the pipeline creates, for tools that parse or build its IR.
void registerInfcDialects(mlir::DialectRegistry &registry);

/// The upstream passes that lit tests of our pipeline pieces use (canonicalize, cse, ...).
void registerUpstreamPasses();

} // namespace infc

#endif // INFC_PIPELINES_PIPELINES_H

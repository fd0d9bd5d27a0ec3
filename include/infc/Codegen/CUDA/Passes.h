//===- Passes.h - infc CUDA code generation passes --------------*- C++ -*-===//
#ifndef INFC_CODEGEN_CUDA_PASSES_H
#define INFC_CODEGEN_CUDA_PASSES_H

#include "infc/Support/Choices.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <optional>

namespace infc {
/// The SM version of a GPU architecture name: 90 for "sm_90" and "sm_90a"; none for anything
/// else (compute_80, sm_, sm_9).
std::optional<unsigned> gpuArchVersion(llvm::StringRef arch);
/// Whether LLVM's NVPTX back end knows `arch` as a processor (it writes the PTX for it).
bool isNvptxProcessor(llvm::StringRef arch);
/// The 16-bit float type of a precision: f16 for FP16, bf16 for BF16, else null.
mlir::FloatType halfPrecisionType(mlir::MLIRContext *ctx, Precision precision);

/// The unit attribute infc-kernels-to-nvvm sets on the top module when the kernels take
/// bare pointers (infc-launches-to-llvm lowers the launches to match, then removes it).
inline constexpr llvm::StringLiteral kBarePointerKernelsAttrName = "infc.bare_pointer_kernels";

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

#endif // INFC_CODEGEN_CUDA_PASSES_H

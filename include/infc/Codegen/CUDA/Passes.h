//===- Passes.h - infc CUDA code generation passes --------------*- C++ -*-===//
#ifndef INFC_CODEGEN_CUDA_PASSES_H
#define INFC_CODEGEN_CUDA_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace infc {
#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

#endif // INFC_CODEGEN_CUDA_PASSES_H

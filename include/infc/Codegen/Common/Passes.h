//===- Passes.h - infc code generation passes of every target -*- C++ -*-===//
#ifndef INFC_CODEGEN_COMMON_PASSES_H
#define INFC_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace infc {
#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "infc/Codegen/Common/Passes.h.inc"
} // namespace infc

#endif // INFC_CODEGEN_COMMON_PASSES_H

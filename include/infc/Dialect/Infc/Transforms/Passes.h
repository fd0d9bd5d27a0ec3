//===- Passes.h - infc graph-level passes -----------------------*- C++ -*-===//
#ifndef INFC_DIALECT_INFC_TRANSFORMS_PASSES_H
#define INFC_DIALECT_INFC_TRANSFORMS_PASSES_H

#include "infc/Dialect/Infc/IR/InfcDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace infc {
#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "infc/Dialect/Infc/Transforms/Passes.h.inc"
} // namespace infc

#endif // INFC_DIALECT_INFC_TRANSFORMS_PASSES_H

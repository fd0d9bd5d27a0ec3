//===- Passes.h - infc conversion passes ------------------------*- C++ -*-===//
#ifndef INFC_CONVERSION_PASSES_H
#define INFC_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
}

namespace infc {
#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "infc/Conversion/Passes.h.inc"

/// All infc-to-linalg patterns (the pass uses exactly these).
void populateInfcToLinalgPatterns(mlir::RewritePatternSet &patterns, bool directConv = false,
                                  int64_t byteRowMultiple = 1, int64_t winogradMinChannels = 64,
                                  bool bf16Convs = false);
} // namespace infc

#endif // INFC_CONVERSION_PASSES_H

//===- Borders.h - the border of a padded tensor as fills -------*- C++ -*-===//
#ifndef INFC_LIB_CODEGEN_CPU_BORDERS_H
#define INFC_LIB_CODEGEN_CPU_BORDERS_H

#include "mlir/IR/Builders.h"

namespace infc {
/// `padded` (static) with everything outside its interior, the box at `low` of shape
/// `inner`, filled with `padValue`: per padded dim, the slab before and the slab after the
/// interior, the dims before it spanning the interior only and the dims after it the whole
/// extent, so every border element is written once and the interior not at all.
mlir::Value fillBorder(mlir::OpBuilder &b, mlir::Location loc, mlir::Value padded,
                       mlir::Value padValue, llvm::ArrayRef<int64_t> low,
                       llvm::ArrayRef<int64_t> inner);
} // namespace infc

#endif

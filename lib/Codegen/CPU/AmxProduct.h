//===- AmxProduct.h - the infc.amx product generic -------------*- C++ -*-===//
//
// infc-vnni-matmul (int8) and infc-bf16-matmul (bf16) write their AMX tile products in one
// form, a linalg.generic marked `infc.amx`, which infc-amx-tiles lowers once buffers exist
// (the amx ops take memrefs).
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_CODEGEN_CPU_AMXPRODUCT_H
#define INFC_LIB_CODEGEN_CPU_AMXPRODUCT_H

#include "mlir/IR/Builders.h"

namespace infc {
/// The body of an AMX product: acc + a x b, each operand extended to the accumulator's type.
using AmxMultiplyAdd = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::Value a, mlir::Value b, mlir::Value acc)>;

/// C [M, P x 16] of `accType` = A [M, K] x B tiles [P, K / w, 16 x w], w = `perWord` values
/// of a 32-bit word (4 bytes, or 2 bf16): the operands are viewed as A [M, K / w, w],
/// B [P, K / w, 16, w] and C [M, P, 16], so that every loop (m, p, j, q, t) is a dim, and
/// multiplied by a `infc.amx` generic whose body `multiplyAdd` writes. C's init is left
/// undefined: infc-amx-tiles starts the accumulators from zero tiles and never reads it, so
/// a fill would be a wasted pass over C (and bufferization copies it once more).
mlir::Value buildAmxProduct(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                            mlir::Value bTiles, int64_t perWord, mlir::Type accType,
                            AmxMultiplyAdd multiplyAdd);
} // namespace infc

#endif // INFC_LIB_CODEGEN_CPU_AMXPRODUCT_H

//===- PopulatePatterns.h - infc-to-linalg pattern families -----*- C++ -*-===//
//
// Private to lib/Conversion/InfcToLinalg: one populate function per op family, plus the
// builders they share.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_CONVERSION_INFCTOLINALG_POPULATEPATTERNS_H
#define INFC_LIB_CONVERSION_INFCTOLINALG_POPULATEPATTERNS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace infc {
void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
void populateLinearPatterns(mlir::RewritePatternSet &patterns);
void populatePoolingPatterns(mlir::RewritePatternSet &patterns);
void populateReductionPatterns(mlir::RewritePatternSet &patterns);
void populateDataMovementPatterns(mlir::RewritePatternSet &patterns);
void populateIndexingPatterns(mlir::RewritePatternSet &patterns);

namespace lowering {
/// A map from the iteration space of `resultShape` to an operand of `operandShape` under
/// numpy broadcasting (size-1 dims read index 0, missing leading dims are dropped).
mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> operandShape,
                             llvm::ArrayRef<int64_t> resultShape);

/// A linalg.generic over `resultType`'s shape, all loops parallel, reading `inputs` with
/// broadcasting and yielding `body(scalars)`.
mlir::Value elementwise(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType resultType, mlir::ValueRange inputs,
                        llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                                       mlir::ValueRange)>
                            body);

/// A tensor of `type` filled with `value`.
mlir::Value filled(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                   mlir::TypedAttr value);

/// Reduces the dims marked in `reduced` (dropped from the result) with `combine`, starting
/// from `init`.
mlir::Value reduce(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                   llvm::ArrayRef<bool> reduced, mlir::TypedAttr init,
                   llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                                  mlir::Value, mlir::Value)>
                       combine);

/// Reshape of a static tensor through collapse/expand_shape.
mlir::Value reshapeTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                          mlir::RankedTensorType resultType);

/// `input` padded by `low`/`high` elements per dim with the constant `value`.
mlir::Value padConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                        llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                        mlir::TypedAttr value);

/// A scalar constant of `type` (float or integer).
mlir::Value scalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type, double value);
/// The lowest / highest value of `type` (-inf / +inf for floats).
mlir::TypedAttr lowestAttr(mlir::Type type);
mlir::TypedAttr highestAttr(mlir::Type type);
} // namespace lowering
} // namespace infc

#endif // INFC_LIB_CONVERSION_INFCTOLINALG_POPULATEPATTERNS_H

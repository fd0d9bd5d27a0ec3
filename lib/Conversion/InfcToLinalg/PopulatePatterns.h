//===- PopulatePatterns.h - infc-to-linalg pattern families -----*- C++ -*-===//
//
// Private to lib/Conversion/InfcToLinalg: one populate function per op family (the builders
// they share are in Utils.h).
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_CONVERSION_INFCTOLINALG_POPULATEPATTERNS_H
#define INFC_LIB_CONVERSION_INFCTOLINALG_POPULATEPATTERNS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace infc {
void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
void populateLinearPatterns(mlir::RewritePatternSet &patterns, bool directConv,
                            int64_t byteRowMultiple, int64_t winogradMinChannels, bool bf16Convs);
void populatePoolingPatterns(mlir::RewritePatternSet &patterns);
void populateReductionPatterns(mlir::RewritePatternSet &patterns);
void populateDataMovementPatterns(mlir::RewritePatternSet &patterns);
void populateIndexingPatterns(mlir::RewritePatternSet &patterns);
void populateQuantizationPatterns(mlir::RewritePatternSet &patterns);
void populateAttentionPatterns(mlir::RewritePatternSet &patterns);
} // namespace infc

#endif // INFC_LIB_CONVERSION_INFCTOLINALG_POPULATEPATTERNS_H

//===- MatmulEpilogue.h - elementwise ops applied to a matmul's tiles -*- C++ -*-===//
//
// The bias add, activation and residual add after a matmul (a conv's, a linear layer's)
// are one all-parallel linalg.generic reading the whole product. infc-pack-matmul-panels
// applies it to each panel's product instead, and infc-tile-and-vectorize-matmul fuses it
// into the register tile, so the product is never stored and read back.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_CODEGEN_CPU_MATMULEPILOGUE_H
#define INFC_LIB_CODEGEN_CPU_MATMULEPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <optional>

namespace infc {
/// The elementwise consumer of a matmul's [M, N] product, seen as an op over [M, N]: the
/// product may reach it through an expand_shape that splits M ([P, F] -> [1, OH, OW, F]);
/// its other inputs are read elementwise (identity map, same shape), per column (a map to
/// the last dim: a bias) or are scalars. A residual input that dies at the consumer holds
/// the result in place (as ORT's convs accumulate into their Sum input): each tile is read
/// and written back, and no fresh buffer is write-allocated.
class MatmulEpilogue {
public:
  /// The epilogue of `matmul`'s result, if it has exactly one such consumer. Without
  /// `allowInPlace` no residual holds the result (the result buffer holds partial sums).
  static std::optional<MatmulEpilogue> of(mlir::linalg::MatmulOp matmul, bool allowInPlace = true);

  /// The epilogue over rows [row, row + rows) and columns [col, col + width) of the product,
  /// given that block of it (`product`), inserted into `dest` (the [M, N] result, or a
  /// block of it starting at row `destRow`). With `addDest`, `dest` holds the partial sums
  /// of the K blocks before and `product` is the last block's: the epilogue then reads
  /// their sum (each tile adds what it overwrites).
  mlir::Value apply(mlir::OpBuilder &b, mlir::Location loc, mlir::Value product, mlir::Value dest,
                    mlir::OpFoldResult row, int64_t rows, mlir::OpFoldResult col, int64_t width,
                    mlir::OpFoldResult destRow, bool addDest = false) const;

  /// The [M, N] tensor the results go into (the consumer's init, viewed as [M, N]; this
  /// also collapses its elementwise inputs for apply), and the replacement of the consumer
  /// by that result once filled (reshaped back to the consumer's shape).
  mlir::Value resultInit(mlir::OpBuilder &b, mlir::Location loc);
  void replaceConsumer(mlir::OpBuilder &b, mlir::Location loc, mlir::Value result);

  /// The consumer: what the fused loops are built in front of, as its other inputs (a
  /// residual) may be computed after the matmul.
  mlir::Operation *consumerOp() const { return consumer; }

private:
  enum class Access { Product, Element, Column, Scalar };
  mlir::linalg::GenericOp consumer;
  mlir::tensor::ExpandShapeOp expand;      // null when the consumer reads the product directly
  llvm::SmallVector<Access> access;        // per consumer input
  llvm::SmallVector<mlir::Value> inputs2d; // per input, collapsed to [M, N] for Element
  int64_t inPlace = -1; // the Element input whose buffer takes the result, if any
  int64_t m = 0, n = 0;
};

/// A linalg.generic marked by infc-pack-matmul-panels as a matmul tile's epilogue.
constexpr llvm::StringLiteral kEpilogueMarker = "infc.epilogue";

/// A panel loop of infc-pack-matmul-panels that steps through each panel's K blocks (of
/// this many rows) inside it, for infc-prefetch-panels.
constexpr llvm::StringLiteral kPanelKBlocks = "infc.panel_k_blocks";
} // namespace infc

#endif // INFC_LIB_CODEGEN_CPU_MATMULEPILOGUE_H

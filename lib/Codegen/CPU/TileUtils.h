//===- TileUtils.h - steps shared by the tile-and-vectorize passes -*- C++ -*-===//
//
// infc-tile-and-vectorize-matmul and infc-vectorize-elementwise both tile on tensors, peel
// the edge tiles, vectorize the static tiles and keep loop-carried tiles in registers.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_CODEGEN_CPU_TILEUTILS_H
#define INFC_LIB_CODEGEN_CPU_TILEUTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <vector>

namespace infc {
/// A static, tensor-semantics contraction (linalg.matmul / batch_matmul) whose operands are
/// all f32 or all i32: the element types the register-tiled kernel handles (i32 is the
/// accumulator of the integer matmuls; its outer products are vpmulld + vpaddd).
bool isRegisterTileable(mlir::linalg::LinalgOp op);

/// f32 lanes of a vector of `vectorBits` (at least 4: SSE).
inline int64_t f32Lanes(int64_t vectorBits) { return std::max<int64_t>(4, vectorBits / 32); }

/// The register tile of a matmul's [M, N] output: `rows` x `cols`, cols a whole number of
/// vectors. infc-pack-matmul-panels packs B in panels of this width, so the two agree.
struct RegisterTile {
  int64_t rows, cols;
};
RegisterTile chooseRegisterTile(int64_t m, int64_t n, int64_t vectorBits);

/// The width of B's packed panels for an output of M rows (N at least a panel):
/// chooseRegisterTile's columns for that M.
int64_t panelWidthFor(int64_t m, int64_t vectorBits);

/// The width of the panel of the last `tail` columns (fewer than a panel): whole vectors.
int64_t tailPanelWidth(int64_t tail, int64_t vectorBits);

/// Columns [col, col + panels * nr) of a constant B [K, N] as contiguous panels,
/// [panels, K, nr] with Bp[p][k][j] = B[k][col + p * nr + j], zero past column N (32-bit
/// elements: the f32 and the i32 matmuls).
mlir::DenseElementsAttr packPanels(mlir::DenseElementsAttr b, int64_t col, int64_t panels,
                                   int64_t nr);
/// The same panels of the [K, N] matrix of 4-byte elements in `raw` (one element when
/// `splat`) appended to `out` as [panels, K, nr] words: for a batch of matrices packed
/// into one buffer without an attribute per matrix.
void appendPanels(llvm::ArrayRef<char> raw, bool splat, int64_t k, int64_t n, int64_t col,
                  int64_t panels, int64_t nr, std::vector<uint32_t> &out);

/// Folds the peeled loops' bounds into the slices, so edge tiles get static shapes. `addOpPatterns`
/// adds the canonicalizations of the tiled op kind.
mlir::LogicalResult
makePeeledTilesStatic(mlir::func::FuncOp func,
                      llvm::function_ref<void(mlir::RewritePatternSet &)> addOpPatterns);

/// Vectorizes one static tile in place; false (and `op` untouched) if the vectorizer declines.
bool vectorizeTile(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op);

/// Every innermost scf.for: a subset read before and written after each iteration (a C
/// tile, a reduction accumulator) becomes a loop-carried vector, read once and written once.
void hoistLoopCarriedTiles(mlir::RewriterBase &rewriter, mlir::func::FuncOp func);
/// The static `OpTy` contractions (linalg.matmul, linalg.batch_matmul) under `root` on
/// tensors with linalg's default indexing maps: what the integer and bf16 kernels rewrite.
template <typename OpTy> llvm::SmallVector<OpTy> plainContractions(mlir::Operation *root) {
  llvm::SmallVector<OpTy> ops;
  root->walk([&](OpTy op) {
    if (op.hasPureTensorSemantics() && !op.hasDynamicShape() &&
        op.getIndexingMapsArray() == op.getDefaultIndexingMaps(op.getContext()))
      ops.push_back(op);
  });
  return ops;
}

} // namespace infc

#endif // INFC_LIB_CODEGEN_CPU_TILEUTILS_H

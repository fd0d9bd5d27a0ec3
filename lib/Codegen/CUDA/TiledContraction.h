//===- TiledContraction.h - a contraction as one shared-memory tiled kernel -===//
//
// infc-linalg-to-gpu-loops runs a matmul-like linalg op (a multiply-add payload over two
// inputs: matmul, batch matmul, convolution as an implicit GEMM) as one gpu.launch that
// stages tiles of both operands in shared memory and gives each thread a register tile of
// the output. The fill fold and the epilogue fusion of the loop lowering stay the caller's:
// it passes the starting value and a callback that stores one result.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_CODEGEN_CUDA_TILEDCONTRACTION_H
#define INFC_LIB_CODEGEN_CUDA_TILEDCONTRACTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace infc {

/// How a contraction maps onto a tiled kernel: the loop dimensions by role, and the tile.
struct ContractionTiling {
  /// The input whose dimensions run along the tile's rows, and the one along its columns
  /// (neighbouring threads take neighbouring columns: the output's innermost dimension).
  unsigned rowInput = 0, colInput = 1;
  /// Loop dimensions, outermost first: rows (only the row input reads them), columns (only
  /// the column input), batch (both inputs), reduction.
  llvm::SmallVector<unsigned> rowDims, colDims, batchDims, reductionDims;
  int64_t rows = 1, cols = 1, batch = 1, depth = 1; // the products of their ranges
  /// Block tile rows x cols (square), depth step, and each thread's tile (16 x 16 threads).
  int64_t tile = 0, tileDepth = 0, threadTile = 0;
  /// On tensor cores: 128 x 128 tiles of 8 warps, 64 x 64 ones of 4 where a grid of 128 x
  /// 128 tiles is smaller than `minBlocks`, 32 x 32 ones of 4 where 64 x 64 ones are too
  /// (threadTile unused).
  bool tensorCores = false;
  /// The tensor cores' operands (mma.sync): f32 inputs as TF32 (m16n8k8), f16 or bf16
  /// inputs summed in f32 (m16n8k16), bytes summed in i32 (m16n8k32).
  enum class TensorCoreKind { Tf32, F16, Bf16, Int8 };
  TensorCoreKind kind = TensorCoreKind::F16;

  /// The blocks of a grid of tile x tile tiles.
  int64_t blocks(int64_t tileSize) const {
    return llvm::divideCeil(rows, tileSize) * llvm::divideCeil(cols, tileSize) * batch;
  }

  static constexpr int64_t kThreadsPerSide = 16;
  /// A block's threads: 16 x 16 (SIMT), 4 or 8 warps (tensor cores).
  int64_t threads = kThreadsPerSide * kThreadsPerSide;
};

/// The loop dimensions and extents of `op` (tensors or buffers; the tile not chosen) if it
/// is a contraction worth a tiled kernel: two inputs, one output, a payload `out + a * b`
/// (the inputs optionally widened), static ranges, rows and columns of at least 32 and a
/// reduction of at least 16.
std::optional<ContractionTiling> classifyContraction(mlir::linalg::LinalgOp op);

/// The tensor cores `op` (a classifyContraction one, tensors or buffers) would run on: f16
/// or bf16 inputs summed in f32, f32 inputs and sums as TF32 when `tf32`, bytes widened by
/// extsi / extui and summed in i32; none otherwise.
std::optional<ContractionTiling::TensorCoreKind> tensorCoreKind(mlir::linalg::LinalgOp op,
                                                                bool tf32);

/// The tiling of `op` (on buffers) if classifyContraction accepts it. `minBlocks`: the tile
/// shrinks (128, 64, 32) until the grid has that many blocks or it is the smallest; 128
/// also needs its tiles at least 90% as full as 64's.
/// `tensorCores`: f16 or bf16 inputs summed in f32 and bytes summed in i32 take the
/// tensor-core (mma.sync) kernel instead, and with `tf32` so do f32 inputs and sums.
std::optional<ContractionTiling> planTiledContraction(mlir::linalg::LinalgOp op, int64_t minBlocks,
                                                      bool tensorCores, bool tf32 = false);

/// The indices `map` gives at loop dimensions `dims` (affine.apply for non-trivial results).
llvm::SmallVector<mlir::Value> indexingMapAt(mlir::OpBuilder &b, mlir::Location loc,
                                             mlir::AffineMap map, llvm::ArrayRef<mlir::Value> dims);

/// The value of input `memref` at `indices`, inside the kernel (a load, or the payload of
/// the op that wrote it, run there instead).
using InputLoad = llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value memref,
                                                 llvm::ArrayRef<mlir::Value> indices)>;

/// A memref an input's elements come from.
struct InputSource {
  mlir::Value memref;
  /// false: read at the input's own indices (the input itself, an elementwise prologue's
  /// input of its shape and strides). true: read by a prologue that takes each row of the
  /// input's innermost dimension from a row of this memref, at the same innermost index (a
  /// pad of the outer dimensions: infc-pad-to-generic's loop nest); its other indices
  /// computed once for the whole row.
  bool byRows = false;
};

/// The memrefs input `memref`'s elements come from; none if they are computed otherwise
/// (then the kernel loads them one at a time).
using InputSources = llvm::function_ref<llvm::SmallVector<InputSource>(mlir::Value memref)>;

/// `width` neighbouring elements of input `memref` (consecutive in memory and aligned, as
/// the kernel checked on its sources; inside one row of a byRows source) from `indices` on,
/// as a vector, inside the kernel.
using InputVectorLoad = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Value memref, llvm::ArrayRef<mlir::Value> indices, int64_t width)>;

/// Writes the kernel before `op` (which the caller erases). `initialValue`, if set, starts
/// every output element (a folded fill); otherwise the output is read. `load` reads an
/// input element, `loadVector` several (of inputs whose `sources` allow it); `store` writes
/// one result at the given loop dimensions (reduction dimensions 0), inside the kernel.
void emitTiledContraction(
    mlir::OpBuilder &b, mlir::linalg::LinalgOp op, const ContractionTiling &tiling,
    mlir::Value initialValue, InputLoad load, InputSources sources, InputVectorLoad loadVector,
    llvm::function_ref<void(mlir::OpBuilder &, llvm::ArrayRef<mlir::Value>, mlir::Value)> store);

} // namespace infc

#endif // INFC_LIB_CODEGEN_CUDA_TILEDCONTRACTION_H

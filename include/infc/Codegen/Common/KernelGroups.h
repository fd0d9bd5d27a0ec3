//===- KernelGroups.h - linalg ops on buffers that may share a kernel -*- C++ -*-===//
//
// What the memory plan (which must keep a fused kernel's buffers apart) and the CUDA loop
// lowering (which fuses) both need to know about linalg ops on buffers: the memrefs an op
// reads, and the row groups: runs of ops over the same leading "row" dimensions, around
// reductions of the trailing ones (a LayerNorm, a softmax), that run as one kernel with a
// block per row.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_CODEGEN_COMMON_KERNELGROUPS_H
#define INFC_CODEGEN_COMMON_KERNELGROUPS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace infc {

/// The memref `v` is a view of, through every view (the memory plan's views of the
/// workspace too).
mlir::Value viewRoot(mlir::Value v);

/// The memrefs and tensors `op`'s payload uses from outside it (a gather's table), each
/// time it does.
llvm::SmallVector<mlir::Value> capturedShapedValues(mlir::linalg::LinalgOp op);

/// The memrefs `op` reads: its inputs and the ones its payload uses from outside.
llvm::SmallVector<mlir::Value> memrefsRead(mlir::linalg::LinalgOp op);

/// Whether `op`'s payload uses a memref or tensor defined outside it (a gather's table):
/// elements at indices the indexing maps don't tell.
bool capturesMemref(mlir::linalg::LinalgOp op);

/// The reshapes (expand_shape, collapse_shape) that make `view` from `of`, first one
/// first, if `view` is `of` or made from it that way only.
std::optional<llvm::SmallVector<mlir::Operation *>> reshapesFrom(mlir::Value of, mlir::Value view);

/// The input through which all-parallel `next` can read `out` as the epilogue of the
/// kernel that writes it: its only input that is `out` or a reshape of it (reshapesFrom),
/// read through a permutation of `next`'s loops over that view's static shape; null if
/// none. (The loop lowering fuses by it, the row groups leave such an op to it.)
mlir::OpOperand *epilogueInput(mlir::linalg::LinalgOp next, mlir::Value out);

/// The combining op of a row reduction (`yield combine(f(inputs), out)`, `out` used
/// there only, `combine` one with a neutral element: add, mul, max, min, and, or, xor),
/// or null.
mlir::Operation *rowReductionCombiner(mlir::linalg::LinalgOp op);

/// The row shape of `op` if it is a row reduction: buffers, static ranges, one output read
/// at (d0, ..., dk-1), its parallel dims exactly the leading k, all others reductions (at
/// least `minReduction` elements a row), not a contraction (those have kernels of their own),
/// a combiner as above.
std::optional<llvm::SmallVector<int64_t>> rowReductionShape(mlir::linalg::LinalgOp op,
                                                            int64_t minReduction);

/// The smallest row a reduction runs on a block of threads for (below it, a thread a row
/// is as good): the CUDA loop lowering and the memory plan's prediction of it agree.
constexpr int64_t kRowReductionMin = 32;

/// A run of ops (in block order) over the same rows: row reductions of that shape, and
/// all-parallel ops (fills too) whose leading loop dims have the rows' ranges.
struct RowGroup {
  llvm::SmallVector<mlir::linalg::LinalgOp> ops;
  llvm::SmallVector<int64_t> rows;
};

/// The row groups of `block`'s top level, by structure only (the caller checks memory):
/// each around one or more row reductions, with the ops right before and after them that
/// fit the rows. Between members only memory-effect-free ops, allocations and
/// deallocations. An op right after a reduction of no row group whose output it reads (a
/// contraction) stays out: it is that kernel's epilogue, which stores what it computes
/// (the scores' scale and mask, in half with --precision) instead of the sums.
llvm::SmallVector<RowGroup> findRowGroups(mlir::Block &block, int64_t minReduction);

/// A run of all-parallel ops over the same loop ranges, each reading what the ones before
/// wrote at its own point only, that run as one kernel of a thread a point, in order (an
/// LSTM cell's gates). `skipped`: ops between them (all parallel, other ranges) that move
/// before the run.
struct PointGroup {
  llvm::SmallVector<mlir::linalg::LinalgOp> ops, skipped;
};

/// The point groups of `block`'s top level, by structure only (the caller checks memory):
/// runs of at least two all-parallel ops (one output, at least one loop, not fills; static
/// ranges) that `member` accepts,
/// with equal loop ranges, past all-parallel ops of other ranges that `skip` accepts (given
/// the members so far). Between them only memory-effect-free ops, allocations and
/// deallocations.
llvm::SmallVector<PointGroup> findPointGroups(
    mlir::Block &block, llvm::function_ref<bool(mlir::linalg::LinalgOp)> member,
    llvm::function_ref<bool(mlir::linalg::LinalgOp, llvm::ArrayRef<mlir::linalg::LinalgOp>)> skip);

} // namespace infc

#endif // INFC_CODEGEN_COMMON_KERNELGROUPS_H

//===- RowKernels.h - a row group as one kernel, a block per row -*- C++ -*-===//
//
// infc-linalg-to-gpu-loops runs a row group (infc/Codegen/Common/KernelGroups.h: a LayerNorm's
// reductions and elementwise ops, a softmax's) as one gpu.launch: a block per row, its
// threads splitting each op's points of the row (neighbouring threads on neighbouring
// elements), each reduction's partial results combined by warp shuffles, then across the
// warps through shared memory (values other than 32-bit by a shared-memory tree), a
// barrier between the ops. A thread-per-row loop would read a row with one thread and take
// a kernel per op. Whether the group's memory allows it is the caller's question; so is each op's
// payload at a point.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_CODEGEN_CUDA_ROWKERNELS_H
#define INFC_LIB_CODEGEN_CUDA_ROWKERNELS_H

#include "infc/Codegen/Common/KernelGroups.h"

namespace infc {

/// Member `op`'s whole payload at loop dimensions `dims` (loads, compute, store).
using RowPoint = llvm::function_ref<void(mlir::OpBuilder &, mlir::linalg::LinalgOp op,
                                         llvm::ArrayRef<mlir::Value> dims)>;
/// Reduction `op`'s payload at `dims` on accumulator `acc`: the combined value.
using RowPartial =
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::linalg::LinalgOp op,
                                   llvm::ArrayRef<mlir::Value> dims, mlir::Value acc)>;

/// Threads a block of `group`'s kernel: the most points an op has in a row, rounded up to a
/// power of two, from a warp (32) to 256.
int64_t rowKernelThreads(const RowGroup &group);

/// Writes the kernel before the group's first op (the caller erases the ops). A fill right
/// before a reduction into the same buffer becomes the reduction's starting value.
void emitRowKernel(mlir::OpBuilder &b, const RowGroup &group, RowPoint point, RowPartial partial);

} // namespace infc

#endif // INFC_LIB_CODEGEN_CUDA_ROWKERNELS_H

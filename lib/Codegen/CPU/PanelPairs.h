//===- PanelPairs.h - the column loop of the panel register kernels -*- C++ -*-===//
//
// infc-vnni-matmul's i8 kernel and infc-bf16-matmul's vdpbf16ps kernel multiply rows of A
// by 16-column panels of B two at a time (rows x 2 panels of accumulators); both share out
// the work over the threads the same way.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_CODEGEN_CPU_PANELPAIRS_H
#define INFC_LIB_CODEGEN_CPU_PANELPAIRS_H

#include "mlir/IR/Builders.h"

namespace infc {
/// C with every row multiplied by panels [p, p + width): `parallel` shares out the row
/// tiles over the threads.
using PanelRows = llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value p, mlir::Value c,
                                                 int64_t width, bool parallel)>;

/// `c` after `allRows` over each pair of `panels` in a loop and then over the odd last
/// panel alone. Column blocks of C are independent: the threads share out the pairs when
/// there are four or more of them, else the row tiles of each pair if there are more of
/// those (one pair, 32 columns, had left OriNet's 25600 x 288 x 32 int8 conv on one thread,
/// a fifth of the model's time at 2 threads; a few rows keep the pairs). The odd panel's
/// row tiles run in parallel from two on.
mlir::Value forEachPanelPair(mlir::OpBuilder &b, mlir::Location loc, mlir::Value c, int64_t panels,
                             int64_t rowTiles, PanelRows allRows);
} // namespace infc

#endif // INFC_LIB_CODEGEN_CPU_PANELPAIRS_H

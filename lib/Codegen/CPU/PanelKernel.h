//===- PanelKernel.h - the loops of the panel register kernels -*- C++ -*-===//
//
// infc-vnni-matmul's i8 kernel and infc-bf16-matmul's vdpbf16ps kernel multiply rows of A
// by 16-column panels of B packed in 32-bit words (four bytes or two bf16 along K): per K
// word, one load of each panel and one broadcast of each row's word feed rows x 2 panels of
// accumulators. Only the instruction and the operands' types differ; the loops, and how the
// threads share them out, are these.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_CODEGEN_CPU_PANELKERNEL_H
#define INFC_LIB_CODEGEN_CPU_PANELKERNEL_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace infc {
/// What a panel kernel computes at each place of its loops.
struct PanelKernelSteps {
  /// Accumulator lanes (the columns of a panel) and K words.
  int64_t lanes = 16, words = 0;
  /// The accumulators' start for panel `panel`, built before the loop over rows.
  llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value panel)> columnStart;
  /// With it, the accumulators of row `row` start from this instead (built in the loop).
  llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value row)> rowStart;
  /// Panel `panel`'s vector of K word `q`.
  llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value panel, mlir::Value q)> panelWords;
  /// Row `row`'s K word `q` in every lane.
  llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value row, mlir::Value q)> rowWord;
  /// acc + the products of a row's word and a panel's words.
  llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value acc, mlir::Value rowWord,
                                 mlir::Value panelWords)>
      multiplyAdd;
};

/// Whether `init` is zeros: a fill of 0.0 (a matmul into it computes A x B alone, what the
/// panel kernels compute).
bool isZeroFill(mlir::Value init);

/// `v`'s leading block of `type`'s shape (a product without its padded rows and columns), or
/// `v` itself when it has that shape.
mlir::Value leadingBlock(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::RankedTensorType type);

/// C [M, panels x lanes] = A x B on a panel kernel: a loop over pairs of panels, then the
/// odd last panel alone, each over tiles of `tileRows` rows x its panels, a K loop per tile
/// carrying its accumulators, written into `c` after; then the rows left after the tiles,
/// one at a time against groups of 4 panels (then the 1 to 3 panels left), so that a
/// single row has four independent chains of multiply-adds. Each accumulator sums its
/// column's products in K order wherever its row is: a row's results do not depend on the
/// rows beside it (a decoder's check step = its single steps, bit for bit). Column blocks
/// of C are independent: the threads share out the pairs when there are four or more of
/// them, else the row tiles of each pair if there are more of those (one pair, 32 columns,
/// had left OriNet's 25600 x 288 x 32 int8 conv on one thread, a fifth of the model's time
/// at 2 threads; a few rows keep the pairs). The odd panel's row tiles run in parallel from
/// two on; the single rows' groups of panels from two groups on.
mlir::Value panelKernel(mlir::OpBuilder &b, mlir::Location loc, const PanelKernelSteps &steps,
                        mlir::Value c, int64_t tileRows, int64_t panels);
} // namespace infc

#endif // INFC_LIB_CODEGEN_CPU_PANELKERNEL_H

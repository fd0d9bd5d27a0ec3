//===- PanelKernel.cpp - the loops of the panel register kernels ---------===//
#include "PanelKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

bool infc::isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

Value infc::leadingBlock(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  if (cast<RankedTensorType>(v.getType()).getShape() == type.getShape())
    return v;
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(b.getContext(), type.getShape());
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, type, v, offsets, sizes, strides);
}

/// C with rows [begin, end) in tiles of `rows` rows x `width` panels from panel `p` on: a
/// loop over the row tiles (`parallel`: marked infc.parallel), each an scf.for over the K
/// words carrying the rows x width accumulators, written into C after.
static Value rowTileLoop(OpBuilder &b, Location loc, const infc::PanelKernelSteps &steps, Value p,
                         Value c, int64_t begin, int64_t end, int64_t rows, int64_t width,
                         bool parallel) {
  if (begin >= end)
    return c;
  auto idx = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  SmallVector<Value> panel, column, init;
  for (int64_t j = 0; j < width; ++j) {
    panel.push_back(arith::AddIOp::create(b, loc, p, idx(b, j)));
    column.push_back(arith::MulIOp::create(b, loc, panel[j], idx(b, steps.lanes)));
    init.push_back(steps.columnStart(b, panel[j]));
  }
  auto loop = scf::ForOp::create(
      b, loc, idx(b, begin), idx(b, end), idx(b, rows), ValueRange{c},
      [&](OpBuilder &lb, Location, Value row, ValueRange cIn) {
        SmallVector<Value> accs;
        for (int64_t r = 0; r < rows; ++r) {
          if (steps.rowStart)
            accs.append(width, steps.rowStart(lb, arith::AddIOp::create(lb, loc, row, idx(lb, r))));
          else
            llvm::append_range(accs, init);
        }
        auto kLoop = scf::ForOp::create(
            lb, loc, idx(lb, 0), idx(lb, steps.words), idx(lb, 1), accs,
            [&](OpBuilder &kb, Location, Value q, ValueRange accIn) {
              SmallVector<Value> panelVecs;
              for (int64_t j = 0; j < width; ++j)
                panelVecs.push_back(steps.panelWords(kb, panel[j], q));
              SmallVector<Value> next;
              for (int64_t r = 0; r < rows; ++r) {
                Value word = steps.rowWord(kb, arith::AddIOp::create(kb, loc, row, idx(kb, r)), q);
                for (int64_t j = 0; j < width; ++j)
                  next.push_back(steps.multiplyAdd(kb, accIn[r * width + j], word, panelVecs[j]));
              }
              scf::YieldOp::create(kb, loc, next);
            });
        Value out = cIn[0];
        for (int64_t r = 0; r < rows; ++r) {
          Value rIdx = arith::AddIOp::create(lb, loc, row, idx(lb, r));
          for (int64_t j = 0; j < width; ++j)
            out = vector::TransferWriteOp::create(lb, loc, kLoop.getResult(r * width + j), out,
                                                  ValueRange{rIdx, column[j]}, ArrayRef<bool>{true})
                      .getResult();
        }
        scf::YieldOp::create(lb, loc, out);
      });
  if (parallel)
    loop->setAttr("infc.parallel", b.getUnitAttr());
  return loop.getResult(0);
}

Value infc::panelKernel(OpBuilder &b, Location loc, const PanelKernelSteps &steps, Value c,
                        int64_t tileRows, int64_t panels) {
  // rows x 2 accumulators + 2 B vectors + 1 A broadcast; fewer pairs than 4 (and more row
  // tiles than pairs) and the threads share out row tiles (3 pairs on 2 threads: 2 : 1).
  // A single row takes 4 panels at a time instead: 2 would leave its K loop waiting on the
  // latency of its two multiply-add chains (a decode step's rows are all single).
  constexpr int64_t kPanelsPerTile = 2, kMinParallelPairs = 4, kPanelsPerRow = 4;
  auto idx = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  int64_t m = cast<ShapedType>(c.getType()).getDimSize(0);
  int64_t full = m / tileRows * tileRows, rowTiles = full / tileRows;
  int64_t pairs = panels / kPanelsPerTile;
  bool rowsInParallel = pairs < kMinParallelPairs && rowTiles > pairs;
  if (pairs && rowTiles) {
    auto pairLoop = scf::ForOp::create(
        b, loc, idx(b, 0), idx(b, pairs), idx(b, 1), ValueRange{c},
        [&](OpBuilder &pb, Location, Value pair, ValueRange cIn) {
          Value p = arith::MulIOp::create(pb, loc, pair, idx(pb, kPanelsPerTile));
          scf::YieldOp::create(pb, loc,
                               rowTileLoop(pb, loc, steps, p, cIn[0], 0, full, tileRows,
                                           kPanelsPerTile, rowsInParallel));
        });
    if (!rowsInParallel)
      pairLoop->setAttr("infc.parallel", b.getUnitAttr());
    c = pairLoop.getResult(0);
  }
  if (panels % kPanelsPerTile)
    c = rowTileLoop(b, loc, steps, idx(b, panels - 1), c, 0, full, tileRows, 1,
                    /*parallel=*/rowTiles > 1);
  if (full == m)
    return c;
  // The rows after the tiles, one at a time, each against 4 panels (the groups of panels
  // shared out over the threads), then the panels left.
  int64_t groups = panels / kPanelsPerRow, rest = panels % kPanelsPerRow;
  if (groups) {
    auto groupLoop = scf::ForOp::create(
        b, loc, idx(b, 0), idx(b, groups), idx(b, 1), ValueRange{c},
        [&](OpBuilder &gb, Location, Value group, ValueRange cIn) {
          Value p = arith::MulIOp::create(gb, loc, group, idx(gb, kPanelsPerRow));
          scf::YieldOp::create(
              gb, loc, rowTileLoop(gb, loc, steps, p, cIn[0], full, m, 1, kPanelsPerRow, false));
        });
    if (groups > 1)
      groupLoop->setAttr("infc.parallel", b.getUnitAttr());
    c = groupLoop.getResult(0);
  }
  if (rest)
    c = rowTileLoop(b, loc, steps, idx(b, panels - rest), c, full, m, 1, rest, false);
  return c;
}

//===- PanelPairs.cpp - the column loop of the panel register kernels ----===//
#include "PanelPairs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

Value infc::forEachPanelPair(OpBuilder &b, Location loc, Value c, int64_t panels, int64_t rowTiles,
                             PanelRows allRows) {
  // rows x 2 accumulators + 2 B vectors + 1 A broadcast; fewer pairs than 4 (and more row
  // tiles than pairs) and the threads share out row tiles (3 pairs on 2 threads: 2 : 1).
  constexpr int64_t kPanelsPerTile = 2, kMinParallelPairs = 4;
  auto idx = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  int64_t pairs = panels / kPanelsPerTile;
  bool rowsInParallel = pairs < kMinParallelPairs && rowTiles > pairs;
  if (pairs) {
    auto pairLoop = scf::ForOp::create(
        b, loc, idx(b, 0), idx(b, pairs), idx(b, 1), ValueRange{c},
        [&](OpBuilder &pb, Location, Value pair, ValueRange cIn) {
          Value p = arith::MulIOp::create(pb, loc, pair, idx(pb, kPanelsPerTile));
          scf::YieldOp::create(pb, loc, allRows(pb, p, cIn[0], kPanelsPerTile, rowsInParallel));
        });
    if (!rowsInParallel)
      pairLoop->setAttr("infc.parallel", b.getUnitAttr());
    c = pairLoop.getResult(0);
  }
  for (int64_t p = pairs * kPanelsPerTile; p < panels; ++p)
    c = allRows(b, idx(b, p), c, 1, /*parallel=*/rowTiles > 1);
  return c;
}

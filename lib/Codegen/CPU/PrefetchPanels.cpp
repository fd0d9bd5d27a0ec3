//===- PrefetchPanels.cpp - fetch the next panel's K block ahead --------===//
//
// A matmul of a few rows against weights larger than L2 (infc-pack-matmul-panels steps its
// K in blocks) streams the weights from memory: each [kc, nr] block of a panel is read by
// only a handful of row tiles, and the first of them waits on memory for every line. Here
// each row tile's K step also prefetches the same row of the next panel's block, so that
// block is in cache when its turn comes and the memory traffic overlaps the FMAs. Measured
// on this machine (C, 49 x 4608 x 32-wide panels, 7 x 32 tiles, kc 128): weights from
// memory 101 -> 114 GFLOP/s, from L3 174 -> 184.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"
#include "MatmulEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace infc {
#define GEN_PASS_DEF_INFCPREFETCHPANELS
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// Most row tiles per panel block for which the prefetches pay: beyond, all but the first
/// tile's prefetches hit cache and only take load slots.
constexpr int64_t kMaxRowTiles = 10;

int64_t tripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                         ub = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return -1;
  return (*ub - *lb + *step - 1) / *step;
}

struct InfcPrefetchPanelsPass
    : public infc::impl::InfcPrefetchPanelsBase<InfcPrefetchPanelsPass> {
  void runOnOperation() override {
    getOperation().walk([&](scf::ForOp kLoop) { prefetchInto(kLoop); });
  }

  /// A register tile's K loop reading row k of a K block of panel p:
  ///   %block = memref.subview %W[%p, %kOff, 0] [1, kc, nr]   (kc < K)
  ///   %row = memref.subview %block[%k, 0] [1, nr]; vector.transfer_read %row
  /// with %p the induction variable of the panel loop around it (constant bounds). A tile
  /// split into one-vector columns (infc-tile-and-vectorize-matmul's 3-vector tiles) reads
  /// each column through one more subview of %row, with vector.fma where the others have a
  /// vector.contract.
  void prefetchInto(scf::ForOp kLoop) {
    Block *body = kLoop.getBody();
    if (body->getOps<vector::ContractionOp>().empty() && body->getOps<vector::FMAOp>().empty())
      return;
    for (auto read : body->getOps<vector::TransferReadOp>()) {
      auto row = read.getBase().getDefiningOp<memref::SubViewOp>();
      if (row && row.getMixedOffsets().size() == 2 &&
          row.getMixedOffsets()[0] != OpFoldResult(kLoop.getInductionVar()))
        if (auto wholeRow = row.getSource().getDefiningOp<memref::SubViewOp>())
          row = wholeRow;
      if (!row || row.getMixedOffsets().size() != 2 ||
          row.getMixedOffsets()[0] != OpFoldResult(kLoop.getInductionVar()))
        continue;
      auto block = row.getSource().getDefiningOp<memref::SubViewOp>();
      if (!block)
        continue;
      auto weights = cast<MemRefType>(block.getSource().getType());
      ArrayRef<int64_t> sizes = block.getStaticSizes();
      if (weights.getRank() != 3 || !weights.hasStaticShape() || sizes.size() != 3 ||
          sizes[0] != 1 || ShapedType::isDynamic(sizes[1]) || sizes[1] >= weights.getDimSize(1))
        continue;
      auto panel = dyn_cast<Value>(block.getMixedOffsets()[0]);
      auto panelArg = panel ? dyn_cast<BlockArgument>(panel) : BlockArgument();
      auto panelLoop = panelArg ? dyn_cast<scf::ForOp>(panelArg.getOwner()->getParentOp())
                                : scf::ForOp();
      if (!panelLoop || panelLoop.getInductionVar() != panelArg ||
          !getConstantIntValue(panelLoop.getUpperBound()))
        continue;
      // A panel loop that steps through its panels' K blocks inside (kPanelKBlocks): its
      // row tiles are those of one block.
      auto blocksInside = panelLoop->getAttrOfType<IntegerAttr>(infc::kPanelKBlocks);
      // Row tiles between the block and the K loop (or the panel loop and the K loop): a
      // handful only (a loop of unknown trip count counts as too many).
      Operation *outer = panelLoop;
      if (blocksInside)
        outer = block->getParentOp();
      int64_t tiles = 1;
      for (Operation *p = kLoop->getParentOp(); p && p != outer; p = p->getParentOp())
        if (auto loop = dyn_cast<scf::ForOp>(p)) {
          int64_t n = tripCount(loop);
          tiles = n < 0 ? kMaxRowTiles + 1 : tiles * n;
        }
      if (tiles > kMaxRowTiles)
        continue;
      OpBuilder b(kLoop.getBody(), kLoop.getBody()->begin());
      Location loc = kLoop.getLoc();
      // The next panel (the last one prefetches itself: already in cache).
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value last = arith::ConstantIndexOp::create(
          b, loc, *getConstantIntValue(panelLoop.getUpperBound()) - 1);
      Value next = arith::MinUIOp::create(b, loc, arith::AddIOp::create(b, loc, panelArg, one),
                                          last);
      Value kOff = getValueOrCreateConstantIndexOp(b, loc, block.getMixedOffsets()[1]);
      Value k = arith::AddIOp::create(b, loc, kOff, kLoop.getInductionVar());
      int64_t width = weights.getDimSize(2), lineFloats = 64 / 4;
      for (int64_t j = 0; j < width; j += lineFloats)
        memref::PrefetchOp::create(b, loc, block.getSource(),
                                   ValueRange{next, k, arith::ConstantIndexOp::create(b, loc, j)},
                                   /*isWrite=*/false, /*localityHint=*/3, /*isDataCache=*/true);
      return;
    }
  }
};
} // namespace

//===- PrefetchPanels.cpp - fetch the next panel block during this one --===//
//
// A packed panel of weights is read by every row tile of a matmul, but the first row tile
// waits on memory for all of it (weights do not stay in cache between runs of a model),
// while the others read it from cache: the memory traffic comes in bursts the FMAs do not
// hide. Here each row tile's K step also prefetches a share of the next block of weights
// (the next K block of the panel, or the next panel), spread evenly over all the K steps
// of all the row tiles that read the current one, so the next block streams in at a steady
// rate while the current one is computed. Measured on this machine (1 thread):
// ResNet-50's 7x7 stage (49 rows against 4608 x 512 weights in K blocks) -14%, its 14x14
// stage -3%, -9% with the pixel rows' convs, BERT-base -15%. Prefetching the whole next
// block in each row tile instead, as this pass first did, gained a third of that: the
// first tile's prefetches queued behind each other and held the fill buffers the other
// loads need.
//
//===----------------------------------------------------------------------===//
#include "MatmulEpilogue.h"
#include "infc/Codegen/CPU/Passes.h"

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
int64_t tripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                         ub = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return -1;
  return (*ub - *lb + *step - 1) / *step;
}

struct InfcPrefetchPanelsPass : public infc::impl::InfcPrefetchPanelsBase<InfcPrefetchPanelsPass> {
  void runOnOperation() override {
    getOperation().walk([&](scf::ForOp kLoop) { prefetchInto(kLoop); });
  }

  /// What a K loop reads of a panel: `panel` of the weights `W` [P, K, nr] (the panel
  /// loop's induction variable), rows [kOff, kOff + kc), `row` in [0, kc) in this K step.
  struct PanelRead {
    Value weights, panel;
    OpFoldResult kOff;
    int64_t kc;
    Value row;
    scf::ForOp panelLoop;
    Operation *blockScope; // where the block's subview is
  };

  /// W [P, K, nr]: static, contiguous.
  static bool isPackedWeights(Value w) {
    auto type = dyn_cast<MemRefType>(w.getType());
    return type && type.getRank() == 3 && type.hasStaticShape() && type.getLayout().isIdentity();
  }

  static scf::ForOp panelLoopOf(OpFoldResult panel) {
    auto arg = dyn_cast_if_present<BlockArgument>(dyn_cast<Value>(panel));
    auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
    if (!loop || loop.getInductionVar() != arg || !getConstantIntValue(loop.getUpperBound()))
      return {};
    return loop;
  }

  /// Whether `v` is computed from `iv` (within `scope`).
  static bool dependsOn(Value v, Value iv, Operation *scope) {
    if (v == iv)
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || !scope->isProperAncestor(def))
      return false;
    return llvm::any_of(def->getOperands(),
                        [&](Value operand) { return dependsOn(operand, iv, scope); });
  }

  /// The register tiles' reads of packed panels:
  ///   %block = memref.subview %W[%p, %kOff, 0] [1, kc, nr]   (kc <= K)
  ///   %row = memref.subview %block[%k, 0] [1, nr]; vector.transfer_read %row
  /// (a tile split into one-vector columns, infc-tile-and-vectorize-matmul's 3-vector
  /// tiles, reads each column through one more subview of %row, with vector.fma where the
  /// others have a vector.contract), and infc-implicit-conv's pixel rows, which read row
  /// %r of the whole panel, %r a function of the K loop's and the taps loops' variables:
  ///   %row = memref.subview %W[%p, %r, 0] [1, 1, nr]; vector.transfer_read %row
  static std::optional<PanelRead> panelReadOf(vector::TransferReadOp read, scf::ForOp kLoop) {
    Value k = kLoop.getInductionVar();
    auto row = read.getBase().getDefiningOp<memref::SubViewOp>();
    if (!row)
      return std::nullopt;
    if (row.getMixedOffsets().size() == 3 && isPackedWeights(row.getSource())) {
      auto type = cast<MemRefType>(row.getSource().getType());
      auto r = dyn_cast<Value>(row.getMixedOffsets()[1]);
      scf::ForOp panelLoop = panelLoopOf(row.getMixedOffsets()[0]);
      if (!r || !panelLoop || !isConstantIntValue(row.getMixedOffsets()[2], 0) ||
          row.getStaticSizes() != ArrayRef<int64_t>{1, 1, type.getDimSize(2)} ||
          !dependsOn(r, k, panelLoop))
        return std::nullopt;
      OpFoldResult zero = OpBuilder(read).getIndexAttr(0);
      return PanelRead{
          row.getSource(), panelLoop.getInductionVar(), zero, type.getDimSize(1), r, panelLoop,
          panelLoop};
    }
    if (row.getMixedOffsets().size() == 2 && row.getMixedOffsets()[0] != OpFoldResult(k))
      if (auto wholeRow = row.getSource().getDefiningOp<memref::SubViewOp>())
        row = wholeRow;
    if (row.getMixedOffsets().size() != 2 || row.getMixedOffsets()[0] != OpFoldResult(k))
      return std::nullopt;
    auto block = row.getSource().getDefiningOp<memref::SubViewOp>();
    // (a block taken inside the K loop would not dominate the prefetches at its start)
    if (!block || !isPackedWeights(block.getSource()) || kLoop->isAncestor(block))
      return std::nullopt;
    auto type = cast<MemRefType>(block.getSource().getType());
    ArrayRef<int64_t> sizes = block.getStaticSizes();
    scf::ForOp panelLoop = panelLoopOf(block.getMixedOffsets()[0]);
    if (sizes.size() != 3 || sizes[0] != 1 || ShapedType::isDynamic(sizes[1]) ||
        sizes[2] != type.getDimSize(2) || !panelLoop)
      return std::nullopt;
    return PanelRead{
        block.getSource(), panelLoop.getInductionVar(), block.getMixedOffsets()[1], sizes[1], k,
        panelLoop,         block->getParentOp()};
  }

  void prefetchInto(scf::ForOp kLoop) {
    Block *body = kLoop.getBody();
    if (body->getOps<vector::ContractionOp>().empty() && body->getOps<vector::FMAOp>().empty())
      return;
    for (auto read : body->getOps<vector::TransferReadOp>()) {
      std::optional<PanelRead> panel = panelReadOf(read, kLoop);
      if (!panel)
        continue;
      auto weights = cast<MemRefType>(panel->weights.getType());
      int64_t panels = weights.getDimSize(0), k = weights.getDimSize(1), nr = weights.getDimSize(2);
      // A panel loop that steps through its panels' K blocks inside (kPanelKBlocks) reads
      // them in memory order: the next block is the one after this, the row tiles those
      // between the block and the K loop. Otherwise the next block is that of the next
      // panel, and the row tiles those between the panel loop and the K loop (but for the
      // taps loops of pixel rows, which step through the panel's rows).
      bool blocksInside = panel->panelLoop->hasAttr(infc::kPanelKBlocks) && panel->kc < k;
      // One panel, read whole: there is no next block.
      if (!blocksInside && tripCount(panel->panelLoop) < 2)
        continue;
      Operation *outer = blocksInside ? panel->blockScope : panel->panelLoop.getOperation();
      SmallVector<scf::ForOp> rowLoops; // outermost first
      int64_t tiles = 1;
      for (Operation *p = kLoop->getParentOp(); p && p != outer; p = p->getParentOp()) {
        auto loop = dyn_cast<scf::ForOp>(p);
        if (!loop || dependsOn(panel->row, loop.getInductionVar(), panel->panelLoop))
          continue;
        int64_t n = tripCount(loop);
        if (n <= 0)
          return;
        tiles *= n;
        rowLoops.insert(rowLoops.begin(), loop);
      }
      // One tile over all of K per panel: a remainder tile after the row tiles that read
      // the panel first, or a panel that streams through one tile only (the hardware
      // prefetcher's case).
      if (tiles == 1 && panel->kc == k)
        continue;
      insertPrefetches(kLoop, *panel, rowLoops, tiles, blocksInside ? panel->kc * nr : k * nr,
                       panels * k * nr);
      return;
    }
  }

  /// Row tile r (of `tiles`, numbered from the row loops' induction variables) prefetches
  /// floats [r * kc * d, (r + 1) * kc * d) of the block `distance` floats past this one,
  /// d = max(1, nr / tiles) floats a K step (`row`), in ceil(d / 16) prefetches into L2
  /// (the row tiles after the first read the block from there): the tiles share out the
  /// block's kc * nr floats (all but kc * (nr mod tiles) of them, which the hardware
  /// prefetcher fills in; with more tiles than nr, the shares run on into the block after).
  /// The address is affine in the K step, so the per-step cost is
  /// an add: a line index computed per step (s * lpr / tiles) had cost BERT-base's GEMMs
  /// 3-8% where the weights were in cache.
  void insertPrefetches(scf::ForOp kLoop, const PanelRead &panel, ArrayRef<scf::ForOp> rowLoops,
                        int64_t tiles, int64_t distance, int64_t size) {
    OpBuilder b(kLoop.getBody(), kLoop.getBody()->begin());
    if (Operation *def = panel.row.getDefiningOp(); def && def->getBlock() == kLoop.getBody())
      b.setInsertionPointAfter(def);
    Location loc = kLoop.getLoc();
    auto cst = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
    auto weights = cast<MemRefType>(panel.weights.getType());
    int64_t k = weights.getDimSize(1), nr = weights.getDimSize(2), kc = panel.kc;
    constexpr int64_t lineFloats = 64 / 4;
    int64_t perStep = std::max<int64_t>(1, nr / tiles),
            count = (perStep + lineFloats - 1) / lineFloats;
    Value tile = cst(0);
    for (scf::ForOp loop : rowLoops) {
      Value i = arith::DivUIOp::create(
          b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(), loop.getLowerBound()),
          loop.getStep());
      tile = arith::AddIOp::create(b, loc,
                                   arith::MulIOp::create(b, loc, tile, cst(tripCount(loop))), i);
    }
    // The block's first float: panel * K * nr + kOff * nr (W is contiguous); the tile's
    // share of the next, no further than the weights' end (past the last panel: its last
    // lines, already in cache).
    Value kOff = getValueOrCreateConstantIndexOp(b, loc, panel.kOff);
    Value start =
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, panel.panel, cst(k * nr)),
                              arith::MulIOp::create(b, loc, kOff, cst(nr)));
    Value share = arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, start, cst(distance)),
                                        arith::MulIOp::create(b, loc, tile, cst(kc * perStep)));
    share = arith::MinUIOp::create(b, loc, share,
                                   cst(size - 1 - (kc - 1) * perStep - (count - 1) * lineFloats));
    Value at = arith::AddIOp::create(b, loc, share,
                                     arith::MulIOp::create(b, loc, panel.row, cst(perStep)));
    Value flat = memref::CollapseShapeOp::create(b, loc, panel.weights,
                                                 SmallVector<ReassociationIndices>{{0, 1, 2}});
    for (int64_t j = 0; j < count; ++j)
      memref::PrefetchOp::create(b, loc, flat,
                                 ValueRange{arith::AddIOp::create(b, loc, at, cst(j * lineFloats))},
                                 /*isWrite=*/false, /*localityHint=*/2, /*isDataCache=*/true);
  }
};
} // namespace

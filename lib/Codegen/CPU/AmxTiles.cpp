//===- AmxTiles.cpp - the AMX tile products of infc-vnni-matmul -----------===//
//
// An AMX tile holds 16 rows of 64 bytes; tdpbusd (and its signed/unsigned siblings)
// multiplies a 16x64 byte tile of A by a 16x64 byte tile of B, whose row q holds four
// K-consecutive bytes of each of 16 columns, into a 16x16 i32 tile: 16K multiply-adds per
// instruction. tdpbf16ps (AMX-BF16) is its float sibling: 16x32 bf16 tiles, B's row q
// holding two K-consecutive bf16 of each of 16 columns, into a 16x16 f32 tile.
// infc-vnni-matmul and infc-bf16-matmul lay A and B out so that every tile is one strided
// load; this pass, after bufferization (the amx ops take memrefs), writes the tile loops.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace infc {
#define GEN_PASS_DEF_INFCAMXTILES
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
constexpr int64_t kRows = 16, kBytes = 64;
/// K steps unrolled in one pass (a K loop would carry the accumulator tiles through a phi);
/// longer K runs in chunks of kLongKChunk steps, C's tiles stored and reloaded between them.
constexpr int64_t kMaxUnrolledSteps = 256, kLongKChunk = 64;

/// Whether the body extends its `arg`-th block argument unsigned.
bool zeroExtends(linalg::GenericOp op, unsigned arg) {
  for (Operation &inner : op.getRegion().front())
    if (isa<arith::ExtUIOp>(inner) && inner.getOperand(0) == op.getRegion().getArgument(arg))
      return true;
  return false;
}

struct InfcAmxTilesPass : public infc::impl::InfcAmxTilesBase<InfcAmxTilesPass> {
  using InfcAmxTilesBase::InfcAmxTilesBase;
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> products;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->hasAttr("infc.amx") && op.hasPureBufferSemantics())
        products.push_back(op);
    });
    for (linalg::GenericOp op : products)
      if (failed(lower(op)))
        return signalPassFailure();
  }

  LogicalResult lower(linalg::GenericOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value a = op.getDpsInputOperand(0)->get(), bt = op.getDpsInputOperand(1)->get(),
          c = op.getDpsInitOperand(0)->get();
    auto aType = cast<MemRefType>(a.getType()), bType = cast<MemRefType>(bt.getType()),
         cType = cast<MemRefType>(c.getType());
    Type element = aType.getElementType();
    bool bf16 = element.isBF16();
    // A [M, K / per, per] of `per` K-consecutive values a 32-bit word (bytes or bf16 pairs).
    int64_t m = aType.getDimSize(0), k = aType.getDimSize(1) * aType.getDimSize(2),
            panels = bType.getDimSize(0), perRow = kBytes / (bf16 ? 2 : 1);
    if (m % kRows || k % perRow)
      return op.emitOpError("is not an AMX tile product (rows or K not whole tiles)");
    // Row-major without gaps, at any offset: one matrix of a batch (attention's bf16
    // products), a block of generic code's rows. The tile loads read rows at a fixed stride.
    if (!memref::isStaticShapeAndContiguousRowMajor(aType) ||
        !memref::isStaticShapeAndContiguousRowMajor(bType) ||
        !memref::isStaticShapeAndContiguousRowMajor(cType)) {
      // Another strided view after bufferization (none of the packings make one today): the
      // tile loads need contiguous rows, so the generic stays, a plain (slow, exact)
      // contraction once C starts from zero, as its init was left unfilled.
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(cType.getElementType()));
      linalg::FillOp::create(b, loc, zero, op.getDpsInitOperand(0)->get());
      op->removeAttr("infc.amx");
      return success();
    }
    // The tile views: A [M, K], B [P, K / per, 64 bytes], C [M, P * 16].
    a = memref::CollapseShapeOp::create(b, loc, a, SmallVector<ReassociationIndices>{{0}, {1, 2}});
    bt = memref::CollapseShapeOp::create(b, loc, bt,
                                         SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
    c = memref::CollapseShapeOp::create(b, loc, c, SmallVector<ReassociationIndices>{{0}, {1, 2}});
    bool zextA = zeroExtends(op, 0), zextB = zeroExtends(op, 1);

    int64_t rowTiles = m / kRows, steps = k / perRow;
    Type accElement = bf16 ? Type(b.getF32Type()) : Type(b.getI32Type());
    auto accType = amx::TileType::get({kRows, kRows}, accElement);
    auto operandType = amx::TileType::get({kRows, perRow}, element);
    auto idx = [&](OpBuilder &ib, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ib, loc, v);
    };
    auto mul = [&](OpBuilder &ib, Value x, int64_t by) -> Value {
      return arith::MulIOp::create(ib, loc, x, idx(ib, by));
    };
    auto add = [&](OpBuilder &ib, Value x, int64_t v) -> Value {
      return arith::AddIOp::create(ib, loc, x, idx(ib, v));
    };
    // Two loops over the blocks, both parallel: infc-parallelize-loops merges them (the inner
    // loop's bounds come from outside the outer one), so that an NHWC convolution's few
    // column blocks (32 filters: one) still share out the pixels. The larger operand's
    // blocks are the outer loop: each of its blocks is read once while the smaller operand,
    // read again for each, stays in L2 (the early convolutions of a CNN have MBs of im2col
    // rows and a few KBs of weights, the late ones and linear layers the other way round).
    // With more K steps than `kChunk` (or than kMaxUnrolledSteps), a sequential loop over
    // chunks of K between the two: the outer block's chunk stays in L1 while the inner blocks
    // pass, and C's tiles are stored after each chunk and loaded again for the next; the
    // inner loop is then not shared out (each thread takes whole outer blocks).
    // (A has M rows of K values, B panels x 16 columns of them.)
    bool rowsOuter = m > panels * kRows;
    int64_t chunk = kChunk > 0 && steps > kChunk ? kChunk : steps;
    if (chunk > kMaxUnrolledSteps)
      chunk = kLongKChunk;
    int64_t fullChunks = steps / chunk, tailSteps = steps % chunk;
    Value zero = idx(b, 0), one = idx(b, 1);
    // Blocks of rowBlock x colBlock accumulator tiles (2 x 2 accumulators + 2 A + 2 B tiles:
    // the eight tile registers) over `rowBlockCount` x `colBlockCount` blocks from row tile
    // `rowTile0` and panel `firstPanel` on.
    auto region = [&](int64_t rowTile0, int64_t rowBlockCount, int64_t rowBlock, int64_t firstPanel,
                      int64_t colBlockCount, int64_t colBlock) {
      if (!rowBlockCount || !colBlockCount)
        return;
      Value rowBlocks = idx(b, rowBlockCount), colBlocks = idx(b, colBlockCount);
      auto outer = scf::ForOp::create(b, loc, zero, rowsOuter ? rowBlocks : colBlocks, one);
      outer->setAttr("infc.parallel", b.getUnitAttr());
      OpBuilder ob = OpBuilder::atBlockBegin(outer.getBody());

      // One pass of the inner loop over K steps [first, first + count) (`first` an index
      // value), the accumulators from zero tiles or loaded from C, stored into C after.
      auto innerPass = [&](OpBuilder &pb, Value first, int64_t count, bool fromZero) {
        auto inner = scf::ForOp::create(pb, loc, zero, rowsOuter ? colBlocks : rowBlocks, one);
        if (chunk == steps) // (else the chunks loop stands between the two)
          inner->setAttr("infc.parallel", b.getUnitAttr());
        OpBuilder rb = OpBuilder::atBlockBegin(inner.getBody());
        Value rowIndex = rowsOuter ? outer.getInductionVar() : inner.getInductionVar();
        Value colIndex = rowsOuter ? inner.getInductionVar() : outer.getInductionVar();
        Value panel0 = add(rb, mul(rb, colIndex, colBlock), firstPanel);
        Value row0 = add(rb, mul(rb, rowIndex, rowBlock * kRows), rowTile0 * kRows);
        auto cIndices = [&](int64_t r, int64_t j) {
          return SmallVector<Value>{add(rb, row0, r * kRows), mul(rb, add(rb, panel0, j), kRows)};
        };
        SmallVector<Value> acc;
        for (int64_t r = 0; r < rowBlock; ++r)
          for (int64_t j = 0; j < colBlock; ++j)
            acc.push_back(
                fromZero
                    ? amx::TileZeroOp::create(rb, loc, accType).getResult()
                    : amx::TileLoadOp::create(rb, loc, accType, c, cIndices(r, j)).getResult());
        // Step `first + s`'s A column and B row: constants when `first` is one.
        std::optional<int64_t> firstStep = getConstantIntValue(first);
        auto stepIndex = [&](int64_t s, int64_t scale) -> Value {
          if (firstStep)
            return idx(rb, (*firstStep + s) * scale);
          return add(rb, mul(rb, first, scale), s * scale);
        };
        for (int64_t s = 0; s < count; ++s) {
          SmallVector<Value> aTiles, bTiles;
          for (int64_t r = 0; r < rowBlock; ++r)
            aTiles.push_back(amx::TileLoadOp::create(
                rb, loc, operandType, a,
                ValueRange{add(rb, row0, r * kRows), stepIndex(s, perRow)}));
          for (int64_t j = 0; j < colBlock; ++j)
            bTiles.push_back(amx::TileLoadOp::create(
                rb, loc, operandType, bt,
                ValueRange{add(rb, panel0, j), stepIndex(s, kRows), idx(rb, 0)}));
          for (int64_t r = 0; r < rowBlock; ++r)
            for (int64_t j = 0; j < colBlock; ++j) {
              Value &tile = acc[r * colBlock + j];
              tile = bf16 ? amx::TileMulFOp::create(rb, loc, accType, aTiles[r], bTiles[j], tile)
                                .getResult()
                          : amx::TileMulIOp::create(rb, loc, accType, aTiles[r], bTiles[j], tile,
                                                    zextA, zextB)
                                .getResult();
            }
        }
        for (int64_t r = 0; r < rowBlock; ++r)
          for (int64_t j = 0; j < colBlock; ++j)
            amx::TileStoreOp::create(rb, loc, c, cIndices(r, j), acc[r * colBlock + j]);
      };
      innerPass(ob, zero, chunk, /*fromZero=*/true);
      if (fullChunks > 1) {
        auto chunks = scf::ForOp::create(ob, loc, one, idx(ob, fullChunks), one);
        OpBuilder kb = OpBuilder::atBlockBegin(chunks.getBody());
        innerPass(kb, mul(kb, chunks.getInductionVar(), chunk), chunk, /*fromZero=*/false);
      }
      if (tailSteps)
        innerPass(ob, idx(ob, fullChunks * chunk), tailSteps, /*fromZero=*/false);
    };
    // 2 x 2 blocks, then the odd last row tile in 1 x 2 blocks, the odd last panel in 2 x 1
    // blocks and their corner (an odd count had made every block 1 x 2 or 2 x 1: ResNet-50's
    // 13- and 49-tile convolutions had run on two accumulators, too few to hide tdpbf16ps's
    // latency).
    region(0, rowTiles / 2, 2, 0, panels / 2, 2);
    region(rowTiles - 1, rowTiles % 2, 1, 0, panels / 2, 2);
    region(0, rowTiles / 2, 2, panels - 1, panels % 2, 1);
    region(rowTiles - 1, rowTiles % 2, 1, panels - 1, panels % 2, 1);
    op.erase();
    return success();
  }
};
} // namespace

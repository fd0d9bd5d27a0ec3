//===- PackMatmulPanels.cpp - B operand of a matmul in contiguous panels --===//
//
// design.md section 6: with B pre-packed into nr-wide column panels (Bp[nb][k][j]) the
// register-tiled kernel reaches ~95% of the FMA peak; row-major B stalls at 50-60% because
// every K step of a panel lands on another page (and, at power-of-two N, the same L1 set).
// A constant B (weights) is packed here at compile time; any other B by a copy at run time,
// worth it once M spans a few register tiles. The matmul becomes a loop over panels, each
// a [M, K] x [K, nr] matmul that infc-tile-and-vectorize-matmul then register-tiles; the
// last, partial panel is zero-padded and computed into a scratch tile. A batch of constant
// weights sliced by a loop marked infc.weight_batch (Winograd's 16 positions) is packed
// whole, one [batch, panels, K, nr] constant, and sliced in the loop.
//
//===----------------------------------------------------------------------===//
#include "MatmulEpilogue.h"
#include "TileUtils.h"
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

namespace infc {
#define GEN_PASS_DEF_INFCPACKMATMULPANELS
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// The same panels of a B known only at run time, as a copy the vectorizer handles: the
/// columns (padded with zero columns to whole panels) viewed as [K, panels, nr], transposed
/// to [panels, K, nr].
Value packAtRunTime(OpBuilder &b, Location loc, Value matrix, int64_t col, int64_t panels,
                    int64_t nr) {
  auto type = cast<RankedTensorType>(matrix.getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  int64_t valid = std::min(n - col, panels * nr);
  Type et = type.getElementType();
  Value columns = matrix;
  if (col != 0 || valid != n)
    columns = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({k, valid}, et), matrix,
        SmallVector<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(col)},
        SmallVector<OpFoldResult>{b.getIndexAttr(k), b.getIndexAttr(valid)},
        SmallVector<OpFoldResult>(2, b.getIndexAttr(1)));
  if (valid != panels * nr) {
    auto paddedType = RankedTensorType::get({k, panels * nr}, et);
    SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> high = {b.getIndexAttr(0), b.getIndexAttr(panels * nr - valid)};
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
    columns = tensor::PadOp::create(b, loc, paddedType, columns, low, high, zero);
  }
  auto viewType = RankedTensorType::get({k, panels, nr}, et);
  Value view = tensor::ExpandShapeOp::create(b, loc, viewType, columns,
                                             SmallVector<ReassociationIndices>{{0}, {1, 2}});
  Value init = tensor::EmptyOp::create(b, loc, {panels, k, nr}, et);
  return linalg::TransposeOp::create(b, loc, view, init, ArrayRef<int64_t>{1, 0, 2})->getResult(0);
}

/// Panels [col, col + panels * nr) of every matrix of a constant batch [batch, K, N] of
/// 4-byte elements, packed at compile time as [batch, panels, K, nr] (straight from the raw
/// data: no attribute per matrix, which MLIR would keep for the whole compile), and matrix
/// `index` of them: the [panels, K, nr] that packColumns gives for a single B.
Value packBatch(OpBuilder &b, Location loc, DenseElementsAttr batch, OpFoldResult index,
                int64_t col, int64_t panels, int64_t nr) {
  auto type = cast<RankedTensorType>(batch.getType());
  int64_t count = type.getDimSize(0), k = type.getDimSize(1), n = type.getDimSize(2);
  Type et = type.getElementType();
  ArrayRef<char> raw = batch.getRawData(); // (one element when splat)
  std::vector<uint32_t> packed;
  for (int64_t i = 0; i < count; ++i)
    infc::appendPanels(batch.isSplat() ? raw : raw.slice(i * k * n * 4, k * n * 4), batch.isSplat(),
                       k, n, col, panels, nr, packed);
  auto allType = RankedTensorType::get({count, panels, k, nr}, et);
  Value all = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::getFromRawBuffer(
          allType, ArrayRef<char>(reinterpret_cast<const char *>(packed.data()),
                                  packed.size() * sizeof(uint32_t))));
  SmallVector<OpFoldResult> offsets = {index, b.getIndexAttr(0), b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(panels), b.getIndexAttr(k),
                                     b.getIndexAttr(nr)};
  return tensor::ExtractSliceOp::create(b, loc, RankedTensorType::get({panels, k, nr}, et), all,
                                        offsets, sizes,
                                        SmallVector<OpFoldResult>(4, b.getIndexAttr(1)));
}

/// C[:, off : off + width] = A x bSlice + C[:, off : off + width], on tensors; with a
/// `fillValue`, A x bSlice + fillValue (C's columns are not read). With an `epilogue` (and
/// a fill value), C is the epilogue's result and the product a temporary: the epilogue of
/// those columns (rows from `row` on, in the whole product) goes into C.
Value matmulIntoColumns(OpBuilder &b, Location loc, Value a, Value bSlice, Value c,
                        OpFoldResult offset, int64_t width, Value fillValue,
                        const infc::MatmulEpilogue *epilogue, OpFoldResult row,
                        bool addDest = false) {
  auto ct = cast<RankedTensorType>(c.getType());
  int64_t rows = ct.getDimSize(0);
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), offset};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows), b.getIndexAttr(width)};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  if (epilogue) {
    // The product's own element type (the matmul's), not C's (the epilogue's result).
    // (The last K block's product starts from zero: C's partial sums have the fill.)
    Value init =
        tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{rows, width}, fillValue.getType());
    Value start =
        addDest ? arith::ConstantOp::create(b, loc, b.getZeroAttr(fillValue.getType())) : fillValue;
    init = linalg::FillOp::create(b, loc, start, init).getResult(0);
    Value product =
        linalg::MatmulOp::create(b, loc, ValueRange{a, bSlice}, ValueRange{init}).getResult(0);
    return epilogue->apply(b, loc, product, c, row, rows, offset, width, b.getIndexAttr(0),
                           addDest);
  }
  Value cSlice = tensor::ExtractSliceOp::create(b, loc, c, offsets, sizes, strides);
  if (fillValue)
    cSlice = linalg::FillOp::create(b, loc, fillValue, cSlice).getResult(0);
  Value product =
      linalg::MatmulOp::create(b, loc, ValueRange{a, bSlice}, ValueRange{cSlice}).getResult(0);
  return tensor::InsertSliceOp::create(b, loc, product, c, offsets, sizes, strides);
}

struct InfcPackMatmulPanelsPass
    : public infc::impl::InfcPackMatmulPanelsBase<InfcPackMatmulPanelsPass> {
  using InfcPackMatmulPanelsBase::InfcPackMatmulPanelsBase;

  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp op) {
      // Matmuls already inside loops (this pass's own panels, tiles) are left alone, but
      // for one of a batch of weights in its loop over the batch, and one of constant
      // weights in a loop over blocks of a run-time row count (the generic code's).
      auto loop = op->getParentOfType<LoopLikeOpInterface>();
      bool rowBlock = loop && op->getParentOp() == loop.getOperation() &&
                      loop->hasAttr("infc.row_blocks") &&
                      matchPattern(op.getInputs()[1], m_Constant()) && !needsPaddedTail(op);
      if (infc::isRegisterTileable(op) && (!loop || batchOfWeights(op) || rowBlock) &&
          op.getIndexingMapsArray() == op.getDefaultIndexingMaps(op.getContext()))
        matmuls.push_back(op);
    });
    for (linalg::MatmulOp op : matmuls)
      pack(op);
  }

  /// Whether the last panel of `op`'s packing is wider than its columns (its product then
  /// goes through a scratch tile, which inside a loop would be allocated per iteration).
  bool needsPaddedTail(linalg::MatmulOp op) const {
    auto at = cast<ShapedType>(op.getInputs()[0].getType());
    int64_t n = cast<ShapedType>(op.getInputs()[1].getType()).getDimSize(1);
    int64_t nr = infc::panelWidthFor(at.getDimSize(0), vectorBits), tail = n % nr;
    return tail && infc::tailPanelWidth(tail, vectorBits) != tail;
  }

  /// A matmul directly in a loop marked `infc.weight_batch` (Winograd's positions) whose B
  /// is slice `iv` [K, N] of a constant [batch, K, N], iv that loop's index: the slice.
  static tensor::ExtractSliceOp batchOfWeights(linalg::MatmulOp op) {
    auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
    DenseElementsAttr weights;
    auto slice = op.getInputs()[1].getDefiningOp<tensor::ExtractSliceOp>();
    if (!loop || !loop->hasAttr("infc.weight_batch") || !slice ||
        slice->getParentOp() != loop.getOperation() || !slice.hasUnitStride() ||
        !matchPattern(slice.getSource(), m_Constant(&weights)) ||
        weights.getElementType().getIntOrFloatBitWidth() != 32)
      return {};
    auto source = cast<RankedTensorType>(slice.getSource().getType());
    auto offsets = slice.getMixedOffsets();
    auto result = slice.getResultType();
    if (source.getRank() != 3 || result.getRank() != 2 ||
        result.getShape() != source.getShape().drop_front() ||
        dyn_cast_if_present<Value>(offsets[0]) != loop.getInductionVar() ||
        !isZeroInteger(offsets[1]) || !isZeroInteger(offsets[2]))
      return {};
    return slice;
  }

  /// The K block: all of K while A [M, K] fits in L2, else the divisor of K in [128, 512]
  /// nearest 256 (none: all of K). Also for a few rows (M <= 64) against a B larger than
  /// L2: B then comes from memory (a model's weights do not stay in cache between runs),
  /// and each [kc, nr] block of a panel is fetched once for all row tiles, which reuse it
  /// from L1, instead of the first row tile waiting on all of the panel (ResNet-50's 7x7
  /// stage -6%).
  int64_t kBlockFor(int64_t m, int64_t k, int64_t n) const {
    bool streamsB = m <= 64 && k * n * 4 > 2 * rowBlockMaxBBytes;
    if (m * k * 4 <= kBlockMinBytes && !streamsB)
      return k;
    int64_t best = k;
    for (int64_t d = 128; d <= 512 && d < k; ++d)
      if (k % d == 0 && (best == k || std::abs(d - 256) < std::abs(best - 256)))
        best = d;
    return best;
  }

  /// Rows of A per row block: a multiple of the register tile's `tileRows` whose [rows, K]
  /// block takes about 96 KiB (it is read once per panel, from L2), one tile to about 256.
  static int64_t rowBlockFor(int64_t k, int64_t tileRows) {
    int64_t rows = (96 * 1024 / (4 * k)) / tileRows * tileRows;
    return std::clamp<int64_t>(rows, tileRows, 256 / tileRows * tileRows);
  }

  void pack(linalg::MatmulOp op) {
    Value a = op.getInputs()[0], bMatrix = op.getInputs()[1], c = op.getOutputs()[0];
    // C filled with one value (the zero a contraction starts from): each panel fills its own
    // columns right before its matmul, so infc-tile-and-vectorize-matmul can start the
    // register tile from that value instead of loading C, and the whole C is never swept
    // by a separate fill (for a short K that traffic costs as much as the products).
    Value fillValue;
    auto fill = c.getDefiningOp<linalg::FillOp>();
    if (fill) {
      fillValue = fill.getInputs()[0];
      c = fill.getOutputs()[0];
    }
    auto bt = cast<RankedTensorType>(bMatrix.getType());
    int64_t m = cast<RankedTensorType>(a.getType()).getDimSize(0), k = bt.getDimSize(0),
            n = bt.getDimSize(1);
    // Panels as wide as infc-tile-and-vectorize-matmul's register tile for this M; the
    // last, partial one (the tail) in a panel of its own, one, two or four vectors wide.
    int64_t lanes = infc::f32Lanes(vectorBits);
    int64_t nr = infc::panelWidthFor(m, vectorBits), full = n / nr, tail = n - full * nr,
            tailWidth = tail ? infc::tailPanelWidth(tail, vectorBits) : 0;
    DenseElementsAttr constant;
    bool isConstant = matchPattern(bMatrix, m_Constant(&constant));
    // Or slice iv of a constant batch: all of it packed, [batch, panels, K, nr], and
    // slice iv of that taken in the loop.
    tensor::ExtractSliceOp batchSlice = batchOfWeights(op);
    if (batchSlice) {
      isConstant = matchPattern(batchSlice.getSource(), m_Constant(&constant));
      bMatrix = batchSlice.getResult();
    }
    // A run-time copy of B pays off once several register tiles of A reuse each panel.
    // One vector wide or less: B's rows are already contiguous vectors.
    if (n <= lanes || (!isConstant && m < minRowsForRuntimePack))
      return;
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto packColumns = [&](int64_t col, int64_t panels, int64_t width) -> Value {
      if (batchSlice)
        return packBatch(b, loc, constant, batchSlice.getMixedOffsets()[0], col, panels, width);
      return isConstant ? (Value)arith::ConstantOp::create(
                              b, loc, infc::packPanels(constant, col, panels, width))
                        : packAtRunTime(b, loc, bMatrix, col, panels, width);
    };
    Value packed = full ? packColumns(0, full, nr) : Value();
    Value tailPacked = tail ? packColumns(full * nr, 1, tailWidth) : Value();

    // The elementwise consumer (bias, activation, residual) applied panel by panel, when C
    // starts from a fill (with K in blocks, by the last block: see below).
    // Row blocks hold whole register tiles of the full panels and of a three-vector tail
    // alike (6 and 8 rows for panels of 64 and a tail of 48: blocks of 24k rows): a tail
    // tile split into one-vector columns (infc-tile-and-vectorize-matmul) with an edge tile
    // inside the row loop kept its product in a buffer of its own there, which the memory
    // plan cannot place (a 960 x 240 x 240 conv of PP-OCR's text recognizer).
    int64_t tileRows = infc::chooseRegisterTile(m, nr, vectorBits).rows;
    if (infc::RegisterTile tailTile = infc::chooseRegisterTile(m, tailWidth, vectorBits);
        tail && tailTile.cols == 3 * lanes)
      tileRows = std::lcm(tileRows, tailTile.rows);
    int64_t kc = kBlockFor(m, k, n), mb = rowBlockFor(k, tileRows);
    bool fitsL2 = (full * nr + tailWidth) * k * 4 <= rowBlockMaxBBytes;
    // B larger than that and an A larger than L2 (twice the budget), which would stream
    // from memory once per panel: the same order per column block of B (as many panels as
    // fit the budget), A then streams once per block. (An A that fits L2, BERT's 128 x
    // 3072, does better in panel order.)
    int64_t blockPanels = std::max<int64_t>(1, rowBlockMaxBBytes / (nr * k * 4));
    bool columnBlocks = !fitsL2 && m * k * 4 > 2 * rowBlockMaxBBytes && full > blockPanels;
    bool rowBlocks = (fitsL2 || columnBlocks) && m >= 2 * mb;
    // With K in blocks (and no row blocks) the blocks before the last accumulate into the
    // result buffer, and the last block's tiles add their product to it under the epilogue:
    // no residual can hold that buffer then.
    bool kBlocks = !rowBlocks && kc < k;
    std::optional<infc::MatmulEpilogue> epilogue;
    if (fuseEpilogues && fillValue)
      epilogue = infc::MatmulEpilogue::of(op, /*allowInPlace=*/!kBlocks);
    // Which panels the epilogue applies to (panelsInto): all but the K blocks before the
    // last; to the last one adding the partial sums.
    enum class EpilogueUse { None, Apply, AddToPartialSums } use = EpilogueUse::Apply;
    if (epilogue) {
      b.setInsertionPoint(epilogue->consumerOp());
      c = epilogue->resultInit(b, loc);
    }

    // Panels [K-offset, K-offset + kSize) of every column block, A's columns likewise.
    // Matmuls against rows [kOffset, kOffset + kSize) of the panels (A holds the same
    // columns): the full panels in a parallel loop and/or the last, partial one.
    // `fill`: this K range is the first, so its panels start from fillValue (if any).
    // `rows`: of `a` and `c` (a row block from row `row`, or all of M).
    Value panelBegin, panelEnd;
    auto panelsInto = [&](OpBuilder &b, Location loc, Value a, OpFoldResult kOffset, int64_t kSize,
                          Value c, bool fullPanels, bool lastPanel, bool fill, int64_t rows,
                          OpFoldResult row) -> Value {
      Value init = fill ? fillValue : Value();
      const infc::MatmulEpilogue *fused =
          epilogue && use != EpilogueUse::None ? &*epilogue : nullptr;
      bool addDest = use == EpilogueUse::AddToPartialSums;
      if (addDest)
        init = fillValue; // (the epilogue's product: a fill of its own, from zero)
      auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
      // Panel p of `panels` ([P, K, width]), rows [kOffset, kOffset + kSize).
      auto panelAt = [&](OpBuilder &pb, Location pl, Value panels, OpFoldResult p,
                         int64_t width) -> Value {
        return tensor::ExtractSliceOp::create(
            pb, pl, RankedTensorType::get({kSize, width}, bt.getElementType()), panels,
            SmallVector<OpFoldResult>{p, kOffset, idx(0)},
            SmallVector<OpFoldResult>{idx(1), idx(kSize), idx(width)},
            SmallVector<OpFoldResult>(3, idx(1)));
      };
      Value result = c;
      if (fullPanels && full > 0) {
        // Panels [panelBegin, panelEnd): all full ones unless a column block is set.
        Value zero = panelBegin ? panelBegin : arith::ConstantIndexOp::create(b, loc, 0);
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        Value count = panelEnd ? panelEnd : arith::ConstantIndexOp::create(b, loc, full);
        Value width = arith::ConstantIndexOp::create(b, loc, nr);
        auto loop = scf::ForOp::create(
            b, loc, zero, count, one, ValueRange{c},
            [&](OpBuilder &lb, Location ll, Value p, ValueRange iterArgs) {
              Value column = arith::MulIOp::create(lb, ll, p, width);
              Value next = matmulIntoColumns(lb, ll, a, panelAt(lb, ll, packed, p, nr), iterArgs[0],
                                             column, nr, init, fused, row, addDest);
              scf::YieldOp::create(lb, ll, next);
            });
        // Panels are independent column blocks of C: the session's threads share them out.
        loop->setAttr("infc.parallel", b.getUnitAttr());
        result = loop.getResult(0);
      }
      if (!tail || !lastPanel)
        return result;
      // The tail panel, straight into C's columns when it is exactly that wide.
      int64_t width = tailWidth;
      if (tail == width)
        return matmulIntoColumns(b, loc, a, panelAt(b, loc, tailPacked, idx(0), width), result,
                                 idx(full * nr), width, init, fused, row);
      // Zero-padded past the tail: a matmul into an [M, width] scratch tile that starts
      // from C's tail columns (or the fill value), of which the first `tail` columns go
      // back into C.
      SmallVector<OpFoldResult> unit2(2, idx(1));
      SmallVector<OpFoldResult> cOffsets = {idx(0), idx(full * nr)};
      SmallVector<OpFoldResult> tailSizes = {idx(rows), idx(tail)};
      SmallVector<OpFoldResult> origin = {idx(0), idx(0)};
      Type et = bt.getElementType();
      Value scratch = tensor::EmptyOp::create(b, loc, {rows, width}, et);
      if (init) {
        scratch = linalg::FillOp::create(b, loc, init, scratch).getResult(0);
      } else {
        Value cTail = tensor::ExtractSliceOp::create(b, loc, result, cOffsets, tailSizes, unit2);
        Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
        scratch = linalg::FillOp::create(b, loc, zero, scratch).getResult(0);
        scratch = tensor::InsertSliceOp::create(b, loc, cTail, scratch, origin, tailSizes, unit2);
      }
      Value product = linalg::MatmulOp::create(
                          b, loc, ValueRange{a, panelAt(b, loc, tailPacked, idx(0), width)},
                          ValueRange{scratch})
                          .getResult(0);
      Value valid = tensor::ExtractSliceOp::create(b, loc, product, origin, tailSizes, unit2);
      if (fused)
        return fused->apply(b, loc, valid, result, row, rows, idx(full * nr), tail, idx(0));
      return tensor::InsertSliceOp::create(b, loc, valid, result, cOffsets, tailSizes, unit2);
    };

    Value result;
    bool scratchTail = tail && tail != tailWidth;
    if (rowBlocks) {
      // All of B (or of a column block of it) fits L2: row blocks of A outside (in
      // parallel), the panels inside, so A streams from memory once (per column block)
      // instead of once per panel. A tail panel that needs a scratch tile goes after the
      // loop, over all rows (the memory plan only places buffers of the function body).
      auto rowsOf = [&](OpBuilder &lb, Location ll, Value t, OpFoldResult row, int64_t rows,
                        int64_t cols) -> Value {
        return tensor::ExtractSliceOp::create(
            lb, ll, t, SmallVector<OpFoldResult>{row, lb.getIndexAttr(0)},
            SmallVector<OpFoldResult>{lb.getIndexAttr(rows), lb.getIndexAttr(cols)},
            SmallVector<OpFoldResult>(2, lb.getIndexAttr(1)));
      };
      auto blockInto = [&](OpBuilder &lb, Location ll, OpFoldResult row, int64_t rows,
                           Value acc) -> Value {
        Value block = panelsInto(lb, ll, rowsOf(lb, ll, a, row, rows, k), lb.getIndexAttr(0), k,
                                 rowsOf(lb, ll, acc, row, rows, n), true,
                                 !scratchTail && !columnBlocks, true, rows, row);
        return tensor::InsertSliceOp::create(
            lb, ll, block, acc, SmallVector<OpFoldResult>{row, lb.getIndexAttr(0)},
            SmallVector<OpFoldResult>{lb.getIndexAttr(rows), lb.getIndexAttr(n)},
            SmallVector<OpFoldResult>(2, lb.getIndexAttr(1)));
      };
      // All rows over the panels [panelBegin, panelEnd) (all of them when unset).
      auto allRows = [&](OpBuilder &b, Location loc, Value acc) -> Value {
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        Value blocks = arith::ConstantIndexOp::create(b, loc, m / mb);
        Value step = arith::ConstantIndexOp::create(b, loc, mb);
        auto rowLoop = scf::ForOp::create(
            b, loc, zero, blocks, one, ValueRange{acc},
            [&](OpBuilder &lb, Location ll, Value i, ValueRange iterArgs) {
              Value row = arith::MulIOp::create(lb, ll, i, step);
              scf::YieldOp::create(lb, ll, blockInto(lb, ll, row, mb, iterArgs[0]));
            });
        rowLoop->setAttr("infc.parallel", b.getUnitAttr());
        Value done = rowLoop.getResult(0);
        if (m % mb)
          done = blockInto(b, loc, b.getIndexAttr(m / mb * mb), m % mb, done);
        return done;
      };
      if (!columnBlocks) {
        result = allRows(b, loc, c);
      } else {
        // A serial loop over the column blocks of whole panels, then the panels left.
        int64_t blocks = full / blockPanels;
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        Value count = arith::ConstantIndexOp::create(b, loc, blocks);
        Value size = arith::ConstantIndexOp::create(b, loc, blockPanels);
        auto columnLoop =
            scf::ForOp::create(b, loc, zero, count, one, ValueRange{c},
                               [&](OpBuilder &lb, Location ll, Value j, ValueRange iterArgs) {
                                 panelBegin = arith::MulIOp::create(lb, ll, j, size);
                                 panelEnd = arith::AddIOp::create(lb, ll, panelBegin, size);
                                 scf::YieldOp::create(lb, ll, allRows(lb, ll, iterArgs[0]));
                               });
        result = columnLoop.getResult(0);
        panelBegin = panelEnd = Value();
        if (full % blockPanels) {
          panelBegin = arith::ConstantIndexOp::create(b, loc, blocks * blockPanels);
          panelEnd = arith::ConstantIndexOp::create(b, loc, full);
          result = allRows(b, loc, result);
          panelBegin = panelEnd = Value();
        }
      }
      // (with column blocks every tail: inside the blocks it would run once per block)
      if (scratchTail || (columnBlocks && tail))
        result = panelsInto(b, loc, a, b.getIndexAttr(0), k, result, false, true, true, m,
                            b.getIndexAttr(0));
    } else if (kc == k) {
      result =
          panelsInto(b, loc, a, b.getIndexAttr(0), k, c, true, true, true, m, b.getIndexAttr(0));
    } else if (m * k * 4 <= kBlockMinBytes && fillValue) {
      // A few rows against weights from memory (A fits L2): each thread takes whole panels
      // and steps through a panel's K blocks in order, so each block is fetched once for
      // all row tiles, a thread streams its panels sequentially, and the threads meet once
      // (K blocks around a parallel panel loop met after every block: 18 barriers a 7x7
      // conv, a tenth of ResNet-50's 7x7 stage at 2 threads). The first block starts from
      // the fill, the last applies the epilogue (if any) to the partial sums.
      auto kSlice = [&](OpBuilder &lb, Location ll, Value t, OpFoldResult row, OpFoldResult col,
                        ArrayRef<int64_t> shape) -> Value {
        return tensor::ExtractSliceOp::create(
            lb, ll,
            RankedTensorType::get(shape, cast<RankedTensorType>(t.getType()).getElementType()), t,
            SmallVector<OpFoldResult>{row, col},
            SmallVector<OpFoldResult>{lb.getIndexAttr(shape[0]), lb.getIndexAttr(shape[1])},
            SmallVector<OpFoldResult>(2, lb.getIndexAttr(1)));
      };
      if (full > 0) {
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        Value width = arith::ConstantIndexOp::create(b, loc, nr);
        auto panelLoop = scf::ForOp::create(
            b, loc, zero, arith::ConstantIndexOp::create(b, loc, full), one, ValueRange{c},
            [&](OpBuilder &lb, Location ll, Value p, ValueRange iterArgs) {
              Value column = arith::MulIOp::create(lb, ll, p, width);
              // Rows [kOffset, kOffset + kc) of panel p, and A's columns likewise.
              auto block = [&](OpBuilder &bb, Location bl, OpFoldResult kOffset) {
                Value panel = tensor::ExtractSliceOp::create(
                    bb, bl, RankedTensorType::get({kc, nr}, bt.getElementType()), packed,
                    SmallVector<OpFoldResult>{p, kOffset, bb.getIndexAttr(0)},
                    SmallVector<OpFoldResult>{bb.getIndexAttr(1), bb.getIndexAttr(kc),
                                              bb.getIndexAttr(nr)},
                    SmallVector<OpFoldResult>(3, bb.getIndexAttr(1)));
                return std::make_pair(kSlice(bb, bl, a, bb.getIndexAttr(0), kOffset, {m, kc}),
                                      panel);
              };
              auto [a0, b0] = block(lb, ll, lb.getIndexAttr(0));
              Value acc = matmulIntoColumns(lb, ll, a0, b0, iterArgs[0], column, nr, fillValue,
                                            nullptr, lb.getIndexAttr(0));
              int64_t blocks = k / kc;
              if (blocks > 2) {
                Value step = arith::ConstantIndexOp::create(lb, ll, kc);
                auto kLoop = scf::ForOp::create(
                    lb, ll, arith::ConstantIndexOp::create(lb, ll, 1),
                    arith::ConstantIndexOp::create(lb, ll, blocks - 1),
                    arith::ConstantIndexOp::create(lb, ll, 1), ValueRange{acc},
                    [&](OpBuilder &kb, Location kl, Value i, ValueRange kIter) {
                      Value offset = arith::MulIOp::create(kb, kl, i, step);
                      auto [ai, bi] = block(kb, kl, offset);
                      scf::YieldOp::create(kb, kl,
                                           matmulIntoColumns(kb, kl, ai, bi, kIter[0], column, nr,
                                                             Value(), nullptr, kb.getIndexAttr(0)));
                    });
                acc = kLoop.getResult(0);
              }
              auto [al, bl] = block(lb, ll, lb.getIndexAttr(k - kc));
              acc = epilogue ? matmulIntoColumns(lb, ll, al, bl, acc, column, nr, fillValue,
                                                 &*epilogue, lb.getIndexAttr(0),
                                                 /*addDest=*/true)
                             : matmulIntoColumns(lb, ll, al, bl, acc, column, nr, Value(), nullptr,
                                                 lb.getIndexAttr(0));
              scf::YieldOp::create(lb, ll, acc);
            });
        panelLoop->setAttr("infc.parallel", b.getUnitAttr());
        // (for infc-prefetch-panels: the row tiles of one block are those of this loop's
        // blocks, each of kc rows; it prefetches the next panel's rows as elsewhere)
        panelLoop->setAttr(infc::kPanelKBlocks, b.getI64IntegerAttr(kc));
        c = panelLoop.getResult(0);
      }
      // The tail panel over all of K (its scratch tile outside any loop).
      result =
          panelsInto(b, loc, a, b.getIndexAttr(0), k, c, false, true, true, m, b.getIndexAttr(0));
    } else {
      // A larger than L2 would stream from memory once per panel: step K in blocks of kc
      // (serially), so each block of A stays in L2 while all panels pass over it. The first
      // block, which starts from the fill value, is peeled off the loop.
      auto aColumns = [&](OpBuilder &lb, Location ll, OpFoldResult offset) -> Value {
        return tensor::ExtractSliceOp::create(
            lb, ll, a, SmallVector<OpFoldResult>{lb.getIndexAttr(0), offset},
            SmallVector<OpFoldResult>{lb.getIndexAttr(m), lb.getIndexAttr(kc)},
            SmallVector<OpFoldResult>(2, lb.getIndexAttr(1)));
      };
      // With an epilogue the last block is peeled off too: it applies the epilogue to the
      // partial sums plus its own product.
      int64_t firstBlock = 0, endBlock = k / kc - (epilogue ? 1 : 0);
      if (epilogue)
        use = EpilogueUse::None;
      if (fillValue) {
        c = panelsInto(b, loc, aColumns(b, loc, b.getIndexAttr(0)), b.getIndexAttr(0), kc, c, true,
                       false, true, m, b.getIndexAttr(0));
        firstBlock = 1;
      }
      if (endBlock > firstBlock) {
        Value zero = arith::ConstantIndexOp::create(b, loc, firstBlock);
        Value blocks = arith::ConstantIndexOp::create(b, loc, endBlock);
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        Value step = arith::ConstantIndexOp::create(b, loc, kc);
        auto kLoop = scf::ForOp::create(
            b, loc, zero, blocks, one, ValueRange{c},
            [&](OpBuilder &lb, Location ll, Value kb, ValueRange iterArgs) {
              Value offset = arith::MulIOp::create(lb, ll, kb, step);
              scf::YieldOp::create(lb, ll,
                                   panelsInto(lb, ll, aColumns(lb, ll, offset), offset, kc,
                                              iterArgs[0], true, false, false, m,
                                              lb.getIndexAttr(0)));
            });
        c = kLoop.getResult(0);
      }
      if (epilogue) {
        use = EpilogueUse::AddToPartialSums;
        OpFoldResult last = b.getIndexAttr(k - kc);
        c = panelsInto(b, loc, aColumns(b, loc, last), last, kc, c, true, false, false, m,
                       b.getIndexAttr(0));
        use = EpilogueUse::Apply;
      }
      // The last panel over all of K, after the blocks: its scratch tile stays outside any
      // loop (the memory plan only places buffers of the function body).
      result =
          panelsInto(b, loc, a, b.getIndexAttr(0), k, c, false, true, true, m, b.getIndexAttr(0));
    }
    if (epilogue) {
      epilogue->replaceConsumer(b, loc, result);
    } else {
      op.getResult(0).replaceAllUsesWith(result);
    }
    op.erase();
    if (fill && fill->use_empty())
      fill.erase();
  }
};
} // namespace

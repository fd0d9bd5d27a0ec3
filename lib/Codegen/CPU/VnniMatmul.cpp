//===- VnniMatmul.cpp - i8 matmuls on AVX-512 VNNI (vpdpbusd) -------------===//
//
// vpdpbusd adds to each of 16 i32 lanes the dot product of four unsigned bytes of one
// operand with four signed bytes of the other: 64 multiply-adds per instruction, four times
// the lanes of an f32 FMA. The integer matmuls of quantized models (A: i8 activations
// extended to i32, B: constant weights with the zero point folded in) fit it when B's
// values are s8: B is packed at compile time into words of four K-consecutive bytes per
// column, A at run time into words of four K-consecutive u8 (a signed A offset by 128, the
// offset taken back by starting each accumulator from -128 x its column's sum of B).
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

namespace infc {
#define GEN_PASS_DEF_INFCVNNIMATMUL
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
constexpr int64_t kLanes = 16; // i32 lanes of a zmm register: the columns of one panel
constexpr int64_t kRows = 8;   // rows of a register tile
constexpr int64_t kPanelsPerTile = 2; // 8 x 2 accumulators + 2 B vectors + 1 A broadcast

/// The i8 tensor a value was extended from by an elementwise linalg.generic (extsi or
/// extui to i32, nothing else), and whether the extension is signed.
std::optional<std::pair<Value, bool>> extendedFromI8(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !llvm::all_of(g.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
    return std::nullopt;
  Value in = g.getDpsInputOperand(0)->get();
  if (!cast<ShapedType>(in.getType()).getElementType().isInteger(8))
    return std::nullopt;
  Block &body = g.getRegion().front();
  if (body.getOperations().size() != 2)
    return std::nullopt;
  Operation &ext = body.front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (ext.getNumOperands() != 1 || ext.getOperand(0) != body.getArgument(0) ||
      yield.getOperand(0) != ext.getResult(0) || !ext.getResult(0).getType().isInteger(32))
    return std::nullopt;
  if (isa<arith::ExtSIOp>(ext))
    return std::make_pair(in, true);
  if (isa<arith::ExtUIOp>(ext))
    return std::make_pair(in, false);
  return std::nullopt;
}

struct InfcVnniMatmulPass : public infc::impl::InfcVnniMatmulBase<InfcVnniMatmulPass> {
  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp op) {
      if (op.hasPureTensorSemantics() && !op.hasDynamicShape() &&
          op.getIndexingMapsArray() == op.getDefaultIndexingMaps(op.getContext()))
        matmuls.push_back(op);
    });
    for (linalg::MatmulOp op : matmuls)
      rewrite(op);
  }

  void rewrite(linalg::MatmulOp op) {
    auto ct = cast<RankedTensorType>(op.getResult(0).getType());
    if (!ct.getElementType().isInteger(32))
      return;
    std::optional<std::pair<Value, bool>> lhs = extendedFromI8(op.getInputs()[0]);
    DenseElementsAttr weights;
    if (!lhs || !matchPattern(op.getInputs()[1], m_Constant(&weights)))
      return;
    int64_t m = ct.getDimSize(0), n = ct.getDimSize(1);
    int64_t k = cast<RankedTensorType>(weights.getType()).getDimSize(0);
    if (n % kLanes || m == 0 || k == 0)
      return;
    std::vector<int64_t> b;
    b.reserve(k * n);
    for (const APInt &v : weights.getValues<APInt>()) {
      int64_t x = v.getSExtValue();
      if (x < -128 || x > 127)
        return; // not an s8 weight: the i32 kernel computes it
      b.push_back(x);
    }
    auto [a, isSigned] = *lhs;
    int64_t panels = n / kLanes, words = (k + 3) / 4;

    // Bp[p][q][j]: bytes B[4q .. 4q+3][16p + j] (zero past K), little-endian. Acc0[p][j]:
    // what the accumulator of column 16p + j starts from.
    std::vector<int32_t> packed(panels * words * kLanes), start(n, 0);
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t q = 0; q < words; ++q)
        for (int64_t j = 0; j < kLanes; ++j) {
          uint32_t word = 0;
          for (int64_t t = 0; t < 4 && 4 * q + t < k; ++t)
            word |= (uint32_t)(uint8_t)(int8_t)b[(4 * q + t) * n + p * kLanes + j] << (8 * t);
          packed[(p * words + q) * kLanes + j] = (int32_t)word;
        }
    if (isSigned)
      for (int64_t c = 0; c < n; ++c) {
        int64_t sum = 0;
        for (int64_t r = 0; r < k; ++r)
          sum += b[r * n + c];
        start[c] = (int32_t)(-128 * sum);
      }

    OpBuilder builder(op);
    Location loc = op.getLoc();
    Type i32 = builder.getI32Type();
    auto constant = [&](ArrayRef<int64_t> shape, ArrayRef<int32_t> values) -> Value {
      auto type = RankedTensorType::get(shape, i32);
      return arith::ConstantOp::create(builder, loc, DenseElementsAttr::get(type, values));
    };
    Value bPanels = constant({panels, words, kLanes}, packed);
    Value accStart = constant({panels, kLanes}, start);
    Value aWords = packA(builder, loc, a, m, k, words, isSigned);

    auto vecType = VectorType::get({kLanes}, i32);
    auto byteVecType = VectorType::get({4 * kLanes}, builder.getI8Type());
    auto idx = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto read = [&](OpBuilder &b, Value source, ValueRange indices) -> Value {
      return vector::TransferReadOp::create(b, loc, vecType, source, indices,
                                            std::optional<Value>(), ArrayRef<bool>{true});
    };
    // Rows [begin, end) in tiles of `rows` x `width` panels from panel p on, into C: per K
    // word `width` B loads and `rows` A broadcasts feed rows x width vpdpbusd.
    auto rowTiles = [&](OpBuilder &b, Value p, Value c, int64_t begin, int64_t end,
                        int64_t rows, int64_t width) -> Value {
      if (begin >= end)
        return c;
      SmallVector<Value> panel, column, init;
      for (int64_t j = 0; j < width; ++j) {
        panel.push_back(arith::AddIOp::create(b, loc, p, idx(b, j)));
        column.push_back(arith::MulIOp::create(b, loc, panel[j], idx(b, kLanes)));
        init.push_back(read(b, accStart, {panel[j], idx(b, 0)}));
      }
      auto loop = scf::ForOp::create(
          b, loc, idx(b, begin), idx(b, end), idx(b, rows), ValueRange{c},
          [&](OpBuilder &lb, Location, Value row, ValueRange cIn) {
            SmallVector<Value> accs;
            for (int64_t r = 0; r < rows; ++r)
              llvm::append_range(accs, init);
            auto kLoop = scf::ForOp::create(
                lb, loc, idx(lb, 0), idx(lb, words), idx(lb, 1), accs,
                [&](OpBuilder &kb, Location, Value q, ValueRange accIn) {
                  // The intrinsic takes its byte operands as <64 x i8>.
                  auto bytes = [&](Value v) {
                    return vector::BitCastOp::create(kb, loc, byteVecType, v).getResult();
                  };
                  SmallVector<Value> bVecs;
                  for (int64_t j = 0; j < width; ++j)
                    bVecs.push_back(bytes(read(kb, bPanels, {panel[j], q, idx(kb, 0)})));
                  SmallVector<Value> next;
                  for (int64_t r = 0; r < rows; ++r) {
                    Value rIdx = arith::AddIOp::create(kb, loc, row, idx(kb, r));
                    Value word = tensor::ExtractOp::create(kb, loc, aWords, ValueRange{rIdx, q});
                    Value aVec = bytes(vector::BroadcastOp::create(kb, loc, vecType, word));
                    for (int64_t j = 0; j < width; ++j)
                      next.push_back(LLVM::CallIntrinsicOp::create(
                                         kb, loc, vecType,
                                         kb.getStringAttr("llvm.x86.avx512.vpdpbusd.512"),
                                         ValueRange{accIn[r * width + j], aVec, bVecs[j]})
                                         .getResult(0));
                  }
                  scf::YieldOp::create(kb, loc, next);
                });
            Value out = cIn[0];
            for (int64_t r = 0; r < rows; ++r) {
              Value rIdx = arith::AddIOp::create(lb, loc, row, idx(lb, r));
              for (int64_t j = 0; j < width; ++j)
                out = vector::TransferWriteOp::create(lb, loc, kLoop.getResult(r * width + j),
                                                      out, ValueRange{rIdx, column[j]},
                                                      ArrayRef<bool>{true})
                          .getResult();
            }
            scf::YieldOp::create(lb, loc, out);
          });
      return loop.getResult(0);
    };
    int64_t full = m / kRows * kRows;
    auto allRows = [&](OpBuilder &b, Value p, Value c, int64_t width) {
      c = rowTiles(b, p, c, 0, full, kRows, width);
      return rowTiles(b, p, c, full, m, 1, width);
    };

    // Pairs of panels (16 accumulators of 8 x 32), in parallel; an odd last panel alone.
    Value c = tensor::EmptyOp::create(builder, loc, ct.getShape(), i32);
    if (int64_t pairs = panels / kPanelsPerTile) {
      auto pairLoop = scf::ForOp::create(
          builder, loc, idx(builder, 0), idx(builder, pairs), idx(builder, 1), ValueRange{c},
          [&](OpBuilder &pb, Location, Value pair, ValueRange cIn) {
            Value p = arith::MulIOp::create(pb, loc, pair, idx(pb, kPanelsPerTile));
            scf::YieldOp::create(pb, loc, allRows(pb, p, cIn[0], kPanelsPerTile));
          });
      // Column blocks of C are independent: the session's threads share them out.
      pairLoop->setAttr("infc.parallel", builder.getUnitAttr());
      c = pairLoop.getResult(0);
    }
    for (int64_t p = panels / kPanelsPerTile * kPanelsPerTile; p < panels; ++p)
      c = allRows(builder, idx(builder, p), c, 1);
    op.getResult(0).replaceAllUsesWith(c);
    op.erase();
  }

  /// A [M, K] i8 as [M, ceil(K/4)] i32 words of four K-consecutive bytes, as u8 (a signed A
  /// offset by 128: the byte xor 0x80); bytes past K are zero (they meet zero weights).
  Value packA(OpBuilder &b, Location loc, Value a, int64_t m, int64_t k, int64_t words,
              bool isSigned) {
    Type i8 = b.getI8Type(), i32 = b.getI32Type();
    if (words * 4 != k) {
      auto padded = RankedTensorType::get({m, words * 4}, i8);
      SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(0)};
      SmallVector<OpFoldResult> high = {b.getIndexAttr(0), b.getIndexAttr(words * 4 - k)};
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(i8));
      a = tensor::PadOp::create(b, loc, padded, a, low, high, zero);
    }
    auto grouped = RankedTensorType::get({m, words, 4}, i8);
    a = tensor::ExpandShapeOp::create(b, loc, grouped, a,
                                      SmallVector<ReassociationIndices>{{0}, {1, 2}});
    Value init = tensor::EmptyOp::create(b, loc, {m, words}, i32);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(i32));
    init = linalg::FillOp::create(b, loc, zero, init).getResult(0);
    MLIRContext *ctx = b.getContext();
    AffineMap in = AffineMap::getMultiDimIdentityMap(3, ctx);
    AffineMap out = AffineMap::get(3, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)},
                                   ctx);
    SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel,
                                                  utils::IteratorType::parallel,
                                                  utils::IteratorType::reduction};
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, ValueRange{a}, ValueRange{init},
               SmallVector<AffineMap>{in, out}, iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value byte = args[0];
                 if (isSigned)
                   byte = arith::XOrIOp::create(
                       nb, l, byte, arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(-128)));
                 Value wide = arith::ExtUIOp::create(nb, l, i32, byte);
                 Value t = arith::IndexCastOp::create(nb, l, i32, linalg::IndexOp::create(nb, l, 2));
                 Value shift = arith::MulIOp::create(
                     nb, l, t, arith::ConstantOp::create(nb, l, nb.getI32IntegerAttr(8)));
                 Value placed = arith::ShLIOp::create(nb, l, wide, shift);
                 linalg::YieldOp::create(nb, l, arith::OrIOp::create(nb, l, args[1], placed).getResult());
               })
        .getResult(0);
  }
};
} // namespace

//===- Bf16Matmul.cpp - f32 matmuls with constant weights on AMX-BF16 -----===//
//
// --precision bf16 on a CPU with AMX-BF16. tdpbf16ps multiplies a 16x32 bf16 tile of A by
// a 16x32 bf16 tile of B (row q: two K-consecutive values of each of 16 columns) into a
// 16x16 f32 tile: 8192 multiply-adds an instruction, where a zmm FMA does 16. Products of
// two bf16 values are exact in f32 and the sums stay f32, so the error is the operands'
// rounding to bf16 (8 significand bits, a relative 2^-9 at most each); everything around
// the products (bias, activations, normalizations, softmax, the residual stream) stays f32.
//
// B is rounded and packed at compile time; A is rounded at run time by an elementwise
// generic that infc-vectorize-elementwise turns into vcvtneps2bf16, unless it is already an
// extension of bf16 values (a convolution's im2col rows, gathered in bf16 by
// convert-infc-to-linalg), which are read as they are.
//
// Without AMX (`kernel=vdpbf16ps`: AVX512_BF16 alone, as Zen 4 and Cooper Lake have it), the
// same packed B feeds a register kernel: vdpbf16ps adds to each of 16 f32 lanes the products
// of two bf16 pairs (B's two K-consecutive values of one column, and A's of one row,
// broadcast), 32 multiply-adds an instruction, twice a zmm FMA's on Zen 4 (the same as two
// FMA ports on Intel cores, where the gain is the halved bytes).
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"
#include "infc/Support/Choices.h"

#include "AmxProduct.h"
#include "PanelKernel.h"
#include "TileUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

namespace infc {
#define GEN_PASS_DEF_INFCBF16MATMUL
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
constexpr int64_t kRows = 16;   // rows of an AMX tile, and columns of a B panel
constexpr int64_t kPerRow = 32; // bf16 values of a 64-byte tile row: the K step

/// `x` rounded to the nearest bf16, ties to even (as vcvtneps2bf16 rounds A); NaN stays a
/// quiet NaN of its sign.
uint16_t roundToBf16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

/// The bf16 tensor `v` is an `arith.extf` of, by an elementwise generic (through a collapse
/// of it: a convolution's im2col rows, reshaped to [pixels, K]), or null.
Value extendedFromBf16(OpBuilder &b, Value v) {
  if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>()) {
    Value narrow = extendedFromBf16(b, collapse.getSrc());
    if (!narrow)
      return Value();
    b.setInsertionPoint(collapse);
    return tensor::CollapseShapeOp::create(b, collapse.getLoc(),
                                           collapse.getResultType().clone(b.getBF16Type()), narrow,
                                           collapse.getReassociationIndices());
  }
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !llvm::all_of(g.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
    return Value();
  Value in = g.getDpsInputOperand(0)->get();
  Block &body = g.getRegion().front();
  if (!getElementTypeOrSelf(in.getType()).isBF16() || body.getOperations().size() != 2)
    return Value();
  auto ext = dyn_cast<arith::ExtFOp>(body.front());
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!ext || ext.getIn() != body.getArgument(0) || yield.getOperand(0) != ext.getResult())
    return Value();
  return in;
}

constexpr int64_t kTileRows = 8; // vdpbf16ps: rows x 2 panels of 16 f32 accumulators
/// A batched matmul of two activations (attention's QK^T and PV) takes bf16 from this many
/// rows: B is rounded and packed at run time, K x N values for M x K x N multiply-adds.
constexpr int64_t kRuntimePackMinRows = 16;

/// `v` [dims...] f32 rounded to bf16 by an elementwise generic.
Value roundToBf16Values(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  auto narrowType = type.clone(b.getBF16Type());
  Value init = tensor::EmptyOp::create(b, loc, narrowType.getShape(), b.getBF16Type());
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{narrowType}, ValueRange{v}, ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value narrow = arith::TruncFOp::create(nb, l, nb.getBF16Type(), args[0]);
               linalg::YieldOp::create(nb, l, narrow);
             })
      .getResult(0);
}

/// `v` zero-padded at the end of each dim to `shape`.
Value padTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  SmallVector<OpFoldResult> low(shape.size(), b.getIndexAttr(0)), high;
  for (auto [have, want] : llvm::zip(type.getShape(), shape))
    high.push_back(b.getIndexAttr(want - have));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  return tensor::PadOp::create(b, loc, type.clone(shape), v, low, high, zero);
}

struct InfcBf16MatmulPass : public infc::impl::InfcBf16MatmulBase<InfcBf16MatmulPass> {
  using InfcBf16MatmulBase::InfcBf16MatmulBase;
  void runOnOperation() override {
    if (kernel != "amx" && kernel != "vdpbf16ps") {
      getOperation().emitError("infc-bf16-matmul: kernel must be amx or vdpbf16ps, not '")
          << kernel << "'";
      return signalPassFailure();
    }
    for (linalg::MatmulOp op : infc::plainContractions<linalg::MatmulOp>(getOperation()))
      rewrite(op, kernel == "amx");
    for (auto op : infc::plainContractions<linalg::BatchMatmulOp>(getOperation()))
      rewriteBatched(op, kernel == "amx");
  }

  /// C [batch, M, N] = A [batch, M, K] x B [batch, K, N], both f32 activations (attention's
  /// products): A rounded to bf16 and B rounded and packed as B tiles at run time, for the
  /// whole batch at once, then a loop over the batch of the kernel's product, each marked
  /// `infc.parallel` inside as a single matmul's is.
  static void rewriteBatched(linalg::BatchMatmulOp op, bool amx) {
    auto ct = cast<RankedTensorType>(op.getResult(0).getType());
    auto bt = cast<RankedTensorType>(op.getInputs()[1].getType());
    if (!ct.getElementType().isF32() || !getElementTypeOrSelf(op.getInputs()[0]).isF32() ||
        !bt.getElementType().isF32() || !infc::isZeroFill(op.getOutputs()[0]))
      return;
    int64_t batch = ct.getDimSize(0), m = ct.getDimSize(1), n = ct.getDimSize(2),
            k = bt.getDimSize(1);
    if (batch == 0 || m < kRuntimePackMinRows || n == 0 || k < infc::kBf16MinReduction)
      return;
    int64_t mp = amx ? llvm::alignTo(m, kRows) : m, kp = llvm::alignTo(k, kPerRow),
            panels = llvm::divideCeil(n, kRows);
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type f32 = b.getF32Type(), bf16 = b.getBF16Type();
    Value rows = padTo(b, loc, roundToBf16Values(b, loc, op.getInputs()[0]), {batch, mp, kp});
    // B [batch, kp, panels x 16] as tiles [batch, panels, kp/2, 16, 2]: value t of column j
    // of row q of panel p is B[2q + t][16p + j].
    Value wide = padTo(b, loc, op.getInputs()[1], {batch, kp, panels * kRows});
    MLIRContext *ctx = b.getContext();
    AffineExpr bi, p, q, j, t;
    bindDims(ctx, bi, p, q, j, t);
    auto tilesType = RankedTensorType::get({batch, panels, kp / 2, kRows, 2}, bf16);
    SmallVector<AffineMap> maps = {AffineMap::get(5, 0, {bi, q * 2 + t, p * kRows + j}, ctx),
                                   AffineMap::getMultiDimIdentityMap(5, ctx)};
    Value tiles = linalg::GenericOp::create(
                      b, loc, TypeRange{tilesType}, ValueRange{wide},
                      ValueRange{tensor::EmptyOp::create(b, loc, tilesType.getShape(), bf16)}, maps,
                      SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
                      [&](OpBuilder &nb, Location l, ValueRange args) {
                        linalg::YieldOp::create(
                            nb, l, arith::TruncFOp::create(nb, l, bf16, args[0]).getResult());
                      })
                      .getResult(0);
    Value packed = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({batch, panels, kp / 2, 2 * kRows}, bf16), tiles,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
    auto idx = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
    auto productType = RankedTensorType::get({batch, mp, panels * kRows}, f32);
    Value init = tensor::EmptyOp::create(b, loc, productType.getShape(), f32);
    auto loop = scf::ForOp::create(b, loc, idx(0), idx(batch), idx(1), ValueRange{init});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value i = loop.getInductionVar(), acc = loop.getRegionIterArgs()[0];
      auto slice = [&](Value from, ArrayRef<int64_t> shape) -> Value {
        auto fromType = cast<RankedTensorType>(from.getType());
        SmallVector<OpFoldResult> offsets(fromType.getRank(), b.getIndexAttr(0));
        offsets[0] = i;
        SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
        for (int64_t d : shape)
          sizes.push_back(b.getIndexAttr(d));
        SmallVector<OpFoldResult> strides(fromType.getRank(), b.getIndexAttr(1));
        return tensor::ExtractSliceOp::create(
            b, loc, RankedTensorType::get(shape, fromType.getElementType()), from, offsets, sizes,
            strides);
      };
      Value aRows = slice(rows, {mp, kp});
      Value bTiles = slice(packed, {panels, kp / 2, 2 * kRows});
      Value product =
          amx ? amxProduct(b, loc, aRows, bTiles) : registerKernel(b, loc, aRows, bTiles);
      SmallVector<OpFoldResult> offsets = {i, b.getIndexAttr(0), b.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(mp),
                                         b.getIndexAttr(panels * kRows)};
      SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
      Value updated = tensor::InsertSliceOp::create(b, loc, product, acc, offsets, sizes, strides);
      scf::YieldOp::create(b, loc, updated);
    }
    op.getResult(0).replaceAllUsesWith(infc::leadingBlock(b, loc, loop.getResult(0), ct));
    op.erase();
  }

  static void rewrite(linalg::MatmulOp op, bool amx) {
    auto ct = cast<RankedTensorType>(op.getResult(0).getType());
    DenseElementsAttr weights;
    if (!ct.getElementType().isF32() || !getElementTypeOrSelf(op.getInputs()[0]).isF32() ||
        !matchPattern(op.getInputs()[1], m_Constant(&weights)) ||
        !weights.getElementType().isF32() || !infc::isZeroFill(op.getOutputs()[0]))
      return;
    int64_t m = ct.getDimSize(0), n = ct.getDimSize(1);
    int64_t k = cast<RankedTensorType>(weights.getType()).getDimSize(0);
    // (The register kernel takes any number of rows.)
    int64_t mp = amx ? llvm::alignTo(m, kRows) : m, kp = llvm::alignTo(k, kPerRow),
            panels = llvm::divideCeil(n, kRows);
    if (m == 0 || n == 0 || k < infc::kBf16MinReduction)
      return;
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value a = extendedFromBf16(b, op.getInputs()[0]);
    b.setInsertionPoint(op);
    if (!a)
      a = roundToBf16Values(b, loc, op.getInputs()[0]);
    Value rows = padTo(b, loc, a, {mp, kp}), packed = packWeights(b, loc, weights, kp);
    Value product = amx ? amxProduct(b, loc, rows, packed) : registerKernel(b, loc, rows, packed);
    op.getResult(0).replaceAllUsesWith(infc::leadingBlock(b, loc, product, ct));
    op.erase();
  }

  /// C [M, panels x 16] f32 = A [M, kp] bf16 x B tiles [panels, kp/2, 32] bf16 on
  /// vdpbf16ps: a loop over pairs of panels (or, with fewer than four pairs and more row
  /// tiles, over each pair's row tiles) marked `infc.parallel`, tiles of 8 rows x 2 panels
  /// (16 accumulators; then single rows; an odd last panel alone), per K pair two panel
  /// loads and a broadcast of each row's pair feeding the multiply-adds.
  static Value registerKernel(OpBuilder &builder, Location loc, Value a, Value bTiles) {
    auto at = cast<RankedTensorType>(a.getType());
    int64_t m = at.getDimSize(0), words = at.getDimSize(1) / 2;
    int64_t panels = cast<RankedTensorType>(bTiles.getType()).getDimSize(0);
    Type f32 = builder.getF32Type(), bf16 = builder.getBF16Type();
    auto accType = VectorType::get({kRows}, f32);
    auto operandType = VectorType::get({2 * kRows}, bf16);
    auto idx = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value zeroAcc = arith::ConstantOp::create(
        builder, loc, DenseElementsAttr::get(accType, builder.getF32FloatAttr(0)));
    // Row `row`'s K pair q (one 32-bit word) in every lane.
    auto broadcastPair = [&](OpBuilder &b, Value row, Value q) -> Value {
      Value k = arith::MulIOp::create(b, loc, q, idx(b, 2));
      Value pair =
          vector::TransferReadOp::create(b, loc, VectorType::get({2}, bf16), a, ValueRange{row, k},
                                         std::optional<Value>(), ArrayRef<bool>{true});
      Value word = vector::BitCastOp::create(b, loc, VectorType::get({1}, b.getI32Type()), pair);
      Value scalar = vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
      Value lanes =
          vector::BroadcastOp::create(b, loc, VectorType::get({kRows}, b.getI32Type()), scalar);
      return vector::BitCastOp::create(b, loc, operandType, lanes);
    };
    infc::PanelKernelSteps steps;
    steps.words = words;
    auto columnStart = [&](OpBuilder &, Value) { return zeroAcc; };
    auto panelWords = [&](OpBuilder &b, Value panel, Value q) -> Value {
      return vector::TransferReadOp::create(b, loc, operandType, bTiles,
                                            ValueRange{panel, q, idx(b, 0)}, std::optional<Value>(),
                                            ArrayRef<bool>{true});
    };
    auto multiplyAdd = [&](OpBuilder &b, Value acc, Value pairs, Value panel) -> Value {
      return LLVM::CallIntrinsicOp::create(b, loc, accType,
                                           b.getStringAttr("llvm.x86.avx512bf16.dpbf16ps.512"),
                                           ValueRange{acc, pairs, panel})
          .getResult(0);
    };
    steps.columnStart = columnStart;
    steps.panelWords = panelWords;
    steps.rowWord = broadcastPair;
    steps.multiplyAdd = multiplyAdd;
    Value c = tensor::EmptyOp::create(builder, loc, {m, panels * kRows}, f32);
    return infc::panelKernel(builder, loc, steps, c, kTileRows, panels);
  }

  /// B [K, N] f32 as AMX B tiles of bf16: [ceil(N/16), kp/2, 32], value 2j + t of row q
  /// holding B[2q + t][16p + j] (zero past K and N).
  static Value packWeights(OpBuilder &b, Location loc, DenseElementsAttr weights, int64_t kp) {
    auto type = cast<RankedTensorType>(weights.getType());
    int64_t k = type.getDimSize(0), n = type.getDimSize(1), panels = llvm::divideCeil(n, kRows);
    std::vector<uint16_t> packed(panels * kp * kRows, 0);
    auto values = weights.getValues<float>();
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < n; ++c)
        packed[((c / kRows * (kp / 2) + r / 2) * kRows + c % kRows) * 2 + r % 2] =
            roundToBf16(values[r * n + c]);
    auto packedType = RankedTensorType::get({panels, kp / 2, 2 * kRows}, b.getBF16Type());
    ArrayRef<char> raw(reinterpret_cast<const char *>(packed.data()),
                       packed.size() * sizeof(uint16_t));
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::getFromRawBuffer(packedType, raw));
  }

  /// C [mp, panels x 16] f32 = A [mp, kp] bf16 x B tiles [panels, kp/2, 32] bf16
  /// (buildAmxProduct's generic, two bf16 a word), summed in f32.
  static Value amxProduct(OpBuilder &b, Location loc, Value a, Value bTiles) {
    Type f32 = b.getF32Type();
    return infc::buildAmxProduct(
        b, loc, a, bTiles, /*perWord=*/2, f32,
        [&](OpBuilder &nb, Location l, Value x, Value y, Value acc) -> Value {
          Value wideX = arith::ExtFOp::create(nb, l, f32, x);
          Value wideY = arith::ExtFOp::create(nb, l, f32, y);
          return arith::AddFOp::create(nb, l, arith::MulFOp::create(nb, l, wideX, wideY), acc);
        });
  }
};
} // namespace

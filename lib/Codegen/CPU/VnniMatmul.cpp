//===- VnniMatmul.cpp - i8 matmuls on VNNI (vpdpbusd), or vpmaddwd ---------===//
//
// vpdpbusd adds to each of 16 i32 lanes the dot product of four unsigned bytes of one
// operand with four signed bytes of the other: 64 multiply-adds per instruction, four times
// the lanes of an f32 FMA. The integer matmuls of quantized models (A: i8 activations
// extended to i32, B: constant weights with the zero point folded in) fit it when B's
// values are s8: B is packed at compile time into words of four K-consecutive bytes per
// column, A at run time into words of four K-consecutive u8 (a signed A offset by 128, the
// offset taken back by starting each accumulator from -128 x its column's sum of B).
//
// Without VNNI (AVX2, or AVX-512BW), the same kernel runs on vpmaddwd: words of two
// K-consecutive bytes extended to i16, two exact multiply-adds per i32 lane and a vpaddd.
// vpmaddubsw would take the bytes as they are, but it saturates its i16 pair sums
// (255 x 127 x 2 > 32767), so results would stop being exact; i16 pairs never overflow.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"

#include "AmxProduct.h"
#include "PanelKernel.h"
#include "TileUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

namespace infc {
#define GEN_PASS_DEF_INFCVNNIMATMUL
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
constexpr int64_t kLanes = 16;        // i32 lanes of a zmm register: the columns of an AMX panel
constexpr int64_t kAmxRows = 16;      // rows of an AMX tile
constexpr int64_t kAmxBytes = 64;     // bytes of an AMX tile row: the K step
constexpr int64_t kAmxMaxSteps = 256; // K steps the unrolled AMX kernel takes (K <= 16384)

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

/// Through collapses (matmul lowering folds a batch into M) and slices (generic code's
/// blocks of rows) of the extension: the same views of the i8 tensor.
std::optional<std::pair<Value, bool>> extendedFromI8ThroughViews(OpBuilder &b, Value v) {
  if (auto r = v.getDefiningOp<tensor::CollapseShapeOp>()) {
    std::optional<std::pair<Value, bool>> src = extendedFromI8ThroughViews(b, r.getSrc());
    if (!src)
      return std::nullopt;
    auto type = r.getResultType().clone(b.getI8Type());
    b.setInsertionPoint(r);
    Value narrow = tensor::CollapseShapeOp::create(b, r.getLoc(), type, src->first,
                                                   r.getReassociationIndices());
    return std::make_pair(narrow, src->second);
  }
  if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
    std::optional<std::pair<Value, bool>> src = extendedFromI8ThroughViews(b, slice.getSource());
    if (!src)
      return std::nullopt;
    b.setInsertionPoint(slice);
    Value narrow = tensor::ExtractSliceOp::create(
        b, slice.getLoc(), slice.getType().clone(b.getI8Type()), src->first,
        slice.getMixedOffsets(), slice.getMixedSizes(), slice.getMixedStrides());
    return std::make_pair(narrow, src->second);
  }
  return extendedFromI8(v);
}

/// The s8 values of a constant i32 matrix, or nullopt if one is out of range.
std::optional<std::vector<int64_t>> s8Values(DenseElementsAttr weights) {
  std::vector<int64_t> out;
  out.reserve(weights.getNumElements());
  for (const APInt &v : weights.getValues<APInt>()) {
    int64_t x = v.getSExtValue();
    if (x < -128 || x > 127)
      return std::nullopt; // not an s8 weight: the i32 kernel computes it
    out.push_back(x);
  }
  return out;
}

/// The register kernel's multiply-add instruction and the shapes that follow from it.
struct Madd {
  bool vnni = true;   // vpdpbusd: four u8 x s8 per i32 lane; else vpmaddwd: two i16 x i16
  int64_t lanes = 16; // i32 lanes of a vector: the columns of one panel
  int64_t rows = 8;   // rows of a register tile: rows x 2 accumulators
  /// Operand values per i32 word (and K steps per instruction).
  int64_t perWord() const { return vnni ? 4 : 2; }
};

/// What one register kernel multiplies: per K word, `rows` broadcast words times panel
/// vectors of `lanes` words. For vpdpbusd one operand is u8 (run time activations), the
/// other s8 (the weights); for vpmaddwd both are i16 pairs, signed or not alike.
struct KernelOperands {
  Value broadcast;        // [rows, words] i32
  Value panels;           // [panels, words, lanes] i32
  Value columnStart;      // [panels, lanes] i32: accumulator start per column, or null
  Value rowStart;         // [rows] i32: accumulator start per row, or null
  bool panelsAreUnsigned; // the u8 operand: the panels, else the broadcast words
  int64_t rows, numPanels, words;
};

struct InfcVnniMatmulPass : public infc::impl::InfcVnniMatmulBase<InfcVnniMatmulPass> {
  using InfcVnniMatmulBase::InfcVnniMatmulBase;
  Madd madd;
  void runOnOperation() override {
    if (kernel != "vpdpbusd" && kernel != "vpmaddwd") {
      getOperation().emitError("infc-vnni-matmul: kernel must be vpdpbusd or vpmaddwd, not '")
          << kernel << "'";
      return signalPassFailure();
    }
    madd.vnni = kernel == "vpdpbusd";
    if (vectorBits != 256 && vectorBits != 512) {
      getOperation().emitError("infc-vnni-matmul: vector-bits must be 256 or 512, not ")
          << static_cast<int64_t>(vectorBits);
      return signalPassFailure();
    }
    if (amx && (!madd.vnni || vectorBits != 512)) {
      getOperation().emitError("infc-vnni-matmul: amx takes kernel=vpdpbusd vector-bits=512 "
                               "(its fallback for long K)");
      return signalPassFailure();
    }
    madd.lanes = vectorBits / 32;
    // 16 zmm accumulators of 32 registers; 12 ymm of 16 (2 B vectors, a broadcast and
    // vpmaddwd's product take the rest).
    madd.rows = madd.lanes == 16 ? 8 : 6;
    for (linalg::MatmulOp op : infc::plainContractions<linalg::MatmulOp>(getOperation()))
      rewrite(op);
  }

  void rewrite(linalg::MatmulOp op) {
    auto ct = cast<RankedTensorType>(op.getResult(0).getType());
    if (!ct.getElementType().isInteger(32))
      return;
    OpBuilder builder(op);
    Location loc = op.getLoc();
    int64_t m = ct.getDimSize(0), n = ct.getDimSize(1);
    DenseElementsAttr weights;
    if (matchPattern(op.getInputs()[1], m_Constant(&weights))) {
      // C = ext(A) x B: B's columns are the panels (a fully connected layer, a matmul).
      std::optional<std::pair<Value, bool>> lhs =
          extendedFromI8ThroughViews(builder, op.getInputs()[0]);
      builder.setInsertionPoint(op);
      int64_t k = cast<RankedTensorType>(weights.getType()).getDimSize(0);
      std::optional<std::vector<int64_t>> b = s8Values(weights);
      if (!lhs || !b || m == 0 || k == 0)
        return;
      auto [a, isSigned] = *lhs;
      if (amx && amxFits(k)) {
        // Columns past N are zero weights; their results are sliced off.
        int64_t mp = roundUp(m, kAmxRows), kp = roundUp(k, kAmxBytes);
        int64_t panels = roundUp(n, kLanes) / kLanes;
        Value c = amxProduct(
            builder, loc, padBytes(builder, loc, a, mp, kp), !isSigned,
            byteConstant(builder, loc, {panels, kp / 4, 4 * kLanes}, packPanelBytes(*b, k, n, kp)),
            /*bUnsigned=*/false);
        replace(builder, op, c, ct);
        return;
      }
      if (n % madd.lanes)
        return; // the i32 kernel takes widths no panel divides
      int64_t panels = n / madd.lanes, words = llvm::divideCeil(k, madd.perWord());
      KernelOperands kernel{nullptr, nullptr, nullptr, nullptr, false, m, panels, words};
      kernel.panels =
          constant(builder, loc, {panels, words, madd.lanes}, packPanels(*b, k, n, words));
      if (madd.vnni && isSigned) {
        std::vector<int32_t> start(n, 0);
        for (int64_t c = 0; c < n; ++c) {
          int64_t sum = 0;
          for (int64_t r = 0; r < k; ++r)
            sum += (*b)[r * n + c];
          start[c] = (int32_t)(-128 * sum);
        }
        kernel.columnStart = constant(builder, loc, {panels, madd.lanes}, start);
      }
      kernel.broadcast = packA(builder, loc, a, m, k, words, isSigned);
      replace(builder, op, emitKernel(builder, loc, kernel), ct);
      return;
    }
    if (matchPattern(op.getInputs()[0], m_Constant(&weights))) {
      // C = A x ext(B) with constant A: a convolution's W x im2col. The columns of B are
      // the panels, packed at run time (zero-padded to whole panels); A's rows broadcast.
      std::optional<std::pair<Value, bool>> rhs =
          extendedFromI8ThroughViews(builder, op.getInputs()[1]);
      builder.setInsertionPoint(op);
      int64_t k = cast<RankedTensorType>(weights.getType()).getDimSize(1);
      std::optional<std::vector<int64_t>> a = s8Values(weights);
      if (!rhs || !a || m == 0 || k == 0 || n == 0)
        return;
      auto [bIn, isSigned] = *rhs;
      if (amx && amxFits(k)) {
        int64_t mp = roundUp(m, kAmxRows), kp = roundUp(k, kAmxBytes);
        int64_t panels = roundUp(n, kLanes) / kLanes;
        std::vector<int8_t> rows(mp * kp, 0);
        for (int64_t r = 0; r < m; ++r)
          for (int64_t q = 0; q < k; ++q)
            rows[r * kp + q] = (int8_t)(*a)[r * k + q];
        Value c = amxProduct(builder, loc, byteConstant(builder, loc, {mp, kp}, rows),
                             /*aUnsigned=*/false,
                             packColumns(builder, loc, bIn, k, n, kLanes, panels, kp / 4,
                                         /*flipSign=*/false, /*asBytes=*/true),
                             !isSigned);
        replace(builder, op, c, ct);
        return;
      }
      int64_t per = madd.perWord();
      int64_t panels = llvm::divideCeil(n, madd.lanes), words = llvm::divideCeil(k, per);
      KernelOperands kernel{nullptr, nullptr, nullptr, nullptr, true, m, panels, words};
      std::vector<int32_t> aWords(m * words, 0), start(m, 0);
      for (int64_t r = 0; r < m; ++r) {
        int64_t sum = 0;
        for (int64_t q = 0; q < words; ++q) {
          std::vector<int64_t> values;
          for (int64_t t = 0; t < per && per * q + t < k; ++t)
            values.push_back((*a)[r * k + per * q + t]);
          aWords[r * words + q] = packWord(values);
          for (int64_t v : values)
            sum += v;
        }
        start[r] = isSigned ? (int32_t)(-128 * sum) : 0;
      }
      kernel.broadcast = constant(builder, loc, {m, words}, aWords);
      if (madd.vnni && isSigned)
        kernel.rowStart = constant(builder, loc, {m}, start);
      kernel.panels = madd.vnni ? packColumns(builder, loc, bIn, k, n, madd.lanes, panels, words,
                                              isSigned, false)
                                : packColumnPairs(builder, loc, bIn, k, n, panels, words, isSigned);
      replace(builder, op, emitKernel(builder, loc, kernel), ct);
    }
  }

  static int64_t roundUp(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

  /// One kernel word of K-consecutive s8 values (fewer past K: zero), little-endian: bytes
  /// for vpdpbusd, i16 halves for vpmaddwd.
  int32_t packWord(ArrayRef<int64_t> values) const {
    unsigned bits = 32 / madd.perWord();
    uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1, word = 0;
    for (auto [t, v] : llvm::enumerate(values))
      word |= ((uint32_t)v & mask) << (bits * t);
    return (int32_t)word;
  }

  /// AMX runs K in tiles of 64 bytes, unrolled (a K loop would carry tiles through a phi).
  static bool amxFits(int64_t k) { return roundUp(k, kAmxBytes) / kAmxBytes <= kAmxMaxSteps; }

  /// `c` [>= M, >= N] as the matmul's result (its top-left corner).
  static void replace(OpBuilder &b, linalg::MatmulOp op, Value c, RankedTensorType ct) {
    if (cast<RankedTensorType>(c.getType()) != ct) {
      SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = {b.getIndexAttr(ct.getDimSize(0)),
                                         b.getIndexAttr(ct.getDimSize(1))};
      SmallVector<OpFoldResult> steps(2, b.getIndexAttr(1));
      c = tensor::ExtractSliceOp::create(b, op.getLoc(), ct, c, offsets, sizes, steps);
    }
    op.getResult(0).replaceAllUsesWith(c);
    op.erase();
  }

  static Value byteConstant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                            ArrayRef<int8_t> values) {
    return denseConstant(b, loc, RankedTensorType::get(shape, b.getI8Type()), values);
  }

  template <typename T>
  static Value denseConstant(OpBuilder &b, Location loc, RankedTensorType type,
                             ArrayRef<T> values) {
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
  }

  /// B [K, N] s8 as AMX B tiles: [ceil(N/16), kp/4, 64] bytes, byte 4j + t of row q holding
  /// B[4q + t][16p + j] (zero past K and N).
  static std::vector<int8_t> packPanelBytes(ArrayRef<int64_t> b, int64_t k, int64_t n, int64_t kp) {
    int64_t panels = roundUp(n, kLanes) / kLanes, words = kp / 4;
    std::vector<int8_t> packed(panels * words * 4 * kLanes, 0);
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < n; ++c)
        packed[((c / kLanes * words + r / 4) * kLanes + c % kLanes) * 4 + r % 4] =
            (int8_t)b[r * n + c];
    return packed;
  }

  /// An [M, K] byte tensor zero-padded to [mp, kp].
  static Value padBytes(OpBuilder &b, Location loc, Value a, int64_t mp, int64_t kp) {
    auto type = cast<RankedTensorType>(a.getType());
    if (type.getDimSize(0) == mp && type.getDimSize(1) == kp)
      return a;
    SmallVector<OpFoldResult> low(2, b.getIndexAttr(0));
    SmallVector<OpFoldResult> high = {b.getIndexAttr(mp - type.getDimSize(0)),
                                      b.getIndexAttr(kp - type.getDimSize(1))};
    Value zero = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
    return tensor::PadOp::create(b, loc, RankedTensorType::get({mp, kp}, b.getI8Type()), a, low,
                                 high, zero);
  }

  /// C [mp, panels x 16] i32 = A [mp, kp] bytes x B tiles [panels, kp/4, 64] bytes, each
  /// side zero- or sign-extended (buildAmxProduct's generic, four bytes a word).
  static Value amxProduct(OpBuilder &b, Location loc, Value a, bool aUnsigned, Value bTiles,
                          bool bUnsigned) {
    Type i32 = b.getI32Type();
    auto extend = [&](OpBuilder &nb, Location l, Value v, bool isUnsigned) -> Value {
      if (isUnsigned)
        return arith::ExtUIOp::create(nb, l, i32, v);
      return arith::ExtSIOp::create(nb, l, i32, v);
    };
    return infc::buildAmxProduct(
        b, loc, a, bTiles, /*perWord=*/4, i32,
        [&](OpBuilder &nb, Location l, Value x, Value y, Value acc) -> Value {
          Value wideX = extend(nb, l, x, aUnsigned), wideY = extend(nb, l, y, bUnsigned);
          return arith::AddIOp::create(nb, l, arith::MulIOp::create(nb, l, wideX, wideY), acc);
        });
  }

  static Value constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        ArrayRef<int32_t> values) {
    return denseConstant(b, loc, RankedTensorType::get(shape, b.getI32Type()), values);
  }

  /// Bp[p][q][j]: the word of B[w q .. w q + w-1][L p + j] (w values a word, L lanes).
  std::vector<int32_t> packPanels(ArrayRef<int64_t> b, int64_t k, int64_t n, int64_t words) const {
    int64_t lanes = madd.lanes, per = madd.perWord(), panels = n / lanes;
    std::vector<int32_t> packed(panels * words * lanes);
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t q = 0; q < words; ++q)
        for (int64_t j = 0; j < lanes; ++j) {
          std::vector<int64_t> values;
          for (int64_t t = 0; t < per && per * q + t < k; ++t)
            values.push_back(b[(per * q + t) * n + p * lanes + j]);
          packed[(p * words + q) * lanes + j] = packWord(values);
        }
    return packed;
  }

  /// acc + the products of one K word: vpdpbusd(acc, u8, s8), or acc + vpmaddwd(a, b).
  Value multiplyAdd(OpBuilder &b, Location loc, Value acc, Value u8, Value s8) const {
    auto vecType = cast<VectorType>(acc.getType());
    // The intrinsics take their narrow operands as vectors of them.
    Type narrow = madd.vnni ? b.getI8Type() : b.getI16Type();
    auto narrowType = VectorType::get({madd.perWord() * madd.lanes}, narrow);
    auto view = [&](Value v) {
      return vector::BitCastOp::create(b, loc, narrowType, v).getResult();
    };
    // The 256-bit vpdpbusd is AVX512-VL's or AVX-VNNI's (VEX) encoding, as the target has.
    if (madd.vnni)
      return LLVM::CallIntrinsicOp::create(b, loc, vecType,
                                           b.getStringAttr(madd.lanes == 16
                                                               ? "llvm.x86.avx512.vpdpbusd.512"
                                                               : "llvm.x86.avx512.vpdpbusd.256"),
                                           ValueRange{acc, view(u8), view(s8)})
          .getResult(0);
    StringRef name = madd.lanes == 16 ? "llvm.x86.avx512.pmaddw.d.512" : "llvm.x86.avx2.pmadd.wd";
    Value products = LLVM::CallIntrinsicOp::create(b, loc, vecType, b.getStringAttr(name),
                                                   ValueRange{view(u8), view(s8)})
                         .getResult(0);
    return arith::AddIOp::create(b, loc, acc, products);
  }

  /// The tiles: a loop over pairs of panels (the pairs or the row tiles of each in
  /// parallel: below), `rows` x 2-panel register tiles (then single rows), per K word 2
  /// panel loads and `rows` broadcasts feeding 2 x `rows` multiply-adds. Returns C
  /// [rows, panels * lanes].
  Value emitKernel(OpBuilder &builder, Location loc, const KernelOperands &kernel) {
    Type i32 = builder.getI32Type();
    int64_t m = kernel.rows, panels = kernel.numPanels, words = kernel.words;
    int64_t lanes = madd.lanes;
    auto vecType = VectorType::get({lanes}, i32);
    auto idx = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto read = [&](OpBuilder &b, Value source, ValueRange indices) -> Value {
      return vector::TransferReadOp::create(b, loc, vecType, source, indices,
                                            std::optional<Value>(), ArrayRef<bool>{true});
    };
    Value zeroVec = arith::ConstantOp::create(
        builder, loc, DenseElementsAttr::get(vecType, builder.getI32IntegerAttr(0)));
    infc::PanelKernelSteps steps;
    steps.lanes = lanes;
    steps.words = words;
    auto columnStart = [&](OpBuilder &b, Value panel) -> Value {
      return kernel.columnStart ? read(b, kernel.columnStart, {panel, idx(b, 0)}) : zeroVec;
    };
    auto rowStart = [&](OpBuilder &b, Value row) -> Value {
      Value s = tensor::ExtractOp::create(b, loc, kernel.rowStart, ValueRange{row});
      return vector::BroadcastOp::create(b, loc, vecType, s);
    };
    auto panelWords = [&](OpBuilder &b, Value panel, Value q) -> Value {
      return read(b, kernel.panels, {panel, q, idx(b, 0)});
    };
    auto rowWord = [&](OpBuilder &b, Value row, Value q) -> Value {
      Value word = tensor::ExtractOp::create(b, loc, kernel.broadcast, ValueRange{row, q});
      return vector::BroadcastOp::create(b, loc, vecType, word);
    };
    auto multiply = [&](OpBuilder &b, Value acc, Value word, Value panel) -> Value {
      return kernel.panelsAreUnsigned ? multiplyAdd(b, loc, acc, panel, word)
                                      : multiplyAdd(b, loc, acc, word, panel);
    };
    steps.columnStart = columnStart;
    if (kernel.rowStart)
      steps.rowStart = rowStart;
    steps.panelWords = panelWords;
    steps.rowWord = rowWord;
    steps.multiplyAdd = multiply;
    Value c = tensor::EmptyOp::create(builder, loc, {m, panels * lanes}, i32);
    return infc::panelKernel(builder, loc, steps, c, madd.rows, panels);
  }

  /// The run-time packing of B [K, N] i8 into panels of words of `per` K-consecutive values:
  /// B padded with `pad` to [words x per, panels x lanes], then per panel p (a loop the
  /// session's threads share) and word row q, the `per` rows of `lanes` bytes at
  /// (per q + t, lanes p), which `combine` turns into the vector stored at out[p, q].
  Value packRunTimePanels(OpBuilder &b, Location loc, Value in, int64_t k, int64_t n, int64_t lanes,
                          int64_t panels, int64_t words, int64_t per, int8_t pad, Value out,
                          function_ref<Value(OpBuilder &, ArrayRef<Value>)> combine) {
    Type i8 = b.getI8Type();
    if (words * per != k || panels * lanes != n) {
      auto padded = RankedTensorType::get({words * per, panels * lanes}, i8);
      SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(0)};
      SmallVector<OpFoldResult> high = {b.getIndexAttr(words * per - k),
                                        b.getIndexAttr(panels * lanes - n)};
      Value padValue = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(pad));
      in = tensor::PadOp::create(b, loc, padded, in, low, high, padValue);
    }
    auto rowType = VectorType::get({lanes}, i8);
    auto idx = [&](OpBuilder &ib, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ib, loc, v);
    };
    auto panelLoop = scf::ForOp::create(
        b, loc, idx(b, 0), idx(b, panels), idx(b, 1), ValueRange{out},
        [&](OpBuilder &pb, Location, Value p, ValueRange outIn) {
          Value column = arith::MulIOp::create(pb, loc, p, idx(pb, lanes));
          auto wordLoop = scf::ForOp::create(
              pb, loc, idx(pb, 0), idx(pb, words), idx(pb, 1), outIn,
              [&](OpBuilder &qb, Location, Value q, ValueRange acc) {
                Value row = arith::MulIOp::create(qb, loc, q, idx(qb, per));
                SmallVector<Value> rows;
                for (int64_t t = 0; t < per; ++t) {
                  Value r = arith::AddIOp::create(qb, loc, row, idx(qb, t));
                  rows.push_back(
                      vector::TransferReadOp::create(qb, loc, rowType, in, ValueRange{r, column},
                                                     std::optional<Value>(), ArrayRef<bool>{true}));
                }
                Value next = vector::TransferWriteOp::create(qb, loc, combine(qb, rows), acc[0],
                                                             ValueRange{p, q, idx(qb, 0)},
                                                             ArrayRef<bool>{true})
                                 .getResult();
                scf::YieldOp::create(qb, loc, next);
              });
          scf::YieldOp::create(pb, loc, wordLoop.getResult(0));
        });
    panelLoop->setAttr("infc.parallel", b.getUnitAttr());
    return panelLoop.getResult(0);
  }

  /// B [K, N] i8 as panels [ceil(N/L), ceil(K/4), L] of i32 words (L = `lanes`; or of 4L
  /// bytes `asBytes`), each four K-consecutive bytes of one column as u8 (a signed B offset
  /// by 128); zero past K and N. Per word row: four L-byte row loads interleaved by two byte
  /// shuffles into one 4L-byte store.
  Value packColumns(OpBuilder &b, Location loc, Value in, int64_t k, int64_t n, int64_t lanes,
                    int64_t panels, int64_t words, bool isSigned, bool asBytes) {
    Type i8 = b.getI8Type(), i32 = b.getI32Type();
    auto pairType = VectorType::get({2 * lanes}, i8);
    auto wordType = VectorType::get({4 * lanes}, i8);
    // (r0, r1) -> r0[0] r1[0] r0[1] r1[1] ...; then two such pairs (a, b) -> a[0..1] b[0..1]
    // a[2..3] b[2..3] ...: the bytes of column j's word in order t = 0..3.
    SmallVector<int64_t> bytePairs, wordQuads;
    for (int64_t j = 0; j < lanes; ++j) {
      bytePairs.append({j, lanes + j});
      wordQuads.append({2 * j, 2 * j + 1, 2 * lanes + 2 * j, 2 * lanes + 2 * j + 1});
    }
    Value flip = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(wordType, b.getI8IntegerAttr(-128)));
    Value out = asBytes ? tensor::EmptyOp::create(b, loc, {panels, words, 4 * lanes}, i8)
                        : tensor::EmptyOp::create(b, loc, {panels, words, lanes}, i32);
    // A signed pad of -128 packs to u8 0: padded columns and K bytes contribute nothing.
    return packRunTimePanels(
        b, loc, in, k, n, lanes, panels, words, 4, isSigned ? -128 : 0, out,
        [&](OpBuilder &qb, ArrayRef<Value> rows) -> Value {
          Value lo = vector::ShuffleOp::create(qb, loc, pairType, rows[0], rows[1], bytePairs);
          Value hi = vector::ShuffleOp::create(qb, loc, pairType, rows[2], rows[3], bytePairs);
          Value word = vector::ShuffleOp::create(qb, loc, wordType, lo, hi, wordQuads);
          if (isSigned)
            word = arith::XOrIOp::create(qb, loc, word, flip);
          if (asBytes)
            return word;
          return vector::BitCastOp::create(qb, loc, VectorType::get({lanes}, i32), word);
        });
  }

  /// B [K, N] i8 as vpmaddwd panels [ceil(N/L), ceil(K/2), L] of i32 words, each two
  /// K-consecutive values of one column extended to i16; zero past K and N. Per word row:
  /// two L-byte row loads, extended and interleaved into one store.
  Value packColumnPairs(OpBuilder &b, Location loc, Value in, int64_t k, int64_t n, int64_t panels,
                        int64_t words, bool isSigned) {
    Type i16 = b.getI16Type(), i32 = b.getI32Type();
    int64_t lanes = madd.lanes;
    auto halfType = VectorType::get({lanes}, i16);
    SmallVector<int64_t> interleave; // (r0, r1) -> r0[0] r1[0] r0[1] r1[1] ...
    for (int64_t j = 0; j < lanes; ++j)
      interleave.append({j, lanes + j});
    Value out = tensor::EmptyOp::create(b, loc, {panels, words, lanes}, i32);
    return packRunTimePanels(
        b, loc, in, k, n, lanes, panels, words, 2, 0, out,
        [&](OpBuilder &qb, ArrayRef<Value> rows) -> Value {
          SmallVector<Value> halves;
          for (Value bytes : rows)
            halves.push_back(isSigned
                                 ? arith::ExtSIOp::create(qb, loc, halfType, bytes).getResult()
                                 : arith::ExtUIOp::create(qb, loc, halfType, bytes).getResult());
          Value pairs = vector::ShuffleOp::create(qb, loc, VectorType::get({2 * lanes}, i16),
                                                  halves[0], halves[1], interleave);
          return vector::BitCastOp::create(qb, loc, VectorType::get({lanes}, i32), pairs);
        });
  }

  /// A [M, K] i8 as [M, ceil(K/w)] i32 words of w K-consecutive values: w = 4 bytes as u8
  /// (a signed A offset by 128: the byte xor 0x80), or w = 2 bytes extended to i16. Bytes
  /// past K read as zero (they meet zero weights anyway). Little-endian, either word is the
  /// row's (converted) bytes themselves: per row, vectors of `lanes` words are one load, an
  /// xor or an extension and one store, in a loop over the rows that the threads share.
  Value packA(OpBuilder &b, Location loc, Value a, int64_t m, int64_t k, int64_t words,
              bool isSigned) {
    Type i8 = b.getI8Type(), i32 = b.getI32Type();
    int64_t per = madd.perWord(), lanes = madd.lanes;
    auto bytesType = VectorType::get({per * lanes}, i8);
    auto wordsType = VectorType::get({lanes}, i32);
    auto idx = [&](OpBuilder &ib, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ib, loc, v);
    };
    Value zeroByte = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
    Value flip = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(bytesType, b.getI8IntegerAttr(-128)));
    // The vector of `lanes` words at word q of row r, into `acc`. Masked (zeros past K) only
    // for the last vector of a row: AVX2 has no masked byte loads, so they are scalar.
    auto vectorAt = [&](OpBuilder &cb, Value r, Value q, Value acc, bool inBounds) -> Value {
      Value byteCol = arith::MulIOp::create(cb, loc, q, idx(cb, per));
      Value bytes = vector::TransferReadOp::create(cb, loc, bytesType, a, ValueRange{r, byteCol},
                                                   zeroByte, ArrayRef<bool>{inBounds});
      Value packed;
      if (madd.vnni) {
        if (isSigned)
          bytes = arith::XOrIOp::create(cb, loc, bytes, flip);
        packed = vector::BitCastOp::create(cb, loc, wordsType, bytes);
      } else {
        auto halfType = VectorType::get({per * lanes}, b.getI16Type());
        Value halves = isSigned ? arith::ExtSIOp::create(cb, loc, halfType, bytes).getResult()
                                : arith::ExtUIOp::create(cb, loc, halfType, bytes).getResult();
        packed = vector::BitCastOp::create(cb, loc, wordsType, halves);
      }
      return vector::TransferWriteOp::create(cb, loc, packed, acc, ValueRange{r, q},
                                             ArrayRef<bool>{inBounds})
          .getResult();
    };
    int64_t whole = k / (per * lanes) * lanes; // words in vectors that end before K
    Value out = tensor::EmptyOp::create(b, loc, {m, words}, i32);
    auto rowLoop = scf::ForOp::create(
        b, loc, idx(b, 0), idx(b, m), idx(b, 1), ValueRange{out},
        [&](OpBuilder &rb, Location, Value r, ValueRange outIn) {
          Value rowOut = outIn[0];
          if (whole)
            rowOut = scf::ForOp::create(
                         rb, loc, idx(rb, 0), idx(rb, whole), idx(rb, lanes), ValueRange{rowOut},
                         [&](OpBuilder &cb, Location, Value q, ValueRange acc) {
                           scf::YieldOp::create(cb, loc, vectorAt(cb, r, q, acc[0], true));
                         })
                         .getResult(0);
          if (whole < words)
            rowOut = vectorAt(rb, r, idx(rb, whole), rowOut, false);
          scf::YieldOp::create(rb, loc, rowOut);
        });
    rowLoop->setAttr("infc.parallel", b.getUnitAttr());
    return rowLoop.getResult(0);
  }
};
} // namespace

//===- FoldQdq.cpp - dequantized matmuls and convolutions to integer ones -===//
//
// QDQ models (ORT's quantize_static, PyTorch, and infc's own --quantize) compute
// conv(dequantize(x), dequantize(w)): read literally, every weight and activation is widened
// to float. With x per tensor and w per tensor or per output channel the scales factor out,
//   conv((x - zx) sx, (w - zw) sw) = sx sw[f] * conv_i32(x - zx, w - zw),
// so the product runs on the 8-bit values, accumulated exactly in i32, and one multiply per
// output (the requantizing epilogue, fused with what follows) takes it back to float.
// x's zero point is taken out after the product, as zx x (sum of w - zw over the reduced
// dims), so the integer op reads x as a plain extension of its bytes (what
// infc-vnni-matmul needs); for a padded convolution x is padded with zx itself first, so the
// taps that read padding cancel too.
//
//===----------------------------------------------------------------------===//
#include "infc/Dialect/Infc/IR/InfcOps.h"
#include "infc/Dialect/Infc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace infc {
#define GEN_PASS_DEF_INFCFOLDQDQ
#include "infc/Dialect/Infc/Transforms/Passes.h.inc"
} // namespace infc

using namespace mlir;
using namespace infc;

namespace {
RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// A dequantize of an 8-bit integer tensor to f32 with a per-tensor (rank-0) or per-axis
/// scale; blocked scales do not factor out of a product.
DequantizeOp dequantizedInt8(Value v) {
  auto dq = v.getDefiningOp<DequantizeOp>();
  if (!dq || dq.getBlockSize() != 0 || !dq.getType().getElementType().isF32() ||
      !typeOf(dq.getInput()).getElementType().isInteger(8) ||
      !typeOf(dq.getScale()).getElementType().isF32())
    return nullptr;
  return dq;
}

bool perTensor(DequantizeOp dq) { return typeOf(dq.getScale()).getRank() == 0; }

/// The integer values of an 8-bit constant, sign- or zero-extended by its type.
std::optional<SmallVector<int32_t>> int8Values(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  bool isUnsigned = attr.getElementType().isUnsignedInteger();
  SmallVector<int32_t> out;
  out.reserve(attr.getNumElements());
  for (const APInt &x : attr.getValues<APInt>())
    out.push_back(isUnsigned ? (int32_t)x.getZExtValue() : (int32_t)x.getSExtValue());
  return out;
}

/// The constant weight w - zw of a dequantize whose zero point is per tensor or along
/// `axis`, as i32 values in `w`'s row-major order; nullopt if it is not constant.
std::optional<SmallVector<int32_t>> centeredWeights(DequantizeOp dq) {
  std::optional<SmallVector<int32_t>> w = int8Values(dq.getInput());
  if (!w)
    return std::nullopt;
  if (!dq.getZeroPoint())
    return w;
  std::optional<SmallVector<int32_t>> zp = int8Values(dq.getZeroPoint());
  if (!zp)
    return std::nullopt;
  ArrayRef<int64_t> shape = typeOf(dq.getInput()).getShape();
  int64_t inner = 1, axis = dq.getAxis();
  for (int64_t d = axis + 1; d < (int64_t)shape.size(); ++d)
    inner *= shape[d];
  for (int64_t i = 0, e = w->size(); i < e; ++i)
    (*w)[i] -= zp->size() == 1 ? (*zp)[0] : (*zp)[(i / inner) % shape[axis]];
  return w;
}

Value i32Constant(PatternRewriter &rewriter, Location loc, ArrayRef<int64_t> shape,
                  ArrayRef<int32_t> values) {
  auto type = RankedTensorType::get(shape, rewriter.getI32Type());
  return ConstantOp::create(rewriter, loc,
                            cast<ElementsAttr>(DenseElementsAttr::get(type, values)));
}

Value castTo(PatternRewriter &rewriter, Location loc, Value v, Type elementType) {
  return CastOp::create(rewriter, loc, typeOf(v).clone(elementType), v);
}

Value reshapeTo(PatternRewriter &rewriter, Location loc, Value v, ArrayRef<int64_t> shape) {
  if (typeOf(v).getShape() == shape)
    return v;
  return ReshapeOp::create(rewriter, loc, typeOf(v).clone(shape), v);
}

/// acc - zx * sums (sums shaped to broadcast against acc), then to f32 times sx * sw (sw
/// reshaped likewise when per channel): the epilogue both patterns share.
Value rescale(PatternRewriter &rewriter, Location loc, Value acc, DequantizeOp x, DequantizeOp w,
              ArrayRef<int64_t> perChannelShape, ArrayRef<int32_t> sums) {
  if (Value zx = x.getZeroPoint()) {
    Value zp = castTo(rewriter, loc, zx, rewriter.getI32Type());
    Value correction =
        MulOp::create(rewriter, loc, zp, i32Constant(rewriter, loc, perChannelShape, sums));
    acc = SubOp::create(rewriter, loc, acc, correction);
  }
  Value sw = w.getScale();
  if (!perTensor(w))
    sw = reshapeTo(rewriter, loc, sw, perChannelShape);
  Value multiplier = MulOp::create(rewriter, loc, x.getScale(), sw);
  return MulOp::create(rewriter, loc, castTo(rewriter, loc, acc, rewriter.getF32Type()),
                       multiplier);
}

/// matmul(dequantize(a), dequantize(w)) with a constant rank-2 w (or its transpose, as Gemm
/// with transB imports), w per tensor or per output column.
struct FoldDequantizedMatMul : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op, PatternRewriter &rewriter) const override {
    DequantizeOp a = dequantizedInt8(op.getLhs());
    if (!a || !perTensor(a))
      return rewriter.notifyMatchFailure(op, "lhs is not a per-tensor int8 dequantize");
    Value rhs = op.getRhs();
    bool transposed = false;
    if (auto t = rhs.getDefiningOp<TransposeOp>();
        t && typeOf(rhs).getRank() == 2 && t.getPerm() == ArrayRef<int64_t>{1, 0}) {
      rhs = t.getInput();
      transposed = true;
    }
    DequantizeOp w = dequantizedInt8(rhs);
    if (!w || typeOf(rhs).getRank() != 2)
      return rewriter.notifyMatchFailure(op, "rhs is not a rank-2 int8 dequantize");
    // The output column's axis in w: 1, or 0 when w is transposed.
    if (!perTensor(w) && w.getAxis() != (transposed ? 0 : 1))
      return rewriter.notifyMatchFailure(op, "per-row weight scales do not factor out");
    std::optional<SmallVector<int32_t>> values = centeredWeights(w);
    if (!values)
      return rewriter.notifyMatchFailure(op, "weights or their zero point are not constant");
    ArrayRef<int64_t> ws = typeOf(rhs).getShape();
    int64_t k = transposed ? ws[1] : ws[0], n = transposed ? ws[0] : ws[1];
    SmallVector<int32_t> kn(k * n), colsum(n, 0);
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < n; ++c) {
        int32_t v = transposed ? (*values)[c * k + r] : (*values)[r * n + c];
        kn[r * n + c] = v;
        colsum[c] += v;
      }
    Location loc = op.getLoc();
    Value lhs = castTo(rewriter, loc, a.getInput(), rewriter.getI32Type());
    Value acc = MatMulOp::create(rewriter, loc, lhs, i32Constant(rewriter, loc, {k, n}, kn));
    rewriter.replaceOp(op, rescale(rewriter, loc, acc, a, w, {n}, colsum));
    return success();
  }
};

/// conv(dequantize(x), dequantize(w), bias) with a constant w per tensor or per output
/// channel; the float bias is added after the rescale.
struct FoldDequantizedConv : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op, PatternRewriter &rewriter) const override {
    // Grouped (depthwise) convolutions have no integer kernel faster than the float one
    // (the vectorized tap sum): they stay on the dequantized floats.
    if (op.getGroup() != 1)
      return rewriter.notifyMatchFailure(op, "grouped convolution");
    DequantizeOp x = dequantizedInt8(op.getInput());
    if (!x || !perTensor(x))
      return rewriter.notifyMatchFailure(op, "input is not a per-tensor int8 dequantize");
    DequantizeOp w = dequantizedInt8(op.getWeight());
    if (!w || (!perTensor(w) && w.getAxis() != 0))
      return rewriter.notifyMatchFailure(op, "weight is not an int8 dequantize per channel");
    std::optional<SmallVector<int32_t>> values = centeredWeights(w);
    if (!values)
      return rewriter.notifyMatchFailure(op, "weights or their zero point are not constant");
    ArrayRef<int64_t> wshape = typeOf(w.getInput()).getShape();
    int64_t f = wshape[0], perFilter = values->size() / f;
    SmallVector<int32_t> sums(f, 0);
    for (int64_t i = 0, e = values->size(); i < e; ++i)
      sums[i / perFilter] += (*values)[i];

    Location loc = op.getLoc();
    Value input = x.getInput();
    ArrayRef<int64_t> pads = op.getPads();
    SmallVector<int64_t> convPads(pads);
    if (x.getZeroPoint() && llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
      // Padding that reads as zx, so that zx x sums cancels it like every other tap.
      SmallVector<int64_t> low = {0, 0, pads[0], pads[1]}, high = {0, 0, pads[2], pads[3]};
      input =
          PadOp::create(rewriter, loc, input, x.getZeroPoint(), rewriter.getDenseI64ArrayAttr(low),
                        rewriter.getDenseI64ArrayAttr(high), rewriter.getStringAttr("constant"));
      convPads.assign(4, 0);
    }
    Value acc = ConvOp::create(rewriter, loc, castTo(rewriter, loc, input, rewriter.getI32Type()),
                               i32Constant(rewriter, loc, wshape, *values), Value(),
                               op.getStridesAttr(), rewriter.getDenseI64ArrayAttr(convPads),
                               op.getDilationsAttr(), op.getGroupAttr());
    SmallVector<int64_t> perChannel(typeOf(acc).getRank() - 1, 1);
    perChannel[0] = f;
    Value y = rescale(rewriter, loc, acc, x, w, perChannel, sums);
    if (Value bias = op.getBias())
      y = AddOp::create(rewriter, loc, y, reshapeTo(rewriter, loc, bias, perChannel));
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// gather(dequantize(table), indices) -> dequantize(gather(table, indices)) for a per-tensor
/// table (a quantized embedding): the rows are gathered as bytes, only they are widened.
struct GatherBeforeDequantize : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op, PatternRewriter &rewriter) const override {
    auto dq = op.getData().getDefiningOp<DequantizeOp>();
    if (!dq || !perTensor(dq))
      return rewriter.notifyMatchFailure(op, "data is not a per-tensor dequantize");
    Location loc = op.getLoc();
    Value rows = GatherOp::create(rewriter, loc, dq.getInput(), op.getIndices(), op.getAxis());
    rewriter.replaceOpWithNewOp<DequantizeOp>(op, op.getType(), rows, dq.getScale(),
                                              dq.getZeroPoint(), 0, 0);
    return success();
  }
};

/// A dequantize of constants that no integer kernel took (a bias, LayerNorm's scale, what
/// fold-qdq cannot factor) folds to its f32 values, computed as the lowering would:
/// (q - zero point) in integers, then times the scale in f32.
struct FoldConstantDequantize : OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op, PatternRewriter &rewriter) const override {
    DenseElementsAttr q, scale, zp;
    auto qt = typeOf(op.getInput());
    if (op.getBlockSize() != 0 || !op.getType().getElementType().isF32() ||
        !isa<IntegerType>(qt.getElementType()) || !matchPattern(op.getInput(), m_Constant(&q)) ||
        !matchPattern(op.getScale(), m_Constant(&scale)) || !scale.getElementType().isF32() ||
        (op.getZeroPoint() && !matchPattern(op.getZeroPoint(), m_Constant(&zp))))
      return rewriter.notifyMatchFailure(op,
                                         "not a per-tensor/per-axis f32 dequantize of constants");
    bool isUnsigned = qt.getElementType().isUnsignedInteger();
    auto ints = [&](DenseElementsAttr a) {
      SmallVector<int64_t> out;
      for (const APInt &v : a.getValues<APInt>())
        out.push_back(isUnsigned ? (int64_t)v.getZExtValue() : v.getSExtValue());
      return out;
    };
    SmallVector<int64_t> values = ints(q), zeros = zp ? ints(zp) : SmallVector<int64_t>{0};
    SmallVector<float> scales = llvm::to_vector(scale.getValues<float>());
    ArrayRef<int64_t> shape = qt.getShape();
    int64_t inner = 1, axis = op.getAxis();
    for (int64_t d = axis + 1; d < qt.getRank(); ++d)
      inner *= shape[d];
    SmallVector<float> out(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      size_t c = scales.size() == 1 ? 0 : (i / inner) % shape[axis];
      out[i] = (float)(values[i] - zeros[zeros.size() == 1 ? 0 : c]) * scales[c];
    }
    rewriter.replaceOpWithNewOp<ConstantOp>(
        op, cast<ElementsAttr>(DenseElementsAttr::get(op.getType(), ArrayRef<float>(out))));
    return success();
  }
};

struct InfcFoldQdqPass : public infc::impl::InfcFoldQdqBase<InfcFoldQdqPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldDequantizedMatMul, FoldDequantizedConv, GatherBeforeDequantize>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Only once the integer kernels have taken their weights.
    RewritePatternSet constants(&getContext());
    constants.add<FoldConstantDequantize>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(constants))))
      return signalPassFailure();
  }
};
} // namespace

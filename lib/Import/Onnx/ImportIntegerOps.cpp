//===- ImportIntegerOps.cpp - MatMulInteger, ConvInteger, QLinearMatMul/Conv ===//
//
// The integer products of pre-quantized models: operands widened to i32 with their zero
// points subtracted, the product accumulated in i32 (infc.matmul / infc.conv on i32). The
// QLinear ops then requantize as the ONNX reference does: the i32 accumulator times
// (input scale * weight scale / output scale) computed in the scales' type, in f64 (exact
// for any i32), plus the output zero point, rounded half to even and saturated.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace infc;

namespace {
RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// `x` as i32 minus its zero point (absent: 0). `zeroPoint` is a scalar or, with
/// `perAxisShape`, reshaped to that shape (per-row, per-column or per-channel).
Value centered(NodeImporter &n, Value x, Value zeroPoint, ArrayRef<int64_t> perAxisShape = {}) {
  Type i32 = n.b.getI32Type();
  Value wide = n.castElements(x, i32);
  if (!zeroPoint)
    return wide;
  Value zp = n.castElements(zeroPoint, i32);
  if (typeOf(zp).getNumElements() == 1)
    zp = n.reshape(zp, {});
  else if (!perAxisShape.empty())
    zp = n.reshape(zp, perAxisShape);
  return n.create<SubOp>(wide, zp);
}

LogicalResult requireInt8(NodeImporter &n, unsigned i) {
  Type et = n.inputType(i).getElementType();
  if (!et.isInteger(8))
    return n.error() << "expects int8 or uint8 input " << i << ", got " << et;
  return success();
}

/// Per-row zero points of A [.., M, K] broadcast over K; per-column ones of B over K. With
/// a constant B' = B - b_zero, A's zero point is applied after the product instead,
/// (A - za) B' = A B' - za colsum(B'), so the matmul reads A as a plain extension of its
/// bytes, which infc-vnni-matmul runs on vpdpbusd.
Value matmulInteger(NodeImporter &n, Value a, Value aZero, Value b, Value bZero) {
  ArrayRef<int64_t> as = typeOf(a).getShape();
  int64_t rows = as.size() >= 2 ? as[as.size() - 2] : 1;
  Value rhs = centered(n, b, bZero);
  DenseElementsAttr weights;
  Value correction;
  if (aZero && typeOf(rhs).getRank() == 2 && matchPattern(rhs, m_Constant(&weights))) {
    int64_t cols = typeOf(rhs).getDimSize(1), i = 0;
    SmallVector<int32_t> sums(cols, 0);
    for (const APInt &v : weights.getValues<APInt>()) // row-major [K, N]
      sums[i++ % cols] += (int32_t)v.getSExtValue();
    Value colsum = n.constant(DenseElementsAttr::get(
        RankedTensorType::get({1, cols}, n.b.getI32Type()), ArrayRef<int32_t>(sums)));
    Value za = n.castElements(aZero, n.b.getI32Type());
    za = typeOf(za).getNumElements() == 1 ? n.reshape(za, {}) : n.reshape(za, {rows, 1});
    correction = n.create<MulOp>(za, colsum);
    aZero = nullptr;
  }
  Value lhs = centered(n, a, aZero, {rows, 1});
  if (typeOf(lhs).getRank() == 1)
    lhs = n.reshape(lhs, {1, typeOf(lhs).getDimSize(0)});
  bool vectorRhs = typeOf(rhs).getRank() == 1;
  if (vectorRhs)
    rhs = n.reshape(rhs, {typeOf(rhs).getDimSize(0), 1});
  Value y = n.create<MatMulOp>(lhs, rhs);
  if (correction)
    y = n.create<SubOp>(y, correction);
  if (vectorRhs) {
    SmallVector<int64_t> shape(typeOf(y).getShape().drop_back());
    y = n.reshape(y, shape);
  }
  if (typeOf(a).getRank() == 1) {
    SmallVector<int64_t> shape(typeOf(y).getShape());
    shape.erase(shape.end() - 2);
    y = n.reshape(y, shape);
  }
  return y;
}

/// round(acc * (s1 * s2 / s3) + zero point), saturated to the zero point's type.
Value requantize(NodeImporter &n, Value acc, Value s1, Value s2, Value s3, Value zeroPoint,
                 Type resultType, ArrayRef<int64_t> perChannelShape = {}) {
  auto rank0 = [&](Value v) {
    return typeOf(v).getNumElements() == 1 ? n.reshape(v, {}) : n.reshape(v, perChannelShape);
  };
  Value multiplier = n.create<DivOp>(n.create<MulOp>(rank0(s1), rank0(s2)), rank0(s3));
  Type f64 = n.b.getF64Type();
  Value y = n.create<MulOp>(n.castElements(acc, f64), n.castElements(multiplier, f64));
  if (zeroPoint)
    y = n.create<AddOp>(y, n.castElements(n.reshape(zeroPoint, {}), f64));
  bool isUnsigned = resultType.isUnsignedInteger();
  double lo = isUnsigned ? 0 : -128, hi = isUnsigned ? 255 : 127;
  y = n.create<ClipOp>(n.create<RoundOp>(y), n.b.getF64FloatAttr(lo), n.b.getF64FloatAttr(hi));
  return n.castElements(y, resultType);
}

LogicalResult importMatMulInteger(NodeImporter &n) {
  if (failed(requireInt8(n, 0)) || failed(requireInt8(n, 1)))
    return failure();
  n.setResult(0, matmulInteger(n, n.input(0), n.input(2), n.input(1), n.input(3)));
  return success();
}

LogicalResult requireScalarOutputZero(NodeImporter &n) {
  if (n.input(7) && n.inputType(7).getNumElements() != 1)
    return n.error() << "expects a scalar y_zero_point, got " << n.inputType(7);
  return success();
}

/// QLinearMatMul(a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero).
LogicalResult importQLinearMatMul(NodeImporter &n) {
  if (failed(requireInt8(n, 0)) || failed(requireInt8(n, 3)) || failed(requireScalarOutputZero(n)))
    return failure();
  for (unsigned i : {1u, 4u, 6u})
    if (n.inputType(i).getNumElements() != 1)
      return n.error() << "only per-tensor scales are supported, got " << n.inputType(i);
  Value acc = matmulInteger(n, n.input(0), n.input(2), n.input(3), n.input(5));
  Type out = n.input(7) ? n.inputType(7).getElementType() : n.inputType(0).getElementType();
  n.setResult(0, requantize(n, acc, n.input(1), n.input(4), n.input(6), n.input(7), out));
  return success();
}

/// ConvInteger(x, w, x_zero, w_zero): the w zero point per output channel or scalar.
/// The weight's output channels are read before convolution() checks the ranks: check them
/// first (a rank-0 weight has no channel dim).
LogicalResult requireConvRanks(NodeImporter &n, unsigned x, unsigned w) {
  RankedTensorType xt = n.inputType(x), wt = n.inputType(w);
  if (xt.getRank() != 3 && xt.getRank() != 4)
    return n.error() << "only 1-D and 2-D convolutions are supported (input " << xt << ")";
  if (wt.getRank() != xt.getRank())
    return n.error() << "expects a weight of rank " << xt.getRank() << ", got " << wt;
  return success();
}

LogicalResult importConvInteger(NodeImporter &n) {
  if (failed(requireInt8(n, 0)) || failed(requireInt8(n, 1)) || failed(requireConvRanks(n, 0, 1)))
    return failure();
  SmallVector<int64_t> perChannel(n.inputType(1).getRank(), 1);
  perChannel[0] = n.inputType(1).getDimSize(0);
  Value y = convolution(n, centered(n, n.input(0), n.input(2)),
                        centered(n, n.input(1), n.input(3), perChannel), nullptr);
  if (!y)
    return failure();
  n.setResult(0, y);
  return success();
}

/// QLinearConv(x, x_scale, x_zero, w, w_scale, w_zero, y_scale, y_zero, B): w's scale and
/// zero point per output channel or scalar, the i32 bias added to the accumulator.
LogicalResult importQLinearConv(NodeImporter &n) {
  if (failed(requireInt8(n, 0)) || failed(requireInt8(n, 3)) ||
      failed(requireScalarOutputZero(n)) || failed(requireConvRanks(n, 0, 3)))
    return failure();
  int64_t channels = n.inputType(3).getDimSize(0);
  SmallVector<int64_t> perChannel(n.inputType(3).getRank(), 1);
  perChannel[0] = channels;
  Value bias = n.input(8);
  if (bias && !n.inputType(8).getElementType().isInteger(32))
    return n.error() << "expects an int32 bias, got " << n.inputType(8).getElementType();
  Value acc = convolution(n, centered(n, n.input(0), n.input(2)),
                          centered(n, n.input(3), n.input(5), perChannel), bias);
  if (!acc)
    return failure();
  SmallVector<int64_t> outPerChannel(typeOf(acc).getRank() - 1, 1);
  outPerChannel[0] = channels;
  Type out = n.input(7) ? n.inputType(7).getElementType() : n.inputType(0).getElementType();
  n.setResult(
      0, requantize(n, acc, n.input(1), n.input(4), n.input(6), n.input(7), out, outPerChannel));
  return success();
}
} // namespace

void infc::registerIntegerOpImporters(ImportRegistry &r) {
  r["MatMulInteger"] = importMatMulInteger;
  r["QLinearMatMul"] = importQLinearMatMul;
  r["ConvInteger"] = importConvInteger;
  r["QLinearConv"] = importQLinearConv;
}

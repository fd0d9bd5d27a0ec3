//===- Quantization.cpp - infc quantize / dequantize to linalg.generic ----===//
//
// One elementwise generic each. The scale and zero point are read per tensor (rank 0),
// per slice along the axis, or per block (the axis index floordiv the block size, an
// affine map linalg accepts for inputs).
//
//===----------------------------------------------------------------------===//
#include "PopulatePatterns.h"
#include "Utils.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace infc;
using namespace infc::lowering;

namespace {
/// The indexing map of a scale of type `scaleType` for an input of rank `rank`.
AffineMap scaleMap(MLIRContext *ctx, RankedTensorType scaleType, int64_t rank, int64_t axis,
                   int64_t blockSize) {
  if (scaleType.getRank() == 0)
    return AffineMap::get(rank, 0, {}, ctx);
  if (blockSize == 0)
    return AffineMap::get(rank, 0, {getAffineDimExpr(axis, ctx)}, ctx);
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    exprs.push_back(d == axis ? getAffineDimExpr(d, ctx).floorDiv(blockSize)
                              : getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// f64 for an f64 scale, else f32 (f16/bf16 scales widen, as ORT computes).
Type computeType(OpBuilder &b, Type scaleElementType) {
  return scaleElementType.isF64() ? scaleElementType : b.getF32Type();
}

/// One quantized element (signless bits of `type`) as a float of type `f`.
Value toFloat(OpBuilder &b, Location loc, Value v, Type type, Type f) {
  if (isSmallFloat(type))
    return castScalar(b, loc, decodeSmallFloat(b, loc, v, type), false, f, false);
  return castScalar(b, loc, v, isUnsigned(type), f, false);
}

/// Builds the generic over the input's shape reading input, scale and the optional zero
/// point; `body(x, scale, zeroPoint or null)` yields the result element.
template <typename OpTy>
Value quantGeneric(ConversionPatternRewriter &rewriter, OpTy op, Value input, Value scale,
                   Value zeroPoint,
                   function_ref<Value(OpBuilder &, Location, Value, Value, Value)> body) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  RankedTensorType resultType = loweredType(op.getType());
  int64_t rank = resultType.getRank();
  AffineMap sMap =
      scaleMap(ctx, cast<RankedTensorType>(scale.getType()), rank, op.getAxis(), op.getBlockSize());
  SmallVector<Value> inputs = {input, scale};
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx), sMap};
  if (zeroPoint) {
    inputs.push_back(zeroPoint);
    maps.push_back(sMap);
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value init = emptyTensor(rewriter, loc, resultType, ValueRange{input});
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, body(b, l, args[0], args[1], zeroPoint ? args[2] : Value()));
      });
  return generic.getResult(0);
}

/// y = saturate(round_half_even(x / scale) + zero_point); float8/float4 results encode
/// x / scale + zero_point instead.
struct QuantizeLowering : public OpConversionPattern<QuantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(QuantizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type q = getElementTypeOrSelf(op.getType());
    Type f = computeType(rewriter, getElementTypeOrSelf(op.getScale().getType()));
    bool saturate = op.getSaturate();
    // A constant f32 scale of an integer quantize (every requantizing epilogue): multiply by
    // its reciprocal, as ORT's fused kernels do. A vector division costs as much as the rest
    // of the epilogue together; x * (1/s) differs from x / s by at most one ulp before
    // rounding, which moves the result only when x / s lies within that of a .5 tie.
    Value scale = adaptor.getScale();
    bool reciprocal = false;
    DenseElementsAttr scales;
    if (f.isF32() && isa<IntegerType>(q) && matchPattern(op.getScale(), m_Constant(&scales)) &&
        scales.getElementType().isF32()) {
      SmallVector<float> inverse;
      for (float v : scales.getValues<float>())
        inverse.push_back((float)(1.0 / (double)v));
      scale = arith::ConstantOp::create(
          rewriter, op.getLoc(),
          DenseElementsAttr::get(cast<ShapedType>(scales.getType()), ArrayRef<float>(inverse)));
      reciprocal = true;
    }
    Value result = quantGeneric(
        rewriter, op, adaptor.getInput(), scale, adaptor.getZeroPoint(),
        [&](OpBuilder &b, Location l, Value x, Value scale, Value zp) -> Value {
          Value xf = castScalar(b, l, x, false, f, false);
          Value sf = castScalar(b, l, scale, false, f, false);
          Value v = reciprocal ? (Value)arith::MulFOp::create(b, l, xf, sf)
                               : (Value)arith::DivFOp::create(b, l, xf, sf);
          if (isSmallFloat(q)) {
            if (zp)
              v = arith::AddFOp::create(b, l, v, toFloat(b, l, zp, q, f));
            return encodeSmallFloat(b, l, castScalar(b, l, v, false, b.getF32Type(), false), q,
                                    saturate);
          }
          v = math::RoundEvenOp::create(b, l, v);
          if (zp)
            v = arith::AddFOp::create(b, l, v, toFloat(b, l, zp, q, f));
          bool u = isUnsigned(q);
          unsigned w = q.getIntOrFloatBitWidth();
          double lo = u ? 0.0 : APInt::getSignedMinValue(w).signedRoundToDouble();
          double hi = u ? APInt::getMaxValue(w).roundToDouble()
                        : APInt::getSignedMaxValue(w).signedRoundToDouble();
          // maximumf/minimumf would keep a NaN; ONNX leaves it undefined, numpy gives 0.
          v = arith::MinNumFOp::create(b, l, arith::MaxNumFOp::create(b, l, v, scalar(b, l, f, lo)),
                                       scalar(b, l, f, hi));
          Type bits = b.getIntegerType(w);
          // Through i32 up to 16 bits: the clamped value is exact there, and LLVM vectorizes
          // fptosi to i32 and a truncation (vcvttps2dq, vpmovdb) but scalarizes fptoui to i8.
          if (w <= 16)
            return arith::TruncIOp::create(b, l, bits,
                                           arith::FPToSIOp::create(b, l, b.getI32Type(), v));
          return u ? (Value)arith::FPToUIOp::create(b, l, bits, v)
                   : (Value)arith::FPToSIOp::create(b, l, bits, v);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// y = (x - zero_point) * scale, in f32 (f64 for an f64 scale), rounded to the result type.
struct DequantizeLowering : public OpConversionPattern<DequantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DequantizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type q = getElementTypeOrSelf(op.getInput().getType());
    Type out = getElementTypeOrSelf(op.getType());
    Type f = computeType(rewriter, getElementTypeOrSelf(op.getScale().getType()));
    Value result = quantGeneric(
        rewriter, op, adaptor.getInput(), adaptor.getScale(), adaptor.getZeroPoint(),
        [&](OpBuilder &b, Location l, Value x, Value scale, Value zp) -> Value {
          Value v;
          if (isSmallFloat(q) || !zp) {
            v = toFloat(b, l, x, q, f);
            if (zp)
              v = arith::SubFOp::create(b, l, v, toFloat(b, l, zp, q, f));
          } else {
            // Integer difference, exact in i32 up to 16 bits (and then in f32 too) and in
            // i64 for wider types. (Through i64, LLVM widens each vector of 16 bytes to two
            // of 8 quadwords and back: the fake-quant chains of a QDQ model's elementwise
            // ops ran at half speed.)
            Type wide = q.getIntOrFloatBitWidth() <= 16 ? b.getI32Type() : b.getI64Type();
            Value d = arith::SubIOp::create(b, l, castScalar(b, l, x, isUnsigned(q), wide, false),
                                            castScalar(b, l, zp, isUnsigned(q), wide, false));
            v = castScalar(b, l, d, false, f, false);
          }
          v = arith::MulFOp::create(b, l, v, castScalar(b, l, scale, false, f, false));
          return castScalar(b, l, v, false, out, false);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void infc::populateQuantizationPatterns(RewritePatternSet &patterns) {
  patterns.add<QuantizeLowering, DequantizeLowering>(patterns.getContext());
}

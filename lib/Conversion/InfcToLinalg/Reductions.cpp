//===- Reductions.cpp - infc reductions, softmax and layer_norm to linalg -===//
#include "PopulatePatterns.h"
#include "Utils.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace infc;
using namespace infc::lowering;

namespace {
using Combine = function_ref<Value(OpBuilder &, Location, Value, Value)>;

Value addScalars(OpBuilder &b, Location l, Value x, Value acc) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, l, x, acc);
  return arith::AddIOp::create(b, l, x, acc);
}
Value mulScalars(OpBuilder &b, Location l, Value x, Value acc) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, l, x, acc);
  return arith::MulIOp::create(b, l, x, acc);
}
Value maxScalars(OpBuilder &b, Location l, Value x, Value acc) {
  if (x.getType().isInteger(1))
    return arith::OrIOp::create(b, l, x, acc);
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, l, x, acc);
  return arith::MaxSIOp::create(b, l, x, acc);
}
Value minScalars(OpBuilder &b, Location l, Value x, Value acc) {
  if (x.getType().isInteger(1))
    return arith::AndIOp::create(b, l, x, acc);
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, l, x, acc);
  return arith::MinSIOp::create(b, l, x, acc);
}
Value maxUnsigned(OpBuilder &b, Location l, Value x, Value acc) {
  return arith::MaxUIOp::create(b, l, x, acc);
}
Value minUnsigned(OpBuilder &b, Location l, Value x, Value acc) {
  return arith::MinUIOp::create(b, l, x, acc);
}

/// The reduced tensor (reduced dims dropped) re-expanded to keep size-1 dims.
Value keepDims(OpBuilder &b, Location loc, Value reduced, RankedTensorType inType,
               ArrayRef<bool> mask) {
  SmallVector<int64_t> shape(inType.getShape());
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d])
      shape[d] = 1;
  return reshapeTensor(b, loc, reduced, RankedTensorType::get(shape, inType.getElementType()));
}

template <typename OpTy> struct ReduceLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType resultType = loweredType(op.getType());
    bool isUnsignedInt = isUnsigned(op.getInput().getType());
    // f16/bf16 accumulate in f32.
    bool widen = isHalfFloat(input.getType());
    if (widen)
      input = convertElements(rewriter, loc, input, rewriter.getF32Type());
    auto inType = cast<RankedTensorType>(input.getType());
    Type et = inType.getElementType();
    SmallVector<bool> mask(inType.getRank(), false);
    int64_t count = 1;
    if (std::is_same_v<OpTy, ReduceMeanOp> &&
        llvm::any_of(op.getAxes(), [&](int64_t a) { return inType.isDynamicDim(a); }))
      return rewriter.notifyMatchFailure(op, "a mean over a dynamic dim (not yet)");
    for (int64_t a : op.getAxes()) {
      mask[a] = true;
      if (!inType.isDynamicDim(a))
        count *= inType.getDimSize(a);
    }
    TypedAttr init;
    Combine combine = addScalars;
    if constexpr (std::is_same_v<OpTy, ReduceMaxOp>) {
      init = lowestAttr(et, isUnsignedInt);
      combine = isUnsignedInt ? maxUnsigned : maxScalars;
    } else if constexpr (std::is_same_v<OpTy, ReduceMinOp>) {
      init = highestAttr(et, isUnsignedInt);
      combine = isUnsignedInt ? minUnsigned : minScalars;
    } else if constexpr (std::is_same_v<OpTy, ReduceProdOp>) {
      init = isa<FloatType>(et) ? (TypedAttr)rewriter.getFloatAttr(et, 1.0)
                                : (TypedAttr)rewriter.getIntegerAttr(et, 1);
      combine = mulScalars;
    } else {
      init = rewriter.getZeroAttr(et);
    }
    Value r = reduce(rewriter, loc, input, mask, init, combine);
    if constexpr (std::is_same_v<OpTy, ReduceMeanOp>) {
      auto rt = cast<RankedTensorType>(r.getType());
      r = elementwise(rewriter, loc, rt, ValueRange{r},
                      [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                        Value n = scalar(b, l, et, (double)count);
                        if (isa<FloatType>(et))
                          return arith::DivFOp::create(b, l, args[0], n);
                        if (isUnsignedInt)
                          return arith::DivUIOp::create(b, l, args[0], n);
                        return arith::DivSIOp::create(b, l, args[0], n);
                      });
    }
    if (widen)
      r = convertElements(rewriter, loc, r, resultType.getElementType());
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, r, resultType));
    return success();
  }
};

/// arg_max / arg_min: one reduction generic along `axis` with two accumulators, the best
/// value so far and its index. It scans in order, so a strict compare keeps the first
/// extreme and a non-strict one the last. A NaN wins over any number, as in numpy.
template <typename OpTy, bool isMax> struct ArgReduceLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type et = type.getElementType();
    if (!isa<FloatType, IntegerType>(et) || et.isInteger(1))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    int64_t axis = op.getAxis();
    bool last = op.getSelectLastIndex();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<int64_t> shape;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      iterators.push_back(d == axis ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (d == axis)
        continue;
      shape.push_back(type.getDimSize(d));
      outExprs.push_back(getAffineDimExpr(d, ctx));
    }
    Type i64 = rewriter.getI64Type();
    auto valueType = RankedTensorType::get(shape, et);
    auto indexType = RankedTensorType::get(shape, i64);
    bool isUnsignedInt = isUnsigned(op.getInput().getType());
    Value bestValue =
        filled(rewriter, loc, valueType,
               isMax ? lowestAttr(et, isUnsignedInt) : highestAttr(et, isUnsignedInt));
    Value bestIndex = filled(rewriter, loc, indexType, rewriter.getI64IntegerAttr(0));
    AffineMap outMap = AffineMap::get(type.getRank(), 0, outExprs, ctx);
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(type.getRank(), ctx), outMap,
                                   outMap};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, indexType}, ValueRange{x},
        ValueRange{bestValue, bestIndex}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = args[0], best = args[1];
          Value index = arith::IndexCastOp::create(b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value better;
          if (isa<FloatType>(et)) {
            using P = arith::CmpFPredicate;
            P pred = isMax ? (last ? P::OGE : P::OGT) : (last ? P::OLE : P::OLT);
            better = arith::CmpFOp::create(b, l, pred, v, best);
            Value isNaN = arith::CmpFOp::create(b, l, P::UNO, v, v);
            // The first NaN wins; with select_last_index the last one.
            if (!last)
              isNaN = arith::AndIOp::create(b, l, isNaN,
                                            arith::CmpFOp::create(b, l, P::ORD, best, best));
            better = arith::OrIOp::create(b, l, better, isNaN);
          } else {
            using P = arith::CmpIPredicate;
            P pred = isUnsignedInt ? (isMax ? (last ? P::uge : P::ugt) : (last ? P::ule : P::ult))
                                   : (isMax ? (last ? P::sge : P::sgt) : (last ? P::sle : P::slt));
            better = arith::CmpIOp::create(b, l, pred, v, best);
          }
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, v, best),
                         arith::SelectOp::create(b, l, better, index, args[2])});
        });
    rewriter.replaceOp(
        op, reshapeTensor(rewriter, loc, generic.getResult(1), loweredType(op.getType())));
    return success();
  }
};

/// softmax(x) = exp(x - max) / sum(exp(x - max)) along one axis.
struct SoftmaxLowering : public OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    Type resultElementType = cast<RankedTensorType>(x.getType()).getElementType();
    if (isHalfFloat(x.getType())) // computed in f32
      x = convertElements(rewriter, loc, x, rewriter.getF32Type());
    auto type = cast<RankedTensorType>(x.getType());
    Type et = type.getElementType();
    SmallVector<bool> mask(type.getRank(), false);
    mask[op.getAxis()] = true;
    // f16/bf16: each step rounds to the input type, as ONNX's reference (numpy) does; the
    // sum still accumulates in f32.
    auto rounded = [&](OpBuilder &b, Location l, Value v) -> Value {
      if (resultElementType == et)
        return v;
      Value narrow = arith::TruncFOp::create(b, l, resultElementType, v);
      return arith::ExtFOp::create(b, l, et, narrow);
    };
    Value max = keepDims(rewriter, loc, reduce(rewriter, loc, x, mask, lowestAttr(et), maxScalars),
                         type, mask);
    Value e = elementwise(rewriter, loc, type, ValueRange{x, max},
                          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                            Value d = rounded(b, l, arith::SubFOp::create(b, l, a[0], a[1]));
                            return rounded(b, l, math::ExpOp::create(b, l, d));
                          });
    Value sum =
        keepDims(rewriter, loc,
                 reduce(rewriter, loc, e, mask, rewriter.getZeroAttr(et), addScalars), type, mask);
    Value y = elementwise(rewriter, loc, type, ValueRange{e, sum},
                          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                            return arith::DivFOp::create(b, l, a[0], rounded(b, l, a[1]));
                          });
    rewriter.replaceOp(op, convertElements(rewriter, loc, y, resultElementType));
    return success();
  }
};

/// layer_norm: mean and biased variance over dims [axis, rank), then scale and shift.
struct LayerNormLowering : public OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput(), scale = adaptor.getScale(), bias = adaptor.getBias();
    Type resultElementType = cast<RankedTensorType>(x.getType()).getElementType();
    if (isHalfFloat(x.getType())) { // computed in f32
      Type f32 = rewriter.getF32Type();
      x = convertElements(rewriter, loc, x, f32);
      scale = convertElements(rewriter, loc, scale, f32);
      if (bias)
        bias = convertElements(rewriter, loc, bias, f32);
    }
    auto type = cast<RankedTensorType>(x.getType());
    Type et = type.getElementType();
    SmallVector<bool> mask(type.getRank(), false);
    int64_t count = 1;
    for (int64_t d = op.getAxis(); d < type.getRank(); ++d) {
      if (type.isDynamicDim(d))
        return rewriter.notifyMatchFailure(op, "a normalization over a dynamic dim (not yet)");
      mask[d] = true;
      count *= type.getDimSize(d);
    }
    double inv = 1.0 / (double)count, eps = op.getEpsilon().convertToDouble();
    auto scaled = [&](Value sum) {
      Value kept = keepDims(rewriter, loc, sum, type, mask);
      return elementwise(rewriter, loc, cast<RankedTensorType>(kept.getType()), ValueRange{kept},
                         [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                           return arith::MulFOp::create(b, l, a[0], scalar(b, l, et, inv));
                         });
    };
    Value mean = scaled(reduce(rewriter, loc, x, mask, rewriter.getZeroAttr(et), addScalars));
    Value centered = elementwise(rewriter, loc, type, ValueRange{x, mean},
                                 [](OpBuilder &b, Location l, ValueRange a) -> Value {
                                   return arith::SubFOp::create(b, l, a[0], a[1]);
                                 });
    Value sq = elementwise(rewriter, loc, type, ValueRange{centered},
                           [](OpBuilder &b, Location l, ValueRange a) -> Value {
                             return arith::MulFOp::create(b, l, a[0], a[0]);
                           });
    Value var = scaled(reduce(rewriter, loc, sq, mask, rewriter.getZeroAttr(et), addScalars));
    SmallVector<Value> operands = {centered, var, scale};
    if (bias)
      operands.push_back(bias);
    Value y = elementwise(
        rewriter, loc, type, operands, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          // x / sqrt(var + eps): libm has no rsqrtf to call.
          Value denom =
              math::SqrtOp::create(b, l, arith::AddFOp::create(b, l, a[1], scalar(b, l, et, eps)));
          Value v = arith::MulFOp::create(b, l, arith::DivFOp::create(b, l, a[0], denom), a[2]);
          if (a.size() > 3)
            v = arith::AddFOp::create(b, l, v, a[3]);
          return v;
        });
    rewriter.replaceOp(op, convertElements(rewriter, loc, y, resultElementType));
    return success();
  }
};
} // namespace

void infc::populateReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<ReduceSumOp>, ReduceLowering<ReduceMeanOp>,
               ReduceLowering<ReduceMaxOp>, ReduceLowering<ReduceMinOp>,
               ReduceLowering<ReduceProdOp>, SoftmaxLowering, LayerNormLowering>(
      patterns.getContext());
  patterns.add<ArgReduceLowering<ArgMaxOp, true>, ArgReduceLowering<ArgMinOp, false>>(
      patterns.getContext());
}

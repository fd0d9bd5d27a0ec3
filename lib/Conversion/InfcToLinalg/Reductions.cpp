//===- Reductions.cpp - infc reductions, softmax and layer_norm to linalg -===//
#include "PopulatePatterns.h"
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
    auto inType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = inType.getElementType();
    SmallVector<bool> mask(inType.getRank(), false);
    int64_t count = 1;
    for (int64_t a : op.getAxes()) {
      mask[a] = true;
      count *= inType.getDimSize(a);
    }
    TypedAttr init;
    Combine combine = addScalars;
    if constexpr (std::is_same_v<OpTy, ReduceMaxOp>) {
      init = lowestAttr(et);
      combine = maxScalars;
    } else if constexpr (std::is_same_v<OpTy, ReduceMinOp>) {
      init = highestAttr(et);
      combine = minScalars;
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
                        return arith::DivSIOp::create(b, l, args[0], n);
                      });
    }
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, r, resultType));
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
    auto type = cast<RankedTensorType>(x.getType());
    Type et = type.getElementType();
    SmallVector<bool> mask(type.getRank(), false);
    mask[op.getAxis()] = true;
    Value max = keepDims(rewriter, loc, reduce(rewriter, loc, x, mask, lowestAttr(et), maxScalars),
                         type, mask);
    Value e = elementwise(rewriter, loc, type, ValueRange{x, max},
                          [](OpBuilder &b, Location l, ValueRange a) -> Value {
                            return math::ExpOp::create(b, l, arith::SubFOp::create(b, l, a[0], a[1]));
                          });
    Value sum = keepDims(rewriter, loc,
                         reduce(rewriter, loc, e, mask, rewriter.getZeroAttr(et), addScalars),
                         type, mask);
    Value y = elementwise(rewriter, loc, type, ValueRange{e, sum},
                          [](OpBuilder &b, Location l, ValueRange a) -> Value {
                            return arith::DivFOp::create(b, l, a[0], a[1]);
                          });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// layer_norm: mean and biased variance over dims [axis, rank), then scale and shift.
struct LayerNormLowering : public OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type et = type.getElementType();
    SmallVector<bool> mask(type.getRank(), false);
    int64_t count = 1;
    for (int64_t d = op.getAxis(); d < type.getRank(); ++d) {
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
    SmallVector<Value> operands = {centered, var, adaptor.getScale()};
    if (adaptor.getBias())
      operands.push_back(adaptor.getBias());
    Value y = elementwise(rewriter, loc, type, operands,
                          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                            // x / sqrt(var + eps): libm has no rsqrtf to call.
                            Value denom = math::SqrtOp::create(
                                b, l, arith::AddFOp::create(b, l, a[1], scalar(b, l, et, eps)));
                            Value v = arith::MulFOp::create(
                                b, l, arith::DivFOp::create(b, l, a[0], denom), a[2]);
                            if (a.size() > 3)
                              v = arith::AddFOp::create(b, l, v, a[3]);
                            return v;
                          });
    rewriter.replaceOp(op, y);
    return success();
  }
};
} // namespace

void infc::populateReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<ReduceSumOp>, ReduceLowering<ReduceMeanOp>,
               ReduceLowering<ReduceMaxOp>, ReduceLowering<ReduceMinOp>,
               ReduceLowering<ReduceProdOp>, SoftmaxLowering, LayerNormLowering>(
      patterns.getContext());
}

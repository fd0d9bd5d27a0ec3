//===- Elementwise.cpp - infc elementwise ops to broadcasting linalg.generic ===//
#include "PopulatePatterns.h"
#include "Utils.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace infc;
using namespace infc::lowering;

namespace {
/// What a scalar body needs to know beyond its operands: the result element type (signless)
/// and whether the infc op's integer operands are unsigned.
struct ScalarInfo {
  Type et;
  bool isUnsigned;
};

/// The scalar computation of one element of OpTy; null when the element type is unsupported.
/// `args` are the operand scalars (signless).
template <typename OpTy>
Value scalarOp(OpBuilder &b, Location loc, OpTy op, ValueRange args, ScalarInfo info);

/// Float op F, signed-integer op S or unsigned-integer op U, by operand element type.
template <typename F, typename S, typename U = S>
Value floatOrInt(OpBuilder &b, Location loc, ValueRange args, bool isUnsigned) {
  if (isa<FloatType>(args[0].getType())) {
    if constexpr (!std::is_same_v<F, void>)
      return F::create(b, loc, args[0], args[1]);
    return nullptr;
  }
  if constexpr (!std::is_same_v<S, void>)
    return isUnsigned ? (Value)U::create(b, loc, args[0], args[1])
                      : (Value)S::create(b, loc, args[0], args[1]);
  return nullptr;
}

Value compare(OpBuilder &b, Location loc, ValueRange args, arith::CmpFPredicate f,
              arith::CmpIPredicate i) {
  if (isa<FloatType>(args[0].getType()))
    return arith::CmpFOp::create(b, loc, f, args[0], args[1]);
  return arith::CmpIOp::create(b, loc, i, args[0], args[1]);
}

template <typename MathOp> Value floatUnary(OpBuilder &b, Location loc, ValueRange args) {
  if (!isa<FloatType>(args[0].getType()))
    return nullptr;
  return MathOp::create(b, loc, args[0]);
}

#define SCALAR(OP)                                                                                 \
  template <>                                                                                      \
  Value scalarOp<OP>(OpBuilder & b, Location loc, OP op, ValueRange args, ScalarInfo info)

SCALAR(AddOp) { return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, args, false); }
SCALAR(SubOp) { return floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, args, false); }
SCALAR(MulOp) { return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, args, false); }
SCALAR(DivOp) {
  return floatOrInt<arith::DivFOp, arith::DivSIOp, arith::DivUIOp>(b, loc, args, info.isUnsigned);
}
/// Integer powers by squaring over the exponent's bits (wrapping like numpy); a negative
/// signed exponent gives 0 (numpy refuses it, ONNX leaves it open).
SCALAR(PowOp) {
  if (isa<FloatType>(args[0].getType()))
    return math::PowFOp::create(b, loc, args[0], args[1]);
  Type et = info.et;
  unsigned w = et.getIntOrFloatBitWidth();
  if (!isa<IntegerType>(et) || w == 1 || args[1].getType() != et)
    return nullptr;
  Value zero = scalar(b, loc, et, 0), one = scalar(b, loc, et, 1);
  auto loop = scf::ForOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, 0), arith::ConstantIndexOp::create(b, loc, w),
      arith::ConstantIndexOp::create(b, loc, 1), ValueRange{one, args[0], args[1]},
      [&](OpBuilder &lb, Location l, Value, ValueRange st) {
        Value bit = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::ne,
                                          arith::AndIOp::create(lb, l, st[2], one), zero);
        Value r =
            arith::SelectOp::create(lb, l, bit, arith::MulIOp::create(lb, l, st[0], st[1]), st[0]);
        Value base = arith::MulIOp::create(lb, l, st[1], st[1]);
        Value e = arith::ShRUIOp::create(lb, l, st[2], one);
        scf::YieldOp::create(lb, l, ValueRange{r, base, e});
      });
  Value result = loop.getResult(0);
  if (info.isUnsigned)
    return result;
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, args[1], zero);
  return arith::SelectOp::create(b, loc, negative, zero, result);
}
// On i1, max is `or` and min is `and` (signed compares would take true for -1).
SCALAR(MaxOp) {
  if (info.et.isInteger(1))
    return arith::OrIOp::create(b, loc, args[0], args[1]);
  return floatOrInt<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>(b, loc, args,
                                                                       info.isUnsigned);
}
SCALAR(MinOp) {
  if (info.et.isInteger(1))
    return arith::AndIOp::create(b, loc, args[0], args[1]);
  return floatOrInt<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>(b, loc, args,
                                                                       info.isUnsigned);
}
SCALAR(AndOp) { return arith::AndIOp::create(b, loc, args[0], args[1]); }
SCALAR(OrOp) { return arith::OrIOp::create(b, loc, args[0], args[1]); }
SCALAR(XorOp) { return arith::XOrIOp::create(b, loc, args[0], args[1]); }
SCALAR(EqualOp) {
  return compare(b, loc, args, arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq);
}
SCALAR(LessOp) {
  return compare(b, loc, args, arith::CmpFPredicate::OLT,
                 info.isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt);
}
SCALAR(GreaterOp) {
  return compare(b, loc, args, arith::CmpFPredicate::OGT,
                 info.isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt);
}
SCALAR(RemOp) {
  return floatOrInt<arith::RemFOp, arith::RemSIOp, arith::RemUIOp>(b, loc, args, info.isUnsigned);
}
// ONNX BitShift: an amount outside [0, width) shifts everything out. As unsigned, a negative
// amount is >= width too, so one compare finds both.
Value shiftInRange(OpBuilder &b, Location loc, Value amount, Type et) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, amount,
                               scalar(b, loc, et, et.getIntOrFloatBitWidth()));
}
SCALAR(ShiftLeftOp) {
  Type et = info.et;
  if (!isa<IntegerType>(et))
    return nullptr;
  Value inRange = shiftInRange(b, loc, args[1], et), zero = scalar(b, loc, et, 0);
  // The clamped amount keeps shli defined; the select then picks 0.
  Value amount = arith::SelectOp::create(b, loc, inRange, args[1], zero);
  Value shifted = arith::ShLIOp::create(b, loc, args[0], amount);
  return arith::SelectOp::create(b, loc, inRange, shifted, zero);
}
SCALAR(ShiftRightOp) {
  Type et = info.et;
  if (!isa<IntegerType>(et))
    return nullptr;
  Value inRange = shiftInRange(b, loc, args[1], et);
  if (info.isUnsigned) { // logical shift: out-of-range amounts leave 0, like shift_left
    Value zero = scalar(b, loc, et, 0);
    Value amount = arith::SelectOp::create(b, loc, inRange, args[1], zero);
    Value shifted = arith::ShRUIOp::create(b, loc, args[0], amount);
    return arith::SelectOp::create(b, loc, inRange, shifted, zero);
  }
  // Shifting by width - 1 leaves just the sign fill, which is ONNX's out-of-range result.
  Value amount = arith::SelectOp::create(b, loc, inRange, args[1],
                                         scalar(b, loc, et, et.getIntOrFloatBitWidth() - 1));
  return arith::ShRSIOp::create(b, loc, args[0], amount);
}
SCALAR(WhereOp) { return arith::SelectOp::create(b, loc, args[0], args[1], args[2]); }

SCALAR(NegOp) {
  if (isa<FloatType>(info.et))
    return arith::NegFOp::create(b, loc, args[0]);
  return arith::SubIOp::create(b, loc, scalar(b, loc, info.et, 0), args[0]);
}
SCALAR(AbsOp) {
  if (isa<FloatType>(info.et))
    return math::AbsFOp::create(b, loc, args[0]);
  if (info.isUnsigned)
    return args[0];
  // max(x, 0 - x): the LLVM conversions leave math.absi illegal. INT_MIN stays INT_MIN.
  Value negated = arith::SubIOp::create(b, loc, scalar(b, loc, info.et, 0), args[0]);
  return arith::MaxSIOp::create(b, loc, args[0], negated);
}
SCALAR(SqrtOp) { return floatUnary<math::SqrtOp>(b, loc, args); }
SCALAR(ExpOp) { return floatUnary<math::ExpOp>(b, loc, args); }
SCALAR(LogOp) { return floatUnary<math::LogOp>(b, loc, args); }
SCALAR(ErfOp) { return floatUnary<math::ErfOp>(b, loc, args); }
SCALAR(TanhOp) { return floatUnary<math::TanhOp>(b, loc, args); }
SCALAR(FloorOp) { return floatUnary<math::FloorOp>(b, loc, args); }
SCALAR(CeilOp) { return floatUnary<math::CeilOp>(b, loc, args); }
SCALAR(RoundOp) { return floatUnary<math::RoundEvenOp>(b, loc, args); }
SCALAR(SinOp) { return floatUnary<math::SinOp>(b, loc, args); }
SCALAR(CosOp) { return floatUnary<math::CosOp>(b, loc, args); }
SCALAR(TanOp) { return floatUnary<math::TanOp>(b, loc, args); }
SCALAR(AsinOp) { return floatUnary<math::AsinOp>(b, loc, args); }
SCALAR(AcosOp) { return floatUnary<math::AcosOp>(b, loc, args); }
SCALAR(AtanOp) { return floatUnary<math::AtanOp>(b, loc, args); }
SCALAR(SinhOp) { return floatUnary<math::SinhOp>(b, loc, args); }
SCALAR(CoshOp) { return floatUnary<math::CoshOp>(b, loc, args); }
SCALAR(AsinhOp) { return floatUnary<math::AsinhOp>(b, loc, args); }
SCALAR(AcoshOp) { return floatUnary<math::AcoshOp>(b, loc, args); }
SCALAR(AtanhOp) { return floatUnary<math::AtanhOp>(b, loc, args); }
SCALAR(SigmoidOp) {
  if (!isa<FloatType>(info.et))
    return nullptr;
  Value one = scalar(b, loc, info.et, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, args[0]));
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
}
SCALAR(ReluOp) {
  if (info.isUnsigned)
    return args[0];
  Value zero = scalar(b, loc, info.et, 0.0);
  if (isa<FloatType>(info.et))
    return arith::MaximumFOp::create(b, loc, args[0], zero);
  return arith::MaxSIOp::create(b, loc, args[0], zero);
}
SCALAR(ReciprocalOp) {
  if (!isa<FloatType>(info.et))
    return nullptr;
  return arith::DivFOp::create(b, loc, scalar(b, loc, info.et, 1.0), args[0]);
}
SCALAR(NotOp) {
  APInt ones = APInt::getAllOnes(info.et.getIntOrFloatBitWidth());
  return arith::XOrIOp::create(b, loc, args[0],
                               arith::ConstantOp::create(b, loc, b.getIntegerAttr(info.et, ones)));
}
SCALAR(ClipOp) {
  Type et = info.et;
  double min = op.getMin().convertToDouble(), max = op.getMax().convertToDouble();
  Value lo = scalar(b, loc, et, min, info.isUnsigned);
  Value hi = scalar(b, loc, et, max, info.isUnsigned);
  if (isa<FloatType>(et)) {
    // Infinite bounds are no bound at all; skip them so NaN handling stays the input's.
    Value v = args[0];
    if (!std::isinf(min) || min > 0)
      v = arith::MaximumFOp::create(b, loc, v, lo);
    if (!std::isinf(max) || max < 0)
      v = arith::MinimumFOp::create(b, loc, v, hi);
    return v;
  }
  if (info.isUnsigned)
    return arith::MinUIOp::create(b, loc, arith::MaxUIOp::create(b, loc, args[0], lo), hi);
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, args[0], lo), hi);
}
SCALAR(LeakyReluOp) {
  Type et = info.et;
  if (!isa<FloatType>(et))
    return nullptr;
  Value zero = scalar(b, loc, et, 0.0);
  Value alpha = scalar(b, loc, et, op.getAlpha().convertToDouble());
  Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, args[0], zero);
  Value scaled = arith::MulFOp::create(b, loc, args[0], alpha);
  return arith::SelectOp::create(b, loc, neg, scaled, args[0]);
}
#undef SCALAR
} // namespace

/// ONNX Cast: float to int truncates toward zero, anything to bool is "!= 0"; the
/// signedness of each side picks sign or zero extension and the int/float conversions.
Value lowering::castScalar(OpBuilder &b, Location loc, Value x, bool fromUnsigned, Type to,
                           bool toUnsigned) {
  Type from = x.getType();
  if (from == to)
    return x;
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (to.isInteger(1))
    return fromFloat ? (Value)arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                                    scalar(b, loc, from, 0.0))
                     : (Value)arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                                    scalar(b, loc, from, 0));
  if (fromFloat && toFloat && from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth()) {
    // f16 <-> bf16: through f32, which holds both exactly.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? (Value)arith::ExtFOp::create(b, loc, to, x)
               : (Value)arith::TruncFOp::create(b, loc, to, x);
  if (fromFloat && to.getIntOrFloatBitWidth() < 8) // int4/int2: truncate, then wrap
    return arith::TruncIOp::create(b, loc, to, arith::FPToSIOp::create(b, loc, b.getI32Type(), x));
  if (fromFloat)
    return toUnsigned ? (Value)arith::FPToUIOp::create(b, loc, to, x)
                      : (Value)arith::FPToSIOp::create(b, loc, to, x);
  if (toFloat)
    return from.isInteger(1) || fromUnsigned ? (Value)arith::UIToFPOp::create(b, loc, to, x)
                                             : (Value)arith::SIToFPOp::create(b, loc, to, x);
  if (from.getIntOrFloatBitWidth() >= to.getIntOrFloatBitWidth())
    return from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth()
               ? x
               : (Value)arith::TruncIOp::create(b, loc, to, x);
  return from.isInteger(1) || fromUnsigned ? (Value)arith::ExtUIOp::create(b, loc, to, x)
                                           : (Value)arith::ExtSIOp::create(b, loc, to, x);
}

Value lowering::convertElements(OpBuilder &b, Location loc, Value value, Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return elementwise(b, loc, type.clone(elementType), ValueRange{value},
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       return castScalar(nb, l, args[0], false, elementType, false);
                     });
}

namespace {
/// Any elementwise infc op: one broadcasting generic computing scalarOp<OpTy>. f16 and bf16
/// operands are widened to f32 and the result rounded back.
template <typename OpTy> struct ElementwiseLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = loweredType(op.getType());
    Type et = resultType.getElementType();
    // The value operands (where's condition is i1 whatever the values are).
    Value typed = op->getOperand(std::is_same_v<OpTy, WhereOp> ? 1 : 0);
    ScalarInfo info{et, isUnsigned(typed.getType())};
    bool widen = !std::is_same_v<OpTy, WhereOp> && isHalfFloat(typed.getType());
    bool supported = true;
    Value result = elementwise(rewriter, op.getLoc(), resultType, adaptor.getOperands(),
                               [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                                 SmallVector<Value> xs(args);
                                 ScalarInfo inner = info;
                                 if (widen) {
                                   for (Value &x : xs)
                                     if (isHalfFloat(x.getType()))
                                       x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
                                   if (isHalfFloat(et))
                                     inner.et = b.getF32Type();
                                 }
                                 Value v = scalarOp<OpTy>(b, loc, op, xs, inner);
                                 if (!v) {
                                   supported = false;
                                   return args[0];
                                 }
                                 if (v.getType() != et)
                                   v = arith::TruncFOp::create(b, loc, et, v);
                                 return v;
                               });
    if (!supported) {
      rewriter.eraseOp(result.getDefiningOp());
      return op.emitOpError("is not supported on element type ")
             << cast<RankedTensorType>(typed.getType()).getElementType();
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct CastLowering : public OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = loweredType(op.getType());
    Type from = getElementTypeOrSelf(op.getInput().getType());
    Type to = getElementTypeOrSelf(op.getType());
    bool fromUnsigned = isUnsigned(from), toUnsigned = isUnsigned(to);
    rewriter.replaceOp(op,
                       elementwise(rewriter, op.getLoc(), resultType, adaptor.getOperands(),
                                   [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                                     // float8/float4 go through f32 (which holds each exactly).
                                     Value x = args[0];
                                     if (isSmallFloat(from))
                                       x = decodeSmallFloat(b, loc, x, from);
                                     if (!isSmallFloat(to))
                                       return castScalar(b, loc, x, fromUnsigned,
                                                         resultType.getElementType(), toUnsigned);
                                     x = castScalar(b, loc, x, fromUnsigned, b.getF32Type(), false);
                                     return encodeSmallFloat(b, loc, x, to, op.getSaturate());
                                   }));
    return success();
  }
};

/// BitCast: the bits as they are; a bool widens to its stored byte first.
struct BitcastLowering : public OpConversionPattern<BitcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BitcastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = loweredType(op.getType());
    Type to = resultType.getElementType();
    rewriter.replaceOp(op, elementwise(rewriter, op.getLoc(), resultType, adaptor.getOperands(),
                                       [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                                         Value x = args[0];
                                         if (x.getType().isInteger(1) && !to.isInteger(1))
                                           x = arith::ExtUIOp::create(b, loc, b.getI8Type(), x);
                                         if (x.getType() == to)
                                           return x;
                                         return arith::BitcastOp::create(b, loc, to, x);
                                       }));
    return success();
  }
};
} // namespace

void infc::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<
      ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>, ElementwiseLowering<MulOp>,
      ElementwiseLowering<DivOp>, ElementwiseLowering<PowOp>, ElementwiseLowering<MaxOp>,
      ElementwiseLowering<MinOp>, ElementwiseLowering<AndOp>, ElementwiseLowering<OrOp>,
      ElementwiseLowering<XorOp>, ElementwiseLowering<EqualOp>, ElementwiseLowering<LessOp>,
      ElementwiseLowering<GreaterOp>, ElementwiseLowering<WhereOp>, ElementwiseLowering<NegOp>,
      ElementwiseLowering<AbsOp>, ElementwiseLowering<SqrtOp>, ElementwiseLowering<ExpOp>,
      ElementwiseLowering<LogOp>, ElementwiseLowering<ErfOp>, ElementwiseLowering<TanhOp>,
      ElementwiseLowering<FloorOp>, ElementwiseLowering<CeilOp>, ElementwiseLowering<SigmoidOp>,
      ElementwiseLowering<ReluOp>, ElementwiseLowering<ReciprocalOp>, ElementwiseLowering<NotOp>,
      ElementwiseLowering<ClipOp>, ElementwiseLowering<LeakyReluOp>, CastLowering, BitcastLowering>(
      patterns.getContext());
  patterns
      .add<ElementwiseLowering<RemOp>, ElementwiseLowering<ShiftLeftOp>,
           ElementwiseLowering<ShiftRightOp>, ElementwiseLowering<RoundOp>,
           ElementwiseLowering<SinOp>, ElementwiseLowering<CosOp>, ElementwiseLowering<TanOp>,
           ElementwiseLowering<AsinOp>, ElementwiseLowering<AcosOp>, ElementwiseLowering<AtanOp>,
           ElementwiseLowering<SinhOp>, ElementwiseLowering<CoshOp>, ElementwiseLowering<AsinhOp>,
           ElementwiseLowering<AcoshOp>, ElementwiseLowering<AtanhOp>>(patterns.getContext());
}

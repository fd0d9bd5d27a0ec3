//===- Elementwise.cpp - infc elementwise ops to broadcasting linalg.generic ===//
#include "PopulatePatterns.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace infc;
using namespace infc::lowering;

namespace {
/// The scalar computation of one element of OpTy; null when the element type is unsupported.
/// `args` are the operand scalars, `et` the result element type.
template <typename OpTy>
Value scalarOp(OpBuilder &b, Location loc, OpTy op, ValueRange args, Type et);

/// Float op F or signed-integer op I, by operand element type.
template <typename F, typename I>
Value floatOrInt(OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return F::create(b, loc, args[0], args[1]);
  if constexpr (!std::is_same_v<I, void>)
    return I::create(b, loc, args[0], args[1]);
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

#define SCALAR(OP)                                                                      \
  template <>                                                                           \
  Value scalarOp<OP>(OpBuilder & b, Location loc, OP op, ValueRange args, Type et)

SCALAR(AddOp) { return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, args); }
SCALAR(SubOp) { return floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, args); }
SCALAR(MulOp) { return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, args); }
SCALAR(DivOp) { return floatOrInt<arith::DivFOp, arith::DivSIOp>(b, loc, args); }
SCALAR(PowOp) { return floatOrInt<math::PowFOp, void>(b, loc, args); }
// On i1, max is `or` and min is `and` (signed compares would take true for -1).
SCALAR(MaxOp) {
  if (et.isInteger(1))
    return arith::OrIOp::create(b, loc, args[0], args[1]);
  return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, args);
}
SCALAR(MinOp) {
  if (et.isInteger(1))
    return arith::AndIOp::create(b, loc, args[0], args[1]);
  return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, args);
}
SCALAR(AndOp) { return arith::AndIOp::create(b, loc, args[0], args[1]); }
SCALAR(OrOp) { return arith::OrIOp::create(b, loc, args[0], args[1]); }
SCALAR(EqualOp) {
  return compare(b, loc, args, arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq);
}
SCALAR(LessOp) {
  return compare(b, loc, args, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
}
SCALAR(GreaterOp) {
  return compare(b, loc, args, arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt);
}
SCALAR(RemOp) { return floatOrInt<arith::RemFOp, arith::RemSIOp>(b, loc, args); }
// ONNX BitShift: an amount outside [0, width) shifts everything out. As unsigned, a negative
// amount is >= width too, so one compare finds both.
Value shiftInRange(OpBuilder &b, Location loc, Value amount, Type et) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, amount,
                               scalar(b, loc, et, et.getIntOrFloatBitWidth()));
}
SCALAR(ShiftLeftOp) {
  if (!isa<IntegerType>(et))
    return nullptr;
  Value inRange = shiftInRange(b, loc, args[1], et), zero = scalar(b, loc, et, 0);
  // The clamped amount keeps shli defined; the select then picks 0.
  Value amount = arith::SelectOp::create(b, loc, inRange, args[1], zero);
  Value shifted = arith::ShLIOp::create(b, loc, args[0], amount);
  return arith::SelectOp::create(b, loc, inRange, shifted, zero);
}
SCALAR(ShiftRightOp) {
  if (!isa<IntegerType>(et))
    return nullptr;
  // Shifting by width - 1 leaves just the sign fill, which is ONNX's out-of-range result.
  Value inRange = shiftInRange(b, loc, args[1], et);
  Value amount = arith::SelectOp::create(b, loc, inRange, args[1],
                                         scalar(b, loc, et, et.getIntOrFloatBitWidth() - 1));
  return arith::ShRSIOp::create(b, loc, args[0], amount);
}
SCALAR(WhereOp) { return arith::SelectOp::create(b, loc, args[0], args[1], args[2]); }

SCALAR(NegOp) {
  if (isa<FloatType>(et))
    return arith::NegFOp::create(b, loc, args[0]);
  return arith::SubIOp::create(b, loc, scalar(b, loc, et, 0), args[0]);
}
SCALAR(AbsOp) {
  if (isa<FloatType>(et))
    return math::AbsFOp::create(b, loc, args[0]);
  // max(x, 0 - x): the LLVM conversions leave math.absi illegal. INT_MIN stays INT_MIN.
  Value negated = arith::SubIOp::create(b, loc, scalar(b, loc, et, 0), args[0]);
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
  if (!isa<FloatType>(et))
    return nullptr;
  Value one = scalar(b, loc, et, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, args[0]));
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
}
SCALAR(ReluOp) {
  Value zero = scalar(b, loc, et, 0.0);
  if (isa<FloatType>(et))
    return arith::MaximumFOp::create(b, loc, args[0], zero);
  return arith::MaxSIOp::create(b, loc, args[0], zero);
}
SCALAR(ReciprocalOp) {
  if (!isa<FloatType>(et))
    return nullptr;
  return arith::DivFOp::create(b, loc, scalar(b, loc, et, 1.0), args[0]);
}
SCALAR(NotOp) {
  return arith::XOrIOp::create(b, loc, args[0], arith::ConstantOp::create(
                                                    b, loc, b.getIntegerAttr(et, 1)));
}
SCALAR(ClipOp) {
  Value lo = scalar(b, loc, et, op.getMin().convertToDouble());
  Value hi = scalar(b, loc, et, op.getMax().convertToDouble());
  if (isa<FloatType>(et)) {
    auto ft = cast<FloatType>(et);
    // Infinite bounds are no bound at all; skip them so NaN handling stays the input's.
    Value v = args[0];
    if (!std::isinf(op.getMin().convertToDouble()) || op.getMin().convertToDouble() > 0)
      v = arith::MaximumFOp::create(b, loc, v, lo);
    if (!std::isinf(op.getMax().convertToDouble()) || op.getMax().convertToDouble() < 0)
      v = arith::MinimumFOp::create(b, loc, v, hi);
    (void)ft;
    return v;
  }
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, args[0], lo), hi);
}
SCALAR(LeakyReluOp) {
  if (!isa<FloatType>(et))
    return nullptr;
  Value zero = scalar(b, loc, et, 0.0);
  Value alpha = scalar(b, loc, et, op.getAlpha().convertToDouble());
  Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, args[0], zero);
  Value scaled = arith::MulFOp::create(b, loc, args[0], alpha);
  return arith::SelectOp::create(b, loc, neg, scaled, args[0]);
}
/// ONNX Cast: float to int truncates toward zero, anything to bool is "!= 0".
SCALAR(CastOp) {
  Value x = args[0];
  Type from = x.getType();
  if (from == et)
    return x;
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(et);
  if (et.isInteger(1))
    return fromFloat ? (Value)arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                                    scalar(b, loc, from, 0.0))
                     : (Value)arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                                    scalar(b, loc, from, 0));
  if (fromFloat && toFloat && from.getIntOrFloatBitWidth() == et.getIntOrFloatBitWidth()) {
    // f16 <-> bf16: through f32, which holds both exactly.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, et, wide);
  }
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < et.getIntOrFloatBitWidth()
               ? (Value)arith::ExtFOp::create(b, loc, et, x)
               : (Value)arith::TruncFOp::create(b, loc, et, x);
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, et, x);
  if (toFloat)
    return from.isInteger(1) ? (Value)arith::UIToFPOp::create(b, loc, et, x)
                             : (Value)arith::SIToFPOp::create(b, loc, et, x);
  if (from.isInteger(1))
    return arith::ExtUIOp::create(b, loc, et, x);
  return from.getIntOrFloatBitWidth() < et.getIntOrFloatBitWidth()
             ? (Value)arith::ExtSIOp::create(b, loc, et, x)
             : (Value)arith::TruncIOp::create(b, loc, et, x);
}
#undef SCALAR

/// Any elementwise infc op: one broadcasting generic computing scalarOp<OpTy>.
template <typename OpTy> struct ElementwiseLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    bool supported = true;
    Value result = elementwise(rewriter, op.getLoc(), resultType, adaptor.getOperands(),
                               [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                                 Value v = scalarOp<OpTy>(b, loc, op, args, et);
                                 if (v)
                                   return v;
                                 supported = false;
                                 return args[0];
                               });
    if (!supported) {
      rewriter.eraseOp(result.getDefiningOp());
      return op.emitOpError("is not supported on element type ")
             << cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void infc::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
               ElementwiseLowering<MulOp>, ElementwiseLowering<DivOp>,
               ElementwiseLowering<PowOp>, ElementwiseLowering<MaxOp>,
               ElementwiseLowering<MinOp>, ElementwiseLowering<AndOp>,
               ElementwiseLowering<OrOp>, ElementwiseLowering<EqualOp>,
               ElementwiseLowering<LessOp>, ElementwiseLowering<GreaterOp>,
               ElementwiseLowering<WhereOp>, ElementwiseLowering<NegOp>,
               ElementwiseLowering<AbsOp>, ElementwiseLowering<SqrtOp>,
               ElementwiseLowering<ExpOp>, ElementwiseLowering<LogOp>,
               ElementwiseLowering<ErfOp>, ElementwiseLowering<TanhOp>,
               ElementwiseLowering<FloorOp>, ElementwiseLowering<CeilOp>,
               ElementwiseLowering<SigmoidOp>, ElementwiseLowering<ReluOp>,
               ElementwiseLowering<ReciprocalOp>, ElementwiseLowering<NotOp>,
               ElementwiseLowering<ClipOp>, ElementwiseLowering<LeakyReluOp>,
               ElementwiseLowering<CastOp>>(patterns.getContext());
  patterns.add<ElementwiseLowering<RemOp>, ElementwiseLowering<ShiftLeftOp>,
               ElementwiseLowering<ShiftRightOp>, ElementwiseLowering<RoundOp>,
               ElementwiseLowering<SinOp>, ElementwiseLowering<CosOp>,
               ElementwiseLowering<TanOp>, ElementwiseLowering<AsinOp>,
               ElementwiseLowering<AcosOp>, ElementwiseLowering<AtanOp>,
               ElementwiseLowering<SinhOp>, ElementwiseLowering<CoshOp>,
               ElementwiseLowering<AsinhOp>, ElementwiseLowering<AcoshOp>,
               ElementwiseLowering<AtanhOp>>(patterns.getContext());
}

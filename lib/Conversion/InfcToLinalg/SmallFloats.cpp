//===- SmallFloats.cpp - float8 / float4 encoding and decoding in integer ops ===//
//
// LLVM has no 8- or 4-bit float types, so below the infc dialect a float8/float4 tensor is a
// tensor of its bits (i8 / i4). Only cast looks at the values: it decodes to f32 and encodes
// from f32 with these integer-only sequences (ONNX Cast rules: round to nearest even,
// saturating by default).
//
//===----------------------------------------------------------------------===//
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace infc;

namespace {
struct Format {
  int exponent, mantissa, bias;
  int64_t maxCode;   // the largest finite magnitude's bits
  int64_t infCode;   // -1: no infinity
  int64_t nanCode;   // -1: no NaN
  bool unsignedZero; // FNUZ: no negative zero, the NaN is the sign bit alone (0x80)
};

Format formatOf(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return {4, 3, 7, 0x7E, -1, 0x7F, false};
  if (isa<Float8E4M3FNUZType>(t))
    return {4, 3, 8, 0x7F, -1, 0x80, true};
  if (isa<Float8E5M2Type>(t))
    return {5, 2, 15, 0x7B, 0x7C, 0x7E, false};
  if (isa<Float8E5M2FNUZType>(t))
    return {5, 2, 16, 0x7F, -1, 0x80, true};
  assert(isa<Float4E2M1FNType>(t) && "not a small float");
  return {2, 1, 1, 0x7, -1, -1, false};
}

struct BitOps {
  OpBuilder &b;
  Location loc;
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Value c(int64_t v) { return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v)); }
  Value cf(double v) { return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v)); }
  Value andi(Value x, int64_t m) { return arith::AndIOp::create(b, loc, x, c(m)); }
  Value shr(Value x, int64_t s) { return arith::ShRUIOp::create(b, loc, x, c(s)); }
  Value shl(Value x, int64_t s) { return arith::ShLIOp::create(b, loc, x, c(s)); }
  Value cmp(arith::CmpIPredicate p, Value x, int64_t v) {
    return arith::CmpIOp::create(b, loc, p, x, c(v));
  }
  Value select(Value cond, Value x, Value y) { return arith::SelectOp::create(b, loc, cond, x, y); }
};
} // namespace

bool lowering::isSmallFloat(Type type) {
  Type et = getElementTypeOrSelf(type);
  return isa<FloatType>(et) && et.getIntOrFloatBitWidth() < 16;
}

Value lowering::decodeSmallFloat(OpBuilder &ob, Location loc, Value bits, Type from) {
  Format f = formatOf(from);
  BitOps b{ob, loc};
  using P = arith::CmpIPredicate;
  int width = f.exponent + f.mantissa;
  Value code = arith::ExtUIOp::create(ob, loc, b.i32, bits);
  Value mag = b.andi(code, (1 << width) - 1);
  Value exp = b.shr(mag, f.mantissa), mant = b.andi(mag, (1 << f.mantissa) - 1);
  // Normal: rebias the exponent into f32's; subnormal: mant * 2^(1 - bias - M), exact.
  Value normalBits = arith::OrIOp::create(
      ob, loc, b.shl(arith::AddIOp::create(ob, loc, exp, b.c(127 - f.bias)), 23),
      b.shl(mant, 23 - f.mantissa));
  Value normal = arith::BitcastOp::create(ob, loc, b.f32, normalBits);
  Value sub = arith::MulFOp::create(ob, loc, arith::UIToFPOp::create(ob, loc, b.f32, mant),
                                    b.cf(std::ldexp(1.0, 1 - f.bias - f.mantissa)));
  Value v = b.select(b.cmp(P::eq, exp, 0), sub, normal);
  if (f.infCode >= 0) // IEEE-like: an all-ones exponent is inf (mantissa 0) or NaN
    v = b.select(b.cmp(P::eq, mag, f.infCode), b.cf(INFINITY), v);
  Value neg = arith::NegFOp::create(ob, loc, v);
  v = b.select(b.cmp(P::ne, b.shr(code, width), 0), neg, v);
  if (f.nanCode < 0)
    return v;
  Value isNaN = f.unsignedZero   ? b.cmp(P::eq, code, f.nanCode)
                : f.infCode >= 0 ? b.cmp(P::ugt, mag, f.infCode)
                                 : b.cmp(P::eq, mag, f.nanCode);
  return b.select(isNaN, b.cf(NAN), v);
}

Value lowering::encodeSmallFloat(OpBuilder &ob, Location loc, Value x, Type to, bool saturate) {
  Format f = formatOf(to);
  BitOps b{ob, loc};
  using P = arith::CmpIPredicate;
  int width = f.exponent + f.mantissa, shift = 23 - f.mantissa;
  Value bits = arith::BitcastOp::create(ob, loc, b.i32, x);
  Value sign = b.shr(bits, 31);
  Value absBits = b.andi(bits, 0x7fffffff);
  Value absF = arith::BitcastOp::create(ob, loc, b.f32, absBits);
  // Normal range: round f32's mantissa to M bits, ties to even (a carry bumps the
  // exponent, as it should), then rebias the exponent.
  Value rounded =
      b.shr(arith::AddIOp::create(ob, loc, absBits,
                                  arith::AddIOp::create(ob, loc, b.c((1 << (shift - 1)) - 1),
                                                        b.andi(b.shr(absBits, shift), 1))),
            shift);
  Value normal = arith::SubIOp::create(ob, loc, rounded, b.c((127 - f.bias) << f.mantissa));
  // Subnormal range: the count of smallest subnormals, rounded to even by adding and
  // subtracting 2^23; it is also the code (2^M, the smallest normal, included).
  Value scaled =
      arith::MulFOp::create(ob, loc, absF, b.cf(std::ldexp(1.0, f.bias - 1 + f.mantissa)));
  Value magic = b.cf(8388608.0);
  Value q = arith::FPToSIOp::create(
      ob, loc, b.i32,
      arith::SubFOp::create(ob, loc, arith::AddFOp::create(ob, loc, scaled, magic), magic));
  Value isSub = arith::CmpFOp::create(ob, loc, arith::CmpFPredicate::OLT, absF,
                                      b.cf(std::ldexp(1.0, 1 - f.bias)));
  Value code = b.select(isSub, q, normal);
  // Too large (infinity included): the largest finite value when saturating (and always
  // for float4, which has neither), else infinity or NaN.
  Value over = b.cmp(P::sgt, code, f.maxCode);
  bool overflowIsNaN = !saturate && f.infCode < 0 && f.nanCode >= 0;
  int64_t overflowCode = saturate || f.nanCode < 0 ? f.maxCode
                         : f.infCode >= 0          ? f.infCode
                                                   : f.nanCode;
  code = b.select(over, b.c(overflowCode), code);
  Value isNaN = b.cmp(P::ugt, absBits, 0x7f800000);
  if (overflowIsNaN)
    isNaN = arith::OrIOp::create(ob, loc, isNaN, over);
  Value result;
  if (f.unsignedZero) { // no -0; the one NaN is 0x80
    Value signedCode = arith::OrIOp::create(ob, loc, code, b.shl(sign, width));
    result = b.select(b.cmp(P::eq, code, 0), code, signedCode);
    result = b.select(isNaN, b.c(f.nanCode), result);
  } else {
    // Float4 has no NaN: it becomes a zero.
    Value magnitude = b.select(isNaN, b.c(f.nanCode < 0 ? 0 : f.nanCode), code);
    result = arith::OrIOp::create(ob, loc, magnitude, b.shl(sign, width));
  }
  return arith::TruncIOp::create(ob, loc, ob.getIntegerType(to.getIntOrFloatBitWidth()), result);
}

//===- InfcFold.cpp - constant folding of infc ops ------------------------===//
//
// Folding evaluates every op whose operands are constants at compile time: the shape
// subgraphs exporters emit (Shape -> Gather -> Concat -> Reshape) and the weight
// preprocessing (transposed Gemm weights, BatchNorm scale/shift) never reach run time.
//
//===----------------------------------------------------------------------===//
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace infc;

namespace {
/// Row-major strides of a static shape.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Elements of a constant, unpacked to bytes (one byte per i1) so data-movement folds can
/// permute them without caring about the element type.
struct RawElements {
  RankedTensorType type;
  int64_t width = 0; // bytes per element
  std::vector<char> bytes;
};

std::optional<RawElements> unpack(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  RawElements raw;
  raw.type = cast<RankedTensorType>(dense.getType());
  if (!raw.type.hasStaticShape())
    return std::nullopt;
  Type et = raw.type.getElementType();
  int64_t n = raw.type.getNumElements();
  if (et.isInteger(1)) {
    raw.width = 1;
    raw.bytes.reserve(n);
    for (bool b : dense.getValues<bool>())
      raw.bytes.push_back(b);
    return raw;
  }
  if (!et.isIntOrFloat() || et.getIntOrFloatBitWidth() % 8)
    return std::nullopt;
  raw.width = et.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> data = dense.getRawData();
  if (dense.isSplat()) {
    raw.bytes.resize(n * raw.width);
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(raw.bytes.data() + i * raw.width, data.data(), raw.width);
  } else {
    raw.bytes.assign(data.begin(), data.end());
  }
  return raw;
}

DenseElementsAttr pack(RankedTensorType type, ArrayRef<char> bytes) {
  if (!type.hasStaticShape()) // (a slice to the symbolic dim's size: only the run knows it)
    return {};
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> bits(bytes.begin(), bytes.end());
    return DenseElementsAttr::get(type, bits);
  }
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

/// Builds the result constant by copying, for each result element (row-major), the input
/// element `sourceIndex(resultCoords)`.
template <typename SourceIndexFn>
DenseElementsAttr gatherElements(const RawElements &in, RankedTensorType resultType,
                                 SourceIndexFn sourceIndex) {
  if (!resultType.hasStaticShape())
    return {};
  ArrayRef<int64_t> shape = resultType.getShape();
  int64_t n = resultType.getNumElements();
  std::vector<char> out(n * in.width);
  SmallVector<int64_t> coords(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = sourceIndex(coords);
    std::memcpy(out.data() + i * in.width, in.bytes.data() + src * in.width, in.width);
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++coords[d] < shape[d])
        break;
      coords[d] = 0;
    }
  }
  return pack(resultType, out);
}

/// Flat index into `shape` of the broadcast source for result coordinates `coords`.
int64_t broadcastIndex(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> coords) {
  int64_t offset = coords.size() - shape.size(), index = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    index += (shape[d] == 1 ? 0 : coords[d + offset]) * strides[d];
  return index;
}

/// Numeric view of a constant for the arithmetic folds: floats as double, ints as int64.
struct Numbers {
  RankedTensorType type;
  bool isFloat = false;
  std::vector<double> f;
  std::vector<int64_t> i;
};

std::optional<Numbers> numbers(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !cast<ShapedType>(dense.getType()).hasStaticShape())
    return std::nullopt;
  Numbers num;
  num.type = cast<RankedTensorType>(dense.getType());
  Type et = num.type.getElementType();
  int64_t n = num.type.getNumElements();
  if (auto ft = dyn_cast<FloatType>(et)) {
    num.isFloat = true;
    num.f.reserve(n);
    if (ft.isF32()) {
      for (float v : dense.getValues<float>())
        num.f.push_back(v);
    } else {
      for (APFloat v : dense.getValues<APFloat>()) {
        bool lost;
        v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
        num.f.push_back(v.convertToDouble());
      }
    }
    return num;
  }
  auto it = dyn_cast<IntegerType>(et);
  if (!it)
    return std::nullopt;
  num.i.reserve(n);
  for (APInt v : dense.getValues<APInt>()) {
    // A uint64 of 2^63 or more has no int64 value: such constants are left unfolded.
    if (it.isUnsigned() && it.getWidth() == 64 && v.isNegative())
      return std::nullopt;
    num.i.push_back(it.isUnsigned() || it.getWidth() == 1 ? (int64_t)v.getZExtValue()
                                                          : v.getSExtValue());
  }
  return num;
}

DenseElementsAttr makeFloats(RankedTensorType type, ArrayRef<double> values) {
  if (!type.hasStaticShape())
    return {};
  auto ft = cast<FloatType>(type.getElementType());
  if (ft.isF32()) {
    SmallVector<float> v(values.begin(), values.end());
    return DenseElementsAttr::get(type, ArrayRef<float>(v));
  }
  SmallVector<APFloat> v;
  for (double d : values) {
    APFloat a(d);
    bool lost;
    a.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    v.push_back(a);
  }
  return DenseElementsAttr::get(type, v);
}

DenseElementsAttr makeInts(RankedTensorType type, ArrayRef<int64_t> values) {
  if (!type.hasStaticShape())
    return {};
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  if (width == 1) {
    SmallVector<bool> bits;
    for (int64_t v : values)
      bits.push_back(v != 0);
    return DenseElementsAttr::get(type, bits);
  }
  SmallVector<APInt> v;
  for (int64_t x : values)
    v.push_back(APInt(width, (uint64_t)x, /*isSigned=*/true, /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, v);
}

template <typename FloatFn, typename IntFn>
OpFoldResult foldUnary(Operation *op, Attribute operand, FloatFn floatFn, IntFn intFn) {
  auto in = numbers(operand);
  if (!in)
    return {};
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (in->isFloat) {
    std::vector<double> out;
    out.reserve(in->f.size());
    for (double v : in->f)
      out.push_back(floatFn(v));
    return makeFloats(resultType, out);
  }
  std::vector<int64_t> out;
  out.reserve(in->i.size());
  for (int64_t v : in->i) {
    std::optional<int64_t> r = intFn(v);
    if (!r)
      return {};
    out.push_back(*r);
  }
  return makeInts(resultType, out);
}

constexpr auto noIntFold = [](int64_t) -> std::optional<int64_t> { return std::nullopt; };

/// Binary elementwise folding with broadcasting. `floatFn(a, b)` and `intFn(a, b)` return the
/// value of one result element (as double / int64); intFn may refuse (division by zero).
template <typename FloatFn, typename IntFn>
OpFoldResult foldBinary(Operation *op, ArrayRef<Attribute> operands, FloatFn floatFn, IntFn intFn) {
  auto lhs = numbers(operands[0]), rhs = numbers(operands[1]);
  if (!lhs || !rhs)
    return {};
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType.hasStaticShape())
    return {};
  ArrayRef<int64_t> shape = resultType.getShape();
  ArrayRef<int64_t> ls = lhs->type.getShape(), rs = rhs->type.getShape();
  SmallVector<int64_t> lstr = stridesOf(ls), rstr = stridesOf(rs);
  int64_t n = resultType.getNumElements();
  bool floatResult = isa<FloatType>(resultType.getElementType());
  std::vector<double> fout;
  std::vector<int64_t> iout;
  SmallVector<int64_t> coords(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t li = broadcastIndex(ls, lstr, coords), ri = broadcastIndex(rs, rstr, coords);
    if (lhs->isFloat) {
      double r = floatFn(lhs->f[li], rhs->f[ri]);
      if (floatResult)
        fout.push_back(r);
      else
        iout.push_back((int64_t)r);
    } else {
      std::optional<int64_t> r = intFn(lhs->i[li], rhs->i[ri]);
      if (!r)
        return {};
      iout.push_back(*r);
    }
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++coords[d] < shape[d])
        break;
      coords[d] = 0;
    }
  }
  if (floatResult)
    return makeFloats(resultType, fout);
  return makeInts(resultType, iout);
}

template <typename Fn> auto total(Fn fn) {
  return [fn](int64_t a, int64_t b) -> std::optional<int64_t> { return fn(a, b); };
}

/// Integer arithmetic wraps, as the generated code does (two's complement); in int64 it would
/// be undefined behaviour in the compiler. Wrapping at 64 bits and truncating to the element
/// type is wrapping at its width.
int64_t wrapping(uint64_t v) { return (int64_t)v; }
} // namespace

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto type = cast<RankedTensorType>(getInput().getType());
  if (!type.hasStaticShape())
    return {};
  return makeInts(cast<RankedTensorType>(getType()), type.getShape());
}

OpFoldResult NegOp::fold(FoldAdaptor a) {
  return foldUnary(
      *this, a.getInput(), [](double v) { return -v; },
      [](int64_t v) -> std::optional<int64_t> { return wrapping(0 - (uint64_t)v); });
}
OpFoldResult AbsOp::fold(FoldAdaptor a) {
  return foldUnary(
      *this, a.getInput(), [](double v) { return std::fabs(v); },
      [](int64_t v) -> std::optional<int64_t> { return v < 0 ? wrapping(0 - (uint64_t)v) : v; });
}
OpFoldResult SqrtOp::fold(FoldAdaptor a) {
  return foldUnary(*this, a.getInput(), [](double v) { return std::sqrt(v); }, noIntFold);
}
OpFoldResult ExpOp::fold(FoldAdaptor a) {
  return foldUnary(*this, a.getInput(), [](double v) { return std::exp(v); }, noIntFold);
}
OpFoldResult LogOp::fold(FoldAdaptor a) {
  return foldUnary(*this, a.getInput(), [](double v) { return std::log(v); }, noIntFold);
}
OpFoldResult ErfOp::fold(FoldAdaptor a) {
  return foldUnary(*this, a.getInput(), [](double v) { return std::erf(v); }, noIntFold);
}
OpFoldResult TanhOp::fold(FoldAdaptor a) {
  return foldUnary(*this, a.getInput(), [](double v) { return std::tanh(v); }, noIntFold);
}
OpFoldResult SigmoidOp::fold(FoldAdaptor a) {
  return foldUnary(
      *this, a.getInput(), [](double v) { return 1.0 / (1.0 + std::exp(-v)); }, noIntFold);
}
OpFoldResult ReluOp::fold(FoldAdaptor a) {
  return foldUnary(
      *this, a.getInput(), [](double v) { return v > 0 ? v : 0.0; },
      [](int64_t v) -> std::optional<int64_t> { return v > 0 ? v : 0; });
}
OpFoldResult ReciprocalOp::fold(FoldAdaptor a) {
  return foldUnary(*this, a.getInput(), [](double v) { return 1.0 / v; }, noIntFold);
}
OpFoldResult FloorOp::fold(FoldAdaptor a) {
  return foldUnary(*this, a.getInput(), [](double v) { return std::floor(v); }, noIntFold);
}
OpFoldResult CeilOp::fold(FoldAdaptor a) {
  return foldUnary(*this, a.getInput(), [](double v) { return std::ceil(v); }, noIntFold);
}
OpFoldResult NotOp::fold(FoldAdaptor a) {
  // i1 values are 0 and 1 here, so ~v would be -2 and -1: both true once packed.
  bool isBool = getType().getElementType().isInteger(1);
  return foldUnary(
      *this, a.getInput(), [](double v) { return v; },
      [isBool](int64_t v) -> std::optional<int64_t> { return isBool ? !v : ~v; });
}
/// Float-only math functions; the default rounding mode makes rint round ties to even.
#define INFC_FLOAT_UNARY_FOLD(OP, FN)                                                              \
  OpFoldResult OP::fold(FoldAdaptor a) {                                                           \
    return foldUnary(*this, a.getInput(), [](double v) { return FN(v); }, noIntFold);              \
  }
INFC_FLOAT_UNARY_FOLD(RoundOp, std::rint)
INFC_FLOAT_UNARY_FOLD(SinOp, std::sin)
INFC_FLOAT_UNARY_FOLD(CosOp, std::cos)
INFC_FLOAT_UNARY_FOLD(TanOp, std::tan)
INFC_FLOAT_UNARY_FOLD(AsinOp, std::asin)
INFC_FLOAT_UNARY_FOLD(AcosOp, std::acos)
INFC_FLOAT_UNARY_FOLD(AtanOp, std::atan)
INFC_FLOAT_UNARY_FOLD(SinhOp, std::sinh)
INFC_FLOAT_UNARY_FOLD(CoshOp, std::cosh)
INFC_FLOAT_UNARY_FOLD(AsinhOp, std::asinh)
INFC_FLOAT_UNARY_FOLD(AcoshOp, std::acosh)
INFC_FLOAT_UNARY_FOLD(AtanhOp, std::atanh)
#undef INFC_FLOAT_UNARY_FOLD

/// A double bound as the nearest int64 (2^63 itself is out of range).
static int64_t saturatingInt(double v) {
  if (v >= 9223372036854775807.0)
    return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return (int64_t)v;
}

OpFoldResult ClipOp::fold(FoldAdaptor a) {
  double lo = getMin().convertToDouble(), hi = getMax().convertToDouble();
  int64_t ilo = saturatingInt(lo), ihi = saturatingInt(hi);
  return foldUnary(
      *this, a.getInput(), [=](double v) { return std::min(std::max(v, lo), hi); },
      [=](int64_t v) -> std::optional<int64_t> {
        return std::min<int64_t>(std::max<int64_t>(v, ilo), ihi);
      });
}
OpFoldResult LeakyReluOp::fold(FoldAdaptor a) {
  double alpha = getAlpha().convertToDouble();
  return foldUnary(*this, a.getInput(), [=](double v) { return v < 0 ? alpha * v : v; }, noIntFold);
}

OpFoldResult CastOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType())
    return getInput();
  auto in = numbers(a.getInput());
  auto resultType = cast<RankedTensorType>(getType());
  if (!in || !resultType.hasStaticShape())
    return {};
  Type et = resultType.getElementType();
  // APFloat's overflow rules for float8/float4 are not ONNX's saturation: left to run time.
  if (isa<FloatType>(et) && et.getIntOrFloatBitWidth() < 16)
    return {};
  if (isa<FloatType>(et)) {
    if (in->isFloat)
      return makeFloats(resultType, in->f);
    std::vector<double> f(in->i.begin(), in->i.end());
    return makeFloats(resultType, f);
  }
  std::vector<int64_t> out;
  if (in->isFloat) {
    for (double v : in->f) {
      // A float outside int64 (or NaN) has no defined integer: left to run time.
      if (!et.isInteger(1) && !(v > -0x1p63 && v < 0x1p63))
        return {};
      out.push_back(et.isInteger(1) ? (v != 0.0) : (int64_t)v); // truncation, like ONNX
    }
  } else {
    for (int64_t v : in->i)
      out.push_back(et.isInteger(1) ? (v != 0) : v);
  }
  return makeInts(resultType, out);
}

OpFoldResult AddOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double x, double y) { return x + y; },
      total([](int64_t x, int64_t y) { return wrapping((uint64_t)x + (uint64_t)y); }));
}
OpFoldResult SubOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double x, double y) { return x - y; },
      total([](int64_t x, int64_t y) { return wrapping((uint64_t)x - (uint64_t)y); }));
}
OpFoldResult MulOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double x, double y) { return x * y; },
      total([](int64_t x, int64_t y) { return wrapping((uint64_t)x * (uint64_t)y); }));
}
OpFoldResult DivOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double x, double y) { return x / y; },
      [](int64_t x, int64_t y) -> std::optional<int64_t> {
        // Left for run time: division by zero, and the one overflowing case.
        if (y == 0 || (x == std::numeric_limits<int64_t>::min() && y == -1))
          return std::nullopt;
        return x / y;
      });
}
OpFoldResult PowOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double x, double y) { return std::pow(x, y); },
      [](int64_t x, int64_t y) -> std::optional<int64_t> {
        if (y < 0)
          return std::nullopt;
        // Square-and-multiply in wrapping unsigned arithmetic.
        uint64_t r = 1, base = (uint64_t)x;
        for (uint64_t e = (uint64_t)y; e; e >>= 1, base *= base)
          if (e & 1)
            r *= base;
        return (int64_t)r;
      });
}
OpFoldResult MaxOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double x, double y) { return std::max(x, y); },
      total([](int64_t x, int64_t y) { return std::max(x, y); }));
}
OpFoldResult MinOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double x, double y) { return std::min(x, y); },
      total([](int64_t x, int64_t y) { return std::min(x, y); }));
}
// Integer operands only (the verifier says so); i1 values are 0 and 1 here.
OpFoldResult AndOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double, double) { return 0.0; },
      total([](int64_t x, int64_t y) -> int64_t { return x & y; }));
}
OpFoldResult OrOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double, double) { return 0.0; },
      total([](int64_t x, int64_t y) -> int64_t { return x | y; }));
}
OpFoldResult XorOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double, double) { return 0.0; },
      total([](int64_t x, int64_t y) -> int64_t { return x ^ y; }));
}
OpFoldResult EqualOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double x, double y) -> double { return x == y; },
      total([](int64_t x, int64_t y) -> int64_t { return x == y; }));
}
OpFoldResult LessOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double x, double y) -> double { return x < y; },
      total([](int64_t x, int64_t y) -> int64_t { return x < y; }));
}
OpFoldResult GreaterOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double x, double y) -> double { return x > y; },
      total([](int64_t x, int64_t y) -> int64_t { return x > y; }));
}

OpFoldResult RemOp::fold(FoldAdaptor a) {
  return foldBinary(
      *this, a.getOperands(), [](double x, double y) { return std::fmod(x, y); },
      [](int64_t x, int64_t y) -> std::optional<int64_t> {
        // Left for run time, like div: remainder by zero and the overflow.
        if (y == 0 || (x == std::numeric_limits<int64_t>::min() && y == -1))
          return std::nullopt;
        return x % y;
      });
}
/// The element bit width of a shift op's operands.
static int64_t shiftWidth(Operation *op) {
  return cast<RankedTensorType>(op->getOperand(0).getType())
      .getElementType()
      .getIntOrFloatBitWidth();
}
OpFoldResult ShiftLeftOp::fold(FoldAdaptor a) {
  int64_t width = shiftWidth(*this);
  return foldBinary(
      *this, a.getOperands(), [](double, double) { return NAN; },
      total([=](int64_t x, int64_t y) -> int64_t {
        return y < 0 || y >= width ? 0 : (int64_t)((uint64_t)x << y);
      }));
}
OpFoldResult ShiftRightOp::fold(FoldAdaptor a) {
  int64_t width = shiftWidth(*this);
  return foldBinary(
      *this, a.getOperands(), [](double, double) { return NAN; },
      total([=](int64_t x, int64_t y) -> int64_t {
        // x is sign-extended to int64, so >> is the arithmetic shift.
        return y < 0 || y >= width ? (x < 0 ? -1 : 0) : x >> y;
      }));
}

OpFoldResult WhereOp::fold(FoldAdaptor a) {
  auto cond = numbers(a.getCondition());
  auto lhs = unpack(a.getLhs()), rhs = unpack(a.getRhs());
  if (!cond || !lhs || !rhs)
    return {};
  auto resultType = cast<RankedTensorType>(getType());
  ArrayRef<int64_t> cs = cond->type.getShape(), ls = lhs->type.getShape(),
                    rs = rhs->type.getShape();
  SmallVector<int64_t> cstr = stridesOf(cs), lstr = stridesOf(ls), rstr = stridesOf(rs);
  ArrayRef<int64_t> shape = resultType.getShape();
  int64_t n = resultType.getNumElements(), width = lhs->width;
  std::vector<char> out(n * width);
  SmallVector<int64_t> coords(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    bool c = cond->i[broadcastIndex(cs, cstr, coords)] != 0;
    const RawElements &src = c ? *lhs : *rhs;
    int64_t idx = c ? broadcastIndex(ls, lstr, coords) : broadcastIndex(rs, rstr, coords);
    std::memcpy(out.data() + k * width, src.bytes.data() + idx * width, width);
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++coords[d] < shape[d])
        break;
      coords[d] = 0;
    }
  }
  return pack(resultType, out);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(a.getInput()))
    return dense.reshape(cast<ShapedType>(getType()));
  // A reshape of a reshape reads the same row-major elements: skip the inner one.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult BroadcastOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType())
    return getInput();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(a.getInput());
  if (!dense)
    return {};
  auto resultType = cast<RankedTensorType>(getType());
  if (!resultType.hasStaticShape())
    return {};
  if (dense.isSplat())
    return DenseElementsAttr::get(resultType, dense.getSplatValue<Attribute>());
  auto in = unpack(dense);
  if (!in)
    return {};
  ArrayRef<int64_t> is = in->type.getShape();
  SmallVector<int64_t> istr = stridesOf(is);
  return gatherElements(*in, resultType,
                        [&](ArrayRef<int64_t> coords) { return broadcastIndex(is, istr, coords); });
}

OpFoldResult TransposeOp::fold(FoldAdaptor a) {
  ArrayRef<int64_t> perm = getPerm();
  if (llvm::all_of(llvm::enumerate(perm), [](auto p) { return (int64_t)p.index() == p.value(); }))
    return getInput();
  auto in = unpack(a.getInput());
  if (!in)
    return {};
  SmallVector<int64_t> istr = stridesOf(in->type.getShape());
  return gatherElements(*in, cast<RankedTensorType>(getType()), [&](ArrayRef<int64_t> c) {
    int64_t idx = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      idx += c[d] * istr[perm[d]];
    return idx;
  });
}

OpFoldResult ConcatOp::fold(FoldAdaptor a) {
  if (getInputs().size() == 1)
    return getInputs()[0];
  SmallVector<RawElements> ins;
  for (Attribute attr : a.getInputs()) {
    auto in = unpack(attr);
    if (!in)
      return {};
    ins.push_back(std::move(*in));
  }
  auto resultType = cast<RankedTensorType>(getType());
  int64_t axis = getAxis();
  ArrayRef<int64_t> shape = resultType.getShape();
  int64_t outer = 1, width = ins[0].width;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  std::vector<char> out;
  out.reserve(resultType.getNumElements() * width);
  // Row-major: for each outer index, append each input's contiguous chunk.
  for (int64_t o = 0; o < outer; ++o)
    for (const RawElements &in : ins) {
      int64_t chunk = in.type.getNumElements() / std::max<int64_t>(outer, 1) * width;
      out.insert(out.end(), in.bytes.begin() + o * chunk, in.bytes.begin() + (o + 1) * chunk);
    }
  return pack(resultType, out);
}

OpFoldResult SliceOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; }) &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  auto in = unpack(a.getInput());
  if (!in)
    return {};
  SmallVector<int64_t> istr = stridesOf(in->type.getShape());
  ArrayRef<int64_t> offsets = getOffsets(), steps = getSteps();
  return gatherElements(*in, cast<RankedTensorType>(getType()), [&](ArrayRef<int64_t> c) {
    int64_t idx = 0;
    for (size_t d = 0; d < c.size(); ++d)
      idx += (offsets[d] + c[d] * steps[d]) * istr[d];
    return idx;
  });
}

OpFoldResult GatherOp::fold(FoldAdaptor a) {
  auto data = unpack(a.getData());
  auto indices = numbers(a.getIndices());
  if (!data || !indices)
    return {};
  ArrayRef<int64_t> ds = data->type.getShape();
  int64_t axis = getAxis(), irank = indices->type.getRank();
  for (int64_t &i : indices->i) {
    if (i < 0)
      i += ds[axis];
    if (i < 0 || i >= ds[axis])
      return {}; // out of range: left for the run-time error path
  }
  SmallVector<int64_t> dstr = stridesOf(ds), istr = stridesOf(indices->type.getShape());
  return gatherElements(*data, cast<RankedTensorType>(getType()), [&](ArrayRef<int64_t> c) {
    int64_t idx = 0, flat = 0;
    for (int64_t d = 0; d < axis; ++d)
      idx += c[d] * dstr[d];
    for (int64_t d = 0; d < irank; ++d)
      flat += c[axis + d] * istr[d];
    idx += indices->i[flat] * dstr[axis];
    for (int64_t d = axis + 1; d < (int64_t)ds.size(); ++d)
      idx += c[d + irank - 1] * dstr[d];
    return idx;
  });
}

//===- ImportElementwise.cpp - ONNX elementwise ops -----------------------===//
#include "NodeImporter.h"

#include <limits>

using namespace mlir;
using namespace infc;

namespace {
template <typename OpTy> ImportFn unary() {
  return [](NodeImporter &n) {
    n.setResult(0, n.create<OpTy>(n.input(0)));
    return success();
  };
}

/// Binary ops require one element type (ONNX's type constraints); Pow alone mixes them.
template <typename OpTy> ImportFn binary() {
  return [](NodeImporter &n) -> LogicalResult {
    if (n.inputType(0).getElementType() != n.inputType(1).getElementType())
      return n.error() << "operands have different element types "
                       << n.inputType(0).getElementType() << " and "
                       << n.inputType(1).getElementType();
    n.setResult(0, n.create<OpTy>(n.input(0), n.input(1)));
    return success();
  };
}

/// Max, Min, Sum, Mean take any number of inputs.
template <typename OpTy> ImportFn variadic(bool mean = false) {
  return [mean](NodeImporter &n) -> LogicalResult {
    Value acc = n.input(0);
    for (unsigned i = 1; i < n.numInputs(); ++i)
      acc = n.create<OpTy>(acc, n.input(i));
    if (mean && n.numInputs() > 1)
      acc = n.create<DivOp>(acc, n.scalarLike(acc, n.numInputs()));
    n.setResult(0, acc);
    return success();
  };
}

LogicalResult importPow(NodeImporter &n) {
  Value base = n.input(0), exponent = n.input(1);
  Type et = n.inputType(0).getElementType();
  if (n.inputType(1).getElementType() != et)
    exponent = n.create<CastOp>(RankedTensorType::get(n.inputType(1).getShape(), et), exponent);
  n.setResult(0, n.create<PowOp>(base, exponent));
  return success();
}

LogicalResult importClip(NodeImporter &n) {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  Value runtimeLo, runtimeHi;
  if (n.opset < 11) {
    lo = n.getFloat("min", -std::numeric_limits<float>::max());
    hi = n.getFloat("max", std::numeric_limits<float>::max());
  } else {
    for (unsigned i : {1u, 2u}) {
      if (!n.input(i))
        continue;
      DenseElementsAttr bound = n.constantInput(i);
      if (!bound) {
        // A bound known only at run time: an elementwise max/min with it after the clip.
        RankedTensorType bt = n.inputType(i);
        if (bt.getNumElements() != 1 || bt.getElementType() != n.inputType(0).getElementType())
          return n.error() << (i == 1 ? "min" : "max")
                           << " must be one element of the input's type, got " << bt;
        (i == 1 ? runtimeLo : runtimeHi) = n.reshape(n.input(i), {});
        continue;
      }
      if (bound.getNumElements() != 1)
        return n.error() << (i == 1 ? "min" : "max") << " must be a scalar";
      double v = isa<FloatType>(bound.getElementType())
                     ? (*bound.getValues<APFloat>().begin()).convertToDouble()
                     : (double)(*bound.getValues<APInt>().begin()).getSExtValue();
      (i == 1 ? lo : hi) = v;
    }
  }
  Type et = n.inputType(0).getElementType();
  if (auto it = dyn_cast<IntegerType>(et)) { // keep integer bounds representable
    bool u = it.isUnsigned();
    unsigned w = it.getWidth();
    lo = std::max(lo, u ? 0.0 : APInt::getSignedMinValue(w).signedRoundToDouble());
    hi = std::min(hi, u ? APInt::getMaxValue(w).roundToDouble()
                        : APInt::getSignedMaxValue(w).signedRoundToDouble());
  }
  if (lo > hi) // ONNX: every element becomes max when min > max
    lo = hi;
  Value y = n.create<ClipOp>(n.input(0), n.b.getF64FloatAttr(lo), n.b.getF64FloatAttr(hi));
  // max then min: when min > max every element becomes max, as ONNX says.
  if (runtimeLo)
    y = n.create<MaxOp>(y, runtimeLo);
  if (runtimeHi)
    y = n.create<MinOp>(y, runtimeHi);
  n.setResult(0, y);
  return success();
}

LogicalResult importLeakyRelu(NodeImporter &n) {
  n.setResult(0, n.create<LeakyReluOp>(n.input(0), n.b.getF64FloatAttr(n.getFloat("alpha", 0.01))));
  return success();
}

LogicalResult importCast(NodeImporter &n) {
  int64_t to = n.getInt("to", 0);
  Type et = onnxElementType(n.b.getContext(), to);
  if (!et)
    return n.error() << "cast to unsupported dtype " << onnxDataTypeName(to);
  n.setResult(0, n.create<CastOp>(RankedTensorType::get(n.inputType(0).getShape(), et), n.input(0),
                                  n.getInt("saturate", 1) != 0));
  return success();
}

LogicalResult importBitCast(NodeImporter &n) {
  int64_t to = n.getInt("to", 0);
  Type et = onnxElementType(n.b.getContext(), to);
  if (!et)
    return n.error() << "bit cast to unsupported dtype " << onnxDataTypeName(to);
  auto op = BitcastOp::create(n.b, n.loc, n.inputType(0).clone(et), n.input(0));
  if (failed(op.verify())) {
    op.erase();
    return failure();
  }
  n.setResult(0, op);
  return success();
}

LogicalResult importBitShift(NodeImporter &n) {
  if (n.inputType(0).getElementType() != n.inputType(1).getElementType())
    return n.error() << "operands have different element types " << n.inputType(0).getElementType()
                     << " and " << n.inputType(1).getElementType();
  std::string direction = n.getString("direction", "");
  if (direction == "LEFT")
    n.setResult(0, n.create<ShiftLeftOp>(n.input(0), n.input(1)));
  else if (direction == "RIGHT")
    n.setResult(0, n.create<ShiftRightOp>(n.input(0), n.input(1)));
  else
    return n.error() << "direction must be LEFT or RIGHT, got '" << direction << "'";
  return success();
}

LogicalResult importWhere(NodeImporter &n) {
  n.setResult(0, n.create<WhereOp>(n.input(0), n.input(1), n.input(2)));
  return success();
}

LogicalResult importIdentity(NodeImporter &n) {
  n.setResult(0, n.input(0));
  return success();
}

/// Inference-mode Dropout is the identity; a requested mask is all true.
LogicalResult importDropout(NodeImporter &n) {
  if (n.input(2)) {
    DenseElementsAttr training = n.constantInput(2);
    if (!training)
      return n.notConstant(2, "training_mode");
    // Training with ratio 0 drops nothing: the identity, as in inference.
    bool train = *training.getValues<bool>().begin();
    DenseElementsAttr ratio = n.input(1) ? n.constantInput(1) : nullptr;
    if (train && n.input(1) && !ratio)
      return n.notConstant(1, "ratio");
    bool zeroRatio = ratio && isa<FloatType>(ratio.getElementType()) &&
                     (*ratio.getValues<APFloat>().begin()).isZero();
    if (train && !zeroRatio)
      return n.error() << "training mode (random dropout) is not supported";
  }
  n.setResult(0, n.input(0));
  if (n.outputUsed(1)) {
    auto type = RankedTensorType::get(n.inputType(0).getShape(), n.b.getI1Type());
    n.setResult(1, n.constant(DenseElementsAttr::get(type, true)));
  }
  return success();
}
} // namespace

void infc::registerElementwiseImporters(ImportRegistry &r) {
  r["Relu"] = unary<ReluOp>();
  r["Sigmoid"] = unary<SigmoidOp>();
  r["Tanh"] = unary<TanhOp>();
  r["Exp"] = unary<ExpOp>();
  r["Log"] = unary<LogOp>();
  r["Sqrt"] = unary<SqrtOp>();
  r["Erf"] = unary<ErfOp>();
  r["Neg"] = unary<NegOp>();
  r["Abs"] = unary<AbsOp>();
  r["Reciprocal"] = unary<ReciprocalOp>();
  r["Floor"] = unary<FloorOp>();
  r["Ceil"] = unary<CeilOp>();
  r["Not"] = unary<NotOp>();
  r["Round"] = unary<RoundOp>();
  r["Sin"] = unary<SinOp>();
  r["Cos"] = unary<CosOp>();
  r["Tan"] = unary<TanOp>();
  r["Asin"] = unary<AsinOp>();
  r["Acos"] = unary<AcosOp>();
  r["Atan"] = unary<AtanOp>();
  r["Sinh"] = unary<SinhOp>();
  r["Cosh"] = unary<CoshOp>();
  r["Asinh"] = unary<AsinhOp>();
  r["Acosh"] = unary<AcoshOp>();
  r["Atanh"] = unary<AtanhOp>();
  r["Add"] = binary<AddOp>();
  r["Sub"] = binary<SubOp>();
  r["Mul"] = binary<MulOp>();
  r["Div"] = binary<DivOp>();
  r["Equal"] = binary<EqualOp>();
  r["Less"] = binary<LessOp>();
  r["Greater"] = binary<GreaterOp>();
  r["And"] = binary<AndOp>();
  r["Or"] = binary<OrOp>();
  r["Xor"] = binary<XorOp>();
  r["BitwiseAnd"] = binary<AndOp>();
  r["BitwiseOr"] = binary<OrOp>();
  r["BitwiseXor"] = binary<XorOp>();
  r["BitwiseNot"] = unary<NotOp>();
  r["Max"] = variadic<MaxOp>();
  r["Min"] = variadic<MinOp>();
  r["Sum"] = variadic<AddOp>();
  r["Mean"] = variadic<AddOp>(/*mean=*/true);
  r["Pow"] = importPow;
  r["Clip"] = importClip;
  r["LeakyRelu"] = importLeakyRelu;
  r["Cast"] = importCast;
  r["BitCast"] = importBitCast;
  r["Where"] = importWhere;
  r["BitShift"] = importBitShift;
  r["Identity"] = importIdentity;
  r["Dropout"] = importDropout;
}

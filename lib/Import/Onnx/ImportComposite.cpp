//===- ImportComposite.cpp - ONNX ops built from several infc ops ---------===//
//
// Activations, comparisons, Mod, the L1/L2/log-sum reductions and the softmax family that
// have no infc op of their own. Each is a short composition of existing ops; the pieces fold
// at import when constant, and linalg elementwise fusion later merges them into one loop.
//
//===----------------------------------------------------------------------===//
#include "ComposeOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace infc;

namespace {
Type elementTypeOf(Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); }
bool isFloat(Value v) { return isa<FloatType>(elementTypeOf(v)); }

LogicalResult requireFloat(NodeImporter &n) {
  if (!isFloat(n.input(0)))
    return n.error() << "expects a float input, got " << elementTypeOf(n.input(0));
  return success();
}

LogicalResult requireSameElementType(NodeImporter &n) {
  if (elementTypeOf(n.input(0)) != elementTypeOf(n.input(1)))
    return n.error() << "operands have different element types " << elementTypeOf(n.input(0))
                     << " and " << elementTypeOf(n.input(1));
  return success();
}

/// An ImportFn for a float activation y = fn(ops, x). An f16/bf16 activation is computed
/// in f32 and rounded once at the end, as one kernel (ORT's, numpy's ufuncs) would: rounding
/// after each of the composed ops loses too much (exp(x) - 1 near 0 in bf16).
template <typename Fn> ImportFn activation(Fn fn) {
  return [fn](NodeImporter &n) -> LogicalResult {
    if (failed(requireFloat(n)))
      return failure();
    Ops o{n};
    Type et = elementTypeOf(n.input(0));
    Type compute = n.computeType(et);
    n.setResult(0, n.castElements(fn(n, o, n.castElements(n.input(0), compute)), et));
    return success();
  };
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

void registerActivations(ImportRegistry &r) {
  r["Elu"] = activation(
      [](NodeImporter &n, Ops &o, Value x) { return elu(o, x, n.getFloat("alpha", 1.0)); });
  // gamma * (x <= 0 ? alpha * (exp(x) - 1) : x); at 0 both branches are 0.
  r["Selu"] = activation([](NodeImporter &n, Ops &o, Value x) {
    double alpha = n.getFloat("alpha", 1.67326319217681884765625);
    double gamma = n.getFloat("gamma", 1.05070102214813232421875);
    return o.mul(o.k(x, gamma), elu(o, x, alpha));
  });
  // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
  r["Celu"] = activation([](NodeImporter &n, Ops &o, Value x) {
    double alpha = n.getFloat("alpha", 1.0);
    Value zero = o.k(x, 0.0);
    Value e = o.sub(o.exp(o.div(x, o.k(x, alpha))), o.k(x, 1.0));
    return o.add(o.max(x, zero), o.min(o.mul(o.k(x, alpha), e), zero));
  });
  r["Softplus"] = activation([](NodeImporter &, Ops &o, Value x) { return o.softplus(x); });
  // x / (1 + |x|)
  r["Softsign"] = activation(
      [](NodeImporter &, Ops &o, Value x) { return o.div(x, o.add(o.k(x, 1.0), o.abs(x))); });
  // max(0, min(1, alpha * x + beta))
  r["HardSigmoid"] = activation([](NodeImporter &n, Ops &o, Value x) {
    Value lin = o.add(o.mul(x, o.k(x, n.getFloat("alpha", 0.2))), o.k(x, n.getFloat("beta", 0.5)));
    return o.clip(lin, 0.0, 1.0);
  });
  // x * max(0, min(1, x / 6 + 1/2))
  r["HardSwish"] = activation([](NodeImporter &, Ops &o, Value x) {
    Value lin = o.add(o.mul(x, o.k(x, 1.0 / 6.0)), o.k(x, 0.5));
    return o.mul(x, o.clip(lin, 0.0, 1.0));
  });
  // x * sigmoid(alpha * x)
  r["Swish"] = activation([](NodeImporter &n, Ops &o, Value x) {
    return o.mul(x, n.create<SigmoidOp>(o.mul(x, o.k(x, n.getFloat("alpha", 1.0)))));
  });
  // x * tanh(softplus(x))
  r["Mish"] = activation(
      [](NodeImporter &n, Ops &o, Value x) { return o.mul(x, n.create<TanhOp>(o.softplus(x))); });
  // x > alpha ? x : 0
  r["ThresholdedRelu"] = activation([](NodeImporter &n, Ops &o, Value x) {
    return o.where(o.gt(x, o.k(x, n.getFloat("alpha", 1.0))), x, o.k(x, 0.0));
  });
  r["Gelu"] = [](NodeImporter &n) -> LogicalResult {
    if (failed(requireFloat(n)))
      return failure();
    Ops o{n};
    Value x = n.input(0);
    std::string approximate = n.getString("approximate", "none");
    Value inner;
    if (approximate == "none") {
      // 0.5 x (1 + erf(x / sqrt(2)))
      inner = n.create<ErfOp>(o.mul(x, o.k(x, M_SQRT1_2)));
    } else if (approximate == "tanh") {
      // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
      Value cube = o.mul(o.mul(x, x), x);
      Value arg = o.add(x, o.mul(o.k(x, 0.044715), cube));
      inner = n.create<TanhOp>(o.mul(o.k(x, std::sqrt(2.0 / M_PI)), arg));
    } else {
      return n.error() << "unsupported approximate '" << approximate << "'";
    }
    n.setResult(0, o.mul(o.mul(o.k(x, 0.5), x), o.add(o.k(x, 1.0), inner)));
    return success();
  };
  // x < 0 ? slope * x : x, the slope broadcasting to x.
  r["PRelu"] = [](NodeImporter &n) -> LogicalResult {
    if (failed(requireSameElementType(n)))
      return failure();
    Ops o{n};
    Value x = n.input(0);
    n.setResult(0, o.where(o.lt(x, o.k(x, 0.0)), o.mul(n.input(1), x), x));
    return success();
  };
  // x < -lambd ? x + bias : x > lambd ? x - bias : 0. For integers the truncated bounds
  // select the same elements (x < -1.5 is x < -1 there).
  r["Shrink"] = [](NodeImporter &n) -> LogicalResult {
    Ops o{n};
    Value x = n.input(0);
    double lambd = n.getFloat("lambd", 0.5), bias = n.getFloat("bias", 0.0);
    Value high = o.where(o.gt(x, o.k(x, lambd)), o.sub(x, o.k(x, bias)), o.k(x, 0.0));
    n.setResult(0, o.where(o.lt(x, o.k(x, -lambd)), o.add(x, o.k(x, bias)), high));
    return success();
  };
}

//===----------------------------------------------------------------------===//
// Elementwise tests, comparisons, Mod, CastLike
//===----------------------------------------------------------------------===//

template <typename CompareOp> ImportFn compareOrEqual() {
  return [](NodeImporter &n) -> LogicalResult {
    if (failed(requireSameElementType(n)))
      return failure();
    Ops o{n};
    n.setResult(
        0, o.logicalOr(n.create<CompareOp>(n.input(0), n.input(1)), o.eq(n.input(0), n.input(1))));
    return success();
  };
}

/// Mod: fmod = 1 is the C remainder (the dividend's sign). fmod = 0 takes the divisor's
/// sign: a non-zero remainder of the other sign gets the divisor added, as numpy does.
LogicalResult importMod(NodeImporter &n) {
  if (failed(requireSameElementType(n)))
    return failure();
  int64_t fmod = n.getInt("fmod", 0);
  if (fmod != 0 && fmod != 1)
    return n.error() << "fmod must be 0 or 1, got " << fmod;
  Ops o{n};
  Value a = n.input(0), b = n.input(1);
  Value rem = n.create<RemOp>(a, b);
  if (fmod == 1) {
    n.setResult(0, rem);
    return success();
  }
  Value zero = o.k(rem, 0.0);
  Value signsDiffer = o.logicalNot(o.eq(o.lt(rem, zero), o.lt(b, zero)));
  Value fix = o.logicalAnd(o.logicalNot(o.eq(rem, zero)), signsDiffer);
  n.setResult(0, o.where(fix, o.add(rem, b), rem));
  return success();
}

} // namespace

Value infc::logSoftmax(NodeImporter &n, Value x, int64_t axis) {
  Ops o{n};
  Value shifted = o.sub(x, o.reduce(x, {axis}, true, /*max=*/true));
  return o.sub(shifted, o.log(o.reduce(o.exp(shifted), {axis}, true)));
}

namespace {
void registerElementwise(ImportRegistry &r) {
  r["GreaterOrEqual"] = compareOrEqual<GreaterOp>();
  r["LessOrEqual"] = compareOrEqual<LessOp>();
  r["IsNaN"] = [](NodeImporter &n) -> LogicalResult {
    if (failed(requireFloat(n)))
      return failure();
    Ops o{n};
    n.setResult(0, o.logicalNot(o.eq(n.input(0), n.input(0))));
    return success();
  };
  r["IsInf"] = [](NodeImporter &n) -> LogicalResult {
    if (failed(requireFloat(n)))
      return failure();
    Ops o{n};
    Value x = n.input(0);
    double inf = std::numeric_limits<double>::infinity();
    bool negative = n.getInt("detect_negative", 1), positive = n.getInt("detect_positive", 1);
    Value result;
    if (positive)
      result = o.eq(x, o.k(x, inf));
    if (negative) {
      Value isNegInf = o.eq(x, o.k(x, -inf));
      result = result ? o.logicalOr(result, isNegInf) : isNegInf;
    }
    if (!result) { // detects nothing: all false
      auto type = RankedTensorType::get(n.inputType(0).getShape(), n.b.getI1Type());
      result = n.constant(DenseElementsAttr::get(type, false));
    }
    n.setResult(0, result);
    return success();
  };
  // 1, -1 or 0 by the sign; NaN stays NaN.
  r["Sign"] = [](NodeImporter &n) -> LogicalResult {
    Ops o{n};
    Value x = n.input(0), zero = o.k(x, 0.0);
    Value sign = o.where(o.gt(x, zero), o.k(x, 1.0), o.where(o.lt(x, zero), o.k(x, -1.0), zero));
    if (isFloat(x))
      sign = o.where(o.eq(x, x), sign, x);
    n.setResult(0, sign);
    return success();
  };
  r["CastLike"] = [](NodeImporter &n) -> LogicalResult {
    Type et = elementTypeOf(n.input(1));
    if (elementTypeOf(n.input(0)) == et) {
      n.setResult(0, n.input(0));
      return success();
    }
    n.setResult(
        0, n.create<CastOp>(n.inputType(0).clone(et), n.input(0), n.getInt("saturate", 1) != 0));
    return success();
  };
  r["Mod"] = importMod;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum: post(sum(pre(x))) over the axes. With
/// noop_with_empty_axes and no axes, the sum is over nothing: post(pre(x)), as the ONNX
/// reference computes it.
template <typename Pre, typename Post> ImportFn sumReduction(Pre pre, Post post) {
  return [pre, post](NodeImporter &n) -> LogicalResult {
    std::optional<SmallVector<int64_t>> axes = reductionAxes(n, 18);
    if (!axes)
      return failure();
    Ops o{n};
    Value sum = o.reduce(pre(o, n.input(0)), *axes, n.getInt("keepdims", 1));
    n.setResult(0, post(n, o, sum));
    return success();
  };
}

Value identity(NodeImporter &, Ops &, Value v) { return v; }
Value square(Ops &o, Value v) { return o.mul(v, v); }

/// log(sum(exp(x - m))) + m with m the max over the axes, where an infinite max counts as 0
/// (the reference leaves infinities out of m; either way they decide the result).
LogicalResult importReduceLogSumExp(NodeImporter &n) {
  if (failed(requireFloat(n)))
    return failure();
  std::optional<SmallVector<int64_t>> axes = reductionAxes(n, 18);
  if (!axes)
    return failure();
  Ops o{n};
  Value x = n.input(0);
  if (axes->empty()) {
    n.setResult(0, o.log(o.exp(x)));
    return success();
  }
  Value m = o.reduce(x, *axes, /*keepdims=*/true, /*max=*/true);
  Value zero = o.k(m, 0.0), inf = o.k(m, std::numeric_limits<double>::infinity());
  m = o.where(o.eq(o.abs(m), inf), zero, m);
  Value y = o.add(o.log(o.reduce(o.exp(o.sub(x, m)), *axes, true)), m);
  if (!n.getInt("keepdims", 1)) {
    SmallVector<int64_t> shape;
    for (auto [d, size] : llvm::enumerate(n.inputType(0).getShape()))
      if (!llvm::is_contained(*axes, (int64_t)d))
        shape.push_back(size);
    y = n.reshape(y, shape);
  }
  n.setResult(0, y);
  return success();
}

void registerReductions(ImportRegistry &r) {
  r["ReduceL1"] = sumReduction([](Ops &o, Value x) { return o.abs(x); }, identity);
  r["ReduceSumSquare"] = sumReduction(square, identity);
  // Integer L2 norms truncate the square root, as the reference's astype does.
  r["ReduceL2"] = sumReduction(square, [](NodeImporter &n, Ops &o, Value sum) {
    Type et = elementTypeOf(sum);
    if (isa<FloatType>(et))
      return n.create<SqrtOp>(sum);
    return o.castTo(n.create<SqrtOp>(o.castTo(sum, n.b.getF64Type())), et);
  });
  r["ReduceLogSum"] = sumReduction([](Ops &, Value x) { return x; },
                                   [](NodeImporter &, Ops &o, Value sum) { return o.log(sum); });
  r["ReduceLogSumExp"] = importReduceLogSumExp;
}

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

/// SwiGLU: swish(A) * B (same shapes), f16/bf16 computed in f32 like the activations.
LogicalResult importSwiGLU(NodeImporter &n) {
  if (failed(requireFloat(n)) || failed(requireSameElementType(n)))
    return failure();
  if (n.inputType(0).getShape() != n.inputType(1).getShape())
    return n.error() << "expects A and B of one shape, got " << n.inputType(0) << " and "
                     << n.inputType(1);
  Ops o{n};
  Type et = elementTypeOf(n.input(0));
  Type compute = n.computeType(et);
  Value a = n.castElements(n.input(0), compute), b = n.castElements(n.input(1), compute);
  Value gate = o.mul(a, n.create<SigmoidOp>(o.mul(a, o.k(a, n.getFloat("alpha", 1.0)))));
  n.setResult(0, n.castElements(o.mul(gate, b), et));
  return success();
}

/// RMSNormalization: x / sqrt(mean(x^2 over [axis, rank)) + epsilon), computed in f32 with
/// stash_type 1 (the default) and rounded back, then times scale.
LogicalResult importRMSNormalization(NodeImporter &n) {
  if (failed(requireFloat(n)))
    return failure();
  RankedTensorType xt = n.inputType(0);
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", -1), xt.getRank());
  if (!axis)
    return failure();
  Ops o{n};
  Type et = xt.getElementType();
  Type compute = n.getInt("stash_type", 1) == 1 ? n.b.getF32Type() : et;
  Value x = n.castElements(n.input(0), compute);
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(*axis, xt.getRank()));
  Value meanSquare =
      n.create<ReduceMeanOp>(o.mul(x, x), n.b.getDenseI64ArrayAttr(axes), n.b.getBoolAttr(true));
  Value rms = n.create<SqrtOp>(o.add(meanSquare, o.k(meanSquare, n.getFloat("epsilon", 1e-5))));
  Value normalized = n.castElements(o.div(x, rms), et);
  n.setResult(0, o.mul(normalized, n.castElements(n.input(1), et)));
  return success();
}

/// LpNormalization: x / ||x||_p along the axis (p = 1 or 2); 0 where the norm is 0.
LogicalResult importLpNormalization(NodeImporter &n) {
  if (failed(requireFloat(n)))
    return failure();
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", -1), n.inputType(0).getRank());
  if (!axis)
    return failure();
  int64_t p = n.getInt("p", 2);
  if (p != 1 && p != 2)
    return n.error() << "p must be 1 or 2, got " << p;
  Ops o{n};
  Value x = n.input(0);
  Value norm = p == 1 ? o.reduce(o.abs(x), {*axis}, true)
                      : n.create<SqrtOp>(o.reduce(square(o, x), {*axis}, true));
  Value zero = o.k(norm, 0.0);
  Value isZero = o.eq(norm, zero);
  Value safe = o.where(isZero, o.k(norm, 1.0), norm);
  n.setResult(0, o.where(isZero, o.k(x, 0.0), o.div(x, safe)));
  return success();
}

/// MeanVarianceNormalization: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) over the axes
/// (default 0, 2, 3), as the ONNX function body computes it.
LogicalResult importMeanVarianceNormalization(NodeImporter &n) {
  if (failed(requireFloat(n)))
    return failure();
  int64_t rank = n.inputType(0).getRank();
  SmallVector<int64_t> axes;
  for (int64_t a : n.getInts("axes", {0, 2, 3})) {
    std::optional<int64_t> norm = n.normalizeAxis(a, rank);
    if (!norm)
      return failure();
    axes.push_back(*norm);
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  Ops o{n};
  Value x = n.input(0);
  auto mean = [&](Value v) {
    return n.create<ReduceMeanOp>(v, n.b.getDenseI64ArrayAttr(axes), n.b.getBoolAttr(true));
  };
  Value m = mean(x);
  Value variance = o.sub(mean(square(o, x)), square(o, m));
  Value std = o.add(n.create<SqrtOp>(variance), o.k(m, 1e-9));
  n.setResult(0, o.div(o.sub(x, m), std));
  return success();
}

void registerNormalizations(ImportRegistry &r) {
  r["SwiGLU"] = importSwiGLU;
  r["RMSNormalization"] = importRMSNormalization;
  r["LpNormalization"] = importLpNormalization;
  r["MeanVarianceNormalization"] = importMeanVarianceNormalization;
}

//===----------------------------------------------------------------------===//
// The softmax family
//===----------------------------------------------------------------------===//

void registerSoftmaxFamily(ImportRegistry &r) {
  // x - m - log(sum(exp(x - m))) with m the max along the axis.
  r["LogSoftmax"] = [](NodeImporter &n) -> LogicalResult {
    if (failed(requireFloat(n)))
      return failure();
    return importAlongAxis(n, [&](Value x, int64_t axis) { return logSoftmax(n, x, axis); });
  };
  // 1 at the first maximum along the axis, 0 elsewhere.
  r["Hardmax"] = [](NodeImporter &n) -> LogicalResult {
    if (failed(requireFloat(n)))
      return failure();
    return importAlongAxis(n, [&](Value x, int64_t axis) {
      Ops o{n};
      auto type = cast<RankedTensorType>(x.getType());
      Value index = n.create<ArgMaxOp>(x, n.b.getI64IntegerAttr(axis), n.b.getBoolAttr(true),
                                       n.b.getBoolAttr(false));
      // iota along the axis, size 1 elsewhere, compared with the broadcast index.
      int64_t size = type.getDimSize(axis);
      SmallVector<int64_t> iotaShape(type.getRank(), 1);
      iotaShape[axis] = size;
      Value positions = iota(n, iotaShape, size);
      return o.castTo(o.eq(positions, index), type.getElementType());
    });
  };
}
} // namespace

void infc::registerCompositeImporters(ImportRegistry &r) {
  registerActivations(r);
  registerElementwise(r);
  registerReductions(r);
  registerNormalizations(r);
  registerSoftmaxFamily(r);
}

//===- ImportNormalization.cpp - ONNX normalization ops -------------------===//
#include "NodeImporter.h"

#include "ImportHelpers.h"

using namespace mlir;
using namespace infc;

namespace {
/// LRN: x / (bias + alpha / size * (sum of x^2 over a window of `size` channels))^beta,
/// the window sum an average pool over the channels of [N, 1, C, H * W] times its size.
LogicalResult importLRN(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (!isa<FloatType>(xt.getElementType()) || xt.getRank() < 3)
    return n.error() << "expects a float input [N, C, ...], got " << xt;
  int64_t size = n.getInt("size", 0);
  if (size <= 0 || size > (int64_t(1) << 20)) // its pads are added to dims: keep them small
    return n.error() << "size must be positive and at most 2^20, got " << size;
  double alpha = n.getFloat("alpha", 1e-4), beta = n.getFloat("beta", 0.75),
         bias = n.getFloat("bias", 1.0);
  int64_t batch = xt.getDimSize(0), channels = xt.getDimSize(1), rest = 1;
  for (int64_t d = 2; d < xt.getRank(); ++d)
    rest *= xt.getDimSize(d);
  Value x = n.input(0);
  Value sq = n.reshape(n.create<MulOp>(x, x), {batch, 1, channels, rest});
  auto attr = [&](ArrayRef<int64_t> v) { return n.b.getDenseI64ArrayAttr(v); };
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Value mean = n.create<AvgPoolOp>(sq, attr({size, 1}), attr({1, 1}), attr({before, 0, after, 0}),
                                   attr({1, 1}), n.b.getBoolAttr(false), n.b.getBoolAttr(true));
  Value scale =
      n.create<AddOp>(n.scalarLike(x, bias),
                      n.create<MulOp>(n.reshape(mean, xt.getShape()), n.scalarLike(x, alpha)));
  n.setResult(0, n.create<DivOp>(x, n.create<PowOp>(scale, n.scalarLike(x, beta))));
  return success();
}

/// Inference BatchNormalization as y = x * s + t with s, t per channel (folded when the
/// statistics are constants, as they always are in exported models).
/// BatchNormalization as a per-channel scale and shift. training_mode normalizes with the
/// batch's own mean and (population) variance and outputs the running statistics
/// momentum * running + (1 - momentum) * batch.
LogicalResult importBatchNorm(NodeImporter &n) {
  bool training = n.getInt("training_mode", 0) != 0;
  if (!training && (n.outputUsed(1) || n.outputUsed(2)))
    return n.error() << "running mean/var outputs need training_mode=1";
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() < 2)
    return n.error() << "expects an input of rank >= 2";
  Value scale = n.input(1), bias = n.input(2), mean = n.input(3), var = n.input(4);
  double eps = n.getFloat("epsilon", 1e-5);
  if (training) {
    if (!isa<FloatType>(xt.getElementType()))
      return n.error() << "expects a float input, got " << xt.getElementType();
    SmallVector<int64_t> axes{0};
    for (int64_t d = 2; d < xt.getRank(); ++d)
      axes.push_back(d);
    auto over = n.b.getDenseI64ArrayAttr(axes);
    Value batchMean = n.create<ReduceMeanOp>(n.input(0), over, n.b.getBoolAttr(false));
    SmallVector<int64_t> kept(xt.getRank(), 1);
    kept[1] = xt.getDimSize(1);
    Value centered = n.create<SubOp>(n.input(0), n.reshape(batchMean, kept));
    Value batchVar =
        n.create<ReduceMeanOp>(n.create<MulOp>(centered, centered), over, n.b.getBoolAttr(false));
    double momentum = n.getFloat("momentum", 0.9);
    auto running = [&](Value old, Value batch) {
      return n.create<AddOp>(n.create<MulOp>(old, n.scalarLike(old, momentum)),
                             n.create<MulOp>(batch, n.scalarLike(batch, 1.0 - momentum)));
    };
    if (n.outputUsed(1))
      n.setResult(1, running(mean, batchMean));
    if (n.outputUsed(2))
      n.setResult(2, running(var, batchVar));
    mean = batchMean;
    var = batchVar;
  }
  Value s = n.create<MulOp>(scale, n.create<ReciprocalOp>(n.create<SqrtOp>(
                                       n.create<AddOp>(var, n.scalarLike(var, eps)))));
  Value t = n.create<SubOp>(bias, n.create<MulOp>(mean, s));
  SmallVector<int64_t> shape(xt.getRank() - 1, 1);
  shape[0] = xt.getDimSize(1);
  Value y = n.create<AddOp>(n.create<MulOp>(n.input(0), n.reshape(s, shape)), n.reshape(t, shape));
  n.setResult(0, y);
  return success();
}

LogicalResult importLayerNorm(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", -1), xt.getRank());
  if (!axis)
    return failure();
  double epsilon = n.getFloat("epsilon", 1e-5);
  n.setResult(0, n.create<LayerNormOp>(xt, n.input(0), n.input(1), n.input(2),
                                       n.b.getI64IntegerAttr(*axis), n.b.getF64FloatAttr(epsilon)));
  if (!n.outputUsed(1) && !n.outputUsed(2))
    return success();
  // Mean and InvStdDev (stash type U) over the normalized dims, kept as size 1.
  Type stash = onnxElementType(n.b.getContext(), n.getInt("stash_type", 1));
  if (!isa_and_nonnull<FloatType>(stash))
    return n.error() << "unsupported stash_type " << onnxDataTypeName(n.getInt("stash_type", 1));
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(*axis, xt.getRank()));
  auto mean = [&](Value v) {
    return n.create<ReduceMeanOp>(v, n.b.getDenseI64ArrayAttr(axes), n.b.getBoolAttr(true));
  };
  auto toStash = [&](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getElementType() == stash)
      return v;
    return n.create<CastOp>(RankedTensorType::get(type.getShape(), stash), v);
  };
  Value m = mean(n.input(0));
  Value centered = n.create<SubOp>(n.input(0), m);
  Value var = mean(n.create<MulOp>(centered, centered));
  Value invStdDev =
      n.create<ReciprocalOp>(n.create<SqrtOp>(n.create<AddOp>(var, n.scalarLike(var, epsilon))));
  n.setResult(1, toStash(m));
  n.setResult(2, toStash(invStdDev));
  return success();
}

//===----------------------------------------------------------------------===//
// InstanceNormalization, GroupNormalization
//===----------------------------------------------------------------------===//

/// Normalizes `x` ([N, C, ...]) per (n, group) over the group's channels and the spatial
/// dims, then applies the per-channel scale and bias.
Value groupNorm(NodeImporter &n, Value x, int64_t groups, double eps, Value scale, Value bias) {
  RankedTensorType xt = typeOf(x);
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1);
  Value grouped = n.reshape(x, {N, groups, xt.getNumElements() / (N * groups)});
  Value one = n.scalarLike(x, 1.0);
  Value normed = n.create<LayerNormOp>(typeOf(grouped), grouped, one, Value(),
                                       n.b.getI64IntegerAttr(2), n.b.getF64FloatAttr(eps));
  SmallVector<int64_t> perChannel(xt.getRank() - 1, 1);
  perChannel[0] = C;
  Value y = n.reshape(normed, xt.getShape());
  y = n.create<MulOp>(y, n.reshape(scale, perChannel));
  return n.create<AddOp>(y, n.reshape(bias, perChannel));
}

LogicalResult importInstanceNorm(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() < 3 || !isa<FloatType>(xt.getElementType()))
    return n.error() << "expects a float input of rank >= 3, got " << xt;
  int64_t C = xt.getDimSize(1);
  if (n.inputType(1).getNumElements() != C || n.inputType(2).getNumElements() != C)
    return n.error() << "scale and bias must hold " << C << " values";
  n.setResult(0, groupNorm(n, n.input(0), C, n.getFloat("epsilon", 1e-5), n.input(1), n.input(2)));
  return success();
}

/// GroupNormalization: scale and bias per channel (opset 21) or, before 21, per group
/// (expanded here to the group's channels).
LogicalResult importGroupNorm(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() < 3 || !isa<FloatType>(xt.getElementType()))
    return n.error() << "expects a float input of rank >= 3, got " << xt;
  int64_t C = xt.getDimSize(1), G = n.getInt("num_groups", 0);
  if (G <= 0 || C % G)
    return n.error() << "num_groups " << G << " does not divide " << C << " channels";
  Value scale = n.input(1), bias = n.input(2);
  for (Value *v : {&scale, &bias}) {
    int64_t count = typeOf(*v).getNumElements();
    if (count == C)
      continue;
    if (count != G)
      return n.error() << "scale and bias must hold " << C << " (or " << G << ") values";
    *v = n.reshape(broadcastTo(n, n.reshape(*v, {G, 1}), {G, C / G}), {C});
  }
  n.setResult(0, groupNorm(n, n.input(0), G, n.getFloat("epsilon", 1e-5), scale, bias));
  return success();
}
} // namespace

void infc::registerNormalizationImporters(ImportRegistry &r) {
  r["LRN"] = importLRN;
  r["BatchNormalization"] = importBatchNorm;
  r["LayerNormalization"] = importLayerNorm;
  r["InstanceNormalization"] = importInstanceNorm;
  r["GroupNormalization"] = importGroupNorm;
}

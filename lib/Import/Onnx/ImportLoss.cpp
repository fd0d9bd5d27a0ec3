//===- ImportLoss.cpp - NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss ===//
//
// Both as compositions of infc ops, following the ONNX spec: the loss of an element is
// -input[n, target[n, d...], d...] weighted by weight[target] (or 1), an element whose target
// is ignore_index weighs 0, and "mean" divides the weighted sum by the sum of the weights.
// The class is picked with a one-hot mask summed over the class axis instead of a gather: it
// reads the input once, as LogSoftmax does anyway, is exact (one term plus zeros) and cannot
// index out of bounds whatever the targets hold (out-of-range targets pick nothing).
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

using namespace mlir;
using namespace infc;

namespace {
/// The loss of one NegativeLogLikelihoodLoss node on log-probabilities `x` [N, C, d...]
/// with integer `target` [N, d...] and optional `weight` [C]; nullptr after an error.
Value negativeLogLikelihood(NodeImporter &n, Value x, Value target, Value weight) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto tType = cast<RankedTensorType>(target.getType());
  Type et = xType.getElementType();
  if (!isa<FloatType>(et)) {
    n.error() << "expects a float input, got " << et;
    return nullptr;
  }
  if (!tType.getElementType().isSignlessInteger()) {
    n.error() << "expects an int32 or int64 target, got " << tType.getElementType();
    return nullptr;
  }
  int64_t rank = xType.getRank();
  if (rank < 2 || tType.getRank() != rank - 1 || tType.getDimSize(0) != xType.getDimSize(0)) {
    n.error() << "expects input [N, C, d...] and target [N, d...], got " << xType << " and "
              << tType;
    return nullptr;
  }
  for (int64_t i = 2; i < rank; ++i)
    if (tType.getDimSize(i - 1) != xType.getDimSize(i)) {
      n.error() << "target " << tType << " does not match input " << xType;
      return nullptr;
    }
  int64_t classes = xType.getDimSize(1);
  if (weight) {
    auto wType = cast<RankedTensorType>(weight.getType());
    if (wType.getRank() != 1 || wType.getDimSize(0) != classes || wType.getElementType() != et) {
      n.error() << "expects weight [" << classes << "] of " << et << ", got " << wType;
      return nullptr;
    }
  }
  std::string reduction = n.getString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    n.error() << "unknown reduction '" << reduction << "'";
    return nullptr;
  }

  // mask[n, c, d...] = (c == target[n, d...]), with the classes as a [1, C, 1...] constant.
  Type it = tType.getElementType();
  SmallVector<int64_t> classShape(rank, 1);
  classShape[1] = classes;
  if (!n.tableFits(classShape, "a table of class ids"))
    return nullptr;
  SmallVector<APInt> classIds;
  for (int64_t c = 0; c < classes; ++c)
    classIds.push_back(APInt(it.getIntOrFloatBitWidth(), c));
  Value classIota =
      n.constant(DenseElementsAttr::get(RankedTensorType::get(classShape, it), classIds));
  SmallVector<int64_t> expanded(tType.getShape());
  expanded.insert(expanded.begin() + 1, 1);
  Value mask = n.create<EqualOp>(classIota, n.reshape(target, expanded));

  auto sumOverClasses = [&](Value v) {
    Value zero = n.scalarLike(v, 0.0);
    Value picked = n.create<WhereOp>(mask, v, zero);
    return n.create<ReduceSumOp>(picked, n.b.getDenseI64ArrayAttr({1}), n.b.getBoolAttr(false));
  };
  Value loss = n.create<NegOp>(sumOverClasses(x));

  // The per-element weight: weight[target] (0 for a target outside [0, C)), 0 where ignored.
  Value w;
  if (weight)
    w = sumOverClasses(n.reshape(weight, classShape));
  if (n.hasAttr("ignore_index")) {
    Value ignored = n.create<EqualOp>(target, n.scalarLike(target, n.getInt("ignore_index", 0)));
    w = n.create<WhereOp>(ignored, n.scalarLike(loss, 0.0), w ? w : n.scalarLike(loss, 1.0));
  }
  if (w)
    loss = n.create<MulOp>(loss, w);

  if (reduction == "none")
    return loss;
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
  auto total = [&](Value v) {
    return n.create<ReduceSumOp>(v, n.b.getDenseI64ArrayAttr(all), n.b.getBoolAttr(false));
  };
  if (reduction == "sum")
    return total(loss);
  if (!w)
    return n.create<ReduceMeanOp>(loss, n.b.getDenseI64ArrayAttr(all), n.b.getBoolAttr(false));
  return n.create<DivOp>(total(loss), total(w));
}

LogicalResult importNegativeLogLikelihoodLoss(NodeImporter &n) {
  Value loss = negativeLogLikelihood(n, n.input(0), n.input(1), n.input(2));
  if (!loss)
    return failure();
  n.setResult(0, loss);
  return success();
}

/// log_prob = LogSoftmax(scores, axis 1), then the NLL of log_prob; output 1 is log_prob.
LogicalResult importSoftmaxCrossEntropyLoss(NodeImporter &n) {
  Value scores = n.input(0);
  auto type = cast<RankedTensorType>(scores.getType());
  if (!isa<FloatType>(type.getElementType()))
    return n.error() << "expects float scores, got " << type.getElementType();
  if (type.getRank() < 2)
    return n.error() << "expects scores [N, C, d...], got " << type;
  Value logProb = logSoftmax(n, scores, 1);
  Value loss = negativeLogLikelihood(n, logProb, n.input(1), n.input(2));
  if (!loss)
    return failure();
  n.setResult(0, loss);
  if (n.outputUsed(1))
    n.setResult(1, logProb);
  return success();
}
} // namespace

void infc::registerLossImporters(ImportRegistry &r) {
  r["NegativeLogLikelihoodLoss"] = importNegativeLogLikelihoodLoss;
  r["SoftmaxCrossEntropyLoss"] = importSoftmaxCrossEntropyLoss;
}

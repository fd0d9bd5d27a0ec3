//===- ImportReductions.cpp - ONNX reductions, ArgMax, ArgMin and Softmax -===//
#include "NodeImporter.h"

using namespace mlir;
using namespace infc;

std::optional<SmallVector<int64_t>> infc::reductionAxes(NodeImporter &n, int64_t axesInputSince) {
  int64_t rank = n.inputType(0).getRank();
  SmallVector<int64_t> axes;
  if (n.opset >= axesInputSince) {
    // An empty axes tensor needs no value, even as a graph input.
    if (n.input(1) && n.inputType(1).getNumElements() != 0) {
      auto values = n.constantInts(1, "axes");
      if (!values)
        return std::nullopt;
      axes = *values;
    }
  } else {
    axes = n.getInts("axes");
  }
  if (axes.empty()) {
    if (n.getInt("noop_with_empty_axes", 0))
      return axes;
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  for (int64_t &a : axes) {
    std::optional<int64_t> norm = n.normalizeAxis(a, rank);
    if (!norm)
      return std::nullopt;
    a = *norm;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

LogicalResult infc::importAlongAxis(NodeImporter &n,
                                    function_ref<Value(Value x, int64_t axis)> fn) {
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank();
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", n.opset < 13 ? 1 : -1), rank);
  if (!axis)
    return failure();
  if (n.opset >= 13 || *axis == rank - 1) {
    n.setResult(0, fn(n.input(0), *axis));
    return success();
  }
  // Before opset 13 the input is coerced to 2-D at `axis` and normalized over the rest.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < *axis ? outer : inner) *= xt.getDimSize(d);
  Value y = fn(n.reshape(n.input(0), {outer, inner}), 1);
  n.setResult(0, n.reshape(y, xt.getShape()));
  return success();
}

namespace {
LogicalResult importSoftmax(NodeImporter &n) {
  return importAlongAxis(n, [&](Value x, int64_t axis) {
    return n.create<SoftmaxOp>(x, n.b.getI64IntegerAttr(axis));
  });
}

/// ArgMax, ArgMin: axis default 0, keepdims default 1, select_last_index from opset 12.
template <typename ArgOp> LogicalResult importArgReduce(NodeImporter &n) {
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), n.inputType(0).getRank());
  if (!axis)
    return failure();
  n.setResult(0, n.create<ArgOp>(n.input(0), n.b.getI64IntegerAttr(*axis),
                                 n.b.getBoolAttr(n.getInt("keepdims", 1)),
                                 n.b.getBoolAttr(n.getInt("select_last_index", 0))));
  return success();
}

/// Reduce*: the ReduceOp over the node's axes, or the input itself for no axes.
template <typename ReduceOp> ImportFn reduce(int64_t axesInputSince) {
  return [axesInputSince](NodeImporter &n) -> LogicalResult {
    std::optional<SmallVector<int64_t>> axes = reductionAxes(n, axesInputSince);
    if (!axes)
      return failure();
    if (axes->empty()) {
      n.setResult(0, n.input(0));
      return success();
    }
    n.setResult(0, n.create<ReduceOp>(n.input(0), n.b.getDenseI64ArrayAttr(*axes),
                                      n.b.getBoolAttr(n.getInt("keepdims", 1))));
    return success();
  };
}
} // namespace

void infc::registerReductionImporters(ImportRegistry &r) {
  r["Softmax"] = importSoftmax;
  r["ReduceSum"] = reduce<ReduceSumOp>(13);
  r["ReduceMean"] = reduce<ReduceMeanOp>(18);
  r["ReduceMax"] = reduce<ReduceMaxOp>(18);
  r["ReduceMin"] = reduce<ReduceMinOp>(18);
  r["ReduceProd"] = reduce<ReduceProdOp>(18);
  r["ArgMax"] = importArgReduce<ArgMaxOp>;
  r["ArgMin"] = importArgReduce<ArgMinOp>;
}

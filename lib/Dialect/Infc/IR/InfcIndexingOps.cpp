//===- InfcIndexingOps.cpp - type inference and verifiers of pad, cumsum, scatter, topk ===//
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace infc;

static RankedTensorType rankedType(Value v) { return cast<RankedTensorType>(v.getType()); }

//===----------------------------------------------------------------------===//
// pad
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto it = rankedType(adaptor.getInput());
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  if ((int64_t)low.size() != it.getRank() || (int64_t)high.size() != it.getRank())
    return emitOptionalError(loc, "expects low and high pads of rank ", it.getRank());
  SmallVector<int64_t> shape(it.getShape());
  for (int64_t d = 0; d < it.getRank(); ++d)
    if (!ShapedType::isDynamic(shape[d]))
      shape[d] += low[d] + high[d];
  types.push_back(RankedTensorType::get(shape, it.getElementType()));
  return success();
}

LogicalResult PadOp::verify() {
  SmallVector<Type> types;
  if (failed(inferReturnTypes(getContext(), getLoc(), Adaptor(*this), types)))
    return failure();
  StringRef mode = getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    return emitOpError("expects mode constant, reflect, edge or wrap, got '") << mode << "'";
  auto it = rankedType(getInput());
  for (int64_t d = 0; d < it.getRank(); ++d) {
    if (getLow()[d] < 0 || getHigh()[d] < 0)
      return emitOpError("expects non-negative pads (dim ") << d << ")";
    if (mode != "constant" && it.getDimSize(d) == 0 && getLow()[d] + getHigh()[d] > 0)
      return emitOpError("cannot pad an empty dim in ") << mode << " mode (dim " << d << ")";
  }
  if (Value v = getValue()) {
    auto vt = rankedType(v);
    if (vt.getRank() != 0 || vt.getElementType() != it.getElementType())
      return emitOpError("expects a rank-0 value of the input's element type, got ") << vt;
    if (mode != "constant")
      return emitOpError("takes a value in constant mode only");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// cumsum
//===----------------------------------------------------------------------===//

template <typename OpTy> static LogicalResult verifyCumulative(OpTy op) {
  auto it = rankedType(op.getInput());
  int64_t axis = (int64_t)op.getAxis();
  if (axis < 0 || axis >= it.getRank())
    return op.emitOpError("expects axis in [0, ") << it.getRank() << "), got " << axis;
  if (it.getElementType().isInteger(1))
    return op.emitOpError("is not defined on i1");
  return success();
}

LogicalResult CumSumOp::verify() { return verifyCumulative(*this); }
LogicalResult CumProdOp::verify() { return verifyCumulative(*this); }

//===----------------------------------------------------------------------===//
// scatter
//===----------------------------------------------------------------------===//

LogicalResult ScatterOp::verify() {
  auto dt = rankedType(getData()), it = rankedType(getIndices()), ut = rankedType(getUpdates());
  int64_t axis = (int64_t)getAxis();
  if (axis < 0 || axis >= dt.getRank())
    return emitOpError("expects axis in [0, ") << dt.getRank() << "), got " << axis;
  if (it.getShape() != ut.getShape())
    return emitOpError("expects indices and updates of one shape, got ") << it << " and " << ut;
  if (it.getRank() != dt.getRank())
    return emitOpError("expects indices of the data's rank ") << dt.getRank();
  for (int64_t d = 0; d < dt.getRank(); ++d)
    if (d != axis && !it.isDynamicDim(d) && !dt.isDynamicDim(d) &&
        it.getDimSize(d) > dt.getDimSize(d))
      return emitOpError("indices are larger than the data in dim ") << d;
  if (ut.getElementType() != dt.getElementType())
    return emitOpError("expects updates of the data's element type");
  StringRef r = getReduction();
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min")
    return emitOpError("expects reduction none, add, mul, max or min, got '") << r << "'";
  if (dt.getDimSize(axis) == 0 && it.hasStaticShape() && it.getNumElements() > 0)
    return emitOpError("cannot scatter into an empty dim");
  return success();
}

//===----------------------------------------------------------------------===//
// topk
//===----------------------------------------------------------------------===//

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto it = rankedType(adaptor.getInput());
  int64_t axis = (int64_t)adaptor.getAxis(), k = (int64_t)adaptor.getK();
  if (axis < 0 || axis >= it.getRank())
    return emitOptionalError(loc, "expects axis in [0, ", it.getRank(), ")");
  if (k < 0 || (!it.isDynamicDim(axis) && k > it.getDimSize(axis)))
    return emitOptionalError(loc, "expects k in [0, ", it.getDimSize(axis), "], got ", k);
  SmallVector<int64_t> shape(it.getShape());
  shape[axis] = k;
  types.push_back(RankedTensorType::get(shape, it.getElementType()));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult TopKOp::verify() {
  SmallVector<Type> types;
  if (failed(inferReturnTypes(getContext(), getLoc(), Adaptor(*this), types)))
    return failure();
  if (rankedType(getInput()).getElementType().isInteger(1))
    return emitOpError("is not defined on i1");
  return success();
}

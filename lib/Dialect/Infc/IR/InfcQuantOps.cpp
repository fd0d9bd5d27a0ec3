//===- InfcQuantOps.cpp - verifiers of quantize and dequantize -------------===//
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace infc;

/// The checks quantize and dequantize share: shapes of input and result, the scale's
/// granularity, the zero point's shape and element type (`quantized`, the integer or
/// float8 side).
static LogicalResult verifyQuantOp(Operation *op, Value input, Value scale, Value zeroPoint,
                                   Value result, Type quantized, int64_t axis, int64_t blockSize) {
  auto it = cast<RankedTensorType>(input.getType());
  auto st = cast<RankedTensorType>(scale.getType());
  auto rt = cast<RankedTensorType>(result.getType());
  if (it.getShape() != rt.getShape())
    return op->emitOpError("expects the result shape to equal the input shape");
  if (zeroPoint) {
    auto zt = cast<RankedTensorType>(zeroPoint.getType());
    if (zt.getShape() != st.getShape())
      return op->emitOpError("expects a zero point of the scale's shape");
    if (zt.getElementType() != quantized)
      return op->emitOpError("expects a zero point of element type ") << quantized;
  }
  if (!isa<IntegerType, FloatType>(quantized) || quantized.isInteger(1))
    return op->emitOpError("expects an integer or float quantized type, got ") << quantized;
  if (st.getRank() == 0)
    return success();
  int64_t rank = it.getRank();
  if (axis < 0 || axis >= rank)
    return op->emitOpError("expects axis in [0, ") << rank << "), got " << axis;
  if (blockSize < 0)
    return op->emitOpError("expects a non-negative block_size");
  if (blockSize == 0) {
    if (it.isDynamicDim(axis))
      return op->emitOpError("expects a static dim ") << axis << " for a per-axis scale";
    if (st.getRank() != 1 || st.getDimSize(0) != it.getDimSize(axis))
      return op->emitOpError("expects a per-axis scale of shape [")
             << it.getDimSize(axis) << "], got " << st;
    return success();
  }
  if (!it.hasStaticShape())
    return op->emitOpError("expects a static input shape for a blocked scale");
  for (int64_t d = 0; d < rank; ++d) {
    int64_t want = d == axis ? (it.getDimSize(d) + blockSize - 1) / blockSize : it.getDimSize(d);
    if (st.getRank() != rank || st.getDimSize(d) != want)
      return op->emitOpError("expects a blocked scale of the input's shape with dim ")
             << axis << " divided by the block size " << blockSize << ", got " << st;
  }
  return success();
}

LogicalResult QuantizeOp::verify() {
  return verifyQuantOp(*this, getInput(), getScale(), getZeroPoint(), getResult(),
                       getElementTypeOrSelf(getResult().getType()), getAxis(), getBlockSize());
}

LogicalResult DequantizeOp::verify() {
  if (!isa<FloatType>(getElementTypeOrSelf(getResult().getType())))
    return emitOpError("expects a float result");
  return verifyQuantOp(*this, getInput(), getScale(), getZeroPoint(), getResult(),
                       getElementTypeOrSelf(getInput().getType()), getAxis(), getBlockSize());
}

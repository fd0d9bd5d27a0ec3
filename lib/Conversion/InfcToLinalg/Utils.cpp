//===- Utils.cpp - builders shared by the infc-to-linalg patterns ---------===//
//
// The linalg, tensor and arith sequences more than one op family lowers to: broadcasting
// elementwise generics, fills, reductions, reshapes, pads, the tap windows of 2-D window ops,
// scalar constants and the signless types below the infc dialect.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace infc;

AffineMap lowering::broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> operandShape,
                                 ArrayRef<int64_t> resultShape) {
  int64_t offset = resultShape.size() - operandShape.size();
  SmallVector<AffineExpr> exprs;
  for (size_t d = 0; d < operandShape.size(); ++d)
    exprs.push_back(operandShape[d] == 1 && resultShape[d + offset] != 1
                        ? getAffineConstantExpr(0, ctx)
                        : getAffineDimExpr(d + offset, ctx));
  return AffineMap::get(resultShape.size(), 0, exprs, ctx);
}

Value lowering::symbolicDimSize(OpBuilder &b, Location loc) {
  Operation *parent = b.getInsertionBlock() ? b.getInsertionBlock()->getParentOp() : nullptr;
  while (parent && !isa<FunctionOpInterface>(parent))
    parent = parent->getParentOp();
  if (!parent)
    return nullptr;
  for (BlockArgument arg : cast<FunctionOpInterface>(parent).getArguments())
    if (auto type = dyn_cast<RankedTensorType>(arg.getType()))
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          return tensor::DimOp::create(b, loc, arg, d);
  return nullptr;
}

SmallVector<Value> lowering::dynamicSizes(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                                          ValueRange sources) {
  SmallVector<Value> sizes;
  int64_t rank = shape.size();
  for (int64_t d = 0; d < rank; ++d) {
    if (!ShapedType::isDynamic(shape[d]))
      continue;
    Value size;
    for (Value source : sources) {
      auto type = cast<RankedTensorType>(source.getType());
      int64_t k = d - (rank - type.getRank());
      if (k >= 0 && type.isDynamicDim(k)) {
        size = tensor::DimOp::create(b, loc, source, k);
        break;
      }
    }
    if (!size)
      size = symbolicDimSize(b, loc);
    if (size)
      sizes.push_back(size);
  }
  return sizes;
}

Value lowering::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type, ValueRange sources) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynamicSizes(b, loc, type.getShape(), sources));
}

Value lowering::elementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                            ValueRange inputs,
                            function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value v : inputs)
    maps.push_back(
        broadcastMap(ctx, cast<RankedTensorType>(v.getType()).getShape(), resultType.getShape()));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx));
  Value init = emptyTensor(b, loc, resultType, inputs);
  SmallVector<utils::IteratorType> iterators(resultType.getRank(), utils::IteratorType::parallel);
  auto generic =
      linalg::GenericOp::create(b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
                                iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
                                  Value r = body(nb, nloc, args.drop_back());
                                  linalg::YieldOp::create(nb, nloc, r);
                                });
  return generic.getResult(0);
}

Value lowering::filled(OpBuilder &b, Location loc, RankedTensorType type, TypedAttr value) {
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value v = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, v, init).getResult(0);
}

Value lowering::reduce(OpBuilder &b, Location loc, Value input, ArrayRef<bool> reduced,
                       TypedAttr init,
                       function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    iterators.push_back(reduced[d] ? utils::IteratorType::reduction
                                   : utils::IteratorType::parallel);
    if (reduced[d])
      continue;
    shape.push_back(type.getDimSize(d));
    outExprs.push_back(getAffineDimExpr(d, ctx));
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!reduced[d] && type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, input, d));
  Value empty = tensor::EmptyOp::create(b, loc, shape, type.getElementType(), sizes);
  Value fill = arith::ConstantOp::create(b, loc, init);
  Value acc = linalg::FillOp::create(b, loc, fill, empty).getResult(0);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(type.getRank(), ctx),
                                 AffineMap::get(type.getRank(), 0, outExprs, ctx)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{input}, ValueRange{acc}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, combine(nb, nloc, args[0], args[1]));
      });
  return generic.getResult(0);
}

Value lowering::reshapeTensor(OpBuilder &b, Location loc, Value input,
                              RankedTensorType resultType) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type == resultType)
    return input;
  if (type.getRank() > resultType.getRank()) {
    if (auto reassoc = getReassociationIndicesForCollapse(type.getShape(), resultType.getShape()))
      return tensor::CollapseShapeOp::create(b, loc, resultType, input, *reassoc);
  } else if (type.getRank() < resultType.getRank()) {
    if (auto reassoc = getReassociationIndicesForCollapse(resultType.getShape(), type.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, resultType, input, *reassoc);
  }
  // General case: through a 1-D tensor (rank 0 goes through [1]); static shapes only.
  if (!type.hasStaticShape() || !resultType.hasStaticShape())
    return nullptr;
  Value flat = input;
  int64_t n = type.getNumElements();
  auto flatType = RankedTensorType::get({n}, type.getElementType());
  if (type.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, input, ArrayRef<ReassociationIndices>{});
  else if (type.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(
        b, loc, flatType, input,
        ArrayRef<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))});
  if (resultType.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, resultType, flat,
                                           ArrayRef<ReassociationIndices>{});
  if (resultType.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(
      b, loc, resultType, flat,
      ArrayRef<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, resultType.getRank()))});
}

Value lowering::padConstant(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> low,
                            ArrayRef<int64_t> high, TypedAttr value) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] += low[d] + high[d];
  Value padValue = arith::ConstantOp::create(b, loc, value);
  MLIRContext *ctx = b.getContext();
  return tensor::PadOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), input,
                               getAsIndexOpFoldResult(ctx, low), getAsIndexOpFoldResult(ctx, high),
                               padValue)
      .getResult();
}

SmallVector<Value> lowering::tapWindows(OpBuilder &b, Location loc, Value input,
                                        ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                                        ArrayRef<int64_t> dilations, bool channelsLast,
                                        ArrayRef<int64_t> outShape) {
  int64_t h = channelsLast ? 1 : 2; // the first spatial dim
  SmallVector<int64_t> stepSizes(4, 1);
  stepSizes[h] = strides[0];
  stepSizes[h + 1] = strides[1];
  SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(b.getContext(), outShape);
  SmallVector<OpFoldResult> steps = getAsIndexOpFoldResult(b.getContext(), stepSizes);
  SmallVector<Value> windows;
  for (int64_t i = 0; i < kernel[0]; ++i)
    for (int64_t j = 0; j < kernel[1]; ++j) {
      SmallVector<int64_t> at(4, 0);
      at[h] = i * dilations[0];
      at[h + 1] = j * dilations[1];
      SmallVector<OpFoldResult> offsets = getAsIndexOpFoldResult(b.getContext(), at);
      windows.push_back(tensor::ExtractSliceOp::create(b, loc, input, offsets, sizes, steps));
    }
  return windows;
}

Value lowering::scalar(OpBuilder &b, Location loc, Type type, double value, bool isUnsigned) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, value));
  // Saturate: a bound of 2^63 (from a double) is out of int64's range.
  unsigned w = type.getIntOrFloatBitWidth();
  APInt v;
  if (isUnsigned) {
    APInt hi = APInt::getMaxValue(w);
    v = value <= 0 ? APInt(w, 0) : value >= hi.roundToDouble() ? hi : APInt(w, (uint64_t)value);
  } else {
    APInt lo = APInt::getSignedMinValue(w), hi = APInt::getSignedMaxValue(w);
    v = value >= hi.signedRoundToDouble()   ? hi
        : value <= lo.signedRoundToDouble() ? lo
                                            : APInt(w, (uint64_t)(int64_t)value, true);
  }
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

TypedAttr lowering::lowestAttr(Type type, bool isUnsigned) {
  if (auto ft = dyn_cast<FloatType>(type))
    return FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/true));
  unsigned w = type.getIntOrFloatBitWidth();
  return IntegerAttr::get(type, w == 1 || isUnsigned ? APInt(w, 0) : APInt::getSignedMinValue(w));
}

TypedAttr lowering::highestAttr(Type type, bool isUnsigned) {
  if (auto ft = dyn_cast<FloatType>(type))
    return FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/false));
  unsigned w = type.getIntOrFloatBitWidth();
  return IntegerAttr::get(type, w == 1 || isUnsigned ? APInt::getMaxValue(w)
                                                     : APInt::getSignedMaxValue(w));
}

Type lowering::signless(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(signless(shaped.getElementType()));
  if (auto it = dyn_cast<IntegerType>(type); it && !it.isSignless())
    return IntegerType::get(type.getContext(), it.getWidth());
  if (isSmallFloat(type))
    return IntegerType::get(type.getContext(), type.getIntOrFloatBitWidth());
  return type;
}

RankedTensorType lowering::loweredType(Type tensorType) {
  return cast<RankedTensorType>(signless(tensorType));
}

bool lowering::isUnsigned(Type type) { return getElementTypeOrSelf(type).isUnsignedInteger(); }

bool lowering::isHalfFloat(Type type) {
  Type et = getElementTypeOrSelf(type);
  return et.isF16() || et.isBF16();
}

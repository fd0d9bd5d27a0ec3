//===- InfcToLinalg.cpp - the convert-infc-to-linalg pass and shared builders ===//
#include "PopulatePatterns.h"
#include "infc/Conversion/Passes.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace infc {
#define GEN_PASS_DEF_CONVERTINFCTOLINALG
#include "infc/Conversion/Passes.h.inc"
} // namespace infc

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

Value lowering::elementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                            ValueRange inputs,
                            function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value v : inputs)
    maps.push_back(
        broadcastMap(ctx, cast<RankedTensorType>(v.getType()).getShape(), resultType.getShape()));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx));
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(), resultType.getElementType());
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
  Value acc = filled(b, loc, resultType, init);
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
  // General case: through a 1-D tensor (rank 0 goes through [1]).
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

void infc::populateInfcToLinalgPatterns(RewritePatternSet &patterns, bool directConv,
                                        int64_t byteRowMultiple, int64_t winogradMinChannels) {
  populateElementwisePatterns(patterns);
  populateLinearPatterns(patterns, directConv, byteRowMultiple, winogradMinChannels);
  populatePoolingPatterns(patterns);
  populateReductionPatterns(patterns);
  populateDataMovementPatterns(patterns);
  populateIndexingPatterns(patterns);
  populateQuantizationPatterns(patterns);
}

/// A multi-dim tensor with no elements crosses function boundaries as a 1-D `tensor<0xT>`:
/// MLIR's canonical strides of, say, memref<2x0xf32> are not static, so the bare-pointer
/// call convention of the LLVM lowering would refuse the whole function. No data crosses
/// either way: inside, an argument becomes a tensor.empty of its shape, and a result is
/// returned as a fresh tensor.empty.
static void flattenEmptyBoundaryTensors(func::FuncOp func) {
  if (func.isExternal())
    return;
  auto needsFlattening = [](Type t) {
    auto tt = dyn_cast<RankedTensorType>(t);
    return tt && tt.hasStaticShape() && tt.getRank() != 1 && tt.getNumElements() == 0;
  };
  auto flat = [](Type t) {
    return RankedTensorType::get({0}, cast<RankedTensorType>(t).getElementType());
  };
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  for (BlockArgument arg : entry.getArguments()) {
    if (!needsFlattening(arg.getType()))
      continue;
    auto type = cast<RankedTensorType>(arg.getType());
    Value empty = tensor::EmptyOp::create(b, func.getLoc(), type.getShape(), type.getElementType());
    arg.replaceAllUsesWith(empty);
    arg.setType(flat(type));
  }
  func.walk([&](func::ReturnOp ret) {
    for (OpOperand &operand : ret->getOpOperands())
      if (needsFlattening(operand.get().getType())) {
        b.setInsertionPoint(ret);
        operand.set(tensor::EmptyOp::create(b, ret.getLoc(), ArrayRef<int64_t>{0},
                                            getElementTypeOrSelf(operand.get().getType())));
      }
  });
  FunctionType ft = func.getFunctionType();
  auto convert = [&](TypeRange types) {
    return llvm::map_to_vector(types, [&](Type t) { return needsFlattening(t) ? flat(t) : t; });
  };
  func.setFunctionType(
      FunctionType::get(func.getContext(), convert(ft.getInputs()), convert(ft.getResults())));
}

namespace {
struct ConvertInfcToLinalgPass
    : public infc::impl::ConvertInfcToLinalgBase<ConvertInfcToLinalgPass> {
  using ConvertInfcToLinalgBase::ConvertInfcToLinalgBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // float8/float4 values are only moved and cast: every other op would compute on bits.
    WalkResult smallFloats = getOperation()->walk([](Operation *op) {
      if (!isa<InfcDialect>(op->getDialect()) ||
          isa<CastOp, ConstantOp, ShapeOp, ReshapeOp, BroadcastOp, TransposeOp, ConcatOp, SliceOp,
              GatherOp, WhereOp, PadOp, QuantizeOp, DequantizeOp>(op))
        return WalkResult::advance();
      for (Type t : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
        if (lowering::isSmallFloat(t)) {
          op->emitOpError("is not supported on element type ") << getElementTypeOrSelf(t);
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (smallFloats.wasInterrupted())
      return signalPassFailure();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<InfcDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect, arith::ArithDialect,
                           math::MathDialect, func::FuncDialect, scf::SCFDialect,
                           vector::VectorDialect>();
    // The function signature and returns lose the signedness of unsigned integer types;
    // the infc patterns build signless types themselves.
    TypeConverter signlessTypes;
    signlessTypes.addConversion([](Type t) { return lowering::signless(t); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return signlessTypes.isSignatureLegal(op.getFunctionType()) &&
             signlessTypes.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp>(
        [&](func::ReturnOp op) { return signlessTypes.isLegal(op.getOperandTypes()); });
    RewritePatternSet patterns(ctx);
    populateInfcToLinalgPatterns(patterns, directConv, byteRowMultiple, winogradMinChannels);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, signlessTypes);
    populateReturnOpTypeConversionPattern(patterns, signlessTypes);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      return signalPassFailure();
    getOperation()->walk(flattenEmptyBoundaryTensors);
  }
};
} // namespace

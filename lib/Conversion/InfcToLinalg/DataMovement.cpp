//===- DataMovement.cpp - infc constants, reshapes, slices, gathers -------===//
#include "PopulatePatterns.h"
#include "Utils.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace infc;
using namespace infc::lowering;

namespace {
struct ConstantLowering : public OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto value = cast<TypedAttr>(op.getValue());
    if (isUnsigned(value.getType())) { // the same bits, signless
      auto dense = dyn_cast<DenseElementsAttr>(value);
      if (!dense)
        return rewriter.notifyMatchFailure(op, "unsigned constant that is not dense");
      value = dense.bitcast(signless(dense.getElementType()));
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

/// Shapes are static, so a shape op that survived folding is still a constant.
struct ShapeLowering : public OpConversionPattern<ShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ShapeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(loweredType(op.getType()), type.getShape()));
    return success();
  }
};

struct ReshapeLowering : public OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value result =
        reshapeTensor(rewriter, op.getLoc(), adaptor.getInput(), loweredType(op.getType()));
    if (!result)
      return rewriter.notifyMatchFailure(op, "a reshape of `?` dims that is not one collapse "
                                             "or expand");
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BroadcastLowering : public OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, elementwise(rewriter, op.getLoc(), loweredType(op.getType()),
                                       ValueRange{adaptor.getInput()},
                                       [](OpBuilder &, Location, ValueRange a) { return a[0]; }));
    return success();
  }
};

struct TransposeLowering : public OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = loweredType(op.getType());
    // A `?` of the result is the size of the input dim the permutation takes it from.
    SmallVector<Value> sizes;
    for (auto [d, from] : llvm::enumerate(op.getPerm()))
      if (type.isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(rewriter, op.getLoc(), adaptor.getInput(), from));
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType(), sizes);
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, op.getLoc(), adaptor.getInput(),
                                                       init, op.getPerm())
                               ->getResult(0));
    return success();
  }
};

struct ConcatLowering : public OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = loweredType(op.getType());
    int64_t axis = op.getAxis(), offset = 0;
    // A `?` outside the axis (generic code) is the same size in every input; the axis is static.
    if (type.isDynamicDim(axis))
      return rewriter.notifyMatchFailure(op, "a concatenation along a `?` dim");
    Value result = emptyTensor(rewriter, loc, type, adaptor.getInputs());
    for (Value v : adaptor.getInputs()) {
      auto vt = cast<RankedTensorType>(v.getType());
      if (vt.hasStaticShape() && vt.getNumElements() == 0)
        continue; // contributes nothing, and its offset may lie past the end
      SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
      offsets[axis] = offset;
      SmallVector<Value> sizes = dynamicSizes(rewriter, loc, vt.getShape(), v);
      result = tensor::InsertSliceOp::create(rewriter, loc, v, result, ValueRange{}, sizes,
                                             ValueRange{}, offsets, vt.getShape(), strides);
      offset += vt.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Positive steps are an extract_slice; negative ones read through computed indices.
struct SliceLowering : public OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = loweredType(op.getType());
    ArrayRef<int64_t> offsets = op.getOffsets(), steps = op.getSteps();
    // A `?` size is the symbolic dim's run-time size (importGeneralized's slices).
    SmallVector<Value> sizes = dynamicSizes(rewriter, loc, type.getShape(), adaptor.getInput());
    if (sizes.size() != (size_t)type.getNumDynamicDims())
      return rewriter.notifyMatchFailure(op, "a `?` size with no symbolic dim to read");
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, type, adaptor.getInput(),
                                                          ValueRange{}, sizes, ValueRange{},
                                                          offsets, op.getSizes(), steps);
      return success();
    }
    Value input = adaptor.getInput();
    Value init =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType(), sizes);
    SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{
            AffineMap::getMultiDimIdentityMap(type.getRank(), rewriter.getContext())},
        iterators, [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < type.getRank(); ++d) {
            Value i = linalg::IndexOp::create(b, l, d);
            Value step = arith::ConstantIndexOp::create(b, l, steps[d]);
            Value off = arith::ConstantIndexOp::create(b, l, offsets[d]);
            indices.push_back(
                arith::AddIOp::create(b, l, off, arith::MulIOp::create(b, l, i, step)));
          }
          linalg::YieldOp::create(b, l,
                                  tensor::ExtractOp::create(b, l, input, indices).getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// gather: each result element reads data at the index taken from `indices`. Negative
/// indices count from the end; out-of-range ones are clamped so a bad run-time index can
/// never read outside the tensor.
struct GatherLowering : public OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = loweredType(op.getType());
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dt = cast<RankedTensorType>(data.getType());
    auto it = cast<RankedTensorType>(indices.getType());
    int64_t axis = op.getAxis(), irank = it.getRank(), rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> idxExprs;
    for (int64_t d = 0; d < irank; ++d)
      idxExprs.push_back(getAffineDimExpr(axis + d, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, idxExprs, ctx),
                                   AffineMap::getMultiDimIdentityMap(rank, ctx)};
    // Result dims: data's before the axis, the indices', data's after it.
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      auto [source, k] = d < axis           ? std::pair(data, d)
                         : d < axis + irank ? std::pair(indices, d - axis)
                                            : std::pair(data, d - irank + 1);
      sizes.push_back(tensor::DimOp::create(rewriter, loc, source, k));
    }
    Value init =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType(), sizes);
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    int64_t dim = dt.getDimSize(axis);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{indices}, ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value idx = arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value size, max;
          if (ShapedType::isDynamic(dim)) {
            size = tensor::DimOp::create(b, l, data, axis);
            max = arith::SubIOp::create(b, l, size, arith::ConstantIndexOp::create(b, l, 1));
          } else {
            size = arith::ConstantIndexOp::create(b, l, dim);
            max = arith::ConstantIndexOp::create(b, l, dim - 1);
          }
          Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, idx, zero);
          idx = arith::SelectOp::create(b, l, neg, arith::AddIOp::create(b, l, idx, size), idx);
          idx = arith::MaxSIOp::create(b, l, arith::MinSIOp::create(b, l, idx, max), zero);
          SmallVector<Value> coords;
          for (int64_t d = 0; d < axis; ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d));
          coords.push_back(idx);
          for (int64_t d = axis + 1; d < dt.getRank(); ++d)
            coords.push_back(linalg::IndexOp::create(b, l, d + irank - 1));
          linalg::YieldOp::create(b, l, tensor::ExtractOp::create(b, l, data, coords).getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};
} // namespace

void infc::populateDataMovementPatterns(RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, ShapeLowering, ReshapeLowering, BroadcastLowering,
               TransposeLowering, ConcatLowering, SliceLowering, GatherLowering>(
      patterns.getContext());
}

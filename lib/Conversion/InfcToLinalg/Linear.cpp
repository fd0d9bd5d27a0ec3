//===- Linear.cpp - infc matmul and conv to named linalg ops --------------===//
#include "PopulatePatterns.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace infc;
using namespace infc::lowering;

namespace {
Value zeros(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type et) {
  return filled(b, loc, RankedTensorType::get(shape, et), b.getZeroAttr(et));
}

int64_t product(ArrayRef<int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v)
    p *= x;
  return p;
}

/// Batched matmul: a rank-2 rhs (weights) folds the lhs batch into M for one linalg.matmul;
/// equal batch dims become linalg.batch_matmul; broadcast batches a generic contraction.
struct MatMulLowering : public OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType()), rt = cast<RankedTensorType>(rhs.getType());
    RankedTensorType resultType = loweredType(op.getType()); // ui<N> -> i<N>
    Type et = resultType.getElementType();
    ArrayRef<int64_t> ls = lt.getShape(), rs = rt.getShape();
    int64_t m = ls[ls.size() - 2], k = ls.back(), n = rs.back();

    if (rt.getRank() == 2) {
      int64_t rows = product(ls.drop_back());
      Value a = reshapeTensor(rewriter, loc, lhs, RankedTensorType::get({rows, k}, et));
      Value acc = zeros(rewriter, loc, {rows, n}, et);
      Value c = linalg::MatmulOp::create(rewriter, loc, ValueRange{a, rhs}, ValueRange{acc})
                    .getResult(0);
      rewriter.replaceOp(op, reshapeTensor(rewriter, loc, c, resultType));
      return success();
    }
    ArrayRef<int64_t> lb = ls.drop_back(2), rb = rs.drop_back(2);
    if (lb == rb) {
      int64_t batch = product(lb);
      Value a = reshapeTensor(rewriter, loc, lhs, RankedTensorType::get({batch, m, k}, et));
      Value bm = reshapeTensor(rewriter, loc, rhs, RankedTensorType::get({batch, k, n}, et));
      Value acc = zeros(rewriter, loc, {batch, m, n}, et);
      Value c = linalg::BatchMatmulOp::create(rewriter, loc, ValueRange{a, bm},
                                              ValueRange{acc})
                    .getResult(0);
      rewriter.replaceOp(op, reshapeTensor(rewriter, loc, c, resultType));
      return success();
    }
    // Broadcast batch dims: iteration space (batch..., m, n, k).
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = resultType.getRank(), loops = rank + 1;
    ArrayRef<int64_t> batchShape = resultType.getShape().drop_back(2);
    auto operandMap = [&](ArrayRef<int64_t> batch, AffineExpr row, AffineExpr col) {
      SmallVector<AffineExpr> exprs;
      int64_t offset = batchShape.size() - batch.size();
      for (size_t d = 0; d < batch.size(); ++d)
        exprs.push_back(batch[d] == 1 && batchShape[d + offset] != 1
                            ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(d + offset, ctx));
      exprs.push_back(row);
      exprs.push_back(col);
      return AffineMap::get(loops, 0, exprs, ctx);
    };
    AffineExpr dm = getAffineDimExpr(rank - 2, ctx), dn = getAffineDimExpr(rank - 1, ctx),
               dk = getAffineDimExpr(rank, ctx);
    SmallVector<AffineExpr> outExprs;
    for (int64_t d = 0; d < rank; ++d)
      outExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps = {operandMap(lb, dm, dk), operandMap(rb, dk, dn),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value acc = zeros(rewriter, loc, resultType.getShape(), et);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{lhs, rhs}, ValueRange{acc}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value p = isa<FloatType>(et) ? (Value)arith::MulFOp::create(b, l, args[0], args[1])
                                       : (Value)arith::MulIOp::create(b, l, args[0], args[1]);
          Value s = isa<FloatType>(et) ? (Value)arith::AddFOp::create(b, l, p, args[2])
                                       : (Value)arith::AddIOp::create(b, l, p, args[2]);
          linalg::YieldOp::create(b, l, s);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Zero padding of the two spatial dims of an NCHW tensor.
Value padSpatial(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> pads,
                 TypedAttr padValue) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return input;
  SmallVector<int64_t> low = {0, 0, pads[0], pads[1]}, high = {0, 0, pads[2], pads[3]};
  return padConstant(b, loc, input, low, high, padValue);
}

/// A plain convolution as one matmul, so it shares the matmul code generation:
///   Y[F, N*OH*OW] = W[F, C*KH*KW] x Col[C*KH*KW, N*OH*OW]
/// Col is the input itself for 1x1 stride-1 convolutions of one image, else an im2col
/// linalg.generic whose input map reads the window with affine index arithmetic.
Value convAsMatmul(OpBuilder &b, Location loc, Value input, Value weight,
                   ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                   RankedTensorType resultType) {
  auto it = cast<RankedTensorType>(input.getType());
  auto wt = cast<RankedTensorType>(weight.getType());
  Type et = resultType.getElementType();
  int64_t n = it.getDimSize(0), c = it.getDimSize(1), f = wt.getDimSize(0),
          kh = wt.getDimSize(2), kw = wt.getDimSize(3), oh = resultType.getDimSize(2),
          ow = resultType.getDimSize(3);
  int64_t k = c * kh * kw, cols = n * oh * ow;
  Value col;
  if (n == 1 && kh == 1 && kw == 1 && strides[0] == 1 && strides[1] == 1) {
    col = reshapeTensor(b, loc, input, RankedTensorType::get({k, cols}, et));
  } else {
    MLIRContext *ctx = b.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    // Iteration space (c, kh, kw, n, oh, ow), written in that order.
    AffineMap inMap = AffineMap::get(
        6, 0,
        {d(3), d(0), d(4) * strides[0] + d(1) * dilations[0],
         d(5) * strides[1] + d(2) * dilations[1]},
        ctx);
    auto colType = RankedTensorType::get({c, kh, kw, n, oh, ow}, et);
    Value init = tensor::EmptyOp::create(b, loc, colType.getShape(), et);
    SmallVector<utils::IteratorType> iterators(6, utils::IteratorType::parallel);
    Value col6 = linalg::GenericOp::create(
                     b, loc, TypeRange{colType}, ValueRange{input}, ValueRange{init},
                     SmallVector<AffineMap>{inMap, AffineMap::getMultiDimIdentityMap(6, ctx)},
                     iterators,
                     [](OpBuilder &nb, Location nl, ValueRange args) {
                       linalg::YieldOp::create(nb, nl, args[0]);
                     })
                     .getResult(0);
    col = reshapeTensor(b, loc, col6, RankedTensorType::get({k, cols}, et));
  }
  Value w = reshapeTensor(b, loc, weight, RankedTensorType::get({f, k}, et));
  Value acc = zeros(b, loc, {f, cols}, et);
  Value y = linalg::MatmulOp::create(b, loc, ValueRange{w, col}, ValueRange{acc}).getResult(0);
  if (n == 1)
    return reshapeTensor(b, loc, y, resultType);
  // [F, N, OH, OW] -> [N, F, OH, OW]
  Value y4 = reshapeTensor(b, loc, y, RankedTensorType::get({f, n, oh, ow}, et));
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(), et);
  return linalg::TransposeOp::create(b, loc, y4, init, ArrayRef<int64_t>{1, 0, 2, 3})
      ->getResult(0);
}

/// conv: plain -> im2col + linalg.matmul (convAsMatmul), depthwise (one filter per channel) ->
/// linalg.depthwise_conv_2d_nchw_chw, other groups -> linalg.conv_2d_ngchw_gfchw.
struct ConvLowering : public OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    Value input = padSpatial(rewriter, loc, adaptor.getInput(), op.getPads(),
                             rewriter.getZeroAttr(et));
    Value weight = adaptor.getWeight();
    auto it = cast<RankedTensorType>(input.getType());
    auto wt = cast<RankedTensorType>(weight.getType());
    auto strides = rewriter.getI64TensorAttr(op.getStrides());
    auto dilations = rewriter.getI64TensorAttr(op.getDilations());
    int64_t group = op.getGroup(), n = it.getDimSize(0), c = it.getDimSize(1),
            f = wt.getDimSize(0), kh = wt.getDimSize(2), kw = wt.getDimSize(3),
            oh = resultType.getDimSize(2), ow = resultType.getDimSize(3);
    Value result;
    if (group == 1) {
      result = convAsMatmul(rewriter, loc, input, weight, op.getStrides(), op.getDilations(),
                            resultType);
    } else if (group == c && f == c) {
      Value w = reshapeTensor(rewriter, loc, weight, RankedTensorType::get({c, kh, kw}, et));
      Value acc = zeros(rewriter, loc, resultType.getShape(), et);
      result = linalg::DepthwiseConv2DNchwChwOp::create(rewriter, loc, TypeRange{resultType},
                                                        ValueRange{input, w},
                                                        ValueRange{acc}, strides, dilations)
                   .getResult(0);
    } else {
      int64_t cg = c / group, fg = f / group;
      Value x = reshapeTensor(
          rewriter, loc, input,
          RankedTensorType::get({n, group, cg, it.getDimSize(2), it.getDimSize(3)}, et));
      Value w = reshapeTensor(rewriter, loc, weight,
                              RankedTensorType::get({group, fg, cg, kh, kw}, et));
      auto groupedType = RankedTensorType::get({n, group, fg, oh, ow}, et);
      Value acc = zeros(rewriter, loc, groupedType.getShape(), et);
      Value y = linalg::Conv2DNgchwGfchwOp::create(rewriter, loc, TypeRange{groupedType},
                                                   ValueRange{x, w}, ValueRange{acc},
                                                   strides, dilations)
                    .getResult(0);
      result = reshapeTensor(rewriter, loc, y, resultType);
    }
    if (Value bias = adaptor.getBias()) {
      // The bias [F] broadcasts along dim 1 of [N, F, OH, OW].
      Value b3 = reshapeTensor(rewriter, loc, bias, RankedTensorType::get({f, 1, 1}, et));
      result = elementwise(rewriter, loc, resultType, ValueRange{result, b3},
                           [](OpBuilder &b, Location l, ValueRange args) -> Value {
                             return arith::AddFOp::create(b, l, args[0], args[1]);
                           });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void infc::populateLinearPatterns(RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, ConvLowering>(patterns.getContext());
}

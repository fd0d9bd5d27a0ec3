//===- Pooling.cpp - infc max/avg pooling to linalg pooling ops -----------===//
#include "PopulatePatterns.h"
#include "Utils.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace infc;
using namespace infc::lowering;

namespace {
/// Pads the NCHW (or NHWC) input by `pads` plus whatever ceil_mode's last partial window reads past
/// the end, with `padValue`.
template <typename PoolOp>
Value padForPooling(OpBuilder &b, Location loc, PoolOp op, Value input, TypedAttr padValue) {
  auto type = cast<RankedTensorType>(input.getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> pads = op.getPads(), kernel = op.getKernel(), strides = op.getStrides(),
                    dilations = op.getDilations();
  int64_t h = op.getChannelsLast() ? 1 : 2; // the first spatial dim
  SmallVector<int64_t> low(4, 0), high(4, 0);
  for (int d = 0; d < 2; ++d) {
    int64_t needed =
        (resultType.getDimSize(h + d) - 1) * strides[d] + dilations[d] * (kernel[d] - 1) + 1;
    int64_t have = type.getDimSize(h + d) + pads[d] + pads[d + 2];
    low[h + d] = pads[d];
    high[h + d] = pads[d + 2] + std::max<int64_t>(0, needed - have);
  }
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return input;
  return padConstant(b, loc, input, low, high, padValue);
}

/// Windows of at most this many taps are a max over strided slices (tapMax).
constexpr int64_t kMaxTaps = 25;

/// Max pooling as the elementwise max of one strided window of the (padded) input per
/// kernel tap: Y[n, c, oh, ow] = max over (i, j) of X[n, c, oh*sh + i*dh, ow*sw + j*dw].
/// The generic has identity maps only, so it vectorizes along OW, runs on the thread pool
/// like other elementwise ops and fuses with what follows (a requantize); linalg's pooling
/// op is a scalar loop nest.
Value tapMax(OpBuilder &b, Location loc, Value input, MaxPoolOp op, RankedTensorType resultType) {
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<Value> windows = tapWindows(b, loc, input, op.getKernel(), op.getStrides(),
                                          op.getDilations(), op.getChannelsLast(), shape);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps(windows.size() + 1, AffineMap::getMultiDimIdentityMap(4, ctx));
  Value init = tensor::EmptyOp::create(b, loc, shape, resultType.getElementType());
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  return linalg::GenericOp::create(b, loc, TypeRange{resultType}, windows, ValueRange{init}, maps,
                                   iterators,
                                   [&](OpBuilder &nb, Location nl, ValueRange args) {
                                     Value m = args[0];
                                     for (size_t t = 1; t < windows.size(); ++t)
                                       m = arith::MaximumFOp::create(nb, nl, m, args[t]);
                                     linalg::YieldOp::create(nb, nl, m);
                                   })
      .getResult(0);
}

struct MaxPoolLowering : public OpConversionPattern<MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MaxPoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    Value input = padForPooling(rewriter, loc, op, adaptor.getInput(), lowestAttr(et));
    ArrayRef<int64_t> kernel = op.getKernel();
    if (kernel[0] * kernel[1] <= kMaxTaps) {
      rewriter.replaceOp(op, tapMax(rewriter, loc, input, op, resultType));
      return success();
    }
    Value window = tensor::EmptyOp::create(rewriter, loc, op.getKernel(), et);
    Value acc = filled(rewriter, loc, resultType, lowestAttr(et));
    auto strides = rewriter.getI64TensorAttr(op.getStrides());
    auto dilations = rewriter.getI64TensorAttr(op.getDilations());
    Value result = op.getChannelsLast()
                       ? linalg::PoolingNhwcMaxOp::create(rewriter, loc, TypeRange{resultType},
                                                          ValueRange{input, window},
                                                          ValueRange{acc}, strides, dilations)
                             .getResult(0)
                       : linalg::PoolingNchwMaxOp::create(rewriter, loc, TypeRange{resultType},
                                                          ValueRange{input, window},
                                                          ValueRange{acc}, strides, dilations)
                             .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Sum pooling over zero padding, then division by a compile-time table of how many
/// elements each window counts (with or without the padding, per count_include_pad).
struct AvgPoolLowering : public OpConversionPattern<AvgPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AvgPoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    Type et = resultType.getElementType();
    Value input = padForPooling(rewriter, loc, op, adaptor.getInput(), rewriter.getZeroAttr(et));
    Value window = tensor::EmptyOp::create(rewriter, loc, op.getKernel(), et);
    Value acc = filled(rewriter, loc, resultType, rewriter.getZeroAttr(et));
    bool last = op.getChannelsLast();
    auto stridesAttr = rewriter.getI64TensorAttr(op.getStrides());
    auto dilationsAttr = rewriter.getI64TensorAttr(op.getDilations());
    Value sum = last ? linalg::PoolingNhwcSumOp::create(rewriter, loc, TypeRange{resultType},
                                                        ValueRange{input, window}, ValueRange{acc},
                                                        stridesAttr, dilationsAttr)
                           .getResult(0)
                     : linalg::PoolingNchwSumOp::create(rewriter, loc, TypeRange{resultType},
                                                        ValueRange{input, window}, ValueRange{acc},
                                                        stridesAttr, dilationsAttr)
                           .getResult(0);

    ArrayRef<int64_t> pads = op.getPads(), kernel = op.getKernel(), strides = op.getStrides(),
                      dilations = op.getDilations();
    int64_t h = last ? 1 : 2; // the first spatial dim
    int64_t oh = resultType.getDimSize(h), ow = resultType.getDimSize(h + 1);
    auto counted = [&](int d, int64_t o) {
      int64_t lo = op.getCountIncludePad() ? -pads[d] : 0;
      int64_t hi = inType.getDimSize(h + d) + (op.getCountIncludePad() ? pads[d + 2] : 0);
      int64_t count = 0;
      for (int64_t k = 0; k < kernel[d]; ++k) {
        int64_t pos = o * strides[d] - pads[d] + k * dilations[d];
        count += pos >= lo && pos < hi;
      }
      return count;
    };
    SmallVector<float> divisors;
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        divisors.push_back((float)std::max<int64_t>(1, counted(0, y) * counted(1, x)));
    // [OH, OW] broadcasts over NCHW's trailing dims; over NHWC it is [OH, OW, 1].
    auto tableType =
        last ? RankedTensorType::get({oh, ow, 1}, et) : RankedTensorType::get({oh, ow}, et);
    DenseElementsAttr table;
    if (et.isF32()) {
      table = DenseElementsAttr::get(tableType, ArrayRef<float>(divisors));
    } else {
      SmallVector<Attribute> values;
      for (float d : divisors)
        values.push_back(rewriter.getFloatAttr(et, d));
      table = DenseElementsAttr::get(tableType, values);
    }
    Value divisor = arith::ConstantOp::create(rewriter, loc, table);
    Value result = elementwise(rewriter, loc, resultType, ValueRange{sum, divisor},
                               [](OpBuilder &b, Location l, ValueRange args) -> Value {
                                 return arith::DivFOp::create(b, l, args[0], args[1]);
                               });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void infc::populatePoolingPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPoolLowering, AvgPoolLowering>(patterns.getContext());
}

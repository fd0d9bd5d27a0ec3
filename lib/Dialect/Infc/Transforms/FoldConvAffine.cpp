//===- FoldConvAffine.cpp - BatchNormalization folded into the convolution -===//
//
// Exporters often leave an inference BatchNormalization after a Conv as a multiply and an
// add by per-channel constants. Both fold into the convolution at compile time:
//   conv(x, W, b) * s  ->  conv(x, W * s[f], b * s)
//   conv(x, W, b) + t  ->  conv(x, W, b + t)
// so the conv's epilogue is just its bias (and whatever activation follows).
//
//===----------------------------------------------------------------------===//
#include "infc/Dialect/Infc/IR/InfcOps.h"
#include "infc/Dialect/Infc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace infc {
#define GEN_PASS_DEF_INFCFOLDCONVAFFINE
#include "infc/Dialect/Infc/Transforms/Passes.h.inc"
} // namespace infc

using namespace mlir;
using namespace infc;

namespace {
/// The F values of a constant that varies along the channel dim (1) of an NCHW conv result
/// at most (a scalar, [F, 1, 1], [1, F, 1, 1], ...), or nothing.
std::optional<SmallVector<float>> perChannel(Value c, RankedTensorType resultType) {
  DenseElementsAttr attr;
  if (!matchPattern(c, m_Constant(&attr)) || !attr.getElementType().isF32())
    return std::nullopt;
  ArrayRef<int64_t> shape = cast<ShapedType>(attr.getType()).getShape();
  int64_t rank = resultType.getRank(), f = resultType.getDimSize(1);
  if ((int64_t)shape.size() > rank)
    return std::nullopt;
  int64_t offset = rank - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && (d + offset != 1 || shape[d] != f))
      return std::nullopt;
  SmallVector<float> values(attr.getValues<float>());
  if (values.size() == 1)
    values.assign(f, values.front());
  return values;
}

/// A float NCHW conv with dense constant f32 weights (and bias), of one use.
ConvOp foldableConv(Value v) {
  auto conv = v.getDefiningOp<ConvOp>();
  DenseElementsAttr weight, bias;
  if (!conv || !conv->hasOneUse() || conv.getChannelsLast() ||
      !conv.getType().getElementType().isF32() ||
      !matchPattern(conv.getWeight(), m_Constant(&weight)) ||
      (conv.getBias() && !matchPattern(conv.getBias(), m_Constant(&bias))))
    return ConvOp();
  return conv;
}

SmallVector<float> constantValues(Value v) {
  DenseElementsAttr attr;
  (void)matchPattern(v, m_Constant(&attr));
  return SmallVector<float>(attr.getValues<float>());
}

Value constantOf(PatternRewriter &rewriter, Location loc, Type type, ArrayRef<float> values) {
  return ConstantOp::create(
      rewriter, loc, cast<ElementsAttr>(DenseElementsAttr::get(cast<ShapedType>(type), values)));
}

/// The conv again with new weights and bias, its attributes (calibration ranges too) kept.
void replaceConv(PatternRewriter &rewriter, Operation *user, ConvOp conv, Value weight,
                 Value bias) {
  OperationState state(conv.getLoc(), conv->getName());
  state.addOperands({conv.getInput(), weight});
  if (bias)
    state.addOperands(bias);
  state.addAttributes(conv->getAttrs());
  state.addTypes(conv.getType());
  Operation *folded = rewriter.create(state);
  rewriter.replaceOp(user, folded->getResults());
  rewriter.eraseOp(conv);
}

/// A binary op of a foldable conv (either side) and a per-channel constant of the same
/// result type: the conv and the constant's F values.
std::optional<std::pair<ConvOp, SmallVector<float>>> convByPerChannel(Operation *op) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  for (int side = 0; side < 2; ++side) {
    ConvOp conv = foldableConv(op->getOperand(side));
    if (!conv || type != conv.getType())
      continue;
    if (std::optional<SmallVector<float>> values = perChannel(op->getOperand(1 - side), type))
      return std::make_pair(conv, std::move(*values));
  }
  return std::nullopt;
}

struct FoldScale : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rewriter) const override {
    auto match = convByPerChannel(op);
    if (!match)
      return failure();
    auto &[conv, scale] = *match;
    SmallVector<float> w = constantValues(conv.getWeight());
    int64_t perFilter = w.size() / scale.size();
    for (size_t i = 0; i < w.size(); ++i)
      w[i] *= scale[i / perFilter];
    Value bias;
    if (conv.getBias()) {
      SmallVector<float> b = constantValues(conv.getBias());
      for (size_t i = 0; i < b.size(); ++i)
        b[i] *= scale[i];
      bias = constantOf(rewriter, op.getLoc(), conv.getBias().getType(), b);
    }
    replaceConv(rewriter, op, conv,
                constantOf(rewriter, op.getLoc(), conv.getWeight().getType(), w), bias);
    return success();
  }
};

struct FoldShift : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op, PatternRewriter &rewriter) const override {
    auto match = convByPerChannel(op);
    if (!match)
      return failure();
    auto &[conv, b] = *match;
    if (conv.getBias()) {
      SmallVector<float> old = constantValues(conv.getBias());
      for (size_t i = 0; i < b.size(); ++i)
        b[i] += old[i];
    }
    auto biasType = RankedTensorType::get({(int64_t)b.size()}, rewriter.getF32Type());
    replaceConv(rewriter, op, conv, conv.getWeight(),
                constantOf(rewriter, op.getLoc(), biasType, b));
    return success();
  }
};

struct InfcFoldConvAffinePass : public infc::impl::InfcFoldConvAffineBase<InfcFoldConvAffinePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldScale, FoldShift>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

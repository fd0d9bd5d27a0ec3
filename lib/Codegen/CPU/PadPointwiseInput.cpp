//===- PadPointwiseInput.cpp - pad a 1x1 convolution's input, not its output ===//
//
// MobileNet's inverted residual blocks pad the output of a 1x1 convolution that widens the
// channels six times, for the depthwise convolution after it. That convolution is a
// matmul over the pixels, whose rows are not contiguous in the padded buffer's interior,
// so it cannot write there: the pad copies the whole widened tensor (112x112x96: 4.8 MB,
// a fifth of MobileNetV2's 56x56 stage). Padded before the matmul instead, only its input
// is copied (a sixth of the size), the matmul and its epilogue run over the padded pixels
// (114² instead of 112²: +3.6%), and the border is then filled with the pad value.
//
//===----------------------------------------------------------------------===//
#include "Borders.h"
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace infc {
#define GEN_PASS_DEF_INFCPADPOINTWISEINPUT
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// The channel widening from which padding the input pays: the input copy costs K / F of
/// the output copy it saves, and the matmul grows by the border's pixels.
constexpr int64_t kMinWidening = 2;

/// pad(E(expand(matmul(collapse(X), W)), per-channel inputs...)) with X [1, H, W, K], the
/// matmul [H * W, K] x [K, F] from a fill, E an elementwise op (bias, activation) over
/// [1, H, W, F], and a constant pad of dims 1 and 2, each value used once: rewritten as
/// E(expand(matmul(collapse(pad(X)), W))) over [1, Hp, Wp, F], its border then filled with
/// the pad value. Returns failure, changing nothing, for anything else.
LogicalResult padInput(RewriterBase &rewriter, tensor::PadOp pad) {
  Value padValue = pad.getConstantPaddingValue();
  RankedTensorType paddedType = pad.getResultType();
  std::optional<SmallVector<int64_t>> low = getConstantIntValues(pad.getMixedLowPad());
  std::optional<SmallVector<int64_t>> high = getConstantIntValues(pad.getMixedHighPad());
  if (!padValue || padValue.getParentRegion() == &pad.getRegion() || pad.getNofold() ||
      !paddedType.hasStaticShape() || paddedType.getRank() != 4 || !low || !high || (*low)[0] ||
      (*high)[0] || (*low)[3] || (*high)[3] ||
      llvm::any_of(*low, [](int64_t p) { return p < 0; }) ||
      llvm::any_of(*high, [](int64_t p) { return p < 0; }))
    return failure();
  auto epilogue = pad.getSource().getDefiningOp<linalg::GenericOp>();
  if (!epilogue || !epilogue->hasOneUse() || epilogue->getNumResults() != 1 ||
      epilogue.getNumDpsInits() != 1 || epilogue.getNumLoops() != 4 ||
      epilogue.getNumParallelLoops() != 4 ||
      !epilogue.getMatchingIndexingMap(epilogue.getDpsInitOperand(0)).isIdentity() ||
      !epilogue.getMatchingBlockArgument(epilogue.getDpsInitOperand(0)).use_empty())
    return failure();
  MLIRContext *ctx = pad.getContext();
  AffineMap channel = AffineMap::get(4, 0, getAffineDimExpr(3, ctx));
  tensor::ExpandShapeOp expand;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    auto type = cast<RankedTensorType>(input->get().getType());
    if (auto e = input->get().getDefiningOp<tensor::ExpandShapeOp>();
        e && !expand && map.isIdentity()) {
      expand = e;
      continue;
    }
    if (type.getRank() != 1 || map != channel)
      return failure();
  }
  auto matmul = expand ? expand.getSrc().getDefiningOp<linalg::MatmulOp>() : linalg::MatmulOp();
  if (!matmul || !expand->hasOneUse() || !matmul->hasOneUse() ||
      matmul.getIndexingMapsArray() != matmul.getDefaultIndexingMaps(ctx))
    return failure();
  auto fill = matmul.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  auto collapse = matmul.getInputs()[0].getDefiningOp<tensor::CollapseShapeOp>();
  if (!fill || !fill->hasOneUse() || !collapse)
    return failure();
  auto imageType = cast<RankedTensorType>(collapse.getSrc().getType());
  auto weightType = cast<RankedTensorType>(matmul.getInputs()[1].getType());
  auto resultType = cast<RankedTensorType>(epilogue.getResult(0).getType());
  // The same pixels in and out: X [1, H, W, K] collapsed, the product expanded back to
  // [1, H, W, F].
  SmallVector<ReassociationIndices> pixelsAndChannels = {{0, 1, 2}, {3}};
  if (imageType.getRank() != 4 || !imageType.hasStaticShape() || imageType.getDimSize(0) != 1 ||
      expand.getResultType().getShape() != resultType.getShape() ||
      imageType.getDimSize(1) != resultType.getDimSize(1) ||
      imageType.getDimSize(2) != resultType.getDimSize(2) ||
      collapse.getReassociationIndices() != pixelsAndChannels ||
      expand.getReassociationIndices() != pixelsAndChannels ||
      weightType.getDimSize(1) < kMinWidening * weightType.getDimSize(0))
    return failure();

  Location loc = pad.getLoc();
  rewriter.setInsertionPoint(pad);
  int64_t h = imageType.getDimSize(1), w = imageType.getDimSize(2), k = imageType.getDimSize(3),
          f = weightType.getDimSize(1), hp = paddedType.getDimSize(1),
          wp = paddedType.getDimSize(2);
  Type et = resultType.getElementType();
  auto attrs = [&](ArrayRef<int64_t> v) { return getAsIndexOpFoldResult(ctx, v); };
  // The input padded (with zeros: the border pixels' results are overwritten below).
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(imageType.getElementType()));
  Value image = tensor::PadOp::create(
      rewriter, loc, RankedTensorType::get({1, hp, wp, k}, imageType.getElementType()),
      collapse.getSrc(), attrs(*low), attrs(*high), zero);
  Value rows =
      tensor::CollapseShapeOp::create(rewriter, loc, image, collapse.getReassociationIndices());
  Value init = tensor::EmptyOp::create(rewriter, loc, {hp * wp, f}, et);
  init = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], init).getResult(0);
  Value product = linalg::MatmulOp::create(rewriter, loc, ValueRange{rows, matmul.getInputs()[1]},
                                           ValueRange{init})
                      .getResult(0);
  auto wideType = RankedTensorType::get({1, hp, wp, f}, et);
  Value wide = tensor::ExpandShapeOp::create(rewriter, loc, wideType, product,
                                             expand.getReassociationIndices());
  SmallVector<Value> inputs;
  for (Value input : epilogue.getDpsInputs())
    inputs.push_back(input == expand.getResult() ? wide : input);
  auto widened = linalg::GenericOp::create(
      rewriter, loc, TypeRange{wideType}, inputs,
      ValueRange{tensor::EmptyOp::create(rewriter, loc, wideType.getShape(), et)},
      epilogue.getIndexingMapsArray(), epilogue.getIteratorTypesArray());
  rewriter.cloneRegionBefore(epilogue.getRegion(), widened.getRegion(), widened.getRegion().end());
  // The border, filled over the widened result.
  Value result =
      infc::fillBorder(rewriter, loc, widened.getResult(0), padValue, *low, {1, h, w, f});
  rewriter.replaceOp(pad, result);
  rewriter.eraseOp(epilogue);
  rewriter.eraseOp(expand);
  rewriter.eraseOp(matmul);
  rewriter.eraseOp(fill);
  if (collapse->use_empty())
    rewriter.eraseOp(collapse);
  return success();
}

struct InfcPadPointwiseInputPass
    : public infc::impl::InfcPadPointwiseInputBase<InfcPadPointwiseInputPass> {
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    IRRewriter rewriter(&getContext());
    for (tensor::PadOp pad : pads)
      (void)padInput(rewriter, pad);
  }
};
} // namespace

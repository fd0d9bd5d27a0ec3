//===- ImportConvolution.cpp - ONNX convolutions --------------------------===//
#include "NodeImporter.h"

#include "ImportHelpers.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace infc;

std::string infc::bracketList(ArrayRef<int64_t> v) {
  std::string s;
  for (int64_t x : v)
    s += (s.empty() ? "" : ", ") + std::to_string(x);
  return "[" + s + "]";
}

std::optional<SmallVector<int64_t>> infc::windowInts(NodeImporter &n, StringRef name, size_t count,
                                                     int64_t lo, ArrayRef<int64_t> fallback) {
  SmallVector<int64_t> v = n.getInts(name, SmallVector<int64_t>(fallback));
  if (v.size() != count ||
      llvm::any_of(v, [&](int64_t x) { return x < lo || x > (int64_t(1) << 32); })) {
    n.error() << name << " " << bracketList(v) << " must hold " << count
              << (lo > 0 ? " positive" : " non-negative") << " values up to 2^32";
    return std::nullopt;
  }
  return v;
}

LogicalResult infc::windowPads(NodeImporter &n, ArrayRef<int64_t> inSpatial,
                               ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> dilations, SmallVectorImpl<int64_t> &pads) {
  std::string autoPad = n.getString("auto_pad", "NOTSET");
  size_t rank = inSpatial.size();
  // The shape arithmetic below divides by strides and indexes by spatial dim.
  if (kernel.size() != rank || llvm::any_of(kernel, [](int64_t k) { return k < 1; }))
    return n.error() << "kernel_shape " << bracketList(kernel) << " must hold " << rank
                     << " positive sizes";
  if (strides.size() != rank || llvm::any_of(strides, [](int64_t s) { return s < 1; }))
    return n.error() << "strides " << bracketList(strides) << " must hold " << rank
                     << " positive values";
  if (dilations.size() != rank || llvm::any_of(dilations, [](int64_t s) { return s < 1; }))
    return n.error() << "dilations " << bracketList(dilations) << " must hold " << rank
                     << " positive values";
  for (size_t d = 0; d < rank; ++d)
    if (strides[d] > kMaxWindowSpan || (kernel[d] - 1) > (kMaxWindowSpan - 1) / dilations[d])
      return n.error() << "the window along spatial dim " << d << " (kernel " << kernel[d]
                       << ", dilation " << dilations[d] << ", stride " << strides[d]
                       << ") is longer than 2^48";
  if (autoPad == "NOTSET") {
    pads = n.getInts("pads", SmallVector<int64_t>(2 * rank, 0));
    if (pads.size() != 2 * rank)
      return n.error() << "expects " << 2 * rank << " pads, got " << pads.size();
    if (llvm::any_of(pads, [](int64_t p) { return p < 0 || p > (int64_t(1) << 32); }))
      return n.error() << "pads " << bracketList(pads) << " must be non-negative";
  } else {
    pads.assign(2 * rank, 0);
    if (autoPad != "VALID" && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
      return n.error() << "unsupported auto_pad '" << autoPad << "'";
    for (size_t d = 0; d < rank && autoPad != "VALID"; ++d) {
      int64_t out = (inSpatial[d] + strides[d] - 1) / strides[d];
      int64_t total = std::max<int64_t>(0, (out - 1) * strides[d] + dilations[d] * (kernel[d] - 1) +
                                               1 - inSpatial[d]);
      int64_t small = total / 2;
      pads[d] = autoPad == "SAME_UPPER" ? small : total - small;
      pads[d + rank] = total - pads[d];
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    int64_t span = dilations[d] * (kernel[d] - 1) + 1;
    if (inSpatial[d] + pads[d] + pads[d + rank] < span)
      return n.error() << "the kernel spans " << span << " along spatial dim " << d
                       << ", more than the padded input's " << inSpatial[d] << " + " << pads[d]
                       << " + " << pads[d + rank];
  }
  return success();
}

namespace {
/// infc.conv; f16/bf16 convolutions accumulate in f32 and round once, like MatMul.
Value conv2d(NodeImporter &n, Value x, Value w, Value bias, ArrayRef<int64_t> strides,
             ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations, int64_t group) {
  Type et = cast<RankedTensorType>(x.getType()).getElementType();
  Type acc = n.computeType(et);
  Value y = n.create<ConvOp>(n.castElements(x, acc), n.castElements(w, acc),
                             bias ? n.castElements(bias, acc) : nullptr,
                             n.b.getDenseI64ArrayAttr(strides), n.b.getDenseI64ArrayAttr(pads),
                             n.b.getDenseI64ArrayAttr(dilations), n.b.getI64IntegerAttr(group));
  return n.castElements(y, et);
}
} // namespace

Value infc::convolution(NodeImporter &n, Value x, Value w, Value bias) {
  auto xt = cast<RankedTensorType>(x.getType()), wt = cast<RankedTensorType>(w.getType());
  int64_t spatial = xt.getRank() - 2;
  if ((spatial != 1 && spatial != 2) || wt.getRank() != xt.getRank()) {
    n.error() << "only 1-D and 2-D convolutions are supported (input " << xt << ")";
    return nullptr;
  }
  SmallVector<int64_t> kernel(wt.getShape().drop_front(2));
  SmallVector<int64_t> strides = n.getInts("strides", SmallVector<int64_t>(spatial, 1));
  SmallVector<int64_t> dilations = n.getInts("dilations", SmallVector<int64_t>(spatial, 1));
  SmallVector<int64_t> pads;
  if (failed(windowPads(n, xt.getShape().drop_front(2), kernel, strides, dilations, pads)))
    return nullptr;
  if (spatial == 1) {
    x = insertUnitH(n, x);
    w = insertUnitH(n, w);
  }
  int64_t group = n.getInt("group", 1);
  if (group <= 0 || xt.getDimSize(1) % group || wt.getDimSize(0) % group ||
      xt.getDimSize(1) / group != wt.getDimSize(1)) {
    n.error() << "group " << group << " does not match input " << xt << " and weight " << wt;
    return nullptr;
  }
  Value y = conv2d(n, x, w, bias, to2d(strides, 1), pads2d(pads), to2d(dilations, 1), group);
  if (spatial == 1) {
    auto s = cast<RankedTensorType>(y.getType()).getShape();
    y = n.reshape(y, {s[0], s[1], s[3]});
  }
  return y;
}

namespace {
LogicalResult importConv(NodeImporter &n) {
  Value y = convolution(n, n.input(0), n.input(1), n.input(2));
  if (!y)
    return failure();
  n.setResult(0, y);
  return success();
}

/// floor(a / b) for b > 0 (C++ division truncates toward zero; the ONNX formulas floor).
int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// x [N, C, H, W] with sh - 1 zeros after each element along H and sw - 1 along W:
/// [N, C, H, 1, W, 1] padded to [N, C, H, sh, W, sw], flattened, and the zeros after the
/// last element dropped: [N, C, (H - 1) sh + 1, (W - 1) sw + 1].
Value insertZeros(NodeImporter &n, Value x, int64_t sh, int64_t sw) {
  if (sh == 1 && sw == 1)
    return x;
  auto s = shapeOf(x);
  int64_t batch = s[0], c = s[1], h = s[2], w = s[3];
  x = n.reshape(x, {batch, c, h, 1, w, 1});
  x = n.create<PadOp>(x, Value(), n.b.getDenseI64ArrayAttr({0, 0, 0, 0, 0, 0}),
                      n.b.getDenseI64ArrayAttr({0, 0, 0, sh - 1, 0, sw - 1}),
                      n.b.getStringAttr("constant"));
  x = n.reshape(x, {batch, c, h * sh, w * sw});
  x = n.sliceAxis(x, 2, 0, (h - 1) * sh + 1);
  return n.sliceAxis(x, 3, 0, (w - 1) * sw + 1);
}

/// Col2Im (2-D): the sum over kernel taps of each tap's column block placed into the padded
/// image at its offset with the stride's gaps (zeros between), cropped by the pads. The
/// image and block shapes must fold.
LogicalResult importCol2Im(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  auto image = n.constantInts(1, "image_shape");
  if (!image)
    return failure();
  auto block = n.constantInts(2, "block_shape");
  if (!block)
    return failure();
  if (image->size() != 2 || block->size() != 2 || xt.getRank() != 3)
    return n.error() << "only 2-D images are supported (input " << xt << ")";
  auto inRange = [](int64_t v) { return v >= 1 && v <= (int64_t(1) << 32); };
  if (!llvm::all_of(*image, inRange) || !llvm::all_of(*block, inRange))
    return n.error() << "image_shape " << bracketList(*image) << " and block_shape "
                     << bracketList(*block) << " must hold positive values up to 2^32";
  auto dilations = windowInts(n, "dilations", 2, 1, {1, 1});
  auto strides = windowInts(n, "strides", 2, 1, {1, 1});
  auto padding = windowInts(n, "pads", 4, 0, {0, 0, 0, 0});
  if (!dilations || !strides || !padding)
    return failure();
  ArrayRef<int64_t> d = *dilations, s = *strides, p = *padding;
  int64_t kh = (*block)[0], kw = (*block)[1], taps = kh * kw;
  if (kh - 1 > (kMaxWindowSpan - 1) / d[0] || kw - 1 > (kMaxWindowSpan - 1) / d[1])
    return n.error() << "the block spans more than 2^48 (block_shape " << bracketList(*block)
                     << ", dilations " << bracketList(d) << ")";
  int64_t batch = xt.getDimSize(0), cols = xt.getDimSize(1);
  int64_t hp = (*image)[0] + p[0] + p[2], wp = (*image)[1] + p[1] + p[3];
  int64_t oh = (hp - (d[0] * (kh - 1) + 1)) / s[0] + 1,
          ow = (wp - (d[1] * (kw - 1) + 1)) / s[1] + 1;
  if (taps <= 0 || cols % taps || oh <= 0 || ow <= 0 || xt.getDimSize(2) != oh * ow)
    return n.error() << "input " << xt << " does not match image, block, pads and strides";
  int64_t channels = cols / taps;
  Value x = n.reshape(n.input(0), {batch, channels, taps, oh, ow});
  Value sum;
  for (int64_t a = 0; a < kh; ++a)
    for (int64_t b = 0; b < kw; ++b) {
      Value v = n.reshape(n.sliceAxis(x, 2, a * kw + b, 1), {batch, channels, oh, ow});
      v = insertZeros(n, v, s[0], s[1]);
      int64_t top = a * d[0], left = b * d[1];
      v = n.create<PadOp>(
          v, Value(), n.b.getDenseI64ArrayAttr({0, 0, top, left}),
          n.b.getDenseI64ArrayAttr({0, 0, hp - top - shapeOf(v)[2], wp - left - shapeOf(v)[3]}),
          n.b.getStringAttr("constant"));
      sum = sum ? n.create<AddOp>(sum, v) : v;
    }
  sum = n.sliceAxis(sum, 2, p[0], (*image)[0]);
  n.setResult(0, n.sliceAxis(sum, 3, p[1], (*image)[1]));
  return success();
}

/// A ConvTranspose whose kernel equals its stride, without pads, dilation, output padding
/// or groups (the 2x2 / stride 2 upsampling of U-Nets and DB text detectors): each output
/// pixel takes exactly one kernel tap, so it is one matmul [N*H*W, Cin] x [Cin, kh*kw*Cout]
/// whose rows are scattered to their kh x kw output pixels. (Through the zero-inserted
/// direct convolution, PP-OCR's 2x2 deconvolution to one channel ran 115 times ORT's time.)
static Value subPixelConvTranspose(NodeImporter &n, Value x, Value w, Value bias,
                                   ArrayRef<int64_t> kernel) {
  ArrayRef<int64_t> xs = shapeOf(x);
  int64_t batch = xs[0], cin = xs[1], h = xs[2], wd = xs[3], cout = shapeOf(w)[1];
  int64_t kh = kernel[0], kw = kernel[1];
  // f16 / bf16 in f32 throughout, the bias included, rounded once (as conv2d does).
  Type et = cast<RankedTensorType>(x.getType()).getElementType();
  Type acc = n.computeType(et);
  x = n.castElements(x, acc);
  w = n.castElements(w, acc);
  Value rows = n.create<TransposeOp>(x, n.b.getDenseI64ArrayAttr({0, 2, 3, 1}));
  rows = n.reshape(rows, {batch * h * wd, cin});
  // [Cin, Cout, kh, kw] -> [Cin, kh, kw, Cout]: a row's columns are its output pixels'.
  Value taps = n.create<TransposeOp>(w, n.b.getDenseI64ArrayAttr({0, 2, 3, 1}));
  taps = n.reshape(taps, {cin, kh * kw * cout});
  // [N, H, W, kh, kw, Cout] -> [N, H, kh, W, kw, Cout]: the NHWC image, then to NCHW by the
  // transpose infc-channels-last moves on to the next convolution (where the two cancel).
  Value y = n.reshape(n.matmul(rows, taps), {batch, h, wd, kh, kw, cout});
  y = n.create<TransposeOp>(y, n.b.getDenseI64ArrayAttr({0, 1, 3, 2, 4, 5}));
  y = n.reshape(y, {batch, h * kh, wd * kw, cout});
  y = n.create<TransposeOp>(y, n.b.getDenseI64ArrayAttr({0, 3, 1, 2}));
  if (bias)
    y = n.create<AddOp>(y, n.reshape(n.castElements(bias, acc), {1, cout, 1, 1}));
  return n.castElements(y, et);
}

/// ConvTranspose as the direct convolution it equals: the input with stride - 1 zeros
/// inserted between elements, padded by (kernel - 1) * dilation less the transposed pads on
/// each side (cropped where that is negative; output_padding adds to the end), convolved at
/// stride 1 with the kernel flipped in space and its channels swapped within each group.
/// A stride of s computes s^spatial times the needed products, most of them zeros: a
/// kernel as large as the stride goes through subPixelConvTranspose instead.
LogicalResult importConvTranspose(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0), wt = n.inputType(1);
  int64_t spatial = xt.getRank() - 2;
  if ((spatial != 1 && spatial != 2) || wt.getRank() != xt.getRank())
    return n.error() << "only 1-D and 2-D transposed convolutions are supported (input " << xt
                     << ")";
  int64_t group = n.getInt("group", 1), cin = xt.getDimSize(1);
  if (group <= 0 || cin % group || wt.getDimSize(0) != cin)
    return n.error() << "group " << group << " does not match input " << xt << " and weight " << wt;
  int64_t coutPerGroup = wt.getDimSize(1), cout = coutPerGroup * group;
  SmallVector<int64_t> kernel(wt.getShape().drop_front(2));
  if (n.hasAttr("kernel_shape") && n.getInts("kernel_shape") != kernel)
    return n.error() << "kernel_shape does not match the weight " << wt;
  SmallVector<int64_t> ones(spatial, 1), zeros(spatial, 0);
  auto stridesAttr = windowInts(n, "strides", spatial, 1, ones);
  auto dilationsAttr = windowInts(n, "dilations", spatial, 1, ones);
  auto outputPaddingAttr = windowInts(n, "output_padding", spatial, 0, zeros);
  if (!stridesAttr || !dilationsAttr || !outputPaddingAttr)
    return failure();
  SmallVector<int64_t> strides = *stridesAttr, dilations = *dilationsAttr,
                       outputPadding = *outputPaddingAttr;

  // The transposed pads, from `pads`, or from output_shape / auto_pad (spec formulas).
  SmallVector<int64_t> inSpatial(xt.getShape().drop_front(2)), full(spatial);
  for (int64_t i = 0; i < spatial; ++i) {
    std::optional<int64_t> length =
        llvm::checkedMulAdd<int64_t>(strides[i], inSpatial[i] - 1, outputPadding[i] + 1);
    std::optional<int64_t> taps = llvm::checkedMul<int64_t>(kernel[i] - 1, dilations[i]);
    if (!length || !taps || *length > kMaxWindowSpan || *taps > kMaxWindowSpan)
      return n.error() << "the output along spatial dim " << i << " is longer than 2^48";
    full[i] = *length + *taps;
  }
  std::string autoPad = n.getString("auto_pad", "NOTSET");
  SmallVector<int64_t> pads(2 * spatial, 0);
  SmallVector<int64_t> outShape = n.getInts("output_shape");
  if (outShape.size() == (size_t)spatial + 2)
    outShape.erase(outShape.begin(), outShape.begin() + 2);
  if (!outShape.empty() || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    if (outShape.empty())
      for (int64_t i = 0; i < spatial; ++i)
        outShape.push_back(inSpatial[i] * strides[i]);
    if ((int64_t)outShape.size() != spatial)
      return n.error() << "output_shape needs " << spatial << " values";
    if (llvm::any_of(outShape, [](int64_t v) { return v < 1 || v > kMaxWindowSpan; }))
      return n.error() << "output_shape " << bracketList(outShape)
                       << " must hold positive values up to 2^48";
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t total = full[i] - outShape[i];
      pads[i] = autoPad == "SAME_UPPER" ? floorDiv(total, 2) : total - floorDiv(total, 2);
      pads[i + spatial] = total - pads[i];
    }
  } else if (autoPad == "NOTSET") {
    auto padsAttr = windowInts(n, "pads", 2 * spatial, 0, pads);
    if (!padsAttr)
      return failure();
    pads = *padsAttr;
  } else if (autoPad != "VALID") {
    return n.error() << "unsupported auto_pad '" << autoPad << "'";
  }

  Value x = n.input(0), w = n.input(1);
  if (spatial == 1) {
    x = insertUnitH(n, x);
    w = insertUnitH(n, w);
  }
  SmallVector<int64_t> s2 = to2d(strides, 1), d2 = to2d(dilations, 1), k2 = to2d(kernel, 1);
  SmallVector<int64_t> op2 = to2d(outputPadding, 0), p2 = pads2d(pads);
  if (group == 1 && s2 == k2 && llvm::all_of(d2, [](int64_t d) { return d == 1; }) &&
      llvm::all_of(op2, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(p2, [](int64_t p) { return p == 0; })) {
    Value y = subPixelConvTranspose(n, x, w, n.input(2), k2);
    if (spatial == 1) {
      auto s = shapeOf(y);
      y = n.reshape(y, {s[0], s[1], s[3]});
    }
    n.setResult(0, y);
    return success();
  }

  x = insertZeros(n, x, s2[0], s2[1]);
  SmallVector<int64_t> low(4, 0), high(4, 0);
  for (int64_t i = 0; i < 2; ++i) {
    int64_t reach = (k2[i] - 1) * d2[i];
    low[i + 2] = reach - p2[i];
    high[i + 2] = reach - p2[i + 2] + op2[i];
  }
  for (int64_t d = 2; d < 4; ++d) {
    int64_t cropLow = std::max<int64_t>(0, -low[d]), cropHigh = std::max<int64_t>(0, -high[d]);
    int64_t size = shapeOf(x)[d] - cropLow - cropHigh;
    int64_t outSize = shapeOf(x)[d] + low[d] + high[d] - (k2[d - 2] - 1) * d2[d - 2];
    if (size <= 0 || outSize <= 0)
      return n.error() << "pads leave no output along spatial dim " << d - 2;
    if (cropLow || cropHigh)
      x = n.sliceAxis(x, d, cropLow, size);
    low[d] = std::max<int64_t>(0, low[d]);
    high[d] = std::max<int64_t>(0, high[d]);
  }
  if (llvm::any_of(low, [](int64_t v) { return v > 0; }) ||
      llvm::any_of(high, [](int64_t v) { return v > 0; }))
    x = n.create<PadOp>(x, Value(), n.b.getDenseI64ArrayAttr(low), n.b.getDenseI64ArrayAttr(high),
                        n.b.getStringAttr("constant"));

  // [Cin, Cout/g, kh, kw] flipped in space -> [g, Cin/g, Cout/g, ...] -> [Cout, Cin/g, kh, kw].
  w = n.create<SliceOp>(w, n.b.getDenseI64ArrayAttr({0, 0, k2[0] - 1, k2[1] - 1}),
                        n.b.getDenseI64ArrayAttr(shapeOf(w)),
                        n.b.getDenseI64ArrayAttr({1, 1, -1, -1}));
  w = n.reshape(w, {group, cin / group, coutPerGroup, k2[0], k2[1]});
  w = n.create<TransposeOp>(w, n.b.getDenseI64ArrayAttr({0, 2, 1, 3, 4}));
  w = n.reshape(w, {cout, cin / group, k2[0], k2[1]});

  Value y = conv2d(n, x, w, n.input(2), {1, 1}, {0, 0, 0, 0}, d2, group);
  if (spatial == 1) {
    auto s = shapeOf(y);
    y = n.reshape(y, {s[0], s[1], s[3]});
  }
  n.setResult(0, y);
  return success();
}

/// CausalConvWithState: a depthwise 1-D convolution over [past_state (zeros if absent),
/// input] with no padding, optionally followed by SiLU (in f32 for half types, as the
/// reference does); present_state is the last kernel - 1 positions of that concatenation.
LogicalResult importCausalConvWithState(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0), wt = n.inputType(1);
  Type et = xt.getElementType();
  if (!isa<FloatType>(et))
    return n.error() << "expects a float input, got " << et;
  if (xt.getRank() != 3 || wt.getRank() != 3)
    return n.error() << "expects input [N, C, L] and weight [C, 1, k], got " << xt << " and " << wt;
  int64_t batch = xt.getDimSize(0), channels = xt.getDimSize(1), length = xt.getDimSize(2);
  int64_t k = wt.getDimSize(2);
  if (wt.getDimSize(0) != channels || wt.getDimSize(1) != 1 || k < 1)
    return n.error() << "expects weight [" << channels << ", 1, k], got " << wt;
  std::string activation = n.getString("activation", "none");
  if (activation != "none" && activation != "silu" && activation != "swish")
    return n.error() << "unknown activation '" << activation << "'";
  Value past = n.input(3);
  SmallVector<int64_t> stateShape{batch, channels, k - 1};
  if (past && n.inputType(3).getShape() != ArrayRef<int64_t>(stateShape))
    return n.error() << "expects past_state [" << batch << ", " << channels << ", " << k - 1
                     << "], got " << n.inputType(3);
  Value zeroState = n.constant(
      DenseElementsAttr::get(RankedTensorType::get(stateShape, et), n.b.getZeroAttr(et)));
  if (!past)
    past = zeroState;
  Value padded = n.create<ConcatOp>(ValueRange{past, n.input(0)}, n.b.getI64IntegerAttr(2));
  Value y = conv2d(n, insertUnitH(n, padded), insertUnitH(n, n.input(1)), n.input(2), {1, 1},
                   {0, 0, 0, 0}, {1, 1}, channels);
  y = n.reshape(y, {batch, channels, length});
  if (activation != "none") {
    Value wide = n.castElements(y, n.b.getF32Type());
    y = n.castElements(n.create<MulOp>(wide, n.create<SigmoidOp>(wide)), et);
  }
  n.setResult(0, y);
  // A slice may not start at the end, so a kernel of 1 keeps its (empty) state constant.
  if (n.outputUsed(1))
    n.setResult(1, k == 1 ? zeroState : n.sliceAxis(padded, 2, length, k - 1));
  return success();
}
} // namespace

void infc::registerConvolutionImporters(ImportRegistry &r) {
  r["Conv"] = importConv;
  r["ConvTranspose"] = importConvTranspose;
  r["CausalConvWithState"] = importCausalConvWithState;
  r["Col2Im"] = importCol2Im;
}

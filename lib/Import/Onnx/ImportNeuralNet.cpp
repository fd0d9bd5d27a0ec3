//===- ImportNeuralNet.cpp - ONNX linear algebra, conv, pooling, norms ----===//
#include "NodeImporter.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace infc;

std::optional<SmallVector<int64_t>> infc::reductionAxes(NodeImporter &n, int64_t axesInputSince) {
  int64_t rank = n.inputType(0).getRank();
  SmallVector<int64_t> axes;
  if (n.opset >= axesInputSince) {
    // An empty axes tensor needs no value, even as a graph input.
    if (n.input(1) && n.inputType(1).getNumElements() != 0) {
      auto values = n.constantInts(1, "axes");
      if (!values)
        return std::nullopt;
      axes = *values;
    }
  } else {
    axes = n.getInts("axes");
  }
  if (axes.empty()) {
    if (n.getInt("noop_with_empty_axes", 0))
      return axes;
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  for (int64_t &a : axes) {
    std::optional<int64_t> norm = n.normalizeAxis(a, rank);
    if (!norm)
      return std::nullopt;
    a = *norm;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

LogicalResult infc::importAlongAxis(NodeImporter &n,
                                    function_ref<Value(Value x, int64_t axis)> fn) {
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank();
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", n.opset < 13 ? 1 : -1), rank);
  if (!axis)
    return failure();
  if (n.opset >= 13 || *axis == rank - 1) {
    n.setResult(0, fn(n.input(0), *axis));
    return success();
  }
  // Before opset 13 the input is coerced to 2-D at `axis` and normalized over the rest.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < *axis ? outer : inner) *= xt.getDimSize(d);
  Value y = fn(n.reshape(n.input(0), {outer, inner}), 1);
  n.setResult(0, n.reshape(y, xt.getShape()));
  return success();
}

namespace {
/// No window, pad or image extent infc builds is longer: larger ones are refused before the
/// shape arithmetic overflows (a dilation of 2^63 - 1 times a kernel of 3).
constexpr int64_t kMaxWindowSpan = int64_t(1) << 48;

std::string list(ArrayRef<int64_t> v) {
  std::string s;
  for (int64_t x : v)
    s += (s.empty() ? "" : ", ") + std::to_string(x);
  return "[" + s + "]";
}

/// A window attribute (strides, dilations, pads, output_padding): `count` values in
/// [lo, 2^32], `fallback` when absent.
std::optional<SmallVector<int64_t>> windowInts(NodeImporter &n, StringRef name, size_t count,
                                               int64_t lo, ArrayRef<int64_t> fallback) {
  SmallVector<int64_t> v = n.getInts(name, SmallVector<int64_t>(fallback));
  if (v.size() != count ||
      llvm::any_of(v, [&](int64_t x) { return x < lo || x > (int64_t(1) << 32); })) {
    n.error() << name << " " << list(v) << " must hold " << count
              << (lo > 0 ? " positive" : " non-negative") << " values up to 2^32";
    return std::nullopt;
  }
  return v;
}

/// Resolves auto_pad / pads for a 2-D window op into [top, left, bottom, right].
LogicalResult windowPads(NodeImporter &n, ArrayRef<int64_t> inSpatial, ArrayRef<int64_t> kernel,
                         ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                         SmallVectorImpl<int64_t> &pads) {
  std::string autoPad = n.getString("auto_pad", "NOTSET");
  size_t rank = inSpatial.size();
  // The shape arithmetic below divides by strides and indexes by spatial dim.
  if (kernel.size() != rank || llvm::any_of(kernel, [](int64_t k) { return k < 1; }))
    return n.error() << "kernel_shape " << list(kernel) << " must hold " << rank
                     << " positive sizes";
  if (strides.size() != rank || llvm::any_of(strides, [](int64_t s) { return s < 1; }))
    return n.error() << "strides " << list(strides) << " must hold " << rank << " positive values";
  if (dilations.size() != rank || llvm::any_of(dilations, [](int64_t s) { return s < 1; }))
    return n.error() << "dilations " << list(dilations) << " must hold " << rank
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
      return n.error() << "pads " << list(pads) << " must be non-negative";
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

/// 1-D window ops run as 2-D ones over an inserted H = 1.
SmallVector<int64_t> to2d(ArrayRef<int64_t> v, int64_t one) {
  return v.size() == 1 ? SmallVector<int64_t>{one, v[0]} : SmallVector<int64_t>(v);
}
SmallVector<int64_t> pads2d(ArrayRef<int64_t> p) {
  return p.size() == 2 ? SmallVector<int64_t>{0, p[0], 0, p[1]} : SmallVector<int64_t>(p);
}
Value insertUnitH(NodeImporter &n, Value v) {
  auto s = cast<RankedTensorType>(v.getType()).getShape();
  return n.reshape(v, {s[0], s[1], 1, s[2]});
}

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
    return n.error() << "image_shape " << list(*image) << " and block_shape " << list(*block)
                     << " must hold positive values up to 2^32";
  auto dilations = windowInts(n, "dilations", 2, 1, {1, 1});
  auto strides = windowInts(n, "strides", 2, 1, {1, 1});
  auto padding = windowInts(n, "pads", 4, 0, {0, 0, 0, 0});
  if (!dilations || !strides || !padding)
    return failure();
  ArrayRef<int64_t> d = *dilations, s = *strides, p = *padding;
  int64_t kh = (*block)[0], kw = (*block)[1], taps = kh * kw;
  if (kh - 1 > (kMaxWindowSpan - 1) / d[0] || kw - 1 > (kMaxWindowSpan - 1) / d[1])
    return n.error() << "the block spans more than 2^48 (block_shape " << list(*block)
                     << ", dilations " << list(d) << ")";
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
      return n.error() << "output_shape " << list(outShape)
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

/// 1-D, 2-D and 3-D pooling on the 2-D pool ops. A 3-D window is separable: pooling over
/// (H, W) for every depth, then over D (as the H of a [N, C, D, H'W'] view) gives the max,
/// and the average too, since the count of elements a box window covers (with or without
/// pads, clipped by ceil_mode) is the product of its per-dim counts.
/// A pooling node's window: kernel, strides, dilations per spatial dim, pads begin then end.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

std::optional<Window> poolWindow(NodeImporter &n, RankedTensorType xt) {
  int64_t spatial = xt.getRank() - 2;
  if (spatial < 1 || spatial > 3) {
    n.error() << "only 1-D, 2-D and 3-D pooling is supported (input " << xt << ")";
    return std::nullopt;
  }
  Window w;
  w.kernel = n.getInts("kernel_shape");
  if ((int64_t)w.kernel.size() != spatial) {
    n.error() << "expects kernel_shape with " << spatial << " values";
    return std::nullopt;
  }
  w.strides = n.getInts("strides", SmallVector<int64_t>(spatial, 1));
  w.dilations = n.getInts("dilations", SmallVector<int64_t>(spatial, 1));
  if (failed(windowPads(n, xt.getShape().drop_front(2), w.kernel, w.strides, w.dilations, w.pads)))
    return std::nullopt;
  return w;
}

template <typename PoolOp> Value pool(NodeImporter &n, Value input, bool countIncludePad) {
  auto xt = cast<RankedTensorType>(input.getType());
  std::optional<Window> window = poolWindow(n, xt);
  if (!window)
    return nullptr;
  int64_t spatial = xt.getRank() - 2;
  ArrayRef<int64_t> kernel = window->kernel, strides = window->strides,
                    dilations = window->dilations, pads = window->pads;
  auto ceil = n.b.getBoolAttr(n.getInt("ceil_mode", 0));
  auto pool2d = [&](Value x, ArrayRef<int64_t> k, ArrayRef<int64_t> s, ArrayRef<int64_t> p,
                    ArrayRef<int64_t> d) -> Value {
    auto attr = [&](ArrayRef<int64_t> v) { return n.b.getDenseI64ArrayAttr(v); };
    if constexpr (std::is_same_v<PoolOp, AvgPoolOp>)
      return n.create<AvgPoolOp>(x, attr(k), attr(s), attr(p), attr(d), ceil,
                                 n.b.getBoolAttr(countIncludePad));
    else
      return n.create<MaxPoolOp>(x, attr(k), attr(s), attr(p), attr(d), ceil);
  };
  if (spatial == 3) {
    int64_t batch = xt.getDimSize(0), channels = xt.getDimSize(1), depth = xt.getDimSize(2);
    Value x = n.reshape(input, {batch, channels * depth, xt.getDimSize(3), xt.getDimSize(4)});
    Value hw = pool2d(x, {kernel[1], kernel[2]}, {strides[1], strides[2]},
                      {pads[1], pads[2], pads[4], pads[5]}, {dilations[1], dilations[2]});
    int64_t h = shapeOf(hw)[2], w = shapeOf(hw)[3];
    Value dhw = pool2d(n.reshape(hw, {batch, channels, depth, h * w}), {kernel[0], 1},
                       {strides[0], 1}, {pads[0], 0, pads[3], 0}, {dilations[0], 1});
    return n.reshape(dhw, {batch, channels, shapeOf(dhw)[2], h, w});
  }
  Value x = spatial == 1 ? insertUnitH(n, input) : input;
  Value y = pool2d(x, to2d(kernel, 1), to2d(strides, 1), pads2d(pads), to2d(dilations, 1));
  if (spatial == 1) {
    auto shape = shapeOf(y);
    y = n.reshape(y, {shape[0], shape[1], shape[3]});
  }
  return y;
}

/// MaxPool's Indices output for a 2-D (or 1-D) pool `y` of `x`: each window's first maximum
/// as a flat index into x (row-major, or with storage_order=1 column-major within each
/// image: h + w * H, as the ONNX reference computes it; onnxruntime 1.32 reports another). A
/// constant table holds every window tap's position (-1 in the padding); the taps are gathered,
/// ArgMax picks one, and a one-hot sum reads its position back.
Value maxPoolIndices(NodeImporter &n, Value x, Value y) {
  auto xt = cast<RankedTensorType>(x.getType());
  std::optional<Window> w = poolWindow(n, xt);
  if (!w)
    return nullptr;
  if (xt.getRank() != 4 && xt.getRank() != 3) {
    n.error() << "the Indices output is supported for 1-D and 2-D pooling";
    return nullptr;
  }
  bool oneD = xt.getRank() == 3;
  SmallVector<int64_t> k = to2d(w->kernel, 1), s = to2d(w->strides, 1), d = to2d(w->dilations, 1),
                       p = pads2d(w->pads);
  int64_t batch = xt.getDimSize(0), channels = xt.getDimSize(1);
  int64_t h = oneD ? 1 : xt.getDimSize(2), wd = xt.getDimSize(xt.getRank() - 1);
  auto ys = cast<RankedTensorType>(y.getType()).getShape();
  int64_t oh = oneD ? 1 : ys[2], ow = ys.back(), taps = k[0] * k[1];
  bool columnMajor = n.getInt("storage_order", 0) != 0;
  if (!n.tableFits({oh, ow, taps}, "an index table") ||
      !n.tableFits({batch, channels}, "an offset table"))
    return nullptr;
  SmallVector<int64_t> table; // [oh * ow, taps]
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j)
      for (int64_t a = 0; a < k[0]; ++a)
        for (int64_t b = 0; b < k[1]; ++b) {
          int64_t r = i * s[0] - p[0] + a * d[0], c = j * s[1] - p[1] + b * d[1];
          bool inside = r >= 0 && r < h && c >= 0 && c < wd;
          table.push_back(!inside ? -1 : columnMajor ? c * h + r : r * wd + c);
        }
  Type i64 = n.b.getI64Type();
  auto tableType = RankedTensorType::get({oh * ow, taps}, i64);
  Value positions = n.constant(DenseElementsAttr::get(tableType, ArrayRef<int64_t>(table)));
  Value padding = n.create<LessOp>(positions, n.scalarLike(positions, 0));
  Value clamped = n.create<MaxOp>(positions, n.scalarLike(positions, 0));
  Value flat = n.reshape(x, {batch, channels, h * wd});
  Value taken =
      n.create<GatherOp>(flat, n.reshape(clamped, {oh * ow * taps}), n.b.getI64IntegerAttr(2));
  taken = n.reshape(taken, {batch, channels, oh * ow, taps});
  Type et = xt.getElementType();
  Value lowest = n.constant(DenseElementsAttr::get(
      RankedTensorType::get({}, et),
      APFloat::getInf(cast<FloatType>(et).getFloatSemantics(), /*Negative=*/true)));
  taken = n.create<WhereOp>(padding, lowest, taken);
  Value best = n.create<ArgMaxOp>(taken, n.b.getI64IntegerAttr(3), n.b.getBoolAttr(true),
                                  n.b.getBoolAttr(false)); // [N, C, OH*OW, 1]
  Value chosen = n.create<WhereOp>(n.create<EqualOp>(iota(n, {taps}, taps), best), positions,
                                   n.scalarLike(positions, 0));
  Value spatialIndex = n.create<ReduceSumOp>(chosen, n.b.getDenseI64ArrayAttr({3}),
                                             n.b.getBoolAttr(false)); // [N, C, OH*OW]
  SmallVector<int64_t> offsets;
  for (int64_t i = 0; i < batch * channels; ++i)
    offsets.push_back(i * h * wd);
  Value imageOffset = n.constant(DenseElementsAttr::get(
      RankedTensorType::get({batch, channels, 1}, i64), ArrayRef<int64_t>(offsets)));
  Value indices = n.create<AddOp>(spatialIndex, imageOffset);
  return n.reshape(indices, ys);
}

template <typename PoolOp> LogicalResult importPool(NodeImporter &n, bool isMax) {
  // MaxPool of int8/uint8 (the integer types ONNX allows) runs in f32, which holds them
  // exactly, so the float pooling kernels serve.
  Type et = n.inputType(0).getElementType();
  bool viaF32 = isMax && et.isInteger() && et.getIntOrFloatBitWidth() <= 16;
  if (!isa<FloatType>(et) && !viaF32)
    return n.error() << "expects a float" << (isMax ? ", int8 or uint8" : "") << " input, got "
                     << et;
  Value x = viaF32 ? n.castElements(n.input(0), n.b.getF32Type()) : n.input(0);
  Value y = pool<PoolOp>(n, x, n.getInt("count_include_pad", 0) != 0);
  if (!y)
    return failure();
  n.setResult(0, n.castElements(y, et));
  if (isMax && n.outputUsed(1)) {
    Value indices = maxPoolIndices(n, x, y);
    if (!indices)
      return failure();
    n.setResult(1, indices);
  }
  return success();
}

/// MaxUnpool: X's values scattered into zeros of the inferred shape ((in - 1) * stride -
/// pads + kernel per dim) at the flat positions of `indices` (MaxPool's), then, with
/// output_shape (which must fold), zero-padded at the end to it, as the reference does.
LogicalResult importMaxUnpool(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  int64_t spatial = xt.getRank() - 2;
  if (spatial < 1 || n.inputType(1).getShape() != xt.getShape())
    return n.error() << "expects X [N, C, ...] and indices of its shape, got " << xt << " and "
                     << n.inputType(1);
  auto kernel = windowInts(n, "kernel_shape", spatial, 1, {});
  auto strides = windowInts(n, "strides", spatial, 1, SmallVector<int64_t>(spatial, 1));
  auto pads = windowInts(n, "pads", 2 * spatial, 0, SmallVector<int64_t>(2 * spatial, 0));
  if (!kernel || !strides || !pads)
    return failure();
  SmallVector<int64_t> inferred(xt.getShape().take_front(2));
  std::optional<int64_t> total = xt.getDimSize(0) * xt.getDimSize(1);
  for (int64_t d = 0; d < spatial; ++d) {
    std::optional<int64_t> length = llvm::checkedMulAdd<int64_t>(
        xt.getDimSize(2 + d) - 1, (*strides)[d], (*kernel)[d] - (*pads)[d] - (*pads)[spatial + d]);
    if (!length || *length < 1 || *length > kMaxWindowSpan)
      return n.error() << "the unpooled length along spatial dim " << d
                       << " is not between 1 and 2^48";
    inferred.push_back(*length);
    total = total ? llvm::checkedMul<int64_t>(*total, *length) : std::nullopt;
  }
  if (!total)
    return n.error() << "the unpooled output has more than 2^63 elements";
  Type et = xt.getElementType();
  Value zeros =
      n.constant(DenseElementsAttr::get(RankedTensorType::get({*total}, et), n.b.getZeroAttr(et)));
  Value y = n.create<ScatterOp>(zeros, n.reshape(n.input(1), {xt.getNumElements()}),
                                n.reshape(n.input(0), {xt.getNumElements()}),
                                n.b.getI64IntegerAttr(0), n.b.getStringAttr("none"));
  y = n.reshape(y, inferred);
  if (n.input(2)) {
    auto shape = n.constantInts(2, "output_shape");
    if (!shape)
      return failure();
    if (shape->size() != inferred.size())
      return n.error() << "output_shape has " << shape->size() << " dims, expected "
                       << inferred.size();
    SmallVector<int64_t> low(inferred.size(), 0), high;
    for (auto [want, have] : llvm::zip(*shape, inferred)) {
      if (want < have)
        return n.error() << "output_shape is smaller than the unpooled shape";
      if (want > kMaxWindowSpan)
        return n.error() << "output_shape " << list(*shape) << " has a dim over 2^48";
      high.push_back(want - have);
    }
    if (llvm::any_of(high, [](int64_t h) { return h > 0; }))
      y = n.create<PadOp>(y, Value(), n.b.getDenseI64ArrayAttr(low), n.b.getDenseI64ArrayAttr(high),
                          n.b.getStringAttr("constant"));
  }
  n.setResult(0, y);
  return success();
}

/// LRN: x / (bias + alpha / size * (sum of x^2 over a window of `size` channels))^beta,
/// the window sum an average pool over the channels of [N, 1, C, H * W] times its size.
LogicalResult importLRN(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (!isa<FloatType>(xt.getElementType()) || xt.getRank() < 3)
    return n.error() << "expects a float input [N, C, ...], got " << xt;
  int64_t size = n.getInt("size", 0);
  if (size <= 0 || size > (int64_t(1) << 20)) // its pads are added to dims: keep them small
    return n.error() << "size must be positive and at most 2^20, got " << size;
  double alpha = n.getFloat("alpha", 1e-4), beta = n.getFloat("beta", 0.75),
         bias = n.getFloat("bias", 1.0);
  int64_t batch = xt.getDimSize(0), channels = xt.getDimSize(1), rest = 1;
  for (int64_t d = 2; d < xt.getRank(); ++d)
    rest *= xt.getDimSize(d);
  Value x = n.input(0);
  Value sq = n.reshape(n.create<MulOp>(x, x), {batch, 1, channels, rest});
  auto attr = [&](ArrayRef<int64_t> v) { return n.b.getDenseI64ArrayAttr(v); };
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Value mean = n.create<AvgPoolOp>(sq, attr({size, 1}), attr({1, 1}), attr({before, 0, after, 0}),
                                   attr({1, 1}), n.b.getBoolAttr(false), n.b.getBoolAttr(true));
  Value scale =
      n.create<AddOp>(n.scalarLike(x, bias),
                      n.create<MulOp>(n.reshape(mean, xt.getShape()), n.scalarLike(x, alpha)));
  n.setResult(0, n.create<DivOp>(x, n.create<PowOp>(scale, n.scalarLike(x, beta))));
  return success();
}

/// LpPool: (sum of |x|^p over the window)^(1/p), the sum an average over the padded window
/// times its size. Without ceil_mode every window lies inside the padded input, so that
/// size is the kernel's.
LogicalResult importLpPool(NodeImporter &n) {
  Value x = n.input(0);
  Type et = n.inputType(0).getElementType();
  if (!isa<FloatType>(et))
    return n.error() << "expects a float input, got " << et;
  if (n.getInt("ceil_mode", 0))
    return n.error() << "ceil_mode=1 is not supported";
  int64_t p = n.getInt("p", 2);
  if (p <= 0)
    return n.error() << "p must be positive, got " << p;
  Value v = p == 2 ? n.create<MulOp>(x, x) : n.create<AbsOp>(x);
  if (p > 2)
    v = n.create<PowOp>(v, n.scalarLike(x, (double)p));
  Value mean = pool<AvgPoolOp>(n, v, /*countIncludePad=*/true);
  if (!mean)
    return failure();
  double size = 1; // the window's element count; pool() checked the kernel
  for (int64_t k : n.getInts("kernel_shape"))
    size *= k;
  Value sum = n.create<MulOp>(mean, n.scalarLike(mean, size));
  if (p == 2)
    n.setResult(0, n.create<SqrtOp>(sum));
  else if (p == 1)
    n.setResult(0, sum);
  else
    n.setResult(0, n.create<PowOp>(sum, n.scalarLike(sum, 1.0 / (double)p)));
  return success();
}

template <typename ReduceOp> LogicalResult importGlobalPool(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  n.setResult(
      0, n.create<ReduceOp>(n.input(0), n.b.getDenseI64ArrayAttr(axes), n.b.getBoolAttr(true)));
  return success();
}

/// Gemm: alpha * A' x B' + beta * C, with A', B' optionally transposed. Transposes of
/// constant weights fold away at import.
LogicalResult importGemm(NodeImporter &n) {
  Value a = n.input(0), b = n.input(1);
  if (n.inputType(0).getRank() != 2 || n.inputType(1).getRank() != 2)
    return n.error() << "expects rank-2 A and B";
  auto perm = n.b.getDenseI64ArrayAttr({1, 0});
  if (n.getInt("transA", 0))
    a = n.create<TransposeOp>(a, perm);
  if (n.getInt("transB", 0))
    b = n.create<TransposeOp>(b, perm);
  Value y = n.matmul(a, b);
  double alpha = n.getFloat("alpha", 1.0), beta = n.getFloat("beta", 1.0);
  if (alpha != 1.0)
    y = n.create<MulOp>(y, n.scalarLike(y, alpha));
  if (Value c = n.input(2); c && beta != 0.0) {
    if (beta != 1.0)
      c = n.create<MulOp>(c, n.scalarLike(c, beta));
    y = n.create<AddOp>(y, c);
  }
  n.setResult(0, y);
  return success();
}

/// MatMul with numpy semantics: 1-D operands are promoted to matrices and the promoted dim
/// is dropped from the result.
LogicalResult importMatMul(NodeImporter &n) {
  Value a = n.input(0), b = n.input(1);
  ArrayRef<int64_t> as = n.inputType(0).getShape(), bs = n.inputType(1).getShape();
  if (as.empty() || bs.empty())
    return n.error() << "expects operands of rank >= 1";
  if (n.inputType(0).getElementType() != n.inputType(1).getElementType())
    return n.error() << "operands have different element types";
  if (as.size() == 1)
    a = n.reshape(a, {1, as[0]});
  if (bs.size() == 1)
    b = n.reshape(b, {bs[0], 1});
  auto at = cast<RankedTensorType>(a.getType()), bt = cast<RankedTensorType>(b.getType());
  if (at.getShape().back() != bt.getShape()[bt.getRank() - 2])
    return n.error() << "contracting dims differ: " << n.inputType(0) << " x " << n.inputType(1);
  SmallVector<int64_t> batch;
  if (failed(broadcastShapes(at.getShape().drop_back(2), bt.getShape().drop_back(2), batch)))
    return n.error() << "batch dims do not broadcast";
  Value y = n.matmul(a, b);
  SmallVector<int64_t> shape(cast<RankedTensorType>(y.getType()).getShape());
  if (bs.size() == 1)
    shape.pop_back();
  if (as.size() == 1)
    shape.erase(shape.end() - (bs.size() == 1 ? 1 : 2));
  n.setResult(0, n.reshape(y, shape));
  return success();
}

/// Inference BatchNormalization as y = x * s + t with s, t per channel (folded when the
/// statistics are constants, as they always are in exported models).
/// BatchNormalization as a per-channel scale and shift. training_mode normalizes with the
/// batch's own mean and (population) variance and outputs the running statistics
/// momentum * running + (1 - momentum) * batch.
LogicalResult importBatchNorm(NodeImporter &n) {
  bool training = n.getInt("training_mode", 0) != 0;
  if (!training && (n.outputUsed(1) || n.outputUsed(2)))
    return n.error() << "running mean/var outputs need training_mode=1";
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() < 2)
    return n.error() << "expects an input of rank >= 2";
  Value scale = n.input(1), bias = n.input(2), mean = n.input(3), var = n.input(4);
  double eps = n.getFloat("epsilon", 1e-5);
  if (training) {
    if (!isa<FloatType>(xt.getElementType()))
      return n.error() << "expects a float input, got " << xt.getElementType();
    SmallVector<int64_t> axes{0};
    for (int64_t d = 2; d < xt.getRank(); ++d)
      axes.push_back(d);
    auto over = n.b.getDenseI64ArrayAttr(axes);
    Value batchMean = n.create<ReduceMeanOp>(n.input(0), over, n.b.getBoolAttr(false));
    SmallVector<int64_t> kept(xt.getRank(), 1);
    kept[1] = xt.getDimSize(1);
    Value centered = n.create<SubOp>(n.input(0), n.reshape(batchMean, kept));
    Value batchVar =
        n.create<ReduceMeanOp>(n.create<MulOp>(centered, centered), over, n.b.getBoolAttr(false));
    double momentum = n.getFloat("momentum", 0.9);
    auto running = [&](Value old, Value batch) {
      return n.create<AddOp>(n.create<MulOp>(old, n.scalarLike(old, momentum)),
                             n.create<MulOp>(batch, n.scalarLike(batch, 1.0 - momentum)));
    };
    if (n.outputUsed(1))
      n.setResult(1, running(mean, batchMean));
    if (n.outputUsed(2))
      n.setResult(2, running(var, batchVar));
    mean = batchMean;
    var = batchVar;
  }
  Value s = n.create<MulOp>(scale, n.create<ReciprocalOp>(n.create<SqrtOp>(
                                       n.create<AddOp>(var, n.scalarLike(var, eps)))));
  Value t = n.create<SubOp>(bias, n.create<MulOp>(mean, s));
  SmallVector<int64_t> shape(xt.getRank() - 1, 1);
  shape[0] = xt.getDimSize(1);
  Value y = n.create<AddOp>(n.create<MulOp>(n.input(0), n.reshape(s, shape)), n.reshape(t, shape));
  n.setResult(0, y);
  return success();
}

LogicalResult importSoftmax(NodeImporter &n) {
  return importAlongAxis(n, [&](Value x, int64_t axis) {
    return n.create<SoftmaxOp>(x, n.b.getI64IntegerAttr(axis));
  });
}

LogicalResult importLayerNorm(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", -1), xt.getRank());
  if (!axis)
    return failure();
  double epsilon = n.getFloat("epsilon", 1e-5);
  n.setResult(0, n.create<LayerNormOp>(xt, n.input(0), n.input(1), n.input(2),
                                       n.b.getI64IntegerAttr(*axis), n.b.getF64FloatAttr(epsilon)));
  if (!n.outputUsed(1) && !n.outputUsed(2))
    return success();
  // Mean and InvStdDev (stash type U) over the normalized dims, kept as size 1.
  Type stash = onnxElementType(n.b.getContext(), n.getInt("stash_type", 1));
  if (!isa_and_nonnull<FloatType>(stash))
    return n.error() << "unsupported stash_type " << onnxDataTypeName(n.getInt("stash_type", 1));
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(*axis, xt.getRank()));
  auto mean = [&](Value v) {
    return n.create<ReduceMeanOp>(v, n.b.getDenseI64ArrayAttr(axes), n.b.getBoolAttr(true));
  };
  auto toStash = [&](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getElementType() == stash)
      return v;
    return n.create<CastOp>(RankedTensorType::get(type.getShape(), stash), v);
  };
  Value m = mean(n.input(0));
  Value centered = n.create<SubOp>(n.input(0), m);
  Value var = mean(n.create<MulOp>(centered, centered));
  Value invStdDev =
      n.create<ReciprocalOp>(n.create<SqrtOp>(n.create<AddOp>(var, n.scalarLike(var, epsilon))));
  n.setResult(1, toStash(m));
  n.setResult(2, toStash(invStdDev));
  return success();
}

/// ArgMax, ArgMin: axis default 0, keepdims default 1, select_last_index from opset 12.
template <typename ArgOp> LogicalResult importArgReduce(NodeImporter &n) {
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), n.inputType(0).getRank());
  if (!axis)
    return failure();
  n.setResult(0, n.create<ArgOp>(n.input(0), n.b.getI64IntegerAttr(*axis),
                                 n.b.getBoolAttr(n.getInt("keepdims", 1)),
                                 n.b.getBoolAttr(n.getInt("select_last_index", 0))));
  return success();
}

/// Reduce*: the ReduceOp over the node's axes, or the input itself for no axes.
template <typename ReduceOp> ImportFn reduce(int64_t axesInputSince) {
  return [axesInputSince](NodeImporter &n) -> LogicalResult {
    std::optional<SmallVector<int64_t>> axes = reductionAxes(n, axesInputSince);
    if (!axes)
      return failure();
    if (axes->empty()) {
      n.setResult(0, n.input(0));
      return success();
    }
    n.setResult(0, n.create<ReduceOp>(n.input(0), n.b.getDenseI64ArrayAttr(*axes),
                                      n.b.getBoolAttr(n.getInt("keepdims", 1))));
    return success();
  };
}
} // namespace

void infc::registerNeuralNetImporters(ImportRegistry &r) {
  r["Conv"] = importConv;
  r["ConvTranspose"] = importConvTranspose;
  r["CausalConvWithState"] = importCausalConvWithState;
  r["MaxPool"] = [](NodeImporter &n) { return importPool<MaxPoolOp>(n, true); };
  r["AveragePool"] = [](NodeImporter &n) { return importPool<AvgPoolOp>(n, false); };
  r["LpPool"] = importLpPool;
  r["LRN"] = importLRN;
  r["MaxUnpool"] = importMaxUnpool;
  r["Col2Im"] = importCol2Im;
  r["GlobalAveragePool"] = importGlobalPool<ReduceMeanOp>;
  r["GlobalMaxPool"] = importGlobalPool<ReduceMaxOp>;
  r["Gemm"] = importGemm;
  r["MatMul"] = importMatMul;
  r["BatchNormalization"] = importBatchNorm;
  r["Softmax"] = importSoftmax;
  r["LayerNormalization"] = importLayerNorm;
  r["ReduceSum"] = reduce<ReduceSumOp>(13);
  r["ReduceMean"] = reduce<ReduceMeanOp>(18);
  r["ReduceMax"] = reduce<ReduceMaxOp>(18);
  r["ReduceMin"] = reduce<ReduceMinOp>(18);
  r["ReduceProd"] = reduce<ReduceProdOp>(18);
  r["ArgMax"] = importArgReduce<ArgMaxOp>;
  r["ArgMin"] = importArgReduce<ArgMinOp>;
}

//===- ImportResampling.cpp - ONNX resampling, tiling and padding ---------===//
//
// Most of these are compositions of existing infc ops, folded as they are built:
// - gathers with constant indices and weighted sums of them (Resize, Upsample);
// - reshape/transpose/broadcast chains (Tile, DepthToSpace, SpaceToDepth);
// - slices and pads (CenterCropPad).
// Pad builds the infc op of the same meaning.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "ImportHelpers.h"

#include <cmath>

using namespace mlir;
using namespace infc;

std::optional<SmallVector<double>> infc::constantDoubles(NodeImporter &n, unsigned i,
                                                         StringRef what) {
  DenseElementsAttr attr = n.constantInput(i);
  if (!attr) {
    n.notConstant(i, what);
    return std::nullopt;
  }
  SmallVector<double> values;
  if (isa<FloatType>(attr.getElementType()))
    for (APFloat v : attr.getValues<APFloat>())
      values.push_back(v.convertToDouble());
  else
    for (APInt v : attr.getValues<APInt>())
      values.push_back(attr.getElementType().isUnsignedInteger() ? v.roundToDouble()
                                                                 : v.signedRoundToDouble());
  return values;
}

namespace {
//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// A constant of `et` (float or integer) from doubles.
Value numberConstant(NodeImporter &n, ArrayRef<int64_t> shape, Type et, ArrayRef<double> values) {
  auto type = RankedTensorType::get(shape, et);
  if (auto ft = dyn_cast<FloatType>(et)) {
    SmallVector<APFloat> v;
    for (double d : values) {
      APFloat f(d);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      v.push_back(f);
    }
    return n.constant(DenseElementsAttr::get(type, v));
  }
  SmallVector<APInt> v;
  for (double d : values)
    v.push_back(APInt(et.getIntOrFloatBitWidth(), (uint64_t)(int64_t)d, true, true));
  return n.constant(DenseElementsAttr::get(type, v));
}

//===----------------------------------------------------------------------===//
// Tile, DepthToSpace, SpaceToDepth
//===----------------------------------------------------------------------===//

/// Tile: [d0, d1, ..] viewed as [1, d0, 1, d1, ..], broadcast to [r0, d0, r1, d1, ..].
LogicalResult importTile(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  auto repeats = n.constantInts(1, "repeats");
  if (!repeats)
    return failure();
  if ((int64_t)repeats->size() != xt.getRank())
    return n.error() << "expects " << xt.getRank() << " repeats, got " << repeats->size();
  SmallVector<int64_t> spread, tiled, result;
  for (int64_t d = 0; d < xt.getRank(); ++d) {
    if ((*repeats)[d] < 0)
      return n.error() << "negative repeat " << (*repeats)[d];
    spread.append({1, xt.getDimSize(d)});
    tiled.append({(*repeats)[d], xt.getDimSize(d)});
    result.push_back((*repeats)[d] * xt.getDimSize(d));
  }
  Value y = broadcastTo(n, n.reshape(n.input(0), spread), tiled);
  n.setResult(0, n.reshape(y, result));
  return success();
}

LogicalResult blockSize(NodeImporter &n, int64_t &b) {
  if (n.inputType(0).getRank() != 4)
    return n.error() << "expects a 4-D input, got " << n.inputType(0);
  b = n.getInt("blocksize", 0);
  // Up to 2^31, so that blocksize^2 fits int64.
  if (b <= 0 || b > (int64_t(1) << 31))
    return n.error() << "expects a positive blocksize up to 2^31, got " << b;
  return success();
}

LogicalResult importDepthToSpace(NodeImporter &n) {
  int64_t b;
  if (failed(blockSize(n, b)))
    return failure();
  auto s = n.inputType(0).getShape();
  int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  if (C % (b * b))
    return n.error() << "channels " << C << " are not a multiple of blocksize^2";
  std::string mode = n.getString("mode", "DCR");
  Value y;
  if (mode == "DCR")
    y = transpose(n, n.reshape(n.input(0), {N, b, b, C / (b * b), H, W}), {0, 3, 4, 1, 5, 2});
  else if (mode == "CRD")
    y = transpose(n, n.reshape(n.input(0), {N, C / (b * b), b, b, H, W}), {0, 1, 4, 2, 5, 3});
  else
    return n.error() << "unsupported mode '" << mode << "'";
  n.setResult(0, n.reshape(y, {N, C / (b * b), H * b, W * b}));
  return success();
}

LogicalResult importSpaceToDepth(NodeImporter &n) {
  int64_t b;
  if (failed(blockSize(n, b)))
    return failure();
  auto s = n.inputType(0).getShape();
  int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  if (H % b || W % b)
    return n.error() << "spatial dims " << H << "x" << W << " are not multiples of blocksize";
  std::string mode = n.getString("mode", "DCR");
  Value x = n.reshape(n.input(0), {N, C, H / b, b, W / b, b});
  Value y;
  if (mode == "DCR")
    y = transpose(n, x, {0, 3, 5, 1, 2, 4});
  else if (mode == "CRD")
    y = transpose(n, x, {0, 1, 3, 5, 2, 4});
  else
    return n.error() << "unsupported mode '" << mode << "'";
  n.setResult(0, n.reshape(y, {N, C * b * b, H / b, W / b}));
  return success();
}

//===----------------------------------------------------------------------===//
// Pad, CenterCropPad
//===----------------------------------------------------------------------===//

LogicalResult importPad(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank();
  std::string mode = n.getString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    return n.error() << "unsupported mode '" << mode << "'";
  SmallVector<int64_t> pads, axes;
  Value value;
  if (n.opset < 11) {
    pads = n.getInts(n.opset < 2 ? "paddings" : "pads");
    double v = n.getFloat("value", 0.0);
    if (v != 0.0)
      value = n.scalarLike(n.input(0), v);
  } else {
    auto p = n.constantInts(1, "pads");
    if (!p)
      return failure();
    pads = *p;
    if (n.input(2)) {
      if (n.inputType(2).getNumElements() != 1 ||
          n.inputType(2).getElementType() != xt.getElementType())
        return n.error() << "constant_value must be one value of the input's element type";
      value = n.reshape(n.input(2), {});
    }
    if (n.input(3)) {
      auto a = n.constantInts(3, "axes");
      if (!a)
        return failure();
      axes = *a;
    }
  }
  if (axes.empty())
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (pads.size() != 2 * axes.size())
    return n.error() << "expects " << 2 * axes.size() << " pads, got " << pads.size();
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    std::optional<int64_t> axis = n.normalizeAxis(axes[i], rank);
    if (!axis)
      return failure();
    low[*axis] = pads[i];
    high[*axis] = pads[i + axes.size()];
  }
  // Negative pads crop: a slice first, then the non-negative rest.
  Value x = n.input(0);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t cropLow = std::max<int64_t>(0, -low[d]), cropHigh = std::max<int64_t>(0, -high[d]);
    if (!cropLow && !cropHigh)
      continue;
    int64_t size = typeOf(x).getDimSize(d) - cropLow - cropHigh;
    if (size <= 0)
      return n.error() << "negative pads remove all of dim " << d;
    x = n.sliceAxis(x, d, cropLow, size);
    low[d] = std::max<int64_t>(0, low[d]);
    high[d] = std::max<int64_t>(0, high[d]);
  }
  if (mode != "constant") {
    value = nullptr;
    for (int64_t d = 0; d < rank; ++d)
      if (typeOf(x).getDimSize(d) == 0 && low[d] + high[d] > 0)
        return n.error() << "cannot pad the empty dim " << d << " in " << mode << " mode";
  }
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; })) {
    n.setResult(0, x);
    return success();
  }
  n.setResult(0, n.create<PadOp>(x, value, n.b.getDenseI64ArrayAttr(low),
                                 n.b.getDenseI64ArrayAttr(high), n.b.getStringAttr(mode)));
  return success();
}

/// CenterCropPad: a centered slice where the target is smaller, centered zero padding
/// where it is larger (the odd element goes to the end).
LogicalResult importCenterCropPad(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank();
  auto shape = n.constantInts(1, "shape");
  if (!shape)
    return failure();
  SmallVector<int64_t> axes = n.getInts("axes", llvm::to_vector(llvm::seq<int64_t>(0, rank)));
  if (shape->size() != axes.size())
    return n.error() << "expects " << axes.size() << " target sizes, got " << shape->size();
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  Value x = n.input(0);
  for (size_t i = 0; i < axes.size(); ++i) {
    std::optional<int64_t> axis = n.normalizeAxis(axes[i], rank);
    if (!axis)
      return failure();
    int64_t dim = xt.getDimSize(*axis), target = (*shape)[i];
    if (target <= 0)
      return n.error() << "target size " << target << " is not supported";
    if (target < dim)
      x = n.sliceAxis(x, *axis, (dim - target) / 2, target);
    low[*axis] = target > dim ? (target - dim) / 2 : 0;
    high[*axis] = target > dim ? target - dim - low[*axis] : 0;
  }
  if (llvm::any_of(low, [](int64_t v) { return v > 0; }) ||
      llvm::any_of(high, [](int64_t v) { return v > 0; }))
    x = n.create<PadOp>(x, Value(), n.b.getDenseI64ArrayAttr(low), n.b.getDenseI64ArrayAttr(high),
                        n.b.getStringAttr("constant"));
  n.setResult(0, x);
  return success();
}

//===----------------------------------------------------------------------===//
// Resize, Upsample
//===----------------------------------------------------------------------===//

/// The interpolation settings of a Resize node (the ONNX reference's names).
struct ResizeMode {
  std::string mode = "nearest";
  std::string coordinates = "half_pixel";
  std::string nearest = "round_prefer_floor"; // or "simple" (opset < 11: floor, ceil down)
  double cubicA = -0.75;
  bool excludeOutside = false, antialias = false;
  double extrapolation = 0.0;
};

/// Source coordinate of output position y along one axis (onnx.reference _compute_x_ori);
/// `outside` is set for tf_crop_and_resize positions that fall outside the input.
double sourceCoordinate(const ResizeMode &m, double y, double scale, int64_t in, int64_t outInt,
                        double roiStart, double roiEnd, bool &outside) {
  double out = scale * in, x;
  outside = false;
  const std::string &c = m.coordinates;
  if (c == "align_corners") {
    x = out == 1 ? 0.0 : y * (in - 1) / (out - 1);
  } else if (c == "asymmetric") {
    x = y / scale;
  } else if (c == "tf_crop_and_resize") {
    x = out == 1 ? (roiEnd - roiStart) * (in - 1) / 2
                 : y * (roiEnd - roiStart) * (in - 1) / (out - 1);
    x += roiStart * (in - 1);
    outside = x < 0 || x > in - 1;
  } else if (c == "pytorch_half_pixel") {
    x = out == 1 ? -0.5 : (y + 0.5) / scale - 0.5;
  } else if (c == "half_pixel_symmetric") {
    double adjustment = outInt / out, center = in / 2.0;
    x = center * (1 - adjustment) + (y + 0.5) / scale - 0.5;
  } else { // half_pixel
    x = (y + 0.5) / scale - 0.5;
  }
  return x;
}

/// Interpolation weights of the taps around a coordinate with fractional part `ratio` in
/// (0, 1] (onnx.reference _linear_coeffs, _cubic_coeffs and their antialias forms).
SmallVector<double> tapWeights(const ResizeMode &m, double ratio, double scale) {
  SmallVector<double> w;
  double A = m.cubicA;
  auto normalize = [&] {
    double sum = 0;
    for (double v : w)
      sum += v;
    for (double &v : w)
      v /= sum;
  };
  if (m.mode == "linear") {
    if (!m.antialias)
      return {1 - ratio, ratio};
    double s = std::min(scale, 1.0);
    int64_t start = (int64_t)std::floor(-1 / s) + 1, footprint = 2 - 2 * start;
    for (int64_t i = start; i < start + footprint; ++i)
      w.push_back(std::clamp(1 - std::abs((i - ratio) * s), 0.0, 1.0));
    normalize();
    return w;
  }
  if (!m.antialias) {
    double r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
    return {((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A,
            ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1, ((A + 2) * q - (A + 3)) * q * q + 1,
            ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A};
  }
  double s = std::min(scale, 1.0);
  int64_t start = (int64_t)std::floor(-2 / s) + 1, end = 2 - start;
  for (int64_t i = start; i < end; ++i) {
    double x = std::abs(s * (i - ratio)), x2 = x * x, x3 = x2 * x;
    w.push_back(x <= 1  ? (A + 2) * x3 - (A + 3) * x2 + 1
                : x < 2 ? A * x3 - 5 * A * x2 + 8 * A * x - 4 * A
                        : 0.0);
  }
  normalize();
  return w;
}

/// Resizes `x` along `axis` to `outSize`: nearest is a gather with constant indices; linear
/// and cubic gather [outSize, taps] constant indices and sum them with constant weights.
Value resizeAxis(NodeImporter &n, Value x, int64_t axis, int64_t outSize, double scale,
                 const ResizeMode &m, double roiStart, double roiEnd) {
  RankedTensorType xt = typeOf(x);
  int64_t in = xt.getDimSize(axis), rank = xt.getRank();
  SmallVector<int64_t> idx;
  SmallVector<double> weights;
  SmallVector<int64_t> outsideMask;
  bool anyOutside = false;
  int64_t taps = 1;
  for (int64_t y = 0; y < outSize; ++y) {
    bool outside;
    double xo = sourceCoordinate(m, y, scale, in, outSize, roiStart, roiEnd, outside);
    outsideMask.push_back(outside);
    anyOutside |= outside;
    double fl = std::floor(xo);
    if (m.mode == "nearest") {
      double frac = xo - fl;
      int64_t i = (int64_t)fl;
      if (frac != 0) {
        const std::string &r = m.nearest;
        bool up = r == "round_prefer_floor"  ? frac > 0.5
                  : r == "round_prefer_ceil" ? frac >= 0.5
                  : r == "floor"             ? false
                  : r == "ceil"              ? true
                                             : scale < 1; // simple: ceil when downsampling
        i += up;
      }
      idx.push_back(std::clamp<int64_t>(i, 0, in - 1));
      continue;
    }
    double ratio = xo == fl ? 1.0 : xo - fl;
    SmallVector<double> w = tapWeights(m, ratio, scale);
    taps = w.size();
    // The taps nearest to xo, ties to the smaller index (onnx.reference _get_neighbor).
    int64_t pad = (taps + 1) / 2;
    double xp = xo + pad, p = std::floor(xp), frac = xp - p;
    int64_t offset = taps % 2 == 0 ? (frac == 0 ? -(taps / 2) : -(taps / 2) + 1)
                                   : (frac <= 0.5 ? -((taps - 1) / 2) : -((taps - 1) / 2) + 1);
    int64_t start = (int64_t)p + offset - pad;
    if (m.excludeOutside) {
      double sum = 0;
      for (int64_t t = 0; t < taps; ++t) {
        if (start + t < 0 || start + t >= in)
          w[t] = 0;
        sum += w[t];
      }
      for (double &v : w)
        v /= sum == 0 ? 1 : sum;
    }
    for (int64_t t = 0; t < taps; ++t) {
      idx.push_back(std::clamp<int64_t>(start + t, 0, in - 1));
      weights.push_back(w[t]);
    }
  }
  Value result;
  if (m.mode == "nearest") {
    result = gather(n, x, i64Constant(n, {outSize}, idx), axis);
  } else {
    Value g = gather(n, x, i64Constant(n, {outSize, taps}, idx), axis);
    SmallVector<int64_t> wShape = {outSize, taps};
    wShape.append(rank - axis - 1, 1);
    Value w = numberConstant(n, wShape, xt.getElementType(), weights);
    result = reduceSum(n, n.create<MulOp>(g, w), {axis + 1}, false);
  }
  if (anyOutside) {
    SmallVector<int64_t> maskShape = {outSize};
    maskShape.append(rank - axis - 1, 1);
    Value mask = castTo(n, i64Constant(n, maskShape, outsideMask), n.b.getI1Type());
    result = n.create<WhereOp>(mask, n.scalarLike(x, m.extrapolation), result);
  }
  return result;
}

/// Output sizes and scales per dim, then one separable pass per resized axis.
LogicalResult resize(NodeImporter &n, const ResizeMode &m, ArrayRef<double> scalesIn,
                     ArrayRef<int64_t> sizesIn, ArrayRef<int64_t> axesIn, ArrayRef<double> roi,
                     StringRef policy) {
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank();
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "cubic")
    return n.error() << "unsupported mode '" << m.mode << "'";
  if (m.mode != "nearest" && !isa<FloatType>(xt.getElementType()))
    return n.error() << m.mode << " mode needs a float input, got " << xt;
  SmallVector<int64_t> axes;
  for (int64_t a : axesIn) {
    std::optional<int64_t> axis = n.normalizeAxis(a, rank);
    if (!axis)
      return failure();
    axes.push_back(*axis);
  }
  if (axes.empty())
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  size_t count = axes.size();
  SmallVector<double> scales(rank, 1.0), roiStart(rank, 0.0), roiEnd(rank, 1.0);
  SmallVector<int64_t> sizes(xt.getShape());
  if (!roi.empty()) {
    if (roi.size() != 2 * count)
      return n.error() << "roi must hold " << 2 * count << " values";
    for (size_t i = 0; i < count; ++i) {
      roiStart[axes[i]] = roi[i];
      roiEnd[axes[i]] = roi[i + count];
    }
  }
  if (!scalesIn.empty()) {
    if (scalesIn.size() != count)
      return n.error() << "expects " << count << " scales, got " << scalesIn.size();
    for (size_t i = 0; i < count; ++i) {
      // A scale that makes a dim past 2^62 (or is not a number) is no image size.
      if (!(scalesIn[i] > 0) || !(scalesIn[i] * xt.getDimSize(axes[i]) < 0x1p62))
        return n.error() << "scales must be positive and make dims below 2^62";
      scales[axes[i]] = scalesIn[i];
      sizes[axes[i]] = (int64_t)std::floor(scalesIn[i] * xt.getDimSize(axes[i]));
    }
  } else {
    if (sizesIn.size() != count)
      return n.error() << "expects " << count << " sizes, got " << sizesIn.size();
    for (size_t i = 0; i < count; ++i) {
      if (xt.getDimSize(axes[i]) == 0)
        return n.error() << "cannot resize an empty dim";
      scales[axes[i]] = (double)sizesIn[i] / xt.getDimSize(axes[i]);
      sizes[axes[i]] = sizesIn[i];
    }
    if (policy != "stretch") {
      if (policy != "not_larger" && policy != "not_smaller")
        return n.error() << "unsupported keep_aspect_ratio_policy '" << policy << "'";
      double s = scales[axes[0]];
      for (int64_t a : axes)
        s = policy == "not_larger" ? std::min(s, scales[a]) : std::max(s, scales[a]);
      for (int64_t a : axes) {
        scales[a] = s;
        if (!(s * xt.getDimSize(a) < 0x1p62))
          return n.error() << "sizes make a dim past 2^62";
        sizes[a] = (int64_t)(s * xt.getDimSize(a) + 0.5);
      }
    }
  }
  Value y = n.input(0);
  for (int64_t a : axes) {
    if (sizes[a] <= 0)
      return n.error() << "resizing dim " << a << " to " << sizes[a]
                       << " elements is not supported";
    if (xt.getDimSize(a) == 0)
      return n.error() << "cannot resize an empty dim";
    bool roiDefault = std::abs(roiStart[a]) < 1e-9 && std::abs(roiEnd[a] - 1) < 1e-9;
    if (std::abs(scales[a] - 1.0) <= 1e-9 && sizes[a] == xt.getDimSize(a) &&
        (m.coordinates != "tf_crop_and_resize" || roiDefault))
      continue;
    y = resizeAxis(n, y, a, sizes[a], scales[a], m, roiStart[a], roiEnd[a]);
  }
  n.setResult(0, y);
  return success();
}

LogicalResult importResize(NodeImporter &n) {
  ResizeMode m;
  m.mode = n.getString("mode", "nearest");
  SmallVector<double> scales, roi;
  SmallVector<int64_t> sizes;
  if (n.opset < 11) {
    m.coordinates = "asymmetric";
    m.nearest = "simple";
    auto s = constantDoubles(n, 1, "scales");
    if (!s)
      return failure();
    scales = *s;
    return resize(n, m, scales, sizes, {}, roi, "stretch");
  }
  m.coordinates = n.getString("coordinate_transformation_mode", "half_pixel");
  m.nearest = n.getString("nearest_mode", "round_prefer_floor");
  m.cubicA = n.getFloat("cubic_coeff_a", -0.75);
  m.excludeOutside = n.getInt("exclude_outside", 0);
  m.extrapolation = n.getFloat("extrapolation_value", 0.0);
  m.antialias = n.getInt("antialias", 0);
  static const char *modes[] = {"half_pixel",    "half_pixel_symmetric", "pytorch_half_pixel",
                                "align_corners", "asymmetric",           "tf_crop_and_resize"};
  if (!llvm::is_contained(modes, m.coordinates))
    return n.error() << "unsupported coordinate_transformation_mode '" << m.coordinates << "'";
  static const char *nearestModes[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (!llvm::is_contained(nearestModes, m.nearest))
    return n.error() << "unsupported nearest_mode '" << m.nearest << "'";
  if (m.antialias && m.mode == "nearest")
    return n.error() << "antialias is not defined for nearest mode";
  if (m.coordinates == "tf_crop_and_resize") {
    auto r = constantDoubles(n, 1, "roi");
    if (!r)
      return failure();
    roi = *r;
  }
  if (n.input(2) && n.inputType(2).getNumElements() > 0) {
    auto s = constantDoubles(n, 2, "scales");
    if (!s)
      return failure();
    scales = *s;
  } else {
    if (!n.input(3))
      return n.error() << "expects scales or sizes";
    auto s = n.constantInts(3, "sizes");
    if (!s)
      return failure();
    sizes = *s;
  }
  return resize(n, m, scales, sizes, n.getInts("axes"), roi,
                n.getString("keep_aspect_ratio_policy", "stretch"));
}

/// Upsample (deprecated): Resize with asymmetric coordinates and floor rounding.
LogicalResult importUpsample(NodeImporter &n) {
  ResizeMode m;
  m.mode = n.getString("mode", "nearest");
  m.coordinates = "asymmetric";
  m.nearest = "simple";
  SmallVector<double> scales;
  if (n.opset < 9) {
    if (const onnx::AttributeProto *a = n.typedAttr("scales", onnx::AttributeProto::FLOATS))
      for (float s : a->floats())
        scales.push_back(s);
  } else {
    auto s = constantDoubles(n, 1, "scales");
    if (!s)
      return failure();
    scales = *s;
  }
  if (m.mode == "bilinear")
    m.mode = "linear";
  return resize(n, m, scales, {}, {}, {}, "stretch");
}
} // namespace

void infc::registerResamplingImporters(ImportRegistry &r) {
  r["Tile"] = importTile;
  r["DepthToSpace"] = importDepthToSpace;
  r["SpaceToDepth"] = importSpaceToDepth;
  r["Pad"] = importPad;
  r["CenterCropPad"] = importCenterCropPad;
  r["Resize"] = importResize;
  r["Upsample"] = importUpsample;
}

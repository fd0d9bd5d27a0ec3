//===- ImportPooling.cpp - ONNX pooling ops -------------------------------===//
#include "NodeImporter.h"

#include "ImportHelpers.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace infc;

namespace {
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
        return n.error() << "output_shape " << bracketList(*shape) << " has a dim over 2^48";
      high.push_back(want - have);
    }
    if (llvm::any_of(high, [](int64_t h) { return h > 0; }))
      y = n.create<PadOp>(y, Value(), n.b.getDenseI64ArrayAttr(low), n.b.getDenseI64ArrayAttr(high),
                          n.b.getStringAttr("constant"));
  }
  n.setResult(0, y);
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
} // namespace

void infc::registerPoolingImporters(ImportRegistry &r) {
  r["MaxPool"] = [](NodeImporter &n) { return importPool<MaxPoolOp>(n, true); };
  r["AveragePool"] = [](NodeImporter &n) { return importPool<AvgPoolOp>(n, false); };
  r["LpPool"] = importLpPool;
  r["MaxUnpool"] = importMaxUnpool;
  r["GlobalAveragePool"] = importGlobalPool<ReduceMeanOp>;
  r["GlobalMaxPool"] = importGlobalPool<ReduceMaxOp>;
}

//===- ImportGridSample.cpp - GridSample and AffineGrid -------------------===//
//
// Follows the ONNX reference (onnx/reference/ops/op_grid_sample.py): per spatial dim the
// grid coordinate is denormalized (align_corners), rounded for "nearest", brought inside
// the border for the "border" and "reflection" padding modes, then split into taps (1, 2
// or 4 per dim) with their weights; each tap's index is resolved by the padding mode
// (zeros: outside reads 0; border: clamped; reflection: reflected). The output is the sum
// over every combination of taps of the product of the weights times one gather of the
// input. Everything is elementwise on [N, *out] plus one gather per tap combination.
// AffineGrid, which makes GridSample's grids from affine transforms, is a matmul.
//
//===----------------------------------------------------------------------===//
#include "ComposeOps.h"

using namespace mlir;
using namespace infc;

namespace {
struct Taps {
  SmallVector<Value> index;  // i64 [N, P], in range after the padding mode
  SmallVector<Value> weight; // [N, P], zero for a tap outside ("zeros" padding)
};

struct GridSampler : Ops {
  bool alignCorners;
  std::string padding;

  /// The reference's reflection into [lo, hi] (by the near border, repeatedly).
  Value reflect(Value x, double lo, double hi) {
    double range = hi - lo;
    auto side = [&](Value dx, Value nearSide, Value farSide, double sign) {
      // n = floor(dx / range) (dx >= 0 where used), r = dx - n * range.
      Value count = floor(mul(dx, k(dx, 1.0 / range)));
      Value r = sub(dx, mul(count, k(dx, range)));
      Value odd =
          gt(sub(count, mul(floor(mul(count, k(count, 0.5))), k(count, 2.0))), k(count, 0.5));
      return where(odd, add(farSide, mul(r, k(r, -sign))), add(nearSide, mul(r, k(r, sign))));
    };
    if (range <= 0)
      return n.create<MulOp>(x, k(x, 0.0));
    Value below = side(sub(k(x, lo), x), k(x, lo), k(x, hi), 1.0);
    Value above = side(sub(x, k(x, hi)), k(x, hi), k(x, lo), -1.0);
    return where(lt(x, k(x, lo)), below, where(gt(x, k(x, hi)), above, x));
  }

  /// A tap index (float, integral) resolved by the padding mode for a dim of `size`;
  /// `valid` is false where "zeros" padding reads nothing.
  std::pair<Value, Value> resolve(Value index, int64_t size, double lo, double hi) {
    Value valid;
    if (padding == "zeros") {
      valid = n.create<AndOp>(n.create<NotOp>(lt(index, k(index, 0.0))),
                              lt(index, k(index, (double)size)));
      index = clip(index, 0, size - 1);
    } else if (padding == "border") {
      index = clip(index, 0, size - 1);
    } else {
      // int() of the reflected value truncates; reflected values are >= lo >= -0.5.
      Value r = reflect(index, lo, hi);
      index = clip(floor(where(lt(r, k(r, 0.0)), k(r, 0.0), r)), 0, size - 1);
    }
    return {n.castElements(index, n.b.getI64Type()), valid};
  }

  /// Keys' cubic convolution weights (alpha -0.75) of taps -1, 0, 1, 2 at fraction t.
  SmallVector<Value> cubicWeights(Value t) {
    const double a = -0.75;
    auto poly = [&](Value x, double c3, double c2, double c1, double c0) {
      // ((c3 x + c2) x + c1) x + c0
      Value v = add(mul(x, k(x, c3)), k(x, c2));
      v = add(mul(v, x), k(x, c1));
      return add(mul(v, x), k(x, c0));
    };
    Value x0 = add(t, k(t, 1.0)), x1 = t, x2 = sub(k(t, 1.0), t), x3 = sub(k(t, 2.0), t);
    // |x| in (1, 2): a x^3 - 5a x^2 + 8a x - 4a; |x| <= 1: (a+2) x^3 - (a+3) x^2 + 1.
    return {poly(x0, a, -5 * a, 8 * a, -4 * a), poly(x1, a + 2, -(a + 3), 0, 1),
            poly(x2, a + 2, -(a + 3), 0, 1), poly(x3, a, -5 * a, 8 * a, -4 * a)};
  }

  /// The taps of coordinate `g` (normalized, [N, P]) in a dim of `size`.
  Taps taps(Value g, int64_t size, StringRef mode) {
    double lo = alignCorners ? 0.0 : -0.5, hi = alignCorners ? size - 1.0 : size - 0.5;
    Value x = alignCorners
                  ? mul(add(g, k(g, 1.0)), k(g, 0.5 * (size - 1)))
                  : mul(sub(mul(add(g, k(g, 1.0)), k(g, (double)size)), k(g, 1.0)), k(g, 0.5));
    if (mode == "nearest")
      x = n.create<RoundOp>(x);
    if (padding == "border")
      x = where(n.create<OrOp>(lt(x, k(x, lo)), gt(x, k(x, hi))), clip(x, 0, size - 1), x);
    else if (padding == "reflection")
      x = reflect(x, lo, hi);
    Taps t;
    auto addTap = [&](Value index, Value w) {
      auto [i, valid] = resolve(index, size, lo, hi);
      if (valid)
        w = where(valid, w, k(w, 0.0));
      t.index.push_back(i);
      t.weight.push_back(w);
    };
    if (mode == "nearest") {
      addTap(x, k(x, 1.0));
      return t;
    }
    Value x0 = floor(x), frac = sub(x, x0);
    if (mode == "linear") {
      addTap(x0, sub(k(frac, 1.0), frac));
      addTap(add(x0, k(x0, 1.0)), frac);
      return t;
    }
    SmallVector<Value> w = cubicWeights(frac);
    for (int64_t j = 0; j < 4; ++j)
      addTap(add(x0, k(x0, (double)(j - 1))), w[j]);
    return t;
  }
};

LogicalResult importGridSample(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0), gt = n.inputType(1);
  Type et = xt.getElementType();
  if (!isa<FloatType>(et) || gt.getElementType() != et)
    return n.error() << "expects float X and grid of one type, got " << xt << " and " << gt;
  int64_t rank = xt.getRank(), dims = rank - 2;
  if (dims < 1 || gt.getRank() != rank || gt.getDimSize(0) != xt.getDimSize(0) ||
      gt.getDimSize(rank - 1) != dims)
    return n.error() << "expects X [N, C, D1..Dr] and grid [N, O1..Or, r], got " << xt << " and "
                     << gt;
  std::string mode = n.getString("mode", "linear");
  if (mode == "bilinear")
    mode = "linear"; // the opset 16 names
  else if (mode == "bicubic")
    mode = "cubic";
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return n.error() << "unknown mode '" << mode << "'";
  std::string padding = n.getString("padding_mode", "zeros");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return n.error() << "unknown padding_mode '" << padding << "'";
  GridSampler s{{n}, n.getInt("align_corners", 0) != 0, padding};

  int64_t batch = xt.getDimSize(0), channels = xt.getDimSize(1), points = 1, volume = 1;
  SmallVector<int64_t> outShape{batch, channels};
  for (int64_t d = 1; d < rank - 1; ++d)
    points *= gt.getDimSize(d), outShape.push_back(gt.getDimSize(d));
  SmallVector<int64_t> strides(dims);
  for (int64_t d = dims - 1; d >= 0; --d)
    strides[d] = volume, volume *= xt.getDimSize(2 + d);
  // Computed in f32 for half types, as one kernel would.
  Type compute = n.computeType(et);
  Value grid = n.reshape(n.castElements(n.input(1), compute), {batch, points, dims});
  // The grid's last dim is (x, y[, z]): the innermost spatial dim first.
  SmallVector<Taps> perDim;
  for (int64_t d = 0; d < dims; ++d) {
    Value g = n.reshape(n.sliceAxis(grid, 2, dims - 1 - d, 1), {batch, points});
    perDim.push_back(s.taps(g, xt.getDimSize(2 + d), mode));
  }
  // X as rows [N * volume, C]: a gather of rows n * volume + flat index reads every channel.
  Value rows = n.create<TransposeOp>(
      n.reshape(n.castElements(n.input(0), compute), {batch, channels, volume}),
      n.b.getDenseI64ArrayAttr({0, 2, 1}));
  rows = n.reshape(rows, {batch * volume, channels});
  if (!n.tableFits({batch}, "an offset table"))
    return failure();
  SmallVector<int64_t> offsets;
  for (int64_t b = 0; b < batch; ++b)
    offsets.push_back(b * volume);
  Value batchOffset = n.constant(DenseElementsAttr::get(
      RankedTensorType::get({batch, 1}, n.b.getI64Type()), ArrayRef<int64_t>(offsets)));
  int64_t tapsPerDim = perDim[0].index.size(), combos = 1;
  for (int64_t d = 0; d < dims; ++d)
    combos *= tapsPerDim;
  Value sum;
  for (int64_t c = 0; c < combos; ++c) {
    Value flat = batchOffset, weight;
    for (int64_t d = 0, rest = c; d < dims; ++d, rest /= tapsPerDim) {
      int64_t j = rest % tapsPerDim;
      Value term = perDim[d].index[j];
      if (strides[d] != 1)
        term = n.create<MulOp>(term, n.scalarLike(term, (double)strides[d]));
      flat = n.create<AddOp>(flat, term);
      weight = weight ? n.create<MulOp>(weight, perDim[d].weight[j]) : perDim[d].weight[j];
    }
    Value taken = n.create<GatherOp>(rows, n.reshape(flat, {batch * points}),
                                     n.b.getI64IntegerAttr(0)); // [N * P, C]
    taken = n.reshape(taken, {batch, points, channels});
    Value term = n.create<MulOp>(taken, n.reshape(weight, {batch, points, 1}));
    sum = sum ? n.create<AddOp>(sum, term) : term;
  }
  Value y = n.create<TransposeOp>(sum, n.b.getDenseI64ArrayAttr({0, 2, 1}));
  n.setResult(0, n.castElements(n.reshape(y, outShape), et));
  return success();
}
/// AffineGrid(theta [N, r, r+1], size [N, C, D1..Dr] (which must fold)): each output point
/// is theta times its homogeneous normalized coordinates (x, y[, z], 1), x along the last
/// dim: one matmul of a constant [points, r+1] grid by theta^T.
LogicalResult importAffineGrid(NodeImporter &n) {
  RankedTensorType tt = n.inputType(0);
  if (!isa<FloatType>(tt.getElementType()) || tt.getRank() != 3)
    return n.error() << "expects a float theta [N, r, r + 1], got " << tt;
  auto size = n.constantInts(1, "size");
  if (!size)
    return failure();
  int64_t dims = (int64_t)size->size() - 2, batch = tt.getDimSize(0);
  if ((dims != 2 && dims != 3) || tt.getDimSize(1) != dims || tt.getDimSize(2) != dims + 1 ||
      (*size)[0] != batch)
    return n.error() << "expects theta [N, r, r + 1] and size [N, C, D1..Dr] (r = 2 or 3), got "
                     << tt << " and " << size->size() << " sizes";
  bool align = n.getInt("align_corners", 0) != 0;
  ArrayRef<int64_t> spatial = ArrayRef<int64_t>(*size).drop_front(2);
  int64_t points = 1;
  for (int64_t s : spatial)
    points *= s;
  // Row-major over the spatial dims; the coordinate columns run x (last dim) first.
  SmallVector<double> base;
  for (int64_t p = 0; p < points; ++p) {
    SmallVector<int64_t> at(dims);
    for (int64_t d = dims - 1, rest = p; d >= 0; --d) {
      at[d] = rest % spatial[d];
      rest /= spatial[d];
    }
    for (int64_t d = dims - 1; d >= 0; --d) {
      double l = (double)spatial[d], i = (double)at[d];
      base.push_back(align ? (l > 1 ? -1.0 + 2.0 * i / (l - 1) : 0.0) : -1.0 + (2 * i + 1) / l);
    }
    base.push_back(1.0);
  }
  Value grid = n.castElements(
      n.constant(DenseElementsAttr::get(RankedTensorType::get({points, dims + 1}, n.b.getF64Type()),
                                        ArrayRef<double>(base))),
      tt.getElementType());
  Value thetaT = n.create<TransposeOp>(n.input(0), n.b.getDenseI64ArrayAttr({0, 2, 1}));
  Value y = n.matmul(n.reshape(grid, {1, points, dims + 1}), thetaT); // [N, points, r]
  SmallVector<int64_t> shape{batch};
  llvm::append_range(shape, spatial);
  shape.push_back(dims);
  n.setResult(0, n.reshape(y, shape));
  return success();
}
} // namespace

void infc::registerGridSampleImporters(ImportRegistry &r) {
  r["GridSample"] = importGridSample;
  r["AffineGrid"] = importAffineGrid;
}

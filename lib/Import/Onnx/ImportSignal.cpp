//===- ImportSignal.cpp - DFT and STFT as matmuls by constant DFT matrices ===//
//
// A transform of static length n is a product with n x n cos and sin tables (folded at
// compile time): O(n^2) per signal, which for the frame lengths these ops see (audio
// front ends: 256-2048) runs at matmul speed; an FFT codegen is the plan for long signals.
// Complex values are [..., 2] (real, imaginary) in the last dim, real ones [..., 1].
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include <cmath>

using namespace mlir;
using namespace infc;

namespace {
/// The [n, bins] table cos(2 pi k t / n) (or sin) in `et`, t the row, k the column.
Value twiddles(NodeImporter &n, int64_t length, int64_t bins, bool sine, Type et,
               ArrayRef<double> columnWeights = {}) {
  SmallVector<double> values;
  for (int64_t t = 0; t < length; ++t)
    for (int64_t k = 0; k < bins; ++k) {
      // k * t mod n first, so the angle stays small and exact for long transforms.
      double angle = 2 * M_PI * (double)((k * t) % length) / (double)length;
      double w = columnWeights.empty() ? 1.0 : columnWeights[k];
      values.push_back(w * (sine ? std::sin(angle) : std::cos(angle)));
    }
  Value f64 = n.constant(DenseElementsAttr::get(
      RankedTensorType::get({length, bins}, n.b.getF64Type()), ArrayRef<double>(values)));
  return n.castElements(f64, et);
}

/// `v` cropped or zero-padded at the end of its last dim to `size`.
Value fitLast(NodeImporter &n, Value v, int64_t size) {
  ArrayRef<int64_t> s = shapeOf(v);
  int64_t rank = s.size(), have = s.back();
  if (have > size)
    return n.sliceAxis(v, rank - 1, 0, size);
  if (have < size) {
    SmallVector<int64_t> low(rank, 0), high(rank, 0);
    high.back() = size - have;
    return n.create<PadOp>(v, Value(), n.b.getDenseI64ArrayAttr(low),
                           n.b.getDenseI64ArrayAttr(high), n.b.getStringAttr("constant"));
  }
  return v;
}

/// The DFT of the signal along the last dim of `re` (+ i `im`, null when real), of `length`
/// points: forward, inverse (scaled by 1 / length), onesided forward (the first
/// length / 2 + 1 bins) or onesided inverse (irfft: a real signal from a one-sided
/// spectrum). Returns (real, imaginary); imaginary is null for irfft.
std::pair<Value, Value> transform(NodeImporter &n, Value re, Value im, int64_t length, bool inverse,
                                  bool onesided) {
  Type et = cast<RankedTensorType>(re.getType()).getElementType();
  auto product = [&](Value v, Value table) { return n.matmul(v, table); };
  if (inverse && onesided) {
    // x_t = (1/n) sum_k w_k (Re X_k cos - Im X_k sin), w = 1 at DC and Nyquist, else 2.
    int64_t bins = length / 2 + 1;
    re = fitLast(n, re, bins);
    im = im ? fitLast(n, im, bins) : nullptr;
    SmallVector<double> w(bins, 2.0 / (double)length);
    w[0] = 1.0 / (double)length;
    if (length % 2 == 0)
      w[bins - 1] = 1.0 / (double)length;
    // Rows are bins here: the table is [bins, length], the transpose of the forward one.
    auto inverseTable = [&](bool sine) {
      Value t = twiddles(n, length, bins, sine, et, w);
      return n.create<TransposeOp>(t, n.b.getDenseI64ArrayAttr({1, 0}));
    };
    Value x = product(re, inverseTable(false));
    if (im)
      x = n.create<SubOp>(x, product(im, inverseTable(true)));
    return {x, nullptr};
  }
  re = fitLast(n, re, length);
  im = im ? fitLast(n, im, length) : nullptr;
  int64_t bins = onesided ? length / 2 + 1 : length;
  SmallVector<double> scale;
  if (inverse)
    scale.assign(bins, 1.0 / (double)length);
  Value c = twiddles(n, length, bins, false, et, scale);
  Value s = twiddles(n, length, bins, true, et, scale);
  // forward: (re + i im)(cos - i sin); inverse: (re + i im)(cos + i sin).
  Value outRe = product(re, c), outIm;
  Value reSin = product(re, s);
  outIm = inverse ? reSin : n.create<NegOp>(reSin);
  if (im) {
    Value imCos = product(im, c), imSin = product(im, s);
    outRe = inverse ? n.create<SubOp>(outRe, imSin) : n.create<AddOp>(outRe, imSin);
    outIm = n.create<AddOp>(outIm, imCos);
  }
  return {outRe, outIm};
}

/// DFT (opset 17: axis attribute, default 1; opset 20: axis input, default -2).
LogicalResult importDFT(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (!isa<FloatType>(xt.getElementType()))
    return n.error() << "expects a float input, got " << xt.getElementType();
  int64_t rank = xt.getRank();
  int64_t parts = xt.getDimSize(rank - 1);
  if (rank < 2 || (parts != 1 && parts != 2))
    return n.error() << "expects a signal [..., 1] (real) or [..., 2] (complex), got " << xt;
  int64_t axis = n.getInt("axis", 1);
  if (n.opset >= 20) {
    axis = -2;
    if (n.input(2)) {
      auto a = n.constantInts(2, "axis");
      if (!a)
        return failure();
      axis = a->front();
    }
  }
  std::optional<int64_t> norm = n.normalizeAxis(axis, rank);
  if (!norm)
    return failure();
  if (*norm == rank - 1)
    return n.error() << "the axis may not be the last (real/imaginary) dim";
  bool inverse = n.getInt("inverse", 0) != 0, onesided = n.getInt("onesided", 0) != 0;
  int64_t length = inverse && onesided ? 2 * (xt.getDimSize(*norm) - 1) : xt.getDimSize(*norm);
  if (n.input(1)) {
    auto l = n.constantInts(1, "dft_length");
    if (!l)
      return failure();
    length = l->front();
  }
  if (length <= 0)
    return n.error() << "dft_length " << length << " is not positive";

  // The signal axis last, without the [.., 1|2] dim: real and imaginary parts apart.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != *norm)
      perm.push_back(d);
  perm.push_back(*norm);
  auto part = [&](int64_t i) {
    Value p = n.reshape(n.sliceAxis(n.input(0), rank - 1, i, 1), xt.getShape().drop_back());
    return n.create<TransposeOp>(p, n.b.getDenseI64ArrayAttr(perm));
  };
  Value re = part(0), im = parts == 2 ? part(1) : nullptr;
  auto [outRe, outIm] = transform(n, re, im, length, inverse, onesided);
  // Back to the input's dim order, the parts stacked last.
  SmallVector<int64_t> back(rank - 1);
  for (int64_t i = 0; i < rank - 1; ++i)
    back[perm[i]] = i;
  auto restore = [&](Value v) {
    Value t = n.create<TransposeOp>(v, n.b.getDenseI64ArrayAttr(back));
    SmallVector<int64_t> shape(shapeOf(t));
    shape.push_back(1);
    return n.reshape(t, shape);
  };
  Value y = outIm ? n.create<ConcatOp>(ValueRange{restore(outRe), restore(outIm)},
                                       n.b.getI64IntegerAttr(rank - 1))
                  : restore(outRe);
  n.setResult(0, y);
  return success();
}

/// STFT(signal [B, L, 1|2], frame_step, window?, frame_length?): frames gathered by a
/// constant index table, multiplied by the window, each transformed (onesided by default).
LogicalResult importSTFT(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (!isa<FloatType>(xt.getElementType()) || xt.getRank() != 3 ||
      (xt.getDimSize(2) != 1 && xt.getDimSize(2) != 2))
    return n.error() << "expects a float signal [batch, length, 1|2], got " << xt;
  auto step = n.constantInts(1, "frame_step");
  if (!step)
    return failure();
  int64_t frameLength = -1;
  if (n.input(3)) {
    auto l = n.constantInts(3, "frame_length");
    if (!l)
      return failure();
    frameLength = l->front();
  } else if (n.input(2)) {
    frameLength = n.inputType(2).getDimSize(0);
  }
  int64_t batch = xt.getDimSize(0), length = xt.getDimSize(1), hop = step->front();
  if (frameLength <= 0 || frameLength > length || hop <= 0)
    return n.error() << "needs 0 < frame_length <= " << length << " and frame_step > 0";
  if (n.input(2) && n.inputType(2).getShape() != ArrayRef<int64_t>{frameLength})
    return n.error() << "expects a window of " << frameLength << ", got " << n.inputType(2);
  int64_t frames = (length - frameLength) / hop + 1;
  if (!n.tableFits({frames, frameLength}, "a frame index table"))
    return failure();
  SmallVector<int64_t> index;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t t = 0; t < frameLength; ++t)
      index.push_back(f * hop + t);
  Value table = n.constant(DenseElementsAttr::get(
      RankedTensorType::get({frames * frameLength}, n.b.getI64Type()), ArrayRef<int64_t>(index)));
  bool onesided = n.getInt("onesided", 1) != 0;
  auto framed = [&](int64_t i) {
    Value p = n.reshape(n.sliceAxis(n.input(0), 2, i, 1), {batch, length});
    p = n.reshape(n.create<GatherOp>(p, table, n.b.getI64IntegerAttr(1)),
                  {batch, frames, frameLength});
    return n.input(2) ? n.create<MulOp>(p, n.input(2)) : p;
  };
  Value re = framed(0), im = xt.getDimSize(2) == 2 ? framed(1) : nullptr;
  auto [outRe, outIm] = transform(n, re, im, frameLength, false, onesided && !im);
  int64_t bins = shapeOf(outRe).back();
  Value y = n.create<ConcatOp>(ValueRange{n.reshape(outRe, {batch, frames, bins, 1}),
                                          n.reshape(outIm, {batch, frames, bins, 1})},
                               n.b.getI64IntegerAttr(3));
  n.setResult(0, y);
  return success();
}
} // namespace

void infc::registerSignalImporters(ImportRegistry &r) {
  r["DFT"] = importDFT;
  r["STFT"] = importSTFT;
}

//===- ImportTensorOps.cpp - ONNX indexing, data movement, padding and resampling ops ===//
//
// Most of these are compositions of existing infc ops, folded as they are built:
// - index arithmetic on the indices tensor with constant strides, then a gather on the
//   flattened data (GatherElements, GatherND; ScatterND's flat positions);
// - gathers with constant indices and weighted sums of them (Resize, Upsample, Compress);
// - reshape/transpose/broadcast chains (Tile, DepthToSpace, SpaceToDepth, Einsum);
// - slices and pads (CenterCropPad);
// - compares against constant position tables, then where (Trilu, OneHot, EyeLike);
// - layer_norm over regrouped dims (InstanceNormalization, GroupNormalization).
// Pad, CumSum, ScatterElements/ScatterND and TopK build the infc ops of the same meaning.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include <cctype>
#include <cmath>
#include <map>

using namespace mlir;
using namespace infc;

namespace {
//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
Type elementTypeOf(Value v) { return typeOf(v).getElementType(); }

int64_t product(ArrayRef<int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v)
    p *= x;
  return p;
}

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

Value i64Constant(NodeImporter &n, ArrayRef<int64_t> shape, ArrayRef<int64_t> values) {
  return n.constant(DenseElementsAttr::get(RankedTensorType::get(shape, n.b.getI64Type()), values));
}

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

Value castTo(NodeImporter &n, Value v, Type et) {
  if (elementTypeOf(v) == et)
    return v;
  return n.create<CastOp>(RankedTensorType::get(typeOf(v).getShape(), et), v);
}

Value transpose(NodeImporter &n, Value v, ArrayRef<int64_t> perm) {
  return n.create<TransposeOp>(v, n.b.getDenseI64ArrayAttr(perm));
}

Value broadcastTo(NodeImporter &n, Value v, ArrayRef<int64_t> shape) {
  if (typeOf(v).getShape() == shape)
    return v;
  return n.create<BroadcastOp>(RankedTensorType::get(shape, elementTypeOf(v)), v);
}

Value reduceSum(NodeImporter &n, Value v, ArrayRef<int64_t> axes, bool keepdims) {
  if (axes.empty())
    return v;
  return n.create<ReduceSumOp>(v, n.b.getDenseI64ArrayAttr(axes), n.b.getBoolAttr(keepdims));
}

Value gather(NodeImporter &n, Value data, Value indices, int64_t axis) {
  return n.create<GatherOp>(data, indices, n.b.getI64IntegerAttr(axis));
}

/// Negative entries of the i64 tensor `idx` count from the end of `dims` (broadcast along
/// the last dim of idx, or a scalar); the result is clamped into [0, dim), so a bad run-time
/// index reads (or writes) the border of its own dim, as infc.gather does.
Value wrapIndices(NodeImporter &n, Value idx, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> shape, last;
  if (dims.size() > 1)
    shape.push_back(dims.size());
  for (int64_t d : dims)
    last.push_back(d - 1);
  Value zero = n.scalarLike(idx, 0);
  Value wrapped = n.create<WhereOp>(n.create<LessOp>(idx, zero),
                                    n.create<AddOp>(idx, i64Constant(n, shape, dims)), idx);
  return n.create<MaxOp>(n.create<MinOp>(wrapped, i64Constant(n, shape, last)), zero);
}

/// Input i as doubles; emits an error naming `what` unless it is constant.
std::optional<SmallVector<double>> constantDoubles(NodeImporter &n, unsigned i, StringRef what) {
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

/// Index inputs must be i32 or i64; constant ones are checked against `dims` (the extent
/// each index addresses, repeating along the last dim of the indices when `perRow`).
LogicalResult checkIndices(NodeImporter &n, unsigned i, ArrayRef<int64_t> dims,
                           bool perRow = false) {
  Type it = n.inputType(i).getElementType();
  if (!it.isInteger(32) && !it.isInteger(64))
    return n.error() << "indices must be int32 or int64, got " << it;
  DenseElementsAttr c = n.constantInput(i);
  if (!c)
    return success();
  int64_t pos = 0;
  for (APInt v : c.getValues<APInt>()) {
    int64_t dim = perRow ? dims[pos++ % dims.size()] : dims[0];
    if (v.getSExtValue() < -dim || v.getSExtValue() >= dim)
      return n.error() << "index " << v.getSExtValue() << " is out of range for dim " << dim;
  }
  return success();
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
  if (b <= 0)
    return n.error() << "expects a positive blocksize, got " << b;
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
// Trilu, EyeLike, OneHot
//===----------------------------------------------------------------------===//

/// The [rows, cols] table of j - i.
Value diagonalOffsets(NodeImporter &n, int64_t rows, int64_t cols) {
  if (!n.tableFits({rows, cols}, "a diagonal table"))
    return nullptr;
  SmallVector<int64_t> diff;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      diff.push_back(j - i);
  return i64Constant(n, {rows, cols}, diff);
}

/// Trilu: keeps j - i >= k (upper) or j - i <= k (lower). k may be a run-time value: only
/// the mask then is computed at run time.
LogicalResult importTrilu(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() < 2)
    return n.error() << "expects rank >= 2, got " << xt;
  Value k = i64Constant(n, {}, {0});
  if (n.input(1)) {
    RankedTensorType kt = n.inputType(1);
    if (!isa<IntegerType>(kt.getElementType()) || kt.getNumElements() != 1)
      return n.error() << "k must be an integer scalar, got " << kt;
    k = n.reshape(castTo(n, n.input(1), n.b.getI64Type()), {});
  }
  Value d = diagonalOffsets(n, xt.getDimSize(xt.getRank() - 2), xt.getDimSize(xt.getRank() - 1));
  if (!d)
    return failure();
  Value drop = n.getInt("upper", 1) ? n.create<LessOp>(d, k) : n.create<GreaterOp>(d, k);
  n.setResult(0, n.create<WhereOp>(drop, n.scalarLike(n.input(0), 0), n.input(0)));
  return success();
}

LogicalResult importEyeLike(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() != 2)
    return n.error() << "expects a 2-D input, got " << xt;
  Type et = xt.getElementType();
  if (n.hasAttr("dtype")) {
    int64_t dtype = n.getInt("dtype", 0);
    et = onnxElementType(n.b.getContext(), dtype);
    if (!et)
      return n.error() << "unsupported dtype " << onnxDataTypeName(dtype);
  }
  Value d = diagonalOffsets(n, xt.getDimSize(0), xt.getDimSize(1));
  if (!d)
    return failure();
  Value on = n.create<EqualOp>(d, i64Constant(n, {}, {n.getInt("k", 0)}));
  n.setResult(0, castTo(n, on, et));
  return success();
}

/// OneHot: indices (negative ones count from the end) compared with a constant 0..depth-1
/// along the new axis; out-of-range indices match nothing.
LogicalResult importOneHot(NodeImporter &n) {
  RankedTensorType it = n.inputType(0);
  auto depthValues = constantDoubles(n, 1, "depth");
  if (!depthValues)
    return failure();
  if (depthValues->size() != 1 || !((*depthValues)[0] >= 1))
    return n.error() << "depth must be a positive scalar";
  if ((*depthValues)[0] > (double)kMaxMaterializedElements)
    return n.error() << "needs a one-hot table of " << (*depthValues)[0]
                     << " elements, more than the " << kMaxMaterializedElements
                     << " the compiler builds";
  int64_t depth = (int64_t)(*depthValues)[0];
  if (n.inputType(2).getNumElements() != 2)
    return n.error() << "values must hold [off, on]";
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", -1), it.getRank() + 1);
  if (!axis)
    return failure();
  Value idx = castTo(n, n.input(0), n.b.getI64Type());
  Value zero = n.scalarLike(idx, 0);
  idx = n.create<WhereOp>(n.create<LessOp>(idx, zero),
                          n.create<AddOp>(idx, i64Constant(n, {}, {depth})), idx);
  SmallVector<int64_t> idxShape(it.getShape()), rangeShape(it.getRank() + 1, 1);
  idxShape.insert(idxShape.begin() + *axis, 1);
  rangeShape[*axis] = depth;
  if (!n.tableFits({depth}, "a one-hot table"))
    return failure();
  SmallVector<int64_t> range = llvm::to_vector(llvm::seq<int64_t>(0, depth));
  Value hot = n.create<EqualOp>(n.reshape(idx, idxShape), i64Constant(n, rangeShape, range));
  Value values = n.reshape(n.input(2), {2});
  Value off = n.reshape(n.sliceAxis(values, 0, 0, 1), {});
  Value on = n.reshape(n.sliceAxis(values, 0, 1, 1), {});
  n.setResult(0, n.create<WhereOp>(hot, on, off));
  return success();
}

//===----------------------------------------------------------------------===//
// GatherElements, GatherND, Compress
//===----------------------------------------------------------------------===//

/// GatherElements: flat position = sum over d != axis of i_d * stride_d (a constant table)
/// + wrapped index * stride_axis, then a gather on the flattened data.
LogicalResult importGatherElements(NodeImporter &n) {
  RankedTensorType dt = n.inputType(0), it = n.inputType(1);
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), dt.getRank());
  if (!axis)
    return failure();
  if (it.getRank() != dt.getRank())
    return n.error() << "indices " << it << " and data " << dt << " differ in rank";
  for (int64_t d = 0; d < dt.getRank(); ++d)
    if (d != *axis && it.getDimSize(d) > dt.getDimSize(d))
      return n.error() << "indices " << it << " exceed data " << dt << " in dim " << d;
  if (failed(checkIndices(n, 1, {dt.getDimSize(*axis)})))
    return failure();
  if (dt.getNumElements() == 0)
    return n.error() << "cannot gather from an empty tensor";
  SmallVector<int64_t> strides = stridesOf(dt.getShape());
  SmallVector<int64_t> base(it.getNumElements(), 0);
  SmallVector<int64_t> itStrides = stridesOf(it.getShape());
  for (int64_t p = 0; p < it.getNumElements(); ++p)
    for (int64_t d = 0; d < it.getRank(); ++d)
      if (d != *axis)
        base[p] += (p / itStrides[d]) % it.getDimSize(d) * strides[d];
  Value idx = castTo(n, n.input(1), n.b.getI64Type());
  idx = wrapIndices(n, idx, {dt.getDimSize(*axis)});
  Value flat = n.create<AddOp>(i64Constant(n, it.getShape(), base),
                               n.create<MulOp>(idx, i64Constant(n, {}, {strides[*axis]})));
  n.setResult(0, gather(n, n.reshape(n.input(0), {dt.getNumElements()}), flat, 0));
  return success();
}

/// GatherND: each index row (wrapped per dim) dotted with the constant strides of the
/// addressed dims, plus a constant offset per batch, selects a slice of the data viewed as
/// [batch * addressed, rest...].
LogicalResult importGatherND(NodeImporter &n) {
  RankedTensorType dt = n.inputType(0), it = n.inputType(1);
  int64_t b = n.getInt("batch_dims", 0), q = it.getRank(), r = dt.getRank();
  if (q < 1 || b < 0 || b >= std::min(q, r))
    return n.error() << "batch_dims " << b << " does not fit data " << dt << " and indices " << it;
  int64_t K = it.getDimSize(q - 1);
  if (K < 1 || K > r - b)
    return n.error() << "index rows of length " << K << " do not fit data " << dt;
  for (int64_t d = 0; d < b; ++d)
    if (it.getDimSize(d) != dt.getDimSize(d))
      return n.error() << "batch dims of indices " << it << " and data " << dt << " differ";
  ArrayRef<int64_t> addressed = dt.getShape().slice(b, K);
  if (failed(checkIndices(n, 1, addressed, /*perRow=*/true)))
    return failure();
  int64_t P = product(addressed), batch = product(dt.getShape().take_front(b));
  if (dt.getNumElements() == 0)
    return n.error() << "cannot gather from an empty tensor";
  SmallVector<int64_t> rowShape(it.getShape().drop_back());
  Value idx = castTo(n, n.input(1), n.b.getI64Type());
  idx = wrapIndices(n, idx, addressed);
  Value row =
      reduceSum(n, n.create<MulOp>(idx, i64Constant(n, {K}, stridesOf(addressed))), {q - 1}, false);
  // The batch offset of each row: its position in the leading b dims times P.
  if (!n.tableFits(rowShape, "a row offset table"))
    return failure();
  SmallVector<int64_t> offsets(product(rowShape));
  int64_t perBatch = product(ArrayRef<int64_t>(rowShape).drop_front(b));
  for (int64_t p = 0; p < (int64_t)offsets.size(); ++p)
    offsets[p] = perBatch ? p / perBatch * P : 0;
  Value flat = n.create<AddOp>(row, i64Constant(n, rowShape, offsets));
  SmallVector<int64_t> dataShape = {batch * P};
  llvm::append_range(dataShape, dt.getShape().drop_front(b + K));
  n.setResult(0, gather(n, n.reshape(n.input(0), dataShape), flat, 0));
  return success();
}

/// ReverseSequence: for each batch entry b the first sequence_lens[b] entries along the time
/// axis reversed, the rest kept. The source time index is computed from the (run-time)
/// lengths, and one row gather over [T * B, rest] reads every element.
LogicalResult importReverseSequence(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank();
  int64_t timeAxis = n.getInt("time_axis", 0), batchAxis = n.getInt("batch_axis", 1);
  if (rank < 2 || timeAxis == batchAxis || timeAxis < 0 || timeAxis > 1 || batchAxis < 0 ||
      batchAxis > 1)
    return n.error() << "expects time_axis and batch_axis 0 and 1 (either order) of a tensor "
                     << "of rank >= 2, got " << xt;
  int64_t steps = xt.getDimSize(timeAxis), batch = xt.getDimSize(batchAxis);
  if (n.inputType(1).getShape() != ArrayRef<int64_t>{batch} ||
      !n.inputType(1).getElementType().isSignlessInteger())
    return n.error() << "expects integer sequence_lens [" << batch << "], got " << n.inputType(1);
  Value len = n.reshape(n.castElements(n.input(1), n.b.getI64Type()), {1, batch});
  Value t = iota(n, {steps, 1}, steps);
  Value reversed = n.create<SubOp>(n.create<SubOp>(len, n.scalarLike(len, 1)), t);
  Value source = n.create<WhereOp>(n.create<LessOp>(t, len), reversed, t); // [T, B]
  source = n.create<MinOp>(n.create<MaxOp>(source, n.scalarLike(source, 0)),
                           n.scalarLike(source, steps - 1));
  Value rows = n.create<AddOp>(n.create<MulOp>(source, n.scalarLike(source, batch)),
                               iota(n, {1, batch}, batch));
  // x as [T, B, rest...] rows.
  SmallVector<int64_t> perm = {timeAxis, batchAxis};
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  Value x = timeAxis == 0 ? n.input(0)
                          : n.create<TransposeOp>(n.input(0), n.b.getDenseI64ArrayAttr(perm));
  SmallVector<int64_t> flat{steps * batch};
  llvm::append_range(flat, xt.getShape().drop_front(2));
  Value y = n.create<GatherOp>(n.reshape(x, flat), n.reshape(rows, {steps * batch}),
                               n.b.getI64IntegerAttr(0));
  SmallVector<int64_t> shape{steps, batch};
  llvm::append_range(shape, xt.getShape().drop_front(2));
  y = n.reshape(y, shape);
  if (timeAxis != 0)
    y = n.create<TransposeOp>(y, n.b.getDenseI64ArrayAttr(perm)); // the swap is its inverse
  n.setResult(0, y);
  return success();
}

/// Compress with a constant condition: a gather of the selected positions.
LogicalResult importCompress(NodeImporter &n) {
  DenseElementsAttr cond = n.constantInput(1);
  if (!cond)
    return n.notConstant(1, "condition, which decides the output shape,");
  Value x = n.input(0);
  int64_t axis = 0;
  if (n.hasAttr("axis")) {
    std::optional<int64_t> a = n.normalizeAxis(n.getInt("axis", 0), n.inputType(0).getRank());
    if (!a)
      return failure();
    axis = *a;
  } else {
    x = n.reshape(x, {n.inputType(0).getNumElements()});
  }
  int64_t dim = typeOf(x).getDimSize(axis), pos = 0;
  SmallVector<int64_t> selected;
  for (APInt v : cond.getValues<APInt>()) {
    if (pos >= dim)
      break;
    if (!v.isZero())
      selected.push_back(pos);
    ++pos;
  }
  if (selected.empty())
    return n.error() << "the condition selects nothing; empty tensors are not supported";
  n.setResult(0, gather(n, x, i64Constant(n, {(int64_t)selected.size()}, selected), axis));
  return success();
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// An operand of an einsum with one label per dim.
struct Labeled {
  Value value;
  SmallVector<int> labels;
};

/// Sums (or takes the diagonal of) dims so that each label appears once, then sums labels
/// no one else needs.
LogicalResult einsumPrepare(NodeImporter &n, Labeled &t, ArrayRef<int> needed) {
  // Repeated labels: take the diagonal through the flattened pair of dims.
  for (bool again = true; again;) {
    again = false;
    for (size_t i = 0; i < t.labels.size() && !again; ++i)
      for (size_t j = i + 1; j < t.labels.size() && !again; ++j) {
        if (t.labels[i] != t.labels[j])
          continue;
        auto shape = typeOf(t.value).getShape();
        int64_t size = shape[i];
        if (shape[j] != size)
          return n.error() << "dims of a repeated label differ in size";
        SmallVector<int64_t> perm, newShape;
        SmallVector<int> labels;
        for (size_t d = 0; d < t.labels.size(); ++d)
          if (d != i && d != j) {
            perm.push_back(d);
            newShape.push_back(shape[d]);
            labels.push_back(t.labels[d]);
          }
        perm.append({(int64_t)i, (int64_t)j});
        Value v = transpose(n, t.value, perm);
        newShape.push_back(size * size);
        v = n.reshape(v, newShape);
        if (!n.tableFits({size}, "a diagonal table"))
          return failure();
        SmallVector<int64_t> diag;
        for (int64_t k = 0; k < size; ++k)
          diag.push_back(k * (size + 1));
        t.value = gather(n, v, i64Constant(n, {size}, diag), newShape.size() - 1);
        labels.push_back(t.labels[i]);
        t.labels = labels;
        again = true;
      }
  }
  SmallVector<int64_t> axes;
  SmallVector<int> kept;
  for (size_t d = 0; d < t.labels.size(); ++d) {
    if (llvm::is_contained(needed, t.labels[d]))
      kept.push_back(t.labels[d]);
    else
      axes.push_back(d);
  }
  t.value = reduceSum(n, t.value, axes, false);
  t.labels = kept;
  return success();
}

/// Contracts two operands with one batched matmul: [batch, lhs-only, contracted] x
/// [batch, contracted, rhs-only]. Labels in `keep` survive; shared others are summed.
Labeled einsumContract(NodeImporter &n, Labeled a, Labeled b, ArrayRef<int> keep,
                       const std::map<int, int64_t> &sizes) {
  SmallVector<int> batch, aOnly, bOnly, contracted;
  for (int l : a.labels) {
    if (llvm::is_contained(b.labels, l))
      (llvm::is_contained(keep, l) ? batch : contracted).push_back(l);
    else
      aOnly.push_back(l);
  }
  for (int l : b.labels)
    if (!llvm::is_contained(a.labels, l))
      bOnly.push_back(l);
  auto arrange = [&](Labeled &t, ArrayRef<SmallVector<int> *> groups) {
    SmallVector<int64_t> perm, shape, flat;
    for (SmallVector<int> *g : groups) {
      int64_t count = 1;
      for (int l : *g) {
        perm.push_back(llvm::find(t.labels, l) - t.labels.begin());
        shape.push_back(sizes.at(l));
        count *= sizes.at(l);
      }
      flat.push_back(count);
    }
    Value v = transpose(n, t.value, perm);
    // Size-1 (broadcast) dims grow to the label's size.
    v = broadcastTo(n, v, shape);
    return n.reshape(v, flat);
  };
  Value lhs = arrange(a, {&batch, &aOnly, &contracted});
  Value rhs = arrange(b, {&batch, &contracted, &bOnly});
  Value y = n.matmul(lhs, rhs);
  Labeled r;
  SmallVector<int64_t> shape;
  for (SmallVector<int> *g : {&batch, &aOnly, &bOnly})
    for (int l : *g) {
      r.labels.push_back(l);
      shape.push_back(sizes.at(l));
    }
  r.value = n.reshape(y, shape);
  return r;
}

/// Einsum: explicit or implicit output, ellipses, repeated labels (diagonals), sums, and
/// any number of operands contracted pairwise from the left with batched matmuls.
LogicalResult importEinsum(NodeImporter &n) {
  std::string eq;
  for (char c : n.getString("equation", ""))
    if (!std::isspace((unsigned char)c))
      eq.push_back(c);
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  SmallVector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (terms.size() != n.numInputs())
    return n.error() << "the equation has " << terms.size() << " operands, the node "
                     << n.numInputs();
  // Labels: letters as themselves, ellipsis dims as 256 + position (right-aligned).
  int64_t ellipsisRank = 0;
  SmallVector<SmallVector<int>> labels(terms.size());
  auto parse = [&](StringRef term, int64_t rank, SmallVector<int> &out) -> LogicalResult {
    size_t dots = term.find("...");
    int64_t letters = term.size() - (dots == StringRef::npos ? 0 : 3);
    int64_t ell = dots == StringRef::npos ? 0 : rank - letters;
    if (ell < 0 || (dots == StringRef::npos && letters != rank))
      return n.error() << "term '" << term << "' does not match an operand of rank " << rank;
    for (size_t i = 0; i < term.size(); ++i) {
      if (i == dots) {
        for (int64_t e = 0; e < ell; ++e)
          out.push_back(256 + (int)(ellipsisRank - ell + e));
        i += 2;
        continue;
      }
      if (!std::isalpha((unsigned char)term[i]))
        return n.error() << "unexpected '" << term[i] << "' in the equation";
      out.push_back(term[i]);
    }
    return success();
  };
  for (size_t i = 0; i < terms.size(); ++i) {
    size_t dots = terms[i].find("...");
    if (dots != std::string::npos)
      ellipsisRank = std::max<int64_t>(ellipsisRank,
                                       n.inputType(i).getRank() - (int64_t)(terms[i].size() - 3));
  }
  std::map<int, int64_t> sizes;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (failed(parse(terms[i], n.inputType(i).getRank(), labels[i])))
      return failure();
    for (auto [d, l] : llvm::enumerate(labels[i])) {
      int64_t s = n.inputType(i).getDimSize(d);
      auto [it, fresh] = sizes.insert({l, s});
      if (!fresh && it->second != s) {
        if (it->second != 1 && s != 1)
          return n.error() << "label sizes " << it->second << " and " << s << " disagree";
        it->second = std::max(it->second, s);
      }
    }
  }
  SmallVector<int> out;
  if (arrow != std::string::npos) {
    std::string term = eq.substr(arrow + 2);
    if (failed(parse(term,
                     term.size() - (term.find("...") == std::string::npos ? 0 : 3) +
                         (term.find("...") == std::string::npos ? 0 : ellipsisRank),
                     out)))
      return failure();
    for (int l : out)
      if (!sizes.count(l))
        return n.error() << "output label '" << (char)l << "' is not in any operand";
  } else {
    for (int64_t e = 0; e < ellipsisRank; ++e)
      out.push_back(256 + e);
    std::map<int, int> counts;
    for (auto &ls : labels)
      for (int l : ls)
        if (l < 256)
          ++counts[l];
    for (auto [l, c] : counts)
      if (c == 1)
        out.push_back(l);
  }
  // Reduce each operand to the labels the output or another operand needs.
  SmallVector<Labeled> ops;
  for (size_t i = 0; i < terms.size(); ++i) {
    SmallVector<int> needed(out);
    for (size_t j = 0; j < terms.size(); ++j)
      if (j != i)
        llvm::append_range(needed, labels[j]);
    ops.push_back({n.input(i), labels[i]});
    if (failed(einsumPrepare(n, ops.back(), needed)))
      return failure();
  }
  Labeled acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    SmallVector<int> keep(out);
    for (size_t j = i + 1; j < ops.size(); ++j)
      llvm::append_range(keep, ops[j].labels);
    acc = einsumContract(n, acc, ops[i], keep, sizes);
    if (failed(einsumPrepare(n, acc, keep)))
      return failure();
  }
  SmallVector<int64_t> perm, shape;
  for (int l : out) {
    auto it = llvm::find(acc.labels, l);
    if (it == acc.labels.end())
      return n.error() << "cannot place output label " << l;
    perm.push_back(it - acc.labels.begin());
    shape.push_back(sizes.at(l));
  }
  Value y = transpose(n, acc.value, perm);
  n.setResult(0, broadcastTo(n, y, shape));
  return success();
}

//===----------------------------------------------------------------------===//
// InstanceNormalization, GroupNormalization
//===----------------------------------------------------------------------===//

/// Normalizes `x` ([N, C, ...]) per (n, group) over the group's channels and the spatial
/// dims, then applies the per-channel scale and bias.
Value groupNorm(NodeImporter &n, Value x, int64_t groups, double eps, Value scale, Value bias) {
  RankedTensorType xt = typeOf(x);
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1);
  Value grouped = n.reshape(x, {N, groups, xt.getNumElements() / (N * groups)});
  Value one = n.scalarLike(x, 1.0);
  Value normed = n.create<LayerNormOp>(typeOf(grouped), grouped, one, Value(),
                                       n.b.getI64IntegerAttr(2), n.b.getF64FloatAttr(eps));
  SmallVector<int64_t> perChannel(xt.getRank() - 1, 1);
  perChannel[0] = C;
  Value y = n.reshape(normed, xt.getShape());
  y = n.create<MulOp>(y, n.reshape(scale, perChannel));
  return n.create<AddOp>(y, n.reshape(bias, perChannel));
}

LogicalResult importInstanceNorm(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() < 3 || !isa<FloatType>(xt.getElementType()))
    return n.error() << "expects a float input of rank >= 3, got " << xt;
  int64_t C = xt.getDimSize(1);
  if (n.inputType(1).getNumElements() != C || n.inputType(2).getNumElements() != C)
    return n.error() << "scale and bias must hold " << C << " values";
  n.setResult(0, groupNorm(n, n.input(0), C, n.getFloat("epsilon", 1e-5), n.input(1), n.input(2)));
  return success();
}

/// GroupNormalization: scale and bias per channel (opset 21) or, before 21, per group
/// (expanded here to the group's channels).
LogicalResult importGroupNorm(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() < 3 || !isa<FloatType>(xt.getElementType()))
    return n.error() << "expects a float input of rank >= 3, got " << xt;
  int64_t C = xt.getDimSize(1), G = n.getInt("num_groups", 0);
  if (G <= 0 || C % G)
    return n.error() << "num_groups " << G << " does not divide " << C << " channels";
  Value scale = n.input(1), bias = n.input(2);
  for (Value *v : {&scale, &bias}) {
    int64_t count = typeOf(*v).getNumElements();
    if (count == C)
      continue;
    if (count != G)
      return n.error() << "scale and bias must hold " << C << " (or " << G << ") values";
    *v = n.reshape(broadcastTo(n, n.reshape(*v, {G, 1}), {G, C / G}), {C});
  }
  n.setResult(0, groupNorm(n, n.input(0), G, n.getFloat("epsilon", 1e-5), scale, bias));
  return success();
}

//===----------------------------------------------------------------------===//
// Pad, CumSum, ScatterElements, ScatterND, TopK
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

/// CumSum. The axis is normally a constant; a run-time axis selects among the sums along
/// every axis (the only choice for a 1-D input).
/// CumSum and CumProd.
template <typename OpTy> LogicalResult importCumulative(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank();
  Type et = xt.getElementType();
  if (rank == 0 || !(isa<FloatType>(et) || (isa<IntegerType>(et) && !et.isInteger(1))))
    return n.error() << "expects a numeric input of rank >= 1, got " << xt;
  RankedTensorType at = n.inputType(1);
  if (!isa<IntegerType>(at.getElementType()) || at.getNumElements() != 1)
    return n.error() << "axis must be an integer scalar, got " << at;
  auto sum = [&](int64_t axis) {
    return n.create<OpTy>(n.input(0), n.b.getI64IntegerAttr(axis),
                          n.b.getBoolAttr(n.getInt("exclusive", 0)),
                          n.b.getBoolAttr(n.getInt("reverse", 0)));
  };
  if (n.constantInput(1)) {
    auto axis = n.constantInts(1, "axis");
    std::optional<int64_t> a = n.normalizeAxis((*axis)[0], rank);
    if (!a)
      return failure();
    n.setResult(0, sum(*a));
    return success();
  }
  Value result = sum(rank - 1);
  Value axis = n.reshape(n.input(1), {});
  for (int64_t a = rank - 2; a >= 0; --a) {
    Value is = n.create<OrOp>(n.create<EqualOp>(axis, n.scalarLike(axis, a)),
                              n.create<EqualOp>(axis, n.scalarLike(axis, a - rank)));
    result = n.create<WhereOp>(is, sum(a), result);
  }
  n.setResult(0, result);
  return success();
}

LogicalResult scatterReduction(NodeImporter &n, std::string &reduction) {
  reduction = n.getString("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min")
    return n.error() << "unsupported reduction '" << reduction << "'";
  return success();
}

/// ScatterElements (and the deprecated Scatter).
LogicalResult importScatterElements(NodeImporter &n) {
  RankedTensorType dt = n.inputType(0), it = n.inputType(1);
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), dt.getRank());
  if (!axis)
    return failure();
  std::string reduction;
  if (failed(scatterReduction(n, reduction)) || failed(checkIndices(n, 1, {dt.getDimSize(*axis)})))
    return failure();
  if (it.getShape() != n.inputType(2).getShape() || it.getRank() != dt.getRank())
    return n.error() << "indices " << it << " and updates " << n.inputType(2)
                     << " must have one shape, of the data's rank";
  for (int64_t d = 0; d < dt.getRank(); ++d)
    if (d != *axis && it.getDimSize(d) > dt.getDimSize(d))
      return n.error() << "indices " << it << " exceed data " << dt << " in dim " << d;
  if (n.inputType(2).getElementType() != dt.getElementType())
    return n.error() << "updates and data differ in element type";
  n.setResult(0, n.create<ScatterOp>(n.input(0), n.input(1), n.input(2),
                                     n.b.getI64IntegerAttr(*axis), n.b.getStringAttr(reduction)));
  return success();
}

/// ScatterND: the flat position of every update element (index row dotted with the data
/// strides, plus the constant offset inside the slice), then a 1-D scatter.
LogicalResult importScatterND(NodeImporter &n) {
  RankedTensorType dt = n.inputType(0), it = n.inputType(1), ut = n.inputType(2);
  int64_t q = it.getRank(), r = dt.getRank();
  std::string reduction;
  if (failed(scatterReduction(n, reduction)))
    return failure();
  if (q < 1)
    return n.error() << "expects indices of rank >= 1";
  int64_t K = it.getDimSize(q - 1);
  if (K < 1 || K > r)
    return n.error() << "index rows of length " << K << " do not fit data " << dt;
  SmallVector<int64_t> expected(it.getShape().drop_back());
  llvm::append_range(expected, dt.getShape().drop_front(K));
  if (ut.getShape() != ArrayRef<int64_t>(expected) || ut.getElementType() != dt.getElementType())
    return n.error() << "updates " << ut << " do not match data " << dt << " and indices " << it;
  ArrayRef<int64_t> addressed = dt.getShape().take_front(K);
  if (failed(checkIndices(n, 1, addressed, /*perRow=*/true)))
    return failure();
  if (dt.getNumElements() == 0 || ut.getNumElements() == 0) {
    n.setResult(0, n.input(0));
    return success();
  }
  SmallVector<int64_t> strides = stridesOf(dt.getShape());
  Value idx = castTo(n, n.input(1), n.b.getI64Type());
  idx = wrapIndices(n, idx, addressed);
  Value row = reduceSum(
      n, n.create<MulOp>(idx, i64Constant(n, {K}, ArrayRef<int64_t>(strides).take_front(K))),
      {q - 1}, false);
  SmallVector<int64_t> rowShape(it.getShape().drop_back());
  rowShape.append(r - K, 1);
  ArrayRef<int64_t> sliceShape = dt.getShape().drop_front(K);
  SmallVector<int64_t> inside = llvm::to_vector(llvm::seq<int64_t>(0, product(sliceShape)));
  Value flat = n.create<AddOp>(n.reshape(row, rowShape), i64Constant(n, sliceShape, inside));
  int64_t count = ut.getNumElements();
  Value y = n.create<ScatterOp>(n.reshape(n.input(0), {dt.getNumElements()}),
                                n.reshape(flat, {count}), n.reshape(n.input(2), {count}),
                                n.b.getI64IntegerAttr(0), n.b.getStringAttr(reduction));
  n.setResult(0, n.reshape(y, dt.getShape()));
  return success();
}

LogicalResult importTopK(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", -1), xt.getRank());
  if (!axis)
    return failure();
  int64_t k;
  if (n.opset < 10) {
    k = n.getInt("k", -1);
  } else {
    auto values = n.constantInts(1, "K");
    if (!values)
      return failure();
    if (values->size() != 1)
      return n.error() << "K must hold one value";
    k = (*values)[0];
  }
  if (k < 0 || k > xt.getDimSize(*axis))
    return n.error() << "k " << k << " is out of range for dim " << xt.getDimSize(*axis);
  Type et = xt.getElementType();
  if (!isa<FloatType>(et) && !(isa<IntegerType>(et) && !et.isInteger(1)))
    return n.error() << "expects a numeric input, got " << et;
  auto op = TopKOp::create(n.b, n.loc, n.input(0), n.b.getI64IntegerAttr(*axis),
                           n.b.getI64IntegerAttr(k), n.b.getBoolAttr(n.getInt("largest", 1)));
  n.setResult(0, op.getValues());
  n.setResult(1, op.getIndices());
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

void infc::registerTensorOpImporters(ImportRegistry &r) {
  r["Tile"] = importTile;
  r["DepthToSpace"] = importDepthToSpace;
  r["SpaceToDepth"] = importSpaceToDepth;
  r["Trilu"] = importTrilu;
  r["EyeLike"] = importEyeLike;
  r["OneHot"] = importOneHot;
  r["GatherElements"] = importGatherElements;
  r["GatherND"] = importGatherND;
  r["ReverseSequence"] = importReverseSequence;
  r["Compress"] = importCompress;
  r["Einsum"] = importEinsum;
  r["InstanceNormalization"] = importInstanceNorm;
  r["GroupNormalization"] = importGroupNorm;
  r["Pad"] = importPad;
  r["CenterCropPad"] = importCenterCropPad;
  r["CumSum"] = importCumulative<CumSumOp>;
  r["CumProd"] = importCumulative<CumProdOp>;
  r["Scatter"] = importScatterElements;
  r["ScatterElements"] = importScatterElements;
  r["ScatterND"] = importScatterND;
  r["TopK"] = importTopK;
  r["Resize"] = importResize;
  r["Upsample"] = importUpsample;
}

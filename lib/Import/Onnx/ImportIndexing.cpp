//===- ImportIndexing.cpp - ONNX gathers, scatters and index tables -------===//
//
// Most of these are compositions of existing infc ops, folded as they are built:
// - index arithmetic on the indices tensor with constant strides, then a gather on the
//   flattened data (GatherElements, GatherND; ScatterND's flat positions);
// - gathers with constant indices (Compress);
// - compares against constant position tables, then where (Trilu, OneHot, EyeLike).
// CumSum, ScatterElements/ScatterND and TopK build the infc ops of the same meaning.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "ImportHelpers.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace infc;

namespace {
//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

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
  if (!n.tableFits(it.getShape(), "a table of element offsets"))
    return failure();
  SmallVector<int64_t> strides = computeStrides(dt.getShape());
  SmallVector<int64_t> base(it.getNumElements(), 0);
  SmallVector<int64_t> itStrides = computeStrides(it.getShape());
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
  int64_t P = llvm::product_of(addressed, int64_t(1)),
          batch = llvm::product_of(dt.getShape().take_front(b), int64_t(1));
  if (dt.getNumElements() == 0)
    return n.error() << "cannot gather from an empty tensor";
  SmallVector<int64_t> rowShape(it.getShape().drop_back());
  Value idx = castTo(n, n.input(1), n.b.getI64Type());
  idx = wrapIndices(n, idx, addressed);
  Value row = reduceSum(n, n.create<MulOp>(idx, i64Constant(n, {K}, computeStrides(addressed))),
                        {q - 1}, false);
  // The batch offset of each row: its position in the leading b dims times P.
  if (!n.tableFits(rowShape, "a row offset table"))
    return failure();
  SmallVector<int64_t> offsets(llvm::product_of(rowShape, int64_t(1)));
  int64_t perBatch = llvm::product_of(ArrayRef<int64_t>(rowShape).drop_front(b), int64_t(1));
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
// CumSum, ScatterElements, ScatterND, TopK
//===----------------------------------------------------------------------===//

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
  SmallVector<int64_t> strides = computeStrides(dt.getShape());
  Value idx = castTo(n, n.input(1), n.b.getI64Type());
  idx = wrapIndices(n, idx, addressed);
  Value row = reduceSum(
      n, n.create<MulOp>(idx, i64Constant(n, {K}, ArrayRef<int64_t>(strides).take_front(K))),
      {q - 1}, false);
  SmallVector<int64_t> rowShape(it.getShape().drop_back());
  rowShape.append(r - K, 1);
  ArrayRef<int64_t> sliceShape = dt.getShape().drop_front(K);
  SmallVector<int64_t> inside =
      llvm::to_vector(llvm::seq<int64_t>(0, llvm::product_of(sliceShape, int64_t(1))));
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
} // namespace

void infc::registerIndexingImporters(ImportRegistry &r) {
  r["Trilu"] = importTrilu;
  r["EyeLike"] = importEyeLike;
  r["OneHot"] = importOneHot;
  r["GatherElements"] = importGatherElements;
  r["GatherND"] = importGatherND;
  r["ReverseSequence"] = importReverseSequence;
  r["Compress"] = importCompress;
  r["CumSum"] = importCumulative<CumSumOp>;
  r["CumProd"] = importCumulative<CumProdOp>;
  r["Scatter"] = importScatterElements;
  r["ScatterElements"] = importScatterElements;
  r["ScatterND"] = importScatterND;
  r["TopK"] = importTopK;
}

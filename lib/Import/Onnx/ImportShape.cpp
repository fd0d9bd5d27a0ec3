//===- ImportShape.cpp - ONNX shape, data movement and constant ops -------===//
//
// The value-dependent inputs of these ops (Reshape's shape, Slice's starts, Expand's
// shape...) must fold to constants here: infc ops carry them as static attributes.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>

using namespace mlir;
using namespace infc;

namespace {
LogicalResult importFlatten(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank();
  int64_t axis = n.getInt("axis", 1);
  if (axis < -rank || axis > rank)
    return n.error() << "axis " << axis << " is out of range for rank " << rank;
  if (axis < 0)
    axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? outer : inner) *= xt.getDimSize(d);
  n.setResult(0, n.reshape(n.input(0), {outer, inner}));
  return success();
}

LogicalResult importReshape(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  SmallVector<int64_t> shape;
  if (n.opset < 5) {
    shape = n.getInts("shape");
  } else {
    auto values = n.constantInts(1, "shape");
    if (!values)
      return failure();
    shape = *values;
  }
  bool allowZero = n.getInt("allowzero", 0);
  int64_t known = 1, inferred = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0 && !allowZero) {
      if ((int64_t)d >= xt.getRank())
        return n.error() << "shape entry " << d << " is 0 but the input has rank " << xt.getRank();
      shape[d] = xt.getDimSize(d);
    }
    if (shape[d] == -1) {
      if (inferred >= 0)
        return n.error() << "shape has more than one -1";
      inferred = d;
      continue;
    }
    if (shape[d] < 0)
      return n.error() << "invalid shape entry " << shape[d];
    std::optional<int64_t> product = llvm::checkedMul(known, shape[d]);
    if (!product)
      return n.error() << "shape entry " << d << " (" << shape[d]
                       << ") takes the element count past 2^63";
    known = *product;
  }
  if (inferred >= 0) {
    if (known == 0 || xt.getNumElements() % known)
      return n.error() << "cannot infer the -1 dim reshaping " << xt;
    shape[inferred] = xt.getNumElements() / known;
  }
  int64_t total = inferred >= 0 ? known * shape[inferred] : known;
  if (total != xt.getNumElements())
    return n.error() << "cannot reshape " << xt << " (" << xt.getNumElements() << " elements) to "
                     << total << " elements";
  n.setResult(0, n.reshape(n.input(0), shape));
  return success();
}

LogicalResult importTranspose(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  SmallVector<int64_t> reversed;
  for (int64_t d = rank - 1; d >= 0; --d)
    reversed.push_back(d);
  SmallVector<int64_t> perm = n.getInts("perm", reversed);
  if ((int64_t)perm.size() != rank)
    return n.error() << "perm has " << perm.size() << " entries for rank " << rank;
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return n.error() << "perm is not a permutation of [0, " << rank << "): entry " << p
                       << (p >= 0 && p < rank ? " repeats" : " is out of range");
    seen[p] = true;
  }
  n.setResult(0, n.create<TransposeOp>(n.input(0), n.b.getDenseI64ArrayAttr(perm)));
  return success();
}

LogicalResult importConcat(NodeImporter &n) {
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), n.inputType(0).getRank());
  if (!axis)
    return failure();
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    auto t = n.inputType(i);
    if (t.getRank() != n.inputType(0).getRank() ||
        t.getElementType() != n.inputType(0).getElementType())
      return n.error() << "inputs differ in rank or element type";
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != *axis && t.getDimSize(d) != n.inputType(0).getDimSize(d))
        return n.error() << "input " << i << " " << t << " does not match input 0 "
                         << n.inputType(0) << " outside the axis";
    if (t.getDimSize(*axis) > 0)
      inputs.push_back(n.input(i));
  }
  if (inputs.empty())
    inputs.push_back(n.input(0));
  n.setResult(0, n.create<ConcatOp>(inputs, n.b.getI64IntegerAttr(*axis)));
  return success();
}

LogicalResult importSplit(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), xt.getRank());
  if (!axis)
    return failure();
  int64_t dim = xt.getDimSize(*axis), parts = n.numOutputs();
  SmallVector<int64_t> split;
  if (n.opset < 13) {
    split = n.getInts("split");
  } else if (n.input(1)) {
    auto values = n.constantInts(1, "split");
    if (!values)
      return failure();
    split = *values;
  }
  if (split.empty()) {
    // Equal parts; from opset 18 the last may be smaller (num_outputs).
    int64_t chunk = (dim + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i)
      split.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  int64_t sum = 0;
  for (int64_t s : split)
    sum += s;
  if ((int64_t)split.size() != parts || sum != dim)
    return n.error() << "split sizes do not add up to dim " << dim << " over " << parts
                     << " outputs";
  int64_t offset = 0;
  for (int64_t i = 0; i < parts; ++i) {
    n.setResult(i, n.sliceAxis(n.input(0), *axis, offset, split[i]));
    offset += split[i];
  }
  return success();
}

/// ONNX Slice: starts/ends clamp into range, negative values count from the end, steps
/// may be negative. The result is normalized into (offset, size, step) per dim.
LogicalResult importSlice(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset < 10) {
    starts = n.getInts("starts");
    ends = n.getInts("ends");
    axes = n.getInts("axes");
  } else {
    auto s = n.constantInts(1, "starts"), e = n.constantInts(2, "ends");
    if (!s || !e)
      return failure();
    starts = *s;
    ends = *e;
    if (n.input(3)) {
      auto a = n.constantInts(3, "axes");
      if (!a)
        return failure();
      axes = *a;
    }
    if (n.input(4)) {
      auto st = n.constantInts(4, "steps");
      if (!st)
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return n.error() << "starts, ends, axes and steps differ in length";
  SmallVector<int64_t> offsets(rank, 0), sizes(xt.getShape()), strides(rank, 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    std::optional<int64_t> axis = n.normalizeAxis(axes[i], rank);
    if (!axis)
      return failure();
    int64_t dim = xt.getDimSize(*axis), step = steps[i];
    if (step == 0)
      return n.error() << "step 0 on axis " << *axis;
    int64_t start = starts[i], end = ends[i];
    if (start < 0)
      start += dim;
    if (end < 0)
      end += dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      sizes[*axis] = end > start ? (end - start + step - 1) / step : 0;
    } else {
      start = std::clamp<int64_t>(start, -1, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      sizes[*axis] = start > end ? (start - end + (-step) - 1) / (-step) : 0;
    }
    offsets[*axis] = sizes[*axis] ? start : 0;
    strides[*axis] = step;
  }
  n.setResult(0, n.create<SliceOp>(n.input(0), n.b.getDenseI64ArrayAttr(offsets),
                                   n.b.getDenseI64ArrayAttr(sizes),
                                   n.b.getDenseI64ArrayAttr(strides)));
  return success();
}

/// Axes of Squeeze/Unsqueeze: an attribute before opset 13, an input from 13.
std::optional<SmallVector<int64_t>> squeezeAxes(NodeImporter &n) {
  if (n.opset < 13)
    return n.getInts("axes");
  if (!n.input(1))
    return SmallVector<int64_t>();
  return n.constantInts(1, "axes");
}

LogicalResult importSqueeze(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  auto axes = squeezeAxes(n);
  if (!axes)
    return failure();
  SmallVector<bool> drop(xt.getRank(), false);
  if (axes->empty())
    for (int64_t d = 0; d < xt.getRank(); ++d)
      drop[d] = xt.getDimSize(d) == 1;
  for (int64_t a : *axes) {
    std::optional<int64_t> axis = n.normalizeAxis(a, xt.getRank());
    if (!axis)
      return failure();
    if (xt.getDimSize(*axis) != 1)
      return n.error() << "cannot squeeze dim " << *axis << " of size " << xt.getDimSize(*axis);
    drop[*axis] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < xt.getRank(); ++d)
    if (!drop[d])
      shape.push_back(xt.getDimSize(d));
  n.setResult(0, n.reshape(n.input(0), shape));
  return success();
}

LogicalResult importUnsqueeze(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  auto axes = squeezeAxes(n);
  if (!axes)
    return failure();
  int64_t rank = xt.getRank() + axes->size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t a : *axes) {
    std::optional<int64_t> axis = n.normalizeAxis(a, rank);
    if (!axis)
      return failure();
    if (inserted[*axis])
      return n.error() << "axis " << a << " repeats";
    inserted[*axis] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0, src = 0; d < rank; ++d)
    shape.push_back(inserted[d] ? 1 : xt.getDimSize(src++));
  n.setResult(0, n.reshape(n.input(0), shape));
  return success();
}

LogicalResult importGather(NodeImporter &n) {
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), n.inputType(0).getRank());
  if (!axis)
    return failure();
  Type it = n.inputType(1).getElementType();
  if (!it.isInteger(32) && !it.isInteger(64))
    return n.error() << "indices must be int32 or int64";
  if (DenseElementsAttr indices = n.constantInput(1)) {
    int64_t dim = n.inputType(0).getDimSize(*axis);
    for (APInt v : indices.getValues<APInt>())
      if (v.getSExtValue() < -dim || v.getSExtValue() >= dim)
        return n.error() << "index " << v.getSExtValue() << " is out of range for dim " << dim;
  }
  n.setResult(0, n.create<GatherOp>(n.input(0), n.input(1), n.b.getI64IntegerAttr(*axis)));
  return success();
}

LogicalResult importShape(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  Value shape = n.create<ShapeOp>(n.input(0));
  int64_t start = n.getInt("start", 0), end = n.getInt("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  if (start != 0 || end != rank)
    shape = n.sliceAxis(shape, 0, start, std::max<int64_t>(end - start, 0));
  n.setResult(0, shape);
  return success();
}

LogicalResult importSize(NodeImporter &n) {
  auto type = RankedTensorType::get({}, n.b.getI64Type());
  n.setResult(0,
              n.constant(DenseElementsAttr::get(type, APInt(64, n.inputType(0).getNumElements()))));
  return success();
}

/// Reads a TensorProto attribute (Constant's value, ConstantOfShape's value).
std::optional<DenseElementsAttr> tensorAttr(NodeImporter &n, const onnx::TensorProto &t) {
  Type et = onnxElementType(n.b.getContext(), t.data_type());
  if (!et) {
    n.error() << "unsupported dtype " << onnxDataTypeName(t.data_type());
    return std::nullopt;
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    n.error() << "external data in a node attribute is not supported";
    return std::nullopt;
  }
  std::string problem;
  FailureOr<DenseElementsAttr> attr = denseFromTensorProto(et, t, nullptr, problem);
  if (failed(attr)) {
    n.error() << "tensor attribute " << problem;
    return std::nullopt;
  }
  return *attr;
}

LogicalResult importConstant(NodeImporter &n) {
  MLIRContext *ctx = n.b.getContext();
  if (const onnx::AttributeProto *a = n.typedAttr("value", onnx::AttributeProto::TENSOR)) {
    auto attr = tensorAttr(n, a->t());
    if (!attr)
      return failure();
    n.setResult(0, n.constant(*attr));
  } else if (const onnx::AttributeProto *a =
                 n.typedAttr("value_float", onnx::AttributeProto::FLOAT)) {
    n.setResult(0, n.constant(DenseElementsAttr::get(
                       RankedTensorType::get({}, Float32Type::get(ctx)), a->f())));
  } else if (const onnx::AttributeProto *a =
                 n.typedAttr("value_floats", onnx::AttributeProto::FLOATS)) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    n.setResult(0, n.constant(DenseElementsAttr::get(
                       RankedTensorType::get({(int64_t)v.size()}, Float32Type::get(ctx)),
                       ArrayRef<float>(v))));
  } else if (const onnx::AttributeProto *a = n.typedAttr("value_int", onnx::AttributeProto::INT)) {
    n.setResult(0, n.constant(DenseElementsAttr::get(
                       RankedTensorType::get({}, IntegerType::get(ctx, 64)), a->i())));
  } else if (const onnx::AttributeProto *a =
                 n.typedAttr("value_ints", onnx::AttributeProto::INTS)) {
    SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
    n.setResult(0, n.constant(DenseElementsAttr::get(
                       RankedTensorType::get({(int64_t)v.size()}, IntegerType::get(ctx, 64)),
                       ArrayRef<int64_t>(v))));
  } else {
    return n.error() << "only tensor, float(s) and int(s) values are supported";
  }
  return success();
}

LogicalResult importConstantOfShape(NodeImporter &n) {
  auto shape = n.constantInts(0, "shape");
  if (!shape)
    return failure();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return n.error() << "shape has a negative dim";
  DenseElementsAttr value =
      DenseElementsAttr::get(RankedTensorType::get({1}, Float32Type::get(n.b.getContext())), 0.0f);
  if (const onnx::AttributeProto *a = n.typedAttr("value", onnx::AttributeProto::TENSOR)) {
    auto attr = tensorAttr(n, a->t());
    if (!attr)
      return failure();
    value = *attr;
  }
  if (value.getNumElements() != 1)
    return n.error() << "value must hold one element";
  auto type = RankedTensorType::get(*shape, value.getElementType());
  n.setResult(0, n.constant(DenseElementsAttr::get(type, *value.value_begin<Attribute>())));
  return success();
}

LogicalResult importExpand(NodeImporter &n) {
  auto shape = n.constantInts(1, "shape");
  if (!shape)
    return failure();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return n.error() << "shape has a negative dim";
  SmallVector<int64_t> result;
  if (failed(broadcastShapes(n.inputType(0).getShape(), *shape, result)))
    return n.error() << "cannot expand " << n.inputType(0) << " to the given shape";
  n.setResult(0, n.create<BroadcastOp>(
                     RankedTensorType::get(result, n.inputType(0).getElementType()), n.input(0)));
  return success();
}

/// HannWindow, HammingWindow, BlackmanWindow: a constant of `size` (which must fold)
/// entries w(n, N), N = size when periodic (the default), else size - 1.
template <typename Fn> ImportFn window(Fn w) {
  return [w](NodeImporter &n) -> LogicalResult {
    DenseElementsAttr sizeAttr = n.constantInput(0);
    if (!sizeAttr)
      return n.notConstant(0, "size");
    if (!sizeAttr.getElementType().isSignlessInteger() || sizeAttr.getNumElements() != 1)
      return n.error() << "size must be an int scalar";
    int64_t size = (*sizeAttr.getValues<APInt>().begin()).getSExtValue();
    if (size < 0)
      return n.error() << "size " << size << " is negative";
    if (!n.tableFits({size}, "a window"))
      return failure();
    Type et = onnxElementType(n.b.getContext(), n.getInt("output_datatype", 1));
    if (!et)
      return n.error() << "unsupported output_datatype";
    double period = n.getInt("periodic", 1) ? (double)size : (double)size - 1;
    SmallVector<double> values;
    for (int64_t i = 0; i < size; ++i)
      values.push_back(w((double)i, period));
    Value f64 = n.constant(DenseElementsAttr::get(RankedTensorType::get({size}, n.b.getF64Type()),
                                                  ArrayRef<double>(values)));
    n.setResult(0, n.castElements(f64, et));
    return success();
  };
}

LogicalResult importRange(NodeImporter &n) {
  DenseElementsAttr start = n.constantInput(0), limit = n.constantInput(1),
                    delta = n.constantInput(2);
  if (!start || !limit || !delta)
    return n.notConstant(!start   ? 0
                         : !limit ? 1
                                  : 2,
                         !start   ? "start"
                         : !limit ? "limit"
                                  : "delta");
  for (DenseElementsAttr a : {start, limit, delta})
    if (a.getNumElements() != 1)
      return n.error() << "start, limit and delta must be scalars, got " << a.getType();
  Type et = start.getElementType();
  auto scalar = [](DenseElementsAttr a) {
    return isa<FloatType>(a.getElementType())
               ? (*a.getValues<APFloat>().begin()).convertToDouble()
               : (double)(*a.getValues<APInt>().begin()).getSExtValue();
  };
  double s = scalar(start), l = scalar(limit), d = scalar(delta);
  if (d == 0)
    return n.error() << "delta is 0";
  double steps = std::ceil((l - s) / d);
  if (!std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d) || !std::isfinite(steps))
    return n.error() << "start, limit and delta must be finite";
  if (steps > (double)kMaxMaterializedElements)
    return n.error() << "makes " << steps << " elements, more than the " << kMaxMaterializedElements
                     << " the compiler builds";
  int64_t count = steps <= 0 ? 0 : (int64_t)steps;
  if (!isa<FloatType>(et) && (std::fabs(s) > 0x1p62 || std::fabs(l) > 0x1p62))
    return n.error() << "integer bounds beyond 2^62 are not supported";
  auto type = RankedTensorType::get({count}, et);
  if (isa<FloatType>(et)) {
    SmallVector<APFloat> v;
    for (int64_t i = 0; i < count; ++i) {
      APFloat f(s + i * d);
      bool lost;
      f.convert(cast<FloatType>(et).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      v.push_back(f);
    }
    n.setResult(0, n.constant(DenseElementsAttr::get(type, v)));
  } else {
    SmallVector<APInt> v;
    for (int64_t i = 0; i < count; ++i)
      v.push_back(APInt(et.getIntOrFloatBitWidth(), (uint64_t)(int64_t)(s + i * d), true));
    n.setResult(0, n.constant(DenseElementsAttr::get(type, v)));
  }
  return success();
}
} // namespace

void infc::registerShapeImporters(ImportRegistry &r) {
  r["Flatten"] = importFlatten;
  r["Reshape"] = importReshape;
  r["Transpose"] = importTranspose;
  r["Concat"] = importConcat;
  r["Split"] = importSplit;
  r["Slice"] = importSlice;
  r["Squeeze"] = importSqueeze;
  r["Unsqueeze"] = importUnsqueeze;
  r["Gather"] = importGather;
  r["Shape"] = importShape;
  r["Size"] = importSize;
  r["Constant"] = importConstant;
  r["ConstantOfShape"] = importConstantOfShape;
  r["Expand"] = importExpand;
  r["Range"] = importRange;
  r["HannWindow"] = window([](double i, double n) {
    double s = std::sin(M_PI * i / n);
    return s * s;
  });
  r["HammingWindow"] = window([](double i, double n) {
    return 25.0 / 46.0 - (1.0 - 25.0 / 46.0) * std::cos(2 * M_PI * i / n);
  });
  r["BlackmanWindow"] = window([](double i, double n) {
    return 0.42 - 0.5 * std::cos(2 * M_PI * i / n) + 0.08 * std::cos(4 * M_PI * i / n);
  });
}

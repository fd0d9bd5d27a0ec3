//===- InfcOps.cpp - infc type inference and verifiers --------------------===//
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace infc;

LogicalResult infc::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                                    SmallVectorImpl<int64_t> &result) {
  size_t rank = std::max(a.size(), b.size());
  result.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    bool dynA = ShapedType::isDynamic(da), dynB = ShapedType::isDynamic(db);
    if (!dynA && !dynB && da != db && da != 1 && db != 1)
      return failure();
    // `?` against 1 stays `?`; against a static n > 1 it can only be 1 or n, so n (the run
    // checks the `?`); two `?`s are one `?` of the larger.
    if (da == 1)
      result[i] = db;
    else if (db == 1)
      result[i] = da;
    else
      result[i] = dynA ? db : da;
  }
  return success();
}

int64_t infc::windowOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t padBegin,
                               int64_t padEnd, int64_t dilation, bool ceilMode) {
  if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel))
    return ShapedType::kDynamic;
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t numer = in + padBegin + padEnd - span;
  if (numer < 0)
    return 0;
  int64_t out = (ceilMode ? (numer + stride - 1) / stride : numer / stride) + 1;
  // ONNX: with ceil_mode, a last window that starts inside the end padding is dropped.
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

static RankedTensorType rankedType(Value v) { return cast<RankedTensorType>(v.getType()); }

static bool isBooleanResultOp(StringRef name) {
  return name == "infc.equal" || name == "infc.less" || name == "infc.greater";
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location>, Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto type = rankedType(adaptor.getInput());
  types.push_back(RankedTensorType::get({type.getRank()}, IntegerType::get(ctx, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult BitcastOp::verify() {
  Type from = getInput().getType().getElementType(), to = getType().getElementType();
  auto storedBits = [](Type t) -> unsigned {
    if (!t.isIntOrFloat())
      return 0;
    return t.isInteger(1) ? 8 : t.getIntOrFloatBitWidth();
  };
  unsigned fromBits = storedBits(from), toBits = storedBits(to);
  if (fromBits < 8 || toBits < 8)
    return emitOpError("expects integer or float element types of 8 bits or more, got ")
           << from << " and " << to;
  if (fromBits != toBits)
    return emitOpError("expects element types of one width, got ") << from << " and " << to;
  if (to.isInteger(1) && !from.isInteger(1))
    return emitOpError("cannot read ") << from << " as i1: a byte may hold other values";
  return success();
}

LogicalResult ClipOp::verify() {
  if (getMin().convertToDouble() > getMax().convertToDouble())
    return emitOpError("expects min <= max, got ")
           << getMin().convertToDouble() << " > " << getMax().convertToDouble();
  return success();
}

/// Shared by the binary ops: broadcast shape, lhs element type (i1 for comparisons).
static LogicalResult inferBinary(StringRef opName, std::optional<Location> loc, Value lhs,
                                 Value rhs, SmallVectorImpl<Type> &types) {
  auto lt = rankedType(lhs), rt = rankedType(rhs);
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(lt.getShape(), rt.getShape(), shape)))
    return emitOptionalError(loc, "operand shapes ", lt, " and ", rt, " do not broadcast");
  Type elementType = lt.getElementType();
  if (isBooleanResultOp(opName))
    elementType = IntegerType::get(lhs.getContext(), 1);
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

static LogicalResult verifyBinary(Operation *op) {
  auto lt = rankedType(op->getOperand(0)), rt = rankedType(op->getOperand(1));
  if (lt.getElementType() != rt.getElementType())
    return op->emitOpError("expects operands of one element type, got ")
           << lt.getElementType() << " and " << rt.getElementType();
  StringRef name = op->getName().getStringRef();
  if ((name == "infc.and" || name == "infc.or" || name == "infc.xor") &&
      !isa<IntegerType>(lt.getElementType()))
    return op->emitOpError("expects integer or i1 operands, got ") << lt.getElementType();
  if ((name == "infc.shift_left" || name == "infc.shift_right") &&
      (!isa<IntegerType>(lt.getElementType()) || lt.getElementType().isInteger(1)))
    return op->emitOpError("expects integer operands, got ") << lt.getElementType();
  return success();
}

#define INFC_BINARY_OP(OP)                                                                         \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,  \
                                     SmallVectorImpl<Type> &types) {                               \
    return inferBinary(getOperationName(), loc, adaptor.getLhs(), adaptor.getRhs(), types);        \
  }                                                                                                \
  LogicalResult OP::verify() { return verifyBinary(getOperation()); }
INFC_BINARY_OP(AddOp)
INFC_BINARY_OP(SubOp)
INFC_BINARY_OP(MulOp)
INFC_BINARY_OP(DivOp)
INFC_BINARY_OP(PowOp)
INFC_BINARY_OP(MaxOp)
INFC_BINARY_OP(MinOp)
INFC_BINARY_OP(AndOp)
INFC_BINARY_OP(OrOp)
INFC_BINARY_OP(XorOp)
INFC_BINARY_OP(EqualOp)
INFC_BINARY_OP(LessOp)
INFC_BINARY_OP(GreaterOp)
INFC_BINARY_OP(RemOp)
INFC_BINARY_OP(ShiftLeftOp)
INFC_BINARY_OP(ShiftRightOp)
#undef INFC_BINARY_OP

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> s1, s2;
  auto ct = rankedType(adaptor.getCondition()), lt = rankedType(adaptor.getLhs()),
       rt = rankedType(adaptor.getRhs());
  if (failed(broadcastShapes(ct.getShape(), lt.getShape(), s1)) ||
      failed(broadcastShapes(s1, rt.getShape(), s2)))
    return emitOptionalError(loc, "operand shapes do not broadcast");
  types.push_back(RankedTensorType::get(s2, lt.getElementType()));
  return success();
}

LogicalResult WhereOp::verify() {
  if (rankedType(getLhs()).getElementType() != rankedType(getRhs()).getElementType())
    return emitOpError("expects lhs and rhs of one element type");
  return success();
}

//===----------------------------------------------------------------------===//
// MatMul, Conv, pooling
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto lt = rankedType(adaptor.getLhs()), rt = rankedType(adaptor.getRhs());
  if (lt.getRank() < 2 || rt.getRank() < 2)
    return emitOptionalError(loc, "expects operands of rank >= 2");
  ArrayRef<int64_t> ls = lt.getShape(), rs = rt.getShape();
  int64_t lk = ls.back(), rk = rs[rs.size() - 2];
  if (lk != rk && !ShapedType::isDynamic(lk) && !ShapedType::isDynamic(rk))
    return emitOptionalError(loc, "contracting dims differ: ", lt, " x ", rt);
  SmallVector<int64_t> batch;
  if (failed(broadcastShapes(ls.drop_back(2), rs.drop_back(2), batch)))
    return emitOptionalError(loc, "batch dims do not broadcast: ", lt, " x ", rt);
  batch.push_back(ls[ls.size() - 2]);
  batch.push_back(rs.back());
  types.push_back(RankedTensorType::get(batch, lt.getElementType()));
  return success();
}

LogicalResult MatMulOp::verify() {
  if (rankedType(getLhs()).getElementType() != rankedType(getRhs()).getElementType())
    return emitOpError("expects operands of one element type");
  return success();
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto it = rankedType(adaptor.getInput()), wt = rankedType(adaptor.getWeight());
  if (it.getRank() != 4 || wt.getRank() != 4)
    return emitOptionalError(loc, "expects a rank-4 NCHW input and FCHW weight");
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations();
  if (strides.size() != 2 || pads.size() != 4 || dilations.size() != 2)
    return emitOptionalError(loc, "expects 2 strides, 4 pads and 2 dilations");
  bool last = adaptor.getChannelsLast();
  int64_t spatial = last ? 1 : 2;
  SmallVector<int64_t> shape = {it.getDimSize(0)};
  if (!last)
    shape.push_back(wt.getDimSize(0));
  for (int d = 0; d < 2; ++d)
    shape.push_back(windowOutputSize(it.getDimSize(spatial + d), wt.getDimSize(2 + d), strides[d],
                                     pads[d], pads[d + 2], dilations[d], false));
  if (last)
    shape.push_back(wt.getDimSize(0));
  types.push_back(RankedTensorType::get(shape, it.getElementType()));
  return success();
}

CastOp ConvOp::getCastFromBytes() {
  auto cast = getInput().getDefiningOp<CastOp>();
  if (!cast || !getElementTypeOrSelf(getType()).isInteger(32) ||
      !getElementTypeOrSelf(cast.getInput().getType()).isInteger(8))
    return nullptr;
  return cast;
}

LogicalResult ConvOp::verify() {
  auto it = rankedType(getInput()), wt = rankedType(getWeight());
  int64_t group = getGroup(), channels = it.getDimSize(getChannelsLast() ? 3 : 1);
  // Batch and image sizes may vary; what the weights fix may not.
  if (ShapedType::isDynamic(channels) || !wt.hasStaticShape())
    return emitOpError("expects static channel counts and a static weight shape, got ")
           << it << " and " << wt;
  if (group < 1 || channels % group || wt.getDimSize(0) % group)
    return emitOpError("expects group to divide the channel counts, got group ") << group;
  if (channels / group != wt.getDimSize(1))
    return emitOpError("expects weight dim 1 (")
           << wt.getDimSize(1) << ") to be input channels / group (" << channels / group << ")";
  if (wt.getElementType() != it.getElementType() ||
      (getBias() && rankedType(getBias()).getElementType() != it.getElementType()))
    return emitOpError("expects input, weight and bias of one element type");
  if (getBias() && rankedType(getBias()).getShape() != ArrayRef<int64_t>{wt.getDimSize(0)})
    return emitOpError("expects a bias of shape [") << wt.getDimSize(0) << "]";
  if (llvm::any_of(getStrides(), [](int64_t s) { return s < 1; }) ||
      llvm::any_of(getDilations(), [](int64_t s) { return s < 1; }) ||
      llvm::any_of(getPads(), [](int64_t s) { return s < 0; }))
    return emitOpError("expects positive strides and dilations and non-negative pads");
  return success();
}

template <typename PoolOp>
static LogicalResult inferPool(std::optional<Location> loc, typename PoolOp::Adaptor adaptor,
                               SmallVectorImpl<Type> &types) {
  auto it = rankedType(adaptor.getInput());
  ArrayRef<int64_t> kernel = adaptor.getKernel(), strides = adaptor.getStrides(),
                    pads = adaptor.getPads(), dilations = adaptor.getDilations();
  if (it.getRank() != 4 || kernel.size() != 2 || strides.size() != 2 || pads.size() != 4 ||
      dilations.size() != 2)
    return emitOptionalError(loc, "expects NCHW input, 2 kernel dims, 2 strides, 4 pads, "
                                  "2 dilations");
  bool last = adaptor.getChannelsLast();
  int64_t spatial = last ? 1 : 2, channels = last ? 3 : 1;
  SmallVector<int64_t> shape = {it.getDimSize(0)};
  if (!last)
    shape.push_back(it.getDimSize(channels));
  for (int d = 0; d < 2; ++d)
    shape.push_back(windowOutputSize(it.getDimSize(spatial + d), kernel[d], strides[d], pads[d],
                                     pads[d + 2], dilations[d], adaptor.getCeilMode()));
  if (last)
    shape.push_back(it.getDimSize(channels));
  types.push_back(RankedTensorType::get(shape, it.getElementType()));
  return success();
}

template <typename PoolOp> static LogicalResult verifyPool(PoolOp op) {
  ArrayRef<int64_t> kernel = op.getKernel(), pads = op.getPads();
  for (int d = 0; d < 2; ++d)
    if (pads[d] >= kernel[d] || pads[d + 2] >= kernel[d])
      return op.emitOpError("expects pads smaller than the kernel");
  if (llvm::any_of(op.getStrides(), [](int64_t s) { return s < 1; }) ||
      llvm::any_of(op.getDilations(), [](int64_t s) { return s < 1; }) ||
      llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return op.emitOpError("expects positive strides and dilations and non-negative pads");
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &types) {
  return inferPool<MaxPoolOp>(loc, adaptor, types);
}
LogicalResult MaxPoolOp::verify() { return verifyPool(*this); }
LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &types) {
  return inferPool<AvgPoolOp>(loc, adaptor, types);
}
LogicalResult AvgPoolOp::verify() { return verifyPool(*this); }

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

template <typename ReduceOp>
static LogicalResult inferReduce(std::optional<Location> loc, typename ReduceOp::Adaptor adaptor,
                                 SmallVectorImpl<Type> &types) {
  auto it = rankedType(adaptor.getInput());
  SmallVector<bool> reduced(it.getRank(), false);
  for (int64_t axis : adaptor.getAxes()) {
    if (axis < 0 || axis >= it.getRank() || reduced[axis])
      return emitOptionalError(loc, "expects distinct axes in [0, ", it.getRank(), ")");
    reduced[axis] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < it.getRank(); ++d) {
    if (!reduced[d])
      shape.push_back(it.getDimSize(d));
    else if (adaptor.getKeepdims())
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, it.getElementType()));
  return success();
}

#define INFC_REDUCE_OP(OP)                                                                         \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,  \
                                     SmallVectorImpl<Type> &types) {                               \
    return inferReduce<OP>(loc, adaptor, types);                                                   \
  }                                                                                                \
  LogicalResult OP::verify() {                                                                     \
    SmallVector<Type> types;                                                                       \
    return inferReduce<OP>(getLoc(), Adaptor(*this), types);                                       \
  }
INFC_REDUCE_OP(ReduceSumOp)
INFC_REDUCE_OP(ReduceMeanOp)
INFC_REDUCE_OP(ReduceMaxOp)
INFC_REDUCE_OP(ReduceMinOp)
INFC_REDUCE_OP(ReduceProdOp)
#undef INFC_REDUCE_OP

/// arg_max / arg_min: the input shape without `axis` (size 1 with keepdims), i64.
static LogicalResult inferArgReduce(std::optional<Location> loc, Value input, int64_t axis,
                                    bool keepdims, SmallVectorImpl<Type> &types) {
  auto it = rankedType(input);
  if (axis < 0 || axis >= it.getRank())
    return emitOptionalError(loc, "expects axis in [0, ", it.getRank(), "), got ", axis);
  SmallVector<int64_t> shape(it.getShape());
  if (keepdims)
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  types.push_back(RankedTensorType::get(shape, IntegerType::get(input.getContext(), 64)));
  return success();
}

#define INFC_ARG_REDUCE_OP(OP)                                                                     \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,  \
                                     SmallVectorImpl<Type> &types) {                               \
    return inferArgReduce(loc, adaptor.getInput(), adaptor.getAxis(), adaptor.getKeepdims(),       \
                          types);                                                                  \
  }                                                                                                \
  LogicalResult OP::verify() {                                                                     \
    SmallVector<Type> types;                                                                       \
    if (failed(inferArgReduce(getLoc(), getInput(), getAxis(), getKeepdims(), types)))             \
      return failure();                                                                            \
    if (rankedType(getInput()).getElementType().isInteger(1))                                      \
      return emitOpError("expects a numeric input, got i1");                                       \
    return success();                                                                              \
  }
INFC_ARG_REDUCE_OP(ArgMaxOp)
INFC_ARG_REDUCE_OP(ArgMinOp)
#undef INFC_ARG_REDUCE_OP

LogicalResult SoftmaxOp::verify() {
  int64_t rank = rankedType(getInput()).getRank();
  int64_t axis = (int64_t)getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError("expects axis in [0, ") << rank << "), got " << axis;
  return success();
}

LogicalResult LayerNormOp::verify() {
  auto it = rankedType(getInput());
  int64_t axis = (int64_t)getAxis();
  if (axis < 0 || axis >= it.getRank())
    return emitOpError("expects axis in [0, ") << it.getRank() << "), got " << axis;
  for (Value v : {getScale(), getBias()})
    if (v && rankedType(v).getElementType() != it.getElementType())
      return emitOpError("expects scale and bias of the input's element type");
  if (rankedType(getResult()) != it)
    return emitOpError("expects the result type to equal the input type");
  ArrayRef<int64_t> normShape = it.getShape().drop_front(getAxis());
  SmallVector<int64_t> bcast;
  for (Value v : {getScale(), getBias()}) {
    if (!v)
      continue;
    if (failed(broadcastShapes(normShape, rankedType(v).getShape(), bcast)) ||
        ArrayRef<int64_t>(bcast) != normShape)
      return emitOpError("expects scale and bias to broadcast to the normalized shape");
  }
  return success();
}

LogicalResult PagedAttentionOp::verify() {
  auto qt = rankedType(getQuery()), kt = rankedType(getKey()), vt = rankedType(getValue());
  if (qt.getRank() != 4 || kt.getRank() != 4 || vt.getRank() != 4)
    return emitOpError("expects query, key and value of rank 4 ([1, heads, rows, head_dim])");
  if (kt != vt)
    return emitOpError("expects key and value of one type");
  if (rankedType(getResult()) != qt)
    return emitOpError("expects the result type to equal the query's");
  int64_t heads = qt.getDimSize(1), kvHeads = kt.getDimSize(1);
  if (qt.getDimSize(0) != 1 || kt.getDimSize(0) != 1)
    return emitOpError("expects one batch row (the step's rows are dim 2)");
  if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads) || kvHeads <= 0 ||
      heads % kvHeads != 0)
    return emitOpError("expects static head counts, the query's a multiple of the key's, got ")
           << heads << " and " << kvHeads;
  if (ShapedType::isDynamic(qt.getDimSize(3)) || qt.getDimSize(3) != kt.getDimSize(3))
    return emitOpError("expects one static head_dim for query and key");
  if (qt.getDimSize(2) != kt.getDimSize(2))
    return emitOpError("expects query and key of the same rows");
  if ((int64_t)getLayer() < 0 || !(getScale().convertToDouble() > 0))
    return emitOpError("expects a layer >= 0 and a positive scale");
  return success();
}

LogicalResult DecoderLogitsOp::verify() {
  auto ht = rankedType(getHidden()), wt = rankedType(getWeight()), rt = rankedType(getResult());
  if (ht.getRank() != 3 || wt.getRank() != 2 || rt.getRank() != 3)
    return emitOpError("expects hidden [1, rows, H], weight [H, V] and a result [1, rows, V]");
  if (ht.getDimSize(0) != 1 || rt.getDimSize(0) != 1 || ht.getDimSize(1) != rt.getDimSize(1))
    return emitOpError("expects one batch row and the hidden rows' count in the result");
  if (!wt.hasStaticShape() || ht.isDynamicDim(2) || ht.getDimSize(2) != wt.getDimSize(0) ||
      rt.getDimSize(2) != wt.getDimSize(1))
    return emitOpError("expects a static weight [H, V] whose H is hidden's and V the result's");
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto it = rankedType(getInput()), rt = rankedType(getResult());
  if (it.getElementType() != rt.getElementType())
    return emitOpError("expects one element type");
  if (!it.hasStaticShape() || !rt.hasStaticShape()) {
    // Generic code has one symbolic dim, which every `?` stands for: the element counts
    // agree when both sides have as many `?`s and the same product of the others.
    auto staticProduct = [](RankedTensorType t) {
      int64_t p = 1;
      for (int64_t d : t.getShape())
        p *= ShapedType::isDynamic(d) ? 1 : d;
      return p;
    };
    if (it.getNumDynamicDims() != rt.getNumDynamicDims() || staticProduct(it) != staticProduct(rt))
      return emitOpError("expects the same number of elements, got ") << it << " and " << rt;
    return success();
  }
  if (it.getNumElements() != rt.getNumElements())
    return emitOpError("expects the same number of elements, got ")
           << it.getNumElements() << " and " << rt.getNumElements();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto it = rankedType(getInput()), rt = rankedType(getResult());
  SmallVector<int64_t> shape;
  if (it.getElementType() != rt.getElementType())
    return emitOpError("expects one element type");
  if (failed(broadcastShapes(it.getShape(), rt.getShape(), shape)) ||
      ArrayRef<int64_t>(shape) != rt.getShape())
    return emitOpError("cannot broadcast ") << it << " to " << rt;
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto it = rankedType(adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if ((int64_t)perm.size() != it.getRank())
    return emitOptionalError(loc, "expects a permutation of rank ", it.getRank());
  SmallVector<int64_t> shape;
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= it.getRank() || seen[p])
      return emitOptionalError(loc, "expects a permutation of [0, ", it.getRank(), ")");
    seen[p] = true;
    shape.push_back(it.getDimSize(p));
  }
  types.push_back(RankedTensorType::get(shape, it.getElementType()));
  return success();
}

LogicalResult TransposeOp::verify() {
  SmallVector<Type> types;
  return inferReturnTypes(getContext(), getLoc(), Adaptor(*this), types);
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &types) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "expects at least one input");
  auto first = rankedType(adaptor.getInputs()[0]);
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= first.getRank())
    return emitOptionalError(loc, "expects axis in [0, ", first.getRank(), ")");
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value v : adaptor.getInputs()) {
    auto t = rankedType(v);
    if (t.getRank() != first.getRank() || t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "expects inputs of one rank and element type");
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (d == axis)
        continue;
      // Where one input's dim is `?`, another's static size says what it must be.
      int64_t size = t.getDimSize(d);
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = size;
      else if (!ShapedType::isDynamic(size) && size != shape[d])
        return emitOptionalError(loc, "expects inputs to agree on dim ", d);
    }
    int64_t size = t.getDimSize(axis);
    shape[axis] = ShapedType::isDynamic(shape[axis]) || ShapedType::isDynamic(size)
                      ? ShapedType::kDynamic
                      : shape[axis] + size;
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult ConcatOp::verify() {
  SmallVector<Type> types;
  return inferReturnTypes(getContext(), getLoc(), Adaptor(*this), types);
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto it = rankedType(adaptor.getInput());
  if ((int64_t)adaptor.getSizes().size() != it.getRank())
    return emitOptionalError(loc, "expects one size per dim");
  types.push_back(RankedTensorType::get(adaptor.getSizes(), it.getElementType()));
  return success();
}

LogicalResult SliceOp::verify() {
  auto it = rankedType(getInput());
  ArrayRef<int64_t> offsets = getOffsets(), sizes = getSizes(), steps = getSteps();
  if ((int64_t)offsets.size() != it.getRank() || (int64_t)sizes.size() != it.getRank() ||
      (int64_t)steps.size() != it.getRank())
    return emitOpError("expects offsets, sizes and steps of rank ") << it.getRank();
  for (int64_t d = 0; d < it.getRank(); ++d) {
    // A `?` size is the symbolic dim's run-time size (a slice of its first entries, from
    // importGeneralized, which checked it in bounds at the range's largest size).
    if (ShapedType::isDynamic(sizes[d]) && steps[d] != 0)
      continue;
    if (steps[d] == 0 || sizes[d] < 0)
      return emitOpError("expects non-zero steps and non-negative sizes (dim ") << d << ")";
    if (sizes[d] == 0)
      continue;
    int64_t last = offsets[d] + (sizes[d] - 1) * steps[d];
    if (offsets[d] < 0 || last < 0)
      return emitOpError("slice out of bounds in dim ") << d;
    if (!it.isDynamicDim(d) && (offsets[d] >= it.getDimSize(d) || last >= it.getDimSize(d)))
      return emitOpError("slice out of bounds in dim ") << d;
  }
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto dt = rankedType(adaptor.getData()), it = rankedType(adaptor.getIndices());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= dt.getRank())
    return emitOptionalError(loc, "expects axis in [0, ", dt.getRank(), ")");
  SmallVector<int64_t> shape(dt.getShape().take_front(axis));
  llvm::append_range(shape, it.getShape());
  llvm::append_range(shape, dt.getShape().drop_front(axis + 1));
  types.push_back(RankedTensorType::get(shape, dt.getElementType()));
  return success();
}

LogicalResult GatherOp::verify() {
  SmallVector<Type> types;
  return inferReturnTypes(getContext(), getLoc(), Adaptor(*this), types);
}

//===----------------------------------------------------------------------===//
// Result types against the inferred ones
//===----------------------------------------------------------------------===//

/// A result type may leave a dim the inference knows as `?` (a placeholder that
/// -infc-shape-inference refines), never claim a size the inference cannot see or another
/// element type.
static bool compatibleResults(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [want, have] : llvm::zip(inferred, actual)) {
    auto w = dyn_cast<RankedTensorType>(want), h = dyn_cast<RankedTensorType>(have);
    if (!w || !h) {
      if (want != have)
        return false;
      continue;
    }
    if (w.getElementType() != h.getElementType() || w.getRank() != h.getRank())
      return false;
    for (auto [a, b] : llvm::zip(w.getShape(), h.getShape()))
      if (a != b && !ShapedType::isDynamic(b))
        return false;
  }
  return true;
}

#define INFC_COMPATIBLE_RESULTS(OP)                                                                \
  bool OP::isCompatibleReturnTypes(TypeRange inferred, TypeRange actual) {                         \
    return compatibleResults(inferred, actual);                                                    \
  }
INFC_COMPATIBLE_RESULTS(AddOp)
INFC_COMPATIBLE_RESULTS(AndOp)
INFC_COMPATIBLE_RESULTS(ArgMaxOp)
INFC_COMPATIBLE_RESULTS(ArgMinOp)
INFC_COMPATIBLE_RESULTS(AvgPoolOp)
INFC_COMPATIBLE_RESULTS(ConcatOp)
INFC_COMPATIBLE_RESULTS(ConvOp)
INFC_COMPATIBLE_RESULTS(DivOp)
INFC_COMPATIBLE_RESULTS(EqualOp)
INFC_COMPATIBLE_RESULTS(GatherOp)
INFC_COMPATIBLE_RESULTS(GreaterOp)
INFC_COMPATIBLE_RESULTS(LessOp)
INFC_COMPATIBLE_RESULTS(MatMulOp)
INFC_COMPATIBLE_RESULTS(MaxOp)
INFC_COMPATIBLE_RESULTS(MaxPoolOp)
INFC_COMPATIBLE_RESULTS(MinOp)
INFC_COMPATIBLE_RESULTS(MulOp)
INFC_COMPATIBLE_RESULTS(OrOp)
INFC_COMPATIBLE_RESULTS(PadOp)
INFC_COMPATIBLE_RESULTS(PowOp)
INFC_COMPATIBLE_RESULTS(ReduceMaxOp)
INFC_COMPATIBLE_RESULTS(ReduceMeanOp)
INFC_COMPATIBLE_RESULTS(ReduceMinOp)
INFC_COMPATIBLE_RESULTS(ReduceProdOp)
INFC_COMPATIBLE_RESULTS(ReduceSumOp)
INFC_COMPATIBLE_RESULTS(RemOp)
INFC_COMPATIBLE_RESULTS(ShapeOp)
INFC_COMPATIBLE_RESULTS(ShiftLeftOp)
INFC_COMPATIBLE_RESULTS(ShiftRightOp)
INFC_COMPATIBLE_RESULTS(SliceOp)
INFC_COMPATIBLE_RESULTS(SubOp)
INFC_COMPATIBLE_RESULTS(TopKOp)
INFC_COMPATIBLE_RESULTS(TransposeOp)
INFC_COMPATIBLE_RESULTS(WhereOp)
INFC_COMPATIBLE_RESULTS(XorOp)
#undef INFC_COMPATIBLE_RESULTS

#define GET_OP_CLASSES
#include "infc/Dialect/Infc/IR/InfcOps.cpp.inc"

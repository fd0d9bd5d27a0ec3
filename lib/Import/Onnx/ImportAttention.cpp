//===- ImportAttention.cpp - Attention and RotaryEmbedding as infc compositions ===//
//
// Follows the ONNX reference (onnx/reference/ops/op_attention.py) step by step: 3-D inputs
// split into heads, the past cache concatenated, an additive bias from the mask, causal
// frontier, sliding window and key padding, grouped-query heads repeated, then
// softmax(Q·s × (K·s)^T + bias) × V. Rows with no attendable key give 0, as the spec says.
// Constant parts (the usual causal mask) fold at import.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace infc;

Value infc::splitHeads(NodeImporter &n, Value v, int64_t heads) {
  auto s = shapeOf(v);
  v = n.reshape(v, {s[0], s[1], heads, s[2] / heads});
  return n.create<TransposeOp>(v, n.b.getDenseI64ArrayAttr({0, 2, 1, 3}));
}

Value infc::iota(NodeImporter &n, ArrayRef<int64_t> shape, int64_t size) {
  auto type = RankedTensorType::get(shape, n.b.getI64Type());
  // A constant this large would be built in the compiler's memory: refused, with zeros of
  // the shape (a splat costs nothing) for the importer to return with.
  if (!n.tableFits({size}, "an index constant"))
    return n.constant(SplatElementsAttr::get(type, n.b.getI64IntegerAttr(0)));
  SmallVector<int64_t> values = llvm::to_vector(llvm::seq<int64_t>(0, size));
  return n.constant(DenseElementsAttr::get(type, ArrayRef<int64_t>(values)));
}

namespace {
LogicalResult importAttention(NodeImporter &n) {
  RankedTensorType qt = n.inputType(0);
  Type et = qt.getElementType();
  if (!isa<FloatType>(et))
    return n.error() << "expects float Q, K and V, got " << et;
  int64_t rank = qt.getRank();
  if (rank != 3 && rank != 4)
    return n.error() << "expects 3-D or 4-D Q, K and V, got " << qt;
  Value q = n.input(0), k = n.input(1), v = n.input(2);
  Value mask = n.input(3), pastKey = n.input(4), pastValue = n.input(5);
  Value nonpad = n.input(6);
  if (!!pastKey != !!pastValue)
    return n.error() << "past_key and past_value must be given together";
  if (nonpad && pastKey)
    return n.error() << "nonpad_kv_seqlen cannot be combined with a past cache";
  if (rank == 3) {
    int64_t qHeads = n.getInt("q_num_heads", 0), kvHeads = n.getInt("kv_num_heads", 0);
    if (qHeads <= 0 || kvHeads <= 0)
      return n.error() << "3-D inputs need q_num_heads and kv_num_heads";
    q = splitHeads(n, q, qHeads);
    k = splitHeads(n, k, kvHeads);
    v = splitHeads(n, v, kvHeads);
  }
  int64_t batch = shapeOf(q)[0], qHeads = shapeOf(q)[1], sq = shapeOf(q)[2],
          headSize = shapeOf(q)[3];
  double scale = n.hasAttr("scale") ? n.getFloat("scale", 1.0) : 1.0 / std::sqrt((double)headSize);
  // The reference rounds sqrt(scale) to the input type and scales Q and K by it.
  Value s = n.scalarLike(q, std::sqrt(scale));

  auto cat = n.b.getI64IntegerAttr(2);
  if (pastKey) {
    k = n.create<ConcatOp>(ValueRange{pastKey, k}, cat);
    v = n.create<ConcatOp>(ValueRange{pastValue, v}, cat);
  }
  if (n.outputUsed(1))
    n.setResult(1, k);
  if (n.outputUsed(2))
    n.setResult(2, v);
  int64_t skv = shapeOf(k)[2], kvHeads = shapeOf(k)[1];

  // The additive bias, broadcasting to [batch, heads, sq, skv].
  double inf = std::numeric_limits<double>::infinity();
  Value zero = n.scalarLike(q, 0.0), negInf = n.scalarLike(q, -inf);
  Value zeros = n.create<BroadcastOp>(RankedTensorType::get({sq, skv}, et), zero);
  auto toBias = [&](Value allowed) { return n.create<WhereOp>(allowed, zero, negInf); };
  if (mask) {
    RankedTensorType mt = cast<RankedTensorType>(mask.getType());
    if (mt.getDimSize(mt.getRank() - 1) < skv) { // a short mask is padded with "masked"
      SmallVector<int64_t> low(mt.getRank(), 0), high(mt.getRank(), 0);
      high.back() = skv - mt.getDimSize(mt.getRank() - 1);
      Value fill = mt.getElementType().isInteger(1)
                       ? n.constant(DenseElementsAttr::get(
                             RankedTensorType::get({}, n.b.getI1Type()), false))
                       : negInf;
      mask = n.create<PadOp>(mask, fill, n.b.getDenseI64ArrayAttr(low),
                             n.b.getDenseI64ArrayAttr(high), n.b.getStringAttr("constant"));
    }
    if (cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1))
      mask = toBias(mask);
    else if (getElementTypeOrSelf(mask.getType()) != et)
      mask = n.castElements(mask, et);
  }
  Value bias = mask ? n.create<AddOp>(zeros, mask) : zeros;
  // The key offset of query 0: the past length, or per batch nonpad_kv_seqlen - sq.
  Value offset; // [batch, 1, 1] i64, or null for a constant
  int64_t constOffset = pastKey ? shapeOf(pastKey)[2] : 0;
  if (nonpad)
    offset = n.reshape(
        n.create<SubOp>(n.castElements(nonpad, n.b.getI64Type()),
                        n.scalarLike(n.castElements(nonpad, n.b.getI64Type()), (double)sq)),
        {batch, 1, 1});
  Value i = iota(n, {sq, 1}, sq), j = iota(n, {1, skv}, skv);
  // position of query i minus key j: [sq, skv], or [batch, sq, skv] per batch.
  Value diff = n.create<SubOp>(
      n.create<AddOp>(i, offset ? offset : n.scalarLike(i, (double)constOffset)), j);
  auto perBatch = [&](Value b) {
    auto bs = shapeOf(b);
    return bs.size() == 3 ? n.reshape(b, {bs[0], 1, bs[1], bs[2]}) : b;
  };
  Value zeroI = n.scalarLike(diff, 0.0);
  if (n.getInt("is_causal", 0))
    bias = n.create<AddOp>(bias, perBatch(toBias(n.create<NotOp>(n.create<LessOp>(diff, zeroI)))));
  int64_t left = n.getInt("left_window_size", -1), right = n.getInt("right_window_size", -1);
  if (left >= 0 || right >= 0) {
    Value allowed = n.create<EqualOp>(diff, diff); // all true
    if (left >= 0)
      allowed = n.create<AndOp>(
          allowed, n.create<NotOp>(n.create<GreaterOp>(diff, n.scalarLike(diff, (double)left))));
    if (right >= 0)
      allowed = n.create<AndOp>(
          allowed, n.create<NotOp>(n.create<LessOp>(diff, n.scalarLike(diff, (double)-right))));
    bias = n.create<AddOp>(bias, perBatch(toBias(allowed)));
  }
  if (nonpad) {
    Value lens = n.reshape(n.castElements(nonpad, n.b.getI64Type()), {batch, 1, 1, 1});
    bias = n.create<AddOp>(bias, toBias(n.create<LessOp>(n.reshape(j, {1, 1, 1, skv}), lens)));
  }

  // Grouped-query attention: each K/V head serves qHeads / kvHeads query heads in a row.
  if (qHeads != kvHeads && qHeads % kvHeads == 0) {
    int64_t reps = qHeads / kvHeads;
    auto repeat = [&](Value x) {
      auto xs = shapeOf(x);
      Value e = n.reshape(x, {xs[0], xs[1], 1, xs[2], xs[3]});
      e = n.create<BroadcastOp>(RankedTensorType::get({xs[0], xs[1], reps, xs[2], xs[3]}, et), e);
      return n.reshape(e, {xs[0], xs[1] * reps, xs[2], xs[3]});
    };
    k = repeat(k);
    v = repeat(v);
  } else if (qHeads != kvHeads) {
    return n.error() << "q_num_heads " << qHeads << " is not a multiple of kv_num_heads "
                     << kvHeads;
  }

  Value kt = n.create<TransposeOp>(n.create<MulOp>(k, s), n.b.getDenseI64ArrayAttr({0, 1, 3, 2}));
  Value qk = n.matmul(n.create<MulOp>(q, s), kt);
  if (double softcap = n.getFloat("softcap", 0.0); softcap > 0)
    qk = n.create<MulOp>(n.create<TanhOp>(n.create<DivOp>(qk, n.scalarLike(qk, softcap))),
                         n.scalarLike(qk, softcap));
  Value withBias = n.create<AddOp>(qk, bias);
  int64_t mode = n.getInt("qk_matmul_output_mode", 0);
  Value logits = withBias;
  if (int64_t precision = n.getInt("softmax_precision", 0)) {
    Type pt = onnxElementType(n.b.getContext(), precision);
    if (!pt || !isa<FloatType>(pt))
      return n.error() << "unsupported softmax_precision " << onnxDataTypeName(precision);
    logits = n.castElements(logits, pt);
  }
  Value probs = n.create<SoftmaxOp>(logits, n.b.getI64IntegerAttr(3));
  // A row whose bias is all -inf attends nothing: 0, not the softmax's NaN.
  Value rowMax = n.create<ReduceMaxOp>(
      bias, n.b.getDenseI64ArrayAttr({(int64_t)shapeOf(bias).size() - 1}), n.b.getBoolAttr(true));
  Value masked = n.create<EqualOp>(rowMax, negInf);
  probs = n.create<WhereOp>(masked, n.scalarLike(probs, 0.0), probs);
  probs = n.castElements(probs, et);
  Value y = n.matmul(probs, v);
  if (rank == 3) {
    auto ys = shapeOf(y);
    y = n.create<TransposeOp>(y, n.b.getDenseI64ArrayAttr({0, 2, 1, 3}));
    y = n.reshape(y, {ys[0], ys[2], ys[1] * ys[3]});
  }
  n.setResult(0, y);
  if (n.outputUsed(3)) {
    Value out = mode == 3 ? probs : mode == 2 ? withBias : qk;
    n.setResult(3, n.castElements(out, et));
  }
  return success();
}
/// RotaryEmbedding as the spec's reference computes it: on [B, S, H, D] (a 4-D input is
/// [B, H, S, D], a 3-D one [B, S, H * D]), the first rotary_embedding_dim entries of each
/// head split into halves (or even/odd entries when interleaved) x1, x2 and rotated by the
/// cos/sin caches (indexed by position_ids when given): x1 cos - x2 sin, x1 sin + x2 cos.
LogicalResult importRotaryEmbedding(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (!isa<FloatType>(xt.getElementType()))
    return n.error() << "expects a float input, got " << xt.getElementType();
  if (xt.getRank() != 3 && xt.getRank() != 4)
    return n.error() << "expects a 3-D or 4-D input, got " << xt;
  Value x = n.input(0);
  if (xt.getRank() == 4) {
    x = n.create<TransposeOp>(x, n.b.getDenseI64ArrayAttr({0, 2, 1, 3}));
  } else {
    int64_t heads = n.getInt("num_heads", 0);
    if (heads <= 0 || xt.getDimSize(2) % heads)
      return n.error() << "a 3-D input needs num_heads dividing its hidden size " << xt;
    x = n.reshape(x, {xt.getDimSize(0), xt.getDimSize(1), heads, xt.getDimSize(2) / heads});
  }
  SmallVector<int64_t> s(shapeOf(x));
  int64_t batch = s[0], seq = s[1], heads = s[2], headSize = s[3];
  int64_t dim = n.getInt("rotary_embedding_dim", 0);
  if (dim == 0)
    dim = headSize;
  if (dim < 0 || dim > headSize || dim % 2)
    return n.error() << "rotary_embedding_dim " << dim << " must be even and at most the head size "
                     << headSize;
  int64_t half = dim / 2;
  Value cosCache = n.input(1), sinCache = n.input(2);
  if (Value positions = n.input(3)) {
    cosCache = n.create<GatherOp>(cosCache, positions, n.b.getI64IntegerAttr(0));
    sinCache = n.create<GatherOp>(sinCache, positions, n.b.getI64IntegerAttr(0));
  }
  for (Value c : {cosCache, sinCache})
    if (shapeOf(c) != ArrayRef<int64_t>{batch, seq, half})
      return n.error() << "expects cos/sin caches of [" << batch << ", " << seq << ", " << half
                       << "] (after position_ids), got " << c.getType();
  cosCache = n.reshape(cosCache, {batch, seq, 1, half});
  sinCache = n.reshape(sinCache, {batch, seq, 1, half});

  bool interleaved = n.getInt("interleaved", 0) != 0;
  auto part = [&](int64_t offset, int64_t step) {
    return n.create<SliceOp>(x, n.b.getDenseI64ArrayAttr({0, 0, 0, offset}),
                             n.b.getDenseI64ArrayAttr({batch, seq, heads, half}),
                             n.b.getDenseI64ArrayAttr({1, 1, 1, step}));
  };
  Value x1 = interleaved ? part(0, 2) : part(0, 1);
  Value x2 = interleaved ? part(1, 2) : part(half, 1);
  Value real = n.create<SubOp>(n.create<MulOp>(cosCache, x1), n.create<MulOp>(sinCache, x2));
  Value imag = n.create<AddOp>(n.create<MulOp>(sinCache, x1), n.create<MulOp>(cosCache, x2));
  Value rotated;
  if (interleaved) {
    Value pairs = n.create<ConcatOp>(ValueRange{n.reshape(real, {batch, seq, heads, half, 1}),
                                                n.reshape(imag, {batch, seq, heads, half, 1})},
                                     n.b.getI64IntegerAttr(4));
    rotated = n.reshape(pairs, {batch, seq, heads, dim});
  } else {
    rotated = n.create<ConcatOp>(ValueRange{real, imag}, n.b.getI64IntegerAttr(3));
  }
  Value y = rotated;
  if (dim < headSize)
    y = n.create<ConcatOp>(ValueRange{rotated, n.sliceAxis(x, 3, dim, headSize - dim)},
                           n.b.getI64IntegerAttr(3));
  if (xt.getRank() == 4)
    y = n.create<TransposeOp>(y, n.b.getDenseI64ArrayAttr({0, 2, 1, 3}));
  else
    y = n.reshape(y, xt.getShape());
  n.setResult(0, y);
  return success();
}
} // namespace

void infc::registerAttentionImporters(ImportRegistry &r) {
  r["Attention"] = importAttention;
  r["RotaryEmbedding"] = importRotaryEmbedding;
}

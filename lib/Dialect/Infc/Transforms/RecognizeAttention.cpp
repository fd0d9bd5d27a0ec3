//===- RecognizeAttention.cpp - a decoder's attention over the paged KV cache ---===//
//
// A decoder imported with --decoder is one step over T new tokens whose keys and values
// are the `present.N.*` results (lib/Import/Onnx/Decoder.cpp took the past out). The
// cache is the runtime's, so each layer's attention must read it: the region from the
// keys and values to the attention's output becomes infc.paged_attention, which stores the
// new rows and attends over the cached ones. The match is exact or an error: a region that
// does something else (another mask, a bias on the scores) must never be compiled as
// causal attention.
//
//===----------------------------------------------------------------------===//
#include "infc/Dialect/Infc/IR/InfcOps.h"
#include "infc/Dialect/Infc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

#include <map>

namespace infc {
#define GEN_PASS_DEF_INFCRECOGNIZEATTENTION
#include "infc/Dialect/Infc/Transforms/Passes.h.inc"
} // namespace infc

using namespace mlir;
using namespace infc;

namespace {
/// The one user of `v`, or null.
Operation *soleUser(Value v) { return v.hasOneUse() ? *v.getUsers().begin() : nullptr; }

SmallVector<int64_t> nonUnitDims(RankedTensorType t) {
  SmallVector<int64_t> dims;
  for (int64_t d : t.getShape())
    if (d != 1)
      dims.push_back(d);
  return dims;
}

/// `kv` [1, kvHeads, T, D] as [1, kvHeads * group, T, D], each KV head for `group`
/// consecutive query heads: reshape (unit dims in), broadcast of one unit dim between the
/// heads and T to `group`, reshape to rank 4. With no such chain, `kv` itself (group 1).
/// Null when `user` starts something else.
Value throughRepeat(Value kv, Operation *user, int64_t &group) {
  auto kt = cast<RankedTensorType>(kv.getType());
  auto first = dyn_cast_or_null<ReshapeOp>(user);
  if (!first) {
    group = 1;
    return kv;
  }
  auto broadcast = dyn_cast_or_null<BroadcastOp>(soleUser(first.getResult()));
  auto last = broadcast ? dyn_cast_or_null<ReshapeOp>(soleUser(broadcast.getResult())) : nullptr;
  if (!last)
    return nullptr;
  auto s1 = cast<RankedTensorType>(first.getType()),
       s2 = cast<RankedTensorType>(broadcast.getType());
  auto out = cast<RankedTensorType>(last.getType());
  if (nonUnitDims(s1) != nonUnitDims(kt) || s1.getRank() != s2.getRank() || out.getRank() != 4)
    return nullptr;
  // Exactly one dim grows, from 1; in s2's dims other than 1 it must come right after the
  // KV heads (so the collapse gives head = kvHead * group + g).
  int64_t grown = -1;
  for (int64_t d = 0; d < s1.getRank(); ++d)
    if (s1.getDimSize(d) != s2.getDimSize(d)) {
      if (grown >= 0 || s1.getDimSize(d) != 1 || ShapedType::isDynamic(s2.getDimSize(d)))
        return nullptr;
      grown = d;
    }
  if (grown < 0)
    return nullptr;
  group = s2.getDimSize(grown);
  int64_t kvHeads = kt.getDimSize(1);
  // Where the KV heads and the rows sit in s1 (its dims other than 1 are kt's, in order):
  // the new dim must lie between them, so that query head i reads KV head i / group (a
  // tile-style repeat, the new dim before the KV heads, reads i % kvHeads instead).
  SmallVector<int64_t> positions;
  for (int64_t d = 0; d < s1.getRank(); ++d)
    if (s1.getDimSize(d) != 1)
      positions.push_back(d);
  int64_t headsAt = kvHeads > 1 ? positions[0] : -1, rowsAt = positions[kvHeads > 1 ? 1 : 0];
  SmallVector<int64_t> rank4 = {1, kvHeads * group, kt.getDimSize(2), kt.getDimSize(3)};
  if (!(headsAt < grown && grown < rowsAt) || out.getShape() != ArrayRef<int64_t>(rank4))
    return nullptr;
  return last.getResult();
}

/// A constant of one value (any shape), as a double.
std::optional<double> splatValue(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// A slice from the corner of a constant whose last two dims are lower triangular
/// (entry [i, j] true exactly when j <= i): causal at every size the slice takes.
bool isCausal(Value v) {
  auto slice = v.getDefiningOp<SliceOp>();
  DenseElementsAttr attr;
  if (!slice || !matchPattern(slice.getInput(), m_Constant(&attr)) ||
      !attr.getElementType().isInteger(1) ||
      llvm::any_of(slice.getOffsets(), [](int64_t o) { return o != 0; }) ||
      llvm::any_of(slice.getSteps(), [](int64_t s) { return s != 1; }))
    return false;
  ArrayRef<int64_t> shape = cast<ShapedType>(attr.getType()).getShape();
  ArrayRef<int64_t> sizes = slice.getSizes();
  // The step's rows by the step's rows (the symbolic dim both ways), nothing else.
  if (shape.size() < 2 || !ShapedType::isDynamic(sizes.back()) ||
      !ShapedType::isDynamic(sizes[sizes.size() - 2]) ||
      llvm::any_of(sizes.drop_back(2), [](int64_t s) { return s != 1; }))
    return false;
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  if (attr.isSplat())
    return false;
  auto values = attr.getValues<bool>();
  int64_t matrices = attr.getNumElements() / (rows * cols);
  for (int64_t m = 0; m < matrices; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        if (values[(m * rows + i) * cols + j] != (j <= i))
          return false;
  return true;
}

/// attention_mask (all ones in every step the runtime runs: its sequences are not padded)
/// through reshapes and a cast to i1.
bool isPadding(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<ReshapeOp, CastOp, BroadcastOp>(def))
      return false;
    v = def->getOperand(0);
  }
  auto arg = dyn_cast<BlockArgument>(v);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  auto name = func ? func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "infc.name") : nullptr;
  return name && name.getValue() == "attention_mask";
}

/// causal, or causal and padding: the positions a row may see.
bool isCausalCondition(Value c) {
  if (auto both = c.getDefiningOp<AndOp>())
    return (isCausal(both.getLhs()) && isPadding(both.getRhs())) ||
           (isCausal(both.getRhs()) && isPadding(both.getLhs()));
  return isCausal(c);
}

/// where(causal [and padding], 0, x) with x at most -1e4: the additive causal mask.
bool isCausalMask(Value mask) {
  auto where = mask.getDefiningOp<WhereOp>();
  if (!where)
    return false;
  std::optional<double> zero = splatValue(where.getLhs()), low = splatValue(where.getRhs());
  return zero && *zero == 0 && low && *low <= -1e4 && isCausalCondition(where.getCondition());
}

/// The positions the model's tables cover: the fewest rows of a constant that position_ids
/// (through reshapes and casts) gathers from (RoPE's cos and sin, GPT-2's wpe); 0 when
/// none does. A position past them would be clamped by the gather, so the runtime refuses
/// it instead. A gather from anything but a constant (a table sliced to a length the
/// import made the step's) is an error: it would clamp every position past the step.
FailureOr<int64_t> positionLimit(func::FuncOp func) {
  int64_t limit = 0;
  SmallVector<Value> worklist;
  for (BlockArgument arg : func.getArguments()) {
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "infc.name");
    if (name && name.getValue() == "position_ids")
      worklist.push_back(arg);
  }
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<ReshapeOp, CastOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      auto gather = dyn_cast<GatherOp>(user);
      DenseElementsAttr table;
      if (!gather || gather.getIndices() != v)
        continue;
      if (!matchPattern(gather.getData(), m_Constant(&table))) {
        emitError(gather.getLoc())
            << "--decoder: position_ids index a table that is not a constant (one sliced to "
               "the sequence's length, say): positions past a step's tokens would be clamped";
        return failure();
      }
      int64_t rows = cast<ShapedType>(table.getType()).getDimSize(gather.getAxis());
      limit = limit ? std::min(limit, rows) : rows;
    }
  }
  return limit;
}

struct Layer {
  int64_t index = 0;
  Value key, value;
  unsigned keyResult = 0, valueResult = 0;
};

struct Geometry {
  int64_t heads = 0, kvHeads = 0, headDim = 0;
};

/// Layer `l`'s region replaced by infc.paged_attention; an error on `func` otherwise.
LogicalResult recognize(func::FuncOp func, const Layer &l, Geometry &geometry) {
  auto fail = [&](Operation *at, const Twine &why) {
    return emitError(at ? at->getLoc() : func.getLoc())
           << "--decoder: layer " << l.index << "'s attention: " << why;
  };
  auto kt = cast<RankedTensorType>(l.key.getType());
  if (kt.getRank() != 4 || kt.getDimSize(0) != 1 || l.key.getType() != l.value.getType())
    return fail(l.key.getDefiningOp(), "present key and value must be [1, kv_heads, T, "
                                       "head_dim] of one type");
  // Each present is read once more (besides the return): by the attention.
  auto otherUser = [&](Value v) -> Operation * {
    Operation *found = nullptr;
    for (Operation *u : v.getUsers())
      if (!isa<func::ReturnOp>(u)) {
        if (found && found != u)
          return nullptr;
        found = u;
      }
    return found;
  };
  Operation *keyUser = otherUser(l.key), *valueUser = otherUser(l.value);
  if (!keyUser || !valueUser)
    return fail(l.key.getDefiningOp(), "the new keys and values must feed the attention alone");
  int64_t group = 0, valueGroup = 0;
  Value keys = throughRepeat(l.key, keyUser, group);
  Value values = throughRepeat(l.value, valueUser, valueGroup);
  if (!keys || !values || group != valueGroup)
    return fail(keyUser, "the keys and values must be repeated alike, each KV head for as many "
                         "consecutive query heads (reshape, broadcast, reshape), or not at all");
  // (Unrepeated, the keys are also returned: their other user is the transpose.)
  Operation *keysUser = keys == l.key ? keyUser : soleUser(keys);
  auto transpose = dyn_cast_or_null<TransposeOp>(keysUser);
  if (!transpose || transpose.getPerm() != ArrayRef<int64_t>{0, 1, 3, 2})
    return fail(keysUser, "the keys must be transposed (0, 1, 3, 2) into q . k^T");
  auto scores = dyn_cast_or_null<MatMulOp>(soleUser(transpose.getResult()));
  if (!scores || scores.getRhs() != transpose.getResult())
    return fail(transpose, "k^T must be the right operand of the scores' matmul");
  Value q = scores.getLhs();
  auto qt = cast<RankedTensorType>(q.getType());
  int64_t heads = kt.getDimSize(1) * group;
  if (qt.getRank() != 4 || qt.getDimSize(1) != heads || qt.getDimSize(3) != kt.getDimSize(3) ||
      !qt.getElementType().isF32())
    return fail(scores, "the queries must be f32 [1, heads, T, head_dim] beside the keys");
  // The scale (a Mul or Div by a constant), the mask, the softmax over the keys.
  double scale = 1;
  Value current = scores.getResult();
  Operation *next = soleUser(current);
  if (auto mul = dyn_cast_or_null<MulOp>(next)) {
    std::optional<double> s = splatValue(mul.getLhs() == current ? mul.getRhs() : mul.getLhs());
    if (!s)
      return fail(mul, "the scores must be scaled by a constant");
    scale = *s, current = mul.getResult(), next = soleUser(current);
  } else if (auto div = dyn_cast_or_null<DivOp>(next); div && div.getLhs() == current) {
    std::optional<double> s = splatValue(div.getRhs());
    if (!s || *s == 0)
      return fail(div, "the scores must be divided by a constant");
    scale = 1 / *s, current = div.getResult(), next = soleUser(current);
  }
  // The causal mask: added (where(causal, 0, -big), HF Llama) or selecting (where(causal,
  // scores, -big), GPT-2).
  Value masked;
  if (auto add = dyn_cast_or_null<AddOp>(next)) {
    Value mask = add.getLhs() == current ? add.getRhs() : add.getLhs();
    if (isCausalMask(mask))
      masked = add.getResult();
  } else if (auto where = dyn_cast_or_null<WhereOp>(next); where && where.getLhs() == current) {
    std::optional<double> low = splatValue(where.getRhs());
    if (low && *low <= -1e4 && isCausalCondition(where.getCondition()))
      masked = where.getResult();
  }
  if (!masked)
    return fail(next, "the scores must get the causal mask (+ where(causal [and attention_mask], "
                      "0, -big), or where(causal, scores, -big)); infc recognizes no other mask "
                      "or bias");
  auto softmax = dyn_cast_or_null<SoftmaxOp>(soleUser(masked));
  if (!softmax || softmax.getAxis() != 3)
    return fail(soleUser(masked), "the masked scores must go to a softmax over the keys");
  auto output = dyn_cast_or_null<MatMulOp>(soleUser(softmax.getResult()));
  if (!output || output.getLhs() != softmax.getResult() || output.getRhs() != values)
    return fail(soleUser(softmax.getResult()), "the probabilities must multiply the values");
  if (!(scale > 0))
    return fail(scores, "the scale must be positive");

  if (geometry.heads == 0)
    geometry = {heads, kt.getDimSize(1), kt.getDimSize(3)};
  else if (geometry.heads != heads || geometry.kvHeads != kt.getDimSize(1) ||
           geometry.headDim != kt.getDimSize(3))
    return fail(scores, "the layers must have one geometry (heads, kv_heads, head_dim)");

  OpBuilder b(output);
  auto attention = PagedAttentionOp::create(b, output.getLoc(), output.getType(), q, l.key, l.value,
                                            b.getI64IntegerAttr(l.index), b.getF64FloatAttr(scale));
  output.getResult().replaceAllUsesWith(attention.getResult());
  return success();
}

/// The LM head: where the `logits` result is hidden [1, T, H] times constant weights [H, V]
/// and nothing else, the product becomes infc.decoder_logits, which computes only the rows
/// the step uses (a prefill's last row). Whether it did.
bool recognizeLogits(func::FuncOp func, func::ReturnOp ret) {
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "infc.name");
    if (!name || name.getValue() != "logits")
      continue;
    auto head = ret.getOperand(i).getDefiningOp<MatMulOp>();
    if (!head || !head->hasOneUse() || !head.getRhs().getDefiningOp<ConstantOp>())
      return false;
    auto ht = cast<RankedTensorType>(head.getLhs().getType());
    auto wt = cast<RankedTensorType>(head.getRhs().getType());
    if (ht.getRank() != 3 || ht.getDimSize(0) != 1 || ht.isDynamicDim(2) || wt.getRank() != 2 ||
        !wt.hasStaticShape() || !ht.getElementType().isF32() || !wt.getElementType().isF32())
      return false;
    OpBuilder b(head);
    auto logits =
        DecoderLogitsOp::create(b, head.getLoc(), head.getType(), head.getLhs(), head.getRhs());
    head.getResult().replaceAllUsesWith(logits.getResult());
    head.erase();
    return true;
  }
  return false;
}

struct InfcRecognizeAttentionPass
    : public infc::impl::InfcRecognizeAttentionBase<InfcRecognizeAttentionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The importer's unit attribute; a dictionary once recognized (the pass is idempotent).
    if (!isa_and_nonnull<UnitAttr>(module->getAttr("infc.decoder")))
      return;
    auto func = module.lookupSymbol<func::FuncOp>("main");
    if (!func || func.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    std::map<int64_t, Layer> layers;
    std::map<int64_t, int> seen;
    for (unsigned i = 0; i < func.getNumResults(); ++i) {
      auto name = func.getResultAttrOfType<StringAttr>(i, "infc.name");
      StringRef rest = name ? name.getValue() : "";
      if (!rest.consume_front("present."))
        continue;
      auto [index, kind] = rest.split('.');
      int64_t n;
      if (index.getAsInteger(10, n) || (kind != "key" && kind != "value")) {
        func.emitError() << "--decoder: output '" << name.getValue()
                         << "' is not present.N.key or present.N.value";
        return signalPassFailure();
      }
      Layer &l = layers[n];
      l.index = n;
      (kind == "key" ? l.key : l.value) = ret.getOperand(i);
      (kind == "key" ? l.keyResult : l.valueResult) = i;
      ++seen[n];
    }
    int64_t expected = 0;
    for (auto &[n, l] : layers)
      if (n != expected++ || seen[n] != 2 || !l.key || !l.value) {
        func.emitError() << "--decoder: the presents must be present.N.key and .value for N = "
                            "0, 1, ... (layer "
                         << n << ")";
        return signalPassFailure();
      }
    if (layers.empty()) {
      func.emitError() << "--decoder: the model has no present.N.key/value outputs";
      return signalPassFailure();
    }
    Geometry geometry;
    for (auto &[n, l] : layers)
      if (failed(recognize(func, l, geometry)))
        return signalPassFailure();
    bool packedLogits = recognizeLogits(func, ret);

    // The presents leave the results; what only they and the old attention read goes.
    llvm::BitVector drop(func.getNumResults());
    for (auto &[n, l] : layers)
      drop.set(l.keyResult), drop.set(l.valueResult);
    ret->eraseOperands(drop);
    if (failed(func.eraseResults(drop)))
      return signalPassFailure();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(func.getBody().front())))
      if (op.use_empty() && isMemoryEffectFree(&op) && !op.hasTrait<OpTrait::IsTerminator>())
        op.erase();
    // The import made the mask's length (past + tokens) the tokens: anything else that
    // still reads it would compute with the wrong length at every step with a past.
    for (BlockArgument arg : func.getArguments()) {
      auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "infc.name");
      if (name && name.getValue() == "attention_mask" && !arg.use_empty()) {
        emitError((*arg.getUsers().begin())->getLoc())
            << "--decoder: attention_mask is read outside the attention's causal mask (the "
               "library's sequences have no padding and their lengths are the runtime's)";
        return signalPassFailure();
      }
    }
    llvm::BitVector unused(func.getNumArguments());
    for (BlockArgument arg : func.getArguments())
      if (arg.use_empty())
        unused.set(arg.getArgNumber());
    if (failed(func.eraseArguments(unused)))
      return signalPassFailure();
    // The runtime functions the lowering calls (a nested pass cannot declare them).
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto ptr = MemRefType::get({1}, b.getF32Type());
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto declare = [&](StringRef name, FunctionType type) {
      if (!module.lookupSymbol(name))
        func::FuncOp::create(b, module.getLoc(), name, type).setPrivate();
    };
    declare(kPagedAttentionKernel,
            b.getFunctionType({i32, i64, i32, i32, i32, b.getF32Type(), ptr, ptr, ptr, ptr}, {}));
    if (packedLogits)
      declare(kLogitRowsFunction, b.getFunctionType({i64, i64, ptr, ptr}, {i64}));
    FailureOr<int64_t> maxPositions = positionLimit(func);
    if (failed(maxPositions))
      return signalPassFailure();
    module->setAttr(
        "infc.decoder",
        b.getDictionaryAttr({b.getNamedAttr("layers", b.getI64IntegerAttr(layers.size())),
                             b.getNamedAttr("heads", b.getI64IntegerAttr(geometry.heads)),
                             b.getNamedAttr("kv_heads", b.getI64IntegerAttr(geometry.kvHeads)),
                             b.getNamedAttr("head_dim", b.getI64IntegerAttr(geometry.headDim)),
                             b.getNamedAttr("max_positions", b.getI64IntegerAttr(*maxPositions))}));
  }
};
} // namespace

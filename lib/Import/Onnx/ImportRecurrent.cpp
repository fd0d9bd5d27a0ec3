//===- ImportRecurrent.cpp - recurrences unrolled over their static time steps ===//
//
// LinearAttention, RNN, GRU and LSTM carry a state from one time step to the next. With
// static shapes the step count is known at compile time, so each is unrolled into one copy
// of the step per time step, built from infc ops (the small per-step matmuls and elementwise
// gates then go through the usual fusion and codegen). Unrolling is bounded by
// kMaxUnrolledSteps so a long sequence gets a clear error instead of a huge module.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include <cmath>

using namespace mlir;
using namespace infc;

namespace {
constexpr int64_t kMaxUnrolledSteps = 1024;

ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }

/// [B, T, H * D] -> [B, H, T, D].
Value splitHeads(NodeImporter &n, Value v, int64_t heads) {
  auto s = shapeOf(v);
  v = n.reshape(v, {s[0], s[1], heads, s[2] / heads});
  return n.create<TransposeOp>(v, n.b.getDenseI64ArrayAttr({0, 2, 1, 3}));
}

/// LinearAttention as the spec's recurrence, computed in f32 like the reference: per step
/// the state [B, Hkv, dk, dv] decays by exp(g_t) (gated rules), the delta rules replace v_t
/// by beta_t (v_t - k_t^T S), then S += k_t v_t^T and o_t = scale q_t^T S, each query head
/// reading the state of its key/value head (grouped-query attention).
LogicalResult importLinearAttention(NodeImporter &n) {
  std::string rule = n.getString("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
    return n.error() << "unknown update_rule '" << rule << "'";
  bool gating = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  Value decay = n.input(4), beta = n.input(5);
  if (gating != !!decay)
    return n.error() << "update_rule '" << rule << "' " << (gating ? "needs" : "takes no")
                     << " decay input";
  if (delta != !!beta)
    return n.error() << "update_rule '" << rule << "' " << (delta ? "needs" : "takes no")
                     << " beta input";
  int64_t qHeads = n.getInt("q_num_heads", 0), kvHeads = n.getInt("kv_num_heads", 0);
  if (qHeads <= 0 || kvHeads <= 0 || qHeads % kvHeads)
    return n.error() << "q_num_heads (" << qHeads << ") must be a positive multiple of "
                     << "kv_num_heads (" << kvHeads << ")";
  for (unsigned i = 0; i < 3; ++i)
    if (n.inputType(i).getRank() != 3 || !isa<FloatType>(n.inputType(i).getElementType()))
      return n.error() << "expects float query, key and value of rank 3, got "
                       << n.inputType(i);
  Type et = n.inputType(0).getElementType(), f32 = n.b.getF32Type();
  int64_t batch = n.inputType(0).getDimSize(0), steps = n.inputType(0).getDimSize(1);
  if (n.inputType(0).getDimSize(2) % qHeads || n.inputType(1).getDimSize(2) % kvHeads ||
      n.inputType(2).getDimSize(2) % kvHeads)
    return n.error() << "the head counts do not divide the hidden sizes";
  int64_t dk = n.inputType(0).getDimSize(2) / qHeads;
  int64_t dv = n.inputType(2).getDimSize(2) / kvHeads, group = qHeads / kvHeads;
  if (steps > kMaxUnrolledSteps)
    return n.error() << "sequence length " << steps << " exceeds the " << kMaxUnrolledSteps
                     << " steps this recurrence is unrolled to";

  Value q = splitHeads(n, n.castElements(n.input(0), f32), qHeads);
  Value k = splitHeads(n, n.castElements(n.input(1), f32), kvHeads);
  Value v = splitHeads(n, n.castElements(n.input(2), f32), kvHeads);
  SmallVector<int64_t> stateShape{batch, kvHeads, dk, dv};
  Value state;
  Type stateType = et;
  if (Value past = n.input(3)) {
    if (n.inputType(3).getShape() != ArrayRef<int64_t>(stateShape))
      return n.error() << "expects past_state [" << batch << ", " << kvHeads << ", " << dk
                       << ", " << dv << "], got " << n.inputType(3);
    stateType = n.inputType(3).getElementType();
    state = n.castElements(past, f32);
  } else {
    state = n.constant(
        DenseElementsAttr::get(RankedTensorType::get(stateShape, f32), n.b.getZeroAttr(f32)));
  }
  // decay: [B, T, Hkv] or [B, T, Hkv * dk] -> [B, Hkv, T, 1 | dk]; beta: [B, T, Hkv | 1].
  if (decay) {
    int64_t last = n.inputType(4).getRank() == 3 ? n.inputType(4).getDimSize(2) : -1;
    if (last != kvHeads && last != kvHeads * dk)
      return n.error() << "decay must be [B, T, kv_num_heads] or [B, T, kv_num_heads * d_k], "
                       << "got " << n.inputType(4);
    decay = n.reshape(n.castElements(decay, f32), {batch, steps, kvHeads, last / kvHeads});
    decay = n.create<TransposeOp>(decay, n.b.getDenseI64ArrayAttr({0, 2, 1, 3}));
  }
  if (beta) {
    int64_t last = n.inputType(5).getRank() == 3 ? n.inputType(5).getDimSize(2) : -1;
    if (last != kvHeads && last != 1)
      return n.error() << "beta must be [B, T, kv_num_heads] or [B, T, 1], got "
                       << n.inputType(5);
    beta = n.reshape(n.castElements(beta, f32), {batch, steps, last, 1});
    beta = n.create<TransposeOp>(beta, n.b.getDenseI64ArrayAttr({0, 2, 1, 3}));
  }
  double scale = n.getFloat("scale", 0.0);
  if (scale == 0.0)
    scale = 1.0 / std::sqrt((double)dk);
  Value scaleValue = n.scalarLike(state, scale);

  SmallVector<Value> outputs;
  for (int64_t t = 0; t < steps; ++t) {
    Value kRow = n.sliceAxis(k, 2, t, 1);                    // [B, Hkv, 1, dk]
    Value kCol = n.reshape(kRow, {batch, kvHeads, dk, 1});
    Value vRow = n.sliceAxis(v, 2, t, 1);                    // [B, Hkv, 1, dv]
    if (gating) {
      Value g = n.sliceAxis(decay, 2, t, 1);                 // [B, Hkv, 1, 1 | dk]
      g = n.reshape(g, {batch, kvHeads, shapeOf(g)[3], 1});
      state = n.create<MulOp>(state, n.create<ExpOp>(g));
    }
    if (delta) {
      Value retrieved = n.matmul(kRow, state);                // [B, Hkv, 1, dv]
      vRow = n.create<MulOp>(n.sliceAxis(beta, 2, t, 1), n.create<SubOp>(vRow, retrieved));
    }
    state = n.create<AddOp>(state, n.create<MulOp>(kCol, vRow));
    // Query head h reads key/value head h / group: [B, Hkv, group, dk] x [B, Hkv, dk, dv].
    Value qt = n.reshape(n.sliceAxis(q, 2, t, 1), {batch, kvHeads, group, dk});
    Value o = n.create<MulOp>(n.matmul(qt, state), scaleValue);
    outputs.push_back(n.reshape(o, {batch, 1, qHeads * dv}));
  }
  Value y = outputs.size() == 1 ? outputs[0]
                                : n.create<ConcatOp>(outputs, n.b.getI64IntegerAttr(1));
  n.setResult(0, n.castElements(y, et));
  if (n.outputUsed(1))
    n.setResult(1, n.castElements(state, stateType));
  return success();
}
} // namespace

void infc::registerRecurrentImporters(ImportRegistry &r) {
  r["LinearAttention"] = importLinearAttention;
}

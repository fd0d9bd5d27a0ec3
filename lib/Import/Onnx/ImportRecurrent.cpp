//===- ImportRecurrent.cpp - recurrences unrolled over their static time steps ===//
//
// LinearAttention, RNN, GRU and LSTM carry a state from one time step to the next. With
// static shapes the step count is known at compile time, so each is unrolled into one copy
// of the step per time step, built from infc ops (the small per-step matmuls and elementwise
// gates then go through the usual fusion and codegen). Unrolling is bounded by
// kMaxUnrolledSteps (NodeImporter.h) so a long sequence gets a clear error, not a huge module.
//
//===----------------------------------------------------------------------===//
#include "ComposeOps.h"

#include <cmath>

using namespace mlir;
using namespace infc;

namespace {
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
      return n.error() << "expects float query, key and value of rank 3, got " << n.inputType(i);
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
      return n.error() << "expects past_state [" << batch << ", " << kvHeads << ", " << dk << ", "
                       << dv << "], got " << n.inputType(3);
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
      return n.error() << "beta must be [B, T, kv_num_heads] or [B, T, 1], got " << n.inputType(5);
    beta = n.reshape(n.castElements(beta, f32), {batch, steps, last, 1});
    beta = n.create<TransposeOp>(beta, n.b.getDenseI64ArrayAttr({0, 2, 1, 3}));
  }
  double scale = n.getFloat("scale", 0.0);
  if (scale == 0.0)
    scale = 1.0 / std::sqrt((double)dk);
  Value scaleValue = n.scalarLike(state, scale);

  SmallVector<Value> outputs;
  for (int64_t t = 0; t < steps; ++t) {
    Value kRow = n.sliceAxis(k, 2, t, 1); // [B, Hkv, 1, dk]
    Value kCol = n.reshape(kRow, {batch, kvHeads, dk, 1});
    Value vRow = n.sliceAxis(v, 2, t, 1); // [B, Hkv, 1, dv]
    if (gating) {
      Value g = n.sliceAxis(decay, 2, t, 1); // [B, Hkv, 1, 1 | dk]
      g = n.reshape(g, {batch, kvHeads, shapeOf(g)[3], 1});
      state = n.create<MulOp>(state, n.create<ExpOp>(g));
    }
    if (delta) {
      Value retrieved = n.matmul(kRow, state); // [B, Hkv, 1, dv]
      vRow = n.create<MulOp>(n.sliceAxis(beta, 2, t, 1), n.create<SubOp>(vRow, retrieved));
    }
    state = n.create<AddOp>(state, n.create<MulOp>(kCol, vRow));
    // Query head h reads key/value head h / group: [B, Hkv, group, dk] x [B, Hkv, dk, dv].
    Value qt = n.reshape(n.sliceAxis(q, 2, t, 1), {batch, kvHeads, group, dk});
    Value o = n.create<MulOp>(n.matmul(qt, state), scaleValue);
    outputs.push_back(n.reshape(o, {batch, 1, qHeads * dv}));
  }
  Value y =
      outputs.size() == 1 ? outputs[0] : n.create<ConcatOp>(outputs, n.b.getI64IntegerAttr(1));
  n.setResult(0, n.castElements(y, et));
  if (n.outputUsed(1))
    n.setResult(1, n.castElements(state, stateType));
  return success();
}

//===----------------------------------------------------------------------===//
// RNN, GRU, LSTM
//===----------------------------------------------------------------------===//

/// One of the activation functions the ONNX recurrences name; null for an unknown name.
/// `alpha` and `beta` are NaN when the node gives none (each function has its default).
Value activation(NodeImporter &n, StringRef name, Value x, double alpha, double beta) {
  Ops o{n};
  auto k = [&](double v) { return n.scalarLike(x, v); };
  auto a = [&](double def) { return std::isnan(alpha) ? def : alpha; };
  auto b = [&](double def) { return std::isnan(beta) ? def : beta; };
  std::string lower = name.lower();
  if (lower == "sigmoid")
    return n.create<SigmoidOp>(x);
  if (lower == "tanh")
    return n.create<TanhOp>(x);
  if (lower == "relu")
    return n.create<ReluOp>(x);
  if (lower == "affine")
    return n.create<AddOp>(n.create<MulOp>(x, k(a(1.0))), k(b(0.0)));
  if (lower == "leakyrelu")
    return n.create<LeakyReluOp>(x, n.b.getF64FloatAttr(a(0.01)));
  if (lower == "thresholdedrelu")
    return n.create<WhereOp>(n.create<LessOp>(x, k(a(1.0))), k(0.0), x);
  if (lower == "scaledtanh")
    return n.create<MulOp>(k(a(1.0)), n.create<TanhOp>(n.create<MulOp>(x, k(b(1.0)))));
  if (lower == "hardsigmoid")
    return n.create<ClipOp>(n.create<AddOp>(n.create<MulOp>(x, k(a(0.2))), k(b(0.5))),
                            n.b.getF64FloatAttr(0.0), n.b.getF64FloatAttr(1.0));
  if (lower == "elu")
    return elu(o, x, a(1.0));
  if (lower == "softsign")
    return o.div(x, o.add(k(1.0), o.abs(x)));
  if (lower == "softplus")
    return o.softplus(x);
  return nullptr;
}

enum class CellKind { Rnn, Gru, Lstm };

/// What one direction of a recurrence reads: weights transposed for row-vector products.
struct Direction {
  Value inputGates;       // [T, B, gates * H]: X W^T + Wb for every step at once
  Value recurrentWeight;  // [H, gates * H]
  Value recurrentBias;    // [gates * H] (Rb), or null
  Value peephole;         // LSTM: [3 * H] (i, o, f), or null
  Value h, c;             // initial states [B, H]
  SmallVector<Value> fns; // the activations of this direction (f, g, h)
  SmallVector<double> alphas, betas;
};

/// RNN, GRU and LSTM (ONNX equations, gate orders i/o/f/c for LSTM and z/r/h for GRU) for
/// every direction, layout and optional input; `clip` clamps the gate pre-activations.
LogicalResult importRecurrence(NodeImporter &n, CellKind kind) {
  int64_t gates = kind == CellKind::Rnn ? 1 : kind == CellKind::Gru ? 3 : 4;
  unsigned fnsPerDirection = kind == CellKind::Rnn ? 1 : kind == CellKind::Gru ? 2 : 3;
  RankedTensorType xt = n.inputType(0), wt = n.inputType(1), rt = n.inputType(2);
  Type et = xt.getElementType();
  if (!isa<FloatType>(et))
    return n.error() << "expects a float input, got " << et;
  if (xt.getRank() != 3 || wt.getRank() != 3 || rt.getRank() != 3)
    return n.error() << "expects X, W and R of rank 3";
  std::string direction = n.getString("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return n.error() << "unknown direction '" << direction << "'";
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  bool batchMajor = n.getInt("layout", 0) != 0;
  int64_t hidden = rt.getDimSize(2);
  if (n.hasAttr("hidden_size") && n.getInt("hidden_size", 0) != hidden)
    return n.error() << "hidden_size " << n.getInt("hidden_size", 0) << " does not match R " << rt;
  if (kind == CellKind::Lstm && n.getInt("input_forget", 0))
    return n.error() << "input_forget=1 is not supported";
  Value x = n.input(0);
  if (batchMajor)
    x = n.create<TransposeOp>(x, n.b.getDenseI64ArrayAttr({1, 0, 2}));
  int64_t steps = shapeOf(x)[0], batch = shapeOf(x)[1], inputSize = shapeOf(x)[2];
  if (wt.getShape() != ArrayRef<int64_t>{dirs, gates * hidden, inputSize} ||
      rt.getShape() != ArrayRef<int64_t>{dirs, gates * hidden, hidden})
    return n.error() << "expects W [" << dirs << ", " << gates * hidden << ", " << inputSize
                     << "] and R [" << dirs << ", " << gates * hidden << ", " << hidden << "], got "
                     << wt << " and " << rt;
  if (steps > kMaxUnrolledSteps)
    return n.error() << "sequence length " << steps << " exceeds the " << kMaxUnrolledSteps
                     << " steps this recurrence is unrolled to";
  // sequence_lens [B]: a step at t >= len keeps the state and outputs zeros, which also
  // starts a reverse pass at each sequence's own end. Constant full lengths need no mask.
  Value lengths;
  if (n.input(4)) {
    if (n.inputType(4).getShape() != ArrayRef<int64_t>{batch} ||
        !n.inputType(4).getElementType().isSignlessInteger())
      return n.error() << "expects integer sequence_lens [" << batch << "], got " << n.inputType(4);
    DenseElementsAttr constant = n.constantInput(4);
    bool full = constant && llvm::all_of(constant.getValues<APInt>(),
                                         [&](const APInt &l) { return l.getSExtValue() == steps; });
    if (!full)
      lengths = n.reshape(n.input(4), {batch, 1});
  }
  SmallVector<std::string> names;
  if (const onnx::AttributeProto *a = n.typedAttr("activations", onnx::AttributeProto::STRINGS))
    for (const std::string &s : a->strings())
      names.push_back(s);
  if (names.empty()) {
    for (int64_t d = 0; d < dirs; ++d) {
      names.push_back(kind == CellKind::Rnn ? "Tanh" : "Sigmoid");
      if (kind != CellKind::Rnn)
        names.push_back("Tanh");
      if (kind == CellKind::Lstm)
        names.push_back("Tanh");
    }
  }
  if (names.size() != (size_t)(fnsPerDirection * dirs))
    return n.error() << "expects " << fnsPerDirection * dirs << " activations, got "
                     << names.size();
  // The names `activation` knows (case-insensitive, as ORT reads them).
  static const char *kActivations[] = {
      "sigmoid",    "tanh",        "relu", "affine",   "leakyrelu", "thresholdedrelu",
      "scaledtanh", "hardsigmoid", "elu",  "softsign", "softplus"};
  for (const std::string &name : names) {
    std::string lower = StringRef(name).lower();
    if (llvm::none_of(kActivations, [&](const char *a) { return lower == a; }))
      return n.error() << "unsupported activation '" << name << "'";
  }
  auto floats = [&](StringRef attr) {
    SmallVector<double> v;
    if (const onnx::AttributeProto *a = n.typedAttr(attr, onnx::AttributeProto::FLOATS))
      for (float f : a->floats())
        v.push_back(f);
    v.resize(names.size(), std::nan(""));
    return v;
  };
  SmallVector<double> alphas = floats("activation_alpha"), betas = floats("activation_beta");
  double clip = n.getFloat("clip", 0.0);
  bool linearBeforeReset = kind == CellKind::Gru && n.getInt("linear_before_reset", 0) != 0;

  // Initial states: [dirs, B, H], or [B, dirs, H] batch-major.
  auto initialState = [&](unsigned input, int64_t d) -> Value {
    if (!n.input(input))
      return n.constant(
          DenseElementsAttr::get(RankedTensorType::get({batch, hidden}, et), n.b.getZeroAttr(et)));
    Value s = n.sliceAxis(n.input(input), batchMajor ? 1 : 0, d, 1);
    return n.reshape(s, {batch, hidden});
  };
  for (unsigned input : {5u, 6u})
    if (n.input(input) &&
        n.inputType(input).getShape() != (batchMajor ? ArrayRef<int64_t>{batch, dirs, hidden}
                                                     : ArrayRef<int64_t>{dirs, batch, hidden}))
      return n.error() << "initial state " << n.inputType(input) << " has the wrong shape";
  if (n.input(3) && n.inputType(3).getShape() != ArrayRef<int64_t>{dirs, 2 * gates * hidden})
    return n.error() << "expects B [" << dirs << ", " << 2 * gates * hidden << "], got "
                     << n.inputType(3);
  if (n.input(7) && n.inputType(7).getShape() != ArrayRef<int64_t>{dirs, 3 * hidden})
    return n.error() << "expects P [" << dirs << ", " << 3 * hidden << "], got " << n.inputType(7);

  auto transposed = [&](Value w, int64_t d) {
    Value m = n.reshape(n.sliceAxis(w, 0, d, 1), shapeOf(w).drop_front());
    return n.create<TransposeOp>(m, n.b.getDenseI64ArrayAttr({1, 0}));
  };
  SmallVector<Direction> directions(dirs);
  for (int64_t d = 0; d < dirs; ++d) {
    Direction &dir = directions[d];
    Value xw = n.matmul(x, transposed(n.input(1), d)); // [T, B, gates * H]
    if (n.input(3)) {
      Value bias = n.reshape(n.sliceAxis(n.input(3), 0, d, 1), {2 * gates * hidden});
      xw = n.create<AddOp>(xw, n.sliceAxis(bias, 0, 0, gates * hidden));
      dir.recurrentBias = n.sliceAxis(bias, 0, gates * hidden, gates * hidden);
    }
    dir.inputGates = xw;
    dir.recurrentWeight = transposed(n.input(2), d);
    if (n.input(7))
      dir.peephole = n.reshape(n.sliceAxis(n.input(7), 0, d, 1), {3 * hidden});
    dir.h = initialState(5, d);
    if (kind == CellKind::Lstm)
      dir.c = initialState(6, d);
    for (unsigned i = 0; i < fnsPerDirection; ++i) {
      dir.fns.push_back(nullptr);
      dir.alphas.push_back(alphas[d * fnsPerDirection + i]);
      dir.betas.push_back(betas[d * fnsPerDirection + i]);
    }
  }

  auto gate = [&](Value v, int64_t g) { return n.sliceAxis(v, 1, g * hidden, hidden); };
  auto clipped = [&](Value v) {
    return clip > 0 ? n.create<ClipOp>(v, n.b.getF64FloatAttr(-clip), n.b.getF64FloatAttr(clip))
                    : v;
  };
  SmallVector<SmallVector<Value>> outputs(dirs, SmallVector<Value>(steps));
  for (int64_t d = 0; d < dirs; ++d) {
    Direction &dir = directions[d];
    auto act = [&](unsigned i, Value v) -> Value {
      return activation(n, names[d * fnsPerDirection + i], clipped(v), dir.alphas[i], dir.betas[i]);
    };
    bool reverse = direction == "reverse" || d == 1;
    for (int64_t i = 0; i < steps; ++i) {
      int64_t t = reverse ? steps - 1 - i : i;
      Value previousH = dir.h, previousC = dir.c;
      Value xg = n.reshape(n.sliceAxis(dir.inputGates, 0, t, 1), {batch, gates * hidden});
      Value hr = n.matmul(dir.h, dir.recurrentWeight); // [B, gates * H]
      if (dir.recurrentBias)
        hr = n.create<AddOp>(hr, dir.recurrentBias);
      if (kind == CellKind::Rnn) {
        dir.h = act(0, n.create<AddOp>(xg, hr));
      } else if (kind == CellKind::Gru) {
        Value z = act(0, n.create<AddOp>(gate(xg, 0), gate(hr, 0)));
        Value r = act(0, n.create<AddOp>(gate(xg, 1), gate(hr, 1)));
        Value candidate;
        if (linearBeforeReset) {
          candidate = n.create<AddOp>(gate(xg, 2), n.create<MulOp>(r, gate(hr, 2)));
        } else {
          Value rh = n.matmul(n.create<MulOp>(r, dir.h),
                              n.sliceAxis(dir.recurrentWeight, 1, 2 * hidden, hidden));
          if (dir.recurrentBias)
            rh = n.create<AddOp>(rh, n.sliceAxis(dir.recurrentBias, 0, 2 * hidden, hidden));
          candidate = n.create<AddOp>(gate(xg, 2), rh);
        }
        Value h = act(1, candidate);
        Value one = n.scalarLike(z, 1.0);
        dir.h =
            n.create<AddOp>(n.create<MulOp>(n.create<SubOp>(one, z), h), n.create<MulOp>(z, dir.h));
      } else {
        Value pre = n.create<AddOp>(xg, hr);
        auto peep = [&](int64_t p, Value c) -> Value {
          return dir.peephole ? n.create<MulOp>(n.sliceAxis(dir.peephole, 0, p * hidden, hidden), c)
                              : nullptr;
        };
        auto withPeep = [&](Value v, int64_t p, Value c) {
          Value pc = peep(p, c);
          return pc ? n.create<AddOp>(v, pc) : v;
        };
        Value ig = act(0, withPeep(gate(pre, 0), 0, dir.c));
        Value fg = act(0, withPeep(gate(pre, 2), 2, dir.c));
        Value cg = act(1, gate(pre, 3));
        dir.c = n.create<AddOp>(n.create<MulOp>(fg, dir.c), n.create<MulOp>(ig, cg));
        Value og = act(0, withPeep(gate(pre, 1), 1, dir.c));
        dir.h = n.create<MulOp>(
            og, activation(n, names[d * fnsPerDirection + 2], dir.c, dir.alphas[2], dir.betas[2]));
      }
      Value out = dir.h;
      if (lengths) {
        Value valid = n.create<LessOp>(n.scalarLike(lengths, (double)t), lengths); // [B, 1]
        dir.h = n.create<WhereOp>(valid, dir.h, previousH);
        if (kind == CellKind::Lstm)
          dir.c = n.create<WhereOp>(valid, dir.c, previousC);
        out = n.create<WhereOp>(valid, out, n.scalarLike(out, 0.0));
      }
      outputs[d][t] = n.reshape(out, {1, 1, batch, hidden});
    }
  }

  auto concat = [&](ArrayRef<Value> parts, int64_t axis) {
    return parts.size() == 1 ? parts[0] : n.create<ConcatOp>(parts, n.b.getI64IntegerAttr(axis));
  };
  auto finalStates = [&](auto member) {
    SmallVector<Value> parts;
    for (Direction &dir : directions)
      parts.push_back(n.reshape(dir.*member, {1, batch, hidden}));
    Value s = concat(parts, 0); // [dirs, B, H]
    return batchMajor ? n.create<TransposeOp>(s, n.b.getDenseI64ArrayAttr({1, 0, 2})) : s;
  };
  if (n.outputUsed(0)) {
    SmallVector<Value> perDirection;
    for (int64_t d = 0; d < dirs; ++d)
      perDirection.push_back(steps ? concat(outputs[d], 0) : Value());
    Value y = concat(perDirection, 1); // [T, dirs, B, H]
    if (batchMajor)
      y = n.create<TransposeOp>(y, n.b.getDenseI64ArrayAttr({2, 0, 1, 3}));
    n.setResult(0, y);
  }
  if (n.outputUsed(1))
    n.setResult(1, finalStates(&Direction::h));
  if (kind == CellKind::Lstm && n.outputUsed(2))
    n.setResult(2, finalStates(&Direction::c));
  return success();
}
} // namespace

void infc::registerRecurrentImporters(ImportRegistry &r) {
  r["LinearAttention"] = importLinearAttention;
  r["RNN"] = [](NodeImporter &n) { return importRecurrence(n, CellKind::Rnn); };
  r["GRU"] = [](NodeImporter &n) { return importRecurrence(n, CellKind::Gru); };
  r["LSTM"] = [](NodeImporter &n) { return importRecurrence(n, CellKind::Lstm); };
}

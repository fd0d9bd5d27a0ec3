//===- ImportControlFlow.cpp - If, Scan and Loop, imported inline ----------===//
//
// With static shapes all three are resolved at import time. Scan's trip count is a static dim,
// so its body is imported once per step (unrolled), the states threaded through and the
// per-step outputs stacked; Loop likewise when its trip count and conditions fold to
// constants. If imports the branch a constant condition picks; with a
// run-time condition it imports both and selects between their results elementwise, which
// needs branches of one type each and is exact since ONNX branches have no side effects.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace infc;

namespace {
const onnx::GraphProto *graphAttr(NodeImporter &n, StringRef name) {
  const onnx::AttributeProto *a = n.typedAttr(name, onnx::AttributeProto::GRAPH);
  if (!a || !a->has_g()) {
    n.error() << "expects a '" << name << "' subgraph attribute";
    return nullptr;
  }
  return &a->g();
}

/// `v` without dim `axis` (of size 1).
Value dropAxis(NodeImporter &n, Value v, int64_t axis) {
  SmallVector<int64_t> shape(shapeOf(v));
  shape.erase(shape.begin() + axis);
  return n.reshape(v, shape);
}

/// The values stacked along a new dim `axis`.
Value stack(NodeImporter &n, ArrayRef<Value> parts, int64_t axis) {
  SmallVector<Value> expanded;
  for (Value p : parts) {
    SmallVector<int64_t> shape(shapeOf(p));
    shape.insert(shape.begin() + axis, 1);
    expanded.push_back(n.reshape(p, shape));
  }
  if (expanded.size() == 1)
    return expanded[0];
  return n.create<ConcatOp>(expanded, n.b.getI64IntegerAttr(axis));
}

/// The Scan loop of opset 9 on: `states` threaded through the body, each scan input sliced
/// along its axis per step, each per-step output stacked along its axis.
FailureOr<SmallVector<Value>> scanLoop(NodeImporter &n, const onnx::GraphProto &body,
                                       SmallVector<Value> states, ArrayRef<Value> scanInputs,
                                       ArrayRef<int64_t> inAxes, ArrayRef<int64_t> inReverse,
                                       int64_t numScanOutputs, ArrayRef<int64_t> outAxes,
                                       ArrayRef<int64_t> outReverse) {
  if (scanInputs.empty())
    return n.error() << "expects at least one scan input";
  int64_t steps = shapeOf(scanInputs[0])[inAxes[0]];
  for (auto [v, axis] : llvm::zip(scanInputs, inAxes))
    if (shapeOf(v)[axis] != steps)
      return n.error() << "scan inputs differ in length along their scan axes";
  if (steps == 0)
    return n.error() << "a scan of zero steps has no output shape";
  if (steps > kMaxUnrolledSteps)
    return n.error() << "a scan of " << steps << " steps exceeds the " << kMaxUnrolledSteps
                     << " steps it is unrolled to";
  SmallVector<SmallVector<Value>> perStep(numScanOutputs);
  for (int64_t i = 0; i < steps; ++i) {
    SmallVector<Value> args(states);
    for (auto [j, v] : llvm::enumerate(scanInputs)) {
      int64_t t = inReverse[j] ? steps - 1 - i : i;
      args.push_back(dropAxis(n, n.sliceAxis(v, inAxes[j], t, 1), inAxes[j]));
    }
    FailureOr<SmallVector<Value>> outs = n.importGraph(body, args);
    if (failed(outs))
      return failure();
    if (outs->size() != states.size() + numScanOutputs)
      return n.error() << "the body yields " << outs->size() << " values, expected "
                       << states.size() + numScanOutputs;
    for (auto [s, out] : llvm::zip(states, *outs)) {
      if (s.getType() != out.getType())
        return n.error() << "the body changes a state from " << s.getType() << " to "
                         << out.getType();
      s = out;
    }
    for (int64_t k = 0; k < numScanOutputs; ++k)
      perStep[k].push_back((*outs)[states.size() + k]);
  }
  SmallVector<Value> results(states);
  for (int64_t k = 0; k < numScanOutputs; ++k) {
    if (outReverse[k])
      std::reverse(perStep[k].begin(), perStep[k].end());
    int64_t rank = shapeOf(perStep[k][0]).size() + 1;
    int64_t axis = outAxes[k] < 0 ? outAxes[k] + rank : outAxes[k];
    if (axis < 0 || axis >= rank)
      return n.error() << "scan_output_axes value " << outAxes[k] << " is out of range";
    results.push_back(stack(n, perStep[k], axis));
  }
  return results;
}

LogicalResult importScan(NodeImporter &n) {
  const onnx::GraphProto *body = graphAttr(n, "body");
  if (!body)
    return failure();
  int64_t numScanInputs = n.getInt("num_scan_inputs", 0);
  // Opset 8 puts an optional sequence_lens first and a batch dim before the scan axis.
  bool batched = n.opset < 9;
  unsigned first = batched ? 1 : 0;
  // Checked before the subtraction: any int64 may come in.
  int64_t numStates = numScanInputs <= 0 || numScanInputs > (int64_t)n.numInputs()
                          ? -1
                          : (int64_t)n.numInputs() - first - numScanInputs;
  int64_t numScanOutputs = body->output_size() - numStates;
  if (numScanInputs <= 0 || numStates < 0 || numScanOutputs < 0)
    return n.error() << "num_scan_inputs " << numScanInputs << " does not fit the " << n.numInputs()
                     << " inputs and the body's outputs";
  if (batched && n.input(0)) {
    DenseElementsAttr lens = n.constantInput(0);
    int64_t steps = n.inputType(first + numStates).getDimSize(1);
    if (!lens || llvm::any_of(lens.getValues<APInt>(),
                              [&](const APInt &l) { return l.getSExtValue() != steps; }))
      return n.error() << "sequence_lens other than the full length are not supported";
  }
  SmallVector<Value> states, scanInputs;
  for (int64_t i = 0; i < numStates; ++i)
    states.push_back(n.input(first + i));
  for (int64_t i = 0; i < numScanInputs; ++i)
    scanInputs.push_back(n.input(first + numStates + i));
  auto list = [&](StringRef name, int64_t count, int64_t def) {
    SmallVector<int64_t> v = n.getInts(name);
    if (v.empty())
      v.assign(count, def);
    return v;
  };
  SmallVector<int64_t> inReverse =
      list(batched ? "directions" : "scan_input_directions", numScanInputs, 0);
  SmallVector<int64_t> inAxes = list("scan_input_axes", numScanInputs, 0);
  SmallVector<int64_t> outAxes = list("scan_output_axes", numScanOutputs, 0);
  SmallVector<int64_t> outReverse = list("scan_output_directions", numScanOutputs, 0);
  if ((int64_t)inReverse.size() != numScanInputs || (int64_t)inAxes.size() != numScanInputs ||
      (int64_t)outAxes.size() != numScanOutputs || (int64_t)outReverse.size() != numScanOutputs)
    return n.error() << "the scan axis and direction lists do not match the scan inputs and "
                        "outputs";
  for (auto [v, axis] : llvm::zip(scanInputs, inAxes)) {
    std::optional<int64_t> norm = n.normalizeAxis(axis, shapeOf(v).size());
    if (!norm)
      return failure();
    axis = *norm;
  }

  if (!batched) {
    FailureOr<SmallVector<Value>> results = scanLoop(
        n, *body, states, scanInputs, inAxes, inReverse, numScanOutputs, outAxes, outReverse);
    if (failed(results))
      return failure();
    for (auto [i, v] : llvm::enumerate(*results))
      n.setResult(i, v);
    return success();
  }
  // Opset 8: one loop per batch entry over axis 1, the results stacked along the batch.
  int64_t batch = shapeOf(scanInputs[0])[0];
  SmallVector<SmallVector<Value>> perBatch(numStates + numScanOutputs);
  for (int64_t bi = 0; bi < batch; ++bi) {
    SmallVector<Value> s, ins;
    for (Value v : states)
      s.push_back(dropAxis(n, n.sliceAxis(v, 0, bi, 1), 0));
    for (Value v : scanInputs)
      ins.push_back(dropAxis(n, n.sliceAxis(v, 0, bi, 1), 0));
    SmallVector<int64_t> zeros(numScanInputs, 0), outZeros(numScanOutputs, 0);
    FailureOr<SmallVector<Value>> results =
        scanLoop(n, *body, s, ins, zeros, inReverse, numScanOutputs, outZeros, outZeros);
    if (failed(results))
      return failure();
    for (auto [i, v] : llvm::enumerate(*results))
      perBatch[i].push_back(v);
  }
  for (auto [i, parts] : llvm::enumerate(perBatch))
    n.setResult(i, stack(n, parts, 0));
  return success();
}

/// Loop with a trip count and condition known at compile time (constants, or values that
/// fold, such as the count of a Range): the body imported once per iteration; each
/// iteration's condition must fold too. Loop-carried values may change shape between
/// iterations (each copy of the body has its own types).
LogicalResult importLoop(NodeImporter &n) {
  const onnx::GraphProto *body = graphAttr(n, "body");
  if (!body)
    return failure();
  if (!n.input(0) && !n.input(1))
    return n.error() << "a loop with neither a trip count nor a condition never ends";
  int64_t tripCount = kMaxUnrolledSteps + 1;
  if (n.input(0)) {
    DenseElementsAttr m = n.constantInput(0);
    if (!m)
      return n.notConstant(0, "trip count M");
    tripCount = std::max<int64_t>(0, (*m.getValues<APInt>().begin()).getSExtValue());
  }
  auto constantBool = [](Value v) -> std::optional<bool> {
    DenseElementsAttr a;
    if (!v || !matchPattern(v, m_Constant(&a)) || !a.getElementType().isInteger(1) ||
        a.getNumElements() != 1)
      return std::nullopt;
    return *a.getValues<bool>().begin();
  };
  bool cond = true;
  Value condValue = n.input(1);
  if (condValue) {
    std::optional<bool> c = constantBool(condValue);
    if (!c)
      return n.notConstant(1, "condition cond");
    cond = *c;
  }
  SmallVector<Value> carried;
  for (unsigned i = 2; i < n.numInputs(); ++i)
    carried.push_back(n.input(i));
  int64_t numScanOutputs = body->output_size() - 1 - (int64_t)carried.size();
  if (body->input_size() != (int)carried.size() + 2 || numScanOutputs < 0)
    return n.error() << "the body's inputs and outputs do not match the " << carried.size()
                     << " loop-carried values";
  SmallVector<SmallVector<Value>> perStep(numScanOutputs);
  int64_t i = 0;
  for (; i < tripCount && cond; ++i) {
    if (i == kMaxUnrolledSteps)
      return n.error() << "the loop runs more than the " << kMaxUnrolledSteps
                       << " iterations it is unrolled to";
    SmallVector<Value> args{
        n.constant(
            DenseElementsAttr::get(RankedTensorType::get({}, n.b.getI64Type()), APInt(64, i))),
        n.constant(DenseElementsAttr::get(RankedTensorType::get({}, n.b.getI1Type()), true))};
    llvm::append_range(args, carried);
    FailureOr<SmallVector<Value>> outs = n.importGraph(*body, args);
    if (failed(outs))
      return failure();
    std::optional<bool> next = constantBool((*outs)[0]);
    if (!next)
      return n.error() << "the loop condition of iteration " << i
                       << " depends on run-time values (the trip count must be static)";
    cond = *next;
    for (auto [k, v] : llvm::enumerate(carried))
      v = (*outs)[1 + k];
    for (int64_t k = 0; k < numScanOutputs; ++k)
      perStep[k].push_back((*outs)[1 + carried.size() + k]);
  }
  for (auto [k, v] : llvm::enumerate(carried))
    n.setResult(k, v);
  for (int64_t k = 0; k < numScanOutputs; ++k) {
    if (perStep[k].empty())
      return n.error() << "a loop of no iterations has no shape for scan output " << k;
    n.setResult(carried.size() + k, stack(n, perStep[k], 0));
  }
  return success();
}

LogicalResult importIf(NodeImporter &n) {
  const onnx::GraphProto *thenBranch = graphAttr(n, "then_branch");
  const onnx::GraphProto *elseBranch = graphAttr(n, "else_branch");
  if (!thenBranch || !elseBranch)
    return failure();
  RankedTensorType ct = n.inputType(0);
  if (!ct.getElementType().isInteger(1) || ct.getNumElements() != 1)
    return n.error() << "expects a single bool condition, got " << ct;
  if (DenseElementsAttr c = n.constantInput(0)) {
    FailureOr<SmallVector<Value>> outs =
        n.importGraph(c.getSplatValue<APInt>().getBoolValue() ? *thenBranch : *elseBranch, {});
    if (failed(outs))
      return failure();
    for (auto [i, v] : llvm::enumerate(*outs))
      n.setResult(i, v);
    return success();
  }
  FailureOr<SmallVector<Value>> thenOuts = n.importGraph(*thenBranch, {});
  if (failed(thenOuts))
    return failure();
  FailureOr<SmallVector<Value>> elseOuts = n.importGraph(*elseBranch, {});
  if (failed(elseOuts))
    return failure();
  if (thenOuts->size() != elseOuts->size())
    return n.error() << "the branches yield " << thenOuts->size() << " and " << elseOuts->size()
                     << " values";
  Value cond = n.reshape(n.input(0), {});
  for (auto [i, pair] : llvm::enumerate(llvm::zip(*thenOuts, *elseOuts))) {
    auto [t, e] = pair;
    if (t.getType() != e.getType())
      return n.error() << "with a run-time condition both branches must yield one type; "
                       << "output " << i << " is " << t.getType() << " or " << e.getType();
    n.setResult(i, n.create<WhereOp>(cond, t, e));
  }
  return success();
}
} // namespace

void infc::registerControlFlowImporters(ImportRegistry &r) {
  r["Scan"] = importScan;
  r["If"] = importIf;
  r["Loop"] = importLoop;
}

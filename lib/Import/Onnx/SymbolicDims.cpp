//===- SymbolicDims.cpp - where a symbolic dim may go, for now ------------===//
//
// A dim given a range with `infc compile --dim` (and not fixed otherwise) is imported as
// `?`: the library's generic code takes any size in the range. The importers and the
// lowering were written for static shapes, and arithmetic on a `?` (ShapedType::kDynamic)
// is silently wrong, so a `?` may only reach the ONNX ops whose importers were read for it,
// and, after import, the infc ops whose lowering takes it, under one rule that keeps the
// code in bounds: a `?` operand dim never broadcasts against a static one (the run could
// pass a size the static side does not have). Everything else is an error naming the node
// and the dim, never a miscompile (docs/dynamic-shapes.md).
//
//===----------------------------------------------------------------------===//
#include "ModelImporter.h"
#include "NodeImporter.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace infc;

namespace {
bool hasDynamicDim(Value v) {
  auto type = dyn_cast_or_null<RankedTensorType>(v ? v.getType() : Type());
  return type && !type.hasStaticShape();
}

/// ONNX ops whose importers build nothing from a `?` but infc ops of the same operands
/// (elementwise ops, matmul, reductions over attribute axes, softmax along the last axis).
bool takesSymbolicDims(const NodeImporter &n) {
  static const llvm::StringSet<> ops = {"Abs",       "Add",      "Ceil",       "Cos",
                                        "Div",       "Erf",      "Exp",        "Floor",
                                        "Gemm",      "Identity", "LeakyRelu",  "Log",
                                        "MatMul",    "Max",      "Min",        "Mul",
                                        "Neg",       "Pow",      "Reciprocal", "Relu",
                                        "Sigmoid",   "Sin",      "Sqrt",       "Sub",
                                        "Sum",       "Tanh",     "ReduceMax",  "ReduceMin",
                                        "ReduceSum", "Softmax",  "LogSoftmax", "LayerNormalization",
                                        "Transpose", "Cast",     "Clip",       "Equal",
                                        "Less",      "Greater",  "Not",        "Where",
                                        "And",       "Or"};
  if (!n.node.domain().empty() && n.node.domain() != "ai.onnx")
    return false;
  StringRef op = n.node.op_type();
  if (op == "Concat") {
    // Along a static axis only (importConcat drops inputs of no size along it).
    int64_t rank = n.inputType(0).getRank(), axis = n.getInt("axis", 0);
    axis = axis < 0 ? axis + rank : axis;
    for (unsigned i = 0; i < n.numInputs(); ++i)
      if (axis < 0 || axis >= rank || n.inputType(i).getRank() != rank ||
          n.inputType(i).isDynamicDim(axis))
        return false;
    return true;
  }
  if (!ops.contains(op))
    return false;
  // Before opset 13 a softmax not along the last axis flattens the input (a product of dims).
  if ((op == "Softmax" || op == "LogSoftmax") && n.opset < 13) {
    int64_t rank = n.inputType(0).getRank(), axis = n.getInt("axis", 1);
    return axis == rank - 1 || axis == -1;
  }
  return true;
}
} // namespace

LogicalResult infc::detail::ModelImporter::checkSymbolicInputs(NodeImporter &n) {
  if (symbolicDims.empty())
    return success();
  for (unsigned i = 0; i < n.numInputs(); ++i)
    if (hasDynamicDim(n.input(i)) && !takesSymbolicDims(n))
      return n.error() << "input " << i << " ('" << n.node.input(i) << "') has the symbolic dim '"
                       << symbolicDims.front()
                       << "', which this op does not take yet; fix it with --specialize "
                       << symbolicDims.front() << "=N[,N2...] or --input-shape";
  return success();
}

LogicalResult infc::detail::ModelImporter::checkSymbolicOps(ModuleOp module) {
  return symbolicDims.empty() ? success()
                              : detail::checkSymbolicOps(module, symbolicDims.front(), opset);
}

LogicalResult infc::detail::checkSymbolicOps(ModuleOp module, StringRef dim, int64_t opset) {
  auto fail = [&](Operation *op, const Twine &why) {
    InFlightDiagnostic d = emitError(op->getLoc());
    if (auto name = dyn_cast<NameLoc>(op->getLoc())) {
      StringRef node = name.getName().strref(), opType = node.rsplit('(').second;
      d << "node '" << node.rsplit('(').first << "' (" << opType.drop_back() << ", opset " << opset
        << "): ";
    }
    d << why << " (the symbolic dim '" << dim << "'; fix it with --specialize " << dim
      << "=N[,N2...] or --input-shape)";
    return WalkResult::interrupt();
  };
  WalkResult walk = module.walk([&](Operation *op) -> WalkResult {
    if (isa<func::FuncOp, func::ReturnOp, ModuleOp>(op))
      return WalkResult::advance();
    bool dynamic = llvm::any_of(op->getOperands(), hasDynamicDim) ||
                   llvm::any_of(op->getResults(), hasDynamicDim);
    if (!dynamic)
      return WalkResult::advance();
    if (auto mm = dyn_cast<MatMulOp>(op)) {
      auto lt = cast<RankedTensorType>(mm.getLhs().getType());
      auto rt = cast<RankedTensorType>(mm.getRhs().getType());
      if (rt.getRank() == 2 && rt.hasStaticShape() && !lt.isDynamicDim(lt.getRank() - 1))
        return WalkResult::advance();
      // A batch of products (attention's heads) over `?` rows, columns or depth.
      ArrayRef<int64_t> lb = lt.getShape().drop_back(2), rb = rt.getShape().drop_back(2);
      if (lt.getRank() > 2 && lb == rb && llvm::none_of(lb, ShapedType::isDynamic))
        return WalkResult::advance();
      return fail(op, "a matmul takes a symbolic dim only in the rows of its left operand, "
                      "by a static matrix, or in the matrices of a static batch");
    }
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      // One collapse or one expand whose groups have at most one `?` each (the lowering's
      // tensor.collapse_shape / expand_shape).
      auto it = cast<RankedTensorType>(reshape.getInput().getType());
      auto rt = cast<RankedTensorType>(reshape.getType());
      RankedTensorType large = it.getRank() >= rt.getRank() ? it : rt;
      RankedTensorType small = it.getRank() >= rt.getRank() ? rt : it;
      auto groups = getReassociationIndicesForCollapse(large.getShape(), small.getShape());
      bool oneEach = it == rt || (it.getRank() != rt.getRank() && groups &&
                                  llvm::all_of(*groups, [&](const ReassociationIndices &g) {
                                    return llvm::count_if(g, [&](int64_t d) {
                                             return large.isDynamicDim(d);
                                           }) <= 1;
                                  }));
      return oneEach ? WalkResult::advance()
                     : fail(op, "a reshape of a symbolic dim that is not one collapse or "
                                "expand of whole dims");
    }
    if (isa<GatherOp, SliceOp, BroadcastOp>(op))
      return WalkResult::advance();
    if (auto concat = dyn_cast<ConcatOp>(op)) {
      // Along a static axis, every input `?` where the result has one (the same size).
      auto rt = cast<RankedTensorType>(concat.getType());
      for (Value v : concat.getInputs()) {
        auto t = cast<RankedTensorType>(v.getType());
        for (int64_t d = 0; d < t.getRank(); ++d)
          if (t.isDynamicDim(d) != rt.isDynamicDim(d) ||
              (d == concat.getAxis() && t.isDynamicDim(d)))
            return fail(op, "a concatenation takes a symbolic dim only outside its axis, in "
                            "every input");
      }
      return WalkResult::advance();
    }
    if (auto mean = dyn_cast<ReduceMeanOp>(op)) {
      auto it = cast<RankedTensorType>(mean.getInput().getType());
      if (llvm::any_of(mean.getAxes(), [&](int64_t a) { return it.isDynamicDim(a); }))
        return fail(op, "a mean over a symbolic dim is not compiled yet");
      return WalkResult::advance();
    }
    if (isa<SoftmaxOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp, TransposeOp>(op))
      return WalkResult::advance();
    if (auto norm = dyn_cast<LayerNormOp>(op)) {
      auto it = cast<RankedTensorType>(norm.getInput().getType());
      for (int64_t d = norm.getAxis(); d < it.getRank(); ++d)
        if (it.isDynamicDim(d))
          return fail(op, "a normalization over a symbolic dim is not compiled yet");
      return WalkResult::advance();
    }
    // Elementwise: every `?` operand dim must meet a `?` result dim (never broadcast
    // against a static size, which the run's size may not equal).
    bool elementwise = op->hasTrait<InfcElementwise>() || isa<CastOp, WhereOp>(op);
    if (!elementwise || op->getNumResults() != 1)
      return fail(op, "this op does not take a symbolic dim yet");
    auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    for (Value v : op->getOperands()) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || !rt || t.getRank() > rt.getRank())
        return fail(op, "this op does not take a symbolic dim yet");
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (t.isDynamicDim(d) && !rt.isDynamicDim(d + rt.getRank() - t.getRank()))
          return fail(op, "a symbolic dim would broadcast against a static size");
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

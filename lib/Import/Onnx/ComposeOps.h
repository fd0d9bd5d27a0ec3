//===- ComposeOps.h - short names for building compositions of infc ops -*- C++ -*-===//
//
// Private to lib/Import/Onnx: the importers that compose ONNX ops from several infc ops
// (ImportComposite, ImportGridSample, ImportRecurrent) build them through these.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_IMPORT_ONNX_COMPOSEOPS_H
#define INFC_LIB_IMPORT_ONNX_COMPOSEOPS_H

#include "NodeImporter.h"

namespace infc {
/// Short names for the ops the compositions use; every op folds as it is built.
struct Ops {
  NodeImporter &n;

  mlir::Value k(mlir::Value like, double v) { return n.scalarLike(like, v); }
  mlir::Value add(mlir::Value a, mlir::Value b) { return n.create<AddOp>(a, b); }
  mlir::Value sub(mlir::Value a, mlir::Value b) { return n.create<SubOp>(a, b); }
  mlir::Value mul(mlir::Value a, mlir::Value b) { return n.create<MulOp>(a, b); }
  mlir::Value div(mlir::Value a, mlir::Value b) { return n.create<DivOp>(a, b); }
  mlir::Value max(mlir::Value a, mlir::Value b) { return n.create<MaxOp>(a, b); }
  mlir::Value min(mlir::Value a, mlir::Value b) { return n.create<MinOp>(a, b); }
  mlir::Value lt(mlir::Value a, mlir::Value b) { return n.create<LessOp>(a, b); }
  mlir::Value gt(mlir::Value a, mlir::Value b) { return n.create<GreaterOp>(a, b); }
  mlir::Value eq(mlir::Value a, mlir::Value b) { return n.create<EqualOp>(a, b); }
  mlir::Value logicalOr(mlir::Value a, mlir::Value b) { return n.create<OrOp>(a, b); }
  mlir::Value logicalAnd(mlir::Value a, mlir::Value b) { return n.create<AndOp>(a, b); }
  mlir::Value logicalNot(mlir::Value a) { return n.create<NotOp>(a); }
  mlir::Value where(mlir::Value c, mlir::Value a, mlir::Value b) {
    return n.create<WhereOp>(c, a, b);
  }
  mlir::Value exp(mlir::Value a) { return n.create<ExpOp>(a); }
  mlir::Value log(mlir::Value a) { return n.create<LogOp>(a); }
  mlir::Value abs(mlir::Value a) { return n.create<AbsOp>(a); }
  mlir::Value floor(mlir::Value a) { return n.create<FloorOp>(a); }
  mlir::Value clip(mlir::Value a, double lo, double hi) {
    return n.create<ClipOp>(a, n.b.getF64FloatAttr(lo), n.b.getF64FloatAttr(hi));
  }
  mlir::Value castTo(mlir::Value a, mlir::Type elementType) {
    auto type = llvm::cast<mlir::RankedTensorType>(a.getType());
    if (type.getElementType() == elementType)
      return a;
    return n.create<CastOp>(mlir::RankedTensorType::get(type.getShape(), elementType), a);
  }
  mlir::Value reduce(mlir::Value a, llvm::ArrayRef<int64_t> axes, bool keepdims, bool max = false) {
    if (axes.empty())
      return a;
    auto axesAttr = n.b.getDenseI64ArrayAttr(axes);
    if (max)
      return n.create<ReduceMaxOp>(a, axesAttr, n.b.getBoolAttr(keepdims));
    return n.create<ReduceSumOp>(a, axesAttr, n.b.getBoolAttr(keepdims));
  }
  /// log(exp(x) + 1), as the ONNX reference computes it.
  mlir::Value softplus(mlir::Value x) { return log(add(exp(x), k(x, 1.0))); }
};

/// x < 0 ? alpha * (exp(x) - 1) : x, the negative half of Elu and Selu.
inline mlir::Value elu(Ops &o, mlir::Value x, double alpha) {
  mlir::Value negative = o.mul(o.k(x, alpha), o.sub(o.exp(x), o.k(x, 1.0)));
  return o.where(o.lt(x, o.k(x, 0.0)), negative, x);
}
} // namespace infc

#endif // INFC_LIB_IMPORT_ONNX_COMPOSEOPS_H

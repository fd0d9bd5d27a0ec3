//===- ShapeInference.cpp - refine result types from type inference -------===//
#include "infc/Dialect/Infc/IR/InfcOps.h"
#include "infc/Dialect/Infc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace infc {
#define GEN_PASS_DEF_INFCSHAPEINFERENCE
#include "infc/Dialect/Infc/Transforms/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcShapeInferencePass : public infc::impl::InfcShapeInferenceBase<InfcShapeInferencePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    WalkResult result = func.walk([&](InferTypeOpInterface op) -> WalkResult {
      SmallVector<Type> inferred;
      if (failed(op.inferReturnTypes(op->getContext(), op->getLoc(), op->getOperands(),
                                     op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                                     op->getRegions(), inferred))) {
        op->emitOpError("cannot infer its result types");
        return WalkResult::interrupt();
      }
      for (auto [value, type] : llvm::zip(op->getResults(), inferred))
        if (value.getType() != type)
          value.setType(type);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();

    // The function's results follow the refined values they return.
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    auto type = FunctionType::get(&getContext(), func.getArgumentTypes(), ret.getOperandTypes());
    if (type != func.getFunctionType())
      func.setType(type);
  }
};
} // namespace

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
    if (func.isExternal()) // a declaration (the runtime kernel a decoder calls)
      return;
    WalkResult result = func.walk([&](Operation *generic) -> WalkResult {
      // Ops that keep their operand's shape but pick their element type (infc.cast)
      // infer no type; their result takes the operand's shape.
      if (generic->hasTrait<OpTrait::SameOperandsAndResultShape>() &&
          !isa<InferTypeOpInterface>(generic) && generic->getNumOperands() > 0) {
        auto from = dyn_cast<RankedTensorType>(generic->getOperand(0).getType());
        for (Value value : generic->getResults()) {
          auto to = dyn_cast<RankedTensorType>(value.getType());
          if (!from || !to || from.getRank() != to.getRank())
            continue;
          SmallVector<int64_t> shape(to.getShape());
          for (auto [mine, theirs] : llvm::zip(shape, from.getShape()))
            if (ShapedType::isDynamic(mine))
              mine = theirs;
          value.setType(RankedTensorType::get(shape, to.getElementType()));
        }
        return WalkResult::advance();
      }
      auto op = dyn_cast<InferTypeOpInterface>(generic);
      if (!op)
        return WalkResult::advance();
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

//===- DuplicateFills.cpp - one linalg.fill per user ----------------------===//
//
// CSE merges identical fills on tensors, so convolutions of the same output shape start
// from one filled tensor. Bufferized, every user but one then gets a copy of it (a kernel
// that reads and writes the whole output), and the fill is no longer right before the
// reduction, which infc-linalg-to-gpu-loops folds into its starting value. A fill of a
// tensor.empty is cheap to repeat: each user gets its own, right before it.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace infc {
#define GEN_PASS_DEF_INFCDUPLICATEFILLS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcDuplicateFillsPass
    : public infc::impl::InfcDuplicateFillsBase<InfcDuplicateFillsPass> {
  void runOnOperation() override {
    SmallVector<linalg::FillOp> fills;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill->getNumResults() == 1 && !fill->getResult(0).hasOneUse() &&
          fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
        fills.push_back(fill);
    });
    for (linalg::FillOp fill : fills) {
      auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : fill->getResult(0).getUses())
        uses.push_back(&use);
      // Every user gets its own, right before it (where the original is, something else
      // may come between it and the user).
      for (OpOperand *use : uses) {
        OpBuilder b(use->getOwner());
        IRMapping mapping;
        mapping.map(empty.getResult(), b.clone(*empty)->getResult(0));
        use->set(b.clone(*fill, mapping)->getResult(0));
      }
      fill->erase();
      if (empty->use_empty())
        empty->erase();
    }
  }
};
} // namespace

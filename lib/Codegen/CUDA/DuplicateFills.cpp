//===- DuplicateFills.cpp - one linalg.fill per user ----------------------===//
//
// CSE merges identical fills on tensors, so convolutions of the same output shape start
// from one filled tensor. Bufferized, every user but one then gets a copy of it (a kernel
// that reads and writes the whole output), and the fill is no longer right before the
// reduction, which infc-linalg-to-gpu-loops folds into its starting value. A fill of a
// tensor.empty is cheap to repeat: each user gets its own, right before it.
//
// CSE merges the tensor.empty ops too, and bufferization then writes every op whose init
// it is into one buffer, in turn: a residual add into the buffer its convolution's padding
// reads, which stops infc-linalg-to-gpu-loops from running the add in the convolution's
// kernel. Such an epilogue (an all-parallel op reading a reduction's result, its init a
// tensor.empty that is also the init of what the reduction reads, directly or through the
// all-parallel op before it) gets its own tensor.empty; the memory plan shares bytes where
// it can. (Not every user: more buffers pack less tightly, for nothing where no kernel is
// saved.)
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "infc/Codegen/Common/KernelGroups.h"

#include "mlir/IR/IRMapping.h"

namespace infc {
#define GEN_PASS_DEF_INFCDUPLICATEFILLS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcDuplicateFillsPass : public infc::impl::InfcDuplicateFillsBase<InfcDuplicateFillsPass> {
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
    // Whether `v` was written into `empty` (a linalg op's result with that init).
    auto writtenInto = [](Value v, Value empty) {
      auto producer = v.getDefiningOp<linalg::LinalgOp>();
      return producer && llvm::is_contained(producer.getDpsInits(), empty);
    };
    // Whether reduction `op` reads something written into `empty`: an input, or what the
    // all-parallel op that makes an input reads (a convolution's padding: its source).
    auto readsFrom = [&](linalg::LinalgOp op, Value empty) {
      for (Value input : op.getDpsInputs()) {
        if (writtenInto(input, empty))
          return true;
        auto producer = input.getDefiningOp<linalg::LinalgOp>();
        if (!producer || producer.getNumReductionLoops())
          continue;
        SmallVector<Value> read = producer.getDpsInputs();
        llvm::append_range(read, infc::capturedShapedValues(producer));
        if (llvm::any_of(read, [&](Value v) { return writtenInto(v, empty); }))
          return true;
      }
      return false;
    };
    // An all-parallel op writing `empty` after a reduction that reads from it.
    auto isEpilogue = [&](Operation *user, Value empty) {
      auto op = dyn_cast<linalg::LinalgOp>(user);
      return op && op.getNumReductionLoops() == 0 &&
             llvm::any_of(op.getDpsInputs(), [&](Value input) {
               auto producer = input.getDefiningOp<linalg::LinalgOp>();
               return producer && producer.getNumReductionLoops() > 0 && readsFrom(producer, empty);
             });
    };
    SmallVector<OpOperand *> shared;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (empty->getResult(0).hasOneUse())
        return;
      for (OpOperand &use : empty->getResult(0).getUses())
        if (isEpilogue(use.getOwner(), empty.getResult()))
          shared.push_back(&use);
    });
    for (OpOperand *use : shared) {
      OpBuilder b(use->getOwner());
      use->set(b.clone(*use->get().getDefiningOp())->getResult(0));
    }
  }
};
} // namespace

//===- UniqueResults.cpp - one returned buffer per result ----------------===//
//
// buffer-results-to-out-params, with hoist-static-allocs, replaces a returned memref.alloc
// by its out-parameter (the result is then computed in place) and erases the alloc. A
// buffer returned twice (two graph outputs that are one tensor: an Identity, or the
// calibration model, whose outputs are every activation) would be replaced twice and the
// pass would crash on the erased alloc. Each repeat gets a copy of its own here, so every
// returned buffer is returned once.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace infc {
#define GEN_PASS_DEF_INFCUNIQUERESULTS
#include "infc/Codegen/Common/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcUniqueResultsPass : public infc::impl::InfcUniqueResultsBase<InfcUniqueResultsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 8> seen;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        auto type = dyn_cast<MemRefType>(operand.get().getType());
        if (!type || seen.insert(operand.get()).second)
          continue;
        if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
          ret.emitOpError("returns one non-static or strided buffer twice");
          return signalPassFailure();
        }
        Value copy = memref::AllocOp::create(b, ret.getLoc(), type, b.getI64IntegerAttr(64));
        memref::CopyOp::create(b, ret.getLoc(), operand.get(), copy);
        operand.set(copy);
      }
    });
  }
};
} // namespace

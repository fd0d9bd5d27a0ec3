//===- LowerCopies.cpp - memref.copy to linalg.copy ------------------------===//
#include "infc/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace infc {
#define GEN_PASS_DEF_INFCLOWERCOPIES
#include "infc/Codegen/Common/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcLowerCopiesPass : public infc::impl::InfcLowerCopiesBase<InfcLowerCopiesPass> {
  void runOnOperation() override {
    getOperation().walk([](memref::CopyOp copy) {
      // A buffer copied onto itself (an insert_slice of a result written in place): nothing
      // to do, but linalg.copy would still read and write every element.
      if (copy.getSource() != copy.getTarget()) {
        OpBuilder b(copy);
        linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      }
      copy.erase();
    });
  }
};
} // namespace

//===- ParallelizeCopies.cpp - large fills and copies on the thread pool --===//
//
// Bufferization leaves fills (matmul accumulators, pad borders) and copies (pad interiors,
// results moved into place) as linalg ops on buffers, which become serial loops: with the
// rest of a model on two threads, tens of them a run are a serial share that caps its
// scaling. A large one at the top of the entry function becomes a parallel loop over its
// first dimension wider than 1, a slice per iteration.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"

namespace infc {
#define GEN_PASS_DEF_INFCPARALLELIZECOPIES
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcParallelizeCopiesPass
    : public infc::impl::InfcParallelizeCopiesBase<InfcParallelizeCopiesPass> {
  using InfcParallelizeCopiesBase::InfcParallelizeCopiesBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // infc-parallelize-loops judged the whole function too small to wake the workers for.
    if (func->removeAttr("infc.serial"))
      return;
    SmallVector<Operation *> ops;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (isa<linalg::CopyOp, linalg::FillOp>(op))
          ops.push_back(&op);
    for (Operation *op : ops) {
      auto linalgOp = cast<linalg::LinalgOp>(op);
      Value out = linalgOp.getDpsInits()[0];
      auto type = dyn_cast<MemRefType>(out.getType());
      if (!type || !type.hasStaticShape() || type.getRank() == 0 ||
          !type.getElementType().isIntOrFloat())
        continue;
      int64_t bytes = type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
      auto wide = llvm::find_if(type.getShape(), [](int64_t d) { return d > 1; });
      if (bytes < minBytes || wide == type.getShape().end())
        continue;
      int64_t dim = wide - type.getShape().begin();
      OpBuilder b(op);
      Location loc = op->getLoc();
      auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
      auto loop = scf::ParallelOp::create(b, loc, ValueRange{c(0)},
                                          ValueRange{c(type.getDimSize(dim))}, ValueRange{c(1)});
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Value i = loop.getInductionVars()[0];
      // The slice [0.., i, 0..] of a buffer of the same shape.
      auto slice = [&](Value buffer) {
        auto t = cast<MemRefType>(buffer.getType());
        SmallVector<OpFoldResult> offsets(t.getRank(), b.getIndexAttr(0)), sizes, strides;
        for (int64_t d = 0; d < t.getRank(); ++d) {
          sizes.push_back(b.getIndexAttr(d == dim ? 1 : t.getDimSize(d)));
          strides.push_back(b.getIndexAttr(1));
        }
        offsets[dim] = i;
        return memref::SubViewOp::create(b, loc, buffer, offsets, sizes, strides).getResult();
      };
      if (auto copy = dyn_cast<linalg::CopyOp>(op)) {
        Value source = copy.getInputs()[0];
        if (cast<MemRefType>(source.getType()).getShape() != type.getShape()) {
          loop.erase();
          continue;
        }
        linalg::CopyOp::create(b, loc, slice(source), slice(out));
      } else {
        auto fill = cast<linalg::FillOp>(op);
        linalg::FillOp::create(b, loc, fill.getInputs()[0], slice(out));
      }
      op->erase();
    }
  }
};
} // namespace

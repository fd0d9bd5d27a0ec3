//===- VectorizeCopies.cpp - copies of contiguous rows as vector moves ----===//
//
// The copies bufferization leaves (a strided subsample of a stride-2 1x1 conv's input, a
// padded interior, a tensor moved into place) become scalar loops through
// convert-linalg-to-loops, and LLVM does not vectorize them: both sides are views of the
// one workspace, which it cannot prove disjoint. A copy whose innermost dimension is
// contiguous on both sides moves those rows as whole vectors instead (ResNet-50's
// subsamples for its strided 1x1 convs: 0.13 ms of scalar moves).
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace infc {
#define GEN_PASS_DEF_INFCVECTORIZECOPIES
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// Whether `type`'s innermost dimension has unit stride.
bool innermostContiguous(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) && strides.back() == 1;
}

struct InfcVectorizeCopiesPass
    : public infc::impl::InfcVectorizeCopiesBase<InfcVectorizeCopiesPass> {
  using InfcVectorizeCopiesBase::InfcVectorizeCopiesBase;

  void runOnOperation() override {
    SmallVector<linalg::CopyOp> copies;
    getOperation().walk([&](linalg::CopyOp copy) { copies.push_back(copy); });
    for (linalg::CopyOp copy : copies)
      rewrite(copy);
  }

  void rewrite(linalg::CopyOp copy) {
    auto from = dyn_cast<MemRefType>(copy.getInputs()[0].getType());
    auto to = dyn_cast<MemRefType>(copy.getOutputs()[0].getType());
    if (!from || !to || !from.hasStaticShape() || from.getShape() != to.getShape() ||
        from.getRank() == 0 || from.getElementType() != to.getElementType() ||
        !from.getElementType().isIntOrFloat() || !innermostContiguous(from) ||
        !innermostContiguous(to))
      return;
    Type et = from.getElementType();
    int64_t bits = et.getIntOrFloatBitWidth();
    if (bits % 8 || vectorBits % bits)
      return;
    // A row shorter than a vector is still one move (the 32 channels of a pixel in an int8
    // model's NHWC im2col: 32 bytes; scalar, a byte per instruction).
    int64_t lanes = vectorBits / bits, row = from.getShape().back();
    if (row < 2)
      return;
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    auto constant = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    Value zero = constant(0), one = constant(1);
    // Loops over the outer dims, then the row in whole vectors and one shorter vector for
    // the rest; each a read and a write in bounds.
    SmallVector<Value> ivs;
    for (int64_t d = 0; d + 1 < from.getRank(); ++d) {
      auto loop = scf::ForOp::create(b, loc, zero, constant(from.getDimSize(d)), one);
      b.setInsertionPointToStart(loop.getBody());
      ivs.push_back(loop.getInductionVar());
    }
    auto move = [&](OpBuilder &mb, Location ml, Value column, int64_t width) {
      SmallVector<Value> indices(ivs);
      indices.push_back(column);
      auto type = VectorType::get({width}, et);
      Value padding = arith::ConstantOp::create(mb, ml, mb.getZeroAttr(et));
      Value v = vector::TransferReadOp::create(mb, ml, type, copy.getInputs()[0], indices, padding,
                                               ArrayRef<bool>{true});
      vector::TransferWriteOp::create(mb, ml, v, copy.getOutputs()[0], indices,
                                      ArrayRef<bool>{true});
    };
    int64_t full = row / lanes * lanes;
    if (full > 0)
      scf::ForOp::create(b, loc, zero, constant(full), constant(lanes), ValueRange{},
                         [&](OpBuilder &lb, Location ll, Value j, ValueRange) {
                           move(lb, ll, j, lanes);
                           scf::YieldOp::create(lb, ll);
                         });
    if (row > full)
      move(b, loc, constant(full), row - full);
    copy.erase();
  }
};
} // namespace

//===- PadToGeneric.cpp - tensor.pad as one elementwise loop nest ---------===//
//
// Bufferized, a tensor.pad is a fill of the whole result and then a copy of the source into
// its middle: two kernels and two writes of the interior. As a linalg.generic over the
// result that reads the source where it lies inside and takes the padding value elsewhere,
// it is one kernel writing each element once. A transpose right before the pad (the NCHW
// image into the first NHWC convolution) or right after it (an NCHW pad into an NHWC
// convolution) is folded into that loop nest, which reads the source permuted: one kernel
// less, and the padded image then fuses into the convolution as its prologue.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace infc {
#define GEN_PASS_DEF_INFCPADTOGENERIC
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// `op`, a tensor linalg.transpose, if its result has one use (the pad's).
linalg::TransposeOp soleTranspose(Operation *op) {
  auto transpose = dyn_cast_or_null<linalg::TransposeOp>(op);
  return transpose && transpose->getNumResults() == 1 && transpose->getResult(0).hasOneUse()
             ? transpose
             : linalg::TransposeOp();
}

struct InfcPadToGenericPass : public infc::impl::InfcPadToGenericBase<InfcPadToGenericPass> {
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    for (tensor::PadOp pad : pads) {
      RankedTensorType type = pad.getResultType();
      RankedTensorType sourceType = pad.getSourceType();
      Value padding = pad.getConstantPaddingValue();
      if (!padding || !type.hasStaticShape() || !sourceType.hasStaticShape() ||
          !pad.getStaticLow().size() || llvm::any_of(pad.getStaticLow(), ShapedType::isDynamic) ||
          llvm::any_of(pad.getStaticHigh(), ShapedType::isDynamic) ||
          llvm::any_of(pad.getStaticLow(), [](int64_t v) { return v < 0; }) ||
          llvm::any_of(pad.getStaticHigh(), [](int64_t v) { return v < 0; }) ||
          llvm::is_contained(sourceType.getShape(), 0))
        continue;
      OpBuilder b(pad);
      Location loc = pad.getLoc();
      // A padding value made inside the pad's region (a constant) is made again before it.
      if (padding.getParentRegion() == &pad.getRegion()) {
        Operation *def = padding.getDefiningOp();
        if (!def || !def->hasTrait<OpTrait::ConstantLike>())
          continue;
        padding = b.clone(*def)->getResult(0);
      }
      int64_t rank = type.getRank();
      // The loop nest's dim d is the pad's dim outerPerm[d] (a transpose after it).
      SmallVector<int64_t> outerPerm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      Operation *replaced = pad;
      if (pad->hasOneUse())
        if (auto after = dyn_cast<linalg::TransposeOp>(*pad->getUsers().begin());
            after && after->getNumResults() == 1 && after.getInput() == pad.getResult()) {
          outerPerm.assign(after.getPermutation().begin(), after.getPermutation().end());
          replaced = after;
        }
      SmallVector<int64_t> loopOf(rank); // the loop dim of pad dim p
      for (int64_t d = 0; d < rank; ++d)
        loopOf[outerPerm[d]] = d;
      auto resultType = cast<RankedTensorType>(replaced->getResult(0).getType());
      // The source's dim p is the transposed input's dim innerPerm[p] (a transpose before).
      Value source = pad.getSource();
      SmallVector<int64_t> innerPerm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      linalg::TransposeOp before = soleTranspose(source.getDefiningOp());
      if (before) {
        innerPerm.assign(before.getPermutation().begin(), before.getPermutation().end());
        source = before.getInput();
      }
      b.setInsertionPoint(replaced);
      Value init =
          tensor::EmptyOp::create(b, loc, resultType.getShape(), resultType.getElementType());
      SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
      SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
      ArrayRef<int64_t> low = pad.getStaticLow();
      auto generic = linalg::GenericOp::create(
          b, loc, TypeRange{resultType}, ValueRange{}, ValueRange{init}, maps, iterators,
          [&](OpBuilder &nb, Location nl, ValueRange) {
            auto c = [&](int64_t v) {
              return arith::ConstantIndexOp::create(nb, nl, v).getResult();
            };
            Value inside;
            SmallVector<Value> at;
            for (int64_t d = 0; d < rank; ++d) {
              Value i = linalg::IndexOp::create(nb, nl, loopOf[d]);
              int64_t size = sourceType.getDimSize(d);
              if (low[d] == 0 && size == type.getDimSize(d)) {
                at.push_back(i);
                continue;
              }
              // The source index, clamped so the read stays inside even where unused.
              Value shifted = arith::SubIOp::create(nb, nl, i, c(low[d]));
              Value clamped = arith::MinSIOp::create(
                  nb, nl, arith::MaxSIOp::create(nb, nl, shifted, c(0)), c(size - 1));
              Value in = arith::AndIOp::create(
                  nb, nl, arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, i, c(low[d])),
                  arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, i, c(low[d] + size)));
              inside = inside ? arith::AndIOp::create(nb, nl, inside, in).getResult() : in;
              at.push_back(clamped);
            }
            SmallVector<Value> sourceAt(rank);
            for (int64_t d = 0; d < rank; ++d)
              sourceAt[innerPerm[d]] = at[d];
            Value v = tensor::ExtractOp::create(nb, nl, source, sourceAt);
            if (inside)
              v = arith::SelectOp::create(nb, nl, inside, v, padding);
            linalg::YieldOp::create(nb, nl, v);
          });
      replaced->getResult(0).replaceAllUsesWith(generic.getResult(0));
      if (replaced != pad)
        replaced->erase();
      pad.erase();
      if (before)
        before.erase();
    }
  }
};
} // namespace

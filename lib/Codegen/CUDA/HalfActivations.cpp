//===- HalfActivations.cpp - f32 activations stored in fp16/bf16 ----------===//
//
// --precision fp16|bf16: LowerPrecision gives the contractions half operands, but what
// flows between kernels stays f32: a conv's epilogue writes f32 that the next conv's
// padding reads and truncates. Here the result of an elementwise op whose readers all just
// read its elements is stored in the half type instead (the producer truncates, every
// reader widens), so each activation crosses memory in half the bytes; the arithmetic
// around it stays f32. Mode `rounded` takes only values that every reader rounds to half
// anyway (into a contraction): the results are those of f32 storage, bit for bit.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace infc {
#define GEN_PASS_DEF_INFCHALFACTIVATIONS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// The ops that would read a value stored in half: the uses that widen each element they
/// read (`readers`), and the ops that pass the elements on unchanged (`movers`, each
/// after the one it reads from), whose results then hold halves too.
struct HalfUses {
  SmallVector<OpOperand *> readers;
  SmallVector<Operation *> movers;
};

/// Whether `c` is a float constant that `half` holds exactly.
bool exactIn(Value c, FloatType half) {
  FloatAttr attr;
  if (!matchPattern(c, m_Constant(&attr)))
    return false;
  APFloat f = attr.getValue();
  bool lost = false;
  f.convert(half.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return !lost;
}

/// Whether every use of the f32 scalar `v` ends in a truncation to `half` that would give
/// the same bits if `v` were first rounded to `half` itself: directly, or through ops that
/// commute with rounding (round to nearest is monotonic: maximumf, minimumf, negation; a
/// select against a constant `half` holds).
bool roundedToHalf(Value v, FloatType half) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto trunc = dyn_cast<arith::TruncFOp>(user)) {
      // The producer's truncation rounds to nearest (no rounding mode of its own).
      if (trunc.getType() != half || trunc.getRoundingmodeAttr())
        return false;
      continue;
    }
    // (maxnum/minnum leave the sign of equal zeros open: -0 stored for a tiny negative.)
    bool commutes = isa<arith::MaximumFOp, arith::MinimumFOp, arith::NegFOp>(user);
    if (auto select = dyn_cast<arith::SelectOp>(user))
      commutes = use.getOperandNumber() != 0 &&
                 exactIn(user->getOperand(3 - use.getOperandNumber()), half);
    if (!commutes || !roundedToHalf(user->getResult(0), half))
      return false;
  }
  return true;
}

/// Whether every use of `value`, an f32 tensor, reads its elements as they are (and with
/// `roundedOnly`, rounds them to `half` as roundedToHalf says), and if so the uses in
/// `uses`.
bool collectHalfUses(Value value, FloatType half, bool roundedOnly, HalfUses &uses) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto generic = dyn_cast<linalg::GenericOp>(user)) {
      // An output is read and written in place: it keeps its type. A value an elementwise
      // op broadcasts (a LayerNorm's mean, a mask) is small: rounding it would save
      // nothing and shift every element it meets.
      if (!generic.isDpsInput(&use) || !generic.hasPureTensorSemantics() ||
          (generic.getNumReductionLoops() == 0 &&
           !generic.getMatchingIndexingMap(&use).isPermutation()) ||
          (roundedOnly && !roundedToHalf(generic.getMatchingBlockArgument(&use), half)))
        return false;
      uses.readers.push_back(&use);
      continue;
    }
    if (auto extract = dyn_cast<tensor::ExtractOp>(user)) {
      if (roundedOnly && !roundedToHalf(extract.getResult(), half))
        return false;
      uses.readers.push_back(&use);
      continue;
    }
    bool moves =
        isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user) &&
        use.getOperandNumber() == 0;
    if (auto transpose = dyn_cast<linalg::TransposeOp>(user))
      moves = &use == transpose.getDpsInputOperand(0) && transpose.hasPureTensorSemantics();
    if (!moves)
      return false;
    uses.movers.push_back(user);
    if (!collectHalfUses(user->getResult(0), half, roundedOnly, uses))
      return false;
  }
  return true;
}

RankedTensorType withElement(Type type, Type element) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), element, tensor.getEncoding());
}

/// A new empty tensor of `like`'s sizes with elements of `element`, before `op`.
Value emptyLike(RewriterBase &rewriter, Operation *op, Value like, Type element) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, op->getLoc(), like);
  return tensor::EmptyOp::create(rewriter, op->getLoc(), sizes, element,
                                 cast<RankedTensorType>(like.getType()).getEncoding());
}

/// Every use of `value` (now of type `half`) widened back to f32 right where it was read:
/// `value` replaced by the f32 `wide` made at the rewriter's insertion point.
void widenUses(RewriterBase &rewriter, Value value, Location loc) {
  Value wide = arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), value);
  rewriter.replaceAllUsesExcept(value, wide, wide.getDefiningOp());
}

/// Stores result `index` of `op` in `half`, with `uses` (collectHalfUses') adjusted.
void storeInHalf(RewriterBase &rewriter, linalg::GenericOp op, unsigned index, FloatType half,
                 const HalfUses &uses) {
  // The producer: a half output, the yielded value truncated.
  OpOperand *init = op.getDpsInitOperand(index);
  init->set(emptyLike(rewriter, op, init->get(), half));
  op.getMatchingBlockArgument(init).setType(half);
  Operation *yield = op.getBody()->getTerminator();
  rewriter.setInsertionPoint(yield);
  Value narrow = arith::TruncFOp::create(rewriter, op.getLoc(), half, yield->getOperand(index));
  rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(index, narrow); });
  op->getResult(index).setType(withElement(op->getResult(index).getType(), half));
  // The movers, each after its source: the same op over halves.
  for (Operation *mover : uses.movers) {
    if (auto transpose = dyn_cast<linalg::TransposeOp>(mover)) {
      OpOperand *out = transpose.getDpsInitOperand(0);
      out->set(emptyLike(rewriter, transpose, out->get(), half));
      for (BlockArgument arg : transpose.getBlock()->getArguments())
        arg.setType(half);
    }
    Value result = mover->getResult(0);
    result.setType(withElement(result.getType(), half));
  }
  // The readers widen what they read.
  for (OpOperand *use : uses.readers) {
    Operation *user = use->getOwner();
    if (auto extract = dyn_cast<tensor::ExtractOp>(user)) {
      extract.getResult().setType(half);
      rewriter.setInsertionPointAfter(extract);
      widenUses(rewriter, extract.getResult(), extract.getLoc());
      continue;
    }
    auto generic = cast<linalg::GenericOp>(user);
    BlockArgument arg = generic.getMatchingBlockArgument(use);
    arg.setType(half);
    rewriter.setInsertionPointToStart(generic.getBody());
    widenUses(rewriter, arg, generic.getLoc());
  }
}

/// Whether `op`'s result `index` is an elementwise value: all loops parallel, f32, its
/// output operand only written.
bool isElementwiseResult(linalg::GenericOp op, unsigned index) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() != 0)
    return false;
  OpOperand *init = op.getDpsInitOperand(index);
  return getElementTypeOrSelf(init->get().getType()).isF32() &&
         op.getMatchingBlockArgument(init).use_empty() &&
         op.getMatchingIndexingMap(init).isPermutation();
}

struct InfcHalfActivationsPass
    : public infc::impl::InfcHalfActivationsBase<InfcHalfActivationsPass> {
  using InfcHalfActivationsBase::InfcHalfActivationsBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (mode == infc::Activations::FP32) {
      getOperation().emitError("infc-half-activations: mode 'fp32' is not half or rounded");
      return signalPassFailure();
    }
    FloatType half = infc::halfPrecisionType(ctx, precision);
    if (!half) {
      getOperation().emitError("infc-half-activations: precision '")
          << infc::nameOf(precision.getValue()) << "' is not fp16 or bf16";
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) { ops.push_back(op); });
    IRRewriter rewriter(ctx);
    for (linalg::GenericOp op : ops)
      for (unsigned index = 0; index < op.getNumDpsInits(); ++index) {
        HalfUses uses;
        if (isElementwiseResult(op, index) && !op->getResult(index).use_empty() &&
            collectHalfUses(op->getResult(index), half, mode == infc::Activations::Rounded, uses))
          storeInHalf(rewriter, op, index, half, uses);
      }
  }
};
} // namespace

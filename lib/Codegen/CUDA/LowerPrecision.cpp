//===- LowerPrecision.cpp - f16/bf16 operands, f32 accumulation -----------===//
//
// --precision fp16|bf16: the operands of every f32 matmul and convolution are stored in the
// half type (weights converted at compile time, activations by a conversion before the op)
// and widened to f32 inside it, where products and sums stay f32. A product of two halves is
// exact in f32, so this is what tensor cores compute; the bytes read are halved.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace infc {
#define GEN_PASS_DEF_INFCLOWERPRECISION
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// `value` (a tensor of f32) in `half`: a constant is converted here, anything else by an
/// elementwise conversion.
Value toHalf(OpBuilder &b, Location loc, Value value, FloatType half) {
  auto type = cast<RankedTensorType>(value.getType());
  auto halfType = RankedTensorType::get(type.getShape(), half);
  DenseElementsAttr dense;
  if (matchPattern(value, m_Constant(&dense))) {
    auto converted = dense.mapValues(half, [&](const APFloat &value) {
      APFloat f = value;
      bool lost;
      f.convert(half.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      return f.bitcastToAPInt();
    });
    return arith::ConstantOp::create(b, loc, halfType, converted);
  }
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), half);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{halfType}, ValueRange{value}, ValueRange{init},
             ArrayRef<AffineMap>{id, id}, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl,
                                       arith::TruncFOp::create(nb, nl, half, args[0]).getResult());
             })
      .getResult(0);
}

struct InfcLowerPrecisionPass : public infc::impl::InfcLowerPrecisionBase<InfcLowerPrecisionPass> {
  using InfcLowerPrecisionBase::InfcLowerPrecisionBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    FloatType half = infc::halfPrecisionType(ctx, precision);
    if (!half) {
      getOperation().emitError("infc-lower-precision: precision '")
          << infc::nameOf(precision.getValue()) << "' is not fp16 or bf16";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNchwFchwOp,
              linalg::DepthwiseConv2DNchwChwOp, linalg::Conv2DNgchwGfchwOp,
              linalg::Conv2DNhwcFhwcOp, linalg::DepthwiseConv2DNhwcHwcOp>(op) &&
          op.hasPureTensorSemantics() && llvm::all_of(op->getOperandTypes(), [](Type t) {
            return getElementTypeOrSelf(t).isF32();
          }))
        ops.push_back(op);
    });
    IRRewriter rewriter(ctx);
    for (linalg::LinalgOp named : ops) {
      rewriter.setInsertionPoint(named);
      FailureOr<linalg::GenericOp> generalized = linalg::generalizeNamedOp(rewriter, named);
      if (failed(generalized))
        continue;
      linalg::GenericOp op = *generalized;
      Block *body = op.getBody();
      rewriter.setInsertionPoint(op);
      for (OpOperand *input : op.getDpsInputOperands()) {
        Value halfInput = toHalf(rewriter, op.getLoc(), input->get(), half);
        input->set(halfInput);
        // The payload widens the half back to f32 before it multiplies.
        BlockArgument arg = op.getMatchingBlockArgument(input);
        arg.setType(half);
        rewriter.setInsertionPointToStart(body);
        Value wide = arith::ExtFOp::create(rewriter, op.getLoc(), rewriter.getF32Type(), arg);
        rewriter.replaceAllUsesExcept(arg, wide, wide.getDefiningOp());
        rewriter.setInsertionPoint(op);
      }
    }
  }
};
} // namespace

FloatType infc::halfPrecisionType(MLIRContext *ctx, infc::Precision precision) {
  if (precision == infc::Precision::FP16)
    return Float16Type::get(ctx);
  if (precision == infc::Precision::BF16)
    return BFloat16Type::get(ctx);
  return {};
}

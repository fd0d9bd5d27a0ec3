//===- NarrowIntegerOperands.cpp - int8 products that read bytes -----------===//
//
// An int8 model's matmuls and convolutions multiply i32 tensors that hold 8-bit numbers:
// activations widened by an elementwise extension of their bytes, weights as i32
// constants in the s8 range (w - zw, folded by infc-fold-qdq). On the GPU the widening
// belongs inside the product: it then reads a quarter of the bytes, and its operands are
// what the int8 tensor cores multiply (mma.sync takes either signedness on each side: the
// common uint8 activations times int8 weights as they are). Every i32 matmul, batch matmul
// and NCHW convolution on tensors with such an operand is generalized to read the bytes
// and extend them in its payload.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace infc {
#define GEN_PASS_DEF_INFCNARROWINTEGEROPERANDS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// An operand's 8-bit values: the bytes and how they widen (a constant's values: signed).
struct Bytes {
  Value value;
  bool isUnsigned = false;
};

bool isIdentityElementwise(linalg::GenericOp g) {
  return g.getNumLoops() == g.getNumParallelLoops() &&
         llvm::all_of(g.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); });
}

/// The bytes that `value` (an i32 tensor) widens, if it is widened bytes.
std::optional<Bytes> bytesOf(OpBuilder &b, Location loc, Value value) {
  // A matmul's [batch, rows, K] activations reach it reshaped to [batch * rows, K].
  if (auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>()) {
    std::optional<Bytes> bytes = bytesOf(b, loc, collapse.getSrc());
    if (!bytes)
      return std::nullopt;
    auto type = collapse.getResultType().clone(b.getI8Type());
    bytes->value = tensor::CollapseShapeOp::create(b, loc, type, bytes->value,
                                                   collapse.getReassociationIndices());
    return bytes;
  }
  if (auto g = value.getDefiningOp<linalg::GenericOp>()) {
    Block &body = g.getRegion().front();
    if (g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 || !isIdentityElementwise(g) ||
        body.getOperations().size() != 2)
      return std::nullopt;
    Operation &ext = body.front();
    if (!isa<arith::ExtSIOp, arith::ExtUIOp>(ext) || ext.getOperand(0) != body.getArgument(0) ||
        !ext.getOperand(0).getType().isInteger(8) ||
        body.getTerminator()->getOperand(0) != ext.getResult(0))
      return std::nullopt;
    return Bytes{g.getDpsInputOperand(0)->get(), isa<arith::ExtUIOp>(ext)};
  }
  DenseIntElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)) || !dense.getElementType().isInteger(32))
    return std::nullopt;
  for (const APInt &v : dense.getValues<APInt>())
    if (v.getSExtValue() < -128 || v.getSExtValue() > 127)
      return std::nullopt;
  Type i8 = b.getI8Type();
  auto narrow = dense.mapValues(i8, [](const APInt &v) { return v.trunc(8); });
  return Bytes{arith::ConstantOp::create(b, loc, narrow.getType(), narrow), false};
}

struct InfcNarrowIntegerOperandsPass
    : public infc::impl::InfcNarrowIntegerOperandsBase<InfcNarrowIntegerOperandsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNchwFchwOp,
              linalg::Conv2DNhwcFhwcOp>(op) &&
          op.hasPureTensorSemantics() && llvm::all_of(op->getOperandTypes(), [](Type t) {
            return getElementTypeOrSelf(t).isInteger(32);
          }))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp named : ops)
      narrow(rewriter, named);
  }

  void narrow(IRRewriter &rewriter, linalg::LinalgOp named) {
    Location loc = named.getLoc();
    rewriter.setInsertionPoint(named);
    std::optional<Bytes> bytes[2] = {bytesOf(rewriter, loc, named.getDpsInputs()[0]),
                                     bytesOf(rewriter, loc, named.getDpsInputs()[1])};
    if (!bytes[0] && !bytes[1])
      return;
    FailureOr<linalg::GenericOp> generalized = linalg::generalizeNamedOp(rewriter, named);
    if (failed(generalized))
      return;
    linalg::GenericOp op = *generalized;
    rewriter.setInsertionPoint(op);
    Block *body = op.getBody();
    for (auto [input, narrowed] : llvm::zip(op.getDpsInputOperands(), bytes)) {
      if (!narrowed)
        continue;
      input->set(narrowed->value);
      BlockArgument arg = op.getMatchingBlockArgument(input);
      arg.setType(rewriter.getI8Type());
      rewriter.setInsertionPointToStart(body);
      Type i32 = rewriter.getI32Type();
      Value wide = narrowed->isUnsigned
                       ? arith::ExtUIOp::create(rewriter, loc, i32, arg).getResult()
                       : arith::ExtSIOp::create(rewriter, loc, i32, arg).getResult();
      rewriter.replaceAllUsesExcept(arg, wide, wide.getDefiningOp());
    }
  }
};
} // namespace

//===- NarrowIntegerOperands.cpp - int8 products that read bytes -----------===//
//
// An int8 model's matmuls and convolutions multiply i32 tensors that hold 8-bit numbers:
// activations widened by an elementwise extension of their bytes, weights as i32
// constants in the s8 range (w - zw, folded by infc-fold-qdq). On the GPU the widening
// belongs inside the product: it then reads a quarter of the bytes, and its operands are
// what the int8 tensor cores multiply. Every i32 matmul, batch matmul and NCHW convolution
// on tensors with such an operand is generalized to read the bytes and extend them in its
// payload.
//
// WMMA multiplies two signed or two unsigned byte matrices, never one of each, and the
// common int8 model has uint8 activations and int8 weights. There the activations are
// shifted to signed (x - 128: the top bit flipped) and the product gets back
// 128 x the weights' sum over the reduction, a constant per output column, added by an
// elementwise op that fuses into the epilogue: sum((x - 128) w) + 128 sum(w) = sum(x w),
// exactly.
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
  DenseIntElementsAttr constant; // the i32 values, for a constant
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
    if (!bytes || bytes->constant)
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
    return Bytes{g.getDpsInputOperand(0)->get(), isa<arith::ExtUIOp>(ext), {}};
  }
  DenseIntElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)) || !dense.getElementType().isInteger(32))
    return std::nullopt;
  for (const APInt &v : dense.getValues<APInt>())
    if (v.getSExtValue() < -128 || v.getSExtValue() > 127)
      return std::nullopt;
  Type i8 = b.getI8Type();
  auto narrow = dense.mapValues(i8, [](const APInt &v) { return v.trunc(8); });
  return Bytes{arith::ConstantOp::create(b, loc, narrow.getType(), narrow), false, dense};
}

/// An elementwise op of result `type` over `inputs` (read through `maps`), its payload
/// built by `fn`.
Value elementwise(OpBuilder &b, Location loc, ValueRange inputs, ArrayRef<AffineMap> maps,
                  RankedTensorType type,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  SmallVector<AffineMap> all(maps);
  all.push_back(b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::parallel);
  return linalg::GenericOp::create(b, loc, TypeRange{type}, inputs, ValueRange{init}, all,
                                   iterators,
                                   [&](OpBuilder &nb, Location nl, ValueRange args) {
                                     linalg::YieldOp::create(nb, nl, fn(nb, nl, args));
                                   })
      .getResult(0);
}

/// 128 x the sum of `weights` (input `w` of `op`) over the reduction, as a constant over
/// the output dims it varies with, and the map from the output's indices to it. None if a
/// weight index mixes parallel and reduction dims or the sums could overflow.
std::optional<std::pair<Value, AffineMap>> weightSums(OpBuilder &b, linalg::GenericOp op,
                                                      unsigned w, DenseIntElementsAttr weights) {
  AffineMap map = op.getIndexingMapsArray()[w];
  AffineMap outMap = op.getIndexingMapsArray().back();
  auto shape = cast<RankedTensorType>(weights.getType()).getShape();
  SmallVector<int64_t> keptDims, keptSizes; // weight dims that stay, their sizes
  SmallVector<AffineExpr> toKept;           // output index -> kept weight index
  for (auto [j, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    bool parallel = dim && !linalg::isReductionIterator(
                               op.getIteratorTypesArray()[dim.getPosition()]);
    if (!parallel) {
      for (unsigned d = 0; d < op.getNumLoops(); ++d)
        if (expr.isFunctionOfDim(d) &&
            !linalg::isReductionIterator(op.getIteratorTypesArray()[d]))
          return std::nullopt; // mixes parallel and reduction dims
      continue;
    }
    std::optional<unsigned> pos = outMap.getResultPosition(dim);
    if (!pos)
      return std::nullopt;
    keptDims.push_back(j);
    keptSizes.push_back(shape[j]);
    toKept.push_back(b.getAffineDimExpr(*pos));
  }
  int64_t kept = 1;
  for (int64_t s : keptSizes)
    kept *= s;
  std::vector<int64_t> sums(kept, 0), absSums(kept, 0);
  SmallVector<int64_t> index(shape.size(), 0);
  for (const APInt &v : weights.getValues<APInt>()) {
    int64_t slot = 0;
    for (auto [d, size] : llvm::zip(keptDims, keptSizes))
      slot = slot * size + index[d];
    sums[slot] += v.getSExtValue();
    absSums[slot] += std::abs(v.getSExtValue());
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0 && ++index[d] == shape[d]; --d)
      index[d] = 0;
  }
  SmallVector<int32_t> values;
  for (auto [s, a] : llvm::zip(sums, absSums)) {
    if (255 * a > INT32_MAX) // the shifted product's partial sums stay in range
      return std::nullopt;
    values.push_back((int32_t)(128 * s));
  }
  auto type = RankedTensorType::get(keptSizes, b.getI32Type());
  Value constant = arith::ConstantOp::create(
      b, op.getLoc(), type, DenseElementsAttr::get(type, ArrayRef<int32_t>(values)));
  return std::make_pair(constant,
                        AffineMap::get(outMap.getNumResults(), 0, toKept, b.getContext()));
}

struct InfcNarrowIntegerOperandsPass
    : public infc::impl::InfcNarrowIntegerOperandsBase<InfcNarrowIntegerOperandsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNchwFchwOp>(op) &&
          op.hasPureTensorSemantics() &&
          llvm::all_of(op->getOperandTypes(),
                       [](Type t) { return getElementTypeOrSelf(t).isInteger(32); }))
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
    // uint8 activations times int8 constant weights: the activations shifted to signed.
    std::optional<std::pair<Value, AffineMap>> sums;
    for (unsigned u = 0; u < 2; ++u) {
      std::optional<Bytes> &x = bytes[u], &w = bytes[1 - u];
      if (!x || !w || !x->isUnsigned || x->constant || !w->constant)
        continue;
      sums = weightSums(rewriter, op, 1 - u, w->constant);
      if (!sums)
        break;
      auto type = cast<RankedTensorType>(x->value.getType());
      SmallVector<AffineMap> id(1, rewriter.getMultiDimIdentityMap(type.getRank()));
      x->value = elementwise(rewriter, loc, x->value, id, type,
                             [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                               Value top = arith::ConstantIntOp::create(nb, nl, -128, 8);
                               return arith::XOrIOp::create(nb, nl, args[0], top);
                             });
      x->isUnsigned = false;
    }
    Block *body = op.getBody();
    for (auto [input, narrowed] : llvm::zip(op.getDpsInputOperands(), bytes)) {
      if (!narrowed)
        continue;
      input->set(narrowed->value);
      BlockArgument arg = op.getMatchingBlockArgument(input);
      arg.setType(rewriter.getI8Type());
      rewriter.setInsertionPointToStart(body);
      Type i32 = rewriter.getI32Type();
      Value wide = narrowed->isUnsigned ? arith::ExtUIOp::create(rewriter, loc, i32, arg).getResult()
                                        : arith::ExtSIOp::create(rewriter, loc, i32, arg).getResult();
      rewriter.replaceAllUsesExcept(arg, wide, wide.getDefiningOp());
    }
    if (!sums)
      return;
    // The shift's 128 x sum(w) back, after the product.
    rewriter.setInsertionPointAfter(op);
    Value product = op.getResult(0);
    auto type = cast<RankedTensorType>(product.getType());
    Value corrected = elementwise(
        rewriter, loc, ValueRange{product, sums->first},
        {rewriter.getMultiDimIdentityMap(type.getRank()), sums->second}, type,
        [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          return arith::AddIOp::create(nb, nl, args[0], args[1]);
        });
    rewriter.replaceAllUsesExcept(product, corrected, corrected.getDefiningOp());
  }
};
} // namespace

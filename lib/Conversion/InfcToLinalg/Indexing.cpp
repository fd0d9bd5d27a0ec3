//===- Indexing.cpp - infc pad, cumsum, scatter and topk to linalg and scf loops ===//
//
// pad is a tensor.pad (constant mode) or a linalg.generic reading through computed indices.
// The others carry state from element to element (a running sum, writes at run-time
// positions, a sorted prefix), so they are scf.for nests over tensor iter_args with scalar
// tensor.extract/tensor.insert bodies; one-shot bufferization turns these into in-place
// loads and stores.
//
//===----------------------------------------------------------------------===//
#include "PopulatePatterns.h"
#include "Utils.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace infc;
using namespace infc::lowering;

namespace {
Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// A loop nest over `shape` carrying `iterArgs`; `body` gets the induction variables.
SmallVector<Value>
loopNest(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, ValueRange iterArgs,
         function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t s : shape) {
    lbs.push_back(indexConst(b, loc, 0));
    ubs.push_back(indexConst(b, loc, s));
    steps.push_back(indexConst(b, loc, 1));
  }
  return scf::buildLoopNest(b, loc, lbs, ubs, steps, iterArgs,
                            [&](OpBuilder &nb, Location nl, ValueRange ivs, ValueRange args) {
                              return body(nb, nl, ivs, args);
                            })
      .results;
}

/// `input` collapsed to [prod(dims < axis), dim(axis), prod(dims > axis)].
Value collapseAround(OpBuilder &b, Location loc, Value input, int64_t axis) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d < axis)
      outer *= type.getDimSize(d);
    else if (d > axis)
      inner *= type.getDimSize(d);
  return reshapeTensor(
      b, loc, input,
      RankedTensorType::get({outer, type.getDimSize(axis), inner}, type.getElementType()));
}

/// A negative index counts from the end; the result is then clamped into [0, dim).
Value wrapAndClamp(OpBuilder &b, Location loc, Value idx, int64_t dim) {
  idx = arith::IndexCastOp::create(b, loc, b.getIndexType(), idx);
  Value zero = indexConst(b, loc, 0);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, zero);
  idx = arith::SelectOp::create(b, loc, neg,
                                arith::AddIOp::create(b, loc, idx, indexConst(b, loc, dim)), idx);
  idx = arith::MinSIOp::create(b, loc, idx, indexConst(b, loc, dim - 1));
  return arith::MaxSIOp::create(b, loc, idx, zero);
}

/// `x mod n` in [0, n) for any sign of x.
Value positiveMod(OpBuilder &b, Location loc, Value x, int64_t n) {
  Value nv = indexConst(b, loc, n);
  Value r = arith::RemSIOp::create(b, loc, x, nv);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, indexConst(b, loc, 0));
  return arith::SelectOp::create(b, loc, neg, arith::AddIOp::create(b, loc, r, nv), r);
}

Value addScalars(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

/// constant mode: tensor.pad with the (run-time) value; the other modes: a generic whose
/// body maps each result index back into the input.
struct PadLowering : public OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = loweredType(op.getType());
    Value input = adaptor.getInput();
    auto it = cast<RankedTensorType>(input.getType());
    ArrayRef<int64_t> low = op.getLow(), high = op.getHigh();
    StringRef mode = op.getMode();
    if (mode == "constant") {
      Value value = adaptor.getValue()
                        ? tensor::ExtractOp::create(rewriter, loc, adaptor.getValue(), ValueRange{})
                              .getResult()
                        : arith::ConstantOp::create(rewriter, loc,
                                                    rewriter.getZeroAttr(type.getElementType()))
                              .getResult();
      MLIRContext *ctx = rewriter.getContext();
      rewriter.replaceOpWithNewOp<tensor::PadOp>(op, type, input, getAsIndexOpFoldResult(ctx, low),
                                                 getAsIndexOpFoldResult(ctx, high), value);
      return success();
    }
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
    SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{
            AffineMap::getMultiDimIdentityMap(type.getRank(), rewriter.getContext())},
        iterators, [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < type.getRank(); ++d) {
            Value i = linalg::IndexOp::create(b, l, d);
            int64_t n = it.getDimSize(d);
            if (low[d] == 0 && high[d] == 0) {
              indices.push_back(i);
              continue;
            }
            Value j = arith::SubIOp::create(b, l, i, indexConst(b, l, low[d]));
            if (mode == "edge") {
              j = arith::MaxSIOp::create(b, l,
                                         arith::MinSIOp::create(b, l, j, indexConst(b, l, n - 1)),
                                         indexConst(b, l, 0));
            } else if (mode == "wrap") {
              j = positiveMod(b, l, j, n);
            } else if (n == 1) { // reflect of a single element
              j = indexConst(b, l, 0);
            } else { // reflect: period 2(n-1), the second half mirrored
              int64_t period = 2 * (n - 1);
              Value r = positiveMod(b, l, j, period);
              Value upper =
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, r, indexConst(b, l, n));
              j = arith::SelectOp::create(
                  b, l, upper, arith::SubIOp::create(b, l, indexConst(b, l, period), r), r);
            }
            indices.push_back(j);
          }
          linalg::YieldOp::create(b, l,
                                  tensor::ExtractOp::create(b, l, input, indices).getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

Value mulScalars(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

/// cumsum / cumprod on the input collapsed to [outer, n, inner]: each row of the result is
/// the previous row (already written) combined with one input row, so the innermost loop
/// runs along the contiguous dim.
template <typename OpTy> struct CumulativeLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  static constexpr bool isProduct = std::is_same_v<OpTy, CumProdOp>;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = loweredType(op.getType());
    Type et = type.getElementType();
    if (!isa<FloatType, IntegerType>(et) || et.isInteger(1))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Value x = collapseAround(rewriter, loc, adaptor.getInput(), op.getAxis());
    auto xt = cast<RankedTensorType>(x.getType());
    int64_t n = xt.getDimSize(1);
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    Value init = tensor::EmptyOp::create(rewriter, loc, xt.getShape(), et);
    SmallVector<Value> result = loopNest(
        rewriter, loc, xt.getShape(), ValueRange{init},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) -> SmallVector<Value> {
          Value o = ivs[0], s = ivs[1], q = ivs[2];
          // Row i of the result, from row `prev` (the one written before it).
          Value last = indexConst(b, l, n - 1);
          Value i = reverse ? arith::SubIOp::create(b, l, last, s).getResult() : s;
          Value first =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, s, indexConst(b, l, 0));
          Value prev = reverse ? arith::AddIOp::create(b, l, i, indexConst(b, l, 1)).getResult()
                               : arith::SubIOp::create(b, l, i, indexConst(b, l, 1)).getResult();
          prev = arith::SelectOp::create(b, l, first, i, prev); // in bounds on the first row
          Value xi = tensor::ExtractOp::create(b, l, x, ValueRange{o, i, q});
          Value xp = tensor::ExtractOp::create(b, l, x, ValueRange{o, prev, q});
          Value sp = tensor::ExtractOp::create(b, l, args[0], ValueRange{o, prev, q});
          // The first row is the identity (0, or 1 for a product) when exclusive.
          Value identity = isProduct ? scalar(b, l, et, 1.0)
                                     : arith::ConstantOp::create(b, l, b.getZeroAttr(et));
          Value v = isProduct ? mulScalars(b, l, sp, exclusive ? xp : xi)
                              : addScalars(b, l, sp, exclusive ? xp : xi);
          v = arith::SelectOp::create(b, l, first, exclusive ? identity : xi, v);
          return {tensor::InsertOp::create(b, l, v, args[0], ValueRange{o, i, q}).getResult()};
        });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, result[0], type));
    return success();
  }
};

/// combine(old, update) for a scatter reduction; i1 treats add/max as or, mul/min as and.
Value combineScalars(OpBuilder &b, Location loc, StringRef reduction, Value old, Value upd,
                     bool isUnsigned) {
  Type et = old.getType();
  bool isFloat = isa<FloatType>(et), isBool = et.isInteger(1);
  if (reduction == "add")
    return isFloat  ? (Value)arith::AddFOp::create(b, loc, old, upd)
           : isBool ? (Value)arith::OrIOp::create(b, loc, old, upd)
                    : (Value)arith::AddIOp::create(b, loc, old, upd);
  if (reduction == "mul")
    return isFloat  ? (Value)arith::MulFOp::create(b, loc, old, upd)
           : isBool ? (Value)arith::AndIOp::create(b, loc, old, upd)
                    : (Value)arith::MulIOp::create(b, loc, old, upd);
  if (reduction == "max")
    return isFloat      ? (Value)arith::MaximumFOp::create(b, loc, old, upd)
           : isBool     ? (Value)arith::OrIOp::create(b, loc, old, upd)
           : isUnsigned ? (Value)arith::MaxUIOp::create(b, loc, old, upd)
                        : (Value)arith::MaxSIOp::create(b, loc, old, upd);
  if (reduction == "min")
    return isFloat      ? (Value)arith::MinimumFOp::create(b, loc, old, upd)
           : isBool     ? (Value)arith::AndIOp::create(b, loc, old, upd)
           : isUnsigned ? (Value)arith::MinUIOp::create(b, loc, old, upd)
                        : (Value)arith::MinSIOp::create(b, loc, old, upd);
  return upd;
}

/// scatter: a loop over the updates in row-major order, each read-modify-writing one
/// element of the result (which starts as a copy of data).
struct ScatterLowering : public OpConversionPattern<ScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ScatterOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices(), updates = adaptor.getUpdates();
    auto dt = cast<RankedTensorType>(data.getType());
    auto it = cast<RankedTensorType>(indices.getType());
    int64_t axis = op.getAxis(), dim = dt.getDimSize(axis);
    StringRef reduction = op.getReduction();
    bool isUnsignedInt = isUnsigned(op.getData().getType());
    SmallVector<Value> result = loopNest(
        rewriter, loc, it.getShape(), ValueRange{data},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) -> SmallVector<Value> {
          Value idx = tensor::ExtractOp::create(b, l, indices, ivs);
          SmallVector<Value> dest(ivs);
          dest[axis] = wrapAndClamp(b, l, idx, dim);
          Value v = tensor::ExtractOp::create(b, l, updates, ivs);
          if (reduction != "none")
            v = combineScalars(b, l, reduction, tensor::ExtractOp::create(b, l, args[0], dest), v,
                               isUnsignedInt);
          return {tensor::InsertOp::create(b, l, v, args[0], dest).getResult()};
        });
    rewriter.replaceOp(op, result[0]);
    return success();
  }
};

/// topk on the input collapsed to [outer, n, inner]: every element in index order is
/// bubbled into a sorted prefix of length k (O(n k)). Slot p is still empty while p >= j;
/// among equal values the lower index goes first.
struct TopKLowering : public OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TopKOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType vt = loweredType(op.getValues().getType());
    auto idt = cast<RankedTensorType>(op.getIndices().getType());
    bool isUnsignedInt = isUnsigned(op.getValues().getType());
    Type et = vt.getElementType();
    if (!isa<FloatType, IntegerType>(et) || et.isInteger(1))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    int64_t axis = op.getAxis(), k = op.getK();
    bool largest = op.getLargest();
    Value x = collapseAround(rewriter, loc, adaptor.getInput(), axis);
    auto xt = cast<RankedTensorType>(x.getType());
    int64_t outer = xt.getDimSize(0), n = xt.getDimSize(1), inner = xt.getDimSize(2);
    auto vals3 = RankedTensorType::get({outer, k, inner}, et);
    auto idx3 = RankedTensorType::get({outer, k, inner}, rewriter.getI64Type());
    Value vals = filled(rewriter, loc, vals3, rewriter.getZeroAttr(et));
    Value idxs = filled(rewriter, loc, idx3, rewriter.getI64IntegerAttr(0));
    SmallVector<Value> result = loopNest(
        rewriter, loc, {outer, inner, n}, ValueRange{vals, idxs},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) -> SmallVector<Value> {
          Value o = ivs[0], q = ivs[1], j = ivs[2];
          Value cv = tensor::ExtractOp::create(b, l, x, ValueRange{o, j, q});
          Value ci = arith::IndexCastOp::create(b, l, b.getI64Type(), j);
          auto loop = scf::ForOp::create(
              b, l, indexConst(b, l, 0), indexConst(b, l, k), indexConst(b, l, 1),
              ValueRange{args[0], args[1], cv, ci},
              [&](OpBuilder &ib, Location il, Value p, ValueRange st) {
                Value bv = tensor::ExtractOp::create(ib, il, st[0], ValueRange{o, p, q});
                Value bi = tensor::ExtractOp::create(ib, il, st[1], ValueRange{o, p, q});
                // Ahead by value, or equal with the lower index (a displaced candidate
                // can meet an equal value of a higher index further down).
                Value ahead, equal;
                if (isa<FloatType>(et)) {
                  ahead = arith::CmpFOp::create(
                      ib, il, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
                      st[2], bv);
                  equal = arith::CmpFOp::create(ib, il, arith::CmpFPredicate::OEQ, st[2], bv);
                } else {
                  ahead = arith::CmpIOp::create(
                      ib, il,
                      isUnsignedInt
                          ? (largest ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult)
                          : (largest ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt),
                      st[2], bv);
                  equal = arith::CmpIOp::create(ib, il, arith::CmpIPredicate::eq, st[2], bv);
                }
                Value lowerIndex =
                    arith::CmpIOp::create(ib, il, arith::CmpIPredicate::slt, st[3], bi);
                Value better = arith::OrIOp::create(
                    ib, il, ahead, arith::AndIOp::create(ib, il, equal, lowerIndex));
                Value empty = arith::CmpIOp::create(ib, il, arith::CmpIPredicate::sge, p, j);
                Value swap = arith::OrIOp::create(ib, il, empty, better);
                Value nv = arith::SelectOp::create(ib, il, swap, st[2], bv);
                Value ni = arith::SelectOp::create(ib, il, swap, st[3], bi);
                Value v2 = tensor::InsertOp::create(ib, il, nv, st[0], ValueRange{o, p, q});
                Value i2 = tensor::InsertOp::create(ib, il, ni, st[1], ValueRange{o, p, q});
                Value cv2 = arith::SelectOp::create(ib, il, swap, bv, st[2]);
                Value ci2 = arith::SelectOp::create(ib, il, swap, bi, st[3]);
                scf::YieldOp::create(ib, il, ValueRange{v2, i2, cv2, ci2});
              });
          return {loop.getResult(0), loop.getResult(1)};
        });
    rewriter.replaceOp(op, {reshapeTensor(rewriter, loc, result[0], vt),
                            reshapeTensor(rewriter, loc, result[1], idt)});
    return success();
  }
};
} // namespace

void infc::populateIndexingPatterns(RewritePatternSet &patterns) {
  patterns.add<PadLowering, CumulativeLowering<CumSumOp>, CumulativeLowering<CumProdOp>,
               ScatterLowering, TopKLowering>(patterns.getContext());
}

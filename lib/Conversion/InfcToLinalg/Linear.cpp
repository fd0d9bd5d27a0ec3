//===- Linear.cpp - infc matmul and conv to named linalg ops --------------===//
#include "PopulatePatterns.h"
#include "Utils.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"
#include "infc/Support/Choices.h"
#include "infc/Support/Markers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace infc;
using namespace infc::lowering;

namespace {
/// Rows of the static matmuls a dynamic row count is cut into (rowBlockedMatmul): whole
/// register tiles of AVX2's (6 rows) and AVX-512's (8) kernels, then 16 (a short sequence
/// whole), 8 (a decoder step of 8 sequences: one pass over the weights instead of two),
/// fewer, one. Measured on a 12-layer encoder (hidden 256, Zen 3, 1 thread) against the
/// static library: seq 128 0.98x (16, 4, 1: 1.04x), seq 16 1.07x (24, 4, 1: 1.33x); the 8
/// took SmolLM2's 8-sequence decode from 157 to 220 tokens/s (Zen 4, 1 thread). The 2 makes
/// a step of 2 or 3 rows (a decode step with one or two drafts) one or two passes.
constexpr int64_t kDynamicRowBlocks[] = {24, 16, 8, 4, 2, 1};
} // namespace

/// A[rows, k] x B[k, n] with a run-time row count T (rowCount, else A's rows): static
/// matmuls over blocks of rows (kDynamicRowBlocks), each into a slice of the result. The
/// largest block H <= T covers [0, R) whole (R = T - T % H); the rest, r = T - R rows, is
/// one block of the smallest size B >= r over the last B rows (at T - B), so a few rows are
/// computed twice. A block overwrites its rows with their whole product (zeroed first),
/// so a row computed twice is the same either time. Why: a pass of a block over B reads
/// all the weights, which for a few rows costs more than their products: a 7-row step of
/// a decoder (speculative decoding's drafts) is two passes of 4 rows, not 4 + 1 + 1 + 1.
/// The codegen register-tiles and vectorizes each block as any static matmul, with B
/// packed at compile time (docs/dynamic-shapes.md, step e; one row is the batch-1 kernel).
Value infc::lowering::rowBlockedMatmul(OpBuilder &b, Location loc, Value a, Value rhs, Value result,
                                       Value rowCount, StringRef mark) {
  ArrayRef<int64_t> blocks = kDynamicRowBlocks;
  auto at = cast<RankedTensorType>(a.getType());
  auto ct = cast<RankedTensorType>(result.getType());
  int64_t k = at.getDimSize(1), n = ct.getDimSize(1);
  Type et = ct.getElementType();
  Value rows = rowCount ? rowCount : (Value)tensor::DimOp::create(b, loc, a, 0);
  auto index = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
  auto select = [&](Value c, Value x, Value y) -> Value {
    return arith::SelectOp::create(b, loc, c, x, y);
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, p, x, y);
  };
  // H: the largest block <= T (blocks.back() is 1); R: its whole blocks' end; r: the rest.
  Value head = index(blocks.back());
  for (int64_t block : llvm::reverse(blocks.drop_back()))
    head = select(cmp(arith::CmpIPredicate::uge, rows, index(block)), index(block), head);
  Value whole = arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, rows, head), head);
  Value rest = arith::SubIOp::create(b, loc, rows, whole);
  // The tail's block: the smallest >= r (0, none, when r is 0).
  Value tail = index(0);
  for (int64_t block : blocks)
    tail = select(cmp(arith::CmpIPredicate::ule, rest, index(block)), index(block), tail);
  tail = select(cmp(arith::CmpIPredicate::eq, rest, index(0)), index(0), tail);
  for (int64_t block : blocks) {
    // Block i of this size starts at min(i, T - size): the tail's lies over the last rows.
    Value size = index(block);
    Value isHead = cmp(arith::CmpIPredicate::eq, head, size);
    Value isTail = cmp(arith::CmpIPredicate::eq, tail, size);
    Value lo = select(isHead, index(0), whole);
    Value hi = select(isTail, rows, select(isHead, whole, lo));
    Value last = arith::SubIOp::create(b, loc, rows, size);
    auto forOp = scf::ForOp::create(
        b, loc, lo, hi, size, ValueRange{result},
        [&](OpBuilder &nb, Location nl, Value i, ValueRange iter) {
          Value at0 = arith::MinSIOp::create(nb, nl, i, last);
          SmallVector<OpFoldResult> strides(2, nb.getIndexAttr(1));
          SmallVector<OpFoldResult> offsets = {at0, nb.getIndexAttr(0)};
          Value rowsOfA = tensor::ExtractSliceOp::create(
              nb, nl, RankedTensorType::get({block, k}, at.getElementType()), a, offsets,
              SmallVector<OpFoldResult>{nb.getIndexAttr(block), nb.getIndexAttr(k)}, strides);
          // The rows of the result as the accumulator, zeroed: they bufferize in place.
          Value slice = tensor::ExtractSliceOp::create(
              nb, nl, RankedTensorType::get({block, n}, et), iter[0], offsets,
              SmallVector<OpFoldResult>{nb.getIndexAttr(block), nb.getIndexAttr(n)}, strides);
          Value zero = arith::ConstantOp::create(nb, nl, nb.getZeroAttr(et));
          Value acc = linalg::FillOp::create(nb, nl, zero, slice).getResult(0);
          auto matmul = linalg::MatmulOp::create(nb, nl, ValueRange{rowsOfA, rhs}, ValueRange{acc});
          if (!mark.empty())
            matmul->setAttr(mark, nb.getUnitAttr());
          Value product = matmul.getResult(0);
          Value updated = tensor::InsertSliceOp::create(
              nb, nl, product, iter[0], offsets,
              SmallVector<OpFoldResult>{nb.getIndexAttr(block), nb.getIndexAttr(n)}, strides);
          scf::YieldOp::create(nb, nl, updated);
        });
    // infc-pack-matmul-panels packs the constant B of a matmul in such a loop, once. The
    // loop must stay serial (its blocks may overlap): it is not marked infc.parallel.
    forOp->setAttr("infc.row_blocks", b.getUnitAttr());
    result = forOp.getResult(0);
  }
  return result;
}

namespace {
Value zeros(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type et) {
  return filled(b, loc, RankedTensorType::get(shape, et), b.getZeroAttr(et));
}

/// The product of the dims, `?` if one is.
int64_t product(ArrayRef<int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v) {
    if (ShapedType::isDynamic(x))
      return ShapedType::kDynamic;
    p *= x;
  }
  return p;
}

/// [lo, hi) ranges that cut [0, size) into blocks of each of `blocks` in turn (the last of
/// size 1); one range of the whole dim when it is static (`fixed`).
struct Segment {
  Value lo, hi;
  int64_t block;
};
SmallVector<Segment> segmentsOf(OpBuilder &b, Location loc, Value size, int64_t fixed,
                                ArrayRef<int64_t> blocks) {
  Value start = arith::ConstantIndexOp::create(b, loc, 0);
  if (!ShapedType::isDynamic(fixed))
    return {{start, arith::ConstantIndexOp::create(b, loc, fixed), fixed}};
  SmallVector<Segment> segments;
  for (int64_t block : blocks) {
    Value end = size;
    if (block != 1) {
      Value step = arith::ConstantIndexOp::create(b, loc, block);
      Value left = arith::SubIOp::create(b, loc, size, start);
      end = arith::AddIOp::create(
          b, loc, start,
          arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, left, step), step));
    }
    segments.push_back({start, end, block});
    start = end;
  }
  return segments;
}

/// The blocks blockedBatchMatmul cuts a `?` dim of a product into: rows as whole register
/// tiles of AVX2's (6) and AVX-512's (8) kernels, columns and depth as whole vectors of
/// both; then smaller blocks, then one (an edge of an odd sequence length).
constexpr int64_t kRowBlocks[] = {24, 4, 1};
constexpr int64_t kColumnBlocks[] = {64, 8, 1};

/// A[batch, m, k] x B[batch, k, n] into C[batch, m, n] with a static batch and any of m, n,
/// k `?` (attention's scores and context over a symbolic sequence): for each matrix, static
/// matmuls over blocks of rows and columns, each accumulating over blocks of the depth. The
/// codegen then register-tiles and vectorizes them as any static matmul
/// (docs/dynamic-shapes.md, step e), where one batch_matmul of `?` sizes would run as
/// scalar loops.
Value blockedBatchMatmul(OpBuilder &b, Location loc, Value a, Value bm, Value c) {
  auto at = cast<RankedTensorType>(a.getType()), bt = cast<RankedTensorType>(bm.getType());
  Type et = at.getElementType();
  auto dimOf = [&](Value v, int64_t d) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    return t.isDynamicDim(d) ? (Value)tensor::DimOp::create(b, loc, v, d)
                             : (Value)arith::ConstantIndexOp::create(b, loc, t.getDimSize(d));
  };
  int64_t fixedM = at.getDimSize(1), fixedK = at.getDimSize(2), fixedN = bt.getDimSize(2);
  Value m = dimOf(a, 1), k = dimOf(a, 2), n = dimOf(bm, 2);
  SmallVector<Segment> rows = segmentsOf(b, loc, m, fixedM, kRowBlocks);
  SmallVector<Segment> cols = segmentsOf(b, loc, n, fixedN, kColumnBlocks);
  SmallVector<Segment> depth = segmentsOf(b, loc, k, fixedK, kColumnBlocks);
  auto forEach = [&](OpBuilder &ob, Value lo, Value hi, int64_t step, Value init,
                     function_ref<Value(OpBuilder &, Value, Value)> body) {
    Value stepValue = arith::ConstantIndexOp::create(ob, loc, step);
    return scf::ForOp::create(ob, loc, lo, hi, stepValue, ValueRange{init},
                              [&](OpBuilder &nb, Location, Value i, ValueRange iter) {
                                scf::YieldOp::create(nb, loc, body(nb, i, iter[0]));
                              })
        .getResult(0);
  };
  // A 2-D block of the batch's matrix `v` (rank-reducing).
  auto block = [&](OpBuilder &nb, Value v, Value batch, OpFoldResult row, OpFoldResult col,
                   int64_t rowsOf, int64_t colsOf) -> Value {
    SmallVector<OpFoldResult> offsets = {batch, row, col};
    SmallVector<OpFoldResult> sizes = {nb.getIndexAttr(1), nb.getIndexAttr(rowsOf),
                                       nb.getIndexAttr(colsOf)};
    SmallVector<OpFoldResult> strides(3, nb.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(nb, loc, RankedTensorType::get({rowsOf, colsOf}, et), v,
                                          offsets, sizes, strides);
  };
  Value batchCount = arith::ConstantIndexOp::create(b, loc, at.getDimSize(0));
  Value zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
  Value all = forEach(b, zeroIndex, batchCount, 1, c, [&](OpBuilder &b1, Value h, Value c1) {
    for (const Segment &r : rows)
      c1 = forEach(b1, r.lo, r.hi, r.block, c1, [&](OpBuilder &b2, Value i, Value c2) {
        for (const Segment &col : cols)
          c2 = forEach(b2, col.lo, col.hi, col.block, c2, [&](OpBuilder &b3, Value j, Value c3) {
            Value tile = block(b3, c3, h, i, j, r.block, col.block);
            Value zero = arith::ConstantOp::create(b3, loc, b3.getZeroAttr(et));
            Value acc = linalg::FillOp::create(b3, loc, zero, tile).getResult(0);
            for (const Segment &d : depth)
              acc = forEach(b3, d.lo, d.hi, d.block, acc, [&](OpBuilder &b4, Value kk, Value a4) {
                Value lhs = block(b4, a, h, i, kk, r.block, d.block);
                Value rhs = block(b4, bm, h, kk, j, d.block, col.block);
                return linalg::MatmulOp::create(b4, loc, ValueRange{lhs, rhs}, ValueRange{a4})
                    .getResult(0);
              });
            SmallVector<OpFoldResult> offsets = {h, i, j};
            SmallVector<OpFoldResult> sizes = {b3.getIndexAttr(1), b3.getIndexAttr(r.block),
                                               b3.getIndexAttr(col.block)};
            SmallVector<OpFoldResult> strides(3, b3.getIndexAttr(1));
            return tensor::InsertSliceOp::create(b3, loc, acc, c3, offsets, sizes, strides)
                .getResult();
          });
        return c2;
      });
    return c1;
  });
  // The matrices (heads) are independent: the session's threads share them out (the
  // blocks' own column loops, nested inside, then run on each thread).
  all.getDefiningOp()->setAttr("infc.parallel", b.getUnitAttr());
  return all;
}

/// Batched matmul: a rank-2 rhs (weights) folds the lhs batch into M for one linalg.matmul;
/// equal batch dims become linalg.batch_matmul; broadcast batches a generic contraction.
struct MatMulLowering : public OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType()), rt = cast<RankedTensorType>(rhs.getType());
    RankedTensorType resultType = loweredType(op.getType()); // ui<N> -> i<N>
    Type et = resultType.getElementType();
    ArrayRef<int64_t> ls = lt.getShape(), rs = rt.getShape();
    int64_t m = ls[ls.size() - 2], k = ls.back(), n = rs.back();

    if (rt.getRank() == 2) {
      int64_t rows = product(ls.drop_back());
      Value a = reshapeTensor(rewriter, loc, lhs, RankedTensorType::get({rows, k}, et));
      if (!a)
        return rewriter.notifyMatchFailure(op, "a dynamic shape that does not collapse");
      SmallVector<Value> sizes;
      if (ShapedType::isDynamic(rows)) {
        // The product of lhs's leading dims, read from lhs itself (the sizes the memory plan
        // bounds are then arithmetic on the entry's dims, not dims of a collapsed view).
        Value product;
        for (int64_t d = 0; d + 1 < lt.getRank(); ++d) {
          Value factor = lt.isDynamicDim(d)
                             ? (Value)tensor::DimOp::create(rewriter, loc, lhs, d)
                             : (Value)arith::ConstantIndexOp::create(rewriter, loc, ls[d]);
          product = product ? (Value)arith::MulIOp::create(rewriter, loc, product, factor) : factor;
        }
        sizes.push_back(product);
      }
      if (ShapedType::isDynamic(n))
        sizes.push_back(tensor::DimOp::create(rewriter, loc, rhs, 1));
      Value empty = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{rows, n}, et, sizes);
      Value c;
      if (ShapedType::isDynamic(rows) && !ShapedType::isDynamic(k) && !ShapedType::isDynamic(n)) {
        c = rowBlockedMatmul(rewriter, loc, a, rhs, empty);
      } else {
        Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(et));
        Value acc = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
        c = linalg::MatmulOp::create(rewriter, loc, ValueRange{a, rhs}, ValueRange{acc})
                .getResult(0);
      }
      Value result = reshapeTensor(rewriter, loc, c, resultType);
      if (!result)
        return rewriter.notifyMatchFailure(op, "a dynamic shape that does not expand");
      rewriter.replaceOp(op, result);
      return success();
    }
    ArrayRef<int64_t> lb = ls.drop_back(2), rb = rs.drop_back(2);
    bool staticBatch = llvm::none_of(lb, ShapedType::isDynamic);
    if (!staticBatch || (!(lt.hasStaticShape() && rt.hasStaticShape()) && lb != rb))
      return rewriter.notifyMatchFailure(op, "batched matmul of dynamic shapes (not yet)");
    if (lb == rb) {
      // (`?` rows, columns or depth: attention's scores and context over a symbolic
      // sequence, its batch of heads static)
      int64_t batch = product(lb);
      Value a = reshapeTensor(rewriter, loc, lhs, RankedTensorType::get({batch, m, k}, et));
      Value bm = reshapeTensor(rewriter, loc, rhs, RankedTensorType::get({batch, k, n}, et));
      SmallVector<Value> sizes;
      if (ShapedType::isDynamic(m))
        sizes.push_back(tensor::DimOp::create(rewriter, loc, lhs, lt.getRank() - 2));
      if (ShapedType::isDynamic(n))
        sizes.push_back(tensor::DimOp::create(rewriter, loc, rhs, rt.getRank() - 1));
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{batch, m, n}, et, sizes);
      if (!sizes.empty() || ShapedType::isDynamic(k)) {
        Value c = blockedBatchMatmul(rewriter, loc, a, bm, empty);
        rewriter.replaceOp(op, reshapeTensor(rewriter, loc, c, resultType));
        return success();
      }
      Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(et));
      Value acc = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
      Value c = linalg::BatchMatmulOp::create(rewriter, loc, ValueRange{a, bm}, ValueRange{acc})
                    .getResult(0);
      rewriter.replaceOp(op, reshapeTensor(rewriter, loc, c, resultType));
      return success();
    }
    // Broadcast batch dims: iteration space (batch..., m, n, k).
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = resultType.getRank(), loops = rank + 1;
    ArrayRef<int64_t> batchShape = resultType.getShape().drop_back(2);
    auto operandMap = [&](ArrayRef<int64_t> batch, AffineExpr row, AffineExpr col) {
      SmallVector<AffineExpr> exprs;
      int64_t offset = batchShape.size() - batch.size();
      for (size_t d = 0; d < batch.size(); ++d)
        exprs.push_back(batch[d] == 1 && batchShape[d + offset] != 1
                            ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(d + offset, ctx));
      exprs.push_back(row);
      exprs.push_back(col);
      return AffineMap::get(loops, 0, exprs, ctx);
    };
    AffineExpr dm = getAffineDimExpr(rank - 2, ctx), dn = getAffineDimExpr(rank - 1, ctx),
               dk = getAffineDimExpr(rank, ctx);
    SmallVector<AffineExpr> outExprs;
    for (int64_t d = 0; d < rank; ++d)
      outExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps = {operandMap(lb, dm, dk), operandMap(rb, dk, dn),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value acc = zeros(rewriter, loc, resultType.getShape(), et);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{lhs, rhs}, ValueRange{acc}, maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value p = isa<FloatType>(et) ? (Value)arith::MulFOp::create(b, l, args[0], args[1])
                                       : (Value)arith::MulIOp::create(b, l, args[0], args[1]);
          Value s = isa<FloatType>(et) ? (Value)arith::AddFOp::create(b, l, p, args[2])
                                       : (Value)arith::AddIOp::create(b, l, p, args[2]);
          linalg::YieldOp::create(b, l, s);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Padding by `padValue` of the two spatial dims of an NCHW tensor (NHWC with
/// `channelsLast`); pads [top, left, bottom, right].
Value padSpatial(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> pads,
                 TypedAttr padValue, bool channelsLast = false) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return input;
  if (channelsLast)
    return padConstant(b, loc, input, {0, pads[0], pads[1], 0}, {0, pads[2], pads[3], 0}, padValue);
  return padConstant(b, loc, input, {0, 0, pads[0], pads[1]}, {0, 0, pads[2], pads[3]}, padValue);
}

/// An f32 tensor rounded to bf16 (to nearest, ties to even), elementwise.
Value roundToBf16(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  return elementwise(b, loc, type.clone(b.getBF16Type()), ValueRange{x},
                     [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                       return arith::TruncFOp::create(nb, l, nb.getBF16Type(), args[0]);
                     });
}

/// The bytes of an i32 convolution's im2col matrix (or input) widened to `et`: moved as
/// bytes, widened only here, where infc-vnni-matmul finds the extension and multiplies the
/// bytes themselves. (Or the bf16 rows of an f32 convolution, for infc-bf16-matmul.)
Value widenBytes(OpBuilder &b, Location loc, Value bytes, Type et, bool unsignedInput) {
  auto type = cast<RankedTensorType>(bytes.getType());
  return elementwise(b, loc, RankedTensorType::get(type.getShape(), et), ValueRange{bytes},
                     [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                       if (isa<FloatType>(et)) // bf16 rows of --precision bf16
                         return arith::ExtFOp::create(nb, l, et, args[0]);
                       if (unsignedInput)
                         return arith::ExtUIOp::create(nb, l, et, args[0]);
                       return arith::ExtSIOp::create(nb, l, et, args[0]);
                     });
}

/// A plain convolution as one matmul, so it shares the matmul code generation:
///   Y[F, N*OH*OW] = W[F, C*KH*KW] x Col[C*KH*KW, N*OH*OW]
/// Col is the input itself for 1x1 stride-1 convolutions of one image, else built by one
/// copy per kernel tap from a strided window of the input (im2col). An input of another
/// element type than the result (8-bit integers for an i32 result) is extended after im2col,
/// zero-extended if `unsignedInput`.
Value convAsMatmul(OpBuilder &b, Location loc, Value input, Value weight, ArrayRef<int64_t> strides,
                   ArrayRef<int64_t> dilations, RankedTensorType resultType,
                   bool unsignedInput = false) {
  auto it = cast<RankedTensorType>(input.getType());
  auto wt = cast<RankedTensorType>(weight.getType());
  Type et = it.getElementType();
  int64_t n = it.getDimSize(0), c = it.getDimSize(1), f = wt.getDimSize(0), kh = wt.getDimSize(2),
          kw = wt.getDimSize(3), oh = resultType.getDimSize(2), ow = resultType.getDimSize(3);
  int64_t k = c * kh * kw, cols = n * oh * ow;
  Value col;
  if (n == 1 && kh == 1 && kw == 1 && strides[0] == 1 && strides[1] == 1) {
    col = reshapeTensor(b, loc, input, RankedTensorType::get({k, cols}, et));
  } else {
    // One copy per kernel tap: Col[c, i, j, n, oh, ow] = X[n, c, oh*sh + i*dh, ow*sw + j*dw]
    // reads a strided window of X, so every copy has permutation maps and vectorizes.
    MLIRContext *ctx = b.getContext();
    auto colType = RankedTensorType::get({c, kh, kw, n, oh, ow}, et);
    Value col6 = tensor::EmptyOp::create(b, loc, colType.getShape(), et);
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    // Copy space (c, n, oh, ow); the window is indexed (n, c, oh, ow).
    SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {d(1), d(0), d(2), d(3)}, ctx),
                                   AffineMap::getMultiDimIdentityMap(4, ctx)};
    SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
    auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
    for (int64_t i = 0; i < kh; ++i) {
      for (int64_t j = 0; j < kw; ++j) {
        Value window = tensor::ExtractSliceOp::create(
            b, loc, input,
            SmallVector<OpFoldResult>{idx(0), idx(0), idx(i * dilations[0]), idx(j * dilations[1])},
            SmallVector<OpFoldResult>{idx(n), idx(c), idx(oh), idx(ow)},
            SmallVector<OpFoldResult>{idx(1), idx(1), idx(strides[0]), idx(strides[1])});
        SmallVector<OpFoldResult> offsets = {idx(0), idx(i), idx(j), idx(0), idx(0), idx(0)};
        SmallVector<OpFoldResult> sizes = {idx(c), idx(1), idx(1), idx(n), idx(oh), idx(ow)};
        SmallVector<OpFoldResult> unit(6, idx(1));
        auto tapType = RankedTensorType::get({c, n, oh, ow}, et);
        Value dest = tensor::ExtractSliceOp::create(b, loc, tapType, col6, offsets, sizes, unit);
        Value tap = linalg::GenericOp::create(b, loc, TypeRange{tapType}, ValueRange{window},
                                              ValueRange{dest}, maps, iterators,
                                              [](OpBuilder &nb, Location nl, ValueRange args) {
                                                linalg::YieldOp::create(nb, nl, args[0]);
                                              })
                        .getResult(0);
        col6 = tensor::InsertSliceOp::create(b, loc, tap, col6, offsets, sizes, unit);
      }
    }
    col = reshapeTensor(b, loc, col6, RankedTensorType::get({k, cols}, et));
  }
  if (et != resultType.getElementType()) {
    col = widenBytes(b, loc, col, resultType.getElementType(), unsignedInput);
    et = resultType.getElementType();
  }
  Value w = reshapeTensor(b, loc, weight, RankedTensorType::get({f, k}, et));
  Value acc = zeros(b, loc, {f, cols}, et);
  Value y = linalg::MatmulOp::create(b, loc, ValueRange{w, col}, ValueRange{acc}).getResult(0);
  if (n == 1)
    return reshapeTensor(b, loc, y, resultType);
  // [F, N, OH, OW] -> [N, F, OH, OW]
  Value y4 = reshapeTensor(b, loc, y, RankedTensorType::get({f, n, oh, ow}, et));
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(), et);
  return linalg::TransposeOp::create(b, loc, y4, init, ArrayRef<int64_t>{1, 0, 2, 3})->getResult(0);
}

/// `weight` with its dims permuted (result dim i is dim perm[i]): at compile time when it is
/// a constant, else by a linalg.transpose.
Value permuteWeights(OpBuilder &b, Location loc, Value weight, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(weight.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  DenseElementsAttr constant;
  if (!matchPattern(weight, m_Constant(&constant))) {
    Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
    return linalg::TransposeOp::create(b, loc, weight, init, perm)->getResult(0);
  }
  if (constant.isSplat())
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(resultType, constant.getSplatValue<Attribute>()));
  int64_t width = type.getElementTypeBitWidth() / 8, rank = type.getRank();
  SmallVector<int64_t> inStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * type.getDimSize(d + 1);
  ArrayRef<char> raw = constant.getRawData();
  std::vector<char> out(raw.size());
  SmallVector<int64_t> index(rank, 0); // of the result, row-major
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d)
      from += index[d] * inStrides[perm[d]];
    memcpy(out.data() + i * width, raw.data() + from * width, width);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == shape[d]; --d)
      index[d] = 0;
  }
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::getFromRawBuffer(resultType, out));
}

/// A plain convolution of NHWC input as the matmul of the linear layers:
///   Y[N*OH*OW, F] = Col[N*OH*OW, KH*KW*C] x W'[KH*KW*C, F]
/// W' (the weights as [KH, KW, C, F]) is a constant that infc-pack-matmul-panels packs at
/// compile time. Col is the input itself for 1x1 stride-1 convolutions, else one copy per
/// tap of a strided window into Col[n, oh, ow, i, j, :], whose C elements are contiguous on
/// both sides.
Value convChannelsLastAsMatmul(OpBuilder &b, Location loc, Value input, Value weight,
                               ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                               RankedTensorType resultType, bool unsignedInput = false,
                               int64_t byteRowMultiple = 1) {
  auto it = cast<RankedTensorType>(input.getType());
  auto wt = cast<RankedTensorType>(weight.getType());
  Type et = it.getElementType();
  int64_t n = it.getDimSize(0), c = it.getDimSize(3), f = wt.getDimSize(0), kh = wt.getDimSize(2),
          kw = wt.getDimSize(3), oh = resultType.getDimSize(1), ow = resultType.getDimSize(2);
  int64_t k = kh * kw * c, rows = n * oh * ow;
  bool bytes = et != resultType.getElementType();
  Value permuted = permuteWeights(b, loc, weight, {2, 3, 1, 0}); // [KH, KW, C, F]
  Value w =
      reshapeTensor(b, loc, permuted, RankedTensorType::get({k, f}, resultType.getElementType()));
  Value col;
  if (kh == 1 && kw == 1 && strides[0] == 1 && strides[1] == 1) {
    col = reshapeTensor(b, loc, input, RankedTensorType::get({rows, k}, et));
  } else {
    // Bytes (or bf16) with rows of whole `byteRowMultiple`s (AMX takes K in 64-byte steps,
    // 64 bytes or 32 bf16): im2col
    // writes the zero tail itself, a strided fill of a few bytes a row, where padding the
    // matrix after would copy all of it once more (an int8 3x3 conv of 32 channels: 288
    // bytes a row, 320 padded), and the weights get zero rows at compile time. (A 1x1 conv
    // read in place, and rows not a multiple of 16, are still padded by infc-vnni-matmul.)
    DenseElementsAttr dense;
    int64_t kp = k;
    if (bytes && byteRowMultiple > 1 && k % byteRowMultiple &&
        matchPattern(permuted, m_Constant(&dense)) &&
        dense.getElementType().getIntOrFloatBitWidth() == 32)
      kp = (k + byteRowMultiple - 1) / byteRowMultiple * byteRowMultiple;
    // Col[n, r, ow, (i*KW + j)*C + c] = X[n, r*sh + i*dh, ow*sw + j*dw, c], in one loop over
    // the output rows r and taps (i, j), marked infc.parallel: one parallel region per
    // im2col, not one per tap (each too short to share out); taps not unrolled (compile time).
    auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
    Value col4 = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{n, oh, ow, kp}, et);
    if (kp > k) {
      SmallVector<OpFoldResult> offsets = {idx(0), idx(0), idx(0), idx(k)};
      SmallVector<OpFoldResult> sizes = {idx(n), idx(oh), idx(ow), idx(kp - k)};
      SmallVector<OpFoldResult> unit(4, idx(1));
      Value tail = tensor::ExtractSliceOp::create(b, loc, col4, offsets, sizes, unit);
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
      tail = linalg::FillOp::create(b, loc, zero, tail).getResult(0);
      col4 = tensor::InsertSliceOp::create(b, loc, tail, col4, offsets, sizes, unit);
      std::vector<char> padded(kp * f * 4, 0);
      ArrayRef<char> raw = dense.getRawData();
      for (int64_t i = 0; i < k * f; ++i) // (a splat's raw data is its one element)
        memcpy(padded.data() + 4 * i, raw.data() + (dense.isSplat() ? 0 : 4 * i), 4);
      w = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::getFromRawBuffer(
              RankedTensorType::get({kp, f}, dense.getElementType()), padded));
    }
    auto tapType = RankedTensorType::get({n, 1, ow, c}, et);
    auto cst = [&](OpBuilder &cb, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(cb, loc, v);
    };
    auto loop = scf::ForOp::create(
        b, loc, cst(b, 0), cst(b, oh * kh * kw), cst(b, 1), ValueRange{col4},
        [&](OpBuilder &lb, Location ll, Value step, ValueRange iters) {
          auto div = [&](Value x, int64_t by) -> Value {
            return by == 1 ? x : arith::DivUIOp::create(lb, ll, x, cst(lb, by)).getResult();
          };
          auto rem = [&](Value x, int64_t by) -> Value {
            return by == 1 ? cst(lb, 0)
                           : arith::RemUIOp::create(lb, ll, x, cst(lb, by)).getResult();
          };
          auto mulAdd = [&](Value x, int64_t by, Value plus) -> Value {
            Value product = by == 1 ? x : arith::MulIOp::create(lb, ll, x, cst(lb, by)).getResult();
            return plus ? arith::AddIOp::create(lb, ll, product, plus).getResult() : product;
          };
          Value r = div(step, kh * kw), tap = rem(step, kh * kw);
          Value i = div(tap, kw), j = rem(tap, kw);
          Value row = mulAdd(r, strides[0], mulAdd(i, dilations[0], Value()));
          Value column = mulAdd(j, dilations[1], Value());
          Value window = tensor::ExtractSliceOp::create(
              lb, ll, tapType, input, SmallVector<OpFoldResult>{idx(0), row, column, idx(0)},
              SmallVector<OpFoldResult>{idx(n), idx(1), idx(ow), idx(c)},
              SmallVector<OpFoldResult>{idx(1), idx(1), idx(strides[1]), idx(1)});
          SmallVector<OpFoldResult> offsets = {idx(0), r, idx(0), mulAdd(tap, c, Value())};
          SmallVector<OpFoldResult> sizes = {idx(n), idx(1), idx(ow), idx(c)};
          SmallVector<OpFoldResult> unit(4, idx(1));
          Value dest =
              tensor::ExtractSliceOp::create(lb, ll, tapType, iters[0], offsets, sizes, unit);
          Value copied = linalg::CopyOp::create(lb, ll, window, dest).getResult(0);
          scf::YieldOp::create(
              lb, ll,
              tensor::InsertSliceOp::create(lb, ll, copied, iters[0], offsets, sizes, unit)
                  .getResult());
        });
    loop->setAttr("infc.parallel", b.getUnitAttr());
    col = reshapeTensor(b, loc, loop.getResult(0), RankedTensorType::get({rows, kp}, et));
  }
  if (bytes) { // of an i32 convolution
    col = widenBytes(b, loc, col, resultType.getElementType(), unsignedInput);
    et = resultType.getElementType();
  }
  Value acc = zeros(b, loc, {rows, f}, et);
  auto matmul = linalg::MatmulOp::create(b, loc, ValueRange{col, w}, ValueRange{acc});
  matmul->setAttr(kConvMatmulAttr, b.getUnitAttr());
  return reshapeTensor(b, loc, matmul.getResult(0), resultType);
}

/// What convChannelsLastImplicit takes: a single f32 image, no dilation, F a multiple of
/// every register tile width (64, or 32: one 8 x 32 tile), and weights of dense elements
/// (permuteWeights and infc-implicit-conv rearrange them at compile time).
bool implicitGemmApplies(Value input, Value weight, ArrayRef<int64_t> dilations,
                         RankedTensorType resultType) {
  DenseElementsAttr dense;
  auto it = cast<RankedTensorType>(input.getType());
  int64_t f = resultType.getDimSize(3);
  return it.getDimSize(0) == 1 && it.getElementType().isF32() &&
         llvm::all_of(dilations, [](int64_t d) { return d == 1; }) && (f % 64 == 0 || f == 32) &&
         matchPattern(weight, m_Constant(&dense));
}

/// Whether a stride-1 NHWC convolution is better computed as an implicit GEMM than through
/// im2col (convChannelsLastImplicit): more than one tap, and few garbage columns: the wide
/// output computes (KW - 1) extra columns per row, which costs about as much as the im2col
/// copy saves once (KW - 1) * F reaches 18 * OW (measured: ResNet's 56x56 and 28x28
/// stages gain, 14x14 would not).
bool prefersImplicitConv(Value input, Value weight, ArrayRef<int64_t> strides,
                         ArrayRef<int64_t> dilations, RankedTensorType resultType) {
  auto wt = cast<RankedTensorType>(weight.getType());
  int64_t kh = wt.getDimSize(2), kw = wt.getDimSize(3), f = resultType.getDimSize(3),
          ow = resultType.getDimSize(2);
  return implicitGemmApplies(input, weight, dilations, resultType) && kh * kw > 1 &&
         llvm::all_of(strides, [](int64_t s) { return s == 1; }) && (kw - 1) * f < 18 * ow;
}

/// The first resultType.getShape() entries of `source` along every dim (a unit-stride
/// slice from the origin): the valid part of a wide or padded result.
static Value leadingSlice(OpBuilder &b, Location loc, Value source, RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  return tensor::ExtractSliceOp::create(
      b, loc, resultType, source, SmallVector<OpFoldResult>(rank, b.getIndexAttr(0)),
      getAsIndexOpFoldResult(b.getContext(), resultType.getShape()),
      SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)));
}

/// The generic both implicit GEMMs are: over the padded NHWC image X [1, Hp', Wp, C] as
/// X' [Hp' * Wp, C] and the weights as W [KH * KW, C, F],
///   Y[m, f] = sum_{t, c} X'[row(m) + (t / KW) * Wp + t % KW, c] * W[t, c, f],  m < M,
/// `row` giving the input row of output row m's tap (0, 0); marked
/// `infc.implicit_conv = marker` for infc-implicit-conv.
static Value implicitConvGeneric(OpBuilder &b, Location loc, Value input, Value weight, int64_t m,
                                 function_ref<AffineExpr(AffineExpr)> row,
                                 ArrayRef<int64_t> marker) {
  auto it = cast<RankedTensorType>(input.getType());
  auto wt = cast<RankedTensorType>(weight.getType());
  Type et = it.getElementType();
  int64_t rows = it.getDimSize(1), wp = it.getDimSize(2), c = it.getDimSize(3),
          f = wt.getDimSize(0), kh = wt.getDimSize(2), kw = wt.getDimSize(3);
  Value x = reshapeTensor(b, loc, input, RankedTensorType::get({rows * wp, c}, et));
  Value w = reshapeTensor(b, loc, permuteWeights(b, loc, weight, {2, 3, 1, 0}),
                          RankedTensorType::get({kh * kw, c, f}, et));
  MLIRContext *ctx = b.getContext();
  AffineExpr dm = getAffineDimExpr(0, ctx), df = getAffineDimExpr(1, ctx),
             dt = getAffineDimExpr(2, ctx), dc = getAffineDimExpr(3, ctx);
  SmallVector<AffineMap> maps = {
      AffineMap::get(4, 0, {row(dm) + dt.floorDiv(kw) * wp + dt % kw, dc}, ctx),
      AffineMap::get(4, 0, {dt, dc, df}, ctx), AffineMap::get(4, 0, {dm, df}, ctx)};
  SmallVector<utils::IteratorType> iterators = {
      utils::IteratorType::parallel, utils::IteratorType::parallel, utils::IteratorType::reduction,
      utils::IteratorType::reduction};
  auto conv = linalg::GenericOp::create(
      b, loc, TypeRange{RankedTensorType::get({m, f}, et)}, ValueRange{x, w},
      ValueRange{zeros(b, loc, {m, f}, et)}, maps, iterators,
      [](OpBuilder &nb, Location nl, ValueRange args) {
        Value product = arith::MulFOp::create(nb, nl, args[0], args[1]);
        linalg::YieldOp::create(nb, nl,
                                ValueRange{arith::AddFOp::create(nb, nl, args[2], product)});
      });
  conv->setAttr("infc.implicit_conv", b.getDenseI64ArrayAttr(marker));
  return conv.getResult(0);
}

/// A stride-1 convolution of a padded NHWC image X [1, Hp + 1, Wp, C] (one zero row more
/// than the convolution's padding) as an implicit GEMM over a "wide" output that has Wp
/// columns per row instead of OW:
///   Y'[m, f] = sum_{t, c} X'[m + (t / KW) * Wp + t % KW, c] * W[t, c, f],  m < OH * Wp
/// with X' = X as [(Hp + 1) * Wp, C] and W the weights as [KH * KW, C, F]. For row m =
/// oh * Wp + ow each tap reads row m + i * Wp + j of X', which is X[oh + i, ow + j]: A is the
/// input itself, shifted per tap, and no im2col matrix is built. Columns ow >= OW are
/// garbage (their taps wrap into the next row) and are sliced off: Y = Y' as [1, OH, Wp, F],
/// columns [0, OW). The extra zero row keeps the garbage columns of the last row in bounds.
/// The generic is marked `infc.implicit_conv = [KH, KW, Wp]`; infc-implicit-conv (CPU)
/// register-tiles it, and elsewhere it is a correct if slow loop nest.
Value convChannelsLastImplicit(OpBuilder &b, Location loc, Value input, Value weight,
                               RankedTensorType resultType) {
  auto it = cast<RankedTensorType>(input.getType());
  auto wt = cast<RankedTensorType>(weight.getType());
  Type et = it.getElementType();
  int64_t wp = it.getDimSize(2), f = wt.getDimSize(0), kh = wt.getDimSize(2), kw = wt.getDimSize(3),
          oh = resultType.getDimSize(1);
  Value y = implicitConvGeneric(b, loc, input, weight, oh * wp, [](AffineExpr m) { return m; },
                                {kh, kw, wp});
  Value wide = reshapeTensor(b, loc, y, RankedTensorType::get({1, oh, wp, f}, et));
  return leadingSlice(b, loc, wide, resultType);
}

/// Whether a convolution the wide implicit GEMM does not take (small maps, stride 2) is
/// better computed over its pixel rows (convChannelsLastPixelRows) than through im2col:
/// more than one tap, the same stride both ways (1 or 2), and more than 64 output pixels
/// (fewer rows do better as im2col's few-row matmuls; measured in docs/architecture.md).
bool prefersPixelRows(Value input, Value weight, ArrayRef<int64_t> strides,
                      ArrayRef<int64_t> dilations, RankedTensorType resultType) {
  auto wt = cast<RankedTensorType>(weight.getType());
  int64_t pixels = resultType.getDimSize(1) * resultType.getDimSize(2);
  return implicitGemmApplies(input, weight, dilations, resultType) &&
         wt.getDimSize(2) * wt.getDimSize(3) > 1 && strides.size() == 2 &&
         strides[0] == strides[1] && (strides[0] == 1 || strides[0] == 2) && pixels > 64;
}

/// A convolution of a padded NHWC image X [1, Hp, Wp, C] (stride S both ways) as an
/// implicit GEMM over its output pixels, without garbage columns:
///   Y[m, f] = sum_{t, c} X'[(m / OW) * S * Wp + (m % OW) * S + (t / KW) * Wp + t % KW, c]
///             * W[t, c, f]
/// with X' = X as [Hp * Wp, C]: each output row m = oh * OW + ow reads, per tap, its own
/// pixel's input row. Marked `infc.implicit_conv = [KH, KW, Wp, S, OW]`; infc-implicit-conv
/// (CPU) register-tiles it with each tile row broadcasting from its pixel's row.
Value convChannelsLastPixelRows(OpBuilder &b, Location loc, Value input, Value weight,
                                int64_t stride, RankedTensorType resultType) {
  auto wt = cast<RankedTensorType>(weight.getType());
  int64_t wp = cast<RankedTensorType>(input.getType()).getDimSize(2), kh = wt.getDimSize(2),
          kw = wt.getDimSize(3), oh = resultType.getDimSize(1), ow = resultType.getDimSize(2);
  Value y = implicitConvGeneric(
      b, loc, input, weight, oh * ow,
      [&](AffineExpr m) { return m.floorDiv(ow) * (stride * wp) + (m % ow) * stride; },
      {kh, kw, wp, stride, ow});
  return reshapeTensor(b, loc, y, resultType);
}

/// Whether a stride-2 NHWC convolution of few channels (a network's stem: 7x7 over RGB) is
/// better computed as a stride-1 one after a space-to-depth (convSpaceToDepth): its im2col
/// copies would move C floats at a time (3 for RGB, 49 copies for ResNet's stem, which
/// took twice as long as the GEMM). What implicitGemmApplies takes, at most 4 channels.
bool prefersSpaceToDepth(Value input, Value weight, ArrayRef<int64_t> strides,
                         ArrayRef<int64_t> dilations, RankedTensorType resultType) {
  auto it = cast<RankedTensorType>(input.getType());
  auto wt = cast<RankedTensorType>(weight.getType());
  return implicitGemmApplies(input, weight, dilations, resultType) && it.getDimSize(3) <= 4 &&
         wt.getDimSize(2) > 2 && wt.getDimSize(3) > 2 &&
         llvm::all_of(strides, [](int64_t s) { return s == 2; });
}

/// A stride-2 convolution of an NHWC image X [1, H, W, C] (unpadded; pads = [top, left,
/// bottom, right]) with constant weights W [F, C, KH, KW] as the stride-1 convolution of
/// its 2x2 space-to-depth, through convChannelsLastImplicit:
///   X2[h, w, (a * 2 + b) * C + c] = Xpad[2h + a, 2w + b, c]
///   W2[f, (a * 2 + b) * C + c, i, j] = W[f, c, 2i + a, 2j + b]  (zero past KH, KW)
/// so Y[oh, ow] = sum_{i, j} X2[oh + i, ow + j] . W2[:, :, i, j] with a ceil(KH / 2) x
/// ceil(KW / 2) kernel over 4C channels. Xpad is X zero-padded to 2 (OH + KH2) rows (one more
/// than the stride-1 kernel needs: the implicit GEMM's extra row) and 2 (OW + KW2 - 1)
/// columns, which covers the convolution's own padding. The taps with zero weights read
/// one row or column past the window (zeros, or inputs times zero).
Value convSpaceToDepth(OpBuilder &b, Location loc, Value input, Value weight,
                       ArrayRef<int64_t> pads, RankedTensorType resultType) {
  auto it = cast<RankedTensorType>(input.getType());
  auto wt = cast<RankedTensorType>(weight.getType());
  Type et = it.getElementType();
  int64_t h = it.getDimSize(1), w = it.getDimSize(2), c = it.getDimSize(3), f = wt.getDimSize(0),
          kh = wt.getDimSize(2), kw = wt.getDimSize(3), oh = resultType.getDimSize(1),
          ow = resultType.getDimSize(2);
  int64_t kh2 = (kh + 1) / 2, kw2 = (kw + 1) / 2, hp = 2 * (oh + kh2), wp = 2 * (ow + kw2 - 1);
  Value padded = padConstant(b, loc, input, {0, pads[0], pads[1], 0},
                             {0, hp - pads[0] - h, wp - pads[1] - w, 0}, b.getZeroAttr(et));
  Value split =
      reshapeTensor(b, loc, padded, RankedTensorType::get({1, hp / 2, 2, wp / 2, 2, c}, et));
  Value init = tensor::EmptyOp::create(b, loc, {1, hp / 2, wp / 2, 2, 2, c}, et);
  Value moved =
      linalg::TransposeOp::create(b, loc, split, init, ArrayRef<int64_t>{0, 1, 3, 2, 4, 5})
          ->getResult(0);
  Value x2 = reshapeTensor(b, loc, moved, RankedTensorType::get({1, hp / 2, wp / 2, 4 * c}, et));
  DenseElementsAttr constant;
  (void)matchPattern(weight, m_Constant(&constant));
  std::vector<float> values(constant.getValues<float>().begin(), constant.getValues<float>().end());
  std::vector<float> w2(f * 4 * c * kh2 * kw2, 0.0f);
  for (int64_t o = 0; o < f; ++o)
    for (int64_t a = 0; a < 2; ++a)
      for (int64_t bb = 0; bb < 2; ++bb)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t i = 0; i < kh2; ++i)
            for (int64_t j = 0; j < kw2; ++j) {
              int64_t si = 2 * i + a, sj = 2 * j + bb;
              if (si < kh && sj < kw)
                w2[((o * 4 * c + (a * 2 + bb) * c + ch) * kh2 + i) * kw2 + j] =
                    values[((o * c + ch) * kh + si) * kw + sj];
            }
  auto w2Type = RankedTensorType::get({f, 4 * c, kh2, kw2}, et);
  Value weights2 =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(w2Type, ArrayRef<float>(w2)));
  return convChannelsLastImplicit(b, loc, x2, weights2, resultType);
}

/// A depthwise convolution (one filter per channel) as a sum over the kernel taps of strided
/// windows of the input times that tap's per-channel weight:
///   Y[n, c, oh, ow] = sum_{kh, kw} X[n, c, oh*sh + kh*dh, ow*sw + kw*dw] * W[c, kh, kw]
/// Each window is a strided tensor.extract_slice, so the one linalg.generic left has only
/// identity and broadcast maps: it vectorizes along OW and fuses with the bias and the
/// activation that follow (linalg's depthwise conv op does neither). With `channelsLast`
/// (NHWC) it vectorizes along C, each tap's weights a contiguous row of the [KH*KW, C]
/// constant the weights are permuted to at compile time.
Value depthwiseAsTapSum(OpBuilder &b, Location loc, Value input, Value weight,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                        RankedTensorType resultType, bool channelsLast) {
  Type et = resultType.getElementType();
  int64_t channelDim = channelsLast ? 3 : 1, c = resultType.getDimSize(channelDim);
  auto wt = cast<RankedTensorType>(weight.getType());
  int64_t kh = wt.getDimSize(2), kw = wt.getDimSize(3), taps = kh * kw;
  // The weights as [KH*KW, C] (rows per tap) in NHWC, [C, KH*KW] (columns) in NCHW.
  Value w = channelsLast ? reshapeTensor(b, loc, permuteWeights(b, loc, weight, {1, 2, 3, 0}),
                                         RankedTensorType::get({taps, c}, et))
                         : reshapeTensor(b, loc, weight, RankedTensorType::get({c, taps}, et));
  SmallVector<Value> windows =
      tapWindows(b, loc, input, {kh, kw}, strides, dilations, channelsLast, resultType.getShape());
  SmallVector<Value> weights;
  for (int64_t t = 0; t < taps; ++t) {
    SmallVector<OpFoldResult> wOffsets = {b.getIndexAttr(channelsLast ? t : 0),
                                          b.getIndexAttr(channelsLast ? 0 : t)};
    SmallVector<OpFoldResult> wSizes = {b.getIndexAttr(channelsLast ? 1 : c),
                                        b.getIndexAttr(channelsLast ? c : 1)};
    SmallVector<OpFoldResult> wSteps(2, b.getIndexAttr(1));
    weights.push_back(tensor::ExtractSliceOp::create(b, loc, RankedTensorType::get({c}, et), w,
                                                     wOffsets, wSizes, wSteps));
  }
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, ctx);
  AffineMap perChannel = AffineMap::get(4, 0, {getAffineDimExpr(channelDim, ctx)}, ctx);
  SmallVector<AffineMap> maps(taps, identity);
  maps.append(taps, perChannel);
  maps.push_back(identity);
  SmallVector<Value> operands = windows;
  operands.append(weights);
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(), et);
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, operands, ValueRange{init}, maps, iterators,
             [taps](OpBuilder &nb, Location nl, ValueRange args) {
               Value sum = arith::MulFOp::create(nb, nl, args[0], args[taps]);
               for (int64_t t = 1; t < taps; ++t)
                 sum = math::FmaOp::create(nb, nl, args[t], args[taps + t], sum);
               linalg::YieldOp::create(nb, nl, sum);
             })
      .getResult(0);
}

/// conv: plain -> im2col + linalg.matmul (convAsMatmul), float depthwise (one filter per
/// channel) -> depthwiseAsTapSum, other groups -> linalg.conv_2d_ngchw_gfchw. With
/// directConv (the GPU), plain and depthwise convs are linalg.conv_2d_nchw_fchw and
/// linalg.depthwise_conv_2d_nchw_chw: one loop nest each, no im2col buffer (an int8 one
/// over its widened bytes).
struct ConvLowering : public OpConversionPattern<ConvOp> {
  ConvLowering(MLIRContext *ctx, bool directConv, int64_t byteRowMultiple,
               int64_t winogradMinChannels, bool bf16Convs)
      : OpConversionPattern(ctx), directConv(directConv), byteRowMultiple(byteRowMultiple),
        winogradMinChannels(winogradMinChannels), bf16Convs(bf16Convs) {}
  bool directConv;
  int64_t byteRowMultiple;
  /// Winograd for 3x3 convolutions from this many input and output channels on (0: never);
  /// the output channels as computed, after the zero filters that take 33 to 63 filters
  /// to 64 (whose products the implicit GEMM would do all the same).
  /// The pass's default, 64: below it the V and M buffers cost more than the products save
  /// (measured in docs/architecture.md).
  int64_t winogradMinChannels;
  /// --precision bf16 on the CPU: plain f32 NHWC convolutions with constant weights as
  /// im2col rows of bf16 times the weights (infc-bf16-matmul's AMX tiles).
  bool bf16Convs;
  LogicalResult matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getChannelsLast())
      return lowerChannelsLast(op, adaptor, rewriter);
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    CastOp fromBytes = op.getGroup() == 1 ? op.getCastFromBytes() : nullptr;
    Value narrow = fromBytes ? rewriter.getRemappedValue(fromBytes.getInput()) : Value();
    // An 8-bit input is padded as bytes (0 widens to 0).
    Value input = narrow ? padSpatial(rewriter, loc, narrow, op.getPads(),
                                      rewriter.getZeroAttr(getElementTypeOrSelf(narrow.getType())))
                         : padSpatial(rewriter, loc, adaptor.getInput(), op.getPads(),
                                      rewriter.getZeroAttr(et));
    Value weight = adaptor.getWeight();
    auto it = cast<RankedTensorType>(input.getType());
    auto wt = cast<RankedTensorType>(weight.getType());
    auto strides = rewriter.getI64TensorAttr(op.getStrides());
    auto dilations = rewriter.getI64TensorAttr(op.getDilations());
    int64_t group = op.getGroup(), n = it.getDimSize(0), c = it.getDimSize(1), f = wt.getDimSize(0),
            kh = wt.getDimSize(2), kw = wt.getDimSize(3), oh = resultType.getDimSize(2),
            ow = resultType.getDimSize(3);
    Value result;
    if (narrow && directConv) {
      // The GPU: one loop nest over the widened bytes; infc-narrow-integer-operands then
      // reads the bytes themselves inside the convolution.
      Value wide = widenBytes(rewriter, loc, input, et, isUnsigned(fromBytes.getInput().getType()));
      Value acc = zeros(rewriter, loc, resultType.getShape(), et);
      result = linalg::Conv2DNchwFchwOp::create(rewriter, loc, TypeRange{resultType},
                                                ValueRange{wide, weight}, ValueRange{acc}, strides,
                                                dilations)
                   .getResult(0);
    } else if (narrow) {
      result = convAsMatmul(rewriter, loc, input, weight, op.getStrides(), op.getDilations(),
                            resultType, isUnsigned(fromBytes.getInput().getType()));
    } else if (group == 1 && directConv) {
      Value acc = zeros(rewriter, loc, resultType.getShape(), et);
      result = linalg::Conv2DNchwFchwOp::create(rewriter, loc, TypeRange{resultType},
                                                ValueRange{input, weight}, ValueRange{acc}, strides,
                                                dilations)
                   .getResult(0);
    } else if (group == 1) {
      result = convAsMatmul(rewriter, loc, input, weight, op.getStrides(), op.getDilations(),
                            resultType);
    } else if (group == c && f == c && isa<FloatType>(et) && !directConv) {
      result = depthwiseAsTapSum(rewriter, loc, input, weight, op.getStrides(), op.getDilations(),
                                 resultType, /*channelsLast=*/false);
    } else if (group == c && f == c) {
      Value w = reshapeTensor(rewriter, loc, weight, RankedTensorType::get({c, kh, kw}, et));
      Value acc = zeros(rewriter, loc, resultType.getShape(), et);
      result = linalg::DepthwiseConv2DNchwChwOp::create(rewriter, loc, TypeRange{resultType},
                                                        ValueRange{input, w}, ValueRange{acc},
                                                        strides, dilations)
                   .getResult(0);
    } else {
      int64_t cg = c / group, fg = f / group;
      Value x = reshapeTensor(
          rewriter, loc, input,
          RankedTensorType::get({n, group, cg, it.getDimSize(2), it.getDimSize(3)}, et));
      Value w =
          reshapeTensor(rewriter, loc, weight, RankedTensorType::get({group, fg, cg, kh, kw}, et));
      auto groupedType = RankedTensorType::get({n, group, fg, oh, ow}, et);
      Value acc = zeros(rewriter, loc, groupedType.getShape(), et);
      Value y =
          linalg::Conv2DNgchwGfchwOp::create(rewriter, loc, TypeRange{groupedType},
                                             ValueRange{x, w}, ValueRange{acc}, strides, dilations)
              .getResult(0);
      result = reshapeTensor(rewriter, loc, y, resultType);
    }
    rewriter.replaceOp(op, addBias(rewriter, loc, result, adaptor.getBias(), resultType, false));
    return success();
  }

  /// infc-channels-last's NHWC convolutions (CPU): plain as a matmul, depthwise as a tap sum.
  LogicalResult lowerChannelsLast(ConvOp op, OpAdaptor adaptor,
                                  ConversionPatternRewriter &rewriter) const {
    if (directConv)
      return lowerChannelsLastDirect(op, adaptor, rewriter);
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    int64_t group = op.getGroup(), f = resultType.getDimSize(3),
            c = cast<RankedTensorType>(op.getInput().getType()).getDimSize(3);
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    Value result;
    if (isa<IntegerType>(et) && group == 1) {
      // An int8 model's convolution: im2col of its bytes, rows of pixels, their K channels
      // contiguous (a 1x1 one reads its input as is), widened after, times the weights.
      // (Of the i32 values when the bytes' cast folded away after infc-channels-last.)
      CastOp fromBytes = op.getCastFromBytes();
      Value x = paddedChannelsLastInput(op, adaptor, rewriter, fromBytes);
      result = convChannelsLastAsMatmul(
          rewriter, loc, x, weight, op.getStrides(), op.getDilations(), resultType,
          fromBytes && isUnsigned(fromBytes.getInput().getType()), byteRowMultiple);
      rewriter.replaceOp(op, addBias(rewriter, loc, result, adaptor.getBias(), resultType, true));
      return success();
    }
    DenseElementsAttr dense;
    auto weightType = cast<RankedTensorType>(adaptor.getWeight().getType());
    if (bf16Convs && group == 1 && et.isF32() &&
        weightType.getDimSize(1) * weightType.getDimSize(2) * weightType.getDimSize(3) >=
            kBf16MinReduction &&
        matchPattern(adaptor.getWeight(), m_Constant(&dense))) {
      // Rounded to bf16 before padding and im2col (half the bytes to gather), rows padded
      // to whole 64-byte AMX steps (32 values); infc-bf16-matmul reads them as they are.
      Value narrow = roundToBf16(rewriter, loc, adaptor.getInput());
      Value x = padSpatial(rewriter, loc, narrow, op.getPads(),
                           rewriter.getZeroAttr(rewriter.getBF16Type()), /*channelsLast=*/true);
      result = convChannelsLastAsMatmul(rewriter, loc, x, adaptor.getWeight(), op.getStrides(),
                                        op.getDilations(), resultType, false, /*rowMultiple=*/32);
      rewriter.replaceOp(op, addBias(rewriter, loc, result, adaptor.getBias(), resultType, true));
      return success();
    }
    // infc-channels-last writes only these.
    if (!isa<FloatType>(et) || (group != 1 && !(group == c && f == c)))
      return op.emitOpError("channels_last is lowered for float convolutions, plain or "
                            "depthwise, and plain integer convolutions");
    // F below 64 and not 32 does not fit the implicit GEMMs' register tiles, and im2col over
    // a large map is memory-bound: zero filters are appended up to 32 or 64 when that takes
    // an implicit GEMM, the first F channels kept (from 16 on: at most twice the products).
    int64_t padded = f < 32 ? 32 : 64;
    auto paddedType = RankedTensorType::get(
        {resultType.getDimSize(0), resultType.getDimSize(1), resultType.getDimSize(2), padded}, et);
    // (the predicates read F from the result type, the kernel size from the weights)
    if (group == 1 && f >= 16 && f < 64 && f != 32 &&
        prefersImplicitGemm(input, weight, op.getStrides(), op.getDilations(), paddedType)) {
      Value y = convChannelsLast(rewriter, loc, input,
                                 appendZeroFilters(rewriter, loc, weight, padded), op, paddedType);
      result = leadingSlice(rewriter, loc, y, resultType);
    } else {
      result = convChannelsLast(rewriter, loc, input, weight, op, resultType);
    }
    rewriter.replaceOp(op, addBias(rewriter, loc, result, adaptor.getBias(), resultType, true));
    return success();
  }

  /// An NHWC convolution's input padded over H and W with zeros: its bytes where `fromBytes`
  /// (the cast that widens them) is set (0 widens to 0), else the input as it is.
  static Value paddedChannelsLastInput(ConvOp op, OpAdaptor adaptor,
                                       ConversionPatternRewriter &rewriter, CastOp fromBytes) {
    Value x = fromBytes ? rewriter.getRemappedValue(fromBytes.getInput()) : adaptor.getInput();
    return padSpatial(rewriter, op.getLoc(), x, op.getPads(),
                      rewriter.getZeroAttr(getElementTypeOrSelf(x.getType())),
                      /*channelsLast=*/true);
  }

  /// infc-channels-last's NHWC convolutions on the GPU: linalg.conv_2d_nhwc_fhwc (the
  /// weights permuted to [F, KH, KW, C] at compile time, so both operands of the implicit
  /// GEMM have the reduction's channels innermost) and linalg.depthwise_conv_2d_nhwc_hwc,
  /// one loop nest each. An int8 one reads its bytes padded, widened inside the
  /// convolution (infc-narrow-integer-operands then multiplies the bytes themselves).
  LogicalResult lowerChannelsLastDirect(ConvOp op, OpAdaptor adaptor,
                                        ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    int64_t group = op.getGroup(), f = resultType.getDimSize(3),
            c = cast<RankedTensorType>(op.getInput().getType()).getDimSize(3);
    if (group != 1 && !(group == c && f == c && isa<FloatType>(et)))
      return op.emitOpError("channels_last is lowered for plain convolutions and float "
                            "depthwise ones");
    CastOp fromBytes = group == 1 && isa<IntegerType>(et) ? op.getCastFromBytes() : nullptr;
    Value x = paddedChannelsLastInput(op, adaptor, rewriter, fromBytes);
    if (fromBytes)
      x = widenBytes(rewriter, loc, x, et, isUnsigned(fromBytes.getInput().getType()));
    auto strides = rewriter.getI64TensorAttr(op.getStrides());
    auto dilations = rewriter.getI64TensorAttr(op.getDilations());
    Value acc = zeros(rewriter, loc, resultType.getShape(), et);
    Value result;
    if (group == 1) {
      Value w = permuteWeights(rewriter, loc, adaptor.getWeight(), {0, 2, 3, 1});
      result =
          linalg::Conv2DNhwcFhwcOp::create(rewriter, loc, TypeRange{resultType}, ValueRange{x, w},
                                           ValueRange{acc}, strides, dilations)
              .getResult(0);
    } else {
      // [C, 1, KH, KW] -> [KH, KW, C]
      auto wt = cast<RankedTensorType>(adaptor.getWeight().getType());
      Value w = reshapeTensor(rewriter, loc,
                              permuteWeights(rewriter, loc, adaptor.getWeight(), {2, 3, 0, 1}),
                              RankedTensorType::get({wt.getDimSize(2), wt.getDimSize(3), c}, et));
      result = linalg::DepthwiseConv2DNhwcHwcOp::create(rewriter, loc, TypeRange{resultType},
                                                        ValueRange{x, w}, ValueRange{acc}, strides,
                                                        dilations)
                   .getResult(0);
    }
    rewriter.replaceOp(op, addBias(rewriter, loc, result, adaptor.getBias(), resultType, true));
    return success();
  }

  /// Whether an NHWC convolution takes one of the implicit GEMMs (space-to-depth stem, wide
  /// implicit, pixel rows) rather than im2col.
  static bool prefersImplicitGemm(Value input, Value weight, ArrayRef<int64_t> strides,
                                  ArrayRef<int64_t> dilations, RankedTensorType resultType) {
    return prefersSpaceToDepth(input, weight, strides, dilations, resultType) ||
           prefersImplicitConv(input, weight, strides, dilations, resultType) ||
           prefersPixelRows(input, weight, strides, dilations, resultType);
  }

  /// `weight` [F, C, KH, KW], a dense constant, with zero filters appended up to `filters`.
  static Value appendZeroFilters(OpBuilder &b, Location loc, Value weight, int64_t filters) {
    DenseElementsAttr constant;
    if (!matchPattern(weight, m_Constant(&constant)))
      llvm_unreachable("implicitGemmApplies takes constant weights only");
    auto type = cast<RankedTensorType>(weight.getType());
    SmallVector<int64_t> shape(type.getShape());
    int64_t bytes = type.getElementTypeBitWidth() / 8, count = type.getNumElements();
    shape[0] = filters;
    std::vector<char> out(count / type.getDimSize(0) * filters * bytes, 0);
    ArrayRef<char> raw = constant.getRawData();
    for (int64_t i = 0; i < count; ++i) // (a splat's raw data is its one element)
      memcpy(out.data() + i * bytes, raw.data() + (constant.isSplat() ? 0 : i * bytes), bytes);
    auto paddedType = RankedTensorType::get(shape, type.getElementType());
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::getFromRawBuffer(paddedType, out));
  }

  /// The NHWC convolution of `input` (unpadded) by `weight` [F, C, KH, KW] into
  /// `resultType`, without bias: Winograd where it applies, else an implicit GEMM where one
  /// does, else im2col (or the depthwise tap sum).
  Value convChannelsLast(ConversionPatternRewriter &rewriter, Location loc, Value input,
                         Value weight, ConvOp op, RankedTensorType resultType) const {
    Type et = resultType.getElementType();
    int64_t group = op.getGroup();
    ArrayRef<int64_t> pads = op.getPads();
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations();
    TypedAttr zero = rewriter.getZeroAttr(et);
    if (group == 1 && winogradMinChannels > 0) {
      // Winograd's transforms are written for one image: a batch runs them image by image
      // (measured: ResNet-50 at batch 4 without them took 20% longer an image than batch 1).
      auto it = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> one(it.getShape()), oneOut(resultType.getShape());
      one[0] = oneOut[0] = 1;
      auto imageType = RankedTensorType::get(one, et);
      auto imageResult = RankedTensorType::get(oneOut, et);
      if (it.hasStaticShape() &&
          winogradApplies(imageType, weight, strides, dilations, imageResult, winogradMinChannels))
        return it.getDimSize(0) == 1
                   ? convChannelsLastWinograd(rewriter, loc, input, weight, pads, resultType)
                   : convByImage(rewriter, loc, input, resultType, imageType,
                                 [&](OpBuilder &b, Location l, Value image) {
                                   return convChannelsLastWinograd(b, l, image, weight, pads,
                                                                   imageResult);
                                 });
    }
    if (group == 1 && prefersSpaceToDepth(input, weight, strides, dilations, resultType))
      return convSpaceToDepth(rewriter, loc, input, weight, pads, resultType);
    if (group == 1 && prefersImplicitConv(input, weight, strides, dilations, resultType)) {
      // (one more zero row at the bottom: see convChannelsLastImplicit)
      input = padConstant(rewriter, loc, input, {0, pads[0], pads[1], 0},
                          {0, pads[2] + 1, pads[3], 0}, zero);
      return convChannelsLastImplicit(rewriter, loc, input, weight, resultType);
    }
    bool pixelRows = group == 1 && prefersPixelRows(input, weight, strides, dilations, resultType);
    input = padSpatial(rewriter, loc, input, pads, zero, /*channelsLast=*/true);
    if (pixelRows)
      return convChannelsLastPixelRows(rewriter, loc, input, weight, strides[0], resultType);
    if (group == 1)
      return convChannelsLastAsMatmul(rewriter, loc, input, weight, strides, dilations, resultType);
    return depthwiseAsTapSum(rewriter, loc, input, weight, strides, dilations, resultType,
                             /*channelsLast=*/true);
  }

  /// `resultType` [N, ...] of `input` [N, ...] one image at a time: `image` gives the result
  /// [1, ...] of the input slice `imageType` [1, ...] of image n.
  static Value convByImage(OpBuilder &b, Location loc, Value input, RankedTensorType resultType,
                           RankedTensorType imageType,
                           function_ref<Value(OpBuilder &, Location, Value)> image) {
    auto slice = [&](OpBuilder &nb, Value n, ArrayRef<int64_t> shape,
                     SmallVectorImpl<OpFoldResult> &offsets, SmallVectorImpl<OpFoldResult> &sizes,
                     SmallVectorImpl<OpFoldResult> &strides) {
      offsets.assign(shape.size(), nb.getIndexAttr(0));
      offsets[0] = n;
      for (int64_t d : shape)
        sizes.push_back(nb.getIndexAttr(d));
      sizes[0] = nb.getIndexAttr(1);
      strides.assign(shape.size(), nb.getIndexAttr(1));
    };
    Value init =
        tensor::EmptyOp::create(b, loc, resultType.getShape(), resultType.getElementType());
    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    auto loop = scf::ForOp::create(
        b, loc, index(0), index(resultType.getDimSize(0)), index(1), ValueRange{init},
        [&](OpBuilder &nb, Location nl, Value n, ValueRange iter) {
          SmallVector<OpFoldResult> offsets, sizes, strides;
          slice(nb, n, imageType.getShape(), offsets, sizes, strides);
          Value x =
              tensor::ExtractSliceOp::create(nb, nl, imageType, input, offsets, sizes, strides);
          Value y = image(nb, nl, x);
          SmallVector<OpFoldResult> outOffsets, outSizes, outStrides;
          slice(nb, n, resultType.getShape(), outOffsets, outSizes, outStrides);
          scf::YieldOp::create(
              nb, nl,
              tensor::InsertSliceOp::create(nb, nl, y, iter[0], outOffsets, outSizes, outStrides)
                  .getResult());
        });
    // infc-memory-plan places the body's scratch buffers once for every image.
    loop->setAttr("infc.by_image", b.getUnitAttr());
    return loop.getResult(0);
  }

  /// result + bias [F] along the channel dim: dim 1 of [N, F, OH, OW], or the last of NHWC.
  static Value addBias(OpBuilder &b, Location loc, Value result, Value bias,
                       RankedTensorType resultType, bool channelsLast) {
    if (!bias)
      return result;
    Type et = resultType.getElementType();
    int64_t f = cast<RankedTensorType>(bias.getType()).getDimSize(0);
    Value broadcast =
        channelsLast ? bias : reshapeTensor(b, loc, bias, RankedTensorType::get({f, 1, 1}, et));
    return elementwise(b, loc, resultType, ValueRange{result, broadcast},
                       [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                         if (isa<FloatType>(et))
                           return arith::AddFOp::create(nb, l, args[0], args[1]);
                         return arith::AddIOp::create(nb, l, args[0], args[1]);
                       });
  }
};
} // namespace

void infc::populateLinearPatterns(RewritePatternSet &patterns, bool directConv,
                                  int64_t byteRowMultiple, int64_t winogradMinChannels,
                                  bool bf16Convs) {
  patterns.add<MatMulLowering>(patterns.getContext());
  patterns.add<ConvLowering>(patterns.getContext(), directConv, byteRowMultiple,
                             winogradMinChannels, bf16Convs);
}

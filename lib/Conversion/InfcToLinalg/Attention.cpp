//===- Attention.cpp - a decoder's runtime calls: attention, logit rows -----===//
//
// A decoder layer's attention reads and writes the KV cache, which lives in the runtime's
// blocks with a block table per sequence (runtime/kv.c): the op becomes a call of the
// runtime's `infc__paged_attention` on the step's q, k and v rows (dense, row-major) and a
// fresh output buffer. Which rows belong to which sequence is the step's context, set by
// the runtime around the entry. The operands are passed as views of one element (bare
// pointers under the entry's calling convention), made right at the call, so the memory
// plan sees each buffer live until the call.
//
// infc.decoder_logits asks the runtime which rows' logits the step uses
// (`infc__llm_logit_rows` packs them at the front of a copy of the hidden rows and returns
// their count), then multiplies only those: row blocks over a run-time row count.
//
//===----------------------------------------------------------------------===//
#include "PopulatePatterns.h"
#include "Utils.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"
#include "infc/Support/Markers.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace infc;

namespace {
/// The runtime function `name` that infc-recognize-attention declared, or null.
func::FuncOp runtimeFunction(Operation *op, StringRef name) {
  auto module = op->getParentOfType<ModuleOp>();
  return module ? module.lookupSymbol<func::FuncOp>(name) : nullptr;
}

/// `buffer` as a view of its first element: a bare pointer under the entry's calling
/// convention, made right at the call so that the memory plan keeps the buffer live to it.
Value firstElement(OpBuilder &b, Location loc, Value buffer) {
  return memref::ReinterpretCastOp::create(b, loc, MemRefType::get({1}, b.getF32Type()), buffer, 0,
                                           ArrayRef<int64_t>{1}, ArrayRef<int64_t>{1});
}

struct PagedAttentionLowering : public OpConversionPattern<PagedAttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PagedAttentionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    func::FuncOp callee = runtimeFunction(op, kPagedAttentionKernel);
    if (!callee)
      return rewriter.notifyMatchFailure(op, "the kernel's declaration is missing");
    auto qt = cast<RankedTensorType>(op.getQuery().getType());
    auto kt = cast<RankedTensorType>(op.getKey().getType());
    auto dense = [](RankedTensorType t) {
      return MemRefType::get(t.getShape(), t.getElementType());
    };
    // Identity layouts: bufferization copies an operand whose buffer is a strided view.
    Value q = bufferization::ToBufferOp::create(rewriter, loc, dense(qt), adaptor.getQuery(), true);
    Value k = bufferization::ToBufferOp::create(rewriter, loc, dense(kt), adaptor.getKey(), true);
    Value v = bufferization::ToBufferOp::create(rewriter, loc, dense(kt), adaptor.getValue(), true);
    Value rows = memref::DimOp::create(rewriter, loc, q, 2);
    SmallVector<Value> sizes;
    if (qt.isDynamicDim(2))
      sizes.push_back(rows);
    Value out = memref::AllocOp::create(rewriter, loc, dense(qt), sizes, IntegerAttr());
    auto view = [&](Value buffer) { return firstElement(rewriter, loc, buffer); };
    auto i32 = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, value, 32);
    };
    SmallVector<Value> args = {
        i32(op.getLayer()),
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), rows),
        i32(qt.getDimSize(1)),
        i32(kt.getDimSize(1)),
        i32(qt.getDimSize(3)),
        arith::ConstantOp::create(rewriter, loc,
                                  rewriter.getF32FloatAttr(op.getScale().convertToDouble())),
        view(q),
        view(k),
        view(v),
        view(out)};
    func::CallOp::create(rewriter, loc, callee, args);
    rewriter.replaceOp(op, bufferization::ToTensorOp::create(rewriter, loc, qt, out,
                                                             /*restrict=*/true, /*writable=*/true));
    return success();
  }
};

struct DecoderLogitsLowering : public OpConversionPattern<DecoderLogitsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DecoderLogitsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    func::FuncOp callee = runtimeFunction(op, kLogitRowsFunction);
    if (!callee)
      return rewriter.notifyMatchFailure(op, "the runtime function's declaration is missing");
    auto ht = cast<RankedTensorType>(op.getHidden().getType());
    auto rt = cast<RankedTensorType>(op.getType());
    int64_t width = ht.getDimSize(2), vocab = rt.getDimSize(2);
    auto dense = MemRefType::get(ht.getShape(), ht.getElementType());
    Value in = bufferization::ToBufferOp::create(rewriter, loc, dense, adaptor.getHidden(), true);
    Value rows = memref::DimOp::create(rewriter, loc, in, 1);
    SmallVector<Value> sizes;
    if (ht.isDynamicDim(1))
      sizes.push_back(rows);
    Value out = memref::AllocOp::create(rewriter, loc, dense, sizes, IntegerAttr());
    auto view = [&](Value buffer) { return firstElement(rewriter, loc, buffer); };
    Type i64 = rewriter.getI64Type();
    Value count =
        func::CallOp::create(rewriter, loc, callee,
                             ValueRange{arith::IndexCastOp::create(rewriter, loc, i64, rows),
                                        arith::ConstantIntOp::create(rewriter, loc, width, 64),
                                        view(in), view(out)})
            .getResult(0);
    Value packed = bufferization::ToTensorOp::create(rewriter, loc, ht, out, /*restrict=*/true,
                                                     /*writable=*/true);
    Type et = rt.getElementType();
    Value a = lowering::reshapeTensor(rewriter, loc, packed,
                                      RankedTensorType::get({ht.getDimSize(1), width}, et));
    if (!a)
      return rewriter.notifyMatchFailure(op, "hidden rows that do not collapse");
    SmallVector<Value> resultSizes;
    if (rt.isDynamicDim(1))
      resultSizes.push_back(rows); // the result has the hidden rows' count (the verifier's)
    Value empty = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{rt.getDimSize(1), vocab},
                                          et, resultSizes);
    Value product = lowering::rowBlockedMatmul(
        rewriter, loc, a, adaptor.getWeight(), empty,
        arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), count), kLmHeadAttr);
    Value result = lowering::reshapeTensor(rewriter, loc, product, rt);
    if (!result)
      return rewriter.notifyMatchFailure(op, "logits that do not expand");
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void infc::populateAttentionPatterns(RewritePatternSet &patterns) {
  patterns.add<PagedAttentionLowering, DecoderLogitsLowering>(patterns.getContext());
}

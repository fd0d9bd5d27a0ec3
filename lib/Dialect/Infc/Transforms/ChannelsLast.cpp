//===- ChannelsLast.cpp - NHWC convolutions and pooling for the CPU -------===//
//
// On the CPU a convolution is a matmul. In NCHW the weights are its A operand, read as
// broadcasts row by row, and the activation is B, which must be packed into panels at run
// time (and, past 1x1, first copied by im2col). In NHWC the activation rows are A, the
// weights B [KH*KW*C, F] are packed into panels at compile time, and a 1x1 convolution reads
// its input in place: the GEMM kernel of the linear layers, with nothing done at run time
// but the product.
//
// So every float convolution (plain or depthwise), and every plain i32 convolution of
// widened bytes (an int8 model's), becomes transpose(conv{channels_last}(transpose(x))),
// and the transposes then move through what follows (elementwise ops, casts, quantize /
// dequantize, pads, max and average pooling, keepdims reductions, gathers, slices, concats)
// until two meet and cancel, or a transpose that moves only unit dims becomes a reshape.
// What is left is one transpose at each edge of the network (the image in, the pooled
// features out) and wherever an op would need NCHW.
//
//===----------------------------------------------------------------------===//
#include "infc/Dialect/Infc/IR/InfcOps.h"
#include "infc/Dialect/Infc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace infc {
#define GEN_PASS_DEF_INFCCHANNELSLAST
#include "infc/Dialect/Infc/Transforms/Passes.h.inc"
} // namespace infc

using namespace mlir;
using namespace infc;

namespace {
constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
constexpr int64_t kToNCHW[] = {0, 3, 1, 2};

/// The shape `shape` takes under transpose `perm` (result dim i is input dim perm[i]).
SmallVector<int64_t> permuted(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> out;
  for (int64_t p : perm)
    out.push_back(shape[p]);
  return out;
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inv[perm[i]] = i;
  return inv;
}

/// The transposes this pass moves: the ones back to NCHW that it puts after convolutions.
TransposeOp toNCHWTranspose(Value v) {
  auto t = v.getDefiningOp<TransposeOp>();
  return t && t.getPerm() == ArrayRef<int64_t>(kToNCHW) ? t : TransposeOp();
}

Value transpose(PatternRewriter &rewriter, Location loc, Value input, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(input.getType());
  auto resultType = RankedTensorType::get(permuted(type.getShape(), perm), type.getElementType());
  return TransposeOp::create(rewriter, loc, resultType, input, rewriter.getDenseI64ArrayAttr(perm));
}

/// Attribute `name` holding one value per dim of an op moved below transpose `t`: the
/// value of dim i goes to dim P[i] (a slice's offsets, a pad's pads).
NamedAttribute perDimAttr(PatternRewriter &rewriter, StringRef name, ArrayRef<int64_t> values,
                          TransposeOp t) {
  return rewriter.getNamedAttr(
      name, rewriter.getDenseI64ArrayAttr(permuted(values, inverse(t.getPerm()))));
}

/// The `axis` attribute of `op` (one result; a negative axis counts from the end) moved
/// below transpose `t`: dim a becomes dim P[a].
NamedAttribute axisAttr(PatternRewriter &rewriter, Operation *op, int64_t axis, TransposeOp t) {
  int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
  return rewriter.getNamedAttr(
      "axis", rewriter.getI64IntegerAttr(t.getPerm()[axis < 0 ? axis + rank : axis]));
}

/// Replaces op(transpose(x, P)) (one operand, one result) by transpose(op'(x), P): op' is a
/// clone reading x, with `attrs` set and its result permuted back by P.
void moveBelow(PatternRewriter &rewriter, Operation *op, TransposeOp t,
               ArrayRef<NamedAttribute> attrs = {}) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Operation *moved = rewriter.clone(*op);
  moved->setOperand(0, t.getInput());
  for (NamedAttribute attr : attrs)
    moved->setAttr(attr.getName(), attr.getValue());
  moved->getResult(0).setType(RankedTensorType::get(permuted(type.getShape(), inverse(t.getPerm())),
                                                    type.getElementType()));
  rewriter.replaceOp(op, transpose(rewriter, op->getLoc(), moved->getResult(0), t.getPerm()));
}

/// Plain (group 1) and depthwise float convolutions of one NCHW image batch, and plain i32
/// convolutions of bytes: those then read their bytes transposed, widened after (so the
/// transposes move bytes, and the lowering finds the cast it multiplies the bytes of).
struct ConvToChannelsLast : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op, PatternRewriter &rewriter) const override {
    auto it = cast<RankedTensorType>(op.getInput().getType());
    auto wt = cast<RankedTensorType>(op.getWeight().getType());
    CastOp fromBytes = op.getCastFromBytes();
    if (op.getChannelsLast() || (!isa<FloatType>(it.getElementType()) && !fromBytes))
      return rewriter.notifyMatchFailure(op, "not a float or byte NCHW convolution");
    int64_t group = op.getGroup(), c = it.getDimSize(1), f = wt.getDimSize(0);
    if (group != 1 && (fromBytes || !(group == c && f == c)))
      return rewriter.notifyMatchFailure(op, "grouped, not depthwise");
    Location loc = op.getLoc();
    Value x;
    if (fromBytes) {
      Value bytes = transpose(rewriter, loc, fromBytes.getInput(), kToNHWC);
      x = CastOp::create(
          rewriter, loc,
          RankedTensorType::get(permuted(it.getShape(), kToNHWC), it.getElementType()), bytes,
          fromBytes.getSaturateAttr());
    } else {
      x = transpose(rewriter, loc, op.getInput(), kToNHWC);
    }
    auto resultType = cast<RankedTensorType>(op.getType());
    auto lastType = RankedTensorType::get(permuted(resultType.getShape(), kToNHWC),
                                          resultType.getElementType());
    Value y = ConvOp::create(rewriter, loc, lastType, x, op.getWeight(), op.getBias(),
                             op.getStridesAttr(), op.getPadsAttr(), op.getDilationsAttr(),
                             op.getGroupAttr(), rewriter.getUnitAttr());
    rewriter.replaceOp(op, transpose(rewriter, loc, y, kToNCHW));
    return success();
  }
};

/// op(transpose(x)) -> transpose(op(x)) for the unary elementwise ops. (This and the other
/// sinking patterns move only transposes to NCHW, the ones this pass writes, so the
/// transposes of other models, such as attention's, stay where they are.)
struct SinkThroughUnary : RewritePattern {
  SinkThroughUnary(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!op->hasTrait<InfcElementwise>() || op->getNumOperands() != 1)
      return failure();
    TransposeOp t = toNCHWTranspose(op->getOperand(0));
    if (!t)
      return failure();
    moveBelow(rewriter, op, t);
    return success();
  }
};

/// op(transpose(a, P), transpose(b, P)) -> transpose(op(a, b), P), and op(transpose(a, P), c)
/// with a constant c -> transpose(op(a, c'), P), c' being c (broadcast to the same rank)
/// transposed back, which folds at compile time. Any other operand of the same rank is
/// transposed back at run time.
struct SinkThroughBinary : RewritePattern {
  SinkThroughBinary(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!op->hasTrait<InfcElementwise>() || op->getNumOperands() != 2)
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    TransposeOp lhsT = toNCHWTranspose(op->getOperand(0));
    TransposeOp t = lhsT ? lhsT : toNCHWTranspose(op->getOperand(1));
    if (!t || (int64_t)t.getPerm().size() != type.getRank())
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    SmallVector<int64_t> back = inverse(perm);
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      auto ot = operand.getDefiningOp<TransposeOp>();
      if (ot && ot.getPerm() == perm) {
        operands.push_back(ot.getInput());
        continue;
      }
      auto ct = cast<RankedTensorType>(operand.getType());
      if (!matchPattern(operand, m_Constant())) {
        // Another NCHW value (a residual from the network's input): it takes the transpose
        // instead, which lets this one move on (and is shared with the conv that reads it).
        if (ct.getRank() != type.getRank())
          return failure();
        operands.push_back(transpose(rewriter, loc, operand, back));
        continue;
      }
      // Broadcast to the result's rank with leading ones, then undo the transpose.
      SmallVector<int64_t> shape(type.getRank() - ct.getRank(), 1);
      llvm::append_range(shape, ct.getShape());
      Value c = operand;
      if (ct.getRank() != type.getRank())
        c = ReshapeOp::create(rewriter, loc, RankedTensorType::get(shape, ct.getElementType()), c);
      operands.push_back(transpose(rewriter, loc, c, back));
    }
    OperationState state(
        loc, op->getName(), operands,
        RankedTensorType::get(permuted(type.getShape(), back), type.getElementType()),
        op->getAttrs());
    Operation *moved = rewriter.create(state);
    rewriter.replaceOp(op, transpose(rewriter, loc, moved->getResult(0), perm));
    return success();
  }
};

/// cast(transpose(x, to NCHW)) -> transpose(cast(x), to NCHW): the widening of an int8
/// model's bytes, and its i32 sums converted to float. Not into a grouped integer
/// convolution, which keeps NCHW: its transpose then moves bytes, not the widened values.
struct SinkThroughCast : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op, PatternRewriter &rewriter) const override {
    TransposeOp t = toNCHWTranspose(op.getInput());
    if (!t || llvm::any_of(op->getUsers(), [](Operation *user) {
          auto conv = dyn_cast<ConvOp>(user);
          return conv && !conv.getChannelsLast() && conv.getGroup() != 1;
        }))
      return failure();
    moveBelow(rewriter, op, t);
    return success();
  }
};

/// quantize / dequantize(transpose(x, P)) -> transpose(op(x), P): per tensor as is, per
/// axis along P(axis). (Blocked quantization stays.)
template <typename QuantOp> struct SinkThroughQuant : OpRewritePattern<QuantOp> {
  using OpRewritePattern<QuantOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantOp op, PatternRewriter &rewriter) const override {
    TransposeOp t = toNCHWTranspose(op.getInput());
    int64_t scaleRank = cast<RankedTensorType>(op.getScale().getType()).getRank();
    if (!t || op.getBlockSize() != 0 || scaleRank > 1)
      return failure();
    if (scaleRank == 0) {
      moveBelow(rewriter, op, t);
      return success();
    }
    moveBelow(rewriter, op, t, axisAttr(rewriter, op, op.getAxis(), t));
    return success();
  }
};

/// pad(transpose(x, P)) -> transpose(pad(x), P), the pads of dim i moved to dim P[i]: the
/// zero-point border of an int8 convolution's bytes.
struct SinkThroughPad : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op, PatternRewriter &rewriter) const override {
    TransposeOp t = toNCHWTranspose(op.getInput());
    if (!t)
      return failure();
    moveBelow(rewriter, op, t,
              {perDimAttr(rewriter, "low", op.getLow(), t),
               perDimAttr(rewriter, "high", op.getHigh(), t)});
    return success();
  }
};

/// pool(transpose(x, to NCHW)) -> transpose(pool{channels_last}(x), to NCHW).
template <typename PoolOp> struct SinkThroughPool : OpRewritePattern<PoolOp> {
  using OpRewritePattern<PoolOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(PoolOp op, PatternRewriter &rewriter) const override {
    TransposeOp t = toNCHWTranspose(op.getInput());
    if (op.getChannelsLast() || !t)
      return failure();
    moveBelow(rewriter, op, t, rewriter.getNamedAttr("channels_last", rewriter.getUnitAttr()));
    return success();
  }
};

/// reduce(transpose(x, P), axes, keepdims) -> transpose(reduce(x, P(axes)), P).
template <typename ReduceOp> struct SinkThroughReduce : OpRewritePattern<ReduceOp> {
  using OpRewritePattern<ReduceOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op, PatternRewriter &rewriter) const override {
    TransposeOp t = toNCHWTranspose(op.getInput());
    if (!t || !op.getKeepdims())
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    SmallVector<int64_t> axes;
    for (int64_t a : op.getAxes())
      axes.push_back(perm[a]); // the verifier keeps axes in [0, rank)
    llvm::sort(axes);
    moveBelow(rewriter, op, t, rewriter.getNamedAttr("axes", rewriter.getDenseI64ArrayAttr(axes)));
    return success();
  }
};

/// gather(transpose(x, P), indices [n], axis a) -> transpose(gather(x, indices, P[a]), P):
/// a nearest Resize (a gather of rows, then of columns) in the FPN of a detector.
struct SinkThroughGather : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op, PatternRewriter &rewriter) const override {
    TransposeOp t = toNCHWTranspose(op.getData());
    if (!t || cast<RankedTensorType>(op.getIndices().getType()).getRank() != 1)
      return failure();
    moveBelow(rewriter, op, t, axisAttr(rewriter, op, op.getAxis(), t));
    return success();
  }
};

/// slice(transpose(x, P)) -> transpose(slice(x), P), the slice's offsets, sizes and steps
/// of dim i moved to dim P[i]: a Split along the channels (YOLO's C2f blocks).
struct SinkThroughSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op, PatternRewriter &rewriter) const override {
    TransposeOp t = toNCHWTranspose(op.getInput());
    if (!t)
      return failure();
    moveBelow(rewriter, op, t,
              {perDimAttr(rewriter, "offsets", op.getOffsets(), t),
               perDimAttr(rewriter, "sizes", op.getSizes(), t),
               perDimAttr(rewriter, "steps", op.getSteps(), t)});
    return success();
  }
};

/// concat(transpose(a, P), transpose(b, P), ..., axis a) -> transpose(concat(a, b, ...,
/// P[a]), P): the feature maps of an FPN joined along the channels.
struct SinkThroughConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op, PatternRewriter &rewriter) const override {
    SmallVector<Value> inputs;
    for (Value v : op.getInputs()) {
      TransposeOp t = toNCHWTranspose(v);
      if (!t)
        return failure();
      inputs.push_back(t.getInput());
    }
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + type.getRank() : op.getAxis();
    Location loc = op.getLoc();
    auto moved = ConcatOp::create(
        rewriter, loc,
        RankedTensorType::get(permuted(type.getShape(), kToNHWC), type.getElementType()), inputs,
        rewriter.getI64IntegerAttr(kToNCHW[axis]));
    rewriter.replaceOp(op, transpose(rewriter, loc, moved, kToNCHW));
    return success();
  }
};

/// transpose(transpose(x, P1), P2) -> transpose(x, P1 o P2) (the folder drops an identity).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(inner.getPerm()[p]);
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), inner.getInput(), perm));
    return success();
  }
};

/// A transpose that keeps the order of the dims larger than one is a reshape.
struct TransposeOfUnitDimsToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(op.getInput().getType()).getShape();
    int64_t last = -1;
    for (int64_t p : op.getPerm()) {
      if (shape[p] == 1)
        continue;
      if (p < last)
        return failure();
      last = p;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

struct InfcChannelsLastPass : public infc::impl::InfcChannelsLastBase<InfcChannelsLastPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool convs = false;
    func.walk([&](ConvOp) { convs = true; });
    if (!convs)
      return;
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<
        ConvToChannelsLast, SinkThroughUnary, SinkThroughBinary, SinkThroughPool<MaxPoolOp>,
        SinkThroughPool<AvgPoolOp>, SinkThroughReduce<ReduceSumOp>, SinkThroughReduce<ReduceMeanOp>,
        SinkThroughReduce<ReduceMaxOp>, SinkThroughReduce<ReduceMinOp>,
        SinkThroughReduce<ReduceProdOp>, SinkThroughGather, SinkThroughSlice, SinkThroughConcat,
        SinkThroughCast, SinkThroughQuant<QuantizeOp>, SinkThroughQuant<DequantizeOp>,
        SinkThroughPad, ComposeTransposes, TransposeOfUnitDimsToReshape>(ctx);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

//===- ImplicitConv.cpp - register-tiled implicit-GEMM convolutions ------===//
//
// convert-infc-to-linalg writes a stride-1 NHWC convolution of one image as a linalg.generic
// over a "wide" output (Wp columns a row), marked infc.implicit_conv = [KH, KW, Wp]:
//   Y'[m, f] = sum_{t, c} X[m + (t / KW) * Wp + t % KW, c] * W[t, c, f]
// Each tap's A is the padded input itself shifted by a row offset, so no im2col matrix is
// written and read back (in ResNet's 56x56 stage those copies took a fifth of the time).
// This pass gives it the register kernel of infc-tile-and-vectorize-matmul directly: the
// weights packed into panels at compile time, mr x nr accumulator tiles carried through
// loops over the taps and the channels, each step a vector.contract of an mr x 1 column of
// X (rows m0 + offset(t) ..) and a 1 x nr row of the panel.
//
//===----------------------------------------------------------------------===//
#include "TileUtils.h"
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace infc {
#define GEN_PASS_DEF_INFCIMPLICITCONV
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// The slice convert-infc-to-linalg takes of the wide output, [M, F] as [1, OH, Wp, F] and
/// its columns [0, OW): with it, infc-implicit-conv stores each row of a tile (an output
/// pixel) straight at its place in a [1, OH, OW, F] output and skips the garbage columns,
/// so no copy drops those afterwards, and a pad after the convolution (the next conv's,
/// a max pool's) gets the pixels written into its interior (empty-tensor elimination).
tensor::ExtractSliceOp wideSliceOf(linalg::GenericOp conv, int64_t wp) {
  Value result = conv.getResult(0);
  auto expand = result.hasOneUse() ? dyn_cast<tensor::ExpandShapeOp>(*result.getUsers().begin())
                                   : tensor::ExpandShapeOp();
  if (!expand || !expand->hasOneUse() || expand.getResultType().getRank() != 4 ||
      expand.getResultType().getDimSize(2) != wp)
    return {};
  auto slice = dyn_cast<tensor::ExtractSliceOp>(*expand->getUsers().begin());
  if (!slice || !slice.hasUnitStride() || !llvm::all_of(slice.getMixedOffsets(), isZeroInteger) ||
      slice.getResultType().getRank() != 4 || !slice.getResultType().hasStaticShape())
    return {};
  // Only columns cut: every wide row's pixels have their place in the slice.
  ArrayRef<int64_t> wide = expand.getResultType().getShape(),
                    pixels = slice.getResultType().getShape();
  if (wide[0] != pixels[0] || wide[1] != pixels[1] || wide[3] != pixels[3])
    return {};
  return slice;
}

/// The elementwise op after the convolution that reads only its result (through the slice
/// that drops the wide output's garbage columns) and per-channel values [F] (the bias):
/// infc-implicit-conv runs it on each accumulator row before the row is stored, so the
/// output is written once, not written, read back for the bias and activation and
/// written again (ResNet-50's stem: a tenth of its time).
struct ConvEpilogue {
  linalg::GenericOp op;
  /// The generic's inputs: the conv's slice (null here) or an [F] tensor.
  SmallVector<Value> channelInputs;

  static std::optional<ConvEpilogue> of(Value pixels) {
    if (!pixels.hasOneUse())
      return std::nullopt;
    auto op = dyn_cast<linalg::GenericOp>(*pixels.getUsers().begin());
    auto sliceType = cast<RankedTensorType>(pixels.getType());
    int64_t rank = sliceType.getRank();
    if (!op || op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
        op.getNumParallelLoops() != op.getNumLoops() || op.getNumLoops() != rank ||
        op.getResult(0).getType() != sliceType ||
        !op.getMatchingBlockArgument(op.getDpsInitOperand(0)).use_empty())
      return std::nullopt;
    MLIRContext *ctx = op.getContext();
    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx));
    ConvEpilogue epilogue{op, {}};
    bool readsConv = false;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      auto type = dyn_cast<RankedTensorType>(input->get().getType());
      if (input->get() == pixels && map.isIdentity() && !readsConv) {
        readsConv = true;
        epilogue.channelInputs.push_back(Value());
      } else if (type && type.getRank() == 1 && map == channel &&
                 type.getElementType() == sliceType.getElementType()) {
        epilogue.channelInputs.push_back(input->get());
      } else {
        return std::nullopt;
      }
    }
    // Scalar arithmetic only: each op then applies to whole rows as is.
    for (Operation &bodyOp : op.getBody()->without_terminator())
      if (bodyOp.getNumRegions() || bodyOp.getNumResults() != 1 ||
          !OpTrait::hasElementwiseMappableTraits(&bodyOp) ||
          !llvm::all_of(bodyOp.getOperandTypes(), [](Type t) { return t.isIntOrIndexOrFloat(); }))
        return std::nullopt;
    if (!readsConv)
      return std::nullopt;
    return epilogue;
  }

  /// Row `v` (vector<nr>) of the accumulators through the body; `channels` are the
  /// channel inputs' vectors of this panel.
  Value applyToRow(OpBuilder &b, Location loc, Value v, ArrayRef<Value> channels) const {
    auto rowType = cast<VectorType>(v.getType());
    IRMapping map;
    Block *body = linalg::GenericOp(op).getBody();
    for (auto [arg, channel] : llvm::zip(body->getArguments(), channels))
      map.map(arg, channel ? channel : v);
    for (Operation &bodyOp : body->without_terminator()) {
      for (Value operand : bodyOp.getOperands())
        if (!map.contains(operand))
          map.map(operand,
                  vector::BroadcastOp::create(
                      b, loc, VectorType::get(rowType.getShape(), operand.getType()), operand));
      Operation *clone = b.clone(bodyOp, map);
      clone->getResult(0).setType(
          VectorType::get(rowType.getShape(), bodyOp.getResult(0).getType()));
    }
    Value yielded = map.lookupOrDefault(body->getTerminator()->getOperand(0));
    if (!isa<VectorType>(yielded.getType())) // (a value from outside the body)
      yielded = vector::BroadcastOp::create(b, loc, rowType, yielded);
    return yielded;
  }
};

/// A run of K rows with nonzero weights: channels [channel, channel + size) of one tap
/// (its input row offset `shift`), rows [k, k + size) of the packed weights.
struct KSegment {
  int64_t shift, channel, size, k;
};

struct ImplicitConv {
  int64_t kh, kw, wp, m, c, f, mr, nr;
  /// The K rows to run when some taps' channels have all-zero weights (a space-to-depth
  /// stem's taps past the original kernel): only those with weights, packed in this
  /// order. Empty: all KH * KW * C rows, in a loop over the taps.
  SmallVector<KSegment> segments;
  Value x, packed, fillValue;
  Type et;
  /// The compact output's OH, OW (0: the wide output is stored as it is).
  int64_t oh = 0, ow = 0;
  /// Pixel rows (`infc.implicit_conv = [KH, KW, Wp, S, OW]`): output row m is pixel
  /// (m / OW, m % OW), whose tap (0, 0) reads input row (m / OW) * S * Wp + (m % OW) * S;
  /// each tile row broadcasts from its own pixel's row, so no garbage columns. 0: wide.
  int64_t pixelW = 0, stride = 1;
  std::optional<ConvEpilogue> epilogue;

  /// Writes the [rows, nr] tile `acc` of wide rows [m0, m0 + rows) at `column` of `y`:
  /// whole, or row by row (through the epilogue, if any), each at its pixel of the
  /// [1, OH, OW, F] `y` when there is one.
  Value store(OpBuilder &b, Location loc, Value acc, Value y, Value m0, Value column, int64_t rows,
              ArrayRef<Value> channels) const {
    if (!epilogue && !ow)
      return vector::TransferWriteOp::create(b, loc, acc, y, ValueRange{m0, column},
                                             ArrayRef<bool>{true, true})
          .getResult();
    auto constant = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    for (int64_t i = 0; i < rows; ++i) {
      Value v = vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{i});
      if (epilogue)
        v = epilogue->applyToRow(b, loc, v, channels);
      Value row = arith::AddIOp::create(b, loc, m0, constant(i));
      if (pixelW) {
        // Pixel rows: row m is pixel (m / OW, m % OW).
        Value r = arith::DivUIOp::create(b, loc, row, constant(pixelW));
        Value c = arith::RemUIOp::create(b, loc, row, constant(pixelW));
        y = vector::TransferWriteOp::create(b, loc, v, y, ValueRange{constant(0), r, c, column},
                                            ArrayRef<bool>{true})
                .getResult();
        continue;
      }
      if (!ow) {
        y = vector::TransferWriteOp::create(b, loc, v, y, ValueRange{row, column},
                                            ArrayRef<bool>{true})
                .getResult();
        continue;
      }
      // Wide row oh * Wp + c is pixel (oh, c) of the [1, OH, OW, F] output if c < OW, else
      // a garbage column, not stored.
      Value c = arith::RemUIOp::create(b, loc, row, constant(wp));
      Value r = arith::DivUIOp::create(b, loc, row, constant(wp));
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c, constant(ow));
      auto ifOp = scf::IfOp::create(
          b, loc, valid,
          [&](OpBuilder &tb, Location tl) {
            Value written =
                vector::TransferWriteOp::create(tb, tl, v, y, ValueRange{constant(0), r, c, column},
                                                ArrayRef<bool>{true})
                    .getResult();
            scf::YieldOp::create(tb, tl, written);
          },
          [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, y); });
      y = ifOp.getResult(0);
    }
    return y;
  }

  /// The [rows, nr] accumulator tile of output rows [m0, m0 + rows) and panel p.
  Value tile(OpBuilder &b, Location loc, Value m0, Value p, int64_t rows) const {
    MLIRContext *ctx = b.getContext();
    auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
    auto accType = VectorType::get({rows, nr}, et);
    Value acc = vector::BroadcastOp::create(b, loc, accType, fillValue);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(et)); // (in bounds: unused)
    AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
               d2 = getAffineDimExpr(2, ctx);
    ArrayAttr maps = b.getAffineMapArrayAttr({AffineMap::get(3, 0, {d0, d2}, ctx),
                                              AffineMap::get(3, 0, {d2, d1}, ctx),
                                              AffineMap::get(3, 0, {d0, d1}, ctx)});
    ArrayAttr iterators =
        b.getArrayAttr({vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel),
                        vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel),
                        vector::IteratorTypeAttr::get(ctx, vector::IteratorType::reduction)});
    // Pixel rows: each tile row's input row for tap (0, 0).
    auto constant = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    SmallVector<Value> pixelRows;
    for (int64_t i = 0; pixelW && i < rows; ++i) {
      Value m = arith::AddIOp::create(b, loc, m0, constant(i));
      Value r = arith::DivUIOp::create(b, loc, m, constant(pixelW));
      Value c = arith::RemUIOp::create(b, loc, m, constant(pixelW));
      pixelRows.push_back(
          arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, r, constant(stride * wp)),
                                arith::MulIOp::create(b, loc, c, constant(stride))));
    }
    // The input row of a tap's offset `shift`: of the tile's first row (wide), or added to
    // each pixel row.
    auto rowOf = [&](OpBuilder &rb, Location rl, Value shift) -> Value {
      return pixelW ? shift : arith::AddIOp::create(rb, rl, m0, shift).getResult();
    };
    // One K step: the rows x 1 column `ch` of X from row `row` (one strided slice, or one
    // element per pixel row), times row `k` of the panel.
    SmallVector<bool> inBounds(2, true);
    auto step = [&](OpBuilder &cb, Location cl, Value row, Value ch, Value k, Value accIn) {
      auto columnType = VectorType::get({rows, 1}, et);
      Value a;
      if (pixelW) {
        SmallVector<Value> column;
        for (Value pixel : pixelRows)
          column.push_back(tensor::ExtractOp::create(
              cb, cl, x, ValueRange{arith::AddIOp::create(cb, cl, pixel, row), ch}));
        a = vector::FromElementsOp::create(cb, cl, columnType, column);
      } else {
        Value aSlice = tensor::ExtractSliceOp::create(
            cb, cl, RankedTensorType::get({rows, 1}, et), x, SmallVector<OpFoldResult>{row, ch},
            SmallVector<OpFoldResult>{idx(rows), idx(1)}, SmallVector<OpFoldResult>(2, idx(1)));
        a = vector::TransferReadOp::create(cb, cl, columnType, aSlice, ValueRange{zero, zero},
                                           padding, inBounds);
      }
      Value bSlice = tensor::ExtractSliceOp::create(
          cb, cl, RankedTensorType::get({1, nr}, et), packed,
          SmallVector<OpFoldResult>{p, k, idx(0)},
          SmallVector<OpFoldResult>{idx(1), idx(1), idx(nr)}, SmallVector<OpFoldResult>(3, idx(1)));
      Value bRow = vector::TransferReadOp::create(cb, cl, VectorType::get({1, nr}, et), bSlice,
                                                  ValueRange{zero, zero}, padding, inBounds);
      return vector::ContractionOp::create(cb, cl, a, bRow, accIn, maps, iterators).getResult();
    };
    if (!segments.empty()) {
      // The runs one after the other, each a loop over its channels.
      for (const KSegment &segment : segments) {
        Value row = rowOf(b, loc, constant(segment.shift));
        auto run = scf::ForOp::create(
            b, loc, constant(segment.channel), constant(segment.channel + segment.size), one,
            ValueRange{acc}, [&](OpBuilder &cb, Location cl, Value ch, ValueRange chAcc) {
              Value k = arith::AddIOp::create(
                  cb, cl, ch, arith::ConstantIndexOp::create(cb, cl, segment.k - segment.channel));
              scf::YieldOp::create(cb, cl, step(cb, cl, row, ch, k, chAcc[0]));
            });
        acc = run.getResult(0);
      }
      return acc;
    }
    // Taps in a loop, channels inside it: the innermost loop is the matmul's K step.
    auto taps = scf::ForOp::create(
        b, loc, zero, arith::ConstantIndexOp::create(b, loc, kh * kw), one, ValueRange{acc},
        [&](OpBuilder &tb, Location tl, Value t, ValueRange tapAcc) {
          // Row offset of tap t = (i, j): i * Wp + j; its weights start at row t * C.
          Value i = arith::DivUIOp::create(tb, tl, t, arith::ConstantIndexOp::create(tb, tl, kw));
          Value j = arith::RemUIOp::create(tb, tl, t, arith::ConstantIndexOp::create(tb, tl, kw));
          Value shift = arith::AddIOp::create(
              tb, tl, arith::MulIOp::create(tb, tl, i, arith::ConstantIndexOp::create(tb, tl, wp)),
              j);
          Value row = rowOf(tb, tl, shift);
          Value kBase = arith::MulIOp::create(tb, tl, t, arith::ConstantIndexOp::create(tb, tl, c));
          auto channels = scf::ForOp::create(
              tb, tl, zero, arith::ConstantIndexOp::create(tb, tl, c), one, tapAcc,
              [&](OpBuilder &cb, Location cl, Value ch, ValueRange chAcc) {
                Value k = arith::AddIOp::create(cb, cl, kBase, ch);
                scf::YieldOp::create(cb, cl, step(cb, cl, row, ch, k, chAcc[0]));
              });
          scf::YieldOp::create(tb, tl, channels.getResult(0));
        });
    return taps.getResult(0);
  }

  /// The threads share out a parallel loop's n iterations in contiguous blocks: on t
  /// threads it takes ceil(n / t) iterations' time for n / t's worth of work.
  static double imbalance(int64_t n, int64_t threads) {
    return double((n + threads - 1) / threads * threads) / double(n);
  }

  /// Whether the row tiles go outside the panels: when they share out more evenly over 2
  /// and 4 threads than the panels (MobileNetV2's 32 -> 192 expansion: 3 panels, 2 : 1 on
  /// 2 threads, against 130 row tiles), and all the weights fit in L2 with room to spare,
  /// since each row tile then reads every panel.
  bool rowsOutside(int64_t panels, int64_t rowTiles) const {
    constexpr int64_t kMaxWeightBytes = 512 * 1024;
    if (panels < 2 || rowTiles < 4 || kh * kw * c * f * 4 > kMaxWeightBytes)
      return false;
    double byPanels = imbalance(panels, 2) + imbalance(panels, 4),
           byRows = imbalance(rowTiles, 2) + imbalance(rowTiles, 4);
    return byRows + 0.05 < byPanels;
  }

  /// The tile of rows [m0, m0 + rows) and panel p, stored into `y`.
  Value tileInto(OpBuilder &b, Location loc, Value p, Value m0, int64_t rows, Value y,
                 ArrayRef<Value> channels) const {
    Value column = arith::MulIOp::create(b, loc, p, arith::ConstantIndexOp::create(b, loc, nr));
    return store(b, loc, tile(b, loc, m0, p, rows), y, m0, column, rows, channels);
  }

  /// The epilogue's per-channel vectors of panel p.
  SmallVector<Value> channelsOf(OpBuilder &b, Location loc, Value p) const {
    SmallVector<Value> channels;
    if (!epilogue)
      return channels;
    Value column = arith::MulIOp::create(b, loc, p, arith::ConstantIndexOp::create(b, loc, nr));
    for (Value input : epilogue->channelInputs)
      channels.push_back(input ? vector::TransferReadOp::create(
                                     b, loc, VectorType::get({nr}, et), input, ValueRange{column},
                                     arith::ConstantOp::create(b, loc, b.getZeroAttr(et)),
                                     ArrayRef<bool>{true})
                                     .getResult()
                               : Value());
    return channels;
  }

  /// Y' = the tiles of every panel and row tile, written into `init`: a parallel loop over
  /// the panels, each a loop over the row tiles (then the edge tile, of the rows left), or
  /// a parallel loop over the row tiles, each a loop over the panels (rowsOutside).
  Value build(OpBuilder &b, Location loc, Value init) const {
    int64_t panels = f / nr, full = m / mr, edge = m % mr;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto constant = [&](OpBuilder &cb, Location cl, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(cb, cl, v);
    };
    if (rowsOutside(panels, full)) {
      // Each panel loop: the tiles of rows [m0, m0 + rows) of every panel.
      auto acrossPanels = [&](OpBuilder &rb, Location rl, Value m0, int64_t rows, Value y) {
        return scf::ForOp::create(rb, rl, zero, constant(rb, rl, panels), one, ValueRange{y},
                                  [&](OpBuilder &pb, Location pl, Value p, ValueRange panelIter) {
                                    scf::YieldOp::create(pb, pl,
                                                         tileInto(pb, pl, p, m0, rows, panelIter[0],
                                                                  channelsOf(pb, pl, p)));
                                  })
            .getResult(0);
      };
      auto rowLoop = scf::ForOp::create(
          b, loc, zero, constant(b, loc, full), one, ValueRange{init},
          [&](OpBuilder &rb, Location rl, Value r, ValueRange rowIter) {
            Value m0 = arith::MulIOp::create(rb, rl, r, constant(rb, rl, mr));
            scf::YieldOp::create(rb, rl, acrossPanels(rb, rl, m0, mr, rowIter[0]));
          });
      rowLoop->setAttr("infc.parallel", b.getUnitAttr());
      Value y = rowLoop.getResult(0);
      if (edge)
        y = acrossPanels(b, loc, constant(b, loc, full * mr), edge, y);
      return y;
    }
    auto panelLoop = scf::ForOp::create(
        b, loc, zero, constant(b, loc, panels), one, ValueRange{init},
        [&](OpBuilder &pb, Location pl, Value p, ValueRange panelIter) {
          // The epilogue's per-channel vectors of this panel, read once for all its tiles.
          SmallVector<Value> channels = channelsOf(pb, pl, p);
          auto rowLoop = scf::ForOp::create(
              pb, pl, zero, constant(pb, pl, full), one, panelIter,
              [&](OpBuilder &rb, Location rl, Value r, ValueRange rowIter) {
                Value m0 = arith::MulIOp::create(rb, rl, r, constant(rb, rl, mr));
                scf::YieldOp::create(rb, rl, tileInto(rb, rl, p, m0, mr, rowIter[0], channels));
              });
          // One panel: the threads share out its row tiles instead.
          if (panels == 1)
            rowLoop->setAttr("infc.parallel", pb.getUnitAttr());
          Value y = rowLoop.getResult(0);
          if (edge)
            y = tileInto(pb, pl, p, constant(pb, pl, full * mr), edge, y, channels);
          scf::YieldOp::create(pb, pl, y);
        });
    if (panels > 1)
      panelLoop->setAttr("infc.parallel", b.getUnitAttr());
    return panelLoop.getResult(0);
  }
};

struct InfcImplicitConvPass : public infc::impl::InfcImplicitConvBase<InfcImplicitConvPass> {
  using InfcImplicitConvBase::InfcImplicitConvBase;

  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> pointwise;
    getOperation().walk([&](linalg::MatmulOp op) {
      if (isPaddedPointwiseConv(op))
        pointwise.push_back(op);
    });
    for (linalg::MatmulOp op : pointwise)
      asPixelRows(op);
    SmallVector<linalg::GenericOp> convs;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->hasAttr("infc.implicit_conv"))
        convs.push_back(op);
    });
    for (linalg::GenericOp op : convs)
      if (failed(rewrite(op)))
        return signalPassFailure();
  }

  /// The only user of an [M, F] output when it reshapes it into its [1, OH, OW, F] image
  /// (with this OW, unless `ow` is 0); else null.
  static tensor::ExpandShapeOp pixelImageOf(Value output, int64_t ow = 0) {
    if (!output.hasOneUse())
      return {};
    auto expand = dyn_cast<tensor::ExpandShapeOp>(*output.getUsers().begin());
    if (!expand)
      return {};
    RankedTensorType t = expand.getResultType();
    SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
    int64_t f = cast<RankedTensorType>(output.getType()).getDimSize(1);
    if (t.getRank() != 4 || t.getDimSize(0) != 1 || (ow && t.getDimSize(2) != ow) ||
        t.getDimSize(3) != f || groups.size() != 2 || groups[0] != ReassociationIndices{0, 1, 2} ||
        groups[1] != ReassociationIndices{3})
      return {};
    return expand;
  }

  /// The register tile of an implicit conv's [M, F] output. Its contractions are not split
  /// into one-vector columns: a three-vector tile (8 x 48, which LLVM would widen and
  /// spill) becomes four or two vectors. F must be a multiple of its width.
  infc::RegisterTile registerTile(int64_t m, int64_t f) const {
    infc::RegisterTile tile = infc::chooseRegisterTile(m, f, vectorBits);
    int64_t lanes = infc::f32Lanes(vectorBits);
    if (!llvm::isPowerOf2_64(tile.cols / lanes)) {
      bool four = f % (4 * lanes) == 0;
      tile = {std::min<int64_t>(four ? 6 : 8, m), (four ? 4 : 2) * lanes};
    }
    return tile;
  }

  /// A 1x1 convolution (a filled f32 matmul of constant weights [K, F] whose product is
  /// reshaped to [1, OH, OW, F], F a multiple of the register tile) of more than 64
  /// pixels whose result, or that of its
  /// per-channel epilogue (bias, activation), is padded: infc-pack-matmul-panels would write
  /// it as [OH * OW, F] rows, which are not the padded buffer's, and the pad would copy
  /// them (ResNet's 1x1 reductions before each 3x3 conv: 0.3 ms of ResNet-50). As pixel
  /// rows of a 1x1 implicit GEMM each tile row is stored at its pixel, in the pad's interior.
  bool isPaddedPointwiseConv(linalg::MatmulOp op) const {
    auto yt = cast<RankedTensorType>(op.getResult(0).getType());
    DenseElementsAttr weights;
    auto f32 = [](Value v) { return getElementTypeOrSelf(v.getType()).isF32(); };
    if (!f32(op.getResult(0)) || !f32(op.getDpsInputs()[0]) || !f32(op.getDpsInputs()[1]) ||
        op.getIndexingMapsArray() != op.getDefaultIndexingMaps(op.getContext()) ||
        !yt.hasStaticShape() || yt.getDimSize(0) <= 64 ||
        yt.getDimSize(1) % registerTile(yt.getDimSize(0), yt.getDimSize(1)).cols ||
        !op.getDpsInits()[0].getDefiningOp<linalg::FillOp>() ||
        !matchPattern(op.getDpsInputs()[1], m_Constant(&weights)))
      return false;
    tensor::ExpandShapeOp expand = pixelImageOf(op.getResult(0));
    if (!expand)
      return false;
    Value pixels = expand.getResult();
    if (std::optional<ConvEpilogue> epilogue = ConvEpilogue::of(pixels))
      pixels = epilogue->op.getResult(0);
    return llvm::any_of(pixels.getUsers(),
                        [](Operation *user) { return isa<tensor::PadOp>(user); });
  }

  /// `op` as the pixel-row generic of a 1x1 stride-1 convolution ([1, 1, OW, 1, OW]).
  static void asPixelRows(linalg::MatmulOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    int64_t ow = pixelImageOf(op.getResult(0)).getResultType().getDimSize(2);
    DenseElementsAttr weights;
    (void)matchPattern(op.getDpsInputs()[1], m_Constant(&weights));
    auto wt = cast<RankedTensorType>(weights.getType());
    Value w = arith::ConstantOp::create(
        b, loc,
        weights.reshape(
            RankedTensorType::get({1, wt.getDimSize(0), wt.getDimSize(1)}, wt.getElementType())));
    MLIRContext *ctx = b.getContext();
    AffineExpr dm = getAffineDimExpr(0, ctx), df = getAffineDimExpr(1, ctx),
               dt = getAffineDimExpr(2, ctx), dc = getAffineDimExpr(3, ctx);
    SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {dm, dc}, ctx),
                                   AffineMap::get(4, 0, {dt, dc, df}, ctx),
                                   AffineMap::get(4, 0, {dm, df}, ctx)};
    SmallVector<utils::IteratorType> iterators = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction, utils::IteratorType::reduction};
    auto conv = linalg::GenericOp::create(
        b, loc, op.getResultTypes(), ValueRange{op.getDpsInputs()[0], w},
        ValueRange{op.getDpsInits()[0]}, maps, iterators,
        [](OpBuilder &nb, Location nl, ValueRange args) {
          Value product = arith::MulFOp::create(nb, nl, args[0], args[1]);
          linalg::YieldOp::create(nb, nl,
                                  ValueRange{arith::AddFOp::create(nb, nl, args[2], product)});
        });
    conv->setAttr("infc.implicit_conv", b.getDenseI64ArrayAttr({1, 1, ow, 1, ow}));
    op.getResult(0).replaceAllUsesWith(conv.getResult(0));
    op.erase();
  }

  /// The rows of `matrix` [KH*KW*C, F] with a nonzero weight, as runs of channels per tap
  /// in `conv.segments`, when at least an eighth of the rows are all zero (a 7x7 stem after
  /// its space-to-depth: 4x4 taps of 12 channels, 147 of 192 rows); else `matrix`.
  static DenseElementsAttr dropZeroRows(ImplicitConv &conv, DenseElementsAttr matrix) {
    int64_t rows = conv.kh * conv.kw * conv.c, f = conv.f;
    auto values = llvm::to_vector(matrix.getValues<float>());
    SmallVector<bool> nonzero(rows);
    for (int64_t r = 0; r < rows; ++r)
      nonzero[r] = llvm::any_of(ArrayRef(values).slice(r * f, f), [](float v) { return v != 0; });
    int64_t kept = llvm::count(nonzero, true);
    if (kept == 0 || 8 * (rows - kept) < rows)
      return matrix;
    std::vector<float> compact;
    compact.reserve(kept * f);
    for (int64_t t = 0; t < conv.kh * conv.kw; ++t) {
      int64_t shift = (t / conv.kw) * conv.wp + t % conv.kw;
      for (int64_t ch = 0; ch < conv.c; ++ch) {
        if (!nonzero[t * conv.c + ch])
          continue;
        int64_t k = compact.size() / f;
        if (!conv.segments.empty() && conv.segments.back().shift == shift &&
            conv.segments.back().channel + conv.segments.back().size == ch)
          ++conv.segments.back().size;
        else
          conv.segments.push_back({shift, ch, 1, k});
        llvm::append_range(compact, ArrayRef(values).slice((t * conv.c + ch) * f, f));
      }
    }
    auto type = RankedTensorType::get({kept, f}, conv.et);
    return DenseElementsAttr::get(type, ArrayRef<float>(compact));
  }

  LogicalResult rewrite(linalg::GenericOp op) {
    auto taps = op->getAttrOfType<DenseI64ArrayAttr>("infc.implicit_conv");
    DenseElementsAttr weights;
    auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    if (!taps || (taps.size() != 3 && taps.size() != 5) || op.getNumDpsInputs() != 2 || !fill ||
        !matchPattern(op.getDpsInputs()[1], m_Constant(&weights)))
      return op.emitOpError("infc.implicit_conv needs [KH, KW, Wp] or [KH, KW, Wp, S, OW], "
                            "constant weights and a filled output");
    auto xt = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
    auto yt = cast<RankedTensorType>(op.getResult(0).getType());
    ImplicitConv conv;
    conv.kh = taps[0];
    conv.kw = taps[1];
    conv.wp = taps[2];
    if (taps.size() == 5) {
      conv.stride = taps[3];
      conv.pixelW = taps[4];
    }
    conv.m = yt.getDimSize(0);
    conv.f = yt.getDimSize(1);
    conv.c = xt.getDimSize(1);
    conv.et = yt.getElementType();
    infc::RegisterTile tile = registerTile(conv.m, conv.f);
    conv.mr = tile.rows;
    conv.nr = tile.cols;
    if (conv.f % conv.nr)
      return op.emitOpError("infc.implicit_conv: F = ")
             << conv.f << " is not a multiple of the register tile width " << conv.nr;
    OpBuilder b(op);
    Location loc = op.getLoc();
    // The weights [KH*KW, C, F] as [K, F], in panels of nr columns (at compile time);
    // only the rows with a nonzero weight when those are fewer (see `segments`).
    auto matrixType = RankedTensorType::get({conv.kh * conv.kw * conv.c, conv.f}, conv.et);
    DenseElementsAttr matrix = weights.reshape(matrixType);
    if (!matrix.isSplat() && conv.et.isF32())
      matrix = dropZeroRows(conv, matrix);
    conv.packed =
        arith::ConstantOp::create(b, loc, infc::packPanels(matrix, 0, conv.f / conv.nr, conv.nr));
    conv.x = op.getDpsInputs()[0];
    conv.fillValue = fill.getInputs()[0];
    // The output as [1, OH, OW, F] pixels: the wide output's slice without its garbage
    // columns, or the pixel rows' expand_shape. Each tile row is then stored at its pixel.
    Value pixels;
    SmallVector<Operation *> views; // (erased once the image replaces `pixels`)
    if (conv.pixelW) {
      if (tensor::ExpandShapeOp expand = pixelImageOf(op.getResult(0), conv.pixelW)) {
        pixels = expand.getResult();
        views.push_back(expand);
      }
    } else if (tensor::ExtractSliceOp slice = wideSliceOf(op, conv.wp)) {
      pixels = slice.getResult();
      views = {slice, slice.getSource().getDefiningOp()};
    }
    Value init = fill.getOutputs()[0];
    if (pixels) {
      auto pixelsType = cast<RankedTensorType>(pixels.getType());
      conv.oh = pixelsType.getDimSize(1);
      conv.ow = pixelsType.getDimSize(2);
      conv.epilogue = ConvEpilogue::of(pixels);
      init = tensor::EmptyOp::create(b, loc, {1, conv.oh, conv.ow, conv.f}, conv.et);
    }
    Value image = conv.build(b, loc, init);
    if (pixels) {
      // The output pixels are the [1, OH, OW, F] image (or the epilogue's result).
      if (conv.epilogue) {
        linalg::GenericOp epilogueOp = conv.epilogue->op;
        epilogueOp.getResult(0).replaceAllUsesWith(image);
        Value epilogueInit = epilogueOp.getDpsInits()[0];
        epilogueOp.erase();
        if (Operation *def = epilogueInit.getDefiningOp(); def && def->use_empty() && isPure(def))
          def->erase();
      }
      pixels.replaceAllUsesWith(image);
      for (Operation *view : views)
        view->erase();
    } else {
      op.getResult(0).replaceAllUsesWith(image);
    }
    op.erase();
    if (fill->use_empty())
      fill.erase();
    return success();
  }
};
} // namespace

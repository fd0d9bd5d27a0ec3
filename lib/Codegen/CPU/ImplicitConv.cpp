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
#include "infc/Codegen/CPU/Passes.h"
#include "TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace infc {
#define GEN_PASS_DEF_INFCIMPLICITCONV
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct ImplicitConv {
  int64_t kh, kw, wp, m, c, f, mr, nr;
  Value x, packed, fillValue;
  Type et;

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
    ArrayAttr iterators = b.getArrayAttr(
        {vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel),
         vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel),
         vector::IteratorTypeAttr::get(ctx, vector::IteratorType::reduction)});
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
          Value row = arith::AddIOp::create(tb, tl, m0, shift);
          Value kBase =
              arith::MulIOp::create(tb, tl, t, arith::ConstantIndexOp::create(tb, tl, c));
          auto channels = scf::ForOp::create(
              tb, tl, zero, arith::ConstantIndexOp::create(tb, tl, c), one, tapAcc,
              [&](OpBuilder &cb, Location cl, Value ch, ValueRange chAcc) {
                Value aSlice = tensor::ExtractSliceOp::create(
                    cb, cl, RankedTensorType::get({rows, 1}, et), x,
                    SmallVector<OpFoldResult>{row, ch},
                    SmallVector<OpFoldResult>{idx(rows), idx(1)},
                    SmallVector<OpFoldResult>(2, idx(1)));
                Value k = arith::AddIOp::create(cb, cl, kBase, ch);
                Value bSlice = tensor::ExtractSliceOp::create(
                    cb, cl, RankedTensorType::get({1, nr}, et), packed,
                    SmallVector<OpFoldResult>{p, k, idx(0)},
                    SmallVector<OpFoldResult>{idx(1), idx(1), idx(nr)},
                    SmallVector<OpFoldResult>(3, idx(1)));
                SmallVector<bool> inBounds(2, true);
                Value a = vector::TransferReadOp::create(
                    cb, cl, VectorType::get({rows, 1}, et), aSlice, ValueRange{zero, zero},
                    padding, inBounds);
                Value bRow = vector::TransferReadOp::create(
                    cb, cl, VectorType::get({1, nr}, et), bSlice, ValueRange{zero, zero},
                    padding, inBounds);
                Value sum = vector::ContractionOp::create(cb, cl, a, bRow, chAcc[0], maps,
                                                          iterators);
                scf::YieldOp::create(cb, cl, sum);
              });
          scf::YieldOp::create(tb, tl, channels.getResult(0));
        });
    return taps.getResult(0);
  }

  /// Y' = the tiles of every panel and row tile, written into `init`.
  Value build(OpBuilder &b, Location loc, Value init) const {
    int64_t panels = f / nr, full = m / mr, edge = m % mr;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    SmallVector<bool> inBounds(2, true);
    auto panelLoop = scf::ForOp::create(
        b, loc, zero, arith::ConstantIndexOp::create(b, loc, panels), one, ValueRange{init},
        [&](OpBuilder &pb, Location pl, Value p, ValueRange panelIter) {
          Value column = arith::MulIOp::create(pb, pl, p, arith::ConstantIndexOp::create(pb, pl, nr));
          auto rowLoop = scf::ForOp::create(
              pb, pl, zero, arith::ConstantIndexOp::create(pb, pl, full), one, panelIter,
              [&](OpBuilder &rb, Location rl, Value r, ValueRange rowIter) {
                Value m0 =
                    arith::MulIOp::create(rb, rl, r, arith::ConstantIndexOp::create(rb, rl, mr));
                Value acc = tile(rb, rl, m0, p, mr);
                Value y = vector::TransferWriteOp::create(rb, rl, acc, rowIter[0],
                                                          ValueRange{m0, column}, inBounds)
                              .getResult();
                scf::YieldOp::create(rb, rl, y);
              });
          // One panel: the threads share out its row tiles instead.
          if (panels == 1)
            rowLoop->setAttr("infc.parallel", pb.getUnitAttr());
          Value y = rowLoop.getResult(0);
          if (edge) {
            Value m0 = arith::ConstantIndexOp::create(pb, pl, full * mr);
            Value acc = tile(pb, pl, m0, p, edge);
            y = vector::TransferWriteOp::create(pb, pl, acc, y, ValueRange{m0, column}, inBounds)
                    .getResult();
          }
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
    SmallVector<linalg::GenericOp> convs;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->hasAttr("infc.implicit_conv"))
        convs.push_back(op);
    });
    for (linalg::GenericOp op : convs)
      if (failed(rewrite(op)))
        return signalPassFailure();
  }

  LogicalResult rewrite(linalg::GenericOp op) {
    auto taps = op->getAttrOfType<DenseI64ArrayAttr>("infc.implicit_conv");
    DenseElementsAttr weights;
    auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    if (!taps || taps.size() != 3 || op.getNumDpsInputs() != 2 || !fill ||
        !matchPattern(op.getDpsInputs()[1], m_Constant(&weights)))
      return op.emitOpError("infc.implicit_conv needs [KH, KW, Wp], constant weights and a "
                            "filled output");
    auto xt = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
    auto yt = cast<RankedTensorType>(op.getResult(0).getType());
    ImplicitConv conv;
    conv.kh = taps[0];
    conv.kw = taps[1];
    conv.wp = taps[2];
    conv.m = yt.getDimSize(0);
    conv.f = yt.getDimSize(1);
    conv.c = xt.getDimSize(1);
    conv.et = yt.getElementType();
    infc::RegisterTile tile = infc::chooseRegisterTile(conv.m, conv.f, vectorBits);
    // The contractions here are not split into one-vector columns: a three-vector tile
    // (8 x 48, which LLVM would widen and spill) becomes four or two vectors.
    int64_t lanes = infc::f32Lanes(vectorBits);
    if (!llvm::isPowerOf2_64(tile.cols / lanes)) {
      bool four = conv.f % (4 * lanes) == 0;
      tile = {std::min<int64_t>(four ? 6 : 8, conv.m), (four ? 4 : 2) * lanes};
    }
    conv.mr = tile.rows;
    conv.nr = tile.cols;
    if (conv.f % conv.nr)
      return op.emitOpError("infc.implicit_conv: F = ")
             << conv.f << " is not a multiple of the register tile width " << conv.nr;
    OpBuilder b(op);
    Location loc = op.getLoc();
    // The weights [KH*KW, C, F] as [K, F], in panels of nr columns (at compile time).
    auto matrixType = RankedTensorType::get({conv.kh * conv.kw * conv.c, conv.f}, conv.et);
    conv.packed = arith::ConstantOp::create(
        b, loc, infc::packPanels(weights.reshape(matrixType), 0, conv.f / conv.nr, conv.nr));
    conv.x = op.getDpsInputs()[0];
    conv.fillValue = fill.getInputs()[0];
    Value result = conv.build(b, loc, fill.getOutputs()[0]);
    op.getResult(0).replaceAllUsesWith(result);
    op.erase();
    if (fill->use_empty())
      fill.erase();
    return success();
  }
};
} // namespace

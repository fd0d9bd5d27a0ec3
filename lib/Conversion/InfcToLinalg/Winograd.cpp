//===- Winograd.cpp - 3x3 NHWC convolutions by Winograd F(2x2, 3x3) -------===//
//
// 16 products per channel pair for each 2x2 block of output pixels instead of 36 (Lavin and
// Gray, 2016), for the 3x3 convolutions of 64 channels and more where the products dominate:
// input transform, 16 matmuls against weights transformed at compile time, output transform.
// The design and its measurements are in docs/architecture.md (the channels-last convs).
//
//===----------------------------------------------------------------------===//
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace infc::lowering;

namespace {
constexpr int64_t kPositions = 16; // of the 4x4 input and product blocks
constexpr int64_t kLanes = 16;     // channels a vector of the input transform
/// Output channels a multiple of this: whole panels of infc-pack-matmul-panels (64 or 16
/// wide on AVX-512; 16 on AVX2), no tail panel computed into a scratch tile, which it would
/// place inside the loop over the positions, where the memory plan cannot place buffers.
constexpr int64_t kFilterMultiple = 16;

/// U [16, C, F]: U[4 a + b][c][f] = (G g_fc G^T)[a][b], from the weights [F, C, 3, 3].
DenseElementsAttr transformWeights(DenseElementsAttr weights) {
  auto type = cast<RankedTensorType>(weights.getType());
  int64_t f = type.getDimSize(0), c = type.getDimSize(1);
  static const double g[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  std::vector<float> u(kPositions * c * f);
  auto values = weights.getValues<float>();
  for (int64_t fi = 0; fi < f; ++fi)
    for (int64_t ci = 0; ci < c; ++ci) {
      double w[3][3];
      for (int64_t i = 0; i < 9; ++i)
        w[i / 3][i % 3] = values[((fi * c + ci) * 3 + i / 3) * 3 + i % 3];
      for (int64_t a = 0; a < 4; ++a)
        for (int64_t b = 0; b < 4; ++b) {
          double sum = 0; // (G w G^T)[a][b]
          for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 3; ++j)
              sum += g[a][i] * w[i][j] * g[b][j];
          u[((a * 4 + b) * c + ci) * f + fi] = static_cast<float>(sum);
        }
    }
  return DenseElementsAttr::get(RankedTensorType::get({kPositions, c, f}, type.getElementType()),
                                ArrayRef<float>(u));
}

/// Slice `xi` [shape] of a [16, shape] tensor (`xi` a static or a loop index): its
/// offsets, sizes and strides.
struct PositionSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  PositionSlice(OpBuilder &b, OpFoldResult xi, ArrayRef<int64_t> shape)
      : offsets{xi}, sizes{b.getIndexAttr(1)}, strides(shape.size() + 1, b.getIndexAttr(1)) {
    for (int64_t d : shape) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(d));
    }
  }
};

/// Slice `xi` [shape] of a [16, shape] tensor, read.
tensor::ExtractSliceOp positionSlice(OpBuilder &b, Location loc, Value batch, OpFoldResult xi,
                                     ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(batch.getType());
  PositionSlice slice(b, xi, shape);
  return tensor::ExtractSliceOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()),
                                        batch, slice.offsets, slice.sizes, slice.strides);
}

/// The 4-vector B^T x of the input transform (B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0;
/// 0 1 0 -1]).
std::array<Value, 4> inputRows(OpBuilder &b, Location loc, std::array<Value, 4> x) {
  auto sub = [&](Value l, Value r) { return arith::SubFOp::create(b, loc, l, r).getResult(); };
  auto add = [&](Value l, Value r) { return arith::AddFOp::create(b, loc, l, r).getResult(); };
  return {sub(x[0], x[2]), add(x[1], x[2]), sub(x[2], x[1]), sub(x[1], x[3])};
}

/// Row `i` (0 or 1, an i1 `second`) of A^T m for the 4-vector m (A^T = [1 1 1 0;
/// 0 1 -1 -1]): both rows computed, one selected.
Value outputRow(OpBuilder &b, Location loc, Value second, std::array<Value, 4> m) {
  Value first = arith::AddFOp::create(b, loc, arith::AddFOp::create(b, loc, m[0], m[1]), m[2]);
  Value other = arith::SubFOp::create(b, loc, arith::SubFOp::create(b, loc, m[1], m[2]), m[3]);
  return arith::SelectOp::create(b, loc, second, other, first);
}
} // namespace

bool infc::lowering::winogradApplies(RankedTensorType it, Value weight, ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> dilations, RankedTensorType resultType,
                                     int64_t minChannels) {
  auto wt = cast<RankedTensorType>(weight.getType());
  DenseElementsAttr dense;
  return it.getDimSize(0) == 1 && it.getElementType().isF32() && it.hasStaticShape() &&
         wt.getDimSize(2) == 3 && wt.getDimSize(3) == 3 &&
         llvm::all_of(strides, [](int64_t s) { return s == 1; }) &&
         llvm::all_of(dilations, [](int64_t d) { return d == 1; }) &&
         it.getDimSize(3) >= minChannels && resultType.getDimSize(3) >= minChannels &&
         it.getDimSize(3) % kLanes == 0 && resultType.getDimSize(3) % kFilterMultiple == 0 &&
         matchPattern(weight, m_Constant(&dense));
}

Value infc::lowering::convChannelsLastWinograd(OpBuilder &b, Location loc, Value input,
                                               Value weight, ArrayRef<int64_t> pads,
                                               RankedTensorType resultType) {
  auto it = cast<RankedTensorType>(input.getType());
  Type et = it.getElementType();
  int64_t h = it.getDimSize(1), w = it.getDimSize(2), c = it.getDimSize(3);
  int64_t oh = resultType.getDimSize(1), ow = resultType.getDimSize(2),
          f = resultType.getDimSize(3);
  int64_t th = (oh + 1) / 2, tw = (ow + 1) / 2, tiles = th * tw;
  // Padded to whole tiles: the 4x4 block of tile (p, q) starts at row 2p, column 2q.
  Value padded =
      padConstant(b, loc, input, {0, pads[0], pads[1], 0},
                  {0, 2 * th + 2 - h - pads[0], 2 * tw + 2 - w - pads[1], 0}, b.getZeroAttr(et));
  // V [16, TH, TW, C], by vectors of 16 channels (see the top of the file).
  MLIRContext *ctx = b.getContext();
  auto lanesType = VectorType::get({kLanes}, et);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
  auto index = [&](OpBuilder &nb, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(nb, loc, value);
  };
  Value v = tensor::EmptyOp::create(b, loc, {kPositions, th, tw, c}, et);
  auto rows = scf::ForOp::create(
      b, loc, index(b, 0), index(b, th), index(b, 1), ValueRange{v},
      [&](OpBuilder &rb, Location rl, Value p, ValueRange rowArgs) {
        auto columns = scf::ForOp::create(
            rb, rl, index(rb, 0), index(rb, tw), index(rb, 1), rowArgs,
            [&](OpBuilder &cb, Location cl, Value q, ValueRange columnArgs) {
              auto channels = scf::ForOp::create(
                  cb, cl, index(cb, 0), index(cb, c), index(cb, kLanes), columnArgs,
                  [&](OpBuilder &nb, Location nl, Value ch, ValueRange args) {
                    Value row0 = arith::MulIOp::create(nb, nl, p, index(nb, 2));
                    Value col0 = arith::MulIOp::create(nb, nl, q, index(nb, 2));
                    std::array<std::array<Value, 4>, 4> d;
                    for (int64_t i = 0; i < 4; ++i)
                      for (int64_t j = 0; j < 4; ++j)
                        d[i][j] = vector::TransferReadOp::create(
                            nb, nl, lanesType, padded,
                            ValueRange{index(nb, 0),
                                       arith::AddIOp::create(nb, nl, row0, index(nb, i)),
                                       arith::AddIOp::create(nb, nl, col0, index(nb, j)), ch},
                            zero, ArrayRef<bool>{true});
                    // Columns first (B^T d), then the rows of that (times B).
                    std::array<std::array<Value, 4>, 4> t;
                    for (int64_t j = 0; j < 4; ++j) {
                      auto column = inputRows(nb, nl, {d[0][j], d[1][j], d[2][j], d[3][j]});
                      for (int64_t a = 0; a < 4; ++a)
                        t[a][j] = column[a];
                    }
                    Value out = args[0];
                    for (int64_t a = 0; a < 4; ++a) {
                      std::array<Value, 4> row = inputRows(nb, nl, t[a]);
                      for (int64_t bb = 0; bb < 4; ++bb)
                        out = vector::TransferWriteOp::create(
                                  nb, nl, row[bb], out, ValueRange{index(nb, 4 * a + bb), p, q, ch},
                                  ArrayRef<bool>{true})
                                  .getResult();
                    }
                    scf::YieldOp::create(nb, nl, out);
                  });
              scf::YieldOp::create(cb, cl, channels.getResult(0));
            });
        scf::YieldOp::create(rb, rl, columns.getResult(0));
      });
  // (the session's threads share out the tile rows)
  rows->setAttr("infc.parallel", b.getUnitAttr());
  v = rows.getResult(0);
  v = reshapeTensor(b, loc, v, RankedTensorType::get({kPositions, tiles, c}, et));

  // M[xi] = V[xi] x U[xi], one matmul in a loop over the positions.
  DenseElementsAttr weights;
  (void)matchPattern(weight, m_Constant(&weights)); // (winogradApplies checked it)
  Value u = arith::ConstantOp::create(b, loc, transformWeights(weights));
  Value products = tensor::EmptyOp::create(b, loc, {kPositions, tiles, f}, et);
  auto positions = scf::ForOp::create(
      b, loc, index(b, 0), index(b, kPositions), index(b, 1), ValueRange{products},
      [&](OpBuilder &lb, Location ll, Value xi, ValueRange iterArgs) {
        Value slot = positionSlice(lb, ll, iterArgs[0], xi, {tiles, f});
        Value init = linalg::FillOp::create(lb, ll, zero, slot).getResult(0);
        Value m = linalg::MatmulOp::create(lb, ll,
                                           ValueRange{positionSlice(lb, ll, v, xi, {tiles, c}),
                                                      positionSlice(lb, ll, u, xi, {c, f})},
                                           ValueRange{init})
                      .getResult(0);
        PositionSlice into(lb, xi, {tiles, f});
        scf::YieldOp::create(lb, ll,
                             tensor::InsertSliceOp::create(lb, ll, m, iterArgs[0], into.offsets,
                                                           into.sizes, into.strides)
                                 .getResult());
      });
  // (for infc-pack-matmul-panels: the matmul's B is slice xi of a constant batch) The
  // threads share out the positions, each running whole matmuls (the panel loops inside
  // then run serially): one parallel region a convolution, not 16, and 16 positions split
  // evenly over 2 and 4 threads (ResNet-50 at 2 threads -4% against parallel panels).
  positions->setAttr("infc.weight_batch", b.getUnitAttr());
  positions->setAttr("infc.parallel", b.getUnitAttr());
  products = reshapeTensor(b, loc, positions.getResult(0),
                           RankedTensorType::get({kPositions, th, tw, f}, et));
  SmallVector<Value> productSlices;
  for (int64_t xi = 0; xi < kPositions; ++xi)
    productSlices.push_back(positionSlice(b, loc, products, b.getIndexAttr(xi), {th, tw, f}));

  // Over the output by tiles [TH, 2, TW, 2, F]: pixel (2p + i, 2q + j) of tile (p, q).
  auto byTiles = RankedTensorType::get({th, 2, tw, 2, f}, et);
  AffineExpr p, i, q, j, ch;
  bindDims(ctx, p, i, q, j, ch);
  SmallVector<AffineMap> outMaps(kPositions, AffineMap::get(5, 0, {p, q, ch}, ctx));
  outMaps.push_back(AffineMap::getMultiDimIdentityMap(5, ctx));
  Value outInit = tensor::EmptyOp::create(b, loc, byTiles.getShape(), et);
  Value y = linalg::GenericOp::create(
                b, loc, TypeRange{byTiles}, productSlices, ValueRange{outInit}, outMaps,
                SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
                [](OpBuilder &nb, Location nl, ValueRange args) {
                  Value zeroIndex = arith::ConstantIndexOp::create(nb, nl, 0);
                  auto isSecond = [&](int64_t dim) {
                    Value index = linalg::IndexOp::create(nb, nl, dim);
                    return arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne, index, zeroIndex)
                        .getResult();
                  };
                  Value row = isSecond(1), column = isSecond(3);
                  // Row i of A^T m (over the block's columns b), then column j of that.
                  std::array<Value, 4> s;
                  for (int64_t col = 0; col < 4; ++col)
                    s[col] = outputRow(nb, nl, row,
                                       {args[col], args[4 + col], args[8 + col], args[12 + col]});
                  linalg::YieldOp::create(nb, nl, outputRow(nb, nl, column, s));
                })
                .getResult(0);
  auto wholeTiles = RankedTensorType::get({1, 2 * th, 2 * tw, f}, et);
  y = reshapeTensor(b, loc, y, RankedTensorType::get({2 * th, 2 * tw, f}, et));
  y = reshapeTensor(b, loc, y, wholeTiles);
  if (2 * th == oh && 2 * tw == ow)
    return y;
  // An odd output height or width: the last tile's second row or column is dropped.
  return tensor::ExtractSliceOp::create(
      b, loc, resultType, y, SmallVector<OpFoldResult>(4, b.getIndexAttr(0)),
      SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(oh), b.getIndexAttr(ow),
                                b.getIndexAttr(f)},
      SmallVector<OpFoldResult>(4, b.getIndexAttr(1)));
}

//===- TileUtils.cpp - steps shared by the tile-and-vectorize passes ------===//
#include "TileUtils.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;

bool infc::isRegisterTileable(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape())
    return false;
  Type et = cast<ShapedType>(op->getOperand(0).getType()).getElementType();
  return (et.isF32() || et.isSignlessInteger(32)) &&
         llvm::all_of(op->getOperandTypes(),
                      [&](Type t) { return cast<ShapedType>(t).getElementType() == et; });
}

// Per K step the kernel holds rows x cols accumulators, cols / lanes B vectors and one
// broadcast A element. With AVX-512's 32 registers the best tile, measured on this machine
// (1 thread, packed B), is 6 x 64 (24 + 4 + 1): it loads 10 values per 24 FMAs where 8 x 32
// loads 10 per 16 (1024^3: 206 against 188 GFLOP/s of a 247 peak); 7 x 64 spills. 8 x 48
// and 7 x 48 (24 or 21 accumulators) are as good, read a quarter less of B per FMA, and
// leave no partial row tile where 6 rows would leave one of one to three rows: M = 128
// (BERT's sequence) and M = 49 (a 7x7 map). infc-tile-and-vectorize-matmul splits those
// into one-vector columns (LLVM would widen a <48 x float> row to 64 lanes). Only for a
// few hundred rows, where the partial tile is a share of the work that counts: a large M
// such as the 56 x 58 rows of a 56x56 implicit convolution keeps 6 x 64 (it had fallen to
// 8 x 32, 1.3 against 1.1 ms). With AVX2's 16 registers: 6 x 16.
static bool prefersThreeVectors(int64_t m) {
  return m > 8 && m <= 256 && m % 6 >= 1 && m % 6 <= 3 && (m % 8 == 0 || m % 7 == 0);
}

static int64_t rowsOfWideTile(int64_t m) { return m % 8 != 0 && m % 7 == 0 ? 7 : 8; }

infc::RegisterTile infc::chooseRegisterTile(int64_t m, int64_t n, int64_t vectorBits) {
  int64_t lanes = f32Lanes(vectorBits);
  auto tile = [&](int64_t rows, int64_t vectors) {
    return RegisterTile{std::min(rows, m), vectors * lanes};
  };
  if (vectorBits < 512)
    return n <= lanes ? tile(12, 1) : tile(6, 2);
  if (n <= lanes)
    return tile(16, 1);
  // 7 rows (M = 49) only when 8 would leave a partial tile and 7 no more tiles.
  if (n <= 2 * lanes)
    return tile(m % 8 != 0 && m % 7 == 0 && m / 7 <= m / 8 + 1 ? 7 : 8, 2);
  // Three vectors only when N fills them (a packed panel always does): a three-vector
  // tile is split into one-vector column tiles, which a B of 40 columns (an attention
  // score matmul of 40 tokens, its B not packed) would leave ragged; two vectors and a
  // peeled edge tile then.
  if (n < 3 * lanes && n % lanes != 0)
    return tile(rowsOfWideTile(m), 2);
  if (n <= 3 * lanes || (prefersThreeVectors(m) && n % (3 * lanes) == 0))
    return tile(rowsOfWideTile(m), 3);
  // (such an M with an N three vectors do not divide, a B not packed: two vectors)
  if (prefersThreeVectors(m))
    return tile(rowsOfWideTile(m), 2);
  return tile(6, 4);
}

int64_t infc::panelWidthFor(int64_t m, int64_t vectorBits) {
  int64_t lanes = f32Lanes(vectorBits);
  if (vectorBits < 512)
    return 2 * lanes;
  return prefersThreeVectors(m) ? 3 * lanes : 4 * lanes;
}

int64_t infc::tailPanelWidth(int64_t tail, int64_t vectorBits) {
  int64_t lanes = f32Lanes(vectorBits);
  return (tail + lanes - 1) / lanes * lanes;
}

// Columns [col, col + panels * nr) of a constant B [K, N] as panels:
// Bp[p][k][j] = B[k][col + p * nr + j], zero past column N. Moves 32-bit words, so it
// serves the f32 and the i32 matmuls alike.
void infc::appendPanels(ArrayRef<char> raw, bool splat, int64_t k, int64_t n, int64_t col,
                        int64_t panels, int64_t nr, std::vector<uint32_t> &out) {
  size_t start = out.size();
  out.resize(start + panels * k * nr, 0);
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t r = 0; r < k; ++r)
      for (int64_t j = 0, e = std::min(nr, n - col - p * nr); j < e; ++j)
        memcpy(&out[start + (p * k + r) * nr + j],
               raw.data() + (splat ? 0 : 4 * (r * n + col + p * nr + j)), 4);
}

DenseElementsAttr infc::packPanels(DenseElementsAttr b, int64_t col, int64_t panels, int64_t nr) {
  auto type = cast<RankedTensorType>(b.getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  auto packedType = RankedTensorType::get({panels, k, nr}, type.getElementType());
  if (b.isSplat() && col + panels * nr <= n)
    return DenseElementsAttr::get(packedType, b.getSplatValue<Attribute>());
  std::vector<uint32_t> packed;
  appendPanels(b.getRawData(), b.isSplat(), k, n, col, panels, nr, packed);
  return DenseElementsAttr::getFromRawBuffer(
      packedType, ArrayRef<char>(reinterpret_cast<const char *>(packed.data()),
                                 packed.size() * sizeof(uint32_t)));
}

LogicalResult
infc::makePeeledTilesStatic(func::FuncOp func,
                            llvm::function_ref<void(RewritePatternSet &)> addOpPatterns) {
  MLIRContext *ctx = func.getContext();
  RewritePatternSet patterns(ctx);
  linalg::populateLinalgTilingCanonicalizationPatterns(patterns);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::InsertSliceOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::CastOp::getCanonicalizationPatterns(patterns, ctx);
  addOpPatterns(patterns);
  return applyPatternsGreedily(func, std::move(patterns));
}

bool infc::vectorizeTile(RewriterBase &rewriter, linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> v = linalg::vectorize(rewriter, op);
  if (failed(v))
    return false;
  if (!v->replacements.empty())
    rewriter.replaceOp(op, v->replacements);
  else
    rewriter.eraseOp(op);
  return true;
}

void infc::hoistLoopCarriedTiles(RewriterBase &rewriter, func::FuncOp func) {
  func.walk([&](scf::ForOp loop) {
    // Innermost loops only (K steps, partial reductions). Out of infc-pack-matmul-panels'
    // K-block loop around a full row tile and its peeled edge (M = 7..11 on AVX2), the
    // tiles would all be extracted from the init and inserted after the loop in reverse
    // order; canonicalization then writes the edge into an older value of the C tile than
    // the one the full tile is read from, and bufferization copies the tile in the loop
    // (a buffer the memory plan cannot place).
    if (loop.getBody()->walk([](scf::ForOp) { return WalkResult::interrupt(); }).wasInterrupted())
      return;
    hoistLoopInvariantSubsets(rewriter, cast<LoopLikeOpInterface>(loop.getOperation()));
  });
}

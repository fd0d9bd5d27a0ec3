//===- PackMatmulPanels.cpp - B operand of a matmul in contiguous panels --===//
//
// design.md section 6: with B pre-packed into nr-wide column panels (Bp[nb][k][j]) the
// register-tiled kernel reaches ~95% of the FMA peak; row-major B stalls at 50-60% because
// every K step of a panel lands on another page (and, at power-of-two N, the same L1 set).
// A constant B (weights) is packed here at compile time; any other B by a copy at run time,
// worth it once M spans a few register tiles. The matmul becomes a loop over panels, each
// a [M, K] x [K, nr] matmul that infc-tile-and-vectorize-matmul then register-tiles; columns
// past the last full panel stay a plain matmul on the unpacked B.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

namespace infc {
#define GEN_PASS_DEF_INFCPACKMATMULPANELS
#include "infc/Codegen/CPU/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// The panels of a constant B [K, N]: Bp[nb][k][j] = B[k][nb * nr + j], zero past column N.
DenseElementsAttr packConstant(DenseElementsAttr b, int64_t panels, int64_t nr) {
  auto type = cast<RankedTensorType>(b.getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  auto packedType = RankedTensorType::get({panels, k, nr}, type.getElementType());
  if (b.isSplat())
    return DenseElementsAttr::get(packedType, b.getSplatValue<Attribute>());
  ArrayRef<float> src(reinterpret_cast<const float *>(b.getRawData().data()), k * n);
  std::vector<float> packed(panels * k * nr);
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t r = 0; r < k; ++r)
      std::copy_n(src.begin() + r * n + p * nr, std::min(nr, n - p * nr),
                  packed.begin() + (p * k + r) * nr);
  return DenseElementsAttr::getFromRawBuffer(
      packedType, ArrayRef<char>(reinterpret_cast<const char *>(packed.data()),
                                 packed.size() * sizeof(float)));
}

/// The panels of a B known only at run time, as a copy the vectorizer handles: B (padded
/// with zero columns to whole panels) viewed as [K, panels, nr], transposed to [panels, K, nr].
Value packAtRunTime(OpBuilder &b, Location loc, Value matrix, int64_t panels, int64_t nr) {
  auto type = cast<RankedTensorType>(matrix.getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  Type et = type.getElementType();
  Value full = matrix;
  if (panels * nr != n) {
    auto paddedType = RankedTensorType::get({k, panels * nr}, et);
    SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> high = {b.getIndexAttr(0), b.getIndexAttr(panels * nr - n)};
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
    full = tensor::PadOp::create(b, loc, paddedType, matrix, low, high, zero);
  }
  auto viewType = RankedTensorType::get({k, panels, nr}, et);
  Value view = tensor::ExpandShapeOp::create(b, loc, viewType, full,
                                             SmallVector<ReassociationIndices>{{0}, {1, 2}});
  Value init = tensor::EmptyOp::create(b, loc, {panels, k, nr}, et);
  return linalg::TransposeOp::create(b, loc, view, init, ArrayRef<int64_t>{1, 0, 2})
      ->getResult(0);
}

/// C[:, off : off + width] = A x bSlice + C[:, off : off + width], on tensors.
Value matmulIntoColumns(OpBuilder &b, Location loc, Value a, Value bSlice, Value c,
                        OpFoldResult offset, int64_t width) {
  auto ct = cast<RankedTensorType>(c.getType());
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), offset};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(ct.getDimSize(0)), b.getIndexAttr(width)};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  Value cSlice = tensor::ExtractSliceOp::create(b, loc, c, offsets, sizes, strides);
  Value product =
      linalg::MatmulOp::create(b, loc, ValueRange{a, bSlice}, ValueRange{cSlice}).getResult(0);
  return tensor::InsertSliceOp::create(b, loc, product, c, offsets, sizes, strides);
}

struct InfcPackMatmulPanelsPass
    : public infc::impl::InfcPackMatmulPanelsBase<InfcPackMatmulPanelsPass> {
  using InfcPackMatmulPanelsBase::InfcPackMatmulPanelsBase;

  void runOnOperation() override {
    // Must match the register tile of infc-tile-and-vectorize-matmul: two vectors wide.
    int64_t nr = 2 * std::max<int64_t>(4, vectorBits / 32);
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp op) {
      bool f32 = llvm::all_of(op->getOperandTypes(), [](Type t) {
        return cast<ShapedType>(t).getElementType().isF32();
      });
      // Matmuls already inside loops (this pass's own panels, tiles) are left alone.
      if (op.hasPureTensorSemantics() && !op.hasDynamicShape() && f32 &&
          !op->getParentOfType<LoopLikeOpInterface>() && op.getIndexingMapsArray() ==
                                                             op.getDefaultIndexingMaps(
                                                                 op.getContext()))
        matmuls.push_back(op);
    });
    for (linalg::MatmulOp op : matmuls)
      pack(op, nr);
  }

  void pack(linalg::MatmulOp op, int64_t nr) {
    Value a = op.getInputs()[0], bMatrix = op.getInputs()[1], c = op.getOutputs()[0];
    auto bt = cast<RankedTensorType>(bMatrix.getType());
    int64_t m = cast<RankedTensorType>(a.getType()).getDimSize(0), k = bt.getDimSize(0),
            n = bt.getDimSize(1), full = n / nr, panels = (n + nr - 1) / nr;
    DenseElementsAttr constant;
    bool isConstant = matchPattern(bMatrix, m_Constant(&constant));
    // A run-time copy of B pays off once several register tiles of A reuse each panel.
    if (full == 0 || (!isConstant && m < minRowsForRuntimePack))
      return;
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value packed =
        isConstant
            ? (Value)arith::ConstantOp::create(b, loc, packConstant(constant, panels, nr))
            : packAtRunTime(b, loc, bMatrix, panels, nr);

    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value count = arith::ConstantIndexOp::create(b, loc, full);
    Value width = arith::ConstantIndexOp::create(b, loc, nr);
    auto loop = scf::ForOp::create(
        b, loc, zero, count, one, ValueRange{c},
        [&](OpBuilder &lb, Location ll, Value p, ValueRange iterArgs) {
          // Panel p as a contiguous [K, nr] matrix.
          SmallVector<OpFoldResult> offsets = {p, lb.getIndexAttr(0), lb.getIndexAttr(0)};
          SmallVector<OpFoldResult> sizes = {lb.getIndexAttr(1), lb.getIndexAttr(k),
                                             lb.getIndexAttr(nr)};
          SmallVector<OpFoldResult> strides(3, lb.getIndexAttr(1));
          auto panelType = RankedTensorType::get({k, nr}, bt.getElementType());
          Value panel = tensor::ExtractSliceOp::create(lb, ll, panelType, packed, offsets,
                                                       sizes, strides);
          Value column = arith::MulIOp::create(lb, ll, p, width);
          Value next = matmulIntoColumns(lb, ll, a, panel, iterArgs[0], column, nr);
          scf::YieldOp::create(lb, ll, next);
        });
    // Panels are independent column blocks of C: the session's threads share them out.
    loop->setAttr("infc.parallel", b.getUnitAttr());
    Value result = loop.getResult(0);
    if (int64_t tail = n - full * nr) {
      // The last, zero-padded panel: a whole-panel matmul into an [M, nr] scratch tile that
      // starts from C's tail columns, of which the first `tail` columns go back into C.
      auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
      SmallVector<OpFoldResult> unit2(2, idx(1)), unit3(3, idx(1));
      auto panelType = RankedTensorType::get({k, nr}, bt.getElementType());
      Value panel = tensor::ExtractSliceOp::create(
          b, loc, panelType, packed, SmallVector<OpFoldResult>{idx(full), idx(0), idx(0)},
          SmallVector<OpFoldResult>{idx(1), idx(k), idx(nr)}, unit3);
      SmallVector<OpFoldResult> cOffsets = {idx(0), idx(full * nr)};
      SmallVector<OpFoldResult> tailSizes = {idx(m), idx(tail)};
      Value cTail = tensor::ExtractSliceOp::create(b, loc, result, cOffsets, tailSizes, unit2);
      Type et = bt.getElementType();
      Value scratch = tensor::EmptyOp::create(b, loc, {m, nr}, et);
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
      scratch = linalg::FillOp::create(b, loc, zero, scratch).getResult(0);
      SmallVector<OpFoldResult> origin = {idx(0), idx(0)};
      scratch = tensor::InsertSliceOp::create(b, loc, cTail, scratch, origin, tailSizes, unit2);
      Value product =
          linalg::MatmulOp::create(b, loc, ValueRange{a, panel}, ValueRange{scratch})
              .getResult(0);
      Value valid = tensor::ExtractSliceOp::create(b, loc, product, origin, tailSizes, unit2);
      result = tensor::InsertSliceOp::create(b, loc, valid, result, cOffsets, tailSizes, unit2);
    }
    op.getResult(0).replaceAllUsesWith(result);
    op.erase();
  }
};
} // namespace

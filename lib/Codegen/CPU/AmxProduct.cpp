//===- AmxProduct.cpp - the infc.amx product generic -----------------------===//
#include "AmxProduct.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

Value infc::buildAmxProduct(OpBuilder &b, Location loc, Value a, Value bTiles, int64_t perWord,
                            Type accType, AmxMultiplyAdd multiplyAdd) {
  constexpr int64_t kColumns = 16; // of a B tile, and of an accumulator tile
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(bTiles.getType());
  int64_t m = at.getDimSize(0), k = at.getDimSize(1), panels = bt.getDimSize(0);
  Value a3 = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({m, k / perWord, perWord}, at.getElementType()), a,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
  Value b4 = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({panels, k / perWord, kColumns, perWord}, bt.getElementType()),
      bTiles, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
  Value init = tensor::EmptyOp::create(b, loc, {m, panels, kColumns}, accType);
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  // Loops (m, p, j, q, t).
  SmallVector<AffineMap> maps = {AffineMap::get(5, 0, {d(0), d(3), d(4)}, ctx),
                                 AffineMap::get(5, 0, {d(1), d(3), d(2), d(4)}, ctx),
                                 AffineMap::get(5, 0, {d(0), d(1), d(2)}, ctx)};
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{a3, b4}, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, multiplyAdd(nb, l, args[0], args[1], args[2]));
      });
  generic->setAttr("infc.amx", b.getUnitAttr());
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({m, panels * kColumns}, accType), generic.getResult(0),
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
}

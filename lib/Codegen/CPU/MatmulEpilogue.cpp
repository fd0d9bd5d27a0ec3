//===- MatmulEpilogue.cpp - elementwise ops applied to a matmul's tiles ---===//
#include "MatmulEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace infc;

/// The index of an elementwise input of `g` that can hold its result: a residual whose
/// buffer nothing reads or writes after `g` (every other user of it, and of its reshapes,
/// comes before `g` in `g`'s block). -1 if there is none, or if `g`'s result already has a
/// place (its init is no tensor.empty, or an insert_slice takes it: a padded interior).
/// Not a residual the matmul reads (y = x + conv1x1(x): the fused loops, built at `g`,
/// would read it while writing it) or that `g` reads through another operand too.
static int64_t findInPlaceInput(linalg::GenericOp g, linalg::MatmulOp matmul,
                                ArrayRef<bool> elementwise) {
  Value init = g.getDpsInits()[0];
  if (!init.getDefiningOp<tensor::EmptyOp>())
    return -1;
  for (Operation *user : g.getResult(0).getUsers())
    if (isa<tensor::InsertSliceOp>(user))
      return -1;
  auto isView = [](Operation *op) {
    return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ExtractSliceOp,
               tensor::CastOp, tensor::ReshapeOp>(op);
  };
  auto usedOnlyBefore = [&](Value root, Value operand) {
    SmallVector<Value> aliases = {root};
    while (!aliases.empty()) {
      Value v = aliases.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (user == g) {
          if (v != operand)
            return false;
          continue;
        }
        if (isView(user) && use.getOperandNumber() == 0) {
          aliases.push_back(user->getResult(0));
          continue;
        }
        Operation *ancestor = g->getBlock()->findAncestorOpInBlock(*user);
        if (user == matmul || !ancestor || !ancestor->isBeforeInBlock(g))
          return false;
      }
    }
    return true;
  };
  for (auto [i, operand] : llvm::enumerate(g.getDpsInputs())) {
    if (!elementwise[i] || operand.getType() != g.getResult(0).getType() ||
        llvm::count(g->getOperands(), operand) != 1)
      continue;
    // The buffer behind every view (a slice, a reshape or a cast of a function argument
    // is the caller's, a constant's is read-only: neither is ours to write).
    Value root = operand;
    while (Operation *def = root.getDefiningOp()) {
      if (!isView(def))
        break;
      root = def->getOperand(0);
    }
    if (isa<BlockArgument>(root) || root.getDefiningOp<arith::ConstantOp>())
      continue;
    if (usedOnlyBefore(root, operand))
      return i;
  }
  return -1;
}

std::optional<MatmulEpilogue> MatmulEpilogue::of(linalg::MatmulOp matmul, bool allowInPlace) {
  Value product = matmul.getResult(0);
  if (!product.hasOneUse())
    return std::nullopt;
  MatmulEpilogue e;
  auto type = cast<RankedTensorType>(product.getType());
  if (!type.getElementType().isF32())
    return std::nullopt;
  e.m = type.getDimSize(0);
  e.n = type.getDimSize(1);
  Operation *user = *product.getUsers().begin();
  Value read = product;
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(user)) {
    // Only M may be split: the last dim stays N.
    SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
    if (groups.size() != 2 || groups[1].size() != 1 || !expand->hasOneUse())
      return std::nullopt;
    e.expand = expand;
    read = expand.getResult();
    user = *read.getUsers().begin();
  }
  auto g = dyn_cast<linalg::GenericOp>(user);
  auto readType = cast<RankedTensorType>(read.getType());
  // An f32 result too: the panel loops carry it in the product's place.
  if (!g || !g.hasPureTensorSemantics() || g.getNumDpsInits() != 1 ||
      !cast<RankedTensorType>(g.getResult(0).getType()).getElementType().isF32() ||
      g.getNumLoops() != g.getNumParallelLoops() || g.getNumLoops() != readType.getRank() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      !g.getRegionOutputArgs()[0].use_empty() ||
      cast<RankedTensorType>(g.getResult(0).getType()).getShape() != readType.getShape())
    return std::nullopt;
  // A body of arithmetic only (no linalg.index): it vectorizes on the register tile.
  for (Operation &op : g.getRegion().front().without_terminator())
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      return std::nullopt;
  int64_t rank = readType.getRank();
  bool seenProduct = false;
  for (OpOperand *in : g.getDpsInputOperands()) {
    AffineMap map = g.getMatchingIndexingMap(in);
    auto inType = dyn_cast<RankedTensorType>(in->get().getType());
    if (in->get() == read && map.isIdentity() && !seenProduct) {
      e.access.push_back(Access::Product);
      seenProduct = true;
    } else if (!inType || inType.getRank() == 0) {
      e.access.push_back(Access::Scalar);
    } else if (map.isIdentity() && inType.getShape() == readType.getShape()) {
      e.access.push_back(Access::Element);
    } else if (map.getNumResults() == 1 &&
               map.getResult(0) == getAffineDimExpr(rank - 1, g.getContext()) &&
               inType.getRank() == 1 && inType.getDimSize(0) == e.n) {
      e.access.push_back(Access::Column);
    } else {
      return std::nullopt;
    }
  }
  if (!seenProduct)
    return std::nullopt;
  e.consumer = g;
  SmallVector<bool> elementwise;
  for (Access how : e.access)
    elementwise.push_back(how == Access::Element);
  e.inPlace = allowInPlace ? findInPlaceInput(g, matmul, elementwise) : -1;
  return e;
}

Value MatmulEpilogue::resultInit(OpBuilder &b, Location loc) {
  // The consumer's elementwise inputs, viewed as [M, N] like the product.
  inputs2d.clear();
  for (auto [in, how] : llvm::zip(consumer.getDpsInputs(), access)) {
    Value v = in;
    if (how == Access::Element && expand)
      v = tensor::CollapseShapeOp::create(b, loc, in, expand.getReassociationIndices());
    inputs2d.push_back(v);
  }
  // The residual that holds the result in place, or the consumer's own init (a
  // tensor.empty, which empty-tensor elimination may turn into the slice of a padded
  // buffer that its user inserts into), viewed as [M, N].
  if (inPlace >= 0)
    return inputs2d[inPlace];
  Value init = consumer.getDpsInits()[0];
  if (expand)
    return tensor::CollapseShapeOp::create(b, loc, init, expand.getReassociationIndices());
  return init;
}

Value MatmulEpilogue::apply(OpBuilder &b, Location loc, Value product, Value dest, OpFoldResult row,
                            int64_t rows, OpFoldResult col, int64_t width, OpFoldResult destRow,
                            bool addDest) const {
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> unit(2, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows), b.getIndexAttr(width)};
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<OpFoldResult> at = {destRow, col};
  Value init = tensor::ExtractSliceOp::create(b, loc, dest, at, sizes, unit);
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  for (auto [i, v, how] : llvm::enumerate(inputs2d, access)) {
    switch (how) {
    case Access::Product:
      operands.push_back(product);
      maps.push_back(identity);
      break;
    case Access::Element:
      // The in-place residual is the tile's own init (below): the destination the loops
      // carry, whose tiles hold it until they are written.
      if (static_cast<int64_t>(i) == inPlace)
        break;
      operands.push_back(tensor::ExtractSliceOp::create(
          b, loc, v, SmallVector<OpFoldResult>{row, col}, sizes, unit));
      maps.push_back(identity);
      break;
    case Access::Column:
      operands.push_back(
          tensor::ExtractSliceOp::create(b, loc, v, SmallVector<OpFoldResult>{col},
                                         SmallVector<OpFoldResult>{b.getIndexAttr(width)},
                                         SmallVector<OpFoldResult>{b.getIndexAttr(1)}));
      maps.push_back(AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx));
      break;
    case Access::Scalar:
      operands.push_back(v);
      maps.push_back(AffineMap::get(2, 0, {}, ctx));
      break;
    }
  }
  maps.push_back(identity);
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  // The consumer's body, its in-place input read as the tile's output element (so that,
  // once tiled further, each register tile reads the residual from what it overwrites).
  linalg::GenericOp source = consumer; // ops are handles; the region is not changed
  Block &body = source.getRegion().front();
  auto tile = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, operands, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location, ValueRange args) {
        IRMapping mapping;
        unsigned next = 0;
        for (auto [i, arg] : llvm::enumerate(body.getArguments().drop_back())) {
          if (static_cast<int64_t>(i) == inPlace) {
            mapping.map(arg, args.back());
            continue;
          }
          Value v = args[next++];
          // The whole product: the earlier K blocks' partial sums (the tile's output
          // element) plus this block's.
          if (addDest && access[i] == Access::Product)
            v = arith::AddFOp::create(nb, loc, v, args.back());
          mapping.map(arg, v);
        }
        mapping.map(body.getArguments().back(), args.back());
        for (Operation &op : body)
          nb.clone(op, mapping);
      });
  tile->setAttr(kEpilogueMarker, b.getUnitAttr());
  return tensor::InsertSliceOp::create(b, loc, tile.getResult(0), dest, at, sizes, unit);
}

void MatmulEpilogue::replaceConsumer(OpBuilder &b, Location loc, Value result) {
  Value v = result;
  if (expand)
    v = tensor::ExpandShapeOp::create(b, loc, consumer.getResult(0).getType(), result,
                                      expand.getReassociationIndices());
  consumer.getResult(0).replaceAllUsesWith(v);
  consumer.erase();
  if (expand)
    expand.erase();
}

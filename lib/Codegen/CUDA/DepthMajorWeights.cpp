//===- DepthMajorWeights.cpp - constant tensor-core operands reduction-innermost --===//
//
// The 16-bit and int8 tensor-core kernels (TiledContraction.cpp, buildMmaSync) stage A and
// B as [tile][reduction] in shared memory: ldmatrix gives each lane registers of
// neighbours along the reduction. A matmul's weights [K][N] reach that layout transposed,
// every staged element stored on its own (8 two-byte stores for each 16-byte load). The
// weights are constants: stored [N][K] instead, a chunk is 16 bytes along the reduction in
// memory and in shared memory alike.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "TiledContraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

namespace infc {
#define GEN_PASS_DEF_INFCDEPTHMAJORWEIGHTS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// `attr` with its dimensions permuted: result dimension j is dimension `perm[j]`.
DenseElementsAttr transposed(DenseElementsAttr attr, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(attr.getType());
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  auto result = RankedTensorType::get(shape, type.getElementType());
  if (attr.isSplat())
    return SplatElementsAttr::get(result, attr.getSplatValue<Attribute>());
  int64_t width = type.getElementTypeBitWidth() / 8, rank = type.getRank();
  // The result's stride of each source dimension.
  SmallVector<int64_t> strides(rank);
  for (int64_t j = rank - 1, stride = 1; j >= 0; --j) {
    strides[perm[j]] = stride;
    stride *= shape[j];
  }
  ArrayRef<char> from = attr.getRawData();
  std::vector<char> to(from.size());
  SmallVector<int64_t> at(rank, 0); // the source index, row-major order
  for (int64_t i = 0, n = type.getNumElements(); i < n; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += at[d] * strides[d];
    std::memcpy(to.data() + offset * width, from.data() + i * width, width);
    for (int64_t d = rank - 1; d >= 0 && ++at[d] == type.getDimSize(d); --d)
      at[d] = 0;
  }
  return DenseElementsAttr::getFromRawBuffer(result, to);
}

/// Reads input `input` of `op` from a transposed copy of its constant, its reduction
/// dimensions innermost in loop order, if it is a dense constant read through a
/// permutation of loop dimensions whose innermost is not a reduction.
void makeDepthMajor(OpBuilder &b, linalg::GenericOp op, OpOperand *input) {
  DenseElementsAttr dense;
  auto type = dyn_cast<RankedTensorType>(input->get().getType());
  if (!type || type.getRank() < 2 || !matchPattern(input->get(), m_Constant(&dense)) ||
      type.getElementTypeBitWidth() % 8)
    return;
  AffineMap map = op.getMatchingIndexingMap(input);
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/false) ||
      map.getNumResults() != type.getRank())
    return;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto isReduction = [&](int64_t result) {
    return iterators[map.getDimPosition(result)] == utils::IteratorType::reduction;
  };
  if (isReduction(map.getNumResults() - 1))
    return;
  // The other dimensions first as they are, then the reductions in loop order.
  SmallVector<int64_t> perm, reductions;
  for (int64_t r = 0, e = map.getNumResults(); r < e; ++r)
    (isReduction(r) ? reductions : perm).push_back(r);
  if (reductions.empty())
    return;
  llvm::sort(reductions,
             [&](int64_t x, int64_t y) { return map.getDimPosition(x) < map.getDimPosition(y); });
  llvm::append_range(perm, reductions);
  b.setInsertionPoint(op);
  DenseElementsAttr weights = transposed(dense, perm);
  Value constant = arith::ConstantOp::create(b, input->get().getLoc(), weights.getType(), weights);
  SmallVector<AffineExpr> results;
  for (int64_t r : perm)
    results.push_back(map.getResult(r));
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps[input->getOperandNumber()] =
      AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, b.getContext());
  input->set(constant);
  op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
}

// (Generics only: infc-lower-precision and infc-narrow-integer-operands generalize every
// 16-bit and int8 contraction.)
struct InfcDepthMajorWeightsPass
    : public infc::impl::InfcDepthMajorWeightsBase<InfcDepthMajorWeightsPass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    getOperation().walk([&](linalg::GenericOp op) {
      // The 16-bit and byte tensor-core kernels (not TF32's: it stages B [depth][tile]).
      if (!op.hasPureTensorSemantics() || !infc::classifyContraction(op))
        return;
      std::optional<infc::ContractionTiling::TensorCoreKind> kind =
          infc::tensorCoreKind(op, /*tf32=*/false);
      if (!kind)
        return;
      for (OpOperand *input : op.getDpsInputOperands())
        makeDepthMajor(b, op, input);
    });
  }
};
} // namespace

//===- ImportHelpers.h - helpers shared by ONNX op importers ----*- C++ -*-===//
//
// Private to lib/Import/Onnx: the window attributes of the convolution and pooling importers
// (ImportConvolution, ImportPooling), and short builders that the tensor-op importers
// (ImportIndexing, ImportResampling, ImportLinear, ImportNormalization) share.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_IMPORT_ONNX_IMPORTHELPERS_H
#define INFC_LIB_IMPORT_ONNX_IMPORTHELPERS_H

#include "NodeImporter.h"

#include <optional>
#include <string>

namespace infc {

//===----------------------------------------------------------------------===//
// Window ops (defined in ImportConvolution.cpp)
//===----------------------------------------------------------------------===//

/// No window, pad or image extent infc builds is longer: larger ones are refused before the
/// shape arithmetic overflows (a dilation of 2^63 - 1 times a kernel of 3).
constexpr int64_t kMaxWindowSpan = int64_t(1) << 48;

/// `v` as "[a, b, ...]", for diagnostics.
std::string bracketList(llvm::ArrayRef<int64_t> v);

/// A window attribute (strides, dilations, pads, output_padding): `count` values in
/// [lo, 2^32], `fallback` when absent.
std::optional<llvm::SmallVector<int64_t>> windowInts(NodeImporter &n, llvm::StringRef name,
                                                     size_t count, int64_t lo,
                                                     llvm::ArrayRef<int64_t> fallback);

/// Resolves auto_pad / pads for a 2-D window op into [top, left, bottom, right].
mlir::LogicalResult windowPads(NodeImporter &n, llvm::ArrayRef<int64_t> inSpatial,
                               llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
                               llvm::ArrayRef<int64_t> dilations,
                               llvm::SmallVectorImpl<int64_t> &pads);

/// 1-D window ops run as 2-D ones over an inserted H = 1.
inline llvm::SmallVector<int64_t> to2d(llvm::ArrayRef<int64_t> v, int64_t one) {
  return v.size() == 1 ? llvm::SmallVector<int64_t>{one, v[0]} : llvm::SmallVector<int64_t>(v);
}
/// 1-D pads [begin, end] as 2-D ones [0, begin, 0, end]; 2-D pads unchanged.
inline llvm::SmallVector<int64_t> pads2d(llvm::ArrayRef<int64_t> p) {
  return p.size() == 2 ? llvm::SmallVector<int64_t>{0, p[0], 0, p[1]}
                       : llvm::SmallVector<int64_t>(p);
}
/// [N, C, W] reshaped to [N, C, 1, W].
inline mlir::Value insertUnitH(NodeImporter &n, mlir::Value v) {
  auto s = llvm::cast<mlir::RankedTensorType>(v.getType()).getShape();
  return n.reshape(v, {s[0], s[1], 1, s[2]});
}

//===----------------------------------------------------------------------===//
// Tensor-op builders
//===----------------------------------------------------------------------===//

/// The ranked tensor type of `v`.
inline mlir::RankedTensorType typeOf(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType());
}
/// The element type of the ranked tensor `v`.
inline mlir::Type elementTypeOf(mlir::Value v) { return typeOf(v).getElementType(); }

/// An i64 constant of `shape` holding `values`.
inline mlir::Value i64Constant(NodeImporter &n, llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<int64_t> values) {
  return n.constant(
      mlir::DenseElementsAttr::get(mlir::RankedTensorType::get(shape, n.b.getI64Type()), values));
}

/// `v` cast to element type `et` (`v` itself when it already has it).
inline mlir::Value castTo(NodeImporter &n, mlir::Value v, mlir::Type et) {
  if (elementTypeOf(v) == et)
    return v;
  return n.create<CastOp>(mlir::RankedTensorType::get(typeOf(v).getShape(), et), v);
}

/// `v` with its dims permuted by `perm`.
inline mlir::Value transpose(NodeImporter &n, mlir::Value v, llvm::ArrayRef<int64_t> perm) {
  return n.create<TransposeOp>(v, n.b.getDenseI64ArrayAttr(perm));
}

/// `v` broadcast to `shape` (`v` itself when it has that shape).
inline mlir::Value broadcastTo(NodeImporter &n, mlir::Value v, llvm::ArrayRef<int64_t> shape) {
  if (typeOf(v).getShape() == shape)
    return v;
  return n.create<BroadcastOp>(mlir::RankedTensorType::get(shape, elementTypeOf(v)), v);
}

/// The sum of `v` over `axes` (`v` itself for no axes).
inline mlir::Value reduceSum(NodeImporter &n, mlir::Value v, llvm::ArrayRef<int64_t> axes,
                             bool keepdims) {
  if (axes.empty())
    return v;
  return n.create<ReduceSumOp>(v, n.b.getDenseI64ArrayAttr(axes), n.b.getBoolAttr(keepdims));
}

/// infc.gather of `indices` from `data` along `axis`.
inline mlir::Value gather(NodeImporter &n, mlir::Value data, mlir::Value indices, int64_t axis) {
  return n.create<GatherOp>(data, indices, n.b.getI64IntegerAttr(axis));
}

//===----------------------------------------------------------------------===//
// Constant inputs (defined in ImportResampling.cpp)
//===----------------------------------------------------------------------===//

/// Input i as doubles; emits an error naming `what` unless it is constant.
std::optional<llvm::SmallVector<double>> constantDoubles(NodeImporter &n, unsigned i,
                                                         llvm::StringRef what);

} // namespace infc

#endif // INFC_LIB_IMPORT_ONNX_IMPORTHELPERS_H

//===- Utils.h - builders shared by the infc-to-linalg patterns -*- C++ -*-===//
//
// Private to lib/Conversion/InfcToLinalg. The builders the pattern files share: defined in
// Utils.cpp, except castScalar and convertElements (Elementwise.cpp), the float8/float4
// codecs (SmallFloats.cpp) and the Winograd convolution (Winograd.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_CONVERSION_INFCTOLINALG_UTILS_H
#define INFC_LIB_CONVERSION_INFCTOLINALG_UTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace infc {
namespace lowering {
/// A map from the iteration space of `resultShape` to an operand of `operandShape` under
/// numpy broadcasting (size-1 dims read index 0, missing leading dims are dropped).
mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> operandShape,
                             llvm::ArrayRef<int64_t> resultShape);

/// The run-time size of the symbolic dim, read (tensor.dim) from the first argument of the
/// function being built with a `?`. Generic code has one symbolic dim, which every `?`
/// stands for (docs/dynamic-shapes.md, "3b"), so this is the size of any `?`; null when no
/// argument has one.
mlir::Value symbolicDimSize(mlir::OpBuilder &b, mlir::Location loc);

/// The run-time sizes of `shape`'s `?` dims, in order: each read (tensor.dim) from the first
/// of `sources` with a `?` at that dim, the sources aligned to the right as in broadcasting;
/// where none has, the symbolic dim's size (a broadcast to it, a slice of a constant).
llvm::SmallVector<mlir::Value> dynamicSizes(mlir::OpBuilder &b, mlir::Location loc,
                                            llvm::ArrayRef<int64_t> shape,
                                            mlir::ValueRange sources);

/// An empty tensor of `type`, its `?` dims sized from `sources` as dynamicSizes says.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                        mlir::ValueRange sources = {});

/// A linalg.generic over `resultType`'s shape, all loops parallel, reading `inputs` with
/// broadcasting and yielding `body(scalars)`.
mlir::Value elementwise(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType resultType,
    mlir::ValueRange inputs,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)> body);

/// A tensor of `type` (static) filled with `value`.
mlir::Value filled(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                   mlir::TypedAttr value);

/// Reduces the dims marked in `reduced` (dropped from the result) with `combine`, starting
/// from `init`.
mlir::Value
reduce(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input, llvm::ArrayRef<bool> reduced,
       mlir::TypedAttr init,
       llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::Value, mlir::Value)>
           combine);

/// Reshape of a tensor through collapse/expand_shape; null for a dynamic one that no single
/// collapse or expand gives.
mlir::Value reshapeTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                          mlir::RankedTensorType resultType);

/// `input` padded by `low`/`high` elements per dim with the constant `value`.
mlir::Value padConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                        llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                        mlir::TypedAttr value);

/// The strided windows of an NCHW `input` (already padded) that the kernel taps of a 2-D
/// window op read, tap (i, j) row-major: X[n, c, oh*sh + i*dh, ow*sw + j*dw] over `outShape`
/// [N, C, OH, OW], each a strided tensor.extract_slice (so the op on them is elementwise).
/// With `channelsLast`, NHWC: X[n, oh*sh + i*dh, ow*sw + j*dw, c] over [N, OH, OW, C].
llvm::SmallVector<mlir::Value> tapWindows(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                                          llvm::ArrayRef<int64_t> kernel,
                                          llvm::ArrayRef<int64_t> strides,
                                          llvm::ArrayRef<int64_t> dilations, bool channelsLast,
                                          llvm::ArrayRef<int64_t> outShape);

/// Whether an NHWC convolution (`input` unpadded, of type `inputType`, `weight` [F, C, KH,
/// KW]) can be computed by Winograd F(2x2, 3x3) (convChannelsLastWinograd): one f32 image,
/// a constant 3x3 kernel, stride and dilation 1, at least `minChannels` input and output
/// channels, both multiples of 16. (A batch of images runs it image by image.)
bool winogradApplies(mlir::RankedTensorType inputType, mlir::Value weight,
                     llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
                     mlir::RankedTensorType resultType, int64_t minChannels);
/// That convolution (pads [top, left, bottom, right]) into `resultType` [1, OH, OW, F],
/// without bias: the input transform, 16 matmuls against weights transformed at compile
/// time, the output transform (Winograd.cpp).
mlir::Value convChannelsLastWinograd(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                                     mlir::Value weight, llvm::ArrayRef<int64_t> pads,
                                     mlir::RankedTensorType resultType);
/// A scalar constant of `type` (float or integer), saturated to the integer range (the
/// unsigned one with `isUnsigned`).
mlir::Value scalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type, double value,
                   bool isUnsigned = false);
/// The lowest / highest value of `type` (-inf / +inf for floats; 0 / 2^N - 1 for unsigned).
mlir::TypedAttr lowestAttr(mlir::Type type, bool isUnsigned = false);
mlir::TypedAttr highestAttr(mlir::Type type, bool isUnsigned = false);

/// Unsigned integers: the infc dialect keeps ONNX's `ui<N>` types, arith and linalg work on
/// signless ones. Patterns build everything on signless types (`signless`, `loweredType`) and
/// read the signedness from the infc op they lower (`isUnsigned`).
mlir::Type signless(mlir::Type type); // element or shaped type
mlir::RankedTensorType loweredType(mlir::Type tensorType);
bool isUnsigned(mlir::Type type); // an unsigned integer, or a shaped type of them
/// One element converted with ONNX Cast semantics (signless `x`; the signedness of each side
/// given apart).
mlir::Value castScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, bool fromUnsigned,
                       mlir::Type to, bool toUnsigned);
/// `value` with its (signless) elements converted to `elementType` (float extension or
/// truncation, or any signed cast); `value` itself when it already has that type.
mlir::Value convertElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                            mlir::Type elementType);
/// float8 and float4: below the infc dialect a tensor of their bits (i8, i4); `signless`
/// maps them so. Cast decodes them to f32 and encodes f32 with ONNX's rounding and
/// saturation, in integer ops.
bool isSmallFloat(mlir::Type type); // element or shaped type
mlir::Value decodeSmallFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value bits,
                             mlir::Type from);
mlir::Value encodeSmallFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32, mlir::Type to,
                             bool saturate);
/// f16 and bf16 compute in f32 (as ORT does on CPU), rounding back once per op.
bool isHalfFloat(mlir::Type type);
/// A[rows, k] x B[k, n] (B constant, k and n static) into `result` [rows, n] with a run-time
/// row count: static matmuls over blocks of rows (Linear.cpp). With rowCount, only A's
/// first rowCount rows (the result's other rows are left as they are). A non-empty `mark`
/// names a unit attribute set on each block's linalg.matmul.
mlir::Value rowBlockedMatmul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a, mlir::Value rhs,
                             mlir::Value result, mlir::Value rowCount = mlir::Value(),
                             llvm::StringRef mark = "");

} // namespace lowering
} // namespace infc

#endif // INFC_LIB_CONVERSION_INFCTOLINALG_UTILS_H

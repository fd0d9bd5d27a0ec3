//===- DenseBytes.h - the stored bytes of a dense constant ------*- C++ -*-===//
#ifndef INFC_SUPPORT_DENSEBYTES_H
#define INFC_SUPPORT_DENSEBYTES_H

#include "mlir/IR/BuiltinAttributes.h"

#include <optional>
#include <vector>

namespace infc {
/// The bytes of `attr` as a buffer of its type holds them at run time: row-major,
/// little-endian, splats expanded, a byte per i1. None for sub-byte or non-scalar elements.
std::optional<std::vector<char>> denseBytes(mlir::DenseElementsAttr attr);
} // namespace infc

#endif // INFC_SUPPORT_DENSEBYTES_H

//===- DenseBytes.cpp - the stored bytes of a dense constant --------------===//
#include "infc/Support/DenseBytes.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cstring>

using namespace mlir;

std::optional<std::vector<char>> infc::denseBytes(DenseElementsAttr attr) {
  auto type = cast<ShapedType>(attr.getType());
  Type et = type.getElementType();
  int64_t n = type.getNumElements();
  std::vector<char> bytes;
  if (et.isInteger(1)) {
    for (bool b : attr.getValues<bool>())
      bytes.push_back(b);
    return bytes;
  }
  if (!et.isIntOrFloat() || et.getIntOrFloatBitWidth() % 8)
    return std::nullopt;
  int64_t width = et.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = attr.getRawData();
  if (attr.isSplat()) {
    bytes.resize(n * width);
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(bytes.data() + i * width, raw.data(), width);
  } else {
    bytes.assign(raw.begin(), raw.end());
  }
  return bytes;
}

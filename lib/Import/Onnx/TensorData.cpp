//===- TensorData.cpp - ONNX initializers as dense constants --------------===//
//
// An initializer's elements come from raw_data, the typed fields or an external file; 4- and
// 2-bit types are unpacked to one element per byte. External data is read only from files
// inside the model's folder.
//
//===----------------------------------------------------------------------===//
#include "ModelImporter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace infc;
using namespace infc::detail;

LogicalResult ModelImporter::readExternalData(const onnx::TensorProto &tensor, std::string &bytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  std::string badNumber;
  for (const onnx::StringStringEntryProto &e : tensor.external_data()) {
    if (e.key() == "location")
      location = e.value();
    else if ((e.key() == "offset" || e.key() == "length") &&
             StringRef(e.value()).getAsInteger(10, e.key() == "offset" ? offset : length))
      badNumber = e.key() + " '" + e.value() + "'";
  }
  auto fail = [&]() {
    return error() << "initializer '" << tensor.name() << "': external data '" << location << "': ";
  };
  if (!badNumber.empty())
    return fail() << "the " << badNumber << " is not a number";
  if (location.empty())
    return fail() << "no location given";
  // Only files inside the model's folder: a model must not read arbitrary files.
  SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  SmallString<256> realDir, realFile, file(dir), lexical(location);
  llvm::sys::path::append(file, location);
  // First lexically ("../x" escapes whether or not it exists), then through symlinks.
  llvm::sys::path::remove_dots(lexical, /*remove_dot_dot=*/true);
  if (llvm::sys::path::is_absolute(location) || StringRef(lexical).starts_with("..") ||
      llvm::sys::fs::real_path(dir, realDir))
    return fail() << "refusing a location outside the model's folder";
  if (std::error_code ec = llvm::sys::fs::real_path(file, realFile))
    return fail() << "cannot open the file: " << ec.message();
  if (!StringRef(realFile).starts_with((realDir + llvm::sys::path::get_separator()).str()))
    return fail() << "refusing a location outside the model's folder";
  auto buffer = llvm::MemoryBuffer::getFile(realFile, /*IsText=*/false);
  if (!buffer)
    return fail() << "cannot read the file: " << buffer.getError().message();
  int64_t size = (*buffer)->getBufferSize();
  if (length < 0)
    length = size - offset;
  if (offset < 0 || length < 0 || offset > size || length > size - offset)
    return fail() << "offset " << offset << " + length " << length << " exceeds the file size "
                  << size;
  bytes.assign((*buffer)->getBufferStart() + offset, length);
  return success();
}

FailureOr<DenseElementsAttr> infc::denseFromTensorProto(Type elementType,
                                                        const onnx::TensorProto &t,
                                                        const std::string *externalBytes,
                                                        std::string &error) {
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  auto type = RankedTensorType::get(shape, elementType);
  int64_t n = type.getNumElements();
  unsigned bits = elementType.getIntOrFloatBitWidth();
  if (bits < 8 && bits > 1) {
    // 4- and 2-bit types are packed, low bits first, in raw_data or in int32_data (one
    // packed byte per int32); MLIR keeps one element per byte.
    std::string packed;
    if (externalBytes)
      packed = *externalBytes;
    else if (t.has_raw_data())
      packed = t.raw_data();
    else
      for (int32_t v : t.int32_data())
        packed.push_back((char)v);
    int64_t perByte = 8 / bits;
    if ((int64_t)packed.size() != (n + perByte - 1) / perByte) {
      error = "holds " + std::to_string(packed.size()) + " bytes, expected " +
              std::to_string((n + perByte - 1) / perByte) + " (" + std::to_string(bits) +
              "-bit values packed)";
      return failure();
    }
    std::string raw(n, '\0');
    for (int64_t i = 0; i < n; ++i)
      raw[i] =
          (char)(((uint8_t)packed[i / perByte] >> (bits * (i % perByte))) & ((1u << bits) - 1));
    return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(raw.data(), raw.size()));
  }
  int64_t width = elementType.isInteger(1) ? 1 : bits / 8;

  std::string raw;
  if (externalBytes) {
    raw = *externalBytes;
  } else if (t.has_raw_data()) {
    raw = t.raw_data();
  } else {
    // Typed fields: pack them into the raw little-endian layout, once their count is known
    // to match (dims may promise far more than the file holds).
    int64_t given =
        t.data_type() == onnx::TensorProto::FLOAT    ? t.float_data_size()
        : t.data_type() == onnx::TensorProto::DOUBLE ? t.double_data_size()
        : t.data_type() == onnx::TensorProto::INT64  ? t.int64_data_size()
        : t.data_type() == onnx::TensorProto::UINT32 || t.data_type() == onnx::TensorProto::UINT64
            ? t.uint64_data_size()
            : t.int32_data_size();
    if (given != n) {
      error = "holds " + std::to_string(given) + " values for a shape of " + std::to_string(n) +
              " elements";
      return failure();
    }
    raw.resize(n * width);
    auto put = [&](int64_t i, auto v) { std::memcpy(raw.data() + i * width, &v, width); };
    int64_t count = 0;
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      count = t.float_data_size();
      for (int64_t i = 0; i < std::min(count, n); ++i)
        put(i, t.float_data(i));
      break;
    case onnx::TensorProto::DOUBLE:
      count = t.double_data_size();
      for (int64_t i = 0; i < std::min(count, n); ++i)
        put(i, t.double_data(i));
      break;
    case onnx::TensorProto::INT64:
      count = t.int64_data_size();
      for (int64_t i = 0; i < std::min(count, n); ++i)
        put(i, t.int64_data(i));
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      count = t.uint64_data_size();
      for (int64_t i = 0; i < std::min(count, n); ++i) {
        uint64_t v = t.uint64_data(i);
        std::memcpy(raw.data() + i * width, &v, width); // little-endian truncation
      }
      break;
    default: // (u)int8/16, int32, bool and the bits of float16/bfloat16 travel in int32_data
      count = t.int32_data_size();
      for (int64_t i = 0; i < std::min(count, n); ++i) {
        int32_t v = t.int32_data(i);
        std::memcpy(raw.data() + i * width, &v, width); // little-endian truncation
      }
      break;
    }
    if (count != n) {
      error = "holds " + std::to_string(count) + " values for a shape of " + std::to_string(n) +
              " elements";
      return failure();
    }
  }
  if ((int64_t)raw.size() != n * width) {
    error = "holds " + std::to_string(raw.size()) + " bytes, expected " + std::to_string(n * width);
    return failure();
  }
  if (elementType.isInteger(1)) {
    SmallVector<bool> bits;
    for (char c : raw)
      bits.push_back(c != 0);
    return DenseElementsAttr::get(type, bits);
  }
  return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(raw.data(), raw.size()));
}

std::optional<DenseElementsAttr> ModelImporter::importTensor(const onnx::TensorProto &t) {
  Type et = onnxElementType(&ctx, t.data_type());
  if (!et) {
    error() << "initializer '" << t.name() << "' has unsupported dtype "
            << onnxDataTypeName(t.data_type());
    return std::nullopt;
  }
  std::string external, problem;
  if (t.data_location() == onnx::TensorProto::EXTERNAL && failed(readExternalData(t, external)))
    return std::nullopt;
  FailureOr<DenseElementsAttr> attr = denseFromTensorProto(
      et, t, t.data_location() == onnx::TensorProto::EXTERNAL ? &external : nullptr, problem);
  if (failed(attr)) {
    error() << "initializer '" << t.name() << "' " << problem;
    return std::nullopt;
  }
  return *attr;
}

//===- OnnxTypes.cpp - ONNX data types to MLIR element types --------------===//
//
// The TensorProto data types the importer reads, as MLIR element types; their names for
// diagnostics and their sizes (the initializer bytes `infc inspect` sums).
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

using namespace mlir;
using namespace infc;

/// TensorProto.DataType values newer than the onnx.proto Debian ships (IR version 9+).
enum NewerOnnxDataType : int32_t {
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};

Type infc::onnxElementType(MLIRContext *ctx, int32_t dataType) {
  switch (dataType) {
  case kFloat8E4M3FN:
    return Float8E4M3FNType::get(ctx);
  case kFloat8E4M3FNUZ:
    return Float8E4M3FNUZType::get(ctx);
  case kFloat8E5M2:
    return Float8E5M2Type::get(ctx);
  case kFloat8E5M2FNUZ:
    return Float8E5M2FNUZType::get(ctx);
  case kFloat4E2M1:
    return Float4E2M1FNType::get(ctx);
  case kInt4:
    return IntegerType::get(ctx, 4);
  case kUInt4:
    return IntegerType::get(ctx, 4, IntegerType::Unsigned);
  case kInt2:
    return IntegerType::get(ctx, 2);
  case kUInt2:
    return IntegerType::get(ctx, 2, IntegerType::Unsigned);
  case onnx::TensorProto::FLOAT:
    return Float32Type::get(ctx);
  case onnx::TensorProto::DOUBLE:
    return Float64Type::get(ctx);
  case onnx::TensorProto::INT8:
    return IntegerType::get(ctx, 8);
  case onnx::TensorProto::INT16:
    return IntegerType::get(ctx, 16);
  case onnx::TensorProto::INT32:
    return IntegerType::get(ctx, 32);
  case onnx::TensorProto::INT64:
    return IntegerType::get(ctx, 64);
  case onnx::TensorProto::BOOL:
    return IntegerType::get(ctx, 1);
  // MLIR's arith is signless; the infc dialect keeps ONNX's unsigned types as `ui<N>` so
  // every op knows its signedness, and the lowering to linalg picks unsigned arith ops.
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case onnx::TensorProto::FLOAT16:
    return Float16Type::get(ctx);
  case onnx::TensorProto::BFLOAT16:
    return BFloat16Type::get(ctx);
  default:
    return nullptr;
  }
}

const char *infc::onnxDataTypeName(int32_t dataType) {
  static const char *names[] = {
      "undefined",      "float",    "uint8",        "int8",           "uint16",
      "int16",          "int32",    "int64",        "string",         "bool",
      "float16",        "double",   "uint32",       "uint64",         "complex64",
      "complex128",     "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
      "float8e5m2fnuz", "uint4",    "int4",         "float4e2m1",     "float8e8m0",
      "uint2",          "int2"};
  if (dataType >= 0 && dataType < (int32_t)std::size(names))
    return names[dataType];
  return "unknown";
}

int64_t infc::onnxElementBytes(int32_t dataType) {
  switch (dataType) {
  case onnx::TensorProto::COMPLEX128:
    return 16;
  case onnx::TensorProto::COMPLEX64:
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return 8;
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return 4;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return 2;
  default:
    return 1;
  }
}

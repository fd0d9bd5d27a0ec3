//===- FuzzNpy.cpp - libFuzzer target: the .npy reader of `infc run` -----------===//
#include "infc/Runner/Npy.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  infc::NpyArray array;
  std::string error;
  if (infc::parseNpy(std::string((const char *)data, size), "fuzz.npy", array, error)) {
    // A parsed array holds exactly the bytes its shape and dtype say.
    size_t count = 1;
    for (int64_t d : array.shape)
      count *= (size_t)d;
    size_t width = 0;
    switch (array.dtype) {
    case INFC_F64:
    case INFC_I64:
    case INFC_U64:
      width = 8;
      break;
    case INFC_F32:
    case INFC_I32:
    case INFC_U32:
      width = 4;
      break;
    case INFC_F16:
    case INFC_I16:
    case INFC_U16:
      width = 2;
      break;
    case INFC_I8:
    case INFC_U8:
    case INFC_BOOL:
      width = 1;
      break;
    default:
      __builtin_trap(); // a dtype the reader does not produce
    }
    if (array.data.size() != count * width)
      __builtin_trap();
  } else if (error.empty()) {
    __builtin_trap(); // a refusal always says why
  }
  return 0;
}

//===- FuzzNpy.cpp - libFuzzer target: the .npy reader of `infc run` -----------===//
#include "Npy.h"

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
    if (array.data.size() % (count ? count : 1) != 0 || (count == 0 && !array.data.empty()))
      __builtin_trap();
  } else if (error.empty()) {
    __builtin_trap(); // a refusal always says why
  }
  return 0;
}

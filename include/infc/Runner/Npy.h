//===- Npy.h - minimal .npy reading and writing ----------------*- C++ -*-===//
#ifndef INFC_RUNNER_NPY_H
#define INFC_RUNNER_NPY_H

#include "infc/runtime.h"

#include <string>
#include <vector>

namespace infc {
struct NpyArray {
  infc_dtype dtype = INFC_F32;
  std::vector<int64_t> shape;
  std::vector<char> data; // row-major (C order), little-endian
};

/// Reads a C-order .npy of a dtype the runtime knows; false with `error` otherwise.
bool readNpy(const std::string &path, NpyArray &array, std::string &error);
/// The same for a file's bytes already read (`path` only names it in errors).
bool parseNpy(const std::string &content, const std::string &path, NpyArray &array,
              std::string &error);
/// Writes `data` as a C-order .npy.
bool writeNpy(const std::string &path, infc_dtype dtype, const int64_t *shape, int32_t rank,
              const void *data, size_t bytes, std::string &error);
} // namespace infc

#endif // INFC_RUNNER_NPY_H

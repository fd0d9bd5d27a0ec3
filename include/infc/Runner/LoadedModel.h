//===- LoadedModel.h - a model.so opened through the C ABI ------*- C++ -*-===//
//
// infc run, infc bench and the calibration of --quantize load a model.so with
// infc_api_open, exactly as a product embedding it would.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_RUNNER_LOADEDMODEL_H
#define INFC_RUNNER_LOADEDMODEL_H

#include "infc/Runner/Npy.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace infc {
/// An opened model with a session and input tensors bound to data.
struct LoadedModel {
  infc_api api{};
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  std::vector<NpyArray> inputData;
  std::vector<infc_tensor> inputs, outputs;
  std::vector<std::string> inputNames, outputNames;

  LoadedModel() = default;
  LoadedModel(const LoadedModel &) = delete;
  LoadedModel &operator=(const LoadedModel &) = delete;
  ~LoadedModel();

  /// Opens the library and creates a session of `threads` threads (0: the default),
  /// profiling into the chrome trace `profile` when it is not empty, else where
  /// INFC_PROFILE says unless `envProfile` is false (infc's own runs: calibration).
  bool open(const std::string &library, int threads, std::string &error,
            const std::string &profile = "", bool envProfile = true);
  /// Writes the profile of a session opened with one (infc_session_end_profiling).
  bool endProfiling(std::string &error);
  /// Binds every input to the array `provide` fills for it (false: an error was set).
  bool bind(const std::function<bool(const infc_io_info &, NpyArray &, std::string &)> &provide,
            std::string &error);
  /// Binds inputs from .npy files by name; with `random`, inputs without a file get seeded
  /// random data (uniform in [-1, 1) for f32, zeros otherwise), of the shape `shapes` gives
  /// for an input whose dims vary (a --specialize library) or else the model's.
  bool bindFiles(const std::map<std::string, std::string> &files, bool random, std::string &error,
                 const std::map<std::string, std::vector<int64_t>> &shapes = {});
  bool run(std::string &error);
};
} // namespace infc

#endif // INFC_RUNNER_LOADEDMODEL_H

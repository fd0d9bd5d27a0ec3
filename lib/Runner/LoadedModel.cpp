//===- LoadedModel.cpp - a model.so opened through the C ABI --------------===//
#include "infc/Runner/LoadedModel.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <random>

using namespace infc;

LoadedModel::~LoadedModel() {
  if (session)
    api.session_release(session);
  if (model)
    api.model_release(model);
  if (api.handle)
    infc_api_close(&api);
}

bool LoadedModel::open(const std::string &library, int threads, std::string &error,
                       const std::string &profile, bool envProfile) {
  char buffer[512];
  if (infc_api_open(library.c_str(), &api, buffer, sizeof buffer) != INFC_OK) {
    error = buffer;
    return false;
  }
  if (api.model_create(&model) != INFC_OK) {
    error = library + ": cannot create the model";
    // A C source build (--emit=c, --emit=cuda) says why: a weights or kernels file.
    using WhyFn = const char *(*)(void);
    if (auto why = (WhyFn)dlsym(api.handle, "infc_weights_error"); why && why() && *why())
      error += std::string(": ") + why();
    return false;
  }
  infc_session_options so{};
  so.struct_size = sizeof so;
  so.num_threads = threads;
  so.error_buffer = buffer;
  so.error_buffer_size = sizeof buffer;
  if (!profile.empty()) {
    if (!api.session_end_profiling) {
      error = library + ": the library predates profiling (ABI 1.3): compile it again";
      return false;
    }
    so.profile_path = profile.c_str();
  } else if (!envProfile && api.session_end_profiling) {
    so.profile_path = ""; // not INFC_PROFILE's either
  }
  if (api.session_create(model, &so, &session) != INFC_OK) {
    error = library + ": " + buffer;
    return false;
  }
  size_t m = api.model_num_outputs(model);
  outputs.assign(m, infc_tensor{});
  for (size_t j = 0; j < m; ++j) {
    infc_io_info info;
    api.model_output_info(model, j, &info);
    outputNames.push_back(info.name);
  }
  return true;
}

bool LoadedModel::endProfiling(std::string &error) {
  if (!api.session_end_profiling || api.session_end_profiling(session) != INFC_OK) {
    error = api.session_end_profiling ? api.session_error(session) : "no profiling in this library";
    return false;
  }
  return true;
}

bool LoadedModel::bind(
    const std::function<bool(const infc_io_info &, NpyArray &, std::string &)> &provide,
    std::string &error) {
  size_t n = api.model_num_inputs(model);
  inputData.assign(n, NpyArray{});
  inputs.clear();
  inputNames.clear();
  for (size_t i = 0; i < n; ++i) {
    infc_io_info info;
    api.model_input_info(model, i, &info);
    inputNames.push_back(info.name);
    NpyArray &a = inputData[i];
    if (!provide(info, a, error))
      return false;
    infc_tensor t{};
    // An empty array has no bytes but is a tensor all the same: the runtime takes NULL
    // for a missing one, so an empty input points at a byte it will not read.
    static char noBytes;
    t.data = a.data.empty() ? &noBytes : a.data.data();
    t.dtype = a.dtype;
    t.rank = (int32_t)a.shape.size();
    t.shape = a.shape.data();
    t.byte_size = a.data.size();
    inputs.push_back(t);
  }
  return true;
}

bool LoadedModel::bindFiles(const std::map<std::string, std::string> &files, bool random,
                            std::string &error,
                            const std::map<std::string, std::vector<int64_t>> &shapes) {
  for (const auto &[name, shape] : shapes) {
    size_t index;
    if (api.model_find_input(model, name.c_str(), &index) != INFC_OK) {
      error = "--input-shape names '" + name + "', which is not an input of the model";
      return false;
    }
  }
  std::map<std::string, std::string> remaining = files;
  std::mt19937 rng(0);
  auto provide = [&](const infc_io_info &info, NpyArray &a, std::string &err) {
    auto it = remaining.find(info.name);
    if (it != remaining.end()) {
      if (!readNpy(it->second, a, err))
        return false;
      remaining.erase(it);
      return true;
    }
    if (!random) {
      err = "no data for input '" + std::string(info.name) + "': pass --input " + info.name +
            "=file.npy";
      return false;
    }
    a.dtype = info.dtype;
    a.shape.assign(info.shape, info.shape + info.rank);
    if (auto given = shapes.find(info.name); given != shapes.end()) {
      bool fits = given->second.size() == a.shape.size();
      for (size_t k = 0; fits && k < a.shape.size(); ++k)
        fits = a.shape[k] < 0 || a.shape[k] == given->second[k];
      if (!fits) {
        err = "--input-shape " + std::string(info.name) + " does not fit the input's shape";
        return false;
      }
      a.shape = given->second;
    } else if (std::any_of(a.shape.begin(), a.shape.end(), [](int64_t d) { return d < 0; })) {
      err = "input '" + std::string(info.name) +
            "' has a dim that varies from run to run (--specialize or --dim): pass --input " +
            info.name + "=file.npy or --input-shape " + info.name + "=D0xD1x...";
      return false;
    }
    size_t bytes = api.dtype_size((infc_dtype)info.dtype);
    for (int64_t d : a.shape)
      bytes *= (size_t)d;
    a.data.assign(bytes, 0);
    if (info.dtype == INFC_F32) {
      std::uniform_real_distribution<float> dist(-1.f, 1.f);
      for (size_t k = 0; k < bytes / 4; ++k) {
        float f = dist(rng);
        memcpy(a.data.data() + 4 * k, &f, 4);
      }
    }
    return true;
  };
  if (!bind(provide, error))
    return false;
  if (!remaining.empty()) {
    error = "'" + remaining.begin()->first + "' is not an input of the model";
    return false;
  }

  return true;
}

bool LoadedModel::run(std::string &error) {
  // Library-owned outputs every run: a run filled them in, and a later one of other sizes
  // (generic code) would find them too small as caller-provided buffers. The session keeps
  // its buffers, so runs of one size allocate nothing.
  for (infc_tensor &t : outputs)
    t = infc_tensor{};
  if (api.run(session, inputs.data(), inputs.size(), outputs.data(), outputs.size()) != INFC_OK) {
    error = api.session_error(session);
    return false;
  }
  return true;
}

//===- RunCommands.cpp - infc run and infc bench through the C ABI --------===//
//
// Both load the model.so with infc_api_open, exactly as a product embedding it would.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Npy.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <sys/resource.h>
#include <sys/stat.h>

using namespace infc;

namespace {
struct RunOptions {
  std::string library, outputDir;
  std::map<std::string, std::string> inputs; // name -> .npy path
  int threads = 0, warmup = 10, iters = 100;
};

bool parseRunArgs(const Args &args, RunOptions &o, bool bench, std::string &error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto next = [&](std::string &out) {
      if (i + 1 >= args.size()) {
        error = a + " needs a value";
        return false;
      }
      out = args[++i];
      return true;
    };
    std::string v;
    auto number = [&](int &out, int min) {
      if (!next(v))
        return false;
      char *end;
      long n = strtol(v.c_str(), &end, 10);
      if (*end || n < min) {
        error = a + " needs an integer >= " + std::to_string(min) + ", got '" + v + "'";
        return false;
      }
      out = (int)n;
      return true;
    };
    if (a == "--input" || a == "-i") {
      if (!next(v))
        return false;
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) {
        error = "malformed --input '" + v + "' (expected NAME=file.npy)";
        return false;
      }
      o.inputs[v.substr(0, eq)] = v.substr(eq + 1);
    } else if (a == "--output-dir" && !bench) {
      if (!next(o.outputDir))
        return false;
    } else if (a == "--threads") {
      if (!number(o.threads, 0))
        return false;
    } else if (a == "--warmup" && bench) {
      if (!number(o.warmup, 0))
        return false;
    } else if (a == "--iters" && bench) {
      if (!number(o.iters, 1))
        return false;
    } else if (!a.empty() && a[0] == '-') {
      error = "unknown option '" + a + "'";
      return false;
    } else if (o.library.empty()) {
      o.library = a;
    } else {
      error = "more than one model library given";
      return false;
    }
  }
  if (o.library.empty()) {
    error = std::string("usage: infc ") + (bench ? "bench" : "run") +
            " MODEL.so [--input NAME=x.npy ...]";
    return false;
  }
  return true;
}

/// An opened model with a session and input tensors bound to data.
struct LoadedModel {
  infc_api api{};
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  std::vector<NpyArray> inputData;
  std::vector<infc_tensor> inputs, outputs;
  std::vector<std::string> outputNames;

  ~LoadedModel() {
    if (session)
      api.session_release(session);
    if (model)
      api.model_release(model);
    if (api.handle)
      infc_api_close(&api);
  }

  /// Opens the library, creates a session, binds inputs from .npy files (or, when `random`,
  /// seeded random data for inputs without a file).
  bool open(const RunOptions &o, bool random, std::string &error) {
    char buffer[512];
    if (infc_api_open(o.library.c_str(), &api, buffer, sizeof buffer) != INFC_OK) {
      error = buffer;
      return false;
    }
    if (api.model_create(&model) != INFC_OK) {
      error = o.library + ": cannot create the model";
      return false;
    }
    infc_session_options so{};
    so.struct_size = sizeof so;
    so.num_threads = o.threads;
    so.error_buffer = buffer;
    so.error_buffer_size = sizeof buffer;
    if (api.session_create(model, &so, &session) != INFC_OK) {
      error = o.library + ": " + buffer;
      return false;
    }
    size_t n = api.model_num_inputs(model);
    std::map<std::string, std::string> remaining = o.inputs;
    inputData.resize(n);
    std::mt19937 rng(0);
    for (size_t i = 0; i < n; ++i) {
      infc_io_info info;
      api.model_input_info(model, i, &info);
      auto it = remaining.find(info.name);
      NpyArray &a = inputData[i];
      if (it != remaining.end()) {
        if (!readNpy(it->second, a, error))
          return false;
        remaining.erase(it);
      } else if (random) {
        a.dtype = info.dtype;
        a.shape.assign(info.shape, info.shape + info.rank);
        a.data.assign(info.byte_size, 0);
        if (info.dtype == INFC_F32) {
          std::uniform_real_distribution<float> dist(-1.f, 1.f);
          for (size_t k = 0; k < info.byte_size / 4; ++k) {
            float f = dist(rng);
            memcpy(a.data.data() + 4 * k, &f, 4);
          }
        }
      } else {
        error = "no data for input '" + std::string(info.name) + "': pass --input " +
                info.name + "=file.npy";
        return false;
      }
      infc_tensor t{};
      t.data = a.data.data();
      t.dtype = a.dtype;
      t.rank = (int32_t)a.shape.size();
      t.shape = a.shape.data();
      t.byte_size = a.data.size();
      inputs.push_back(t);
    }
    if (!remaining.empty()) {
      error = "'" + remaining.begin()->first + "' is not an input of the model";
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

  bool run(std::string &error) {
    if (api.run(session, inputs.data(), inputs.size(), outputs.data(), outputs.size()) !=
        INFC_OK) {
      error = api.session_error(session);
      return false;
    }
    return true;
  }
};

std::string fileSafe(const std::string &name) {
  std::string out;
  for (char c : name)
    out += (isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out;
}
} // namespace

int infc::runCommand(const Args &args) {
  RunOptions o;
  std::string error;
  if (!parseRunArgs(args, o, false, error))
    return fail(error);
  LoadedModel m;
  if (!m.open(o, /*random=*/false, error) || !m.run(error))
    return fail(error);
  if (!o.outputDir.empty())
    mkdir(o.outputDir.c_str(), 0755);
  for (size_t j = 0; j < m.outputs.size(); ++j) {
    const infc_tensor &t = m.outputs[j];
    printf("%s: %s [", m.outputNames[j].c_str(), m.api.dtype_name(t.dtype));
    for (int32_t d = 0; d < t.rank; ++d)
      printf("%s%lld", d ? "x" : "", (long long)t.shape[d]);
    printf("]");
    if (t.dtype == INFC_F32) {
      const float *f = (const float *)t.data;
      size_t n = t.byte_size / 4;
      printf(" first values:");
      for (size_t k = 0; k < std::min<size_t>(n, 6); ++k)
        printf(" %.6g", f[k]);
    }
    printf("\n");
    if (!o.outputDir.empty()) {
      std::string path = o.outputDir + "/" + fileSafe(m.outputNames[j]) + ".npy";
      if (!writeNpy(path, t.dtype, t.shape, t.rank, t.data, t.byte_size, error))
        return fail(error);
    }
  }
  return 0;
}

int infc::benchCommand(const Args &args) {
  RunOptions o;
  std::string error;
  if (!parseRunArgs(args, o, true, error))
    return fail(error);
  LoadedModel m;
  if (!m.open(o, /*random=*/true, error))
    return fail(error);
  for (int i = 0; i < o.warmup; ++i)
    if (!m.run(error))
      return fail(error);
  std::vector<double> ms;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < o.iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (!m.run(error))
      return fail(error);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                     .count());
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[std::min(ms.size() - 1, (size_t)(p * ms.size()))]; };
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  printf("model: %s\nthreads: %d  warmup: %d  iters: %d\n", o.library.c_str(),
         m.api.session_num_threads(m.session), o.warmup, o.iters);
  printf("latency ms: p50 %.3f  p90 %.3f  p99 %.3f  min %.3f\n", pct(0.5), pct(0.9), pct(0.99),
         ms.front());
  printf("throughput: %.1f runs/s\n", o.iters / total);
  printf("peak RSS: %.1f MB\n", usage.ru_maxrss / 1024.0);
  return 0;
}

//===- RunCommands.cpp - infc run and infc bench through the C ABI --------===//
//
// Both load the model.so with infc_api_open, exactly as a product embedding it would.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "infc/Runner/LoadedModel.h"
#include "infc/Runner/Npy.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <sys/resource.h>
#include <sys/stat.h>
#include <thread>

using namespace infc;

namespace {
struct RunOptions {
  std::string library, outputDir;
  std::map<std::string, std::string> inputs;          // name -> .npy path
  std::map<std::string, std::vector<int64_t>> shapes; // bench: random inputs of these shapes
  int threads = 0, warmup = 10, iters = 100;
  int intervalMs = 0;  // bench: a pause before each call, as a product calls between events
  std::string profile; // chrome trace of the session's runs (INFC_PROFILE's file otherwise)
  int perNode = 0;     // bench: print the top perNode kernels of the profile
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
    } else if (a == "--input-shape" && bench) {
      if (!next(v))
        return false;
      size_t eq = v.find('=');
      std::vector<int64_t> shape;
      bool ok = eq != std::string::npos && eq > 0;
      for (size_t at = eq + 1; ok && at <= v.size();) {
        size_t x = v.find('x', at);
        std::string d = v.substr(at, x == std::string::npos ? std::string::npos : x - at);
        char *end;
        long long n = strtoll(d.c_str(), &end, 10);
        ok = !d.empty() && !*end && n >= 0;
        shape.push_back(n);
        at = x == std::string::npos ? v.size() + 1 : x + 1;
      }
      if (!ok) {
        error = "malformed --input-shape '" + v + "' (expected NAME=D0xD1x...)";
        return false;
      }
      o.shapes[v.substr(0, eq)] = shape;
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
    } else if (a == "--interval-ms" && bench) {
      if (!number(o.intervalMs, 0))
        return false;
    } else if (a == "--profile") {
      if (!next(o.profile))
        return false;
    } else if (a == "--per-node" && bench) {
      o.perNode = 25;
    } else if (a.rfind("--per-node=", 0) == 0 && bench) {
      char *end;
      long n = strtol(a.c_str() + 11, &end, 10);
      if (*end || n < 1) {
        error = "--per-node=N needs an integer >= 1, got '" + a.substr(11) + "'";
        return false;
      }
      o.perNode = (int)n;
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
  // Line by line even into a pipe: what a model prints before it aborts (the message of a
  // bounds check of --emulator-checks, through puts) would die in the buffer otherwise.
  setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  LoadedModel m;
  if (!m.open(o.library, o.threads, error, o.profile) ||
      !m.bindFiles(o.inputs, /*random=*/false, error) || !m.run(error) ||
      (!o.profile.empty() && !m.endProfiling(error)))
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
  // --per-node without --profile: a trace of its own, removed afterwards.
  std::string profile = o.profile;
  llvm::SmallString<128> scratch;
  if (o.perNode && profile.empty()) {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile("infc-profile", "json", scratch))
      return fail("cannot create a temporary file: " + ec.message());
    profile = scratch.str().str();
  }
  struct RemoveScratch {
    llvm::SmallString<128> &path;
    ~RemoveScratch() {
      if (!path.empty())
        llvm::sys::fs::remove(path);
    }
  } removeScratch{scratch};
  LoadedModel m;
  if (!m.open(o.library, o.threads, error, profile) ||
      !m.bindFiles(o.inputs, /*random=*/true, error, o.shapes))
    return fail(error);
  for (int i = 0; i < o.warmup; ++i)
    if (!m.run(error))
      return fail(error);
  std::vector<double> ms;
  auto start = std::chrono::steady_clock::now();
  double paused = 0;
  for (int i = 0; i < o.iters; ++i) {
    if (o.intervalMs) {
      // The pause is not the model's time: only the call is timed.
      auto p0 = std::chrono::steady_clock::now();
      std::this_thread::sleep_for(std::chrono::milliseconds(o.intervalMs));
      paused += std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
    }
    auto t0 = std::chrono::steady_clock::now();
    if (!m.run(error))
      return fail(error);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[std::min(ms.size() - 1, (size_t)(p * ms.size()))]; };
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  printf("model: %s\nthreads: %d  warmup: %d  iters: %d", o.library.c_str(),
         m.api.session_num_threads(m.session), o.warmup, o.iters);
  if (o.intervalMs)
    printf("  interval: %d ms before each call", o.intervalMs);
  // Microseconds or better below a millisecond: four significant digits for small models.
  auto show = [](double v) { return v < 1 ? printf("%.5f", v) : printf("%.3f", v); };
  printf("\nlatency ms: p50 ");
  show(pct(0.5));
  printf("  p90 ");
  show(pct(0.9));
  printf("  p95 ");
  show(pct(0.95));
  printf("  p99 ");
  show(pct(0.99));
  printf("  min ");
  show(ms.front());
  printf("\n");
  printf("throughput: %.1f runs/s%s\n", o.iters / (total - paused),
         o.intervalMs ? " (pauses excluded)" : "");
  printf("peak RSS: %.1f MB\n", usage.ru_maxrss / 1024.0);
  if (!profile.empty()) {
    if (!m.endProfiling(error))
      return fail(error);
    printf("profiled: every run (per kernel with a library compiled with --profile)%s%s\n",
           o.profile.empty() ? "" : "; trace in ", o.profile.c_str());
    fflush(stdout);
    if (o.perNode && !printPerNode(profile, o.warmup, (size_t)o.perNode, error))
      return fail(error);
  }
  return 0;
}

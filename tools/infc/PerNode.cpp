//===- PerNode.cpp - infc bench --per-node: the top kernels of a trace ----===//
//
// Reads the chrome trace a profiled session wrote (runtime/profile.c) and ranks its kernels
// by their time on the calling thread, which is the run's critical path: a kernel's
// workers run inside its span.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace infc;

bool infc::printPerNode(const std::string &tracePath, int64_t firstRun, size_t top,
                        std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(tracePath);
  if (!buffer) {
    error = "cannot read the trace '" + tracePath + "': " + buffer.getError().message();
    return false;
  }
  llvm::Expected<llvm::json::Value> trace = llvm::json::parse((*buffer)->getBuffer());
  if (!trace) {
    error = "the trace '" + tracePath + "' is not JSON: " + llvm::toString(trace.takeError());
    return false;
  }
  const llvm::json::Object *root = trace->getAsObject();
  const llvm::json::Array *events = root ? root->getArray("traceEvents") : nullptr;
  if (!events) {
    error = "the trace '" + tracePath + "' has no traceEvents";
    return false;
  }
  struct Kernel {
    double us = 0;
    int64_t calls = 0;
  };
  std::map<std::string, Kernel> kernels;
  double runUs = 0;
  int64_t runs = 0;
  bool perKernel = false;
  for (const llvm::json::Value &value : *events) {
    const llvm::json::Object *e = value.getAsObject();
    if (!e || e->getString("ph") != "X" || e->getInteger("tid") != 0)
      continue;
    const llvm::json::Object *args = e->getObject("args");
    std::optional<int64_t> run = args ? args->getInteger("run") : std::nullopt;
    if (!run || *run < firstRun)
      continue;
    double dur = e->getNumber("dur").value_or(0);
    std::optional<llvm::StringRef> cat = e->getString("cat"), name = e->getString("name");
    if (cat == "run") {
      runUs += dur;
      ++runs;
    } else if (cat == "kernel" && name) {
      Kernel &k = kernels[name->str()];
      k.us += dur;
      ++k.calls;
      perKernel = true;
    }
  }
  if (!runs) {
    error = "the trace '" + tracePath + "' holds no timed run";
    return false;
  }
  llvm::raw_ostream &os = llvm::outs();
  if (!perKernel) {
    error = "per node: the library times whole runs only: compile it with `infc compile "
            "--profile` (CPU) for a time per kernel";
    return false;
  }
  std::vector<std::pair<std::string, Kernel>> ranked(kernels.begin(), kernels.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) {
    return a.second.us != b.second.us ? a.second.us > b.second.us : a.first < b.first;
  });
  double kernelUs = 0;
  for (auto &[name, k] : ranked)
    kernelUs += k.us;
  os << llvm::format("per node, %lld profiled runs: %zu kernels, %.1f%% of the run in them "
                     "(the rest: views, calls and the clock between kernels)\n",
                     (long long)runs, ranked.size(), 100 * kernelUs / runUs);
  os << "  ms/run      share   calls/run  kernel (ONNX nodes)\n";
  for (size_t i = 0; i < ranked.size() && i < top; ++i) {
    auto &[name, k] = ranked[i];
    std::string shown = name.size() > 100 ? name.substr(0, 97) + "..." : name;
    os << llvm::format("  %-10.5f %6.2f%%  %9.2f  ", k.us / runs / 1e3, 100 * k.us / runUs,
                       (double)k.calls / runs)
       << shown << "\n";
  }
  if (ranked.size() > top) {
    double restUs = 0;
    for (size_t i = top; i < ranked.size(); ++i)
      restUs += ranked[i].second.us;
    os << llvm::format("  %-10.5f %6.2f%%  %9s  (%zu more kernels)\n", restUs / runs / 1e3,
                       100 * restUs / runUs, "", ranked.size() - top);
  }
  return true;
}

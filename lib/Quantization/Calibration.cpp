//===- Calibration.cpp - calibration for --quantize int8, and --report ----===//
//
// Calibration runs the float model through infc itself: a copy of the module returns, as
// extra outputs, the activation of every convolution and matmul with constant weights; it
// is built into a temporary model.so and run on each sample of the calibration directory
// through the C ABI. The ranges then go onto the ops of the real module as
// `infc.input_range`, and infc-quantize-int8 writes the Q/DQ form that infc-fold-qdq turns
// into integer kernels, the same path a model quantized by ORT takes.
//
//===----------------------------------------------------------------------===//
#include "infc/Quantization/Calibration.h"
#include "infc/Runner/LoadedModel.h"

#include "infc/Dialect/Infc/IR/InfcOps.h"
#include "infc/Dialect/Infc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace infc;

namespace {
constexpr const char *kQuantId = "infc.quant_id";
constexpr int kBins = 2048;

std::string locationName(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().str();
  return "";
}

/// "name(OpType)" -> (name, OpType).
std::pair<std::string, std::string> splitNodeName(llvm::StringRef loc) {
  size_t open = loc.rfind('(');
  if (open == llvm::StringRef::npos || !loc.ends_with(")"))
    return {loc.str(), ""};
  return {loc.take_front(open).str(), loc.slice(open + 1, loc.size() - 1).str()};
}

/// The convolutions and matmuls of `func` whose activation (operand 0) is f32 and whose
/// weights (operand 1) are constant f32: what int8 can take.
SmallVector<Operation *> quantizable(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (!isa<ConvOp, MatMulOp>(op))
      return;
    auto x = cast<RankedTensorType>(op->getOperand(0).getType());
    auto w = cast<RankedTensorType>(op->getOperand(1).getType());
    if (x.getElementType().isF32() && w.getElementType().isF32() &&
        matchPattern(op->getOperand(1), m_Constant()) && (isa<ConvOp>(op) || w.getRank() == 2))
      ops.push_back(op);
  });
  return ops;
}

/// One calibration sample: input name -> .npy path.
using Sample = std::map<std::string, std::string>;

/// DIR/<sample>/<input>.npy, one subdirectory per sample (in name order); or DIR/<input>.npy
/// for a single sample.
bool listSamples(const std::string &dir, std::vector<Sample> &samples, std::string &error) {
  if (!llvm::sys::fs::is_directory(dir)) {
    error = "--calibration " + dir + ": not a directory";
    return false;
  }
  std::vector<std::string> subdirs;
  Sample flat;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    std::string path = it->path();
    if (llvm::sys::fs::is_directory(path))
      subdirs.push_back(path);
    else if (llvm::StringRef(path).ends_with(".npy"))
      flat[llvm::sys::path::stem(path).str()] = path;
  }
  std::sort(subdirs.begin(), subdirs.end());
  for (const std::string &sub : subdirs) {
    Sample s;
    for (llvm::sys::fs::directory_iterator it(sub, ec), end; it != end && !ec; it.increment(ec))
      if (llvm::StringRef(it->path()).ends_with(".npy"))
        s[llvm::sys::path::stem(it->path()).str()] = it->path();
    if (!s.empty())
      samples.push_back(std::move(s));
  }
  if (samples.empty() && !flat.empty())
    samples.push_back(std::move(flat));
  if (samples.empty()) {
    error = "--calibration " + dir + ": no samples (expected DIR/<sample>/<input>.npy)";
    return false;
  }
  return true;
}

/// The per-activation statistics over all samples.
struct Stats {
  double lo = INFINITY, hi = -INFINITY, sumSquares = 0;
  int64_t count = 0;
  std::vector<int64_t> histogram; // kBins over [lo, hi], pass 2
};

int binOf(const Stats &s, float v) {
  double width = (s.hi - s.lo) / kBins;
  int b = width > 0 ? (int)((v - s.lo) / width) : 0;
  return std::clamp(b, 0, kBins - 1);
}

/// The range holding the central `percentile` % of the histogram's values.
std::pair<double, double> percentileRange(const Stats &s, double percentile) {
  double tail = s.count * (100.0 - percentile) / 200.0, width = (s.hi - s.lo) / kBins;
  int64_t seen = 0;
  int first = 0, last = kBins - 1;
  for (; first < kBins - 1 && seen + s.histogram[first] <= tail; ++first)
    seen += s.histogram[first];
  seen = 0;
  for (; last > first && seen + s.histogram[last] <= tail; --last)
    seen += s.histogram[last];
  return {s.lo + first * width, s.lo + (last + 1) * width};
}

/// Relative RMS error of quantizing the histogram's values to uint8 over [lo, hi] (widened
/// to hold 0): rounding (step^2 / 12 for the values inside) plus clipping.
double activationError(const Stats &s, double lo, double hi) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  double step = (hi - lo) / 255.0, power = 0, width = (s.hi - s.lo) / kBins;
  if (s.histogram.empty()) {
    power = step * step / 12.0 * s.count;
  } else {
    for (int b = 0; b < kBins; ++b) {
      double centre = s.lo + (b + 0.5) * width;
      double clip = centre < lo ? lo - centre : centre > hi ? centre - hi : 0;
      power += s.histogram[b] * (clip > 0 ? clip * clip : step * step / 12.0);
    }
  }
  double rms = std::sqrt(s.sumSquares / std::max<int64_t>(s.count, 1));
  return rms > 0 ? std::sqrt(power / s.count) / rms : 0;
}
} // namespace

bool infc::calibrateAndQuantize(ModuleOp module, const QuantizeOptions &options,
                                const LibraryBuilder &build,
                                std::map<std::string, LayerQuantization> &layers,
                                std::string &error, std::vector<CalibratedOp> *calibrated) {
  if (options.method != "minmax" && options.method != "percentile") {
    error = "unknown --calibration-method " + options.method + " (minmax or percentile)";
    return false;
  }
  auto func = module.lookupSymbol<func::FuncOp>("main");
  if (!func) {
    error = "the module has no main function";
    return false;
  }
  std::vector<Sample> samples;
  if (!listSamples(options.calibrationDir, samples, error))
    return false;

  // The candidates, numbered; those the user keeps in float are recorded and left alone.
  SmallVector<Operation *> all = quantizable(func), candidates;
  DenseMap<Operation *, std::pair<double, double>> ranges;
  // (Every product in walk order with its range, once the quantization has decided.)
  auto record = [&] {
    if (!calibrated)
      return;
    calibrated->clear();
    for (Operation *op : all) {
      CalibratedOp entry{locationName(op), std::nullopt};
      if (op->hasAttr("infc.weight_error") && ranges.count(op))
        entry.range = ranges.lookup(op);
      calibrated->push_back(entry);
    }
  };
  for (Operation *op : all) {
    std::string loc = locationName(op);
    auto [node, opType] = splitNodeName(loc);
    if (auto conv = dyn_cast<ConvOp>(op); conv && conv.getGroup() != 1) {
      // infc-fold-qdq leaves these in float: the float depthwise kernel is the fast one.
      layers[loc].why = "kept in float (grouped convolution)";
      continue;
    }
    if (llvm::is_contained(options.keepFloat, node) ||
        llvm::is_contained(options.keepFloat, opType)) {
      layers[loc].why = "kept in float (--keep-float)";
      continue;
    }
    op->setAttr(kQuantId,
                IntegerAttr::get(IntegerType::get(module.getContext(), 64), candidates.size()));
    candidates.push_back(op);
  }
  if (candidates.empty()) {
    record();
    return true;
  }

  // The calibration copy returns every candidate's activation after the model's outputs,
  // each value once (Q, K and V read one LayerNorm; a value returned twice is refused where
  // its buffer is not static) and none that is a model output already: candidate i's
  // activation is output `slots[i]`.
  OwningOpRef<ModuleOp> copy = module.clone();
  auto copyFunc = copy->lookupSymbol<func::FuncOp>("main");
  auto ret = cast<func::ReturnOp>(copyFunc.getBody().back().getTerminator());
  unsigned modelOutputs = ret.getNumOperands();
  SmallVector<Value> activations(candidates.size());
  copyFunc.walk([&](Operation *op) {
    if (auto id = op->getAttrOfType<IntegerAttr>(kQuantId))
      activations[id.getInt()] = op->getOperand(0);
  });
  llvm::DenseMap<Value, unsigned> slotOfValue;
  for (auto [i, v] : llvm::enumerate(ret.getOperands()))
    slotOfValue.try_emplace(v, i);
  SmallVector<Value> extra;
  std::vector<unsigned> slots;
  for (Value v : activations) {
    auto [it, fresh] = slotOfValue.try_emplace(v, modelOutputs + extra.size());
    if (fresh)
      extra.push_back(v);
    slots.push_back(it->second);
  }
  ret->insertOperands(modelOutputs, extra);
  copyFunc.setType(
      FunctionType::get(module.getContext(), copyFunc.getArgumentTypes(), ret.getOperandTypes()));
  for (size_t i = 0; i < extra.size(); ++i)
    copyFunc.setResultAttr(
        modelOutputs + i, "infc.name",
        StringAttr::get(module.getContext(), "__infc_calibration_" + std::to_string(i)));

  llvm::SmallString<128> tmp;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("infc-calibration", tmp)) {
    error = "cannot create a temporary directory: " + ec.message();
    return false;
  }
  struct Cleanup {
    llvm::SmallString<128> dir;
    ~Cleanup() { llvm::sys::fs::remove_directories(dir); }
  } cleanup{tmp};
  std::string library = (tmp + "/calibration.so").str();
  if (!build(*copy, library, error))
    return false;

  LoadedModel model;
  if (!model.open(library, options.threads, error, "", /*envProfile=*/false))
    return false;
  std::vector<Stats> stats(candidates.size());
  // One run's activations into the statistics (the ranges first, then the histograms).
  auto accumulate = [&](bool histogram) {
    for (size_t i = 0; i < stats.size(); ++i) {
      const infc_tensor &t = model.outputs[slots[i]];
      const float *v = (const float *)t.data;
      size_t n = t.byte_size / sizeof(float);
      Stats &s = stats[i];
      if (histogram) {
        for (size_t e = 0; e < n; ++e)
          ++s.histogram[binOf(s, v[e])];
        continue;
      }
      for (size_t e = 0; e < n; ++e) {
        s.lo = std::min<double>(s.lo, v[e]);
        s.hi = std::max<double>(s.hi, v[e]);
        s.sumSquares += (double)v[e] * v[e];
      }
      s.count += n;
    }
  };
  auto runSamples = [&](bool histogram) {
    for (size_t k = 0; k < samples.size(); ++k) {
      // The sample's arrays; with the batch loop, its rows one at a time (every input that
      // carries the batch of the same rows).
      std::map<std::string, NpyArray> arrays; // (read when first needed)
      auto read = [&](const std::string &name, const NpyArray *&array, std::string &err) {
        array = nullptr;
        auto file = samples[k].find(name);
        if (file == samples[k].end())
          return true;
        auto [it, fresh] = arrays.try_emplace(name);
        if (fresh && !readNpy(file->second, it->second, err))
          return false;
        array = &it->second;
        return true;
      };
      int64_t rows = -1;
      for (const std::string &name : options.rowInputs) {
        const NpyArray *array;
        if (!read(name, array, error))
          return false;
        if (!array)
          continue; // (reported below)
        int64_t n = array->shape.empty() ? -1 : array->shape[0];
        if (n < 1 || (rows >= 0 && n != rows)) {
          error = "calibration sample " + std::to_string(k) + ": " + name +
                  ".npy must have the batch of the others, at least 1, as its dim 0";
          return false;
        }
        rows = n;
      }
      for (int64_t row = 0; row < std::max<int64_t>(rows, 1); ++row) {
        auto provide = [&](const infc_io_info &info, NpyArray &a, std::string &err) {
          const NpyArray *array;
          if (!read(info.name, array, err))
            return false;
          if (!array) {
            err = "calibration sample " + std::to_string(k) + " has no " + info.name + ".npy";
            return false;
          }
          if (rows > 0 && llvm::is_contained(options.rowInputs, info.name)) {
            // (The row's bytes only: copying the sample first would be quadratic in rows.)
            size_t bytes = array->data.size() / (size_t)rows;
            a.dtype = array->dtype;
            a.shape = array->shape;
            a.shape[0] = 1;
            a.data.assign(array->data.begin() + (ptrdiff_t)(bytes * row),
                          array->data.begin() + (ptrdiff_t)(bytes * (row + 1)));
          } else {
            a = *array;
          }
          return true;
        };
        std::string runError;
        if (!model.bind(provide, error))
          return false;
        if (!model.run(runError)) {
          error = "calibration sample " + std::to_string(k) + ": " + runError;
          return false;
        }
        accumulate(histogram);
      }
    }
    return true;
  };
  if (!runSamples(false))
    return false;
  for (Stats &s : stats)
    s.histogram.assign(kBins, 0);
  if (!runSamples(true))
    return false;

  for (Operation *op : candidates) {
    const Stats &s = stats[op->getAttrOfType<IntegerAttr>(kQuantId).getInt()];
    op->removeAttr(kQuantId);
    auto [lo, hi] = options.method == "percentile" ? percentileRange(s, options.percentile)
                                                   : std::make_pair(s.lo, s.hi);
    LayerQuantization &layer = layers[locationName(op)];
    layer.lo = lo;
    layer.hi = hi;
    layer.activationError = activationError(s, lo, hi);
    ranges[op] = {lo, hi};
    op->setAttr("infc.input_range", DenseF64ArrayAttr::get(module.getContext(), {lo, hi}));
  }
  PassManager pm(module.getContext());
  pm.addNestedPass<func::FuncOp>(createInfcQuantizeInt8());
  if (failed(pm.run(module))) {
    error = "quantization failed (see above)";
    return false;
  }
  for (Operation *op : candidates) {
    LayerQuantization &layer = layers[locationName(op)];
    if (auto w = op->getAttrOfType<FloatAttr>("infc.weight_error")) {
      layer.quantized = true;
      layer.weightError = w.getValueAsDouble();
    } else {
      layer.why = "kept in float (empty or non-finite calibrated range)";
    }
  }
  record();
  return true;
}

bool infc::quantizeWithRanges(ModuleOp module, const std::vector<CalibratedOp> &calibrated,
                              std::string &error) {
  auto func = module.lookupSymbol<func::FuncOp>("main");
  if (!func) {
    error = "the module has no main function";
    return false;
  }
  SmallVector<Operation *> ops = quantizable(func);
  for (size_t i = 0; i < std::max(ops.size(), calibrated.size()); ++i) {
    std::string here = i < ops.size() ? locationName(ops[i]) : "(none)";
    std::string there = i < calibrated.size() ? calibrated[i].location : "(none)";
    if (here != there) {
      error = "its convolutions and matmuls differ from the calibrated code's: " + here +
              " where that has " + there;
      return false;
    }
    if (auto range = calibrated[i].range)
      ops[i]->setAttr("infc.input_range",
                      DenseF64ArrayAttr::get(module.getContext(), {range->first, range->second}));
  }
  PassManager pm(module.getContext());
  pm.addNestedPass<func::FuncOp>(createInfcQuantizeInt8());
  if (failed(pm.run(module))) {
    error = "quantization failed (see above)";
    return false;
  }
  return true;
}

void infc::printQuantizationReport(ModuleOp module,
                                   const std::map<std::string, LayerQuantization> &layers,
                                   llvm::raw_ostream &os) {
  int integer = 0, total = 0;
  os << llvm::format("%-48s %-10s %-6s %-22s %9s %9s %9s\n", "node", "op", "runs", "range",
                     "act err", "wt err", "expected");
  module.walk([&](Operation *op) {
    if (!isa<ConvOp, MatMulOp>(op))
      return;
    ++total;
    std::string loc = locationName(op);
    auto [node, opType] = splitNodeName(loc);
    bool isInteger =
        cast<RankedTensorType>(op->getResult(0).getType()).getElementType().isInteger(32);
    integer += isInteger;
    auto it = layers.find(loc);
    std::string range;
    std::string errors = llvm::formatv("{0,9} {1,9} {2,9}", "-", "-", "-").str();
    if (it != layers.end() && it->second.quantized) {
      const LayerQuantization &l = it->second;
      range = llvm::formatv("[{0:f2}, {1:f2}]", l.lo, l.hi).str();
      double expected =
          std::sqrt(l.activationError * l.activationError + l.weightError * l.weightError);
      errors = llvm::formatv("{0,8:f2}% {1,8:f2}% {2,8:f2}%", 100 * l.activationError,
                             100 * l.weightError, 100 * expected)
                   .str();
    } else if (it != layers.end() && !it->second.why.empty()) {
      range = it->second.why;
    }
    // Long node names keep their end, where exporters put what tells layers apart.
    if (node.size() > 48)
      node = ".." + node.substr(node.size() - 46);
    os << llvm::format("%-48s %-10s %-6s %-22s ", node.c_str(), opType.substr(0, 10).c_str(),
                       isInteger ? "int8" : "float", range.c_str())
       << errors << "\n";
  });
  os << integer << " of " << total
     << " convolutions and matmuls run on int8 (act err: relative RMS error of the "
        "activation's quantization on the calibration samples; wt err: of the weights; "
        "expected: both, of the product)\n";
}

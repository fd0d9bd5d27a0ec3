//===- Library.cpp - a lowered module linked into model.so ---------------===//
#include "infc/Target/Target.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

namespace {
/// The objects' private temporary directory, removed on every path out.
struct ScratchDir {
  llvm::SmallString<128> dir;
  ~ScratchDir() {
    if (!dir.empty())
      llvm::sys::fs::remove_directories(dir);
  }
  bool create(std::string &error) {
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("infc", dir)) {
      error = "cannot create a temporary directory: " + ec.message();
      dir.clear();
      return false;
    }
    return true;
  }
  std::string path(const llvm::Twine &name) const {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return p.str().str();
  }
};
} // namespace

/// Why variant `i` cannot share a library with the earlier ones, or "": the runtime reads
/// every variant's shapes with the model's ranks, so the interfaces must agree but for the
/// dims' values (a Squeeze of all size-1 dims can change a rank), and two variants of the
/// same input shapes would leave the second unreachable.
static std::string variantMismatch(const std::vector<infc::ModelVariant> &variants, size_t i) {
  const infc::ModelInterface &first = variants[0].interface, &v = variants[i].interface;
  std::string label = "--specialize variant " + variants[i].label;
  auto compare = [&](const std::vector<infc::ModelValue> &a, const std::vector<infc::ModelValue> &b,
                     const char *kind) -> std::string {
    if (a.size() != b.size())
      return label + " has " + std::to_string(b.size()) + " " + kind + "s, variant " +
             variants[0].label + " " + std::to_string(a.size());
    for (size_t k = 0; k < a.size(); ++k)
      if (a[k].name != b[k].name || a[k].dtype != b[k].dtype ||
          a[k].shape.size() != b[k].shape.size() || a[k].value != b[k].value)
        return label + ": " + kind + " '" + b[k].name + "' has another name, dtype or rank (" +
               std::to_string(b[k].shape.size()) + " against " + std::to_string(a[k].shape.size()) +
               " in variant " + variants[0].label +
               "): the variants of one library must share their interface";
    return "";
  };
  if (std::string why = compare(first.inputs, v.inputs, "input"); !why.empty())
    return why;
  if (std::string why = compare(first.outputs, v.outputs, "output"); !why.empty())
    return why;
  if (first.weightsArg != v.weightsArg || first.cuda != v.cuda)
    return label + " lowers to another kind of code than variant " + variants[0].label;
  for (size_t e = 0; e < i; ++e) {
    bool same = true;
    for (size_t k = 0; same && k < v.inputs.size(); ++k)
      same = variants[e].interface.inputs[k].shape == v.inputs[k].shape;
    if (same)
      return label + " has the input shapes of variant " + variants[e].label +
             " (does --input-shape fix the dim?)";
  }
  return "";
}

/// prepareForEmission, the weights' symbols prefixed with `weightPrefix`.
static std::vector<infc::WeightBlob> prepare(ModuleOp module, infc::ModelInterface &interface,
                                             StringRef weightPrefix) {
  if (auto ws = module->getAttrOfType<IntegerAttr>("infc.workspace_bytes"))
    interface.workspaceBytes = ws.getInt();
  if (auto poly = module->getAttrOfType<DenseI64ArrayAttr>("infc.workspace_polynomial")) {
    interface.workspacePolynomial.assign(poly.asArrayRef().begin(), poly.asArrayRef().end());
    if (auto dim = module->getAttrOfType<IntegerAttr>("infc.workspace_dim"))
      interface.workspaceDim = dim.getInt();
  }
  if (auto wb = module->getAttrOfType<IntegerAttr>("infc.weights_bytes")) {
    interface.weightsArg = true;
    interface.weightsBytes = wb.getInt();
  }
  interface.cuda = module->hasAttr("gpu.container_module"); // the kernels were outlined
  if (auto kernels = module->getAttrOfType<ArrayAttr>("infc.profile_kernels")) {
    interface.profiledEntry = true;
    interface.profileKernels.clear();
    for (auto name : kernels.getAsValueRange<StringAttr>())
      interface.profileKernels.push_back(name.str());
    module->removeAttr("infc.profile_kernels");
  }
  std::vector<infc::WeightBlob> weights;
  infc::extractWeights(module, weights, weightPrefix);
  return weights;
}

std::vector<infc::WeightBlob> infc::prepareForEmission(ModuleOp module, ModelInterface &interface) {
  return prepare(module, interface, "");
}

LogicalResult infc::buildModelLibrary(ModuleOp module, ModelInterface &interface,
                                      const TargetOptions &target, StringRef runtimeDir,
                                      StringRef output, int64_t &weightBytes, std::string &error) {
  std::vector<WeightBlob> weights = prepareForEmission(module, interface);
  weightBytes = 0;
  for (const WeightBlob &w : weights)
    weightBytes += w.bytes.size();
  ScratchDir tmp;
  if (!tmp.create(error))
    return failure();
  std::string modelObj = tmp.path("model.o"), weightsObj = tmp.path("weights.o");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(modelObj, ec);
    if (ec || failed(emitModel(module, interface, target, OutputKind::Object, os, error))) {
      if (ec)
        error = ec.message();
      return failure();
    }
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(weightsObj, ec);
    if (ec || failed(emitWeightsObject(weights, target, os, error))) {
      if (ec)
        error = ec.message();
      return failure();
    }
  }
  return linkModel({modelObj, weightsObj}, runtimeDir, output, error, target);
}

LogicalResult infc::buildVariantLibrary(size_t count, const VariantLowering &lower,
                                        const TargetOptions &target, StringRef runtimeDir,
                                        StringRef output, int64_t &weightBytes, std::string &error,
                                        const InterfaceFinish &finish) {
  ScratchDir tmp;
  if (!tmp.create(error))
    return failure();
  auto objectPath = [&](const llvm::Twine &name) { return tmp.path(name); };
  auto writeObject = [&](const std::string &path, auto emit) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      error = "cannot write '" + path + "': " + ec.message();
      return false;
    }
    return succeeded(emit(os));
  };
  std::vector<std::string> objects;
  std::vector<ModelVariant> variants(count);
  // The weights, each distinct blob's bytes once: a blob an earlier variant holds too is
  // kept as an alias as soon as it comes (16 variants of a 440 MB model stay 440 MB).
  std::vector<WeightBlob> weights;
  llvm::DenseMap<uint64_t, llvm::SmallVector<size_t, 1>> byContent;
  weightBytes = 0;
  // One variant at a time: its lowered module is freed before the next is built.
  for (size_t i = 0; i < count; ++i) {
    OwningOpRef<ModuleOp> module;
    if (failed(lower(i, module, variants[i], error)))
      return failure();
    if (std::string why = variantMismatch(variants, i); !why.empty()) {
      error = why;
      return failure();
    }
    std::string prefix = "__infc_v" + std::to_string(i) + "_";
    for (WeightBlob &w : prepare(*module, variants[i].interface, prefix)) {
      auto &candidates = byContent[llvm::xxh3_64bits(
          llvm::ArrayRef<uint8_t>((const uint8_t *)w.bytes.data(), w.bytes.size()))];
      auto same = llvm::find_if(candidates, [&](size_t k) { return weights[k].bytes == w.bytes; });
      if (same != candidates.end()) {
        weights.push_back({w.symbol, {}, weights[*same].symbol});
        continue;
      }
      candidates.push_back(weights.size());
      weightBytes += w.bytes.size();
      weights.push_back(std::move(w));
    }
    objects.push_back(objectPath("model" + llvm::Twine(i) + ".o"));
    if (!writeObject(objects.back(), [&](llvm::raw_fd_ostream &os) {
          return emitModel(*module, variants[i].interface, target, OutputKind::Object, os, error,
                           (unsigned)i);
        }))
      return failure();
  }
  objects.push_back(objectPath("weights.o"));
  if (!writeObject(objects.back(), [&](llvm::raw_fd_ostream &os) {
        return emitWeightsObject(weights, target, os, error);
      }))
    return failure();
  objects.push_back(objectPath("descriptor.o"));
  if (!writeObject(objects.back(), [&](llvm::raw_fd_ostream &os) {
        return emitVariantDescriptor(variants, target, os, error, finish);
      }))
    return failure();
  return linkModel(objects, runtimeDir, output, error, target);
}

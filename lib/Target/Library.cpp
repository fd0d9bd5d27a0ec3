//===- Library.cpp - a lowered module linked into model.so ---------------===//
#include "infc/Target/Target.h"

#include "llvm/ADT/DenseSet.h"
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

/// prepareForEmission, the weights' symbols prefixed with `weightPrefix`.
static std::vector<infc::WeightBlob> prepare(ModuleOp module, infc::ModelInterface &interface,
                                             StringRef weightPrefix) {
  if (auto ws = module->getAttrOfType<IntegerAttr>("infc.workspace_bytes"))
    interface.workspaceBytes = ws.getInt();
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
                                        StringRef output, int64_t &weightBytes,
                                        std::string &error) {
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
  std::vector<WeightBlob> weights;
  // One variant at a time: its lowered module is freed before the next is built.
  for (size_t i = 0; i < count; ++i) {
    OwningOpRef<ModuleOp> module;
    if (failed(lower(i, module, variants[i], error)))
      return failure();
    std::string prefix = "__infc_v" + std::to_string(i) + "_";
    std::vector<WeightBlob> own = prepare(*module, variants[i].interface, prefix);
    std::move(own.begin(), own.end(), std::back_inserter(weights));
    objects.push_back(objectPath("model" + llvm::Twine(i) + ".o"));
    if (!writeObject(objects.back(), [&](llvm::raw_fd_ostream &os) {
          return emitModel(*module, variants[i].interface, target, OutputKind::Object, os, error,
                           (unsigned)i);
        }))
      return failure();
  }
  weightBytes = 0;
  llvm::DenseSet<uint64_t> seen; // what the weights object holds once (it deduplicates)
  for (const WeightBlob &w : weights)
    if (seen.insert(llvm::xxh3_64bits(
                        llvm::ArrayRef<uint8_t>((const uint8_t *)w.bytes.data(), w.bytes.size())))
            .second)
      weightBytes += w.bytes.size();
  objects.push_back(objectPath("weights.o"));
  if (!writeObject(objects.back(), [&](llvm::raw_fd_ostream &os) {
        return emitWeightsObject(weights, target, os, error);
      }))
    return failure();
  objects.push_back(objectPath("descriptor.o"));
  if (!writeObject(objects.back(), [&](llvm::raw_fd_ostream &os) {
        return emitVariantDescriptor(variants, target, os, error);
      }))
    return failure();
  return linkModel(objects, runtimeDir, output, error, target);
}

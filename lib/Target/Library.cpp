//===- Library.cpp - a lowered module linked into model.so ---------------===//
#include "infc/Target/Target.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;

std::vector<infc::WeightBlob> infc::prepareForEmission(ModuleOp module, ModelInterface &interface) {
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
  std::vector<WeightBlob> weights;
  extractWeights(module, weights);
  return weights;
}

LogicalResult infc::buildModelLibrary(ModuleOp module, ModelInterface &interface,
                                      const TargetOptions &target, StringRef runtimeDir,
                                      StringRef output, int64_t &weightBytes, std::string &error) {
  std::vector<WeightBlob> weights = prepareForEmission(module, interface);
  weightBytes = 0;
  for (const WeightBlob &w : weights)
    weightBytes += w.bytes.size();
  // The objects go to a private temporary directory, removed on every path out.
  llvm::SmallString<128> tmp;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("infc", tmp)) {
    error = "cannot create a temporary directory: " + ec.message();
    return failure();
  }
  struct Cleanup {
    llvm::SmallString<128> dir;
    ~Cleanup() { llvm::sys::fs::remove_directories(dir); }
  } cleanup{tmp};
  auto objectPath = [&](const char *name) {
    llvm::SmallString<128> p(tmp);
    llvm::sys::path::append(p, name);
    return p.str().str();
  };
  std::string modelObj = objectPath("model.o"), weightsObj = objectPath("weights.o");
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
  return linkModel({modelObj, weightsObj}, runtimeDir, output, error);
}

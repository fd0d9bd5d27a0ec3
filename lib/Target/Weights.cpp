//===- Weights.cpp - constants out of the IR, into their own object -------===//
//
// Weights never go through LLVM IR as initializers: each large constant global becomes an
// external declaration, and its bytes go straight into an object's read-only section.
//
//===----------------------------------------------------------------------===//
#include "TargetMachine.h"
#include "infc/Support/DenseBytes.h"
#include "infc/Target/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"

using namespace mlir;

void infc::extractWeights(ModuleOp module, std::vector<WeightBlob> &weights, int64_t minBytes) {
  module.walk([&](LLVM::GlobalOp global) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(global.getValueOrNull());
    if (!dense || !global.getConstant())
      return;
    auto type = cast<ShapedType>(dense.getType());
    if (!type.getElementType().isIntOrFloat() ||
        type.getNumElements() * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8) < minBytes)
      return;
    std::optional<std::vector<char>> bytes = denseBytes(dense);
    if (!bytes)
      return;
    // The symbol stays module-unique and hidden, so models never clash with each other.
    weights.push_back({global.getSymName().str(), std::move(*bytes)});
    global.setValueAttr(nullptr);
    global.setLinkage(LLVM::Linkage::External);
    global.setDsoLocal(true);
    global.setVisibility_(LLVM::Visibility::Hidden);
    global.setAlignment(64);
  });
}

LogicalResult infc::emitWeightsObject(const std::vector<WeightBlob> &weights,
                                      const TargetOptions &options, llvm::raw_pwrite_stream &os,
                                      std::string &error) {
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(options, error);
  if (!tm)
    return failure();
  llvm::LLVMContext ctx;
  llvm::Module module("infc_weights", ctx);
  module.setTargetTriple(tm->getTargetTriple());
  module.setDataLayout(tm->createDataLayout());
  for (const WeightBlob &w : weights) {
    llvm::Constant *data =
        llvm::ConstantDataArray::getRaw(llvm::StringRef(w.bytes.data(), w.bytes.size()),
                                        w.bytes.size(), llvm::Type::getInt8Ty(ctx));
    auto *gv = new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                        llvm::GlobalValue::ExternalLinkage, data, w.symbol);
    gv->setVisibility(llvm::GlobalValue::HiddenVisibility);
    gv->setDSOLocal(true);
    gv->setAlignment(llvm::Align(64));
    gv->setSection(".infc_weights");
  }
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return failure();
  }
  pm.run(module);
  return success();
}

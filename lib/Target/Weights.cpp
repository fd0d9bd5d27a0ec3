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
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

void infc::extractWeights(ModuleOp module, std::vector<WeightBlob> &weights, int64_t minBytes) {
  extractWeights(module, weights, "", minBytes);
}

void infc::extractWeights(ModuleOp module, std::vector<WeightBlob> &weights, StringRef symbolPrefix,
                          int64_t minBytes) {
  SmallVector<LLVM::GlobalOp> extracted;
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
    extracted.push_back(global);
  });
  if (symbolPrefix.empty())
    return;
  size_t first = weights.size() - extracted.size();
  for (auto [i, global] : llvm::enumerate(extracted)) {
    auto name = StringAttr::get(module.getContext(), symbolPrefix + global.getSymName());
    if (failed(SymbolTable::replaceAllSymbolUses(global, name, module)))
      continue; // unreachable: the uses are addressof ops of this module
    global.setSymName(name);
    weights[first + i].symbol = name.str();
  }
}

/// Each blob as a hidden, 64-byte aligned, read-only global of `.infc_weights`. The variants
/// of a --specialize library share the weights they hold alike: a blob whose bytes an
/// earlier one has becomes an alias of it (found by a hash of the bytes: a map keyed by the
/// bytes would copy every weight).
static void addWeights(llvm::Module &module, const std::vector<infc::WeightBlob> &weights) {
  llvm::DenseMap<uint64_t, SmallVector<std::pair<const infc::WeightBlob *, llvm::GlobalVariable *>>>
      byContent;
  for (const infc::WeightBlob &w : weights) {
    if (!w.aliasOf.empty()) { // deduplicated by the caller
      auto *alias = llvm::GlobalAlias::create(llvm::GlobalValue::ExternalLinkage, w.symbol,
                                              module.getNamedGlobal(w.aliasOf));
      alias->setVisibility(llvm::GlobalValue::HiddenVisibility);
      alias->setDSOLocal(true);
      continue;
    }
    llvm::ArrayRef<uint8_t> bytes((const uint8_t *)w.bytes.data(), w.bytes.size());
    auto &candidates = byContent[llvm::xxh3_64bits(bytes)];
    auto same = llvm::find_if(candidates, [&](const auto &c) { return c.first->bytes == w.bytes; });
    if (same != candidates.end()) {
      auto *alias =
          llvm::GlobalAlias::create(llvm::GlobalValue::ExternalLinkage, w.symbol, same->second);
      alias->setVisibility(llvm::GlobalValue::HiddenVisibility);
      alias->setDSOLocal(true);
      continue;
    }
    llvm::Constant *data =
        llvm::ConstantDataArray::getRaw(llvm::StringRef(w.bytes.data(), w.bytes.size()),
                                        w.bytes.size(), llvm::Type::getInt8Ty(module.getContext()));
    auto *gv = new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                        llvm::GlobalValue::ExternalLinkage, data, w.symbol);
    gv->setVisibility(llvm::GlobalValue::HiddenVisibility);
    gv->setDSOLocal(true);
    gv->setAlignment(llvm::Align(64));
    gv->setSection(".infc_weights");
    candidates.push_back({&w, gv});
  }
}

LogicalResult infc::emitWeightsObject(const std::vector<WeightBlob> &weights,
                                      const TargetOptions &options, llvm::raw_pwrite_stream &os,
                                      std::string &error) {
  return emitDataObject(
      options, "infc_weights", [&](llvm::Module &module) { addWeights(module, weights); }, os,
      error);
}

//===- PackWeights.cpp - every constant into one weights argument ---------===//
//
// A GPU kernel cannot read the .so's read-only data: the weights must be in device memory.
// One blob, one upload per model, and every constant a view into it.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"
#include "infc/Support/DenseBytes.h"

#include "llvm/ADT/MapVector.h"

namespace infc {
#define GEN_PASS_DEF_INFCPACKWEIGHTS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
constexpr int64_t kAlignment = 64;

struct InfcPackWeightsPass : public infc::impl::InfcPackWeightsBase<InfcPackWeightsPass> {
  using InfcPackWeightsBase::InfcPackWeightsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(entryName);
    if (!func || func.isExternal()) {
      module.emitError("infc-pack-weights: no entry function '") << entryName << "'";
      return signalPassFailure();
    }
    if (argIndex > func.getNumArguments()) {
      func.emitError("infc-pack-weights: arg-index ") << argIndex << " is past the arguments";
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    llvm::MapVector<memref::GlobalOp, int64_t> offsets;
    std::vector<char> blob;
    SmallVector<memref::GetGlobalOp> reads;
    WalkResult walk = func.walk([&](memref::GetGlobalOp get) {
      auto global = symbols.lookup<memref::GlobalOp>(get.getName());
      auto value = global ? dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr())
                          : DenseElementsAttr();
      if (!global || !global.getConstant() || !value) {
        get.emitError("infc-pack-weights: @")
            << get.getName() << " is not a constant global with a dense value";
        return WalkResult::interrupt();
      }
      reads.push_back(get);
      if (offsets.count(global))
        return WalkResult::advance();
      std::optional<std::vector<char>> bytes = infc::denseBytes(value);
      if (!bytes) {
        get.emitError("infc-pack-weights: cannot store elements of type ")
            << value.getElementType() << " on the device";
        return WalkResult::interrupt();
      }
      int64_t offset = (int64_t)llvm::alignTo(blob.size(), kAlignment);
      blob.resize(offset);
      blob.insert(blob.end(), bytes->begin(), bytes->end());
      offsets[global] = offset;
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    // Never empty: a zero-sized argument would still need a valid pointer.
    blob.resize(llvm::alignTo(std::max<size_t>(blob.size(), 1), kAlignment));
    int64_t bytes = (int64_t)blob.size();
    auto i8 = IntegerType::get(ctx, 8);
    auto blobType = MemRefType::get({bytes}, i8);
    if (failed(func.insertArgument(argIndex, blobType, {}, func.getLoc()))) {
      func.emitError("infc-pack-weights: cannot add the weights argument");
      return signalPassFailure();
    }
    func.setArgAttr(argIndex, "infc.weights", UnitAttr::get(ctx));
    Value weights = func.getArgument(argIndex);
    for (memref::GetGlobalOp get : reads) {
      auto global = symbols.lookup<memref::GlobalOp>(get.getName());
      OpBuilder b(get);
      Value offset = arith::ConstantIndexOp::create(b, get.getLoc(), offsets.lookup(global));
      Value view =
          memref::ViewOp::create(b, get.getLoc(), get.getType(), weights, offset, ValueRange{});
      get.replaceAllUsesWith(view);
      get.erase();
    }
    for (auto &entry : offsets)
      if (SymbolTable::symbolKnownUseEmpty(entry.first, module))
        entry.first.erase();

    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto value = DenseElementsAttr::getFromRawBuffer(RankedTensorType::get({bytes}, i8), blob);
    memref::GlobalOp::create(b, module.getLoc(), "infc__weights",
                             /*sym_visibility=*/StringAttr(), blobType, value, /*constant=*/true,
                             /*alignment=*/b.getI64IntegerAttr(kAlignment));
    module->setAttr("infc.weights_bytes", IntegerAttr::get(IntegerType::get(ctx, 64), bytes));
  }
};
} // namespace

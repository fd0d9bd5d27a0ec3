//===- OutlineParallelRegions.cpp - one function per omp.parallel ---------===//
//
// The OpenMP translation outlines every omp.parallel region of a function with LLVM's
// CodeExtractor, which builds its analysis cache over the whole parent function for each
// region: a model's entry with hundreds of parallel loops made that quadratic. Giving each
// region a small function of its own first keeps every scan short.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/Common/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

#include <functional>

namespace infc {
#define GEN_PASS_DEF_INFCOUTLINEPARALLELREGIONS
#include "infc/Codegen/Common/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcOutlineParallelRegionsPass
    : public infc::impl::InfcOutlineParallelRegionsBase<InfcOutlineParallelRegionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<LLVM::LLVMFuncOp>())) {
      if (func.isExternal())
        continue;
      // The outermost regions only: one nested in another moves with it.
      SmallVector<omp::ParallelOp> regions;
      func.walk<WalkOrder::PreOrder>([&](omp::ParallelOp parallel) {
        regions.push_back(parallel);
        return WalkResult::skip();
      });
      // One region alone gains nothing (its function is already that small).
      if (regions.size() < 2)
        continue;
      unsigned count = 0;
      for (omp::ParallelOp parallel : regions)
        outline(symbols, func, parallel, count++);
    }
  }

  /// Replaces `parallel` by a call of a new function holding it, whose arguments are the
  /// values the op reads from outside (its operands and those its regions use).
  void outline(SymbolTable &symbols, LLVM::LLVMFuncOp func, omp::ParallelOp parallel,
               unsigned index) {
    llvm::SetVector<Value> used, captured;
    for (Value operand : parallel->getOperands())
      used.insert(operand);
    getUsedValuesDefinedAbove(parallel->getRegions(), used);
    // Constants, addresses of globals and what pure ops compute from them alone (a GEP
    // into the weights) are made again inside: LLVM folds them into constant expressions
    // the region's outlined body uses directly, where an argument would reach it as a load
    // (loop bounds and strides unknown, the weights' address too).
    SmallVector<Operation *> remade; // (operands before users)
    llvm::DenseMap<Operation *, bool> known;
    std::function<bool(Operation *)> remake = [&](Operation *def) -> bool {
      if (!def)
        return false;
      auto [it, inserted] = known.try_emplace(def, false);
      if (!inserted)
        return it->second;
      bool leaf = def->getNumOperands() == 0 &&
                  (def->hasTrait<OpTrait::ConstantLike>() ||
                   isa<LLVM::AddressOfOp, LLVM::ZeroOp, LLVM::UndefOp, LLVM::PoisonOp>(def));
      bool pure = isa<LLVM::GEPOp, LLVM::BitcastOp, LLVM::AddrSpaceCastOp>(def) &&
                  llvm::all_of(def->getOperands(),
                               [&](Value operand) { return remake(operand.getDefiningOp()); });
      if (!leaf && !pure)
        return false;
      known[def] = true;
      remade.push_back(def);
      return true;
    };
    for (Value v : used)
      if (!remake(v.getDefiningOp()))
        captured.insert(v);
    SmallVector<Type> types;
    for (Value v : captured)
      types.push_back(v.getType());
    Location loc = parallel.getLoc();
    OpBuilder b(func);
    auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(&getContext()), types);
    auto outlined =
        LLVM::LLVMFuncOp::create(b, loc, (func.getName() + "_par_" + std::to_string(index)).str(),
                                 type, LLVM::Linkage::Internal);
    symbols.insert(outlined); // (unique name)
    // The function's attributes that shape code generation (target features, vector
    // widths, frame pointers) hold for the region too.
    if (auto features = func.getTargetFeaturesAttr())
      outlined.setTargetFeaturesAttr(features);
    if (auto cpu = func.getTargetCpuAttr())
      outlined.setTargetCpuAttr(cpu);
    if (auto passthrough = func.getPassthroughAttr())
      outlined.setPassthroughAttr(passthrough);
    Block *body = outlined.addEntryBlock(b);
    IRMapping map;
    for (auto [v, arg] : llvm::zip(captured, body->getArguments()))
      map.map(v, arg);
    b.setInsertionPointToStart(body);
    for (Operation *def : remade)
      b.clone(*def, map);
    b.clone(*parallel, map);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
    b.setInsertionPoint(parallel);
    LLVM::CallOp::create(b, loc, outlined, captured.getArrayRef());
    parallel.erase();
  }
};
} // namespace

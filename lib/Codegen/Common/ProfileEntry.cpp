//===- ProfileEntry.cpp - a copy of the entry that times each kernel ------===//
//
// Profiling must cost nothing when it is off, so the timers live in a second entry
// function that only a profiled session calls (runtime/profile.c). Both copies share the
// memory plan and the weights; only the code is duplicated.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/Common/Passes.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace infc {
#define GEN_PASS_DEF_INFCPROFILEENTRY
#include "infc/Codegen/Common/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kBegin = "infc__prof_begin";
constexpr llvm::StringLiteral kEnd = "infc__prof_end";

/// The ONNX node names (the importer's `NameLoc`s, "node(OpType)") inside `loc`.
void collectNodeNames(Location loc, llvm::SetVector<StringRef> &names) {
  loc->walk([&](Location inner) {
    if (auto name = dyn_cast<NameLoc>(inner))
      names.insert(name.getName().getValue());
    return WalkResult::advance();
  });
}

/// Ops that do a kernel's work: loops and other regions, calls, anything that writes
/// memory or whose effects are unknown. Index arithmetic, views and allocations between
/// kernels are not timed on their own.
bool isKernelOp(Operation *op) {
  if (op->getNumRegions() > 0 || isa<CallOpInterface>(op))
    return true;
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
    return effects.hasEffect<MemoryEffects::Write>() || effects.hasEffect<MemoryEffects::Free>();
  return !isMemoryEffectFree(op);
}

/// The nodes a kernel op covers, in the order its ops name them; empty when none does (an
/// op a pass created without a location of the model). Constants are left out:
/// deduplicated constants carry the locations of every node that used them.
std::string kernelName(Operation *root) {
  llvm::SetVector<StringRef> names;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!op->hasTrait<OpTrait::ConstantLike>())
      collectNodeNames(op->getLoc(), names);
  });
  std::string joined;
  for (auto [i, name] : llvm::enumerate(names))
    joined += (i ? " + " : "") + name.str();
  return joined;
}

func::FuncOp declareHook(ModuleOp module, StringRef name) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto hook =
      func::FuncOp::create(b, module.getLoc(), name, b.getFunctionType({b.getI32Type()}, {}));
  hook.setPrivate();
  return hook;
}

struct InfcProfileEntryPass : public infc::impl::InfcProfileEntryBase<InfcProfileEntryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto entry = module.lookupSymbol<func::FuncOp>(entryName);
    // Blocks mean the loops are already lowered to branches: nothing to group by. The
    // runtime then times whole runs only.
    if (!entry || entry.isExternal() || !entry.getBody().hasOneBlock())
      return;
    func::FuncOp begin = declareHook(module, kBegin), end = declareHook(module, kEnd);

    auto profiled = cast<func::FuncOp>(entry->clone());
    profiled.setName(entryName + "_profiled");
    module.getBody()->getOperations().insertAfter(entry->getIterator(), profiled);

    llvm::StringMap<int32_t> ids;
    SmallVector<Attribute> names;
    auto idOf = [&](const std::string &name) {
      auto [it, inserted] = ids.try_emplace(name, (int32_t)names.size());
      if (inserted)
        names.push_back(StringAttr::get(&getContext(), name));
      return it->second;
    };
    auto bracket = [&](Operation *first, Operation *last, int32_t id) {
      OpBuilder b(first);
      Value idValue = arith::ConstantIntOp::create(b, first->getLoc(), id, 32);
      func::CallOp::create(b, first->getLoc(), begin, ValueRange{idValue});
      b.setInsertionPointAfter(last);
      func::CallOp::create(b, last->getLoc(), end, ValueRange{idValue});
    };

    // A kernel is a maximal run of kernel ops of one name; the pure ops between two ops of
    // the same name (views, index math) belong to it, and so does a kernel op of no name
    // (the store of a vectorized epilogue): to the kernel before it, or the next one.
    Operation *first = nullptr, *last = nullptr, *namelessFirst = nullptr, *namelessLast = nullptr;
    std::string current;
    SmallVector<Operation *> ops;
    for (Operation &op : profiled.getBody().front().without_terminator())
      ops.push_back(&op);
    for (Operation *op : ops) {
      if (!isKernelOp(op))
        continue;
      std::string name = kernelName(op);
      if (name.empty() && first) {
        last = op;
        continue;
      }
      if (name.empty()) {
        namelessFirst = namelessFirst ? namelessFirst : op;
        namelessLast = op;
        continue;
      }
      if (first && name == current) {
        last = op;
        continue;
      }
      if (first)
        bracket(first, last, idOf(current));
      first = namelessFirst ? namelessFirst : op;
      last = op;
      namelessFirst = namelessLast = nullptr;
      current = name;
    }
    if (first)
      bracket(first, last, idOf(current));
    else if (namelessFirst) // no op names a node: the model's code as one kernel
      bracket(namelessFirst, namelessLast, idOf("(model)"));
    module->setAttr("infc.profile_kernels", ArrayAttr::get(&getContext(), names));
  }
};
} // namespace

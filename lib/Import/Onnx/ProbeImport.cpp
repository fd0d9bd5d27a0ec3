//===- ProbeImport.cpp - imports of one model at several sizes of a dim ---===//
#include "ProbeImport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

OwningOpRef<ModuleOp> infc::detail::importAtSize(MLIRContext &context, StringRef path,
                                                 const OnnxImportOptions &options, StringRef dim,
                                                 int64_t size, std::string &why) {
  OnnxImportOptions at = options;
  at.dimRanges.erase(dim);
  at.dimValues[dim] = size;
  std::string first;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && first.empty())
      first = diag.str();
    return success();
  });
  OwningOpRef<ModuleOp> module = importOnnxModel(context, path, at);
  // One other dim left symbolic (the batch loop's probes of a model with a symbolic
  // sequence too): generic code for it from imports at several sizes, where the direct
  // import does not take it.
  std::string general;
  if (!module && at.dimRanges.size() == 1)
    module = importGeneralized(context, path, at, at.dimRanges.begin()->getKey(), general);
  if (!module)
    why = "the model does not import at " + dim.str() + "=" + std::to_string(size) +
          (first.empty() ? "" : ": " + first) +
          (general.empty() ? "" : " (nor as generic code: " + general + ")");
  return module;
}

void infc::detail::eraseDeadOps(func::FuncOp f) {
  SmallVector<Operation *> ops;
  for (Operation &op : f.getBody().front())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (!op->hasTrait<OpTrait::IsTerminator>() && op->use_empty() && isPure(op))
      op->erase();
}

std::string infc::detail::nodeOf(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc())) {
    StringRef node = name.getName().strref();
    auto [prefix, rest] = node.rsplit('(');
    if (!rest.empty())
      return "node '" + prefix.str() + "' (" + rest.drop_back().str() + ")";
    return "node '" + node.str() + "'";
  }
  return "op " + op->getName().getStringRef().str();
}

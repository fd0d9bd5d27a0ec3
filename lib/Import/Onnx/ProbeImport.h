//===- ProbeImport.h - imports of one model at several sizes of a dim -*- C++ -*-===//
//
// Private to lib/Import/Onnx. The batch loop (BatchLoop.cpp) and the generalized import
// (Generalize.cpp) decide what a named dim does without trusting the importers with a
// `?`: they import the model with the dim fixed at several sizes and compare the imports.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_IMPORT_ONNX_PROBEIMPORT_H
#define INFC_LIB_IMPORT_ONNX_PROBEIMPORT_H

#include "infc/Import/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace infc::detail {

/// The model imported with the named dim `dim` at `size` (its --dim range dropped; one
/// other dim with a range stays symbolic, as generic code from importGeneralized where the
/// direct import does not take it); null, with `why` saying so and giving the first error,
/// when it does not import there. Diagnostics are not printed.
mlir::OwningOpRef<mlir::ModuleOp> importAtSize(mlir::MLIRContext &context, llvm::StringRef path,
                                               const OnnxImportOptions &options,
                                               llvm::StringRef dim, int64_t size, std::string &why);

inline mlir::func::FuncOp mainOf(mlir::ModuleOp module) {
  return module.lookupSymbol<mlir::func::FuncOp>("main");
}

/// Erases the ops nothing uses (the shape arithmetic the importers folded).
void eraseDeadOps(mlir::func::FuncOp f);

/// "node 'name' (Op)" of an imported op, from its NameLoc("name(Op)").
std::string nodeOf(mlir::Operation *op);

} // namespace infc::detail

#endif // INFC_LIB_IMPORT_ONNX_PROBEIMPORT_H

//===- ModelImporter.h - the import of one ONNX model -----------*- C++ -*-===//
//
// Private to lib/Import/Onnx. The state of one import: the parsed model, its opset, the
// values by name and the bookkeeping that names the node behind an error. Its members are
// defined in ModelImporter.cpp (the model, its inputs, the node loop) and TensorData.cpp
// (initializers and their external data).
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_IMPORT_ONNX_MODELIMPORTER_H
#define INFC_LIB_IMPORT_ONNX_MODELIMPORTER_H

#include "NodeImporter.h"
#include "infc/Import/OnnxImporter.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace infc::detail {

class ModelImporter {
public:
  ModelImporter(mlir::MLIRContext &ctx, llvm::StringRef path, const OnnxImportOptions &options,
                std::optional<llvm::StringRef> bytes = std::nullopt)
      : ctx(ctx), path(path), options(options), bytes(bytes), b(&ctx),
        fileLoc(mlir::FileLineColLoc::get(&ctx, path, 0, 0)) {}

  mlir::OwningOpRef<mlir::ModuleOp> run();

private:
  mlir::InFlightDiagnostic error() { return mlir::emitError(fileLoc); }
  mlir::LogicalResult loadModel();
  mlir::LogicalResult checkSupported();
  std::optional<mlir::DenseElementsAttr> importTensor(const onnx::TensorProto &tensor);
  mlir::LogicalResult readExternalData(const onnx::TensorProto &tensor, std::string &bytes);
  mlir::RankedTensorType inputType(const onnx::ValueInfoProto &info);
  /// `infc.dims` of a graph input or output: its dims' dim_param names ("" for a dim with
  /// none); null when it names no dim or its declared rank is not `rank`.
  mlir::ArrayAttr dimNames(const onnx::ValueInfoProto &info, int64_t rank);
  /// The input's dims fixed at compile time against their --dim ranges.
  mlir::LogicalResult checkDimRanges(const onnx::ValueInfoProto &info, mlir::RankedTensorType type);
  mlir::LogicalResult importNode(const onnx::NodeProto &node);
  int64_t importedNodes = 0;
  int64_t errorCount = 0;              // errors emitted in the context since run() began
  int64_t nodeFirstError = -1;         // errorCount when the node being imported began (-1: none)
  NodeImporter *currentNode = nullptr; // the node whose importer runs
  mlir::LogicalResult checkTypes(mlir::ModuleOp module);
  /// SymbolicDims.cpp: a symbolic dim (kept by --dim) reaches only the ONNX ops and the infc
  /// ops that take it.
  mlir::LogicalResult checkSymbolicInputs(NodeImporter &n);
  mlir::LogicalResult checkSymbolicOps(mlir::ModuleOp module);
  /// The named dims kept symbolic (for now at most one), and the largest size they take.
  llvm::SmallVector<std::string> symbolicDims;
  int64_t symbolicBound = 0;
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> importSubgraph(const onnx::GraphProto &graph,
                                                                 mlir::ValueRange args);
  void listUnsupported(const onnx::GraphProto &graph, std::string &list, int &count);

  mlir::MLIRContext &ctx;
  std::string path;
  const OnnxImportOptions &options;
  std::optional<llvm::StringRef> bytes; // the model, when given in memory rather than at `path`
  mlir::OpBuilder b;
  mlir::Location fileLoc;
  onnx::ModelProto model;
  int64_t opset = 0;
  llvm::StringMap<mlir::Value> values;
};

/// SymbolicDims.cpp: every op of `module` with a `?` (the symbolic dim `dim`, the only one)
/// is one the lowering takes; else an error naming the node (and the model's `opset`).
mlir::LogicalResult checkSymbolicOps(mlir::ModuleOp module, llvm::StringRef dim, int64_t opset);

/// Decoder.cpp (--decoder): the graph as one step of a sequence with no past: each
/// `Concat(past_key_values.N.x, new)` that gives `present.N.x` passes `new` on, the past
/// inputs go, input_ids' batch dim is 1 everywhere and a "total" dim the tokens. False,
/// with `error` naming what does not fit that layout.
bool rewriteDecoderGraph(onnx::GraphProto &graph, std::string &error);

} // namespace infc::detail

#endif // INFC_LIB_IMPORT_ONNX_MODELIMPORTER_H

//===- OnnxImporter.h - ONNX protobuf to the infc dialect -------*- C++ -*-===//
#ifndef INFC_IMPORT_ONNXIMPORTER_H
#define INFC_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <limits>
#include <string>
#include <vector>

namespace infc {

/// A --dim range's maximum when it has none (the runtime's INT64_MAX, "at least MIN").
constexpr int64_t kUnboundedDim = std::numeric_limits<int64_t>::max();

struct OnnxImportOptions {
  /// Static shapes for graph inputs (`--input-shape name=1x128`); they fill symbolic dims.
  llvm::StringMap<llvm::SmallVector<int64_t>> inputShapes;

  /// Values that specialize graph inputs (`--input-value name=x.npy`). The input is read as
  /// this constant, so what it decides (Reshape's shape, Reduce axes, TopK's K) folds at
  /// compile time; the library keeps the input and refuses a run that passes another value.
  struct InputValue {
    int32_t dtype = 0; // infc_dtype
    std::vector<int64_t> shape;
    std::vector<char> data; // row-major, little-endian
  };
  llvm::StringMap<InputValue> inputValues;

  /// Values of named symbolic dims (`dim_param`, e.g. "batch"): every graph input dim of
  /// that name takes the value, unless --input-shape gives the input's whole shape. One
  /// variant of `infc compile --specialize batch=1,8` each.
  llvm::StringMap<int64_t> dimValues;

  /// The sizes a named dim may take (`--dim batch=1..64`), inclusive: recorded in the
  /// library, whose runs refuse other sizes; a size fixed at compile time must be inside.
  /// A dim named here and fixed by nothing else stays symbolic (`?`): generic code.
  /// `kUnboundedDim` as the maximum: no largest size (`--dim batch=1..`, or a dim no flag
  /// names), which the batch loop takes and generic code refuses.
  llvm::StringMap<std::pair<int64_t, int64_t>> dimRanges;

  /// `--decoder`: the model is a decoder LLM in HF optimum's layout, imported as one step
  /// of its sequences with the KV cache left to the runtime (docs/decoder-llm.md): the
  /// past inputs go, each present is the step's new keys or values, the batch is 1.
  bool decoder = false;

  /// Testing `infc verify` only (`--test-miscompile OP`, hidden): every node of this op type
  /// gets 1 added to its first floating-point output, a known wrong answer to find.
  std::string testMiscompileOp;
};

/// Imports an ONNX model file into a module with one `func.func @main` of infc ops on static
/// tensor types (but for a dim kept symbolic by `dimRanges`). Every op is located at
/// NameLoc("node(OpType)"). On failure, errors have
/// been emitted through the context's diagnostic handler and null is returned.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxModel(mlir::MLIRContext &context, llvm::StringRef path,
                                                  const OnnxImportOptions &options);

/// The same for a model held in memory (the fuzzers'); `path` names it in diagnostics, and
/// its folder is where external data is looked up.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxModelFromBytes(mlir::MLIRContext &context,
                                                           llvm::StringRef bytes,
                                                           llvm::StringRef path,
                                                           const OnnxImportOptions &options);

/// Which graph inputs and outputs carry the batch as their dim 0 (importBatchRow).
struct BatchRows {
  std::vector<bool> inputs, outputs;
};

/// The model at `path` imported with the named dim `dim` at 1, when it computes row n of
/// every output from row n of its inputs alone along `dim` (a batch), so that this code for
/// one row, called once per row, runs any batch size; else null. Decided on imports at
/// several sizes of `dim` (`options` otherwise as given): the same graph at each, every op
/// treating the batch row by row, the batch dim 0 of every output and of the inputs that
/// have it (`rows`). On failure `why` names the node and what it does to the batch;
/// diagnostics are not printed.
mlir::OwningOpRef<mlir::ModuleOp> importBatchRow(mlir::MLIRContext &context, llvm::StringRef path,
                                                 const OnnxImportOptions &options,
                                                 llvm::StringRef dim, BatchRows &rows,
                                                 std::string &why);

/// The model at `path` as generic code for every size of the named dim `dim` (its `--dim`
/// range in `options`), found without trusting the importers with a `?`: imported with the
/// dim fixed at several sizes, the imports must be the same graph, each value's dims the
/// same at every size or the size itself (those become `?`), and each constant the same or,
/// at each size, the first entries of the largest import's along the dim (it becomes a
/// slice). The result passes the same check of the ops that take a `?` as a direct import.
/// Else null, and `why` names the node and what changes; diagnostics are not printed.
mlir::OwningOpRef<mlir::ModuleOp> importGeneralized(mlir::MLIRContext &context,
                                                    llvm::StringRef path,
                                                    const OnnxImportOptions &options,
                                                    llvm::StringRef dim, std::string &why);

/// What `infc inspect` prints: a summary of the model without compiling it.
struct OnnxModelSummary {
  struct Value {
    std::string name, dtype, shape;
    /// Per dim: empty when fixed, else its `dim_param` ("batch"), or "?" for a dim without.
    std::vector<std::string> symbolicDims;
  };
  std::string graphName, producer;
  int64_t irVersion = 0;
  std::vector<std::pair<std::string, int64_t>> opsets; // domain, version
  std::vector<Value> inputs, outputs;
  std::vector<std::pair<std::string, int64_t>> opHistogram; // op type, count (sorted)
  std::vector<std::string> unsupportedOps;                  // op types we cannot import
  int64_t numInitializers = 0, initializerBytes = 0;
};
llvm::LogicalResult summarizeOnnxModel(llvm::StringRef path, OnnxModelSummary &summary,
                                       std::string &error);

/// Whether the importer handles `opType` of the default ONNX domain.
bool isSupportedOnnxOp(llvm::StringRef opType);
/// Every op type of the default ONNX domain the importer handles, sorted.
std::vector<llvm::StringRef> supportedOnnxOps();

} // namespace infc

#endif // INFC_IMPORT_ONNXIMPORTER_H

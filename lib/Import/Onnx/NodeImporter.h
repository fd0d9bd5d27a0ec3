//===- NodeImporter.h - per-node context for the ONNX op importers -*- C++ -*-===//
//
// Private to lib/Import/Onnx. Each ONNX op type maps to one ImportFn that reads the node
// through a NodeImporter and builds infc ops. Value-dependent attributes (Reshape's shape,
// Slice's starts) must fold to constants while importing; the importer folds as it builds.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_IMPORT_ONNX_NODEIMPORTER_H
#define INFC_LIB_IMPORT_ONNX_NODEIMPORTER_H

#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

#include "onnx.pb.h"

#include <functional>
#include <optional>

namespace infc {

class NodeImporter {
public:
  NodeImporter(const onnx::NodeProto &node, mlir::Location loc, mlir::OpBuilder &builder,
               int64_t opset, llvm::SmallVectorImpl<mlir::Value> &inputs)
      : node(node), loc(loc), b(builder), opset(opset), inputs(inputs) {}

  const onnx::NodeProto &node;
  mlir::Location loc;
  mlir::OpBuilder &b;
  int64_t opset;

  /// Input i, or null when absent (optional inputs may be empty names).
  mlir::Value input(unsigned i) const { return i < inputs.size() ? inputs[i] : nullptr; }
  unsigned numInputs() const { return inputs.size(); }
  unsigned numOutputs() const { return node.output_size(); }
  bool outputUsed(unsigned i) const {
    return (int)i < node.output_size() && !node.output(i).empty();
  }
  mlir::RankedTensorType inputType(unsigned i) const {
    return llvm::cast<mlir::RankedTensorType>(input(i).getType());
  }

  /// Attribute accessors with ONNX defaults.
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t def) const;
  double getFloat(llvm::StringRef name, double def) const;
  std::string getString(llvm::StringRef name, llvm::StringRef def) const;
  llvm::SmallVector<int64_t> getInts(llvm::StringRef name, llvm::ArrayRef<int64_t> def = {}) const;
  bool hasAttr(llvm::StringRef name) const { return attr(name) != nullptr; }
  /// Attribute `name` if it holds `type` (an onnx::AttributeProto::AttributeType); an
  /// error and null when it holds another (the import of the node then fails).
  const onnx::AttributeProto *typedAttr(llvm::StringRef name, int type) const;

  /// The value of input i if it folded to a constant.
  mlir::DenseElementsAttr constantInput(unsigned i) const;
  /// The error for input i (called `what`) that must fold to a constant but does not; it
  /// names the graph inputs the value depends on, which `--input-value` can specialize.
  mlir::InFlightDiagnostic notConstant(unsigned i, llvm::StringRef what);
  /// Input i as int64 values; emits an error naming `what` unless it is constant.
  std::optional<llvm::SmallVector<int64_t>> constantInts(unsigned i, llvm::StringRef what);

  /// Builds op OpTy and folds it on the spot when its operands are constants. An op whose
  /// result types are inferred is checked first: operands it cannot take (which its builder
  /// would abort on) are an error of the node, and a placeholder stands in for the result
  /// so that the importer can return; the node's import then fails.
  template <typename OpTy, typename... Args> mlir::Value create(Args &&...args) {
    if constexpr (buildsWithTypes<OpTy, Args...>(0)) {
      mlir::OperationState state(loc, OpTy::getOperationName());
      OpTy::build(b, state, mlir::TypeRange(), args...);
      llvm::SmallVector<mlir::Type> types;
      std::string why;
      if (!inferTypes<OpTy>(state, types, why))
        return failedOp(OpTy::getOperationName(), why, state.operands);
      state.addTypes(types);
      return foldNow(b.create(state));
    }
    auto op = OpTy::create(b, loc, std::forward<Args>(args)...);
    return foldNow(op.getOperation());
  }
  mlir::Value foldNow(mlir::Operation *op);

  mlir::Value constant(mlir::DenseElementsAttr value);
  mlir::Value scalarLike(mlir::Value like, double value); // rank-0 of like's element type
  mlir::Value reshape(mlir::Value v, llvm::ArrayRef<int64_t> shape);
  /// `size` entries of `v` along `axis` from `offset` on (the other dims whole).
  mlir::Value sliceAxis(mlir::Value v, int64_t axis, int64_t offset, int64_t size);
  /// infc.matmul; f16/bf16 operands multiply and accumulate in f32 (as ORT and numpy do),
  /// rounding the result back once.
  mlir::Value matmul(mlir::Value lhs, mlir::Value rhs);
  /// `v` with its elements cast to `elementType` (`v` itself when they already are).
  mlir::Value castElements(mlir::Value v, mlir::Type elementType);
  /// What a computation on `et` values runs in: f32 for f16 and bf16 (cast back, rounded
  /// once, at the end, as ORT and numpy do), else `et` itself.
  mlir::Type computeType(mlir::Type et);

  /// Normalizes a possibly negative axis; emits an error and returns nullopt if out of range.
  std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

  /// Diagnostics that name the node, op type and opset.
  mlir::InFlightDiagnostic error();
  /// Whether error() was called: the node has failed, and nothing more is folded for it.
  bool hadError = false;

  /// Whether a table (an index constant the importer computes) of `dims` may be built: at
  /// most kMaxMaterializedElements elements; an error naming `what` otherwise.
  bool tableFits(llvm::ArrayRef<int64_t> dims, llvm::StringRef what);

  /// Imports a subgraph attribute's body (If branches, Scan bodies) inline at the builder's
  /// insertion point, its inputs bound to `args`; outer-scope values stay visible. Returns
  /// the body's outputs, or failure after an error.
  std::function<mlir::FailureOr<llvm::SmallVector<mlir::Value>>(const onnx::GraphProto &,
                                                                mlir::ValueRange args)>
      importGraph;

  void setResult(unsigned i, mlir::Value v) {
    results.resize(std::max<size_t>(results.size(), i + 1)), results[i] = v;
  }
  llvm::SmallVector<mlir::Value> results;

private:
  /// Whether OpTy infers its result types and has a builder taking them before `Args`.
  template <typename OpTy, typename... Args>
  static constexpr auto buildsWithTypes(int)
      -> decltype(OpTy::build(std::declval<mlir::OpBuilder &>(),
                              std::declval<mlir::OperationState &>(),
                              std::declval<mlir::TypeRange>(), std::declval<Args>()...),
                  bool()) {
    return OpTy::template hasTrait<mlir::InferTypeOpInterface::Trait>();
  }
  template <typename OpTy, typename... Args> static constexpr bool buildsWithTypes(...) {
    return false;
  }
  template <typename OpTy>
  bool inferTypes(mlir::OperationState &state, llvm::SmallVectorImpl<mlir::Type> &types,
                  std::string &why) {
    mlir::MLIRContext *ctx = b.getContext();
    // The inference reports why it fails at `loc`; the message is kept for the node's error.
    mlir::ScopedDiagnosticHandler capture(ctx, [&](mlir::Diagnostic &d) {
      if (why.empty())
        why = d.str();
      return mlir::success();
    });
    return mlir::succeeded(OpTy::inferReturnTypes(ctx, loc, state.operands,
                                                  state.attributes.getDictionary(ctx),
                                                  state.getRawProperties(), state.regions, types));
  }
  /// Reports that `opName` cannot take its operands; returns the placeholder.
  mlir::Value failedOp(llvm::StringRef opName, llvm::StringRef why, mlir::ValueRange operands);

  llvm::SmallVectorImpl<mlir::Value> &inputs;
};

/// The static shape of a ranked tensor value.
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType()).getShape();
}

/// An i64 constant of `shape` holding 0, 1, ..., size - 1 along its one non-unit dim.
mlir::Value iota(NodeImporter &n, llvm::ArrayRef<int64_t> shape, int64_t size);

/// [batch, seq, heads * size] -> [batch, heads, seq, size] (Attention, LinearAttention).
mlir::Value splitHeads(NodeImporter &n, mlir::Value v, int64_t heads);

/// log(softmax(x)) along `axis`, max-shifted as the ONNX reference computes it.
mlir::Value logSoftmax(NodeImporter &n, mlir::Value x, int64_t axis);

/// The most elements of a constant the importer builds from less (an index table, a fold
/// whose result outgrows its constant operands): 2^26, 512 MiB of int64. Folds of larger
/// results are left to run time; constants the model holds are not limited.
constexpr int64_t kMaxMaterializedElements = int64_t(1) << 26;

/// The most time steps a recurrence or a Scan is unrolled to at import.
constexpr int64_t kMaxUnrolledSteps = 1024;

using ImportFn = std::function<mlir::LogicalResult(NodeImporter &)>;
using ImportRegistry = llvm::StringMap<ImportFn>;

void registerElementwiseImporters(ImportRegistry &registry);
void registerConvolutionImporters(ImportRegistry &registry);
void registerPoolingImporters(ImportRegistry &registry);
void registerNormalizationImporters(ImportRegistry &registry);
void registerLinearImporters(ImportRegistry &registry);
void registerReductionImporters(ImportRegistry &registry);
void registerShapeImporters(ImportRegistry &registry);
void registerIndexingImporters(ImportRegistry &registry);
void registerResamplingImporters(ImportRegistry &registry);
void registerCompositeImporters(ImportRegistry &registry);
void registerQuantizationImporters(ImportRegistry &registry);
void registerAttentionImporters(ImportRegistry &registry);
void registerLossImporters(ImportRegistry &registry);
void registerRecurrentImporters(ImportRegistry &registry);
void registerControlFlowImporters(ImportRegistry &registry);
void registerIntegerOpImporters(ImportRegistry &registry);
void registerSignalImporters(ImportRegistry &registry);
void registerGridSampleImporters(ImportRegistry &registry);

/// The axes of a Reduce* node, normalized, sorted and distinct: from the attribute before
/// opset `axesInputSince`, else from the constant input 1 (an input of no elements needs no
/// value, even a graph input). No axes means every dim, or none (an empty list) with
/// noop_with_empty_axes. nullopt after an error.
std::optional<llvm::SmallVector<int64_t>> reductionAxes(NodeImporter &n, int64_t axesInputSince);

/// The Conv of node `n`'s attributes (strides, pads or auto_pad, dilations, group; 1-D or 2-D)
/// of `x` by `w` plus the optional `bias`; nullptr after an error.
mlir::Value convolution(NodeImporter &n, mlir::Value x, mlir::Value w, mlir::Value bias);

/// Softmax, LogSoftmax, Hardmax: result 0 is `fn(x, axis)` for the node's axis (default -1,
/// or 1 before opset 13). Before opset 13 a non-last axis coerces the input to 2-D
/// [outer, inner] at the axis, runs fn on axis 1 and reshapes back.
mlir::LogicalResult importAlongAxis(NodeImporter &n,
                                    llvm::function_ref<mlir::Value(mlir::Value, int64_t)> fn);
const ImportRegistry &importRegistry();

/// The elements of a TensorProto of `elementType` (from onnxElementType) as a dense attribute:
/// raw_data, the typed fields, or `externalBytes` when the caller has read its external data.
/// On failure `error` says what is wrong with it; the caller names the tensor.
mlir::FailureOr<mlir::DenseElementsAttr> denseFromTensorProto(mlir::Type elementType,
                                                              const onnx::TensorProto &t,
                                                              const std::string *externalBytes,
                                                              std::string &error);

/// ONNX TensorProto data type to an MLIR element type (null if unsupported).
mlir::Type onnxElementType(mlir::MLIRContext *ctx, int32_t dataType);
const char *onnxDataTypeName(int32_t dataType);
/// Bytes per element of an ONNX data type: 1 for sub-byte and unknown types (an upper
/// bound where sizes are checked, an estimate where they are summed).
int64_t onnxElementBytes(int32_t dataType);

/// A dimension with a value that is not negative: exporters such as paddle2onnx write
/// dim_value -1 for a dynamic dimension (onnxruntime reads it as one too).
inline bool isFixedDim(const onnx::TensorShapeProto::Dimension &dim) {
  return dim.has_dim_value() && dim.dim_value() >= 0;
}

inline bool isDefaultDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}

} // namespace infc

#endif // INFC_LIB_IMPORT_ONNX_NODEIMPORTER_H

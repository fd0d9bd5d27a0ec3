//===- OnnxValidation.h - ONNX models checked against the op schemas -*- C++ -*-===//
//
// Private to lib/Import/Onnx. Before the importer builds anything, every node of the model
// (subgraphs included) is checked against the ai.onnx schema of the model's opset: the op
// exists there, its input and output counts, each attribute's name and type, the required
// attributes; and the graphs' wiring (names defined once, inputs defined before use, outputs
// present), initializer dims and element counts. Element types need the values, so the
// importer checks them node by node just before building (checkInputTypes).
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_IMPORT_ONNX_ONNXVALIDATION_H
#define INFC_LIB_IMPORT_ONNX_ONNXVALIDATION_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include "onnx.pb.h"

#include <optional>
#include <string>

namespace infc {

class NodeImporter;

enum class OnnxParamOption : uint8_t { Single, Optional, Variadic };

struct OnnxAttributeSchema {
  const char *name;
  int type; // onnx::AttributeProto::AttributeType
  bool required;
};

struct OnnxParamSchema {
  const char *name;
  const char *typeStr; // a type constraint's name ("T") or a type ("tensor(int64)")
  OnnxParamOption option;
  bool isHomogeneous; // a variadic parameter's values all of one type
  int minArity;
};

struct OnnxTypeConstraintSchema {
  const char *name;
  int firstType, numTypes; // a range of the generated kOnnxConstraintTypes
};

struct OnnxOpSchema {
  const char *name;
  int sinceVersion;
  bool deprecated;
  int minInputs, maxInputs, minOutputs, maxOutputs;
  int firstAttribute, numAttributes;
  int firstParam, numInputs, numOutputs; // inputs, then outputs, from firstParam on
  int firstConstraint, numConstraints;
};

/// The schema of ai.onnx op `opType` in effect at `opset` (its newest version not after it),
/// or null when the op is not defined there; then `firstOpset` is the opset that introduced
/// it, or 0 for no ai.onnx op of that name.
const OnnxOpSchema *lookupOnnxSchema(llvm::StringRef opType, int64_t opset, int64_t &firstOpset);

/// The newest ai.onnx opset the schemas know.
int64_t newestSchemaOpset();

/// The most bytes one tensor may take: user space on x86-64 and aarch64 (2^47).
constexpr int64_t kMaxTensorBytes = int64_t(1) << 47;

/// Elements of `shape`, or nullopt when a dim is negative or the count overflows int64.
std::optional<int64_t> elementCount(llvm::ArrayRef<int64_t> shape);

/// Checks the model as described above. `opset` is its ai.onnx opset; every problem is
/// passed to `report` (one per offending node, tensor or graph, in graph order), each message
/// whole, naming the node, op and opset. Returns the number of problems.
int validateOnnxModel(const onnx::ModelProto &model, int64_t opset,
                      llvm::function_ref<void(const std::string &)> report);

/// Checks the element types of node `n`'s inputs against its schema's type constraints:
/// each allowed, and a constraint's inputs all of one type. Emits the error through `n`.
mlir::LogicalResult checkInputTypes(NodeImporter &n);

/// What attribute `a` holds (an onnx::AttributeProto::AttributeType): its type field, or
/// without one (old exporters) the kind of value present; UNDEFINED for an empty list, or
/// a type field that contradicts the value.
int attributeTypeOf(const onnx::AttributeProto &a);

/// The ONNX name of an MLIR element type as the schemas write it ("float", "uint8"), or
/// null for a type ONNX lacks.
const char *onnxTypeName(mlir::Type elementType);

} // namespace infc

#endif // INFC_LIB_IMPORT_ONNX_ONNXVALIDATION_H

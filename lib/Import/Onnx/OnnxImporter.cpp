//===- OnnxImporter.cpp - ONNX model and graph import ---------------------===//
//
// Reads the protobuf, resolves initializers (raw, typed and external data), fixes input
// shapes, then imports the nodes in order through the per-op ImportFns. Unsupported nodes
// are all collected and reported together before anything is built.
//
//===----------------------------------------------------------------------===//
#include "infc/Import/OnnxImporter.h"
#include "NodeImporter.h"
#include "OnnxValidation.h"
#include "infc/runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <map>
#include <set>

using namespace mlir;
using namespace infc;

//===----------------------------------------------------------------------===//
// Types and the op registry
//===----------------------------------------------------------------------===//

/// TensorProto.DataType values newer than the onnx.proto Debian ships (IR version 9+).
enum NewerOnnxDataType : int32_t {
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};

Type infc::onnxElementType(MLIRContext *ctx, int32_t dataType) {
  switch (dataType) {
  case kFloat8E4M3FN:
    return Float8E4M3FNType::get(ctx);
  case kFloat8E4M3FNUZ:
    return Float8E4M3FNUZType::get(ctx);
  case kFloat8E5M2:
    return Float8E5M2Type::get(ctx);
  case kFloat8E5M2FNUZ:
    return Float8E5M2FNUZType::get(ctx);
  case kFloat4E2M1:
    return Float4E2M1FNType::get(ctx);
  case kInt4:
    return IntegerType::get(ctx, 4);
  case kUInt4:
    return IntegerType::get(ctx, 4, IntegerType::Unsigned);
  case kInt2:
    return IntegerType::get(ctx, 2);
  case kUInt2:
    return IntegerType::get(ctx, 2, IntegerType::Unsigned);
  case onnx::TensorProto::FLOAT:
    return Float32Type::get(ctx);
  case onnx::TensorProto::DOUBLE:
    return Float64Type::get(ctx);
  case onnx::TensorProto::INT8:
    return IntegerType::get(ctx, 8);
  case onnx::TensorProto::INT16:
    return IntegerType::get(ctx, 16);
  case onnx::TensorProto::INT32:
    return IntegerType::get(ctx, 32);
  case onnx::TensorProto::INT64:
    return IntegerType::get(ctx, 64);
  case onnx::TensorProto::BOOL:
    return IntegerType::get(ctx, 1);
  // MLIR's arith is signless; the infc dialect keeps ONNX's unsigned types as `ui<N>` so
  // every op knows its signedness, and the lowering to linalg picks unsigned arith ops.
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case onnx::TensorProto::FLOAT16:
    return Float16Type::get(ctx);
  case onnx::TensorProto::BFLOAT16:
    return BFloat16Type::get(ctx);
  default:
    return nullptr;
  }
}

const char *infc::onnxDataTypeName(int32_t dataType) {
  static const char *names[] = {
      "undefined",      "float",    "uint8",        "int8",           "uint16",
      "int16",          "int32",    "int64",        "string",         "bool",
      "float16",        "double",   "uint32",       "uint64",         "complex64",
      "complex128",     "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
      "float8e5m2fnuz", "uint4",    "int4",         "float4e2m1",     "float8e8m0",
      "uint2",          "int2"};
  if (dataType >= 0 && dataType < (int32_t)std::size(names))
    return names[dataType];
  return "unknown";
}

const ImportRegistry &infc::importRegistry() {
  static const ImportRegistry registry = [] {
    ImportRegistry r;
    registerElementwiseImporters(r);
    registerConvolutionImporters(r);
    registerPoolingImporters(r);
    registerNormalizationImporters(r);
    registerLinearImporters(r);
    registerReductionImporters(r);
    registerShapeImporters(r);
    registerIndexingImporters(r);
    registerResamplingImporters(r);
    registerCompositeImporters(r);
    registerQuantizationImporters(r);
    registerAttentionImporters(r);
    registerLossImporters(r);
    registerRecurrentImporters(r);
    registerControlFlowImporters(r);
    registerIntegerOpImporters(r);
    registerSignalImporters(r);
    registerGridSampleImporters(r);
    return r;
  }();
  return registry;
}

bool infc::isSupportedOnnxOp(StringRef opType) { return importRegistry().count(opType); }

std::vector<StringRef> infc::supportedOnnxOps() {
  std::vector<StringRef> ops;
  for (const auto &entry : importRegistry())
    ops.push_back(entry.getKey());
  llvm::sort(ops);
  return ops;
}

/// The newest ai.onnx opset the importers were checked against (the pinned onnx 1.23 knows
/// 28; the ops imported here have not changed meaning since their opset-18 forms).
constexpr int64_t kNewestOpset = 28;

/// A dimension with a value that is not negative: exporters such as paddle2onnx write
/// dim_value -1 for a dynamic dimension (onnxruntime reads it as one too).
static bool isFixedDim(const onnx::TensorShapeProto::Dimension &dim) {
  return dim.has_dim_value() && dim.dim_value() >= 0;
}

static bool isDefaultDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}

//===----------------------------------------------------------------------===//
// NodeImporter
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *NodeImporter::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

/// The attribute `name` when it holds `type`; otherwise (the validation against the schema
/// lets no such model through, so an importer asked for the wrong type) an error and null.
const onnx::AttributeProto *NodeImporter::typedAttr(StringRef name, int type) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return nullptr;
  int held = attributeTypeOf(*a);
  bool isList = type >= onnx::AttributeProto::FLOATS &&
                type != onnx::AttributeProto::SPARSE_TENSOR &&
                type != onnx::AttributeProto::TYPE_PROTO;
  if (held == type || (held == onnx::AttributeProto::UNDEFINED && isList))
    return a;
  const_cast<NodeImporter *>(this)->error()
      << "attribute '" << name << "' is not of the type this op reads ("
      << onnx::AttributeProto::AttributeType_Name(
             static_cast<onnx::AttributeProto::AttributeType>(type))
      << ")";
  return nullptr;
}

int64_t NodeImporter::getInt(StringRef name, int64_t def) const {
  const onnx::AttributeProto *a = typedAttr(name, onnx::AttributeProto::INT);
  return a ? a->i() : def;
}

double NodeImporter::getFloat(StringRef name, double def) const {
  const onnx::AttributeProto *a = typedAttr(name, onnx::AttributeProto::FLOAT);
  return a ? a->f() : def;
}

std::string NodeImporter::getString(StringRef name, StringRef def) const {
  const onnx::AttributeProto *a = typedAttr(name, onnx::AttributeProto::STRING);
  return a ? a->s() : def.str();
}

SmallVector<int64_t> NodeImporter::getInts(StringRef name, ArrayRef<int64_t> def) const {
  const onnx::AttributeProto *a = typedAttr(name, onnx::AttributeProto::INTS);
  if (!a)
    return SmallVector<int64_t>(def);
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

DenseElementsAttr NodeImporter::constantInput(unsigned i) const {
  Value v = input(i);
  DenseElementsAttr attr;
  if (v && matchPattern(v, m_Constant(&attr)))
    return attr;
  return nullptr;
}

InFlightDiagnostic NodeImporter::notConstant(unsigned i, StringRef what) {
  // The graph inputs behind input i: the entry block's arguments its computation reads.
  llvm::SetVector<Value> seen;
  llvm::SmallVector<std::string> names;
  llvm::SmallVector<Value> work{input(i)};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!v || !seen.insert(v))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
      auto name =
          func ? func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "infc.name") : StringAttr();
      names.push_back(name ? name.str() : "#" + std::to_string(arg.getArgNumber()));
    } else if (Operation *def = v.getDefiningOp()) {
      llvm::append_range(work, def->getOperands());
    }
  }
  llvm::sort(names);
  InFlightDiagnostic d = error();
  d << what << " (input " << i << ") must be a compile-time constant; it depends on ";
  if (names.empty()) {
    d << "run-time values";
    return d;
  }
  d << "graph input" << (names.size() > 1 ? "s " : " ");
  for (auto [k, name] : llvm::enumerate(names))
    d << (k ? ", '" : "'") << name << "'";
  d << " (fix " << (names.size() > 1 ? "their values" : "its value") << " with --input-value "
    << names[0] << "=FILE.npy)";
  return d;
}

std::optional<SmallVector<int64_t>> NodeImporter::constantInts(unsigned i, StringRef what) {
  DenseElementsAttr attr = constantInput(i);
  if (!attr || !isa<IntegerType>(attr.getElementType())) {
    if (attr)
      error() << what << " (input " << i << ") must be an int tensor, got "
              << attr.getElementType();
    else
      notConstant(i, what);
    return std::nullopt;
  }
  SmallVector<int64_t> values;
  for (APInt v : attr.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

Value NodeImporter::foldNow(Operation *op) {
  SmallVector<Attribute> operands;
  int64_t operandElements = 0;
  for (Value v : op->getOperands()) {
    Attribute a;
    matchPattern(v, m_Constant(&a));
    operands.push_back(a);
    if (auto dense = dyn_cast_or_null<DenseElementsAttr>(a); dense && !dense.isSplat())
      operandElements += dense.getNumElements();
  }
  // A fold that would build a large constant out of a smaller one (Expand, Tile, a splat
  // widened by an elementwise op: the folders expand splats) is left to run time: the
  // compiler's memory is not the model's.
  if (op->getNumResults() == 1)
    if (auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType()))
      if (std::optional<int64_t> n = elementCount(type.getShape());
          !n || (*n > kMaxMaterializedElements && *n > operandElements))
        return op->getResult(0);
  // After an error the node fails whatever follows: nothing more is computed for it.
  if (hadError)
    return op->getResult(0);
  SmallVector<OpFoldResult> folded;
  if (op->getNumResults() != 1 || failed(op->fold(operands, folded)) || folded.empty())
    return op->getResult(0);
  if (auto v = dyn_cast<Value>(folded[0])) {
    op->erase();
    return v;
  }
  auto attr = dyn_cast<DenseElementsAttr>(cast<Attribute>(folded[0]));
  if (!attr)
    return op->getResult(0);
  op->erase();
  return constant(attr);
}

Value NodeImporter::failedOp(StringRef opName, StringRef why, ValueRange operands) {
  error() << "cannot build " << opName << ": " << why;
  // Zeros of the first tensor operand's type: something of a plausible shape for the rest of
  // the importer to read until it returns.
  RankedTensorType type = RankedTensorType::get({}, b.getF32Type());
  for (Value v : operands)
    if (auto t = dyn_cast<RankedTensorType>(v.getType());
        t && t.hasStaticShape() && t.getNumElements() >= 0) {
      type = t;
      break;
    }
  Attribute zero = b.getZeroAttr(type.getElementType());
  if (!zero)
    type = RankedTensorType::get({}, b.getF32Type()), zero = b.getF32FloatAttr(0);
  return constant(SplatElementsAttr::get(type, zero));
}

Value NodeImporter::constant(DenseElementsAttr value) {
  return ConstantOp::create(b, loc, cast<ElementsAttr>(value));
}

Value NodeImporter::scalarLike(Value like, double value) {
  auto type = RankedTensorType::get({}, cast<RankedTensorType>(like.getType()).getElementType());
  Type et = type.getElementType();
  if (auto ft = dyn_cast<FloatType>(et)) {
    APFloat f(value);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return constant(DenseElementsAttr::get(type, f));
  }
  // A value past int64 (an attribute's 1e30, say) saturates; NaN is 0.
  int64_t whole = std::isnan(value) ? 0
                  : value >= 0x1p63 ? INT64_MAX
                  : value < -0x1p63 ? INT64_MIN
                                    : (int64_t)value;
  return constant(
      DenseElementsAttr::get(type, APInt(et.getIntOrFloatBitWidth(), (uint64_t)whole, true, true)));
}

Value NodeImporter::reshape(Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return create<ReshapeOp>(RankedTensorType::get(shape, type.getElementType()), v);
}

Value NodeImporter::sliceAxis(Value v, int64_t axis, int64_t offset, int64_t size) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> offsets(type.getRank(), 0), sizes(type.getShape()), steps(type.getRank(), 1);
  offsets[axis] = offset;
  sizes[axis] = size;
  return create<SliceOp>(v, b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
                         b.getDenseI64ArrayAttr(steps));
}

Value NodeImporter::castElements(Value v, Type elementType) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elementType)
    return v;
  return create<CastOp>(type.clone(elementType), v);
}

Type NodeImporter::computeType(Type et) { return et.isF16() || et.isBF16() ? b.getF32Type() : et; }

Value NodeImporter::matmul(Value lhs, Value rhs) {
  Type et = cast<RankedTensorType>(lhs.getType()).getElementType(), wide = computeType(et);
  if (wide == et)
    return create<MatMulOp>(lhs, rhs);
  return castElements(create<MatMulOp>(castElements(lhs, wide), castElements(rhs, wide)), et);
}

std::optional<int64_t> NodeImporter::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    error() << "axis " << axis << " is out of range for rank " << rank;
    return std::nullopt;
  }
  return axis < 0 ? axis + rank : axis;
}

bool NodeImporter::tableFits(ArrayRef<int64_t> dims, StringRef what) {
  std::optional<int64_t> n = elementCount(dims);
  if (n && *n <= kMaxMaterializedElements)
    return true;
  InFlightDiagnostic d = error();
  d << "needs " << what << " of ";
  if (n)
    d << *n;
  else
    d << "more than 2^63";
  d << " elements, more than the " << kMaxMaterializedElements << " the compiler builds";
  return false;
}

InFlightDiagnostic NodeImporter::error() {
  hadError = true;
  std::string domain = isDefaultDomain(node.domain()) ? "" : node.domain() + ":";
  // An unnamed node goes by the name its location gives it (op type and import order).
  std::string name = node.name();
  if (auto named = dyn_cast<NameLoc>(loc); named && name.empty())
    name = named.getName().strref().rsplit('(').first.str();
  return emitError(loc) << "node '" << name << "' (" << domain << node.op_type() << ", opset "
                        << opset << "): ";
}

//===----------------------------------------------------------------------===//
// Model import
//===----------------------------------------------------------------------===//

namespace {
class ModelImporter {
public:
  ModelImporter(MLIRContext &ctx, StringRef path, const OnnxImportOptions &options,
                std::optional<StringRef> bytes = std::nullopt)
      : ctx(ctx), path(path), options(options), bytes(bytes), b(&ctx),
        fileLoc(FileLineColLoc::get(&ctx, path, 0, 0)) {}

  OwningOpRef<ModuleOp> run();

private:
  InFlightDiagnostic error() { return emitError(fileLoc); }
  LogicalResult loadModel();
  LogicalResult checkSupported();
  std::optional<DenseElementsAttr> importTensor(const onnx::TensorProto &tensor);
  LogicalResult readExternalData(const onnx::TensorProto &tensor, std::string &bytes);
  RankedTensorType inputType(const onnx::ValueInfoProto &info);
  LogicalResult importNode(const onnx::NodeProto &node);
  int64_t importedNodes = 0;
  int64_t errorCount = 0;              // errors emitted in the context since run() began
  int64_t nodeFirstError = -1;         // errorCount when the node being imported began (-1: none)
  NodeImporter *currentNode = nullptr; // the node whose importer runs
  LogicalResult checkTypes(ModuleOp module);
  FailureOr<SmallVector<Value>> importSubgraph(const onnx::GraphProto &graph, ValueRange args);
  void listUnsupported(const onnx::GraphProto &graph, std::string &list, int &count);

  MLIRContext &ctx;
  std::string path;
  const OnnxImportOptions &options;
  std::optional<StringRef> bytes; // the model, when given in memory rather than at `path`
  OpBuilder b;
  Location fileLoc;
  onnx::ModelProto model;
  int64_t opset = 0;
  llvm::StringMap<Value> values;
};
} // namespace

LogicalResult ModelImporter::loadModel() {
  std::unique_ptr<llvm::MemoryBuffer> file;
  if (!bytes) {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
    if (!buffer)
      return error() << "cannot read the model: " << buffer.getError().message();
    file = std::move(*buffer);
    bytes = file->getBuffer();
  }
  if (bytes->size() > (size_t)INT_MAX)
    return error() << "the model is larger than protobuf reads (2 GiB); keep its weights "
                      "in external data";
  google::protobuf::io::ArrayInputStream raw(bytes->data(), (int)bytes->size());
  google::protobuf::io::CodedInputStream stream(&raw);
  stream.SetTotalBytesLimit(INT_MAX);
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    return error() << "not a valid ONNX model (protobuf parse failed: the file is not ONNX "
                      "or is truncated)";
  if (!model.has_graph() || model.ir_version() == 0)
    return error() << "not a valid ONNX model (no ir_version or graph)";
  for (const onnx::OperatorSetIdProto &o : model.opset_import())
    if (isDefaultDomain(o.domain()))
      opset = o.version();
  if (opset == 0)
    return error() << "the model imports no default-domain opset";
  if (opset > kNewestOpset)
    return error() << "the model uses ai.onnx opset " << opset
                   << ", newer than the newest infc knows (" << kNewestOpset << ")";
  return success();
}

/// Every unsupported node of `graph` and of the subgraphs its nodes hold (If branches,
/// Scan and Loop bodies).
void ModelImporter::listUnsupported(const onnx::GraphProto &graph, std::string &list, int &count) {
  std::map<std::string, int64_t> domainOpsets;
  for (const onnx::OperatorSetIdProto &o : model.opset_import())
    domainOpsets[o.domain()] = o.version();
  for (const onnx::NodeProto &node : graph.node()) {
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.has_g())
        listUnsupported(a.g(), list, count);
    bool ok = isDefaultDomain(node.domain()) && isSupportedOnnxOp(node.op_type());
    if (ok)
      continue;
    std::string domain = isDefaultDomain(node.domain()) ? "" : node.domain() + ":";
    int64_t version = isDefaultDomain(node.domain()) ? opset : domainOpsets[node.domain()];
    list += (count++ ? ", '" : "'") + node.name() + "' (" + domain + node.op_type() + ", opset " +
            std::to_string(version) + ")";
  }
}

LogicalResult ModelImporter::checkSupported() {
  std::string list;
  int count = 0;
  listUnsupported(model.graph(), list, count);
  if (count)
    return error() << count << " unsupported node" << (count > 1 ? "s" : "") << ": " << list;
  return success();
}

LogicalResult ModelImporter::readExternalData(const onnx::TensorProto &tensor, std::string &bytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  std::string badNumber;
  for (const onnx::StringStringEntryProto &e : tensor.external_data()) {
    if (e.key() == "location")
      location = e.value();
    else if ((e.key() == "offset" || e.key() == "length") &&
             StringRef(e.value()).getAsInteger(10, e.key() == "offset" ? offset : length))
      badNumber = e.key() + " '" + e.value() + "'";
  }
  auto fail = [&]() {
    return error() << "initializer '" << tensor.name() << "': external data '" << location << "': ";
  };
  if (!badNumber.empty())
    return fail() << "the " << badNumber << " is not a number";
  if (location.empty())
    return fail() << "no location given";
  // Only files inside the model's folder: a model must not read arbitrary files.
  SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  SmallString<256> realDir, realFile, file(dir), lexical(location);
  llvm::sys::path::append(file, location);
  // First lexically ("../x" escapes whether or not it exists), then through symlinks.
  llvm::sys::path::remove_dots(lexical, /*remove_dot_dot=*/true);
  if (llvm::sys::path::is_absolute(location) || StringRef(lexical).starts_with("..") ||
      llvm::sys::fs::real_path(dir, realDir))
    return fail() << "refusing a location outside the model's folder";
  if (std::error_code ec = llvm::sys::fs::real_path(file, realFile))
    return fail() << "cannot open the file: " << ec.message();
  if (!StringRef(realFile).starts_with((realDir + llvm::sys::path::get_separator()).str()))
    return fail() << "refusing a location outside the model's folder";
  auto buffer = llvm::MemoryBuffer::getFile(realFile, /*IsText=*/false);
  if (!buffer)
    return fail() << "cannot read the file: " << buffer.getError().message();
  int64_t size = (*buffer)->getBufferSize();
  if (length < 0)
    length = size - offset;
  if (offset < 0 || length < 0 || offset > size || length > size - offset)
    return fail() << "offset " << offset << " + length " << length << " exceeds the file size "
                  << size;
  bytes.assign((*buffer)->getBufferStart() + offset, length);
  return success();
}

FailureOr<DenseElementsAttr> infc::denseFromTensorProto(Type elementType,
                                                        const onnx::TensorProto &t,
                                                        const std::string *externalBytes,
                                                        std::string &error) {
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  auto type = RankedTensorType::get(shape, elementType);
  int64_t n = type.getNumElements();
  unsigned bits = elementType.getIntOrFloatBitWidth();
  if (bits < 8 && bits > 1) {
    // 4- and 2-bit types are packed, low bits first, in raw_data or in int32_data (one
    // packed byte per int32); MLIR keeps one element per byte.
    std::string packed;
    if (externalBytes)
      packed = *externalBytes;
    else if (t.has_raw_data())
      packed = t.raw_data();
    else
      for (int32_t v : t.int32_data())
        packed.push_back((char)v);
    int64_t perByte = 8 / bits;
    if ((int64_t)packed.size() != (n + perByte - 1) / perByte) {
      error = "holds " + std::to_string(packed.size()) + " bytes, expected " +
              std::to_string((n + perByte - 1) / perByte) + " (" + std::to_string(bits) +
              "-bit values packed)";
      return failure();
    }
    std::string raw(n, '\0');
    for (int64_t i = 0; i < n; ++i)
      raw[i] =
          (char)(((uint8_t)packed[i / perByte] >> (bits * (i % perByte))) & ((1u << bits) - 1));
    return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(raw.data(), raw.size()));
  }
  int64_t width = elementType.isInteger(1) ? 1 : bits / 8;

  std::string raw;
  if (externalBytes) {
    raw = *externalBytes;
  } else if (t.has_raw_data()) {
    raw = t.raw_data();
  } else {
    // Typed fields: pack them into the raw little-endian layout, once their count is known
    // to match (dims may promise far more than the file holds).
    int64_t given =
        t.data_type() == onnx::TensorProto::FLOAT    ? t.float_data_size()
        : t.data_type() == onnx::TensorProto::DOUBLE ? t.double_data_size()
        : t.data_type() == onnx::TensorProto::INT64  ? t.int64_data_size()
        : t.data_type() == onnx::TensorProto::UINT32 || t.data_type() == onnx::TensorProto::UINT64
            ? t.uint64_data_size()
            : t.int32_data_size();
    if (given != n) {
      error = "holds " + std::to_string(given) + " values for a shape of " + std::to_string(n) +
              " elements";
      return failure();
    }
    raw.resize(n * width);
    auto put = [&](int64_t i, auto v) { std::memcpy(raw.data() + i * width, &v, width); };
    int64_t count = 0;
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      count = t.float_data_size();
      for (int64_t i = 0; i < std::min(count, n); ++i)
        put(i, t.float_data(i));
      break;
    case onnx::TensorProto::DOUBLE:
      count = t.double_data_size();
      for (int64_t i = 0; i < std::min(count, n); ++i)
        put(i, t.double_data(i));
      break;
    case onnx::TensorProto::INT64:
      count = t.int64_data_size();
      for (int64_t i = 0; i < std::min(count, n); ++i)
        put(i, t.int64_data(i));
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      count = t.uint64_data_size();
      for (int64_t i = 0; i < std::min(count, n); ++i) {
        uint64_t v = t.uint64_data(i);
        std::memcpy(raw.data() + i * width, &v, width); // little-endian truncation
      }
      break;
    default: // (u)int8/16, int32, bool and the bits of float16/bfloat16 travel in int32_data
      count = t.int32_data_size();
      for (int64_t i = 0; i < std::min(count, n); ++i) {
        int32_t v = t.int32_data(i);
        std::memcpy(raw.data() + i * width, &v, width); // little-endian truncation
      }
      break;
    }
    if (count != n) {
      error = "holds " + std::to_string(count) + " values for a shape of " + std::to_string(n) +
              " elements";
      return failure();
    }
  }
  if ((int64_t)raw.size() != n * width) {
    error = "holds " + std::to_string(raw.size()) + " bytes, expected " + std::to_string(n * width);
    return failure();
  }
  if (elementType.isInteger(1)) {
    SmallVector<bool> bits;
    for (char c : raw)
      bits.push_back(c != 0);
    return DenseElementsAttr::get(type, bits);
  }
  return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(raw.data(), raw.size()));
}

std::optional<DenseElementsAttr> ModelImporter::importTensor(const onnx::TensorProto &t) {
  Type et = onnxElementType(&ctx, t.data_type());
  if (!et) {
    error() << "initializer '" << t.name() << "' has unsupported dtype "
            << onnxDataTypeName(t.data_type());
    return std::nullopt;
  }
  std::string external, problem;
  if (t.data_location() == onnx::TensorProto::EXTERNAL && failed(readExternalData(t, external)))
    return std::nullopt;
  FailureOr<DenseElementsAttr> attr = denseFromTensorProto(
      et, t, t.data_location() == onnx::TensorProto::EXTERNAL ? &external : nullptr, problem);
  if (failed(attr)) {
    error() << "initializer '" << t.name() << "' " << problem;
    return std::nullopt;
  }
  return *attr;
}

RankedTensorType ModelImporter::inputType(const onnx::ValueInfoProto &info) {
  const std::string &name = info.name();
  if (!info.type().has_tensor_type()) {
    error() << "graph input '" << name << "' is not a tensor (sequences and maps are "
            << "unsupported)";
    return nullptr;
  }
  const onnx::TypeProto::Tensor &tt = info.type().tensor_type();
  Type et = onnxElementType(&ctx, tt.elem_type());
  if (!et) {
    error() << "graph input '" << name << "' has unsupported dtype "
            << onnxDataTypeName(tt.elem_type());
    return nullptr;
  }
  // A shape from --input-shape, else from the array of --input-value.
  std::optional<SmallVector<int64_t>> given;
  const char *flag = "--input-shape";
  if (auto it = options.inputShapes.find(name); it != options.inputShapes.end()) {
    given = it->second;
  } else if (auto v = options.inputValues.find(name); v != options.inputValues.end()) {
    given = SmallVector<int64_t>(v->second.shape.begin(), v->second.shape.end());
    flag = "--input-value";
  }
  if (!tt.has_shape()) {
    if (!given) {
      error() << "graph input '" << name << "' has no shape; pass --input-shape " << name
              << "=D0xD1x... to give one";
      return nullptr;
    }
    return RankedTensorType::get(*given, et);
  }
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &d : tt.shape().dim())
    shape.push_back(isFixedDim(d) ? d.dim_value() : ShapedType::kDynamic);
  if (given) {
    ArrayRef<int64_t> g = *given;
    if (g.size() != shape.size()) {
      error() << flag << " " << name << " has rank " << g.size() << " but the graph input has rank "
              << shape.size();
      return nullptr;
    }
    for (size_t d = 0; d < g.size(); ++d)
      if (!ShapedType::isDynamic(shape[d]) && shape[d] != g[d]) {
        error() << flag << " " << name << " sets dim " << d << " to " << g[d]
                << " but the graph fixes it to " << shape[d];
        return nullptr;
      }
    return RankedTensorType::get(g, et);
  }
  for (int d = 0; d < tt.shape().dim_size(); ++d) {
    if (!ShapedType::isDynamic(shape[d]))
      continue;
    const auto &dim = tt.shape().dim(d);
    std::string example;
    for (size_t k = 0; k < shape.size(); ++k)
      example += (k ? "x" : "") +
                 (ShapedType::isDynamic(shape[k]) ? std::string("N") : std::to_string(shape[k]));
    error() << "graph input '" << name << "' has symbolic dim "
            << (dim.has_dim_param() ? "'" + dim.dim_param() + "'" : std::string("?")) << " (dim "
            << d << "); pass --input-shape " << name << "=" << example << " with N set to fix it";
    return nullptr;
  }
  return RankedTensorType::get(shape, et);
}

/// The value of --input-value as `type`'s elements: its bytes when the dtypes agree, else
/// each element converted, which must be exact (an npy file cannot hold bfloat16, so a
/// float32 array of bfloat16 values serves; an int64 array may give int32 axes).
static DenseElementsAttr
inputValueAttr(RankedTensorType type, const OnnxImportOptions::InputValue &v, std::string &error) {
  Type et = type.getElementType();
  int64_t count = type.getNumElements();
  struct Source {
    int32_t dtype;
    unsigned bytes;
    bool isFloat, isSigned;
  };
  static const Source kSources[] = {
      {INFC_F32, 4, true, true},   {INFC_F64, 8, true, true},   {INFC_F16, 2, true, true},
      {INFC_I8, 1, false, true},   {INFC_I16, 2, false, true},  {INFC_I32, 4, false, true},
      {INFC_I64, 8, false, true},  {INFC_U8, 1, false, false},  {INFC_U16, 2, false, false},
      {INFC_U32, 4, false, false}, {INFC_U64, 8, false, false}, {INFC_BOOL, 1, false, false}};
  const Source *src = nullptr;
  for (const Source &s : kSources)
    if (s.dtype == v.dtype)
      src = &s;
  if (!src || (int64_t)v.data.size() != count * src->bytes) {
    error = "holds " + std::to_string(v.data.size()) + " bytes of dtype code " +
            std::to_string(v.dtype) + ", which do not make the " + std::to_string(count) +
            " elements of the input";
    return nullptr;
  }
  // Same element type: the bytes as they are (a bool is a byte here, a bit in the attribute).
  bool sameType = (src->isFloat && isa<FloatType>(et) &&
                   et.getIntOrFloatBitWidth() == src->bytes * 8 && !et.isBF16()) ||
                  (!src->isFloat && v.dtype != INFC_BOOL && et.isInteger(src->bytes * 8) &&
                   et.isUnsignedInteger() == !src->isSigned) ||
                  (v.dtype == INFC_BOOL && et.isInteger(1));
  if (sameType && et.isInteger(1))
    return DenseElementsAttr::get(type, SmallVector<bool>(v.data.begin(), v.data.end()));
  if (sameType)
    return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(v.data));
  SmallVector<APFloat> floats;
  SmallVector<APInt> ints;
  for (int64_t i = 0; i < count; ++i) {
    const char *p = v.data.data() + i * src->bytes;
    uint64_t raw = 0;
    memcpy(&raw, p, src->bytes);
    APInt bits(src->bytes * 8, raw);
    APFloat value(0.0);
    if (src->isFloat) {
      const llvm::fltSemantics &sem = src->bytes == 2   ? APFloat::IEEEhalf()
                                      : src->bytes == 4 ? APFloat::IEEEsingle()
                                                        : APFloat::IEEEdouble();
      value = APFloat(sem, bits);
    }
    if (auto ft = dyn_cast<FloatType>(et)) {
      bool lost = false;
      if (!src->isFloat) {
        value = APFloat(ft.getFloatSemantics());
        lost = value.convertFromAPInt(bits, src->isSigned, APFloat::rmNearestTiesToEven) !=
               APFloat::opOK;
      } else {
        bool losesInfo = false;
        APFloat::opStatus status =
            value.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
        lost = losesInfo || (status != APFloat::opOK && !value.isNaN());
      }
      if (lost) {
        error = "element " + std::to_string(i) + " has no exact value of the input's dtype";
        return nullptr;
      }
      floats.push_back(value);
      continue;
    }
    auto it = cast<IntegerType>(et);
    APSInt exact(it.getWidth(), it.isUnsigned() || it.getWidth() == 1);
    bool isExact = false;
    if (src->isFloat) {
      value.convertToInteger(exact, APFloat::rmTowardZero, &isExact);
      isExact = isExact && !value.isNaN();
      APFloat back(value.getSemantics());
      back.convertFromAPInt(exact, !exact.isUnsigned(), APFloat::rmNearestTiesToEven);
      isExact = isExact && back.compare(value) == APFloat::cmpEqual;
    } else {
      APSInt wide(src->isSigned ? bits.sext(128) : bits.zext(128), !src->isSigned);
      APSInt narrow = wide.extOrTrunc(it.getWidth());
      narrow.setIsUnsigned(exact.isUnsigned());
      isExact = APSInt::isSameValue(narrow, wide);
      exact = narrow;
    }
    if (!isExact) {
      error = "element " + std::to_string(i) + " has no exact value of the input's dtype";
      return nullptr;
    }
    ints.push_back(exact);
  }
  if (!floats.empty())
    return DenseElementsAttr::get(type, floats);
  if (et.isInteger(1)) {
    SmallVector<bool> bools;
    for (const APInt &b : ints)
      bools.push_back(!b.isZero());
    return DenseElementsAttr::get(type, bools);
  }
  return DenseElementsAttr::get(type, ints);
}

LogicalResult ModelImporter::importNode(const onnx::NodeProto &node) {
  // An unnamed node is located by its op type and import order, so that reports and
  // --keep-float can tell nodes apart.
  std::string name =
      node.name().empty() ? node.op_type() + "_" + std::to_string(importedNodes) : node.name();
  ++importedNodes;
  std::string locName = name + "(" + node.op_type() + ")";
  Location loc = NameLoc::get(StringAttr::get(&ctx, locName), fileLoc);
  SmallVector<Value> inputs;
  for (const std::string &name : node.input()) {
    if (name.empty()) {
      inputs.push_back(nullptr);
      continue;
    }
    auto it = values.find(name);
    if (it == values.end())
      return emitError(loc) << "node '" << locName.substr(0, locName.rfind('(')) << "' ("
                            << node.op_type() << ", opset " << opset << "): input '" << name
                            << "' is not produced by any earlier node";
    inputs.push_back(it->second);
  }
  NodeImporter importer(node, loc, b, opset, inputs);
  importer.importGraph = [this](const onnx::GraphProto &graph, ValueRange args) {
    return importSubgraph(graph, args);
  };
  int64_t outerFirstError = nodeFirstError;
  nodeFirstError = errorCount;
  llvm::scope_exit restoreFirstError([&] { nodeFirstError = outerFirstError; });
  if (failed(checkInputTypes(importer)))
    return failure();
  const ImportFn &fn = importRegistry().find(node.op_type())->second;
  NodeImporter *outerNode = currentNode;
  currentNode = &importer;
  llvm::scope_exit restoreNode([&] { currentNode = outerNode; });
  // The ops the node builds go before the insertion point: remember what precedes them.
  Block *block = b.getInsertionBlock();
  Operation *before =
      b.getInsertionPoint() == block->begin() ? nullptr : &*std::prev(b.getInsertionPoint());
  // An importer that reported an error but went on building has failed all the same.
  int64_t errorsBefore = errorCount;
  if (failed(fn(importer)) || errorCount != errorsBefore)
    return failure();
  // The node's ops verify before the next node builds on them: operands an op cannot take
  // are this node's error (named as such), not a crash in a later importer.
  for (Operation &op : llvm::make_range(before ? std::next(before->getIterator()) : block->begin(),
                                        b.getInsertionPoint()))
    if (failed(verify(&op)))
      return failure();
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty())
      continue;
    if (i >= (int)importer.results.size() || !importer.results[i])
      return importer.error() << "output " << i << " ('" << node.output(i) << "') is not supported";
    values[node.output(i)] = importer.results[i];
  }
  return success();
}

FailureOr<SmallVector<Value>> ModelImporter::importSubgraph(const onnx::GraphProto &graph,
                                                            ValueRange args) {
  if ((int)args.size() != graph.input_size())
    return emitError(fileLoc) << "subgraph '" << graph.name() << "' takes " << graph.input_size()
                              << " inputs, given " << args.size();
  // The body's names shadow outer ones only while it is imported.
  llvm::StringMap<Value> outer = values;
  llvm::scope_exit restore([&] { values = std::move(outer); });
  for (const onnx::TensorProto &t : graph.initializer()) {
    std::optional<DenseElementsAttr> attr = importTensor(t);
    if (!attr)
      return failure();
    values[t.name()] = ConstantOp::create(b, fileLoc, cast<ElementsAttr>(*attr));
  }
  for (auto [info, arg] : llvm::zip(graph.input(), args))
    values[info.name()] = arg;
  for (const onnx::NodeProto &node : graph.node())
    if (failed(importNode(node)))
      return failure();
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    auto it = values.find(out.name());
    if (it == values.end())
      return emitError(fileLoc) << "subgraph '" << graph.name() << "' output '" << out.name()
                                << "' is not produced by any node";
    results.push_back(it->second);
  }
  return results;
}

OwningOpRef<ModuleOp> ModelImporter::run() {
  // Counts the errors, then lets the tool's handler print them.
  DiagnosticEngine::HandlerID counter = ctx.getDiagEngine().registerHandler([&](Diagnostic &d) {
    if (d.getSeverity() != DiagnosticSeverity::Error)
      return failure();
    // An error raised while a node imports (an op's verifier, say) names the node as the
    // importers' own errors do; the message goes round again with the prefix.
    if (currentNode && !StringRef(d.str()).starts_with("node '")) {
      std::string message = d.str();
      currentNode->error() << message;
      return success();
    }
    // One error a node: what follows its first is a consequence of it.
    bool consequence = nodeFirstError >= 0 && errorCount > nodeFirstError;
    ++errorCount;
    return success(consequence);
  });
  llvm::scope_exit unregister([&] { ctx.getDiagEngine().eraseHandler(counter); });
  if (failed(loadModel()))
    return nullptr;
  if (validateOnnxModel(model, opset, [&](const std::string &m) { error() << m; }))
    return nullptr;
  if (failed(checkSupported()))
    return nullptr;
  const onnx::GraphProto &graph = model.graph();

  for (const auto &[name, shape] : options.inputShapes)
    if (llvm::none_of(graph.input(),
                      [&](const onnx::ValueInfoProto &i) { return i.name() == name.str(); })) {
      error() << "--input-shape names '" << name.str() << "', which is not a graph input";
      return nullptr;
    }
  for (const auto &entry : options.inputValues)
    if (llvm::none_of(graph.input(),
                      [&](const onnx::ValueInfoProto &i) { return i.name() == entry.getKey(); })) {
      error() << "--input-value names '" << entry.getKey().str() << "', which is not a graph input";
      return nullptr;
    }

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  b.setInsertionPointToEnd(module->getBody());

  llvm::StringMap<DenseElementsAttr> initializers;
  for (const onnx::TensorProto &t : graph.initializer()) {
    std::optional<DenseElementsAttr> attr = importTensor(t);
    if (!attr)
      return nullptr;
    initializers[t.name()] = *attr;
  }

  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  for (const onnx::ValueInfoProto &info : graph.input()) {
    if (initializers.count(info.name()))
      continue; // an initializer listed as input keeps its constant value
    RankedTensorType type = inputType(info);
    if (!type)
      return nullptr;
    argTypes.push_back(type);
    argNames.push_back(info.name());
  }

  auto func = func::FuncOp::create(b, fileLoc, "main", b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  for (auto [i, name] : llvm::enumerate(argNames)) {
    values[name] = entry->getArgument(i);
    func.setArgAttr(i, "infc.name", b.getStringAttr(name));
    auto given = options.inputValues.find(name);
    if (given == options.inputValues.end())
      continue;
    // A specialized input: its uses read the value; the argument stays for the ABI, and
    // `infc.value` tells the runtime what every run must pass.
    auto type = cast<RankedTensorType>(argTypes[i]);
    const OnnxImportOptions::InputValue &v = given->second;
    unsigned bits = type.getElementType().getIntOrFloatBitWidth();
    if (ArrayRef<int64_t>(v.shape) != type.getShape()) {
      error() << "--input-value " << name << " has shape ["
              << llvm::join(llvm::map_range(v.shape, [](int64_t d) { return std::to_string(d); }),
                            "x")
              << "] but the input is " << type;
      return nullptr;
    }
    if (bits % 8 && bits != 1) {
      error() << "--input-value " << name << ": inputs of sub-byte type " << type
              << " cannot be specialized";
      return nullptr;
    }
    std::string convertError;
    DenseElementsAttr attr = inputValueAttr(type, v, convertError);
    if (!attr) {
      error() << "--input-value " << name << ": " << convertError;
      return nullptr;
    }
    values[name] = ConstantOp::create(b, fileLoc, cast<ElementsAttr>(attr));
    func.setArgAttr(i, "infc.value", attr);
  }
  for (auto &[name, attr] : initializers)
    values[name] = ConstantOp::create(b, fileLoc, cast<ElementsAttr>(attr));

  bool failedAny = false;
  for (const onnx::NodeProto &node : graph.node())
    if (failed(importNode(node))) {
      failedAny = true;
      break;
    }
  if (failedAny)
    return nullptr;

  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    auto it = values.find(out.name());
    if (it == values.end()) {
      error() << "graph output '" << out.name() << "' is not produced by any node";
      return nullptr;
    }
    // A declared static output type must agree with what the importer inferred.
    auto inferred = cast<RankedTensorType>(it->second.getType());
    if (out.type().has_tensor_type()) {
      const auto &tt = out.type().tensor_type();
      Type declared = onnxElementType(&ctx, tt.elem_type());
      bool shapeKnown = tt.has_shape() &&
                        llvm::all_of(tt.shape().dim(), [](const auto &d) { return isFixedDim(d); });
      SmallVector<int64_t> shape;
      for (const auto &d : tt.shape().dim())
        shape.push_back(d.dim_value());
      if ((declared && declared != inferred.getElementType()) ||
          (shapeKnown && ArrayRef<int64_t>(shape) != inferred.getShape())) {
        error() << "graph output '" << out.name() << "' is declared as "
                << onnxDataTypeName(tt.elem_type()) << " " << (shapeKnown ? "[" : "")
                << (shapeKnown ? llvm::join(llvm::map_range(
                                                shape, [](int64_t v) { return std::to_string(v); }),
                                            "x")
                               : std::string("(any shape)"))
                << (shapeKnown ? "]" : "") << " but computes " << inferred;
        return nullptr;
      }
    }
    results.push_back(it->second);
  }
  func::ReturnOp::create(b, fileLoc, results);
  func.setType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, out] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, "infc.name", b.getStringAttr(out.name()));
  (*module)->setAttr("infc.graph_name", b.getStringAttr(graph.name()));
  if (failed(checkTypes(*module)) || failed(verify(*module)))
    return nullptr;
  return module;
}

/// Every tensor the import made has a static shape of at most kMaxTensorBytes: what a
/// Reshape, Expand or ConstantOfShape computed from constants must still be allocatable.
LogicalResult ModelImporter::checkTypes(ModuleOp module) {
  WalkResult walk = module.walk([&](Operation *op) {
    SmallVector<Value> values(op->getResults());
    for (Region &r : op->getRegions())
      for (Block &block : r)
        llvm::append_range(values, block.getArguments());
    for (Value v : values) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type)
        continue;
      std::optional<int64_t> n = elementCount(type.getShape());
      int64_t bits = type.getElementType().getIntOrFloatBitWidth(), bytes = 0;
      if (n && !llvm::MulOverflow(*n, std::max<int64_t>(bits / 8, 1), bytes) &&
          bytes <= kMaxTensorBytes)
        continue;
      InFlightDiagnostic d = emitError(op->getLoc());
      if (auto arg = dyn_cast<BlockArgument>(v); arg && isa<func::FuncOp>(op)) {
        auto name =
            cast<func::FuncOp>(op).getArgAttrOfType<StringAttr>(arg.getArgNumber(), "infc.name");
        d << "graph input '" << (name ? name.str() : std::string("?")) << "': ";
      } else if (auto name = dyn_cast<NameLoc>(op->getLoc())) {
        StringRef node = name.getName().strref(), opType = node.rsplit('(').second;
        d << "node '" << node.rsplit('(').first << "' (" << opType.drop_back() << ", opset "
          << opset << "): ";
      }
      d << "computes a tensor of "
        << (n ? "more bytes than the address space holds" : "a negative or uncountable size")
        << ": " << type;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

OwningOpRef<ModuleOp> infc::importOnnxModel(MLIRContext &context, StringRef path,
                                            const OnnxImportOptions &options) {
  context.loadDialect<InfcDialect, func::FuncDialect>();
  return ModelImporter(context, path, options).run();
}

OwningOpRef<ModuleOp> infc::importOnnxModelFromBytes(MLIRContext &context, StringRef bytes,
                                                     StringRef path,
                                                     const OnnxImportOptions &options) {
  context.loadDialect<InfcDialect, func::FuncDialect>();
  return ModelImporter(context, path, options, bytes).run();
}

//===----------------------------------------------------------------------===//
// Summary for `infc inspect`
//===----------------------------------------------------------------------===//

static std::string describeType(const onnx::TypeProto &type) {
  if (!type.has_tensor_type())
    return "non-tensor";
  const auto &tt = type.tensor_type();
  std::string s = "[";
  for (int d = 0; d < tt.shape().dim_size(); ++d) {
    const auto &dim = tt.shape().dim(d);
    s += (d ? "x" : "") + (isFixedDim(dim)       ? std::to_string(dim.dim_value())
                           : dim.has_dim_param() ? dim.dim_param()
                                                 : std::string("?"));
  }
  return s + "]";
}

int64_t infc::onnxElementBytes(int32_t dataType) {
  switch (dataType) {
  case onnx::TensorProto::COMPLEX128:
    return 16;
  case onnx::TensorProto::COMPLEX64:
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return 8;
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return 4;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return 2;
  default:
    return 1;
  }
}

LogicalResult infc::summarizeOnnxModel(StringRef path, OnnxModelSummary &summary,
                                       std::string &errorMessage) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer) {
    errorMessage = "cannot read the model: " + buffer.getError().message();
    return failure();
  }
  onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream raw((*buffer)->getBufferStart(),
                                             (int)(*buffer)->getBufferSize());
  google::protobuf::io::CodedInputStream stream(&raw);
  stream.SetTotalBytesLimit(INT_MAX);
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage() ||
      !model.has_graph()) {
    errorMessage = "not a valid ONNX model (protobuf parse failed: the file is not ONNX or "
                   "is truncated)";
    return failure();
  }
  const onnx::GraphProto &g = model.graph();
  summary.graphName = g.name();
  summary.producer = model.producer_name() + " " + model.producer_version();
  summary.irVersion = model.ir_version();
  for (const auto &o : model.opset_import())
    summary.opsets.push_back({o.domain().empty() ? "ai.onnx" : o.domain(), o.version()});
  llvm::StringSet<> inits;
  for (const auto &t : g.initializer()) {
    inits.insert(t.name());
    int64_t n = 1;
    for (int64_t d : t.dims())
      n *= d;
    summary.initializerBytes += n * onnxElementBytes(t.data_type());
    ++summary.numInitializers;
  }
  for (const auto &i : g.input())
    if (!inits.count(i.name()))
      summary.inputs.push_back(
          {i.name(),
           i.type().has_tensor_type() ? onnxDataTypeName(i.type().tensor_type().elem_type()) : "?",
           describeType(i.type())});
  for (const auto &o : g.output())
    summary.outputs.push_back(
        {o.name(),
         o.type().has_tensor_type() ? onnxDataTypeName(o.type().tensor_type().elem_type()) : "?",
         describeType(o.type())});
  std::map<std::string, int64_t> histogram;
  std::set<std::string> unsupported;
  for (const auto &n : g.node()) {
    std::string key = (isDefaultDomain(n.domain()) ? "" : n.domain() + ":") + n.op_type();
    ++histogram[key];
    if (!isDefaultDomain(n.domain()) || !isSupportedOnnxOp(n.op_type()))
      unsupported.insert(key);
  }
  summary.opHistogram.assign(histogram.begin(), histogram.end());
  summary.unsupportedOps.assign(unsupported.begin(), unsupported.end());
  return success();
}

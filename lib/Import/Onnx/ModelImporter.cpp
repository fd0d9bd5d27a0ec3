//===- ModelImporter.cpp - ONNX model and graph import --------------------===//
//
// Reads the protobuf, resolves initializers (raw, typed and external data: TensorData.cpp),
// fixes input shapes, then imports the nodes in order through the per-op ImportFns.
// Unsupported nodes are all collected and reported together before anything is built.
//
//===----------------------------------------------------------------------===//
#include "ModelImporter.h"
#include "OnnxValidation.h"
#include "infc/runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <map>

using namespace mlir;
using namespace infc;
using namespace infc::detail;

/// The newest ai.onnx opset the importers were checked against (the pinned onnx 1.23 knows
/// 28; the ops imported here have not changed meaning since their opset-18 forms).
constexpr int64_t kNewestOpset = 28;

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
    const auto &dim = tt.shape().dim(d);
    if (auto named =
            dim.has_dim_param() ? options.dimValues.find(dim.dim_param()) : options.dimValues.end();
        ShapedType::isDynamic(shape[d]) && named != options.dimValues.end())
      shape[d] = named->second; // --specialize
    if (!ShapedType::isDynamic(shape[d]))
      continue;
    // A dim with a range (--dim) stays symbolic: the generic code takes any size in it.
    if (auto range =
            dim.has_dim_param() ? options.dimRanges.find(dim.dim_param()) : options.dimRanges.end();
        range != options.dimRanges.end()) {
      if (!llvm::is_contained(symbolicDims, dim.dim_param()))
        symbolicDims.push_back(dim.dim_param());
      symbolicBound = std::max(symbolicBound, range->second.second);
      continue;
    }
    std::string example;
    for (size_t k = 0; k < shape.size(); ++k)
      example += (k ? "x" : "") +
                 (ShapedType::isDynamic(shape[k]) ? std::string("N") : std::to_string(shape[k]));
    error() << "graph input '" << name << "' has symbolic dim "
            << (dim.has_dim_param() ? "'" + dim.dim_param() + "'" : std::string("?")) << " (dim "
            << d << "); pass --input-shape " << name << "=" << example << " with N set to fix it"
            << (dim.has_dim_param()
                    ? ", or --specialize " + dim.dim_param() + "=N[,N2...], or --dim " +
                          dim.dim_param() + "=MIN..MAX for any size in a range"
                    : std::string());
    return nullptr;
  }
  return RankedTensorType::get(shape, et);
}

ArrayAttr ModelImporter::dimNames(const onnx::ValueInfoProto &info, int64_t rank) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape())
    return nullptr;
  const auto &dims = info.type().tensor_type().shape().dim();
  if (dims.size() != rank || llvm::none_of(dims, [](const auto &d) { return d.has_dim_param(); }))
    return nullptr;
  SmallVector<Attribute> names;
  for (const auto &d : dims)
    names.push_back(b.getStringAttr(d.has_dim_param() ? d.dim_param() : ""));
  return b.getArrayAttr(names);
}

LogicalResult ModelImporter::checkDimRanges(const onnx::ValueInfoProto &info,
                                            RankedTensorType type) {
  if (options.dimRanges.empty() || !info.type().tensor_type().has_shape())
    return success();
  for (auto [d, dim] : llvm::enumerate(info.type().tensor_type().shape().dim())) {
    auto range =
        dim.has_dim_param() ? options.dimRanges.find(dim.dim_param()) : options.dimRanges.end();
    if (range == options.dimRanges.end() || d >= (size_t)type.getRank())
      continue;
    int64_t value = type.getDimSize(d);
    auto [lo, hi] = range->second;
    if (!ShapedType::isDynamic(value) && (value < lo || value > hi))
      return error() << "graph input '" << info.name() << "' dim " << d << " '" << dim.dim_param()
                     << "' is " << value << " (from --input-shape or --specialize), outside --dim "
                     << dim.dim_param() << "=" << lo << ".." << hi;
  }
  return success();
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
  if (failed(checkInputTypes(importer)) || failed(checkSymbolicInputs(importer)))
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
  if (!options.testMiscompileOp.empty() && node.op_type() == options.testMiscompileOp &&
      !importer.results.empty() && importer.results[0]) {
    Value &first = importer.results[0];
    if (isa<FloatType>(getElementTypeOrSelf(first.getType())))
      first = infc::AddOp::create(b, loc, first.getType(), first, importer.scalarLike(first, 1.0));
  }
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
  if (options.decoder) {
    std::string why;
    if (!rewriteDecoderGraph(*model.mutable_graph(), why)) {
      error() << why;
      return nullptr;
    }
  }
  const onnx::GraphProto &graph = model.graph();

  for (const auto &entry : options.inputShapes) {
    llvm::StringRef name = entry.getKey();
    if (llvm::none_of(graph.input(),
                      [&](const onnx::ValueInfoProto &i) { return i.name() == name; })) {
      error() << "--input-shape names '" << name.str() << "', which is not a graph input";
      return nullptr;
    }
  }
  for (const auto &entry : options.inputValues)
    if (llvm::none_of(graph.input(),
                      [&](const onnx::ValueInfoProto &i) { return i.name() == entry.getKey(); })) {
      error() << "--input-value names '" << entry.getKey().str() << "', which is not a graph input";
      return nullptr;
    }
  // --specialize and --dim name dims some graph input has.
  auto inputsNameDim = [&](llvm::StringRef dim) {
    return llvm::any_of(graph.input(), [&](const onnx::ValueInfoProto &i) {
      return llvm::any_of(i.type().tensor_type().shape().dim(),
                          [&](const auto &d) { return d.dim_param() == dim; });
    });
  };
  auto unknownDim = [&](const char *flag, llvm::StringRef dim) {
    error() << flag << " names dim '" << dim.str()
            << "', which no graph input has (symbolic dims are named by dim_param)";
    return nullptr;
  };
  for (const auto &entry : options.dimValues)
    if (!inputsNameDim(entry.getKey()))
      return unknownDim("--specialize", entry.getKey());
  for (const auto &entry : options.dimRanges)
    if (!inputsNameDim(entry.getKey()))
      return unknownDim("--dim", entry.getKey());

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
  SmallVector<ArrayAttr> argDims;
  for (const onnx::ValueInfoProto &info : graph.input()) {
    if (initializers.count(info.name()))
      continue; // an initializer listed as input keeps its constant value
    RankedTensorType type = inputType(info);
    if (!type)
      return nullptr;
    argTypes.push_back(type);
    argNames.push_back(info.name());
    argDims.push_back(dimNames(info, type.getRank()));
    if (failed(checkDimRanges(info, type)))
      return nullptr;
  }
  if (symbolicDims.size() > 1) {
    error() << "--dim keeps '" << symbolicDims[0] << "' and '" << symbolicDims[1]
            << "' symbolic; the generic code takes one symbolic dim for now (fix the others "
               "with --specialize or --input-shape)";
    return nullptr;
  }

  auto func = func::FuncOp::create(b, fileLoc, "main", b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  for (auto [i, name] : llvm::enumerate(argNames)) {
    values[name] = entry->getArgument(i);
    func.setArgAttr(i, "infc.name", b.getStringAttr(name));
    if (argDims[i])
      func.setArgAttr(i, "infc.dims", argDims[i]);
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
  for (auto [i, out] : llvm::enumerate(graph.output())) {
    func.setResultAttr(i, "infc.name", b.getStringAttr(out.name()));
    if (ArrayAttr dims = dimNames(out, cast<RankedTensorType>(results[i].getType()).getRank()))
      func.setResultAttr(i, "infc.dims", dims);
  }
  if (!options.dimRanges.empty()) {
    SmallVector<NamedAttribute> ranges;
    for (const auto &entry : options.dimRanges)
      ranges.emplace_back(b.getStringAttr(entry.getKey()),
                          b.getDenseI64ArrayAttr({entry.second.first, entry.second.second}));
    (*module)->setAttr("infc.dim_ranges", b.getDictionaryAttr(ranges));
  }
  (*module)->setAttr("infc.graph_name", b.getStringAttr(graph.name()));
  (*module)->setAttr("infc.opset", b.getI64IntegerAttr(opset));
  if (options.decoder) // infc-recognize-attention's cue
    (*module)->setAttr("infc.decoder", b.getUnitAttr());
  if (failed(checkTypes(*module)) || failed(checkSymbolicOps(*module)) || failed(verify(*module)))
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
      // A symbolic dim counts at its largest size (with none, a run checks its sizes).
      SmallVector<int64_t> shape(type.getShape());
      for (int64_t &d : shape)
        if (ShapedType::isDynamic(d) && symbolicBound > 0)
          d = symbolicBound == kUnboundedDim ? 1 : symbolicBound;
      std::optional<int64_t> n = elementCount(shape);
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

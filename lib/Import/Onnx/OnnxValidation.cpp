//===- OnnxValidation.cpp - ONNX models checked against the op schemas ----===//
//
// The schemas are the pinned onnx package's, generated into OnnxSchemas.inc at build time
// (gen_onnx_schemas.py). Where onnx's own checker and onnxruntime disagree, this follows
// onnxruntime, the runtime users compare against: GroupNormalization-18, which onnx marks
// deprecated, is accepted as onnxruntime does.
//
//===----------------------------------------------------------------------===//
#include "OnnxValidation.h"
#include "NodeImporter.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <type_traits>

using namespace mlir;
using namespace infc;

namespace {
#include "OnnxSchemas.inc"
} // namespace

static llvm::ArrayRef<OnnxAttributeSchema> attributesOf(const OnnxOpSchema &s) {
  return llvm::ArrayRef(kOnnxAttributes).slice(s.firstAttribute, s.numAttributes);
}
static llvm::ArrayRef<OnnxParamSchema> inputsOf(const OnnxOpSchema &s) {
  return llvm::ArrayRef(kOnnxParams).slice(s.firstParam, s.numInputs);
}
static llvm::ArrayRef<OnnxParamSchema> outputsOf(const OnnxOpSchema &s) {
  return llvm::ArrayRef(kOnnxParams).slice(s.firstParam + s.numInputs, s.numOutputs);
}

const OnnxOpSchema *infc::lookupOnnxSchema(StringRef opType, int64_t opset, int64_t &firstOpset) {
  // The table is sorted by name, then version.
  auto range =
      std::equal_range(std::begin(kOnnxOpSchemas), std::end(kOnnxOpSchemas), opType,
                       [](const auto &a, const auto &b) {
                         auto name = [](const auto &x) -> StringRef {
                           if constexpr (std::is_same_v<std::decay_t<decltype(x)>, OnnxOpSchema>)
                             return x.name;
                           else
                             return x;
                         };
                         return name(a) < name(b);
                       });
  firstOpset = range.first == range.second ? 0 : range.first->sinceVersion;
  const OnnxOpSchema *found = nullptr;
  for (const OnnxOpSchema *s = range.first; s != range.second; ++s)
    if (s->sinceVersion <= opset)
      found = s;
  return found;
}

int64_t infc::newestSchemaOpset() { return kOnnxSchemaNewestOpset; }

std::optional<int64_t> infc::elementCount(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return std::nullopt;
  return n;
}

static const char *attributeTypeName(int type) {
  static const char *names[] = {"undefined",      "float",      "int",        "string",
                                "tensor",         "graph",      "floats",     "ints",
                                "strings",        "tensors",    "graphs",     "sparse_tensor",
                                "sparse_tensors", "type_proto", "type_protos"};
  return type >= 0 && type < (int)std::size(names) ? names[type] : "unknown";
}

/// The kinds of value an attribute holds, one bit per AttributeType.
static unsigned heldValueKinds(const onnx::AttributeProto &a) {
  using A = onnx::AttributeProto;
  unsigned kinds = 0;
  auto add = [&](bool present, int type) { kinds |= present ? 1u << type : 0; };
  add(a.has_f(), A::FLOAT);
  add(a.has_i(), A::INT);
  add(a.has_s(), A::STRING);
  add(a.has_t(), A::TENSOR);
  add(a.has_g(), A::GRAPH);
  add(a.has_sparse_tensor(), A::SPARSE_TENSOR);
  add(a.has_tp(), A::TYPE_PROTO);
  add(a.floats_size() > 0, A::FLOATS);
  add(a.ints_size() > 0, A::INTS);
  add(a.strings_size() > 0, A::STRINGS);
  add(a.tensors_size() > 0, A::TENSORS);
  add(a.graphs_size() > 0, A::GRAPHS);
  add(a.sparse_tensors_size() > 0, A::SPARSE_TENSORS);
  add(a.type_protos_size() > 0, A::TYPE_PROTOS);
  return kinds;
}

int infc::attributeTypeOf(const onnx::AttributeProto &a) {
  unsigned held = heldValueKinds(a);
  if (llvm::popcount(held) > 1)
    return onnx::AttributeProto::UNDEFINED;
  if (a.type() == onnx::AttributeProto::UNDEFINED)
    return held ? llvm::countr_zero(held) : onnx::AttributeProto::UNDEFINED;
  return !held || (held & (1u << a.type())) ? a.type() : onnx::AttributeProto::UNDEFINED;
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + std::to_string(d);
  return s + "]";
}

/// Why a tensor of `dims` and `dataType` cannot exist, or empty when it can.
static std::string tensorSizeProblem(ArrayRef<int64_t> dims, int32_t dataType) {
  for (int64_t d : dims)
    if (d < 0)
      return "has a negative dim: " + shapeString(dims);
  std::optional<int64_t> n = elementCount(dims);
  int64_t width = onnxElementBytes(dataType);
  int64_t bytes;
  if (!n || llvm::MulOverflow(*n, width, bytes))
    return "has more elements than int64 can count: " + shapeString(dims);
  if (bytes > kMaxTensorBytes)
    return "needs " + std::to_string(bytes) +
           " bytes, more than the address space holds: " + shapeString(dims);
  return "";
}

namespace {
/// Walks a model's graphs, their subgraphs nested, with the names each scope defines.
class ModelValidator {
public:
  ModelValidator(const onnx::ModelProto &model, int64_t opset,
                 llvm::function_ref<void(const std::string &)> report)
      : model(model), opset(opset), report(report) {}

  int run() {
    const onnx::GraphProto &g = model.graph();
    if (g.output_size() == 0)
      problem("the graph '" + g.name() + "' has no outputs");
    checkGraph(g, /*isMain=*/true);
    return problems;
  }

private:
  void problem(const std::string &message) {
    ++problems;
    report(message);
  }

  bool defined(const std::string &name) const {
    return llvm::any_of(scopes, [&](const llvm::StringSet<> &s) { return s.contains(name); });
  }

  /// Defines `name` in the innermost scope; false when it already names a value there or
  /// (for node outputs) in an enclosing graph.
  bool define(const std::string &name, bool outerToo) {
    if (outerToo ? defined(name) : scopes.back().contains(name))
      return false;
    scopes.back().insert(name);
    return true;
  }

  void checkTensor(const onnx::TensorProto &t, const std::string &what) {
    std::string p =
        tensorSizeProblem(SmallVector<int64_t>(t.dims().begin(), t.dims().end()), t.data_type());
    if (!p.empty())
      problem(what + " " + p);
  }

  void checkGraph(const onnx::GraphProto &g, bool isMain) {
    scopes.emplace_back();
    llvm::scope_exit popScope([&] { scopes.pop_back(); });
    std::string graphName = isMain ? "" : "subgraph '" + g.name() + "' ";
    llvm::StringSet<> initializers;
    for (const onnx::TensorProto &t : g.initializer()) {
      if (t.name().empty())
        problem(graphName + "has an initializer without a name");
      else if (!initializers.insert(t.name()).second)
        problem(graphName + "initializer '" + t.name() + "' is defined twice");
      checkTensor(t, graphName + "initializer '" + t.name() + "'");
      scopes.back().insert(t.name());
    }
    for (const onnx::ValueInfoProto &in : g.input()) {
      if (in.name().empty()) {
        problem(graphName + "has an input without a name");
        continue;
      }
      // An initializer listed as an input too is one value (IR < 4 requires it).
      if (!initializers.contains(in.name()) && !define(in.name(), /*outerToo=*/false))
        problem(graphName + "input '" + in.name() + "' is defined twice");
      if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
        continue;
      SmallVector<int64_t> fixed;
      for (const auto &d : in.type().tensor_type().shape().dim())
        if (d.has_dim_value() && d.dim_value() >= 0)
          fixed.push_back(d.dim_value());
      std::string p = tensorSizeProblem(fixed, in.type().tensor_type().elem_type());
      if (!p.empty())
        problem(graphName + "input '" + in.name() + "' " + p);
    }
    for (auto [index, node] : llvm::enumerate(g.node()))
      checkNode(node, index, g);
    for (const onnx::ValueInfoProto &out : g.output())
      if (!defined(out.name()))
        problem(graphName + "output '" + out.name() + "' is not produced by any node" +
                (isMain ? "" : " or outer value"));
  }

  std::string nodeRef(const onnx::NodeProto &node, size_t index, const onnx::GraphProto &g,
                      int64_t version) {
    std::string domain =
        node.domain().empty() || node.domain() == "ai.onnx" ? "" : node.domain() + ":";
    // An unnamed node is called as the importer calls it, by op type and position (there
    // counted over the whole model, here in its graph: the same for a graph without
    // subgraphs before the node).
    std::string name = !node.name().empty() ? node.name()
                       : scopes.size() == 1
                           ? node.op_type() + "_" + std::to_string(index)
                           : g.name() + "/" + node.op_type() + "_" + std::to_string(index);
    return "node '" + name + "' (" + domain + node.op_type() + ", opset " +
           std::to_string(version) + "): ";
  }

  void checkNode(const onnx::NodeProto &node, size_t index, const onnx::GraphProto &g) {
    bool isDefault = node.domain().empty() || node.domain() == "ai.onnx";
    int64_t version = opset;
    if (!isDefault)
      for (const onnx::OperatorSetIdProto &o : model.opset_import())
        if (o.domain() == node.domain())
          version = o.version();
    std::string ref = nodeRef(node, index, g, version);
    // One error a node: its first problem.
    std::string first;
    auto fail = [&](const std::string &message) {
      if (first.empty())
        first = message;
    };

    for (const std::string &in : node.input())
      if (!in.empty() && !defined(in))
        fail("input '" + in + "' is not a graph input, initializer or earlier node output");
    if (isDefault)
      checkAgainstSchema(node, fail);

    for (const onnx::AttributeProto &a : node.attribute()) {
      if (a.has_t())
        checkTensorAttribute(a.t(), a.name(), fail);
      for (const onnx::TensorProto &t : a.tensors())
        checkTensorAttribute(t, a.name(), fail);
    }
    llvm::StringSet<> outputs;
    for (const std::string &out : node.output())
      if (!out.empty() && (defined(out) || !outputs.insert(out).second))
        fail("output '" + out + "' is already defined (a value may be written once)");
    if (!first.empty())
      problem(ref + first);
    // Subgraphs see the names defined before their node, not the node's own outputs.
    for (const onnx::AttributeProto &a : node.attribute()) {
      if (a.has_g())
        checkGraph(a.g(), false);
      for (const onnx::GraphProto &sub : a.graphs())
        checkGraph(sub, false);
    }
    for (const std::string &out : node.output())
      if (!out.empty())
        define(out, /*outerToo=*/true);
  }

  void checkTensorAttribute(const onnx::TensorProto &t, const std::string &attr,
                            llvm::function_ref<void(const std::string &)> fail) {
    std::string p =
        tensorSizeProblem(SmallVector<int64_t>(t.dims().begin(), t.dims().end()), t.data_type());
    if (!p.empty())
      fail("attribute '" + attr + "': the tensor " + p);
  }

  void checkAgainstSchema(const onnx::NodeProto &node,
                          llvm::function_ref<void(const std::string &)> fail) {
    int64_t firstOpset = 0;
    const OnnxOpSchema *s = lookupOnnxSchema(node.op_type(), opset, firstOpset);
    if (!s) {
      if (firstOpset)
        fail(node.op_type() + " is not defined at opset " + std::to_string(opset) +
             " (introduced in opset " + std::to_string(firstOpset) + ")");
      else
        fail("'" + node.op_type() + "' is not an ai.onnx op");
      return;
    }
    if (s->deprecated && StringRef(s->name) != "GroupNormalization") {
      fail(node.op_type() + " is deprecated since opset " + std::to_string(s->sinceVersion));
      return;
    }

    // Counts. Trailing empty names are omitted optional inputs.
    int numInputs = node.input_size();
    if (numInputs < s->minInputs || numInputs > s->maxInputs)
      return fail(countProblem("input", numInputs, s->minInputs, s->maxInputs));
    if (node.output_size() < s->minOutputs || node.output_size() > s->maxOutputs)
      return fail(countProblem("output", node.output_size(), s->minOutputs, s->maxOutputs));
    // An omitted input (an empty name) must be an optional one. Outputs may all be
    // omitted: the importer builds what is used.
    llvm::ArrayRef<OnnxParamSchema> params = inputsOf(*s);
    for (int i = 0; i < numInputs && !params.empty(); ++i) {
      const OnnxParamSchema &p = params[std::min<size_t>(i, params.size() - 1)];
      if (node.input(i).empty() && p.option != OnnxParamOption::Optional)
        return fail("input " + std::to_string(i) + " ('" + p.name +
                    "') is required but given no name");
    }

    // Attributes: known, of the declared type, holding that type's value; required present.
    llvm::StringSet<> seen;
    for (const onnx::AttributeProto &a : node.attribute()) {
      if (!seen.insert(a.name()).second)
        return fail("attribute '" + a.name() + "' is given twice");
      const OnnxAttributeSchema *as = nullptr;
      for (const OnnxAttributeSchema &c : attributesOf(*s))
        if (a.name() == c.name)
          as = &c;
      if (!as)
        return fail("unknown attribute '" + a.name() + "' (" + node.op_type() + "-" +
                    std::to_string(s->sinceVersion) + " has " + attributeList(*s) + ")");
      if (!a.ref_attr_name().empty())
        return fail("attribute '" + a.name() +
                    "' refers to a function attribute outside a function");
      unsigned held = heldValueKinds(a);
      if (llvm::popcount(held) > 1)
        return fail("attribute '" + a.name() + "' holds values of several types");
      // Without a type field (old exporters) the value present says what it is; an
      // empty list of any type is an empty list.
      int type = a.type();
      if (type == onnx::AttributeProto::UNDEFINED && held)
        type = llvm::countr_zero(held);
      if (type != onnx::AttributeProto::UNDEFINED && held && !(held & (1u << type)))
        return fail("attribute '" + a.name() + "' is declared " + attributeTypeName(type) +
                    " but holds a " + attributeTypeName(llvm::countr_zero(held)) + " value");
      bool emptyList = !held && type == onnx::AttributeProto::UNDEFINED;
      bool listType =
          as->type >= onnx::AttributeProto::FLOATS && as->type <= onnx::AttributeProto::GRAPHS;
      if (emptyList ? !listType : type != as->type)
        return fail("attribute '" + a.name() + "' must be " + attributeTypeName(as->type) +
                    ", got " + attributeTypeName(emptyList ? 0 : type));
    }
    for (const OnnxAttributeSchema &c : attributesOf(*s))
      if (c.required && !seen.contains(c.name))
        return fail("required attribute '" + std::string(c.name) + "' is missing");
  }

  static std::string countProblem(const char *what, int got, int min, int max) {
    std::string range = min == max ? std::to_string(min)
                        : max == std::numeric_limits<int>::max()
                            ? std::to_string(min) + " or more"
                            : std::to_string(min) + " to " + std::to_string(max);
    return "takes " + range + " " + what + (max == 1 && min == 1 ? "" : "s") + ", given " +
           std::to_string(got);
  }

  static std::string attributeList(const OnnxOpSchema &s) {
    if (s.numAttributes == 0)
      return "none";
    std::string list;
    for (const OnnxAttributeSchema &c : attributesOf(s))
      list += (list.empty() ? "" : ", ") + std::string(c.name);
    return list;
  }

  const onnx::ModelProto &model;
  int64_t opset;
  llvm::function_ref<void(const std::string &)> report;
  SmallVector<llvm::StringSet<>> scopes;
  int problems = 0;
};
} // namespace

int infc::validateOnnxModel(const onnx::ModelProto &model, int64_t opset,
                            llvm::function_ref<void(const std::string &)> report) {
  return ModelValidator(model, opset, report).run();
}

const char *infc::onnxTypeName(Type t) {
  if (t.isF32())
    return "float";
  if (t.isF64())
    return "double";
  if (t.isF16())
    return "float16";
  if (t.isBF16())
    return "bfloat16";
  if (isa<Float8E4M3FNType>(t))
    return "float8e4m3fn";
  if (isa<Float8E4M3FNUZType>(t))
    return "float8e4m3fnuz";
  if (isa<Float8E5M2Type>(t))
    return "float8e5m2";
  if (isa<Float8E5M2FNUZType>(t))
    return "float8e5m2fnuz";
  if (isa<Float4E2M1FNType>(t))
    return "float4e2m1";
  auto it = dyn_cast<IntegerType>(t);
  if (!it)
    return nullptr;
  if (it.getWidth() == 1)
    return "bool";
  static const std::map<std::pair<unsigned, bool>, const char *> names = {
      {{2, false}, "int2"},   {{2, true}, "uint2"},   {{4, false}, "int4"},
      {{4, true}, "uint4"},   {{8, false}, "int8"},   {{8, true}, "uint8"},
      {{16, false}, "int16"}, {{16, true}, "uint16"}, {{32, false}, "int32"},
      {{32, true}, "uint32"}, {{64, false}, "int64"}, {{64, true}, "uint64"}};
  auto found = names.find({it.getWidth(), it.isUnsigned()});
  return found == names.end() ? nullptr : found->second;
}

LogicalResult infc::checkInputTypes(NodeImporter &n) {
  if (!n.node.domain().empty() && n.node.domain() != "ai.onnx")
    return success();
  int64_t firstOpset = 0;
  const OnnxOpSchema *s = lookupOnnxSchema(n.node.op_type(), n.opset, firstOpset);
  if (!s)
    return success(); // validateOnnxModel reported it
  llvm::ArrayRef<OnnxParamSchema> params = inputsOf(*s);
  llvm::StringMap<std::pair<std::string, unsigned>> bound; // constraint -> type, first input
  for (unsigned i = 0; i < n.numInputs() && !params.empty(); ++i) {
    Value v = n.input(i);
    if (!v)
      continue;
    const OnnxParamSchema &p = params[std::min<size_t>(i, params.size() - 1)];
    auto type = dyn_cast<RankedTensorType>(v.getType());
    const char *name = type ? onnxTypeName(type.getElementType()) : nullptr;
    if (!name)
      continue;
    std::string typeStr = "tensor(" + std::string(name) + ")";
    StringRef declared = p.typeStr;
    const OnnxTypeConstraintSchema *c = nullptr;
    for (const OnnxTypeConstraintSchema &tc :
         llvm::ArrayRef(kOnnxTypeConstraints).slice(s->firstConstraint, s->numConstraints))
      if (declared == tc.name)
        c = &tc;
    auto allowed = [&]() -> std::string {
      if (!c)
        return declared.drop_front(strlen("tensor(")).drop_back().str();
      std::string list;
      for (int k = 0; k < c->numTypes; ++k) {
        StringRef t = kOnnxConstraintTypes[c->firstType + k];
        if (t.consume_front("tensor(") && t.consume_back(")"))
          list += (list.empty() ? "" : ", ") + t.str();
      }
      return list;
    };
    bool ok = c ? llvm::is_contained(
                      llvm::ArrayRef(kOnnxConstraintTypes).slice(c->firstType, c->numTypes),
                      StringRef(typeStr))
                : declared == typeStr || !declared.starts_with("tensor(");
    if (!ok)
      return n.error() << "input " << i << " ('" << n.node.input(i) << "') is " << name << ", but "
                       << p.name << " must be one of: " << allowed();
    // A variadic parameter that is not homogeneous binds its constraint per value.
    if (!c || (p.option == OnnxParamOption::Variadic && !p.isHomogeneous))
      continue;
    auto [it, inserted] = bound.try_emplace(declared, std::string(name), i);
    if (!inserted && it->second.first != name)
      return n.error() << "input " << i << " ('" << n.node.input(i) << "') is " << name
                       << " but input " << it->second.second << " ('"
                       << n.node.input(it->second.second) << "') is " << it->second.first
                       << "; both are of type " << declared << ", which must be one type";
  }
  return success();
}

//===- FuzzSupport.cpp - what the ONNX fuzz targets share ------------------===//
#include "FuzzSupport.h"

#include "infc/Import/OnnxImporter.h"
#include "infc/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "onnx.pb.h"

#include <cstring>
#include <random>

using namespace mlir;

/// The most elements a tensor of a model lowered by the compile target may have: the
/// passes are what is fuzzed, not the folding of large constants.
static constexpr int64_t kMaxLoweredElements = 1 << 16;

void infc::fuzz::importAndCheck(llvm::StringRef bytes, bool lower) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry;
    registerInfcDialects(*r);
    return r;
  }();
  // The import loads the dialects it builds; the lowering needs the rest. A context per
  // input keeps one input's uniqued types and attributes out of the next.
  static DialectRegistry *none = new DialectRegistry;
  MLIRContext ctx(lower ? *registry : *none, MLIRContext::Threading::DISABLED);
  if (lower)
    ctx.loadAllAvailableDialects();
  ctx.getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
  OnnxImportOptions options;
  OwningOpRef<ModuleOp> module =
      importOnnxModelFromBytes(ctx, bytes, "/nonexistent/fuzz.onnx", options);
  if (!module)
    return;
  // The importer verifies each node's ops and fails on an invalid one (an error naming the
  // node); a module it returns must verify.
  if (failed(verify(*module)))
    __builtin_trap();
  if (!lower)
    return;
  bool small = true;
  module->walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto r = dyn_cast<RankedTensorType>(t);
          r && (!r.hasStaticShape() || r.getNumElements() > kMaxLoweredElements))
        small = false;
  });
  if (!small)
    return;
  PassManager pm(&ctx);
  InfcPipelineOptions pipeline;
  pipeline.stopAfter = PipelineStage::LLVM;
  pipeline.vectorBits = 512;
  buildInfcPipeline(pm, pipeline);
  (void)pm.run(*module); // a pass may refuse a model, with an error; it must not crash
}

namespace {
/// Values a malformed model puts where a dim, an axis or a count goes.
int64_t nastyInt(std::mt19937 &rng) {
  static const int64_t values[] = {
      -1,        0,        1, 2, 3, 4, 7, 64, -2, -7, 1 << 20, int64_t(1) << 31, int64_t(1) << 40,
      INT64_MAX, INT64_MIN};
  return values[rng() % std::size(values)];
}

template <typename T> T &pick(google::protobuf::RepeatedPtrField<T> &field, std::mt19937 &rng) {
  return field[rng() % field.size()];
}

/// Every value name the graph mentions, for rewiring.
std::vector<std::string> valueNames(const onnx::GraphProto &g) {
  std::vector<std::string> names;
  for (const auto &i : g.input())
    names.push_back(i.name());
  for (const auto &t : g.initializer())
    names.push_back(t.name());
  for (const auto &n : g.node())
    for (const auto &o : n.output())
      names.push_back(o);
  return names;
}

void mutateAttribute(onnx::AttributeProto &a, std::mt19937 &rng) {
  switch (rng() % 6) {
  case 0: // another type field, the value left as it was
    a.set_type(static_cast<onnx::AttributeProto::AttributeType>(rng() % 15));
    break;
  case 1:
    a.set_i(nastyInt(rng));
    break;
  case 2:
    a.set_f(rng() % 2 ? -1.5f : 1e30f);
    break;
  case 3:
    if (a.ints_size())
      a.set_ints(rng() % a.ints_size(), nastyInt(rng));
    else
      a.add_ints(nastyInt(rng));
    break;
  case 4:
    a.clear_ints();
    a.clear_floats();
    a.clear_i();
    a.clear_f();
    break;
  default:
    a.set_s(rng() % 2 ? "SAME" : "");
    break;
  }
}
} // namespace

size_t infc::fuzz::mutateModel(uint8_t *data, size_t size, size_t maxSize, unsigned seed) {
  onnx::ModelProto m;
  if (!m.ParseFromArray(data, (int)size) || !m.has_graph())
    return 0;
  std::mt19937 rng(seed);
  onnx::GraphProto &g = *m.mutable_graph();
  static const std::vector<llvm::StringRef> ops = supportedOnnxOps();
  switch (rng() % 8) {
  case 0: { // an attribute's value or type
    if (!g.node_size())
      break;
    onnx::NodeProto &n = pick(*g.mutable_node(), rng);
    if (n.attribute_size())
      mutateAttribute(pick(*n.mutable_attribute(), rng), rng);
    else
      n.add_attribute()->set_name(rng() % 2 ? "axis" : "perm");
    break;
  }
  case 1: // a dim of an input or an initializer
    if (g.input_size() && rng() % 2) {
      auto *shape =
          pick(*g.mutable_input(), rng).mutable_type()->mutable_tensor_type()->mutable_shape();
      if (shape->dim_size())
        pick(*shape->mutable_dim(), rng).set_dim_value(nastyInt(rng));
      else
        shape->add_dim()->set_dim_value(nastyInt(rng));
    } else if (g.initializer_size()) {
      onnx::TensorProto &t = pick(*g.mutable_initializer(), rng);
      if (t.dims_size())
        t.set_dims(rng() % t.dims_size(), nastyInt(rng));
      else
        t.add_dims(nastyInt(rng));
    }
    break;
  case 2: // a dtype
    if (g.initializer_size() && rng() % 2)
      pick(*g.mutable_initializer(), rng).set_data_type(rng() % 28);
    else if (g.input_size())
      pick(*g.mutable_input(), rng)
          .mutable_type()
          ->mutable_tensor_type()
          ->set_elem_type(rng() % 28);
    break;
  case 3: { // a node's wiring
    if (!g.node_size())
      break;
    onnx::NodeProto &n = pick(*g.mutable_node(), rng);
    std::vector<std::string> names = valueNames(g);
    std::string name = rng() % 4 && !names.empty() ? names[rng() % names.size()]
                                                   : std::string(rng() % 2 ? "" : "x");
    if (rng() % 3 == 0)
      n.add_input(name);
    else if (n.input_size())
      n.set_input(rng() % n.input_size(), name);
    else if (n.output_size())
      n.set_output(rng() % n.output_size(), name);
    break;
  }
  case 4: // an op type
    if (g.node_size())
      pick(*g.mutable_node(), rng).set_op_type(ops[rng() % ops.size()].str());
    break;
  case 5: // a node dropped or repeated
    if (g.node_size() > 1 && rng() % 2) {
      g.mutable_node()->DeleteSubrange(rng() % g.node_size(), 1);
    } else if (g.node_size()) {
      onnx::NodeProto copy = pick(*g.mutable_node(), rng);
      *g.add_node() = copy;
    }
    break;
  case 6: // the opset
    for (auto &o : *m.mutable_opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx")
        o.set_version(1 + rng() % 28);
    break;
  default: // a graph output renamed or removed
    if (g.output_size() && rng() % 2)
      g.mutable_output()->RemoveLast();
    else if (g.output_size()) {
      std::vector<std::string> names = valueNames(g);
      if (!names.empty())
        pick(*g.mutable_output(), rng).set_name(names[rng() % names.size()]);
    }
    break;
  }
  std::string out;
  if (!m.SerializeToString(&out) || out.size() > maxSize)
    return 0;
  memcpy(data, out.data(), out.size());
  return out.size();
}

//===- Decoder.cpp - a decoder's past/present pairs taken out of the graph ------===//
//
// `infc compile --decoder` compiles one step of a decoder LLM exported in HF optimum's
// layout: `input_ids`, `attention_mask`, `position_ids` and `past_key_values.N.key/value`
// in, `logits` and `present.N.key/value` out, each present the Concat of its past and the
// step's new keys or values along the sequence axis. The KV cache of an infc library
// lives in the runtime's blocks, not in the model's tensors (docs/decoder-llm.md), so the
// graph is imported as the step of a sequence with no past: each Concat passes its new
// rows on, the past inputs go, the batch is 1, and every "total" length is the step's
// tokens. infc-recognize-attention then finds each layer's attention from its presents.
//
//===----------------------------------------------------------------------===//
#include "ModelImporter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace {
/// "past_key_values.12.key" -> (12, "key"); nullopt for another name.
std::optional<std::pair<int64_t, std::string>> parsePast(llvm::StringRef name) {
  if (!name.consume_front("past_key_values."))
    return std::nullopt;
  auto [layer, kind] = name.split('.');
  int64_t n;
  if (layer.getAsInteger(10, n) || n < 0 || (kind != "key" && kind != "value"))
    return std::nullopt;
  return std::make_pair(n, kind.str());
}

onnx::TensorShapeProto *mutableShape(onnx::ValueInfoProto &info) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape())
    return nullptr;
  return info.mutable_type()->mutable_tensor_type()->mutable_shape();
}
} // namespace

bool infc::detail::rewriteDecoderGraph(onnx::GraphProto &graph, std::string &error) {
  llvm::StringMap<int> users, outputs;
  llvm::StringMap<int> producer;
  for (auto [i, node] : llvm::enumerate(graph.node())) {
    for (const std::string &in : node.input())
      ++users[in];
    for (const std::string &out : node.output())
      producer[out] = i;
  }
  for (auto [i, out] : llvm::enumerate(graph.output()))
    outputs[out.name()] = i;

  // Each past input: read once, by a Concat along the sequence axis whose result is the
  // present of the same layer and kind (directly or through an Identity).
  llvm::StringSet<> pasts;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    auto parsed = parsePast(input.name());
    if (!parsed)
      continue;
    auto [layer, kind] = *parsed;
    std::string present = "present." + std::to_string(layer) + "." + kind;
    onnx::NodeProto *concat = nullptr;
    for (onnx::NodeProto &node : *graph.mutable_node())
      if (llvm::is_contained(node.input(), input.name()))
        concat = &node;
    auto axis = [&](const onnx::NodeProto &n) -> int64_t {
      for (const onnx::AttributeProto &a : n.attribute())
        if (a.name() == "axis")
          return a.i();
      return 0;
    };
    if (users[input.name()] != 1 || !concat || concat->op_type() != "Concat" ||
        concat->input_size() != 2 || concat->input(0) != input.name() ||
        (axis(*concat) != 2 && axis(*concat) != -2)) {
      error = "--decoder: '" + input.name() +
              "' must be read once, as the first of the two "
              "inputs of a Concat along axis 2 (the past keys or values before the new ones)" +
              (concat ? ", not by node '" + concat->name() + "' (" + concat->op_type() + ")"
                      : std::string());
      return false;
    }
    std::string result = concat->output(0);
    bool reaches = outputs.count(result);
    if (!reaches && users[result] >= 1)
      for (const onnx::NodeProto &node : graph.node())
        if (node.op_type() == "Identity" && node.input(0) == result &&
            outputs.count(node.output(0)))
          reaches |= node.output(0) == present;
    if (!(reaches || result == present)) {
      error = "--decoder: node '" + concat->name() + "' (Concat) of '" + input.name() +
              "' does not give the output '" + present + "'";
      return false;
    }
    // The new rows alone: a step of a sequence with no past.
    std::string fresh = concat->input(1);
    concat->set_op_type("Identity");
    concat->clear_input();
    concat->add_input(fresh);
    concat->clear_attribute();
    pasts.insert(input.name());
  }
  if (pasts.empty()) {
    error = "--decoder: the model has no past_key_values.N.key/value inputs (HF optimum's "
            "decoder layout, exported with use_cache)";
    return false;
  }
  auto *inputs = graph.mutable_input();
  for (int i = inputs->size() - 1; i >= 0; --i)
    if (pasts.contains(inputs->Get(i).name()))
      inputs->DeleteSubrange(i, 1);

  // input_ids [batch, tokens]: the batch becomes 1; a "total" (past + tokens) dim of the
  // mask and the presents becomes the tokens.
  onnx::ValueInfoProto *ids = nullptr;
  for (onnx::ValueInfoProto &input : *inputs)
    if (input.name() == "input_ids")
      ids = &input;
  onnx::TensorShapeProto *idsShape = ids ? mutableShape(*ids) : nullptr;
  if (!idsShape || idsShape->dim_size() != 2 || idsShape->dim(1).dim_param().empty()) {
    error = "--decoder: the model needs an input 'input_ids' of shape [batch, tokens] with a "
            "named tokens dim";
    return false;
  }
  std::string batch = idsShape->dim(0).dim_param(), tokens = idsShape->dim(1).dim_param();
  std::string total;
  for (onnx::ValueInfoProto &out : *graph.mutable_output())
    if (llvm::StringRef(out.name()).starts_with("present."))
      if (onnx::TensorShapeProto *s = mutableShape(out); s && s->dim_size() == 4)
        total = s->dim(2).dim_param();
  auto rename = [&](onnx::ValueInfoProto &info) {
    onnx::TensorShapeProto *s = mutableShape(info);
    if (!s)
      return;
    for (onnx::TensorShapeProto::Dimension &d : *s->mutable_dim()) {
      if (!batch.empty() && d.dim_param() == batch)
        d.set_dim_value(1);
      else if (!total.empty() && d.dim_param() == total)
        d.set_dim_param(tokens);
    }
  };
  for (onnx::ValueInfoProto &input : *inputs) {
    rename(input);
    // The mask's length is past + tokens, the tokens here, whatever the dim is named.
    onnx::TensorShapeProto *s = input.name() == "attention_mask" ? mutableShape(input) : nullptr;
    if (s && s->dim_size() == 2)
      s->mutable_dim(1)->set_dim_param(tokens);
  }
  for (onnx::ValueInfoProto &out : *graph.mutable_output()) {
    rename(out);
    // [batch, tokens, vocab] whatever shape inference named them (unk__1).
    onnx::TensorShapeProto *s = out.name() == "logits" ? mutableShape(out) : nullptr;
    if (s && s->dim_size() == 3) {
      s->mutable_dim(0)->set_dim_value(1);
      s->mutable_dim(1)->set_dim_param(tokens);
    }
  }
  for (onnx::ValueInfoProto &info : *graph.mutable_value_info())
    rename(info);
  return true;
}

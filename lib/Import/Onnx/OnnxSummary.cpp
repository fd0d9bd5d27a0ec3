//===- OnnxSummary.cpp - the model summary of `infc inspect` --------------===//
//
// Parses the model and counts what `infc inspect` prints (opsets, inputs and outputs,
// initializer sizes, the op histogram, the ops the importer lacks) without importing it.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"
#include "infc/Import/OnnxImporter.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <map>
#include <set>

using namespace mlir;
using namespace infc;

static std::vector<std::string> symbolicDims(const onnx::TypeProto &type) {
  std::vector<std::string> dims;
  if (type.has_tensor_type())
    for (const auto &dim : type.tensor_type().shape().dim())
      dims.push_back(isFixedDim(dim)       ? std::string()
                     : dim.has_dim_param() ? dim.dim_param()
                                           : std::string("?"));
  return dims;
}

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
    // (Saturated: a malformed model's dims may overflow; the import reports those.)
    int64_t n = 1, bytes = 0;
    for (int64_t d : t.dims())
      if (d < 0 || llvm::MulOverflow(n, d, n))
        n = INT64_MAX;
    if (llvm::MulOverflow(n, std::max<int64_t>(0, onnxElementBytes(t.data_type())), bytes) ||
        llvm::AddOverflow(summary.initializerBytes, bytes, summary.initializerBytes))
      summary.initializerBytes = INT64_MAX;
    ++summary.numInitializers;
  }
  for (const auto &i : g.input())
    if (!inits.count(i.name()))
      summary.inputs.push_back(
          {i.name(),
           i.type().has_tensor_type() ? onnxDataTypeName(i.type().tensor_type().elem_type()) : "?",
           describeType(i.type()), symbolicDims(i.type())});
  for (const auto &o : g.output())
    summary.outputs.push_back(
        {o.name(),
         o.type().has_tensor_type() ? onnxDataTypeName(o.type().tensor_type().elem_type()) : "?",
         describeType(o.type()), symbolicDims(o.type())});
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

//===- OnnxImporterTest.cpp - the ONNX importer on hand-built protobufs ---===//
//
// Builds small ModelProtos in C++, writes them to a temporary folder and imports them: the
// IR that comes out (types, folded shape chains, locations) and every error path.
//
//===----------------------------------------------------------------------===//
#include "infc/Import/OnnxImporter.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"
#include "infc/runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "onnx.pb.h"

#include <fstream>
#include <gtest/gtest.h>

using namespace mlir;

namespace {
class OnnxImporterTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("infc-import-test", dir));
    model.set_ir_version(8);
    auto *opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(17);
    model.mutable_graph()->set_name("g");
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string path(llvm::StringRef name) {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return p.str().str();
  }

  void addInput(const std::string &name, int32_t type, std::vector<int64_t> shape,
                const std::string &symbolic = "") {
    auto *in = model.mutable_graph()->add_input();
    in->set_name(name);
    auto *tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    auto *s = tt->mutable_shape();
    for (int64_t d : shape) {
      auto *dim = s->add_dim();
      if (d < 0)
        dim->set_dim_param(symbolic);
      else
        dim->set_dim_value(d);
    }
  }
  void addOutput(const std::string &name) { model.mutable_graph()->add_output()->set_name(name); }
  onnx::NodeProto *addNode(const std::string &op, std::vector<std::string> inputs,
                           std::vector<std::string> outputs) {
    auto *n = model.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + std::to_string(model.graph().node_size()));
    for (auto &i : inputs)
      n->add_input(i);
    for (auto &o : outputs)
      n->add_output(o);
    return n;
  }
  onnx::TensorProto *addInitializer(const std::string &name, std::vector<int64_t> dims,
                                    std::vector<float> values) {
    auto *t = model.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      t->add_dims(d);
    for (float v : values)
      t->add_float_data(v);
    return t;
  }

  /// Imports the model; collects error messages.
  OwningOpRef<ModuleOp> import(const infc::OnnxImportOptions &options = {}) {
    std::string file = path("model.onnx");
    std::ofstream out(file, std::ios::binary);
    model.SerializeToOstream(&out);
    out.close();
    errors.clear();
    handler = std::make_unique<ScopedDiagnosticHandler>(&context, [&](Diagnostic &d) {
      errors.push_back(d.str());
      return success();
    });
    return infc::importOnnxModel(context, file, options);
  }

  func::FuncOp mainOf(ModuleOp m) { return m.lookupSymbol<func::FuncOp>("main"); }

  llvm::SmallString<128> dir;
  onnx::ModelProto model;
  MLIRContext context;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  std::vector<std::string> errors;
};

TEST_F(OnnxImporterTest, GemmWithTransBFoldsTheWeightTranspose) {
  addInput("x", onnx::TensorProto::FLOAT, {2, 3});
  addInitializer("w", {4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  addInitializer("b", {4}, {1, 1, 1, 1});
  auto *gemm = addNode("Gemm", {"x", "w", "b"}, {"y"});
  auto *attr = gemm->add_attribute();
  attr->set_name("transB");
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(1);
  addOutput("y");
  auto m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  func::FuncOp f = mainOf(*m);
  EXPECT_EQ(f.getFunctionType().getResult(0),
            RankedTensorType::get({2, 4}, Float32Type::get(&context)));
  // The transpose of the constant weight was folded at import: no infc.transpose remains.
  int transposes = 0, matmuls = 0;
  f.walk([&](Operation *op) {
    transposes += isa<infc::TransposeOp>(op);
    matmuls += isa<infc::MatMulOp>(op);
  });
  EXPECT_EQ(transposes, 0);
  EXPECT_EQ(matmuls, 1);
  // Locations name the ONNX node and op type.
  std::string loc;
  llvm::raw_string_ostream os(loc);
  f.walk([&](infc::MatMulOp op) { op.getLoc().print(os); });
  EXPECT_NE(loc.find("Gemm_1(Gemm)"), std::string::npos) << loc;
}

TEST_F(OnnxImporterTest, ShapeGatherConcatReshapeChainFoldsToStaticShape) {
  addInput("x", onnx::TensorProto::FLOAT, {2, 3, 4});
  addNode("Shape", {"x"}, {"s"});
  auto *idx = model.mutable_graph()->add_initializer();
  idx->set_name("zero");
  idx->set_data_type(onnx::TensorProto::INT64);
  idx->add_int64_data(0);
  auto *neg = model.mutable_graph()->add_initializer();
  neg->set_name("minus1");
  neg->set_data_type(onnx::TensorProto::INT64);
  neg->add_dims(1);
  neg->add_int64_data(-1);
  addNode("Gather", {"s", "zero"}, {"batch"});
  auto *axes = model.mutable_graph()->add_initializer();
  axes->set_name("axes0");
  axes->set_data_type(onnx::TensorProto::INT64);
  axes->add_dims(1);
  axes->add_int64_data(0);
  addNode("Unsqueeze", {"batch", "axes0"}, {"batch1"});
  auto *concat = addNode("Concat", {"batch1", "minus1"}, {"shape"});
  auto *a = concat->add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(0);
  addNode("Reshape", {"x", "shape"}, {"y"});
  addOutput("y");
  auto m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  func::FuncOp f = mainOf(*m);
  EXPECT_EQ(f.getFunctionType().getResult(0),
            RankedTensorType::get({2, 12}, Float32Type::get(&context)));
  int shapeOps = 0;
  f.walk(
      [&](Operation *op) { shapeOps += isa<infc::ShapeOp, infc::GatherOp, infc::ConcatOp>(op); });
  EXPECT_EQ(shapeOps, 0) << "the shape chain should fold away at import";
}

TEST_F(OnnxImporterTest, EveryUnsupportedNodeIsListed) {
  addInput("x", onnx::TensorProto::FLOAT, {2, 2});
  addNode("Det", {"x"}, {"a"});
  auto *custom = addNode("Fancy", {"x"}, {"b"});
  custom->set_domain("com.example");
  addOutput("a");
  addOutput("b");
  EXPECT_FALSE(import());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("2 unsupported nodes"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("'Det_1' (Det, opset 17)"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("com.example:Fancy"), std::string::npos) << errors[0];
}

TEST_F(OnnxImporterTest, SymbolicDimNeedsInputShape) {
  addInput("x", onnx::TensorProto::FLOAT, {-1, 4}, "batch");
  addNode("Relu", {"x"}, {"y"});
  addOutput("y");
  EXPECT_FALSE(import());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("symbolic dim 'batch'"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("--input-shape x="), std::string::npos) << errors[0];

  infc::OnnxImportOptions options;
  options.inputShapes["x"] = {3, 4};
  auto m = import(options);
  ASSERT_TRUE(m);
  EXPECT_EQ(mainOf(*m).getFunctionType().getInput(0),
            RankedTensorType::get({3, 4}, Float32Type::get(&context)));

  options.inputShapes["x"] = {3, 5}; // conflicts with the graph's static dim 1
  EXPECT_FALSE(import(options));
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("graph fixes it to 4"), std::string::npos) << errors[0];
}

TEST_F(OnnxImporterTest, DimNamesAndRangesAreRecorded) {
  addInput("x", onnx::TensorProto::FLOAT, {-1, 4}, "batch");
  addNode("Relu", {"x"}, {"y"});
  addOutput("y");
  infc::OnnxImportOptions options;
  options.dimValues["batch"] = 2;
  options.dimRanges["batch"] = {1, 8};
  auto m = import(options);
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  auto names = mainOf(*m).getArgAttrOfType<ArrayAttr>(0, "infc.dims");
  ASSERT_TRUE(names);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(cast<StringAttr>(names[0]).getValue(), "batch");
  EXPECT_EQ(cast<StringAttr>(names[1]).getValue(), "");
  auto ranges = (*m)->getAttrOfType<DictionaryAttr>("infc.dim_ranges");
  ASSERT_TRUE(ranges);
  auto batch = ranges.getAs<DenseI64ArrayAttr>("batch");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch.asArrayRef(), ArrayRef<int64_t>({1, 8}));

  options.dimValues["batch"] = 9; // outside its range
  EXPECT_FALSE(import(options));
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("dim 0 'batch' is 9 (from --input-shape or --specialize), outside "
                           "--dim batch=1..8"),
            std::string::npos)
      << errors[0];

  options.dimValues["batch"] = 2;
  options.dimRanges["btch"] = {1, 8}; // no such name
  EXPECT_FALSE(import(options));
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("--dim names dim 'btch', which no graph input has"), std::string::npos)
      << errors[0];
}

TEST_F(OnnxImporterTest, SymbolicDimWithARangeStaysSymbolic) {
  addInput("x", onnx::TensorProto::FLOAT, {-1, 4}, "batch");
  addNode("Relu", {"x"}, {"r"});
  addNode("Flatten", {"r"}, {"y"});
  addOutput("y");
  infc::OnnxImportOptions options;
  options.dimRanges["batch"] = {1, 8};
  // The Relu takes the `?`; the Flatten's importer (a product of dims) was not read for it.
  EXPECT_FALSE(import(options));
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("(Flatten, opset"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("has the symbolic dim 'batch', which this op does not take yet"),
            std::string::npos)
      << errors[0];

  model.mutable_graph()->mutable_node()->RemoveLast();
  model.mutable_graph()->mutable_output(0)->set_name("r");
  auto m = import(options);
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  EXPECT_EQ(mainOf(*m).getFunctionType().getInput(0),
            RankedTensorType::get({ShapedType::kDynamic, 4}, Float32Type::get(&context)));
  EXPECT_EQ(mainOf(*m).getFunctionType().getResult(0),
            RankedTensorType::get({ShapedType::kDynamic, 4}, Float32Type::get(&context)));
}

TEST_F(OnnxImporterTest, NegativeDimValueIsDynamic) {
  // paddle2onnx writes dim_value -1 for a dynamic dim; onnxruntime reads it as one.
  addInput("x", onnx::TensorProto::FLOAT, {2, 4});
  model.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(-1);
  addNode("Relu", {"x"}, {"y"});
  addOutput("y");
  EXPECT_FALSE(import());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("symbolic dim ? (dim 0)"), std::string::npos) << errors[0];

  infc::OnnxImportOptions options;
  options.inputShapes["x"] = {1, 4};
  auto m = import(options);
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  EXPECT_EQ(mainOf(*m).getFunctionType().getInput(0),
            RankedTensorType::get({1, 4}, Float32Type::get(&context)));
}

TEST_F(OnnxImporterTest, ConvTransposeWithKernelAsLargeAsStrideIsOneMatmul) {
  // Each output pixel takes one kernel tap: a matmul scattered to the 2 x 3 pixels of each
  // input pixel, no zero-inserted convolution.
  addInput("x", onnx::TensorProto::FLOAT, {1, 2, 3, 4});
  addInitializer("w", {2, 5, 2, 3}, std::vector<float>(60, 0.5f));
  addInitializer("b", {5}, {1, 2, 3, 4, 5});
  auto *node = addNode("ConvTranspose", {"x", "w", "b"}, {"y"});
  auto *strides = node->add_attribute();
  strides->set_name("strides");
  strides->set_type(onnx::AttributeProto::INTS);
  strides->add_ints(2);
  strides->add_ints(3);
  addOutput("y");
  auto m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  int matmuls = 0, convs = 0, pads = 0;
  mainOf(*m).walk([&](Operation *op) {
    matmuls += isa<infc::MatMulOp>(op);
    convs += isa<infc::ConvOp>(op);
    pads += isa<infc::PadOp>(op);
  });
  EXPECT_EQ(matmuls, 1);
  EXPECT_EQ(convs, 0);
  EXPECT_EQ(pads, 0);
  EXPECT_EQ(mainOf(*m).getFunctionType().getResult(0),
            RankedTensorType::get({1, 5, 6, 12}, Float32Type::get(&context)));
}

TEST_F(OnnxImporterTest, ExternalDataIsReadAndEscapesAreRefused) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  auto *w = model.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto *loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("w.bin");
  float values[2] = {3.0f, 4.0f};
  {
    std::ofstream out(path("w.bin"), std::ios::binary);
    out.write((const char *)values, sizeof values);
  }
  addNode("Add", {"x", "w"}, {"y"});
  addOutput("y");
  auto m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  bool found = false;
  mainOf(*m).walk([&](infc::ConstantOp c) {
    auto values = cast<DenseElementsAttr>(c.getValue()).getValues<float>();
    found |= values[0] == 3.0f && values[1] == 4.0f;
  });
  EXPECT_TRUE(found);

  loc->set_value("../w.bin");
  EXPECT_FALSE(import());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("outside the model's folder"), std::string::npos) << errors[0];

  loc->set_value("missing.bin");
  EXPECT_FALSE(import());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("cannot open"), std::string::npos) << errors[0];
}

TEST_F(OnnxImporterTest, UnsupportedDtypeNamesTheInput) {
  addInput("s", onnx::TensorProto::STRING, {2});
  addNode("Identity", {"s"}, {"y"});
  addOutput("y");
  EXPECT_FALSE(import());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("graph input 's' has unsupported dtype string"), std::string::npos)
      << errors[0];
}

TEST_F(OnnxImporterTest, UnsignedAndHalfDtypesKeepTheirTypes) {
  // uint8 stays unsigned (ui8) in the infc dialect; float16/bfloat16 become f16/bf16.
  addInput("u", onnx::TensorProto::UINT8, {2});
  addInput("h", onnx::TensorProto::FLOAT16, {2});
  addInput("g", onnx::TensorProto::BFLOAT16, {2});
  addNode("Add", {"u", "u"}, {"y"});
  addOutput("y");
  addNode("Identity", {"h"}, {"hy"});
  addOutput("hy");
  addNode("Identity", {"g"}, {"gy"});
  addOutput("gy");
  OwningOpRef<ModuleOp> m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  FunctionType type = mainOf(*m).getFunctionType();
  auto elementType = [](Type t) { return cast<RankedTensorType>(t).getElementType(); };
  EXPECT_TRUE(elementType(type.getInput(0)).isUnsignedInteger(8));
  EXPECT_TRUE(elementType(type.getInput(1)).isF16());
  EXPECT_TRUE(elementType(type.getInput(2)).isBF16());
  EXPECT_TRUE(elementType(type.getResult(0)).isUnsignedInteger(8));
}

TEST_F(OnnxImporterTest, TypedFieldInitializersOfTheNewDtypes) {
  // uint64 travels in uint64_data; float16 as its bit pattern in int32_data.
  auto *big = model.mutable_graph()->add_initializer();
  big->set_name("big");
  big->set_data_type(onnx::TensorProto::UINT64);
  big->add_dims(2);
  big->add_uint64_data(18446744073709551615ull);
  big->add_uint64_data(7);
  auto *half = model.mutable_graph()->add_initializer();
  half->set_name("half");
  half->set_data_type(onnx::TensorProto::FLOAT16);
  half->add_dims(1);
  half->add_int32_data(0x3c00); // 1.0
  addNode("Identity", {"big"}, {"y"});
  addOutput("y");
  addNode("Identity", {"half"}, {"z"});
  addOutput("z");
  OwningOpRef<ModuleOp> m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  auto ret = cast<func::ReturnOp>(mainOf(*m).getBody().front().getTerminator());
  DenseElementsAttr big64, one;
  ASSERT_TRUE(matchPattern(ret.getOperand(0), m_Constant(&big64)));
  ASSERT_TRUE(matchPattern(ret.getOperand(1), m_Constant(&one)));
  auto values = llvm::to_vector(big64.getValues<APInt>());
  EXPECT_TRUE(values[0].isMaxValue());
  EXPECT_EQ(values[1].getZExtValue(), 7u);
  EXPECT_EQ((*one.getValues<APFloat>().begin()).convertToDouble(), 1.0);
}

TEST_F(OnnxImporterTest, PackedInt4InitializersAreUnpacked) {
  // int4 packs two values a byte, low nibble first: 0x9F is 15 (-1), then 9 (-7).
  model.mutable_opset_import(0)->set_version(21); // Identity takes int4 from opset 21
  auto *t = model.mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(22); // INT4 (newer than Debian's onnx.proto)
  t->add_dims(3);
  t->set_raw_data(std::string("\x9f\x03", 2));
  addNode("Identity", {"w"}, {"y"});
  addOutput("y");
  OwningOpRef<ModuleOp> m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  auto ret = cast<func::ReturnOp>(mainOf(*m).getBody().front().getTerminator());
  DenseElementsAttr w;
  ASSERT_TRUE(matchPattern(ret.getOperand(0), m_Constant(&w)));
  EXPECT_TRUE(w.getElementType().isSignlessInteger(4));
  auto values = llvm::to_vector(w.getValues<APInt>());
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0].getSExtValue(), -1);
  EXPECT_EQ(values[1].getSExtValue(), -7);
  EXPECT_EQ(values[2].getSExtValue(), 3);

  t->set_raw_data(std::string("\x9f", 1)); // 2 values for a shape of 3
  EXPECT_FALSE(import());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("4-bit values packed"), std::string::npos) << errors[0];
}

TEST_F(OnnxImporterTest, QuantizeLinearScalesAreNormalizedAndChecked) {
  // A one-element scale is per tensor (rank 0), whatever its rank.
  addInput("x", onnx::TensorProto::FLOAT, {2, 3});
  addInput("s", onnx::TensorProto::FLOAT, {1});
  addInput("z", onnx::TensorProto::INT8, {1});
  addNode("QuantizeLinear", {"x", "s", "z"}, {"y"});
  addOutput("y");
  OwningOpRef<ModuleOp> m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  infc::QuantizeOp q;
  m->walk([&](infc::QuantizeOp op) { q = op; });
  ASSERT_TRUE(q);
  EXPECT_EQ(cast<RankedTensorType>(q.getScale().getType()).getRank(), 0);
  EXPECT_TRUE(getElementTypeOrSelf(q.getType()).isSignlessInteger(8));

  // A per-axis scale must match the axis' dim.
  model.mutable_graph()
      ->mutable_input(1)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(2);
  model.mutable_graph()
      ->mutable_input(2)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(2);
  EXPECT_FALSE(import());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("(QuantizeLinear, opset 17): a per-axis scale must have shape [3]"),
            std::string::npos)
      << errors[0];
}

TEST_F(OnnxImporterTest, NodeErrorsNameNodeOpAndOpset) {
  addInput("x", onnx::TensorProto::FLOAT, {2, 3});
  addInput("shape", onnx::TensorProto::INT64, {2});
  addNode("Reshape", {"x", "shape"}, {"y"}); // a run-time shape: not compilable statically
  addOutput("y");
  EXPECT_FALSE(import());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("node 'Reshape_1' (Reshape, opset 17)"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("compile-time constant"), std::string::npos) << errors[0];
}

TEST_F(OnnxImporterTest, LogSoftmaxBeforeOpset13CoercesTo2D) {
  model.mutable_opset_import(0)->set_version(11);
  addInput("x", onnx::TensorProto::FLOAT, {2, 3, 4});
  auto *node = addNode("LogSoftmax", {"x"}, {"y"});
  auto *a = node->add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  addOutput("y");
  auto m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  // Normalized over dims 1 and 2 together: [2, 12], reductions on axis 1, reshaped back.
  std::vector<int64_t> reducedAxes;
  int reshapes = 0;
  mainOf(*m).walk([&](Operation *op) {
    if (auto r = dyn_cast<infc::ReduceMaxOp>(op)) {
      EXPECT_EQ(cast<RankedTensorType>(r.getInput().getType()).getShape(),
                ArrayRef<int64_t>({2, 12}));
      llvm::append_range(reducedAxes, r.getAxes());
    }
    if (isa<infc::ReduceSumOp>(op))
      llvm::append_range(reducedAxes, cast<infc::ReduceSumOp>(op).getAxes());
    reshapes += isa<infc::ReshapeOp>(op);
  });
  EXPECT_EQ(reducedAxes, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(reshapes, 2);
  EXPECT_EQ(mainOf(*m).getFunctionType().getResult(0),
            RankedTensorType::get({2, 3, 4}, Float32Type::get(&context)));
}

TEST_F(OnnxImporterTest, EmptyAxesInputNeedsNoValue) {
  model.mutable_opset_import(0)->set_version(18);
  addInput("x", onnx::TensorProto::FLOAT, {2, 3});
  addInput("axes", onnx::TensorProto::INT64, {0}); // a graph input, but of no elements
  addNode("ReduceL2", {"x", "axes"}, {"y"});
  addOutput("y");
  auto m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  // No axes: every dim is reduced (keepdims defaults to 1).
  EXPECT_EQ(mainOf(*m).getFunctionType().getResult(0),
            RankedTensorType::get({1, 1}, Float32Type::get(&context)));

  auto *noop = model.mutable_graph()->mutable_node(0)->add_attribute();
  noop->set_name("noop_with_empty_axes");
  noop->set_type(onnx::AttributeProto::INT);
  noop->set_i(1);
  m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  int reductions = 0;
  mainOf(*m).walk([&](infc::ReduceSumOp) { ++reductions; });
  EXPECT_EQ(reductions, 0) << "noop_with_empty_axes reduces nothing";
  EXPECT_EQ(mainOf(*m).getFunctionType().getResult(0),
            RankedTensorType::get({2, 3}, Float32Type::get(&context)));
}

TEST_F(OnnxImporterTest, NotOnnxAndTruncatedFilesAreRejected) {
  std::string file = path("junk.onnx");
  {
    std::ofstream out(file, std::ios::binary);
    out << "this is not a protobuf \xff\xff\xff";
  }
  errors.clear();
  ScopedDiagnosticHandler h(&context, [&](Diagnostic &d) {
    errors.push_back(d.str());
    return success();
  });
  EXPECT_FALSE(infc::importOnnxModel(context, file, {}));
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("not a valid ONNX model"), std::string::npos) << errors[0];
}
/// An int64 initializer (pads, axes, sizes...).
void addInt64Initializer(onnx::ModelProto &model, const std::string &name,
                         std::vector<int64_t> dims, std::vector<int64_t> values) {
  auto *t = model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims)
    t->add_dims(d);
  for (int64_t v : values)
    t->add_int64_data(v);
}

TEST_F(OnnxImporterTest, PadWithNegativePadsCropsThenPads) {
  model.mutable_opset_import(0)->set_version(13);
  addInput("x", onnx::TensorProto::FLOAT, {2, 3});
  addInt64Initializer(model, "pads", {4}, {0, -1, 1, 2}); // dim 1: crop 1 in front, 2 after
  addNode("Pad", {"x", "pads"}, {"y"});
  addOutput("y");
  auto m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  int slices = 0, pads = 0;
  mainOf(*m).walk([&](Operation *op) {
    slices += isa<infc::SliceOp>(op);
    if (auto pad = dyn_cast<infc::PadOp>(op)) {
      ++pads;
      EXPECT_EQ(pad.getLow(), ArrayRef<int64_t>({0, 0}));
      EXPECT_EQ(pad.getHigh(), ArrayRef<int64_t>({1, 2}));
      EXPECT_EQ(pad.getMode(), "constant");
      EXPECT_FALSE(pad.getValue());
    }
  });
  EXPECT_EQ(slices, 1);
  EXPECT_EQ(pads, 1);
  EXPECT_EQ(mainOf(*m).getFunctionType().getResult(0),
            RankedTensorType::get({3, 4}, Float32Type::get(&context)));
}

TEST_F(OnnxImporterTest, CumSumWithRunTimeAxisSelectsAmongAxes) {
  model.mutable_opset_import(0)->set_version(14);
  addInput("x", onnx::TensorProto::FLOAT, {2, 3});
  addInput("axis", onnx::TensorProto::INT32, {});
  addNode("CumSum", {"x", "axis"}, {"y"});
  addOutput("y");
  auto m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  std::vector<int64_t> axes;
  int wheres = 0;
  mainOf(*m).walk([&](Operation *op) {
    if (auto c = dyn_cast<infc::CumSumOp>(op))
      axes.push_back(c.getAxis());
    wheres += isa<infc::WhereOp>(op);
  });
  EXPECT_EQ(axes, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(wheres, 1);
}

TEST_F(OnnxImporterTest, TopKNeedsAConstantK) {
  addInput("x", onnx::TensorProto::FLOAT, {3, 4});
  addInput("k", onnx::TensorProto::INT64, {1});
  auto *node = addNode("TopK", {"x", "k"}, {"values", "indices"});
  addOutput("values");
  addOutput("indices");
  EXPECT_FALSE(import());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("node 'TopK_1' (TopK, opset 17): K (input 1) must be a compile-time "
                           "constant"),
            std::string::npos)
      << errors[0];

  model.mutable_graph()->mutable_input()->RemoveLast();
  addInt64Initializer(model, "k", {1}, {2});
  auto *largest = node->add_attribute();
  largest->set_name("largest");
  largest->set_type(onnx::AttributeProto::INT);
  largest->set_i(0);
  auto m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  int topks = 0;
  mainOf(*m).walk([&](infc::TopKOp op) {
    ++topks;
    EXPECT_EQ(op.getAxis(), 1u);
    EXPECT_EQ(op.getK(), 2u);
    EXPECT_FALSE(op.getLargest());
  });
  EXPECT_EQ(topks, 1);
  auto results = mainOf(*m).getFunctionType().getResults();
  EXPECT_EQ(results[0], RankedTensorType::get({3, 2}, Float32Type::get(&context)));
  EXPECT_EQ(results[1], RankedTensorType::get({3, 2}, IntegerType::get(&context, 64)));
}

TEST_F(OnnxImporterTest, ResizeNearestWithConstantScalesGathersPerAxis) {
  model.mutable_opset_import(0)->set_version(13);
  addInput("x", onnx::TensorProto::FLOAT, {1, 1, 2, 3});
  addInitializer("roi", {0}, {});
  addInitializer("scales", {4}, {1, 1, 2, 1.5});
  auto *node = addNode("Resize", {"x", "roi", "scales"}, {"y"});
  auto *mode = node->add_attribute();
  mode->set_name("coordinate_transformation_mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s("asymmetric");
  addOutput("y");
  auto m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  // Unit scales skip their axes; the others gather constant indices (asymmetric: x = y / s,
  // rounded half down: 0 0 1 1 and 0 1 1 2).
  std::vector<int64_t> axes, indices;
  int others = 0;
  mainOf(*m).walk([&](Operation *op) {
    if (auto g = dyn_cast<infc::GatherOp>(op)) {
      axes.push_back(g.getAxis());
      DenseElementsAttr c;
      ASSERT_TRUE(matchPattern(g.getIndices(), m_Constant(&c)));
      for (APInt v : c.getValues<APInt>())
        indices.push_back(v.getSExtValue());
    } else if (!isa<infc::ConstantOp, func::ReturnOp>(op) && op->getDialect() &&
               op->getDialect()->getNamespace() == "infc") {
      ++others;
    }
  });
  EXPECT_EQ(axes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(indices, (std::vector<int64_t>{0, 0, 1, 1, 0, 1, 1, 2}));
  EXPECT_EQ(others, 0);
  EXPECT_EQ(mainOf(*m).getFunctionType().getResult(0),
            RankedTensorType::get({1, 1, 4, 4}, Float32Type::get(&context)));
}
} // namespace

/// An If whose branches read an outer value and add a constant of their own.
static void addBranch(onnx::NodeProto *node, const std::string &attr, float addend) {
  auto *a = node->add_attribute();
  a->set_name(attr);
  a->set_type(onnx::AttributeProto::GRAPH);
  auto *g = a->mutable_g();
  g->set_name(attr);
  auto *c = g->add_initializer();
  c->set_name(attr + "_c");
  c->set_data_type(onnx::TensorProto::FLOAT);
  c->add_float_data(addend);
  auto *add = g->add_node();
  add->set_op_type("Add");
  add->set_name(attr + "_add");
  add->add_input("x"); // outer scope
  add->add_input(attr + "_c");
  add->add_output(attr + "_y");
  g->add_output()->set_name(attr + "_y");
}

TEST_F(OnnxImporterTest, IfImportsTheConstantBranchOrSelectsBetweenBoth) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addInput("c", onnx::TensorProto::BOOL, {});
  auto *node = addNode("If", {"c"}, {"y"});
  addBranch(node, "then_branch", 1.0f);
  addBranch(node, "else_branch", 2.0f);
  addOutput("y");
  auto m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  int adds = 0, wheres = 0;
  mainOf(*m).walk([&](infc::AddOp) { ++adds; });
  mainOf(*m).walk([&](infc::WhereOp) { ++wheres; });
  EXPECT_EQ(adds, 2);   // both branches...
  EXPECT_EQ(wheres, 1); // ...and a select on the run-time condition

  // A constant condition imports the else branch alone.
  model.mutable_graph()->mutable_input()->RemoveLast();
  auto *c = model.mutable_graph()->add_initializer();
  c->set_name("c");
  c->set_data_type(onnx::TensorProto::BOOL);
  c->add_int32_data(0);
  m = import();
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  adds = wheres = 0;
  float addend = 0;
  mainOf(*m).walk([&](infc::AddOp op) {
    ++adds;
    DenseElementsAttr value;
    if (matchPattern(op.getRhs(), m_Constant(&value)))
      addend = value.getSplatValue<float>();
  });
  mainOf(*m).walk([&](infc::WhereOp) { ++wheres; });
  EXPECT_EQ(adds, 1);
  EXPECT_EQ(wheres, 0);
  EXPECT_EQ(addend, 2.0f);
}

TEST_F(OnnxImporterTest, UnsupportedNodesInsideSubgraphsAreListed) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addInput("c", onnx::TensorProto::BOOL, {});
  auto *node = addNode("If", {"c"}, {"y"});
  addBranch(node, "then_branch", 1.0f);
  addBranch(node, "else_branch", 2.0f);
  // An ai.onnx op the importer lacks (an op ONNX lacks is refused by the schema check).
  node->mutable_attribute(1)->mutable_g()->mutable_node(0)->set_op_type("SequenceConstruct");
  addOutput("y");
  EXPECT_FALSE(import());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("1 unsupported node: 'else_branch_add' (SequenceConstruct, opset 17)"),
            std::string::npos)
      << errors[0];
}

TEST_F(OnnxImporterTest, InputValueSpecializesAndConvertsExactly) {
  addInput("x", onnx::TensorProto::FLOAT, {2, 6});
  addInput("shape", onnx::TensorProto::INT64, {2});
  addNode("Reshape", {"x", "shape"}, {"y"});
  addOutput("y");
  EXPECT_FALSE(import());
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("depends on graph input 'shape' (fix its value with --input-value "
                           "shape=FILE.npy)"),
            std::string::npos)
      << errors[0];

  // An int32 array for the int64 input converts exactly; the argument stays, with the value.
  infc::OnnxImportOptions options;
  auto &value = options.inputValues["shape"];
  value.dtype = INFC_I32;
  value.shape = {2};
  int32_t dims[2] = {3, -1};
  value.data.assign(reinterpret_cast<char *>(dims), reinterpret_cast<char *>(dims) + 8);
  auto m = import(options);
  ASSERT_TRUE(m) << (errors.empty() ? "" : errors[0]);
  func::FuncOp f = mainOf(*m);
  EXPECT_EQ(f.getFunctionType().getNumInputs(), 2u);
  EXPECT_EQ(f.getFunctionType().getResult(0),
            RankedTensorType::get({3, 4}, Float32Type::get(&context)));
  auto attr = f.getArgAttrOfType<DenseElementsAttr>(1, "infc.value");
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getElementType(), IntegerType::get(&context, 64));
  EXPECT_EQ((*attr.getValues<APInt>().begin()).getSExtValue(), 3);

  // 1.5 is no int64.
  value.dtype = INFC_F32;
  float halves[2] = {1.5f, 8.0f};
  value.data.assign(reinterpret_cast<char *>(halves), reinterpret_cast<char *>(halves) + 8);
  EXPECT_FALSE(import(options));
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("--input-value shape: element 0 has no exact value"), std::string::npos)
      << errors[0];
}

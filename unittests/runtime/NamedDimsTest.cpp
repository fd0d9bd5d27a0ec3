//===- NamedDimsTest.cpp - named dims: names, ranges and one size per name ---===//
//
// Static link (like VariantTest.cpp) against descriptors built here: y = a + b with a and b
// f32[batch, seq], compiled for (batch, seq) = (1, 2) and (2, 4), batch declared 1..2
// (`--dim batch=1..2`) and seq unbounded; and a static model whose dim 0 is named. Covers
// the dim introspection, the run checks with their messages, infc_session_prepare and
// infc_session_output_shape, and corrupt dim tables.
//
//===----------------------------------------------------------------------===//

#include "infc/runtime.h"

extern "C" {
#include "model_desc.h"
infc_status infc__model_create_from_desc(const infc_model_desc *desc, infc_model **out);
}

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

template <int64_t N> void add(void **args) {
  const float *a = static_cast<const float *>(args[1]), *b = static_cast<const float *>(args[2]);
  float *y = static_cast<float *>(args[3]);
  for (int64_t i = 0; i < N; ++i)
    y[i] = a[i] + b[i];
}

const int64_t kAny[] = {-1, -1};
const int64_t k1x2[] = {1, 2}, k2x4[] = {2, 4};
const int64_t *const kShapes12[] = {k1x2, k1x2}, *const kShapes24[] = {k2x4, k2x4};
const int64_t *const kOut12[] = {k1x2}, *const kOut24[] = {k2x4};
const int32_t kBatchSeq[] = {0, 1};

struct Desc {
  infc_dim_desc dims[2] = {{"batch", 1, 2}, {"seq", 0, INT64_MAX}};
  infc_io_desc inputs[2] = {{"a", INFC_F32, 2, kAny, nullptr, 0, kBatchSeq},
                            {"b", INFC_F32, 2, kAny, nullptr, 0, kBatchSeq}};
  infc_io_desc outputs[1] = {{"y", INFC_F32, 2, kAny, nullptr, 0, kBatchSeq}};
  infc_variant_desc variants[2] = {
      {"batch=1,seq=2", kShapes12, kOut12, add<2>, nullptr, 0, 0, nullptr},
      {"batch=2,seq=4", kShapes24, kOut24, add<8>, nullptr, 0, 0, nullptr}};
  infc_model_desc desc = {INFC_MODEL_DESC_VERSION, 2, 1, 0, inputs, outputs, 0, "named", add<2>};
  Desc() {
    desc.num_variants = 2;
    desc.variants = variants;
    desc.num_dims = 2;
    desc.dims = dims;
  }
};

/// A way to corrupt a fresh descriptor D, named for the failure message.
template <typename D> struct Corruption {
  const char *what;
  void (*corrupt)(D &);
};

/// Each corruption of a fresh D is refused: INFC_ERR_INTERNAL and no model.
template <typename D, size_t N> void expectRefused(const Corruption<D> (&cases)[N]) {
  for (const Corruption<D> &c : cases) {
    D d;
    c.corrupt(d);
    infc_model *model = nullptr;
    EXPECT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_ERR_INTERNAL) << c.what;
    EXPECT_EQ(model, nullptr) << c.what;
  }
}

struct NamedDims : ::testing::Test {
  Desc d;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  void SetUp() override {
    ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
    ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
  }
  void TearDown() override {
    infc_session_release(session);
    infc_model_release(model);
  }
  // Runs a [sa0, sa1] + b [sb0, sb1] into a library-owned output.
  infc_status run(std::vector<int64_t> sa, std::vector<int64_t> sb) {
    std::vector<float> a(64, 1.f), b(64, 2.f);
    infc_tensor in[2] = {{a.data(), INFC_F32, 2, sa.data(), 0, 0, 0},
                         {b.data(), INFC_F32, 2, sb.data(), 0, 0, 0}};
    infc_tensor out{};
    return infc_run(session, in, 2, &out, 1);
  }
  std::string error() const { return infc_session_error(session); }
};

TEST_F(NamedDims, IntrospectionGivesNamesAndRanges) {
  infc_dim_info info;
  ASSERT_EQ(infc_model_input_dim(model, 1, 0, &info), INFC_OK);
  EXPECT_STREQ(info.name, "batch");
  EXPECT_EQ(info.value, -1);
  EXPECT_EQ(info.min, 1); // declared 1..2, variants 1 and 2
  EXPECT_EQ(info.max, 2);
  // Unbounded, narrowed to the variants' sizes.
  ASSERT_EQ(infc_model_output_dim(model, 0, 1, &info), INFC_OK);
  EXPECT_STREQ(info.name, "seq");
  EXPECT_EQ(info.min, 2);
  EXPECT_EQ(info.max, 4);
  EXPECT_EQ(infc_model_input_dim(model, 0, 2, &info), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_model_input_dim(model, 2, 0, &info), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_model_input_dim(model, 0, -1, &info), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_model_output_dim(model, 0, 0, nullptr), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_model_input_dim(nullptr, 0, 0, &info), INFC_ERR_INVALID_ARGUMENT);
}

TEST_F(NamedDims, OneSizePerName) {
  EXPECT_EQ(run({2, 4}, {2, 4}), INFC_OK) << error();
  EXPECT_EQ(run({1, 2}, {1, 4}), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(error(), "input 1 'b': dim 1 'seq' is 4, but input 0 'a' dim 1 of the same name is 2");
  EXPECT_EQ(run({2, 4}, {1, 4}), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(error(),
            "input 1 'b': dim 0 'batch' is 1, but input 0 'a' dim 0 of the same name is 2");
}

TEST_F(NamedDims, SizesOutsideTheRangeAreRefused) {
  EXPECT_EQ(run({3, 4}, {3, 4}), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(error(), "input 0 'a': dim 0 'batch' is 3, must be within 1..2 (the range the model "
                     "was compiled for)");
  EXPECT_EQ(run({2, -4}, {2, -4}), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(error(), "input 0 'a': dim 1 'seq' is -4, must be at least 0");
  // In range, but no variant: the dispatch's message.
  EXPECT_EQ(run({2, 3}, {2, 3}), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_NE(error().find("no compiled variant"), std::string::npos) << error();
}

TEST_F(NamedDims, PrepareGivesTheOutputShapeBeforeTheRun) {
  const int64_t *shape = nullptr;
  int32_t rank = 0;
  ASSERT_EQ(infc_session_output_shape(session, 0, &rank, &shape), INFC_OK);
  EXPECT_EQ(rank, 2);
  EXPECT_EQ(shape[0], 1); // the first variant's until a prepare or run
  int64_t s24[] = {2, 4};
  infc_tensor in[2] = {{nullptr, INFC_F32, 2, s24, 0, 0, 0}, {nullptr, INFC_F32, 2, s24, 0, 0, 0}};
  ASSERT_EQ(infc_session_prepare(session, in, 2), INFC_OK) << error();
  ASSERT_EQ(infc_session_output_shape(session, 0, &rank, &shape), INFC_OK);
  EXPECT_EQ(shape[0], 2);
  EXPECT_EQ(shape[1], 4);
  // The caller allocates the output of that shape and runs.
  std::vector<float> a(8, 1.f), b(8, 2.f), y(shape[0] * shape[1], 0.f);
  in[0].data = a.data();
  in[1].data = b.data();
  infc_tensor out{y.data(), INFC_F32, rank, shape, 0, 0, 0};
  ASSERT_EQ(infc_run(session, in, 2, &out, 1), INFC_OK) << error();
  for (float v : y)
    EXPECT_EQ(v, 3.f);
  // Prepare checks as a run does, and a failed one leaves the shapes alone.
  int64_t s14[] = {1, 4};
  in[1].shape = s14;
  EXPECT_EQ(infc_session_prepare(session, in, 2), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(error(),
            "input 1 'b': dim 0 'batch' is 1, but input 0 'a' dim 0 of the same name is 2");
  ASSERT_EQ(infc_session_output_shape(session, 0, &rank, &shape), INFC_OK);
  EXPECT_EQ(shape[1], 4);
  in[1].dtype = INFC_I64;
  EXPECT_EQ(infc_session_prepare(session, in, 2), INFC_ERR_DTYPE_MISMATCH);
  EXPECT_EQ(infc_session_prepare(session, in, 1), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_session_prepare(nullptr, in, 2), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_session_output_shape(session, 1, &rank, &shape), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_session_output_shape(session, 0, nullptr, &shape), INFC_ERR_INVALID_ARGUMENT);
}

TEST(NamedStaticDim, MismatchNamesTheDim) {
  const int64_t k1x2Static[] = {1, 2};
  const int32_t kBatchOnly[] = {0, -1};
  infc_dim_desc dims[1] = {{"batch", 0, INT64_MAX}};
  infc_io_desc inputs[2] = {{"a", INFC_F32, 2, k1x2Static, nullptr, 0, kBatchOnly},
                            {"b", INFC_F32, 2, k1x2Static, nullptr, 0, nullptr}};
  infc_io_desc outputs[1] = {{"y", INFC_F32, 2, k1x2Static, nullptr, 0, kBatchOnly}};
  infc_model_desc desc = {INFC_MODEL_DESC_VERSION, 2, 1, 0, inputs, outputs, 0, "static", add<2>};
  desc.num_dims = 1;
  desc.dims = dims;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&desc, &model), INFC_OK);
  ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
  infc_dim_info info;
  ASSERT_EQ(infc_model_input_dim(model, 0, 0, &info), INFC_OK);
  EXPECT_STREQ(info.name, "batch");
  EXPECT_EQ(info.value, 1);
  EXPECT_EQ(info.min, 1);
  EXPECT_EQ(info.max, 1);
  ASSERT_EQ(infc_model_input_dim(model, 1, 0, &info), INFC_OK);
  EXPECT_EQ(info.name, nullptr);
  std::vector<float> a(4, 1.f), b(4, 2.f);
  int64_t s22[] = {2, 2}, s12[] = {1, 2};
  infc_tensor in[2] = {{a.data(), INFC_F32, 2, s22, 0, 0, 0},
                       {b.data(), INFC_F32, 2, s12, 0, 0, 0}};
  infc_tensor out{};
  EXPECT_EQ(infc_run(session, in, 2, &out, 1), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "input 0 'a': dim 0 'batch' is 2, expected 1 (shape [2,2], expected [1,2])");
  in[0].shape = s12;
  in[1].shape = s22;
  EXPECT_EQ(infc_run(session, in, 2, &out, 1), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "input 1 'b': dim 0 is 2, expected 1 (shape [2,2], expected [1,2])");
  in[1].shape = s12;
  EXPECT_EQ(infc_run(session, in, 2, &out, 1), INFC_OK) << infc_session_error(session);
  infc_session_release(session);
  infc_model_release(model);
}

TEST(NamedDimDescriptors, CorruptTablesAreRefused) {
  static const int32_t kOutOfRange[] = {0, 2}, kBelow[] = {-2, 0};
  const Corruption<Desc> cases[] = {
      {"no table", [](Desc &d) { d.desc.dims = nullptr; }},
      {"nameless", [](Desc &d) { d.dims[1].name = nullptr; }},
      {"min > max", [](Desc &d) { d.dims[0].min = 3; }},
      {"negative min", [](Desc &d) { d.dims[0].min = -1; }},
      {"id past the table", [](Desc &d) { d.inputs[1].dim_ids = kOutOfRange; }},
      {"id below -1", [](Desc &d) { d.outputs[0].dim_ids = kBelow; }},
  };
  expectRefused(cases);
}

// A generic model (INFC_DESC_DIMS_ARG): y[batch, 2] = a + b, batch 1..4; the entry reads the
// batch from the dims argument (args[1]).
void addGeneric(void **args) {
  int64_t n = static_cast<const int64_t *>(args[1])[0] * 2;
  const float *a = static_cast<const float *>(args[2]), *b = static_cast<const float *>(args[3]);
  float *y = static_cast<float *>(args[4]);
  for (int64_t i = 0; i < n; ++i)
    y[i] = a[i] + b[i];
}

const int64_t kBatchBy2[] = {-1, 2};
const int32_t kBatchFirst[] = {0, -1};

struct GenericDesc {
  infc_dim_desc dims[1] = {{"batch", 1, 4}};
  infc_io_desc inputs[2] = {{"a", INFC_F32, 2, kBatchBy2, nullptr, 0, kBatchFirst},
                            {"b", INFC_F32, 2, kBatchBy2, nullptr, 0, kBatchFirst}};
  infc_io_desc outputs[1] = {{"y", INFC_F32, 2, kBatchBy2, nullptr, 0, kBatchFirst}};
  infc_model_desc desc = {
      INFC_MODEL_DESC_VERSION, 2, 1, 0, inputs, outputs, 0, "generic", addGeneric};
  GenericDesc() {
    desc.num_dims = 1;
    desc.dims = dims;
    desc.flags = INFC_DESC_DIMS_ARG;
  }
};

TEST(GenericModel, RunsEverySizeInItsRange) {
  GenericDesc d;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
  ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
  for (int64_t batch : {4, 1, 3}) {
    std::vector<float> a(batch * 2), b(batch * 2, 0.5f), y(batch * 2, -1.f);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = float(i);
    int64_t shape[] = {batch, 2};
    infc_tensor in[2] = {{a.data(), INFC_F32, 2, shape, 0, 0, 0},
                         {b.data(), INFC_F32, 2, shape, 0, 0, 0}};
    infc_tensor owned{};
    ASSERT_EQ(infc_run(session, in, 2, &owned, 1), INFC_OK) << infc_session_error(session);
    ASSERT_EQ(owned.rank, 2);
    EXPECT_EQ(owned.shape[0], batch);
    EXPECT_EQ(owned.byte_size, size_t(batch * 2 * 4));
    infc_tensor mine{y.data(), INFC_F32, 2, shape, 0, 0, 0};
    ASSERT_EQ(infc_run(session, in, 2, &mine, 1), INFC_OK) << infc_session_error(session);
    for (size_t i = 0; i < y.size(); ++i)
      EXPECT_EQ(y[i], float(i) + 0.5f) << "batch " << batch << " element " << i;
  }
  // Out of range, another batch for the output, too few bytes: refused, nothing written.
  std::vector<float> a(10, 1.f), y(10, -1.f);
  int64_t five[] = {5, 2}, two[] = {2, 2}, three[] = {3, 2};
  infc_tensor in[2] = {{a.data(), INFC_F32, 2, five, 0, 0, 0},
                       {a.data(), INFC_F32, 2, five, 0, 0, 0}};
  infc_tensor out{y.data(), INFC_F32, 2, two, 0, 0, 0};
  EXPECT_EQ(infc_run(session, in, 2, &out, 1), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "input 0 'a': dim 0 'batch' is 5, must be within 1..4 (the range the model was "
            "compiled for)");
  in[0].shape = in[1].shape = three;
  EXPECT_EQ(infc_run(session, in, 2, &out, 1), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "output 0 'y': dim 0 'batch' is 2, expected 3 (its size in this run's inputs)");
  out.shape = three;
  out.byte_size = 3 * 2 * 4 - 1;
  EXPECT_EQ(infc_run(session, in, 2, &out, 1), INFC_ERR_INVALID_ARGUMENT);
  in[1].byte_size = 5;
  out.byte_size = 0;
  EXPECT_EQ(infc_run(session, in, 2, &out, 1), INFC_ERR_INVALID_ARGUMENT);
  for (float v : y)
    EXPECT_EQ(v, -1.f);
  // Prepare gives the run's output shape.
  in[1].byte_size = 0;
  ASSERT_EQ(infc_session_prepare(session, in, 2), INFC_OK) << infc_session_error(session);
  int32_t rank = 0;
  const int64_t *shape = nullptr;
  ASSERT_EQ(infc_session_output_shape(session, 0, &rank, &shape), INFC_OK);
  EXPECT_EQ(shape[0], 3);
  EXPECT_EQ(shape[1], 2);
  // A library-owned output keeps its run's shape through a later prepare.
  std::vector<float> a2(4, 1.f);
  int64_t twoRows[] = {2, 2};
  infc_tensor in2[2] = {{a2.data(), INFC_F32, 2, twoRows, 0, 0, 0},
                        {a2.data(), INFC_F32, 2, twoRows, 0, 0, 0}};
  infc_tensor owned{};
  ASSERT_EQ(infc_run(session, in2, 2, &owned, 1), INFC_OK) << infc_session_error(session);
  ASSERT_EQ(infc_session_prepare(session, in, 2), INFC_OK) << infc_session_error(session);
  EXPECT_EQ(owned.shape[0], 2);
  ASSERT_EQ(infc_session_output_shape(session, 0, &rank, &shape), INFC_OK);
  EXPECT_EQ(shape[0], 3);
  infc_dim_info info;
  ASSERT_EQ(infc_model_output_dim(model, 0, 0, &info), INFC_OK);
  EXPECT_STREQ(info.name, "batch");
  EXPECT_EQ(info.value, -1);
  EXPECT_EQ(info.min, 1);
  EXPECT_EQ(info.max, 4);
  infc_session_release(session);
  infc_model_release(model);
}

// Generic code whose batch has no largest size sizes its workspace at each run: 64 + 8 *
// batch bytes here. The entry stages a + b through the workspace's 8-byte-a-row part (a
// smaller workspace would be overrun: ASan sees it) and records the pointer it was given.
void *lastWorkspace = nullptr;
void addThroughWorkspace(void **args) {
  int64_t n = static_cast<const int64_t *>(args[1])[0] * 2;
  const float *a = static_cast<const float *>(args[2]), *b = static_cast<const float *>(args[3]);
  float *staged = reinterpret_cast<float *>(static_cast<char *>(args[0]) + 64);
  float *y = static_cast<float *>(args[4]);
  lastWorkspace = args[0];
  for (int64_t i = 0; i < n; ++i)
    staged[i] = a[i] + b[i];
  for (int64_t i = 0; i < n; ++i)
    y[i] = staged[i];
}

TEST(GenericModel, WithoutALargestSizeTheWorkspaceGrowsWithTheRun) {
  static const uint64_t kWorkspace[] = {64, 8}; // 64 + 8 * batch bytes
  GenericDesc d;
  d.dims[0] = {"batch", 1, INT64_MAX};
  d.desc.entry = addThroughWorkspace;
  d.desc.workspace_bytes = 64;
  d.desc.workspace_terms = 2;
  d.desc.workspace_dim = 0;
  d.desc.workspace_coeffs = kWorkspace;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
  ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
  void *grown = nullptr;
  for (int64_t batch : {3, 5000, 2, 5000}) {
    std::vector<float> a(batch * 2), b(batch * 2);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = float(i);
      b[i] = 0.5f;
    }
    int64_t shape[] = {batch, 2};
    infc_tensor in[2] = {{a.data(), INFC_F32, 2, shape, 0, 0, 0},
                         {b.data(), INFC_F32, 2, shape, 0, 0, 0}};
    infc_tensor out{};
    ASSERT_EQ(infc_run(session, in, 2, &out, 1), INFC_OK) << infc_session_error(session);
    ASSERT_EQ(out.shape[0], batch);
    for (int64_t i = 0; i < batch * 2; ++i)
      ASSERT_EQ(static_cast<const float *>(out.data)[i], float(i) + 0.5f) << batch;
    if (batch == 5000 && grown)
      EXPECT_EQ(lastWorkspace, grown) << "the workspace was reallocated for a size it held";
    if (batch == 5000)
      grown = lastWorkspace;
  }
  // A size whose workspace overflows is refused before anything runs.
  int64_t huge[] = {INT64_MAX / 4, 2};
  float one[2] = {1.f, 1.f};
  infc_tensor in[2] = {{one, INFC_F32, 2, huge, 0, 0, 0}, {one, INFC_F32, 2, huge, 0, 0, 0}};
  infc_tensor out{};
  EXPECT_EQ(infc_run(session, in, 2, &out, 1), INFC_ERR_INVALID_ARGUMENT);
  infc_session_release(session);
  infc_model_release(model);
}

// Variants beside generic code (`--dim` with `--specialize` where the batch loop does not
// apply): the shapes a variant was compiled for run it, as static code (no dims argument);
// the others the generic entry.
int variantCalls = 0;
void addStaticBatch2(void **args) {
  const float *a = static_cast<const float *>(args[1]), *b = static_cast<const float *>(args[2]);
  float *y = static_cast<float *>(args[3]);
  ++variantCalls;
  for (int i = 0; i < 4; ++i)
    y[i] = a[i] + b[i];
}

TEST(GenericModel, VariantsBesideItRunTheirShapes) {
  static const int64_t k2x2[] = {2, 2};
  static const int64_t *const kShapes[] = {k2x2, k2x2};
  static const int64_t *const kOutShapes[] = {k2x2};
  static const infc_variant_desc kVariant = {"batch=2", kShapes, kOutShapes, addStaticBatch2,
                                             nullptr,   0,       0,          nullptr};
  GenericDesc d;
  d.desc.num_variants = 1;
  d.desc.variants = &kVariant;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
  infc_dim_info info{};
  ASSERT_EQ(infc_model_input_dim(model, 0, 0, &info), INFC_OK);
  EXPECT_EQ(info.min, 1); // the generic code's range, not only the variant's size
  EXPECT_EQ(info.max, 4);
  ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
  for (auto [batch, calls] : {std::pair<int64_t, int>{2, 1}, {3, 1}, {1, 1}, {2, 2}, {4, 2}}) {
    std::vector<float> a(batch * 2), b(batch * 2, 10.f);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = float(i);
    int64_t shape[] = {batch, 2};
    infc_tensor in[2] = {{a.data(), INFC_F32, 2, shape, 0, 0, 0},
                         {b.data(), INFC_F32, 2, shape, 0, 0, 0}};
    infc_tensor out{};
    ASSERT_EQ(infc_run(session, in, 2, &out, 1), INFC_OK) << infc_session_error(session);
    EXPECT_EQ(variantCalls, calls) << "batch " << batch;
    ASSERT_EQ(out.shape[0], batch);
    for (int64_t i = 0; i < batch * 2; ++i)
      EXPECT_EQ(static_cast<const float *>(out.data)[i], float(i) + 10.f) << batch;
  }
  infc_session_release(session);
  infc_model_release(model);
}

TEST(GenericModel, CorruptDescriptorsAreRefused) {
  static const int32_t kUnnamed[] = {-1, -1};
  static const int64_t k3x2[] = {3, 2};
  const Corruption<GenericDesc> cases[] = {
      {"an unnamed symbolic dim", [](GenericDesc &d) { d.inputs[1].dim_ids = kUnnamed; }},
      {"a workspace sized per run by a dim it does not have",
       [](GenericDesc &d) {
         static const uint64_t kCoefficients[] = {0, 8};
         d.desc.workspace_terms = 2;
         d.desc.workspace_dim = 1;
         d.desc.workspace_coeffs = kCoefficients;
       }},
      {"a workspace sized per run without coefficients",
       [](GenericDesc &d) {
         d.desc.workspace_terms = 2;
         d.desc.workspace_dim = 0;
       }},
      {"an output dim no input names",
       [](GenericDesc &d) {
         d.inputs[0].shape = d.inputs[1].shape = k3x2;
         d.inputs[0].dim_ids = d.inputs[1].dim_ids = nullptr;
       }},
      {"unknown flags", [](GenericDesc &d) { d.desc.flags = 4; }},
      {"a variant without shapes",
       [](GenericDesc &d) {
         static infc_variant_desc variant = {"v",     nullptr, nullptr, addGeneric,
                                             nullptr, 0,       0,       nullptr};
         d.desc.num_variants = 1;
         d.desc.variants = &variant;
       }},
  };
  expectRefused(cases);
}

// The batch loop (INFC_DESC_BATCH_LOOP): the entry is y[1, 2] = a[1, 2] + c[2] (c without
// the batch, passed whole), called once per row of a and y; no dims argument.
void addRow(void **args) {
  const float *a = static_cast<const float *>(args[1]), *c = static_cast<const float *>(args[2]);
  float *y = static_cast<float *>(args[3]);
  for (int i = 0; i < 2; ++i)
    y[i] = a[i] + c[i];
}

const int64_t kTwo[] = {2};

struct LoopDesc {
  infc_dim_desc dims[1] = {{"batch", 0, 4}};
  infc_io_desc inputs[2] = {{"a", INFC_F32, 2, kBatchBy2, nullptr, 0, kBatchFirst},
                            {"c", INFC_F32, 1, kTwo, nullptr, 0, nullptr}};
  infc_io_desc outputs[1] = {{"y", INFC_F32, 2, kBatchBy2, nullptr, 0, kBatchFirst}};
  infc_model_desc desc = {INFC_MODEL_DESC_VERSION, 2, 1, 0, inputs, outputs, 0, "rows", addRow};
  LoopDesc() {
    desc.num_dims = 1;
    desc.dims = dims;
    desc.flags = INFC_DESC_BATCH_LOOP;
  }
};

TEST(BatchLoop, CallsTheEntryOncePerRow) {
  LoopDesc d;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
  ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
  float c[2] = {10.f, 20.f};
  int64_t cShape[] = {2};
  for (int64_t batch : {3, 1, 4, 0}) {
    std::vector<float> a(batch * 2 + 1), y(batch * 2 + 1, -1.f); // (never empty: data not NULL)
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = float(i);
    int64_t shape[] = {batch, 2};
    infc_tensor in[2] = {{a.data(), INFC_F32, 2, shape, 0, 0, 0},
                         {c, INFC_F32, 1, cShape, 0, 0, 0}};
    infc_tensor mine{y.data(), INFC_F32, 2, shape, 0, 0, 0};
    ASSERT_EQ(infc_run(session, in, 2, &mine, 1), INFC_OK) << infc_session_error(session);
    for (int64_t i = 0; i < batch * 2; ++i)
      EXPECT_EQ(y[i], float(i) + c[i % 2]) << "batch " << batch << " element " << i;
    EXPECT_EQ(y[batch * 2], -1.f) << "batch " << batch << ": written past the last row";
    infc_tensor owned{};
    ASSERT_EQ(infc_run(session, in, 2, &owned, 1), INFC_OK) << infc_session_error(session);
    ASSERT_EQ(owned.shape[0], batch);
    EXPECT_EQ(owned.byte_size, size_t(batch * 2 * 4));
    for (int64_t i = 0; i < batch * 2; ++i)
      EXPECT_EQ(static_cast<const float *>(owned.data)[i], float(i) + c[i % 2]);
  }
  std::vector<float> a(10, 1.f);
  int64_t five[] = {5, 2};
  infc_tensor in[2] = {{a.data(), INFC_F32, 2, five, 0, 0, 0}, {c, INFC_F32, 1, cShape, 0, 0, 0}};
  infc_tensor owned{};
  EXPECT_EQ(infc_run(session, in, 2, &owned, 1), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "input 0 'a': dim 0 'batch' is 5, must be within 0..4 (the range the model was "
            "compiled for)");
  infc_session_release(session);
  infc_model_release(model);
}

// With threads, rows run side by side, each on a workspace of its own: the entry copies its
// row into the workspace, waits a little for the other thread to do the same, and reads it
// back (a shared workspace would mix rows), recording the workspaces it saw.
std::mutex seenLock;
std::set<void *> seenWorkspaces;

void addRowThroughWorkspace(void **args) {
  const float *a = static_cast<const float *>(args[1]), *c = static_cast<const float *>(args[2]);
  float *ws = static_cast<float *>(args[0]), *y = static_cast<float *>(args[3]);
  {
    std::lock_guard<std::mutex> hold(seenLock);
    seenWorkspaces.insert(ws);
  }
  ws[0] = a[0];
  ws[1] = a[1];
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  for (int i = 0; i < 2; ++i)
    y[i] = ws[i] + c[i];
}

TEST(BatchLoop, RowsRunSideBySideOnTheirOwnWorkspaces) {
  LoopDesc d;
  d.desc.entry = addRowThroughWorkspace;
  d.desc.workspace_bytes = 8;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
  infc_session_options opts{};
  opts.struct_size = sizeof opts;
  opts.num_threads = 2;
  ASSERT_EQ(infc_session_create(model, &opts, &session), INFC_OK);
  float c[2] = {10.f, 20.f};
  int64_t cShape[] = {2};
  for (int64_t batch : {4, 3, 1, 2}) {
    seenWorkspaces.clear();
    std::vector<float> a(batch * 2), y(batch * 2, -1.f);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = float(i);
    int64_t shape[] = {batch, 2};
    infc_tensor in[2] = {{a.data(), INFC_F32, 2, shape, 0, 0, 0},
                         {c, INFC_F32, 1, cShape, 0, 0, 0}};
    infc_tensor out{y.data(), INFC_F32, 2, shape, 0, 0, 0};
    ASSERT_EQ(infc_run(session, in, 2, &out, 1), INFC_OK) << infc_session_error(session);
    for (int64_t i = 0; i < batch * 2; ++i)
      EXPECT_EQ(y[i], float(i) + c[i % 2]) << "batch " << batch << " element " << i;
    EXPECT_EQ(seenWorkspaces.size(), batch >= 2 ? 2u : 1u) << "batch " << batch;
  }
  infc_session_release(session);
  infc_model_release(model);
}

// Variants as the batch loop's blocks (--specialize beside --dim): rows of 1 and of 2 a
// call; a batch of 2 takes the 2-row variant once, 5 takes 2 + 2 + 1.
std::atomic<int> oneRowCalls{0}, twoRowCalls{0};

template <int Rows> void addRows(void **args) {
  const float *a = static_cast<const float *>(args[1]), *c = static_cast<const float *>(args[2]);
  float *y = static_cast<float *>(args[3]);
  for (int i = 0; i < 2 * Rows; ++i)
    y[i] = a[i] + c[i % 2];
  ++(Rows == 1 ? oneRowCalls : twoRowCalls);
}

const int64_t k1By2[] = {1, 2}, k2By2[] = {2, 2};
const int64_t *const kIn1[] = {k1By2, kTwo}, *const kIn2[] = {k2By2, kTwo};
const int64_t *const kOutRows1[] = {k1By2}, *const kOutRows2[] = {k2By2};

struct BlockDesc : LoopDesc {
  infc_variant_desc variants[2] = {
      {"batch=1", kIn1, kOutRows1, addRows<1>, nullptr, 0, 0, nullptr},
      {"batch=2", kIn2, kOutRows2, addRows<2>, nullptr, 0, 0, nullptr}};
  BlockDesc() {
    dims[0].max = 8;
    desc.entry = addRows<1>;
    desc.num_variants = 2;
    desc.variants = variants;
  }
};

TEST(BatchLoop, VariantsAreItsBlocks) {
  BlockDesc d;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
  ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
  float c[2] = {10.f, 20.f};
  int64_t cShape[] = {2};
  struct Case {
    int64_t batch;
    int ones, twos;
  };
  for (Case k : {Case{2, 0, 1}, Case{5, 1, 2}, Case{1, 1, 0}, Case{4, 0, 2}}) {
    oneRowCalls = twoRowCalls = 0;
    std::vector<float> a(k.batch * 2), y(k.batch * 2, -1.f);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = float(i);
    int64_t shape[] = {k.batch, 2};
    infc_tensor in[2] = {{a.data(), INFC_F32, 2, shape, 0, 0, 0},
                         {c, INFC_F32, 1, cShape, 0, 0, 0}};
    infc_tensor out{y.data(), INFC_F32, 2, shape, 0, 0, 0};
    ASSERT_EQ(infc_run(session, in, 2, &out, 1), INFC_OK) << infc_session_error(session);
    for (int64_t i = 0; i < k.batch * 2; ++i)
      EXPECT_EQ(y[i], float(i) + c[i % 2]) << "batch " << k.batch << " element " << i;
    EXPECT_EQ(oneRowCalls, k.ones) << "batch " << k.batch;
    EXPECT_EQ(twoRowCalls, k.twos) << "batch " << k.batch;
    infc_tensor owned{};
    ASSERT_EQ(infc_run(session, in, 2, &owned, 1), INFC_OK) << infc_session_error(session);
    EXPECT_EQ(owned.shape[0], k.batch);
  }
  infc_session_release(session);
  infc_model_release(model);
  // Without a variant of one row, a batch of 3 could not run: corrupt.
  BlockDesc noRow;
  noRow.desc.num_variants = 1;
  noRow.desc.variants = &noRow.variants[1];
  EXPECT_EQ(infc__model_create_from_desc(&noRow.desc, &model), INFC_ERR_INTERNAL);
}

// The batch loop around generic code (both flags): the entry is y[1, seq] = 2 * a[1, seq],
// seq read from the dims argument (args[1][1]; the batch's size, args[1][0], unused),
// called once per row of a and y, each advanced by its row's bytes at this run's seq.
void doubleRow(void **args) {
  int64_t seq = static_cast<const int64_t *>(args[1])[1];
  const float *a = static_cast<const float *>(args[2]);
  float *y = static_cast<float *>(args[3]);
  for (int64_t i = 0; i < seq; ++i)
    y[i] = 2 * a[i];
}

const int64_t kAnyByAny[] = {-1, -1};
const int32_t kBatchThenSeq[] = {0, 1};

struct LoopAroundGenericDesc {
  infc_dim_desc dims[2] = {{"batch", 0, 4}, {"seq", 1, 8}};
  infc_io_desc inputs[1] = {{"a", INFC_F32, 2, kAnyByAny, nullptr, 0, kBatchThenSeq}};
  infc_io_desc outputs[1] = {{"y", INFC_F32, 2, kAnyByAny, nullptr, 0, kBatchThenSeq}};
  infc_model_desc desc = {INFC_MODEL_DESC_VERSION, 1,        1, 0, inputs, outputs, 0,
                          "rows of any seq",       doubleRow};
  LoopAroundGenericDesc() {
    desc.num_dims = 2;
    desc.dims = dims;
    desc.flags = INFC_DESC_DIMS_ARG | INFC_DESC_BATCH_LOOP;
  }
};

TEST(BatchLoop, AroundGenericCodeRowsTakeTheRunsSizes) {
  LoopAroundGenericDesc d;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
  infc_session_options options{};
  options.struct_size = sizeof options;
  options.num_threads = 2; // (rows side by side, each with the dims)
  ASSERT_EQ(infc_session_create(model, &options, &session), INFC_OK);
  for (auto [batch, seq] : {std::pair<int64_t, int64_t>{3, 5}, {1, 8}, {4, 1}, {2, 3}}) {
    std::vector<float> a(batch * seq), y(batch * seq + 1, -1.f);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = float(i);
    int64_t shape[] = {batch, seq};
    infc_tensor in{a.data(), INFC_F32, 2, shape, 0, 0, 0};
    infc_tensor mine{y.data(), INFC_F32, 2, shape, 0, 0, 0};
    ASSERT_EQ(infc_run(session, &in, 1, &mine, 1), INFC_OK) << infc_session_error(session);
    for (int64_t i = 0; i < batch * seq; ++i)
      EXPECT_EQ(y[i], 2.f * float(i)) << batch << "x" << seq << " element " << i;
    EXPECT_EQ(y[batch * seq], -1.f) << batch << "x" << seq << ": written past the last row";
  }
  std::vector<float> a(9, 1.f);
  int64_t nine[] = {1, 9};
  infc_tensor in{a.data(), INFC_F32, 2, nine, 0, 0, 0};
  infc_tensor owned{};
  EXPECT_EQ(infc_run(session, &in, 1, &owned, 1), INFC_ERR_SHAPE_MISMATCH);
  infc_session_release(session);
  infc_model_release(model);
}

TEST(BatchLoop, AroundGenericCodeCorruptDescriptorsAreRefused) {
  static const int32_t kSeqThenBatch[] = {1, 0};
  const Corruption<LoopAroundGenericDesc> cases[] = {
      {"the batch not dim id 0",
       [](LoopAroundGenericDesc &d) {
         d.inputs[0].dim_ids = d.outputs[0].dim_ids = kSeqThenBatch;
       }},
      {"no io with the batch",
       [](LoopAroundGenericDesc &d) {
         static const int64_t kOneByAny[] = {1, -1};
         static const int32_t kSeqOnly[] = {-1, 1};
         d.inputs[0].shape = d.outputs[0].shape = kOneByAny;
         d.inputs[0].dim_ids = d.outputs[0].dim_ids = kSeqOnly;
       }},
      {"variants too",
       [](LoopAroundGenericDesc &d) {
         static infc_variant_desc variant = {"v",     nullptr, nullptr, doubleRow,
                                             nullptr, 0,       0,       nullptr};
         d.desc.num_variants = 1;
         d.desc.variants = &variant;
       }},
  };
  expectRefused(cases);
}

TEST(BatchLoop, CorruptDescriptorsAreRefused) {
  static const int64_t kTwoByAny[] = {2, -1};
  static const int32_t kSecond[] = {-1, 0};
  const Corruption<LoopDesc> cases[] = {
      {"the batch as dim 1",
       [](LoopDesc &d) {
         d.outputs[0].shape = kTwoByAny;
         d.outputs[0].dim_ids = kSecond;
       }},
      {"an unnamed batch", [](LoopDesc &d) { d.inputs[0].dim_ids = nullptr; }},
  };
  expectRefused(cases);
}

// A batch with no largest size (infc compile with no flag for it): the library-owned
// output is allocated at the first run's size and grown when a run needs more, never per
// run when it does not; caller-owned outputs are untouched by that.
TEST(BatchLoop, WithoutALargestSizeOutputsGrowWithTheBatch) {
  LoopDesc d;
  d.dims[0] = {"batch", 1, INT64_MAX};
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
  infc_dim_info info{};
  ASSERT_EQ(infc_model_input_dim(model, 0, 0, &info), INFC_OK);
  EXPECT_EQ(info.min, 1);
  EXPECT_EQ(info.max, INT64_MAX);
  ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
  float c[2] = {10.f, 20.f};
  int64_t cShape[] = {2};
  const void *grownTo = nullptr;
  for (int64_t batch : {3, 1000, 2, 1000}) {
    std::vector<float> a(batch * 2);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = float(i);
    int64_t shape[] = {batch, 2};
    infc_tensor in[2] = {{a.data(), INFC_F32, 2, shape, 0, 0, 0},
                         {c, INFC_F32, 1, cShape, 0, 0, 0}};
    infc_tensor owned{};
    ASSERT_EQ(infc_run(session, in, 2, &owned, 1), INFC_OK) << infc_session_error(session);
    ASSERT_EQ(owned.shape[0], batch);
    EXPECT_EQ(owned.byte_size, size_t(batch * 2 * 4));
    for (int64_t i = 0; i < batch * 2; ++i)
      ASSERT_EQ(static_cast<const float *>(owned.data)[i], float(i) + c[i % 2])
          << "batch " << batch << " element " << i;
    if (batch == 1000 && grownTo)
      EXPECT_EQ(owned.data, grownTo) << "reallocated for a batch it already held";
    if (batch == 1000)
      grownTo = owned.data;
    std::vector<float> y(batch * 2 + 1, -1.f);
    infc_tensor mine{y.data(), INFC_F32, 2, shape, 0, 0, 0};
    ASSERT_EQ(infc_run(session, in, 2, &mine, 1), INFC_OK) << infc_session_error(session);
    EXPECT_EQ(y[batch * 2 - 1], float(batch * 2 - 1) + c[1]);
    EXPECT_EQ(y[batch * 2], -1.f) << "batch " << batch << ": written past the last row";
  }
  // Sizes whose bytes overflow are refused, not allocated.
  std::vector<float> a(2, 1.f);
  int64_t huge[] = {INT64_MAX / 2, 2};
  infc_tensor in[2] = {{a.data(), INFC_F32, 2, huge, 0, 0, 0}, {c, INFC_F32, 1, cShape, 0, 0, 0}};
  infc_tensor owned{};
  EXPECT_NE(infc_run(session, in, 2, &owned, 1), INFC_OK);
  infc_session_release(session);
  infc_model_release(model);
}

// A run may take the last run's library-owned output as its input while its own output
// outgrows that buffer: the buffer stays until the entry has read it (ASan sees a read of
// a freed one). The entry widens each row: y = [a0, a1, a0 + a1, a0 - a1].
void widenRow(void **args) {
  const float *a = static_cast<const float *>(args[1]);
  float *y = static_cast<float *>(args[2]);
  y[0] = a[0];
  y[1] = a[1];
  y[2] = a[0] + a[1];
  y[3] = a[0] - a[1];
}

TEST(BatchLoop, AnOutputFedBackStaysWhileItsBufferGrows) {
  static const int64_t kBatchBy4[] = {-1, 4};
  infc_dim_desc dims[1] = {{"batch", 1, INT64_MAX}};
  infc_io_desc inputs[1] = {{"a", INFC_F32, 2, kBatchBy2, nullptr, 0, kBatchFirst}};
  infc_io_desc outputs[1] = {{"y", INFC_F32, 2, kBatchBy4, nullptr, 0, kBatchFirst}};
  infc_model_desc desc = {INFC_MODEL_DESC_VERSION, 1, 1, 0, inputs, outputs, 0, "widen", widenRow};
  desc.num_dims = 1;
  desc.dims = dims;
  desc.flags = INFC_DESC_BATCH_LOOP;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&desc, &model), INFC_OK);
  ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
  float a[2] = {1.f, 2.f};
  int64_t one[] = {1, 2};
  infc_tensor in{a, INFC_F32, 2, one, 0, 0, 0}, out{};
  ASSERT_EQ(infc_run(session, &in, 1, &out, 1), INFC_OK) << infc_session_error(session);
  // Its 4 floats as a batch of 2 rows of 2: the output needs 8 floats, twice the buffer.
  int64_t two[] = {2, 2};
  infc_tensor fed{const_cast<void *>(out.data), INFC_F32, 2, two, 0, 0, 0}, wide{};
  ASSERT_EQ(infc_run(session, &fed, 1, &wide, 1), INFC_OK) << infc_session_error(session);
  const float want[] = {1.f, 2.f, 3.f, -1.f, 3.f, -1.f, 2.f, 4.f};
  ASSERT_EQ(wide.shape[0], 2);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(static_cast<const float *>(wide.data)[i], want[i]) << i;
  infc_session_release(session);
  infc_model_release(model);
}

// Around generic code only the batch may have no largest size: the generic code's memory
// plan was made at the other dims' largest.
TEST(BatchLoop, AroundGenericCodeOnlyTheBatchMayBeUnbounded) {
  LoopAroundGenericDesc d;
  d.dims[0].max = INT64_MAX;
  infc_model *model = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
  infc_model_release(model);
  d.dims[1].max = INT64_MAX;
  EXPECT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_ERR_INTERNAL);
}

} // namespace

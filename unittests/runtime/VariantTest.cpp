//===- VariantTest.cpp - a --specialize library's dispatch on input shapes ---===//
//
// Static link (like InternalTest.cpp) against descriptors built here: a model y = 2 x + v
// with x f32[?, 3] compiled for batch 1 and 4 (variant v adds v, so the test sees which
// variant ran), the checks before the dispatch, library-owned outputs of each variant's
// shape, and corrupt variant tables.
//
//===----------------------------------------------------------------------===//

#include "infc/runtime.h"

extern "C" {
#include "model_desc.h"
infc_status infc__model_create_from_desc(const infc_model_desc *desc, infc_model **out);
}

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

template <int Variant> void entry(void **args) {
  const float *x = static_cast<const float *>(args[1]);
  float *y = static_cast<float *>(args[2]);
  int64_t n = Variant == 0 ? 1 * 3 : 4 * 3;
  for (int64_t i = 0; i < n; ++i)
    y[i] = 2 * x[i] + Variant;
}

const int64_t kAny3[] = {-1, 3};
const int64_t k1x3[] = {1, 3}, k4x3[] = {4, 3};
const int64_t *const kShapes1[] = {k1x3}, *const kShapes4[] = {k4x3};

struct Desc {
  infc_io_desc inputs[1] = {{"x", INFC_F32, 2, kAny3}};
  infc_io_desc outputs[1] = {{"y", INFC_F32, 2, kAny3}};
  infc_variant_desc variants[2] = {
      {"batch=1", kShapes1, kShapes1, entry<0>, nullptr, 64, 0, nullptr},
      {"batch=4", kShapes4, kShapes4, entry<1>, nullptr, 128, 0, nullptr}};
  infc_model_desc desc = {
      INFC_MODEL_DESC_VERSION, 1, 1, 0, inputs, outputs, 128, "variants", entry<0>};
  Desc() {
    desc.num_variants = 2;
    desc.variants = variants;
  }
};

struct Variants : ::testing::Test {
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
};

TEST_F(Variants, InterfaceShowsTheVaryingDim) {
  infc_io_info info;
  ASSERT_EQ(infc_model_input_info(model, 0, &info), INFC_OK);
  ASSERT_EQ(info.rank, 2);
  EXPECT_EQ(info.shape[0], -1);
  EXPECT_EQ(info.shape[1], 3);
  EXPECT_EQ(infc_model_workspace_bytes(model), 128u);
}

TEST_F(Variants, EachShapeRunsItsVariant) {
  for (int64_t batch : {4, 1, 4}) {
    std::vector<float> x(batch * 3, 1.5f), y(batch * 3, 0.f);
    int64_t shape[] = {batch, 3};
    infc_tensor in{x.data(), INFC_F32, 2, shape, 0, 0, 0};
    infc_tensor out{y.data(), INFC_F32, 2, shape, 0, 0, 0};
    ASSERT_EQ(infc_run(session, &in, 1, &out, 1), INFC_OK) << infc_session_error(session);
    for (float v : y)
      EXPECT_EQ(v, 3.f + (batch == 4 ? 1 : 0)) << "batch " << batch;
  }
}

TEST_F(Variants, LibraryOwnedOutputsTakeTheVariantsShape) {
  for (int64_t batch : {4, 1}) {
    std::vector<float> x(batch * 3, 1.f);
    int64_t shape[] = {batch, 3};
    infc_tensor in{x.data(), INFC_F32, 2, shape, 0, 0, 0};
    infc_tensor out{};
    ASSERT_EQ(infc_run(session, &in, 1, &out, 1), INFC_OK) << infc_session_error(session);
    ASSERT_EQ(out.rank, 2);
    EXPECT_EQ(out.shape[0], batch);
    EXPECT_EQ(out.shape[1], 3);
    EXPECT_EQ(out.byte_size, static_cast<size_t>(batch * 3 * 4));
    const float *y = static_cast<const float *>(out.data);
    EXPECT_EQ(y[batch * 3 - 1], 2.f + (batch == 4 ? 1 : 0));
  }
}

TEST_F(Variants, ShapesNoVariantTakesAreRefused) {
  std::vector<float> x(3 * 3, 1.f), y(4 * 3, -7.f);
  int64_t three[] = {3, 3}, four[] = {4, 3}, wide[] = {4, 5};
  infc_tensor in{x.data(), INFC_F32, 2, three, 0, 0, 0};
  infc_tensor out{y.data(), INFC_F32, 2, four, 0, 0, 0};
  EXPECT_EQ(infc_run(session, &in, 1, &out, 1), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "no compiled variant takes these input shapes ('x' [3,3]); compiled for: batch=1 | "
            "batch=4");
  // A static dim keeps its own message, the varying dim shown as '?'.
  in.shape = wide;
  EXPECT_EQ(infc_run(session, &in, 1, &out, 1), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_NE(std::string(infc_session_error(session)).find("expected [?,3]"), std::string::npos)
      << infc_session_error(session);
  // The output must be the chosen variant's shape; the input's bytes the variant's.
  std::vector<float> x4(4 * 3, 1.f);
  in = {x4.data(), INFC_F32, 2, four, 0, 0, 0};
  int64_t one[] = {1, 3};
  out.shape = one;
  EXPECT_EQ(infc_run(session, &in, 1, &out, 1), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_NE(std::string(infc_session_error(session)).find("dim 0 is 1, expected 4"),
            std::string::npos)
      << infc_session_error(session);
  out.shape = four;
  in.byte_size = 4 * 3 * 4 - 1;
  EXPECT_EQ(infc_run(session, &in, 1, &out, 1), INFC_ERR_INVALID_ARGUMENT);
  for (float v : y)
    EXPECT_EQ(v, -7.f); // nothing was written
}

TEST(VariantDescriptors, CorruptTablesAreRefused) {
  const int64_t negative[] = {-2, 3}, otherStatic[] = {4, 5};
  const int64_t *const negativeShapes[] = {negative}, *const otherShapes[] = {otherStatic};
  struct Case {
    const char *what;
    void (*breakIt)(Desc &, const int64_t *const *, const int64_t *const *);
  } cases[] = {
      {"no table", [](Desc &d, auto, auto) { d.desc.variants = nullptr; }},
      {"no label", [](Desc &d, auto, auto) { d.variants[1].label = nullptr; }},
      {"no entry", [](Desc &d, auto, auto) { d.variants[0].entry = nullptr; }},
      {"no input shapes", [](Desc &d, auto, auto) { d.variants[0].input_shapes = nullptr; }},
      {"negative dim", [](Desc &d, auto neg, auto) { d.variants[1].input_shapes = neg; }},
      {"another static dim",
       [](Desc &d, auto, auto other) { d.variants[1].output_shapes = other; }},
      {"workspace above the model's",
       [](Desc &d, auto, auto) { d.variants[1].workspace_bytes = 256; }},
      {"kernels without names", [](Desc &d, auto, auto) { d.variants[0].num_kernels = 2; }},
      {"on a GPU", [](Desc &d, auto, auto) { d.desc.device = INFC_DEVICE_CUDA; }},
  };
  for (const Case &c : cases) {
    Desc d;
    c.breakIt(d, negativeShapes, otherShapes);
    infc_model *m = nullptr;
    EXPECT_EQ(infc__model_create_from_desc(&d.desc, &m), INFC_ERR_INTERNAL) << c.what;
    EXPECT_EQ(m, nullptr) << c.what;
  }
}

} // namespace

//===- InternalTest.cpp - the runtime against descriptors built in the test ---===//
//
// Links libinfc_runtime.a statically, so the hidden infc__model_create_from_desc is reachable:
// it feeds the runtime descriptors no generated model contains (corrupt ones, dynamic dims,
// empty tensors) and checks what the entry receives.
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

namespace {

void *lastArgs[8];
int numArgs = 0; // of the descriptor last created: the entry cannot know it
int entryCalls = 0;

void recordEntry(void **args) {
  ++entryCalls;
  for (int i = 0; i < numArgs; ++i)
    lastArgs[i] = args[i];
}

const int64_t kShape2x3[] = {2, 3};

// A valid two-in, one-out descriptor the tests then break one field at a time.
struct DescBuilder {
  int64_t shapeX[2] = {2, 3};
  int64_t shapeY[1] = {3};
  infc_io_desc inputs[2] = {{"x", INFC_F32, 2, shapeX}, {"y", INFC_I8, 1, shapeY}};
  infc_io_desc outputs[1] = {{"z", INFC_F32, 2, kShape2x3}};
  infc_model_desc desc = {
      INFC_MODEL_DESC_VERSION, 2, 1, 0, inputs, outputs, 256, "built", recordEntry};

  infc_status create(infc_model **m) {
    numArgs = static_cast<int>(1 + desc.num_inputs + desc.num_outputs);
    return infc__model_create_from_desc(&desc, m);
  }
};

TEST(Internal, StaticallyLinkedModel) {
  infc_model *m;
  ASSERT_EQ(infc_model_create(&m), INFC_OK);
  EXPECT_STREQ(infc_model_name(m), "fake_add");
  infc_model_release(m);
}

TEST(Internal, ValidDescriptor) {
  DescBuilder b;
  infc_model *m = nullptr;
  ASSERT_EQ(b.create(&m), INFC_OK);
  EXPECT_STREQ(infc_model_name(m), "built");
  infc_model_release(m);
  b.desc.model_name = nullptr; // reported as ""
  ASSERT_EQ(b.create(&m), INFC_OK);
  EXPECT_STREQ(infc_model_name(m), "");
  infc_model_release(m);
  EXPECT_EQ(infc__model_create_from_desc(&b.desc, nullptr), INFC_ERR_INVALID_ARGUMENT);
}

TEST(Internal, CorruptDescriptors) {
  const int64_t negative[] = {2, -2};
  const int64_t huge[] = {INT64_C(1) << 40, INT64_C(1) << 40};
  using P = const int64_t *;
  struct Case {
    const char *what;
    void (*corrupt)(DescBuilder &, P negative, P huge);
  } cases[] = {
      {"version", [](DescBuilder &b, P, P) { b.desc.desc_version = INFC_MODEL_DESC_VERSION + 1; }},
      {"entry", [](DescBuilder &b, P, P) { b.desc.entry = nullptr; }},
      {"inputs", [](DescBuilder &b, P, P) { b.desc.inputs = nullptr; }},
      {"outputs", [](DescBuilder &b, P, P) { b.desc.outputs = nullptr; }},
      {"name", [](DescBuilder &b, P, P) { b.inputs[1].name = nullptr; }},
      {"dtype 0", [](DescBuilder &b, P, P) { b.inputs[0].dtype = 0; }},
      {"dtype 23", [](DescBuilder &b, P, P) { b.outputs[0].dtype = 23; }},
      {"rank", [](DescBuilder &b, P, P) { b.inputs[0].rank = -1; }},
      {"shape", [](DescBuilder &b, P, P) { b.inputs[1].shape = nullptr; }},
      {"dim", [](DescBuilder &b, P n, P) { b.inputs[0].shape = n; }},
      {"overflow", [](DescBuilder &b, P, P h) { b.outputs[0].shape = h; }},
      {"duplicate", [](DescBuilder &b, P, P) { b.inputs[1].name = "x"; }},
  };
  for (const Case &c : cases) {
    DescBuilder b;
    c.corrupt(b, negative, huge);
    infc_model *m = reinterpret_cast<infc_model *>(&b); // must be reset to NULL
    EXPECT_EQ(b.create(&m), INFC_ERR_INTERNAL) << c.what;
    EXPECT_EQ(m, nullptr) << c.what;
  }
  infc_model *m;
  EXPECT_EQ(infc__model_create_from_desc(nullptr, &m), INFC_ERR_INTERNAL);
  // An input and an output may share a name (ONNX allows a graph input to be an output).
  DescBuilder b;
  b.outputs[0].name = "x";
  ASSERT_EQ(b.create(&m), INFC_OK);
  infc_model_release(m);
}

TEST(Internal, EntryArguments) {
  DescBuilder b;
  infc_model *m;
  infc_session *s;
  ASSERT_EQ(b.create(&m), INFC_OK);
  ASSERT_EQ(infc_session_create(m, nullptr, &s), INFC_OK);
  float x[6];
  int8_t y[3];
  float z[6];
  infc_tensor in[2] = {}, out[1] = {};
  in[0] = {x, INFC_F32, 2, b.shapeX, 0, 0, 0};
  in[1] = {y, INFC_I8, 1, b.shapeY, 3, 0, 0};
  out[0] = {z, INFC_F32, 2, kShape2x3, sizeof z, 0, 0};
  entryCalls = 0;
  ASSERT_EQ(infc_run(s, in, 2, out, 1), INFC_OK) << infc_session_error(s);
  EXPECT_EQ(entryCalls, 1);
  ASSERT_NE(lastArgs[0], nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(lastArgs[0]) % 64, 0u);
  EXPECT_EQ(lastArgs[1], x);
  EXPECT_EQ(lastArgs[2], y);
  EXPECT_EQ(lastArgs[3], z);
  // The same workspace every run: allocated once.
  void *workspace = lastArgs[0];
  ASSERT_EQ(infc_run(s, in, 2, out, 1), INFC_OK);
  EXPECT_EQ(lastArgs[0], workspace);
  // Validation failures never reach the entry.
  in[1].shape = kShape2x3;
  EXPECT_EQ(infc_run(s, in, 2, out, 1), INFC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(entryCalls, 2);
  infc_session_release(s);
  infc_model_release(m);
}

// An input specialized by `infc compile --input-value`: every run must pass that value.
TEST(Internal, SpecializedInputMustHoldItsValue) {
  DescBuilder b;
  const int8_t expected[3] = {1, -2, 3};
  b.inputs[1].value = expected;
  b.inputs[1].value_bytes = sizeof expected;
  infc_model *m;
  infc_session *s;
  ASSERT_EQ(b.create(&m), INFC_OK);
  ASSERT_EQ(infc_session_create(m, nullptr, &s), INFC_OK);
  float x[6] = {}, z[6];
  int8_t y[3] = {1, -2, 3};
  infc_tensor in[2] = {}, out[1] = {};
  in[0] = {x, INFC_F32, 2, b.shapeX, 0, 0, 0};
  in[1] = {y, INFC_I8, 1, b.shapeY, 0, 0, 0};
  out[0] = {z, INFC_F32, 2, kShape2x3, sizeof z, 0, 0};
  entryCalls = 0;
  ASSERT_EQ(infc_run(s, in, 2, out, 1), INFC_OK) << infc_session_error(s);
  y[2] = 4;
  EXPECT_EQ(infc_run(s, in, 2, out, 1), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(infc_session_error(s))
                .find("input 1 'y': the model was compiled for "
                      "one value of this input"),
            std::string::npos)
      << infc_session_error(s);
  EXPECT_EQ(entryCalls, 1);
  infc_session_release(s);
  infc_model_release(m);
}

TEST(Internal, NoInputsNoOutputsNoWorkspace) {
  DescBuilder b;
  b.desc.num_inputs = 0;
  b.desc.num_outputs = 0;
  b.desc.inputs = nullptr;
  b.desc.outputs = nullptr;
  b.desc.workspace_bytes = 0;
  infc_model *m;
  infc_session *s;
  ASSERT_EQ(b.create(&m), INFC_OK);
  ASSERT_EQ(infc_session_create(m, nullptr, &s), INFC_OK);
  entryCalls = 0;
  lastArgs[0] = &b;
  ASSERT_EQ(infc_run(s, nullptr, 0, nullptr, 0), INFC_OK) << infc_session_error(s);
  EXPECT_EQ(entryCalls, 1);
  EXPECT_EQ(lastArgs[0], nullptr);
  infc_session_release(s);
  infc_model_release(m);
}

TEST(Internal, ScalarsAndEmptyTensors) {
  DescBuilder b;
  b.inputs[0] = {"scalar", INFC_F64, 0, nullptr};
  b.shapeY[0] = 0; // y: int8[0]
  b.outputs[0].shape = b.shapeY;
  b.outputs[0].rank = 1;
  infc_model *m;
  infc_session *s;
  ASSERT_EQ(b.create(&m), INFC_OK);
  infc_io_info io;
  ASSERT_EQ(infc_model_output_info(m, 0, &io), INFC_OK);
  EXPECT_EQ(io.byte_size, 0u);
  ASSERT_EQ(infc_session_create(m, nullptr, &s), INFC_OK);
  double scalar = 1;
  int8_t none;
  infc_tensor in[2] = {}, out[1] = {};
  in[0] = {&scalar, INFC_F64, 0, nullptr, 0, 0, 0};
  in[1] = {&none, INFC_I8, 1, b.shapeY, 0, 0, 0};
  ASSERT_EQ(infc_run(s, in, 2, out, 1), INFC_OK) << infc_session_error(s);
  EXPECT_NE(out[0].data, nullptr); // library-owned even when empty
  EXPECT_EQ(out[0].byte_size, 0u);
  // An empty output may sit anywhere, even on an input: it is never written.
  out[0] = {&scalar, INFC_F32, 1, b.shapeY, 0, 0, 0};
  ASSERT_EQ(infc_run(s, in, 2, out, 1), INFC_OK) << infc_session_error(s);
  infc_session_release(s);
  infc_model_release(m);
}

TEST(Internal, DynamicDimsAreReportedButNotRunnable) {
  DescBuilder b;
  b.shapeX[0] = -1;
  infc_model *m;
  ASSERT_EQ(b.create(&m), INFC_OK);
  infc_io_info io;
  ASSERT_EQ(infc_model_input_info(m, 0, &io), INFC_OK);
  EXPECT_EQ(io.shape[0], -1);
  EXPECT_EQ(io.byte_size, 0u);
  char err[256] = "";
  infc_session_options opts = {sizeof opts, 0, err, sizeof err};
  infc_session *s = nullptr;
  EXPECT_EQ(infc_session_create(m, &opts, &s), INFC_ERR_UNAVAILABLE);
  EXPECT_EQ(s, nullptr);
  EXPECT_STREQ(err, "infc_session_create: input 'x' has dynamic dim 0; this runtime supports "
                    "static shapes only");
  infc_model_release(m);
}

TEST(Internal, HugeWorkspaceIsOutOfMemory) {
  DescBuilder b;
  b.desc.workspace_bytes = UINT64_C(1) << 62;
  infc_model *m;
  ASSERT_EQ(b.create(&m), INFC_OK);
  EXPECT_EQ(infc_model_workspace_bytes(m), size_t{1} << 62);
  char err[256] = "";
  infc_session_options opts = {0, 0, err, sizeof err};
  infc_session *s = nullptr;
  EXPECT_EQ(infc_session_create(m, &opts, &s), INFC_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(s, nullptr);
  EXPECT_STREQ(err, "infc_session_create: cannot allocate the 4611686018427387904 byte "
                    "workspace");
  infc_model_release(m);
}

} // namespace

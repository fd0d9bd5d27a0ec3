//===- RuntimeTest.cpp - the C ABI against a linked fake model.so ---------===//
//
// Links libfake_model.so directly, like a product that embeds one model. The fake computes
// sum = a + b, row_sum = (int64) row sums, total = sum of all (see fake_model.c).
//
//===----------------------------------------------------------------------===//

#include "infc/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

const int64_t kShape2x3[] = {2, 3};
const int64_t kShape3[] = {3};
const int64_t kShape2[] = {2};

infc_tensor tensor(void *data, infc_dtype dtype, int32_t rank, const int64_t *shape) {
  infc_tensor t = {};
  t.data = data;
  t.dtype = dtype;
  t.rank = rank;
  t.shape = shape;
  return t;
}

class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(infc_model_create(&model), INFC_OK);
    ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
    in[0] = tensor(a, INFC_F32, 2, kShape2x3);
    in[1] = tensor(b, INFC_F32, 1, kShape3);
    out[0] = tensor(sum, INFC_F32, 2, kShape2x3);
    out[1] = tensor(rowSum, INFC_I64, 1, kShape2);
    out[2] = tensor(&total, INFC_F64, 0, nullptr);
  }
  void TearDown() override {
    infc_session_release(session);
    infc_model_release(model);
  }

  // Runs with the current in/out and expects `status` and a message mentioning `needle`.
  void expectError(infc_status status, const char *needle) {
    EXPECT_EQ(infc_run(session, in, 2, out, 3), status);
    std::string msg = infc_session_error(session);
    EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg;
  }

  void expectResults(const float *s, const int64_t *r, double t) {
    const float want[6] = {11, 22, 33, 14, 25, 36};
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(s[i], want[i]) << i;
    EXPECT_EQ(r[0], 66);
    EXPECT_EQ(r[1], 75);
    EXPECT_EQ(t, 141.0);
  }

  infc_model *model = nullptr;
  infc_session *session = nullptr;
  float a[6] = {1, 2, 3, 4, 5, 6};
  float b[3] = {10, 20, 30};
  float sum[6] = {};
  int64_t rowSum[2] = {};
  double total = 0;
  infc_tensor in[2];
  infc_tensor out[3];
};

TEST(Abi, VersionAndStrings) {
  EXPECT_EQ(infc_abi_version(), INFC_ABI_VERSION);
  EXPECT_EQ(infc_abi_version() >> 16, static_cast<uint32_t>(INFC_ABI_VERSION_MAJOR));
  EXPECT_STREQ(infc_status_string(INFC_OK), "ok");
  EXPECT_STREQ(infc_status_string(INFC_ERR_SHAPE_MISMATCH), "shape mismatch");
  EXPECT_STREQ(infc_status_string(INFC_ERR_INTERNAL), "internal error");
  EXPECT_STREQ(infc_status_string(static_cast<infc_status>(99)), "unknown status");
}

TEST(Abi, Dtypes) {
  // The numeric values are ABI.
  EXPECT_EQ(INFC_F32, 1);
  EXPECT_EQ(INFC_BF16, 4);
  EXPECT_EQ(INFC_I64, 8);
  EXPECT_EQ(INFC_BOOL, 13);
  EXPECT_EQ(INFC_F8E4M3FN, 14);
  EXPECT_EQ(INFC_U2, 22);
  const struct {
    infc_dtype dtype;
    size_t size;
    const char *name;
  } table[] = {{INFC_F32, 4, "float32"},
               {INFC_F64, 8, "float64"},
               {INFC_F16, 2, "float16"},
               {INFC_BF16, 2, "bfloat16"},
               {INFC_I8, 1, "int8"},
               {INFC_I16, 2, "int16"},
               {INFC_I32, 4, "int32"},
               {INFC_I64, 8, "int64"},
               {INFC_U8, 1, "uint8"},
               {INFC_U16, 2, "uint16"},
               {INFC_U32, 4, "uint32"},
               {INFC_U64, 8, "uint64"},
               {INFC_BOOL, 1, "bool"},
               {INFC_F8E4M3FN, 1, "float8_e4m3fn"},
               {INFC_F8E5M2FNUZ, 1, "float8_e5m2fnuz"},
               {INFC_F4E2M1, 1, "float4_e2m1fn"},
               {INFC_I4, 1, "int4"},
               {INFC_U2, 1, "uint2"}};
  for (const auto &e : table) {
    EXPECT_EQ(infc_dtype_size(e.dtype), e.size) << e.name;
    EXPECT_STREQ(infc_dtype_name(e.dtype), e.name);
  }
  for (int bad : {0, 23, -1, 1000}) {
    EXPECT_EQ(infc_dtype_size(static_cast<infc_dtype>(bad)), 0u);
    EXPECT_STREQ(infc_dtype_name(static_cast<infc_dtype>(bad)), "invalid");
  }
}

TEST_F(RuntimeTest, Introspection) {
  EXPECT_STREQ(infc_model_name(model), "fake_add");
  EXPECT_EQ(infc_model_num_inputs(model), 2u);
  EXPECT_EQ(infc_model_num_outputs(model), 3u);
  EXPECT_EQ(infc_model_workspace_bytes(model), 100u);

  infc_io_info io;
  ASSERT_EQ(infc_model_input_info(model, 0, &io), INFC_OK);
  EXPECT_STREQ(io.name, "a");
  EXPECT_EQ(io.dtype, INFC_F32);
  ASSERT_EQ(io.rank, 2);
  EXPECT_EQ(io.shape[0], 2);
  EXPECT_EQ(io.shape[1], 3);
  EXPECT_EQ(io.byte_size, 24u);
  ASSERT_EQ(infc_model_input_info(model, 1, &io), INFC_OK);
  EXPECT_STREQ(io.name, "b");
  EXPECT_EQ(io.byte_size, 12u);
  ASSERT_EQ(infc_model_output_info(model, 1, &io), INFC_OK);
  EXPECT_STREQ(io.name, "row_sum");
  EXPECT_EQ(io.dtype, INFC_I64);
  EXPECT_EQ(io.byte_size, 16u);
  ASSERT_EQ(infc_model_output_info(model, 2, &io), INFC_OK);
  EXPECT_STREQ(io.name, "total");
  EXPECT_EQ(io.dtype, INFC_F64);
  EXPECT_EQ(io.rank, 0);
  EXPECT_EQ(io.shape, nullptr);
  EXPECT_EQ(io.byte_size, 8u);

  EXPECT_EQ(infc_model_input_info(model, 2, &io), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_model_output_info(model, 3, &io), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_model_input_info(model, 0, nullptr), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_model_input_info(nullptr, 0, &io), INFC_ERR_INVALID_ARGUMENT);

  size_t index = 99;
  EXPECT_EQ(infc_model_find_input(model, "b", &index), INFC_OK);
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(infc_model_find_output(model, "total", &index), INFC_OK);
  EXPECT_EQ(index, 2u);
  EXPECT_EQ(infc_model_find_input(model, "sum", &index), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_model_find_input(model, nullptr, &index), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_model_find_input(model, "a", nullptr), INFC_ERR_INVALID_ARGUMENT);

  EXPECT_EQ(infc_session_model(session), model);
  // 0 asks for the default: the CPUs this process may run on.
  EXPECT_GE(infc_session_num_threads(session), 1);
}

TEST(Model, NullHandles) {
  EXPECT_EQ(infc_model_create(nullptr), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_model_name(nullptr), nullptr);
  EXPECT_EQ(infc_model_num_inputs(nullptr), 0u);
  EXPECT_EQ(infc_model_num_outputs(nullptr), 0u);
  EXPECT_EQ(infc_model_workspace_bytes(nullptr), 0u);
  infc_model_release(nullptr);
  infc_session_release(nullptr);
  EXPECT_EQ(infc_session_model(nullptr), nullptr);
  EXPECT_EQ(infc_session_num_threads(nullptr), 0);
  EXPECT_STREQ(infc_session_error(nullptr), "infc_session is NULL");
  EXPECT_EQ(infc_run(nullptr, nullptr, 0, nullptr, 0), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_run_named(nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0),
            INFC_ERR_INVALID_ARGUMENT);
}

TEST_F(RuntimeTest, WrongHandleKind) {
  // A model where a session is expected (and vice versa) is caught by the handles' magic.
  auto *notSession = reinterpret_cast<infc_session *>(model);
  EXPECT_EQ(infc_run(notSession, in, 2, out, 3), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(infc_session_error(notSession), "not a valid infc_session");
  auto *notModel = reinterpret_cast<const infc_model *>(session);
  EXPECT_EQ(infc_model_num_inputs(notModel), 0u);
  infc_session *s = nullptr;
  EXPECT_EQ(infc_session_create(notModel, nullptr, &s), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(s, nullptr);
}

TEST_F(RuntimeTest, CallerOwnedOutputs) {
  ASSERT_EQ(infc_run(session, in, 2, out, 3), INFC_OK) << infc_session_error(session);
  EXPECT_STREQ(infc_session_error(session), "");
  expectResults(sum, rowSum, total);
  // Outputs stay where the caller put them.
  EXPECT_EQ(out[0].data, sum);
  EXPECT_EQ(out[2].data, &total);
}

TEST_F(RuntimeTest, LibraryOwnedOutputs) {
  infc_tensor lib[3] = {};
  ASSERT_EQ(infc_run(session, in, 2, lib, 3), INFC_OK) << infc_session_error(session);
  EXPECT_EQ(lib[0].dtype, INFC_F32);
  ASSERT_EQ(lib[0].rank, 2);
  EXPECT_EQ(lib[0].shape[0], 2);
  EXPECT_EQ(lib[0].shape[1], 3);
  EXPECT_EQ(lib[0].byte_size, 24u);
  EXPECT_EQ(lib[1].dtype, INFC_I64);
  ASSERT_EQ(lib[1].rank, 1);
  EXPECT_EQ(lib[1].shape[0], 2);
  EXPECT_EQ(lib[2].dtype, INFC_F64);
  EXPECT_EQ(lib[2].rank, 0);
  EXPECT_EQ(lib[2].shape, nullptr);
  EXPECT_EQ(lib[2].byte_size, 8u);
  for (const infc_tensor &t : lib)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data) % 64, 0u);
  expectResults(static_cast<float *>(lib[0].data), static_cast<int64_t *>(lib[1].data),
                *static_cast<double *>(lib[2].data));

  // Passing the filled tensors again reuses the same buffers.
  void *first = lib[0].data;
  a[0] = 2;
  ASSERT_EQ(infc_run(session, in, 2, lib, 3), INFC_OK) << infc_session_error(session);
  EXPECT_EQ(lib[0].data, first);
  EXPECT_EQ(static_cast<float *>(lib[0].data)[0], 12.0f);
}

TEST_F(RuntimeTest, MixedOwnership) {
  out[1] = infc_tensor{}; // row_sum library-owned, the others caller-owned
  ASSERT_EQ(infc_run(session, in, 2, out, 3), INFC_OK) << infc_session_error(session);
  ASSERT_NE(out[1].data, nullptr);
  EXPECT_EQ(static_cast<int64_t *>(out[1].data)[1], 75);
  EXPECT_EQ(sum[5], 36.0f);
  EXPECT_EQ(total, 141.0);
}

TEST_F(RuntimeTest, ByteSizeIsChecked) {
  in[0].byte_size = 24; // exact: fine
  out[0].byte_size = 1000;
  ASSERT_EQ(infc_run(session, in, 2, out, 3), INFC_OK) << infc_session_error(session);
  in[1].byte_size = 8;
  expectError(INFC_ERR_INVALID_ARGUMENT, "input 1 'b': byte_size 8 is less than the 12 bytes");
  in[1].byte_size = 0;
  out[1].byte_size = 15;
  expectError(INFC_ERR_INVALID_ARGUMENT, "output 1 'row_sum': byte_size 15");
}

TEST_F(RuntimeTest, WrongCounts) {
  EXPECT_EQ(infc_run(session, in, 1, out, 3), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(infc_session_error(session), "infc_run: 1 inputs given, the model has 2");
  EXPECT_EQ(infc_run(session, in, 3, out, 3), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_run(session, in, 2, out, 2), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(infc_session_error(session), "infc_run: 2 outputs given, the model has 3");
  EXPECT_EQ(infc_run(session, nullptr, 2, out, 3), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(infc_session_error(session), "infc_run: inputs is NULL");
  EXPECT_EQ(infc_run(session, in, 2, nullptr, 3), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(infc_session_error(session), "infc_run: outputs is NULL");
}

TEST_F(RuntimeTest, WrongRank) {
  in[1].rank = 2;
  in[1].shape = kShape2x3;
  expectError(INFC_ERR_SHAPE_MISMATCH, "input 1 'b': rank 2, expected 1 (shape [3])");
  in[1] = tensor(b, INFC_F32, 1, kShape3);
  out[2].rank = 1;
  out[2].shape = kShape3;
  expectError(INFC_ERR_SHAPE_MISMATCH, "output 2 'total': rank 1, expected 0 (shape [])");
}

TEST_F(RuntimeTest, WrongDim) {
  const int64_t bad[] = {2, 4};
  in[0].shape = bad;
  expectError(INFC_ERR_SHAPE_MISMATCH,
              "input 0 'a': dim 1 is 4, expected 3 (shape [2,4], expected [2,3])");
  in[0].shape = kShape2x3;
  const int64_t bad1[] = {3};
  out[1].shape = bad1;
  expectError(INFC_ERR_SHAPE_MISMATCH, "output 1 'row_sum': dim 0 is 3, expected 2");
}

TEST_F(RuntimeTest, WrongDtype) {
  in[1].dtype = INFC_F64;
  expectError(INFC_ERR_DTYPE_MISMATCH, "input 1 'b': dtype float64 (2), expected float32");
  in[1].dtype = static_cast<infc_dtype>(77);
  expectError(INFC_ERR_DTYPE_MISMATCH, "input 1 'b': dtype invalid (77), expected float32");
  in[1].dtype = INFC_F32;
  out[1].dtype = INFC_I32;
  expectError(INFC_ERR_DTYPE_MISMATCH, "output 1 'row_sum': dtype int32 (7), expected int64");
}

TEST_F(RuntimeTest, NullPointers) {
  in[0].data = nullptr;
  expectError(INFC_ERR_INVALID_ARGUMENT, "input 0 'a': data is NULL");
  in[0].data = a;
  in[1].shape = nullptr;
  expectError(INFC_ERR_INVALID_ARGUMENT, "input 1 'b': shape is NULL with rank 1");
  in[1].shape = kShape3;
  out[0].shape = nullptr;
  expectError(INFC_ERR_INVALID_ARGUMENT, "output 0 'sum': shape is NULL with rank 2");
}

TEST_F(RuntimeTest, FlagsMustBeZero) {
  in[0].flags = 2;
  expectError(INFC_ERR_INVALID_ARGUMENT, "input 0 'a': flags and reserved must be 0");
  in[0].flags = INFC_TENSOR_DEVICE;
  expectError(INFC_ERR_INVALID_ARGUMENT, "input 0 'a': device memory (INFC_TENSOR_DEVICE) "
                                         "given to a model compiled for the CPU");
  in[0].flags = 0;
  out[0].flags = INFC_TENSOR_DEVICE;
  expectError(INFC_ERR_INVALID_ARGUMENT, "output 0 'sum': device memory (INFC_TENSOR_DEVICE) "
                                         "given to a model compiled for the CPU");
  out[0].flags = 0;
  infc_tensor lib[3] = {};
  lib[2].reserved = 5;
  EXPECT_EQ(infc_run(session, in, 2, lib, 3), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(infc_session_error(session)).find("output 2 'total'"), std::string::npos);
}

TEST_F(RuntimeTest, ErrorsWriteNothing) {
  // A library-owned output next to an invalid input stays untouched on failure.
  infc_tensor lib[3] = {};
  in[1].dtype = INFC_I32;
  ASSERT_EQ(infc_run(session, in, 2, lib, 3), INFC_ERR_DTYPE_MISMATCH);
  for (const infc_tensor &t : lib) {
    EXPECT_EQ(t.data, nullptr);
    EXPECT_EQ(t.rank, 0);
  }
  // The error clears on the next successful run.
  in[1].dtype = INFC_F32;
  ASSERT_EQ(infc_run(session, in, 2, out, 3), INFC_OK);
  EXPECT_STREQ(infc_session_error(session), "");
}

TEST_F(RuntimeTest, OverlappingBuffers) {
  out[0].data = a; // output written while the input is read
  expectError(INFC_ERR_INVALID_ARGUMENT, "output 0 'sum' overlaps input 0 'a'");
  out[0].data = sum;
  out[1].data = sum + 2; // 16 bytes inside sum's 24
  expectError(INFC_ERR_INVALID_ARGUMENT, "output 1 'row_sum' overlaps output 0 'sum'");

  // Feeding a library-owned output back while it is also the output of this run.
  infc_tensor lib[3] = {};
  in[1] = tensor(b, INFC_F32, 1, kShape3);
  ASSERT_EQ(infc_run(session, in, 2, lib, 3), INFC_OK) << infc_session_error(session);
  infc_tensor chained[2] = {lib[0], in[1]};
  infc_tensor lib2[3] = {};
  EXPECT_EQ(infc_run(session, chained, 2, lib2, 3), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(infc_session_error(session)).find("overlaps input 0 'a'"),
            std::string::npos);
  // Chaining into a caller-owned output is fine.
  out[1].data = rowSum;
  ASSERT_EQ(infc_run(session, chained, 2, out, 3), INFC_OK) << infc_session_error(session);
  EXPECT_EQ(sum[0], 21.0f);
}

TEST_F(RuntimeTest, RunNamed) {
  const char *inNames[] = {"b", "a"};
  infc_tensor swapped[2] = {in[1], in[0]};
  const char *outNames[] = {"total", "sum"};
  infc_tensor two[2] = {tensor(&total, INFC_F64, 0, nullptr), {}};
  ASSERT_EQ(infc_run_named(session, inNames, swapped, 2, outNames, two, 2), INFC_OK)
      << infc_session_error(session);
  EXPECT_EQ(total, 141.0);
  ASSERT_NE(two[1].data, nullptr);
  EXPECT_EQ(static_cast<float *>(two[1].data)[4], 25.0f);
  // No outputs at all is allowed by name.
  ASSERT_EQ(infc_run_named(session, inNames, swapped, 2, nullptr, nullptr, 0), INFC_OK);

  const char *unknown[] = {"b", "c"};
  EXPECT_EQ(infc_run_named(session, unknown, swapped, 2, nullptr, nullptr, 0),
            INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(infc_session_error(session), "infc_run_named: the model has no input 'c'");
  const char *twice[] = {"b", "b"};
  EXPECT_EQ(infc_run_named(session, twice, swapped, 2, nullptr, nullptr, 0),
            INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(infc_session_error(session), "infc_run_named: input 'b' given twice");
  EXPECT_EQ(infc_run_named(session, inNames, swapped, 1, nullptr, nullptr, 0),
            INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(infc_session_error(session), "infc_run_named: input 0 'a' is missing");
  const char *nullName[] = {"b", nullptr};
  EXPECT_EQ(infc_run_named(session, nullName, swapped, 2, nullptr, nullptr, 0),
            INFC_ERR_INVALID_ARGUMENT);
  const char *badOut[] = {"nope"};
  EXPECT_EQ(infc_run_named(session, inNames, swapped, 2, badOut, two, 1),
            INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(infc_session_error(session), "infc_run_named: the model has no output 'nope'");
  // Bound by name, validated with the model's index and name.
  swapped[0].dtype = INFC_I8;
  EXPECT_EQ(infc_run_named(session, inNames, swapped, 2, nullptr, nullptr, 0),
            INFC_ERR_DTYPE_MISMATCH);
  EXPECT_NE(std::string(infc_session_error(session)).find("input 1 'b'"), std::string::npos);
}

TEST(Session, Options) {
  infc_model *model;
  ASSERT_EQ(infc_model_create(&model), INFC_OK);
  infc_session *s = nullptr;
  char err[256] = "";

  // struct_size 0 stands for the ABI 1.0 layout (so compound literals just work).
  infc_session_options opts = {};
  opts.num_threads = 3;
  ASSERT_EQ(infc_session_create(model, &opts, &s), INFC_OK);
  EXPECT_EQ(infc_session_num_threads(s), 3);
  infc_session_release(s);

  // A caller compiled against a newer header: unknown trailing fields must be zero.
  struct {
    infc_session_options base;
    uint64_t newer_field;
  } newer = {};
  newer.base.struct_size = sizeof newer;
  newer.base.error_buffer = err;
  newer.base.error_buffer_size = sizeof err;
  ASSERT_EQ(infc_session_create(model, &newer.base, &s), INFC_OK);
  infc_session_release(s);
  newer.newer_field = 1;
  EXPECT_EQ(infc_session_create(model, &newer.base, &s), INFC_ERR_UNAVAILABLE);
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(std::string(err).find("fields newer than this runtime"), std::string::npos) << err;

  opts.struct_size = 8; // shorter than any released layout
  EXPECT_EQ(infc_session_create(model, &opts, &s), INFC_ERR_INVALID_ARGUMENT);

  opts = {};
  opts.struct_size = sizeof opts;
  opts.num_threads = -2;
  opts.error_buffer = err;
  opts.error_buffer_size = sizeof err;
  EXPECT_EQ(infc_session_create(model, &opts, &s), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(err, "infc_session_create: num_threads is -2, must be >= 0 (0 = default)");
  opts.error_buffer_size = 12; // truncated, still terminated
  EXPECT_EQ(infc_session_create(model, &opts, &s), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(err, "infc_sessio");
  opts.num_threads = 0;
  opts.error_buffer_size = sizeof err;
  EXPECT_EQ(infc_session_create(nullptr, &opts, &s), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(err, "infc_session_create: model is NULL");
  EXPECT_EQ(infc_session_create(model, &opts, nullptr), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(err, "infc_session_create: out is NULL");
  infc_model_release(model);
}

TEST(Session, OutlivesModelHandle) {
  infc_model *model;
  infc_session *s;
  ASSERT_EQ(infc_model_create(&model), INFC_OK);
  ASSERT_EQ(infc_session_create(model, nullptr, &s), INFC_OK);
  infc_model_release(model); // the session keeps the model alive
  EXPECT_STREQ(infc_model_name(infc_session_model(s)), "fake_add");
  float a[6] = {}, b[3] = {1, 1, 1};
  infc_tensor in[2] = {tensor(a, INFC_F32, 2, kShape2x3), tensor(b, INFC_F32, 1, kShape3)};
  infc_tensor out[3] = {};
  ASSERT_EQ(infc_run(s, in, 2, out, 3), INFC_OK) << infc_session_error(s);
  EXPECT_EQ(*static_cast<double *>(out[2].data), 6.0);
  infc_session_release(s);
}

TEST(Session, ConcurrentSessions) {
  // N threads, N sessions, one model, no locks: each thread checks its own exact results.
  infc_model *model;
  ASSERT_EQ(infc_model_create(&model), INFC_OK);
  constexpr int kThreads = 2, kIters = 20000;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      infc_session *s;
      if (infc_session_create(model, nullptr, &s) != INFC_OK) {
        failures[t] = -1;
        return;
      }
      for (int it = 0; it < kIters; ++it) {
        float base = static_cast<float>(t * 1000 + it % 500);
        float a[6], b[3] = {1, 2, 3};
        for (int i = 0; i < 6; ++i)
          a[i] = base + i;
        infc_tensor in[2] = {tensor(a, INFC_F32, 2, kShape2x3), tensor(b, INFC_F32, 1, kShape3)};
        infc_tensor out[3] = {};
        if (infc_run(s, in, 2, out, 3) != INFC_OK) {
          ++failures[t];
          continue;
        }
        const float *sum = static_cast<const float *>(out[0].data);
        double want = 6 * static_cast<double>(base) + 15 + 2 * 6;
        for (int i = 0; i < 6; ++i)
          if (sum[i] != a[i] + b[i % 3])
            ++failures[t];
        if (*static_cast<const double *>(out[2].data) != want)
          ++failures[t];
      }
      infc_session_release(s);
    });
  for (auto &th : threads)
    th.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  infc_model_release(model);
}

} // namespace

//===- ProfileTest.cpp - the profiler: traces of runs, kernels and workers -===//
//
// Against fake_parallel_model.c, linked statically: two parallel regions per run, each a
// kernel of its profiled entry.
//
//===----------------------------------------------------------------------===//
#include "infc/runtime.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int infc_fake_profiled_runs;

namespace {
constexpr int kN = 4096;

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

bool exists(const std::string &path) { return access(path.c_str(), F_OK) == 0; }

struct Profile : ::testing::Test {
  infc_model *model = nullptr;
  std::string dir;
  std::vector<float> x = std::vector<float>(kN), y = std::vector<float>(kN);
  int64_t shape[1] = {kN};

  void SetUp() override {
    ASSERT_EQ(infc_model_create(&model), INFC_OK);
    char tmpl[] = "/tmp/infc-profile-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    for (int i = 0; i < kN; ++i)
      x[i] = (float)i;
  }
  void TearDown() override {
    infc_model_release(model);
    std::string cmd = "rm -rf '" + dir + "'";
    ASSERT_EQ(system(cmd.c_str()), 0);
  }
  infc_session *session(int threads, const char *profile) {
    infc_session_options o{};
    o.struct_size = sizeof o;
    o.num_threads = threads;
    o.profile_path = profile;
    infc_session *s = nullptr;
    EXPECT_EQ(infc_session_create(model, &o, &s), INFC_OK);
    return s;
  }
  void run(infc_session *s) {
    infc_tensor in{x.data(), INFC_F32, 1, shape, 0, 0, 0};
    infc_tensor out{y.data(), INFC_F32, 1, shape, 0, 0, 0};
    ASSERT_EQ(infc_run(s, &in, 1, &out, 1), INFC_OK) << infc_session_error(s);
    for (int i = 0; i < kN; ++i)
      ASSERT_EQ(y[i], 2 * x[i] + 1) << i;
  }
};

TEST_F(Profile, TraceHasRunsKernelsAndWorkers) {
  std::string path = dir + "/trace.json";
  infc_session *s = session(2, path.c_str());
  int before = infc_fake_profiled_runs;
  for (int r = 0; r < 3; ++r)
    run(s);
  EXPECT_EQ(infc_fake_profiled_runs - before, 3);
  EXPECT_FALSE(exists(path)); // written when profiling ends
  ASSERT_EQ(infc_session_end_profiling(s), INFC_OK) << infc_session_error(s);
  std::string trace = readFile(path);
  EXPECT_EQ(trace.rfind("{\"traceEvents\":[", 0), 0u);
  EXPECT_EQ(count(trace, "\"cat\":\"run\",\"name\":\"run\""), 3u);
  // Each kernel once per run on the caller, once per run on the worker (tid 1).
  EXPECT_EQ(count(trace, "\"cat\":\"kernel\",\"name\":\"double(Mul)\""), 3u);
  EXPECT_EQ(
      count(trace, "\"cat\":\"kernel\",\"name\":\"add \\\"one\\\"\\\\(Add) \xc3\xa9\\ufffd\""), 3u);
  EXPECT_EQ(count(trace, "\"cat\":\"worker\",\"name\":\"double(Mul)\",\"pid\":"), 3u);
  EXPECT_EQ(count(trace, "\"cat\":\"worker\""), 6u);
  EXPECT_EQ(count(trace, "\"tid\":1,\"ts\""), 6u);
  EXPECT_NE(trace.find("\"name\":\"infc worker 1\""), std::string::npos);
  EXPECT_NE(trace.find("\"runs\":3,\"events\":\"kernels\",\"dropped_events\":0"),
            std::string::npos);
  EXPECT_NE(trace.find("\"args\":{\"run\":2,\"kernel\":1}"), std::string::npos);
  // Profiling ended: later runs take the plain entry, and ending again is an error.
  run(s);
  EXPECT_EQ(infc_fake_profiled_runs - before, 3);
  EXPECT_EQ(infc_session_end_profiling(s), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(infc_session_error(s)).find("does not profile"), std::string::npos);
  infc_session_release(s);
}

TEST_F(Profile, UnprofiledSessionsNeverCallTheProfiledEntry) {
  unsetenv("INFC_PROFILE");
  infc_session *s = session(2, nullptr);
  int before = infc_fake_profiled_runs;
  run(s);
  run(s);
  EXPECT_EQ(infc_fake_profiled_runs, before);
  EXPECT_EQ(infc_session_end_profiling(s), INFC_ERR_INVALID_ARGUMENT);
  infc_session_release(s);
}

TEST_F(Profile, ReleaseWritesTheTrace) {
  std::string path = dir + "/on-release.json";
  infc_session *s = session(1, path.c_str());
  run(s);
  infc_session_release(s);
  std::string trace = readFile(path);
  EXPECT_EQ(count(trace, "\"cat\":\"run\""), 1u);
  EXPECT_EQ(count(trace, "\"cat\":\"worker\""), 0u); // one thread: no workers
}

TEST_F(Profile, UnwritableTraceIsAnErrorAndLeavesNoFile) {
  std::string path = dir + "/missing-dir/trace.json";
  infc_session *s = session(1, path.c_str());
  run(s);
  EXPECT_EQ(infc_session_end_profiling(s), INFC_ERR_INVALID_ARGUMENT);
  std::string error = infc_session_error(s);
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_FALSE(exists(path));
  infc_session_release(s);
  std::string cmd = "test -z \"$(ls -A '" + dir + "')\"";
  EXPECT_EQ(system(cmd.c_str()), 0) << "a temporary file was left in " << dir;
}

TEST_F(Profile, EnvironmentNamesOneFilePerSession) {
  std::string path = dir + "/env.trace.json";
  setenv("INFC_PROFILE", path.c_str(), 1);
  infc_session *a = session(1, nullptr), *b = session(1, nullptr);
  unsetenv("INFC_PROFILE");
  run(a);
  run(b);
  infc_session_release(a);
  infc_session_release(b);
  // The counter is per process: this test's sessions are its first by INFC_PROFILE.
  EXPECT_TRUE(exists(path));
  EXPECT_TRUE(exists(dir + "/env.trace.2.json"));
}
} // namespace

//===- ConcurrencyTest.cpp - sessions from several threads, under TSan --------===//
//
// Built and run with ThreadSanitizer (the runtime, the fake model and this test all
// instrumented): several sessions of one model, each with a pool of 2 threads, run from
// several host threads at once; one session handed from thread to thread; sessions created
// and released while others run; the batch loop's rows side by side. Every result is checked
// exactly; TSan reports any race in the runtime's pools, sessions or model (a report fails
// the test: halt_on_error).
//
//===----------------------------------------------------------------------===//
#include "infc/runtime.h"

extern "C" {
#include "model_desc.h"
infc_status infc__model_create_from_desc(const infc_model_desc *desc, infc_model **out);
}

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {
constexpr int64_t kN = 4096;
const int64_t kShape[] = {kN};

/// One run of the fake parallel model (y = 2 x + 1); the number of wrong elements, or -1.
int runOnce(infc_session *s, float seed) {
  std::vector<float> x(kN), y(kN);
  for (int64_t i = 0; i < kN; ++i)
    x[i] = seed + (float)i;
  infc_tensor in = {x.data(), INFC_F32, 1, kShape, 0, 0, 0};
  infc_tensor out = {y.data(), INFC_F32, 1, kShape, 0, 0, 0};
  if (infc_run(s, &in, 1, &out, 1) != INFC_OK)
    return -1;
  int wrong = 0;
  for (int64_t i = 0; i < kN; ++i)
    wrong += y[i] != 2 * x[i] + 1;
  return wrong;
}

infc_session *newSession(infc_model *m, int threads, const char *profile = nullptr) {
  infc_session_options o = {};
  o.struct_size = sizeof o;
  o.num_threads = threads;
  o.profile_path = profile;
  infc_session *s = nullptr;
  return infc_session_create(m, &o, &s) == INFC_OK ? s : nullptr;
}

TEST(Concurrency, SessionsOfOneModelOnSeveralThreads) {
  infc_model *m;
  ASSERT_EQ(infc_model_create(&m), INFC_OK);
  constexpr int kThreads = 3, kIters = 200;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      infc_session *s = newSession(m, 2);
      if (!s) {
        failures[t] = -1;
        return;
      }
      for (int it = 0; it < kIters; ++it)
        failures[t] += runOnce(s, (float)(t * 100 + it)) != 0;
      infc_session_release(s);
    });
  for (auto &th : threads)
    th.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  infc_model_release(m);
}

// Profiled sessions: the caller's kernel events and the workers' shares recorded while other
// sessions profile on other threads, and one profiled session handed between threads.
TEST(Concurrency, ProfiledSessionsOnSeveralThreads) {
  infc_model *m;
  ASSERT_EQ(infc_model_create(&m), INFC_OK);
  char dir[] = "/tmp/infc-tsan-profile-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  constexpr int kThreads = 3, kIters = 50;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::string path = std::string(dir) + "/t" + std::to_string(t) + ".json";
      infc_session *s = newSession(m, 2, path.c_str());
      if (!s) {
        failures[t] = -1;
        return;
      }
      for (int it = 0; it < kIters; ++it)
        failures[t] += runOnce(s, (float)it) != 0;
      failures[t] += infc_session_end_profiling(s) != INFC_OK;
      infc_session_release(s);
    });
  for (auto &th : threads)
    th.join();
  std::string handed = std::string(dir) + "/handed.json";
  infc_session *s = newSession(m, 2, handed.c_str());
  ASSERT_NE(s, nullptr);
  int wrong = 0;
  for (int t = 0; t < kThreads; ++t)
    std::thread([&] { wrong += runOnce(s, (float)t) != 0; }).join();
  infc_session_release(s); // writes handed.json
  EXPECT_EQ(wrong, 0);
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  for (const char *name : {"t0.json", "t1.json", "t2.json", "handed.json"})
    EXPECT_EQ(access((std::string(dir) + "/" + name).c_str(), R_OK), 0) << name;
  std::string cmd = std::string("rm -rf '") + dir + "'";
  EXPECT_EQ(system(cmd.c_str()), 0);
  infc_model_release(m);
}

TEST(Concurrency, OneSessionHandedBetweenThreads) {
  // The ABI allows one session on one thread at a time, any thread: each hand-off goes
  // through a mutex (the caller's synchronization), the session's pool stays the same.
  infc_model *m;
  ASSERT_EQ(infc_model_create(&m), INFC_OK);
  infc_session *s = newSession(m, 2);
  ASSERT_NE(s, nullptr);
  constexpr int kThreads = 3, kTurns = 60;
  std::mutex lock;
  std::condition_variable turnChanged;
  int turn = 0, failures = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int k = t; k < kTurns; k += kThreads) {
        std::unique_lock<std::mutex> held(lock);
        turnChanged.wait(held, [&] { return turn == k; });
        failures += runOnce(s, (float)k) != 0;
        ++turn;
        turnChanged.notify_all();
      }
    });
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(turn, kTurns);
  infc_session_release(s);
  infc_model_release(m);
}

TEST(Concurrency, SessionsComeAndGoWhileOthersRun) {
  infc_model *m;
  ASSERT_EQ(infc_model_create(&m), INFC_OK);
  infc_session *steady = newSession(m, 2);
  ASSERT_NE(steady, nullptr);
  int steadyFailures = 0, churnFailures = 0;
  std::thread runner([&] {
    for (int it = 0; it < 200; ++it)
      steadyFailures += runOnce(steady, (float)it) != 0;
  });
  std::thread churn([&] {
    for (int it = 0; it < 40; ++it) {
      infc_session *s = newSession(m, 1 + it % 2);
      if (!s) {
        ++churnFailures;
        continue;
      }
      churnFailures += runOnce(s, (float)-it) != 0;
      infc_session_release(s);
    }
  });
  runner.join();
  churn.join();
  EXPECT_EQ(steadyFailures, 0);
  EXPECT_EQ(churnFailures, 0);
  infc_session_release(steady);
  infc_model_release(m);
}

// The batch loop (INFC_DESC_BATCH_LOOP) around the fake model's entry as the code for one
// row: x, y f32[batch, 4096]. On 2 threads, rows run side by side (the entry's regions
// serial inside, each thread on its own workspace), the odd row on both threads; two
// sessions at once from two host threads.
TEST(Concurrency, BatchLoopRowsSideBySide) {
  static const int64_t kRows[] = {-1, kN};
  static const int32_t kBatch[] = {0, -1};
  static const infc_dim_desc dims[] = {{"batch", 0, 8}};
  static const infc_io_desc inputs[] = {{"x", INFC_F32, 2, kRows, nullptr, 0, kBatch}};
  static const infc_io_desc outputs[] = {{"y", INFC_F32, 2, kRows, nullptr, 0, kBatch}};
  infc_model_desc desc = infc__model_desc;
  desc.inputs = inputs;
  desc.outputs = outputs;
  desc.profiled_entry = nullptr;
  desc.num_kernels = 0;
  desc.kernel_names = nullptr;
  desc.num_dims = 1;
  desc.dims = dims;
  desc.flags = INFC_DESC_BATCH_LOOP;
  infc_model *m;
  ASSERT_EQ(infc__model_create_from_desc(&desc, &m), INFC_OK);
  int failures[2] = {0, 0};
  auto rows = [&](int which) {
    infc_session *s = newSession(m, 2);
    if (!s) {
      ++failures[which];
      return;
    }
    for (int64_t batch : {5, 2, 1, 8, 3}) {
      std::vector<float> x(batch * kN), y(batch * kN);
      for (size_t i = 0; i < x.size(); ++i)
        x[i] = (float)(which * 7 + i % 1000);
      int64_t shape[] = {batch, kN};
      infc_tensor in = {x.data(), INFC_F32, 2, shape, 0, 0, 0};
      infc_tensor out = {y.data(), INFC_F32, 2, shape, 0, 0, 0};
      if (infc_run(s, &in, 1, &out, 1) != INFC_OK) {
        ++failures[which];
        continue;
      }
      for (size_t i = 0; i < y.size(); ++i)
        failures[which] += y[i] != 2 * x[i] + 1;
    }
    infc_session_release(s);
  };
  std::thread first(rows, 0), second(rows, 1);
  first.join();
  second.join();
  EXPECT_EQ(failures[0], 0);
  EXPECT_EQ(failures[1], 0);
  infc_model_release(m);
}
} // namespace

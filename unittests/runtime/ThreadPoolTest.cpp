//===- ThreadPoolTest.cpp - the session pool and its __kmpc_* entry points -===//
//
// Drives runtime/threads.c the way LLVM's OpenMP lowering does: __kmpc_fork_call with an
// outlined microtask that schedules its share of a loop with __kmpc_for_static_init_8u,
// then __kmpc_for_static_fini and __kmpc_barrier.
//
//===----------------------------------------------------------------------===//
#include <cstdarg>
#include <cstdint>

extern "C" {
// runtime/internal.h (C11 atomics) is not C++: declare what the test drives.
typedef struct infc__pool infc__pool;
infc__pool *infc__pool_create(int32_t size);
void infc__pool_destroy(infc__pool *pool);
void infc__pool_enter(infc__pool *pool);
void infc__pool_leave(void);
int32_t __kmpc_global_thread_num(void *loc);
void __kmpc_fork_call(void *loc, int32_t nargs, void (*task)(int32_t *, int32_t *, ...), ...);
void __kmpc_for_static_init_8u(void *loc, int32_t gtid, int32_t sched, int32_t *plast,
                               uint64_t *plower, uint64_t *pupper, int64_t *pstride, int64_t incr,
                               int64_t chunk);
void __kmpc_for_static_fini(void *loc, int32_t gtid);
void __kmpc_barrier(void *loc, int32_t gtid);
}

#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <sched.h>
#include <thread>
#include <vector>

namespace {
struct Work {
  uint64_t lower, upper; // inclusive
  std::vector<std::atomic<int>> *hits;
  std::atomic<int> *lastCount, *afterBarrier, *threadsSeen;
  int teamSize;
};

/// A microtask as OpenMPIRBuilder outlines one: (gtid*, btid*, captured struct*).
extern "C" void microtask(int32_t *gtid, int32_t *btid, ...) {
  va_list ap;
  va_start(ap, btid);
  Work *w = va_arg(ap, Work *);
  va_end(ap);
  int32_t tid = __kmpc_global_thread_num(nullptr);
  EXPECT_EQ(tid, *gtid);
  w->threadsSeen->fetch_add(1);
  uint64_t lower = w->lower, upper = w->upper;
  int64_t stride = 0;
  int32_t last = 0;
  __kmpc_for_static_init_8u(nullptr, tid, 34, &last, &lower, &upper, &stride, 1, 0);
  for (uint64_t i = lower; i <= upper && lower <= w->upper; ++i)
    (*w->hits)[i].fetch_add(1);
  if (last)
    w->lastCount->fetch_add(1);
  __kmpc_for_static_fini(nullptr, tid);
  __kmpc_barrier(nullptr, tid);
  // After the barrier every thread's share is done.
  int total = 0;
  for (auto &h : *w->hits)
    total += h.load();
  if (total == (int)w->hits->size())
    w->afterBarrier->fetch_add(1);
}

void runLoop(infc__pool *pool, int teamSize, uint64_t trips) {
  std::vector<std::atomic<int>> hits(trips);
  std::atomic<int> lastCount{0}, afterBarrier{0}, threadsSeen{0};
  Work w{0, trips - 1, &hits, &lastCount, &afterBarrier, &threadsSeen, teamSize};
  infc__pool_enter(pool);
  __kmpc_fork_call(nullptr, 1, (void (*)(int32_t *, int32_t *, ...))microtask, &w);
  infc__pool_leave();
  for (uint64_t i = 0; i < trips; ++i)
    ASSERT_EQ(hits[i].load(), 1) << "iteration " << i << " of " << trips;
  EXPECT_EQ(lastCount.load(), 1);
  EXPECT_EQ(threadsSeen.load(), teamSize);
  EXPECT_EQ(afterBarrier.load(), teamSize);
}

TEST(ThreadPool, StaticScheduleCoversEveryIterationOnce) {
  for (int size : {1, 2, 3, 4}) {
    infc__pool *pool = infc__pool_create(size);
    ASSERT_NE(pool, nullptr);
    for (uint64_t trips : {1u, 2u, 3u, 7u, 64u, 1000u})
      runLoop(pool, size, trips);
    infc__pool_destroy(pool);
  }
}

TEST(ThreadPool, ManyRegionsInARow) {
  // Regions issued back to back, before the workers have gone back to sleep, and one issued
  // right after creation (a worker that starts late must not miss it).
  for (int round = 0; round < 50; ++round) {
    infc__pool *pool = infc__pool_create(2);
    for (int i = 0; i < 20; ++i)
      runLoop(pool, 2, 17);
    infc__pool_destroy(pool);
  }
}

TEST(ThreadPool, TeamLargerThanTheCpus) {
  // Caller and workers on one CPU (the affinity the pool's threads inherit): spinning
  // threads must yield it to the thread whose share is still to run, and workers parked
  // between bursts must come back. Regions in bursts with pauses, as a paced product calls.
  cpu_set_t saved, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &saved))
    ++cpu;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0)
    GTEST_SKIP() << "this process may not set its CPU affinity";
  infc__pool *pool = infc__pool_create(3);
  for (int burst = 0; burst < 5; ++burst) {
    for (int i = 0; i < 40; ++i)
      runLoop(pool, 3, 29);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  infc__pool_destroy(pool);
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
}

TEST(ThreadPool, WorkersParkedBetweenRunsComeBack) {
  // Each region after a pause longer than the spin: the worker is woken from its park (and
  // moves off the caller's CPU if it woke there).
  infc__pool *pool = infc__pool_create(2);
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    runLoop(pool, 2, 50);
  }
  infc__pool_destroy(pool);
}

TEST(ThreadPool, WithoutAPoolRunsSerially) {
  runLoop(nullptr, 1, 10); // e.g. the entry called outside infc_run
}

TEST(ThreadPool, TwoPoolsOnTwoThreadsAreIndependent) {
  auto body = [] {
    infc__pool *pool = infc__pool_create(2);
    for (int i = 0; i < 200; ++i)
      runLoop(pool, 2, 33);
    infc__pool_destroy(pool);
  };
  std::thread a(body), b(body);
  a.join();
  b.join();
}
} // namespace

/* Runs the kernels of `infc compile --target cuda --emit=cuda` (model.cu) on a CPU, for the
 * tests of a machine without a GPU. Built as a host library:
 *
 *   c++ -std=c++17 -O1 -fPIC -shared -DINFC_CUDA_EMULATION -include cuda_emulation.h \
 *       -x c++ model.cu -o kernels.so
 *
 * the stand-in driver (mock_cuda.c, MOCK_CUDA_KERNELS=kernels.so) calls
 * infc_emulate_launch for every launch, so the host side (model.c and the runtime, built as
 * a user builds them) drives the printed kernels the way it drives a GPU.
 *
 * A block's threads are fibers (ucontext) on the calling thread, run in turn from thread 0
 * (or from the last, with MOCK_CUDA_REVERSE=1, which a race between threads would show):
 * each runs until it waits at __syncthreads (every thread of the block) or inside a warp's
 * collective operation (the 32 lanes of its warp), and the waiting ones go on when all of
 * their group wait. Blocks run one after another, so a __shared__ variable (a static
 * variable here) is the running block's. The warp's operations are the PTX instructions'
 * semantics, lane by lane: shfl.sync, ldmatrix (x4, .trans) and mma.sync (m16n8k16 f16 and
 * bf16, m16n8k8 tf32, m16n8k32 and m16n8k16 s8/u8), with the fragment layouts of the PTX ISA
 * ("Matrix fragments for mma.m16n8k*"). Sums are in float (int32 for bytes), in k order. */
#ifndef INFC_CUDA_EMULATION_H
#define INFC_CUDA_EMULATION_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <utility>

#define __global__ __attribute__((visibility("default")))
#define __device__
#define __shared__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __align__(n) __attribute__((aligned(n)))

struct infc_emu_dim3 {
  unsigned x, y, z;
};
inline infc_emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace infc_emu {
enum State { Ready, BlockWait, WarpWait, Done };
struct Fiber {
  ucontext_t context;
  State state;
};
constexpr size_t kStackBytes = 512 * 1024;
constexpr unsigned kMaxThreads = 1024;
inline ucontext_t scheduler;
inline Fiber fibers[kMaxThreads];
inline char *stacks[kMaxThreads];
inline unsigned numThreads, current;
inline void (*body)(void);
inline char error[512];

/* What a warp's lanes give a collective operation, and its results. */
struct WarpSlots {
  uint32_t value[32];
  uint32_t operand[32];
  const void *address[32];
  uint32_t ab[32][8];
  uint32_t c[32][4];
};
inline WarpSlots warps[kMaxThreads / 32];

inline void fail(const char *what) {
  if (!error[0])
    snprintf(error, sizeof error, "%s", what);
}
inline void wait(State s) {
  fibers[current].state = s;
  swapcontext(&fibers[current].context, &scheduler);
}
inline unsigned lane() { return current % 32; }
inline WarpSlots &warp() { return warps[current / 32]; }

inline void threadMain() {
  body();
  fibers[current].state = Done;
  // (uc_link returns to the scheduler)
}

/* Runs the block's threads until all are done; false on a deadlock. */
inline bool runBlock(bool reverse) {
  for (;;) {
    bool ran = false;
    for (unsigned k = 0; k < numThreads; ++k) {
      unsigned t = reverse ? numThreads - 1 - k : k;
      if (fibers[t].state != Ready)
        continue;
      current = t;
      threadIdx = {t % blockDim.x, t / blockDim.x % blockDim.y, t / (blockDim.x * blockDim.y)};
      swapcontext(&scheduler, &fibers[t].context);
      ran = true;
    }
    bool alive = false, released = false;
    for (unsigned w = 0; w * 32 < numThreads; ++w) {
      unsigned end = w * 32 + 32 < numThreads ? w * 32 + 32 : numThreads;
      bool all = true, any = false;
      for (unsigned t = w * 32; t < end; ++t) {
        all = all && (fibers[t].state == WarpWait || fibers[t].state == Done);
        any = any || fibers[t].state == WarpWait;
      }
      if (all && any) {
        for (unsigned t = w * 32; t < end; ++t)
          if (fibers[t].state == WarpWait)
            fibers[t].state = Ready;
        released = true;
      }
    }
    bool allAtBarrier = true, anyAtBarrier = false;
    for (unsigned t = 0; t < numThreads; ++t) {
      alive = alive || fibers[t].state != Done;
      allAtBarrier = allAtBarrier && (fibers[t].state == BlockWait || fibers[t].state == Done);
      anyAtBarrier = anyAtBarrier || fibers[t].state == BlockWait;
    }
    if (!alive)
      return true;
    if (!released && allAtBarrier && anyAtBarrier) {
      for (unsigned t = 0; t < numThreads; ++t)
        if (fibers[t].state == BlockWait)
          fibers[t].state = Ready;
      released = true;
    }
    if (!released && !ran) {
      fail("deadlock: threads wait at a barrier or a warp operation others never reach");
      return false;
    }
  }
}

/* The kernel `fn` with `n` pointer parameters (infc's kernels take bare pointers). */
template <size_t... I> void callWith(void *fn, void *const *params, std::index_sequence<I...>) {
  using F = void (*)(decltype((void)I, (uint8_t *)nullptr)...);
  ((F)fn)(*(uint8_t *const *)params[I]...);
}
inline void *launchFn;
inline void *const *launchParams;
template <size_t N> void callN(int n) {
  if (n == (int)N)
    callWith(launchFn, launchParams, std::make_index_sequence<N>());
  else if constexpr (N > 0)
    callN<N - 1>(n);
}
inline int launchArity;
inline void runKernel() { callN<96>(launchArity); }

inline float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, b;
  float f;
  if (e == 0x1f) {
    b = sign | 0x7f800000u | (m << 13);
  } else if (e == 0) {
    f = (float)m * 0x1p-24f;
    return sign ? -f : f;
  } else {
    b = sign | ((e + 112u) << 23) | (m << 13);
  }
  memcpy(&f, &b, 4);
  return f;
}
/* Element `k` of a fragment register's packed values of `type` (f16, bf16: 2 a register;
 * tf32: 1; s8/u8: 4), as a double. */
inline double element(const char *type, uint32_t reg, int k) {
  if (!strcmp(type, "f16"))
    return halfToFloat((uint16_t)(reg >> (16 * k)));
  if (!strcmp(type, "bf16")) {
    uint32_t b = (reg >> (16 * k)) << 16;
    float f;
    memcpy(&f, &b, 4);
    return f;
  }
  if (!strcmp(type, "tf32")) {
    uint32_t b = reg & 0xffffe000u; // the tensor cores read 19 bits
    float f;
    memcpy(&f, &b, 4);
    return f;
  }
  uint8_t byte = (uint8_t)(reg >> (8 * k));
  return !strcmp(type, "s8") ? (double)(int8_t)byte : (double)byte;
}
} // namespace infc_emu

inline void __syncthreads() { infc_emu::wait(infc_emu::BlockWait); }
inline size_t __cvta_generic_to_shared(const void *p) { return (size_t)p; }
inline void *__cvta_shared_to_generic(size_t a) { return (void *)a; }

/* shfl.sync.MODE.b32 r, v, lane, clamp, mask: the whole warp (mask -1, clamp 31). */
inline void infc_emulate_shfl(const char *mode, uint32_t mask, const void *v, void *r,
                              uint32_t laneArg, uint32_t clamp) {
  using namespace infc_emu;
  if (mask != 0xffffffffu || clamp != 31)
    fail("shfl.sync: only whole warps (mask -1, clamp 31) are emulated");
  WarpSlots &w = warp();
  unsigned l = lane();
  memcpy(&w.value[l], v, 4);
  wait(WarpWait);
  unsigned source = l;
  if (!strcmp(mode, "bfly"))
    source = l ^ (laneArg & 31);
  else if (!strcmp(mode, "idx"))
    source = laneArg & 31;
  else if (!strcmp(mode, "up"))
    source = l >= laneArg ? l - laneArg : l;
  else if (!strcmp(mode, "down"))
    source = l + laneArg <= 31 ? l + laneArg : l;
  memcpy(r, &w.value[source], 4);
  wait(WarpWait);
}

/* ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: lane 8j+i gives row i of matrix j; lane l
 * gets of matrix j the elements (l/4, 2(l%4)) and (l/4, 2(l%4)+1), transposed with .trans. */
inline void infc_emulate_ldmatrix_x4(int trans, uint32_t *r, const void *p) {
  using namespace infc_emu;
  WarpSlots &w = warp();
  unsigned l = lane();
  w.address[l] = p;
  wait(WarpWait);
  for (unsigned j = 0; j < 4; ++j) {
    uint16_t e[2];
    for (unsigned k = 0; k < 2; ++k) {
      unsigned row = l / 4, col = 2 * (l % 4) + k;
      if (trans)
        std::swap(row, col);
      memcpy(&e[k], (const uint8_t *)w.address[8 * j + row] + 2 * col, 2);
    }
    r[j] = (uint32_t)e[0] | (uint32_t)e[1] << 16;
  }
  wait(WarpWait);
}

/* mma.sync.aligned.SHAPE.row.col.D.A.B.C: d = a b + c over the warp's fragments. */
inline void infc_emulate_mma(const char *shape, const char *types, int satfinite, void *d,
                             const uint32_t *ab, const void *c) {
  using namespace infc_emu;
  char t[4][8] = {};
  if (sscanf(types, "%7[^.].%7[^.].%7[^.].%7s", t[0], t[1], t[2], t[3]) != 4)
    return fail("mma: unknown types");
  unsigned k = !strcmp(shape, "m16n8k16")   ? 16
               : !strcmp(shape, "m16n8k8")  ? 8
               : !strcmp(shape, "m16n8k32") ? 32
                                            : 0;
  if (!k)
    return fail("mma: unknown shape");
  // Elements a register: 2 for 16-bit types, 1 for tf32, 4 for bytes.
  unsigned per = !strcmp(t[1], "tf32") ? 1 : (t[1][0] == 's' || t[1][0] == 'u') ? 4 : 2;
  unsigned aRegs = 16 * k / 32 / per, bRegs = 8 * k / 32 / per;
  bool integer = t[0][0] == 's';
  WarpSlots &w = warp();
  unsigned l = lane();
  memcpy(w.ab[l], ab, 4 * (aRegs + bRegs));
  memcpy(w.c[l], c, 16);
  wait(WarpWait);
  // A (16 x k, row major): lane (g = l/4, t = l%4); register i holds rows g + 8 (i % 2) and
  // columns per t + per*4 (i / 2) + e. B (k x 8): register i rows per t + per*4 i + e, column g.
  // C and D (16 x 8): elements 2t + (e % 2) of rows g + 8 (e / 2).
  double A[16][32], B[32][8];
  for (unsigned src = 0; src < 32; ++src) {
    unsigned g = src / 4, tig = src % 4;
    for (unsigned i = 0; i < aRegs; ++i)
      for (unsigned e = 0; e < per; ++e)
        A[g + 8 * (i % 2)][per * tig + per * 4 * (i / 2) + e] = element(t[1], w.ab[src][i], e);
    for (unsigned i = 0; i < bRegs; ++i)
      for (unsigned e = 0; e < per; ++e)
        B[per * tig + per * 4 * i + e][g] = element(t[2], w.ab[src][aRegs + i], e);
  }
  unsigned g = l / 4, tig = l % 4;
  for (unsigned e = 0; e < 4; ++e) {
    unsigned row = g + 8 * (e / 2), col = 2 * tig + e % 2;
    if (integer) {
      int64_t sum;
      int32_t start;
      memcpy(&start, &w.c[l][e], 4);
      sum = start;
      for (unsigned x = 0; x < k; ++x)
        sum += (int64_t)A[row][x] * (int64_t)B[x][col];
      if (satfinite)
        sum = sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : sum;
      int32_t out = (int32_t)sum;
      memcpy((uint8_t *)d + 4 * e, &out, 4);
    } else {
      float sum;
      memcpy(&sum, &w.c[l][e], 4);
      for (unsigned x = 0; x < k; ++x)
        sum = (float)((double)sum + A[row][x] * B[x][col]);
      memcpy((uint8_t *)d + 4 * e, &sum, 4);
    }
  }
  wait(WarpWait);
}

/* The stand-in driver's entry: kernel `fn` with its `arity` parameters (each a pointer to
 * an 8-byte device pointer), over `grid` blocks of `block` threads. 0, or -1 with `message`. */
extern "C" __attribute__((visibility("default"))) int
infc_emulate_launch(void *fn, int arity, void *const *params, const unsigned grid[3],
                    const unsigned block[3], char *message, size_t size) {
  using namespace infc_emu;
  error[0] = 0;
  unsigned threads = block[0] * block[1] * block[2];
  if (threads == 0 || threads > kMaxThreads || arity > 96) {
    snprintf(message, size, "a block of %u threads, or %d parameters", threads, arity);
    return -1;
  }
  launchFn = fn;
  launchParams = params;
  launchArity = arity;
  body = runKernel;
  blockDim = {block[0], block[1], block[2]};
  gridDim = {grid[0], grid[1], grid[2]};
  bool reverse = getenv("MOCK_CUDA_REVERSE") != nullptr;
  for (unsigned bz = 0; bz < grid[2]; ++bz)
    for (unsigned by = 0; by < grid[1]; ++by)
      for (unsigned bx = 0; bx < grid[0]; ++bx) {
        blockIdx = {bx, by, bz};
        numThreads = threads;
        for (unsigned t = 0; t < threads; ++t) {
          if (!stacks[t] && !(stacks[t] = (char *)malloc(kStackBytes))) {
            snprintf(message, size, "out of memory for the threads' stacks");
            return -1;
          }
          getcontext(&fibers[t].context);
          fibers[t].context.uc_stack.ss_sp = stacks[t];
          fibers[t].context.uc_stack.ss_size = kStackBytes;
          fibers[t].context.uc_link = &scheduler;
          makecontext(&fibers[t].context, threadMain, 0);
          fibers[t].state = Ready;
        }
        if (!runBlock(reverse) || error[0]) {
          snprintf(message, size, "block (%u,%u,%u): %s", bx, by, bz, error);
          return -1;
        }
      }
  return 0;
}

#endif

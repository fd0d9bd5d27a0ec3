/* infc unit tests — a stand-in for a compiled model that runs parallel regions on the
 * session's pool, the way generated code does (LLVM's OpenMP lowering: __kmpc_fork_call of an
 * outlined microtask, __kmpc_for_static_init_8u for its share, __kmpc_barrier).
 *
 * Input x: f32[4096]. Output y: f32[4096] = 2 x + 1, computed in two regions through the
 * workspace (region 1: ws = 2 x, a barrier, ws[i] += 0 read back across shares; region 2:
 * y = ws + 1), so that a missing barrier, a shared workspace or a region that starts before
 * the last one ended shows up as wrong values and, under TSan, as a race. It has a profiled
 * entry too, which brackets each region as a kernel. */
#include "infc/runtime.h"
#include "model_desc.h"

#include <stdarg.h>
#include <stdint.h>

#define N 4096

void __kmpc_fork_call(void *loc, int32_t nargs, void (*task)(int32_t *, int32_t *, ...), ...);
int32_t __kmpc_global_thread_num(void *loc);
void __kmpc_for_static_init_8u(void *loc, int32_t gtid, int32_t sched, int32_t *plast,
                               uint64_t *plower, uint64_t *pupper, int64_t *pstride, int64_t incr,
                               int64_t chunk);
void __kmpc_for_static_fini(void *loc, int32_t gtid);
void __kmpc_barrier(void *loc, int32_t gtid);

static const int64_t shape_n[] = {N};
static const infc_io_desc inputs[] = {{"x", INFC_F32, 1, shape_n}};
static const infc_io_desc outputs[] = {{"y", INFC_F32, 1, shape_n}};

struct frame {
  const float *x;
  float *ws, *y;
};

static void share(int32_t tid, uint64_t *lower, uint64_t *upper) {
  int64_t stride = 0;
  int32_t last = 0;
  *lower = 0;
  *upper = N - 1;
  __kmpc_for_static_init_8u(NULL, tid, 34, &last, lower, upper, &stride, 1, 0);
}

static void double_then_mirror(int32_t *gtid, int32_t *btid, ...) {
  (void)btid;
  va_list ap;
  va_start(ap, btid);
  struct frame *f = va_arg(ap, struct frame *);
  va_end(ap);
  int32_t tid = *gtid;
  uint64_t lo, hi;
  share(tid, &lo, &hi);
  for (uint64_t i = lo; i <= hi && lo < N; ++i)
    f->ws[i] = 2 * f->x[i];
  __kmpc_for_static_fini(NULL, tid);
  __kmpc_barrier(NULL, tid);
  /* After the barrier each thread reads another thread's share: the mirror element. */
  share(tid, &lo, &hi);
  float check = 0;
  for (uint64_t i = lo; i <= hi && lo < N; ++i)
    check += f->ws[N - 1 - i] - 2 * f->x[N - 1 - i];
  if (check != 0)
    f->ws[lo] = -1e30f; /* poisons the output: a read before the other share was written */
  __kmpc_for_static_fini(NULL, tid);
}

static void add_one(int32_t *gtid, int32_t *btid, ...) {
  (void)btid;
  va_list ap;
  va_start(ap, btid);
  struct frame *f = va_arg(ap, struct frame *);
  va_end(ap);
  uint64_t lo, hi;
  share(*gtid, &lo, &hi);
  for (uint64_t i = lo; i <= hi && lo < N; ++i)
    f->y[i] = f->ws[i] + 1;
  __kmpc_for_static_fini(NULL, *gtid);
}

static void entry(void **args) {
  struct frame f = {args[1], args[0], args[2]};
  __kmpc_fork_call(NULL, 1, double_then_mirror, &f);
  __kmpc_fork_call(NULL, 1, add_one, &f);
}

/* The profiled copy, as infc-profile-entry makes it: each region a kernel. */
void infc__prof_begin(int32_t kernel);
void infc__prof_end(int32_t kernel);
int infc_fake_profiled_runs; /* how often the profiled entry ran (ProfileTest) */

static void profiled_entry(void **args) {
  struct frame f = {args[1], args[0], args[2]};
  __atomic_fetch_add(&infc_fake_profiled_runs, 1, __ATOMIC_RELAXED); /* sessions run concurrently */
  infc__prof_begin(0);
  __kmpc_fork_call(NULL, 1, double_then_mirror, &f);
  infc__prof_end(0);
  infc__prof_begin(1);
  __kmpc_fork_call(NULL, 1, add_one, &f);
  infc__prof_end(1);
}

/* The second name needs JSON escapes: quotes, a backslash, UTF-8 (e acute) and a byte that
 * is not UTF-8. */
static const char *const kernel_names[] = {"double(Mul)", "add \"one\"\\(Add) \xc3\xa9\xff"};

__attribute__((visibility("hidden"))) const infc_model_desc infc__model_desc = {
    .desc_version = INFC_MODEL_DESC_VERSION,
    .num_inputs = 1,
    .num_outputs = 1,
    .inputs = inputs,
    .outputs = outputs,
    .workspace_bytes = N * sizeof(float),
    .model_name = "fake_parallel",
    .entry = entry,
    .profiled_entry = profiled_entry,
    .num_kernels = 2,
    .kernel_names = kernel_names,
};

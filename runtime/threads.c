/* infc runtime — the session thread pool, and the few OpenMP runtime entry points that
 * MLIR's OpenMP lowering calls (__kmpc_fork_call, static loop scheduling, barrier).
 *
 * Generated code parallelizes loops with `omp.parallel` + `omp.wsloop`; LLVM's
 * OpenMPIRBuilder outlines the bodies and calls these entry points. We implement them on the
 * session's own pool instead of linking libomp, so a model.so still needs only libc. The
 * symbols stay hidden (exports.map), so a host process with its own libomp is unaffected.
 * The pool that a call runs on is the one of the session whose infc_run is on this thread
 * (thread-local, set around the entry call): sessions never share threads or state. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* A model runs hundreds of short parallel regions back to back: waking a thread blocked on a
 * condition variable costs tens of microseconds, as much as a region's work. Threads spin
 * this many polls (about 50-100 us) for the next region, or for the team, before blocking. */
#define INFC_SPIN_POLLS 4096
/* Spinning threads yield the CPU every this many polls. Two threads of a team can share one
 * CPU: Linux often wakes a parked worker on its waker's CPU (wake-affine) and leaves it there
 * until load balancing moves it, tens of ms later; more threads than CPUs do the same. A pure
 * spin then holds the CPU the other thread needs for the whole spin, every region (a 2-thread
 * VAD model took 2.7 ms a call instead of 0.05 after an idle pause). */
#define INFC_YIELD_POLLS 64

static inline void spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Poll `polls` of a spin: a pause, and a yield now and then (INFC_YIELD_POLLS). sched_yield
 * returns at once when nothing else waits for this CPU. */
static inline void spin_poll(int polls) {
  if ((polls + 1) % INFC_YIELD_POLLS == 0)
    sched_yield();
  else
    spin_pause();
}

typedef void (*infc__microtask)(int32_t *gtid, int32_t *btid, ...);

struct infc__pool {
  int32_t size; /* threads in a team, the caller included */
  pthread_t *workers;
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  _Atomic uint64_t generation; /* bumped (under lock) for each parallel region */
  _Atomic int32_t pending;     /* workers still running the current region */
  _Atomic int stop;
  _Atomic int32_t caller_cpu; /* the CPU the current region was issued from */
  infc__microtask task;       /* the current region, published by generation */
  infc__profile *profile;     /* the session's profiler, or NULL; set between runs */
  int32_t nargs;
  void *args[8];
  /* Sense-reversing spin barrier for __kmpc_barrier (waits between worksharing loops are
   * short; a blocking barrier would put every thread to sleep each time). */
  _Atomic int32_t barrier_count;
  _Atomic int32_t barrier_sense;
};

static _Thread_local infc__pool *current_pool;
static _Thread_local int32_t current_tid;
static _Thread_local int32_t in_parallel;

static void invoke(infc__pool *p, int32_t tid) {
  int32_t gtid = tid, btid = tid;
  void **a = p->args;
  switch (p->nargs) {
  case 0:
    p->task(&gtid, &btid);
    break;
  case 1:
    p->task(&gtid, &btid, a[0]);
    break;
  case 2:
    p->task(&gtid, &btid, a[0], a[1]);
    break;
  case 3:
    p->task(&gtid, &btid, a[0], a[1], a[2]);
    break;
  case 4:
    p->task(&gtid, &btid, a[0], a[1], a[2], a[3]);
    break;
  case 5:
    p->task(&gtid, &btid, a[0], a[1], a[2], a[3], a[4]);
    break;
  case 6:
    p->task(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5]);
    break;
  case 7:
    p->task(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    break;
  default:
    p->task(&gtid, &btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    break;
  }
}

/* A worker woken from its park on the CPU of the thread that issued the region (see
 * INFC_YIELD_POLLS) moves off it: its affinity without that CPU migrates it now, to a CPU the
 * scheduler picks, and its own set restored keeps it there. Only after a park, where the
 * placement happens, so a team larger than the CPUs does not migrate every region. */
static void leave_callers_cpu(infc__pool *p) {
  int cpu = sched_getcpu();
  cpu_set_t mine, elsewhere;
  if (cpu < 0 || cpu != atomic_load_explicit(&p->caller_cpu, memory_order_relaxed) ||
      sched_getaffinity(0, sizeof mine, &mine) != 0 || CPU_COUNT(&mine) < 2 ||
      !CPU_ISSET(cpu, &mine))
    return;
  elsewhere = mine;
  CPU_CLR(cpu, &elsewhere);
  if (sched_setaffinity(0, sizeof elsewhere, &elsewhere) == 0)
    sched_setaffinity(0, sizeof mine, &mine);
}

static void *worker_main(void *arg) {
  infc__pool *p = arg;
  pthread_mutex_lock(&p->lock);
  int32_t tid = 0;
  for (int32_t i = 0; i < p->size - 1; ++i)
    if (pthread_equal(p->workers[i], pthread_self()))
      tid = i + 1;
  /* Regions are numbered from 1; one issued before this thread started still waits for it
   * (pending counts every worker), so it must not be skipped. */
  uint64_t seen = 0;
  pthread_mutex_unlock(&p->lock);
  for (;;) {
    for (int i = 0; i < INFC_SPIN_POLLS && !atomic_load(&p->stop) &&
                    atomic_load_explicit(&p->generation, memory_order_acquire) == seen;
         ++i)
      spin_poll(i);
    if (atomic_load_explicit(&p->generation, memory_order_acquire) == seen &&
        !atomic_load(&p->stop)) {
      pthread_mutex_lock(&p->lock);
      while (!atomic_load(&p->stop) && atomic_load(&p->generation) == seen)
        pthread_cond_wait(&p->wake, &p->lock);
      pthread_mutex_unlock(&p->lock);
      leave_callers_cpu(p);
    }
    if (atomic_load(&p->stop))
      break;
    seen = atomic_load_explicit(&p->generation, memory_order_acquire);
    current_pool = p;
    current_tid = tid;
    in_parallel = 1;
    infc__profile *profile = p->profile;
    int64_t started = profile ? infc__profile_now() : 0;
    invoke(p, tid);
    /* Before `pending` drops: the caller is still in the region's kernel. */
    if (profile)
      infc__profile_worker(profile, tid, started, infc__profile_now());
    in_parallel = 0;
    if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel) == 1) {
      /* The caller may be blocked on `done`: signal under the lock it checks under. */
      pthread_mutex_lock(&p->lock);
      pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->lock);
    }
  }
  return NULL;
}

int32_t infc__default_threads(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    return n < 1 ? 1 : n > 64 ? 64 : n;
  }
  return 1;
}

infc__pool *infc__pool_create(int32_t size) {
  infc__pool *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->size = size < 1 ? 1 : size;
  if (pthread_mutex_init(&p->lock, NULL) || pthread_cond_init(&p->wake, NULL) ||
      pthread_cond_init(&p->done, NULL)) {
    free(p);
    return NULL;
  }
  if (p->size > 1) {
    p->workers = calloc((size_t)p->size - 1, sizeof *p->workers);
    if (!p->workers) {
      infc__pool_destroy(p);
      return NULL;
    }
    /* Workers look up their index under the lock, after every thread exists. */
    pthread_mutex_lock(&p->lock);
    for (int32_t i = 0; i < p->size - 1; ++i)
      if (pthread_create(&p->workers[i], NULL, worker_main, p)) {
        /* Run with the threads we got; nobody waits on the barrier yet. */
        p->size = i + 1;
        break;
      }
    pthread_mutex_unlock(&p->lock);
  }
  return p;
}

void infc__pool_destroy(infc__pool *p) {
  if (!p)
    return;
  if (p->workers) {
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int32_t i = 0; i < p->size - 1; ++i)
      pthread_join(p->workers[i], NULL);
    free(p->workers);
  }
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

void infc__pool_enter(infc__pool *p) {
  current_pool = p;
  current_tid = 0;
  in_parallel = 0;
}

void infc__pool_leave(void) { current_pool = NULL; }

void infc__pool_set_profile(infc__pool *p, infc__profile *profile) { p->profile = profile; }

/* ---- The OpenMP entry points the generated code calls ------------------------------------ */

int32_t __kmpc_global_thread_num(void *loc) {
  (void)loc;
  return current_tid;
}

void __kmpc_fork_call(void *loc, int32_t nargs, infc__microtask task, ...) {
  (void)loc;
  infc__pool *p = current_pool;
  va_list ap;
  va_start(ap, task);
  void *args[8] = {0};
  for (int32_t i = 0; i < nargs && i < 8; ++i)
    args[i] = va_arg(ap, void *);
  va_end(ap);
  if (!p || p->size == 1 || in_parallel) { /* serial: no pool, one thread, or nested */
    infc__pool serial = {.size = 1, .task = task, .nargs = nargs};
    for (int32_t i = 0; i < 8; ++i)
      serial.args[i] = args[i];
    infc__pool *saved = current_pool;
    int32_t saved_tid = current_tid, saved_in = in_parallel;
    current_pool = &serial;
    current_tid = 0;
    in_parallel = 1;
    invoke(&serial, 0);
    current_pool = saved;
    current_tid = saved_tid;
    in_parallel = saved_in;
    return;
  }
  /* Workers read the region only after seeing the new generation (release/acquire). */
  p->task = task;
  p->nargs = nargs;
  for (int32_t i = 0; i < 8; ++i)
    p->args[i] = args[i];
  atomic_store_explicit(&p->pending, p->size - 1, memory_order_relaxed);
  atomic_store_explicit(&p->caller_cpu, sched_getcpu(), memory_order_relaxed);
  pthread_mutex_lock(&p->lock);
  atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  in_parallel = 1;
  invoke(p, 0);
  in_parallel = 0;
  for (int i = 0;
       i < INFC_SPIN_POLLS && atomic_load_explicit(&p->pending, memory_order_acquire) != 0; ++i)
    spin_poll(i);
  if (atomic_load_explicit(&p->pending, memory_order_acquire) != 0) {
    pthread_mutex_lock(&p->lock);
    while (atomic_load_explicit(&p->pending, memory_order_acquire) != 0)
      pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
  }
}

int32_t infc__pool_size(const infc__pool *p) { return p->size; }

struct pool_job {
  void (*fn)(void *ctx, int32_t tid, int32_t team);
  void *ctx;
};

/* An infc__microtask itself (variadic, as invoke calls it), its one argument the job. */
static void pool_job_task(int32_t *gtid, int32_t *btid, ...) {
  (void)btid;
  va_list ap;
  va_start(ap, btid);
  struct pool_job *job = (struct pool_job *)va_arg(ap, void *);
  va_end(ap);
  job->fn(job->ctx, *gtid, current_pool && in_parallel ? current_pool->size : 1);
}

void infc__pool_parallel(void (*fn)(void *ctx, int32_t tid, int32_t team), void *ctx) {
  struct pool_job job = {fn, ctx};
  __kmpc_fork_call(NULL, 1, pool_job_task, (void *)&job);
}

/* Static schedule without chunks: thread t of T takes one contiguous block; blocks differ in
 * size by at most one iteration. Bounds are inclusive, as in libomp. */
#define STATIC_INIT(NAME, T, UT)                                                                   \
  void NAME(void *loc, int32_t gtid, int32_t sched, int32_t *plast, T *plower, T *pupper,          \
            T *pstride, T incr, T chunk) {                                                         \
    (void)loc, (void)sched, (void)chunk;                                                           \
    infc__pool *p = current_pool;                                                                  \
    int32_t team = p && in_parallel ? p->size : 1, tid = team > 1 ? gtid : 0;                      \
    T lower = *plower, upper = *pupper;                                                            \
    UT trips = incr > 0 ? (upper < lower ? 0 : ((UT)upper - (UT)lower) / (UT)incr + 1)             \
                        : (upper > lower ? 0 : ((UT)lower - (UT)upper) / ((UT)0 - (UT)incr) + 1);  \
    UT per = trips / (UT)team, extra = trips % (UT)team;                                           \
    UT first = (UT)tid * per + ((UT)tid < extra ? (UT)tid : extra);                                \
    UT count = per + ((UT)tid < extra ? 1 : 0);                                                    \
    if (count == 0) {                                                                              \
      *plower = upper + incr;                                                                      \
      *pupper = upper;                                                                             \
    } else {                                                                                       \
      *plower = lower + (T)first * incr;                                                           \
      *pupper = *plower + (T)(count - 1) * incr;                                                   \
    }                                                                                              \
    if (plast)                                                                                     \
      *plast = count && first + count == trips;                                                    \
    if (pstride)                                                                                   \
      *pstride = (T)trips * incr;                                                                  \
  }
STATIC_INIT(__kmpc_for_static_init_8u, uint64_t, uint64_t)
STATIC_INIT(__kmpc_for_static_init_8, int64_t, uint64_t)
STATIC_INIT(__kmpc_for_static_init_4u, uint32_t, uint32_t)
STATIC_INIT(__kmpc_for_static_init_4, int32_t, uint32_t)

void __kmpc_for_static_fini(void *loc, int32_t gtid) { (void)loc, (void)gtid; }

void __kmpc_barrier(void *loc, int32_t gtid) {
  (void)loc, (void)gtid;
  infc__pool *p = current_pool;
  if (!p || !in_parallel || p->size <= 1)
    return;
  int32_t sense = atomic_load_explicit(&p->barrier_sense, memory_order_relaxed);
  if (atomic_fetch_add_explicit(&p->barrier_count, 1, memory_order_acq_rel) == p->size - 1) {
    atomic_store_explicit(&p->barrier_count, 0, memory_order_relaxed);
    atomic_store_explicit(&p->barrier_sense, !sense, memory_order_release);
    return;
  }
  for (unsigned polls = 0; atomic_load_explicit(&p->barrier_sense, memory_order_acquire) == sense;
       ++polls) {
    if (polls < INFC_SPIN_POLLS)
      spin_poll((int)polls);
    else
      sched_yield();
  }
}

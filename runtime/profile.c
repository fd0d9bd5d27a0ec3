/* infc runtime — the profiler: a session's runs, kernels and workers as a chrome trace.
 *
 * A profiled session calls the model's profiled entry (infc-profile-entry), which brackets
 * each kernel with infc__prof_begin / infc__prof_end; the pool's workers time their share
 * of each parallel region (threads.c). Events go to one growing array per thread (no
 * locks: a lane has one writer) and to the JSON file when profiling ends. A session that
 * does not profile never reaches this file. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KERNEL_RUN (-1) /* the event of a whole run */
#define KERNEL_NONE                                                                                \
  (-2) /* a worker outside any named kernel (a model without a profiled entry)                     \
        */

typedef struct prof_event {
  int64_t start_ns, dur_ns;
  int32_t kernel; /* an index into the kernel_names of the run's variant, or KERNEL_* */
  uint32_t run;
  int32_t variant; /* the run's variant of a --specialize library, else -1 */
} prof_event;

typedef struct prof_lane {
  prof_event *events;
  size_t count, capacity;
} prof_lane;

struct infc__profile {
  char *path;
  const infc_model_desc *desc;
  int32_t num_lanes; /* the session's threads: lane 0 is the caller, lane t worker t */
  prof_lane *lanes;
  int64_t origin_ns;
  uint32_t runs;          /* started so far; the current run is runs - 1 */
  int32_t variant;        /* the current run's variant, or -1 */
  _Atomic int32_t kernel; /* the kernel the caller is in (workers name their events by it) */
  int64_t kernel_start_ns;
  _Atomic uint64_t dropped; /* events lost to a failed allocation */
};

/* The profile of the run in progress on this thread (the caller's), for the entry's calls. */
static _Thread_local infc__profile *active;

int64_t infc__profile_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void record(infc__profile *p, int32_t lane, int32_t kernel, int64_t start, int64_t end) {
  prof_lane *l = &p->lanes[lane];
  if (l->count == l->capacity) {
    size_t capacity = l->capacity ? 2 * l->capacity : 1024;
    prof_event *grown = realloc(l->events, capacity * sizeof *grown);
    if (!grown) {
      atomic_fetch_add_explicit(&p->dropped, 1, memory_order_relaxed);
      return;
    }
    l->events = grown;
    l->capacity = capacity;
  }
  l->events[l->count++] = (prof_event){start, end - start, kernel, p->runs - 1, p->variant};
}

infc__profile *infc__profile_create(const infc_model_desc *desc, const char *path,
                                    int32_t num_threads) {
  infc__profile *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->desc = desc;
  p->num_lanes = num_threads < 1 ? 1 : num_threads;
  p->lanes = calloc((size_t)p->num_lanes, sizeof *p->lanes);
  p->path = malloc(strlen(path) + 1);
  if (!p->lanes || !p->path) {
    infc__profile_destroy(p);
    return NULL;
  }
  strcpy(p->path, path);
  atomic_init(&p->kernel, KERNEL_NONE);
  p->variant = -1;
  p->origin_ns = infc__profile_now();
  return p;
}

void infc__profile_destroy(infc__profile *p) {
  if (!p)
    return;
  if (p->lanes)
    for (int32_t i = 0; i < p->num_lanes; ++i)
      free(p->lanes[i].events);
  free(p->lanes);
  free(p->path);
  free(p);
}

const char *infc__profile_path(const infc__profile *p) { return p->path; }

int64_t infc__profile_run_begin(infc__profile *p, int32_t variant) {
  ++p->runs;
  p->variant = variant;
  active = p;
  return infc__profile_now();
}

void infc__profile_run_end(infc__profile *p, int64_t start_ns) {
  record(p, 0, KERNEL_RUN, start_ns, infc__profile_now());
  atomic_store_explicit(&p->kernel, KERNEL_NONE, memory_order_relaxed);
  active = NULL;
}

void infc__profile_worker(infc__profile *p, int32_t lane, int64_t start_ns, int64_t end_ns) {
  if (lane > 0 && lane < p->num_lanes)
    record(p, lane, atomic_load_explicit(&p->kernel, memory_order_relaxed), start_ns, end_ns);
}

/* Called by the profiled entry (declared by infc-profile-entry); kernels never nest. */
void infc__prof_begin(int32_t kernel) {
  infc__profile *p = active;
  if (!p)
    return;
  /* Published before the kernel's first region: the region's release orders it. */
  atomic_store_explicit(&p->kernel, kernel, memory_order_relaxed);
  p->kernel_start_ns = infc__profile_now();
}

void infc__prof_end(int32_t kernel) {
  infc__profile *p = active;
  if (!p)
    return;
  record(p, 0, kernel, p->kernel_start_ns, infc__profile_now());
  atomic_store_explicit(&p->kernel, KERNEL_NONE, memory_order_relaxed);
}

/* ---- Writing the trace ------------------------------------------------------------------ */

/* The length of the well-formed UTF-8 sequence at c (1-4), or 0. */
static int utf8_length(const unsigned char *c) {
  int n = *c < 0x80 ? 1 : (*c >> 5) == 0x6 ? 2 : (*c >> 4) == 0xE ? 3 : (*c >> 3) == 0x1E ? 4 : 0;
  for (int i = 1; i < n; ++i)
    if ((c[i] >> 6) != 0x2)
      return 0;
  /* Overlong forms, UTF-16 surrogates and code points above U+10FFFF are not UTF-8. */
  if ((n == 2 && *c < 0xC2) || (n == 3 && *c == 0xE0 && c[1] < 0xA0) ||
      (n == 3 && *c == 0xED && c[1] >= 0xA0) || (n == 4 && *c == 0xF0 && c[1] < 0x90) ||
      (n == 4 && (*c > 0xF4 || (*c == 0xF4 && c[1] >= 0x90))))
    return 0;
  return n;
}

/* A JSON string: quotes and controls escaped, bytes that are not UTF-8 (ONNX does not check
 * its names) as U+FFFD, so every JSON reader takes the trace. */
static void write_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)s; *c;) {
    int n = utf8_length(c);
    if (*c == '"' || *c == '\\')
      fprintf(f, "\\%c", *c);
    else if (*c < 0x20)
      fprintf(f, "\\u%04x", *c);
    else if (n == 0)
      fputs("\\ufffd", f);
    else
      fwrite(c, 1, (size_t)n, f);
    c += n ? n : 1;
  }
  fputc('"', f);
}

/* Nanoseconds as microseconds with three decimals, in digits only: %f would follow the
 * host's LC_NUMERIC (a decimal comma is not JSON). */
static void write_us(FILE *f, int64_t ns) {
  if (ns < 0) {
    fputc('-', f);
    ns = -ns;
  }
  fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

static const char *kernel_name(const infc__profile *p, const prof_event *e) {
  const infc_model_desc *d = p->desc;
  if (e->kernel == KERNEL_RUN)
    return "run";
  uint32_t count = e->variant >= 0 ? d->variants[e->variant].num_kernels : d->num_kernels;
  const char *const *names =
      e->variant >= 0 ? d->variants[e->variant].kernel_names : d->kernel_names;
  if (e->kernel >= 0 && (uint32_t)e->kernel < count)
    return names[e->kernel];
  return "parallel region";
}

int infc__profile_write(const infc__profile *p, char *error, size_t size) {
  /* Written beside the target and renamed over it: never a half-written trace. The name is
   * the process's and the write's own, created exclusively (two sessions may write one
   * path at once; a name planted in a shared directory is not followed). */
  static atomic_uint writes;
  size_t n = strlen(p->path) + 48;
  char *tmp = malloc(n);
  if (!tmp) {
    snprintf(error, size, "out of memory");
    return -1;
  }
  snprintf(tmp, n, "%s.%ld.%u.tmp", p->path, (long)getpid(), atomic_fetch_add(&writes, 1u));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    snprintf(error, size, "cannot write the trace '%s': %s", p->path, strerror(errno));
    if (fd >= 0) {
      close(fd);
      remove(tmp);
    }
    free(tmp);
    return -1;
  }
  long pid = (long)getpid();
  fprintf(f,
          "{\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%ld,\"tid\":0,"
          "\"args\":{\"name\":",
          pid);
  write_json_string(f, p->desc->model_name ? p->desc->model_name : "infc");
  fprintf(f, "}}");
  for (int32_t t = 0; t < p->num_lanes; ++t)
    fprintf(f,
            ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%ld,\"tid\":%d,\"args\":{\"name\":"
            "\"%s %d\"}}",
            pid, (int)t, t ? "infc worker" : "infc caller", (int)t);
  for (int32_t t = 0; t < p->num_lanes; ++t) {
    const prof_lane *l = &p->lanes[t];
    for (size_t i = 0; i < l->count; ++i) {
      const prof_event *e = &l->events[i];
      const char *cat = e->kernel == KERNEL_RUN ? "run" : t ? "worker" : "kernel";
      fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", cat);
      write_json_string(f, kernel_name(p, e));
      fprintf(f, ",\"pid\":%ld,\"tid\":%d,\"ts\":", pid, (int)t);
      write_us(f, e->start_ns - p->origin_ns);
      fprintf(f, ",\"dur\":");
      write_us(f, e->dur_ns);
      fprintf(f, ",\"args\":{\"run\":%u", e->run);
      if (e->kernel >= 0)
        fprintf(f, ",\"kernel\":%d", (int)e->kernel);
      if (e->variant >= 0) {
        fprintf(f, ",\"variant\":");
        write_json_string(f, p->desc->variants[e->variant].label);
      }
      fprintf(f, "}}");
    }
  }
  fprintf(f, "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"model\":");
  write_json_string(f, p->desc->model_name ? p->desc->model_name : "");
  fprintf(f, ",\"threads\":%d,\"runs\":%u,\"events\":\"%s\",\"dropped_events\":%llu}}\n",
          (int)p->num_lanes, p->runs,
          p->desc->profiled_entry ? "kernels"
                                  : "runs only (compiled without infc compile --profile)",
          (unsigned long long)atomic_load(&p->dropped));
  int failed = ferror(f);
  if (fclose(f) != 0)
    failed = 1;
  if (failed || rename(tmp, p->path) != 0) {
    snprintf(error, size, "cannot write the trace '%s': %s", p->path,
             strerror(errno ? errno : EIO));
    remove(tmp);
    free(tmp);
    return -1;
  }
  free(tmp);
  return 0;
}

/* A stand-in for the CUDA driver (libcuda.so.1), for testing what a --target cuda model.so
 * does on the host without a GPU: loading the driver, device memory, the weights upload,
 * copies, module loading and kernel launches. Kernels do not run: a launch is only logged.
 * Device memory is host memory.
 *
 * The runtime opens it through INFC_CUDA_DRIVER=<path of this library>. Environment:
 *   MOCK_CUDA_LOG=FILE          append one line per call ("htod BYTES", "launch NAME gx gy gz
 *                               bx by bz", "load BYTES", "alloc BYTES", ...)
 *   MOCK_CUDA_NO_DEVICE=1       cuInit fails with CUDA_ERROR_NO_DEVICE
 *   MOCK_CUDA_FAIL_LAUNCH=N     the Nth kernel run in this process fails (700, illegal
 *                               address); a launch captured into a graph runs at each replay
 *   MOCK_CUDA_DUMP=FILE         write the image passed to cuModuleLoadData */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
#define EXPORT __attribute__((visibility("default")))

static int launches; /* kernels run (directly, or replayed from a graph) */

/* A graph: the launches captured on the stream, replayed (logged) at each cuGraphLaunch. */
#define MAX_CAPTURED 4096
static struct launch {
  const char *name;
  unsigned dims[6];
} captured[MAX_CAPTURED];
static int num_captured, capturing;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void logf_(const char *fmt, ...) {
  const char *path = getenv("MOCK_CUDA_LOG");
  if (!path)
    return;
  FILE *f = fopen(path, "a");
  if (!f)
    return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fclose(f);
}

/* A fatbin starts with this magic (0xBA55ED50, little-endian). */
static int is_fatbin(const void *image) {
  uint32_t magic;
  memcpy(&magic, image, sizeof magic);
  return magic == 0xBA55ED50u;
}

EXPORT CUresult cuInit(unsigned flags) {
  (void)flags;
  if (getenv("MOCK_CUDA_NO_DEVICE"))
    return 100; /* CUDA_ERROR_NO_DEVICE */
  logf_("init");
  return 0;
}
EXPORT CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
EXPORT CUresult cuDeviceGet(int *d, int ordinal) { *d = ordinal; return 0; }
static int context;
EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  (void)dev;
  *ctx = &context;
  return 0;
}
EXPORT CUresult cuCtxPushCurrent_v2(void *ctx) { return ctx == &context ? 0 : 201; }
EXPORT CUresult cuCtxPopCurrent_v2(void **ctx) { *ctx = &context; return 0; }
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  void *m = calloc(1, bytes);
  if (!m)
    return 2;
  *p = (CUdeviceptr)(uintptr_t)m;
  logf_("alloc %zu", bytes);
  return 0;
}
EXPORT CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void *)(uintptr_t)p);
  logf_("free");
  return 0;
}
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *s) {
  (void)s;
  memcpy((void *)(uintptr_t)dst, src, n);
  logf_("htod %zu", n);
  return 0;
}
EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *s) {
  (void)s;
  memcpy(dst, (const void *)(uintptr_t)src, n);
  logf_("dtoh %zu", n);
  return 0;
}
EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) {
  (void)s;
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  logf_("dtod %zu", n);
  return 0;
}
static int stream;
EXPORT CUresult cuStreamCreate(void **s, unsigned flags) {
  (void)flags;
  *s = &stream;
  logf_("stream");
  return 0;
}
EXPORT CUresult cuStreamDestroy_v2(void *s) { return s == &stream ? 0 : 400; }
EXPORT CUresult cuStreamSynchronize(void *s) {
  logf_("sync");
  return s == &stream ? 0 : 400;
}
EXPORT CUresult cuModuleLoadData(void **module, const void *image) {
  if ((uintptr_t)image % 8 || !is_fatbin(image)) /* the driver reads the header as words */
    return 200; /* CUDA_ERROR_INVALID_IMAGE */
  /* The fatbin header: magic (u32), version (u16), header size (u16), payload size (u64). */
  uint16_t header;
  uint64_t payload;
  memcpy(&header, (const char *)image + 6, 2);
  memcpy(&payload, (const char *)image + 8, 8);
  logf_("load %llu", (unsigned long long)(header + payload));
  const char *dump = getenv("MOCK_CUDA_DUMP");
  if (dump) {
    FILE *f = fopen(dump, "wb");
    if (f) {
      fwrite(image, 1, header + payload, f);
      fclose(f);
    }
  }
  /* An allocation, so a leak checker reports a module the runtime never unloads. */
  *module = malloc(1);
  return *module ? 0 : 2;
}
EXPORT CUresult cuModuleUnload(void *module) {
  if (!module)
    return 400; /* CUDA_ERROR_INVALID_HANDLE */
  free(module);
  logf_("unload");
  return 0;
}
EXPORT CUresult cuModuleGetFunction(void **f, void *module, const char *name) {
  if (!module || !name || !*name)
    return 500; /* CUDA_ERROR_NOT_FOUND */
  /* The mock's function handle is its name, kept (reachable) for the process's life: the
   * runtime's functions live as long as their module. */
  static char *names[4096];
  static int count;
  char *handle = NULL;
  for (int i = 0; i < count && !handle; ++i)
    if (!strcmp(names[i], name))
      handle = names[i];
  if (!handle) {
    handle = strdup(name);
    if (handle && count < (int)(sizeof names / sizeof *names))
      names[count++] = handle;
  }
  *f = handle;
  logf_("function %s", name);
  return 0;
}
/* "Runs" a kernel: logs it, or fails it when it is the one MOCK_CUDA_FAIL_LAUNCH names. */
static CUresult run_kernel(const struct launch *l) {
  ++launches;
  const char *fail = getenv("MOCK_CUDA_FAIL_LAUNCH");
  if (fail && atoi(fail) == launches)
    return 700; /* CUDA_ERROR_ILLEGAL_ADDRESS */
  logf_("launch %s %u %u %u %u %u %u", l->name, l->dims[0], l->dims[1], l->dims[2],
        l->dims[3], l->dims[4], l->dims[5]);
  return 0;
}

EXPORT CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned smem, void *s,
                               void **params, void **extra) {
  (void)smem;
  (void)extra;
  if (s != &stream || !params || !gx || !gy || !gz || !bx || !by || !bz ||
      (unsigned long long)bx * by * bz > 1024)
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  struct launch l = {(const char *)f, {gx, gy, gz, bx, by, bz}};
  if (capturing) {
    if (num_captured == MAX_CAPTURED)
      return 2;
    captured[num_captured++] = l;
    return 0;
  }
  return run_kernel(&l);
}

static int graph, graph_exec;
EXPORT CUresult cuStreamBeginCapture_v2(void *s, int mode) {
  if (s != &stream || capturing)
    return 1;
  logf_("capture-begin %d", mode);
  capturing = 1;
  num_captured = 0;
  return 0;
}
EXPORT CUresult cuStreamEndCapture(void *s, void **g) {
  if (s != &stream || !capturing)
    return 1;
  capturing = 0;
  logf_("capture-end %d", num_captured);
  *g = &graph;
  return 0;
}
EXPORT CUresult cuGraphInstantiateWithFlags(void **exec, void *g, unsigned long long flags) {
  (void)flags;
  if (g != &graph)
    return 1;
  *exec = &graph_exec;
  return 0;
}
EXPORT CUresult cuGraphLaunch(void *exec, void *s) {
  if (exec != &graph_exec || s != &stream)
    return 1;
  logf_("graph-launch");
  for (int i = 0; i < num_captured; ++i)
    if (run_kernel(&captured[i]))
      return 700;
  return 0;
}
EXPORT CUresult cuGraphExecDestroy(void *exec) { return exec == &graph_exec ? 0 : 1; }
EXPORT CUresult cuGraphDestroy(void *g) { return g == &graph ? 0 : 1; }
EXPORT CUresult cuGetErrorString(CUresult r, const char **s) {
  switch (r) {
  case 100: *s = "no CUDA-capable device is detected"; break;
  case 700: *s = "an illegal memory access was encountered"; break;
  default: *s = "mock CUDA error"; break;
  }
  return 0;
}

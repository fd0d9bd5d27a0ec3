/* A stand-in for the CUDA driver (libcuda.so.1), for testing what a --target cuda model.so
 * does on the host without a GPU: loading the driver, device memory, the weights upload,
 * copies, module loading and kernel launches. Kernels do not run: a launch is only logged.
 * Device memory is host memory.
 *
 * What a real driver would refuse, it refuses: an image that is not a fatbin holding a
 * cubin, a function the cubin does not define, and a launch whose parameters are not what
 * the kernel takes. The cubin's .nv.info.<kernel> sections list each kernel's parameters
 * (EIATTR_KPARAM_INFO: ordinal, offset, size). The check assumes bare pointers, as infc's
 * kernels take them whenever their buffers are static (every model the tests build): each
 * 8-byte parameter must point into a live cuMemAlloc allocation, 16 bytes aligned within
 * it (the kernels' vector accesses need that on a GPU, and the emulator cannot see where a
 * buffer starts). Sizes and strides where pointers belong fail with
 * CUDA_ERROR_INVALID_VALUE and log "bad-param KERNEL ORDINAL VALUE" (a model with
 * descriptor kernels, or 64-bit scalar arguments, would need the check taught which
 * parameters are pointers). A launch that passes fewer values than the kernel lists makes
 * the mock read past the caller's array, as the driver would: it fails or crashes, either
 * way a failed test. A block of more threads than the kernel's .maxntid
 * (EIATTR_MAX_THREADS) is refused too ("bad-block ...").
 *
 * The runtime opens it through INFC_CUDA_DRIVER=<path of this library>. Environment:
 *   MOCK_CUDA_LOG=FILE          append one line per call ("htod BYTES", "launch NAME gx gy gz
 *                               bx by bz", "load BYTES", "alloc BYTES ADDRESS", ...)
 *   MOCK_CUDA_NO_DEVICE=1       cuInit fails with CUDA_ERROR_NO_DEVICE
 *   MOCK_CUDA_FAIL_LAUNCH=N     the Nth kernel run in this process fails (700, illegal
 *                               address); a launch captured into a graph runs at each replay
 *   MOCK_CUDA_DUMP=FILE         write the image passed to cuModuleLoadData
 *   MOCK_CUDA_FAIL_CAPTURE=1    cuStreamBeginCapture fails (900, not permitted)
 *   MOCK_CUDA_FAIL_RETAIN=N     the first N cuDevicePrimaryCtxRetain calls fail (46, busy)
 *   MOCK_CUDA_FAIL_SET_PARAMS=N the Nth cuGraphExecKernelNodeSetParams call fails (801)
 *   MOCK_CUDA_LOG_ARGS=1        a graph replay's "launch" lines end with the kernel's 8-byte
 *                               parameters (as cuGraphExecKernelNodeSetParams left them)
 *   MOCK_CUDA_KERNELS=FILE      run the kernels: FILE is a host build of the model's
 *                               --emit=cuda source (model.cu with cuda_emulation.h), whose
 *                               infc_emulate_launch runs a launch on this thread; a kernel
 *                               the library lacks is not found, one that fails fails the
 *                               launch (700) and logs "emulation-failed NAME: why" */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
#define EXPORT __attribute__((visibility("default")))

static int launches; /* kernels run (directly, or replayed from a graph) */

/* Live allocations, for checking that a launch's pointers point into one. */
static struct allocation {
  uintptr_t base;
  size_t bytes;
} *allocations;
static size_t num_allocations, max_allocations;

static int add_allocation(uintptr_t base, size_t bytes) {
  if (num_allocations == max_allocations) {
    size_t grown = max_allocations ? 2 * max_allocations : 256;
    struct allocation *more = realloc(allocations, grown * sizeof *more);
    if (!more)
      return -1;
    allocations = more;
    max_allocations = grown;
  }
  allocations[num_allocations++] = (struct allocation){base, bytes};
  return 0;
}
static void remove_allocation(uintptr_t base) {
  for (size_t i = 0; i < num_allocations; ++i)
    if (allocations[i].base == base) {
      allocations[i] = allocations[--num_allocations];
      return;
    }
}
/* Whether `p` points into (or just past the end of) a live allocation at a multiple of 16
 * bytes from its start. cuMemAlloc's allocations start 256-byte aligned and the kernels'
 * widest loads and stores are 16 bytes; the memory plan's views and the weights' offsets
 * keep that (a caller's misaligned device input is copied by the runtime first). */
static const struct allocation *allocation_of(uint64_t p, int or_just_past) {
  for (size_t i = 0; i < num_allocations; ++i)
    if (p >= allocations[i].base &&
        p - allocations[i].base < allocations[i].bytes + (or_just_past ? 1 : 0))
      return &allocations[i];
  return NULL;
}
static int is_aligned_device_pointer(uint64_t p) {
  const struct allocation *a = allocation_of(p, 1);
  return a && (p - a->base) % 16 == 0;
}

/* A kernel of a loaded cubin: its name and its parameters' sizes by ordinal. A function
 * handle points at one; a module (a malloc'd struct module) owns them. */
struct kernel {
  char *name;
  int num_params;
  uint16_t *param_bytes;
  unsigned max_threads; /* .maxntid's product (EIATTR_MAX_THREADS); 0: not declared */
  void *host;           /* MOCK_CUDA_KERNELS: the kernel's host build */
};
struct module {
  struct kernel *kernels;
  int num_kernels, max_kernels;
};

static struct kernel *find_kernel(struct module *m, const char *name) {
  for (int i = 0; i < m->num_kernels; ++i)
    if (!strcmp(m->kernels[i].name, name))
      return &m->kernels[i];
  return NULL;
}
static struct kernel *add_kernel(struct module *m, const char *name) {
  struct kernel *k = find_kernel(m, name);
  if (k)
    return k;
  if (m->num_kernels == m->max_kernels) {
    int grown = m->max_kernels ? 2 * m->max_kernels : 64;
    struct kernel *more = realloc(m->kernels, grown * sizeof *more);
    if (!more)
      return NULL;
    m->kernels = more;
    m->max_kernels = grown;
  }
  k = &m->kernels[m->num_kernels];
  *k = (struct kernel){strdup(name), 0, NULL, 0, NULL};
  if (!k->name)
    return NULL;
  ++m->num_kernels;
  return k;
}
static void free_module(struct module *m) {
  for (int i = 0; i < m->num_kernels; ++i) {
    free(m->kernels[i].name);
    free(m->kernels[i].param_bytes);
  }
  free(m->kernels);
  free(m);
}
static int set_param(struct kernel *k, int ordinal, uint16_t bytes) {
  if (ordinal >= k->num_params) {
    uint16_t *more = realloc(k->param_bytes, (ordinal + 1) * sizeof *more);
    if (!more)
      return -1;
    memset(more + k->num_params, 0, (ordinal + 1 - k->num_params) * sizeof *more);
    k->param_bytes = more;
    k->num_params = ordinal + 1;
  }
  k->param_bytes[ordinal] = bytes;
  return 0;
}

static uint16_t u16_at(const unsigned char *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}
static uint32_t u32_at(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint64_t u64_at(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* The first cubin (an ELF image, kind 2) of a fatbin, or NULL. Each entry: kind (u16),
 * version (u16), header size (u32), payload size (u64), ... then the payload. */
static const unsigned char *first_cubin(const unsigned char *fatbin, uint64_t *bytes) {
  const unsigned char *p = fatbin + u16_at(fatbin + 6);
  const unsigned char *end = p + u64_at(fatbin + 8);
  while (end - p >= 16) {
    uint64_t left = (uint64_t)(end - p), header = u32_at(p + 4), payload = u64_at(p + 8);
    if (header < 16 || header > left || payload > left - header)
      return NULL; /* a malformed entry: nothing past it can be trusted */
    if (u16_at(p) == 2 && payload >= 4 &&
        !memcmp(p + header,
                "\x7f"
                "ELF",
                4)) {
      *bytes = payload;
      return p + header;
    }
    p += header + payload;
  }
  return NULL;
}

/* Records the kernels of an ELF64 cubin: each .text.<kernel> section, and the parameters
 * its .nv.info.<kernel> section lists. -1 when the image cannot be read. */
static int read_kernels(struct module *m, const unsigned char *elf, uint64_t bytes) {
  if (bytes < 64 || elf[4] != 2 /* ELFCLASS64 */)
    return -1;
  uint64_t shoff = u64_at(elf + 0x28);
  uint16_t shentsize = u16_at(elf + 0x3a), shnum = u16_at(elf + 0x3c),
           shstrndx = u16_at(elf + 0x3e);
  /* Sizes compared as "a > bytes || b > bytes - a": no sum that could wrap. */
  if (shentsize < 64 || shstrndx >= shnum || shoff > bytes ||
      (uint64_t)shnum * shentsize > bytes - shoff)
    return -1;
  const unsigned char *strings = elf + shoff + (uint64_t)shstrndx * shentsize;
  uint64_t strings_at = u64_at(strings + 0x18), strings_bytes = u64_at(strings + 0x20);
  if (strings_at > bytes || strings_bytes > bytes - strings_at)
    return -1;
  for (uint16_t i = 0; i < shnum; ++i) {
    const unsigned char *section = elf + shoff + (uint64_t)i * shentsize;
    uint32_t name_at = u32_at(section);
    uint64_t at = u64_at(section + 0x18), size = u64_at(section + 0x20);
    if (name_at >= strings_bytes || !memchr(elf + strings_at + name_at, 0, strings_bytes - name_at))
      continue;
    const char *name = (const char *)elf + strings_at + name_at;
    if (!strncmp(name, ".text.", 6) && name[6]) {
      if (!add_kernel(m, name + 6))
        return -1;
      continue;
    }
    if (strncmp(name, ".nv.info.", 9) || !name[9] || at > bytes || size > bytes - at)
      continue;
    struct kernel *k = add_kernel(m, name + 9);
    if (!k)
      return -1;
    /* Attributes: format (u8), attribute (u8), then a u16 value, or for format 4
     * (EIFMT_SVAL) a u16 size and that many bytes. */
    for (uint64_t p = 0; p + 4 <= size;) {
      const unsigned char *a = elf + at + p;
      uint64_t value_bytes = a[0] == 4 ? u16_at(a + 2) : 0;
      if (p + 4 + value_bytes > size)
        break;
      if (a[0] == 4 && a[1] == 0x17 /* EIATTR_KPARAM_INFO */ && value_bytes >= 12 &&
          set_param(k, u16_at(a + 8), (uint16_t)((u32_at(a + 12) >> 18) & 0x3fff)))
        return -1;
      if (a[0] == 4 && a[1] == 0x05 /* EIATTR_MAX_THREADS: .maxntid x, y, z */ && value_bytes >= 12)
        k->max_threads = u32_at(a + 4) * u32_at(a + 8) * u32_at(a + 12);
      p += 4 + value_bytes;
    }
  }
  return 0;
}

/* A graph: the launches captured on the stream, replayed (logged) at each cuGraphLaunch.
 * A captured launch is a kernel node: its parameter values are copied at capture, as the
 * driver copies them, and cuGraphExecKernelNodeSetParams replaces them. */
#define MAX_CAPTURED 4096
#define MAX_PARAM_BYTES 4096 /* CUDA's limit on a kernel's parameters */
static struct launch {
  const char *name;
  unsigned dims[6];
  const struct kernel *k;
  unsigned char values[MAX_PARAM_BYTES]; /* the parameters, one after the other */
  void *pointers[MAX_PARAM_BYTES / 4];   /* the address of each in values */
} captured[MAX_CAPTURED];
static int num_captured, capturing;

/* Copies the parameters `params` of kernel `k` into `l` (0 if they fit). */
static int copy_params(struct launch *l, const struct kernel *k, void *const *params) {
  size_t at = 0;
  for (int i = 0; i < k->num_params; ++i) {
    if (at + k->param_bytes[i] > sizeof l->values ||
        (size_t)i >= sizeof l->pointers / sizeof *l->pointers)
      return -1;
    memmove(l->values + at, params[i], k->param_bytes[i]); /* params may be l->pointers */
    l->pointers[i] = l->values + at;
    at += k->param_bytes[i];
  }
  return 0;
}

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
EXPORT CUresult cuDeviceGetCount(int *n) {
  *n = 1;
  return 0;
}
EXPORT CUresult cuDeviceGet(int *d, int ordinal) {
  *d = ordinal;
  return 0;
}
static int context;
static int retains_failed;
EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  (void)dev;
  const char *fail = getenv("MOCK_CUDA_FAIL_RETAIN");
  if (fail && retains_failed < atoi(fail)) {
    ++retains_failed;
    return 46; /* CUDA_ERROR_DEVICE_UNAVAILABLE */
  }
  logf_("retain");
  *ctx = &context;
  return 0;
}
EXPORT CUresult cuCtxPushCurrent_v2(void *ctx) { return ctx == &context ? 0 : 201; }
EXPORT CUresult cuCtxPopCurrent_v2(void **ctx) {
  *ctx = &context;
  return 0;
}
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  void *m = calloc(1, bytes);
  if (!m)
    return 2;
  if (add_allocation((uintptr_t)m, bytes)) {
    free(m);
    return 2;
  }
  *p = (CUdeviceptr)(uintptr_t)m;
  logf_("alloc %zu %#llx", bytes, (unsigned long long)*p);
  return 0;
}
EXPORT CUresult cuMemFree_v2(CUdeviceptr p) {
  remove_allocation((uintptr_t)p);
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
    return 200;                                  /* CUDA_ERROR_INVALID_IMAGE */
  /* The fatbin header: magic (u32), version (u16), header size (u16), payload size (u64). */
  uint16_t header = u16_at((const unsigned char *)image + 6);
  uint64_t payload = u64_at((const unsigned char *)image + 8);
  logf_("load %llu", (unsigned long long)(header + payload));
  const char *dump = getenv("MOCK_CUDA_DUMP");
  if (dump) {
    FILE *f = fopen(dump, "wb");
    if (f) {
      fwrite(image, 1, header + payload, f);
      fclose(f);
    }
  }
  /* An allocation (so a leak checker reports a module the runtime never unloads) holding
   * the cubin's kernels. */
  struct module *m = calloc(1, sizeof *m);
  if (!m)
    return 2;
  uint64_t cubin_bytes = 0;
  const unsigned char *cubin = first_cubin(image, &cubin_bytes);
  if (!cubin || read_kernels(m, cubin, cubin_bytes)) {
    logf_("no readable cubin");
    free_module(m);
    return 200; /* CUDA_ERROR_INVALID_IMAGE */
  }
  *module = m;
  return 0;
}
EXPORT CUresult cuModuleUnload(void *module) {
  if (!module)
    return 400; /* CUDA_ERROR_INVALID_HANDLE */
  free_module(module);
  logf_("unload");
  return 0;
}
/* MOCK_CUDA_KERNELS's library (opened once), or NULL. */
static void *emulated_kernels(void) {
  static void *library;
  const char *path = getenv("MOCK_CUDA_KERNELS");
  if (!library && path && !(library = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
    logf_("emulation-failed %s: %s", path, dlerror());
  return library;
}
EXPORT CUresult cuModuleGetFunction(void **f, void *module, const char *name) {
  struct kernel *k = module && name ? find_kernel(module, name) : NULL;
  if (!k)
    return 500; /* CUDA_ERROR_NOT_FOUND: the cubin defines no such kernel */
  if (getenv("MOCK_CUDA_KERNELS") &&
      !(k->host = emulated_kernels() ? dlsym(emulated_kernels(), name) : NULL)) {
    logf_("emulation-failed %s: not in the kernels' host build", name);
    return 500;
  }
  /* The function handle is the module's kernel: it lives as long as its module. */
  *f = k;
  logf_("function %s", name);
  return 0;
}
/* Whether kernel `k`'s parameters `params` are what it takes: every 8-byte one a pointer
 * into a live allocation, 16 bytes aligned within it. */
static int params_ok(const struct kernel *k, void *const *params) {
  for (int i = 0; i < k->num_params; ++i) {
    uint64_t value = 0;
    if (k->param_bytes[i] == 8 && params[i])
      memcpy(&value, params[i], 8);
    if (!params[i] || (k->param_bytes[i] == 8 && !is_aligned_device_pointer(value))) {
      logf_("bad-param %s %d %#llx", k->name, i, (unsigned long long)value);
      return 0;
    }
  }
  return 1;
}

/* "Runs" a kernel: logs it ("launch NAME gx gy gz bx by bz", and with MOCK_CUDA_LOG_ARGS a
 * graph node's 8-byte parameters after it: a replay's pointers), or fails it when it is the
 * one MOCK_CUDA_FAIL_LAUNCH names. */
static CUresult run_kernel(const struct launch *l) {
  ++launches;
  const char *fail = getenv("MOCK_CUDA_FAIL_LAUNCH");
  if (fail && atoi(fail) == launches)
    return 700; /* CUDA_ERROR_ILLEGAL_ADDRESS */
  char args[2048] = "";
  size_t used = 0;
  if (l->k && getenv("MOCK_CUDA_LOG_ARGS"))
    for (int i = 0; i < l->k->num_params && used + 20 < sizeof args; ++i)
      if (l->k->param_bytes[i] == 8) {
        uint64_t value;
        memcpy(&value, l->pointers[i], 8);
        used +=
            (size_t)snprintf(args + used, sizeof args - used, " %#llx", (unsigned long long)value);
      }
  logf_("launch %s %u %u %u %u %u %u%s", l->name, l->dims[0], l->dims[1], l->dims[2], l->dims[3],
        l->dims[4], l->dims[5], args);
  if (l->k && l->k->host) {
    typedef int (*launch_fn)(void *, int, void *const *, const unsigned *, const unsigned *, char *,
                             size_t);
    static launch_fn found; /* looked up once: the library stays open */
    if (!found)
      found = (launch_fn)dlsym(emulated_kernels(), "infc_emulate_launch");
    launch_fn launch = found;
    char why[600] = "the kernels' host build has no infc_emulate_launch";
    for (int i = 0; i < l->k->num_params; ++i)
      if (l->k->param_bytes[i] != 8)
        launch = NULL, snprintf(why, sizeof why, "parameter %d is not a pointer", i);
    if (!launch ||
        launch(l->k->host, l->k->num_params, l->pointers, l->dims, l->dims + 3, why, sizeof why)) {
      logf_("emulation-failed %s: %s", l->name, why);
      return 700;
    }
  }
  return 0;
}

EXPORT CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned smem, void *s, void **params,
                               void **extra) {
  (void)smem;
  (void)extra;
  if (s != &stream || !params || !gx || !gy || !gz || !bx || !by || !bz ||
      (unsigned long long)bx * by * bz > 1024)
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  /* The parameters, as the driver copies them: by the kernel's list (at capture too). */
  const struct kernel *k = f;
  if (!k)
    return 400; /* CUDA_ERROR_INVALID_HANDLE */
  /* More threads than the kernel's .maxntid: the driver refuses the launch. */
  if (k->max_threads && (unsigned long long)bx * by * bz > k->max_threads) {
    logf_("bad-block %s %u %u %u > %u", k->name, bx, by, bz, k->max_threads);
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  }
  if (!params_ok(k, params))
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  if (capturing) {
    if (num_captured == MAX_CAPTURED)
      return 2;
    struct launch *l = &captured[num_captured++];
    *l = (struct launch){.name = k->name, .dims = {gx, gy, gz, bx, by, bz}, .k = k};
    return copy_params(l, k, params) ? 1 : 0;
  }
  static struct launch l; /* (12 KB: not on the caller's stack) */
  l = (struct launch){.name = k->name, .dims = {gx, gy, gz, bx, by, bz}, .k = k};
  return copy_params(&l, k, params) ? 1 : run_kernel(&l);
}

static int graph, graph_exec;
EXPORT CUresult cuStreamBeginCapture_v2(void *s, int mode) {
  if (s != &stream || capturing)
    return 1;
  if (getenv("MOCK_CUDA_FAIL_CAPTURE"))
    return 900; /* CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED */
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
EXPORT CUresult cuStreamIsCapturing(void *s, int *status) {
  if (s != &stream)
    return 400;
  *status = capturing; /* CU_STREAM_CAPTURE_STATUS_NONE or _ACTIVE */
  return 0;
}
/* Device memory (CU_MEMORYTYPE_DEVICE, device 0) inside a live allocation, whose range it
 * gives; anything else unknown: every attribute zero, as the driver answers. */
EXPORT CUresult cuPointerGetAttributes(unsigned n, const int *attributes, void **data,
                                       CUdeviceptr p) {
  const struct allocation *a = allocation_of(p, 0);
  for (unsigned i = 0; i < n; ++i) {
    switch (attributes[i]) {
    case 2: /* MEMORY_TYPE */
      *(unsigned *)data[i] = a ? 2 : 0;
      break;
    case 9: /* DEVICE_ORDINAL */
      *(int *)data[i] = a ? 0 : -1;
      break;
    case 11: /* RANGE_START_ADDR */
      *(CUdeviceptr *)data[i] = a ? a->base : 0;
      break;
    case 12: /* RANGE_SIZE */
      *(size_t *)data[i] = a ? a->bytes : 0;
      break;
    default:
      return 1;
    }
  }
  logf_("pointer-attributes");
  return 0;
}
/* The graph's kernel nodes: its captured launches. */
struct kernel_node_params { /* CUDA_KERNEL_NODE_PARAMS_v2 */
  void *func;
  unsigned grid[3], block[3], shared_bytes;
  void **kernel_params, **extra;
  void *kern, *ctx;
};
static struct launch *as_node(void *node) {
  struct launch *l = node;
  return l >= captured && l < captured + num_captured ? l : NULL;
}
EXPORT CUresult cuGraphGetNodes(void *g, void **nodes, size_t *n) {
  if (g != &graph || !n)
    return 1;
  if (!nodes) {
    *n = (size_t)num_captured;
    return 0;
  }
  size_t count = *n < (size_t)num_captured ? *n : (size_t)num_captured;
  for (size_t i = 0; i < count; ++i)
    nodes[i] = &captured[i];
  *n = count;
  return 0;
}
EXPORT CUresult cuGraphNodeGetType(void *node, int *type) {
  if (!as_node(node))
    return 400;
  *type = 0; /* CU_GRAPH_NODE_TYPE_KERNEL */
  return 0;
}
EXPORT CUresult cuGraphKernelNodeGetParams_v2(void *node, struct kernel_node_params *p) {
  struct launch *l = as_node(node);
  if (!l || !p)
    return 1;
  *p = (struct kernel_node_params){.func = (void *)l->k,
                                   .grid = {l->dims[0], l->dims[1], l->dims[2]},
                                   .block = {l->dims[3], l->dims[4], l->dims[5]},
                                   .kernel_params = l->pointers};
  return 0;
}
EXPORT CUresult cuGraphExecKernelNodeSetParams_v2(void *exec, void *node,
                                                  const struct kernel_node_params *p) {
  struct launch *l = as_node(node);
  if (exec != &graph_exec || !l || !p || p->func != l->k || !p->kernel_params ||
      memcmp(p->grid, l->dims, sizeof p->grid) || memcmp(p->block, l->dims + 3, sizeof p->block))
    return 1;
  static int calls;
  const char *fail = getenv("MOCK_CUDA_FAIL_SET_PARAMS");
  if (fail && ++calls == atoi(fail))
    return 801; /* CUDA_ERROR_NOT_SUPPORTED */
  if (!params_ok(l->k, p->kernel_params) || copy_params(l, l->k, p->kernel_params))
    return 1;
  logf_("set-params %s", l->name);
  return 0;
}
EXPORT CUresult cuFuncGetParamInfo(void *f, size_t index, size_t *offset, size_t *size) {
  const struct kernel *k = f;
  if (!k || index >= (size_t)k->num_params)
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  size_t at = 0;
  for (size_t i = 0; i < index; ++i)
    at += k->param_bytes[i];
  if (offset)
    *offset = at;
  if (size)
    *size = k->param_bytes[index];
  return 0;
}
EXPORT CUresult cuGraphExecDestroy(void *exec) { return exec == &graph_exec ? 0 : 1; }
EXPORT CUresult cuGraphDestroy(void *g) { return g == &graph ? 0 : 1; }
EXPORT CUresult cuGetErrorString(CUresult r, const char **s) {
  switch (r) {
  case 100:
    *s = "no CUDA-capable device is detected";
    break;
  case 700:
    *s = "an illegal memory access was encountered";
    break;
  case 900:
    *s = "operation not permitted when stream is capturing";
    break;
  case 46:
    *s = "CUDA-capable device(s) is/are busy or unavailable";
    break;
  case 1:
    *s = "invalid argument";
    break;
  case 200:
    *s = "device kernel image is invalid";
    break;
  case 400:
    *s = "invalid resource handle";
    break;
  case 500:
    *s = "named symbol not found";
    break;
  default:
    *s = "mock CUDA error";
    break;
  }
  return 0;
}

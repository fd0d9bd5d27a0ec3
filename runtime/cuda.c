/* infc runtime — CUDA models: the driver opened lazily with dlopen, device memory per
 * session, the weights uploaded once per model, and the mgpu* calls of the generated code.
 *
 * A model.so compiled with --target cuda links nothing of CUDA: libcuda.so.1 is opened at the
 * first session (INFC_CUDA_DRIVER names another library, for tests), so the .so loads on any
 * machine and a session on one without a driver or a GPU fails with a clear message.
 *
 * The generated host code (MLIR's gpu-to-llvm lowering) calls mgpuModuleLoad from a global
 * constructor at load time, and per kernel launch mgpuModuleGetFunction, mgpuStreamCreate,
 * mgpuLaunchKernel, mgpuStreamSynchronize and mgpuStreamDestroy. Here a module is loaded into
 * the driver only when the first session looks its kernels up (and unloaded with the last
 * session), every launch goes on the stream of the run in progress on this thread, and the
 * run synchronizes once, after copying the outputs back. */
#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver API types, as cuda.h declares them (ABI-stable since CUDA 3.2). */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUgraphNode_st *CUgraphNode;
/* CUDA_KERNEL_NODE_PARAMS_v2 */
typedef struct {
  CUfunction func;
  unsigned grid[3], block[3], shared_bytes;
  void **kernel_params, **extra;
  void *kern;
  CUcontext ctx;
} kernel_node_params;
enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CU_STREAM_DEFAULT = 0, /* synchronizes with the legacy default stream */
  CU_STREAM_NON_BLOCKING = 1,
  CU_STREAM_CAPTURE_MODE_RELAXED = 2, /* other threads may make any call meanwhile */
  CU_STREAM_CAPTURE_STATUS_NONE = 0,
  /* CUpointer_attribute and CUmemorytype */
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
  CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_MEMORYTYPE_UNIFIED = 4,
  CU_GRAPH_NODE_TYPE_KERNEL = 0
};
/* The device the models run on: ordinal 0 (of those CUDA_VISIBLE_DEVICES leaves). */
enum { MODEL_DEVICE_ORDINAL = 0 };

static struct {
  pthread_once_t once;
  char error[384]; /* why the driver is unusable; empty when it is */
  void *library;
  CUcontext context; /* device 0's primary context */
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxPushCurrent)(CUcontext);
  CUresult (*CtxPopCurrent)(CUcontext *);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*StreamCreate)(CUstream *, unsigned);
  CUresult (*StreamDestroy)(CUstream);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void **, void **);
  CUresult (*GetErrorString)(CUresult, const char **);
  /* CUDA graphs (optional: without them every run launches each kernel). */
  CUresult (*StreamBeginCapture)(CUstream, int);
  CUresult (*StreamEndCapture)(CUstream, CUgraph *);
  CUresult (*GraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
  CUresult (*GraphLaunch)(CUgraphExec, CUstream);
  CUresult (*GraphExecDestroy)(CUgraphExec);
  CUresult (*GraphDestroy)(CUgraph);
  /* Rebinding a graph's kernels to the caller's device buffers (optional: without them,
   * device inputs and outputs are copied through the captured buffers). */
  CUresult (*GraphGetNodes)(CUgraph, CUgraphNode *, size_t *);
  CUresult (*GraphNodeGetType)(CUgraphNode, int *);
  CUresult (*GraphKernelNodeGetParams)(CUgraphNode, kernel_node_params *);
  CUresult (*GraphExecKernelNodeSetParams)(CUgraphExec, CUgraphNode, const kernel_node_params *);
  CUresult (*FuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);
  /* Checks of the caller's device memory and stream (optional: skipped without them). */
  CUresult (*PointerGetAttributes)(unsigned, int *, void **, CUdeviceptr);
  CUresult (*StreamIsCapturing)(CUstream, int *);
} drv = {.once = PTHREAD_ONCE_INIT};

static const char *cu_error(CUresult r) {
  const char *s = NULL;
  if (drv.GetErrorString && drv.GetErrorString(r, &s) == CUDA_SUCCESS && s)
    return s;
  return "unknown CUDA error";
}

static void *symbol(const char *name) {
  void *p = dlsym(drv.library, name);
  if (!p && !drv.error[0])
    snprintf(drv.error, sizeof drv.error, "the CUDA driver has no %s (too old a driver)", name);
  return p;
}

static void open_driver(void) {
  const char *path = getenv("INFC_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  drv.library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!drv.library) {
    snprintf(drv.error, sizeof drv.error,
             "this model runs on an NVIDIA GPU and the CUDA "
             "driver cannot be loaded (%s)",
             dlerror());
    return;
  }
#define LOAD(field, name) *(void **)&drv.field = symbol(name)
  LOAD(Init, "cuInit");
  LOAD(DeviceGetCount, "cuDeviceGetCount");
  LOAD(DeviceGet, "cuDeviceGet");
  LOAD(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  LOAD(CtxPushCurrent, "cuCtxPushCurrent_v2");
  LOAD(CtxPopCurrent, "cuCtxPopCurrent_v2");
  LOAD(MemAlloc, "cuMemAlloc_v2");
  LOAD(MemFree, "cuMemFree_v2");
  LOAD(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  LOAD(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  LOAD(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  LOAD(StreamCreate, "cuStreamCreate");
  LOAD(StreamDestroy, "cuStreamDestroy_v2");
  LOAD(StreamSynchronize, "cuStreamSynchronize");
  LOAD(ModuleLoadData, "cuModuleLoadData");
  LOAD(ModuleUnload, "cuModuleUnload");
  LOAD(ModuleGetFunction, "cuModuleGetFunction");
  LOAD(LaunchKernel, "cuLaunchKernel");
  LOAD(GetErrorString, "cuGetErrorString");
#undef LOAD
  if (drv.error[0])
    return;
#define LOAD_OPTIONAL(field, name) *(void **)&drv.field = dlsym(drv.library, name)
  LOAD_OPTIONAL(StreamBeginCapture, "cuStreamBeginCapture_v2");
  LOAD_OPTIONAL(StreamEndCapture, "cuStreamEndCapture");
  LOAD_OPTIONAL(GraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
  LOAD_OPTIONAL(GraphLaunch, "cuGraphLaunch");
  LOAD_OPTIONAL(GraphExecDestroy, "cuGraphExecDestroy");
  LOAD_OPTIONAL(GraphDestroy, "cuGraphDestroy");
  LOAD_OPTIONAL(PointerGetAttributes, "cuPointerGetAttributes");
  LOAD_OPTIONAL(StreamIsCapturing, "cuStreamIsCapturing");
  LOAD_OPTIONAL(GraphGetNodes, "cuGraphGetNodes");
  LOAD_OPTIONAL(GraphNodeGetType, "cuGraphNodeGetType");
  LOAD_OPTIONAL(GraphKernelNodeGetParams, "cuGraphKernelNodeGetParams_v2");
  LOAD_OPTIONAL(GraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams_v2");
  LOAD_OPTIONAL(FuncGetParamInfo, "cuFuncGetParamInfo");
#undef LOAD_OPTIONAL
  CUresult r = drv.Init(0);
  int count = 0;
  if (r == CUDA_SUCCESS)
    r = drv.DeviceGetCount(&count);
  if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && count == 0)) {
    snprintf(drv.error, sizeof drv.error,
             "this model runs on an NVIDIA GPU and the machine "
             "has no CUDA device");
    return;
  }
  if (r != CUDA_SUCCESS)
    snprintf(drv.error, sizeof drv.error, "the CUDA driver failed to start: %s", cu_error(r));
}

/* Device 0's primary context, retained by the first session that gets it. A failure (the
 * device held by another process in exclusive mode, say) fails only that session: the next
 * one tries again. */
static pthread_mutex_t context_lock = PTHREAD_MUTEX_INITIALIZER;
static CUresult retain_context(void) {
  pthread_mutex_lock(&context_lock);
  CUresult r = CUDA_SUCCESS;
  if (!drv.context) {
    CUdevice device;
    r = drv.DeviceGet(&device, MODEL_DEVICE_ORDINAL);
    if (r == CUDA_SUCCESS)
      r = drv.DevicePrimaryCtxRetain(&drv.context, device);
    if (r != CUDA_SUCCESS)
      drv.context = NULL;
  }
  pthread_mutex_unlock(&context_lock);
  return r;
}

/* ---- what the generated code calls ---------------------------------------------------- */

typedef struct cuda_module {
  struct cuda_module *next; /* the .so's modules, unloaded from the driver with its last
                               session */
  const void *image;        /* the fatbin, in the .so's read-only data */
  size_t size;
  void *aligned;   /* a copy when the image is not 8-byte aligned (the driver wants it) */
  CUmodule module; /* loaded at the first lookup of one of its kernels */
  size_t num_functions, capacity;
  struct {
    const char *name; /* the generated code passes the same pointer on every launch */
    CUfunction function;
  } *functions;
} cuda_module;

/* The run in progress on this thread: its stream, and the first error of its launches. */
typedef struct cuda_run {
  CUstream stream;
  CUresult error;
  char what[160];
  int dry; /* look every kernel up (loading its module), launch none */
} cuda_run;

static _Thread_local cuda_run *current_run;
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
static cuda_module *modules; /* guarded by modules_lock */

static void run_failed(CUresult r, const char *what, const char *name) {
  cuda_run *run = current_run;
  if (run && run->error == CUDA_SUCCESS) {
    run->error = r;
    snprintf(run->what, sizeof run->what, "%s%s%s", what, name ? " " : "", name ? name : "");
  }
}

void *mgpuModuleLoad(const void *data, size_t size);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);

/* At load time (a global constructor): nothing reaches the driver yet. */
void *mgpuModuleLoad(const void *data, size_t size) {
  cuda_module *m = calloc(1, sizeof *m);
  if (m) {
    m->image = data;
    m->size = size;
    pthread_mutex_lock(&modules_lock);
    m->next = modules;
    modules = m;
    pthread_mutex_unlock(&modules_lock);
  }
  return m;
}

/* Unloads what the driver holds of every module; the next launch loads it again. Called
 * with the context current when the last session goes, so no run is in progress and no
 * graph holds a function. */
static void unload_modules(void) {
  pthread_mutex_lock(&modules_lock);
  for (cuda_module *m = modules; m; m = m->next) {
    if (m->module)
      drv.ModuleUnload(m->module);
    m->module = NULL;
    m->num_functions = 0;
  }
  pthread_mutex_unlock(&modules_lock);
}

/* At unload time (dlclose, or process exit). The driver's module went with the last
 * session; one still loaded means the process is exiting with sessions (or a session
 * outlived its .so), when the driver may already be gone: it stays with the context, which
 * the driver tears down itself. */
void mgpuModuleUnload(void *module) {
  cuda_module *m = module;
  if (!m)
    return;
  pthread_mutex_lock(&modules_lock);
  for (cuda_module **link = &modules; *link; link = &(*link)->next)
    if (*link == m) {
      *link = m->next;
      break;
    }
  pthread_mutex_unlock(&modules_lock);
  free(m->functions);
  free(m->aligned);
  free(m);
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  cuda_module *m = module;
  if (!m) { /* its constructor ran out of memory */
    run_failed(CUDA_ERROR_OUT_OF_MEMORY, "loading the kernels", NULL);
    return NULL;
  }
  CUfunction f = NULL;
  pthread_mutex_lock(&modules_lock);
  for (size_t i = 0; i < m->num_functions && !f; ++i)
    if (m->functions[i].name == name)
      f = m->functions[i].function;
  if (!f) {
    CUresult r = CUDA_SUCCESS;
    if (!m->module && ((uintptr_t)m->image % 8) && !m->aligned &&
        posix_memalign(&m->aligned, 64, m->size ? m->size : 1) == 0)
      memcpy(m->aligned, m->image, m->size);
    const void *image = m->aligned ? m->aligned : m->image;
    if (!m->module && (r = drv.ModuleLoadData(&m->module, image)) != CUDA_SUCCESS) {
      m->module = NULL;
      run_failed(r, "loading the kernels (the .so may hold no image for this GPU)", NULL);
    } else if ((r = drv.ModuleGetFunction(&f, m->module, name)) != CUDA_SUCCESS) {
      f = NULL;
      run_failed(r, "finding kernel", name);
    }
    if (f && m->num_functions == m->capacity) {
      size_t capacity = m->capacity ? 2 * m->capacity : 64;
      void *grown = realloc(m->functions, capacity * sizeof *m->functions);
      if (grown) {
        m->functions = grown;
        m->capacity = capacity;
      }
    }
    if (f && m->num_functions < m->capacity) { /* else looked up again next time */
      m->functions[m->num_functions].name = name;
      m->functions[m->num_functions].function = f;
      ++m->num_functions;
    }
  }
  pthread_mutex_unlock(&modules_lock);
  return f;
}

void *mgpuStreamCreate(void) { return current_run ? current_run->stream : NULL; }
void mgpuStreamSynchronize(void *stream) { (void)stream; }
void mgpuStreamDestroy(void *stream) { (void)stream; }

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount) {
  (void)paramsCount;
  cuda_run *run = current_run;
  if (!function || !run || run->error != CUDA_SUCCESS || run->dry)
    return; /* the failure is recorded already, or nothing is to run */
  CUresult r = drv.LaunchKernel((CUfunction)function, (unsigned)gridX, (unsigned)gridY,
                                (unsigned)gridZ, (unsigned)blockX, (unsigned)blockY,
                                (unsigned)blockZ, (unsigned)smem, (CUstream)stream, params, extra);
  if (r != CUDA_SUCCESS)
    run_failed(r, "launching a kernel", NULL);
}

/* ---- sessions -------------------------------------------------------------------------- */

/* The device copy of the weights: uploaded by the first session, freed with the last (as
 * the kernel modules, loaded by the first session's lookup of its kernels, are unloaded). */
static pthread_mutex_t weights_lock = PTHREAD_MUTEX_INITIALIZER;
static CUdeviceptr weights_device;
static size_t weights_users;

struct infc__cuda_session {
  /* The session's own stream for runs. It synchronizes with the legacy default stream, where
   * CuPy and PyTorch put their work by default, so device inputs the caller just wrote are
   * complete before a run reads them (and device outputs before the caller's next work). */
  CUstream stream;
  CUstream capture_stream; /* non-blocking: capturing on a stream that waits on the legacy
                              one is refused */
  CUstream caller_stream;  /* infc_session_options.cuda_stream, or NULL */
  CUdeviceptr workspace;
  size_t num_buffers;
  CUdeviceptr *buffers; /* inputs then outputs */
  void **args;          /* workspace, weights, inputs..., outputs... (device pointers) */
  void **run_args;      /* without a graph: args with the caller's device buffers */
  int holds_weights;
  /* The whole model as one CUDA graph, captured at session creation: a run replays it with
   * one launch instead of one per kernel. NULL without graphs (INFC_CUDA_GRAPHS=0, or a
   * driver without them). The buffers it reads and writes are this session's, fixed. */
  CUgraph graph;
  CUgraphExec exec;
  /* The graph's kernel nodes that take an input or output buffer, and the buffer each
   * input and output is bound to in `exec` now: a run with the caller's device memory
   * rebinds them to it (zero copy) and one with host memory back to the session's. NULL
   * (device memory copied instead) where the driver cannot rebind. */
  struct bound_node *bound_nodes;
  size_t num_bound_nodes;
  CUdeviceptr *bound, *wanted; /* per input and output; wanted: a run's scratch */
};

/* A kernel node of the graph whose parameters include input or output buffers: its
 * parameters as captured (values), and which of them is which buffer. */
struct bound_node {
  CUgraphNode node;
  kernel_node_params params; /* kernel_params point into values */
  unsigned char *values;
  size_t num_uses;
  struct buffer_use {
    size_t param, buffer; /* parameter index; input, then output index */
  } *uses;
};

/* INFC_CUDA_GRAPHS: "0" launches each kernel per run; "require" makes a session whose
 * capture fails an error (a benchmark then knows it timed the graph); else a capture that
 * fails falls back to launching each kernel. */
static int graphs_enabled(void) {
  const char *env = getenv("INFC_CUDA_GRAPHS");
  return !(env && !strcmp(env, "0"));
}
static int graphs_required(void) {
  const char *env = getenv("INFC_CUDA_GRAPHS");
  return env && !strcmp(env, "require");
}
static int driver_has_graphs(void) {
  return drv.StreamBeginCapture && drv.StreamEndCapture && drv.GraphInstantiateWithFlags &&
         drv.GraphLaunch && drv.GraphExecDestroy && drv.GraphDestroy;
}

/* Captures the model's launches on the session's stream into c->exec. On failure, what
 * says what failed and *r the driver's code. */
static void capture_graph(infc__cuda_session *c, const infc_model_desc *d, CUresult *r,
                          const char **what, char *detail, size_t size) {
  cuda_run run = {.stream = c->capture_stream};
  if ((*r = drv.StreamBeginCapture(c->capture_stream, CU_STREAM_CAPTURE_MODE_RELAXED)) !=
      CUDA_SUCCESS) {
    *what = "starting to capture the model's CUDA graph";
    return;
  }
  current_run = &run;
  d->entry(c->args);
  current_run = NULL;
  CUresult end = drv.StreamEndCapture(c->capture_stream, &c->graph);
  if (run.error != CUDA_SUCCESS) {
    *r = run.error;
    snprintf(detail, size, "%s", run.what);
    *what = detail;
  } else if ((*r = end) != CUDA_SUCCESS) {
    *what = "capturing the model's CUDA graph";
  } else if ((*r = drv.GraphInstantiateWithFlags(&c->exec, c->graph, 0)) != CUDA_SUCCESS) {
    c->exec = NULL;
    *what = "instantiating the model's CUDA graph";
  }
}

static infc_status cuda_fail(char *error, size_t size, CUresult r, const char *what) {
  snprintf(error, size, "CUDA: %s: %s", what, cu_error(r));
  return INFC_ERR_UNAVAILABLE;
}

static void free_bound_nodes(infc__cuda_session *c) {
  for (size_t i = 0; i < c->num_bound_nodes; ++i) {
    free(c->bound_nodes[i].values);
    free(c->bound_nodes[i].params.kernel_params);
    free(c->bound_nodes[i].uses);
  }
  free(c->bound_nodes);
  free(c->bound);
  free(c->wanted);
  c->bound_nodes = NULL;
  c->num_bound_nodes = 0;
  c->bound = c->wanted = NULL;
}

/* Which input or output buffer (its index) an 8-byte parameter `param` is; SIZE_MAX when
 * none, SIZE_MAX - 1 when it points inside one but not at its start. */
static size_t buffer_of(const infc__cuda_session *c, const size_t *io_bytes, const void *param) {
  uint64_t value;
  memcpy(&value, param, 8);
  for (size_t k = 0; k < c->num_buffers; ++k) {
    if (value == c->buffers[k])
      return k;
    if (value > c->buffers[k] && value - c->buffers[k] < io_bytes[k])
      return SIZE_MAX - 1;
  }
  return SIZE_MAX;
}

/* Adds kernel node `node` (its parameters `p`) to c->bound_nodes if it takes an input or
 * output buffer: a parameter of 8 bytes equal to one (the kernels take their buffers as
 * bare pointers or as descriptors, whose pointers are the buffers'). 0 when out of memory,
 * when the driver cannot list the kernel's parameters, or when one points inside a buffer
 * but not at its start (a view of it, which rebinding would miss). */
static int add_bound_node(infc__cuda_session *c, CUgraphNode node, const kernel_node_params *p,
                          const size_t *io_bytes) {
  enum { MAX_PARAMS = 1024 }; /* more parameters than any of our kernels takes: copies then */
  size_t sizes[MAX_PARAMS], num_params = 0, bytes = 0, num_uses = 0;
  size_t offset, size;
  CUresult r;
  while (num_params < MAX_PARAMS &&
         (r = drv.FuncGetParamInfo(p->func, num_params, &offset, &size)) == CUDA_SUCCESS) {
    sizes[num_params++] = size;
    bytes += size;
  }
  /* The list ends with an invalid index; every kernel takes at least one buffer. */
  if (num_params == MAX_PARAMS || r != CUDA_ERROR_INVALID_VALUE || !num_params)
    return 0;
  for (size_t i = 0; i < num_params; ++i) {
    if (!p->kernel_params[i])
      return 0;
    size_t k = sizes[i] == 8 ? buffer_of(c, io_bytes, p->kernel_params[i]) : SIZE_MAX;
    if (k == SIZE_MAX - 1)
      return 0;
    num_uses += k != SIZE_MAX;
  }
  if (!num_uses)
    return 1;
  struct bound_node *b = &c->bound_nodes[c->num_bound_nodes];
  *b = (struct bound_node){.node = node, .params = *p};
  b->values = malloc(bytes ? bytes : 1);
  b->params.kernel_params = calloc(num_params ? num_params : 1, sizeof(void *));
  b->uses = calloc(num_uses, sizeof *b->uses);
  ++c->num_bound_nodes; /* freed with the others, however far this got */
  if (!b->values || !b->params.kernel_params || !b->uses)
    return 0;
  for (size_t i = 0, at = 0; i < num_params; at += sizes[i++]) {
    memcpy(b->values + at, p->kernel_params[i], sizes[i]);
    b->params.kernel_params[i] = b->values + at;
    size_t k = sizes[i] == 8 ? buffer_of(c, io_bytes, p->kernel_params[i]) : SIZE_MAX;
    if (k != SIZE_MAX)
      b->uses[b->num_uses++] = (struct buffer_use){i, k};
  }
  return 1;
}

/* Finds the graph's kernel nodes that take input or output buffers (c->bound_nodes), for
 * runs to rebind to the caller's device memory. Without the driver calls for it, or on any
 * failure, c->bound stays NULL: device memory is then copied through the session's. */
static void find_bound_nodes(infc__cuda_session *c, const size_t *io_bytes) {
  if (!drv.GraphGetNodes || !drv.GraphNodeGetType || !drv.GraphKernelNodeGetParams ||
      !drv.GraphExecKernelNodeSetParams || !drv.FuncGetParamInfo)
    return;
  size_t n = 0;
  if (drv.GraphGetNodes(c->graph, NULL, &n) != CUDA_SUCCESS)
    return;
  CUgraphNode *nodes = calloc(n ? n : 1, sizeof *nodes);
  c->bound_nodes = calloc(n ? n : 1, sizeof *c->bound_nodes);
  c->bound = calloc(c->num_buffers + 1, sizeof *c->bound);
  c->wanted = calloc(c->num_buffers + 1, sizeof *c->wanted);
  int ok = nodes && c->bound_nodes && c->bound && c->wanted &&
           drv.GraphGetNodes(c->graph, nodes, &n) == CUDA_SUCCESS;
  for (size_t i = 0; ok && i < n; ++i) {
    int type = -1;
    kernel_node_params params;
    ok = drv.GraphNodeGetType(nodes[i], &type) == CUDA_SUCCESS;
    if (ok && type == CU_GRAPH_NODE_TYPE_KERNEL)
      ok = drv.GraphKernelNodeGetParams(nodes[i], &params) == CUDA_SUCCESS && params.func &&
           params.kernel_params && add_bound_node(c, nodes[i], &params, io_bytes);
  }
  free(nodes);
  if (ok)
    memcpy(c->bound, c->buffers, c->num_buffers * sizeof *c->bound);
  else
    free_bound_nodes(c);
}

/* Binds the graph's kernels to c->wanted (per input and output: the caller's device buffer
 * or the session's), setting the parameters of the nodes whose buffers change. */
static CUresult rebind(infc__cuda_session *c) {
  for (size_t i = 0; i < c->num_bound_nodes; ++i) {
    struct bound_node *b = &c->bound_nodes[i];
    int changed = 0;
    for (size_t u = 0; u < b->num_uses; ++u)
      changed |= c->wanted[b->uses[u].buffer] != c->bound[b->uses[u].buffer];
    if (!changed)
      continue;
    for (size_t u = 0; u < b->num_uses; ++u)
      memcpy(b->params.kernel_params[b->uses[u].param], &c->wanted[b->uses[u].buffer], 8);
    CUresult r = drv.GraphExecKernelNodeSetParams(c->exec, b->node, &b->params);
    if (r != CUDA_SUCCESS) {
      memset(c->bound, 0, c->num_buffers * sizeof *c->bound); /* unknown: all rebound next */
      return r;
    }
  }
  memcpy(c->bound, c->wanted, c->num_buffers * sizeof *c->bound);
  return CUDA_SUCCESS;
}

/* The session's host allocations (NULL is fine); the device ones are the caller's to free. */
static void free_host_memory(infc__cuda_session *c) {
  if (!c)
    return;
  free_bound_nodes(c);
  free(c->buffers);
  free(c->args);
  free(c->run_args);
  free(c);
}

void infc__cuda_session_destroy(infc__cuda_session *c) {
  if (!c)
    return;
  int pushed = drv.CtxPushCurrent(drv.context) == CUDA_SUCCESS;
  /* A device-only run on the caller's stream may still be using the buffers. */
  if (c->caller_stream)
    drv.StreamSynchronize(c->caller_stream);
  for (size_t i = 0; i < c->num_buffers; ++i)
    if (c->buffers[i])
      drv.MemFree(c->buffers[i]);
  if (c->workspace)
    drv.MemFree(c->workspace);
  if (c->exec)
    drv.GraphExecDestroy(c->exec);
  if (c->graph)
    drv.GraphDestroy(c->graph);
  if (c->stream)
    drv.StreamDestroy(c->stream);
  if (c->capture_stream)
    drv.StreamDestroy(c->capture_stream);
  if (c->holds_weights) {
    pthread_mutex_lock(&weights_lock);
    if (--weights_users == 0) {
      if (weights_device)
        drv.MemFree(weights_device);
      weights_device = 0;
      if (pushed) /* cuModuleUnload needs the context current */
        unload_modules();
    }
    pthread_mutex_unlock(&weights_lock);
  }
  CUcontext popped;
  if (pushed)
    drv.CtxPopCurrent(&popped);
  free_host_memory(c);
}

infc_status infc__cuda_session_create(const infc_model *model, void *stream,
                                      infc__cuda_session **out, char *error, size_t size) {
  const infc_model_desc *d = model->desc;
  *out = NULL;
  pthread_once(&drv.once, open_driver);
  if (drv.error[0]) {
    snprintf(error, size, "%s", drv.error);
    return INFC_ERR_UNAVAILABLE;
  }
  CUresult retained = retain_context();
  if (retained != CUDA_SUCCESS)
    return cuda_fail(error, size, retained, "retaining device 0's primary context");
  size_t ni = d->num_inputs, no = d->num_outputs;
  infc__cuda_session *c = calloc(1, sizeof *c);
  if (c) {
    c->buffers = calloc(ni + no + 1, sizeof *c->buffers);
    c->args = calloc(2 + ni + no, sizeof *c->args);
    c->run_args = calloc(2 + ni + no, sizeof *c->run_args);
    c->caller_stream = stream;
  }
  if (!c || !c->buffers || !c->args || !c->run_args) {
    free_host_memory(c);
    snprintf(error, size, "infc_session_create: out of memory");
    return INFC_ERR_OUT_OF_MEMORY;
  }
  c->num_buffers = ni + no;
  CUresult r = drv.CtxPushCurrent(drv.context);
  if (r != CUDA_SUCCESS) {
    free_host_memory(c);
    return cuda_fail(error, size, r, "making the device current");
  }
  infc_status st = INFC_OK;
  const char *what = NULL;
  if ((r = drv.StreamCreate(&c->stream, CU_STREAM_DEFAULT)) != CUDA_SUCCESS ||
      (r = drv.StreamCreate(&c->capture_stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
    what = "creating a stream";
  else if (d->workspace_bytes &&
           (r = drv.MemAlloc(&c->workspace, (size_t)d->workspace_bytes)) != CUDA_SUCCESS)
    what = "allocating the workspace";
  for (size_t i = 0; !what && i < ni + no; ++i) {
    size_t bytes = model->io_bytes[i];
    if ((r = drv.MemAlloc(&c->buffers[i], bytes ? bytes : 1)) != CUDA_SUCCESS)
      what = i < ni ? "allocating an input buffer" : "allocating an output buffer";
  }
  if (!what) {
    pthread_mutex_lock(&weights_lock);
    if (weights_users == 0 && d->weights_bytes) {
      r = drv.MemAlloc(&weights_device, (size_t)d->weights_bytes);
      if (r == CUDA_SUCCESS)
        r = drv.MemcpyHtoDAsync(weights_device, d->weights, (size_t)d->weights_bytes, c->stream);
      if (r == CUDA_SUCCESS)
        r = drv.StreamSynchronize(c->stream);
      if (r != CUDA_SUCCESS) {
        if (weights_device)
          drv.MemFree(weights_device);
        weights_device = 0;
        what = "uploading the weights";
      }
    }
    if (!what) {
      ++weights_users;
      c->holds_weights = 1;
      c->args[1] = (void *)(uintptr_t)weights_device;
    }
    pthread_mutex_unlock(&weights_lock);
  }
  c->args[0] = (void *)(uintptr_t)c->workspace;
  for (size_t i = 0; i < ni + no; ++i)
    c->args[2 + i] = (void *)(uintptr_t)c->buffers[i];
  char detail[200];
  if (!what) {
    /* Every kernel looked up once, now, by a pass of the entry that launches nothing: the
     * modules load outside the capture (loading code while a stream captures is not what a
     * graph should depend on), and a .so without an image for this GPU fails here, with the
     * driver's message, rather than at the first run. */
    cuda_run dry = {.stream = c->stream, .dry = 1};
    current_run = &dry;
    d->entry(c->args);
    current_run = NULL;
    if (dry.error != CUDA_SUCCESS) {
      r = dry.error;
      snprintf(detail, sizeof detail, "%s", dry.what);
      what = detail;
    }
  }
  if (!what && graphs_enabled() && !driver_has_graphs() && graphs_required()) {
    r = CUDA_ERROR_NOT_SUPPORTED;
    what = "INFC_CUDA_GRAPHS=require: the driver has no CUDA graphs";
  } else if (!what && graphs_enabled() && driver_has_graphs()) {
    /* A driver that refuses the capture still runs the kernels one by one (unless graphs
     * are required). */
    const char *capture_failed = NULL;
    char failure[160];
    capture_graph(c, d, &r, &capture_failed, failure, sizeof failure);
    if (!capture_failed) {
      find_bound_nodes(c, model->io_bytes);
    } else {
      if (c->exec)
        drv.GraphExecDestroy(c->exec);
      if (c->graph)
        drv.GraphDestroy(c->graph);
      c->exec = NULL;
      c->graph = NULL;
      if (graphs_required()) {
        snprintf(detail, sizeof detail, "INFC_CUDA_GRAPHS=require: %s", capture_failed);
        what = detail;
      }
    }
  }
  CUcontext popped;
  drv.CtxPopCurrent(&popped);
  if (what) {
    st = cuda_fail(error, size, r, what);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      st = INFC_ERR_OUT_OF_MEMORY;
    infc__cuda_session_destroy(c);
    return st;
  }
  *out = c;
  return INFC_OK;
}

/* Whether the caller's device memory `t` at `p` is used in place (without a graph, or with
 * one whose kernels can be rebound to it; 16-byte aligned: the kernels' vector loads assume
 * their buffers are) instead of copied device-to-device through the session's buffer. */
static int in_place(const infc__cuda_session *c, int rebinding, const infc_tensor *t,
                    const void *p) {
  return t && (t->flags & INFC_TENSOR_DEVICE) && (!c->exec || rebinding) && (uintptr_t)p % 16 == 0;
}

/* Why `bytes` bytes of the caller's device memory at `p` are not for the model's kernels
 * (NULL when they are): memory the driver does not know (a host pointer flagged
 * INFC_TENSOR_DEVICE), memory of another GPU, or an allocation that ends before the tensor
 * does, which a kernel would fault on (a fault is sticky: it ends every later use of the
 * primary context, the caller's included); and host memory the driver pinned, which kernels
 * could reach, but over the bus, a copy at every access: pass it as host memory. */
static const char *unusable_device_memory(const void *p, size_t bytes) {
  if (!drv.PointerGetAttributes)
    return NULL;
  unsigned type = 0;
  int ordinal = -1;
  CUdeviceptr start = 0;
  size_t size = 0;
  int attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  void *values[] = {&type, &ordinal, &start, &size};
  /* Unknown pointers are no error here: their attributes come back zero. */
  if (drv.PointerGetAttributes(4, attributes, values, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS)
    return NULL;
  if (type == CU_MEMORYTYPE_HOST)
    return "is pinned host memory (pass it without INFC_TENSOR_DEVICE)";
  if (type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED)
    return "is not memory the CUDA driver allocated or registered";
  if (type == CU_MEMORYTYPE_DEVICE && ordinal != MODEL_DEVICE_ORDINAL)
    return "is memory of another GPU than the model's (device 0)";
  uintptr_t at = (uintptr_t)p, begin = (uintptr_t)start;
  if (size && (at < begin || at - begin > size || bytes > size - (at - begin)))
    return "lies outside its allocation (the allocation is smaller than the tensor)";
  return NULL;
}

/* host_io: the caller's input pointers, then its output pointers; in/out: their tensors (an
 * output's may be NULL: a library-owned host buffer). Host memory goes through the session's
 * device buffers; device memory (INFC_TENSOR_DEVICE) is used in place when 16-byte aligned
 * (with a graph, by rebinding its kernels: c->bound), and copied device-to-device through
 * the session's buffers otherwise. */
infc_status infc__cuda_run(infc_session *s, void *const *host_io, const infc_tensor *const *in,
                           infc_tensor *const *out) {
  const infc_model_desc *d = s->desc;
  const size_t *bytes = s->model->io_bytes;
  size_t ni = d->num_inputs, no = d->num_outputs;
  infc__cuda_session *c = s->cuda;
  CUresult r = drv.CtxPushCurrent(drv.context);
  if (r != CUDA_SUCCESS)
    return infc__fail(s, INFC_ERR_INTERNAL, "CUDA: making the device current: %s", cu_error(r));
  int host_memory = 0;
  for (size_t k = 0; k < ni + no; ++k) {
    const infc_tensor *t = k < ni ? in[k] : out[k - ni];
    if (!t) /* an output not asked for (infc_run_named) is not copied back */
      continue;
    if (!(t->flags & INFC_TENSOR_DEVICE)) {
      host_memory = 1;
      continue;
    }
    /* An empty tensor is never read or written: its pointer may be anything. */
    const char *why = bytes[k] ? unusable_device_memory(host_io[k], bytes[k]) : NULL;
    if (why) {
      CUcontext popped;
      drv.CtxPopCurrent(&popped);
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT, "%s %zu '%s': the device pointer %s",
                        k < ni ? "input" : "output", k < ni ? k : k - ni,
                        k < ni ? d->inputs[k].name : d->outputs[k - ni].name, why);
    }
  }
  /* Pageable host copies cannot join a graph: the driver would refuse them and end the
   * caller's capture with an error. */
  int capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (c->caller_stream && drv.StreamIsCapturing &&
      drv.StreamIsCapturing(c->caller_stream, &capture) != CUDA_SUCCESS)
    capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (host_memory && capture != CU_STREAM_CAPTURE_STATUS_NONE) {
    CUcontext popped;
    drv.CtxPopCurrent(&popped);
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "the session's CUDA stream is being "
                      "captured into a graph, which host tensors cannot join: pass every "
                      "input and output in device memory (INFC_TENSOR_DEVICE)");
  }
  CUstream stream = c->caller_stream ? c->caller_stream : c->stream;
  cuda_run run = {.stream = stream};
  const char *what = NULL;
  void **args = c->args;
  if (!c->exec) {
    memcpy(c->run_args, c->args, (2 + ni + no) * sizeof *args);
    args = c->run_args;
  }
  /* The graph's kernels rebound to the caller's device buffers, unless the caller's stream
   * is capturing (what a captured launch of a rebound graph sees is not documented: copies,
   * as the graph was captured), or the driver refuses (copies from then on). */
  int rebinding = c->bound && capture == CU_STREAM_CAPTURE_STATUS_NONE;
  for (size_t k = 0; k < ni + no; ++k) {
    const infc_tensor *t = k < ni ? in[k] : out[k - ni];
    int own = !bytes[k] || !in_place(c, rebinding, t, host_io[k]);
    if (c->bound)
      c->wanted[k] = own ? c->buffers[k] : (CUdeviceptr)(uintptr_t)host_io[k];
    else if (!c->exec && !own)
      args[2 + k] = host_io[k];
  }
  if (c->bound && rebind(c) != CUDA_SUCCESS) {
    memcpy(c->wanted, c->buffers, c->num_buffers * sizeof *c->wanted);
    if ((r = rebind(c)) != CUDA_SUCCESS) {
      /* Its kernels' buffers unknown: no graph from now on (each kernel launched). */
      what = "binding the model's CUDA graph to its buffers";
      drv.GraphExecDestroy(c->exec);
      c->exec = NULL;
    }
    free_bound_nodes(c);
    rebinding = 0;
  }
  for (size_t i = 0; !what && i < ni; ++i) {
    if (!bytes[i] || in_place(c, rebinding, in[i], host_io[i]))
      continue;
    r = (in[i]->flags & INFC_TENSOR_DEVICE)
            ? drv.MemcpyDtoDAsync(c->buffers[i], (CUdeviceptr)(uintptr_t)host_io[i], bytes[i],
                                  stream)
            : drv.MemcpyHtoDAsync(c->buffers[i], host_io[i], bytes[i], stream);
    if (r != CUDA_SUCCESS)
      what = "copying an input to the device";
  }
  if (!what && c->exec) {
    if ((r = drv.GraphLaunch(c->exec, stream)) != CUDA_SUCCESS)
      what = "launching the model's CUDA graph";
  } else if (!what) {
    current_run = &run;
    d->entry(args);
    current_run = NULL;
    if (run.error != CUDA_SUCCESS) {
      r = run.error;
      what = run.what;
    }
  }
  for (size_t j = 0; !what && j < no; ++j) {
    int device = out[j] && (out[j]->flags & INFC_TENSOR_DEVICE);
    if (!out[j] || !bytes[ni + j] || in_place(c, rebinding, out[j], host_io[ni + j]))
      continue;
    r = device ? drv.MemcpyDtoDAsync((CUdeviceptr)(uintptr_t)host_io[ni + j], c->buffers[ni + j],
                                     bytes[ni + j], stream)
               : drv.MemcpyDtoHAsync(host_io[ni + j], c->buffers[ni + j], bytes[ni + j], stream);
    if (r != CUDA_SUCCESS)
      what = "copying an output from the device";
  }
  /* Host memory must be complete when the run returns, and so must everything on a stream
   * of our own; on the caller's stream, device-only work may stay enqueued. */
  if (host_memory || !c->caller_stream || what) {
    CUresult sync = drv.StreamSynchronize(stream);
    if (!what && sync != CUDA_SUCCESS) {
      r = sync;
      what = "running the kernels";
    }
  }
  CUcontext popped;
  drv.CtxPopCurrent(&popped);
  if (what)
    return infc__fail(s, INFC_ERR_INTERNAL, "CUDA: %s: %s", what, cu_error(r));
  return INFC_OK;
}

//===- CSource.cpp - infc compile --emit=c: the model as a C source tree --===//
//
// The directory holds everything `cc -O3 -c DIR/*.c` needs, nothing of infc's install:
//   model.c         the model's code and descriptor (CWriter.cpp)
//   model.h         the C ABI plus the typed functions of --header, and the weights' calls
//   model.weights   the weights, read by infc_model_create (or weights.c: --embed-weights)
//   infc_*.c, *.h   the runtime's sources; infc/runtime.h, the ABI's header
// and for a CUDA model (--target cuda --emit=cuda):
//   model.cu        the kernels as CUDA C++, which nvcc builds into model.fatbin; model.c,
//                   the host side, reads it at infc_model_create (or links it: kernels.c)
//
//===----------------------------------------------------------------------===//
#include "TargetMachine.h"
#include "infc/Target/Target.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Scalar/Scalarizer.h"

using namespace mlir;

namespace {
struct EmbeddedFile {
  const char *path, *text;
};
const EmbeddedFile kRuntimeFiles[] = {
#include "RuntimeSources.inc"
};

/// The runtime's OpenMP entry points (runtime/threads.c), which the C output renames.
const char *const kOpenMPEntries[] = {"__kmpc_barrier",           "__kmpc_for_static_fini",
                                      "__kmpc_for_static_init_4", "__kmpc_for_static_init_4u",
                                      "__kmpc_for_static_init_8", "__kmpc_for_static_init_8u",
                                      "__kmpc_fork_call",         "__kmpc_global_thread_num"};

/// The weights file: a 64-byte header (magic, blob bytes, the blob's xxh3), then the blob.
constexpr char kWeightsMagic[8] = {'I', 'N', 'F', 'C', 'W', 'T', 'S', '1'};

/// The loader model.c calls through the descriptor's `prepare`: the file is read once per
/// process (under a lock), checked against the size and hash this model was built with.
/// Into a heap block that `infc__wbase` points at, or with `intoArray` (a CUDA model, whose
/// descriptor holds the weights' address) into the static array `infc__wstore`.
std::string weightsLoader(uint64_t bytes, uint64_t hash, bool intoArray) {
  std::string s = R"c(
/* The weights file (model.weights): infc_model_create reads it once per process. */
static char *infc__weights_path;

__attribute__((visibility("default"))) void infc_weights_file(const char *path) {
  infc__set_path(&infc__weights_path, path);
}

static const char *infc__read_weights(void) {
  const char *path = infc__weights_path ? infc__weights_path : getenv("INFC_WEIGHTS");
  if (!path || !*path)
    path = "model.weights";
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(infc__prepare_why, sizeof infc__prepare_why,
             "cannot open the weights file '%s' (set it with infc_weights_file() or "
             "INFC_WEIGHTS, or build the source with infc compile --embed-weights)", path);
    return infc__prepare_why;
  }
  unsigned char header[64];
  uint64_t bytes = 0, hash = 0;
  int ok = fread(header, 1, 64, f) == 64 && memcmp(header, "INFCWTS1", 8) == 0;
  if (ok) {
    memcpy(&bytes, header + 8, 8);
    memcpy(&hash, header + 16, 8);
    ok = bytes == INFC__WEIGHTS_BYTES && hash == INFC__WEIGHTS_HASH;
  }
)c";
  if (intoArray)
    s += R"c(  uint8_t *block = NULL, *blob = infc__wstore;
)c";
  else
    s += R"c(  /* 64 bytes more than the blob: its start aligned to 64 bytes. */
  uint8_t *block = ok ? (uint8_t *)malloc((size_t)INFC__WEIGHTS_BYTES + 64) : NULL;
  uint8_t *blob = block ? block + (64 - (uintptr_t)block % 64) : NULL;
  if (ok && !block) {
    fclose(f);
    snprintf(infc__prepare_why, sizeof infc__prepare_why,
             "out of memory reading the weights file '%s'", path);
    return infc__prepare_why;
  }
)c";
  s +=
      R"c(  ok = ok && fread(blob, 1, (size_t)INFC__WEIGHTS_BYTES, f) == (size_t)INFC__WEIGHTS_BYTES &&
       fgetc(f) == EOF;
  fclose(f);
  if (!ok) {
    free(block);
    snprintf(infc__prepare_why, sizeof infc__prepare_why,
             "'%s' is not the weights file of this model (another model's, or cut short)",
             path);
    return infc__prepare_why;
  }
  infc__weights_read = 1;
)c";
  if (!intoArray)
    s += "  infc__wbase = blob;\n";
  s += "  return NULL;\n}\n";
  std::string head = "#define INFC__WEIGHTS_BYTES UINT64_C(" + std::to_string(bytes) +
                     ")\n#define INFC__WEIGHTS_HASH UINT64_C(" + std::to_string(hash) +
                     ")\nstatic int infc__weights_read;\n";
  head += intoArray
              ? "static uint8_t infc__wstore[" + std::to_string(std::max<uint64_t>(bytes, 1)) +
                    "] __attribute__((aligned(64)));\n"
              : "static uint8_t *infc__wbase;\n";
  return head + s;
}

/// What every loader shares: the lock infc__prepare holds and the message of its failure.
const char *kPrepareCommon = R"c(#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t infc__prepare_lock = PTHREAD_MUTEX_INITIALIZER;
static char infc__prepare_why[512];

__attribute__((visibility("default"))) const char *infc_weights_error(void) {
  return infc__prepare_why;
}

/* *slot = a copy of path (the caller's buffer may be gone by infc_model_create). */
static void infc__set_path(char **slot, const char *path) {
  size_t n = path ? strlen(path) + 1 : 0;
  char *copy = n ? (char *)malloc(n) : NULL;
  if (copy)
    memcpy(copy, path, n);
  pthread_mutex_lock(&infc__prepare_lock);
  free(*slot);
  *slot = copy;
  pthread_mutex_unlock(&infc__prepare_lock);
}
)c";

/// A CUDA model's kernels: the fatbin nvcc built from model.cu, read from a file once per
/// process, or linked in (kernels.c from bin2c, with -DINFC_KERNELS_EMBEDDED). The host
/// code's module loader (MLIR's, run at load time in a library infc links) runs then.
const char *kKernelsLoader = R"c(
/* The kernels' image: what the host code's module loader passes the runtime. */
__attribute__((visibility("hidden"))) uint8_t *infc__kernels_image;
__attribute__((visibility("hidden"))) uint64_t infc__kernels_size;
void infc__kernels_load(void);
void infc__kernels_unload(void);
static int infc__kernels_loaded;
static char *infc__kernels_path;

__attribute__((visibility("default"))) void infc_kernels_file(const char *path) {
  infc__set_path(&infc__kernels_path, path);
}

/* A fatbin's size from its header (magic 0xBA55ED50, version, header bytes, payload bytes),
   0 when `p` holds none. */
static uint64_t infc__fatbin_bytes(const uint8_t *p, uint64_t have) {
  uint32_t magic;
  uint16_t header;
  uint64_t payload;
  if (have < 16)
    return 0;
  memcpy(&magic, p, 4);
  memcpy(&header, p + 6, 2);
  memcpy(&payload, p + 8, 8);
  if (magic != 0xBA55ED50u || header < 16 || payload > UINT64_MAX - header)
    return 0;
  return header + payload;
}

#ifdef INFC_KERNELS_EMBEDDED
extern const unsigned char infc_kernels_fatbin[];
#endif

static const char *infc__read_kernels(void) {
#ifdef INFC_KERNELS_EMBEDDED
  uint64_t bytes = infc__fatbin_bytes(infc_kernels_fatbin, 16);
  if (!bytes) {
    snprintf(infc__prepare_why, sizeof infc__prepare_why,
             "infc_kernels_fatbin (-DINFC_KERNELS_EMBEDDED) holds no fatbin: build it with "
             "bin2c -c -n infc_kernels_fatbin model.fatbin");
    return infc__prepare_why;
  }
  infc__kernels_image = (uint8_t *)infc_kernels_fatbin;
  infc__kernels_size = bytes;
#else
  const char *path = infc__kernels_path ? infc__kernels_path : getenv("INFC_KERNELS");
  if (!path || !*path)
    path = "model.fatbin";
  FILE *f = fopen(path, "rb");
  long size = -1;
  if (f && fseek(f, 0, SEEK_END) == 0)
    size = ftell(f);
  if (!f || size < 0 || fseek(f, 0, SEEK_SET) != 0) {
    if (f)
      fclose(f);
    snprintf(infc__prepare_why, sizeof infc__prepare_why,
             "cannot read the kernels '%s' (build them with nvcc -fatbin model.cu -o "
             "model.fatbin; set the path with infc_kernels_file() or INFC_KERNELS)", path);
    return infc__prepare_why;
  }
  /* 64 bytes more: the image aligned to 64 bytes, as the driver wants it. */
  uint8_t *block = (uint8_t *)malloc((size_t)size + 64);
  uint8_t *image = block ? block + (64 - (uintptr_t)block % 64) : NULL;
  int ok = image && fread(image, 1, (size_t)size, f) == (size_t)size;
  fclose(f);
  if (!ok || infc__fatbin_bytes(image, (uint64_t)size) != (uint64_t)size) {
    free(block);
    snprintf(infc__prepare_why, sizeof infc__prepare_why,
             ok ? "'%s' is not a fatbin (nvcc -fatbin model.cu -o model.fatbin writes one)"
                : "out of memory reading the kernels '%s'", path);
    return infc__prepare_why;
  }
  infc__kernels_image = image;
  infc__kernels_size = (uint64_t)size;
#endif
  infc__kernels_load();
  infc__kernels_loaded = 1;
  return NULL;
}

__attribute__((destructor)) static void infc__kernels_fini(void) {
  if (infc__kernels_loaded)
    infc__kernels_unload();
}
)c";

/// infc__prepare, the descriptor's `prepare`: what the model needs before its first session.
std::string prepareFunction(bool weights, bool kernels) {
  std::string s = "\nstatic const char *infc__prepare(void) {\n"
                  "  pthread_mutex_lock(&infc__prepare_lock);\n"
                  "  const char *why = NULL;\n";
  if (weights)
    s += "  if (!infc__weights_read)\n    why = infc__read_weights();\n";
  if (kernels)
    s += "  if (!why && !infc__kernels_loaded)\n    why = infc__read_kernels();\n";
  s += "  if (!why)\n    infc__prepare_why[0] = 0;\n"
       "  pthread_mutex_unlock(&infc__prepare_lock);\n  return why;\n}\n";
  return s;
}

/// The files of the directory, written as `<name>.tmp` and renamed together at the end.
class OutputFiles {
public:
  explicit OutputFiles(StringRef dir) : dir(dir.str()) {}
  ~OutputFiles() {
    for (const std::string &t : temporaries)
      llvm::sys::fs::remove(t);
  }
  /// A stream to `name` (a path under the directory), or null with `error` set.
  std::unique_ptr<llvm::raw_fd_ostream> open(StringRef name, std::string &error) {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    if (std::error_code ec =
            llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path))) {
      error = std::string(path) + ": " + ec.message();
      return nullptr;
    }
    std::string tmp = std::string(path) + ".tmp";
    std::error_code ec;
    auto os = std::make_unique<llvm::raw_fd_ostream>(tmp, ec);
    if (ec) {
      error = tmp + ": " + ec.message();
      return nullptr;
    }
    temporaries.push_back(tmp);
    finals.push_back(std::string(path));
    return os;
  }
  LogicalResult commit(std::string &error) {
    for (auto [tmp, path] : llvm::zip(temporaries, finals))
      if (std::error_code ec = llvm::sys::fs::rename(tmp, path)) {
        error = path + ": " + ec.message();
        return failure();
      }
    temporaries.clear();
    return success();
  }

private:
  std::string dir;
  std::vector<std::string> temporaries, finals;
};

/// --no-malloc: the runtime's OpenMP entry points for one thread (every parallel region
/// runs on the caller), printed before the model's code calls them.
const char *kSerialOpenMP = R"c(/* --no-malloc: parallel regions run on the calling thread. */
__attribute__((visibility("hidden"))) uint32_t infc__kmpc_global_thread_num(uint8_t *loc) {
  (void)loc;
  return 0;
}
__attribute__((visibility("hidden"))) void infc__kmpc_fork_call(uint8_t *loc, uint32_t nargs,
                                                                uint8_t *task, ...) {
  (void)loc;
  int32_t tid = 0;
  uint8_t *a[8] = {0};
  va_list ap;
  va_start(ap, task);
  for (uint32_t i = 0; i < nargs && i < 8; ++i)
    a[i] = va_arg(ap, uint8_t *);
  va_end(ap);
  /* The region is defined (in this file) with exactly nargs pointers after the two ids. */
  typedef uint8_t *I;
  typedef uint8_t *P;
  I t = (I)&tid;
  switch (nargs) {
  case 0: ((void (*)(I, I))task)(t, t); break;
  case 1: ((void (*)(I, I, P))task)(t, t, a[0]); break;
  case 2: ((void (*)(I, I, P, P))task)(t, t, a[0], a[1]); break;
  case 3: ((void (*)(I, I, P, P, P))task)(t, t, a[0], a[1], a[2]); break;
  case 4: ((void (*)(I, I, P, P, P, P))task)(t, t, a[0], a[1], a[2], a[3]); break;
  case 5: ((void (*)(I, I, P, P, P, P, P))task)(t, t, a[0], a[1], a[2], a[3], a[4]); break;
  case 6:
    ((void (*)(I, I, P, P, P, P, P, P))task)(t, t, a[0], a[1], a[2], a[3], a[4], a[5]);
    break;
  case 7:
    ((void (*)(I, I, P, P, P, P, P, P, P))task)(t, t, a[0], a[1], a[2], a[3], a[4], a[5],
                                               a[6]);
    break;
  default:
    ((void (*)(I, I, P, P, P, P, P, P, P, P))task)(t, t, a[0], a[1], a[2], a[3], a[4],
                                                  a[5], a[6], a[7]);
  }
}
/* One thread takes every iteration (runtime/threads.c's schedule for a team of one). */
#define INFC__STATIC_INIT(NAME, T, UT)                                                        \
  __attribute__((visibility("hidden"))) void NAME(uint8_t *loc, uint32_t gtid, uint32_t sched,  \
                                                  uint8_t *plast, uint8_t *plower,              \
                                                  uint8_t *pupper, uint8_t *pstride, UT uincr,  \
                                                  UT chunk) {                                   \
    (void)loc, (void)gtid, (void)sched, (void)chunk;                                            \
    T lower, upper, incr = (T)uincr;                                                            \
    memcpy(&lower, plower, sizeof lower);                                                       \
    memcpy(&upper, pupper, sizeof upper);                                                       \
    UT trips = incr > 0 ? (upper < lower ? 0 : ((UT)upper - (UT)lower) / (UT)incr + 1)          \
                        : (upper > lower ? 0 : ((UT)lower - (UT)upper) / ((UT)0 - (UT)incr) + 1); \
    if (trips == 0) {                                                                           \
      lower = upper + incr;                                                                     \
    } else {                                                                                    \
      upper = lower + (T)(trips - 1) * incr;                                                    \
    }                                                                                           \
    memcpy(plower, &lower, sizeof lower);                                                       \
    memcpy(pupper, &upper, sizeof upper);                                                       \
    int32_t last = trips != 0;                                                                  \
    if (plast)                                                                                  \
      memcpy(plast, &last, sizeof last);                                                        \
    T stride = (T)trips * incr;                                                                 \
    if (pstride)                                                                                \
      memcpy(pstride, &stride, sizeof stride);                                                  \
  }
INFC__STATIC_INIT(infc__kmpc_for_static_init_8u, uint64_t, uint64_t)
INFC__STATIC_INIT(infc__kmpc_for_static_init_8, int64_t, uint64_t)
INFC__STATIC_INIT(infc__kmpc_for_static_init_4u, uint32_t, uint32_t)
INFC__STATIC_INIT(infc__kmpc_for_static_init_4, int32_t, uint32_t)
__attribute__((visibility("hidden"))) void infc__kmpc_for_static_fini(uint8_t *loc, uint32_t gtid) {
  (void)loc, (void)gtid;
}
__attribute__((visibility("hidden"))) void infc__kmpc_barrier(uint8_t *loc, uint32_t gtid) {
  (void)loc, (void)gtid;
}
)c";

/// A C file holding the weights as hidden, 64-byte aligned arrays (--embed-weights).
void writeWeightsC(llvm::raw_ostream &os, const std::vector<infc::WeightBlob> &weights) {
  os << "/* Generated by infc (infc compile --emit=c --embed-weights). Do not edit. */\n"
        "#include <stdint.h>\n\n";
  for (const infc::WeightBlob &w : weights) {
    // A string literal of octal escapes (a number list takes gcc gigabytes of memory and
    // minutes for ResNet-18's 45 MB); one byte more than the weights for its NUL.
    size_t n = w.bytes.size() + 1;
    os << "__attribute__((visibility(\"hidden\"), aligned(64))) extern const uint8_t " << w.symbol
       << "[" << n << "];\n"
       << "__attribute__((visibility(\"hidden\"), aligned(64))) const uint8_t " << w.symbol << "["
       << n << "] =";
    char escape[5] = {'\\', 0, 0, 0, 0};
    for (size_t i = 0; i < w.bytes.size(); ++i) {
      if (i % 32 == 0)
        os << (i ? "\"\n\"" : "\n\"");
      unsigned byte = (uint8_t)w.bytes[i];
      escape[1] = '0' + (byte >> 6), escape[2] = '0' + ((byte >> 3) & 7),
      escape[3] = '0' + (byte & 7);
      os << escape;
    }
    os << (w.bytes.empty() ? " \"\";\n\n" : "\";\n\n");
  }
}
/// model_run_static's parameter of input or output `i` (in0_x, out0_y: never `workspace`
/// or `args`, never two alike).
std::string staticParam(const infc::ModelValue &v, StringRef kind, size_t i) {
  return (kind == "input" ? "in" : "out") + std::to_string(i) + "_" + infc::cIdentifier(v.name);
}

/// --no-malloc: model.h declares model_run_static and the sizes, nothing of the ABI.
void writeStaticHeader(raw_ostream &os, const infc::ModelInterface &interface) {
  os << "/* Generated by infc (infc compile --emit=c --no-malloc). Do not edit. */\n"
        "#ifndef INFC_MODEL_STATIC_H\n#define INFC_MODEL_STATIC_H\n\n#include <stdint.h>\n\n"
        "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
        "/* The workspace model_run_static needs: this many bytes, 64-byte aligned (NULL\n"
        "   when 0). One workspace per concurrent call. */\n"
     << "#define MODEL_WORKSPACE_BYTES " << interface.workspaceBytes << "\n"
     << "#define MODEL_WORKSPACE_ALIGN 64\n\n";
  std::string params;
  auto describe = [&](const infc::ModelValue &v, const char *kind, size_t i) {
    int64_t count = 1;
    os << "/* " << kind << " " << i << ": '" << v.name << "' " << infc::dtypeCType(v.dtype) << "[";
    for (size_t d = 0; d < v.shape.size(); ++d) {
      os << (d ? "][" : "") << v.shape[d];
      count *= v.shape[d];
    }
    os << "] */\n#define model_" << kind << "_" << infc::cIdentifier(v.name) << "_COUNT " << count
       << "\n";
    params += std::string(", ") + (StringRef(kind) == "input" ? "const " : "") +
              infc::dtypeCType(v.dtype) + " *" + staticParam(v, kind, i);
  };
  for (auto [i, v] : llvm::enumerate(interface.inputs))
    describe(v, "input", i);
  for (auto [i, v] : llvm::enumerate(interface.outputs))
    describe(v, "output", i);
  os << "\n/* Runs the model once, on the calling thread: dense row-major buffers of the shapes\n"
        "   above, none aliasing another or the workspace. Allocates nothing and cannot fail\n"
        "   (the shapes are the caller's to get right). */\n"
        "void model_run_static(void *workspace"
     << params << ");\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
}

/// --no-malloc: model_run_static, calling the entry with its argument array.
std::string staticEntry(const infc::ModelInterface &interface) {
  std::string params, args = "workspace";
  for (auto [i, v] : llvm::enumerate(interface.inputs)) {
    params +=
        ", const " + std::string(infc::dtypeCType(v.dtype)) + " *" + staticParam(v, "input", i);
    args += ", (void *)" + staticParam(v, "input", i);
  }
  for (auto [i, v] : llvm::enumerate(interface.outputs)) {
    params += ", " + std::string(infc::dtypeCType(v.dtype)) + " *" + staticParam(v, "output", i);
    args += ", (void *)" + staticParam(v, "output", i);
  }
  return "\n/* --no-malloc: the model on the caller's workspace and buffers (model.h). */\n"
         "__attribute__((visibility(\"default\"))) void model_run_static(void *workspace" +
         params + ") {\n  void *args[] = {" + args + "};\n  __infc_entry((uint8_t *)args);\n}\n";
}

/// Runs LLVM's scalarizer over `m`: vector operations split into scalars, or with
/// ScalarizeMinBits into vectors of at most that many bits.
void splitVectors(llvm::Module &m, llvm::TargetMachine &tm,
                  const llvm::ScalarizerPassOptions &options) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cam, mam);
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::ScalarizerPass(options));
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(m, mam);
}

/// A CUDA model's kernels (its one gpu.module, in the NVVM dialect) as CUDA C++: translated
/// to NVPTX LLVM IR, vectors scalarized but for loads and stores (nvcc has no vector types
/// in device code), printed by CWriter. The gpu.module is then replaced by a gpu.binary with
/// no image, so the host code translates (the image comes from nvcc, at run time).
LogicalResult writeKernelsAsCuda(ModuleOp module, const infc::ModelInterface &interface,
                                 std::string &cu, std::string &error) {
  SmallVector<gpu::GPUModuleOp> kernels(module.getOps<gpu::GPUModuleOp>());
  if (kernels.size() != 1) {
    error = "--emit=cuda expects the kernels in one gpu.module (found " +
            std::to_string(kernels.size()) + ")";
    return failure();
  }
  gpu::GPUModuleOp gpuModule = kernels.front();
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> device =
      translateModuleToLLVMIR(gpuModule, ctx, interface.name + "_kernels");
  if (!device) {
    error = "cannot translate the kernels to LLVM IR (see above)";
    return failure();
  }
  // NVPTX's data layout: CWriter's sizes and offsets are the GPU's.
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return failure();
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(triple, "sm_80", "", llvm::TargetOptions(), std::nullopt));
  device->setTargetTriple(triple);
  device->setDataLayout(tm->createDataLayout());
  llvm::ScalarizerPassOptions scalarize;
  scalarize.ScalarizeLoadStore = false; // one 16-byte access stays one
  splitVectors(*device, *tm, scalarize);
  infc::CWriterOptions writer;
  writer.cuda = true;
  llvm::raw_string_ostream os(cu);
  if (failed(infc::writeModuleAsC(*device, writer, os, error)))
    return failure();

  OpBuilder b(gpuModule);
  MLIRContext *mctx = module.getContext();
  ArrayAttr targets = gpuModule.getTargetsAttr();
  if (!targets || targets.empty()) {
    error = "the kernels' gpu.module has no target";
    return failure();
  }
  Attribute object = gpu::ObjectAttr::get(mctx, targets[0], gpu::CompilationTarget::Binary,
                                          StringAttr::get(mctx, ""), nullptr, nullptr);
  gpu::BinaryOp::create(b, gpuModule.getLoc(), gpuModule.getName(), Attribute(),
                        b.getArrayAttr({object}));
  gpuModule.erase();
  return success();
}

/// The host module of a CUDA model, for model.c: its module loader and unloader (MLIR's
/// global constructor and destructor) become infc__kernels_load and infc__kernels_unload,
/// which infc__prepare calls once the image is read, and mgpuModuleLoad takes the image from
/// infc__kernels_image and infc__kernels_size (kKernelsLoader).
LogicalResult hostReadsKernels(llvm::Module &m, std::string &error) {
  auto structor = [&](StringRef list, StringRef name) -> LogicalResult {
    llvm::GlobalVariable *g = m.getGlobalVariable(list);
    auto *entries =
        g && g->hasInitializer() ? dyn_cast<llvm::ConstantArray>(g->getInitializer()) : nullptr;
    if (!entries || entries->getNumOperands() != 1) {
      error = "the CUDA host code has no single " + list.str();
      return failure();
    }
    auto *f = dyn_cast<llvm::Function>(entries->getOperand(0)->getOperand(1));
    if (!f) {
      error = list.str() + " names no function";
      return failure();
    }
    g->eraseFromParent();
    f->setName(name);
    f->setLinkage(llvm::GlobalValue::ExternalLinkage);
    f->setVisibility(llvm::GlobalValue::HiddenVisibility);
    return success();
  };
  if (failed(structor("llvm.global_ctors", "infc__kernels_load")) ||
      failed(structor("llvm.global_dtors", "infc__kernels_unload")))
    return failure();
  llvm::Function *load = m.getFunction("mgpuModuleLoad");
  if (!load || load->getNumUses() != 1) {
    error = "the CUDA host code does not load one module";
    return failure();
  }
  auto *call = cast<llvm::CallInst>(*load->user_begin());
  auto *ptr = llvm::PointerType::get(m.getContext(), 0);
  auto *i64 = llvm::Type::getInt64Ty(m.getContext());
  auto external = [&](StringRef name, llvm::Type *t) {
    auto *g =
        new llvm::GlobalVariable(m, t, false, llvm::GlobalValue::ExternalLinkage, nullptr, name);
    g->setVisibility(llvm::GlobalValue::HiddenVisibility);
    return g;
  };
  llvm::IRBuilder<> b(call);
  llvm::Value *image = call->getArgOperand(0);
  call->setArgOperand(0, b.CreateLoad(ptr, external("infc__kernels_image", ptr)));
  call->setArgOperand(1, b.CreateLoad(i64, external("infc__kernels_size", i64)));
  if (auto *g = dyn_cast<llvm::GlobalVariable>(image); g && g->use_empty())
    g->eraseFromParent();
  return success();
}
} // namespace

LogicalResult infc::emitCSource(ModuleOp module, ModelInterface &interface,
                                const TargetOptions &options, const CSourceOptions &c,
                                StringRef outDir, std::string &error) {
  bool cuda = module->hasAttr("gpu.container_module"); // (interface.cuda's test)
  if (cuda != c.cuda) {
    error = cuda ? "--emit=c writes CPU code; a CUDA model's source is --emit=cuda's"
                 : "--emit=cuda needs --target cuda";
    return failure();
  }
  std::string cu;
  if (cuda && failed(writeKernelsAsCuda(module, interface, cu, error)))
    return failure();
  if (c.noMalloc) {
    std::string why = interface.dimsArg || interface.batchLoop
                          ? "a symbolic dim (fix it with --input-shape)"
                      : interface.decoder.layers > 0 ? "--decoder"
                      : interface.profiledEntry      ? "--profile"
                                                     : "";
    for (const ModelValue &v : interface.inputs)
      if (!v.value.empty())
        why = "--input-value (a run cannot be checked for the value)";
    if (!why.empty()) {
      error = "--no-malloc is for static shapes without runtime checks; not with " + why;
      return failure();
    }
  }
  std::vector<WeightBlob> weights = prepareForEmission(module, interface);
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(options, error);
  if (!tm)
    return failure();
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = buildModelModule(module, interface, *tm, ctx, error);
  if (!m)
    return failure();
  m->setModuleIdentifier(interface.name);
  if (cuda && failed(hostReadsKernels(*m, error)))
    return failure();

  CWriterOptions writer;
  writer.weightsFromFile = !c.embedWeights && !c.noMalloc;
  writer.weightsArray = cuda;
  std::vector<char> blob;
  for (const WeightBlob &w : weights) {
    blob.resize(llvm::alignTo(blob.size(), 64));
    writer.weightOffsets.push_back({w.symbol, blob.size()});
    blob.insert(blob.end(), w.bytes.begin(), w.bytes.end());
  }
  uint64_t hash =
      llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>((const uint8_t *)blob.data(), blob.size()));
  if (c.noMalloc) {
    writer.extraPrelude = std::string("#include <stdarg.h>\n\n") + kSerialOpenMP;
    writer.epilogue = staticEntry(interface);
  } else if (writer.weightsFromFile || cuda) {
    writer.extraPrelude = kPrepareCommon;
    if (writer.weightsFromFile)
      writer.extraPrelude += weightsLoader(blob.size(), hash, writer.weightsArray);
    else
      writer.extraPrelude += "__attribute__((visibility(\"default\"))) void "
                             "infc_weights_file(const char *path) { (void)path; }\n";
    if (cuda)
      writer.extraPrelude += kKernelsLoader;
    writer.extraPrelude += prepareFunction(writer.weightsFromFile, cuda);
    writer.prepare = "infc__prepare";
  } else { // model.h's calls, with nothing to do
    writer.extraPrelude =
        "__attribute__((visibility(\"default\"))) void infc_weights_file(const char *path) "
        "{ (void)path; }\n__attribute__((visibility(\"default\"))) const char "
        "*infc_weights_error(void) { return \"\"; }\n";
  }

  OutputFiles files(outDir);
  if (cuda) {
    std::unique_ptr<llvm::raw_fd_ostream> os = files.open("model.cu", error);
    if (!os)
      return failure();
    *os << cu;
  }
  {
    std::unique_ptr<llvm::raw_fd_ostream> os = files.open("model.c", error);
    if (!os || failed(writeModuleAsC(*m, writer, *os, error)))
      return failure();
  }
  {
    std::unique_ptr<llvm::raw_fd_ostream> os = files.open("model.h", error);
    if (!os)
      return failure();
    std::string why;
    if (c.noMalloc) {
      writeStaticHeader(*os, interface);
    } else if (succeeded(checkHeaderInterface(interface, why))) {
      writeModelHeader(*os, interface, "model.c");
    } else {
      *os << "/* Generated by infc (infc compile --emit=c). Do not edit. */\n"
             "#ifndef INFC_MODEL_H\n#define INFC_MODEL_H\n#include \"infc/runtime.h\"\n"
             "#endif\n";
    }
    if (!c.noMalloc)
      *os << "\n/* The weights file infc_model_create reads (C source without --embed-weights):\n"
             "   PATH from the last call of infc_weights_file(), else $INFC_WEIGHTS, else\n"
             "   model.weights in the working directory. When it cannot, infc_model_create\n"
             "   returns INFC_ERR_UNAVAILABLE and infc_weights_error() says why. */\n"
             "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
             "void infc_weights_file(const char *path);\nconst char *infc_weights_error(void);\n"
          << (cuda ? "/* The kernels nvcc built from model.cu (nvcc -fatbin -o model.fatbin\n"
                     "   model.cu): PATH from the last call of infc_kernels_file(), else\n"
                     "   $INFC_KERNELS, else model.fatbin in the working directory; linked in\n"
                     "   instead with -DINFC_KERNELS_EMBEDDED (docs/portable.md). A failure\n"
                     "   reads as the weights' do. */\nvoid infc_kernels_file(const char *path);\n"
                   : "")
          << "#ifdef __cplusplus\n}\n#endif\n";
  }
  if (writer.weightsFromFile) {
    std::unique_ptr<llvm::raw_fd_ostream> os = files.open("model.weights", error);
    if (!os)
      return failure();
    char header[64] = {};
    memcpy(header, kWeightsMagic, 8);
    uint64_t bytes = blob.size();
    memcpy(header + 8, &bytes, 8);
    memcpy(header + 16, &hash, 8);
    os->write(header, sizeof header);
    os->write(blob.data(), blob.size());
  } else {
    std::unique_ptr<llvm::raw_fd_ostream> os = files.open("weights.c", error);
    if (!os)
      return failure();
    writeWeightsC(*os, weights);
  }
  for (const EmbeddedFile &f : c.noMalloc ? ArrayRef<EmbeddedFile>() : ArrayRef(kRuntimeFiles)) {
    // runtime/model.c and the model's own: the runtime's C files as infc_<name>.c.
    StringRef path = f.path;
    std::string name = path.ends_with(".c") ? "infc_" + path.str() : path.str();
    std::unique_ptr<llvm::raw_fd_ostream> os = files.open(name, error);
    if (!os)
      return failure();
    // The runtime's build defines _POSIX_C_SOURCE (runtime/CMakeLists.txt); a user's
    // -std=c11 would not. Its OpenMP entry points get the names model.c calls (CWriter).
    if (path.ends_with(".c")) {
      *os << "#ifndef _POSIX_C_SOURCE\n#define _POSIX_C_SOURCE 200809L\n#endif\n";
      for (const char *entry : kOpenMPEntries)
        *os << "#define " << entry << " infc" << entry << "\n";
    }
    *os << f.text;
  }
  return files.commit(error);
}

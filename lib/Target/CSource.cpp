//===- CSource.cpp - infc compile --emit=c: the model as a C source tree --===//
//
// The directory holds everything `cc -O3 -c DIR/*.c` needs, nothing of infc's install:
//   model.c         the model's code and descriptor (CWriter.cpp)
//   model.h         the C ABI plus the typed functions of --header, and the weights' calls
//   model.weights   the weights, read by infc_model_create (or weights.c: --embed-weights)
//   infc_*.c, *.h   the runtime's sources; infc/runtime.h, the ABI's header
//
//===----------------------------------------------------------------------===//
#include "TargetMachine.h"
#include "infc/Target/Target.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

namespace {
struct EmbeddedFile {
  const char *path, *text;
};
const EmbeddedFile kRuntimeFiles[] = {
#include "RuntimeSources.inc"
};

/// The weights file: a 64-byte header (magic, blob bytes, the blob's xxh3), then the blob.
constexpr char kWeightsMagic[8] = {'I', 'N', 'F', 'C', 'W', 'T', 'S', '1'};

/// The loader model.c calls through the descriptor's `prepare`: the file is read once per
/// process (under a lock), checked against the size and hash this model was built with.
std::string weightsLoader(uint64_t bytes, uint64_t hash) {
  std::string s = R"c(#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* The weights file (model.weights): infc_model_create reads it once per process. */
static uint8_t *infc__wbase;
static const char *infc__weights_path;
static char infc__weights_why[512];
static pthread_mutex_t infc__weights_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((visibility("default"))) void infc_weights_file(const char *path) {
  pthread_mutex_lock(&infc__weights_lock);
  infc__weights_path = path;
  pthread_mutex_unlock(&infc__weights_lock);
}

__attribute__((visibility("default"))) const char *infc_weights_error(void) {
  return infc__weights_why;
}

static const char *infc__read_weights(void) {
  const char *path = infc__weights_path ? infc__weights_path : getenv("INFC_WEIGHTS");
  if (!path || !*path)
    path = "model.weights";
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(infc__weights_why, sizeof infc__weights_why,
             "cannot open the weights file '%s' (set it with infc_weights_file() or "
             "INFC_WEIGHTS, or build the source with infc compile --embed-weights)", path);
    return infc__weights_why;
  }
  unsigned char header[64];
  uint64_t bytes = 0, hash = 0;
  int ok = fread(header, 1, 64, f) == 64 && memcmp(header, "INFCWTS1", 8) == 0;
  if (ok) {
    memcpy(&bytes, header + 8, 8);
    memcpy(&hash, header + 16, 8);
    ok = bytes == INFC__WEIGHTS_BYTES && hash == INFC__WEIGHTS_HASH;
  }
  /* 64 bytes more than the blob: its start aligned to 64 bytes. */
  uint8_t *block = ok ? (uint8_t *)malloc((size_t)INFC__WEIGHTS_BYTES + 64) : NULL;
  uint8_t *blob = block ? block + (64 - (uintptr_t)block % 64) : NULL;
  if (ok && !block) {
    fclose(f);
    snprintf(infc__weights_why, sizeof infc__weights_why,
             "out of memory reading the weights file '%s'", path);
    return infc__weights_why;
  }
  ok = ok && fread(blob, 1, (size_t)INFC__WEIGHTS_BYTES, f) == (size_t)INFC__WEIGHTS_BYTES &&
       fgetc(f) == EOF;
  fclose(f);
  if (!ok) {
    free(block);
    snprintf(infc__weights_why, sizeof infc__weights_why,
             "'%s' is not the weights file of this model (another model's, or cut short)",
             path);
    return infc__weights_why;
  }
  infc__wbase = blob;
  infc__weights_why[0] = 0;
  return NULL;
}

static const char *infc__prepare(void) {
  pthread_mutex_lock(&infc__weights_lock);
  const char *why = infc__wbase ? NULL : infc__read_weights();
  pthread_mutex_unlock(&infc__weights_lock);
  return why;
}
)c";
  return "#define INFC__WEIGHTS_BYTES UINT64_C(" + std::to_string(bytes) +
         ")\n#define INFC__WEIGHTS_HASH UINT64_C(" + std::to_string(hash) + ")\n" + s;
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

/// A C file holding the weights as hidden, 64-byte aligned arrays (--embed-weights).
void writeWeightsC(llvm::raw_ostream &os, const std::vector<infc::WeightBlob> &weights) {
  os << "/* Generated by infc (infc compile --emit=c --embed-weights). Do not edit. */\n"
        "#include <stdint.h>\n\n";
  for (const infc::WeightBlob &w : weights) {
    os << "__attribute__((visibility(\"hidden\"), aligned(64))) extern const uint8_t " << w.symbol
       << "[" << w.bytes.size() << "];\n"
       << "__attribute__((visibility(\"hidden\"), aligned(64))) const uint8_t " << w.symbol << "["
       << w.bytes.size() << "] = {";
    for (size_t i = 0; i < w.bytes.size(); ++i)
      os << (i ? "," : "") << (i % 24 ? "" : "\n") << (unsigned)(uint8_t)w.bytes[i];
    os << "};\n\n";
  }
}
} // namespace

LogicalResult infc::emitCSource(ModuleOp module, ModelInterface &interface,
                                const TargetOptions &options, const CSourceOptions &c,
                                StringRef outDir, std::string &error) {
  if (interface.cuda) {
    error = "--emit=c writes CPU code; --target cuda is --emit=cuda's (not built yet)";
    return failure();
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

  CWriterOptions writer;
  writer.weightsFromFile = !c.embedWeights;
  std::vector<char> blob;
  for (const WeightBlob &w : weights) {
    blob.resize(llvm::alignTo(blob.size(), 64));
    writer.weightOffsets.push_back({w.symbol, blob.size()});
    blob.insert(blob.end(), w.bytes.begin(), w.bytes.end());
  }
  uint64_t hash =
      llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>((const uint8_t *)blob.data(), blob.size()));
  if (writer.weightsFromFile) {
    writer.extraPrelude = weightsLoader(blob.size(), hash);
    writer.prepare = "infc__prepare";
  } else { // model.h's calls, with nothing to do
    writer.extraPrelude =
        "__attribute__((visibility(\"default\"))) void infc_weights_file(const char *path) "
        "{ (void)path; }\n__attribute__((visibility(\"default\"))) const char "
        "*infc_weights_error(void) { return \"\"; }\n";
  }

  OutputFiles files(outDir);
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
    if (succeeded(checkHeaderInterface(interface, why))) {
      writeModelHeader(*os, interface, "model.c");
    } else {
      *os << "/* Generated by infc (infc compile --emit=c). Do not edit. */\n"
             "#ifndef INFC_MODEL_H\n#define INFC_MODEL_H\n#include \"infc/runtime.h\"\n"
             "#endif\n";
    }
    *os << "\n/* The weights file infc_model_create reads (C source without --embed-weights):\n"
           "   PATH from the last call of infc_weights_file(), else $INFC_WEIGHTS, else\n"
           "   model.weights in the working directory. When it cannot, infc_model_create\n"
           "   returns INFC_ERR_UNAVAILABLE and infc_weights_error() says why. */\n"
           "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
           "void infc_weights_file(const char *path);\nconst char *infc_weights_error(void);\n"
           "#ifdef __cplusplus\n}\n#endif\n";
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
  for (const EmbeddedFile &f : kRuntimeFiles) {
    // runtime/model.c and the model's own: the runtime's C files as infc_<name>.c.
    StringRef path = f.path;
    std::string name = path.ends_with(".c") ? "infc_" + path.str() : path.str();
    std::unique_ptr<llvm::raw_fd_ostream> os = files.open(name, error);
    if (!os)
      return failure();
    // The runtime's build defines this (runtime/CMakeLists.txt); a user's -std=c11 would not.
    if (path.ends_with(".c"))
      *os << "#ifndef _POSIX_C_SOURCE\n#define _POSIX_C_SOURCE 200809L\n#endif\n";
    *os << f.text;
  }
  return files.commit(error);
}

//===- Target.h - from the LLVM dialect to a linked model.so ----*- C++ -*-===//
#ifndef INFC_TARGET_TARGET_H
#define INFC_TARGET_TARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace infc {

/// One graph input or output as the runtime sees it (runtime/model_desc.h).
struct ModelValue {
  std::string name;
  int32_t dtype = 0; // infc_dtype
  std::vector<int64_t> shape;
  /// An input specialized by --input-value: the bytes every run must pass (else empty).
  std::vector<char> value;
  /// Per dim, the index of its name in ModelInterface::dims or -1; empty when none is named.
  std::vector<int32_t> dimIds;
};

/// A named dim (ONNX dim_param) and the sizes runs may give it (`infc compile --dim`).
struct NamedDim {
  std::string name;
  int64_t min = 0, max = INT64_MAX;
};

/// The model's interface, read from `func.func @main` before the pipeline changes it.
struct ModelInterface {
  std::string name;
  std::vector<ModelValue> inputs, outputs;
  /// The dims the inputs and outputs name, inputs' first, in order of appearance.
  std::vector<NamedDim> dims;
  uint64_t workspaceBytes = 0;
  /// A workspace sized at each run (generic code whose dim has no largest size): the bytes
  /// at the run's size d of named dim `workspaceDim` are sum(workspacePolynomial[k] * d^k)
  /// (infc-memory-plan); empty otherwise.
  std::vector<int64_t> workspacePolynomial;
  int32_t workspaceDim = -1;
  /// The entry takes the weights (weightsBytes of them, the global @infc__weights) after the
  /// workspace: --target cuda and its emulator (infc-pack-weights).
  bool weightsArg = false;
  uint64_t weightsBytes = 0;
  /// --target cuda: the entry launches kernels, on device memory.
  bool cuda = false;
  /// Generic code for symbolic dims (`infc compile --dim`): the entry takes the named dims'
  /// sizes (int64, `dims` order) after the workspace (infc-bound-dynamic-entry).
  bool dimsArg = false;
  /// The batch loop (`infc compile --dim` where the model treats a batch row by row): the
  /// entry is the static code of one row, which the runtime calls once per row of the
  /// inputs' and outputs' dim 0 of -1 (docs/dynamic-shapes.md, "3c").
  bool batchLoop = false;
  /// The entry has a profiled copy, @main_profiled (infc-profile-entry), whose timers name
  /// kernel i by profileKernels[i].
  bool profiledEntry = false;
  std::vector<std::string> profileKernels;
  /// A decoder LLM's step (`infc compile --decoder`, the module's `infc.decoder`
  /// dictionary): its geometry for the runtime's KV cache; layers 0 otherwise.
  struct Decoder {
    int32_t layers = 0, heads = 0, kvHeads = 0, headDim = 0;
    int64_t maxPositions = 0; // the position tables' rows (0: unknown)
  } decoder;
};

/// Reads names (`infc.name` attributes), dtypes and static shapes of @main.
llvm::LogicalResult collectModelInterface(mlir::ModuleOp module, ModelInterface &interface);

/// The runtime's dtype code for an MLIR element type (0 if it has none).
int32_t dtypeCode(mlir::Type elementType);

/// Constant data moved out of the IR, emitted into its own object.
struct WeightBlob {
  std::string symbol;
  std::vector<char> bytes;
  /// Not empty: the blob is the bytes of this earlier one (a --specialize library's variants
  /// share them); `bytes` is then empty.
  std::string aliasOf;
};

struct TargetOptions {
  /// empty: the host's; else an LLVM triple (`aarch64-linux-gnu`), a cross compile
  std::string triple;
  std::string cpu; // empty: the host CPU (with its features); for a cross triple, generic
  int optLevel = 3;
};

/// The SIMD register width (bits) of the CPU `options` targets: 512 with AVX-512F, 256
/// with AVX/AVX2, else 128. Empty `error` on success.
int64_t targetVectorBits(const TargetOptions &options, std::string &error);
/// Whether the target CPU has AVX-512 VNNI (vpdpbusd).
bool targetHasAvx512Vnni(const TargetOptions &options);
/// Whether the target has AMX tiles with int8 dot products (tdpbusd and friends).
bool targetHasAmxInt8(const TargetOptions &options);
/// Whether the target has AMX tiles with bf16 dot products (tdpbf16ps).
bool targetHasAmxBf16(const TargetOptions &options);
/// Whether the target has AVX512_BF16 (vdpbf16ps, vcvtneps2bf16).
bool targetHasAvx512Bf16(const TargetOptions &options);
/// Whether the target CPU's vdpbf16ps does twice the multiply-adds of its FMAs a cycle: AMD
/// Zen 4 and later (`znver4`, `znver5`). Intel's cores with AVX512_BF16 issue one a cycle,
/// as many multiply-adds as their two FMA ports.
bool targetHasFastVdpbf16ps(const TargetOptions &options);
/// The register kernel of i8 matmuls on a target without AVX-512 VNNI (infc-vnni-matmul's
/// kernel and vector-bits): vpdpbusd on ymm with AVX-VNNI, else vpmaddwd on zmm with
/// AVX-512BW or on ymm with AVX2; an empty instruction where the target has none of them.
struct Int8Kernel {
  std::string instruction;
  int64_t bits = 0;
};
Int8Kernel targetInt8KernelWithoutAvx512Vnni(const TargetOptions &options);

/// Moves every large constant global of the LLVM-dialect module out of the IR (they become
/// external declarations) so weights never pass through LLVM IR text or optimization.
void extractWeights(mlir::ModuleOp module, std::vector<WeightBlob> &weights,
                    int64_t minBytes = 256);

/// The same, the weights' symbols prefixed (a variant's `__infc_v<i>_`), so the variants of
/// one library never share a name.
void extractWeights(mlir::ModuleOp module, std::vector<WeightBlob> &weights,
                    llvm::StringRef symbolPrefix, int64_t minBytes = 256);

enum class OutputKind { Object, Assembly, LLVMIR };

/// Translates the LLVM-dialect module, adds the runtime descriptor and entry wrapper,
/// optimizes and writes it as `kind`. Errors go to `error`. With `variant` (one static
/// variant of a --specialize library): no descriptor; the entries (`__infc_v<i>_entry`,
/// `..._entry_profiled`) and kernel names (`..._kernel_names`) hidden, the rest local.
llvm::LogicalResult emitModel(mlir::ModuleOp module, const ModelInterface &interface,
                              const TargetOptions &options, OutputKind kind,
                              llvm::raw_pwrite_stream &os, std::string &error,
                              std::optional<unsigned> variant = std::nullopt);

/// The LLVM IR of the model before optimization: the translated module with the runtime
/// descriptor (none for a `variant`) and the entry wrapper, verified; null with `error` set.
std::unique_ptr<llvm::Module> buildModelModule(mlir::ModuleOp module,
                                               const ModelInterface &interface,
                                               llvm::TargetMachine &target, llvm::LLVMContext &ctx,
                                               std::string &error,
                                               std::optional<unsigned> variant = std::nullopt);
/// The C element type of an infc_dtype in the headers infc writes (f16 and bf16 as their
/// bits, the 8-, 4- and 2-bit types a byte each; "void" for none).
const char *dtypeCType(int32_t dtype);
/// `s` as a C identifier: other characters as '_', "m_" before a leading digit.
std::string cIdentifier(llvm::StringRef s);
/// `infc compile --emit=c`: what the source directory holds besides the model's code.
struct CSourceOptions {
  /// The weights as C arrays (weights.c) instead of a file read by infc_model_create.
  bool embedWeights = false;
  /// --no-malloc: model.c and model.h alone (weights embedded, no runtime): one function
  /// runs the model on a workspace and buffers its caller gives, serially, allocating
  /// nothing. Static shapes only.
  bool noMalloc = false;
  /// A CUDA model (--emit=cuda): model.cu holds the kernels as CUDA C++ besides the host
  /// code in model.c, which reads the fatbin nvcc builds from it.
  bool cuda = false;
};
/// Writes the model as C source into `outDir` (created): model.c, the weights (model.weights
/// or weights.c), the runtime's sources and headers. `interface` is updated as by
/// prepareForEmission. A file of the directory is replaced only when all are written.
llvm::LogicalResult emitCSource(mlir::ModuleOp module, ModelInterface &interface,
                                const TargetOptions &options, const CSourceOptions &c,
                                llvm::StringRef outDir, std::string &error);
/// Prints an unoptimized model module as one C translation unit (lib/Target/CWriter.cpp).
/// Each weight symbol of `weightOffsets` is read at that offset from the pointer
/// `infc__wbase` (a weights file) when `weightsFromFile`, else it is an external array.
struct CWriterOptions {
  bool weightsFromFile = false;
  /// With weightsFromFile: the file is read into the static array `infc__wstore` (whose
  /// address a constant initializer may hold: a CUDA model's descriptor), not the heap.
  bool weightsArray = false;
  std::vector<std::pair<std::string, uint64_t>> weightOffsets;
  /// C code printed after the prelude, before the model's globals and functions.
  std::string extraPrelude;
  /// Not empty: the function (of extraPrelude) the descriptor's `prepare` field points at.
  std::string prepare;
  /// C code printed after the model's functions.
  std::string epilogue;
  /// The module is a CUDA model's kernels (NVPTX, from the NVVM dialect): printed as CUDA
  /// C++ for nvcc, each kernel an `extern "C" __global__` function, vectors as structs.
  bool cuda = false;
};
llvm::LogicalResult writeModuleAsC(llvm::Module &module, const CWriterOptions &options,
                                   llvm::raw_ostream &os, std::string &error);
/// One static variant of a --specialize library, for its descriptor: the interface (static
/// shapes, workspace, kernel names) and the label that names it in errors ("batch=8").
struct ModelVariant {
  ModelInterface interface;
  std::string label;
  /// The generic code for the shapes no variant takes (`--dim` beside `--specialize`): not
  /// in the variant table, but the model's entry, with the dims argument.
  bool generic = false;
};

/// Adjusts the model's interface merged from the variants' (the batch loop's -1 and range).
using InterfaceFinish = std::function<void(ModelInterface &)>;

/// The descriptor object of a --specialize library: the variants' table (shapes, entries of
/// the variant objects, workspace), and the model's interface with -1 for every dim the
/// variants do not share, then `finish`ed when given. The first variant's entry is the
/// model's default.
llvm::LogicalResult emitVariantDescriptor(const std::vector<ModelVariant> &variants,
                                          const TargetOptions &options, llvm::raw_pwrite_stream &os,
                                          std::string &error,
                                          const InterfaceFinish &finish = nullptr);

/// Writes the weights as an object: one read-only, 64-byte aligned `.infc_weights`
/// section holding every blob under its hidden symbol.
llvm::LogicalResult emitWeightsObject(const std::vector<WeightBlob> &weights,
                                      const TargetOptions &options, llvm::raw_pwrite_stream &os,
                                      std::string &error);

/// Links objects with the runtime archive into `output` (written to a temporary and renamed,
/// so a failure leaves no file behind).
llvm::LogicalResult linkModel(llvm::ArrayRef<std::string> objects, llvm::StringRef runtimeDir,
                              llvm::StringRef output, std::string &error,
                              const TargetOptions &target = {});

/// The triple `options` names (the host's when it names none), normalized.
std::string targetTriple(const TargetOptions &options);
/// Whether `options` compiles for another architecture than this machine's.
bool isCrossTarget(const TargetOptions &options);

/// What emission needs from the lowered module: the memory plan's workspace size (and a
/// CUDA model's weights size) into `interface`, and the weights pulled out of the IR (code
/// refers to them by symbol).
std::vector<WeightBlob> prepareForEmission(mlir::ModuleOp module, ModelInterface &interface);

/// The lowered module's code and weights as objects, linked with the runtime archive in
/// `runtimeDir` into `output` (nothing is left behind on failure). `weightBytes`: the
/// weights' total size.
llvm::LogicalResult buildModelLibrary(mlir::ModuleOp module, ModelInterface &interface,
                                      const TargetOptions &target, llvm::StringRef runtimeDir,
                                      llvm::StringRef output, int64_t &weightBytes,
                                      std::string &error);

/// Lowers variant `index` of a --specialize library to the LLVM dialect into `module`,
/// filling its interface and label; failure with `error` set (or diagnostics emitted).
using VariantLowering =
    std::function<llvm::LogicalResult(size_t index, mlir::OwningOpRef<mlir::ModuleOp> &module,
                                      ModelVariant &variant, std::string &error)>;

/// A --specialize library: `count` static variants, each lowered by `lower` and emitted
/// on its own (one lowered module alive at a time), their weights in one object with the
/// blobs they share stored once, the variants' descriptor, linked into `output`.
/// `weightBytes`: the weights' size, shared blobs counted once.
llvm::LogicalResult buildVariantLibrary(size_t count, const VariantLowering &lower,
                                        const TargetOptions &target, llvm::StringRef runtimeDir,
                                        llvm::StringRef output, int64_t &weightBytes,
                                        std::string &error,
                                        const InterfaceFinish &finish = nullptr);

/// Whether `--header` can describe the interface: every dim that varies (-1) is named,
/// so that the typed functions can take its size. Else `error` says which.
llvm::LogicalResult checkHeaderInterface(const ModelInterface &interface, std::string &error);

/// The typed C header of `--header`: shapes as constants and a run function with one
/// pointer per input and output; with dims that vary, their sizes as the functions'
/// first arguments (count and shape functions instead of constants).
void writeModelHeader(llvm::raw_ostream &os, const ModelInterface &interface,
                      llvm::StringRef libraryPath);

} // namespace infc

#endif // INFC_TARGET_TARGET_H

//===- CudaFatbin.cpp - PTX to a fatbin of cubins with ptxas and fatbinary ===//
//
// The driver loads a fatbin and picks the image for its GPU: a cubin compiled ahead of time
// for each requested architecture, else the PTX, compiled just in time on a newer GPU.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

namespace infc {
#define GEN_PASS_DEF_INFCCUDAFATBIN
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

std::optional<unsigned> infc::gpuArchVersion(StringRef arch) {
  unsigned sm;
  if (!arch.consume_front("sm_") || (arch.consume_back("a"), arch.size() < 2) ||
      arch.getAsInteger(10, sm))
    return std::nullopt;
  return sm;
}

bool infc::isNvptxProcessor(StringRef arch) {
  static const char *triple = "nvptx64-nvidia-cuda";
  static const llvm::Target *target = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    std::string error;
    return llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  }();
  if (!target)
    return true; // no NVPTX back end to ask: ptxas will tell
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(llvm::Triple(triple), "", ""));
  return !info || info->isCPUStringValid(arch);
}

namespace {
/// A private temporary directory, removed with everything in it.
struct TempDir {
  llvm::SmallString<128> path;
  ~TempDir() {
    if (!path.empty())
      llvm::sys::fs::remove_directories(path);
  }
  std::string file(const llvm::Twine &name) const {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    return p.str().str();
  }
};

struct InfcCudaFatbinPass : public infc::impl::InfcCudaFatbinBase<InfcCudaFatbinPass> {
  using InfcCudaFatbinBase::InfcCudaFatbinBase;

  /// Runs `tool` of the toolkit; on failure `error` holds its command and messages.
  bool runTool(StringRef tool, ArrayRef<std::string> args, const TempDir &dir, std::string &error) {
    llvm::SmallString<128> exe(toolkit);
    llvm::sys::path::append(exe, "bin", tool);
    if (!llvm::sys::fs::can_execute(exe)) {
      error = "the CUDA toolkit has no " + tool.str() + " at " + exe.str().str() +
              " (install it, or point --cuda-path at the toolkit)";
      return false;
    }
    SmallVector<StringRef> argv = {exe};
    for (const std::string &a : args)
      argv.push_back(a);
    std::string log = dir.file(tool + ".log");
    std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log), StringRef(log)};
    std::string message;
    int rc = llvm::sys::ExecuteAndWait(exe, argv, std::nullopt, redirects, 0, 0, &message);
    if (rc == 0)
      return true;
    error = llvm::join(argv, " ") + " failed";
    if (!message.empty())
      error += ": " + message;
    if (auto text = llvm::MemoryBuffer::getFile(log); text && (*text)->getBufferSize())
      error += ":\n" + (*text)->getBuffer().take_front(4000).rtrim().str();
    return false;
  }

  FailureOr<std::string> fatbin(StringRef ptx, Location loc) {
    TempDir dir;
    std::string error;
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("infc-cuda", dir.path)) {
      emitError(loc) << "cannot create a temporary directory: " << ec.message();
      return failure();
    }
    std::string ptxFile = dir.file("kernels.ptx"), out = dir.file("kernels.fatbin");
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(ptxFile, ec);
      if (ec) {
        emitError(loc) << "cannot write " << ptxFile << ": " << ec.message();
        return failure();
      }
      os << ptx;
    }
    std::vector<std::string> images;
    for (const std::string &arch : archs) {
      StringRef sm = StringRef(arch).drop_front(3);
      std::string cubin = dir.file(arch + ".cubin");
      if (!runTool("ptxas", {"-arch=" + arch, "-O3", ptxFile, "-o", cubin}, dir, error)) {
        emitError(loc) << "ptxas rejected the kernels for " << arch << ": " << error;
        return failure();
      }
      images.push_back("--image3=kind=elf,sm=" + sm.str() + ",file=" + cubin);
    }
    // The PTX is that of the oldest architecture: every newer GPU can compile it.
    unsigned oldest = ~0u;
    for (const std::string &arch : archs)
      oldest = std::min(oldest, *infc::gpuArchVersion(arch)); // checked in runOnOperation
    images.push_back("--image3=kind=ptx,sm=" + std::to_string(oldest) + ",file=" + ptxFile);
    std::vector<std::string> args = {"-64", "--create=" + out};
    args.insert(args.end(), images.begin(), images.end());
    if (!runTool("fatbinary", args, dir, error)) {
      emitError(loc) << error;
      return failure();
    }
    auto buffer = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
    if (!buffer) {
      emitError(loc) << "cannot read " << out << ": " << buffer.getError().message();
      return failure();
    }
    return (*buffer)->getBuffer().str();
  }

  void runOnOperation() override {
    if (archs.empty()) {
      getOperation().emitError("infc-cuda-fatbin: no GPU architecture given");
      return signalPassFailure();
    }
    for (const std::string &arch : archs)
      if (!infc::gpuArchVersion(arch)) {
        getOperation().emitError("infc-cuda-fatbin: '") << arch
                                                        << "' is not a GPU architecture "
                                                           "(sm_80, sm_90, ...)";
        return signalPassFailure();
      }
    WalkResult walk = getOperation().walk([&](gpu::BinaryOp binary) {
      auto objects = binary.getObjects();
      auto object = objects.empty() ? gpu::ObjectAttr()
                                    : dyn_cast<gpu::ObjectAttr>(objects.getValue().front());
      if (!object || object.getFormat() != gpu::CompilationTarget::Assembly) {
        binary.emitError("infc-cuda-fatbin: expected the kernels as PTX "
                         "(gpu-module-to-binary format=isa)");
        return WalkResult::interrupt();
      }
      FailureOr<std::string> bytes = fatbin(object.getObject().getValue(), binary.getLoc());
      if (failed(bytes))
        return WalkResult::interrupt();
      MLIRContext *ctx = &getContext();
      auto fat = gpu::ObjectAttr::get(ctx, object.getTarget(), gpu::CompilationTarget::Fatbin,
                                      StringAttr::get(ctx, *bytes), object.getProperties(),
                                      object.getKernels());
      binary.setObjectsAttr(ArrayAttr::get(ctx, {fat}));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

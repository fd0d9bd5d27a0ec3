//===- Linker.cpp - link objects and the runtime into model.so ------------===//
#include "infc/Target/Target.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/TargetParser/Triple.h"

#ifndef INFC_LINKER_DRIVER
#define INFC_LINKER_DRIVER "cc"
#endif

using namespace llvm;

LogicalResult infc::linkModel(ArrayRef<std::string> objects, StringRef runtimeDir, StringRef output,
                              std::string &error, const TargetOptions &target) {
  // A cross target's runtime is the same sources built for it, in <lib>/<arch>-linux-gnu.
  bool cross = isCrossTarget(target);
  std::string arch = Triple::getArchTypeName(Triple(targetTriple(target)).getArch()).str();
  SmallString<256> archive(runtimeDir), exports(runtimeDir);
  if (cross)
    sys::path::append(archive, arch + "-linux-gnu");
  sys::path::append(archive, "libinfc_runtime.a");
  sys::path::append(exports, "infc_exports.map");
  for (StringRef f : {StringRef(archive), StringRef(exports)})
    if (!sys::fs::exists(f)) {
      error = "runtime file '" + f.str() + "' is missing (" +
              (cross ? "the runtime is built for " + arch +
                           " when its C library is installed: libc6-dev-arm64-cross and "
                           "libgcc-12-dev-arm64-cross"
                     : std::string("is infc installed completely?")) +
              ")";
      return failure();
    }
  ErrorOr<std::string> driver = sys::findProgramByName(INFC_LINKER_DRIVER);
  if (!driver)
    driver = sys::findProgramByName("cc");
  if (!driver) {
    error = "no linker driver found (" INFC_LINKER_DRIVER " or cc)";
    return failure();
  }
  // Link to a temporary beside the output, then rename: never a half-written model.so.
  SmallString<256> temp(output);
  temp += ".tmp-%%%%%%";
  int fd;
  if (std::error_code ec = sys::fs::createUniqueFile(temp, fd, temp)) {
    error = "cannot create '" + temp.str().str() + "': " + ec.message();
    return failure();
  }
  sys::fs::closeFile(fd);
  std::string versionScript = "-Wl,--version-script=" + exports.str().str();
  SmallVector<StringRef> args = {*driver, "-shared", "-o", temp};
  std::string crossTarget = "--target=" + arch + "-linux-gnu";
  if (cross) { // clang links for another architecture with lld
    args.push_back(crossTarget);
    args.push_back("-fuse-ld=lld");
  }
  for (const std::string &o : objects)
    args.push_back(o);
  // The model object calls nothing in the runtime: take the whole archive (the ABI).
  args.push_back("-Wl,--whole-archive");
  args.push_back(archive);
  args.push_back("-Wl,--no-whole-archive");
  std::string soname = "-Wl,-soname," + sys::path::filename(output).str();
  args.push_back(soname);
  for (StringRef a :
       {StringRef(versionScript), StringRef("-Wl,-Bsymbolic"), StringRef("-Wl,-z,defs"),
        StringRef("-Wl,-z,noexecstack"), StringRef("-Wl,-z,relro"), StringRef("-Wl,-z,now"),
        StringRef("-Wl,--as-needed"), StringRef("-lm")})
    args.push_back(a);
  // The linker's own output is kept and reported in the error, not streamed to the user.
  SmallString<128> log;
  if (std::error_code ec = sys::fs::createTemporaryFile("infc-link", "log", log)) {
    sys::fs::remove(temp);
    error = "cannot create a temporary file: " + ec.message();
    return failure();
  }
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log), StringRef(log)};
  std::string message;
  int rc = sys::ExecuteAndWait(*driver, args, std::nullopt, redirects, 0, 0, &message);
  auto logText = MemoryBuffer::getFile(log);
  sys::fs::remove(log);
  if (rc != 0) {
    sys::fs::remove(temp);
    std::string details = logText ? (*logText)->getBuffer().trim().str() : message;
    std::replace(details.begin(), details.end(), '\n', ' ');
    error = "linking failed (" + *driver + " exited with " + std::to_string(rc) + "): " + details;
    return failure();
  }
  if (std::error_code ec = sys::fs::rename(temp, output)) {
    sys::fs::remove(temp);
    error = "cannot write '" + output.str() + "': " + ec.message();
    return failure();
  }
  return success();
}

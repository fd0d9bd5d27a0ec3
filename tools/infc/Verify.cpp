//===- Verify.cpp - infc verify: the per-node comparison with onnxruntime --===//
//
// The comparison needs onnxruntime and the onnx package, which are Python: `infc verify`
// runs the infc Python package's verify module (python/infc/verify.py, which does the
// work) with this compiler, found beside it as installed, in a wheel or in a checkout.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <optional>
#include <vector>

extern char **environ;

using namespace llvm;

/// The directory that holds the `infc` Python package for the compiler at `exe`: the
/// installed prefix's share/infc/python, a wheel's site-packages (the compiler is
/// infc/_compiler/bin/infc there), or a checkout's python/ (the compiler in build/bin).
static std::optional<std::string> pythonPackageDir(StringRef exe) {
  StringRef prefix = sys::path::parent_path(sys::path::parent_path(exe));
  std::vector<SmallString<256>> candidates(3, SmallString<256>(prefix));
  sys::path::append(candidates[0], "share", "infc", "python");
  sys::path::append(candidates[1], "..", "..");
  sys::path::append(candidates[2], "..", "python");
  for (SmallString<256> &dir : candidates) {
    SmallString<256> module(dir);
    sys::path::append(module, "infc", "verify.py");
    if (sys::fs::exists(module))
      return std::string(dir);
  }
  return std::nullopt;
}

int infc::verifyCommand(const Args &args, const char *argv0) {
  std::string exe = sys::fs::getMainExecutable(argv0, (void *)&pythonPackageDir);
  std::optional<std::string> dir = pythonPackageDir(exe);
  // Exit status 2 for verify's own failures: 1 means "a node diverges".
  if (!dir) {
    fail("verify: the infc Python package (infc/verify.py) is not beside this compiler; run "
         "`python3 -m infc.verify` with the package on PYTHONPATH");
    return 2;
  }
  ErrorOr<std::string> python = sys::findProgramByName("python3");
  if (!python) {
    fail("verify: python3 not found on PATH (verify runs onnxruntime from Python)");
    return 2;
  }
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e) {
    StringRef var(*e);
    if (!var.starts_with("PYTHONPATH=") && !var.starts_with("INFC_COMPILER="))
      env.push_back(var.str());
  }
  std::optional<std::string> pythonPath = sys::Process::GetEnv("PYTHONPATH");
  env.push_back("PYTHONPATH=" + *dir + (pythonPath ? ":" + *pythonPath : ""));
  env.push_back("INFC_COMPILER=" + exe); // this infc, whatever the environment names
  std::vector<StringRef> argv = {*python, "-m", "infc.verify"};
  for (const std::string &a : args)
    argv.push_back(a);
  std::vector<StringRef> envRefs(env.begin(), env.end());
  std::string error;
  int rc = sys::ExecuteAndWait(*python, argv, envRefs, {}, 0, 0, &error);
  if (rc < 0) {
    fail("verify: cannot run " + *python + ": " + error);
    return 2;
  }
  return rc;
}

//===- FuzzImport.cpp - libFuzzer target: ONNX bytes to a verified infc module ---===//
//
// Any bytes either fail to import with errors or give a module that verifies. A crash, a
// sanitizer report, or a module that does not verify is a bug. External data is looked up
// beside a path that does not exist, so it fails cleanly.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  infc::fuzz::importAndCheck(llvm::StringRef((const char *)data, size), /*lower=*/false);
  return 0;
}

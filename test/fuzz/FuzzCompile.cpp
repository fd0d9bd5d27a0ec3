//===- FuzzCompile.cpp - libFuzzer target: import, graph passes and lowering -----===//
//
// Structure-aware: the mutator parses the input as a ModelProto and changes one thing a
// malformed model would (an attribute's value or type, a dim, a dtype, a node's wiring, an op
// type), falling back to byte mutations for what does not parse. Models that import run
// through the graph passes and the lowering to the LLVM dialect (no object code); small
// tensors only, to keep each run short.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  size_t n = infc::fuzz::mutateModel(data, size, maxSize, seed);
  return n ? n : LLVMFuzzerMutate(data, size, maxSize);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  infc::fuzz::importAndCheck(llvm::StringRef((const char *)data, size), /*lower=*/true);
  return 0;
}

//===- FuzzSupport.h - what the ONNX fuzz targets share ----------*- C++ -*-===//
#ifndef INFC_TEST_FUZZ_FUZZSUPPORT_H
#define INFC_TEST_FUZZ_FUZZSUPPORT_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>

namespace infc::fuzz {

/// Imports `bytes` as an ONNX model. Failing with errors is fine; a module that imports must
/// verify (else the target traps). With `lower`, an imported model whose tensors are all
/// small runs through the graph passes and the lowering to the LLVM dialect.
void importAndCheck(llvm::StringRef bytes, bool lower);

/// Parses `data` as a ModelProto and changes one thing in it, as a malformed model would
/// differ from a valid one; the new size, or 0 when `data` does not parse (or the result
/// would not fit `maxSize`).
size_t mutateModel(uint8_t *data, size_t size, size_t maxSize, unsigned seed);

} // namespace infc::fuzz

#endif // INFC_TEST_FUZZ_FUZZSUPPORT_H

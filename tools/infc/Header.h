//===- Header.h - the per-model C header of --header ------------*- C++ -*-===//
#ifndef INFC_TOOLS_INFC_HEADER_H
#define INFC_TOOLS_INFC_HEADER_H

#include "infc/Target/Target.h"
#include "llvm/Support/raw_ostream.h"

namespace infc {
/// Shapes as constants and a typed run function (one pointer per input and output).
void writeModelHeader(llvm::raw_ostream &os, const ModelInterface &interface,
                      llvm::StringRef libraryPath);
} // namespace infc

#endif // INFC_TOOLS_INFC_HEADER_H

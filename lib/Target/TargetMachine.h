//===- TargetMachine.h - the LLVM TargetMachine for a compile ---*- C++ -*-===//
#ifndef INFC_LIB_TARGET_TARGETMACHINE_H
#define INFC_LIB_TARGET_TARGETMACHINE_H

#include "infc/Target/Target.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>

namespace infc {
/// The host triple with options.cpu (or the host CPU and its features), PIC code.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const TargetOptions &options,
                                                         std::string &error);
} // namespace infc

#endif // INFC_LIB_TARGET_TARGETMACHINE_H

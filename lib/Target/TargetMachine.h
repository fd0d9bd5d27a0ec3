//===- TargetMachine.h - the LLVM TargetMachine for a compile ---*- C++ -*-===//
#ifndef INFC_LIB_TARGET_TARGETMACHINE_H
#define INFC_LIB_TARGET_TARGETMACHINE_H

#include "infc/Target/Target.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>

namespace infc {
/// The host triple with options.cpu (or the host CPU and its features), PIC code.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const TargetOptions &options,
                                                         std::string &error);

/// A module of data only (weights, a descriptor), on the target's triple, written as an
/// object: `fill` adds its globals, it is verified and emitted without optimization.
llvm::LogicalResult emitDataObject(const TargetOptions &options, llvm::StringRef name,
                                   llvm::function_ref<void(llvm::Module &)> fill,
                                   llvm::raw_pwrite_stream &os, std::string &error);
} // namespace infc

#endif // INFC_LIB_TARGET_TARGETMACHINE_H

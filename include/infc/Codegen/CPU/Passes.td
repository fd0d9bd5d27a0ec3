//===- Passes.td - infc CPU code generation passes --------------*- tablegen -*-===//
#ifndef INFC_CODEGEN_CPU_PASSES_TD
#define INFC_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def InfcMemoryPlan : Pass<"infc-memory-plan", "mlir::ModuleOp"> {
  let summary = "Place every static buffer of the entry function in one workspace arena";
  let description = [{
    After bufferization, each `memref.alloc` of static shape in the entry function's body
    becomes a `memref.view` into a new leading argument `memref<N x i8>` (the session's
    workspace), at an offset chosen so buffers whose live ranges overlap never overlap in
    memory (greedy by size, 64-byte aligned). Live ranges follow aliases (views, reshapes)
    to their last use. The module gets `infc.workspace_bytes = N`. No allocation is left
    for run time.
  }];
  let options = [
    Option<"entryName", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def InfcLowerCopies : Pass<"infc-lower-copies", "mlir::func::FuncOp"> {
  let summary = "Turn memref.copy into linalg.copy so it lowers to loops";
  let description = [{
    A `memref.copy` between strided buffers lowers to a call of `memrefCopy` from MLIR's
    runner utilities, which a model.so must not depend on. As `linalg.copy` it becomes
    plain loops (contiguous copies still become memcpy after LLVM's idiom recognition).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

#endif // INFC_CODEGEN_CPU_PASSES_TD

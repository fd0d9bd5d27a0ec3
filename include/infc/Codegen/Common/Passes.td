//===- Passes.td - infc code generation passes of every target --*- tablegen -*-===//
#ifndef INFC_CODEGEN_COMMON_PASSES_TD
#define INFC_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def InfcUniqueResults : Pass<"infc-unique-results", "mlir::func::FuncOp"> {
  let summary = "Give each repeat of a returned buffer a copy of its own";
  let description = [{
    After one-shot bufferization, before buffer-results-to-out-params: a memref that a
    `func.return` returns more than once (two graph outputs of one tensor) is returned
    once; each repeat returns a new 64-byte-aligned `memref.alloc` with a `memref.copy` of
    it. buffer-results-to-out-params' hoist-static-allocs replaces a returned alloc by the
    out-parameter and erases it, which it cannot do twice.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def InfcBoundDynamicEntry : Pass<"infc-bound-dynamic-entry", "mlir::ModuleOp"> {
  let summary = "Give the entry's symbolic dims as an argument and its buffers at their bounds";
  let description = [{
    After bufferization and buffer-results-to-out-params, for an entry function whose
    inputs or outputs have symbolic dims (`infc compile --dim`): a new leading argument
    `memref<K x i64>` holds the sizes of the K named dims, in the order they first appear
    in the inputs' `infc.dims` (the runtime's dim table). Each buffer argument of a
    dynamic shape becomes a flat static `memref<N x T>` (N its elements at the dims' bounds,
    `infc.dim_ranges`), reinterpreted densely at the run's sizes; a size is read from the
    argument and clamped to its bound with `affine.min`, so the sizes of the buffers derived
    from it have constant upper bounds (infc-memory-plan places them at those bounds). An
    output's sizes are those of the buffer copied into it. Every argument is then static:
    the entry keeps bare pointers. Modules without symbolic dims are left alone.
  }];
  let options = [
    Option<"entryName", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def InfcMemoryPlan : Pass<"infc-memory-plan", "mlir::ModuleOp"> {
  let summary = "Place every static buffer of the entry function in one workspace arena";
  let description = [{
    After bufferization, each `memref.alloc` of static shape in the entry function's body
    becomes a `memref.view` into a new leading argument `memref<N x i8>` (the session's
    workspace), at an offset chosen so buffers whose live ranges overlap never overlap in
    memory (greedy by size, 64-byte aligned). Live ranges follow aliases (views, reshapes)
    to their last use. The module gets `infc.workspace_bytes = N`. No allocation is left
    for run time: an allocation it cannot place (inside a loop, or of a dynamic shape) is an
    error, since the model would malloc it on every run and never free it. The exception is
    a loop over images (`infc.by_image`, a batch's convolution one image at a time): its
    body's static buffers, but one it yields, move before it and serve every image.

    With `kernel-groups` (the CUDA pipeline), the buffers read by the ops that
    infc-linalg-to-gpu-loops may run as one kernel stay live until the group's last op:
    a reduction (linalg op with a reduction loop), the all-parallel linalg ops right before
    it that write one of its inputs (computed inside its loads), and the all-parallel ones
    right after it, each reading the output of the one before (its epilogues: a bias add,
    then a transpose). A fused kernel writes its outputs
    while other threads still read those buffers, so they must not share bytes. So does
    every buffer a row group touches (infc/Codegen/Common/KernelGroups.h: one kernel of a block
    per row), to the group's last op, and every buffer a point group touches (a run of
    all-parallel ops over the same points: one kernel of a thread a point).
  }];
  let options = [
    Option<"entryName", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
    Option<"kernelGroups", "kernel-groups", "bool", /*default=*/"false",
           "Keep the inputs of a fusible producer, reduction and epilogue live across the "
           "group (the CUDA kernels' fusion)">,
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

def InfcFuseElementwise : Pass<"infc-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse chains of elementwise linalg ops, never into a contraction";
  let description = [{
    Upstream's elementwise fusion also folds a bias add or activation into the matmul that
    produces it, which turns the named `linalg.matmul` into a generic contraction the matmul
    code generation no longer recognizes. This pass fuses only when producer and consumer
    are both all-parallel ops, plus the reshape propagation that enables it.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"];
}

def InfcLowerVectors : Pass<"infc-lower-vectors", "mlir::func::FuncOp"> {
  let summary = "Lower vector.contract and transfers to FMAs, loads and stores";
  let description = [{
    In three small pattern groups (one mixed group is very slow to converge): contractions to
    outer products; outer products, transposes and broadcasts to FMAs; transfers to loads and
    stores and shape casts.
  }];
  let dependentDialects = ["mlir::vector::VectorDialect", "mlir::memref::MemRefDialect"];
}

def InfcProfileEntry : Pass<"infc-profile-entry", "mlir::ModuleOp"> {
  let summary = "Add a copy of the entry function that times each kernel";
  let description = [{
    The runtime's profiler (INFC_PROFILE, infc bench --per-node) calls this copy instead of
    the entry, so a run that is not profiled executes no timer and no check. Run after the
    loops are final (memory plan, parallel loops) and before the host lowering: the copy,
    `@<entry>_profiled`, has the entry's signature and body, with each kernel (a maximal
    run of top-level ops that loop, call or write memory, and that come from the same ONNX
    nodes) between `func.call @infc__prof_begin(id)` and `@infc__prof_end(id)`. A kernel is
    named by the ONNX nodes whose ops it contains (their `NameLoc`s, in order); kernels of
    the same nodes share an id. The names, indexed by id, go to the module attribute
    `infc.profile_kernels`, which the model's descriptor carries.
  }];
  let options = [
    Option<"entryName", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::arith::ArithDialect"];
}

def InfcOutlineParallelRegions : Pass<"infc-outline-parallel-regions", "mlir::ModuleOp"> {
  let summary = "Move each omp.parallel of an LLVM function into a function of its own";
  let description = [{
    The last pass before translation to LLVM IR. The OpenMP translation outlines each
    `omp.parallel` region with LLVM's CodeExtractor, which scans the whole function that
    holds it for every region: quadratic in a model's entry, where a transformer has
    hundreds of parallel loops (the 12-layer encoder's generic code spent about 100 s of
    its compile there). Each `omp.parallel` directly inside an `llvm.func` (not within
    another) becomes an `llvm.call` of a new internal `llvm.func` (`<function>_par_<N>`)
    whose arguments are the values the region uses from outside, its body the region; the
    LLVM inliner may put it back after translation. Functions without one are left alone.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // INFC_CODEGEN_COMMON_PASSES_TD

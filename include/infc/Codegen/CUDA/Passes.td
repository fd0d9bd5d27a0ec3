//===- Passes.td - infc CUDA code generation passes -------------*- tablegen -*-===//
#ifndef INFC_CODEGEN_CUDA_PASSES_TD
#define INFC_CODEGEN_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def InfcPadToGeneric : Pass<"infc-pad-to-generic", "mlir::func::FuncOp"> {
  let summary = "Turn tensor.pad into one linalg.generic over the padded result";
  let description = [{
    Bufferized, a `tensor.pad` is a fill of the whole result and a copy of the source into
    it: two kernels on a GPU, the interior written twice. This pass rewrites a pad of static
    shape, non-negative static amounts and a padding value from outside its region into a
    `linalg.generic` over the result whose body reads the source at the clamped index
    (`tensor.extract`) and selects the padding value outside it: one kernel, each element
    written once. A `linalg.transpose` whose only user is the pad, or the pad's only user,
    folds into the same loop nest (it reads the source permuted, or runs over the
    transposed result): the NCHW image into an NHWC network, an NCHW pad into an NHWC
    convolution. Other pads are left alone.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def InfcDuplicateFills : Pass<"infc-duplicate-fills", "mlir::func::FuncOp"> {
  let summary = "Give every user of a linalg.fill of a tensor.empty, or of a tensor.empty, its own";
  let description = [{
    CSE merges identical fills, so reductions of the same output shape share one filled
    tensor; bufferized, each user but one gets a copy of it (a kernel that reads and writes
    the whole output) and the fill no longer precedes the reduction that
    `infc-linalg-to-gpu-loops` would fold it into. Each user of a fill of a `tensor.empty`
    with several users gets a new empty tensor and fill right before it. CSE merges the
    `tensor.empty` ops too, and bufferization then writes all their users into one buffer
    in turn (a residual add into the buffer its convolution's padding reads, which keeps
    them from sharing a kernel): each user of a shared `tensor.empty` gets its own, right
    before it, and the memory plan decides what shares bytes.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"];
}

def InfcNarrowIntegerOperands : Pass<"infc-narrow-integer-operands", "mlir::func::FuncOp"> {
  let summary = "Let i32 matmuls and convolutions of widened bytes read the bytes";
  let description = [{
    An int8 model's products multiply i32 tensors holding 8-bit numbers: an elementwise
    `extsi`/`extui` of i8 bytes, or i32 constants in the s8 range. Every i32 linalg matmul,
    batch matmul and `conv_2d_nchw_fchw` on tensors with such an operand is generalized to
    read the i8 bytes and extend them in its payload (a quarter of the bytes; the int8
    tensor cores' operands, u8 or s8 on either side).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def InfcDepthMajorWeights : Pass<"infc-depth-major-weights", "mlir::func::FuncOp"> {
  let summary = "Store the constant operands of 16-bit and int8 contractions reduction-innermost";
  let description = [{
    The tensor-core kernels for 16-bit and byte operands stage both inputs with the
    reduction along the rows of shared memory (a fragment register holds neighbours along
    it). An input read with a tile dimension innermost (a matmul's weights [K][N]) is then
    transposed on the way in, element by element. For every contraction on tensors that
    `infc-linalg-to-gpu-loops` would run on those kernels (f16 or bf16 inputs summed in
    f32, bytes summed in i32), each input that is a dense constant read through a
    permutation with a non-reduction dimension innermost is transposed at compile time so
    that its reduction dimensions come last (in loop order), its indexing map permuted to
    match: its chunks are then consecutive along the reduction, one 16-byte load and one
    16-byte shared store each.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::arith::ArithDialect"];
}

def InfcSplitReduction : Pass<"infc-split-reduction", "mlir::func::FuncOp"> {
  let summary = "Split the reduction of a contraction too small for the GPU's SMs";
  let description = [{
    A contraction on tensors that `infc-linalg-to-gpu-loops` would run as a tiled kernel
    (TiledContraction.h) with fewer blocks of its smallest tile (32 x 32) than `min-blocks`
    has few blocks walking a long reduction each: a batch-1 ResNet-50's last 3x3 convs are
    32 blocks of 144 steps on 132 SMs. Its outermost reduction dimension whose range allows
    it is split into S slices (S a power of two up to `max-splits`, the least that gives
    `min-blocks` blocks, each slice at least `min-depth` of the reduction): the contraction
    gets a parallel dimension for the slice, read by both inputs (a batch dimension of the
    tiled kernel: S times the blocks), and writes S partial sums into a new tensor; an
    elementwise generic adds them up (and the fill value or output it started from), which
    the epilogue then fuses into (infc-fuse-elementwise). The partial sums take S times the
    output's bytes.
  }];
  let options = [
    Option<"minBlocks", "min-blocks", "int64_t", /*default=*/"132",
           "blocks below which a contraction is split (an H100/H200's SMs)">,
    Option<"minDepth", "min-depth", "int64_t", /*default=*/"256",
           "the least reduction a slice keeps">,
    Option<"maxSplits", "max-splits", "int64_t", /*default=*/"16",
           "the most slices">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def InfcLowerPrecision : Pass<"infc-lower-precision", "mlir::func::FuncOp"> {
  let summary = "Store the operands of f32 matmuls and convolutions in fp16 or bf16";
  let description = [{
    `infc compile --precision fp16|bf16`: every f32 linalg matmul, batch matmul and
    convolution (on tensors) is generalized, its inputs converted to the half type (constant
    weights at compile time, other inputs by an elementwise conversion before it) and widened
    back to f32 in its payload: products and sums stay f32. A product of two halves is exact
    in f32, so the results are what a tensor core computes, and the operand bytes are halved.
    Everything else stays f32.
  }];
  let options = [
    Option<"precision", "precision", "::infc::Precision", /*default=*/"::infc::Precision::FP16",
           "fp16 or bf16",
           [{::llvm::cl::values(clEnumValN(::infc::Precision::FP16, "fp16", "fp16"),
                                clEnumValN(::infc::Precision::BF16, "bf16", "bf16"))}]>,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def InfcHalfActivations : Pass<"infc-half-activations", "mlir::func::FuncOp"> {
  let summary = "Store the f32 activations between kernels in fp16 or bf16";
  let description = [{
    `infc compile --precision fp16|bf16`, after `infc-lower-precision`: the f32 result of
    an elementwise `linalg.generic` (all loops parallel, its output not read) whose every
    reader takes its elements as they are (an input of a `linalg.generic`, a
    `tensor.extract`, also through `tensor.extract_slice`, `tensor.expand_shape`,
    `tensor.collapse_shape` and `linalg.transpose`, which then move halves) is stored in
    the half type: the producer truncates what it yields, each reader widens what it reads
    back to f32. A conv's epilogue writes halves that the next conv's padding reads (half
    the bytes of every activation between kernels, as a framework's fp16 model stores
    them); the truncation LowerPrecision put before a contraction folds away. Arithmetic
    stays f32: the contractions' and reductions' sums, and the payloads of elementwise ops.
    Not converted: a value a model output or anything else reads (an insert_slice, the
    output of another op), a contraction's or reduction's result. With `mode=rounded`, only
    a value that every reader rounds to the half type anyway (a contraction's operand, its
    padding; through max, min, negation, a select against a constant the half type holds,
    which commute with rounding): the results are bit for bit those of f32 storage (a
    residual stream that a LayerNorm reads stays f32).
  }];
  let options = [
    Option<"precision", "precision", "::infc::Precision", /*default=*/"::infc::Precision::FP16",
           "fp16 or bf16",
           [{::llvm::cl::values(clEnumValN(::infc::Precision::FP16, "fp16", "fp16"),
                                clEnumValN(::infc::Precision::BF16, "bf16", "bf16"))}]>,
    Option<"mode", "mode", "::infc::Activations", /*default=*/"::infc::Activations::Half",
           "half (every value whose readers take its elements as they are) or rounded "
           "(only those each reader rounds to half anyway)",
           [{::llvm::cl::values(clEnumValN(::infc::Activations::Half, "half", "half"),
                                clEnumValN(::infc::Activations::Rounded, "rounded", "rounded"))}]>,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def InfcPackWeights : Pass<"infc-pack-weights", "mlir::ModuleOp"> {
  let summary = "Put every constant the entry function reads into one weights argument";
  let description = [{
    A GPU model reads its weights from device memory, uploaded once per model. After
    bufferization, each `memref.get_global` of a constant global in the entry function
    becomes a `memref.view` into a new argument `memref<N x i8>` (attribute
    `infc.weights`, inserted at `arg-index`), at a 64-byte aligned offset. The bytes of all
    those globals, in that layout, become one public constant global `@infc__weights` that
    the runtime uploads; the module gets `infc.weights_bytes = N`. The replaced globals are
    erased. A global without a dense constant value is an error.
  }];
  let options = [
    Option<"entryName", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
    Option<"argIndex", "arg-index", "unsigned", /*default=*/"1",
           "Position of the new weights argument">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def InfcLinalgToGpuLoops : Pass<"infc-linalg-to-gpu-loops", "mlir::func::FuncOp"> {
  let summary = "Lower linalg ops on buffers to loops that reduce in registers";
  let description = [{
    Each linalg op with static loop ranges becomes an `scf.parallel` over its parallel
    dimensions (none: the loops stand alone) whose body loads the outputs once, runs the
    reduction dimensions as nested `scf.for` carrying the partial results as loop values,
    and stores them once. Upstream's `convert-linalg-to-parallel-loops` loads and stores the
    output in every reduction step, a global-memory round trip per multiply-add on a GPU.
    Inputs the payload does not read (a pooling window) are not loaded. A `linalg.fill` of a
    reduction's output right before it (nothing between touches that buffer) is folded in:
    the reduction starts from the fill value instead of reading the output, and the fill
    kernel is gone (also past linalg ops between that don't touch its buffer). The
    all-parallel ops right after a reduction, each reading the output of the one before
    (or a reshape of it: expand_shape, collapse_shape) at a permutation of its point (a bias
    add, an activation, attention's transpose to heads), are fused into it as a chain of
    epilogues: the same thread applies each to the value just computed, at its point (an
    output only the next link reads is not stored; a link may write in place at the same
    point), unless a link's output may share bytes with what the kernel reads or another
    link writes. An all-parallel op right before a reduction that writes one of its inputs
    (or what a reshape of it is) whole (identity map; a convolution's padding, a cast to
    half, the shift of uint8 activations, a transpose) is fused the other way
    (`prologues`): its payload runs where the reduction loads that input, and the input is
    never written, as long as nothing else reads it (the next op using the buffer
    overwrites it) and the reduction's kernel writes nothing the payload reads
    (infc-memory-plan's `kernel-groups` keeps those buffers apart). Ops it does not match
    (dynamic shapes) are left for upstream's lowering.

    Last (`point-groups`), the all-parallel ops left on their own form point groups
    (`infc/Codegen/Common/KernelGroups.h`: runs over the same loop ranges, an LSTM cell's gates,
    past independent ops of other ranges, which move before the run): one parallel loop
    nest each, every point running the ops in turn, when every access to memory the group
    writes is that point of the same buffer.

    A contraction (two inputs, a payload `out + a * b`: matmul, batch matmul, a convolution
    as an implicit GEMM) of at least 32 rows and columns and a reduction of at least 16
    becomes one `gpu.launch` instead (`TiledContraction.cpp`): square output tiles of 128,
    64 or 32 per block of 16 x 16 threads (the largest that still gives `tile-min-blocks`
    blocks), both inputs staged through shared memory a reduction step at a time (the next
    step's elements loaded into registers while this one is computed), each
    thread's piece of the tile accumulated in private memory (registers), the fill and
    epilogue folded in as above. `tile-min-blocks=0` turns it off. With f16 or bf16 inputs
    summed in f32 (`--precision fp16|bf16`) or bytes summed in i32 (int8 models) the kernel
    runs on tensor cores (`tensor-cores`): 64 x 64 tiles of four warps, each 2 x 4
    `nvvm.mma.sync` fragments (m16n8k16; bytes m16n8k32, each side s8 or u8) kept as loop
    values over 32-deep reduction steps staged in shared memory with the reduction along
    the rows, the fragments loaded with `nvgpu.ldmatrix` x4 (one for an A fragment, one for
    two B fragments). With
    `tf32` (`--precision tf32`), f32 contractions take the same tiles as TF32:
    `nvgpu.mma.sync` m16n8k8, the inputs rounded to TF32 as they are staged.

    First (`row-kernels`), the row groups (`infc/Codegen/Common/KernelGroups.h`: reductions of
    the trailing loop dims into the leading "row" dims, of at least 32 elements a row, with
    a known combiner such as add or max, and the all-parallel ops right before and after
    them over the same rows: a LayerNorm, a softmax) become one `gpu.launch` each
    (`RowKernels.cpp`): a block per row, its threads splitting each op's points of the row,
    a reduction's per-thread partial results combined by warp shuffles (the warps' through
    shared memory; values other than 32-bit by a shared-memory tree), a barrier
    between ops. Only when every access to memory the group writes stays in the block's
    row of the same buffer (through reshapes); otherwise the ops lower one by one.
  }];
  let options = [
    Option<"rowKernels", "row-kernels", "bool", /*default=*/"true",
           "Run row groups (LayerNorm, softmax) as one kernel of a block per row">,
    Option<"tileMinBlocks", "tile-min-blocks", "int64_t", /*default=*/"132",
           "Blocks a tiled contraction's grid should reach (the GPU's SMs); 0: no tiling">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Contractions of f16 or bf16 inputs summed in f32 (and of bytes in i32) on "
           "tensor cores (mma.sync)">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "Contractions of f32 inputs and sums on tensor cores as TF32 (mma.sync)">,
    Option<"prologues", "prologues", "bool", /*default=*/"true",
           "Run the all-parallel op that writes a reduction's input inside its loads">,
    Option<"pointGroups", "point-groups", "bool", /*default=*/"true",
           "Run runs of all-parallel ops over the same points as one loop nest">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect", "mlir::nvgpu::NVGPUDialect",
                           "mlir::NVVM::NVVMDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::vector::VectorDialect"];
}

def InfcMapToGpu : Pass<"infc-map-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Run every loop nest of the entry function as a GPU kernel";
  let description = [{
    After bufferization and `convert-linalg-to-parallel-loops`, each top-level `scf.parallel`
    of the entry function becomes one `gpu.launch`: its iteration space is flattened into a
    1-D grid of `threads`-wide blocks, the innermost dimension fastest (so neighbouring
    threads touch neighbouring elements and memory accesses coalesce), and each thread runs
    the loop body for its point. Any other top-level op that touches memory (an `scf.for`
    of a full reduction, a lone load or store) runs as a one-thread kernel. The kernels go
    into the module `@infc_kernels`, each named after its ONNX node, for
    `gpu-kernel-outlining`.

    A top-level load of a buffer the function never writes (a Pad's run-time padding value)
    is moved into the kernels that use its value. The host function is left with launches
    and memref views only: an op that would read device memory on the host is an error
    naming it.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"256", "Threads per block">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def InfcAlignSharedMemory : Pass<"infc-align-shared-memory", "mlir::gpu::GPUModuleOp"> {
  let summary = "Align every kernel's workgroup (shared) buffers to 32 bytes";
  let description = [{
    Sets `llvm.align = 32` on each workgroup attribution of the outlined kernels (unless it
    asks for more), which convert-gpu-to-nvvm gives the shared-memory global: the
    tensor-core kernels' ldmatrix rows must be 16-byte aligned, and without it a buffer of
    f16 is aligned to 2 bytes.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def InfcKernelsToNVVM : Pass<"infc-kernels-to-nvvm", "mlir::ModuleOp"> {
  let summary = "The outlined kernels to the NVVM dialect, with bare pointers where every "
                "kernel's buffers are static";
  let description = [{
    Chooses the kernels' calling convention once for the whole model, then lowers each
    `gpu.module` (nvgpu's ldmatrix and mma.sync, then convert-gpu-to-nvvm,
    canonicalization, CSE, cast reconciliation) with the index width asked for.

    When every memref argument of every device function has a static shape, strides and
    offset, the kernels take bare pointers: one parameter a buffer instead of a descriptor of
    3 + 2 x rank (ResNet-50: 3547 -> 341 parameters), its shape and strides being
    constants in the kernel anyway. The module is then marked `infc.bare_pointer_kernels`
    for infc-launches-to-llvm, which lowers the launches to match. Otherwise the kernels
    take descriptors.

    `index-bitwidth=32` computes the kernels' indices in 32 bits. It needs bare pointers,
    no argument of indices (an `index`, or a memref or vector of them: 64-bit on the
    host), and every argument's extent (the offset of its last element, plus one) at most
    2^30; otherwise it is an error that names the kernel and the argument. The headroom
    below 2^31 is for the index arithmetic of threads past a tensor's end (a tile's
    guarded rows compare rows, not linear offsets): an argument, not a proof that no
    intermediate overflows. Not the default: without a GPU to time it, the PTX says only
    that it trades 64-bit arithmetic for a 64-bit widening at every access.
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "the kernels' index width: 64 or 32">,
  ];
  // What the nested pipeline's conversions create.
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::cf::ControlFlowDialect", "mlir::memref::MemRefDialect",
                           "mlir::gpu::GPUDialect"];
}

def InfcLaunchesToLLVM : Pass<"infc-launches-to-llvm", "mlir::ModuleOp"> {
  let summary = "The host's kernel launches to the LLVM dialect, in the kernels' convention";
  let description = [{
    Runs upstream's gpu-to-llvm in the kernels' convention: where infc-kernels-to-nvvm
    marked the module `infc.bare_pointer_kernels` (the mark is removed), a launch passes
    each buffer's aligned pointer, the kernel rebuilding the rest of the descriptor from
    its static type; otherwise whole descriptors. (Upstream's host option decides for the
    kernels too when set, so both follow the mark; the host functions were lowered
    before, with bare pointers, by func-to-llvm.)
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
                           "mlir::gpu::GPUDialect"];
}

def InfcCudaFatbin : Pass<"infc-cuda-fatbin", "mlir::ModuleOp"> {
  let summary = "Replace each gpu.binary's PTX by a fatbin: a cubin per GPU, and the PTX";
  let description = [{
    `gpu-module-to-binary{format=isa}` leaves the kernels as PTX. This pass compiles that PTX
    with the CUDA toolkit's `ptxas` for every architecture in `archs` and packs the cubins
    and the PTX (which the driver compiles for GPUs newer than any of them) into one fatbin
    with `fatbinary`; the CUDA driver picks the image for the device at load time. The
    tools' messages are reported on failure.
  }];
  let options = [
    ListOption<"archs", "archs", "std::string", "GPU architectures (sm_80, sm_90, ...)">,
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"/usr/local/cuda\"",
           "CUDA toolkit holding bin/ptxas and bin/fatbinary">,
  ];
}

def InfcGpuLaunchToLoops : Pass<"infc-gpu-launch-to-loops", "mlir::func::FuncOp"> {
  let summary = "Run each gpu.launch as loops over its blocks and threads (the emulator)";
  let description = [{
    `infc compile --target cuda-emulator`: the kernels exactly as `infc-map-to-gpu` wrote
    them, run on the CPU, so the GPU lowering is tested against onnxruntime on machines
    without a GPU. Each launch becomes nested `scf.for` over its blocks (z, y, x) and, inside,
    over its threads (z, y, x) around its body. A kernel with barriers (`gpu.barrier` in its
    body, or in an `scf.for` there) is split at them: every thread runs the code up to a
    barrier before any runs past it. Pure values computed before a barrier are recomputed
    after it; the loop values of a loop with barriers live in a buffer of one per thread
    (their starting and yielded values computed after the last barrier before the loop and
    in the body, or pure); any other
    value crossing a barrier, or a barrier elsewhere, is an error. Workgroup (shared) memory
    becomes one buffer the blocks use in turn, private memory one slice per thread of a
    buffer. A warp-level op (`gpu.shuffle`; `nvgpu.mma.sync` or `nvvm.mma.sync`,
    with the independent mma.syncs right after it) splits the kernel as a barrier does:
    each thread leaves the values it shares in buffers, a shuffle reads its source lane's,
    an mma.sync has the warp's lane that runs first (lane 0; with race-check the last)
    gather its whole A and B from the lanes' fragments
    (nvgpu's layout) and each lane compute its own elements of the product. An
    `nvgpu.ldmatrix` reads, for each lane, the rows its source lanes point at (their
    indices computed again from their thread ids: pure index arithmetic).

    `race-check` runs the blocks and the threads of each piece last first, fills every
    block's shared and private memory with a poison (NaN; bytes 0xA5) before it runs, and
    the workspace (the `infc.workspace` argument) with the bytes 0xFF when a run starts. A
    kernel whose threads only read what a barrier (or a warp-level op) made theirs, whose
    blocks only read what no other block of the launch writes, and that reads no memory
    before something wrote it, gives the same bits either way: compared with a plain run,
    any difference is a race or a read of memory nothing wrote. It also asserts before
    each 1-D `vector.load` and `vector.store` that its elements lie inside its memref's
    footprint (upstream's generate-runtime-verification, which the pipeline runs after
    this pass, checks memref loads, stores and views).
  }];
  let options = [
    Option<"raceCheck", "race-check", "bool", /*default=*/"false",
           "blocks and threads last first, shared and private memory poisoned per "
           "block, the workspace per run, 1-D vector loads and stores asserted in bounds">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect", "mlir::vector::VectorDialect",
                           "mlir::affine::AffineDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::cf::ControlFlowDialect"];
}

#endif // INFC_CODEGEN_CUDA_PASSES_TD

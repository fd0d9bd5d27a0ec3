//===- Passes.td - infc CPU code generation passes --------------*- tablegen -*-===//
#ifndef INFC_CODEGEN_CPU_PASSES_TD
#define INFC_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def InfcVnniMatmul : Pass<"infc-vnni-matmul", "mlir::func::FuncOp"> {
  let summary = "Run i8 x i8 -> i32 matmuls on AVX-512 VNNI (vpdpbusd), AMX or vpmaddwd";
  let description = [{
    Matches `linalg.matmul` on i32 whose A is an i8 tensor sign- or zero-extended by an
    elementwise `linalg.generic` and whose B is a constant with every value in the s8 range
    (the integer matmuls of quantized models, zero points already folded into B or applied
    after). vpdpbusd multiplies unsigned bytes of A by signed bytes of B, four along K into
    each i32 lane: B is packed at compile time into 16-column panels of [K/4][16] i32 words
    (four s8 of one column each, K zero-padded), A at run time into words of four u8 along
    K (a signed A is offset by 128, and the accumulators start from -128 x the column sums
    of B, so the result is unchanged). The kernel: a loop over pairs of panels (parallel
    from four pairs on, or when there are no more row tiles than pairs; else its row tiles
    are), tiles of 8 rows x 2 panels (16 accumulators; then single rows), a K loop of 16
    vpdpbusd (the LLVM intrinsic, called from the vector code) against two 16-lane loads of
    B and 8 broadcasts of A; an odd last panel runs alone after the loop. Other matmuls are
    left alone.

    With `amx` (the target has AMX-INT8), the same matmuls become AMX tile products
    instead: A as [M, K] bytes and B as tiles of [K/4][16 x 4] bytes, M padded to 16 rows
    and K to 64 bytes, no offsets (tdpbusd, tdpbsud and tdpbssd take either signedness), in a
    `linalg.generic` marked `infc.amx` that infc-amx-tiles lowers after bufferization.

    With `kernel=vpmaddwd` (a target without VNNI: AVX2 at `vector-bits=256`, AVX-512BW at
    512), the same register kernel multiplies words of two K-consecutive values extended
    to i16 (vpmaddwd: two exact products per i32 lane, then a vpaddd), with no offsets.
    (vpmaddubsw would take bytes but saturates its i16 pair sums.) At `vector-bits=256`
    either kernel runs on ymm (vpdpbusd: AVX-VNNI, e.g. Alder Lake): tiles of 6 rows x 2
    panels of 8 lanes (12 accumulators of 16 registers) instead of 8 x 2 of 16.
  }];
  let options = [
    Option<"amx", "amx", "bool", /*default=*/"false",
           "emit AMX tile products (lowered by infc-amx-tiles) instead of vpdpbusd">,
    Option<"kernel", "kernel", "std::string", /*default=*/"\"vpdpbusd\"",
           "the register kernel's instruction: vpdpbusd (AVX-512 VNNI) or vpmaddwd (AVX2, "
           "AVX-512BW)">,
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"512",
           "the register kernel's width: 512 (zmm), or 256 (ymm: AVX2's vpmaddwd, "
           "AVX-VNNI's vpdpbusd)">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::vector::VectorDialect",
                           "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect"];
}

def InfcBf16Matmul : Pass<"infc-bf16-matmul", "mlir::func::FuncOp"> {
  let summary = "Run f32 matmuls with constant weights on AMX-BF16 tiles (--precision bf16)";
  let description = [{
    Matches static `linalg.matmul` on f32 whose B is a constant (the weights of a linear
    layer, a Gemm, or a convolution's im2col product). B is rounded to bf16 (to nearest,
    ties to even) and packed at compile time as AMX B tiles: [ceil(N/16), K/2, 16 x 2] bf16,
    K padded to 32 with zero rows and N to 16 with zero columns. A is rounded to bf16 at
    run time by an elementwise `linalg.generic` (or read as it is where it is an `arith.extf`
    of bf16 values, as convert-infc-to-linalg leaves a convolution's im2col rows in bf16)
    and zero-padded to [M rounded up to 16, K rounded up to 32]. The product, accumulated
    in f32, is a `linalg.generic` marked `infc.amx` (C [M, P, 16] f32 += A [M, K/2, 2] x
    B [P, K/2, 16, 2]) that infc-amx-tiles lowers to tdpbf16ps after bufferization; the
    matmul's result is its top-left [M, N] corner. A matmul whose A is not f32 is left
    alone.

    With `kernel=vdpbf16ps` (AVX512_BF16 without AMX), the same packed B feeds a register
    kernel instead: a loop over pairs of 16-column panels (`infc.parallel`; with fewer than
    four pairs and more row tiles, each pair's row tiles are), tiles of 8 rows x 2 panels
    of f32 accumulators (then single rows; an odd last panel alone), per K pair two panel
    loads and one broadcast of each row's bf16 pair into `llvm.x86.avx512bf16.dpbf16ps.512`.
    A's rows are not padded to 16 there.

    A static `linalg.batch_matmul` of two f32 activations with a zero-filled init, K of 64
    or more and 16 rows or more (attention's QK^T and PV) takes the same kernels: A rounded
    and padded and B rounded and packed into B tiles at run time, each for the whole batch
    (an elementwise generic reading B[batch, 2q + t, 16p + j] for tile value [batch, p, q,
    j, t]), then an `scf.for` over the batch of either kernel's product, inserted into C.
  }];
  let options = [
    Option<"kernel", "kernel", "std::string", /*default=*/"\"amx\"",
           "amx (AMX-BF16 tiles, tdpbf16ps) or vdpbf16ps (AVX512_BF16's register kernel)">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect", "mlir::LLVM::LLVMDialect"];
}

def InfcWeightOnlyMatmul : Pass<"infc-weight-only-matmul", "mlir::func::FuncOp"> {
  let summary = "Store the constant weights of f32 matmuls as int8 or int4 per group (--weights)";
  let description = [{
    Weight-only quantization. Matches static `linalg.matmul` on f32 with a zero-filled init
    whose B is a constant [K, N] of finite values with K of 64 or more (the weights of a
    linear layer, a Gemm, a decoder's projections and LM head). Each column's K values are
    cut into groups of `group` (0: one group a column); a group's scale is its largest
    magnitude / 127 and its values are rounded to int8 (to nearest, ties to even; a group of
    zeros has scale 0). B becomes two constants: the int8 values as [ceil(N/16), K, 16]
    panels and the scales as [ceil(N/16), ceil(K/group), 16] f32, zero past N (panels of 8
    columns at `vector-bits=256`). The product is a register kernel on f32: per K step each
    panel's 16 bytes are sign-extended, converted and multiplied by their group's scales
    (the dequantized weights, exactly `float(q) * scale`), then each row's A value,
    broadcast, is multiplied and added into rows x 2 panels of accumulators
    (infc::panelKernel's loops: tiles of 8 rows, 4 at 256 bits, then single rows against 4
    panels). So the result is the f32 matmul by the dequantized weights; the matmul's
    result is the product's leading [M, N] block.

    With `bits=4`: a group's minimum lo and scale (largest - lo) / 15, values
    round((w - lo) / scale) in [0, 15] (0 where the scale is 0); B as [ceil(N/16),
    ceil(K/2), 16] bytes (K steps 2w and 2w + 1 of a column in the low and high nibble of
    byte w) and parameters [ceil(N/16), groups, 32] f32 (the scales, then the minimums).
    The kernel's step is a word of two K steps: the bytes zero-extended, each nibble
    masked or shifted, converted and dequantized by one fma (fma(q, scale, lo)), each row's
    two A values read together (masked with a zero past an odd K) and broadcast. A matmul
    marked `infc.lm_head` (a decoder's LM head) takes int8 at the same group instead; one
    marked `infc.conv` (a convolution through im2col) stays f32, as does one whose weights
    hold a NaN or an infinity or (int4) a group whose range overflows.
  }];
  let options = [
    Option<"bits", "bits", "int64_t", /*default=*/"8",
           "8 (int8, a scale per group) or 4 (int4, a scale and a minimum per group; "
           "int8 for a matmul marked infc.lm_head)">,
    Option<"group", "group", "int64_t", /*default=*/"64",
           "K values of a column that share a scale: a power of two from 16, or 0 (a column); "
           "64 whatever `bits` (infc compile's --weights int4 passes 32)">,
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"512",
           "the target's vector width: panels of 16 columns and tiles of 8 rows at 512, "
           "8 and 4 at 256 (16 ymm registers)">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect"];
}

def InfcAmxTiles : Pass<"infc-amx-tiles", "mlir::func::FuncOp"> {
  let summary = "Lower the AMX tile products of infc-vnni-matmul and infc-bf16-matmul to amx ops (on memrefs)";
  let description = [{
    Each `linalg.generic` marked `infc.amx` (C [M, P, 16] i32 += A [M, K/4, 4] x
    B [P, K/4, 16, 4], bytes extended by their signedness, M a multiple of 16 and K of 64;
    or C [M, P, 16] f32 += A [M, K/2, 2] x B [P, K/2, 16, 2] of bf16, K a multiple of 32)
    becomes a loop over blocks of 2 column tiles, marked `infc.parallel`, and inside it a
    loop over blocks of 2 row tiles (an odd last row tile and an odd last panel then get loops
    of 1 x 2 and 2 x 1 blocks of their own, and their corner a 1 x 1 block) (the other way round when A has more bytes than
    B: the larger operand's blocks outside, each read once, the smaller one read again from
    L2 for each): zeroed 16x16 i32 accumulator tiles, then per
    64-byte K step the A and B tile loads and one `amx.tile_muli` (`amx.tile_mulf` for
    bf16) per accumulator, unrolled over K, then the tile stores into C. Past 256 K steps
    (or `k-chunk` steps), K runs in chunks in a sequential loop between the two block loops,
    C's tiles stored and reloaded between chunks. Runs after bufferization. Operands are
    read as contiguous rows at any offset (one matrix of a batch, a block of generic code's
    rows); another strided view keeps the generic as a plain contraction.
  }];
  let options = [
    Option<"kChunk", "k-chunk", "int64_t", /*default=*/"0",
           "K steps a pass of the inner block loop takes (0: all of K): with more, a "
           "sequential loop over chunks of K between the two block loops, C's tiles stored "
           "and reloaded between chunks">
  ];
  let dependentDialects = ["mlir::amx::AMXDialect", "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def InfcImplicitConv : Pass<"infc-implicit-conv", "mlir::func::FuncOp"> {
  let summary = "Register-tile the implicit-GEMM convolutions (infc.implicit_conv generics)";
  let description = [{
    convert-infc-to-linalg writes a stride-1 NHWC convolution of one image as a
    `linalg.generic` marked `infc.implicit_conv = [KH, KW, Wp]` over a wide output
    Y'[OH * Wp, F] = sum over taps t and channels c of X[m + (t / KW) * Wp + t % KW, c] *
    W[t, c, f]: each tap reads the padded input shifted by a row offset, no im2col copy.
    This pass packs W into panels as wide as infc-tile-and-vectorize-matmul's register tile
    (at compile time) and writes the kernel directly: a loop over the panels (or, with one
    panel, over the row tiles) marked `infc.parallel`, or a parallel loop over the row
    tiles, each over the panels, where those share out more evenly over 2 and 4 threads
    and all the weights fit in 512 KiB, mr x nr accumulators carried through
    loops over the taps and the channels, each step a `vector.contract` of an mr x 1 column
    of X and a 1 x nr panel row; a static edge tile for the rows left. When the wide output
    is only read through the slice of its [1, OH, OW, F] pixels, each tile row (a pixel)
    is stored at its place in such an output and the garbage columns are not stored; an
    elementwise op on that slice reading nothing else but per-channel [F] vectors (the
    bias, the activation) then runs on each row before its store, and is removed. K rows
    (tap, channel) whose weights are all zero (a space-to-depth stem's taps past the
    original kernel), if an eighth or more, are dropped: the taps then run one after the
    other, each a loop over its runs of channels. A generic marked `[KH, KW, Wp, S, OW]`
    (pixel rows: output row m reads input row (m / OW) * S * Wp + (m % OW) * S plus the
    tap's offset) gets the same kernel, each tile row's input row computed once per tile
    and each K step's A column gathered from those rows; when its result is only reshaped
    to [1, OH, OW, F], each row is stored at its pixel (through a per-channel epilogue as
    above). A 1x1 convolution of more than 64 pixels (a filled matmul of constant weights
    reshaped to [1, OH, OW, F]) whose result or per-channel epilogue is padded is first
    written as such pixel rows, so that its rows land in the pad's interior.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"256",
           "SIMD register width of the target (decides the register tile)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
                           "mlir::tensor::TensorDialect", "mlir::arith::ArithDialect"];
}

def InfcUnrollKLoops : Pass<"infc-unroll-k-loops", "mlir::func::FuncOp"> {
  let summary = "Unroll the K loops of float register tiles";
  let description = [{
    An innermost `scf.for` that carries only vectors and runs `vector.contract` or
    `vector.fma` ops (the K loop of a register tile of infc-tile-and-vectorize-matmul or
    infc-implicit-conv) is unrolled by `factor` (a remainder loop takes the steps left):
    the next steps' loads issue under the current step's FMAs and the loop overhead is
    shared. Runs after infc-prefetch-panels, which matches one step an iteration.
  }];
  let options = [
    Option<"factor", "factor", "uint64_t", /*default=*/"4", "K steps per iteration">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def InfcPrefetchPanels : Pass<"infc-prefetch-panels", "mlir::func::FuncOp"> {
  let summary = "Prefetch the next block of packed weights, spread over the row tiles";
  let description = [{
    After bufferization. A register tile's K loop that reads row k of a block of a packed
    panel (`memref.subview %W[%p, %kOff, 0] [1, kc, nr]`, kc <= K, %p the induction
    variable of the panel loop) under row loops of constant trip counts (T row tiles in
    all) also prefetches (`memref.prefetch`, locality 2: into L2) its share of the next
    block: row tile r fetches floats [r * kc * d, (r + 1) * kc * d) of it, d = max(1,
    nr / T) floats in each K step (one prefetch per 16), at an address affine in the step,
    so the T * kc steps fetch the block once, at an even rate. The next block is that of panel %p + 1, or, when the panel loop steps
    through its panels' K blocks inside it (`infc.panel_k_blocks`, infc-pack-matmul-panels'
    form for few rows against weights from memory), the one after it in memory; the row
    tiles are then those between the block and the K loop. infc-implicit-conv's pixel rows
    read row %r of the whole panel (`memref.subview %W[%p, %r, 0] [1, 1, nr]`, %r a
    function of the K loop's and the taps loops' variables): kc is K, the step the row
    %r, and the taps loops count as no row tiles. A single tile over all of K (a remainder
    tile, a one-tile stream) gets none, nor a loop over one panel read whole.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def InfcPackMatmulPanels : Pass<"infc-pack-matmul-panels", "mlir::func::FuncOp"> {
  let summary = "Pack the B operand of linalg.matmul into contiguous nr-wide column panels";
  let description = [{
    Each static f32 `linalg.matmul` C[M, N] = A[M, K] x B[K, N] becomes a loop (marked
    `infc.parallel`) over N / nr panels, each `linalg.matmul` A x Bp[p] into C[:, p*nr ..]
    with Bp[p] a contiguous [K, nr] matrix. A constant B is packed at compile time (the
    packed weight replaces it); another B is packed by a run-time copy when M is at least
    `min-rows-for-runtime-pack`. The last, partial panel is zero-padded and computed into
    a scratch tile. When A is larger than `k-block-min-bytes`, K is stepped in blocks of
    128-512 (a serial loop around the panel loop) so a block of A stays in L2; for a few
    rows (M <= 64) against a B over twice `row-block-max-b-bytes`, the blocks are stepped
    inside the parallel panel loop (marked `infc.panel_k_blocks`), each panel's in order. nr is the
    register tile width of infc-tile-and-vectorize-matmul for this M (panelWidthFor); the
    last N mod nr columns are a panel of their own, one, two or four vectors wide. A matmul
    directly in an `scf.for` marked `infc.weight_batch` whose B is slice `iv` of a constant
    [batch, K, N] (`iv` the loop's index: Winograd's 16 positions) is packed too: every
    matrix of the batch at compile time into one [batch, panels, K, nr] constant, sliced
    at `iv` in the loop.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"256",
           "SIMD register width of the target (decides the panel width)">,
    Option<"minRowsForRuntimePack", "min-rows-for-runtime-pack", "int64_t",
           /*default=*/"16", "Smallest M for which a non-constant B is packed at run time">,
    Option<"kBlockMinBytes", "k-block-min-bytes", "int64_t", /*default=*/"4194305",
           "Size of A above which K is stepped in blocks that fit L2 (serial outer loop)">,
    Option<"rowBlockMaxBBytes", "row-block-max-b-bytes", "int64_t", /*default=*/"1048576",
           "Size of the packed B up to which the loop over row blocks of A is the outer one "
           "(all of B stays in L2; A streams once)">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Apply the matmul's elementwise consumer (bias, activation, residual) per panel">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def InfcTileAndVectorizeMatmul : Pass<"infc-tile-and-vectorize-matmul", "mlir::func::FuncOp"> {
  let summary = "Tile linalg.matmul to register tiles and vectorize them (on tensors)";
  let description = [{
    Each static `linalg.matmul` [M, N, K] is tiled to an mr x nr register tile with K in
    steps of one (loop order N, M, K, so a B panel stays in cache across M), vectorized,
    turned into `vector.contract`, and its accumulator is hoisted out of the K loop. After
    bufferization, `infc-lower-vectors` turns each contract into broadcast-FMAs. Tiles are
    sized to the register file: 6 x 16 f32 (12 ymm accumulators) for AVX2, 6 x 64 (24 zmm)
    for AVX-512, 8 x 48 or 7 x 48 there for M = 128 or 49 (chooseRegisterTile in
    TileUtils.cpp; a three-vector tile runs as one-vector column tiles, interleaved row by
    row); edge tiles are peeled off into static smaller tiles.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"256",
           "SIMD register width of the target (256: AVX2, 16 registers; 512: AVX-512, 32)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
                           "mlir::tensor::TensorDialect"];
}

def InfcVectorizeElementwise : Pass<"infc-vectorize-elementwise", "mlir::func::FuncOp"> {
  let summary = "Tile non-contraction linalg ops to SIMD-wide tiles and vectorize them";
  let description = [{
    Every static linalg.generic (and transpose, broadcast, map, copy, generalized first)
    outside loops that is not a contraction or convolution: all-parallel ops are tiled to
    [1, .., 1, lanes] (innermost loop peeled so every tile is static), an op reducing over
    its one innermost dimension becomes a partial reduction (lanes-wide accumulators, one
    horizontal merge per row), and reductions over outer dims step those dims one at a time.
    The tiles are vectorized on tensors. Ops of at least `parallel-min-elements` iterations
    get their outermost tiled parallel loop marked `infc.parallel`, and the next one too
    when that is over a parallel dim and the outermost has fewer than 32 iterations that 4
    does not divide (infc-parallelize-loops merges the two). Ops the vectorizer cannot
    handle (gathers through tensor.extract, non-permutation maps such as im2col) are left
    for the scalar loop lowering.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"256",
           "SIMD register width of the target">,
    Option<"parallelMinElements", "parallel-min-elements", "int64_t", /*default=*/"32768",
           "Smallest iteration count for which an op's outer loop is shared by threads">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
                           "mlir::tensor::TensorDialect", "mlir::arith::ArithDialect"];
}

def InfcPadPointwiseInput : Pass<"infc-pad-pointwise-input", "mlir::func::FuncOp"> {
  let summary = "Pad a 1x1 convolution's input instead of its widened output";
  let description = [{
    A constant pad of dims 1 and 2 of E(expand(matmul(collapse(X), W))), X [1, H, W, K]
    the NHWC input of a 1x1 convolution that widens K to F >= 2K channels and E its
    elementwise epilogue (per-channel inputs only), becomes E(expand(matmul(collapse(
    pad(X)), W))) over the padded pixels with its border then filled with the pad value:
    the matmul cannot write into the padded buffer's interior (its rows are not contiguous
    there), so the pad copied the whole widened tensor; now it copies the input.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def InfcPadBorders : Pass<"infc-pad-borders", "mlir::func::FuncOp"> {
  let summary = "Write each constant tensor.pad as its input in an empty tensor plus border fills";
  let description = [{
    A static tensor.pad by a constant becomes tensor.empty, an insert_slice of the input at
    the low padding, and per padded dim two fills (before and after the interior) inserted
    as slabs: the dims before it span the interior only, the dims after it the whole extent,
    so every border element is written once and the interior not at all. Bufferized as a
    pad, the whole buffer was filled and the input copied in; this way only the border is
    filled, and empty-tensor elimination has the input's producer write into the interior.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"];
}

def InfcParallelizeLoops : Pass<"infc-parallelize-loops", "mlir::func::FuncOp"> {
  let summary = "Turn scf.for loops marked infc.parallel into scf.parallel (after bufferization)";
  let description = [{
    Code generation marks loops whose iterations write disjoint parts of their buffers (the
    output-tile loops of a matmul) with `infc.parallel`. Once bufferized they carry only the
    buffer they write through their iter_args; this pass rewrites them as `scf.parallel`,
    which `convert-scf-to-openmp` then runs on the session's thread pool. A parallel loop
    whose body is only index arithmetic and views around one nested parallel loop (row
    blocks around panels around row tiles) is then merged with it into one
    multi-dimensional loop, so the threads share all the iterations (3 row blocks on 2
    threads had run 2 : 1); self-copies in between are dropped.

    Parallelism must pay for itself: a marked loop whose estimated work (about one unit an
    instruction: ops, times static trip counts, times linalg iteration spaces) is below
    `min-loop-work` stays sequential, and so do all marked loops of a function whose
    outermost marked loops together are below `min-function-work` (waking parked workers
    after an idle pause costs more than such a function's second thread saves; a nest
    counts once per iteration of the loops around it). Such a function is marked
    `infc.serial` for infc-parallelize-copies.
  }];
  let options = [
    Option<"minLoopWork", "min-loop-work", "int64_t", /*default=*/"32768",
           "Marked loops of less estimated work stay sequential">,
    Option<"minFunctionWork", "min-function-work", "int64_t", /*default=*/"1000000",
           "A function whose marked loops do less estimated work in all keeps them "
           "sequential">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def InfcParallelizeCopies : Pass<"infc-parallelize-copies", "mlir::func::FuncOp"> {
  let summary = "Run large top-level fills and copies as parallel loops";
  let description = [{
    After bufferization, fills (matmul accumulators, pad borders) and copies (pad interiors,
    results moved into place) are `linalg.fill` / `linalg.copy` on buffers that lower to
    serial loops. Each one at the top of the function writing at least `min-bytes` becomes an
    `scf.parallel` over the first dimension wider than 1, filling or copying one slice per
    iteration, which `convert-scf-to-openmp` runs on the session's thread pool. Ops inside
    loops (already parallel or not) are left alone, and so is a function that
    infc-parallelize-loops marked `infc.serial` (too small to wake the workers for); the
    mark is removed here.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"65536",
           "Smallest output worth splitting across threads">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::linalg::LinalgDialect", "mlir::arith::ArithDialect"];
}

def InfcVectorizeCopies : Pass<"infc-vectorize-copies", "mlir::func::FuncOp"> {
  let summary = "Copy buffers whose rows are contiguous in whole vectors";
  let description = [{
    After infc-lower-copies and infc-parallelize-copies, on the CPU. A `linalg.copy` of
    static buffers whose innermost dimension has unit stride on both sides (and at least two
    elements) becomes loops over its outer dimensions around its row copied as
    `vector-bits`-wide transfers, the rest of the row (or a row shorter than a vector: the 32
    channels of a pixel in an int8 NHWC im2col) as one shorter transfer. As scalar
    loops LLVM would not vectorize them: both sides are views of the one workspace.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"256",
           "SIMD width of the target (256 or 512)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // INFC_CODEGEN_CPU_PASSES_TD

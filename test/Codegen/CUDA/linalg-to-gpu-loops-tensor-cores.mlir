// RUN: infc-opt %s -infc-linalg-to-gpu-loops="row-kernels=false tile-min-blocks=4" -cse -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-linalg-to-gpu-loops="row-kernels=false" -cse -split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: infc-opt %s -infc-linalg-to-gpu-loops="row-kernels=false tensor-cores=false" -cse -split-input-file | FileCheck %s --check-prefix=SIMT

// The tensor-core kernel of f16, bf16 and byte operands (TF32: linalg-to-gpu-loops-tf32.mlir).
//
// bf16 operands summed in f32 (--precision bf16) run on tensor cores as nvvm.mma.sync
// m16n8k16 (nvgpu's mma.sync has no bf16): 64 x 64 tiles of 4 warps (a 2 x 2 grid of
// blocks for 70 x 80), A and B (here [N][K], as infc-depth-major-weights stores weights)
// both staged [64][40] in bf16, the reduction along the rows.
// Per 16-deep step a warp loads its fragment registers (pairs of neighbours along the
// reduction) with ldmatrix x4: one for each of its 2 A fragments (lane l at row l % 16,
// column 8 (l / 16)), one for each two of its 4 B fragments (row l % 8 + 8 (l / 16),
// column 8 ((l / 8) % 2)), then runs its 2 x 4 mma.syncs in a row on the 8 accumulators
// (loop values, vector<2x2xf32>); the sums leave through a [64][68] buffer to the store,
// where the fill's value is added.
// With fewer than tile-min-blocks tiles of 64 x 64 (the default 132; 4 here), 32 x 32
// tiles instead: each warp 16 x 16, one A fragment and two B fragments (one ldmatrix
// each) and 2 mma.syncs a 16-deep step, A and B staged [32][40], the sums through [32][36].
// SMALL-LABEL: func.func @bf16
// SMALL: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c3, %{{.*}} = %c3, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128
// SMALL-SAME: workgroup(%[[AS:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>, %[[CS:.*]] : memref<32x36xf32, #gpu.address_space<workgroup>>)
// SMALL: scf.for
// SMALL: gpu.barrier
// SMALL: nvgpu.ldmatrix %[[AS]]
// SMALL: nvgpu.ldmatrix %[[BS]]
// SMALL-NOT: nvgpu.ldmatrix
// SMALL-COUNT-2: nvvm.mma.sync
// SMALL-NOT: nvvm.mma.sync
// SMALL: nvgpu.ldmatrix %[[AS]]
// SMALL: nvgpu.ldmatrix %[[BS]]
// SMALL-COUNT-2: nvvm.mma.sync
// SMALL-NOT: nvvm.mma.sync
// SMALL: scf.yield
// SMALL: memref.store %{{.*}}, %[[CS]]
// CHECK-LABEL: func.func @bf16
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c2, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128
// CHECK-SAME: workgroup(%[[AS:.*]] : memref<128x40xbf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<128x40xbf16, #gpu.address_space<workgroup>>, %[[CS:.*]] : memref<64x68xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[ACC:.*]]:40 = scf.for %{{.*}} iter_args(
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[AS]]
// CHECK: memref.store %{{.*}}, %[[BS]]
// CHECK: gpu.barrier
// CHECK: %[[AM:.*]] = nvgpu.ldmatrix %[[AS]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<128x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK: %[[PAIR:.*]] = vector.extract %[[AM]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK: %[[WORD:.*]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// CHECK: %[[A0:.*]] = vector.extract %[[WORD]][0] : i32 from vector<1xi32>
// CHECK: nvgpu.ldmatrix %[[AS]]
// CHECK: nvgpu.ldmatrix %[[BS]]
// CHECK: nvgpu.ldmatrix %[[BS]]
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: %[[C00:.*]] = vector.extract %{{.*}}[0, 0] : f32 from vector<2x2xf32>
// CHECK: %[[MMA:.*]] = nvvm.mma.sync A[%[[A0]], %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%[[C00]], %{{.*}}, %{{.*}}, %{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-7: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: %[[D0:.*]] = llvm.extractvalue %[[MMA]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: vector.from_elements %[[D0]], %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf32>
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK: scf.yield
// CHECK: vector.extract %[[ACC]]#0[0, 0] : f32 from vector<2x2xf32>
// CHECK: memref.store %{{.*}}, %[[CS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[CS]]
// CHECK: arith.addf %[[ZERO]]
// CHECK-NOT: linalg.
// Without tensor cores: the SIMT kernel, bf16 staged and widened in the payload.
// SIMT-LABEL: func.func @bf16
// SIMT-NOT: nvvm.mma.sync
// SIMT: arith.extf %{{.*}} : bf16 to f32
// SIMT: arith.mulf
#ta = affine_map<(i, j, k) -> (i, k)>
#tb = affine_map<(i, j, k) -> (j, k)>
#tc = affine_map<(i, j, k) -> (i, j)>
func.func @bf16(%x: memref<70x48xbf16>, %y: memref<80x48xbf16>, %z: memref<70x80xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%z : memref<70x80xf32>)
  linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<70x48xbf16>, memref<80x48xbf16>) outs(%z : memref<70x80xf32>) {
  ^bb0(%u: bf16, %v: bf16, %acc: f32):
    %u32 = arith.extf %u : bf16 to f32
    %v32 = arith.extf %v : bf16 to f32
    %p = arith.mulf %u32, %v32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// bf16 summed in bf16 has no tensor-core kernel here (the sums must be f32).
// CHECK-LABEL: func.func @bf16_sums
// CHECK-NOT: nvvm.mma.sync
// CHECK: arith.mulf
func.func @bf16_sums(%x: memref<70x48xbf16>, %y: memref<48x80xbf16>, %z: memref<70x80xbf16>) {
  linalg.matmul ins(%x, %y : memref<70x48xbf16>, memref<48x80xbf16>) outs(%z : memref<70x80xbf16>)
  return
}

// -----

// f16 operands (--precision fp16): the same kernel, a register a vector<2xf16> (a row of
// the ldmatrix result), nvvm.mma.sync m16n8k16 f16 (its types implied).
// CHECK-LABEL: func.func @f16
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[AS:.*]] : memref<128x40xf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<128x40xf16, #gpu.address_space<workgroup>>, %[[CS:.*]] : memref<64x68xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[AM:.*]] = nvgpu.ldmatrix %[[AS]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<128x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[A0:.*]] = vector.extract %[[AM]][0] : vector<2xf16> from vector<4x2xf16>
// CHECK: nvvm.mma.sync A[%[[A0]], %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-15: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: memref.load %[[CS]]
#ta = affine_map<(i, j, k) -> (i, k)>
#tb = affine_map<(i, j, k) -> (j, k)>
#tc = affine_map<(i, j, k) -> (i, j)>
func.func @f16(%x: memref<70x48xf16>, %y: memref<80x48xf16>, %z: memref<70x80xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%z : memref<70x80xf32>)
  linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<70x48xf16>, memref<80x48xf16>) outs(%z : memref<70x80xf32>) {
  ^bb0(%u: f16, %v: f16, %acc: f32):
    %u32 = arith.extf %u : f16 to f32
    %v32 = arith.extf %v : f16 to f32
    %p = arith.mulf %u32, %v32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A grid of 128 x 128 tiles with tile-min-blocks blocks (2 x 2 here): 8 warps of 64 x 32
// each, a 16-deep k-step 4 ldmatrix x4 for A and 2 for B (B [K][N] as it is: staged
// [32][128 + 8], ldmatrix .trans), then 16 mma.syncs; no shared
// buffer for the sums (66 KB): each lane adds the fill value to its own and stores them,
// where they are inside the output.
// CHECK-LABEL: func.func @f16_tile128
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c2, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256
// CHECK-SAME: workgroup(%[[AS:.*]] : memref<256x40xf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<64x136xf16, #gpu.address_space<workgroup>>) {
// CHECK: scf.for
// CHECK-COUNT-4: nvgpu.ldmatrix %[[AS]]
// CHECK-COUNT-2: nvgpu.ldmatrix %[[BS]]
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-COUNT-4: nvgpu.ldmatrix %[[AS]]
// CHECK-COUNT-2: nvgpu.ldmatrix %[[BS]]
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: scf.yield
// CHECK: scf.if
// CHECK: %[[SUM:.*]] = vector.extract %{{.*}}[0, 0] : f32 from vector<2x2xf32>
// CHECK: %[[OUT:.*]] = arith.addf %{{.*}}, %[[SUM]] : f32
// CHECK: memref.store %[[OUT]], %{{.*}} : memref<250x250xf32>
// CHECK-NOT: #gpu.address_space<workgroup>
// CHECK: gpu.terminator
#ta = affine_map<(i, j, k) -> (i, k)>
#tb = affine_map<(i, j, k) -> (k, j)>
#tc = affine_map<(i, j, k) -> (i, j)>
func.func @f16_tile128(%x: memref<250x48xf16>, %y: memref<48x250xf16>, %z: memref<250x250xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%z : memref<250x250xf32>)
  linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<250x48xf16>, memref<48x250xf16>) outs(%z : memref<250x250xf32>) {
  ^bb0(%u: f16, %v: f16, %acc: f32):
    %u32 = arith.extf %u : f16 to f32
    %v32 = arith.extf %v : f16 to f32
    %p = arith.mulf %u32, %v32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The same without a fill: each lane reads the output at its element (inside the output)
// and adds its sum to it.
// CHECK-LABEL: func.func @f16_tile128_accumulate
// CHECK: gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256
// CHECK: scf.yield
// CHECK: scf.if
// CHECK: %[[START:.*]] = memref.load %[[Z:.*]][%{{.*}}, %{{.*}}] : memref<250x250xf32>
// CHECK: %[[SUM:.*]] = vector.extract %{{.*}}[0, 0] : f32 from vector<2x2xf32>
// CHECK: %[[OUT:.*]] = arith.addf %[[START]], %[[SUM]] : f32
// CHECK: memref.store %[[OUT]], %[[Z]]
#ta = affine_map<(i, j, k) -> (i, k)>
#tb = affine_map<(i, j, k) -> (j, k)>
#tc = affine_map<(i, j, k) -> (i, j)>
func.func @f16_tile128_accumulate(%x: memref<250x48xf16>, %y: memref<250x48xf16>, %z: memref<250x250xf32>) {
  linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<250x48xf16>, memref<250x48xf16>) outs(%z : memref<250x250xf32>) {
  ^bb0(%u: f16, %v: f16, %acc: f32):
    %u32 = arith.extf %u : f16 to f32
    %v32 = arith.extf %v : f16 to f32
    %p = arith.mulf %u32, %v32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Bytes summed in i32 (an int8 model's product after infc-narrow-integer-operands): the
// same kernel with m16n8k32 steps (one a 32-deep step), each register 4 bytes along the
// reduction (A and B staged [64][48]: 32 bytes + 16 of padding; ldmatrix x4 reads 16-byte
// rows, lane l's A row at byte 16 (l / 16)), each side s8 or u8 as
// its widening says, the sums i32 (wrapping, as the CPU's) and the fill's value added with
// addi.
// CHECK-LABEL: func.func @bytes
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[AS:.*]] : memref<128x48xi8, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<128x48xi8, #gpu.address_space<workgroup>>, %[[CS:.*]] : memref<64x68xi32, #gpu.address_space<workgroup>>)
// CHECK: %[[AM:.*]] = nvgpu.ldmatrix %[[AS]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<128x48xi8, #gpu.address_space<workgroup>> -> vector<4x4xi8>
// CHECK: %[[QUAD:.*]] = vector.extract %[[AM]][0] : vector<4xi8> from vector<4x4xi8>
// CHECK: vector.bitcast %[[QUAD]] : vector<4xi8> to vector<1xi32>
// CHECK: nvvm.mma.sync {{.*}} {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-7: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: %[[SUM:.*]] = memref.load %[[CS]]
// CHECK: arith.addi %{{.*}}, %[[SUM]] : i32
// A zero-extended times a sign-extended byte: u8 x s8.
// CHECK-LABEL: func.func @mixed_bytes
// CHECK: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<u8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>}
#ta = affine_map<(i, j, k) -> (i, k)>
#tb = affine_map<(i, j, k) -> (k, j)>
#tc = affine_map<(i, j, k) -> (i, j)>
func.func @bytes(%x: memref<70x48xi8>, %y: memref<48x80xi8>, %z: memref<70x80xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%z : memref<70x80xi32>)
  linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<70x48xi8>, memref<48x80xi8>) outs(%z : memref<70x80xi32>) {
  ^bb0(%u: i8, %v: i8, %acc: i32):
    %u32 = arith.extsi %u : i8 to i32
    %v32 = arith.extsi %v : i8 to i32
    %p = arith.muli %u32, %v32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
func.func @mixed_bytes(%x: memref<70x48xi8>, %y: memref<48x80xi8>, %z: memref<70x80xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%z : memref<70x80xi32>)
  linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<70x48xi8>, memref<48x80xi8>) outs(%z : memref<70x80xi32>) {
  ^bb0(%u: i8, %v: i8, %acc: i32):
    %u32 = arith.extui %u : i8 to i32
    %v32 = arith.extsi %v : i8 to i32
    %p = arith.muli %u32, %v32 : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// In the planned entry, 16 bytes (8 bf16) a vector load: A's chunk along its row of the
// [64][40] buffer as one vector store; B [K][N] (8 columns of one reduction index a chunk)
// staged as it is, [32][64 + 8], a chunk along its row as one vector store too, and its
// fragments loaded with ldmatrix .trans (lane l at depth row l % 8 + 8 ((l / 8) % 2),
// column 8 (l / 16) of the warp's two fragments).
// CHECK-LABEL: func.func @bf16_vector_staging
// CHECK: workgroup(%[[AS:.*]] : memref<128x40xbf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<64x72xbf16, #gpu.address_space<workgroup>>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<128x64xbf16>, vector<8xbf16>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x96xbf16>, vector<8xbf16>
// Two stages of each buffer: the step at K0 stores into and reads from stage
// (K0 / 32) % 2, its first row 64 that in A's [2 x 64][40], 32 in B's [2 x 32][72]; one
// barrier a step.
// CHECK: scf.for %[[K0:.*]] = {{.*}} iter_args({{.*}}, %[[A:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[B:.*]] = %{{.*}}, %[[B1:.*]] = %{{.*}}) -> ({{.*}}, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>)
// CHECK-NOT: gpu.barrier
// CHECK: %[[STEP:.*]] = arith.divui %[[K0]], %c32
// CHECK: %[[PARITY:.*]] = arith.remui %[[STEP]], %c2
// CHECK: %[[STAGE_A:.*]] = arith.muli %[[PARITY]], %c64
// CHECK: %[[STAGE_B:.*]] = arith.muli %[[PARITY]], %c32
// CHECK: %[[ROW_A:.*]] = arith.addi %{{.*}}, %[[STAGE_A]]
// CHECK: vector.store %[[A]], %[[AS]][%[[ROW_A]], %{{.*}}] {alignment = 16 : i64} : memref<128x40xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: vector.store
// CHECK: %[[ROW_B:.*]] = arith.addi %{{.*}}, %[[STAGE_B]]
// CHECK: vector.store %[[B]], %[[BS]][%[[ROW_B]], %{{.*}}] {alignment = 16 : i64} : memref<64x72xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: vector.store %[[B1]], %[[BS]]
// CHECK-NOT: memref.store
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[FRAG_A:.*]] = arith.addi %{{.*}}, %[[STAGE_A]]
// CHECK: nvgpu.ldmatrix %[[AS]][%[[FRAG_A]], %{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %[[AS]]{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: %[[DEPTH_B:.*]] = arith.addi %{{.*}}, %[[STAGE_B]]
// CHECK: nvgpu.ldmatrix %[[BS]][%[[DEPTH_B]], %{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<64x72xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK: nvgpu.ldmatrix %[[BS]]{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
#ta = affine_map<(i, j, k) -> (i, k)>
#tb = affine_map<(i, j, k) -> (k, j)>
#tc = affine_map<(i, j, k) -> (i, j)>
func.func @bf16_vector_staging(%ws: memref<64xi8> {infc.workspace}, %x: memref<128x64xbf16>,
                               %y: memref<64x96xbf16>, %z: memref<128x96xf32>) {
  linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<128x64xbf16>, memref<64x96xbf16>) outs(%z : memref<128x96xf32>) {
  ^bb0(%u: bf16, %v: bf16, %acc: f32):
    %u32 = arith.extf %u : bf16 to f32
    %v32 = arith.extf %v : bf16 to f32
    %p = arith.mulf %u32, %v32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// RUN: infc-opt %s -infc-amx-tiles -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-amx-tiles -infc-parallelize-loops="min-loop-work=0 min-function-work=0" -split-input-file | FileCheck %s --check-prefix=MERGED
// RUN: infc-opt %s -infc-amx-tiles="k-chunk=2" -split-input-file | FileCheck %s --check-prefix=CHUNKS

// C [32, 2, 16] += A [32, 32, 4] (u8) x B [2, 32, 16, 4] (s8): 2 x 2 tiles of 16x16 i32, K of
// 128 bytes in two unrolled steps of 64. The loops over column blocks and, inside, row
// blocks are both parallel (infc-parallelize-loops merges them); the A tiles come from rows
// 16 apart, the B tiles from panels side by side; zero-extension on
// the unsigned side only.
// CHECK-LABEL: func @amx_product
// With infc-parallelize-loops the two loops are one 2-D parallel loop (the rows loop's
// bounds come from outside the cols loop): the threads share out column x row blocks.
// MERGED-LABEL: func @amx_product
// MERGED: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}})
// MERGED-NOT: scf.parallel
// MERGED-NOT: scf.for
// MERGED: amx.tile_store
// CHECK: %[[A:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1, 2]] : memref<32x32x4xi8> into memref<32x128xi8>
// CHECK: %[[B:.*]] = memref.collapse_shape %arg1 {{\[}}[0], [1], [2, 3]] : memref<2x32x16x4xi8> into memref<2x32x64xi8>
// CHECK: %[[C:.*]] = memref.collapse_shape %arg2 {{\[}}[0], [1, 2]] : memref<32x2x16xi32> into memref<32x32xi32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-4: amx.tile_zero : !amx.tile<16x16xi32>
// CHECK-COUNT-2: amx.tile_load %[[A]]{{.*}} : memref<32x128xi8> into !amx.tile<16x64xi8>
// CHECK-COUNT-2: amx.tile_load %[[B]]{{.*}} : memref<2x32x64xi8> into !amx.tile<16x64xi8>
// CHECK-COUNT-4: amx.tile_muli %{{.*}} zext, %{{.*}}, %{{.*}} :
// CHECK-COUNT-2: amx.tile_load %[[A]]
// CHECK-COUNT-2: amx.tile_load %[[B]]
// CHECK-COUNT-4: amx.tile_muli
// CHECK-COUNT-4: amx.tile_store %[[C]]
// CHECK: } {infc.parallel}
// CHECK: } {infc.parallel}
// CHECK-NOT: linalg.generic
#a = affine_map<(m, p, j, q, t) -> (m, q, t)>
#b = affine_map<(m, p, j, q, t) -> (p, q, j, t)>
#c = affine_map<(m, p, j, q, t) -> (m, p, j)>
func.func @amx_product(%a: memref<32x32x4xi8>, %b: memref<2x32x16x4xi8>, %c: memref<32x2x16xi32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<32x32x4xi8>, memref<2x32x16x4xi8>) outs(%c : memref<32x2x16xi32>) attrs = {infc.amx} {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %0 = arith.extui %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %2, %acc : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// One row tile and three panels: a 1 x 2 block over the first pair of panels (a loop of
// one), then the odd last panel's 1 x 1 block, from panel 2 on; signed A, unsigned B.
// CHECK-LABEL: func @amx_single
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-2: amx.tile_zero
// CHECK-NOT: amx.tile_zero
// CHECK-COUNT-2: amx.tile_muli %{{.*}}, %{{.*}} zext, %{{.*}} :
// CHECK-COUNT-2: amx.tile_store
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.addi %{{.*}}, %c2{{.*}} : index
// CHECK: amx.tile_zero
// CHECK-NOT: amx.tile_zero
// CHECK: amx.tile_muli %{{.*}}, %{{.*}} zext, %{{.*}} :
// CHECK-NOT: amx.tile_muli
// CHECK: amx.tile_store
#a = affine_map<(m, p, j, q, t) -> (m, q, t)>
#b = affine_map<(m, p, j, q, t) -> (p, q, j, t)>
#c = affine_map<(m, p, j, q, t) -> (m, p, j)>
func.func @amx_single(%a: memref<16x16x4xi8>, %b: memref<3x16x16x4xi8>, %c: memref<16x3x16xi32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<16x16x4xi8>, memref<3x16x16x4xi8>) outs(%c : memref<16x3x16xi32>) attrs = {infc.amx} {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %0 = arith.extsi %x : i8 to i32
    %1 = arith.extui %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %2, %acc : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// A strided operand (rows with gaps): C zero-filled, the generic kept (its marker
// dropped), no AMX ops.
// CHECK-LABEL: func @amx_strided_fallback
// CHECK: linalg.fill ins(%{{.*}} : i32) outs(%arg2 : memref<16x1x16xi32>)
// CHECK: linalg.generic
// CHECK-NOT: infc.amx
// CHECK-NOT: amx.tile
#a = affine_map<(m, p, j, q, t) -> (m, q, t)>
#b = affine_map<(m, p, j, q, t) -> (p, q, j, t)>
#c = affine_map<(m, p, j, q, t) -> (m, p, j)>
func.func @amx_strided_fallback(%a: memref<16x16x4xi8, strided<[128, 4, 1]>>, %b: memref<1x16x16x4xi8>, %c: memref<16x1x16xi32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<16x16x4xi8, strided<[128, 4, 1]>>, memref<1x16x16x4xi8>) outs(%c : memref<16x1x16xi32>) attrs = {infc.amx} {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %0 = arith.extui %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %2, %acc : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// Operands contiguous at a run-time offset (one matrix of a batch: infc-bf16-matmul's
// attention products; a block of generic code's rows): tiles, no fallback.
// CHECK-LABEL: func @amx_offset_views
// CHECK-NOT: linalg.fill
// CHECK: memref.collapse_shape %arg0 {{\[}}[0], [1, 2]] : memref<16x32x2xbf16, strided<[64, 2, 1], offset: ?>> into memref<16x64xbf16, strided<[64, 1], offset: ?>>
// CHECK: amx.tile_mulf
// CHECK: amx.tile_store
// CHECK-NOT: linalg.generic
#a = affine_map<(m, p, j, q, t) -> (m, q, t)>
#b = affine_map<(m, p, j, q, t) -> (p, q, j, t)>
#c = affine_map<(m, p, j, q, t) -> (m, p, j)>
func.func @amx_offset_views(%a: memref<16x32x2xbf16, strided<[64, 2, 1], offset: ?>>, %b: memref<1x32x16x2xbf16, strided<[1024, 32, 2, 1], offset: ?>>, %c: memref<16x1x16xf32, strided<[16, 16, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<16x32x2xbf16, strided<[64, 2, 1], offset: ?>>, memref<1x32x16x2xbf16, strided<[1024, 32, 2, 1], offset: ?>>) outs(%c : memref<16x1x16xf32, strided<[16, 16, 1], offset: ?>>) attrs = {infc.amx} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// bf16 (infc-bf16-matmul): C [16, 2, 16] f32 += A [16, 32, 2] x B [2, 32, 16, 2], K of 64
// values in two unrolled steps of 32 (64 bytes); 16x32 bf16 operand tiles, f32
// accumulators, amx.tile_mulf.
// CHECK-LABEL: func @amx_bf16
// CHECK: %[[A:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1, 2]] : memref<16x32x2xbf16> into memref<16x64xbf16>
// CHECK: %[[B:.*]] = memref.collapse_shape %arg1 {{\[}}[0], [1], [2, 3]] : memref<2x32x16x2xbf16> into memref<2x32x32xbf16>
// CHECK-COUNT-2: amx.tile_zero : !amx.tile<16x16xf32>
// CHECK: amx.tile_load %[[A]][%{{.*}}, %[[K0:.*]]] : memref<16x64xbf16> into !amx.tile<16x32xbf16>
// CHECK-COUNT-2: amx.tile_load %[[B]]{{.*}} : memref<2x32x32xbf16> into !amx.tile<16x32xbf16>
// CHECK-COUNT-2: amx.tile_mulf %{{.*}}, %{{.*}}, %{{.*}} : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
// CHECK: amx.tile_load %[[A]][%{{.*}}, %c32] : memref<16x64xbf16> into !amx.tile<16x32xbf16>
// CHECK-COUNT-2: amx.tile_load %[[B]]
// CHECK-COUNT-2: amx.tile_mulf
// CHECK-COUNT-2: amx.tile_store
// CHECK-NOT: linalg.generic
#a = affine_map<(m, p, j, q, t) -> (m, q, t)>
#b = affine_map<(m, p, j, q, t) -> (p, q, j, t)>
#c = affine_map<(m, p, j, q, t) -> (m, p, j)>
func.func @amx_bf16(%a: memref<16x32x2xbf16>, %b: memref<2x32x16x2xbf16>, %c: memref<16x2x16xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<16x32x2xbf16>, memref<2x32x16x2xbf16>) outs(%c : memref<16x2x16xf32>) attrs = {infc.amx} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// A (64 rows x 64 bf16: 8 KB) larger than B (one panel: 2 KB): the row blocks are the outer
// loop, each block of A read once, B's panels read again for each.
// CHECK-LABEL: func @amx_rows_outer
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[C2]]
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %[[C1]]
// CHECK: arith.muli %[[R]], %{{.*}}
#a = affine_map<(m, p, j, q, t) -> (m, q, t)>
#b = affine_map<(m, p, j, q, t) -> (p, q, j, t)>
#c = affine_map<(m, p, j, q, t) -> (m, p, j)>
func.func @amx_rows_outer(%a: memref<64x32x2xbf16>, %b: memref<1x32x16x2xbf16>, %c: memref<64x1x16xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<64x32x2xbf16>, memref<1x32x16x2xbf16>) outs(%c : memref<64x1x16xf32>) attrs = {infc.amx} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// k-chunk=2 over 5 K steps (160 bf16): the first chunk from zero tiles, a sequential loop
// over the next full chunk (chunk 1) that loads C's tiles and stores them back, then the tail
// step after it. The chunks loop stands between the block loops: the inner one stays serial.
// CHUNKS-LABEL: func @amx_k_chunks
// CHUNKS: scf.for
// CHUNKS: scf.for
// CHUNKS-COUNT-2: amx.tile_zero : !amx.tile<16x16xf32>
// CHUNKS-COUNT-4: amx.tile_mulf
// CHUNKS-COUNT-2: amx.tile_store
// CHUNKS-NEXT: {{^ *} *$}}
// CHUNKS: scf.for %{{.*}} = %c1 to %c2
// CHUNKS: scf.for
// CHUNKS-COUNT-2: amx.tile_load %{{.*}} : memref<16x32xf32> into !amx.tile<16x16xf32>
// CHUNKS-COUNT-4: amx.tile_mulf
// CHUNKS-COUNT-2: amx.tile_store
// CHUNKS: scf.for
// CHUNKS-COUNT-2: amx.tile_load %{{.*}} : memref<16x32xf32> into !amx.tile<16x16xf32>
// The tail is step 4: A's values 128.., B's pair rows 64..
// CHUNKS: amx.tile_load %{{.*}}[%{{.*}}, %c128] : memref<16x160xbf16>
// CHUNKS: amx.tile_load %{{.*}}[%{{.*}}, %c64{{.*}}, %{{.*}}] : memref<2x80x32xbf16>
// CHUNKS: amx.tile_load %{{.*}}[%{{.*}}, %c64{{.*}}, %{{.*}}] : memref<2x80x32xbf16>
// CHUNKS-COUNT-2: amx.tile_mulf
// CHUNKS-NOT: amx.tile_mulf
// CHUNKS: } {infc.parallel}
#a = affine_map<(m, p, j, q, t) -> (m, q, t)>
#b = affine_map<(m, p, j, q, t) -> (p, q, j, t)>
#c = affine_map<(m, p, j, q, t) -> (m, p, j)>
func.func @amx_k_chunks(%a: memref<16x80x2xbf16>, %b: memref<2x80x16x2xbf16>, %c: memref<16x2x16xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<16x80x2xbf16>, memref<2x80x16x2xbf16>) outs(%c : memref<16x2x16xf32>) attrs = {infc.amx} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// K of 257 steps (8224 bf16) is more than the 256 unrolled in one pass: chunks of 64 (the
// first from zero tiles, three in a loop, then the last step, A's values 8192..).
// CHECK-LABEL: func @amx_long_k
// CHECK-COUNT-64: amx.tile_mulf
// CHECK-NOT: amx.tile_mulf
// CHECK: amx.tile_store
// CHECK: scf.for %{{.*}} = %c1{{.*}} to %c4{{.*}} step
// CHECK: amx.tile_load %{{.*}} : memref<16x16xf32> into !amx.tile<16x16xf32>
// CHECK-COUNT-64: amx.tile_mulf
// CHECK: amx.tile_store
// CHECK: amx.tile_load %{{.*}} : memref<16x16xf32> into !amx.tile<16x16xf32>
// CHECK: amx.tile_load %{{.*}}[%{{.*}}, %c8192] : memref<16x8224xbf16>
// CHECK: amx.tile_mulf
// CHECK-NOT: amx.tile_mulf
// CHECK: amx.tile_store
#a = affine_map<(m, p, j, q, t) -> (m, q, t)>
#b = affine_map<(m, p, j, q, t) -> (p, q, j, t)>
#c = affine_map<(m, p, j, q, t) -> (m, p, j)>
func.func @amx_long_k(%a: memref<16x4112x2xbf16>, %b: memref<1x4112x16x2xbf16>, %c: memref<16x1x16xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<16x4112x2xbf16>, memref<1x4112x16x2xbf16>) outs(%c : memref<16x1x16xf32>) attrs = {infc.amx} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// Three row tiles and four panels: 2 x 2 blocks over the first two row tiles, then the odd
// last row tile (rows 32..47) in 1 x 2 blocks, not 1 x 2 blocks everywhere.
// CHECK-LABEL: func @amx_odd_rows
// CHECK-COUNT-4: amx.tile_zero
// CHECK-COUNT-4: amx.tile_mulf
// CHECK-COUNT-4: amx.tile_store
// CHECK: arith.addi %{{.*}}, %c32{{.*}} : index
// CHECK-COUNT-2: amx.tile_zero
// CHECK-NOT: amx.tile_zero
// CHECK-COUNT-2: amx.tile_mulf
// CHECK-NOT: amx.tile_mulf
#a = affine_map<(m, p, j, q, t) -> (m, q, t)>
#b = affine_map<(m, p, j, q, t) -> (p, q, j, t)>
#c = affine_map<(m, p, j, q, t) -> (m, p, j)>
func.func @amx_odd_rows(%a: memref<48x16x2xbf16>, %b: memref<4x16x16x2xbf16>, %c: memref<48x4x16xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<48x16x2xbf16>, memref<4x16x16x2xbf16>) outs(%c : memref<48x4x16xf32>) attrs = {infc.amx} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  return
}

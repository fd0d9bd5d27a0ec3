// RUN: infc-opt %s -infc-pack-matmul-panels -mlir-print-elementsattrs-with-hex-if-larger=1000 | FileCheck %s --check-prefix=AVX2
// RUN: infc-opt %s -infc-pack-matmul-panels=vector-bits=512 | FileCheck %s --check-prefix=AVX512
// RUN: infc-opt %s -infc-pack-matmul-panels=min-rows-for-runtime-pack=128 | FileCheck %s --check-prefix=NORT
// RUN: infc-opt %s -infc-pack-matmul-panels=k-block-min-bytes=65536 | FileCheck %s --check-prefix=KBLOCK
// RUN: infc-opt %s -infc-pack-matmul-panels=vector-bits=512 | FileCheck %s --check-prefix=ROWS
// RUN: infc-opt %s -infc-pack-matmul-panels="vector-bits=512 row-block-max-b-bytes=32768" | FileCheck %s --check-prefix=COLS

// A constant B [3, 40] (B[k][n] = 40k + n): packed at compile time. The two full panels
// (16 wide at 256 bits) are a [2, 3, 16] constant whose element [p][k][j] is B[k][16p + j];
// a loop over them is marked infc.parallel. The 8 columns left (one AVX2 vector) are a
// panel of their own, [1, 3, 8]: a matmul against it, straight into C's last columns. C's
// fill moves into the panels: each fills its own columns right before its matmul, so no
// fill of the whole C is left. At 512 bits a panel is 64 wide (the 6 x 64 register tile):
// no full panel, and the 40 columns, rounded up to three vectors, are a 48-wide panel
// (zero past column 40) computed into a filled scratch tile.
// AVX2-LABEL: func.func @constant_b
// AVX2-DAG: %[[P:.*]] = arith.constant dense<{{\[\[}}[0.000000e+00, 1.000000e+00, {{.*}}, 1.500000e+01], [4.000000e+01, {{.*}}, 5.500000e+01], [8.000000e+01, {{.*}}, 9.500000e+01]], {{\[}}[1.600000e+01, {{.*}}, 3.100000e+01], [5.600000e+01, {{.*}}, 7.100000e+01], [9.600000e+01, {{.*}}, 1.110000e+02]]]> : tensor<2x3x16xf32>
// AVX2-DAG: %[[T:.*]] = arith.constant dense<{{\[\[}}[3.200000e+01, {{.*}}, 3.900000e+01], [7.200000e+01, {{.*}}, 7.900000e+01], [1.120000e+02, {{.*}}, 1.190000e+02]]]> : tensor<1x3x8xf32>
// AVX2-DAG: %[[C2:.*]] = arith.constant 2 : index
// AVX2-DAG: %[[C16:.*]] = arith.constant 16 : index
// AVX2-DAG: %[[E:.*]] = tensor.empty() : tensor<64x40xf32>
// AVX2-NOT: linalg.fill {{.*}} -> tensor<64x40xf32>
// AVX2: %[[L:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[C2]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[E]]) -> (tensor<64x40xf32>)
// AVX2: %[[COL:.*]] = arith.muli %[[I]], %[[C16]]
// AVX2: %[[PANEL:.*]] = tensor.extract_slice %[[P]][%[[I]], 0, 0] [1, 3, 16] [1, 1, 1] : tensor<2x3x16xf32> to tensor<3x16xf32>
// AVX2: %[[CS:.*]] = tensor.extract_slice %[[ACC]][0, %[[COL]]] [64, 16] [1, 1]
// AVX2: %[[CF:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[CS]] : tensor<64x16xf32>)
// AVX2: %[[MM:.*]] = linalg.matmul ins(%arg0, %[[PANEL]] : tensor<64x3xf32>, tensor<3x16xf32>) outs(%[[CF]] : tensor<64x16xf32>)
// AVX2: tensor.insert_slice %[[MM]] into %[[ACC]][0, %[[COL]]] [64, 16] [1, 1]
// AVX2: } {infc.parallel}
// AVX2: %[[LAST:.*]] = tensor.extract_slice %[[T]][0, 0, 0] [1, 3, 8] [1, 1, 1] : tensor<1x3x8xf32> to tensor<3x8xf32>
// AVX2: %[[CT:.*]] = tensor.extract_slice %[[L]][0, 32] [64, 8] [1, 1]
// AVX2: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[CT]] : tensor<64x8xf32>)
// AVX2: %[[TM:.*]] = linalg.matmul ins(%arg0, %[[LAST]] : tensor<64x3xf32>, tensor<3x8xf32>) outs(%[[Z]] : tensor<64x8xf32>)
// AVX2: tensor.insert_slice %[[TM]] into %[[L]][0, 32] [64, 8] [1, 1]
// AVX2-NOT: linalg.matmul
// AVX512-LABEL: func.func @constant_b
// AVX512-NOT: scf.for
// AVX512: %[[T:.*]] = arith.constant dense<{{.*}}> : tensor<1x3x48xf32>
// AVX512: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<64x48xf32>)
// AVX512: %[[H:.*]] = tensor.extract_slice %[[T]][0, 0, 0] [1, 3, 48] [1, 1, 1] : tensor<1x3x48xf32> to tensor<3x48xf32>
// AVX512: %[[TM:.*]] = linalg.matmul ins(%arg0, %[[H]] : tensor<64x3xf32>, tensor<3x48xf32>) outs(%[[Z]] : tensor<64x48xf32>)
// AVX512: %[[V:.*]] = tensor.extract_slice %[[TM]][0, 0] [64, 40] [1, 1]
// AVX512: tensor.insert_slice %[[V]] into %{{.*}}[0, 0] [64, 40] [1, 1]
func.func @constant_b(%a: tensor<64x3xf32>) -> tensor<64x40xf32> {
  %b = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0], [40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0], [80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0]]> : tensor<3x40xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x40xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x40xf32>) -> tensor<64x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x3xf32>, tensor<3x40xf32>) outs(%c : tensor<64x40xf32>) -> tensor<64x40xf32>
  return %r : tensor<64x40xf32>
}

// A B known only at run time: packed by a copy when M reaches min-rows-for-runtime-pack (16
// by default), else left a plain matmul. The copy is a transpose of B viewed as [K, panels,
// 16], so it has permutation maps and vectorizes.
// AVX2-LABEL: func.func @runtime_b
// AVX2: %[[V:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [96, 2, 16] : tensor<96x32xf32> into tensor<96x2x16xf32>
// AVX2: %[[RP:.*]] = linalg.transpose ins(%[[V]] : tensor<96x2x16xf32>) outs(%{{.*}} : tensor<2x96x16xf32>) permutation = [1, 0, 2]
// AVX2: scf.for
// AVX2: tensor.extract_slice %[[RP]]
// AVX2: linalg.matmul ins(%arg0, %{{.*}} : tensor<64x96xf32>, tensor<96x16xf32>)
// AVX2: } {infc.parallel}
// NORT-LABEL: func.func @runtime_b
// NORT-NOT: scf.for
// NORT: linalg.matmul ins(%arg0, %arg1 : tensor<64x96xf32>, tensor<96x32xf32>)
func.func @runtime_b(%a: tensor<64x96xf32>, %b: tensor<96x32xf32>) -> tensor<64x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// Narrower than one panel: untouched.
// AVX2-LABEL: func.func @narrow
// AVX2-NOT: scf.for
// AVX2: linalg.matmul ins(%arg0, %arg1 : tensor<64x96xf32>, tensor<96x8xf32>)
func.func @narrow(%a: tensor<64x96xf32>, %b: tensor<96x8xf32>) -> tensor<64x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x8xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x8xf32>) -> tensor<64x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x8xf32>) outs(%c : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %r : tensor<64x8xf32>
}

// A run-time B with a tail: the full panels are a transpose of B's first 32 columns; the
// 8 columns left are copied into a panel of their own.
// AVX2-LABEL: func.func @runtime_b_tail
// AVX2: %[[FULL:.*]] = tensor.extract_slice %arg1[0, 0] [96, 32] [1, 1] : tensor<96x40xf32> to tensor<96x32xf32>
// AVX2: tensor.expand_shape %[[FULL]] {{\[}}[0], [1, 2]] output_shape [96, 2, 16]
// AVX2: linalg.transpose
// AVX2: %[[REST:.*]] = tensor.extract_slice %arg1[0, 32] [96, 8] [1, 1] : tensor<96x40xf32> to tensor<96x8xf32>
// AVX2: tensor.expand_shape %[[REST]] {{\[}}[0], [1, 2]] output_shape [96, 1, 8]
// AVX2: %[[RT:.*]] = linalg.transpose
// AVX2: } {infc.parallel}
// AVX2: %[[LAST:.*]] = tensor.extract_slice %[[RT]][0, 0, 0] [1, 96, 8] [1, 1, 1]
// AVX2: linalg.matmul ins(%arg0, %[[LAST]] : tensor<64x96xf32>, tensor<96x8xf32>)
// AVX2: tensor.insert_slice %{{.*}} into %{{.*}}[0, 32] [64, 8] [1, 1]
func.func @runtime_b_tail(%a: tensor<64x96xf32>, %b: tensor<96x40xf32>) -> tensor<64x40xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x40xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x40xf32>) -> tensor<64x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x40xf32>) outs(%c : tensor<64x40xf32>) -> tensor<64x40xf32>
  return %r : tensor<64x40xf32>
}

// A larger than k-block-min-bytes: K in blocks (256 of 512 here), a serial loop around the
// panel loop; each block's panels are rows [256 kb, 256 kb + 256) of the packed B. The first
// block, whose panels start from C's fill value, is peeled off that loop.
// KBLOCK-LABEL: func.func @k_blocks
// KBLOCK: %[[A0:.*]] = tensor.extract_slice %arg0[0, 0] [64, 256] [1, 1] : tensor<64x512xf32> to tensor<64x256xf32>
// KBLOCK: scf.for %[[P0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// KBLOCK: tensor.extract_slice %{{.*}}[%[[P0]], 0, 0] [1, 256, 16] [1, 1, 1] : tensor<2x512x16xf32> to tensor<256x16xf32>
// KBLOCK: linalg.fill
// KBLOCK: linalg.matmul ins(%[[A0]], %{{.*}} : tensor<64x256xf32>, tensor<256x16xf32>)
// KBLOCK: } {infc.parallel}
// KBLOCK: %[[ONE:.*]] = arith.constant 1 : index
// KBLOCK: scf.for %[[KB:.*]] = %[[ONE]] to %{{.*}} step %{{.*}} iter_args
// KBLOCK: %[[OFF:.*]] = arith.muli %[[KB]], %{{.*}} : index
// KBLOCK: %[[AB:.*]] = tensor.extract_slice %arg0[0, %[[OFF]]] [64, 256] [1, 1] : tensor<64x512xf32> to tensor<64x256xf32>
// KBLOCK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// KBLOCK: %[[PB:.*]] = tensor.extract_slice %{{.*}}[%[[P]], %[[OFF]], 0] [1, 256, 16] [1, 1, 1] : tensor<2x512x16xf32> to tensor<256x16xf32>
// KBLOCK-NOT: linalg.fill
// KBLOCK: linalg.matmul ins(%[[AB]], %[[PB]] : tensor<64x256xf32>, tensor<256x16xf32>)
// KBLOCK: } {infc.parallel}
// KBLOCK-NEXT: scf.yield
// AVX2-LABEL: func.func @k_blocks
// AVX2-NOT: tensor<64x256xf32>
func.func @k_blocks(%a: tensor<64x512xf32>, %b: tensor<512x32xf32>) -> tensor<64x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x512xf32>, tensor<512x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// K in blocks with an elementwise consumer (bias, residual, relu): the blocks before the
// last accumulate into the consumer's own result buffer (a residual cannot hold it, even
// one that dies here), and the last block, peeled off the loop too, applies the epilogue
// to each panel's product from zero plus the partial sums (its tile's output element).
// A fill of 1.5: the first block starts from it, the last block's product from zero.
// KBLOCK-LABEL: func.func @k_blocks_epilogue
// KBLOCK: %[[FILL:.*]] = arith.constant 1.500000e+00 : f32
// KBLOCK: linalg.transpose
// KBLOCK-NEXT: %[[E:.*]] = tensor.empty() : tensor<64x32xf32>
// KBLOCK-NEXT: tensor.extract_slice %arg0[0, 0] [64, 256]
// KBLOCK: %[[FIRST:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E]]) -> (tensor<64x32xf32>)
// KBLOCK: linalg.fill ins(%[[FILL]] : f32)
// KBLOCK-NOT: infc.epilogue
// KBLOCK: } {infc.parallel}
// KBLOCK: %[[A1:.*]] = tensor.extract_slice %arg0[0, 256] [64, 256] [1, 1] : tensor<64x512xf32> to tensor<64x256xf32>
// KBLOCK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]]) -> (tensor<64x32xf32>)
// KBLOCK: %[[Z0:.*]] = arith.constant 0.000000e+00 : f32
// KBLOCK-NEXT: %[[Z:.*]] = linalg.fill ins(%[[Z0]] : f32) outs(%{{.*}} : tensor<64x16xf32>)
// KBLOCK: %[[MM:.*]] = linalg.matmul ins(%[[A1]], %{{.*}} : tensor<64x256xf32>, tensor<256x16xf32>) outs(%[[Z]] : tensor<64x16xf32>)
// KBLOCK: %[[OUT:.*]] = tensor.extract_slice %[[ACC]]
// KBLOCK: linalg.generic {{.*}} ins(%[[MM]], %{{.*}}, %{{.*}} : tensor<64x16xf32>, tensor<64x16xf32>, tensor<16xf32>) outs(%[[OUT]] : tensor<64x16xf32>) attrs =  {infc.epilogue}
// KBLOCK-NEXT: ^bb0(%[[P:.*]]: f32, %[[R:.*]]: f32, %[[BV:.*]]: f32, %[[O:.*]]: f32):
// KBLOCK-NEXT: %[[SUM:.*]] = arith.addf %[[P]], %[[O]] : f32
// KBLOCK-NEXT: arith.addf %[[SUM]], %[[BV]] : f32
func.func @k_blocks_epilogue(%a: tensor<64x512xf32>, %b: tensor<512x32xf32>, %x: tensor<64x32xf32>, %bias: tensor<32xf32>) -> tensor<64x32xf32> {
  %z = arith.constant 0.0 : f32
  %f = arith.constant 1.5 : f32
  %e0 = tensor.empty() : tensor<64x32xf32>
  %res = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x32xf32>) outs(%e0 : tensor<64x32xf32>) {
  ^bb0(%v: f32, %out: f32):
    %0 = arith.maximumf %v, %z : f32
    linalg.yield %0 : f32
  } -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<64x32xf32>
  %c = linalg.fill ins(%f : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x512xf32>, tensor<512x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<64x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r, %res, %bias : tensor<64x32xf32>, tensor<64x32xf32>, tensor<32xf32>) outs(%e2 : tensor<64x32xf32>) {
  ^bb0(%p: f32, %s: f32, %bb: f32, %out: f32):
    %0 = arith.addf %p, %bb : f32
    %1 = arith.addf %0, %s : f32
    %2 = arith.maximumf %1, %z : f32
    linalg.yield %2 : f32
  } -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}

// C not a fill (an accumulation into a given C): the panels read their columns of C. At 512
// bits the 40 columns go through a scratch tile (a 48-wide panel, B padded with zero
// columns before its copy) that starts from C's columns.
// AVX2-LABEL: func.func @accumulate
// AVX2: scf.for {{.*}} iter_args(%[[ACC:.*]] = %arg2)
// AVX2: %[[CS:.*]] = tensor.extract_slice %[[ACC]]
// AVX2-NOT: linalg.fill
// AVX2: linalg.matmul ins(%arg0, %{{.*}} : tensor<64x96xf32>, tensor<96x16xf32>) outs(%[[CS]] : tensor<64x16xf32>)
// AVX2: } {infc.parallel}
// AVX512-LABEL: func.func @accumulate
// AVX512: tensor.pad %arg1 low[0, 0] high[0, 8]
// AVX512: %[[CT:.*]] = tensor.extract_slice %arg2[0, 0] [64, 40] [1, 1]
// AVX512: %[[Z:.*]] = linalg.fill
// AVX512: %[[S:.*]] = tensor.insert_slice %[[CT]] into %[[Z]][0, 0] [64, 40] [1, 1]
// AVX512: %[[TM:.*]] = linalg.matmul ins(%arg0, %{{.*}} : tensor<64x96xf32>, tensor<96x48xf32>) outs(%[[S]] : tensor<64x48xf32>)
// AVX512: %[[V:.*]] = tensor.extract_slice %[[TM]][0, 0] [64, 40] [1, 1]
// AVX512: tensor.insert_slice %[[V]] into %arg2[0, 0] [64, 40] [1, 1]
func.func @accumulate(%a: tensor<64x96xf32>, %b: tensor<96x40xf32>, %c: tensor<64x40xf32>) -> tensor<64x40xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x40xf32>) outs(%c : tensor<64x40xf32>) -> tensor<64x40xf32>
  return %r : tensor<64x40xf32>
}

// Wider than one vector but narrower than a panel (24 columns at 512 bits): one padded
// panel of two vectors.
// AVX512-LABEL: func.func @one_partial_panel
// AVX512: arith.constant dense<{{.*}}> : tensor<1x4x32xf32>
// AVX512-NOT: scf.for
// AVX512: linalg.matmul ins(%arg0, %{{.*}} : tensor<64x4xf32>, tensor<4x32xf32>) outs(%{{.*}} : tensor<64x32xf32>)
func.func @one_partial_panel(%a: tensor<64x4xf32>) -> tensor<64x24xf32> {
  %b = arith.constant dense<1.0> : tensor<4x24xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x24xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x24xf32>) -> tensor<64x24xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x4xf32>, tensor<4x24xf32>) outs(%c : tensor<64x24xf32>) -> tensor<64x24xf32>
  return %r : tensor<64x24xf32>
}

// All of the packed B fits L2 (96 x (64 + 16) floats) and M spans row blocks of 252 rows
// (about 96 KiB of A at K = 96, a multiple of the 6-row register tile): the row blocks are
// the outer, parallel loop (2 of them, then the 96 rows left as a block of their own) with
// the full 64-wide panel inside; the last 8 columns take a 16-wide panel through a scratch
// tile, after the loop, over all rows.
// ROWS-LABEL: func.func @row_blocks
// ROWS: %[[RL:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<600x72xf32>)
// ROWS: %[[ROW:.*]] = arith.muli %[[I]], %{{.*}} : index
// ROWS: %[[AR:.*]] = tensor.extract_slice %arg0[%[[ROW]], 0] [252, 96] [1, 1]
// ROWS: scf.for
// ROWS: linalg.fill
// ROWS: linalg.matmul ins(%[[AR]], %{{.*}} : tensor<252x96xf32>, tensor<96x64xf32>)
// ROWS: tensor.insert_slice %{{.*}} into %[[ACC]][%[[ROW]], 0] [252, 72] [1, 1]
// ROWS: } {infc.parallel}
// ROWS: tensor.extract_slice %arg0[504, 0] [96, 96] [1, 1]
// ROWS: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<96x96xf32>, tensor<96x64xf32>)
// ROWS: linalg.matmul ins(%arg0, %{{.*}} : tensor<600x96xf32>, tensor<96x16xf32>) outs(%{{.*}} : tensor<600x16xf32>)
// ROWS: tensor.insert_slice %{{.*}} into %{{.*}}[0, 64] [600, 8] [1, 1]
func.func @row_blocks(%a: tensor<600x96xf32>) -> tensor<600x72xf32> {
  %b = arith.constant dense<1.0> : tensor<96x72xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<600x72xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<600x72xf32>) -> tensor<600x72xf32>
  %r = linalg.matmul ins(%a, %b : tensor<600x96xf32>, tensor<96x72xf32>) outs(%c : tensor<600x72xf32>) -> tensor<600x72xf32>
  return %r : tensor<600x72xf32>
}


// A tail panel 48 wide takes 8 x 48 register tiles (split into one-vector columns): the
// row blocks are multiples of both its 8 rows and the 6 rows of the full panels' tiles.
// At K = 240 about 96 KiB of A would be 102 rows; 96 it is, ten blocks of 960 rows (102
// rows left an 8 x 48 edge tile in the row loop, whose product kept a buffer there).
// ROWS-LABEL: func.func @row_blocks_three_vector_tail
// ROWS: scf.for %{{.*}} = %c0 to %c10 step %c1 iter_args(%{{.*}}) -> (tensor<960x112xf32>)
// ROWS: tensor.extract_slice %arg0[%{{.*}}, 0] [96, 240] [1, 1]
// ROWS: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<96x240xf32>, tensor<240x64xf32>)
// ROWS: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<96x240xf32>, tensor<240x48xf32>)
// ROWS: } {infc.parallel}
// ROWS-NOT: linalg.matmul
// ROWS: return
func.func @row_blocks_three_vector_tail(%a: tensor<960x240xf32>) -> tensor<960x112xf32> {
  %b = arith.constant dense<1.0> : tensor<240x112xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<960x112xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<960x112xf32>) -> tensor<960x112xf32>
  %r = linalg.matmul ins(%a, %b : tensor<960x240xf32>, tensor<240x112xf32>) outs(%c : tensor<960x112xf32>) -> tensor<960x112xf32>
  return %r : tensor<960x112xf32>
}

// The matmul's elementwise consumer (bias add and relu on the product reshaped to NHWC,
// plus a residual: a function argument, not the function's to write) is applied panel by panel: the product of each panel is a temporary
// [M, nr] tensor, and the panel loop carries the consumer's result, viewed as [M, N]. The
// residual is read at the panel's columns, the bias per column.
// AVX512-LABEL: func.func @epilogue
// AVX512: %[[RES:.*]] = tensor.collapse_shape %arg1 {{\[}}[0, 1, 2], [3]] : tensor<1x4x16x64xf32> into tensor<64x64xf32>
// AVX512: %[[D:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<1x4x16x64xf32> into tensor<64x64xf32>
// AVX512: %[[L:.*]] = scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[D]]) -> (tensor<64x64xf32>)
// AVX512: %[[COL:.*]] = arith.muli %[[P]], %{{.*}} : index
// AVX512: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<64x64xf32>)
// AVX512: %[[MM:.*]] = linalg.matmul ins(%arg0, %{{.*}} : tensor<64x8xf32>, tensor<8x64xf32>) outs(%[[INIT]] : tensor<64x64xf32>)
// AVX512: %[[OUT:.*]] = tensor.extract_slice %[[ACC]][0, %[[COL]]] [64, 64] [1, 1]
// AVX512: %[[R:.*]] = tensor.extract_slice %[[RES]][0, %[[COL]]] [64, 64] [1, 1]
// AVX512: %[[B:.*]] = tensor.extract_slice %arg2[%[[COL]]] [64] [1]
// AVX512: %[[E:.*]] = linalg.generic {{.*}} ins(%[[MM]], %[[R]], %[[B]] : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>) outs(%[[OUT]] : tensor<64x64xf32>) attrs =  {infc.epilogue}
// AVX512: arith.maximumf
// AVX512: tensor.insert_slice %[[E]] into %[[ACC]][0, %[[COL]]] [64, 64] [1, 1]
// AVX512: } {infc.parallel}
// AVX512: %[[Y:.*]] = tensor.expand_shape %[[L]] {{\[}}[0, 1, 2], [3]] output_shape [1, 4, 16, 64]
// AVX512-NOT: linalg.generic
// AVX512: return %[[Y]]
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @epilogue(%a: tensor<64x8xf32>, %res: tensor<1x4x16x64xf32>, %bias: tensor<64xf32>) -> tensor<1x4x16x64xf32> {
  %w = arith.constant dense<0.25> : tensor<8x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<64x8xf32>, tensor<8x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r4 = tensor.expand_shape %r [[0, 1, 2], [3]] output_shape [1, 4, 16, 64] : tensor<64x64xf32> into tensor<1x4x16x64xf32>
  %e4 = tensor.empty() : tensor<1x4x16x64xf32>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r4, %res, %bias : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<64xf32>) outs(%e4 : tensor<1x4x16x64xf32>) {
  ^bb0(%x: f32, %s: f32, %b: f32, %out: f32):
    %0 = arith.addf %x, %b : f32
    %1 = arith.addf %0, %s : f32
    %2 = arith.maximumf %1, %z : f32
    linalg.yield %2 : f32
  } -> tensor<1x4x16x64xf32>
  return %y : tensor<1x4x16x64xf32>
}

// A residual computed in the function and read last by the consumer holds the result in
// place: the panel loop carries it (viewed as [M, N]) and each panel's epilogue reads it as
// its own output tile, so no fresh buffer is written.
// AVX512-LABEL: func.func @epilogue_in_place
// AVX512: %[[RES:.*]] = linalg.generic
// AVX512: arith.maximumf
// AVX512: %[[D:.*]] = tensor.collapse_shape %[[RES]] {{\[}}[0, 1, 2], [3]] : tensor<1x4x16x64xf32> into tensor<64x64xf32>
// AVX512: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[D]]) -> (tensor<64x64xf32>)
// AVX512: %[[MM:.*]] = linalg.matmul
// AVX512: %[[OUT:.*]] = tensor.extract_slice %[[ACC]][0, %{{.*}}] [64, 64] [1, 1]
// AVX512: %[[B:.*]] = tensor.extract_slice %arg2
// AVX512: linalg.generic {{.*}} ins(%[[MM]], %[[B]] : tensor<64x64xf32>, tensor<64xf32>) outs(%[[OUT]] : tensor<64x64xf32>) attrs =  {infc.epilogue}
// AVX512-NEXT: ^bb0(%[[P:.*]]: f32, %[[BV:.*]]: f32, %[[O:.*]]: f32):
// AVX512-NEXT: %[[S:.*]] = arith.addf %[[P]], %[[BV]] : f32
// AVX512-NEXT: arith.addf %[[S]], %[[O]] : f32
func.func @epilogue_in_place(%a: tensor<64x8xf32>, %x: tensor<1x4x16x64xf32>, %bias: tensor<64xf32>) -> tensor<1x4x16x64xf32> {
  %w = arith.constant dense<0.25> : tensor<8x64xf32>
  %z = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<1x4x16x64xf32>
  %res = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x16x64xf32>) outs(%e4 : tensor<1x4x16x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %0 = arith.maximumf %v, %z : f32
    linalg.yield %0 : f32
  } -> tensor<1x4x16x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<64x8xf32>, tensor<8x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r4 = tensor.expand_shape %r [[0, 1, 2], [3]] output_shape [1, 4, 16, 64] : tensor<64x64xf32> into tensor<1x4x16x64xf32>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r4, %res, %bias : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<64xf32>) outs(%e4 : tensor<1x4x16x64xf32>) {
  ^bb0(%v: f32, %s: f32, %b: f32, %out: f32):
    %0 = arith.addf %v, %b : f32
    %1 = arith.addf %0, %s : f32
    %2 = arith.maximumf %1, %z : f32
    linalg.yield %2 : f32
  } -> tensor<1x4x16x64xf32>
  return %y : tensor<1x4x16x64xf32>
}

// The same residual read again after the consumer (here: returned too) keeps its buffer:
// the result goes into the consumer's own init.
// AVX512-LABEL: func.func @epilogue_residual_live
// AVX512: %[[E:.*]] = tensor.empty() : tensor<1x4x16x64xf32>
// AVX512: %[[D:.*]] = tensor.collapse_shape %[[E]]
// AVX512: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[D]]) -> (tensor<64x64xf32>)
func.func @epilogue_residual_live(%a: tensor<64x8xf32>, %x: tensor<1x4x16x64xf32>, %bias: tensor<64xf32>) -> (tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>) {
  %w = arith.constant dense<0.25> : tensor<8x64xf32>
  %z = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<1x4x16x64xf32>
  %res = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x16x64xf32>) outs(%e4 : tensor<1x4x16x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %0 = arith.maximumf %v, %z : f32
    linalg.yield %0 : f32
  } -> tensor<1x4x16x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<64x8xf32>, tensor<8x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r4 = tensor.expand_shape %r [[0, 1, 2], [3]] output_shape [1, 4, 16, 64] : tensor<64x64xf32> into tensor<1x4x16x64xf32>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r4, %res, %bias : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<64xf32>) outs(%e4 : tensor<1x4x16x64xf32>) {
  ^bb0(%v: f32, %s: f32, %b: f32, %out: f32):
    %0 = arith.addf %v, %b : f32
    %1 = arith.addf %0, %s : f32
    linalg.yield %1 : f32
  } -> tensor<1x4x16x64xf32>
  return %y, %res : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>
}

// A residual the matmul itself reads (y = relu(x) + conv1x1(relu(x))), or a slice of a
// function argument: neither holds the result (the fused loops would read the first while
// writing it; the second is the caller's).
// AVX512-LABEL: func.func @epilogue_residual_read_by_matmul
// AVX512: tensor.empty() : tensor<64x64xf32>
// AVX512: %[[E:.*]] = tensor.empty() : tensor<1x4x16x64xf32>
// AVX512: %[[D:.*]] = tensor.collapse_shape %[[E]]
// AVX512: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[D]]) -> (tensor<64x64xf32>)
// AVX512-LABEL: func.func @epilogue_residual_argument_slice
// AVX512: %[[E:.*]] = tensor.empty() : tensor<1x4x16x64xf32>
// AVX512: %[[D:.*]] = tensor.collapse_shape %[[E]]
// AVX512: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[D]]) -> (tensor<64x64xf32>)
func.func @epilogue_residual_read_by_matmul(%x: tensor<1x4x16x64xf32>, %bias: tensor<64xf32>) -> tensor<1x4x16x64xf32> {
  %w = arith.constant dense<0.25> : tensor<64x64xf32>
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x4x16x64xf32>
  %res = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x16x64xf32>) outs(%e0 : tensor<1x4x16x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %0 = arith.maximumf %v, %z : f32
    linalg.yield %0 : f32
  } -> tensor<1x4x16x64xf32>
  %a = tensor.collapse_shape %res [[0, 1, 2], [3]] : tensor<1x4x16x64xf32> into tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r4 = tensor.expand_shape %r [[0, 1, 2], [3]] output_shape [1, 4, 16, 64] : tensor<64x64xf32> into tensor<1x4x16x64xf32>
  %e4 = tensor.empty() : tensor<1x4x16x64xf32>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r4, %res, %bias : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<64xf32>) outs(%e4 : tensor<1x4x16x64xf32>) {
  ^bb0(%v: f32, %s: f32, %b: f32, %out: f32):
    %0 = arith.addf %v, %b : f32
    %1 = arith.addf %0, %s : f32
    linalg.yield %1 : f32
  } -> tensor<1x4x16x64xf32>
  return %y : tensor<1x4x16x64xf32>
}
func.func @epilogue_residual_argument_slice(%a: tensor<64x8xf32>, %x: tensor<2x4x16x64xf32>, %bias: tensor<64xf32>) -> tensor<1x4x16x64xf32> {
  %w = arith.constant dense<0.25> : tensor<8x64xf32>
  %z = arith.constant 0.0 : f32
  %res = tensor.extract_slice %x[1, 0, 0, 0] [1, 4, 16, 64] [1, 1, 1, 1] : tensor<2x4x16x64xf32> to tensor<1x4x16x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<64x8xf32>, tensor<8x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r4 = tensor.expand_shape %r [[0, 1, 2], [3]] output_shape [1, 4, 16, 64] : tensor<64x64xf32> into tensor<1x4x16x64xf32>
  %e4 = tensor.empty() : tensor<1x4x16x64xf32>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r4, %res, %bias : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<64xf32>) outs(%e4 : tensor<1x4x16x64xf32>) {
  ^bb0(%v: f32, %s: f32, %b: f32, %out: f32):
    %0 = arith.addf %v, %b : f32
    %1 = arith.addf %0, %s : f32
    linalg.yield %1 : f32
  } -> tensor<1x4x16x64xf32>
  return %y : tensor<1x4x16x64xf32>
}

// A consumer whose result is not f32 (a cast to f16 merged into it) is not taken as the
// epilogue: the product stays f32 and the consumer runs after the panels.
// AVX512-LABEL: func.func @epilogue_other_type
// AVX512-NOT: infc.epilogue
// AVX512: } {infc.parallel}
// AVX512: linalg.generic {{.*}} ins(%{{.*}} : tensor<64x64xf32>) outs(%{{.*}} : tensor<64x64xf16>)
func.func @epilogue_other_type(%a: tensor<64x8xf32>) -> tensor<64x64xf16> {
  %w = arith.constant dense<0.25> : tensor<8x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<64x8xf32>, tensor<8x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %h = tensor.empty() : tensor<64x64xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<64x64xf32>) outs(%h : tensor<64x64xf16>) {
  ^bb0(%x: f32, %out: f16):
    %0 = arith.truncf %x : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<64x64xf16>
  return %y : tensor<64x64xf16>
}

// M = 512: 6 x 64 register tiles (the 8 x 48 ones that leave no partial row tile are for a
// few hundred rows), in row blocks of 252 rows and an 8-row edge. B larger than the budget
// (32 KiB here: 2 panels of 64 x 64 floats) and A larger than twice that (128 KiB): the row
// blocks run per column block of 2 panels, a serial loop over the one whole block, then
// the third panel as a block of its own, then the 56 columns left (a 64-wide panel) over
// all rows.
// COLS-LABEL: func.func @column_blocks
// COLS: arith.constant dense<1.000000e+00> : tensor<3x64x64xf32>
// COLS: %[[CL:.*]] = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}}) -> (tensor<512x248xf32>)
// COLS: %[[P0:.*]] = arith.muli %[[J]], %{{.*}} : index
// COLS: %[[P1:.*]] = arith.addi %[[P0]], %{{.*}} : index
// COLS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// COLS: scf.for %{{.*}} = %[[P0]] to %[[P1]] step %{{.*}} iter_args
// COLS: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<252x64xf32>, tensor<64x64xf32>)
// COLS: } {infc.parallel}
// COLS: } {infc.parallel}
// COLS: scf.for %{{.*}} = %[[P0]] to %[[P1]] step %{{.*}} iter_args
// COLS: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x64xf32>)
// COLS: } {infc.parallel}
// COLS-NEXT: tensor.insert_slice
// COLS-NEXT: scf.yield
// COLS-NEXT: }
// COLS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// COLS: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<252x64xf32>, tensor<64x64xf32>)
// COLS: } {infc.parallel}
// COLS: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x64xf32>)
// COLS: linalg.matmul ins(%arg0, %{{.*}} : tensor<512x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<512x64xf32>)
// COLS: tensor.insert_slice %{{.*}} into %{{.*}}[0, 192] [512, 56] [1, 1]
func.func @column_blocks(%a: tensor<512x64xf32>) -> tensor<512x248xf32> {
  %b = arith.constant dense<1.0> : tensor<64x248xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x248xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<512x248xf32>) -> tensor<512x248xf32>
  %r = linalg.matmul ins(%a, %b : tensor<512x64xf32>, tensor<64x248xf32>) outs(%c : tensor<512x248xf32>) -> tensor<512x248xf32>
  return %r : tensor<512x248xf32>
}


// A few rows (M = 8) against a B larger than twice the row-block budget (512 x 1152 floats,
// 2.3 MiB): weights that come from memory. K is stepped in blocks of 256 so each block of a
// panel is fetched once for all row tiles, inside the parallel panel loop (a thread takes
// whole panels, streams through their blocks in order, and the threads meet once): the
// first block from the fill, the last (here the second) accumulating.
// AVX512-LABEL: func.func @few_rows_large_b
// AVX512: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// AVX512: %[[B0:.*]] = tensor.extract_slice %{{.*}}[%[[P]], 0, 0] [1, 256, 64] [1, 1, 1] : tensor<18x512x64xf32> to tensor<256x64xf32>
// AVX512: %[[A0:.*]] = tensor.extract_slice %arg0[0, 0] [8, 256] [1, 1] : tensor<8x512xf32> to tensor<8x256xf32>
// AVX512: linalg.fill
// AVX512: linalg.matmul ins(%[[A0]], %[[B0]] : tensor<8x256xf32>, tensor<256x64xf32>)
// AVX512: %[[B1:.*]] = tensor.extract_slice %{{.*}}[%[[P]], 256, 0] [1, 256, 64] [1, 1, 1] : tensor<18x512x64xf32> to tensor<256x64xf32>
// AVX512: %[[A1:.*]] = tensor.extract_slice %arg0[0, 256] [8, 256] [1, 1] : tensor<8x512xf32> to tensor<8x256xf32>
// AVX512-NOT: linalg.fill
// AVX512: linalg.matmul ins(%[[A1]], %[[B1]] : tensor<8x256xf32>, tensor<256x64xf32>)
// AVX512: } {infc.panel_k_blocks = 256 : i64, infc.parallel}
// AVX2-LABEL: func.func @few_rows_large_b
// AVX2: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x256xf32>, tensor<256x16xf32>)
func.func @few_rows_large_b(%a: tensor<8x512xf32>) -> tensor<8x1152xf32> {
  %b = arith.constant dense<1.0> : tensor<512x1152xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x1152xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<8x1152xf32>) -> tensor<8x1152xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x512xf32>, tensor<512x1152xf32>) outs(%c : tensor<8x1152xf32>) -> tensor<8x1152xf32>
  return %r : tensor<8x1152xf32>
}
